"""dents find --from SNAPSHOT against dents find on the tree (issue 27,
item 3): runs interleaved, hot; medians of wall and CPU time, peak RSS.
usage: DENTS=BIN findfrom.py TREE RUNS [EXPR...]  (default EXPR: -size +1M)"""
import os
import statistics
import subprocess
import sys
import time

D = os.environ.get("DENTS", "target/release/dents")
tree = sys.argv[1]
runs = int(sys.argv[2])
expr = sys.argv[3:] or ["-size", "+1M"]
snap = "/dev/shm/findfrom-bench.parquet"
subprocess.run([D, "scan", "-o", snap, tree], check=True)
cmds = {
    "find TREE": [D, "find", tree] + expr,
    "find --from": [D, "find", "--from", snap, tree] + expr,
}


def once(cmd):
    """Wall, CPU (user + system) seconds and peak RSS (KiB) of one run."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    assert os.waitstatus_to_exitcode(status) == 0, cmd
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


res = {k: [] for k in cmds}
for c in cmds.values():  # warm-up: the tree and the snapshot in the cache
    once(c)
for _ in range(runs):
    for k, c in cmds.items():
        res[k].append(once(c))
base = statistics.median(r[0] for r in res["find TREE"])
base_cpu = statistics.median(r[1] for r in res["find TREE"])
out = subprocess.run(cmds["find TREE"], capture_output=True).stdout
assert sorted(out.split(b"\n")) == sorted(subprocess.run(cmds["find --from"], capture_output=True).stdout.split(b"\n"))
rows = subprocess.run([D, "find", tree], capture_output=True).stdout.count(b"\n")
lines = out.count(b"\n")
print(f"{rows} entries, {lines} lines, expression {' '.join(expr)}")
for k, v in res.items():
    wall = statistics.median(r[0] for r in v)
    cpu = statistics.median(r[1] for r in v)
    rss = max(r[2] for r in v)
    print(f"{k:12s} wall {wall*1000:7.0f} ms ({wall/base:.2f}x)  cpu {cpu*1000:7.0f} ms ({cpu/base_cpu:.2f}x)"
          f"  peak RSS {rss/1024:6.1f} MiB  walls {[round(r[0]*1000) for r in v]}")
os.remove(snap)
