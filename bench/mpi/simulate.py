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
engine as crates/dents-mpi/src/engine.rs, find.rs, du.rs and slices.rs
have it since session 7; docs/distributed.md, "Simulation"; the options
named "session 6" give the engine of main's commit 934f16e):

- Work items are directories (the whole subtree below, walked on the
  rank's walker) and slices of huge directories (st_size of 1 MiB or more,
  slices.rs's HUGE_DIR, with other ranks: cut into 4 slices per rank, at
  most 64, all queued however full the queue, each item reading its share
  of the entries and of the subdirectories, plus one open and seek).  The
  rank that meets a huge directory pays its open and fstat (sliceable) and,
  in find, the directory's own visit, a walk of its own (visit_alone).
- Each rank has T walker threads on T cores of its own.  Its worker takes a
  batch of up to 16 items (with other ranks, half the queue and 2 per
  walker thread at most; session 6: no bound per thread) from
  the rank's queue and walks them: the threads share the batch's
  directories among themselves (free, shared memory); a directory met
  while the queue holds fewer than 4 items per rank, at most 64 (16 per
  rank, at most 256, once a thief went away empty-handed; session 6: 8 and
  64 whatever the ranks) is spilled into the queue instead, where thieves
  can take it; a new batch starts only when the whole walk is done (threads idle
  meanwhile), after a walk start-up cost.  find (--job find) walks a
  batch's whole directories first, each checked for hugeness (an open and
  an fstat, Job::run's huge_space), then its slices one after another,
  each a walk of its own (walk_slice: the slice read on one thread, its
  subdirectories on all); without a stat in the expression it stats every
  directory it meets (Spill::spilled's metadata(); --no-dir-stat: the
  walker offers huge directories without it).  du (--job du) runs a batch's
  slices side by side on threads of their own, then its directories.
- The main thread of each rank receives and answers, then sleeps: after an
  iteration that received nothing, 10 << n us with n one more than the
  last time, up to 160 us with other ranks (--wave-idle-rounds for an idle
  one) and 1.28 ms alone (session 6, --termination ring: 1.28 ms whenever
  the rank is idle); back to 20 us after one that received something
  (engine.rs MainLoop::rest).  A message waits for that wake.
- An idle rank asks one random other rank for work at its wake; the
  victim answers at its own wake with the front half of its queue
  (rounded up) or "no work"; after "no work" the thief asks again at its
  first wake 100 us later (session 6: the pause doubling per failure up
  to 10 ms, --retry-max-us 10000).
  Messages take latency + size / bandwidth; one sender thread per rank
  sends them one after another (send_politely: a message up to the eager
  size completes at once; a larger one when the receiver takes it, seen
  at the sender's next test, its naps 1 us doubling to 500 us).
- Termination (--termination wave, the default): waves of a non-blocking
  all-reduce of Safra's counts (basic messages, here work, sent minus
  received) and colours (black after receiving work): a rank adds its
  part at its first wake once passive and turns white; when every part is
  in, the all-reduce completes after ceil(log2 R) steps, each a message's
  latency and handling plus a whole idle sleep (160 us: conservative, a
  step waits for its partner's next wake), and every rank takes the
  result at its next wake: a zero count and no colour end the run, else
  each adds its next part once passive.  --termination ring (session 6):
  Safra's token ring.  Rank 0, idle, sends the token; every rank passes
  it on at its first wake while idle, adding its count and colour; the
  token back white with a zero sum ends the run, and rank 0 sends DONE to
  every rank, one send after another; each rank takes it at its next
  wake.

--poll fixed models the engine before session 5 (b3ef074): a main thread
that answers within --poll-us (uniformly), whatever the rank does.

dwalk (--mode dwalk) is modelled as libcircle works: one thread per rank,
one directory per item (never sliced), every directory met goes into the
queue, requests are answered only between two items (libcircle checks for
requests between calls of the processing callback), an idle rank spins
(answers at once), the queue is split in half for a thief, termination by
a token ring (modelled as the same ring).

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

# The engine's constants (crates/dents-mpi/src/engine.rs, slices.rs,
# crates/dents/src/slice.rs).
RESERVE = 64  # engine.rs RESERVE
RESERVE_PER_RANK = 4  # engine.rs RESERVE_PER_RANK
HUNGRY_RESERVE = 256  # engine.rs HUNGRY_RESERVE
HUNGRY_PER_RANK = 16  # engine.rs HUNGRY_RESERVE_PER_RANK
BATCH = 16  # engine.rs BATCH
BATCH_PER_THREAD = 2  # engine.rs BATCH_PER_THREAD (session 6: none)
HUGE_DIR = 1 << 20  # slices.rs HUGE_DIR
SLICES_PER_RANK = 4  # slices.rs slice_items: ranks * 4
MAX_SLICES = 64  # slice.rs MAX_SLICES
# engine.rs MainLoop::rest: after a turn without progress the main thread
# sleeps 10 << n us, n one more each time, capped at BUSY_ROUNDS with other
# ranks (160 us; session 6: only while its rank walked) and IDLE_ROUNDS
# otherwise (1.28 ms); n back to 0 after progress.
POLL_BASE_NS = 10_000
BUSY_ROUNDS = 4
IDLE_ROUNDS = 7
# engine.rs ASK_PAUSE: after "no work", 100 us (the --retry-us and
# --retry-max-us defaults; session 6 doubled it up to 10 ms).
# engine.rs send_politely: tests an immediate send, napping 1 us doubling
# to 500 us in between.
NAP_MAX_NS = 500_000


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
        self.entries, self.subdirs, self.size = entries, subdirs, size
        self.read, self.stat = read, stat
        self.copies = copies

    def total_entries(self):
        # Every entry of every directory, and each copy's root itself.
        return (sum(self.entries) + 1) * self.copies


class Costs:
    """What one item costs a thread, in ns."""

    def __init__(self, a, tree, ranks):
        t = self.t = tree
        self.stat = a.stat
        self.scale = a.scale
        self.dir_ns = a.fs_dir_us * 1000
        self.entry_ns = a.fs_entry_us * 1000 if a.stat else a.fs_readdir_entry_us * 1000
        self.slice_ns = a.slice_us * 1000
        find = a.job == "find" and a.mode == "dents"
        sliced = a.mode == "dents" and not a.no_slices and ranks > 1
        # find without a stat in its expression, with other ranks: every
        # directory met is stat'ed (find.rs Spill::spilled asks its
        # metadata() for -xdev and the hugeness check); --no-dir-stat
        # leaves that to the walker's own reads.
        dir_stat = find and ranks > 1 and not a.stat and a.dir_stat
        # The rank meeting a huge directory opens and fstats it
        # (slices.rs sliceable); find also visits it alone, a walk of
        # its own (find.rs Spill::visit_alone).
        split_ns = self.slice_ns + (a.walk_start_us * 1000 if find else 0)
        self.extra = [0.0] * t.n
        for i in range(t.n):
            x = 0.0
            if dir_stat and t.entries[i]:
                per_entry = t.stat[i] / t.entries[i]
                x += t.subdirs[i] * (per_entry * self.scale + a.fs_entry_us * 1000)
            if sliced:
                x += split_ns * sum(1 for k in t.kids[i] if t.size[k] >= a.huge_bytes)
            self.extra[i] = x

    def of(self, i, k_slices):
        t = self.t
        c = t.read[i] + (t.stat[i] if self.stat else 0)
        c = c * self.scale + self.dir_ns + t.entries[i] * self.entry_ns + self.extra[i]
        if k_slices > 1:
            c = c / k_slices + self.slice_ns + self.dir_ns
        return c


class Rank:
    __slots__ = (
        "queue", "pool", "slices", "walking", "free", "hungry", "hungry_at", "asking",
        "parked", "busy_ns", "count", "black", "token", "deferred", "fails",
        "inbox", "w", "rounds", "wake_at", "next_ask", "outbox", "sending", "round",
        "in_wave", "wave_learn", "finished",
    )

    def __init__(self, threads):
        self.queue = collections.deque()
        self.pool = []
        # find: the batch's slices still to walk, one walk each.
        self.slices = []
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
        # The main thread: messages arrived and not yet received, its
        # next wake (decided at the last one) and its back-off count, the
        # time of the wake event scheduled (None: none needed), when it
        # may ask for work again, whether rank 0 sent the token out.
        self.inbox = []
        self.w = 0.0
        self.rounds = 0
        self.wake_at = None
        self.next_ask = 0.0
        self.round = False
        # The sender thread: messages waiting, and whether it is blocked
        # on a send larger than the eager size.
        self.outbox = collections.deque()
        self.sending = False
        # --termination wave: whether this rank's contribution to the
        # current wave is in, and when the wave's result reaches it.
        self.in_wave = False
        self.wave_learn = None
        self.finished = False


# Event kinds.
DONE_ITEM, WALK_START, ARRIVE, WAKE, SENT, WAKE_LEARN = range(6)
# Message tags.
REQUEST, WORK, NO_WORK, TOKEN, DONE = range(5)


class Sim:
    def __init__(self, a, tree, ranks, seed):
        self.a, self.t, self.R = a, tree, ranks
        self.dwalk = a.mode == "dwalk"
        self.find = a.job == "find" and not self.dwalk
        self.T = 1 if self.dwalk else a.threads
        self.cost = Costs(a, tree, ranks)
        # engine.rs: a batch is at most BATCH items, and with other ranks
        # at most --batch-per-thread per walker thread.
        self.batch = BATCH if ranks < 2 else max(1, min(BATCH, a.batch_per_thread * self.T))
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
        self.handle_ns = a.handle_us * 1000
        self.ns_per_byte = 1 / a.bandwidth_gbs  # GB/s = bytes per ns
        self.fixed_poll = a.poll == "fixed"
        self.poll_ns = a.poll_us * 1000
        self.walk_start = 0.0 if self.dwalk else a.walk_start_us * 1000
        self.item_check = a.item_check_us * 1000 if self.find and ranks > 1 else 0.0
        # libcircle asks again at once; dents-mpi pauses.
        self.retry = a.retry_us > 0 and not self.dwalk
        # A request's round trip without pauses, to an idle victim (for
        # the requests a parked thief would have sent): the victim's
        # longest sleep, half of it on average.
        idle_sleep = self.poll_ns if self.fixed_poll else POLL_BASE_NS << IDLE_ROUNDS
        poll = 0.0 if self.dwalk else idle_sleep
        self.rtt = 2 * (self.lat + self.handle_ns) + poll / 2
        self.stats = collections.Counter()
        self.waves = a.termination == "wave" and not self.dwalk
        self.wave_n, self.wave_sum, self.wave_black = 0, 0, False
        if self.fixed_poll:
            # Each rank's polling at a phase of its own.
            for rk in self.ranks:
                rk.w = self.rng.random() * self.poll_ns

    # --- the queue of events
    def at(self, time, kind, rank, data=None):
        self.seq += 1
        heapq.heappush(self.heap, (time, self.seq, kind, rank, data))

    # --- the sender thread (engine.rs Mailer, send_politely)
    def send(self, now, src, dst, tag, data=None, nbytes=32):
        self.stats["messages"] += 1
        rk = self.ranks[src]
        rk.outbox.append((dst, tag, data, nbytes))
        if not rk.sending:
            self.send_next(src, now)

    def send_next(self, src, now):
        """The sender thread sends what is queued, one after another,
        until a send larger than the eager size blocks it."""
        rk = self.ranks[src]
        t = now
        while rk.outbox:
            dst, tag, data, nbytes = rk.outbox.popleft()
            t += self.a.send_us * 1000
            arrive = t + self.lat + nbytes * self.ns_per_byte + self.handle_ns
            if nbytes > self.a.eager_bytes and not self.dwalk:
                # Rendezvous: complete once the receiver takes it (SENT).
                rk.sending = True
                self.at(arrive, ARRIVE, dst, (tag, src, data, t))
                return
            self.at(arrive, ARRIVE, dst, (tag, src, data, None))
        rk.sending = False

    def sent(self, src, started, received):
        """The sender's test that sees its rendezvous send complete: naps
        of 1 us doubling to 500 us from the send's start."""
        t, nap = started, 1000.0
        while t < received:
            t += nap
            nap = min(nap * 2, NAP_MAX_NS)
        self.at(t, SENT, src)

    # --- the main thread's wakes (engine.rs main_loop)
    def cap(self, rk):
        busy = not self.passive(rk)
        if busy and self.R > 1:
            return BUSY_ROUNDS
        if self.waves and rk.in_wave and self.R > 1:
            return self.a.wave_idle_rounds
        return IDLE_ROUNDS

    def advance(self, r, now):
        """Moves rank r's wake schedule to its first wake at or after
        `now`, through the wakes before it (nothing received in them)."""
        rk = self.ranks[r]
        if self.dwalk:
            rk.w = max(rk.w, now)
            return
        if self.fixed_poll:
            if rk.w < now:
                p = self.poll_ns
                rk.w += -(-(now - rk.w) // p) * p
            return
        cap = self.cap(rk)
        while rk.w < now:
            n = min(rk.rounds + 1, cap)
            rk.rounds = n
            p = POLL_BASE_NS << n
            if n == cap:
                rk.w += -(-(now - rk.w) // p) * p
                break
            rk.w += p

    def request_wake(self, r, t):
        """Rank r's main thread has something to do at its first wake at
        or after t: an event there."""
        self.advance(r, t)
        rk = self.ranks[r]
        if rk.wake_at is None or rk.wake_at > rk.w:
            rk.wake_at = rk.w
            self.at(rk.w, WAKE, r)

    def wake(self, r, now):
        """One wake of rank r's main thread: it receives what arrived,
        then, idle, asks for work and passes the token on, and goes on
        at once while that got somewhere, else sleeps."""
        rk = self.ranks[r]
        if rk.wake_at != now:
            return  # superseded by an earlier wake
        rk.wake_at = None
        if rk.finished:
            return
        progress = False
        if rk.inbox:
            msgs, rk.inbox = rk.inbox, []
            for m in msgs:
                self.handle(r, now, m)
                if self.done_at is not None and r != 0 and m[0] == DONE:
                    return
            progress = True
        if self.waves:
            if rk.wave_learn is not None and now >= rk.wave_learn:
                rk.wave_learn = None
                rk.in_wave = False
                progress = True
                if self.terminated is not None:
                    rk.finished = True
                    self.done_at = max(self.done_at or 0, now)
                    self.done_pending -= 1
                    return
            if self.passive(rk) and not rk.in_wave and rk.wave_learn is None:
                self.contribute(r, now)
                progress = True
        while True:
            turn = False
            if self.passive(rk):
                if self.wants_ask(rk) and now >= rk.next_ask:
                    self.ask(r, now)
                if rk.token is not None:
                    turn = True
                    self.pass_token(r, now)
                    if self.terminated is not None:
                        return
            if not turn:
                break
            progress = True
        if progress:
            rk.rounds = 0
        rk.w = now
        if not self.dwalk:
            if self.fixed_poll:
                rk.w = now + self.poll_ns
            else:
                rk.rounds = min(rk.rounds + 1, self.cap(rk))
                rk.w = now + (POLL_BASE_NS << rk.rounds)
        if self.passive(rk) and self.wants_ask(rk):
            self.request_wake(r, max(rk.next_ask, rk.w))

    def wants_ask(self, rk):
        return self.R > 1 and not rk.asking and rk.parked is None

    # --- termination by waves (--termination wave)
    def contribute(self, r, now):
        """Rank r, passive, adds its count and colour to the current wave
        (a non-blocking all-reduce) and turns white."""
        rk = self.ranks[r]
        rk.in_wave = True
        self.wave_n += 1
        self.wave_sum += rk.count
        self.wave_black = self.wave_black or rk.black
        rk.black = False
        if self.wave_n < self.R:
            return
        # The last contribution: the all-reduce completes after its
        # rounds (recursive doubling: log2 R exchanges, each waiting for
        # the partners' next wake, taken as a whole idle sleep).
        self.stats["waves"] += 1
        rounds = (self.R - 1).bit_length()
        sleep = POLL_BASE_NS << self.a.wave_idle_rounds
        done = now + rounds * (self.lat + self.handle_ns + sleep)
        if not self.wave_black and self.wave_sum == 0:
            self.terminated = done
            self.done_pending = self.R
        self.wave_n, self.wave_sum, self.wave_black = 0, 0, False
        for q in range(self.R):
            self.ranks[q].wave_learn = done
            self.at(done, WAKE_LEARN, q)

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
        self.advance(r, now)
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
            rk.next_ask = now + self.rng.random() * pause
            if self.passive(rk) and self.wants_ask(rk):
                self.request_wake(p, rk.next_ask)
        self.parked.clear()

    def passive(self, rk):
        return not rk.queue and not rk.walking

    def ask(self, r, now):
        rk = self.ranks[r]
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
        if hungry:
            want = min(self.a.hungry_reserve, self.a.hungry_per_rank * self.R)
        else:
            want = min(self.a.reserve, self.a.reserve_per_rank * self.R)
        if len(rk.queue) >= want:
            rk.hungry = False
            rk.hungry_at = self.last_park
            return False
        return True

    def feed(self, r, now):
        """Keeps rank r's threads busy; when it falls idle, its main
        thread has to ask for work and pass the token on."""
        rk = self.ranks[r]
        self.advance(r, now)
        while True:
            if rk.walking:
                while rk.free > 0 and rk.pool:
                    item = rk.pool.pop()
                    rk.free -= 1
                    c = self.cost.of(item[0] % self.t.n, item[2])
                    rk.busy_ns += c
                    self.at(now + c, DONE_ITEM, r, item)
                if rk.free == self.T and not rk.pool:
                    if rk.slices:
                        # find: the next slice, a walk of its own
                        # (find.rs FindJob::run_slice).
                        rk.pool = [rk.slices.pop()]
                        rk.free = 0
                        self.at(now + self.walk_start, WALK_START, r)
                        return
                    rk.walking = False
                    continue
                return
            if rk.queue:
                if self.dwalk:
                    n = 1
                elif self.R > 1:
                    n = min(self.batch, (len(rk.queue) + 1) // 2)
                else:
                    n = min(self.batch, len(rk.queue))
                batch = [rk.queue.popleft() for _ in range(n)]
                self.queued -= n
                batch.reverse()
                start = self.walk_start
                if self.find:
                    rk.slices = [it for it in batch if it[2] > 1]
                    batch = [it for it in batch if it[2] == 1]
                    # Each whole item checked for hugeness first.
                    start += self.item_check * len(batch)
                rk.pool = batch
                rk.walking = True
                rk.free = 0
                if not batch and rk.slices:
                    rk.pool = [rk.slices.pop()]
                self.at(now + start, WALK_START, r)
                return
            # Passive.
            if self.waves and not rk.in_wave and rk.wave_learn is None:
                self.request_wake(r, now)
            if rk.token is not None or self.wants_ask(rk):
                self.request_wake(r, max(now, rk.next_ask if rk.token is None else now))
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
    def arrive(self, r, now, msg):
        tag, src, data, started = msg
        if started is not None:
            # A rendezvous send completes as the receiver takes it: at
            # its wake.
            self.advance(r, now)
            self.sent(src, started, self.ranks[r].w)
        self.ranks[r].inbox.append((tag, src, data))
        self.request_wake(r, now)

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
            rk.next_ask = now
            self.enqueue(r, now, data)
            self.feed(r, now)
        elif tag == NO_WORK:
            rk.asking = False
            if self.passive(rk) and self.queued == 0:
                rk.parked = now
                self.parked.add(r)
                self.last_park = now
            elif self.retry:
                rk.next_ask = now + self.pause(rk)
                rk.fails = min(rk.fails + 1, 30)
            else:
                rk.next_ask = now
        elif tag == TOKEN:
            rk.token = data
        elif tag == DONE:
            self.done_at = max(self.done_at or 0, now)
            self.done_pending -= 1

    def pass_token(self, r, now):
        rk = self.ranks[r]
        black, count = rk.token
        rk.token = None
        if r == 0:
            if rk.round and not black and not rk.black and count + rk.count == 0:
                self.terminate(now)
                return
            rk.black = False
            rk.round = True
            self.stats["token_rounds"] += 1
            if self.R == 1:
                rk.token = (False, 0)
            else:
                self.stats["token_hops"] += 1
                self.send(now, 0, 1, TOKEN, (False, 0))
        else:
            self.stats["token_hops"] += 1
            self.send(now, r, (r + 1) % self.R, TOKEN, (black or rk.black, count + rk.count))
            rk.black = False

    def terminate(self, now):
        self.terminated = now
        if self.R == 1:
            self.done_at = now
            return
        self.done_pending = self.R - 1
        for dst in range(1, self.R):
            self.send(now, 0, dst, DONE)

    def run(self):
        roots = [c * self.t.n for c in range(self.t.copies)]
        first = []
        for g in roots:
            first.extend(self.items_of(g))
        self.outstanding = len(first)
        self.terminated = None
        self.done_pending = 0
        if not self.waves:
            self.ranks[0].token = (False, 0)
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
            elif kind == ARRIVE:
                self.arrive(r, now, data)
            elif kind == WAKE:
                self.wake(r, now)
            elif kind == SENT:
                self.send_next(r, now)
            elif kind == WAKE_LEARN:
                self.request_wake(r, now)
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
            "token_hops": self.stats["token_hops"] + self.stats["waves"],
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
    p.add_argument("--job", choices=["find", "du"], default="du",
                   help="dents-mpi's job: how a batch's slices are walked and what find adds (see above)")
    p.add_argument("--poll", choices=["backoff", "fixed"], default="backoff",
                   help="the main thread sleeps 20 us to 1.28 ms as the engine since session 5 (backoff), "
                   "or answers within --poll-us (fixed, the engine of b3ef074)")
    p.add_argument("--poll-us", type=float, default=20.0, help="the main thread's polling period (--poll fixed)")
    p.add_argument("--item-check-us", type=float, default=3.0,
                   help="find, with other ranks: the open and fstat of each whole item (is it huge?)")
    p.add_argument("--dir-stat", action=argparse.BooleanOptionalAction, default=False,
                   help="find --no-stat with other ranks: a stat per directory met, as before session 6 "
                   "(the default, --no-dir-stat: none, the walker offering huge directories)")
    p.add_argument("--eager-bytes", type=int, default=4096,
                   help="messages up to this size complete at once; larger ones when received")
    p.add_argument("--handle-us", type=float, default=1.0, help="receiving and handling one message")
    p.add_argument("--send-us", type=float, default=1.0, help="the sender thread's time per send (the DONE broadcast: one after another)")
    p.add_argument("--retry-us", type=float, default=100.0,
                   help="after \"no work\", wait this long before asking again, doubling per failure "
                   "(0: at once)")
    p.add_argument("--retry-max-us", type=float, default=100.0,
                   help="the longest wait of --retry-us (session 6: 10000)")
    p.add_argument("--huge-bytes", type=int, default=HUGE_DIR,
                   help="directories this large (st_size) go out as slices")
    p.add_argument("--calibrate", metavar="RANKS:RATE",
                   help="first set --fs-entry-us so that RANKS ranks walk RATE entries/s (a published rate)")
    p.add_argument("--termination", choices=["ring", "wave"], default="wave",
                   help="Safra's token ring, or waves of a non-blocking all-reduce of the same counts "
                   "and colours, each rank adding its part when passive")
    p.add_argument("--wave-idle-rounds", type=int, default=BUSY_ROUNDS,
                   help="--termination wave: an idle rank whose part of a wave is in sleeps up to 10 << N us")
    p.add_argument("--reserve", type=int, default=RESERVE, help="items kept queued for thieves (engine.rs RESERVE)")
    p.add_argument("--hungry-reserve", type=int, default=HUNGRY_RESERVE,
                   help="the same once a thief went away empty-handed (engine.rs HUNGRY_RESERVE)")
    p.add_argument("--reserve-per-rank", type=int, default=RESERVE_PER_RANK,
                   help="the reserve is at most this many items per rank")
    p.add_argument("--hungry-per-rank", type=int, default=HUNGRY_PER_RANK,
                   help="the hungry reserve is at most this many items per rank")
    p.add_argument("--batch-per-thread", type=int, default=BATCH_PER_THREAD,
                   help="with other ranks, a batch holds at most this many items per walker thread")
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
