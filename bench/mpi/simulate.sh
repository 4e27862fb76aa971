#!/usr/bin/env bash
# Issue 16's scale simulation: the scenarios of docs/distributed.md
# ("Simulation"), each swept over 1 to 1024 ranks by bench/mpi/simulate.py,
# and their charts (bench/mpi/chart.py).
#
#   local   this machine's measured costs (hot ext4), 16 copies of the shape
#           profile (6.5M entries): dents-mpi du (4 threads per rank; the
#           engine as it is and as session 6 had it) and dwalk, then find
#           -false and dwalk --lite (no stat per entry)
#   remote  a parallel file system: a cost per stat'ed entry calibrated so
#           that the dwalk model walks 74k entries/s at 64 ranks (the
#           published rate), then dwalk at every rank count (the published
#           128-rank rate, 144k/s, is the check) and dents-mpi at 1 and 4
#           threads per rank with the same costs (4 also with session 6's
#           engine)
#
# usage: bench/mpi/simulate.sh
# env:   PROFILE  the tree profile (default bench/mpi/shape.profile)
#        OUT      tables and logs (default bench/out/mpi-sim)
#        PNG      chart prefix (default docs/bench/mpi-sim)
#        COPIES   copies of the profile (default 16)
#        RANKS    rank counts (default 1,2,4,...,1024)
#        PARTS    which scenarios (default "local remote")
#        ENTRY_US the remote cost per entry, skipping its calibration (the
#                 last remote-dwalk.log says what it found)
# The charts need matplotlib: /usr/bin/python3 (Debian's python3-matplotlib),
# as bench/chart.py.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PROFILE=${PROFILE:-$here/shape.profile}
OUT=${OUT:-$root/bench/out/mpi-sim}
PNG=${PNG:-$root/docs/bench/mpi-sim}
COPIES=${COPIES:-16}
RANKS=${RANKS:-1,2,4,8,16,32,64,128,256,512,1024}
PARTS=${PARTS:-local remote}
# PARALLEL=1 runs the parts side by side (two processes).
PARALLEL=${PARALLEL:-0}
mkdir -p "$OUT"
sim() { # NAME OPTION...
    local name=$1; shift
    echo "simulate: $name" >&2
    python3 "$here/simulate.py" --copies "$COPIES" --ranks "$RANKS" --repeats 1 \
        --tsv "$OUT/$name.tsv" "$@" "$PROFILE" 2> "$OUT/$name.log"
}

# The engine of session 6 (main at 934f16e): Safra's token ring, a pause
# after "no work" doubling to 10 ms, a reserve of 8 (64 hungry) whatever
# the ranks, batches of 16 items whatever the walker's threads.
S6=(--termination ring --retry-max-us 10000 --reserve 8 --reserve-per-rank 1000000
    --hungry-reserve 64 --hungry-per-rank 1000000 --batch-per-thread 16)

part_local() {
    # du -s / find -size (every entry stat'ed), against dwalk.
    sim local-dents --mode dents --job du --threads 4
    sim local-dents-s6 --mode dents --job du --threads 4 "${S6[@]}"
    sim local-dwalk --mode dwalk
    chart "$PNG-local.png" "simulated, this machine's costs (hot ext4), shape x$COPIES, every entry stat'ed" \
        "dents-mpi du, 4 threads/rank=$OUT/local-dents.tsv" \
        "same, session 6's engine=$OUT/local-dents-s6.tsv" \
        "dwalk=$OUT/local-dwalk.tsv"
    # find -false (no stat in the expression) against dwalk --lite.
    sim local-find --mode dents --job find --no-stat --threads 4
    sim local-find-s6 --mode dents --job find --no-stat --threads 4 "${S6[@]}"
    sim local-dwalk-lite --mode dwalk --no-stat
    chart "$PNG-local-lite.png" "simulated, this machine's costs (hot ext4), shape x$COPIES, no stat per entry" \
        "dents-mpi find -false, 4 threads/rank=$OUT/local-find.tsv" \
        "same, session 6's engine=$OUT/local-find-s6.tsv" \
        "dwalk --lite=$OUT/local-dwalk-lite.tsv"
}

part_remote() {
    if [ -z "${ENTRY_US:-}" ]; then
        sim remote-dwalk --mode dwalk --calibrate 64:74000
    fi
    entry_us=${ENTRY_US:-}
    [ -n "$entry_us" ] || entry_us=$(sed -n 's/^calibrated: --fs-entry-us \([0-9.]*\) .*/\1/p' "$OUT/remote-dwalk.log")
    if [ -n "${ENTRY_US:-}" ]; then
        sim remote-dwalk --mode dwalk --fs-entry-us "$entry_us"
    fi
    sim remote-dents-t1 --mode dents --job du --threads 1 --fs-entry-us "$entry_us"
    sim remote-dents-t4 --mode dents --job du --threads 4 --fs-entry-us "$entry_us"
    sim remote-dents-t4-s6 --mode dents --job du --threads 4 --fs-entry-us "$entry_us" "${S6[@]}"
    chart "$PNG-remote.png" \
        "simulated, a parallel file system: ${entry_us} us per stat (dwalk model calibrated to 74k entries/s at 64 ranks), shape x$COPIES" \
        "dwalk=$OUT/remote-dwalk.tsv" "dents-mpi, 1 thread/rank=$OUT/remote-dents-t1.tsv" \
        "dents-mpi, 4 threads/rank=$OUT/remote-dents-t4.tsv" \
        "dents-mpi, 4 threads/rank, session 6's engine=$OUT/remote-dents-t4-s6.tsv"
}

chart() {
    /usr/bin/python3 "$here/chart.py" "$@"
}

if [ "$PARALLEL" = 1 ]; then
    for part in $PARTS; do
        "part_$part" &
    done
    wait
else
    for part in $PARTS; do
        "part_$part"
    done
fi
for t in "$OUT"/*.tsv; do
    echo "## $(basename "$t" .tsv)"
    grep -h '^calibrated' "${t%.tsv}.log" || true
    column -t "$t"
done
