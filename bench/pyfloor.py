#!/usr/bin/env python3
"""dents.walk's cost on the Python thread against its floor and os.walk
(issue 25 item 5): instructions per entry under callgrind (stable on a
loaded machine), and wall-time medians of interleaved hot runs.

    python bench/pyfloor.py count [--runs N] [TREE]   # callgrind, per entry
    python bench/pyfloor.py time [--runs N] [TREE]    # wall and CPU medians
                                                      # (interleaved runs)
    python bench/pyfloor.py one MODE TREE             # one walk (for callgrind)

Needs a wheel built with the `floor` feature (`dents._native._walk_floor`,
src/floor.rs): the same tuples as dents.walk, from listings read on another
thread beforehand, so that iterating it costs only the objects' making.

`count` runs each MODE under `valgrind --tool=callgrind --separate-threads=yes`
and reports the Python thread's instructions (thread 1) per entry, less
those of a run that does everything but the walk (`none`; for the floor,
`floor-load`: the reading and freeing, without iterating), and the
instructions of every thread together.  dents.walk's own reading of
directories (`walk::read_ahead`, wherever it runs) is left out of both:
valgrind runs one thread at a time, so the Python thread reads most
directories itself there, which it does not where threads run at once.  TREE defaults to the /usr part of
the shape corpus (~190k entries).
"""

import argparse
import concurrent.futures
import glob
import os
import statistics
import subprocess
import sys
import tempfile

from benchlib import count_walk, interleaved, walk_lstat_dents, walk_lstat_os

TREE = "/var/tmp/dents-bench/tree/shape/usr"


def modes(t):
    """Each mode's walk, by name."""
    import dents
    import dents._native as native

    return {
        "none": lambda: 0,
        "os": lambda: count_walk(os.walk(t)),
        "dents": lambda: count_walk(dents.walk(t)),
        "floor-load": lambda: len([native._walk_floor(t)]),
        "floor": lambda: count_walk(native._walk_floor(t)),
        "os-lstat": lambda: walk_lstat_os(t),
        "dents-stat": lambda: walk_lstat_dents(t),
    }


# The modes counted, and the run each one's count is taken against.
COUNTED = [
    ("os", "none"),
    ("floor", "floor-load"),
    ("dents", "none"),
    ("os-lstat", "none"),
    ("dents-stat", "none"),
]


# Leaves out dents.walk's reading of directories, wherever it runs: under
# valgrind, which runs one thread at a time, the Python thread reads most
# directories itself, which with threads to spare it would not.
READING = "--toggle-collect=*walk::read_ahead*"
# (After the toggle, which would turn collection off at the start.)
COLLECT = "--collect-atstart=yes"


def callgrind(mode, t, out):
    """(thread 1's instructions, all threads') of `one MODE t`."""
    os.makedirs(out, exist_ok=True)
    prefix = os.path.join(out, mode)
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--separate-threads=yes", READING, COLLECT,
         f"--callgrind-out-file={prefix}.%p", sys.executable, __file__, "one", mode, t],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    per_thread = {}
    for f in glob.glob(prefix + ".*"):
        with open(f) as fh:
            for line in fh:
                if line.startswith("summary:") or line.startswith("totals:"):
                    per_thread[f] = int(line.split()[1])
                    break
    first = [v for f, v in per_thread.items() if f.endswith("-01")]
    return first[0], sum(per_thread.values())


def count(args):
    t = args.tree
    entries = count_walk(os.walk(t))
    print(f"tree {t}: {entries} entries (os.walk's names)")
    with tempfile.TemporaryDirectory() as out:
        jobs = [(m, i) for m in ["none", "floor-load"] + [m for m, _ in COUNTED]
                for i in range(args.runs)]
        # Two at a time: instruction counts do not depend on the load.
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            res = list(pool.map(lambda j: callgrind(j[0], t, os.path.join(out, f"r{j[1]}")), jobs))
        got = {}
        for mode in {m for m, _ in jobs}:
            runs = [r for (m, _), r in zip(jobs, res) if m == mode]
            got[mode] = (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
        for mode, base in COUNTED:
            py = (got[mode][0] - got[base][0]) / entries
            everything = (got[mode][1] - got[base][1]) / entries
            print(f"{mode:12} Python thread {py:8.0f} instructions/entry"
                  f"   all threads {everything:8.0f}")


def timed(args):
    m = modes(args.tree)
    for title, cases in [("walk", ["os", "dents", "floor"]), ("walk+lstat", ["os-lstat", "dents-stat"])]:
        med = interleaved(args.runs, [m[c] for c in cases])
        base = med[0][0]
        for c, (w, py, cpu) in zip(cases, med):
            print(f"{title:10} {c:12} wall {w * 1000:7.1f} ms  Python thread cpu {py * 1000:7.1f} ms"
                  f"  all cpu {cpu * 1000:7.1f} ms  {base / w:5.2f}x faster than {cases[0]}",
                  flush=True)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "one":
        modes(sys.argv[3])[sys.argv[2]]()
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["count", "time"])
    ap.add_argument("--runs", type=int, default=None)
    ap.add_argument("tree", nargs="?", default=TREE)
    a = ap.parse_args()
    if a.what == "count":
        a.runs = a.runs or 1
        count(a)
    else:
        a.runs = a.runs or 7
        timed(a)


if __name__ == "__main__":
    main()
