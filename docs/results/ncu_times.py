#!/usr/bin/env python3
"""Per-kernel time of the sorts in an ncu CSV (`ncu --metrics gpu__time_duration.sum
--csv`, see docs/results/lib.sh): launches per sort, microseconds per sort and share,
counting sorts by the launches of the kernel named by --per (default: block sorts).

    python3 docs/results/ncu_times.py docs/results/session16/run1/u32_28_ncu.csv
"""
import argparse
import collections
import csv


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--per", default="block_sort", help="substring of the kernel launched once per sort")
    args = ap.parse_args()
    for path in args.csv:
        rows = [r for r in csv.reader(open(path)) if len(r) == 15 and r[0] != "ID"]
        total = collections.OrderedDict()
        count = collections.Counter()
        for r in rows:
            total[r[4]] = total.get(r[4], 0.0) + float(r[14].replace(",", "")) / 1e3
            count[r[4]] += 1
        sorts = sum(1 for r in rows if args.per in r[4]) or 1
        grand = sum(total.values()) or 1.0
        print(f"== {path} ({sorts} sorts)")
        for k, v in total.items():
            print(f"  {k:44s} {count[k] / sorts:5.1f} per sort {v / sorts:10.1f} us {100 * v / grand:5.1f}%")
        print(f"  {'total':44s} {'':14s} {sum(total.values()) / sorts:10.1f} us")


if __name__ == "__main__":
    main()
