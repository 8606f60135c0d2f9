#!/usr/bin/env python3
"""Turns the printed tables of one reproduction run into CSV files.

    python3 docs/bench/collect.py OUT

reads OUT/run.csv (date, device) and the command outputs in OUT/log/ that
reproduce.sh wrote, and writes beside them:

    pairs.csv     host bench-pairs (log/pairs*.txt): variant,type,values,n,median_ms,...
    argsort.csv   the argsort lines of the same logs, with the pair sort of the same call
    records.csv   host bench-records (log/records*.txt)
    segments.csv  host bench-segments (log/segments*.txt)
    topk.csv      host bench-topk (log/topk*.txt)
    multi.csv     host bench --gpus (log/multi*.txt)
    anchors.csv   CUB and torch (log/cub.txt, log/torch.txt): series,type,values,n,param,...
    anchor_keys.csv  the key sorts of anchors.csv in the columns `host bench --chart-from`
                  reads (series,type,n,gkeys_per_s,device,date)

Every row gets the run's device and date. `host bench --csv` (sorts.csv, classic.csv),
`host study` (threads.csv) and reproduce.sh (files.csv) write CSV themselves. Python 3
standard library only.
"""
import csv
import glob
import os
import sys

KEY_TYPES = {"u32", "i32", "f32", "u64", "i64", "f64", "entity"}


def read_run(out):
    """run.csv: key,value lines (date, device, ...)."""
    path = os.path.join(out, "run.csv")
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        return {r["key"]: r["value"] for r in csv.DictReader(f)}


def is_count(s):
    return s.isdigit()


def parse_pairs(text):
    """host bench-pairs: `pair sort: V` then `keys values n median min Gkeys/s check`."""
    rows, argsorts = [], []
    variant = "radix"
    last = {}
    for line in text.splitlines():
        t = line.split()
        if line.startswith("pair sort:"):
            variant = t[-1]
            continue
        if len(t) < 6 or t[0] not in KEY_TYPES or not is_count(t[2]):
            continue
        row = {
            "variant": variant,
            "type": t[0],
            "values": t[1],
            "n": int(t[2]),
            "median_ms": float(t[3]),
            "min_ms": float(t[4]),
            "gkeys_per_s": float(t[5]),
            "check": " ".join(t[6:]).split(";")[0],
        }
        rows.append(row)
        if t[1] == "argsort":
            pair = last.get((t[0], int(t[2])))
            argsorts.append({
                "type": t[0],
                "n": int(t[2]),
                "pair_ms": pair["median_ms"] if pair else "",
                "argsort_ms": row["median_ms"],
                "ratio": round(row["median_ms"] / pair["median_ms"], 3) if pair else "",
                "check": row["check"],
            })
        else:
            last[(t[0], int(t[2]))] = row
    return rows, argsorts


def parse_records(text):
    """host bench-records: `record B, key at, key, n, median ms, min ms, Grec/s, GB/s, check`."""
    rows = []
    for line in text.splitlines():
        t = line.split()
        if len(t) >= 8 and is_count(t[0]) and is_count(t[1]) and t[2] in KEY_TYPES and is_count(t[3]):
            rows.append({
                "record_bytes": int(t[0]),
                "key_offset": int(t[1]),
                "key_type": t[2],
                "n": int(t[3]),
                "median_ms": float(t[4]),
                "min_ms": float(t[5]),
                "grec_per_s": float(t[6]),
                "gb_per_s": float(t[7]),
                "check": " ".join(t[8:]),
            })
    return rows


def parse_segments(text):
    """host bench-segments: `type n segments warp/block/radix median min Gkeys/s check`."""
    rows, pairs = [], False
    for line in text.splitlines():
        t = line.split()
        if line.startswith("(pairs"):
            pairs = True
            continue
        if len(t) >= 7 and t[0] in KEY_TYPES and is_count(t[1]) and is_count(t[2]):
            rows.append({
                "type": t[0],
                "n": int(t[1]),
                "segments": int(t[2]),
                "pairs": "u32" if pairs else "",
                "bins": t[3],
                "median_ms": float(t[4]),
                "min_ms": float(t[5]),
                "gkeys_per_s": float(t[6]),
                "check": " ".join(t[7:]),
            })
    return rows


def parse_topk(text):
    """host bench-topk: `type n k top-k sort argsort vs-sort vs-argsort check`."""
    rows = []
    for line in text.splitlines():
        t = line.split()
        if len(t) >= 8 and t[0] in KEY_TYPES and is_count(t[1]) and is_count(t[2]):
            rows.append({
                "type": t[0],
                "n": int(t[1]),
                "k": int(t[2]),
                "topk_ms": float(t[3]),
                "sort_ms": float(t[4]),
                "argsort_ms": float(t[5]),
                "vs_sort": float(t[6].rstrip("x")),
                "vs_argsort": float(t[7].rstrip("x")),
                "check": " ".join(t[8:]),
            })
    return rows


MULTI_COLUMNS = {"Gkeys/s": "gkeys_per_s", "GB/s": "gb_per_s"}


def parse_multi(text):
    """host bench --gpus: a header line starting with `gpus`, one-word column names."""
    rows, header, pairs = [], None, False
    for line in text.splitlines():
        t = line.split()
        if line.startswith("# multi-GPU sample sort"):
            pairs = "index values" in line
        if t and t[0] == "gpus":
            header = [MULTI_COLUMNS.get(h, h) for h in t]
            continue
        if header and len(t) == len(header) and is_count(t[0]):
            row = dict(zip(header, t))
            row["speedup"] = row["speedup"].rstrip("x")
            row["values"] = "u32" if pairs else ""
            rows.append(row)
    return rows


def parse_peer(text):
    for line in text.splitlines():
        if line.startswith("# peer copy") and "GB/s" in line:
            return line.split(":")[1].split("GB/s")[0].strip()
    return ""


CUB_SERIES = {
    "cub radix": "CUB DeviceRadixSort",
    "cub merge": "CUB DeviceMergeSort",
    "cub stable merge": "CUB DeviceMergeSort (stable)",
    "cub segsort": "CUB DeviceSegmentedSort",
    "cub segradix": "CUB DeviceSegmentedRadixSort",
}


def parse_cub(text):
    """cub_anchor: `name log2n ms Gkeys/s`; segmented sorts: log2n is log2(segments)."""
    rows = []
    for line in text.splitlines():
        t = line.split()
        if line.startswith("d2d copy"):
            ms = float(line.split(":")[1].split("ms")[0])
            gb = float(line.split("=")[1].split("GB/s")[0])
            rows.append({"series": "device-to-device copy", "type": "", "values": "", "n": 1 << 28,
                         "param": "", "median_ms": ms, "gkeys_per_s": "", "gb_per_s": gb})
            continue
        if len(t) < 4 or not (t[0] in ("cub", "thrust::sort")) or not is_count(t[-3]):
            continue
        name, lg, ms, g = t[:-3], int(t[-3]), float(t[-2]), float(t[-1])
        if name[0] == "thrust::sort":
            series = "thrust::sort" + (" descending" if "greater" in name else "")
            rows.append({"series": series, "type": name[1], "values": "", "n": 1 << lg, "param": "",
                         "median_ms": ms, "gkeys_per_s": g, "gb_per_s": ""})
            continue
        kind = name[-1]
        if kind in ("keys", "pairs"):
            series = CUB_SERIES[" ".join(name[:-2])]
            rows.append({"series": series, "type": name[-2], "values": "u32" if kind == "pairs" else "",
                         "n": 1 << lg, "param": "", "median_ms": ms, "gkeys_per_s": g, "gb_per_s": ""})
        else:  # cub segsort u32 2^24 / segradix: n in the name, segments in log2n
            series = CUB_SERIES[" ".join(name[:2])]
            n = 1 << int(name[3].split("^")[1])
            rows.append({"series": series, "type": name[2], "values": "", "n": n, "param": 1 << lg,
                         "median_ms": ms, "gkeys_per_s": g, "gb_per_s": ""})
    return rows


def parse_torch(text):
    """torch_anchor.py: sorts as `name log2n ms Gkeys/s`, the rest as `what ... ms`."""
    rows = []
    for line in text.splitlines():
        t = line.split()
        if not t or not t[0].startswith("torch."):
            continue
        if len(t) >= 4 and is_count(t[-3]) and t[0] == "torch.sort" and t[1] in KEY_TYPES:
            series = "torch.sort" + "".join(" " + w for w in t[2:-3])
            lg = int(t[-3])
            rows.append({"series": series, "type": t[1], "values": "", "n": 1 << lg, "param": "",
                         "median_ms": float(t[-2]), "gkeys_per_s": float(t[-1]), "gb_per_s": ""})
        elif t[-1] == "ms":
            ms = float(t[-2])
            if t[0] == "torch.topk" and t[2].startswith("2^"):
                n = 1 << int(t[2][2:])
                rows.append({"series": "torch.topk", "type": t[1], "values": "", "n": n,
                             "param": int(t[3].split("=")[1]), "median_ms": ms,
                             "gkeys_per_s": "", "gb_per_s": ""})
            else:
                rows.append({"series": " ".join(t[:-2]), "type": "", "values": "", "n": "", "param": "",
                             "median_ms": ms, "gkeys_per_s": "", "gb_per_s": ""})
    return rows


def chartable(anchors):
    """Key sorts only, typed so that they share a chart with ours: torch sorts int32
    keys of 31 random bits (it has no uint32 sort), drawn with the u32 keys."""
    out = []
    for r in anchors:
        if r["values"] or not r["gkeys_per_s"] or r["param"] != "":
            continue
        series, t = r["series"], r["type"]
        if series.startswith("torch.sort"):
            if series != "torch.sort":
                continue
            series, t = "torch.sort (%s)" % t, {"i32": "u32", "i64": "u64"}.get(t, t)
        elif series.startswith("thrust::sort"):
            continue  # in the tables; the charts keep to CUB and torch
        out.append({"series": series, "type": t, "n": r["n"], "gkeys_per_s": r["gkeys_per_s"]})
    return out


def write(out, name, rows, run):
    if not rows:
        return None
    path = os.path.join(out, name)
    fields = list(rows[0].keys()) + ["device", "date"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(dict(r, device=run.get("device", ""), date=run.get("date", "")))
    return path


def logs(out, pattern):
    for path in sorted(glob.glob(os.path.join(out, "log", pattern))):
        with open(path, errors="replace") as f:
            yield f.read()


def collect(out):
    run = read_run(out)
    pairs, argsorts = [], []
    for text in logs(out, "pairs*.txt"):
        p, a = parse_pairs(text)
        pairs += p
        argsorts += a
    records = [r for text in logs(out, "records*.txt") for r in parse_records(text)]
    segments = [r for text in logs(out, "segments*.txt") for r in parse_segments(text)]
    topk = [r for text in logs(out, "topk*.txt") for r in parse_topk(text)]
    multi = [r for text in logs(out, "multi*.txt") for r in parse_multi(text)]
    anchors = [r for text in logs(out, "cub.txt") for r in parse_cub(text)]
    anchors += [r for text in logs(out, "torch.txt") for r in parse_torch(text)]
    peer = [parse_peer(text) for text in logs(out, "multi*.txt")]
    if any(peer):
        multi_run = dict(run)
        multi_run["peer_gb_per_s"] = next(p for p in peer if p)
        with open(os.path.join(out, "run.csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["key", "value"])
            w.writerows(multi_run.items())
    written = [
        write(out, "pairs.csv", pairs, run),
        write(out, "argsort.csv", argsorts, run),
        write(out, "records.csv", records, run),
        write(out, "segments.csv", segments, run),
        write(out, "topk.csv", topk, run),
        write(out, "multi.csv", multi, run),
        write(out, "anchors.csv", anchors, run),
        write(out, "anchor_keys.csv", chartable(anchors), run),
    ]
    return [w for w in written if w]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for path in collect(sys.argv[1]):
        print("wrote", path)
