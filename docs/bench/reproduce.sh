#!/usr/bin/env bash
# Measures every table and chart of docs/performance.md in one run on a GPU machine:
# our sorts, CUB (nvcc -O3 -arch=sm_90 cub_anchor.cu) and torch (torch_anchor.py) in
# the same call, then CSV files, charts and the markdown tables under one folder.
#
#   docs/bench/reproduce.sh [--host PATH] [--anchors DIR] [--out DIR] [--repeat N]
#                           [--multi | --cpu]
#
#   --host     the release `host` binary (default: bundle/host, from `cargo xtask bundle`,
#              else target/release/host)
#   --anchors  the folder with cub_anchor.cu and torch_anchor.py (default: $ANCHORS,
#              else bundle/anchors); without it CUB and torch are left out
#   --out      where everything goes (default: $OUT/results if $OUT is set, else
#              ./results); a folder of an earlier run is reused
#   --repeat   timed repeats of each configuration (default 10)
#   --multi    the several-GPU tables instead (host bench --gpus 1,2[,4]; a machine with
#              two or more GPUs)
#   --cpu      a rehearsal on the CPU backend with small sizes (no GPU needed): the
#              commands that need a GPU, CUB and torch are left out
#
# Writes OUT/log/*.txt (each command's output), OUT/*.csv (host bench --csv, host study,
# docs/bench/collect.py for the printed tables, files.csv), OUT/svg/*.svg (charts by
# host bench --chart-from), OUT/tables.md (docs/bench/tables.py), OUT/commands.csv and
# OUT/run.csv (device, date). Sized to finish within 8 minutes on one H100 (sizes up to
# 2^28, 10 repeats; CUB compiles while our benchmarks run). A failing command is logged
# in OUT/failures.txt and the run goes on. To put the results into the docs:
#   cp OUT/*.csv OUT/svg/*.svg docs/results/h100/     (several GPUs: docs/results/multi/)
#   python3 docs/bench/tables.py docs/results/h100 docs/results/multi \
#     --update docs/performance.md README.md
set -u
here=$(cd "$(dirname "$0")" && pwd)
host=""; anchors=${ANCHORS:-}; out=""; repeat=10; mode=gpu
while [ $# -gt 0 ]; do
  case $1 in
    --host) host=$2; shift 2 ;;
    --anchors) anchors=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --multi) mode=multi; shift ;;
    --cpu) mode=cpu; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; exit 0 ;;
    *) echo "reproduce.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$host" ]; then
  for h in bundle/host target/release/host; do [ -x "$h" ] && { host=$h; break; }; done
fi
[ -x "$host" ] || { echo "reproduce.sh: no host binary (--host PATH; cargo xtask bundle builds bundle/host)" >&2; exit 2; }
host=$(cd "$(dirname "$host")" && pwd)/$(basename "$host")
[ -z "$anchors" ] && [ -d bundle/anchors ] && anchors=bundle/anchors
[ -n "$anchors" ] && anchors=$(cd "$anchors" && pwd)
out=${out:-${OUT:+$OUT/}results}
mkdir -p "$out/log" "$out/svg"
out=$(cd "$out" && pwd)
py=""
for p in python3 /opt/torch/.venv/bin/python; do command -v "$p" > /dev/null && { py=$p; break; }; done
start=$(date +%s)
: > "$out/failures.txt"
printf 'csv,command,tables\n' > "$out/commands.csv"

# step LOG CSV TABLES -- COMMAND...: runs COMMAND with its output in log/LOG.txt and
# records it (with `host` for the binary's path) as measuring CSV for TABLES.
step() {
  local log=$1 csv=$2 tables=$3; shift 4
  local shown="${*//$host/host}"
  shown="${shown//$out\//}"
  printf '%s,"%s",%s\n' "$csv" "${shown//\"/\"\"}" "$tables" >> "$out/commands.csv"
  printf '[%4ds] %s\n' $(( $(date +%s) - start )) "$shown"
  if ! "$@" > "$out/log/$log.txt" 2>&1; then
    echo "$shown: exit status $? (log/$log.txt)" | tee -a "$out/failures.txt"
    tail -5 "$out/log/$log.txt"
  fi
}

# Seconds of wall clock the command takes (its output in log/last.txt).
wall() {
  local s e
  s=$(date +%s%N)
  "$@" > "$out/log/last.txt" 2>&1 || echo "$*: failed: $(tail -1 "$out/log/last.txt")" >> "$out/failures.txt"
  e=$(date +%s%N)
  awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", (e - s) / 1e9 }'
}

# One row of files.csv: WHAT, then the times of its runs (the median is the value).
file_row() {
  local what=$1; shift
  local med
  med=$(printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  local runs="median of $# runs: $(echo "$@" | sed 's/ / \/ /g') s"
  [ $# -eq 1 ] && runs="one run"
  printf '"%s",%s,"%s"\n' "$what" "$med" "$runs" >> "$out/files.csv"
}

# The file sorts: wall clock of whole commands, page cache warm, `sync` before each.
files() {
  # The 1-2 GiB work files stay out of OUT (which may be copied back whole).
  local w=${TMPDIR:-/tmp}/reproduce-files.$$ big=2^28 text=10M u64=2^27 budget=256M req=--require-gpu
  [ "$mode" = cpu ] && { big=2^20; text=100K; u64=2^18; budget=1M; req=""; }
  mkdir -p "$w"
  printf 'what,seconds,note\n' > "$out/files.csv"
  local cmd="host sort -i u32.bin -o out.bin --type u32 $req"
  printf 'files,"%s  # wall clock, page cache warm, sync before each run; 3 runs each, also cp and numpy",\n' "$cmd" >> "$out/commands.csv"
  "$host" gen -o "$w/u32.bin" --n "$big" --type u32 > /dev/null && cat "$w/u32.bin" > /dev/null
  local a=() c=() n=()
  for _ in 1 2 3; do sync; a+=("$(wall "$host" sort -i "$w/u32.bin" -o "$w/out.bin" --type u32 $req)"); done
  "$host" check-file --type u32 -i "$w/u32.bin" -o "$w/out.bin" > "$out/log/files-check.txt" 2>&1 ||
    echo "check-file of the sorted u32 file failed" >> "$out/failures.txt"
  for _ in 1 2 3; do rm -f "$w/cp.bin"; sync; c+=("$(wall cp "$w/u32.bin" "$w/cp.bin")"); done
  file_row "$(du -h "$w/u32.bin" | cut -f1) u32 binary ($big keys), \`host sort\` into a new file" "${a[@]}"
  file_row "same file, \`cp\` (the floor)" "${c[@]}"
  for p in "$py" python3; do
    if [ -n "$p" ] && "$p" -c 'import numpy' 2> /dev/null; then
      for _ in 1 2 3; do sync; n+=("$(wall "$p" -c "import numpy as np; a = np.fromfile('$w/u32.bin', dtype=np.uint32); a.sort(); a.tofile('$w/np.bin')")"); done
      file_row "same file, numpy fromfile + sort + tofile" "${n[@]}"
      break
    fi
  done
  rm -f "$w"/*.bin
  "$host" gen -o "$w/u64.bin" --n "$u64" --type u64 > /dev/null && cat "$w/u64.bin" > /dev/null
  a=(); c=()
  for _ in 1 2 3; do sync; a+=("$(wall "$host" sort -i "$w/u64.bin" -o "$w/out.bin" --type u64 $req)"); done
  for _ in 1 2 3; do sync; c+=("$(wall "$host" sort -i "$w/u64.bin" -o "$w/out.bin" --type u64 $req --max-device-bytes "$budget")"); done
  file_row "$(du -h "$w/u64.bin" | cut -f1) u64 binary ($u64 keys), \`host sort\` in device memory" "${a[@]}"
  file_row "same file, \`host sort --max-device-bytes $budget\` (chunks merged on the CPU)" "${c[@]}"
  rm -f "$w"/*.bin
  "$host" gen -o "$w/i64.txt" --n "$text" --type i64 --text > /dev/null && cat "$w/i64.txt" > /dev/null
  a=(); c=()
  for _ in 1 2 3; do sync; a+=("$(wall "$host" sort -i "$w/i64.txt" -o "$w/out.txt" --type i64 --text $req)"); done
  sync; c+=("$(wall sort -n "$w/i64.txt" -o "$w/gnu.txt")")
  file_row "$text random i64 as text ($(du -h "$w/i64.txt" | cut -f1)), \`host sort --text\`" "${a[@]}"
  file_row "same file, GNU \`sort -n\`" "${c[@]}"
  printf '\x04\x03\x02\x01' > "$w/k4.bin"
  a=()
  for _ in 1 2 3; do a+=("$(wall env CUDA_CACHE_DISABLE=1 "$host" sort -i "$w/k4.bin" -o "$w/o4.bin" --type u32 $req)"); done
  file_row "a 4-byte file, empty JIT cache (the start-up of \`host sort\`)" "${a[@]}"
  rm -rf "$w"
}

probe=--require-gpu; [ "$mode" = cpu ] && probe=--cpu
device=$("$host" --n 1000 $probe 2>&1 | sed -n 's/^device: *//p' | head -1)
[ "$mode" = multi ] && device="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ') x $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
[ "$mode" = cpu ] && device="CPU backend"
{
  echo "key,value"
  echo "date,$(date -u +%F)"
  echo "device,\"$device\""
  echo "host,\"$("$host" --version 2>/dev/null)\""
  command -v nvidia-smi > /dev/null && echo "driver,$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
  echo "cpu,\"$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1) ($(nproc) threads)\""
} > "$out/run.csv"
echo "reproduce.sh ($mode) on $device: results in $out"
if [ "$mode" = gpu ] && [ -z "$anchors" ]; then
  echo "no anchors folder (--anchors): CUB and torch left out" | tee -a "$out/failures.txt"
fi

r=$repeat
case $mode in
  gpu|cpu)
    on=--require-gpu; sizes=2^20,2^24,2^28; small=2^20,2^24; n24=2^24; n26=2^26
    if [ "$mode" = cpu ]; then on=--cpu; sizes=2^10,2^14,2^16; small=2^10,2^14; n24=2^14; n26=2^16; r=2; fi
    if [ "$mode" = gpu ] && [ -n "$anchors" ] && command -v nvcc > /dev/null; then
      # Compiled while the GPU benchmarks run (CPU only); timed after them.
      (nvcc -O3 -arch=sm_90 -o "$out/cub_anchor" "$anchors/cub_anchor.cu" > "$out/log/nvcc.txt" 2>&1) &
      nvcc_pid=$!
    fi
    step sorts sorts "headline radix mergepath" -- "$host" bench $on --no-progress --variants radix,mergepath \
      --type u32,f32,u64 --n $sizes --repeat $r --csv "$out/sorts.csv"
    step sorts-entity sorts "radix mergepath" -- "$host" bench $on --no-progress --variants radix,mergepath \
      --type entity --n $small --repeat $r --csv "$out/sorts-entity.csv"
    step classic classic classic -- "$host" bench $on --no-progress \
      --variants naive,sm8,sm9,sm,quick,blockmerge,bitonic --type u32,entity --n $n24 --repeat $r --csv "$out/classic.csv"
    if [ "$mode" = gpu ]; then
      step pairs-radix pairs "headline radix argsort" -- "$host" bench-pairs --type u32,u64 --values u32 --n $small \
        --repeat $r --argsort
      step pairs-radix-28 pairs "headline radix argsort" -- "$host" bench-pairs --type u32,u64 --values u32 --n 2^28 \
        --repeat $r --argsort --no-check
      step pairs-radix-v64 pairs radix -- "$host" bench-pairs --type u32 --values u64 --n 2^24 --repeat $r
      step pairs-mergepath pairs mergepath -- "$host" bench-pairs --variant mergepath --type u32,f32,u64 --values u32 \
        --n $small --repeat $r
      step pairs-mergepath-28 pairs mergepath -- "$host" bench-pairs --variant mergepath --type u32 --values u32 \
        --n 2^28 --repeat $r --no-check
      step records records records -- "$host" bench-records --record-size 32 --key-offset 0 --key-type u32 --n 2^24 \
        --repeat $r
      step records-64 records records -- "$host" bench-records --record-size 64 --key-offset 8 --key-type u64 \
        --n 2^22 --repeat $r
      step segments segments segments -- "$host" bench-segments --type u32,u64 --n 2^24 --segments 2^12,2^16,2^20 \
        --repeat $r --check
      step segments-pairs segments segments -- "$host" bench-segments --type u32 --n 2^24 --segments 2^12,2^16 \
        --repeat $r --check --pairs
      step topk topk topk -- "$host" bench-topk --type u32,u64 --n 2^26 --k 100,1000 --repeat $r --check
    fi
    printf '[%4ds] file sorts\n' $(( $(date +%s) - start ))
    files
    if [ "$mode" = gpu ] && [ -n "${nvcc_pid:-}" ]; then
      if wait "$nvcc_pid" && [ -x "$out/cub_anchor" ]; then
        step cub anchors "" -- "$out/cub_anchor"
      else
        echo "nvcc failed (log/nvcc.txt): no CUB numbers" | tee -a "$out/failures.txt"
      fi
    fi
    if [ "$mode" = gpu ] && [ -n "$anchors" ] && [ -x /opt/torch/.venv/bin/python ]; then
      step torch anchors "" -- /opt/torch/.venv/bin/python "$anchors/torch_anchor.py"
    fi
    tn=10000000; [ "$mode" = cpu ] && tn=200000
    step threads threads cpu -- "$host" study threads --n $tn --repeat 5 --out "$out/study"
    cp "$out/study/threads.csv" "$out/threads.csv" 2> /dev/null
    ;;
  multi)
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
    step multi-u32 multi multi -- "$host" bench --gpus 1,2 --type u32 --n 2^28,2^30 --repeat $r --check
    step multi-u64 multi multi -- "$host" bench --gpus 1,2 --type u64 --n 2^29 --repeat 5 --check
    step multi-pairs multi multi -- "$host" bench --gpus 1,2 --type u32 --n 2^29 --repeat 5 --check --pairs
    if [ "$gpus" -ge 4 ]; then
      step multi-4 multi multi -- "$host" bench --gpus 1,2,4 --type u32 --n 2^31 --repeat 5
    fi
    ;;
esac

if [ -n "$py" ]; then
  "$py" "$here/collect.py" "$out" | sed 's/^/  /'
  charts=$(ls "$out"/sorts*.csv "$out/anchor_keys.csv" 2> /dev/null | paste -sd, -)
  if [ -n "$charts" ]; then
    # The README's chart is svg/throughput-u32-uniform.svg.
    step charts charts "" -- "$host" bench --chart-from "$charts" --type u32,u64 --svg "$out/svg/throughput.svg"
  fi
  "$py" "$here/tables.py" "$out" > "$out/tables.md" && echo "  wrote $out/tables.md"
else
  echo "no python3: run docs/bench/collect.py and tables.py on $out elsewhere" | tee -a "$out/failures.txt"
fi
printf '[%4ds] done; %d failures (failures.txt)\n' $(( $(date +%s) - start )) "$(wc -l < "$out/failures.txt")"
