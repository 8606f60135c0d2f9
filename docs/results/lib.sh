# Shared prologue of the device-call scripts (docs/results/session*/runN_script.sh),
# for later sessions; the scripts of earlier sessions stay as they ran. Source it from
# the repository root on the device machine, where $OUT is the folder that comes back:
#
#   . docs/results/lib.sh
#   unpack h.tar.xz /tmp/bundle; device_info; cub_start
#   /tmp/bundle/host bench ... > $L/keys.txt 2>&1; fin   (or bench_alternate, issue11_table,
#   mergepath_checks below: the blocks that the session-17 to -19 scripts repeat)
#   cub_run; fin
#
# C: the carried folder (carry/), L: the log folder ($OUT/logs), packed into
# $OUT/logs.tgz by `fin` (call it after every step, so a timeout keeps what ran).
set -u
C=$PWD/carry
L=$OUT/logs
mkdir -p "$L"
export SORT_REQUIRE_GPU=1 HOST_BIN=/tmp/bundle/host

fin() { (cd "$OUT" && tar czf logs.tgz logs); }

# unpack ARCHIVE DIR: a fresh DIR with carry/ARCHIVE (an xz tar) unpacked in it (a warm
# machine keeps /tmp from the previous call).
unpack() {
  rm -rf "$2" && mkdir -p "$2" && (cd "$2" && xz -dc "$C/$1" | tar xf -) || { echo "unpack $1 failed"; exit 1; }
}

device_info() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$L/device.txt"
}

# The CUB anchor (../shared/anchors/cub_anchor.cu, carried): compiled in the background
# by cub_start, run by cub_run after our benchmarks (same call, so ratios carry over).
cub_start() {
  (nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor "$C/cub_anchor.cu" > "$L/nvcc.txt" 2>&1; echo "nvcc rc=$?" >> "$L/nvcc.txt") &
  CUB_PID=$!
}
cub_run() {
  wait "$CUB_PID"
  /tmp/cub_anchor > "$L/cub.txt" 2>&1
  grep "merge\|d2d" "$L/cub.txt"
}

# ncu_times NAME CMD...: every kernel's duration (ncu, base clocks, one kernel at a
# time) into $L/NAME_ncu.csv; summarise here with docs/results/ncu_times.py.
ncu_times() {
  local name=$1; shift
  ncu --metrics gpu__time_duration.sum --csv "$@" > "$L/${name}_ncu.csv" 2>&1
}

# bench_alternate ROUNDS NAME:DIR...: the mergepath benchmarks of each build (its host in
# DIR) in turn, ROUNDS times, so that builds are compared within one call: u32 and f32
# at $KN, i32 and u64 at $JN, u32 + u32 pairs at $PN (defaults below). One log per
# build, kind and round ($L/{k,j,p}_NAMEROUND.txt) and a summary line of Gkeys/s each.
KN=${KN:-2^20,2^22,2^24,2^26,2^28}
JN=${JN:-2^24,2^28}
PN=${PN:-2^24,2^28}
bench_alternate() {
  local rounds=$1 round v name dir; shift
  for round in $(seq "$rounds"); do
    for v in "$@"; do
      IFS=: read -r name dir <<< "$v"
      "$dir/host" bench --require-gpu --variants mergepath --type u32,f32 --n "$KN" --repeat 10 > "$L/k_$name$round.txt" 2>&1
      "$dir/host" bench --require-gpu --variants mergepath --type i32,u64 --n "$JN" --repeat 10 > "$L/j_$name$round.txt" 2>&1
      "$dir/host" bench-pairs --variant mergepath --type u32 --values u32 --n "$PN" --repeat 10 > "$L/p_$name$round.txt" 2>&1
      echo "$name$round u32,f32 $KN: $(grep -h '^mergepath ' "$L/k_$name$round.txt" | awk '{printf "%s ", $9}')"
      echo "$name$round i32,u64 $JN: $(grep -h '^mergepath ' "$L/j_$name$round.txt" | awk '{printf "%s ", $9}') pairs $PN: $(grep -h '^u32' "$L/p_$name$round.txt" | awk '{printf "%s ", $6}')"
      fin
    done
  done
}

# issue11_table (first run in session 19's run 9): issue 11's table of /tmp/bundle/host ($L/mp_keys.txt, mp_entity.txt,
# mp_pairs.txt) and a summary line each; call cub_start first and cub_run after it.
issue11_table() {
  local A=/tmp/bundle/host
  $A bench --require-gpu --variants mergepath --type u32,u64,f32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_keys.txt 2>&1
  $A bench --require-gpu --variants mergepath --type entity --n 2^20,2^24,2^26 --repeat 10 > $L/mp_entity.txt 2>&1
  $A bench-pairs --variant mergepath --type u32 --values u32 --n 2^20,2^22,2^23,2^24,2^26,2^28 --repeat 10 > $L/mp_pairs.txt 2>&1
  echo "table keys u32,u64,f32: $(grep -h '^mergepath ' $L/mp_keys.txt | awk '{printf "%s ", $9}')"
  echo "entity: $(grep -h '^mergepath ' $L/mp_entity.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/mp_pairs.txt | awk '{printf "%s ", $6}')"
  fin
}

# mergepath_checks (the body of session 19's run 8; not yet run as a helper): on /tmp/bundle, gpu_mergepath and gpu_records with the widest block
# sorts forced, gpu_mergepath --ignored (2^28, 2^31 + 1000), and memcheck / racecheck /
# synccheck on the cluster sort, the x4 u64 and key-value block sorts and records.
mergepath_checks() {
  local A=/tmp/bundle/host T=/tmp/bundle/tests S="timeout 60 compute-sanitizer --error-exitcode 9" tool
  SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 100 $T/gpu_mergepath-test > $L/t_mp_forced.txt 2>&1; echo "gpu_mergepath widest forced rc=$? $(grep -h '^test result' $L/t_mp_forced.txt)"
  SORT_MERGEPATH_WIDE_MIN_PER_SM=0 timeout 100 $T/gpu_records-test > $L/t_rec_forced.txt 2>&1; echo "gpu_records widest forced rc=$? $(grep -h '^test result' $L/t_rec_forced.txt)"
  timeout 150 $T/gpu_mergepath-test --ignored > $L/t_mp_ignored.txt 2>&1; echo "gpu_mergepath --ignored rc=$? $(grep -h '^test result' $L/t_mp_ignored.txt)"
  fin
  for tool in memcheck racecheck synccheck; do
    SORT_MERGEPATH_WIDE_MIN_PER_SM=0 $S --tool $tool $A --variant mergepath --type i32 --order desc --n 1000003 --check --repeat 1 --require-gpu > $L/san_x8_i32_$tool.log 2>&1; echo "x8 i32 desc 1000003 $tool rc=$?"
    SORT_MERGEPATH_WIDE_MIN_PER_SM=0 $S --tool $tool $A --variant mergepath --type u64 --order desc --n 777777 --check --repeat 1 --require-gpu > $L/san_x4_u64_$tool.log 2>&1; echo "x4 u64 desc 777777 $tool rc=$?"
    SORT_MERGEPATH_WIDE_MIN_PER_SM=0 $S --tool $tool $A bench-pairs --variant mergepath --type u32 --values u32 --n 3000017 --repeat 1 > $L/san_kv_$tool.log 2>&1; echo "kv x4 u32+u32 3000017 $tool rc=$?"
    $S --tool $tool $A --variant mergepath --type entity --n 300007 --check --repeat 1 --require-gpu > $L/san_entity_$tool.log 2>&1; echo "entity 300007 $tool rc=$?"
    fin
  done
}
