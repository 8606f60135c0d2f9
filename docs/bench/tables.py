#!/usr/bin/env python3
"""Markdown tables of performance.md and the README, from the CSV files of one or more
result folders (reproduce.sh's output, or docs/results/*).

    python3 docs/bench/tables.py DIR [DIR ...]                 # print every table
    python3 docs/bench/tables.py DIR [DIR ...] --update FILE ...  # rewrite them in place

In a document, a generated table sits between `<!-- table:NAME -->` and
`<!-- /table:NAME -->`; --update replaces what is between them and leaves tables whose
data the folders lack as they are (a one-GPU run does not touch the several-GPU
table). Under each table: the device, the dates and the commands that measured it
(from each folder's run.csv, and commands.csv: `csv,command[,tables]`, the tables a
command serves given by name when not all that read its CSV). Python 3 standard library only.
"""
import csv
import os
import re
import sys


def load(dirs):
    """{csv name: rows}, each row with its device and date filled in from run.csv when
    the row has none; and {csv name: [commands]}."""
    data, commands = {}, {}
    for d in dirs:
        run = {}
        if os.path.exists(os.path.join(d, "run.csv")):
            with open(os.path.join(d, "run.csv"), newline="") as f:
                run = {r["key"]: r["value"] for r in csv.DictReader(f)}
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if not name.endswith(".csv") or name == "run.csv":
                continue
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
            if name == "commands.csv":
                for r in rows:
                    only = (r.get("tables") or "").split()
                    commands.setdefault(r["csv"], []).append((r["command"], only))
                continue
            for r in rows:
                if name == "threads.csv" and not r.get("device"):
                    r["device"] = run.get("cpu", "")
                if not r.get("date"):
                    r["date"] = run.get("date", "")
                if not r.get("device") or r.get("backend") == "gpu":
                    r["device"] = run.get("device") or r.get("device", "")
                if run.get("peer_gb_per_s"):
                    r.setdefault("peer_gb_per_s", run["peer_gb_per_s"])
            # sorts-entity.csv adds to sorts.csv's rows.
            data.setdefault(name[:-4].split("-")[0], []).extend(rows)
    return data, commands


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def size(n):
    n = int(n)
    if n >= 1024 and n & (n - 1) == 0:
        return "2^%d" % (n.bit_length() - 1)
    return "{:,}".format(n)


def fmt(v, digits=2):
    v = num(v)
    return "" if v is None else "%.*f" % (digits, v)


class Table:
    def __init__(self, header, align):
        self.header, self.align, self.rows, self.used = header, align, [], []

    def add(self, cells, used=()):
        self.rows.append(cells)
        self.used.extend(used)

    def markdown(self, name, commands, sources):
        if not self.rows:
            return None
        out = ["| " + " | ".join(self.header) + " |",
               "|" + "|".join("---:" if a == "r" else "---" for a in self.align) + "|"]
        out += ["| " + " | ".join(c for c in r) + " |" for r in self.rows]
        devices = sorted({r.get("device", "") for r in self.used if r.get("device")})
        dates = sorted({r.get("date", "") for r in self.used if r.get("date")})
        out.append("")
        out.append("Measured on %s, %s." % ("; ".join(devices) or "(device not recorded)",
                                            ", ".join(dates) or "(date not recorded)"))
        cmds = []
        for s in sources:
            for c, only in commands.get(s, []):
                if (not only or name in only) and c not in cmds:
                    cmds.append(c)
        if cmds:
            out.append("")
            out += ["    " + c for c in cmds]
        return "\n".join(out)


def by(rows, **want):
    return [r for r in rows if all(r.get(k, "") == v for k, v in want.items())]


def series_table(label, lines, sizes=None):
    """Rows of Gkeys/s by size: lines are (name, rows with n and gkeys_per_s)."""
    all_n = sorted({int(r["n"]) for _, rows in lines for r in rows if num(r.get("gkeys_per_s"))})
    if sizes:
        all_n = [n for n in all_n if n in sizes]
    t = Table([label] + [size(n) for n in all_n], ["l"] + ["r"] * len(all_n))
    for name, rows in lines:
        cells = {int(r["n"]): r for r in rows if num(r.get("gkeys_per_s"))}
        if not any(n in cells for n in all_n):
            continue
        t.add([name] + [fmt(cells[n]["gkeys_per_s"]) if n in cells else "" for n in all_n],
              [cells[n] for n in all_n if n in cells])
    return t


def ours(data, variant, key_type):
    return by(data.get("sorts", []), variant=variant, type=key_type, dist="uniform") or \
        by(data.get("sorts", []), variant=variant, type=key_type)


def pairs(data, variant, key_type, values):
    return by(data.get("pairs", []), variant=variant, type=key_type, values=values)


def anchor(data, series, key_type, values=""):
    return [r for r in by(data.get("anchors", []), series=series, type=key_type, values=values)
            if r.get("param", "") == ""]


def t_headline(data):
    return series_table("Gkeys/s (median) on one GPU", [
        ("`radix`, u32 keys", ours(data, "radix", "u32")),
        ("CUB DeviceRadixSort, u32 keys", anchor(data, "CUB DeviceRadixSort", "u32")),
        ("`mergepath`, u32 keys", ours(data, "mergepath", "u32")),
        ("CUB DeviceMergeSort, u32 keys", anchor(data, "CUB DeviceMergeSort", "u32")),
        ("torch.sort, i32 keys", anchor(data, "torch.sort", "i32")),
        ("`radix`, u32 keys + u32 values", pairs(data, "radix", "u32", "u32")),
        ("CUB DeviceRadixSort, u32 + u32 pairs", anchor(data, "CUB DeviceRadixSort", "u32", "u32")),
        ("`radix`, u64 keys", ours(data, "radix", "u64")),
        ("CUB DeviceRadixSort, u64 keys", anchor(data, "CUB DeviceRadixSort", "u64")),
        ("torch.sort, i64 keys", anchor(data, "torch.sort", "i64")),
    ], sizes={1 << 20, 1 << 24, 1 << 28}), ["sorts", "pairs", "anchors"]


def t_radix(data):
    return series_table("`radix`, Gkeys/s", [
        ("u32 keys", ours(data, "radix", "u32")),
        ("f32 keys", ours(data, "radix", "f32")),
        ("u64 keys", ours(data, "radix", "u64")),
        ("i64 keys", ours(data, "radix", "i64")),
        ("Entity (20 B) by key", ours(data, "radix", "entity")),
        ("u32 keys + u32 values", pairs(data, "radix", "u32", "u32")),
        ("u64 keys + u32 values", pairs(data, "radix", "u64", "u32")),
        ("u32 keys + u64 values", pairs(data, "radix", "u32", "u64")),
        ("CUB DeviceRadixSort, u32 keys", anchor(data, "CUB DeviceRadixSort", "u32")),
        ("CUB DeviceRadixSort, u64 keys", anchor(data, "CUB DeviceRadixSort", "u64")),
        ("CUB DeviceRadixSort, u32 + u32 pairs", anchor(data, "CUB DeviceRadixSort", "u32", "u32")),
        ("thrust::sort, u32 keys", anchor(data, "thrust::sort", "u32")),
        ("torch.sort, i32 keys", anchor(data, "torch.sort", "i32")),
        ("torch.sort, i64 keys", anchor(data, "torch.sort", "i64")),
    ]), ["sorts", "pairs", "anchors"]


def t_mergepath(data):
    return series_table("`mergepath`, Gkeys/s", [
        ("u32 keys", ours(data, "mergepath", "u32")),
        ("f32 keys", ours(data, "mergepath", "f32")),
        ("u64 keys", ours(data, "mergepath", "u64")),
        ("Entity (20 B) by key", ours(data, "mergepath", "entity")),
        ("u32 keys + u32 values", pairs(data, "mergepath", "u32", "u32")),
        ("f32 keys + u32 values", pairs(data, "mergepath", "f32", "u32")),
        ("u64 keys + u32 values", pairs(data, "mergepath", "u64", "u32")),
        ("u64 keys + u64 values", pairs(data, "mergepath", "u64", "u64")),
        ("CUB DeviceMergeSort, u32 keys", anchor(data, "CUB DeviceMergeSort", "u32")),
        ("CUB DeviceMergeSort (stable), u64 keys", anchor(data, "CUB DeviceMergeSort (stable)", "u64")),
        ("CUB DeviceMergeSort, u32 + u32 pairs", anchor(data, "CUB DeviceMergeSort", "u32", "u32")),
    ]), ["sorts", "pairs", "anchors"]


def t_classic(data):
    rows = data.get("classic", [])
    sizes = sorted({int(r["n"]) for r in rows})
    n = sizes[-1] if sizes else 0
    t = Table(["variant", "stable", "u32 ms", "u32 Gkeys/s", "Entity ms", "Entity Gkeys/s"],
              ["l", "l", "r", "r", "r", "r"])
    variants = []
    for r in rows:
        if r["variant"] not in variants:
            variants.append(r["variant"])
    for v in variants:
        cells = {r["type"]: r for r in rows if r["variant"] == v and int(r["n"]) == n and num(r.get("median_ms"))}
        if not cells:
            continue
        stable = next((r.get("stable") for r in cells.values()), "")
        line = ["`%s`" % v, {"true": "yes", "false": "no"}.get(stable, stable)]
        for ty in ("u32", "entity"):
            r = cells.get(ty)
            line += [fmt(r["median_ms"], 2), fmt(r["gkeys_per_s"], 2)] if r else ["", ""]
        t.add(line, cells.values())
    if t.rows:
        t.header[2:] = [h + " (%s)" % size(n) for h in t.header[2:]]
    return t, ["classic"]


def t_argsort(data):
    t = Table(["keys", "n", "pair sort ms", "argsort ms", "argsort / pair sort"], ["l", "r", "r", "r", "r"])
    for r in data.get("argsort", []):
        t.add([r["type"], size(r["n"]), fmt(r["pair_ms"], 3), fmt(r["argsort_ms"], 3), fmt(r["ratio"]) + "x"], [r])
    return t, ["argsort", "pairs"]


def t_records(data):
    t = Table(["record bytes", "key (offset)", "records", "ms", "Grecords/s"], ["r", "l", "r", "r", "r"])
    for r in data.get("records", []):
        t.add([r["record_bytes"], "%s (%s)" % (r["key_type"], r["key_offset"]), size(r["n"]),
               fmt(r["median_ms"], 3), fmt(r["grec_per_s"])], [r])
    return t, ["records"]


def t_segments(data):
    t = Table(["sort", "keys", "n", "segments (mean length)", "ms", "Gkeys/s"], ["l", "l", "r", "r", "r", "r"])
    for r in data.get("segments", []):
        what = "`sort_segments_pairs`" if r.get("pairs") else "`sort_segments`"
        mean = int(r["n"]) // int(r["segments"])
        t.add([what, r["type"], size(r["n"]), "%s (%d)" % (size(r["segments"]), mean), fmt(r["median_ms"], 3),
               fmt(r["gkeys_per_s"])], [r])
    for r in data.get("anchors", []):
        if r["series"].startswith("CUB DeviceSegmented") and r.get("param"):
            mean = int(r["n"]) // int(r["param"])
            t.add([r["series"], r["type"], size(r["n"]), "%s (%d)" % (size(r["param"]), mean),
                   fmt(r["median_ms"], 3), fmt(r["gkeys_per_s"])], [r])
    return t, ["segments", "anchors"]


def t_topk(data):
    t = Table(["what", "keys", "n", "k", "ms", "radix sort ms", "sort / top-k"], ["l", "l", "r", "r", "r", "r", "r"])
    for r in data.get("topk", []):
        t.add(["`top_k`", r["type"], size(r["n"]), r["k"], fmt(r["topk_ms"], 3), fmt(r["sort_ms"], 3),
               fmt(r["vs_sort"]) + "x"], [r])
    for r in by(data.get("anchors", []), series="torch.topk"):
        t.add(["torch.topk", r["type"], size(r["n"]), r["param"], fmt(r["median_ms"], 3), "", ""], [r])
    return t, ["topk", "anchors"]


def t_files(data):
    t = Table(["file sort", "seconds (wall)", "note"], ["l", "r", "l"])
    for r in data.get("files", []):
        t.add([r["what"], fmt(r["seconds"], 3), r.get("note", "")], [r])
    return t, ["files"]


def t_multi(data):
    t = Table(["GPUs", "keys", "values", "n", "ms", "Gkeys/s", "speed-up", "local sort", "splitters", "exchange (GB/s)",
               "merge"], ["r", "l", "l", "r", "r", "r", "r", "r", "r", "r", "r"])
    for r in data.get("multi", []):
        one = r["gpus"] == "1"
        t.add([r["gpus"], r["type"], r.get("values") or "-", size(r["n"]), fmt(r["ms"]), fmt(r["gkeys_per_s"]),
               fmt(r["speedup"]) + "x", fmt(r["local"]), "" if one else fmt(r["splitters"]),
               "" if one else "%s (%s)" % (fmt(r["exchange"]), fmt(r["gb_per_s"], 0)), "" if one else fmt(r["merge"])],
              [r])
    return t, ["multi"]


def t_cpu(data):
    rows = data.get("threads", [])
    algos = ["parallel-merge", "rayon-par_sort", "rayon-par_sort_unstable"]
    threads = sorted({int(r["threads"]) for r in rows if r["algorithm"] in algos})
    t = Table(["threads", "ours (stable) ms", "rayon `par_sort` ms", "rayon `par_sort_unstable` ms"],
              ["r", "r", "r", "r"])
    for th in threads:
        cells = {r["algorithm"]: r for r in rows if int(r["threads"]) == th}
        t.add([str(th)] + [fmt(cells[a]["median_ms"], 1) if a in cells else "" for a in algos],
              [cells[a] for a in algos if a in cells])
    n = {r["n"] for r in rows}
    if t.rows and len(n) == 1:
        t.header[0] = "threads (n = {:,})".format(int(n.pop()))
    return t, ["threads"]


def t_anchors(data):
    t = Table(["other operations (torch, CUB)", "ms"], ["l", "r"])
    for r in data.get("anchors", []):
        if r.get("n", "") == "" and r["series"] != "device-to-device copy":
            t.add([r["series"], fmt(r["median_ms"], 3)], [r])
    for r in by(data.get("anchors", []), series="device-to-device copy"):
        t.add(["device-to-device copy of 1 GiB (%s GB/s)" % fmt(r["gb_per_s"], 0), fmt(r["median_ms"], 3)], [r])
    return t, ["anchors"]


TABLES = {
    "headline": t_headline,
    "radix": t_radix,
    "mergepath": t_mergepath,
    "classic": t_classic,
    "argsort": t_argsort,
    "records": t_records,
    "segments": t_segments,
    "topk": t_topk,
    "files": t_files,
    "multi": t_multi,
    "cpu": t_cpu,
    "anchors": t_anchors,
}


def generate(dirs):
    data, commands = load(dirs)
    out = {}
    for name, make in TABLES.items():
        table, sources = make(data)
        md = table.markdown(name, commands, sources)
        if md:
            out[name] = md
    return out


BLOCK = re.compile(r"(<!-- table:([a-z]+) -->\n)(.*?)(<!-- /table:\2 -->)", re.S)


def update(path, tables):
    with open(path) as f:
        text = f.read()
    missing = []

    def replace(m):
        name = m.group(2)
        if name not in tables:
            missing.append(name)
            return m.group(0)
        return m.group(1) + tables[name] + "\n" + m.group(4)

    new = BLOCK.sub(replace, text)
    if new != text:
        with open(path, "w") as f:
            f.write(new)
    return missing


def main(argv):
    if "--update" in argv:
        at = argv.index("--update")
        dirs, files = argv[:at], argv[at + 1:]
    else:
        dirs, files = argv, []
    if not dirs:
        sys.exit(__doc__)
    tables = generate(dirs)
    if not files:
        for name, md in tables.items():
            print("<!-- table:%s -->\n%s\n<!-- /table:%s -->\n" % (name, md, name))
    for path in files:
        for name in update(path, tables):
            print("%s: no data for table `%s`: left as it was" % (path, name), file=sys.stderr)
        print("updated", path)


if __name__ == "__main__":
    main(sys.argv[1:])
