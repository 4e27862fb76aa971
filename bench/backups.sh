#!/usr/bin/env bash
# Builds backup trees as backup tools make them (issue 30): snapshots
# hard-linked with `cp -al`, each adding a file, in an ext4 loop image
# mounted at $DENTS_BENCH_DIR/backup (default /var/tmp/dents-bench).
#
#   b/       daily.0 with 4 directories of 1,500 small files (every third
#            file 100+i bytes, the others empty), then daily.N = cp -al
#            daily.0 plus newN, N = 1..5 (issue 30's tree: 36k links of
#            6k inodes)
#   big/     the same with 8 directories of 12,500 files and 10 snapshots
#            (1.1M links of 100k inodes)
#
# Idempotent (a tree whose marker exists is kept).  usage: bench/backups.sh (root)
set -euo pipefail
B=${DENTS_BENCH_DIR:-/var/tmp/dents-bench}
mnt=$B/backup img=$B/backup.img
mkdir -p "$mnt"
if ! mountpoint -q "$mnt"; then
    if [ ! -f "$img" ]; then
        truncate -s 4G "$img.tmp"
        mkfs.ext4 -q -N 2000000 "$img.tmp"
        mv "$img.tmp" "$img"
    fi
    mount -o loop "$img" "$mnt"
fi

# snapshots NAME DIRS FILES SNAPSHOTS
snapshots() {
    local root=$mnt/$1 dirs=$2 files=$3 snaps=$4
    [ -f "$mnt/.$1.done" ] && return
    rm -rf "$root"
    mkdir -p "$root/daily.0"
    python3 - "$root/daily.0" "$dirs" "$files" <<'PY'
import os, sys
top, dirs, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for d in range(dirs):
    p = os.path.join(top, f"d{d}")
    os.mkdir(p)
    for i in range(files):
        with open(os.path.join(p, f"f{i:05}"), "wb") as f:
            if i % 3 == 0:
                f.write(b"x" * (100 + i % 4000))
PY
    for n in $(seq 1 "$snaps"); do
        cp -al "$root/daily.0" "$root/daily.$n"
        echo "x$n" > "$root/daily.$n/new$n"
    done
    touch "$mnt/.$1.done"
}
snapshots b 4 1500 5
snapshots big 8 12500 10
echo "backup trees in $mnt: b/ big/"
