#!/usr/bin/env bash
# One full run on the GPU machine (no Rust there): run from the repository root
# after `cargo xtask bundle`, with bundle/ carried. Logs go to $OUT (or /tmp/gpu-out).
#   .ci/gpu-run.sh [tests] [cli] [limits] [sanitize] [bench] [ptxas]   (default: tests cli)
# (bundle/ from `cargo xtask sanitize`, which also writes bundle/sanitize.sh)
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
        for v in radix naive; do
          $B/host --variant $v --require-gpu --check --repeat 10 $args 2>&1 | tee -a "$OUT/cli.log" || status=1
        done
      done ;;
    limits)
      $B/tests/gpu_limits-test --ignored --nocapture 2>&1 | tee "$OUT/limits.log" | tail -15 || status=1 ;;
    sanitize)
      $B/sanitize.sh "$OUT/sanitize" ${VARIANTS:-} 2>&1 | tail -20 || status=1 ;;
    bench)
      $B/host bench --require-gpu --variants radix,mergepath,naive,sm8,sm9,sm,quick,blockmerge,bitonic --type u32,entity \
        --n 2^20,2^24 --repeat 10 --csv "$OUT/bench.csv" 2>&1 | tail -40 || status=1
      $B/host bench-pairs --type u32,u64 --values u32 --n 2^20,2^24,2^28 --repeat 10 2>&1 | tail -8 || status=1
      $B/host bench-topk --type u32,u64 --n 2^26 --k 100,65536 --repeat 10 --check 2>&1 | tail -6 || status=1
      $B/host bench-segments --type u32,u64 --n 2^24 --segments 2^16,2^12 --repeat 10 --check 2>&1 | tail -6 || status=1 ;;
    ptxas)
      ptxas -arch=sm_90 -v -o /dev/null target/ptx/kernels.ptx 2>&1 | tail -40 ;;
    *) echo "unknown step $step"; status=1 ;;
  esac
done
echo "gpu-run: status $status"
exit $status
