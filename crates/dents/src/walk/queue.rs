//! The work queue and the workers: directories queued and taken under one
//! lock, idle workers woken only for work there is, workers started as
//! the queue grows.
//!
//! One queue serves the three orders.  It holds two lists: the *shallow*
//! directories (those whose entries are at most [`Queue::levels`] deep),
//! taken first-in first-out, and the *deep* ones, taken last-in first-out
//! (depth first, a directory's first subdirectory first).  A deep
//! directory is taken only when no shallow one is waiting or being read,
//! so every shallow entry is visited before any deeper one, at any number
//! of workers.  Breadth first is the queue with every directory shallow,
//! depth first with none, [`Order::Hybrid`] with the top
//! [`HYBRID_LEVELS`] levels shallow.

use std::collections::VecDeque;
use std::os::fd::OwnedFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::Scope;

use crate::spill::SpillFile;

use super::deep::{read_segment, DeepSpill, Lost, LostDeep};
use super::node::{decode_group, Node};
use super::{Order, Shared, Visitor};

/// Entries down to this depth come in level order, before any deeper
/// one, in [`Order::Hybrid`] (see the guarantee there).
///
/// Reading a directory in breadth-first order costs more than in depth
/// first (its descriptor, its kernel readdir state and its node are cold
/// by the time its turn or its children's comes: docs/walk-order.md), but
/// only the few directories of the top levels pay it (34 of 32,585 above
/// depth 3 on the benchmarks' shape of /usr): a shallow match comes first
/// at depth-first cost.  2 and 4 measured the same as 3.
pub(super) const HYBRID_LEVELS: usize = 3;

/// The queue of directories and the workers' activity.
pub(super) struct Queue {
    /// Directories whose entries are at most `levels` deep: first in,
    /// first out.
    pub(super) shallow: VecDeque<Arc<Node>>,
    /// The others: last in, first out.
    pub(super) deep: VecDeque<Arc<Node>>,
    /// Directories of depth below this are shallow: `usize::MAX` breadth
    /// first, 0 depth first.
    pub(super) levels: usize,
    /// Shallow directories being read (deep ones wait until none is).
    pub(super) shallow_active: usize,
    /// Workers reading a directory (the walk ends when none is and the
    /// queue is empty).
    pub(super) active: usize,
    /// Workers waiting for a directory.
    pub(super) idle: usize,
    /// Directories taken so far: the next one's ticket (sorted walks).
    pub(super) taken: u64,
    /// Workers started so far (the calling thread included).
    pub(super) started: usize,
    /// Workers the walk may run.
    pub(super) workers: usize,
    /// Workers started as soon as there is work for them; the rest of
    /// `workers` wait until a read has waited on the disk.
    pub(super) eager: usize,
    /// A worker panicked: nothing more is taken, whatever is still being
    /// read (the panicking worker's directory is never counted done).
    pub(super) closed: bool,
    /// Sorted walks: the queue past its memory limit, in a temporary
    /// file (`None`: never spilled).
    pub(super) spilled: Option<Box<Spilled>>,
    /// The most directories queued in memory at once.
    pub(super) peak: usize,
    /// Parts of the spilled queue that could not be read back, each with
    /// the ticket its directories would have started at: reported in
    /// turn, before that ticket's visit ([`Shared::report_lost`]).
    pub(super) lost: VecDeque<(u64, Lost)>,
    /// Unsorted walks: the deep list past its memory limit, in a
    /// temporary file (`None`: never spilled; `deep.rs`).
    pub(super) deep_spilled: Option<Box<DeepSpill>>,
    /// Unsorted walks: parts of the spilled deep list that could not be
    /// read back, until reported ([`Shared::settle_lost`]).
    pub(super) lost_deep: Vec<LostDeep>,
}

/// Directories a sorted walk queues in memory at most (twice that just
/// after a segment is read back): past it the queue goes on, in order,
/// in a temporary file ([`Spilled`]).
///
/// A sorted walk goes level by level (breadth first) and so queues every
/// directory of the level it is on and of the next: memory grew with the
/// tree's width, about 128 bytes a queued directory and its parent's
/// node, 56 MB for `find -s -false` on the real-tree shape at 10M
/// entries (docs/benchmarks.md, session 17).  Spilled, a directory is a
/// record of its name and identity (about 30 bytes, in the file), and
/// its parent's path once per group of siblings.
pub(super) const SPILL_LIMIT: usize = 4096;

/// Bytes of records gathered in memory before they are written as one
/// segment of the file.
const SEGMENT_BYTES: usize = 64 << 10;

/// A record's first byte: a group of siblings written out
/// ([`super::node::encode_group`]).
pub(super) const GROUP: u8 = 0;
/// A record's first byte: the next of [`Spilled::kept`].
const KEPT: u8 = 1;

/// A sorted walk's queue past [`SPILL_LIMIT`]: records of groups of
/// sibling directories, in queue order, in segments of a temporary file
/// ([`crate::spill`]), read back one segment at a time when the
/// directories in memory are all taken.  Once a directory is spilled,
/// every directory queued after it is too until all are read back, so
/// that the order is the queue's (first in, first out).
pub(super) struct Spilled {
    /// The temporary file, made on first use.
    file: SpillFile,
    /// The segments written, in order (in memory where the file could
    /// not be written: nothing is lost, only memory).
    segments: VecDeque<Segment>,
    /// Records not yet written, after the segments.
    tail: Vec<u8>,
    /// Directories in `tail`.
    tail_dirs: usize,
    /// [`KEPT`] records in `tail`.
    tail_kept: usize,
    /// [`GROUP`] records in `tail`.
    tail_groups: usize,
    /// The descriptor of each [`GROUP`] record's parent, in order, where
    /// it was kept: its anchor gets it back when the record is read
    /// back, and its children open relative to it (counted in the walk's
    /// descriptor budget as a parent's kept descriptor is).
    fds: VecDeque<Option<Arc<OwnedFd>>>,
    /// Groups that cannot be written as records (see
    /// [`Node::spillable`]), in order: a [`KEPT`] record holds the place
    /// of each.
    kept: VecDeque<Vec<Arc<Node>>>,
    /// Directories spilled and not yet read back.
    dirs: usize,
    /// Directories kept in memory at most before spilling.
    pub(super) limit: usize,
    /// Directories spilled, in all.
    pub(super) total: u64,
    /// A segment's bytes, read back (kept for its capacity).
    buf: Vec<u8>,
    /// Segments read back from the file so far.
    reads: u64,
    /// A test knob ([`super::WalkOptions::test_queue_read_fail`]): the
    /// read back from the file numbered this (from 0) fails.
    fail_read: Option<u64>,
}

/// Records of spilled directories, each with its number of directories
/// and its parent's kept descriptor.
pub(super) type Records = Vec<(Vec<u8>, usize, Option<Arc<OwnedFd>>)>;

/// Part of the spilled queue.
enum Segment {
    /// Records the file could not take.
    Mem(Vec<u8>),
    /// Records in the file: offset and length, directories in all, and
    /// [`KEPT`] records among them (so that a segment that cannot be
    /// read back still gives back its kept groups, which are in memory).
    File {
        at: u64,
        len: usize,
        dirs: usize,
        kept: usize,
        groups: usize,
    },
}

impl Spilled {
    /// A spilled queue keeping up to `limit` directories in memory.
    /// `fail_read`: see [`Spilled::fail_read`].
    pub(super) fn new(limit: usize, fail_read: Option<u64>) -> Spilled {
        Spilled {
            file: SpillFile::default(),
            segments: VecDeque::new(),
            tail: Vec::new(),
            tail_dirs: 0,
            tail_kept: 0,
            tail_groups: 0,
            fds: VecDeque::new(),
            kept: VecDeque::new(),
            dirs: 0,
            limit: limit.max(1),
            total: 0,
            buf: Vec::new(),
            reads: 0,
            fail_read,
        }
    }

    /// Appends one record (its first byte [`GROUP`]) of `n` directories.
    fn push_record(&mut self, record: &[u8], n: usize, fd: Option<Arc<OwnedFd>>) {
        self.tail.extend_from_slice(record);
        self.fds.push_back(fd);
        self.tail_groups += 1;
        self.add(n);
    }

    /// Appends a group that cannot be written, kept in memory.
    fn push_kept(&mut self, dirs: Vec<Arc<Node>>) {
        let n = dirs.len();
        self.kept.push_back(dirs);
        self.tail.push(KEPT);
        self.tail_kept += 1;
        self.add(n);
    }

    fn add(&mut self, n: usize) {
        self.dirs += n;
        self.total += n as u64;
        self.tail_dirs += n;
        // A segment holds at most about `limit` directories, so that one
        // read back keeps memory within twice the limit.
        if self.tail.len() >= SEGMENT_BYTES || self.tail_dirs >= self.limit {
            let bytes = std::mem::take(&mut self.tail);
            let (dirs, kept, groups) = (self.tail_dirs, self.tail_kept, self.tail_groups);
            self.tail_dirs = 0;
            self.tail_kept = 0;
            self.tail_groups = 0;
            match self.file.write(&bytes) {
                Some(at) => self.segments.push_back(Segment::File {
                    at,
                    len: bytes.len(),
                    dirs,
                    kept,
                    groups,
                }),
                None => self.segments.push_back(Segment::Mem(bytes)),
            }
        }
    }

    /// Reads the next segment back onto `into`; where it cannot be read,
    /// only its kept groups go there, and what is lost is returned.
    ///
    /// Nothing else of a segment that cannot be read back is left to walk
    /// it by: its records are its directories' only trace (their parents
    /// were visited and let go).  Keeping each segment in memory as well
    /// until it is read would keep the memory the file is there to save;
    /// listing the parents again would need their paths (the records
    /// again) and would walk what the directories hold now, not what the
    /// walk saw.  So the loss is counted and reported, and the walk goes
    /// on with the rest.
    fn refill(&mut self, into: &mut VecDeque<Arc<Node>>) -> Option<Lost> {
        let (bytes, from_file) = match self.segments.pop_front() {
            Some(Segment::Mem(b)) => (b, false),
            Some(Segment::File {
                at,
                len,
                dirs,
                kept,
                groups,
            }) => {
                let mut b = std::mem::take(&mut self.buf);
                let read = read_segment(
                    &self.file,
                    (at, len),
                    &mut b,
                    &mut self.reads,
                    self.fail_read,
                );
                self.file.discard(at, len as u64);
                if let Err(error) = read {
                    self.buf = b;
                    // Its kept groups are in memory, in order.
                    let mut kept_dirs = 0;
                    for g in self.kept.drain(..kept) {
                        kept_dirs += g.len();
                        into.extend(g);
                    }
                    self.dirs -= dirs;
                    if self.dirs == 0 {
                        self.file.clear();
                    }
                    // Their parents' descriptors, closed and given back
                    // to the budget by the caller.
                    let fds = self.fds.drain(..groups).flatten().count();
                    return Some(Lost {
                        error,
                        dirs: dirs - kept_dirs,
                        fds,
                    });
                }
                (b, true)
            }
            None => {
                self.tail_dirs = 0;
                self.tail_kept = 0;
                self.tail_groups = 0;
                (std::mem::take(&mut self.tail), false)
            }
        };
        let mut at = 0;
        while at < bytes.len() {
            let kind = bytes[at];
            at += 1;
            let n = if kind == KEPT {
                let g = self.kept.pop_front().expect("a kept group for each mark");
                let n = g.len();
                into.extend(g);
                n
            } else {
                let fd = self
                    .fds
                    .pop_front()
                    .expect("a descriptor slot for each group");
                decode_group(&bytes, &mut at, fd, into)
            };
            self.dirs -= n;
        }
        if from_file {
            self.buf = bytes;
        }
        if self.dirs == 0 {
            // All read back: the next spill starts the file again.
            self.file.clear();
        }
        None
    }

    /// The directory the temporary file is in.
    pub(super) fn dir(&self) -> std::path::PathBuf {
        self.file.dir()
    }
}

/// What an unsorted walk's worker lends a directory it reads, so that
/// the read can hand over its subdirectories and help read them
/// (`Shared::hand_off`, in `read.rs`).
#[derive(Clone, Copy)]
pub(super) struct Lend<'a> {
    /// Starts one more worker (the walk's thread scope is the worker's).
    pub(super) spawn: &'a (dyn Fn() + Sync),
    /// Reads stopped to help, around this one.
    pub(super) nested: usize,
}

/// A directory a worker takes from the queue.
pub(super) struct Taken {
    pub(super) node: Arc<Node>,
    /// Its rank in the queue's order (sorted walks).
    pub(super) ticket: u64,
    /// Whether the worker taking it is to start another worker: there is
    /// more waiting than the idle workers can take.
    pub(super) start_worker: bool,
}

impl Queue {
    /// An empty queue for a walk in `order` on up to `workers` workers,
    /// `eager` of them started before any read waits on the disk.
    pub(super) fn new(order: Order, workers: usize, eager: usize) -> Queue {
        Queue {
            shallow: VecDeque::new(),
            deep: VecDeque::new(),
            levels: match order {
                Order::BreadthFirst => usize::MAX,
                Order::Hybrid => HYBRID_LEVELS,
                Order::DepthFirst => 0,
            },
            shallow_active: 0,
            active: 0,
            idle: 0,
            taken: 0,
            started: 1,
            workers,
            eager: eager.clamp(1, workers.max(1)),
            closed: false,
            spilled: None,
            peak: 0,
            lost: VecDeque::new(),
            deep_spilled: None,
            lost_deep: Vec::new(),
        }
    }

    /// Sorted walks: whether `n` directories queued now go to the
    /// spilled part (it holds some already, or memory would hold more
    /// than the limit).
    pub(super) fn spills(&self, n: usize) -> bool {
        self.spilled
            .as_ref()
            .is_some_and(|s| s.dirs > 0 || self.shallow.len() + n > s.limit)
    }

    /// Sorted walks: queues `records` (each with its number of
    /// directories) or, where they could not be made, `kept`, in the
    /// spilled part.
    pub(super) fn push_spilled(&mut self, records: Records, kept: Vec<Arc<Node>>) {
        let s = self.spilled.as_mut().expect("a spilled queue");
        for (r, n, fd) in records {
            s.push_record(&r, n, fd);
        }
        if !kept.is_empty() {
            s.push_kept(kept);
        }
    }

    /// Directories spilled and not yet read back.
    fn spilled_dirs(&self) -> usize {
        self.spilled.as_ref().map_or(0, |s| s.dirs)
    }

    /// Deep directories spilled and not yet read back.
    fn deep_spilled_dirs(&self) -> usize {
        self.deep_spilled.as_ref().map_or(0, |s| s.dirs)
    }

    fn is_shallow(&self, node: &Node) -> bool {
        node.depth < self.levels
    }

    /// Queues the subdirectories of one directory (or the roots).
    pub(super) fn push(&mut self, dirs: Vec<Arc<Node>>) {
        // The children of one directory are all at the same depth.
        match dirs.first() {
            Some(d) if self.is_shallow(d) => self.shallow.extend(dirs),
            // Reversed, so that the first child is read first.
            Some(_) => {
                self.deep.extend(dirs.into_iter().rev());
                if let Some(s) = &mut self.deep_spilled {
                    s.spill_past_limit(&mut self.deep);
                }
            }
            None => {}
        }
        self.peak = self.peak.max(self.shallow.len() + self.deep.len());
    }

    /// Directories queued in memory (a sorted walk's spilled ones aside).
    pub(super) fn in_memory(&self) -> usize {
        self.shallow.len() + self.deep.len()
    }

    /// For the directories waiting now: how many idle workers to wake,
    /// and whether to start one more (counted started here), as there is
    /// more waiting than the idle workers can take.  `disk_waits`: a read
    /// has waited on the disk, so all `workers` may start, not only the
    /// `eager` ones.
    pub(super) fn workers_wanted(&mut self, disk_waits: bool) -> (usize, bool) {
        let available = self.available();
        let limit = if disk_waits { self.workers } else { self.eager };
        let start = available > self.idle && self.started < limit;
        if start {
            self.started += 1;
        }
        (available.min(self.idle), start)
    }

    /// Counts the directory `node` done with.
    pub(super) fn done(&mut self, node: &Node) {
        self.active -= 1;
        if self.is_shallow(node) {
            self.shallow_active -= 1;
        }
    }

    /// How many directories can be taken now.
    pub(super) fn available(&self) -> usize {
        // Spilled directories are shallow: only sorted walks, level by
        // level, spill.
        if self.shallow_active == 0 {
            self.shallow.len() + self.spilled_dirs() + self.deep.len() + self.deep_spilled_dirs()
        } else {
            self.shallow.len() + self.spilled_dirs()
        }
    }

    /// Takes the next directory: a shallow one, else, once no shallow one
    /// is being read, the last deep one queued.
    fn pop(&mut self) -> Option<Arc<Node>> {
        while self.shallow.is_empty() {
            let Some(s) = self.spilled.as_mut().filter(|s| s.dirs > 0) else {
                break;
            };
            if let Some(lost) = s.refill(&mut self.shallow) {
                // Their tickets would have started at the next one.
                self.lost.push_back((self.taken, lost));
            }
            self.peak = self.peak.max(self.shallow.len());
        }
        if let Some(n) = self.shallow.pop_front() {
            self.shallow_active += 1;
            return Some(n);
        }
        if self.shallow_active == 0 {
            // The spilled part is the bottom of the stack: read back once
            // those above it are all taken.
            while self.deep.is_empty() {
                let Some(s) = self.deep_spilled.as_mut().filter(|s| s.dirs > 0) else {
                    break;
                };
                if let Some(lost) = s.refill(&mut self.deep) {
                    self.lost_deep.push(lost);
                }
                self.peak = self.peak.max(self.shallow.len() + self.deep.len());
            }
            return self.deep.pop_back();
        }
        None
    }

    pub(super) fn clear(&mut self) {
        self.shallow.clear();
        self.deep.clear();
        if let Some(s) = &mut self.spilled {
            if s.dirs > 0 {
                let (limit, total, fail) = (s.limit, s.total, s.fail_read);
                **s = Spilled::new(limit, fail);
                s.total = total;
            }
        }
        if let Some(s) = &mut self.deep_spilled {
            s.clear();
        }
    }
}

impl<V: Visitor> Shared<'_, V> {
    /// A worker: reads directories until none is left, starting more
    /// workers (in `scope`) while there is more to read than workers.
    pub(super) fn work<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>) {
        if self.opts.sort {
            return self.work_sorted(scope);
        }
        let mut state = self.visitor.state();
        let mut buf = vec![0u8; self.opts.read.buffer_size];
        let spawn = || self.start_worker(scope);
        let lend = Lend {
            spawn: &spawn,
            nested: 0,
        };
        let mut next = self.next(Vec::new(), None);
        while let Some(t) = next {
            if self.lost_any.swap(false, Ordering::AcqRel) {
                self.settle_lost(&mut state);
            }
            if t.start_worker {
                self.start_worker(scope);
            }
            let children = if self.quit.load(Ordering::Relaxed) {
                Vec::new()
            } else {
                self.process(&mut state, &t.node, &mut buf, lend)
            };
            if self.holds_level_order(&t.node) {
                // The guarantee is about what the visitor writes too: a
                // top level's lines go out before the barrier can let
                // another worker visit deeper entries.
                self.visitor.turn_done(&mut state);
            }
            next =
                self.next_or_handoff(children, Some(&t.node), || self.visitor.handoff(&mut state));
        }
        self.visitor.finish(state);
    }

    /// Whether finishing `node` must let the visitor write what it holds
    /// back: `node` is a top level of [`Order::Hybrid`] on several
    /// workers, whose visits must all be out before any deeper one.  (One
    /// worker's buffer keeps its visits' order by itself; breadth first on
    /// several workers promises no order.)
    pub(super) fn holds_level_order(&self, node: &Node) -> bool {
        self.opts.order == Order::Hybrid && node.depth < HYBRID_LEVELS && self.opts.threads > 1
    }

    /// Starts one more worker.  Workers start as the walk finds work for
    /// them rather than all at once: a walk with nothing to read (`find
    /// -maxdepth 0`, a root that is a file) starts none, a small one few.
    /// Where no thread can be started (a process limit), the walk goes on
    /// with those it has.
    pub(super) fn start_worker<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>) {
        let started = std::thread::Builder::new().spawn_scoped(scope, move || self.worker(scope));
        if started.is_err() {
            let mut q = self.queue.lock().expect("queue lock");
            q.workers = q.started;
            q.eager = q.eager.min(q.started);
        }
    }

    /// Queues the subdirectories a worker found and takes its next
    /// directory, under one lock (`finished`: the directory the worker is
    /// done with); `None` when the walk is over.  Wakes as many idle
    /// workers as there is work left for.
    pub(super) fn next(&self, children: Vec<Arc<Node>>, finished: Option<&Node>) -> Option<Taken> {
        self.next_or_handoff(children, finished, || {})
    }

    /// [`Shared::next`], calling `handoff` (out of the lock) once before
    /// the worker would wait for a directory: what the visitor holds back
    /// can go on while others work ([`Visitor::handoff`]).
    pub(super) fn next_or_handoff(
        &self,
        children: Vec<Arc<Node>>,
        finished: Option<&Node>,
        mut handoff: impl FnMut(),
    ) -> Option<Taken> {
        let mut q = self.queue.lock().expect("queue lock");
        q.push(children);
        if let Some(node) = finished {
            q.done(node);
        }
        let mut handed = false;
        loop {
            if q.closed {
                return None;
            }
            if self.quit.load(Ordering::Relaxed) {
                q.clear();
            }
            if let Some((node, ticket)) = self.take_one(&mut q) {
                let (wake, start_worker) = q.workers_wanted(self.disk_waits());
                drop(q);
                self.wake_idle(wake);
                return Some(Taken {
                    node,
                    ticket,
                    start_worker,
                });
            }
            if q.active == 0 {
                self.wake.notify_all();
                return None;
            }
            if !handed {
                // The queue may change meanwhile: look again after.
                handed = true;
                drop(q);
                handoff();
                q = self.queue.lock().expect("queue lock");
                continue;
            }
            q.idle += 1;
            q = self.wake.wait(q).expect("queue lock");
            q.idle -= 1;
        }
    }

    /// Sorted walks: takes up to `max` more directories for a worker that
    /// has just taken one with [`Shared::next`], when the queue holds at
    /// least that many for each worker (a short queue is left to the
    /// others, to be read in parallel).  Their tickets follow in the
    /// queue's order, as if taken one by one: breadth first, the n-th
    /// directory taken is the n-th queued whoever takes it.
    ///
    /// A worker of a sorted walk far ahead of the visits is held back
    /// before each directory it prepares ([`Shared::hold_back`]); taking
    /// one at a time, each one it took was the newest ticket and it was
    /// held (a futex wait, a wake and the lock taken again) once a
    /// directory: 128k futex calls for the real-tree shape's 38k
    /// directories on 8 workers.  Taken several at a time, it is held
    /// once for all of them.
    ///
    /// Like [`Shared::next`] it starts a worker (the first one taken says
    /// so) where the rule wants one more: a worker that finds the queue
    /// long takes its directories here and calls `next` only once the
    /// queue runs short, so a disk wait met after the first workers
    /// started would otherwise start no more until the walk's end (with
    /// one fewer eager worker, a cold `find -s` of the real-tree shape
    /// met its wait 4 ms in and started its third worker 2.3 s in, at its
    /// end: 2.3–2.4 s against 1.9–2.0 s with all started;
    /// docs/history/benchmarks.md, "The walk's disk wait").
    pub(super) fn take_more(&self, max: usize, into: &mut VecDeque<Taken>) {
        let mut q = self.queue.lock().expect("queue lock");
        // Depth first (LIFO, a sorted walk on one worker, the walker's
        // depth-first order) a directory's children come before its
        // siblings: taking a sibling now would give it their ticket.
        if q.closed || self.quit.load(Ordering::Relaxed) || q.levels != usize::MAX {
            return;
        }
        let n = max.min(q.available() / q.workers.max(1));
        let first = into.len();
        for _ in 0..n {
            let Some((node, ticket)) = self.take_one(&mut q) else {
                break;
            };
            into.push_back(Taken {
                node,
                ticket,
                start_worker: false,
            });
        }
        if into.len() > first {
            let (wake, start_worker) = q.workers_wanted(self.disk_waits());
            drop(q);
            self.wake_idle(wake);
            into[first].start_worker = start_worker;
        }
    }

    /// Takes the next directory from `q` with its ticket, counting it
    /// active; flags a part of the spilled queue found lost on the way
    /// for the visits to report ([`Shared::report_lost`]).
    pub(super) fn take_one(&self, q: &mut Queue) -> Option<(Arc<Node>, u64)> {
        let node = q.pop();
        if !q.lost.is_empty() || !q.lost_deep.is_empty() {
            self.lost_any.store(true, Ordering::Release);
        }
        let node = node?;
        q.active += 1;
        let ticket = q.taken;
        q.taken += 1;
        Some((node, ticket))
    }

    /// Wakes `n` idle workers for the directories waiting for them: one
    /// by name, several all at once (a notify per worker would cost a
    /// futex call each).
    pub(super) fn wake_idle(&self, n: usize) {
        if n == 1 {
            self.wake.notify_one();
        } else if n > 1 {
            self.wake.notify_all();
        }
    }
}
