#!/bin/bash
# Session 19 run 4 (warm machine of run 3): why c's block sort is slower than hd's.
# ncu metrics of the x8 u32 block sort at 2^24 (instructions, shared-memory wavefronts
# and bank conflicts, stall reasons) for hd and c; SASS of c's x8 u32 block sort.
. docs/results/lib.sh
[ -x /tmp/bundle/host ] || unpack h.tar.xz /tmp/bundle
[ -x /tmp/hd/host ] || unpack hd.tar.xz /tmp/hd
device_info
date > $L/times.txt
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__thread_inst_executed_per_inst_executed.ratio,sm__throughput.avg.pct_of_peak_sustained_elapsed
for v in hd:/tmp/hd c:/tmp/bundle; do
  IFS=: read -r name dir <<< "$v"
  ncu --kernel-name regex:block_sort_x8 --launch-count 1 --metrics $M $dir/host bench --require-gpu --variants mergepath --type u32 --n 2^24 --repeat 1 > $L/ncu_bs_$name.txt 2>&1
  echo "== $name"; grep -E "^\s+(gpu__|smsp__|l1tex__|sm__)" $L/ncu_bs_$name.txt
  fin
done
xz -dc $C/c.cubin.xz > /tmp/c.cubin && cuobjdump -fun mergepath_block_sort_x8_u32 -sass /tmp/c.cubin > $L/sass_x8_u32_c.txt 2>&1; echo "sass rc=$? $(wc -l < $L/sass_x8_u32_c.txt) lines"
date >> $L/times.txt; fin
