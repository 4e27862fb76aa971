#!/usr/bin/env bash
# Issue 16's benchmark: dents-mpi find and du at -np 1 and 2 against the
# one-process `dents find` / `dents du` and against mpiFileUtils' dwalk,
# dwalk --lite and dfind --print at the same -np, on one tree, hot and
# cold, RUNS rounds (medians), with every rank's peak RSS and the tools'
# own walk-phase clocks.  See bench/mpi/measure.py for how each run is
# made, bench/mpi/summarize.py for the tables.
#
# Writes bench/out/mpi/ (git-ignored):
#   commands.tsv  name, -np, the exact command line
#   runs.tsv      one row per run: temp, round, name, np, whole command (s),
#                 walk phase by the tool's clock (s), peak RSS and CPU
#                 time per rank (KiB, s), load average
#   checks.tsv    printing commands: lines, and lines that are no path of
#                 the tree (dfind's ranks mixing output mid-line)
#   results.md    medians, ratios, targets (bench/mpi/summarize.py)
#
# usage: bench/mpi/run.sh            (root for cold runs)
# env:   DENTS_BENCH_DIR  corpora (default /var/tmp/dents-bench, bench/corpus.sh)
#        DIR              the tree (default $DENTS_BENCH_DIR/tree/shape, ~405k entries)
#        RUNS             rounds, one run of every command each (default 5)
#        TEMPS            "hot cold" (default) or one of them
#        NPS              rank counts (default "1 2")
#        DENTS            one-process dents (default target/release/dents)
#        DENTS_MPI        dents-mpi (default target/release/dents-mpi; the
#                         rows of a subcommand it lacks, or of all when it
#                         does not exist, are left out); run with
#                         DENTS_MPI_STATS=1, whose per-rank "ms from start
#                         to termination" is its walk-phase clock
#        DENTS_MPI_FLAGS  options before dents-mpi's subcommand
#        DWALK DFIND      mpiFileUtils (default /opt/peers/mpifileutils/bin/…)
#        MPIRUN MPI_FLAGS mpirun and its options (default
#                         "--allow-run-as-root --oversubscribe --bind-to
#                         none": unbound, a rank's threads may use every
#                         core; mpirun binds each rank to one core at
#                         -np <= 2 otherwise).  On a machine without a
#                         fabric (this one), Open MPI 4.1's start probes
#                         the ofi/psm/psm2 MTLs (libfabric) for about
#                         200 ms a command: add "--mca mtl ^ofi,psm,psm2"
#                         (or set OMPI_MCA_mtl=^ofi,psm,psm2) to leave
#                         that out, for every tool alike
#        ONLY             comma-separated command names to keep, e.g.
#                         ONLY="dwalk,dwalk --lite"
#        QUIET QUIET_WAIT before each round wait up to QUIET_WAIT s (120)
#                         until at most QUIET (0.3) of the CPUs is busy
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LC_ALL=C.UTF-8
python3 "$here/measure.py"
out=${OUT:-$here/../out/mpi}
python3 "$here/summarize.py" "$out" > "$out/results.md"
cat "$out/results.md"
