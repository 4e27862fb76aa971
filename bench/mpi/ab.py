#!/usr/bin/env python3
"""Interleaved A/B of command lines (dents-mpi builds, flags), for a loaded
machine where one command's runs in a row would each meet another load.

usage: bench/mpi/ab.py ROUNDS 'NAME=COMMAND' ['NAME=COMMAND']...

Each round runs every command once, in the order given, in the current
directory, with DENTS_MPI_STATS=1.  Per command: the medians of the whole
command's wall time, its CPU time (all its processes: mpirun and the
ranks), dents-mpi's walk phase (the largest "ms from start to
termination" over its ranks) and rank 0's MPI_Init and MPI_Finalize
(dents-mpi's DENTS_MPI_STATS lines; empty for other programs); then the
ratios of each median to the first command's, and the load averages
before the first round and after the last.
"""

import os
import re
import resource
import shlex
import statistics
import subprocess
import sys
import time


def one_run(argv):
    """(wall ms, CPU ms, walk ms or None, MPI_Init ms, MPI_Finalize ms)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    r = subprocess.run(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(os.environ, DENTS_MPI_STATS="1"),
        check=False,
    )
    wall = (time.monotonic() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    err = r.stderr.decode(errors="replace")
    if r.returncode != 0:
        sys.exit(f"{shlex.join(argv)}: status {r.returncode}\n{err}")
    walks = [int(m) for m in re.findall(r"(\d+) ms from start to termination", err)]
    init = re.search(r"rank 0: MPI_Init (\d+) ms, MPI_Finalize (\d+) ms", err)
    return (
        wall,
        cpu,
        max(walks) if walks else None,
        int(init.group(1)) if init else None,
        int(init.group(2)) if init else None,
    )


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def main():
    rounds = int(sys.argv[1])
    variants = [a.split("=", 1) for a in sys.argv[2:]]
    load_before = os.getloadavg()
    runs = {name: [] for name, _ in variants}
    for _ in range(rounds):
        for name, cmd in variants:
            runs[name].append(one_run(shlex.split(cmd)))
    load_after = os.getloadavg()
    cols = ["whole", "CPU", "walk", "MPI_Init", "MPI_Finalize"]
    meds = {n: [median([r[i] for r in rs]) for i in range(len(cols))] for n, rs in runs.items()}
    fmt = lambda v: "" if v is None else f"{v:.0f} ms"
    print(f"| command | runs | {' | '.join(cols)} |")
    print("|---|---:|" + "---:|" * len(cols))
    for name, cmd in variants:
        print(f"| {name} (`{cmd}`) | {rounds} | " + " | ".join(fmt(v) for v in meds[name]) + " |")
    base = meds[variants[0][0]]
    print()
    print(f"| ratio to {variants[0][0]} | " + " | ".join(cols[:3]) + " |")
    print("|---|" + "---:|" * 3)
    for name, _ in variants[1:]:
        cells = []
        for i in range(3):
            a, b = meds[name][i], base[i]
            cells.append("" if a is None or not b else f"{a / b:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    print(
        "load average before: %.2f %.2f %.2f; after: %.2f %.2f %.2f"
        % (load_before + load_after)
    )


if __name__ == "__main__":
    main()
