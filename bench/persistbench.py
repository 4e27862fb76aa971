#!/usr/bin/env python3
"""dents scan against the peers' own persistence (issue 27): gdu --db
(SQLite), ncdu -o (JSON) and mpiFileUtils' dwalk --output (.mfu), with
dents du -s as the reference, runs interleaved, each command its own
process under /usr/bin/time: medians of wall time and of CPU time (user
+ system), their ratios to du -s's medians in the same rounds, peak RSS,
and the bytes of each output, in all and per entry of TREE.

usage: DENTS=BIN [GDU=BIN] [NCDU=BIN] [DWALK=BIN] [MPIRUN=BIN] [MPI_FLAGS=FLAGS]
           persistbench.py TREE RUNS [--cold]

GDU must be a gdu with --db (gdu 5.22, Debian 12's, has none; default
`gdu` on the PATH), NCDU default `ncdu`, DWALK default
/opt/peers/mpifileutils/bin/dwalk, MPIRUN default `mpirun`, MPI_FLAGS
default "--allow-run-as-root --oversubscribe --bind-to none --mca mtl
^ofi,psm,psm2"; a peer that is missing is skipped with a note on stderr.
dwalk runs under mpirun with -np 1 and -np 2, itself under a second
/usr/bin/time: mpirun's wall and CPU (CPU includes the ranks') are the
whole command's; its peak RSS is the largest of mpirun's and the ranks'
(what wait4 reports); "ranks" is the largest rank's, from the inner time.
Hot: one warm-up run of each command first; --cold: `sync; echo 3 >
/proc/sys/vm/drop_caches` before every run (root).  Outputs go to
/dev/shm/pb-*, each removed before the run that writes it.  Entries:
`find TREE` counted once.
"""
import os
import shutil
import statistics
import subprocess
import sys

USAGE = __doc__[__doc__.index("usage:"):]
D = os.environ.get("DENTS", "target/release/dents")
MPIRUN = os.environ.get("MPIRUN", "mpirun")
MPI_FLAGS = os.environ.get(
    "MPI_FLAGS", "--allow-run-as-root --oversubscribe --bind-to none --mca mtl ^ofi,psm,psm2").split()
TIME = ["/usr/bin/time", "-f", "%e %U %S %M"]
RANK = ["/usr/bin/time", "-f", "RANK %e %U %S %M"]
S = "/dev/shm/pb-"


def peer(var, default, needs=None):
    """The peer's path from `var`, or None (with a note) when it is missing
    or its --help does not show `needs`."""
    path = shutil.which(os.environ.get(var, default))
    if path and needs:
        out = subprocess.run([path, "--help"], capture_output=True, text=True)
        if needs not in out.stdout + out.stderr:
            print(f"note: {var}={path} has no {needs}: skipped", file=sys.stderr)
            return None
    if not path:
        print(f"note: {var} ({os.environ.get(var, default)}) not found: skipped", file=sys.stderr)
    return path


def commands(tree):
    """name -> (argv, output file or None)."""
    c = {
        "dents du -s": ([D, "du", "-s", tree], None),
        "dents scan": ([D, "scan", "-o", S + "scan.parquet", tree], S + "scan.parquet"),
        "dents scan --names-only":
            ([D, "scan", "--names-only", "-o", S + "names.parquet", tree], S + "names.parquet"),
    }
    if gdu := peer("GDU", "gdu", "--db"):
        c["gdu -n -p --db"] = ([gdu, "-n", "-p", "--db", S + "gdu.sqlite", tree], S + "gdu.sqlite")
    if ncdu := peer("NCDU", "ncdu"):
        c["ncdu -0 -o"] = ([ncdu, "--ignore-config", "-0", "-o", S + "ncdu.json", tree], S + "ncdu.json")
    dwalk = peer("DWALK", "/opt/peers/mpifileutils/bin/dwalk")
    if dwalk and peer("MPIRUN", "mpirun"):
        for np in (1, 2):
            c[f"dwalk --output -np {np}"] = ([MPIRUN] + MPI_FLAGS + ["-np", str(np)] + RANK
                                             + [dwalk, "--output", S + "dwalk.mfu", tree], S + "dwalk.mfu")
    return c


def remove(out):
    """The output and what its writer may leave beside it (SQLite's journals)."""
    for f in (out, out + "-wal", out + "-shm", out + "-journal"):
        if os.path.isdir(f):
            shutil.rmtree(f)
        elif os.path.lexists(f):
            os.remove(f)


def run(argv, out, cold):
    """One run: (wall, CPU, peak RSS KiB, largest rank's peak RSS KiB or None)."""
    if out:
        remove(out)
    if cold:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    p = subprocess.run(TIME + argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(argv)}: exit status {p.returncode}\n{p.stderr}")
    wall, user, system, kb = p.stderr.split()[-4:]
    ranks = [int(line.split()[-1]) for line in p.stderr.splitlines() if line.startswith("RANK ")]
    return float(wall), float(user) + float(system), int(kb), max(ranks) if ranks else None


def size(out):
    """Bytes of the output: a file (with its SQLite write-ahead log) or a directory."""
    if os.path.isdir(out):
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
    return sum(os.path.getsize(f) for f in (out, out + "-wal") if os.path.exists(f))


def main(a):
    try:
        tree, runs = a[0], int(a[1])
        cold = a[2:] == ["--cold"]
        if runs < 1 or a[2:] not in ([], ["--cold"]):
            raise ValueError
    except (IndexError, ValueError):
        sys.exit(USAGE)
    cmds = commands(tree)
    print(f"{tree}, {runs} rounds, {'cold' if cold else 'hot'}; load average at start {os.getloadavg()}")
    for argv, out in cmds.values():
        print("  " + " ".join(argv), flush=True)
        if not cold:
            run(argv, out, False)  # warm-up
    res = {k: [] for k in cmds}
    for r in range(runs):
        for k, (argv, out) in cmds.items():
            res[k].append(run(argv, out, cold))
            w, c, kb, rk = res[k][-1]
            print(f"  round {r + 1} {k}: wall {w:.2f} s, CPU {c:.2f} s, {kb / 1024:.1f} MiB"
                  + (f" (ranks {rk / 1024:.1f} MiB)" if rk else ""), flush=True)
    print(f"load average at end {os.getloadavg()}")
    entries = len(subprocess.run(["find", tree, "-printf", "."], capture_output=True, check=True).stdout)
    med = {k: [statistics.median(x[i] for x in v) for i in range(3)] for k, v in res.items()}
    rw, rc, _ = med["dents du -s"]
    print(f"\n{entries} entries (find {tree})\n")
    print("| command | wall median | CPU median | ratio to `dents du -s`, wall / CPU "
          "| peak RSS | bytes | bytes an entry |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for k, (argv, out) in cmds.items():
        w, c, kb = med[k]
        ranks = [x[3] for x in res[k] if x[3]]
        rss = f"{kb / 1024:.1f} MiB" + (f" (largest rank {statistics.median(ranks) / 1024:.1f} MiB)"
                                        if ranks else "")
        b = size(out) if out else None
        print(f"| `{k}` | {w:.2f} s | {c:.2f} s | {w / rw:.2f} / {c / rc:.2f} | {rss} | "
              + (f"{b:,} | {b / entries:.1f} |" if out else "| |"))
    print("\nruns (wall, CPU):")
    for k, v in res.items():
        print(f"  {k}: {[(x[0], round(x[1], 2)) for x in v]}")


main(sys.argv[1:])
