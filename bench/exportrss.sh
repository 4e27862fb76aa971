#!/bin/sh
# Peak RSS (GNU time's %M, KiB) of du's ncdu export and its peers on
# each tree given (issue 29): dents du -s, dents du -s -o /dev/null with
# the export spilled (the default) and kept in memory (the reference
# path, DENTS_DU_EXPORT_SPILL=never-spill), GNU du -s, ncdu -o /dev/null.
# usage: bench/exportrss.sh DENTS TREE...   (one line a run: tree tool KiB secs)
set -eu
dents=$1
shift
t() {
    tree=$1 label=$2
    shift 2
    /usr/bin/time -f "%M %e" -o /tmp/exportrss.$$ "$@" >/dev/null 2>&1 || true
    echo "$tree $label $(cat /tmp/exportrss.$$)"
}
for tree in "$@"; do
    t "$tree" dents-du-s "$dents" du -s "$tree"
    t "$tree" dents-du-o-spilled "$dents" du -s -o /dev/null "$tree"
    DENTS_DU_EXPORT_SPILL=18446744073709551615 t "$tree" dents-du-o-in-memory "$dents" du -s -o /dev/null "$tree"
    t "$tree" gnu-du-s du -s "$tree"
    t "$tree" ncdu-o ncdu --ignore-config -o /dev/null "$tree"
done
rm -f /tmp/exportrss.$$
