#!/usr/bin/env bash
# Builds the scale corpora of issue 29 (ten million entries and beyond) in
# loop images under $DENTS_BENCH_DIR (default /var/tmp/dents-bench) and
# mounts them there.  Not run by CI: it takes minutes and tens of GB.
# Idempotent as bench/corpus.sh: complete images, mounts and directories
# are reused, a half-built directory is rebuilt.
#
#   grid.img  ext4, -N 15M, mounted at grid/, holding
#     g1m/ g3m/ g10m/   T x 1,000 x 1,000 empty files (bench/mkgrid.py),
#                       T = 1, 3, 10: one tree shape at three sizes
#   huge.img  ext4 -O large_dir, -N 11.5M, mounted at huge/, holding
#     flat1m/ flat10m/  one directory of 1M and of 10M empty files
#                       (bench/mkflat.py)
#   real.img  ext4, -N 13M, mounted at real/, holding
#     r1m/ r10m/        2 and 22 copies (c00, c01, ...) of the shape of
#                       /usr and the toolchains (bench/shape.py; about
#                       450k entries each here), i.e. ~0.9M and ~10M
#     wide/             1,000,000 empty directories in one directory (the
#                       walk queue on a wide tree)
#   big.img   (SCALE_50M=1 only) ext4, -N 52M, mounted at big/, holding
#     g50m/             50 x 1,000 x 1,000 empty files
# Images are sparse and made with lazy_itable_init and mounted with
# noinit_itable, so no background thread zeroes inode tables during a
# measurement; their loop devices use direct I/O (see IMAGE_DIRECT_IO).  "Hot" at
# 10M entries means as hot as the kernel keeps it: ext4 holds about 1.1 KB
# of inode cache and 0.2 KB of dentry per entry, so a 10M-entry tree needs
# about 13 GB of the machine's memory to stay cached.
#
# usage: bench/scale.sh      (root: mkfs, mount)
# env:   DENTS_BENCH_DIR  where the images and mount points live
#        SCALE_50M=1      also the 50M-entry tree (~15 GB, ~30 min here)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=${DENTS_BENCH_DIR:-/var/tmp/dents-bench}
mkdir -p "$B"
BENCH_WHO=scale
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
# Direct I/O on the loop devices: without it every block read through
# the filesystem is cached twice, once for the loop device and once for
# the image file, and a 10M-entry tree's metadata (about 13 GB of inodes
# and dentries in the kernel's caches) no longer fits hot.  No background
# thread zeroes inode tables during a measurement: images are made with
# lazy_itable_init and mounted with noinit_itable.
IMAGE_DIRECT_IO=1
IMAGE_MOUNT_OPTIONS=noinit_itable
mkfs=(mkfs.ext4 -q -F -E lazy_itable_init=1)

# copies DIR N: N copies c00.. of the shape of /usr and the toolchains; the
# first is made by shape.py, the others by cp -a from it (the same names,
# sizes, holes, links and times).
copies() {
    local dir=$1 n=$2 k src
    mkdir -p "$dir"
    mapfile -t src < <(shape_sources)
    python3 "$here/shape.py" "$dir/c00" "${src[@]}"
    for ((k = 1; k < n; k++)); do
        cp -a "$dir/c00" "$dir/$(printf 'c%02d' "$k")"
    done
}

# wide DIR N: N empty directories in DIR.
wide() {
    mkdir -p "$1"
    python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
for i in range(int(sys.argv[2])):
    os.mkdir(f"w{i:07d}", dir_fd=fd)
' "$1" "$2"
}

image grid 120G "${mkfs[@]}" -N 15000000
for t in 1 3 10; do
    once "$B/grid/g${t}m" python3 "$here/mkgrid.py" "$B/grid/g${t}m" "$t" 1000 1000
done

image huge 60G "${mkfs[@]}" -O large_dir -N 11500000
once "$B/huge/flat1m" python3 "$here/mkflat.py" "$B/huge/flat1m" 1000000
once "$B/huge/flat10m" python3 "$here/mkflat.py" "$B/huge/flat10m" 10000000

image real 120G "${mkfs[@]}" -N 13000000
once "$B/real/r1m" copies "$B/real/r1m" 2
once "$B/real/r10m" copies "$B/real/r10m" 22
once "$B/real/wide" wide "$B/real/wide" 1000000

if [ "${SCALE_50M:-}" = 1 ]; then
    image big 400G "${mkfs[@]}" -N 52000000
    once "$B/big/g50m" python3 "$here/mkgrid.py" "$B/big/g50m" 50 1000 1000
fi

for fs in grid huge real big; do
    mountpoint -q "$B/$fs" || continue
    printf 'scale: %-5s %s  %s inodes used  image %s on disk\n' "$fs" "$B/$fs" \
        "$(df --output=iused "$B/$fs" | tail -1 | tr -d ' ')" "$(du -h "$B/$fs.img" | cut -f1)"
done
