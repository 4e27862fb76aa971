#!/usr/bin/env bash
# Builds the benchmark corpora in loop images under $DENTS_BENCH_DIR
# (default /var/tmp/dents-bench) and mounts them there.  Idempotent: an
# image, mount or directory that is already complete is reused; a directory
# left half-filled by an interrupted run is rebuilt.
#
#   ext4.img  4 GiB sparse, mkfs.ext4 -N 2500000 (htree directories)
#   xfs.img   4 GiB sparse, mkfs.xfs defaults
# each mounted at $DENTS_BENCH_DIR/{ext4,xfs} (mount -o loop) and holding
#   flat1m/        1,000,000 empty files, camera-like names (bench/mkflat.py)
#   sizes/N/       N empty files, N in 1000 3000 10000 30000 100000 300000
#                  (the slicing-threshold measurement)
#
# usage: bench/corpus.sh            (root: mkfs, mount)
# env:   DENTS_BENCH_DIR  where the images and mount points live
#        SIZES            the sizes/ directories to build (default above)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=${DENTS_BENCH_DIR:-/var/tmp/dents-bench}
SIZES=${SIZES:-"1000 3000 10000 30000 100000 300000"}
mkdir -p "$B"

# image NAME MKFS-COMMAND...: creates $B/NAME.img (4 GiB sparse) with the
# command unless it exists, and mounts it on $B/NAME unless mounted.
image() {
    local name=$1; shift
    local img=$B/$name.img mnt=$B/$name
    mkdir -p "$mnt"
    if mountpoint -q "$mnt"; then
        return
    fi
    if [ ! -f "$img" ]; then
        echo "corpus: making $img"
        truncate -s 4G "$img.tmp"
        "$@" "$img.tmp" >/dev/null
        mv "$img.tmp" "$img"
    fi
    mount -o loop "$img" "$mnt"
}

# fill DIR N: N files in DIR by mkflat.py, unless DIR was completed before
# (a marker next to DIR, not in it, so the entry count stays N) or already
# holds exactly N entries (a corpus made by hand, e.g. /var/tmp/dents).
fill() {
    local dir=$1 n=$2
    local mark
    mark="$(dirname "$dir")/.$(basename "$dir").done"
    [ -f "$mark" ] && return
    if [ -d "$dir" ] && [ "$(find "$dir" -mindepth 1 -maxdepth 1 | wc -l)" -eq "$n" ]; then
        touch "$mark"
        return
    fi
    rm -rf "$dir"
    echo "corpus: $dir ($n files)"
    python3 "$here/mkflat.py" "$dir" "$n"
    sync
    touch "$mark"
}

image ext4 mkfs.ext4 -q -F -N 2500000
image xfs mkfs.xfs -q -f

for fs in ext4 xfs; do
    fill "$B/$fs/flat1m" 1000000
    mkdir -p "$B/$fs/sizes"
    for n in $SIZES; do
        fill "$B/$fs/sizes/$n" "$n"
    done
done

for fs in ext4 xfs; do
    printf 'corpus: %-5s %s  image %s (%s on disk)  flat1m st_size %s\n' "$fs" "$B/$fs" \
        "$(du -h --apparent-size "$B/$fs.img" | cut -f1)" "$(du -h "$B/$fs.img" | cut -f1)" \
        "$(stat -c %s "$B/$fs/flat1m")"
done
