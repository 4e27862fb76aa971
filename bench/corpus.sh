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
#   noft.img  4 GiB sparse, mkfs.ext4 -O ^filetype -N 2000000: every d_type is
#             DT_UNKNOWN (issue 3), mounted at $DENTS_BENCH_DIR/noft, holding
#   flat1m/        1,000,000 empty files and one subdirectory, .thumbnails0
#   shape/         the shape of /usr, ~/.rustup and ~/.pyenv (bench/shape.py)
#   tree.img  8 GiB sparse, mkfs.ext4 -N 4500000, mounted at $DENTS_BENCH_DIR/tree
#   shape/         the same shape copy, with d_type (issue 4)
#   home/          a synthetic home directory of ~2.1M entries (bench/mkhome.py)
#   files100k/     100 directories d00..d99 of 1,000 empty files f000..f999
#                  each (issue 5, -exec batching)
# Each shape/ copy gets one unique name at depth 3, shape/usr/share/dents-needle
# (home/ has Documents/archive/dents-needle.txt), for early-quit workloads.
#
# usage: bench/corpus.sh            (root: mkfs, mount)
# env:   DENTS_BENCH_DIR  where the images and mount points live
#        SIZES            the sizes/ directories to build (default above)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=${DENTS_BENCH_DIR:-/var/tmp/dents-bench}
SIZES=${SIZES:-"1000 3000 10000 30000 100000 300000"}
mkdir -p "$B"
BENCH_WHO=corpus
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

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

# files100k DIR: 100 directories of 1,000 empty files.
files100k() {
    local i
    mkdir "$1"
    for i in $(seq -w 0 99); do
        mkdir "$1/d$i"
        (cd "$1/d$i" && touch f{000..999})
    done
}

# shape DIR: the shape copy of shape_sources, plus the depth-3 needle.
shape() {
    # shellcheck disable=SC2046  # one word per source directory
    python3 "$here/shape.py" "$1" $(shape_sources)
    touch "$1/usr/share/dents-needle"
}

image ext4 4G mkfs.ext4 -q -F -N 2500000
image xfs 4G mkfs.xfs -q -f
image noft 4G mkfs.ext4 -q -F -O ^filetype -N 2000000
# tree holds more inodes and directories: a larger (sparse) image.
image tree 8G mkfs.ext4 -q -F -N 4500000

once "$B/noft/flat1m" python3 "$here/mkflat.py" "$B/noft/flat1m" 1000000 --subdirs 1
once "$B/noft/shape" shape "$B/noft/shape"
once "$B/tree/shape" shape "$B/tree/shape"
once "$B/tree/home" python3 "$here/mkhome.py" "$B/tree/home"
once "$B/tree/files100k" files100k "$B/tree/files100k"

for fs in ext4 xfs; do
    fill "$B/$fs/flat1m" 1000000
    mkdir -p "$B/$fs/sizes"
    for n in $SIZES; do
        fill "$B/$fs/sizes/$n" "$n"
    done
done

for fs in ext4 xfs noft tree; do
    printf 'corpus: %-5s %s  image %s (%s on disk)  flat1m st_size %s\n' "$fs" "$B/$fs" \
        "$(du -h --apparent-size "$B/$fs.img" | cut -f1)" "$(du -h "$B/$fs.img" | cut -f1)" \
        "$(stat -c %s "$B/$fs/flat1m" 2>/dev/null || echo -)"
done
