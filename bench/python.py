#!/usr/bin/env python3
"""Sanity timings of the Python package against os (and scandir-rs, if
installed): medians of hot runs, ratios within one run.

    python bench/python.py [--runs N] [TREE] [FLAT_DIR]

TREE defaults to /var/tmp/dents-bench/tree/shape (the shape corpus, ~400k
entries), FLAT_DIR to /var/tmp/dents-bench/ext4/flat1m (1M entries).  Run it
with the wheel installed (scripts/test-python leaves a venv in
target/py-venv).  Every timed walk also counts its entries, and counts that
differ from os's are reported.
"""

import argparse
import os
import statistics
import time

import dents

try:
    import scandir_rs
except ImportError:  # optional peer
    scandir_rs = None


def median_time(f, runs):
    f()  # warm the cache and the code
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def count_walk(it):
    n = 0
    for _, dirs, files in it:
        n += len(dirs) + len(files)
    return n


def walk_lstat_os(top):
    n = 0
    for d, dirs, files in os.walk(top):
        for f in files:
            os.lstat(os.path.join(d, f)).st_size
            n += 1
    return n


def walk_lstat_dents(top):
    n = 0
    for d, dirs, files, stats in dents.walk(top, stat=True):
        for st in stats:
            st.st_size
            n += 1
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("tree", nargs="?", default="/var/tmp/dents-bench/tree/shape")
    ap.add_argument("flat", nargs="?", default="/var/tmp/dents-bench/ext4/flat1m")
    a = ap.parse_args()
    rows = []

    def row(group, name, f, base=None):
        t = median_time(f, a.runs)
        rows.append((group, name, t, base))
        ratio = f"  {base / t:5.2f}x os" if base else ""
        print(f"{group:14} {name:34} {t * 1000:9.1f} ms{ratio}", flush=True)
        return t

    if os.path.isdir(a.tree):
        want = count_walk(os.walk(a.tree))
        for name, it in [("dents.walk", dents.walk(a.tree)), ("dents.walk threads=0", dents.walk(a.tree, threads=0))]:
            got = count_walk(it)
            if got != want:
                print(f"!! {name} counted {got} entries, os.walk {want}")
        base = row("walk", "os.walk", lambda: count_walk(os.walk(a.tree)))
        row("walk", "dents.walk", lambda: count_walk(dents.walk(a.tree)), base)
        row("walk", "dents.walk threads=0", lambda: count_walk(dents.walk(a.tree, threads=0)), base)
        if scandir_rs:
            row("walk", "scandir_rs.Walk", lambda: sum(len(d) + len(f) for _, d, f in scandir_rs.Walk(a.tree)), base)
        base = row("walk+lstat", "os.walk + os.lstat", lambda: walk_lstat_os(a.tree))
        if "stat" in dents.walk.__code__.co_varnames:
            row("walk+lstat", "dents.walk(stat=True)", lambda: walk_lstat_dents(a.tree), base)
    else:
        print(f"no tree at {a.tree}: walk rows skipped")

    if os.path.isdir(a.flat):
        base = row("scandir", "os.scandir (names)", lambda: [e.name for e in os.scandir(a.flat)])
        row("scandir", "dents.scandir (names)", lambda: [e.name for e in dents.scandir(a.flat)], base)
        row("scandir", "dents.scandir threads=1", lambda: [e.name for e in dents.scandir(a.flat, threads=1)], base)
        base = row("split", "os.scandir + is_dir()", lambda: [e.is_dir(follow_symlinks=False) for e in os.scandir(a.flat)])
        row("split", "dents.scandir_split", lambda: dents.scandir_split(a.flat), base)
    else:
        print(f"no directory at {a.flat}: scandir rows skipped")
    if not scandir_rs:
        print("scandir-rs not installed: its rows skipped (pip install scandir-rs)")


if __name__ == "__main__":
    main()
