#!/usr/bin/env python3
"""Tests of collect.py (on the command outputs in testdata/) and tables.py (on
docs/results/): python3 docs/bench/test_bench.py"""
import csv
import os
import shutil
import sys
import tempfile
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import collect  # noqa: E402
import tables  # noqa: E402

DATA = os.path.join(here, "testdata")
RESULTS = os.path.join(here, "..", "results")


def text(name):
    with open(os.path.join(DATA, name)) as f:
        return f.read()


class Collect(unittest.TestCase):
    def test_pairs_and_argsort(self):
        rows, argsorts = collect.parse_pairs(text("pairs-radix.txt"))
        self.assertEqual([(r["variant"], r["values"], r["n"]) for r in rows],
                         [("radix", "u32", 1 << 24), ("radix", "argsort", 1 << 24)])
        self.assertEqual(argsorts[0]["pair_ms"], 0.608)
        self.assertEqual(argsorts[0]["argsort_ms"], 0.714)
        self.assertEqual(argsorts[0]["check"], "ok")
        rows, _ = collect.parse_pairs(text("pairs-mergepath.txt"))
        self.assertTrue(rows and all(r["variant"] == "mergepath" for r in rows))

    def test_records_segments_topk(self):
        (r,) = collect.parse_records(text("records.txt"))
        self.assertEqual((r["record_bytes"], r["key_type"], r["n"], r["grec_per_s"]), (32, "u32", 1 << 24, 10.54))
        segs = collect.parse_segments(text("segments.txt"))
        self.assertEqual(len(segs), 14)
        self.assertEqual((segs[0]["segments"], segs[0]["bins"], segs[0]["gkeys_per_s"]), (4096, "259/3573/245", 28.73))
        (u32, u64) = collect.parse_topk(text("topk.txt"))
        self.assertEqual((u32["k"], u32["topk_ms"], u32["vs_sort"]), (100, 0.4623, 3.09))
        self.assertEqual(u64["type"], "u64")

    def test_multi(self):
        rows = collect.parse_multi(text("multi.txt"))
        self.assertEqual([r["gpus"] for r in rows], ["1", "2"])
        self.assertEqual((rows[1]["speedup"], rows[1]["pipe"], rows[1]["gb_per_s"]), ("1.29", "sort", "678.5"))
        self.assertEqual(collect.parse_peer(text("multi.txt")), "782.7")

    def test_anchors(self):
        cub = collect.parse_cub(text("cub.txt"))
        copy = [r for r in cub if r["series"] == "device-to-device copy"]
        self.assertEqual(copy[0]["gb_per_s"], 2997.0)
        radix = [r for r in cub if r["series"] == "CUB DeviceRadixSort" and r["type"] == "u32" and not r["values"]]
        self.assertEqual([(r["n"], r["gkeys_per_s"]) for r in radix],
                         [(1 << 20, 13.36), (1 << 24, 35.79), (1 << 26, 40.72), (1 << 28, 41.88)])
        torch = collect.parse_torch(text("torch.txt"))
        self.assertIn(("torch.sort", "i32", 1 << 24, 17.70),
                      [(r["series"], r["type"], r["n"], r["gkeys_per_s"]) for r in torch])
        topk = [r for r in torch if r["series"] == "torch.topk"]
        self.assertEqual([(r["type"], r["param"]) for r in topk], [("i32", 100), ("f32", 100), ("i32", 1000), ("f32", 1000)])
        keys = collect.chartable(cub + torch)
        names = {(r["series"], r["type"]) for r in keys}
        self.assertIn(("torch.sort (i32)", "u32"), names)
        self.assertIn(("CUB DeviceMergeSort (stable)", "u64"), names)
        self.assertFalse(any("stable" in s and s.startswith("torch") for s, _ in names))

    def test_collect_writes_csv_with_device_and_date(self):
        out = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(out, "log"))
            for src, dst in [("pairs-radix.txt", "pairs-radix.txt"), ("cub.txt", "cub.txt"),
                             ("torch.txt", "torch.txt"), ("topk.txt", "topk.txt")]:
                shutil.copy(os.path.join(DATA, src), os.path.join(out, "log", dst))
            with open(os.path.join(out, "run.csv"), "w") as f:
                f.write("key,value\ndate,2026-11-27\ndevice,H100\n")
            written = sorted(os.path.basename(p) for p in collect.collect(out))
            self.assertEqual(written, ["anchor_keys.csv", "anchors.csv", "argsort.csv", "pairs.csv", "topk.csv"])
            with open(os.path.join(out, "topk.csv")) as f:
                rows = list(csv.DictReader(f))
            self.assertEqual({(r["device"], r["date"]) for r in rows}, {("H100", "2026-11-27")})
            md = tables.generate([out])
            self.assertIn("torch.topk", md["topk"])
            self.assertIn("H100, 2026-11-27", md["topk"])
        finally:
            shutil.rmtree(out)


class Tables(unittest.TestCase):
    def test_every_table_from_the_committed_results(self):
        md = tables.generate([os.path.join(RESULTS, "h100"), os.path.join(RESULTS, "multi")])
        self.assertEqual(set(md), set(tables.TABLES))
        # The headline's radix row is the committed sorts.csv's u32 radix rows, by size.
        with open(os.path.join(RESULTS, "h100", "sorts.csv")) as f:
            radix = {int(r["n"]): r for r in csv.DictReader(f) if r["variant"] == "radix" and r["type"] == "u32"}
        cells = " | ".join(tables.fmt(radix[n]["gkeys_per_s"]) for n in (1 << 20, 1 << 24, 1 << 28))
        self.assertIn(f"| `radix`, u32 keys | {cells} |", md["headline"])
        self.assertIn("2 x NVIDIA H200", md["multi"])

    def test_update_replaces_only_tables_with_data(self):
        doc = tempfile.NamedTemporaryFile("w", suffix=".md", delete=False)
        doc.write("intro\n<!-- table:records -->\nold\n<!-- /table:records -->\n"
                  "<!-- table:multi -->\nkept\n<!-- /table:multi -->\nend\n")
        doc.close()
        try:
            missing = tables.update(doc.name, tables.generate([os.path.join(RESULTS, "h100")]))
            with open(doc.name) as f:
                new = f.read()
            self.assertEqual(missing, ["multi"])
            self.assertIn("| 32 | u32 (0) | 2^24 |", new)
            self.assertNotIn("old", new)
            self.assertIn("kept", new)
            self.assertTrue(new.startswith("intro\n") and new.endswith("end\n"))
        finally:
            os.unlink(doc.name)

    def test_sizes(self):
        self.assertEqual(tables.size(1 << 24), "2^24")
        self.assertEqual(tables.size(10000019), "10,000,019")


if __name__ == "__main__":
    unittest.main()
