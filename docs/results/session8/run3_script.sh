#!/bin/bash
# Session 8 run 3: ncu per kernel, our radix (keys, pairs 2^24 u32) against CUB's onesweep.
B=/tmp/bundle; L=$OUT/logs; mkdir -p $L
export SORT_REQUIRE_GPU=1
cd $B; xz -d base.ptx.xz; export SORT_PTX_FILE=$B/base.ptx
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
nvcc -O3 -arch=sm_90 -o /tmp/cubpairs $B/cubpairs.cu > $L/nvcc.txt 2>&1
ncu --metrics $M /tmp/cubpairs > $L/ncu_cub.txt 2>&1
ncu --metrics $M -k regex:radix_ $B/host bench-pairs --type u32 --values u32 --n 2^24 --repeat 1 > $L/ncu_ours_pairs.txt 2>&1
ncu --metrics $M -k regex:radix_ $B/host bench --require-gpu --variants radix --type u32 --n 2^24 --repeat 1 > $L/ncu_ours_keys.txt 2>&1
ncu --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats -k regex:radix_hist --launch-count 1 $B/host bench-pairs --type u32 --values u32 --n 2^24 --repeat 1 > $L/ncu_hist.txt 2>&1
cd $OUT && tar czf logs.tgz logs
