"""dents scan against dents du -s on TREE, runs interleaved: medians and
bytes an entry (docs/history/benchmarks.md, issue 27).  usage: DENTS=BIN snapbench.py TREE RUNS"""
import os
import statistics
import subprocess
import sys
import time
D = os.environ.get("DENTS", "target/release/dents")
tree = sys.argv[1]; runs = int(sys.argv[2])
cmds = {
    "du -s": [D, "du", "-s", tree],
    "scan": [D, "scan", "-o", "/dev/shm/snapbench.parquet", tree],
    "scan --names-only": [D, "scan", "--names-only", "-o", "/dev/shm/snapbench-n.parquet", tree],
}
t = {k: [] for k in cmds}
for k, c in cmds.items():  # warm-up
    subprocess.run(c, stdout=subprocess.DEVNULL, check=True)
for i in range(runs):
    for k, c in cmds.items():
        s = time.monotonic(); subprocess.run(c, stdout=subprocess.DEVNULL, check=True); t[k].append(time.monotonic() - s)
m = {k: statistics.median(v) for k, v in t.items()}
for k in cmds:
    print(f"{k:20s} median {m[k]*1000:8.0f} ms  ratio to du -s {m[k]/m['du -s']:.2f}  runs {[round(x*1000) for x in t[k]]}")
rows = int(subprocess.run([D, "find", tree], capture_output=True).stdout.count(b"\n"))
for f in ("/dev/shm/snapbench.parquet", "/dev/shm/snapbench-n.parquet"):
    sz = os.path.getsize(f); print(f"{f}: {sz} bytes, {rows} entries, {sz/rows:.1f} bytes/entry")
