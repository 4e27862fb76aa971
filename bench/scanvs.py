#!/usr/bin/env python3
"""dents scan of two builds against dents du -s on TREE, runs interleaved:
median wall time and CPU time (user + system, the steadier figure on a
loaded machine), their ratios to du -s's medians in the same run, peak
RSS (by /usr/bin/time), bytes an entry of each snapshot.

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
        p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M"] + c,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
        secs, user, system, kb = p.stderr.decode().split()[-4:]
        res[k].append((float(secs), int(kb), float(user) + float(system)))
        print(f"  {k}: {secs} s, CPU {res[k][-1][2]:.2f} s, {int(kb) / 1024:.1f} MiB", flush=True)
du = statistics.median(x[0] for x in res["du -s"])
du_cpu = statistics.median(x[2] for x in res["du -s"])
print(f"load average at the end: {os.getloadavg()}")
for k, v in res.items():
    t = statistics.median(x[0] for x in v)
    cpu = statistics.median(x[2] for x in v)
    rss = statistics.median(x[1] for x in v) / 1024
    print(f"{k:12s} median {t:6.2f} s  ratio {t / du:.2f}  CPU {cpu:5.2f} s  ratio {cpu / du_cpu:.2f}"
          f"  peak RSS median {rss:.1f} MiB  runs {[(x[0], round(x[2], 2)) for x in v]}")
n = subprocess.run([after, "find", tree], capture_output=True).stdout.count(b"\n")
for f in ("/dev/shm/scanvs-before.parquet", "/dev/shm/scanvs-after.parquet"):
    s = os.path.getsize(f)
    print(f"{f}: {s} bytes, {n} entries, {s / n:.1f} bytes an entry")
