#!/usr/bin/env python3
"""Issue 25's comparisons in one run: dents as a library against walkdir,
jwalk and ignore, and dents's Python walk against os.walk, every case
interleaved with the others (one of each per round), medians of wall time
and CPU time (user + system of the whole process), ratios taken between
rows of the same run.

usage: embed.py [--runs N] [--small-runs M] TREE SMALL

TREE: a big tree (the real-tree shape, /var/tmp/dents-bench/tree/shape);
SMALL: a small one (about 1,600 entries: a copy of a few crates'
sources, e.g. `cp -r ~/.cargo/registry/src/*/{libc,rustix,linux-raw-sys}-*
SMALL`).  Each small-tree case runs M times a round (a walk there takes a
few milliseconds, the process's start most of it).

Environment: WALKERS, the `dents-walkers` program (default
target/release/dents-walkers: `cargo build --release -p dents-walkers`);
PY, a Python with the dents package installed (e.g. target/py-venv/bin/python
after scripts/test-python); without it the Python rows are skipped, said
on stderr.  Each Python case is a fresh interpreter that walks once to warm
and then times one walk.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

PY_PROG = r"""
import os, sys, time
sys.path.insert(0, sys.argv[3])
from benchlib import count_walk, walk_lstat_dents, walk_lstat_os
import dents
top, mode = sys.argv[1], sys.argv[2]
run = {
    "dents.walk": lambda: count_walk(dents.walk(top)),
    "os.walk": lambda: count_walk(os.walk(top)),
    "dents.walk(stat=True)": lambda: walk_lstat_dents(top),
    "os.walk + os.lstat": lambda: walk_lstat_os(top),
}[mode]
run()
t, c = time.perf_counter(), os.times()
run()
e = os.times()
print(time.perf_counter() - t, (e.user - c.user) + (e.system - c.system))
"""


def timed(cmd):
    """Runs `cmd` (output dropped); its wall time and CPU time."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        sys.exit(f"embed.py: {' '.join(cmd)} failed ({status})")
    return wall, ru.ru_utime + ru.ru_stime


def timed_py(py, tree, mode):
    """One Python case: the interpreter's own timing of its second walk
    (the walks are benchlib's, as bench/python.py times them)."""
    bench = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([py, "-c", PY_PROG, tree, mode, bench], capture_output=True, text=True,
                         check=True)
    wall, cpu = out.stdout.split()
    return float(wall), float(cpu)


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--small-runs", type=int, default=20)
    ap.add_argument("tree")
    ap.add_argument("small")
    a = ap.parse_args()
    walkers = os.environ.get("WALKERS", "target/release/dents-walkers")
    py = os.environ.get("PY")
    big = ["dents-iter", "dents-visit", "dents-iter@1", "walkdir", "jwalk",
           "dents-sorted", "walkdir-sorted", "jwalk-sorted"]
    small = ["dents-iter", "walkdir", "ignore", "jwalk"]
    pys = ["dents.walk", "os.walk", "dents.walk(stat=True)", "os.walk + os.lstat"]
    if not py:
        print("embed.py: PY not set: the Python rows are skipped", file=sys.stderr)
        pys = []

    def walker_cmd(case, tree):
        name, _, threads = case.partition("@")
        return [walkers, name, tree] + ([threads] if threads else [])

    # Every walker must see the same number of entries in each tree.
    for tree, cases in ((a.tree, big), (a.small, small)):
        counts = {c: subprocess.run(walker_cmd(c, tree), capture_output=True, text=True,
                                    check=True).stdout.strip() for c in cases}
        if len(set(counts.values())) != 1:
            sys.exit(f"embed.py: the walkers disagree on {tree}: {counts}")
        print(f"{tree}: {next(iter(counts.values()))} entries, every walker", file=sys.stderr)

    res = {}
    for r in range(a.runs):
        for c in big:
            res.setdefault(("big", c), []).append(timed(walker_cmd(c, a.tree)))
        for c in small:
            for _ in range(a.small_runs):
                res.setdefault(("small", c), []).append(timed(walker_cmd(c, a.small)))
        for c in pys:
            res.setdefault(("py", c), []).append(timed_py(py, a.tree, c))
        print(f"round {r + 1}/{a.runs}, load {os.getloadavg()[0]:.1f}", file=sys.stderr)

    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for k, v in res.items()}
    # Each row against its peer in the same run (wall, CPU).
    peers = {
        ("big", "dents-iter"): ("big", "dents-visit"),
        ("big", "dents-iter@1"): ("big", "walkdir"),
        ("big", "dents-sorted"): ("big", "walkdir-sorted"),
        ("small", "dents-iter"): ("small", "walkdir"),
        ("py", "dents.walk"): ("py", "os.walk"),
        ("py", "dents.walk(stat=True)"): ("py", "os.walk + os.lstat"),
    }
    print(f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"load {os.getloadavg()}, {a.runs} rounds, small cases {a.small_runs} a round")
    print("| tree | case | median wall (ms) | median CPU (ms) | against |")
    print("| --- | --- | --- | --- | --- |")
    for (tree, c), (w, cpu) in med.items():
        vs = ""
        if (tree, c) in peers:
            p = peers[(tree, c)]
            pw, pc = med[p]
            ratio = lambda a, b: f"{a / b:.2f}×" if b else "n/a"  # noqa: E731
            vs = f"{p[1]}: wall {ratio(w, pw)}, CPU {ratio(cpu, pc)}"
        print(f"| {tree} | {c} | {w * 1000:.1f} | {cpu * 1000:.1f} | {vs} |")


if __name__ == "__main__":
    main()
