#!/usr/bin/env bash
# Issue 16's scale simulation: the scenarios of docs/distributed.md
# ("Simulation"), each swept over 1 to 1024 ranks by bench/mpi/simulate.py,
# and their charts (bench/mpi/chart.py).
#
#   local   this machine's measured costs (hot ext4), 16 copies of the shape
#           profile (6.5M entries): dents-mpi (4 threads per rank) and dwalk
#   remote  a parallel file system: a cost per stat'ed entry calibrated so
#           that the dwalk model walks 74k entries/s at 64 ranks (the
#           published rate), then dwalk at every rank count (the published
#           128-rank rate, 144k/s, is the check) and dents-mpi at 1 and 4
#           threads per rank with the same costs
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
mkdir -p "$OUT"
sim() { # NAME OPTION...
    local name=$1; shift
    echo "simulate: $name" >&2
    python3 "$here/simulate.py" --copies "$COPIES" --ranks "$RANKS" --repeats 1 \
        --tsv "$OUT/$name.tsv" "$@" "$PROFILE" 2> "$OUT/$name.log"
}

part_local() {
    sim local-dents --mode dents --threads 4
    # The same without the pause after "no work" (as the engine was at
    # 579236a): what the pause costs.
    sim local-dents-nopause --mode dents --threads 4 --retry-us 0
    sim local-dwalk --mode dwalk
    chart "$PNG-local.png" "simulated, this machine's costs (hot ext4), shape x$COPIES" \
        "dents-mpi, 4 threads/rank=$OUT/local-dents.tsv" \
        "dents-mpi, 4 threads/rank, no pause=$OUT/local-dents-nopause.tsv" \
        "dwalk=$OUT/local-dwalk.tsv"
}

part_remote() {
    if [ -z "${ENTRY_US:-}" ]; then
        sim remote-dwalk --mode dwalk --calibrate 64:74000
    fi
    entry_us=${ENTRY_US:-}
    [ -n "$entry_us" ] || entry_us=$(sed -n 's/^calibrated: --fs-entry-us \([0-9.]*\) .*/\1/p' "$OUT/remote-dwalk.log")
    sim remote-dents-t1 --mode dents --threads 1 --fs-entry-us "$entry_us"
    sim remote-dents-t4 --mode dents --threads 4 --fs-entry-us "$entry_us"
    # Without the pause, starved thieves ask every round trip: ~10^7
    # simulated requests by 512 ranks, and 1024 ranks did not finish in
    # 40 minutes here, so this one stops at 512.
    sim remote-dents-t4-nopause --mode dents --threads 4 --fs-entry-us "$entry_us" --retry-us 0 \
        --ranks 1,2,4,8,16,32,64,128,256,512
    chart "$PNG-remote.png" \
        "simulated, a parallel file system: ${entry_us} us per stat (dwalk model = 74k entries/s at 64 ranks), shape x$COPIES" \
        "dwalk=$OUT/remote-dwalk.tsv" "dents-mpi, 1 thread/rank=$OUT/remote-dents-t1.tsv" \
        "dents-mpi, 4 threads/rank=$OUT/remote-dents-t4.tsv" \
        "dents-mpi, 4 threads/rank, no pause (to 512)=$OUT/remote-dents-t4-nopause.tsv"
}

chart() {
    /usr/bin/python3 "$here/chart.py" "$@"
}

for part in $PARTS; do
    "part_$part"
done
for t in "$OUT"/*.tsv; do
    echo "## $(basename "$t" .tsv)"
    grep -h '^calibrated' "${t%.tsv}.log" || true
    column -t "$t"
done
