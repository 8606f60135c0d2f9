#!/bin/bash
# Session 8 run 4: radix histogram with the pass count as a constant (H) vs base; GPU tests and sanitizers on H; CUB.
B=/tmp/bundle; L=$OUT/logs; mkdir -p $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/hostH
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
cd $B; for f in base H; do xz -d $f.ptx.xz; done
fin() { cd $OUT && tar czf logs.tgz logs; cd $B; }
for t in gpu_radix gpu_records gpu_segmented gpu_topk gpu_interop cli; do
  $B/$t > $L/t_$t.txt 2>&1; echo "rc=$?" >> $L/t_$t.txt
done
fin
run() { local v=$1; shift; SORT_PTX_FILE=$B/$v.ptx $B/host$v "$@"; }
for v in base H; do run $v bench-pairs --type u32 --values u32 --n 2^20 --repeat 3 > /dev/null 2>&1; done
for r in 1 2; do
  for v in base H; do
    run $v bench --require-gpu --variants radix --type u32,u64,f32 --n 2^20,2^24,2^28 --repeat 10 > $L/keys_${v}_r$r.txt 2>&1
    run $v bench-pairs --type u32,u64 --values u32 --n 2^20,2^24,2^28 --repeat 10 > $L/pairs_${v}_r$r.txt 2>&1
  done
  fin
done
nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $B/cub_anchor.cu > $L/nvcc.txt 2>&1 && /tmp/cub_anchor > $L/cub.txt 2>&1
fin
for v in base H; do
  SORT_PTX_FILE=$B/$v.ptx ncu --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum -k regex:radix_hist $B/host$v bench --require-gpu --variants radix --type u32,u64 --n 2^24 --repeat 1 > $L/ncu_hist_$v.txt 2>&1
done
fin
for tool in memcheck racecheck synccheck; do
  for a in "--type u32 --n 100003" "--type u64 --n 300007" "--type f32 --n 4097"; do
    compute-sanitizer --tool $tool --error-exitcode 9 $B/hostH --require-gpu --check --repeat 1 --variant radix $a --order desc > $L/san.log 2>&1
    echo "$tool $a rc=$?" >> $L/sanitize.txt; tail -2 $L/san.log >> $L/sanitize.txt
  done
  compute-sanitizer --tool $tool --error-exitcode 9 $B/hostH bench-pairs --type u32,u64 --values u32 --n 100003 --repeat 1 > $L/san.log 2>&1
  echo "$tool pairs rc=$?" >> $L/sanitize.txt; tail -2 $L/san.log >> $L/sanitize.txt
done
fin
