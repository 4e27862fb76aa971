#!/usr/bin/env bash
# Runs benchmark groups against the peers, hot and cold, and writes the
# results under bench/out/ (git-ignored):
#   ID-hot-rN.json, ID-cold-rN.json   hyperfine exports, one per round
#   ID-cmds.tsv                 name, command, peak RSS (KiB), output lines
#   ID-load.tsv                 CPU busy fraction before each round, wait
#   env.txt, notes.txt          machine, kernel, tool versions, corpus; skips
#   results.md, results.json    every table, made by bench/summarize.py
# ID is GROUP-CORPUS, e.g. ls-ext4.  Ratios between commands are only ever
# taken within one ID and one temperature, whose runs are interleaved.
#
# usage: bench/run.sh [GROUP...]    (default: every group)
# groups:
#   ls         dents ls, ls -f, ls, ls -l, dents ls -l, find, bfs, fd and the
#              syscall floor on ext4/flat1m and xfs/flat1m
#   bufsize    dents-floor flat1m SIZE, SIZE = 32K 64K 128K 256K 1M 4M
#   threshold  dents ls -j1 / default / -j2 / -j8 and dents-slicer 1/2/4/8
#              (slicing forced at any size) on ext4 sizes/N and flat1m
#   noft       issue 3: no d_type: dents find -false, dents ls -p, names-only
#              reads, bfs, find, fd on noft/flat1m and noft/shape
#   tree       issue 4: dents find against bfs, find and fd on tree/shape
#              and tree/home: -false, -size +1M, print, early quit, -jN;
#              and printing the 1M-entry directory
#   printf     issue 5: -printf '%p %s %TY-%Tm-%Td\n' on tree/shape: dents
#              find, bfs, bfs 2.6, GNU find
#   exec       issue 5: -type f -exec /bin/true {} + on tree/files100k
#              (100,000 files): dents find, bfs, bfs 2.6, GNU find; the
#              number of child processes each spawns goes to notes.txt
#   du         issue 13: dents du -s against GNU du -s, diskus, pdu, dua,
#              dust, gdu and ncdu on tree/shape, tree/home (hot only unless
#              HOME_SIZE_TEMPS) and ext4/flat1m (the 1M-entry directory)
#   lsterm     issue 14: GNU's look: dents ls -R (unsorted), dents ls -R
#              --sort=name and ls -R on tree/shape; dents ls --color=always
#              -C --sort=name against ls --color=always -C, with -R on
#              tree/shape and on ext4/flat1m (80 columns: no terminal)
#   scale      issue 29: the corpora of bench/scale.sh at 1M, 3M, 10M (and
#              50M when built) entries: find -false and -size +1M (dents
#              find, bfs, GNU find, fd), du -s (dents du and every du peer),
#              the ncdu export (dents du -o, ncdu -o, gdu -o), dents scan,
#              dents.walk against os.walk (PYTHON: a python with dents
#              installed), dents-mpi find and du at -np 2, ls -f, ls -U
#              and ls -l of one directory of 1M and 10M entries (dents ls
#              and GNU ls, output to /dev/null), the real-tree shape at ~1M
#              and ~10M (find -false, find -size +1k, du -s, the export,
#              scan, the Python walks), and 1M directories in one
#              directory.  IDs scale-CORPUS-WORKLOAD.  Hot only unless
#              SCALE_TEMPS; SCALE_STAT_TEMPS (the real-tree shape's
#              workloads that stat every entry: size du export scan) and
#              SCALE_LSL_TEMPS (ls -l) override it for those alone, e.g.
#              cold where 10M inodes no longer stay cached.  SCALE_SIZES
#              (default: every grid size built) picks sizes among 1m 3m
#              10m 50m, e.g. "1m 10m"; another word, or a size not built,
#              is an error.
# A later group is a function group_NAME that fills the command list with
# `add NAME COMMAND...` and calls `measure ID`.
#
# env:  DENTS_BENCH_DIR  corpora, built by bench/corpus.sh (default /var/tmp/dents-bench)
#       RUNS             runs per command and temperature (default 5), made as
#                        RUNS rounds (see measure; threshold: RUNS rounds of
#                        several runs)
#       TEMPS            "hot cold" (default) or one of them
#       DENTS FLOOR SLICER  the programs under test (default: release builds)
#       MPIRUN DENTS_MPI  mpirun and dents-mpi for the scale group (default
#                        mpirun on PATH, target/release/dents-mpi)
#       PYTHON           a python that imports dents (default target/py-venv)
#       BFS FD           peers (default /opt/peers/bin/bfs4, else bfs on PATH;
#                        BFS26 Debian's bfs 2.6, default /usr/bin/bfs;
#                        /opt/peers/bin/fd, else fd or fdfind on PATH); a
#                        missing peer is skipped with a note
#       DU DISKUS PDU DUA DUST GDU NCDU  du peers (default: on PATH; a
#                        missing one is skipped with a note)
#       FIND             GNU find (default: on PATH; skipped with a note
#                        when missing, e.g. FIND=none for dents's cold
#                        rounds alone, where one serial cold run of 10M
#                        entries takes many minutes)
#       ONLY             measure only these IDs (space-separated), e.g.
#                        ONLY="tree-shape-quit tree-shape-jobs" bench/run.sh tree
#       SCRATCH          where the commands' output files go (default $DENTS_BENCH_DIR/out)
#       QUIET QUIET_WAIT  before each round, wait up to QUIET_WAIT s (default 300)
#                        until at most QUIET (default 0.15) of the CPUs is busy
#
# Hot: one warm-up run of each command, then the measured runs.  Cold:
# before every run,  sync; echo 3 > /proc/sys/vm/drop_caches
# (hyperfine --prepare; needs root).  Commands run without a shell
# (hyperfine -N) with their standard output to a file (--output FILE,
# truncated before each run).  Peak RSS: one more, separate run of each
# command under /usr/bin/time -f %M, after the hot runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
B=${DENTS_BENCH_DIR:-/var/tmp/dents-bench}
RUNS=${RUNS:-5}
TEMPS=${TEMPS:-"hot cold"}
DENTS_SRC=${DENTS:-$root/target/release/dents}
FLOOR_SRC=${FLOOR:-$root/target/release/dents-floor}
SLICER_SRC=${SLICER:-$root/bench/slicer/target/release/dents-slicer}
# first_of CANDIDATE...: the first that is an executable file or on PATH.
first_of() {
    local c
    for c in "$@"; do
        if [ -x "$c" ]; then echo "$c"; return; fi
        if command -v "$c" 2>/dev/null; then return; fi
    done
    echo "$1"
}
BFS=${BFS:-$(first_of /opt/peers/bin/bfs4 bfs)}
FD=${FD:-$(first_of /opt/peers/bin/fd fd fdfind)}
BFS26=${BFS26:-/usr/bin/bfs}
# The du peers: the cargo-installed ones in /opt/peers/bin first, as bfs 4
# and fd, else on PATH.
gnu_du=${DU:-$(first_of du)}
gnu_find=${FIND:-$(first_of find)}
diskus=${DISKUS:-$(first_of /opt/peers/bin/diskus diskus)}
pdu=${PDU:-$(first_of /opt/peers/bin/pdu pdu)}
dua=${DUA:-$(first_of /opt/peers/bin/dua dua)}
dust=${DUST:-$(first_of /opt/peers/bin/dust dust)}
gdu=${GDU:-$(first_of gdu)}
ncdu=${NCDU:-$(first_of ncdu)}
OUT=$root/bench/out
SCRATCH=${SCRATCH:-$B/out}
export QUIET=${QUIET:-0.15}
QUIET_WAIT=${QUIET_WAIT:-300}
export LC_ALL=C.UTF-8
drop="sh -c 'sync; echo 3 > /proc/sys/vm/drop_caches'"
mkdir -p "$OUT" "$SCRATCH"

note() {
    grep -qxF -- "$*" "$OUT/notes.txt" 2>/dev/null && return
    echo "run.sh: $*" >&2
    echo "$*" >> "$OUT/notes.txt"
}

# peer NAME PATH: true if PATH is an executable, else a note that NAME is
# skipped.
peer() {
    if [ -x "$2" ]; then
        return 0
    fi
    note "skipped $1: $2 not found (set ${1^^}=path)"
    return 1
}

# busy: the fraction of all CPUs' time not idle (nor niced) over the next
# second.
busy() {
    local a b
    a=$(head -1 /proc/stat)
    sleep 1
    b=$(head -1 /proc/stat)
    # Time given to niced tasks (field 3) counts as idle: a tenant that
    # runs at nice 19 yields its CPU to us.
    echo "$a $b" | awk '{ n = (NF - 2) / 2; for (i = 2; i <= n + 1; i++) { d = $(i + n + 1) - $i; t += d; if (i == 3 || i == 5 || i == 6) idle += d } printf "%.2f", (t - idle) / t }'
}

# quiet ID TEMP ROUND: waits (at most QUIET_WAIT seconds) until the other
# tenants leave the CPUs nearly idle (busy <= QUIET), and logs what it saw
# to ID-load.tsv.  Other engineers build and test on this machine; a round
# started under their load measures them, not us.
quiet() {
    local b waited=0
    b=$(busy)
    while awk "BEGIN { exit !($b > $QUIET) }" && [ "$waited" -lt "$QUIET_WAIT" ]; do
        sleep 4
        waited=$((waited + 5))
        b=$(busy)
    done
    printf '%s\t%s\t%s\t%s\t%s\n' "$2" "$3" "$b" "$waited" "$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/$1-load.tsv"
}

# The command list of the next measurement: add NAME COMMAND...
names=() cmds=()
add() {
    local name=$1; shift
    names+=("$name")
    cmds+=("$*")
}

# measure ID: runs the command list hot and cold, then once more each for
# peak RSS and the output's line count; empties the list.
#
# The machine is shared: a burst of load during one command's block of runs
# would skew its ratios.  So the runs are split into rounds: each round is
# one hyperfine invocation of every command (`per_round` runs each, order
# rotated by one command per round), and ID-TEMP-rN.json holds round N.
# Medians are taken over all rounds' runs (bench/summarize.py).  Defaults:
# RUNS rounds of one run, i.e. RUNS runs per command; a group may set
# `rounds`, `hot_per_round` and `cold_per_round` before calling measure,
# and `to_null=null` to send the timed runs' output to /dev/null instead
# of a file (output of hundreds of MB, e.g. ls of 10M entries).
rounds=$RUNS hot_per_round=1 cold_per_round=1 to_null=
measure() {
    local id=$1 i r t n=${#cmds[@]}
    if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $id "* ]]; then
        names=() cmds=() rounds=$RUNS hot_per_round=1 cold_per_round=1 to_null=
        return
    fi
    echo "== $id: ${names[*]} ($(cut -d' ' -f1-3 /proc/loadavg) load)" >&2
    rm -f "$OUT/$id"-*.json
    printf 'temp\tround\tbusy_before\twaited_s\tloadavg1\n' > "$OUT/$id-load.tsv"
    for t in $TEMPS; do
        for ((r = 0; r < rounds; r++)); do
            local args=() temp=() k
            for ((k = 0; k < n; k++)); do
                i=$(((k + r) % n))
                args+=(-n "${names[$i]}" "${cmds[$i]}")
            done
            if [ "$t" = hot ]; then
                temp=(--runs "$hot_per_round")
                # Warm up once; later rounds find the caches warm.
                [ "$r" -gt 0 ] || temp+=(--warmup 1)
            else
                temp=(--runs "$cold_per_round" --prepare "$drop")
            fi
            quiet "$id" "$t" "$r"
            # Cold rounds are minutes long at 10M entries: the load each
            # one started under goes to the log as well as to ID-load.tsv.
            [ "$t" = hot ] || echo "   cold round $r:$(uptime)" >&2
            hyperfine -N --style basic "${temp[@]}" --output "${to_null:-$SCRATCH/$id.out}" \
                --export-json "$OUT/$id-$t-r$r.json" "${args[@]}" >/dev/null
        done
        echo "   $t: $rounds rounds done ($(cut -d' ' -f1-3 /proc/loadavg) load)" >&2
    done
    printf 'name\tcommand\tpeak_rss_kib\tlines\n' > "$OUT/$id-cmds.tsv"
    for i in "${!cmds[@]}"; do
        local o=$SCRATCH/$id-$i.out lines
        # shellcheck disable=SC2086  # commands are plain words
        # eval: a command may hold a quoted argument (e.g. -printf '%p %s'),
        # split as hyperfine splits it.  With to_null the output is
        # counted through a pipe, never stored.
        if [ -n "${to_null:-}" ]; then
            lines=$(eval "/usr/bin/time -f %M -o \"\$SCRATCH/rss\" ${cmds[$i]}" | wc -l)
        else
            eval "/usr/bin/time -f %M -o \"\$SCRATCH/rss\" ${cmds[$i]}" > "$o"
            lines=$(wc -l < "$o")
        fi
        printf '%s\t%s\t%s\t%s\n' "${names[$i]}" "${cmds[$i]}" \
            "$(tail -1 "$SCRATCH/rss")" "$lines" >> "$OUT/$id-cmds.tsv"
        rm -f "$o"
    done
    names=() cmds=() rounds=$RUNS hot_per_round=1 cold_per_round=1 to_null=
}

group_ls() {
    local fs d
    for fs in ext4 xfs; do
        d=$B/$fs/flat1m
        add "dents ls" "$DENTS" ls "$d"
        add "ls -f" ls -f "$d"
        add "ls" ls "$d"
        add "ls -l" ls -l "$d"
        add "dents ls -l" "$DENTS" ls -l "$d"
        add "dents ls -l --sort=name" "$DENTS" ls -l --sort=name "$d"
        add "find" find "$d"
        add "dents-floor" "$FLOOR" "$d"
        if peer bfs "$BFS"; then add "bfs" "$BFS" "$d"; fi
        if peer fd "$FD"; then add "fd -u ." "$FD" -u . "$d"; fi
        measure "ls-$fs"
    done
}

group_bufsize() {
    local fs s
    for fs in ext4 xfs; do
        for s in 32K:32768 64K:65536 128K:131072 256K:262144 1M:1048576 4M:4194304; do
            add "dents-floor ${s%%:*}" "$FLOOR" "$B/$fs/flat1m" "${s#*:}"
        done
        hot_per_round=3
        measure "bufsize-$fs"
    done
}

group_threshold() {
    local n d
    for n in 1000 3000 10000 30000 100000 300000 1m; do
        if [ "$n" = 1m ]; then d=$B/ext4/flat1m; else d=$B/ext4/sizes/$n; fi
        add "dents ls -j1" "$DENTS" ls -j1 "$d"
        add "dents ls" "$DENTS" ls "$d"
        add "dents ls -j2" "$DENTS" ls -j2 "$d"
        add "dents ls -j8" "$DENTS" ls -j8 "$d"
        add "slicer 1" "$SLICER" "$d" 1
        add "slicer 2" "$SLICER" "$d" 2
        add "slicer 4" "$SLICER" "$d" 4
        add "slicer 8" "$SLICER" "$d" 8
        echo "{\"dir\": \"$d\", \"st_size\": $(stat -c %s "$d")}" > "$OUT/threshold-$n-dir.meta"
        # Small directories take milliseconds: more runs per round, so that
        # every command gets about a second of runs hot; cold, two a round.
        case $n in
            1000 | 3000 | 10000) hot_per_round=100 ;;
            30000) hot_per_round=40 ;;
            100000) hot_per_round=15 ;;
            300000) hot_per_round=5 ;;
            *) hot_per_round=1 ;;
        esac
        cold_per_round=2
        measure "threshold-$n"
    done
}

# The peers of the traversal groups: bfs 4 (BFS), Debian's bfs 2.6 when
# BFS is another one, GNU find, fd.
# traversal_peers DIR ARGS...: adds "bfs ARGS", "bfs 2.6 ARGS", "find ARGS"
# for DIR.
traversal_peers() {
    local d=$1; shift
    if peer bfs "$BFS"; then add "bfs${*:+ $*}" "$BFS" "$d" "$@"; fi
    if [ -x "$BFS26" ] && [ "$(readlink -f "$BFS26")" != "$(readlink -f "$BFS")" ]; then
        add "bfs 2.6${*:+ $*}" "$BFS26" "$d" "$@"
    fi
    if peer find "$gnu_find"; then add "find${*:+ $*}" "$gnu_find" "$d" "$@"; fi
}

# Issue 3: no d_type (ext4 -O ^filetype).  The 1M-file directory with one
# subdirectory, and the shape of real trees.
group_noft() {
    local d=$B/noft/flat1m
    add "dents find -false" "$DENTS" find "$d" -false
    add "dents ls -p" "$DENTS" ls -p "$d"
    add "dents ls (names only)" "$DENTS" ls "$d"
    add "dents-floor (names, 1 thread)" "$FLOOR" "$d"
    traversal_peers "$d" -false
    if peer fd "$FD"; then add "fd -u ^\$" "$FD" -u "'^\$'" "$d"; fi
    measure noft-flat
    d=$B/noft/shape
    add "dents find -false" "$DENTS" find "$d" -false
    traversal_peers "$d" -false
    if peer fd "$FD"; then add "fd -u ^\$" "$FD" -u "'^\$'" "$d"; fi
    measure noft-shape
}

# Issue 4: traversals of trees with d_type.  ID tree-CORPUS-WORKLOAD.
group_tree() {
    local d t j
    for t in shape home; do
        d=$B/tree/$t
        add "dents find -false" "$DENTS" find "$d" -false
        traversal_peers "$d" -false
        if peer fd "$FD"; then add "fd -u ^\$" "$FD" -u "'^\$'" "$d"; fi
        add "dents-floor" "$FLOOR" "$d"
        measure "tree-$t-false"
        add "dents find -size +1M" "$DENTS" find "$d" -size +1M
        traversal_peers "$d" -size +1M
        if peer fd "$FD"; then add "fd -u -S +1mi" "$FD" -u -S +1mi . "$d"; fi
        if [ "$t" = home ]; then
            # Cold, every tool stats 2.1M inodes from disk: minutes per
            # run.  Hot only (HOME_SIZE_TEMPS to override).
            TEMPS=${HOME_SIZE_TEMPS:-hot} measure "tree-$t-size"
        else
            measure "tree-$t-size"
        fi
    done
    d=$B/tree/shape
    add "dents find" "$DENTS" find "$d"
    traversal_peers "$d"
    if peer fd "$FD"; then add "fd -u ." "$FD" -u . "$d"; fi
    measure tree-shape-print
    add "dents find -name dents-needle -print -quit" "$DENTS" find "$d" -name dents-needle -print -quit
    traversal_peers "$d" -name dents-needle -print -quit
    if peer fd "$FD"; then add "fd -u -1 ^dents-needle\$" "$FD" -u -1 "'^dents-needle\$'" "$d"; fi
    measure tree-shape-quit
    for j in 1 2 4 8 16; do
        add "dents find -j$j -false" "$DENTS" find -j"$j" "$d" -false
    done
    if peer bfs "$BFS"; then
        for j in 1 2 4 8; do
            add "bfs -j$j -false" "$BFS" -j"$j" "$d" -false
        done
    fi
    measure tree-shape-jobs
    d=$B/ext4/flat1m
    add "dents find" "$DENTS" find "$d"
    traversal_peers "$d"
    if peer fd "$FD"; then add "fd -u ." "$FD" -u . "$d"; fi
    measure tree-flat1m-print
}

# Issue 5: -printf.  A format that needs a stat per entry (%s, %T),
# printed for every entry of the shape (~430k).  ID printf-shape.  The
# names drop the format: "dents find -printf F", "bfs -printf F", ...
printf_fmt='%p %s %TY-%Tm-%Td\n'
group_printf() {
    local d=$B/tree/shape f="'$printf_fmt'"
    add "dents find -printf F" "$DENTS" find "$d" -printf "$f"
    if peer bfs "$BFS"; then add "bfs -printf F" "$BFS" "$d" -printf "$f"; fi
    if [ -x "$BFS26" ] && [ "$(readlink -f "$BFS26")" != "$(readlink -f "$BFS")" ]; then
        add "bfs 2.6 -printf F" "$BFS26" "$d" -printf "$f"
    fi
    add "find -printf F" find "$d" -printf "$f"
    note "printf-shape: F is the format '$printf_fmt'"
    measure printf-shape
}

# Issue 5: -exec ... {} +, whose cost is the batching: how many children
# are spawned for 100,000 paths.  ID exec-files100k.
# Issue 14: the terminal form of ls (sorted, columns, colors) and -R,
# written to a file: --sort=name gives GNU's order (dents streams unsorted
# off a terminal unless asked), --color=always -C GNU's look.  The sorted
# commands' outputs are identical to GNU's (tests/ls_term.rs; checked on
# these corpora with cmp when the group was written).  IDs lsterm-shape-R,
# lsterm-shape-color, lsterm-flat1m-color.
group_lsterm() {
    local d=$B/tree/shape f=$B/ext4/flat1m
    add "dents ls -R" "$DENTS" ls -R "$d"
    add "dents ls -R --sort=name" "$DENTS" ls -R --sort=name "$d"
    add "ls -R" ls -R "$d"
    measure lsterm-shape-R
    add "dents ls -R --color=always -C --sort=name" "$DENTS" ls -R --color=always -C --sort=name "$d"
    add "ls -R --color=always -C" ls -R --color=always -C "$d"
    measure lsterm-shape-color
    add "dents ls --color=always -C --sort=name" "$DENTS" ls --color=always -C --sort=name "$f"
    add "ls --color=always -C" ls --color=always -C "$f"
    measure lsterm-flat1m-color
}

group_exec() {
    local d=$B/tree/files100k
    add "dents find -type f -exec /bin/true {} +" "$DENTS" find "$d" -type f -exec /bin/true {} +
    traversal_peers "$d" -type f -exec /bin/true {} +
    # Before measure empties the list: the number of children each spawns,
    # counted once outside the timed runs (each child prints its argument
    # count: lines = children, their sum = paths passed).
    if [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" exec-files100k "* ]]; then
        local i pre counts
        for i in "${!cmds[@]}"; do
            # The command up to its directory (plain words), e.g. dents find DIR.
            read -r -a pre <<< "${cmds[i]%% -type f *}"
            # shellcheck disable=SC2016  # $# is the child's
            if counts=$("${pre[@]}" -type f -exec sh -c 'echo $#' sh {} + 2>/dev/null |
                awk '{ n++; s += $1; if (min == "" || $1 < min) min = $1; if ($1 > max) max = $1 }
                     END { printf "%d children for %d paths (%d to %d per child)", n, s, min, max }'); then
                note "exec-files100k: ${names[i]%% -type f*}: $counts"
            else
                note "exec-files100k: ${names[i]%% -type f*}: counting children failed"
            fi
        done
    fi
    measure exec-files100k
}

# env.json: what the numbers were measured on.
environment() {
    local cpu
    cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
    {
        echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "nproc: $(nproc)"
        echo "kernel: $(uname -r)"
        echo "cpu: $cpu"
        echo "mem: $(free -h | awk '/^Mem/{print $2}')"
        echo "commit: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- crates || echo ' (crates/ modified in the work tree)')"
        echo "dents: $DENTS_SRC, built $(date -u -r "$DENTS_SRC" '+%Y-%m-%d %H:%M UTC'), sha256 $(sha256sum "$DENTS" | cut -c1-12)"
        echo "ls: $(ls --version | head -1)"
        echo "find: $(find --version | head -1)"
        echo "hyperfine: $(hyperfine --version)"
        if [ -x "$BFS" ]; then echo "bfs: $("$BFS" --version | head -1)"; fi
        if [ -x "$FD" ]; then echo "fd: $("$FD" --version | head -1)"; fi
        for fs in ext4 xfs noft tree grid huge real big; do
            if mountpoint -q "$B/$fs"; then
                echo "corpus $fs: $(findmnt -no SOURCE,FSTYPE,OPTIONS "$B/$fs")," \
                    "image $(du -h --apparent-size "$B/$fs.img" | cut -f1) ($(du -h "$B/$fs.img" | cut -f1) allocated)," \
                    "flat1m st_size $(stat -c %s "$B/$fs/flat1m" 2>/dev/null || echo -)"
            fi
        done
    } > "$OUT/env.txt"
}

[ $# -gt 0 ] || set -- ls bufsize threshold noft tree printf exec du lsterm
# du_peers DIR: adds every du peer's least output for DIR (a total, or the
# top level), the peers missing from PATH skipped with a note; ncdu's
# export is not among them (the scale group measures it on its own).
du_peers() {
    if peer du "$gnu_du"; then add "du -s" "$gnu_du" -s "$1"; fi
    if peer diskus "$diskus"; then add "diskus" "$diskus" "$1"; fi
    if peer pdu "$pdu"; then add "pdu --max-depth=1" "$pdu" --max-depth=1 "$1"; fi
    if peer dua "$dua"; then add "dua" "$dua" "$1"; fi
    if peer dust "$dust"; then add "dust -P -d 0" "$dust" -P -d 0 "$1"; fi
    if peer gdu "$gdu"; then add "gdu -n -s -p" "$gdu" -n -s -p "$1"; fi
}

# Issue 13: disk usage of a whole tree, one total printed.  IDs du-shape,
# du-home, du-flat1m.  Every tool is asked for the least output it can
# give (a total, or the top level); peers missing from PATH are skipped.
group_du() {
    local t d id
    for t in tree/shape tree/home ext4/flat1m; do
        d=$B/$t
        id=du-${t#*/}
        add "dents du -s" "$DENTS" du -s "$d"
        du_peers "$d"
        if peer ncdu "$ncdu"; then add "ncdu -o /dev/null" "$ncdu" -o /dev/null "$d"; fi
        if [ "$t" = tree/home ]; then
            TEMPS=${HOME_SIZE_TEMPS:-hot} measure "$id"
        else
            measure "$id"
        fi
    done
}

# entries CORPUS DIR: the number of entries under DIR, itself included (as
# find prints them), counted once and kept beside the corpus, written to
# $OUT/scale-CORPUS.entries for bench/scalechart.py.
entries() {
    local cache
    cache="$(dirname "$2")/.$(basename "$2").entries"
    [ -s "$cache" ] || "$DENTS" find "$2" | wc -l > "$cache"
    cp "$cache" "$OUT/scale-$1.entries"
}

# The grid sizes bench/scale.sh builds, the words SCALE_SIZES accepts.
SCALE_GRID_SIZES="1m 3m 10m 50m"

# grid_built SIZE: true if bench/scale.sh completed the grid of SIZE.
grid_built() {
    [ -f "$B/grid/.g$1.done" ] || [ -f "$B/big/.g$1.done" ]
}

# Issue 29: cost per entry and peak RSS from 1M to 10M entries and beyond,
# on the corpora of bench/scale.sh.  ID scale-CORPUS-WORKLOAD, CORPUS one of
# g1m g3m g10m g50m (the grid), flat1m flat10m (one directory), r1m r10m
# (the real-tree shape), wide (1M directories in one).  Hot only unless
# SCALE_TEMPS (a cold run of 10M entries takes minutes per tool).
# python_walks PYTHON DIR ID: dents.walk against os.walk on DIR, measured
# as ID, where PYTHON imports dents (else a note says why not).
python_walks() {
    if peer python "$1" && "$1" -c 'import dents' 2>/dev/null; then
        add "dents.walk" "$1" "$root/bench/walkcount.py" dents "$2"
        add "os.walk" "$1" "$root/bench/walkcount.py" os "$2"
        measure "$3"
    else
        note "skipped scale pywalk: $1 cannot import dents (scripts/test-python makes target/py-venv)"
    fi
}

group_scale() {
    local mpirun=${MPIRUN:-$(first_of mpirun)}
    local mpi=${DENTS_MPI:-$root/target/release/dents-mpi}
    local python=${PYTHON:-$root/target/py-venv/bin/python}
    local sizes=${SCALE_SIZES:-} s d c
    local TEMPS=${SCALE_TEMPS:-hot}
    if [ -z "$sizes" ]; then
        for s in $SCALE_GRID_SIZES; do
            if grid_built "$s"; then sizes+=" $s"; fi
        done
    fi
    for s in $sizes; do
        if ! grid_built "$s"; then
            local how="bench/scale.sh"
            [ "$s" = 50m ] && how="SCALE_50M=1 bench/scale.sh"
            echo "run.sh: SCALE_SIZES: the g$s grid is not built: $how" >&2
            exit 1
        fi
        d=$B/grid/g$s
        [ -d "$d" ] || d=$B/big/g$s
        entries "g$s" "$d"
        add "dents find -false" "$DENTS" find "$d" -false
        traversal_peers "$d" -false
        if peer fd "$FD"; then add "fd -u ^\$" "$FD" -u "'^\$'" "$d"; fi
        if peer mpirun "$mpirun" && peer dents-mpi "$mpi"; then
            add "dents-mpi -np 2 find -false" "$mpirun" --allow-run-as-root --oversubscribe -np 2 "$mpi" find "$d" -false
        fi
        measure "scale-g$s-false"
        add "dents find -size +1M" "$DENTS" find "$d" -size +1M
        traversal_peers "$d" -size +1M
        if peer fd "$FD"; then add "fd -u -S +1mi" "$FD" -u -S +1mi . "$d"; fi
        measure "scale-g$s-size"
        add "dents du -s" "$DENTS" du -s "$d"
        du_peers "$d"
        if peer mpirun "$mpirun" && peer dents-mpi "$mpi"; then
            add "dents-mpi -np 2 du -s" "$mpirun" --allow-run-as-root --oversubscribe -np 2 "$mpi" du -s "$d"
        fi
        measure "scale-g$s-du"
        add "dents du -s -o FILE" "$DENTS" du -s -o "$SCRATCH/export.json" "$d"
        if peer ncdu "$ncdu"; then add "ncdu -o FILE" "$ncdu" -o "$SCRATCH/export.json" "$d"; fi
        if peer gdu "$gdu"; then add "gdu -n -o FILE" "$gdu" -n -o "$SCRATCH/export.json" "$d"; fi
        measure "scale-g$s-export"
        add "dents scan -o FILE" "$DENTS" scan -o "$SCRATCH/scan.parquet" "$d"
        add "dents scan --names-only -o FILE" "$DENTS" scan --names-only -o "$SCRATCH/scan.parquet" "$d"
        add "dents du -s" "$DENTS" du -s "$d"
        measure "scale-g$s-scan"
        python_walks "$python" "$d" "scale-g$s-pywalk"
    done
    for c in flat1m flat10m; do
        d=$B/huge/$c
        [ -f "$B/huge/.$c.done" ] || continue
        entries "$c" "$d"
        # Streamed: unsorted, one name a line (-f: . and .. too), to
        # /dev/null (10M names are 100 MB of output).
        add "dents ls -f" "$DENTS" ls -f "$d"
        add "ls -f" ls -f "$d"
        add "dents ls -U" "$DENTS" ls -U "$d"
        add "ls -U" ls -U "$d"
        to_null=null
        measure "scale-$c-ls"
        # -l stats every entry and aligns its columns over the whole
        # directory: both hold every entry (SCALE_LSL_TEMPS, default hot;
        # at 10M the inodes may not stay cached).
        add "dents ls -l" "$DENTS" ls -l "$d"
        add "ls -l" ls -l "$d"
        to_null=null
        TEMPS=${SCALE_LSL_TEMPS:-$TEMPS} measure "scale-$c-lsl"
    done
    for c in r1m r10m; do
        d=$B/real/$c
        [ -f "$B/real/.$c.done" ] || continue
        entries "$c" "$d"
        add "dents find -false" "$DENTS" find "$d" -false
        traversal_peers "$d" -false
        if peer fd "$FD"; then add "fd -u ^\$" "$FD" -u "'^\$'" "$d"; fi
        measure "scale-$c-false"
        # -size +1k: a stat of every file; most (71% of r1m) printed.
        add "dents find -size +1k" "$DENTS" find "$d" -size +1k
        traversal_peers "$d" -size +1k
        if peer fd "$FD"; then add "fd -u -S +1ki" "$FD" -u -S +1ki . "$d"; fi
        TEMPS=${SCALE_STAT_TEMPS:-$TEMPS} measure "scale-$c-size"
        add "dents du -s" "$DENTS" du -s "$d"
        du_peers "$d"
        TEMPS=${SCALE_STAT_TEMPS:-$TEMPS} measure "scale-$c-du"
        add "dents du -s -o FILE" "$DENTS" du -s -o "$SCRATCH/export.json" "$d"
        if peer ncdu "$ncdu"; then add "ncdu -o FILE" "$ncdu" -o "$SCRATCH/export.json" "$d"; fi
        if peer gdu "$gdu"; then add "gdu -n -o FILE" "$gdu" -n -o "$SCRATCH/export.json" "$d"; fi
        TEMPS=${SCALE_STAT_TEMPS:-$TEMPS} measure "scale-$c-export"
        # Alone: scale-$c-du has dents du -s, the walk it adds to.
        add "dents scan -o FILE" "$DENTS" scan -o "$SCRATCH/scan.parquet" "$d"
        TEMPS=${SCALE_STAT_TEMPS:-$TEMPS} measure "scale-$c-scan"
        python_walks "$python" "$d" "scale-$c-pywalk"
    done
    d=$B/real/wide
    if [ -f "$B/real/.wide.done" ]; then
        entries wide "$d"
        add "dents find -false" "$DENTS" find "$d" -false
        traversal_peers "$d" -false
        if peer fd "$FD"; then add "fd -u ^\$" "$FD" -u "'^\$'" "$d"; fi
        add "dents du -s" "$DENTS" du -s "$d"
        if peer du "$gnu_du"; then add "du -s" "$gnu_du" -s "$d"; fi
        measure "scale-wide-false"
    fi
}

for g in "$@"; do
    declare -F "group_$g" >/dev/null || { echo "run.sh: no group $g" >&2; exit 2; }
done
# A size the scale group does not know would measure nothing, quietly.
if [[ " $* " == *" scale "* ]]; then
    for s in ${SCALE_SIZES:-}; do
        if [[ " $SCALE_GRID_SIZES " != *" $s "* ]]; then
            echo "run.sh: SCALE_SIZES: unknown size '$s' (accepted, separated by spaces: $SCALE_GRID_SIZES)" >&2
            exit 2
        fi
    done
fi
if [[ " $* " == *" threshold "* ]] && [ -z "${SLICER:-}" ]; then
    cargo build --release --offline --manifest-path "$root/bench/slicer/Cargo.toml" >&2
fi
# The programs under test are copied first: crates/ is edited and rebuilt
# by others while a run goes on.
mkdir -p "$SCRATCH/bin"
for prog in "$DENTS_SRC" "$FLOOR_SRC" "$SLICER_SRC"; do
    if [ -x "$prog" ]; then
        cp "$prog" "$SCRATCH/bin/"
    elif [ "$prog" != "$SLICER_SRC" ]; then
        echo "run.sh: $prog missing: cargo build --release" >&2
        exit 1
    fi
done
DENTS=$SCRATCH/bin/$(basename "$DENTS_SRC")
FLOOR=$SCRATCH/bin/$(basename "$FLOOR_SRC")
SLICER=$SCRATCH/bin/$(basename "$SLICER_SRC")
for g in "$@"; do
    if [ "$g" = scale ]; then mounts="grid huge real" builder=scale.sh; else mounts="ext4 xfs noft tree" builder=corpus.sh; fi
    for fs in $mounts; do
        mountpoint -q "$B/$fs" || { echo "run.sh: $B/$fs not mounted: bench/$builder" >&2; exit 1; }
    done
done
: > "$OUT/notes.txt"
environment
for g in "$@"; do
    "group_$g"
done
python3 "$root/bench/summarize.py" "$OUT"
echo "results: $OUT/results.md $OUT/results.json" >&2
