#!/usr/bin/env python3
"""Runs the issue 16 benchmark: dents-mpi against one-process dents and
against mpiFileUtils' dwalk, dwalk --lite and dfind, hot and cold.

Called by bench/mpi/run.sh, which documents the environment.  Writes
OUT/runs.tsv, one row per run:

    temp round name np whole_s walk_s rss_kib cpu_s load1

rss_kib and cpu_s (user + system) hold one value per rank, comma-separated:
CPU time, unlike wall time, hardly depends on what else the machine runs,
so the simulation is checked against it.

and OUT/checks.tsv, one row per printing command (from its first hot run):
lines printed, and how many of them are not a path of the tree (a line
broken by another rank's output mid-line is counted there; mpiFileUtils'
own log lines, which it writes to standard output, are not).

Why not hyperfine, as bench/run.sh: each run here also yields the peak RSS
of every rank and the tool's own walk-phase clock, which hyperfine cannot
collect per run.

Runs are made in rounds: each round runs every command once, in an order
rotated by one per round, so a burst of load from the machine's other
tenants falls on all commands alike.  Hot: one warm-up run of every
command before round 0.  Cold: `sync; echo 3 > /proc/sys/vm/drop_caches`
before every run (root).
"""

import os
import re
import shlex
import subprocess
import sys
import time

ENV = os.environ
B = ENV.get("DENTS_BENCH_DIR", "/var/tmp/dents-bench")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIR = ENV.get("DIR", B + "/tree/shape")
RUNS = int(ENV.get("RUNS", "5"))
TEMPS = ENV.get("TEMPS", "hot cold").split()
NPS = [int(n) for n in ENV.get("NPS", "1 2").split()]
OUT = ENV.get("OUT", ROOT + "/bench/out/mpi")
SCRATCH = ENV.get("SCRATCH", B + "/out")
MPIRUN = ENV.get("MPIRUN", "mpirun")
# --bind-to none: at -np <= 2 mpirun binds each rank to one core, and a
# rank's walker (dents-mpi's, like any multi-threaded one) then runs on
# that core alone; the same flags go to every tool.
MPI_FLAGS = shlex.split(
    ENV.get("MPI_FLAGS", "--allow-run-as-root --oversubscribe --bind-to none")
)
QUIET = float(ENV.get("QUIET", "0.3"))
QUIET_WAIT = float(ENV.get("QUIET_WAIT", "120"))
ONLY = ENV.get("ONLY", "")


def program(var, *candidates):
    """The path of a program: $VAR, else the first candidate that exists."""
    if ENV.get(var):
        return ENV[var]
    for c in candidates:
        if os.access(c, os.X_OK):
            return c
    return candidates[0]


DENTS = program("DENTS", ROOT + "/target/release/dents")
DENTS_MPI = program("DENTS_MPI", ROOT + "/target/release/dents-mpi")
DWALK = program("DWALK", "/opt/peers/mpifileutils/bin/dwalk")
DFIND = program("DFIND", "/opt/peers/mpifileutils/bin/dfind")

# The walk phase by the tool's own clock, from its standard error.  dwalk
# and dfind: rank 0's summary "Walked N items in S seconds (R items/sec)"
# (the per-rank progress line says "secs").  dents-mpi (run with
# DENTS_MPI_STATS=1): each rank's "N ms from start to termination", the
# longest taken (builds without that line leave the column empty).
WALK_CLOCKS = [
    re.compile(rb"Walked \d+ items in ([0-9.]+) seconds"),
]
DENTS_MPI_CLOCK = re.compile(rb"dents-mpi: rank \d+: .* (\d+) ms from start to termination")


# mpiFileUtils' log lines on standard output: "[2026-11-23T14:49:59] ...".
LOG_LINE = re.compile(rb"\[\d{4}-\d\d-\d\dT[0-9:]+\] ")


def has_subcommand(dents_mpi, args):
    """Whether this dents-mpi build has a subcommand: it runs `args` as a
    single rank (MPI's singleton start, no mpirun) on a trivial input.  A
    build from before the subcommand existed prints its usage and exits 2;
    no dents-mpi at all has none."""
    if not os.access(dents_mpi[0], os.X_OK):
        return False
    p = subprocess.run(dents_mpi + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if p.returncode != 0:
        print(f"measure: {shlex.join(dents_mpi + args)}: exit {p.returncode}, its rows left out", file=sys.stderr)
    return p.returncode == 0


def commands():
    """(name, np, argv, prints) for every command; np 0 = no mpirun."""
    d = DIR
    cmds = [
        ("dents find -size +1M", 0, [DENTS, "find", d, "-size", "+1M"], False),
        ("dents find -false", 0, [DENTS, "find", d, "-false"], False),
        ("dents find", 0, [DENTS, "find", d], True),
        ("dents du -s", 0, [DENTS, "du", "-s", d], False),
    ]
    m = [DENTS_MPI] + shlex.split(ENV.get("DENTS_MPI_FLAGS", ""))
    has_find = has_subcommand(m, ["find", "/", "-maxdepth", "0", "-false"])
    has_du = has_subcommand(m, ["du", "-s", "/dev/null"])
    for np in NPS:
        if has_find:
            cmds += [
                ("dents-mpi find -size +1M", np, m + ["find", d, "-size", "+1M"], False),
                ("dents-mpi find -false", np, m + ["find", d, "-false"], False),
                ("dents-mpi find", np, m + ["find", d], True),
            ]
        if has_du:
            cmds += [("dents-mpi du -s", np, m + ["du", "-s", d], False)]
        cmds += [
            # mpirun's own start and end, for the simulation's check
            # (bench/mpi/simulate.py predicts the walk alone).
            ("mpirun true", np, ["true"], False),
            ("dwalk", np, [DWALK, d], False),
            ("dwalk --lite", np, [DWALK, "--lite", d], False),
            ("dfind --print", np, [DFIND, d, "--print"], True),
        ]
    if ONLY:
        keep = ONLY.split(",")
        cmds = [c for c in cmds if c[0] in keep]
    return cmds


def label(name, np):
    return name if np == 0 else f"{name} -np {np}"


def busy():
    """The fraction of all CPUs' time not idle over the next second."""

    def sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        # user nice system idle iowait ...: nice and iowait count as idle.
        return sum(v), v[1] + v[3] + v[4]

    t0, i0 = sample()
    time.sleep(1)
    t1, i1 = sample()
    return 1 - (i1 - i0) / max(1, t1 - t0)


def quiet():
    """Waits (at most QUIET_WAIT s) until the machine's other tenants leave
    the CPUs mostly idle; a run under their load measures them."""
    waited = 0
    while busy() > QUIET and waited < QUIET_WAIT:
        time.sleep(4)
        waited += 5


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def run(np, argv, out_path):
    """Runs one command; returns (whole_s, walk_s or None, [rss_kib per
    rank], [cpu_s per rank]).  Every rank runs under /usr/bin/time, which
    writes its peak RSS and CPU time to a file named by the rank."""
    rss = os.path.join(SCRATCH, "mpi-rss")
    for f in os.listdir(SCRATCH):
        if f.startswith("mpi-rss."):
            os.unlink(os.path.join(SCRATCH, f))
    wrap = [
        "sh",
        "-c",
        'exec /usr/bin/time -f "%M %U %S" -o "$0.${OMPI_COMM_WORLD_RANK:-0}" "$@"',
        rss,
    ]
    full = wrap + argv if np == 0 else [MPIRUN] + MPI_FLAGS + ["-np", str(np)] + wrap + argv
    env = dict(ENV, DENTS_MPI_STATS="1") if argv[0] == DENTS_MPI else None
    with open(out_path, "wb") as out:
        t0 = time.perf_counter()
        p = subprocess.run(full, stdout=out, stderr=subprocess.PIPE, env=env)
        whole = time.perf_counter() - t0
    if p.returncode != 0:
        sys.stderr.write(p.stderr.decode(errors="replace")[-2000:])
        raise SystemExit(f"measure: exit {p.returncode}: {shlex.join(full)}")
    # mpiFileUtils logs to standard output when its standard error is a
    # pipe (as here): before, after or among the paths.
    with open(out_path, "rb") as out:
        printed = out.read()
    walk = None
    ms = [int(m) for m in DENTS_MPI_CLOCK.findall(p.stderr)]
    if ms:
        walk = max(ms) / 1000
    for r in [] if ms else WALK_CLOCKS:
        m = r.search(p.stderr) or r.search(printed)
        if m:
            walk = float(m.group(1))
            break
    ranks = max(np, 1)
    kib, cpu = [], []
    for r in range(ranks):
        with open(f"{rss}.{r}") as f:
            m, u, s = f.read().split()[-3:]
        kib.append(int(m))
        cpu.append(float(u) + float(s))
    return whole, walk, kib, cpu


def reference_paths():
    """Every path of DIR, as find prints them (the printing commands'
    lines are checked against it)."""
    p = subprocess.run(["find", DIR], stdout=subprocess.PIPE, check=True)
    return set(p.stdout.split(b"\n")[:-1])


def main():
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(SCRATCH, exist_ok=True)
    cmds = commands()
    with open(os.path.join(OUT, "commands.tsv"), "w") as f:
        f.write("name\tnp\tcommand\n")
        for name, np, argv, _ in cmds:
            mpi = "" if np == 0 else shlex.join([MPIRUN] + MPI_FLAGS + ["-np", str(np)]) + " "
            f.write(f"{name}\t{np}\t{mpi}{shlex.join(argv)}\n")
    ref = reference_paths()
    out_path = os.path.join(SCRATCH, "mpi.out")
    runs = open(os.path.join(OUT, "runs.tsv"), "w")
    runs.write("temp\tround\tname\tnp\twhole_s\twalk_s\trss_kib\tcpu_s\tload1\n")
    checks = open(os.path.join(OUT, "checks.tsv"), "w")
    checks.write("name\tnp\tlines\tnot_a_path\n")
    for temp in TEMPS:
        if temp == "hot":
            for _, np, argv, _ in cmds:
                run(np, argv, out_path)
        for rnd in range(RUNS):
            quiet()
            for k in range(len(cmds)):
                name, np, argv, prints = cmds[(k + rnd) % len(cmds)]
                if temp == "cold":
                    drop_caches()
                load1 = open("/proc/loadavg").read().split()[0]
                whole, walk, kib, cpu = run(np, argv, out_path)
                runs.write(
                    f"{temp}\t{rnd}\t{name}\t{np}\t{whole:.4f}\t"
                    f"{'' if walk is None else walk}\t{','.join(map(str, kib))}\t"
                    f"{','.join(f'{c:.2f}' for c in cpu)}\t{load1}\n"
                )
                runs.flush()
                if prints and temp == TEMPS[0] and rnd == 0:
                    with open(out_path, "rb") as f:
                        lines = f.read().split(b"\n")[:-1]
                    logs = sum(1 for line in lines if LOG_LINE.match(line))
                    bad = sum(1 for line in lines if line not in ref) - logs
                    checks.write(f"{name}\t{np}\t{len(lines)}\t{bad}\n")
                    checks.flush()
            print(f"measure: {temp} round {rnd} done", file=sys.stderr)
    os.unlink(out_path)


if __name__ == "__main__":
    main()
