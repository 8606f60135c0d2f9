#!/bin/bash
# Session 19 run 6 (warm machine of run 5): why d's block sort is still slower than
# hd's: ncu instruction and shared-memory metrics of the x8 u32 and x4 u64 block sorts
# at 2^24 (hd, d).
. docs/results/lib.sh
[ -x /tmp/bundle/host ] || unpack h.tar.xz /tmp/bundle
[ -x /tmp/hd/host ] || unpack hd.tar.xz /tmp/hd
device_info
A=/tmp/bundle/host
date > $L/times.txt
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,sm__throughput.avg.pct_of_peak_sustained_elapsed
for v in hd:/tmp/hd d:/tmp/bundle; do
  IFS=: read -r name dir <<< "$v"
  for k in x8:u32 x4:u64; do
    IFS=: read -r w ty <<< "$k"
    ncu --kernel-name regex:block_sort_$w --launch-count 1 --metrics $M $dir/host bench --require-gpu --variants mergepath --type $ty --n 2^24 --repeat 1 > $L/ncu_bs_${w}_${ty}_$name.txt 2>&1
    echo "== $name $w $ty"; grep -E "^\s+(gpu__|smsp__|l1tex__|sm__)" $L/ncu_bs_${w}_${ty}_$name.txt
  done
  fin
done
date >> $L/times.txt; fin
