#!/usr/bin/env python3
"""Hot CPU and wall time of two dents builds against the one-thread floor
and bfs 4, in interleaved rounds (each round runs every variant once, so a
ratio taken within a round shares the round's load): docs/walk-order.md,
"Where the CPU goes (session 5)".

usage: OLD=path NEW=path bench/order/cpu-floor.py [ROUNDS]
env: TREE (default the shape), FLOOR (target/release/dents-floor),
     BFS (/opt/peers/bin/bfs4).
Prints, per variant, the medians of CPU (user + system, from perf stat),
user, system and wall time in ms, then ratios per round (median, q1-q3).
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

TREE = os.environ.get("TREE", "/var/tmp/dents-bench/tree/shape")
FLOOR = os.environ.get("FLOOR", "target/release/dents-floor")
BFS = os.environ.get("BFS", "/opt/peers/bin/bfs4")
OLD, NEW = os.environ["OLD"], os.environ["NEW"]

VARIANTS = {
    "floor": [FLOOR, TREE],
    "old-j1": [OLD, "find", "-j1", TREE, "-false"],
    "new-j1": [NEW, "find", "-j1", TREE, "-false"],
    "old": [OLD, "find", TREE, "-false"],
    "new": [NEW, "find", TREE, "-false"],
    "old-print": [OLD, "find", TREE],
    "new-print": [NEW, "find", TREE],
    "bfs4": [BFS, TREE, "-false"],
    "bfs4-print": [BFS, TREE],
}

RATIOS = [
    ("new-j1", "old-j1", "cpu"),
    ("new", "old", "cpu"),
    ("new", "old", "wall"),
    ("new-print", "old-print", "wall"),
    ("new-j1", "floor", "cpu"),
    ("new", "floor", "cpu"),
    ("old", "bfs4", "wall"),
    ("new", "bfs4", "wall"),
    ("old-print", "bfs4-print", "wall"),
    ("new-print", "bfs4-print", "wall"),
    ("new", "floor/2", "wall"),
]


def run(cmd, out):
    """One run under perf stat: (cpu, user, sys, wall) in ms; again if
    perf did not count (it happens under load)."""
    for _ in range(5):
        r = run_once(cmd, out)
        if r:
            return r
    raise RuntimeError(f"perf stat counted nothing for {cmd}")


def run_once(cmd, out):
    """One run under perf stat, or None where a counter is missing."""
    start = time.perf_counter()
    subprocess.run(
        ["perf", "stat", "-x,", "-e", "user_time,system_time", "-o", out, *cmd],
        stdout=subprocess.DEVNULL,
        check=True,
    )
    wall = (time.perf_counter() - start) * 1e3
    vals = {}
    for line in open(out):
        f = line.strip().split(",")
        if len(f) > 2 and f[0].isdigit():
            vals[f[2]] = int(f[0]) / 1e6
    if "user_time" not in vals or "system_time" not in vals:
        return None
    user, sys_ = vals["user_time"], vals["system_time"]
    return {"cpu": user + sys_, "user": user, "sys": sys_, "wall": wall}


def quartiles(xs):
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return statistics.median(xs), q[0], q[2]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    out = tempfile.mktemp()
    for cmd in VARIANTS.values():  # warm the caches
        run(cmd, out)
    data = {k: [] for k in VARIANTS}
    for _ in range(rounds):
        for name, cmd in VARIANTS.items():
            data[name].append(run(cmd, out))
    os.unlink(out)
    print("variant\tcpu\tuser\tsys\twall (medians, ms)")
    for name, rs in data.items():
        med = [statistics.median(r[k] for r in rs) for k in ("cpu", "user", "sys", "wall")]
        print(name + "\t" + "\t".join(f"{m:.0f}" for m in med))
    print("ratio per round\tmedian (q1-q3)")
    for a, b, what in RATIOS:
        if b == "floor/2":
            xs = [x[what] / (f["cpu"] / 2) for x, f in zip(data[a], data["floor"])]
        else:
            xs = [x[what] / y[what] for x, y in zip(data[a], data[b])]
        m, q1, q3 = quartiles(xs)
        print(f"{a} / {b} {what}\t{m:.2f} ({q1:.2f}-{q3:.2f})")


main()
