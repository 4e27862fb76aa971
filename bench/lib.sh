# Shared by bench/corpus.sh and bench/scale.sh (sourced, not run): loop
# images made and mounted once, directories built once.  The sourcing
# script sets B (where images and mount points live) and BENCH_WHO (the
# prefix of its messages).

# image NAME SIZE MKFS-COMMAND...: creates $B/NAME.img (sparse, SIZE) by
# running MKFS-COMMAND on it unless it exists, and mounts it on $B/NAME
# unless mounted: with `mount -o loop`, or, when IMAGE_DIRECT_IO=1, on a
# loop device with direct I/O (see bench/scale.sh) mounted with the
# options IMAGE_MOUNT_OPTIONS.
image() {
    local name=$1 size=$2; shift 2
    local img=$B/$name.img mnt=$B/$name dev
    mkdir -p "$mnt"
    mountpoint -q "$mnt" && return
    if [ ! -f "$img" ]; then
        echo "$BENCH_WHO: making $img"
        truncate -s "$size" "$img.tmp"
        "$@" "$img.tmp" >/dev/null
        mv "$img.tmp" "$img"
    fi
    if [ "${IMAGE_DIRECT_IO:-}" = 1 ]; then
        dev=$(losetup --find --show --direct-io=on "$img")
        mount ${IMAGE_MOUNT_OPTIONS:+-o "$IMAGE_MOUNT_OPTIONS"} "$dev" "$mnt"
    else
        mount -o loop "$img" "$mnt"
    fi
}

# once DIR COMMAND...: runs COMMAND to build DIR unless DIR was completed
# before (a marker next to it, not in it, so DIR's entry count is the
# corpus's); a half-built DIR is removed first.
once() {
    local dir=$1; shift
    local mark
    mark="$(dirname "$dir")/.$(basename "$dir").done"
    [ -f "$mark" ] && return
    rm -rf "$dir"
    echo "$BENCH_WHO: $dir: $*"
    "$@"
    sync
    touch "$mark"
}

# Trees whose shape is copied (bench/shape.py): the system's and the
# toolchains' (those present), one a line.
shape_sources() {
    local d
    for d in /usr "$HOME/.rustup" "$HOME/.pyenv" "$HOME/.cargo"; do
        [ -d "$d" ] && echo "$d"
    done
    return 0
}
