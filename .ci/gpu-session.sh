#!/usr/bin/env bash
# One full session on the GPU machine (no Rust there): run from the repository root
# after `cargo xtask bundle`, with bundle/ carried. Logs go to $OUT (or /tmp/gpu-out).
#   .ci/gpu-session.sh [tests] [cli] [sanitize] [bench]   (default: tests cli)
set -u
OUT=${OUT:-/tmp/gpu-out}; mkdir -p "$OUT"
B=bundle
steps=${*:-tests cli}
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$OUT/device.txt"
for step in $steps; do
  echo "=== $step"
  case $step in
    tests)
      $B/run-gpu-tests.sh "$OUT/tests" || status=1 ;;
    cli)
      for args in "--n 2^24 --order desc" "--n 2^24 --order asc" "--n 10000019 --order desc" "--n 10000019 --order asc --type entity"; do
        $B/host --variant naive --require-gpu --check --repeat 10 $args 2>&1 | tee -a "$OUT/cli.log" || status=1
      done ;;
    sanitize)
      for tool in memcheck racecheck synccheck initcheck; do
        compute-sanitizer --tool $tool --error-exitcode 9 $B/host --require-gpu --check --repeat 1 --n 100003 --type entity --variant ${VARIANTS:-naive} > "$OUT/sanitize-$tool.log" 2>&1
        rc=$?; echo "$tool: rc=$rc $(grep -h 'ERROR SUMMARY' "$OUT/sanitize-$tool.log" | tail -1)"; [ $rc -eq 0 ] || status=1
      done ;;
    ptxas)
      ptxas -arch=sm_90 -v -o /dev/null target/ptx/kernels.ptx 2>&1 | tail -40 ;;
    *) echo "unknown step $step"; status=1 ;;
  esac
done
echo "gpu-session: status $status"
exit $status
