#!/usr/bin/env python3
"""dents scan of two builds against dents du -s on TREE, runs interleaved:
median wall time, its ratio to du -s's median in the same run, peak RSS
(by /usr/bin/time), bytes an entry of each snapshot.

usage: BEFORE=BIN AFTER=BIN scanvs.py TREE RUNS   (snapshots in /dev/shm)
"""
import os
import statistics
import subprocess
import sys

before, after = os.environ["BEFORE"], os.environ["AFTER"]
tree, runs = sys.argv[1], int(sys.argv[2])
cmds = {
    "du -s": [after, "du", "-s", tree],
    "scan before": [before, "scan", "-o", "/dev/shm/scanvs-before.parquet", tree],
    "scan after": [after, "scan", "-o", "/dev/shm/scanvs-after.parquet", tree],
}
res = {k: [] for k in cmds}
for c in cmds.values():  # warm-up
    subprocess.run(c, stdout=subprocess.DEVNULL, check=True)
for _ in range(runs):
    for k, c in cmds.items():
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + c,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
        secs, kb = p.stderr.decode().split()[-2:]
        res[k].append((float(secs), int(kb)))
du = statistics.median(x[0] for x in res["du -s"])
for k, v in res.items():
    t = statistics.median(x[0] for x in v)
    rss = statistics.median(x[1] for x in v) / 1024
    print(f"{k:12s} median {t:6.2f} s  ratio {t / du:.2f}  peak RSS median {rss:.1f} MiB"
          f"  runs {[x[0] for x in v]}")
n = subprocess.run([after, "find", tree], capture_output=True).stdout.count(b"\n")
for f in ("/dev/shm/scanvs-before.parquet", "/dev/shm/scanvs-after.parquet"):
    s = os.path.getsize(f)
    print(f"{f}: {s} bytes, {n} entries, {s / n:.1f} bytes an entry")
