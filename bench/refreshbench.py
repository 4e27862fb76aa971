#!/usr/bin/env python3
"""dents scan --since (refresh) against a full scan on TREE, hot or cold,
runs interleaved: medians, ratios, the directories read and reused (from
NEW's record) and peak RSS (issue 28, docs/benchmarks.md#refresh).

usage: DENTS=BIN [DENTS_ALSO=NAME=BIN,...] refreshbench.py TREE RUNS [--cold] [--changed PERCENT]

DENTS_ALSO: other binaries (an older build, a variant) whose refreshes
run in the same rounds, from the same OLD, with ratios to DENTS's scans
of the same rounds: the machine's load then weighs on all alike.

OLD (full and names-only) is scanned first; then PERCENT (default 1) of
TREE's directories, picked with a fixed seed, get one new file each, so
that every refresh reads those again; the files are removed at the end.
TREE must be older than the refresh's 2-second guard (it is once built).
--cold drops the page, dentry and inode caches before every run (root).
Snapshots are written to /dev/shm.
"""
import os
import random
import statistics
import subprocess
import sys
import time

D = os.environ.get("DENTS", "target/release/dents")
tree = sys.argv[1]
runs = int(sys.argv[2])
cold = "--cold" in sys.argv
percent = float(sys.argv[sys.argv.index("--changed") + 1]) if "--changed" in sys.argv else 1.0
S = "/dev/shm/refreshbench"
MARK = ".dents-refresh-bench"


def run(cmd):
    """Runs cmd (output discarded): elapsed seconds, CPU seconds, peak RSS (KiB)."""
    if cold:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    s = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    e = time.monotonic() - s
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"{cmd}: status {status}")
    return e, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def record(path, key):
    """A value of the snapshot's key-value metadata, read from the footer
    as bytes (Thrift compact: the key, a field header, a varint length,
    the value); no Parquet library needed."""
    with open(path, "rb") as f:
        f.seek(max(0, os.path.getsize(path) - (1 << 20)))
        tail = f.read()
    i = tail.rfind(key.encode()) + len(key) + 1
    n = shift = 0
    while True:
        b = tail[i]; i += 1
        n |= (b & 0x7F) << shift; shift += 7
        if b < 0x80:
            break
    return tail[i:i + n].decode()


# OLD, full and names-only; then the change.
subprocess.run([D, "scan", "-o", f"{S}-old.parquet", tree], check=False)
subprocess.run([D, "scan", "--names-only", "-o", f"{S}-oldn.parquet", tree], check=False)
dirs = [d for d, _, _ in os.walk(tree)]
rnd = random.Random(1)
changed = rnd.sample(dirs, max(1, round(len(dirs) * percent / 100)))
for d in changed:
    open(os.path.join(d, MARK), "w").close()
print(f"{tree}: {len(dirs)} directories, {len(changed)} changed ({percent}%), {'cold' if cold else 'hot'}")

cmds = {
    "names-only scan": [D, "scan", "--names-only", "-o", f"{S}-n.parquet", tree],
    "names-only refresh": [D, "scan", "--names-only", f"--since={S}-oldn.parquet", "-o", f"{S}-rn.parquet", tree],
    "full scan": [D, "scan", "-o", f"{S}-f.parquet", tree],
    "full refresh": [D, "scan", f"--since={S}-old.parquet", "-o", f"{S}-rf.parquet", tree],
}
for also in filter(None, os.environ.get("DENTS_ALSO", "").split(",")):
    name, b = also.split("=", 1)
    cmds[f"names-only refresh {name}"] = [b] + cmds["names-only refresh"][1:-2] + [f"{S}-rn-{name}.parquet", tree]
    cmds[f"full refresh {name}"] = [b] + cmds["full refresh"][1:-2] + [f"{S}-rf-{name}.parquet", tree]
t = {k: [] for k in cmds}
try:
    if not cold:
        for c in cmds.values():  # warm-up
            run(c)
    for _ in range(runs):
        for k, c in cmds.items():
            t[k].append(run(c))
finally:
    for d in changed:
        try:
            os.unlink(os.path.join(d, MARK))
        except OSError:
            pass

med = {k: [statistics.median(x[i] for x in v) for i in range(3)] for k, v in t.items()}
for k in cmds:
    e, c, rss = med[k]
    base = med["names-only scan" if k.startswith("names") else "full scan"]
    print(f"{k:28s} elapsed {e*1000:7.0f} ms ({e/base[0]:.2f}x)  cpu {c*1000:7.0f} ms ({c/base[1]:.2f}x)"
          f"  peak RSS {rss/1024:6.1f} MiB  elapsed runs {[round(x[0]*1000) for x in t[k]]}")
for k, f in (("names-only refresh", f"{S}-rn.parquet"), ("full refresh", f"{S}-rf.parquet")):
    print(f"{k}: dirs_read {record(f, 'dents.scan.dirs_read')}, dirs_reused {record(f, 'dents.scan.dirs_reused')}")
