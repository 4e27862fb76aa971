#!/usr/bin/python3
"""Cold start-up in rotated interleaved rounds (as root): docs/walk-order.md.

Usage: cold-start.py ROUNDS NAME=COMMAND...  Before each run the page cache
is dropped; prints per command the median wall time, CPU time, bytes read
from disk (ru_inblock) and major faults, and each command's per-round ratio
to the last one given.
"""
import resource, statistics as s, subprocess, sys, time

n = int(sys.argv[1])
cmds = dict(a.split('=', 1) for a in sys.argv[2:])
names = list(cmds)
res = {k: [] for k in names}
order = names[:]
for _ in range(n):
    order = order[1:] + order[:1]
    for k in order:
        subprocess.run('sync; echo 3 > /proc/sys/vm/drop_caches', shell=True)
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmds[k].split(), stdout=subprocess.DEVNULL)
        t = time.perf_counter() - t
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        res[k].append((t * 1000, (r1.ru_inblock - r0.ru_inblock) / 2, r1.ru_majflt - r0.ru_majflt,
                       (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1000))
ref = names[-1]
for k in names:
    w, kib, maj, cpu = zip(*res[k])
    q = sorted(w)
    ratio = sorted(a[0] / b[0] for a, b in zip(res[k], res[ref]))
    print('%-16s cold median %.1f ms (q1 %.1f q3 %.1f) cpu %.1f ms read %d KiB major faults %d'
          ' ÷ %s %.2f (q1 %.2f q3 %.2f)' % (k, s.median(q), q[n // 4], q[3 * n // 4], s.median(cpu),
                                           s.median(kib), s.median(maj), ref, s.median(ratio),
                                           ratio[n // 4], ratio[3 * n // 4]))
