#!/bin/bash
# Session 14 run 1: where the time of a mergepath sort goes (main as of e96ff95).
# Baseline table (u32, u64, pairs at 2^24 / 2^28), in-merge co-ranks forced at 2^24
# (now with dependent launches), ncu full sections with per-instruction stall samples
# of the block sort, one merge and one partition at 2^24 (u32), CUB in the same call.
set -u
C=$PWD/carry; B=/tmp/bundle; L=$OUT/logs; mkdir -p $B $L
export SORT_REQUIRE_GPU=1 HOST_BIN=$B/host
fin() { (cd $OUT && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $L/device.txt
(cd $B && xz -dc $C/h.tar.xz | tar xf -) || { echo "unpack failed"; exit 1; }
(nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor $C/cub_anchor.cu > $L/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $L/nvcc.txt) &
nvcc_pid=$!
date > $L/times.txt
bk() { $B/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^24,2^28 --repeat 10 > $L/$1_keys.txt 2>&1
       $B/host bench-pairs --variant mergepath --type u32 --values u32 --n 2^24,2^28 --repeat 10 > $L/$1_pairs.txt 2>&1
       echo "$1: $(grep -h '^mergepath ' $L/$1_keys.txt | awk '{printf "%s ", $9}') pairs: $(grep -h '^u32' $L/$1_pairs.txt | awk '{printf "%s ", $6}')"; }
bk base
SORT_MERGEPATH_IN_MERGE_PER_SM=64 $B/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^23,2^24 --repeat 10 > $L/inmerge_keys.txt 2>&1
$B/host bench --require-gpu --variants mergepath --type u32,u64 --n 2^23 --repeat 10 > $L/base23_keys.txt 2>&1
echo "in-merge: $(grep -h '^mergepath ' $L/inmerge_keys.txt | awk '{printf "%s ", $9}') base 2^23: $(grep -h '^mergepath ' $L/base23_keys.txt | awk '{printf "%s ", $9}')"
fin
P="$B/host --variant mergepath --type u32 --n 2^24 --repeat 1 --require-gpu"
timeout 120 ncu --set full --import-source no -k regex:mergepath_block_sort -c 1 -o /tmp/bs $P > $L/ncu_bs_run.txt 2>&1; echo "ncu bs rc=$?"
timeout 120 ncu --set full -k regex:mergepath_merge_u32 -s 6 -c 1 -o /tmp/mg $P > $L/ncu_mg_run.txt 2>&1; echo "ncu mg rc=$?"
timeout 120 ncu --set full -k regex:mergepath_partition_u32 -s 6 -c 1 -o /tmp/pt $P > $L/ncu_pt_run.txt 2>&1; echo "ncu pt rc=$?"
for r in bs mg pt; do
  ncu -i /tmp/$r.ncu-rep --page details > $L/ncu_${r}_details.txt 2>&1
  ncu -i /tmp/$r.ncu-rep --page source --csv --print-source sass > $L/ncu_${r}_sass.csv 2>&1
done
grep -h "Duration\|Memory Throughput\|Compute (SM) Throughput\|Issue Slots Busy\|Bank Conflicts\|Achieved Occupancy\|Registers Per" $L/ncu_bs_details.txt $L/ncu_mg_details.txt | head -40
fin
wait $nvcc_pid; /tmp/cub_anchor > $L/cub.txt 2>&1; grep "merge\|d2d" $L/cub.txt
date >> $L/times.txt; fin
