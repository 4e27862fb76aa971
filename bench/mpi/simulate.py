#!/usr/bin/env python3
"""The scale simulation of issue 16: replays a recorded tree profile over
1 to 1024 simulated ranks and predicts speed-up, load balance, termination
overhead and steal messages for dents-mpi's engine and for a libcircle
walker (mpiFileUtils' dwalk).

usage: simulate.py [options] PROFILE
  PROFILE is what bench/mpi/profile (dents-tree-profile) wrote: one line
  per directory, in preorder: parent, entries, subdirectories, st_size,
  read cost (ns), stat cost of all its entries (ns).

A discrete-event simulation, standard library only.  What it models (the
engine as crates/dents-mpi/src/engine.rs and du.rs have it at the `mpi`
branch's commit b3ef074; docs/distributed.md):

- Work items are directories (the whole subtree below, walked on the
  rank's walker) and slices of huge directories (st_size of 1 MiB or more:
  cut into 4 slices per rank, at most 64, all queued, each item reading
  its share of the entries and of the subdirectories, plus one open and
  seek).
- Each rank has T walker threads on T cores of its own.  Its worker takes a
  batch of up to 16 items (with other ranks, half the queue at most) from
  the rank's queue and walks them: the
  threads share the batch's directories among themselves (free, shared
  memory); a directory met while the queue holds fewer than 8 items (64
  once a thief went away empty-handed) is spilled into the queue instead,
  where thieves can take it; a new batch starts only when the whole walk
  is done (threads idle meanwhile), after a walk start-up cost.
- An idle rank (queue empty, no walk) asks one random other rank for work;
  the victim's main thread, polling every ~20 us, answers with the front
  half of its queue (rounded up) or "no work"; after "no work" the thief
  waits 100 us, doubling per failure up to 10 ms, before it asks again.
  Messages take latency + size / bandwidth.
- Termination: Safra's token ring.  Rank 0, idle, sends the token; every
  rank passes it on when idle, adding its count of basic messages (work)
  sent minus received and its colour (black after receiving work); the
  token back white with a zero sum ends the run, and rank 0 sends DONE to
  every rank, one send after another.

dwalk (--mode dwalk) is modelled as libcircle works: one thread per rank,
one directory per item (never sliced), every directory met goes into the
queue, requests are answered only between two items (libcircle checks for
requests between calls of the processing callback), the queue is split in
half for a thief, termination by a token ring (modelled as the same ring).

Not modelled: find's output lines travelling to rank 0 and du's totals
travelling back to the parent's rank (the benchmark's find -size/-false
print little); contention between ranks on one node's memory or disks; a
file system server that saturates (each rank's costs are independent: see
the assumptions in docs/distributed.md).

One shortcut: while every queue of every rank is empty, each thief's
requests can only fail; instead of simulating each of them the thief is
parked and, when some queue fills again, resumes at a random point of its
longest pause (a round trip without pauses), with the requests it would
have sent meanwhile counted.  The busy ranks it would have asked turn
hungry.
"""

import argparse
import collections
import heapq
import random
import statistics
import sys

# The engine's constants (crates/dents-mpi/src/engine.rs, crates/dents/src/slice.rs).
RESERVE = 8
HUNGRY_RESERVE = 64
BATCH = 16
HUGE_DIR = 1 << 20
SLICES_PER_RANK = 4
MAX_SLICES = 64


class Tree:
    """A profile, replicated COPIES times side by side (the copies are the
    starting points, as `dents find ROOT...`)."""

    def __init__(self, path, copies):
        parent, entries, subdirs, size, read, stat = [], [], [], [], [], []
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    continue
                p, e, s, b, r, t = (int(x) for x in line.split())
                parent.append(p)
                entries.append(e)
                subdirs.append(s)
                size.append(b)
                read.append(r)
                stat.append(t)
        self.n = len(parent)
        self.kids = [[] for _ in range(self.n)]
        for i, p in enumerate(parent):
            if p >= 0:
                self.kids[p].append(i)
        self.entries, self.size, self.read, self.stat = entries, size, read, stat
        self.copies = copies

    def total_entries(self):
        # Every entry of every directory, and each copy's root itself.
        return (sum(self.entries) + 1) * self.copies


class Costs:
    """What one item costs a thread, in ns."""

    def __init__(self, a, tree):
        self.t = tree
        self.stat = a.stat
        self.scale = a.scale
        self.dir_ns = a.fs_dir_us * 1000
        self.entry_ns = a.fs_entry_us * 1000 if a.stat else a.fs_readdir_entry_us * 1000
        self.slice_ns = a.slice_us * 1000

    def of(self, i, k_slices):
        t = self.t
        c = t.read[i] + (t.stat[i] if self.stat else 0)
        c = c * self.scale + self.dir_ns + t.entries[i] * self.entry_ns
        if k_slices > 1:
            c = c / k_slices + self.slice_ns + self.dir_ns
        return c


class Rank:
    __slots__ = (
        "queue", "pool", "walking", "free", "hungry", "hungry_at", "asking",
        "parked", "busy_ns", "count", "black", "token", "deferred", "fails",
    )

    def __init__(self, threads):
        self.queue = collections.deque()
        self.pool = []
        self.walking = False
        self.free = threads
        self.hungry = False
        self.hungry_at = -1.0
        self.asking = False
        self.parked = None
        self.busy_ns = 0.0
        self.count = 0
        self.black = False
        self.token = None
        self.deferred = []
        self.fails = 0


# Event kinds.
DONE_ITEM, WALK_START, MSG, RETRY = range(4)
# Message tags.
REQUEST, WORK, NO_WORK, TOKEN, DONE = range(5)


class Sim:
    def __init__(self, a, tree, ranks, seed):
        self.a, self.t, self.R = a, tree, ranks
        self.dwalk = a.mode == "dwalk"
        self.T = 1 if self.dwalk else a.threads
        self.cost = Costs(a, tree)
        self.rng = random.Random(seed)
        self.ranks = [Rank(self.T) for _ in range(ranks)]
        self.heap = []
        self.seq = 0
        self.queued = 0
        self.parked = set()
        self.last_park = -1.0
        self.outstanding = 0
        self.work_end = None
        self.done_at = None
        self.lat = a.latency_us * 1000
        self.ns_per_byte = 1 / a.bandwidth_gbs  # GB/s = bytes per ns
        self.poll = 0.0 if self.dwalk else a.poll_us * 1000
        self.walk_start = 0.0 if self.dwalk else a.walk_start_us * 1000
        # libcircle asks again at once; dents-mpi pauses.
        self.retry = a.retry_us > 0 and not self.dwalk
        self.rtt = 2 * (self.lat + self.poll / 2) + 2 * a.handle_us * 1000
        self.stats = collections.Counter()

    # --- the queue of events
    def at(self, time, kind, rank, data=None):
        self.seq += 1
        heapq.heappush(self.heap, (time, self.seq, kind, rank, data))

    def send(self, now, src, dst, tag, data=None, nbytes=32):
        self.stats["messages"] += 1
        arrive = now + self.lat + nbytes * self.ns_per_byte + self.a.handle_us * 1000
        self.at(arrive, MSG, dst, (tag, src, data))

    # --- items
    def items_of(self, g):
        """The items a directory met in a walk becomes: itself, or its slices."""
        i = g % self.t.n
        size = self.t.size[i]
        if self.dwalk or self.a.no_slices or self.R < 2 or size < self.a.huge_bytes:
            return [(g, 0, 1)]
        k = min(MAX_SLICES, SLICES_PER_RANK * self.R)
        self.stats["sliced_dirs"] += 1
        return [(g, s, k) for s in range(k)]

    def children(self, item):
        g, s, k = item
        n = self.t.n
        base = g - g % n
        kids = self.t.kids[g % n]
        if k > 1:
            kids = kids[s::k]
        return [base + j for j in kids]

    def enqueue(self, r, now, items):
        rk = self.ranks[r]
        was = self.queued
        rk.queue.extend(items)
        self.queued += len(items)
        if was == 0 and self.queued > 0 and self.parked:
            self.unpark(now)

    # --- stealing
    def pause(self, rk):
        """A thief's pause after its latest "no work"."""
        return min(self.a.retry_max_us, self.a.retry_us * 2**rk.fails) * 1000

    def starve(self, rk, span):
        """The requests a thief sends in `span` ns of failing, and its
        pause at the end: without pauses one a round trip; with them one
        per pause, each pause twice the last up to the longest."""
        if not self.retry:
            return int(span // self.rtt), self.rtt
        n = 0
        while True:
            p = self.pause(rk)
            if p >= self.a.retry_max_us * 1000:
                return n + int(span // p), p
            if span < p:
                return n, p
            span -= p
            n += 1
            rk.fails += 1

    def unpark(self, now):
        for p in self.parked:
            rk = self.ranks[p]
            missed, pause = self.starve(rk, now - rk.parked)
            self.stats["requests"] += missed
            self.stats["no_work"] += missed
            self.stats["messages"] += 2 * missed
            rk.parked = None
            # It asks again somewhere in its current pause.
            self.at(now + self.rng.random() * pause, RETRY, p)
        self.parked.clear()

    def passive(self, rk):
        return not rk.queue and not rk.walking

    def ask(self, r, now):
        rk = self.ranks[r]
        if self.R < 2 or rk.asking or rk.parked is not None or not self.passive(rk):
            return
        victim = (r + 1 + self.rng.randrange(self.R - 1)) % self.R
        rk.asking = True
        self.stats["requests"] += 1
        self.send(now, r, victim, REQUEST)

    # --- the worker
    def wants_spill(self, rk):
        if self.R < 2:
            return False
        if self.dwalk:
            return True
        hungry = rk.hungry or rk.hungry_at < self.last_park
        want = HUNGRY_RESERVE if hungry else RESERVE
        if len(rk.queue) >= want:
            rk.hungry = False
            rk.hungry_at = self.last_park
            return False
        return True

    def feed(self, r, now):
        """Keeps rank r's threads busy; when it falls idle, it steals and
        passes the token on."""
        rk = self.ranks[r]
        while True:
            if rk.walking:
                while rk.free > 0 and rk.pool:
                    item = rk.pool.pop()
                    rk.free -= 1
                    c = self.cost.of(item[0] % self.t.n, item[2])
                    rk.busy_ns += c
                    self.at(now + c, DONE_ITEM, r, item)
                if rk.free == self.T and not rk.pool:
                    rk.walking = False
                    continue
                return
            if rk.queue:
                if self.dwalk:
                    n = 1
                elif self.R > 1:
                    n = min(BATCH, (len(rk.queue) + 1) // 2)
                else:
                    n = min(BATCH, len(rk.queue))
                batch = [rk.queue.popleft() for _ in range(n)]
                self.queued -= n
                batch.reverse()
                rk.pool = batch
                rk.walking = True
                rk.free = 0
                self.at(now + self.walk_start, WALK_START, r)
                return
            # Passive.
            self.ask(r, now)
            self.try_token(r, now)
            return

    def item_done(self, r, now, item):
        rk = self.ranks[r]
        rk.free += 1
        self.outstanding -= 1
        new = []
        for g in self.children(item):
            new.extend(self.items_of(g))
        self.outstanding += len(new)
        for it in new:
            if it[2] > 1 or self.wants_spill(rk):
                self.enqueue(r, now, [it])
            else:
                rk.pool.append(it)
        if self.outstanding == 0:
            self.work_end = now
        if self.dwalk and rk.deferred:
            # libcircle answers between two items: this one is over.
            rk.walking = False
            pending, rk.deferred = rk.deferred, []
            for msg in pending:
                self.handle(r, now, msg)
        self.feed(r, now)

    # --- messages
    def handle(self, r, now, msg):
        tag, src, data = msg
        rk = self.ranks[r]
        if self.dwalk and tag == REQUEST and rk.walking:
            rk.deferred.append(msg)
            return
        if tag == REQUEST:
            n = (len(rk.queue) + 1) // 2
            if n == 0:
                rk.hungry = True
                self.stats["no_work"] += 1
                self.send(now, r, src, NO_WORK)
            else:
                items = [rk.queue.popleft() for _ in range(n)]
                self.queued -= n
                rk.count += 1
                self.stats["work"] += 1
                self.stats["items_stolen"] += n
                self.send(now, r, src, WORK, items, 16 + n * self.a.item_bytes)
        elif tag == WORK:
            rk.count -= 1
            rk.black = True
            rk.asking = False
            rk.fails = 0
            self.enqueue(r, now, data)
            self.feed(r, now)
        elif tag == NO_WORK:
            rk.asking = False
            if self.passive(rk):
                if self.queued == 0:
                    rk.parked = now
                    self.parked.add(r)
                    self.last_park = now
                elif self.retry:
                    delay = self.pause(rk)
                    rk.fails = min(rk.fails + 1, 30)
                    self.at(now + delay, RETRY, r)
                else:
                    self.ask(r, now)
        elif tag == TOKEN:
            rk.token = data
            self.try_token(r, now)
        elif tag == DONE:
            self.done_at = max(self.done_at or 0, now)
            self.done_pending -= 1

    def try_token(self, r, now):
        rk = self.ranks[r]
        if rk.token is None or not self.passive(rk):
            return
        black, count, started = rk.token
        rk.token = None
        if r == 0:
            if started and not black and not rk.black and count + rk.count == 0:
                self.terminate(now)
                return
            rk.black = False
            self.stats["token_rounds"] += 1
            if self.R == 1:
                rk.token = (False, 0, True)
                self.at(now + self.poll, RETRY, 0)
            else:
                self.stats["token_hops"] += 1
                self.send(now, 0, 1, TOKEN, (False, 0, True))
        else:
            self.stats["token_hops"] += 1
            self.send(now, r, (r + 1) % self.R, TOKEN, (black or rk.black, count + rk.count, True))
            rk.black = False

    def terminate(self, now):
        self.terminated = now
        if self.R == 1:
            self.done_at = now
            return
        t = now
        self.done_pending = self.R - 1
        for dst in range(1, self.R):
            t += self.a.send_us * 1000
            self.send(t, 0, dst, DONE)

    def run(self):
        roots = [c * self.t.n for c in range(self.t.copies)]
        first = []
        for g in roots:
            first.extend(self.items_of(g))
        self.outstanding = len(first)
        self.terminated = None
        self.done_pending = 0
        self.ranks[0].token = (False, 0, False)
        self.enqueue(0, 0.0, first)
        for r in range(self.R):
            self.feed(r, 0.0)
        heap = self.heap
        while heap:
            now, _, kind, r, data = heapq.heappop(heap)
            if kind == DONE_ITEM:
                self.item_done(r, now, data)
            elif kind == WALK_START:
                rk = self.ranks[r]
                rk.free = self.T
                self.feed(r, now)
            elif kind == MSG:
                delay = self.rng.random() * self.poll
                if delay and data[0] != DONE:
                    self.at(now + delay, MSG + 10, r, data)
                else:
                    self.handle(r, now, data)
            elif kind == MSG + 10:
                self.handle(r, now, data)
            elif kind == RETRY:
                rk = self.ranks[r]
                if r == 0 and self.terminated is None:
                    self.try_token(0, now)
                self.ask(r, now)
            if self.terminated is not None and self.done_pending == 0:
                break
        # Every item walked exactly once, and the end detected after it.
        if self.outstanding != 0 or self.terminated is None or self.terminated < self.work_end:
            raise SystemExit(f"simulate: termination before the end of the work at {self.R} ranks")
        busy = [rk.busy_ns / self.T for rk in self.ranks]
        mean = statistics.mean(busy)
        return {
            "ranks": self.R,
            "threads": self.T,
            "walk_s": self.done_at / 1e9,
            "work_s": self.work_end / 1e9,
            "termination_ms": (self.done_at - self.work_end) / 1e6,
            "balance": max(busy) / mean if mean else 1.0,
            "busy_s": sum(busy) * self.T / 1e9,
            "entries_per_s": self.t.total_entries() / (self.done_at / 1e9),
            "requests": self.stats["requests"],
            "no_work": self.stats["no_work"],
            "work_msgs": self.stats["work"],
            "items_stolen": self.stats["items_stolen"],
            "token_hops": self.stats["token_hops"],
            "messages": self.stats["messages"],
        }



COLUMNS = [
    ("ranks", "{}"), ("threads", "{}"), ("walk_s", "{:.4f}"), ("busy_s", "{:.4f}"), ("speedup", "{:.1f}"),
    ("entries_per_s", "{:.0f}"), ("balance", "{:.2f}"), ("termination_ms", "{:.3f}"),
    ("requests", "{}"), ("no_work", "{}"), ("work_msgs", "{}"), ("items_stolen", "{}"),
    ("token_hops", "{}"),
]


def sweep(a, tree, ranks_list):
    rows = []
    base = None
    for R in ranks_list:
        res = [Sim(a, tree, R, a.seed + k).run() for k in range(a.repeats)]
        med = {}
        for key in res[0]:
            med[key] = statistics.median(x[key] for x in res)
        if base is None:
            # Speed-up against the first rank count, taken as perfect.
            base = med["walk_s"] * R
        med["speedup"] = base / med["walk_s"]
        rows.append(med)
        print(line(med), file=sys.stderr)
    return rows


def line(row):
    return "\t".join(fmt.format(int(row[c]) if fmt == "{}" else row[c]) for c, fmt in COLUMNS)


def calibrate(a, tree):
    """Sets a.fs_entry_us so that a.calibrate's rank count walks at its
    rate: a remote file system's cost per entry, from a published rate.
    The rate is nearly inversely proportional to the cost: a few
    fixed-point steps."""
    ranks, rate = a.calibrate.split(":")
    ranks, rate = int(ranks), float(rate)
    if a.fs_entry_us <= 0:
        a.fs_entry_us = ranks / rate * 1e6
    for _ in range(4):
        got = Sim(a, tree, ranks, a.seed).run()["entries_per_s"]
        a.fs_entry_us *= got / rate
    got = Sim(a, tree, ranks, a.seed).run()["entries_per_s"]
    print(f"calibrated: --fs-entry-us {a.fs_entry_us:.1f} gives {got:.0f} entries/s at {ranks} ranks", file=sys.stderr)


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("profile")
    p.add_argument("--mode", choices=["dents", "dwalk"], default="dents")
    p.add_argument("--ranks", default="1,2,4,8,16,32,64,128,256,512,1024",
                   help="comma-separated rank counts")
    p.add_argument("--threads", type=int, default=4, help="walker threads (and cores) per rank (dents)")
    p.add_argument("--copies", type=int, default=1, help="copies of the profiled tree, side by side")
    p.add_argument("--stat", action=argparse.BooleanOptionalAction, default=True,
                   help="every entry is stat'ed (find -size, du, dwalk); --no-stat: find -false, dwalk --lite")
    p.add_argument("--no-slices", action="store_true", help="never slice huge directories")
    p.add_argument("--scale", type=float, default=1.0, help="multiplies the measured costs")
    p.add_argument("--fs-dir-us", type=float, default=0.0, help="extra cost per directory read (remote file system)")
    p.add_argument("--fs-entry-us", type=float, default=0.0, help="extra cost per stat'ed entry (remote file system)")
    p.add_argument("--fs-readdir-entry-us", type=float, default=0.0, help="extra cost per entry read without stat")
    p.add_argument("--slice-us", type=float, default=10.0, help="a slice's own open and seek")
    p.add_argument("--walk-start-us", type=float, default=30.0, help="starting a walk of a batch (dents)")
    p.add_argument("--latency-us", type=float, default=2.0)
    p.add_argument("--bandwidth-gbs", type=float, default=10.0)
    p.add_argument("--poll-us", type=float, default=20.0, help="the main thread's polling period (dents)")
    p.add_argument("--handle-us", type=float, default=1.0, help="receiving and handling one message")
    p.add_argument("--send-us", type=float, default=1.0, help="one send of rank 0's DONE broadcast")
    p.add_argument("--retry-us", type=float, default=100.0,
                   help="after \"no work\", wait this long before asking again, doubling per failure "
                   "(0: at once)")
    p.add_argument("--retry-max-us", type=float, default=10000.0, help="the longest wait of --retry-us")
    p.add_argument("--huge-bytes", type=int, default=HUGE_DIR,
                   help="directories this large (st_size) go out as slices")
    p.add_argument("--calibrate", metavar="RANKS:RATE",
                   help="first set --fs-entry-us so that RANKS ranks walk RATE entries/s (a published rate)")
    p.add_argument("--item-bytes", type=int, default=96, help="an item on the wire (path and header)")
    p.add_argument("--repeats", type=int, default=3, help="runs per rank count (seeds), medians")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--tsv", help="write the table here too")
    return p.parse_args()


def main():
    a = parse()
    tree = Tree(a.profile, a.copies)
    ranks = [int(x) for x in a.ranks.split(",")]
    if a.calibrate:
        calibrate(a, tree)
    print("\t".join(c for c, _ in COLUMNS), file=sys.stderr)
    rows = sweep(a, tree, ranks)
    out = open(a.tsv, "w") if a.tsv else sys.stdout
    out.write("\t".join(c for c, _ in COLUMNS) + "\n")
    for row in rows:
        out.write(line(row) + "\n")


if __name__ == "__main__":
    main()
