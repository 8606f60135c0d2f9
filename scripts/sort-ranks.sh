#!/usr/bin/env bash
# Sorts a binary file with N processes on this host, one GPU each (`host rank-sort`):
#
#   scripts/sort-ranks.sh N input output [rank-sort options, e.g. --type u64]
#
# Sets RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT and LOCAL_RANK for each process,
# waits for all of them and fails if any failed (the output then does not appear).
# HOST_BIN names the program (default: target/release/host beside this script);
# MASTER_PORT (default: a random free-looking port) and SORT_RANKS_TIMEOUT pass through.
# Over several hosts, start one process per GPU on each host yourself with the same
# variables (docs/ranks.md).
set -euo pipefail

if [ $# -lt 3 ]; then
    echo "usage: $0 N input output [host rank-sort options]" >&2
    exit 2
fi
n=$1 input=$2 output=$3
shift 3
case $n in
    '' | *[!0-9]* | 0) echo "$0: N must be a positive number, not '$n'" >&2; exit 2 ;;
esac
bin=${HOST_BIN:-$(dirname "$0")/../target/release/host}
port=${MASTER_PORT:-$((20000 + RANDOM % 40000))}

pids=()
for ((r = 0; r < n; r++)); do
    RANK=$r WORLD_SIZE=$n LOCAL_RANK=$r MASTER_ADDR=${MASTER_ADDR:-127.0.0.1} MASTER_PORT=$port \
        "$bin" rank-sort --input "$input" --output "$output" "$@" &
    pids+=($!)
done
failed=()
for r in "${!pids[@]}"; do
    wait "${pids[$r]}" || failed+=("$r")
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "$0: rank(s) ${failed[*]} of $n failed" >&2
    exit 1
fi
