# Shared prologue of the device-call scripts (docs/results/session*/runN_script.sh),
# for later sessions; the scripts of earlier sessions stay as they ran. Source it from
# the repository root on the device machine, where $OUT is the folder that comes back:
#
#   . docs/results/lib.sh
#   unpack h.tar.xz /tmp/bundle; device_info; cub_start
#   /tmp/bundle/host bench ... > $L/keys.txt 2>&1; fin
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
