#!/usr/bin/env bash
# The file-sort benchmark of issue 13, on the GPU machine (bundle/ copied there):
#   docs/bench-file.sh BUNDLE_DIR [WORK_DIR]
# Times, page cache warm, wall clock: `host sort` of a 1 GiB binary u32 file (2^28
# keys) into another file (default and --fsync), numpy (fromfile, sort, tofile) and
# torch (read, to GPU, torch.sort, back, write) on the same file; a 1 GB-class text
# file of random i64 with `host sort --text` against GNU `sort -n` (default settings)
# and Python's sorted() of the parsed ints; and the first `host sort` of a 4-byte
# file with an empty JIT cache (CUDA_CACHE_DISABLE=1), embedded cubin vs PTX.
set -u
B=$(cd "${1:?bundle dir}" && pwd)
W=${2:-/tmp/bench-file}
mkdir -p "$W"
H=$B/host
t() { local s e rc; s=$(date +%s%N); "$@" > "$W/last.log" 2>&1; rc=$?; e=$(date +%s%N); awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", (e - s) / 1e9 }'; [ $rc -eq 0 ] || printf ' (rc %d: %s)' $rc "$(tail -1 "$W/last.log")"; }
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
echo "cpus: $(nproc), $(free -g | awk '/Mem:/ {print $2}') GiB"

$H gen -o "$W/u32.bin" --n 2^28 --type u32 > /dev/null
cat "$W/u32.bin" > /dev/null
echo "memcpy 1 GiB (dd from page cache to /dev/null): $(dd if="$W/u32.bin" of=/dev/null bs=64M 2>&1 | tail -1)"
echo "== 1 GiB binary u32, page cache warm (seconds, wall)"
# Each timed command starts with no dirty pages pending (`sync` first, not timed), so
# that no run pays for the write-back of the one before.
for i in 1 2 3; do
  sync; echo "host sort:          $(t $H sort -i "$W/u32.bin" -o "$W/out$i.bin" --type u32 --require-gpu)  [$(grep -o 'busy.*' "$W/last.log")]"
done
sync; echo "host sort (over an existing output: ext4 writes back the new file's delayed allocations at such a rename):"
echo "                    $(t $H sort -i "$W/u32.bin" -o "$W/out1.bin" --type u32 --require-gpu)  [$(grep -o 'busy.*' "$W/last.log")]"
mv "$W/out1.bin" "$W/out.bin"; rm -f "$W/out2.bin" "$W/out3.bin"; sync
echo "host sort --fsync:  $(t $H sort -i "$W/u32.bin" -o "$W/outf.bin" --type u32 --require-gpu --fsync)"; rm -f "$W/outf.bin"
$H check-file --type u32 -i "$W/u32.bin" -o "$W/out.bin" | head -1
for i in 1 2; do
  sync; echo "numpy:              $(t python3 -c "import numpy as np; a=np.fromfile('$W/u32.bin', dtype=np.uint32); a.sort(); a.tofile('$W/np.bin')")"
  sync; echo "torch:              $(t python3 -c "
import numpy as np, torch
a=torch.from_numpy(np.fromfile('$W/u32.bin', dtype=np.int32)).cuda()
s,_=torch.sort(a); s.cpu().numpy().tofile('$W/torch.bin')")"
done
echo "(torch sorts the file as int32: it has no uint32 sort; same bytes moved)"
rm -f "$W/np.bin" "$W/torch.bin" "$W/out.bin"

echo "== u64: 1 GiB in memory vs 8 GiB chunked with --max-device-bytes 2G (seconds, wall; per GiB)"
$H gen -o "$W/u64.bin" --n 2^27 --type u64 > /dev/null; cat "$W/u64.bin" > /dev/null
echo "1 GiB u64:          $(t $H sort -i "$W/u64.bin" -o "$W/out.bin" --type u64 --require-gpu)  [$(grep -o 'busy.*' "$W/last.log")]"
$H gen -o "$W/u64.bin" --n 2^30 --type u64 > /dev/null; cat "$W/u64.bin" > /dev/null
# Into a new file, as the 1 GiB sort above: replacing an existing output makes ext4
# start writing the new file back at the rename (seconds for 8 GiB), timed below.
rm -f "$W/out.bin"; sync
echo "8 GiB u64, 2G:      $(t $H sort -i "$W/u64.bin" -o "$W/out.bin" --type u64 --require-gpu --max-device-bytes 2G)  [$(grep -o 'chunks;.*' "$W/last.log")]"
echo "same, over it:      $(t $H sort -i "$W/u64.bin" -o "$W/out.bin" --type u64 --require-gpu --max-device-bytes 2G)  [$(grep -o 'chunks;.*' "$W/last.log")]"
$H check-file --type u64 -i "$W/u64.bin" -o "$W/out.bin" | head -1
rm -f "$W/u64.bin" "$W/out.bin"

echo "== text: random i64, one per line"
$H gen -o "$W/i64.txt" --n 50M --type i64 --text > /dev/null
ls -l "$W/i64.txt" | awk '{printf "file: %.2f GB\n", $5/1e9}'
cat "$W/i64.txt" > /dev/null
echo "host sort --text:   $(t $H sort -i "$W/i64.txt" -o "$W/out.txt" --type i64 --text --require-gpu)  [$(grep -o 'chunk.*' "$W/last.log")]"
echo "GNU sort -n:        $(t sort -n "$W/i64.txt" -o "$W/gnu.txt")"
cmp -s "$W/out.txt" "$W/gnu.txt" && echo "outputs identical" || echo "outputs differ (formatting?)"
echo "python sorted():    $(t python3 -c "
xs=[int(l) for l in open('$W/i64.txt')]; xs.sort(); open('$W/py.txt','w').write('\n'.join(map(str,xs))+'\n')")"
rm -f "$W/out.txt" "$W/gnu.txt" "$W/py.txt" "$W/i64.txt"

echo "== first run, empty JIT cache (CUDA_CACHE_DISABLE=1), 4-byte file"
printf '\x04\x03\x02\x01' > "$W/k4.bin"
echo "cubin:              $(t env CUDA_CACHE_DISABLE=1 $H sort -i "$W/k4.bin" -o "$W/o4.bin" --type u32 --require-gpu)"
echo "cubin:              $(t env CUDA_CACHE_DISABLE=1 $H sort -i "$W/k4.bin" -o "$W/o4.bin" --type u32 --require-gpu)"
echo "PTX (JIT):          $(t env CUDA_CACHE_DISABLE=1 SORT_FORCE_PTX=1 $H sort -i "$W/k4.bin" -o "$W/o4.bin" --type u32 --require-gpu)"
rm -rf "$W"
