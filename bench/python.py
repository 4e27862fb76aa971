#!/usr/bin/env python3
"""Sanity timings of the Python package against os (and scandir-rs, if
installed): medians of hot runs, ratios within one run.

    python bench/python.py [--runs N] [--cold] [TREE] [FLAT_DIR]

`dents find` (the CLI) is taken from DENTS (default target/release/dents)
for the find rows.

TREE defaults to /var/tmp/dents-bench/tree/shape (the shape corpus, ~400k
entries), FLAT_DIR to /var/tmp/dents-bench/ext4/flat1m (1M entries).  Run it
with the wheel installed (scripts/test-python leaves a venv in
target/py-venv).  Every timed walk also counts its entries, and counts that
differ from os's are reported.

--cold drops the page, dentry and inode caches before every timed run
(`sync; echo 3 > /proc/sys/vm/drop_caches`, as root) and times only the
walk and scandir groups against os (every other tenant of the machine
loses its caches too).
"""

import argparse
import os
import subprocess

import dents
from benchlib import count_walk, interleaved, walk_lstat_dents, walk_lstat_os

try:
    import scandir_rs
except ImportError:  # optional peer
    scandir_rs = None


def find_entries_lstat(top):
    """Every file's size from dents.find's entries: the expression's own
    stat (-size) is the entry's stat()."""
    n = 0
    for e in dents.find(top, "-type", "f", "-size", "-1000G", entries=True):
        e.stat(follow_symlinks=False).st_size
        n += 1
    return n


COLD = False


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


DENTS = os.environ.get("DENTS", os.path.join(os.path.dirname(__file__), "..", "target", "release", "dents"))


def cli_find(*args):
    """`dents find ARGS` with its output thrown away."""
    subprocess.run([DENTS, "find", *args], stdout=subprocess.DEVNULL, check=True)


def count(it):
    n = 0
    for _ in it:
        n += 1
    return n


def group(title, runs, cases):
    """Times `cases` [(name, f)], the first being the baseline, their runs
    interleaved (one of each in turn) so that the machine's other load
    falls on all alike; prints medians of the wall time, of the calling
    (Python) thread's CPU time and of the whole process's CPU time, and the
    ratios of the baseline's to each.  On a machine busy with other work the
    wall time shows only what share of the cores this process got; the CPU
    times show the work: the Python thread's is what cannot overlap."""
    med = interleaved(runs, [f for _, f in cases], warm=not COLD,
                      before_each=drop_caches if COLD else None)
    for (name, _), m in zip(cases, med):
        ratios = "  ".join(f"{b / x:5.2f}x" if x else "    -" for b, x in zip(med[0], m))
        print(f"{title:10} {name:34} wall {m[0] * 1000:7.1f} ms  py-thread cpu {m[1] * 1000:7.1f} ms"
              f"  all cpu {m[2] * 1000:7.1f} ms   vs base: {ratios}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("tree", nargs="?", default="/var/tmp/dents-bench/tree/shape")
    ap.add_argument("flat", nargs="?", default="/var/tmp/dents-bench/ext4/flat1m")
    a = ap.parse_args()
    t, flat = a.tree, a.flat
    global COLD
    COLD = a.cold
    if COLD:
        # The walks against os only, each run from cold caches.
        if os.path.isdir(t):
            group("cold walk", a.runs, [
                ("os.walk", lambda: count_walk(os.walk(t))),
                ("dents.walk", lambda: count_walk(dents.walk(t))),
            ])
            group("cold walk+lstat", a.runs, [
                ("os.walk + os.lstat of each file", lambda: walk_lstat_os(t)),
                ("dents.walk(stat=True)", lambda: walk_lstat_dents(t)),
            ])
        if os.path.isdir(flat):
            group("cold scandir", a.runs, [
                ("os.scandir (names)", lambda: [e.name for e in os.scandir(flat)]),
                ("dents.scandir (names)", lambda: [e.name for e in dents.scandir(flat)]),
            ])
        return

    if os.path.isdir(t):
        want = count_walk(os.walk(t))
        for name, it in [("dents.walk", dents.walk(t)), ("dents.walk threads=0", dents.walk(t, threads=0))]:
            got = count_walk(it)
            if got != want:
                print(f"!! {name} counted {got} entries, os.walk {want}")
        cases = [
            ("os.walk", lambda: count_walk(os.walk(t))),
            ("dents.walk", lambda: count_walk(dents.walk(t))),
            ("dents.walk threads=0", lambda: count_walk(dents.walk(t, threads=0))),
        ]
        if scandir_rs:
            cases.append(("scandir_rs.Walk", lambda: sum(len(d) + len(f) for _, d, f in scandir_rs.Walk(t))))
        group("walk", a.runs, cases)
        group("walk+lstat", a.runs, [
            ("os.walk + os.lstat of each file", lambda: walk_lstat_os(t)),
            ("dents.walk(stat=True)", lambda: walk_lstat_dents(t)),
            ("dents.find -size, entries' stat()", lambda: find_entries_lstat(t)),
        ])
        want_paths = want + 1  # os.walk leaves the top out
        got = count(dents.find(t))
        if got != want_paths:
            print(f"!! dents.find counted {got} paths, os.walk {want_paths}")
        got = count(dents.find(t, entries=True))
        if got != want_paths:
            print(f"!! dents.find(entries=True) counted {got} entries, os.walk {want_paths}")
        group("find", a.runs, [
            ("dents find DIR -false (CLI)", lambda: cli_find(t, "-false")),
            ("dents.find(DIR, '-false')", lambda: count(dents.find(t, "-false"))),
            ("dents find DIR (CLI, to /dev/null)", lambda: cli_find(t)),
            ("dents.find(DIR) (every path)", lambda: count(dents.find(t))),
            ("dents.find(DIR, entries=True)", lambda: count(dents.find(t, entries=True))),
            ("os.walk (every name)", lambda: count_walk(os.walk(t))),
            ("dents.walk (every name)", lambda: count_walk(dents.walk(t))),
        ])
    else:
        print(f"no tree at {t}: walk rows skipped")

    if os.path.isdir(flat):
        group("scandir", a.runs, [
            ("os.scandir (names)", lambda: [e.name for e in os.scandir(flat)]),
            ("dents.scandir (names)", lambda: [e.name for e in dents.scandir(flat)]),
            ("dents.scandir threads=1 (names)", lambda: [e.name for e in dents.scandir(flat, threads=1)]),
        ])
        group("split", a.runs, [
            ("os.scandir + is_dir(follow=False)", lambda: [e.is_dir(follow_symlinks=False) for e in os.scandir(flat)]),
            ("dents.scandir_split", lambda: dents.scandir_split(flat)),
        ])
    else:
        print(f"no directory at {flat}: scandir rows skipped")
    if not scandir_rs:
        print("scandir-rs not installed: its rows skipped (pip install scandir-rs)")


if __name__ == "__main__":
    main()
