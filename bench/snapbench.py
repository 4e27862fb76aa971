"""Snapshots against the tree (docs/history/benchmarks.md, issue 27), runs
interleaved, each command under /usr/bin/time: medians of wall time and of
CPU time (user + system: the steadier figure on a loaded machine), their
ratios to the first command's in the same rounds, and peak RSS.

usage: DENTS=BIN snapbench.py TREE RUNS
           dents scan (full, names-only) against dents du -s on TREE, and
           bytes an entry of each snapshot
       DENTS=BIN [COMPARE=0] snapbench.py --from SNAPSHOT TREE RUNS
           dents du --from SNAPSHOT against dents du on TREE, with -s and
           without (every directory); the lines compared once (as sets: their
           order differs, docs/snapshot.md) unless COMPARE=0
       DENTS=BIN snapbench.py --diff OLD NEW RUNS
           dents diff OLD NEW (and --growth), lines counted once
"""
import os
import statistics
import subprocess
import sys

D = os.environ.get("DENTS", "target/release/dents")
NL = b"\n"
USAGE = __doc__[__doc__.index("usage:"):]


def rounds(cmds, runs, reference, ok=(0,), warm=True):
    """Runs `cmds` (name -> argv) once to warm up, then `runs` rounds in
    turn; prints each one's medians and ratios to `reference`'s.  An exit
    status not in `ok` stops the bench.  `warm=False`: no warm-up round
    (the caller ran each command already)."""
    def run(argv, **kw):
        p = subprocess.run(argv, stdout=subprocess.DEVNULL, **kw)
        if p.returncode not in ok:
            sys.exit(f"{argv}: exit status {p.returncode}")
        return p
    for c in cmds.values() if warm else ():
        run(c)
    res = {k: [] for k in cmds}
    for _ in range(runs):
        for k, c in cmds.items():
            p = run(["/usr/bin/time", "-f", "%e %U %S %M"] + c, stderr=subprocess.PIPE)
            wall, user, system, kb = p.stderr.decode().split()[-4:]
            res[k].append((float(wall), float(user) + float(system), int(kb)))
            # Each run as it ends: a long bench cut short still tells.
            print(f"  round {len(res[k])} {k}: wall {wall} s, CPU {res[k][-1][1]:.2f} s, "
                  f"{int(kb) / 1024:.1f} MiB", flush=True)
    med = {k: [statistics.median(x[i] for x in v) for i in range(3)] for k, v in res.items()}
    ref = med[reference]
    print(f"load average before the last round: {os.getloadavg()}")
    for k in cmds:
        w, c, kb = med[k]
        print(f"{k:28s} wall {w:7.2f} s ({w / ref[0]:.3f})  CPU {c:7.2f} s ({c / ref[1]:.3f})"
              f"  peak RSS {kb / 1024:6.1f} MiB  runs (wall, CPU) "
              f"{[(x[0], round(x[1], 2)) for x in res[k]]}")


def scan(tree, runs):
    rounds({
        "du -s": [D, "du", "-s", tree],
        "scan": [D, "scan", "-o", "/dev/shm/snapbench.parquet", tree],
        "scan --names-only": [D, "scan", "--names-only", "-o", "/dev/shm/snapbench-n.parquet", tree],
    }, runs, "du -s")
    rows = int(subprocess.run([D, "find", tree], capture_output=True).stdout.count(b"\n"))
    for f in ("/dev/shm/snapbench.parquet", "/dev/shm/snapbench-n.parquet"):
        sz = os.path.getsize(f)
        print(f"{f}: {sz} bytes, {rows} entries, {sz/rows:.1f} bytes/entry")


def from_snapshot(snap, tree, runs):
    for opt in (["-s"], []) if os.environ.get("COMPARE", "1") == "1" else ():
        live = subprocess.run([D, "du"] + opt + [tree], capture_output=True, check=True).stdout
        stored = subprocess.run([D, "du", "--from", snap] + opt, capture_output=True,
                                check=True).stdout
        # Siblings' lines come in the snapshot's order from a snapshot,
        # as du's threads finish them from the tree (docs/snapshot.md).
        same = "the same" if sorted(live.split(NL)) == sorted(stored.split(NL)) else "DIFFERENT"
        print(f"du {' '.join(opt)}: {live.count(NL)} lines, {same} (in any order) from the snapshot")
    rounds({
        "du -s TREE": [D, "du", "-s", tree],
        "du TREE": [D, "du", tree],
        "du --from SNAPSHOT -s": [D, "du", "--from", snap, "-s"],
        "du --from SNAPSHOT": [D, "du", "--from", snap],
    }, runs, "du -s TREE", warm=False)


def diff(old, new, runs):
    for opt in ([], ["--growth"]):
        p = subprocess.run([D, "diff"] + opt + [old, new], capture_output=True)
        print(f"diff {' '.join(opt)}: status {p.returncode}, {p.stdout.count(NL)} lines")
    rounds({
        "diff OLD NEW": [D, "diff", old, new],
        "diff --growth OLD NEW": [D, "diff", "--growth", old, new],
        "diff NEW NEW": [D, "diff", new, new],
    }, runs, "diff OLD NEW", ok=(0, 1))


def main(a):
    try:
        if a[0] == "--from" and len(a) == 4:
            return from_snapshot(a[1], a[2], int(a[3]))
        if a[0] == "--diff" and len(a) == 4:
            return diff(a[1], a[2], int(a[3]))
        if len(a) == 2:
            return scan(a[0], int(a[1]))
    except (IndexError, ValueError):
        pass
    sys.exit(USAGE)


main(sys.argv[1:])
