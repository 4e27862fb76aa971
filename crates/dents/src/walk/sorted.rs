//! Sorted walks: each directory taken gets a ticket, is read, sorted and
//! classified ahead, and visited in ticket order by one worker at a time
//! (see [the module docs](super#sorted-walks)).

use std::collections::{BTreeMap, VecDeque};
use std::ffi::CStr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::Scope;

use crate::file_type::FileType;
use crate::scan::Kind;
use crate::sys;

use super::held::{release, Held};
use super::node::{build_path, encode_group, Node};
use super::open::PATH_STEP;
use super::queue::{Queue, Records, Taken, GROUP};
use super::read::{name_bytes, Batch, BatchEntry, DirVisit, HANDOFF_CHUNK};
use super::{
    known_type, stat_entry, ErrorKind, Follow, Listing, Operation, Shared, Start, Visitor,
};
use crate::metadata::Metadata;

/// Sorted walks: directories read and sorted, waiting for their turn to
/// be visited.
pub(super) struct Ready {
    /// The ticket whose turn it is.
    turn: u64,
    /// Prepared directories by ticket.
    items: BTreeMap<u64, (Arc<Node>, Prepared)>,
    /// The bytes they hold ([`Prepared::bytes`]).
    bytes: usize,
    /// Workers held back for being too far ahead of the turn.
    pub(super) held: Vec<Held>,
    /// The turn at which the first of the held workers may go on
    /// (`u64::MAX`: none is waiting for one).
    wake_at: u64,
}

impl Default for Ready {
    fn default() -> Ready {
        Ready {
            turn: 0,
            items: Default::default(),
            bytes: 0,
            held: Vec::new(),
            wake_at: u64::MAX,
        }
    }
}

/// A directory of a sorted walk, read, sorted and classified (or found
/// unreadable), with nothing of it shown to the visitor yet.
enum Prepared {
    /// It could not be opened, or closes a loop (`-L`).
    Failed(Vec<u8>, ErrorKind),
    /// On another filesystem (`same_fs`), or the walk is stopping.
    Skipped,
    /// Read: its path, descriptor (none: its listing given and not
    /// needing one, see [`Visitor::listing_stated`]), sorted entries and
    /// read errors.
    Read {
        path: Vec<u8>,
        fd: Option<OwnedFd>,
        entries: [Batch; 1],
        errors: Vec<(Operation, ErrorKind)>,
        /// The stats of its first entries, where the visitor wants them
        /// ahead ([`Visitor::stat_ahead`]).
        ahead: Vec<Stat>,
    },
}

impl Prepared {
    /// The memory it holds: what [`READY_BYTES`] bounds.
    fn bytes(&self) -> usize {
        match self {
            Prepared::Failed(path, _) => path.capacity(),
            Prepared::Skipped => 0,
            Prepared::Read {
                path,
                entries: [b],
                ahead,
                ..
            } => {
                path.capacity()
                    + b.names.capacity()
                    + b.entries.capacity() * std::mem::size_of::<BatchEntry>()
                    + ahead.capacity() * std::mem::size_of::<Stat>()
            }
        }
    }
}

/// An entry's stat made ahead of its visit: `None` where the visitor
/// did not want it, else the metadata or the errno.
type Stat = Option<Result<Metadata, i32>>;

/// Directories a worker of a sorted walk takes after the one it asked
/// for, at most, when the queue is long ([`Shared::take_more`]): held
/// back once for five directories rather than once for each.  The
/// prepared directories stay within [`Shared::hold_back`]'s limit.
const TAKE_MORE: usize = 4;

/// Tickets ahead of the turn a sorted walk may prepare, for each worker
/// (but at most a quarter of the descriptors it may keep: each prepared
/// directory holds one).  Each worker takes up to [`TAKE_MORE`] + 1 at a
/// time, so the window must hold a few such runs per worker or the
/// workers wait for the visits rather than read: with 4 a worker (32
/// tickets for 8 workers) a scan of the real-tree shape spent 9 s of its
/// workers' time held back and ran 1.45–1.72 s, with 16 a worker 1.08–1.20 s
/// (docs/history/benchmarks.md, the sorted walk's window, session 23).
/// With 16, the turn still waited for its directory 1,238 times a scan,
/// its worker held back (117 ms of 750); with 64, 536 times (8 ms), and
/// the scan took 661 ms against 688 (15 interleaved rounds).  Big
/// directories are bounded by bytes ([`READY_BYTES`]), not by this.
const AHEAD_PER_WORKER: usize = 64;

/// Descriptors of visited directories a sorted walk leaves for its
/// workers to close ([`Shared::close_later`]), at most; past it the
/// visiting worker closes them itself.
const CLOSE_LATER_MAX: usize = 256;

/// Bytes the prepared directories waiting for their turn may hold
/// together (listings and stats made ahead) before the workers wait for
/// the visits: past it no worker starts a directory but the turn's, so a
/// tree of big directories holds about this much beyond those being
/// prepared (one a worker), however many tickets the window allows.
const READY_BYTES: usize = 16 << 20;

/// Entries of a directory stat'ed while it is prepared, at most: what a
/// prepared directory holds of metadata (about 150 bytes an entry) while
/// it waits for its turn is bounded by this, whatever its size.
const STAT_AHEAD: usize = 1024;

/// Entries stat'ed together on a helper thread when the rest of a big
/// directory is stat'ed during its visits.
const STAT_CHUNK: usize = 2048;

/// Chunks stat'ed and not yet visited, at most: the memory a big
/// directory's stats take during its visits.
const STAT_WINDOW: usize = 8;

/// Entries left after [`STAT_AHEAD`] from which the rest of a directory
/// is stat'ed on helper threads during its visits (below, each visit
/// stats its own entry: starting threads would cost more).
const STREAM_MIN: usize = 2 * STAT_CHUNK;

/// The chunks of a big directory being stat'ed on helper threads
/// ([`Shared::visit_sorted`]).
#[derive(Default)]
struct Window {
    /// The next chunk to stat.
    next: usize,
    /// Chunks visited (all before this one).
    visited: usize,
    /// Chunks stat'ed and not yet visited, by index: their names
    /// gathered and their stats.
    done: BTreeMap<usize, (Batch, Vec<Stat>)>,
    /// The visits are over: the helpers leave.
    stop: bool,
}

/// Tells the helpers of [`Shared::visit_sorted`] to leave when dropped.
struct StopOnDrop<'a>(&'a Mutex<Window>, &'a Condvar);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).stop = true;
        self.1.notify_all();
    }
}

impl<V: Visitor> Shared<'_, V> {
    /// A worker of a sorted walk: reads, sorts and classifies the
    /// directories it takes, hands them in by ticket, and visits whatever
    /// is ready in ticket order when no other worker is doing so.
    pub(super) fn work_sorted<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>) {
        let mut state = self.visitor.state();
        let mut buf = vec![0u8; self.opts.read.buffer_size];
        let mut taken = VecDeque::new();
        let go = Arc::new(AtomicBool::new(false));
        let mut next = self.next(Vec::new(), None);
        while let Some(Taken {
            node,
            ticket,
            start_worker,
        }) = next
        {
            if start_worker {
                self.start_worker(scope);
            }
            if taken.is_empty() {
                self.take_more(TAKE_MORE, &mut taken);
            }
            self.hold_back(ticket, &go);
            self.close_deferred();
            let p = if self.quit.load(Ordering::Relaxed) {
                Prepared::Skipped
            } else {
                self.prepare(&mut state, &node, &mut buf)
            };
            {
                let mut r = self.ready.lock().expect("ready lock");
                r.bytes += p.bytes();
                r.items.insert(ticket, (node, p));
            }
            self.drain(&mut state);
            // Those taken together are prepared in ticket order: the
            // lowest ticket not yet handed in is always being prepared
            // by its worker (never held: it is the turn's or after), so
            // no worker waits on one held by another.
            next = taken.pop_front().or_else(|| self.next(Vec::new(), None));
        }
        // The walk is over: a loss at its end (no ticket after it) too.
        self.report_lost(&mut state, u64::MAX);
        self.visitor.finish(state);
    }

    /// Sorted walks: waits while `ticket` is too far ahead of the turn,
    /// or, past the turn, while the prepared directories hold more than
    /// [`READY_BYTES`], so that they (a descriptor and the entries each)
    /// cannot pile up behind a slow visitor.  Their descriptors are not in
    /// the budget of those kept for children, so their number is bounded
    /// by a share of it too: a low `RLIMIT_NOFILE` slows the read-ahead
    /// down rather than running out of descriptors.  The turn's own
    /// directory is never held, so the visits always go on.
    ///
    /// A worker held back goes on only once its ticket is half the limit
    /// from the turn, not as soon as it is within it: the visits then
    /// wake the held workers once every half limit of turns rather than
    /// at each turn (a wake-up, and a wait again, per directory for every
    /// held worker: 42% of the futex calls of a scan of the real-tree
    /// shape, docs/history/benchmarks.md#sorted-walk-speed-issues-25-and-27).
    ///
    /// `go` is the worker's own flag, set when it may go on.
    fn hold_back(&self, ticket: u64, go: &Arc<AtomicBool>) {
        let limit = (AHEAD_PER_WORKER * self.opts.threads.max(2))
            .min(self.fd_budget / 4)
            .max(1) as u64;
        let low = (limit - limit / 2).max(1);
        let max_bytes = self.opts.ready_bytes.unwrap_or(READY_BYTES);
        let mut r = self.ready.lock().expect("ready lock");
        loop {
            // Checked under the lock that a panic's release takes after
            // setting it: a worker held back after it is still let go.
            if self.quit.load(Ordering::Relaxed) {
                return;
            }
            let far = ticket >= r.turn + limit;
            let full = ticket > r.turn && r.bytes > max_bytes;
            if !far && !full {
                return;
            }
            // Far: the turn from which `ticket < turn + low`.  Full: the
            // next turn, which frees a directory's bytes, to look again.
            let at = if far { ticket + 1 - low } else { r.turn + 1 };
            go.store(false, Ordering::Relaxed);
            r.wake_at = r.wake_at.min(at);
            r.held.push(Held::me(at, go));
            drop(r);
            while !go.load(Ordering::Acquire) {
                std::thread::park();
            }
            r = self.ready.lock().expect("ready lock");
        }
    }

    /// Sorted walks: unless another worker is at it, visits the ready
    /// directories in ticket order until the next one is not ready, then
    /// lets the visitor write what it holds ([`Visitor::turn_done`]).
    /// One worker visits many directories in a row, so turns rarely pass
    /// between threads (handing each turn to the worker that read the
    /// directory cost a thread wake-up per directory, which made the
    /// walk slower on 8 workers than on one).
    fn drain(&self, state: &mut V::State) {
        loop {
            let role = match self.drainer.try_lock() {
                Ok(role) => role,
                // A visitor panicked while draining: the panic reaches the
                // caller when the workers are joined; the others must not
                // wait for a role that nobody will give back.
                Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
                // The worker draining will find ours: it looks again
                // after letting go.
                Err(std::sync::TryLockError::WouldBlock) => return,
            };
            loop {
                // After a panic no directory is visited any more (nor
                // counted done: the queue is closed).
                if self.panicked.load(Ordering::Relaxed) {
                    return;
                }
                if self.lost_any.load(Ordering::Acquire) {
                    let turn = self.ready.lock().expect("ready lock").turn;
                    self.report_lost(state, turn);
                }
                let item = {
                    let mut r = self.ready.lock().expect("ready lock");
                    let turn = r.turn;
                    let item = r.items.remove(&turn);
                    if let Some((_, p)) = &item {
                        r.bytes -= p.bytes();
                    }
                    item
                };
                let Some((node, p)) = item else {
                    break;
                };
                let children = self.complete(state, &node, p);
                self.hand_in(&node, children);
                let mut r = self.ready.lock().expect("ready lock");
                r.turn += 1;
                if r.turn >= r.wake_at || (self.quit.load(Ordering::Relaxed) && !r.held.is_empty())
                {
                    // Only those whose turn has come (all, once quitting).
                    let turn = if self.quit.load(Ordering::Relaxed) {
                        u64::MAX
                    } else {
                        r.turn
                    };
                    let (go, wait): (Vec<Held>, Vec<Held>) = std::mem::take(&mut r.held)
                        .into_iter()
                        .partition(|h| h.at <= turn);
                    r.wake_at = wait.iter().map(|h| h.at).min().unwrap_or(u64::MAX);
                    r.held = wait;
                    drop(r);
                    release(go);
                }
            }
            self.visitor.turn_done(state);
            drop(role);
            let r = self.ready.lock().expect("ready lock");
            if !r.items.contains_key(&r.turn) {
                return;
            }
        }
    }

    /// Sorted walks: reports, as the walk's errors, the parts of the
    /// spilled queue that could not be read back whose directories would
    /// have been visited before `turn`'s (all of them: `u64::MAX`), so
    /// that each comes in its place in the visits' order.
    fn report_lost(&self, state: &mut V::State, turn: u64) {
        if !self.lost_any.load(Ordering::Acquire) {
            return;
        }
        let (lost, dir) = {
            let mut q = self.queue.lock().expect("queue lock");
            let mut lost = Vec::new();
            while q.lost.front().is_some_and(|(t, _)| *t <= turn) {
                lost.extend(q.lost.pop_front().map(|(_, l)| l));
            }
            let dir = q.spilled.as_ref().map(|s| s.dir()).unwrap_or_default();
            (lost, dir)
        };
        for l in lost {
            self.cached_fds.fetch_sub(l.fds, Ordering::AcqRel);
            self.visitor.error(state, l.into_error(&dir));
        }
    }

    /// Sorted walks: queues the children of a directory just visited (in
    /// ticket order: the queue's order is the one-thread order) and
    /// counts the directory done.
    ///
    /// Past the queue's memory limit the children are spilled, as records
    /// written outside the lock (only this worker, the one visiting,
    /// queues directories meanwhile; the others only take them).
    fn hand_in(&self, node: &Node, children: Vec<Arc<Node>>) {
        let mut q = self.queue_children(node, children);
        q.done(node);
        let available = q.available();
        if q.active == 0 && available == 0 {
            drop(q);
            self.wake.notify_all();
            return;
        }
        let wake = available.min(q.idle);
        drop(q);
        self.wake_idle(wake);
    }

    /// Sorted walks: queues `children` of `node` in memory or, past the
    /// limit, spilled; returns the queue, still locked.
    fn queue_children(&self, node: &Node, children: Vec<Arc<Node>>) -> MutexGuard<'_, Queue> {
        let mut q = self.queue.lock().expect("queue lock");
        if !children.is_empty() && q.spills(children.len()) {
            let limit = q.spilled.as_ref().map_or(1, |s| s.limit);
            drop(q);
            let (records, kept) = self.spill_records(node, children, limit);
            q = self.queue.lock().expect("queue lock");
            q.push_spilled(records, kept);
        } else {
            q.push(children);
        }
        q
    }

    /// Sorted walks: visits one entry of a directory being completed and,
    /// where the queue spills and the directory has given
    /// [`HANDOFF_CHUNK`] subdirectories, queues them now: a directory of
    /// a million subdirectories is then never a million nodes at once,
    /// only its sorted listing.  The order is the same as queueing them
    /// all at its end: only the worker visiting queues directories.
    fn visit_queueing(
        &self,
        state: &mut V::State,
        dv: &mut DirVisit<'_>,
        dir: BorrowedFd<'_>,
        (name, ino, kind): (&CStr, u64, Kind),
    ) {
        self.visit_entry(state, dv, dir, name, ino, kind);
        if self.spills && dv.children.len() >= HANDOFF_CHUNK {
            if let Some(chunk) = self.claim(dv, dir) {
                let q = self.queue_children(dv.node, chunk);
                let wake = q.available().min(q.idle);
                drop(q);
                self.wake_idle(wake);
            }
        }
    }

    /// Sorted walks: the records of `children` (subdirectories of
    /// `node`), in groups of at most `limit`, and their parent's
    /// descriptor given back (they will be opened by its path); or, where
    /// they cannot be written ([`Node::spillable`], a path too long to be
    /// opened in one step), `children` themselves, to keep.
    fn spill_records(
        &self,
        node: &Node,
        children: Vec<Arc<Node>>,
        limit: usize,
    ) -> (Records, Vec<Arc<Node>>) {
        let path = build_path(node);
        if path.len() >= PATH_STEP || !children.iter().all(|c| c.spillable()) {
            return (Vec::new(), children);
        }
        // The parent's descriptor, counted in the budget, goes with its
        // first group (a later one's anchor, of a parent of more than
        // `limit` subdirectories, is opened again).
        let mut fd = node.open().fd.lock().expect("fd lock").take();
        let records = children
            .chunks(limit)
            .map(|chunk| {
                let mut r = vec![GROUP];
                encode_group(node, &path, chunk, &mut r);
                (r, chunk.len(), fd.take())
            })
            .collect();
        (records, Vec::new())
    }

    /// Sorted walks: reads, sorts and classifies one directory, showing
    /// nothing to the visitor.
    fn prepare(&self, state: &mut V::State, node: &Arc<Node>, buf: &mut Vec<u8>) -> Prepared {
        let path = build_path(node);
        // The visitor may know the listing from the directory's stat
        // alone: then it is not read, and maybe not opened.
        let answer = match node.stat() {
            Some(st) if self.keeps_stats() => {
                if self.opts.same_fs && st.dev() != node.open().root_dev {
                    return Prepared::Skipped;
                }
                let start = Start {
                    path: &path,
                    root_len: node.open().root_len,
                    depth: node.depth,
                };
                self.visitor.listing_stated(state, &start, st)
            }
            _ => None,
        };
        if let Some(Some(listing)) = answer {
            return self.prepare_listed(state, node, path, &listing);
        }
        let fd = match self.open_checked(node) {
            Ok(fd) => fd,
            Err(Some(kind)) => return Prepared::Failed(path, kind),
            Err(None) => return Prepared::Skipped,
        };
        let read_started = sys::now().0;
        let mut dv = DirVisit::new(node, &path);
        // Nothing is visited: every entry goes to `dv.unknown`, whether
        // read or supplied by the visitor (as `take` files what is read).
        let fd = self.list(state, fd, &path, buf, &mut dv, answer.is_none());
        dv.unknown.retain(|b| !b.entries.is_empty());
        let entries = self.sort_and_classify(fd.as_fd(), &mut dv, read_started);
        let errors = std::mem::take(&mut dv.deferred);
        let ahead = if self.stats_ahead(dv.depth) {
            let b = &entries[0];
            let n = b.entries.len().min(STAT_AHEAD);
            self.stat_entries(fd.as_fd(), b, &b.entries[..n])
        } else {
            Vec::new()
        };
        drop(dv);
        Prepared::Read {
            path,
            fd: Some(fd),
            entries,
            errors,
            ahead,
        }
    }

    /// Sorted walks: prepares a directory from the listing the visitor
    /// gave for it ([`Visitor::listing_stated`]).  It is opened only if
    /// its entries need a descriptor: some of unknown type to classify,
    /// or some to stat ahead, relative to it.  Stat'ing a few by their
    /// whole path instead, without opening the directory, was measured
    /// slower for a full refresh than opening it (a path lookup walks
    /// every component; docs/history/benchmarks.md, refresh, session
    /// 16).  A directory not opened is visited with its entries' whole
    /// paths (a path near `PATH_MAX`: opened).
    fn prepare_listed(
        &self,
        state: &mut V::State,
        node: &Arc<Node>,
        path: Vec<u8>,
        listing: &Listing,
    ) -> Prepared {
        let read_started = sys::now().0;
        let mut dv = DirVisit::new(node, &path);
        dv.unknown
            .push(Batch::with_capacity(listing.len(), listing.names_len()));
        for (name, t, ino) in listing.iter() {
            self.take(state, &mut dv, rustix::fs::CWD, name, ino, t);
        }
        dv.unknown.retain(|b| !b.entries.is_empty());
        let follow_all = self.opts.follow == Follow::Always;
        let ahead = self.stats_ahead(dv.depth);
        let mut to_classify = false;
        let mut to_stat = 0;
        for b in &dv.unknown {
            for e in &b.entries {
                to_classify |= matches!(e.kind, Kind::Unknown)
                    || follow_all && e.kind == Kind::NotDir(FileType::SYMLINK);
                to_stat += usize::from(ahead && self.visitor.stat_ahead(known_type(e.kind)));
            }
        }
        let long = path.len() + 256 >= libc::PATH_MAX as usize;
        let fd = if to_classify && dv.depth < self.opts.max_depth || to_stat > 0 || long {
            match self.open_checked(node) {
                Ok(fd) => Some(fd),
                Err(Some(kind)) => return Prepared::Failed(path, kind),
                Err(None) => return Prepared::Skipped,
            }
        } else {
            None
        };
        let dir = fd.as_ref().map_or(rustix::fs::CWD, |fd| fd.as_fd());
        let entries = self.sort_and_classify(dir, &mut dv, read_started);
        let errors = std::mem::take(&mut dv.deferred);
        // Not opened: no entry is to be stat'ed ahead.
        let ahead = if ahead && fd.is_some() {
            let b = &entries[0];
            let n = b.entries.len().min(STAT_AHEAD);
            self.stat_entries(dir, b, &b.entries[..n])
        } else {
            Vec::new()
        };
        drop(dv);
        Prepared::Read {
            path,
            fd,
            entries,
            errors,
            ahead,
        }
    }

    /// Sorted walks: on its turn, reports a prepared directory's errors,
    /// visits its entries and returns its subdirectories.
    fn complete(&self, state: &mut V::State, node: &Arc<Node>, p: Prepared) -> Vec<Arc<Node>> {
        let (path, fd, entries, errors, ahead) = match p {
            Prepared::Failed(path, kind) => {
                self.report(state, (&path, node.depth), Operation::Open, kind);
                self.finish_one(state, node, None);
                return Vec::new();
            }
            Prepared::Skipped => {
                self.finish_one(state, node, None);
                return Vec::new();
            }
            Prepared::Read {
                path,
                fd,
                entries,
                errors,
                ahead,
            } => (path, fd, entries, errors, ahead),
        };
        for (op, kind) in errors {
            self.report(state, (&path, node.depth), op, kind);
        }
        let mut dv = DirVisit::new(node, &path);
        dv.unopened = fd.is_none();
        let dir = fd.as_ref().map_or(rustix::fs::CWD, |fd| fd.as_fd());
        self.visit_sorted(state, &mut dv, dir, &entries[0], ahead);
        // No subdirectory will be opened relative to it, and no post-order
        // visit needs it: the descriptor is done with.
        let fd = if dv.children.is_empty() && !dv.handed && !self.opts.post_order {
            self.close_later(fd);
            None
        } else {
            fd
        };
        self.adopt_children(state, node, fd, &mut dv)
    }

    /// Sorted walks: leaves `fd` for a worker to close outside the
    /// visits.  Only one worker visits at a time, and closing a directory
    /// read to its end is not free (ext4 frees the listing it kept for
    /// the reader): a fifth of a sorted walk's visiting time, all of it
    /// on the one worker everything else waits for.
    fn close_later(&self, fd: Option<OwnedFd>) {
        let Some(fd) = fd else {
            return;
        };
        let mut closing = self.closing.lock().expect("closing lock");
        if closing.len() < CLOSE_LATER_MAX {
            closing.push(fd);
        }
    }

    /// Closes the descriptors left by [`Shared::close_later`].
    fn close_deferred(&self) {
        let fds = std::mem::take(&mut *self.closing.lock().expect("closing lock"));
        drop(fds);
    }

    /// Whether the entries at `depth` are stat'ed ahead of their visits:
    /// the visitor wants some stat'ed ([`Visitor::stat_ahead`]) and they
    /// are visited at all.
    fn stats_ahead(&self, depth: usize) -> bool {
        depth >= self.opts.min_depth && !self.quit.load(Ordering::Relaxed)
    }

    /// The stats of `entries` (of `batch`, in the directory `dir`) that
    /// the visitor wants ahead, in order.
    fn stat_entries(
        &self,
        dir: BorrowedFd<'_>,
        batch: &Batch,
        entries: &[BatchEntry],
    ) -> Vec<Stat> {
        let follow = self.opts.follow == Follow::Always;
        entries
            .iter()
            .map(|e| {
                self.visitor
                    .stat_ahead(known_type(e.kind))
                    .then(|| stat_entry(dir, batch.name(e), follow, self.opts.stat_mask))
            })
            .collect()
    }

    /// Visits a prepared directory's sorted entries, `ahead` the stats of
    /// its first ones.  The rest of a big directory is stat'ed on helper
    /// threads, in chunks, at most [`STAT_WINDOW`] chunks ahead of the
    /// visits: the stats run in parallel while memory stays bounded.
    fn visit_sorted(
        &self,
        state: &mut V::State,
        dv: &mut DirVisit<'_>,
        dir: BorrowedFd<'_>,
        batch: &Batch,
        ahead: Vec<Stat>,
    ) {
        let (first, rest) = batch.entries.split_at(ahead.len());
        for (e, st) in first.iter().zip(ahead) {
            dv.stat_ahead = st;
            self.visit_queueing(state, dv, dir, (batch.name(e), e.ino, e.kind));
        }
        let helpers = self.opts.read.threads.min(self.opts.threads).max(1);
        // Not for a directory not opened: its helpers stat relative to it.
        let stream = !dv.unopened
            && first.len() == STAT_AHEAD
            && rest.len() >= STREAM_MIN
            && helpers > 1
            && self.stats_ahead(dv.depth);
        if !stream {
            for e in rest {
                self.visit_queueing(state, dv, dir, (batch.name(e), e.ino, e.kind));
            }
            return;
        }
        let chunks: Vec<&[BatchEntry]> = rest.chunks(STAT_CHUNK).collect();
        let window = Mutex::new(Window::default());
        let moved = Condvar::new();
        let helper = || loop {
            let i = {
                let mut w = window.lock().unwrap_or_else(PoisonError::into_inner);
                while !w.stop && w.next < chunks.len() && w.next >= w.visited + STAT_WINDOW {
                    w = moved.wait(w).unwrap_or_else(PoisonError::into_inner);
                }
                if w.stop || w.next >= chunks.len() {
                    return;
                }
                w.next += 1;
                w.next - 1
            };
            let gathered = gather(batch, chunks[i]);
            let stats = self.stat_entries(dir, &gathered, &gathered.entries);
            let mut w = window.lock().unwrap_or_else(PoisonError::into_inner);
            w.done.insert(i, (gathered, stats));
            moved.notify_all();
        };
        std::thread::scope(|scope| {
            let started = (0..helpers)
                .filter(|_| {
                    std::thread::Builder::new()
                        .spawn_scoped(scope, helper)
                        .is_ok()
                })
                .count();
            // Whatever ends the visits (the end, a quit, a panic of the
            // visitor) lets the helpers go, so that the scope can end.
            let _stop = StopOnDrop(&window, &moved);
            for (i, chunk) in chunks.iter().enumerate() {
                let (gathered, stats) = if started == 0 {
                    // No thread: each visit stats its own entry.
                    (gather(batch, chunk), vec![None; chunk.len()])
                } else {
                    let mut w = window.lock().unwrap_or_else(PoisonError::into_inner);
                    if w.next == i {
                        // No helper has taken it (on a busy machine they
                        // may not have run yet): stat it here rather than
                        // wait for one to be scheduled.
                        w.next += 1;
                        w.visited = i + 1;
                        moved.notify_all();
                        drop(w);
                        let gathered = gather(batch, chunk);
                        let stats = self.stat_entries(dir, &gathered, &gathered.entries);
                        (gathered, stats)
                    } else {
                        loop {
                            if let Some(s) = w.done.remove(&i) {
                                w.visited = i + 1;
                                moved.notify_all();
                                break s;
                            }
                            w = moved.wait(w).unwrap_or_else(PoisonError::into_inner);
                        }
                    }
                };
                for (e, st) in gathered.entries.iter().zip(stats) {
                    dv.stat_ahead = st;
                    self.visit_queueing(state, dv, dir, (gathered.name(e), e.ino, e.kind));
                }
                if self.quit.load(Ordering::Relaxed) || self.panicked.load(Ordering::Relaxed) {
                    break;
                }
            }
        });
    }

    /// Sorted walks: the directory's entries (all gathered in `dv.unknown`
    /// by [`Shared::take`]) as one batch sorted by name, those of unknown
    /// type classified, unless at the depth limit, where nothing is walked.
    fn sort_and_classify(
        &self,
        dir: BorrowedFd<'_>,
        dv: &mut DirVisit<'_>,
        read_started: i64,
    ) -> [Batch; 1] {
        // One batch a slice of the read: appended to the first, each freed
        // once copied, so that the peak is the listing and one slice, not
        // twice the listing.
        let mut batches = std::mem::take(&mut dv.unknown).into_iter();
        let mut all = batches.next().unwrap_or_default();
        let rest: Vec<Batch> = batches.collect();
        all.names
            .reserve_exact(rest.iter().map(|b| b.names.len()).sum());
        all.entries
            .reserve_exact(rest.iter().map(|b| b.entries.len()).sum());
        for b in rest {
            all.append(b);
        }
        sort_by_name(&mut all);
        if dv.depth >= self.opts.max_depth || self.quit.load(Ordering::Relaxed) {
            return [all];
        }
        let follow_all = self.opts.follow == Follow::Always;
        // Only the entries still unknown go to the classifier (it counts
        // every entry it is given as unknown).
        let mut unknown = Batch::default();
        let mut at = Vec::new();
        for (i, e) in all.entries.iter().enumerate() {
            let pending = match e.kind {
                Kind::Unknown => true,
                Kind::NotDir(FileType::SYMLINK) => follow_all,
                _ => false,
            };
            if pending {
                at.push(i);
                unknown.push_kind(all.name(e), e.ino, e.kind);
            }
        }
        if !at.is_empty() {
            let mut one = [unknown];
            self.classify(dir, &mut one, read_started, dv.known_dirs);
            for (i, e) in at.into_iter().zip(&one[0].entries) {
                all.entries[i].kind = e.kind;
            }
        }
        [all]
    }
}

/// The entries `chunk` of `batch` with their names copied together, in
/// order.  A big directory's arena holds its names in the order read and
/// its entries are sorted by name: stat'ing and visiting them straight
/// from it touched a cache line (and a page) far from the last one twice
/// an entry, the stat's and the visit's; a scan of 1M files in one
/// directory spent 28% of its user time in those misses.  The copy
/// touches each name once, and the stat and visit read it from here.
fn gather(batch: &Batch, chunk: &[BatchEntry]) -> Batch {
    let mut g = Batch::default();
    g.entries.reserve_exact(chunk.len());
    for e in chunk {
        g.push_kind(batch.name(e), e.ino, e.kind);
    }
    g
}

/// Entries from which a directory is sorted by keys ([`sort_keyed`]):
/// below, its names fit in the caches and comparing them is cheap.
const KEYED_SORT_MIN: usize = 4096;

/// Bits of a sort key that number the entry ([`sort_keyed`]); the other
/// 40 hold five bytes of its name.
const KEY_INDEX_BITS: u32 = 24;

/// Runs of entries whose keys tie that are sorted by their whole names
/// rather than by the next five bytes.
const TIE_RUN_MAX: usize = 16;

/// Bytes into the names from which tied runs are sorted by their whole
/// names (a bound on the rounds of keys, whatever the names' lengths).
const KEYED_DEPTH_MAX: usize = 255;

/// Sorts `b`'s entries by name, bytewise.
fn sort_by_name(b: &mut Batch) {
    let n = b.entries.len();
    if (KEYED_SORT_MIN..=1 << KEY_INDEX_BITS).contains(&n) {
        return sort_keyed(b);
    }
    // By the stored lengths: a comparison is one `memcmp` of the two
    // names, not a search for each one's terminator first.
    let names = &b.names;
    b.entries
        .sort_unstable_by(|x, y| name_bytes(names, x).cmp(name_bytes(names, y)));
}

/// Sorts a big directory's entries by keys of eight bytes, each five
/// bytes of the name and the entry's index, rather than by comparing
/// names: its arena holds the names in the order read, so comparing two
/// names fetched two lines far apart, and a sort of 1M names compared
/// some 20M pairs (its misses: 18% of the samples of a scan of `flat1m`).
/// The keys are made in one pass down the arena, and entries whose five
/// bytes tie are sorted again by their next five, or by their names
/// once few.  Then the entries are gathered in the keys' order.
fn sort_keyed(b: &mut Batch) {
    let names = &b.names;
    let entries = &b.entries;
    let mut keys: Vec<u64> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| name_key(name_bytes(names, e), 0, i))
        .collect();
    sort_keys(names, entries, &mut keys, 0);
    let mask = (1u64 << KEY_INDEX_BITS) - 1;
    b.entries = keys.iter().map(|k| entries[(k & mask) as usize]).collect();
}

/// The key of `name`, the entry numbered `i`: its five bytes from
/// `depth` (zeros past its end: no name holds a NUL, so a name ending
/// there comes before every longer one with its bytes), then `i`.
fn name_key(name: &[u8], depth: usize, i: usize) -> u64 {
    let mut five = [0u8; 8];
    if let Some(rest) = name.get(depth..) {
        let n = rest.len().min(5);
        five[3..3 + n].copy_from_slice(&rest[..n]);
    }
    (u64::from_be_bytes(five) << KEY_INDEX_BITS) | i as u64
}

/// Sorts `keys` (of names from `depth` on) in the entries' order by
/// name: by their bytes, then each run of ties by the next five bytes,
/// or by the whole names.
fn sort_keys(names: &[u8], entries: &[BatchEntry], keys: &mut [u64], depth: usize) {
    let mask = (1u64 << KEY_INDEX_BITS) - 1;
    let name = |k: u64| name_bytes(names, &entries[(k & mask) as usize]);
    keys.sort_unstable();
    let mut from = 0;
    while from < keys.len() {
        let bytes = keys[from] >> KEY_INDEX_BITS;
        let to = from
            + keys[from..]
                .iter()
                .take_while(|&&k| k >> KEY_INDEX_BITS == bytes)
                .count();
        let run = &mut keys[from..to];
        if run.len() > TIE_RUN_MAX && depth + 5 <= KEYED_DEPTH_MAX {
            for k in run.iter_mut() {
                let i = (*k & mask) as usize;
                *k = name_key(name(*k), depth + 5, i);
            }
            sort_keys(names, entries, run, depth + 5);
        } else if run.len() > 1 {
            run.sort_unstable_by(|&x, &y| name(x).cmp(name(y)));
        }
        from = to;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;

    /// `names` in a batch, in the order given.
    fn batch(names: &[Vec<u8>]) -> Batch {
        let mut b = Batch::default();
        for (i, n) in names.iter().enumerate() {
            let c = CString::new(n.clone()).expect("no NUL");
            b.push(&c, i as u64, FileType::REGULAR);
        }
        b
    }

    /// The keyed sort gives the order of comparing the names, on names
    /// that tie for many rounds of keys, end inside a key, share a
    /// prefix longer than the rounds go, and hold bytes above 0x7f.
    #[test]
    fn keyed_sort_is_the_names_order() {
        let mut names: Vec<Vec<u8>> = Vec::new();
        let long = vec![b'x'; 300];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for i in 0..20_000u64 {
            let r = next();
            let name = match i % 6 {
                0 => format!("IMG_{:07}.JPG", r % 1_000_000).into_bytes(),
                1 => format!("IMG_{}", r % 1000).into_bytes(),
                2 => {
                    let mut n = long.clone();
                    n.extend_from_slice(format!("{}", r % 50).as_bytes());
                    n
                }
                3 => vec![0x80 | (r % 100) as u8, b'a' + (r % 3) as u8],
                4 => b"ab".repeat(1 + (r % 7) as usize),
                _ => format!("{:x}", r).into_bytes(),
            };
            names.push(name);
        }
        // Duplicates leave no trace of the order: one of each.
        names.sort();
        names.dedup();
        let mut shuffled = names.clone();
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        let mut b = batch(&shuffled);
        assert!(b.entries.len() >= KEYED_SORT_MIN);
        sort_keyed(&mut b);
        let got: Vec<Vec<u8>> = b
            .entries
            .iter()
            .map(|e| name_bytes(&b.names, e).to_vec())
            .collect();
        assert_eq!(got, names);
        // Each entry kept its own inode number (its index in `shuffled`).
        for e in &b.entries {
            assert_eq!(name_bytes(&b.names, e), &shuffled[e.ino as usize][..]);
        }
    }
}
