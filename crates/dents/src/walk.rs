//! The parallel walker: every entry of one or more trees, exactly once.
//!
//! ```text
//!            roots                      workers (N threads)
//!              |                   +--------------------------------+
//!              v                   |  take a directory              |
//!   +---------------------+  pop   |  open it (openat on parent)    |
//!   | queue of directories| -----> |  read it; visit each entry of  |
//!   | FIFO: breadth first |        |   known type as it is read     |
//!   | LIFO: depth first   | <----- |  classify the unknown ones,    |
//!   +---------------------+  push  |   visit them                   |
//!                                  |  queue its subdirectories      |
//!                                  +--------------------------------+
//! ```
//!
//! Entries whose `d_type` says what they are are visited straight from the
//! read buffer, so memory does not grow with a directory's size.  After
//! its first 8 KiB of entries a directory is checked for slicing; a huge
//! one on ext4 or XFS is read on from where the serial read stopped, in
//! slices of the rest of its offset space ([`crate::slice::read_dir_from`]), each
//! slice visited on its own thread.  Entries of unknown type (no `d_type`;
//! links to follow with `-L`) are gathered, one batch per slice, and
//! classified together ([`crate::scan`]): first the likely directories alone
//! ([`crate::scan::resolve_likely`]), which usually account for every
//! subdirectory the link count promises; then, only if not, the rest.
//!
//! One lock guards the queue, taken once per directory (queue the
//! children, take the next); idle workers are woken only for work there is.
//!
//! Each queued directory is a node with a counted link to its parent,
//! so paths are built from names when a directory is read rather than
//! stored for every entry.  A directory's descriptor stays open while its
//! subdirectories still need it as the base of their `openat`; when more
//! descriptors would be needed than the budget (derived from
//! `RLIMIT_NOFILE`) allows, a subdirectory is opened by a relative path
//! from its nearest ancestor still open, in steps short enough for any
//! depth, so trees deeper than `PATH_MAX` are walked and `EMFILE` never
//! happens.
//!
//! Post-order (`-depth`): each directory counts the work still pending
//! below it (its own read and each subdirectory's subtree); the worker that
//! brings the count to zero visits the directory and passes the completion
//! up to its parent.
//!
//! The visitor runs on the worker threads, with per-thread state of its
//! own (an output buffer, say): output streams as the walk goes, and a slow
//! reader of it slows the workers down instead of growing a queue.
//!
//! # Sorted walks
//!
//! With [`WalkOptions::sort`] every directory is read whole, its entries
//! sorted by name (as bytes) and classified, and only then visited, so
//! the visits are exactly those of a one-thread walk whatever the number
//! of workers.  Workers still open, read, sort and classify directories
//! in parallel, but each directory taken from the queue gets a ticket
//! (its rank in the queue's order) and is handed in, prepared; one worker
//! at a time visits the ready directories in ticket order (entries,
//! errors, then its subdirectories queued), as long as the next one is
//! ready.  Breadth first, the queue is FIFO, so the
//! n-th directory taken is the n-th queued whatever the timing, and the
//! order is the one-thread order: the roots sorted, a directory's sorted
//! entries, then those of each of its subdirectories in turn (level
//! order, as `bfs -s`, which sorts with `strcoll`: the same in the C
//! locale).
//! Depth first (LIFO) that does not hold, so a sorted depth-first walk
//! runs on one worker.  When a worker stops visiting it tells the visitor
//! ([`Visitor::turn_done`]), which must then write what it has buffered.
//! The costs: a directory's entries are held in memory until visited
//! (names and 24 bytes each; at most a few directories per worker ahead
//! of the visits), and the visits, and so the visitor's work, are serial.

use std::collections::VecDeque;
use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use rustix::fs::StatxFlags;

use crate::dir::{DirReader, FileType, DEFAULT_BUFFER_SIZE};
use crate::scan::{self, Counters, DirState, Kind, ResolveOptions, Unknown, Want};
use crate::slice::{self, EntrySink, ReadOptions, ReadPlan};
use crate::sys::{self, Statx};

/// Entries read serially before a directory is considered for slicing, at
/// the latest.
const SLICE_CHECK_AFTER: usize = 4096;

/// Bytes asked for by a directory's first `getdents64` call when it might
/// be sliced: a directory that fills them is checked for slicing at once.
const FIRST_READ: usize = 8 * 1024;

/// Entries classified together (no `d_type`) are visited on several
/// threads from this many on.
const PARALLEL_VISIT_MIN: usize = 16 * 1024;

/// Relative paths longer than this are opened in several steps.
const PATH_STEP: usize = 3072;

/// The order directories are read in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// Breadth first: results near the roots come first (the default).
    BreadthFirst,
    /// Depth first (approximately, with several threads).
    DepthFirst,
}

/// Which symbolic links are followed (find's `-P`, `-H`, `-L`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Follow {
    /// Never (`-P`, the default).
    Never,
    /// Only the roots given (`-H`).
    Roots,
    /// Always (`-L`): links to directories are walked; loops are reported.
    Always,
}

/// What the visitor tells the walk after visiting an entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on (and into this entry, if it is a directory).
    Continue,
    /// Go on, but not into this directory (`-prune`).
    Prune,
    /// Stop the whole walk (`-quit`).
    Quit,
}

/// Options of a walk.
#[derive(Clone, Debug)]
pub struct WalkOptions {
    /// Worker threads (default: [`default_threads`]).
    pub threads: usize,
    /// Breadth or depth first.
    pub order: Order,
    /// Visit directories after their contents (`-depth`).
    pub post_order: bool,
    /// Entries shallower than this are not visited (roots are depth 0).
    pub min_depth: usize,
    /// Entries deeper than this are not visited, nor directories at this
    /// depth read.
    pub max_depth: usize,
    /// Symlink policy.
    pub follow: Follow,
    /// Do not read directories on other filesystems than their root's.
    pub same_fs: bool,
    /// Fields [`Visit::metadata`] fetches; the type and mode always.
    pub stat_mask: StatxFlags,
    /// Treat every `d_type` as unknown (tests of the no-type paths).
    pub ignore_dtype: bool,
    /// How one huge directory is read.
    pub read: ReadOptions,
    /// Descriptors the walk may hold; `None`: from `RLIMIT_NOFILE`.
    pub fd_budget: Option<usize>,
    /// Visit each directory's entries sorted by name (bytes), in an order
    /// that does not depend on the threads: see [`sort mode`](self#sorted-walks).
    pub sort: bool,
    /// Post-order visits of directories below a root come with their
    /// parent's descriptor (reopened for the visit: an `openat` and a
    /// `close` per directory).  `false` spares those two calls for a
    /// visitor that learnt what it needs before descending (du): the
    /// visit's [`Visit::parent_fd`] is then the current directory and its
    /// [`Visit::at_name`] the whole path, so a stat still works, through
    /// a path lookup (which fails beyond `PATH_MAX`).
    pub post_order_parent_fd: bool,
}

impl Default for WalkOptions {
    fn default() -> WalkOptions {
        WalkOptions {
            threads: default_threads(),
            order: Order::BreadthFirst,
            post_order: false,
            min_depth: 0,
            max_depth: usize::MAX,
            follow: Follow::Never,
            same_fs: false,
            stat_mask: StatxFlags::BASIC_STATS,
            ignore_dtype: false,
            read: ReadOptions::default(),
            fd_budget: None,
            sort: false,
            post_order_parent_fd: true,
        }
    }
}

/// The default number of workers: four per core, at least 4 and at most
/// 64.
///
/// A worker blocked on the disk (a cold `openat` or `getdents64`) leaves
/// its core idle; more workers than cores keep several reads in flight.
/// Measured on 2 cores over the shape of /usr and the toolchains (~430k
/// entries, docs/benchmarks.md): cold, 8 workers took 1.14 s where 2 took
/// 1.60 s; hot, 8 were no slower than 2 (296 ms vs 318 ms).
pub fn default_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores * 4).clamp(4, 64)
}

/// A problem met during the walk; the walk goes on.
#[derive(Debug)]
pub struct WalkError {
    /// The path it concerns.
    pub path: Vec<u8>,
    /// What went wrong.
    pub kind: WalkErrorKind,
}

/// What went wrong.
#[derive(Debug)]
pub enum WalkErrorKind {
    /// A system call failed (open, read, stat).
    Io(io::Error),
    /// Following links (`-L`) led back to an ancestor, whose path is given.
    Loop(Vec<u8>),
}

/// Visits the entries of a walk; shared by all workers.
pub trait Visitor: Sync {
    /// Per-worker state (an output buffer, counters).
    type State: Send;
    /// Makes one worker's state.
    fn state(&self) -> Self::State;
    /// Visits one entry.
    fn visit(&self, state: &mut Self::State, v: &Visit<'_>) -> Flow;
    /// Whether an entry is left out of the walk altogether: neither
    /// visited nor descended into.  Asked of every entry before anything
    /// else, whatever its depth (below `min_depth` too) and before a
    /// directory is read even in post-order; the default leaves nothing
    /// out.
    fn excluded(&self, _state: &mut Self::State, _v: &Visit<'_>) -> bool {
        false
    }
    /// Sorted walks: this worker stops visiting (for now); whatever the
    /// visitor holds back (buffered output) must go out now, before the
    /// next visits, which may be on another worker.
    fn turn_done(&self, _state: &mut Self::State) {}
    /// Hears of a problem (an unreadable directory, a loop).
    fn error(&self, state: &mut Self::State, e: &WalkError);
    /// Takes back a worker's state at the end.
    fn finish(&self, _state: Self::State) {}
}

/// One entry being visited.
#[derive(Debug)]
pub struct Visit<'a> {
    path: &'a [u8],
    name_start: usize,
    root_len: usize,
    depth: usize,
    dir: BorrowedFd<'a>,
    at_name: &'a CStr,
    known: Kind,
    ino: u64,
    follow: bool,
    post_order: bool,
    mask: StatxFlags,
    meta: OnceLock<Result<Statx, i32>>,
}

impl<'a> Visit<'a> {
    /// The path, as the roots were given and joined with `/`.
    pub fn path(&self) -> &'a [u8] {
        self.path
    }

    /// The last component (for a root: the whole path as given).
    pub fn name(&self) -> &'a [u8] {
        &self.path[self.name_start..]
    }

    /// The starting point this entry was reached from, as given (the head
    /// of [`Visit::path`]; find's `%H`).
    pub fn root(&self) -> &'a [u8] {
        &self.path[..self.root_len]
    }

    /// Depth below the root (roots are 0).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The directory holding the entry, for `*at` calls with
    /// [`Visit::at_name`]; the current directory for roots.
    pub fn parent_fd(&self) -> BorrowedFd<'a> {
        self.dir
    }

    /// The name relative to [`Visit::parent_fd`].
    pub fn at_name(&self) -> &'a CStr {
        self.at_name
    }

    /// The inode number from the directory entry (or the stat).
    pub fn ino(&self) -> u64 {
        self.ino
    }

    /// Whether this is the post-order visit of a directory.
    pub fn is_post_order(&self) -> bool {
        self.post_order
    }

    /// Whether the walk follows this entry if it is a symlink.
    pub fn follows_links(&self) -> bool {
        self.follow
    }

    /// The file type if known without a system call (from the directory
    /// entry, or the walk's own classification); `None` if only a stat
    /// would tell.
    pub fn known_type(&self) -> Option<FileType> {
        match self.known {
            Kind::Dir => Some(FileType::DIRECTORY),
            Kind::NotDir(t) if !t.is_unknown() => Some(t),
            _ => None,
        }
    }

    /// The file type, from the directory entry where it said, else from a
    /// stat (following symlinks if the walk follows them).
    pub fn file_type(&self) -> FileType {
        match self.known {
            Kind::Dir => FileType::DIRECTORY,
            // A symlink that the walk follows is typed by its target.
            Kind::NotDir(t) if !(t.is_unknown() || self.follow && t == FileType::SYMLINK) => t,
            _ => self.metadata().map_or(FileType::UNKNOWN, |st| {
                FileType::from_mode(st.stx_mode as u32)
            }),
        }
    }

    /// The entry's metadata, fetched once on first use; with `-L` (or a
    /// root under `-H`) a symlink's target, or the link itself if broken
    /// (its target missing, or a file where a directory should be on the
    /// way to it: `ENOTDIR`, as find takes it).
    pub fn metadata(&self) -> io::Result<&Statx> {
        let r = self.meta.get_or_init(|| {
            let mask = self.mask | StatxFlags::TYPE | StatxFlags::MODE;
            let r = if self.follow {
                match sys::statx_follow_at(self.dir, self.at_name, mask) {
                    Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR)) => {
                        sys::statx_at(self.dir, self.at_name, mask)
                    }
                    r => r,
                }
            } else {
                sys::statx_at(self.dir, self.at_name, mask)
            };
            r.map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))
        });
        r.as_ref().map_err(|&e| io::Error::from_raw_os_error(e))
    }

    /// The metadata of the entry itself, never following a symlink.
    pub fn link_metadata(&self) -> io::Result<Statx> {
        sys::statx_at(
            self.dir,
            self.at_name,
            self.mask | StatxFlags::TYPE | StatxFlags::MODE,
        )
    }
}

/// What a walk did.
#[derive(Debug, Default)]
pub struct WalkStats {
    /// Directories read.
    pub dirs_read: AtomicUsize,
    /// Directories read in slices on several threads.
    pub dirs_sliced: AtomicUsize,
    /// Directories opened by a path from an ancestor (fd budget, depth).
    pub reopened_by_path: AtomicUsize,
    /// How entries' types were learnt.
    pub types: Counters,
}

/// A directory in the walk: queued, being read, or a parent kept for its
/// children.
#[derive(Debug)]
struct Node {
    parent: Option<Arc<Node>>,
    /// The name relative to the parent; for a root, the root path.
    name: CString,
    depth: usize,
    /// (dev, ino), once known: loop detection with `-L`.
    id: OnceLock<(u64, u64)>,
    /// The open descriptor kept for the children's `openat`.
    fd: Mutex<Option<Arc<OwnedFd>>>,
    /// Children not yet opened: at zero, `fd` is released.
    children_left: AtomicUsize,
    /// Post-order: pending work below (own read + subtrees).
    pending: AtomicUsize,
    /// The root's device (for `-xdev`).
    root_dev: u64,
    /// Whether this directory's entries' symlinks are followed.
    is_root: bool,
    /// The length of the starting point at the head of every path below.
    root_len: usize,
}

/// Sorted walks: directories read and sorted, waiting for their turn to
/// be visited.
#[derive(Default)]
struct Ready {
    /// The ticket whose turn it is.
    turn: u64,
    /// Prepared directories by ticket.
    items: std::collections::BTreeMap<u64, (Arc<Node>, Prepared)>,
    /// Workers held back for being too far ahead of the turn.
    held: usize,
}

/// A directory of a sorted walk, read, sorted and classified (or found
/// unreadable), with nothing of it shown to the visitor yet.
enum Prepared {
    /// It could not be opened, or closes a loop (`-L`).
    Failed(Vec<u8>, WalkErrorKind),
    /// On another filesystem (`same_fs`), or the walk is stopping.
    Skipped,
    /// Read: its path, descriptor, sorted entries and read errors.
    Read {
        path: Vec<u8>,
        fd: OwnedFd,
        entries: [Batch; 1],
        errors: Vec<io::Error>,
    },
}

/// The queue of directories and the workers' activity.
struct Queue {
    dirs: VecDeque<Arc<Node>>,
    /// Workers reading a directory (the walk ends when none is and the
    /// queue is empty).
    active: usize,
    /// Workers waiting for a directory.
    idle: usize,
    /// Directories taken so far: the next one's ticket (sorted walks).
    taken: u64,
}

/// State shared by the workers.
struct Shared<'v, V: Visitor> {
    opts: WalkOptions,
    visitor: &'v V,
    queue: Mutex<Queue>,
    wake: Condvar,
    quit: AtomicBool,
    cached_fds: AtomicUsize,
    fd_budget: usize,
    stats: WalkStats,
    fs_magic: Mutex<Vec<(u64, u64)>>,
    /// Sorted walks: the prepared directories and whose turn it is.
    ready: Mutex<Ready>,
    /// Sorted walks: the turn moved (for workers held back).
    ahead: Condvar,
    /// Sorted walks: held by the one worker visiting ready directories.
    drainer: Mutex<()>,
}

/// Walks the trees under `roots`, visiting every entry (roots included)
/// with `visitor`.
///
/// ```no_run
/// use dents::walk::{walk, Flow, Visit, Visitor, WalkError, WalkOptions};
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// struct Count(AtomicUsize);
/// impl Visitor for Count {
///     type State = ();
///     fn state(&self) {}
///     fn visit(&self, _: &mut (), _v: &Visit<'_>) -> Flow {
///         self.0.fetch_add(1, Ordering::Relaxed);
///         Flow::Continue
///     }
///     fn error(&self, _: &mut (), e: &WalkError) {
///         eprintln!("{:?}", e);
///     }
/// }
/// let count = Count(AtomicUsize::new(0));
/// walk(&[b"/usr/share".to_vec()], &WalkOptions::default(), &count);
/// println!("{} entries", count.0.load(Ordering::Relaxed));
/// ```
pub fn walk<V: Visitor>(roots: &[Vec<u8>], opts: &WalkOptions, visitor: &V) -> WalkStats {
    let fd_budget = opts.fd_budget.unwrap_or_else(default_fd_budget);
    let shared = Shared {
        opts: opts.clone(),
        visitor,
        queue: Mutex::new(Queue {
            dirs: VecDeque::new(),
            active: 0,
            idle: 0,
            taken: 0,
        }),
        wake: Condvar::new(),
        quit: AtomicBool::new(false),
        cached_fds: AtomicUsize::new(0),
        fd_budget,
        stats: WalkStats::default(),
        fs_magic: Mutex::new(Vec::new()),
        ready: Mutex::new(Ready::default()),
        ahead: Condvar::new(),
        drainer: Mutex::new(()),
    };
    {
        let mut state = visitor.state();
        let mut roots: Vec<&[u8]> = roots.iter().map(|r| r.as_slice()).collect();
        if opts.sort {
            roots.sort_unstable();
        }
        for root in roots {
            if shared.quit.load(Ordering::Relaxed) {
                break;
            }
            shared.visit_root(&mut state, root);
        }
        visitor.finish(state);
    }
    // Depth first, only one worker keeps a sorted walk's order.
    let threads = if opts.sort && opts.order == Order::DepthFirst {
        1
    } else {
        opts.threads.max(1)
    };
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| shared.work());
        }
    });
    shared.stats
}

/// Descriptors a walk may keep open: most of the soft `RLIMIT_NOFILE`,
/// leaving room for the readers' own, stdio and the visitor's files.
fn default_fd_budget() -> usize {
    let limit = sys::nofile_limit().min(1 << 20) as usize;
    (limit.saturating_sub(64) / 2).max(4)
}

impl<V: Visitor> Shared<'_, V> {
    /// Visits a root and queues it if it is a directory to read.
    fn visit_root(&self, state: &mut V::State, root: &[u8]) {
        let Ok(name) = CString::new(root) else {
            let e = io::Error::from_raw_os_error(libc::ENOENT);
            return self.report(state, root, WalkErrorKind::Io(e));
        };
        let follow = self.opts.follow != Follow::Never;
        // The root's stat is its visit's metadata: it holds the fields
        // the visitor asked for too (a birth time, say).
        let mask = StatxFlags::BASIC_STATS | self.opts.stat_mask;
        let st = if follow {
            // A broken link is taken for itself; a loop of links is an
            // error, as find reports it.
            match sys::statx_follow_at(rustix::fs::CWD, &name, mask) {
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
                    sys::statx_at(rustix::fs::CWD, &name, mask)
                }
                r => r,
            }
        } else {
            sys::statx_at(rustix::fs::CWD, &name, mask)
        };
        let st = match st {
            Ok(st) => st,
            Err(e) => return self.report(state, root, WalkErrorKind::Io(e)),
        };
        let t = FileType::from_mode(st.stx_mode as u32);
        let is_dir = t.is_dir();
        let descend = is_dir && self.opts.max_depth > 0;
        let mut flow = Flow::Continue;
        let v = Visit {
            path: root,
            name_start: 0,
            root_len: root.len(),
            depth: 0,
            dir: rustix::fs::CWD,
            at_name: &name,
            known: Kind::from_type(t),
            ino: st.stx_ino,
            follow,
            post_order: false,
            mask: self.opts.stat_mask,
            meta: OnceLock::from(Ok(st)),
        };
        if self.visitor.excluded(state, &v) {
            return;
        }
        if !(self.opts.post_order && descend) && self.opts.min_depth == 0 {
            flow = self.visitor.visit(state, &v);
        }
        if flow == Flow::Quit {
            self.quit.store(true, Ordering::Relaxed);
            return;
        }
        if descend && flow != Flow::Prune {
            let node = Arc::new(Node {
                parent: None,
                name,
                depth: 0,
                id: OnceLock::from((dev_of(&st), st.stx_ino)),
                fd: Mutex::new(None),
                children_left: AtomicUsize::new(0),
                pending: AtomicUsize::new(1),
                root_dev: dev_of(&st),
                is_root: true,
                root_len: root.len(),
            });
            self.queue.lock().expect("queue lock").dirs.push_back(node);
        }
    }

    /// A worker: reads directories until none is left.
    fn work(&self) {
        if self.opts.sort {
            return self.work_sorted();
        }
        let mut state = self.visitor.state();
        let mut buf = vec![0u8; self.opts.read.buffer_size.max(DEFAULT_BUFFER_SIZE)];
        let mut next = self.next(Vec::new(), None);
        while let Some((node, ticket)) = next {
            let children = if self.quit.load(Ordering::Relaxed) {
                Vec::new()
            } else {
                self.process(&mut state, &node, &mut buf)
            };
            next = self.next(children, Some(ticket));
        }
        self.visitor.finish(state);
    }

    /// Queues the subdirectories a worker found and takes its next
    /// directory and its ticket, under one lock (`finished`: the ticket of
    /// the directory the worker is done with); `None` when the walk is
    /// over.  Wakes as many idle workers as there is work left for.
    fn next(&self, children: Vec<Arc<Node>>, finished: Option<u64>) -> Option<(Arc<Node>, u64)> {
        let mut q = self.queue.lock().expect("queue lock");
        match self.opts.order {
            Order::BreadthFirst => q.dirs.extend(children),
            // Reversed, so that the first child is read first.
            Order::DepthFirst => q.dirs.extend(children.into_iter().rev()),
        }
        if finished.is_some() {
            q.active -= 1;
        }
        loop {
            if self.quit.load(Ordering::Relaxed) {
                q.dirs.clear();
            }
            let next = match self.opts.order {
                Order::BreadthFirst => q.dirs.pop_front(),
                Order::DepthFirst => q.dirs.pop_back(),
            };
            if let Some(n) = next {
                q.active += 1;
                let ticket = q.taken;
                q.taken += 1;
                let wake = q.dirs.len().min(q.idle);
                drop(q);
                self.wake_idle(wake);
                return Some((n, ticket));
            }
            if q.active == 0 {
                self.wake.notify_all();
                return None;
            }
            q.idle += 1;
            q = self.wake.wait(q).expect("queue lock");
            q.idle -= 1;
        }
    }

    /// A worker of a sorted walk: reads, sorts and classifies the
    /// directories it takes, hands them in by ticket, and visits whatever
    /// is ready in ticket order when no other worker is doing so.
    fn work_sorted(&self) {
        let mut state = self.visitor.state();
        let mut buf = vec![0u8; self.opts.read.buffer_size.max(DEFAULT_BUFFER_SIZE)];
        let mut next = self.next(Vec::new(), None);
        while let Some((node, ticket)) = next {
            self.hold_back(ticket);
            let p = if self.quit.load(Ordering::Relaxed) {
                Prepared::Skipped
            } else {
                self.prepare(&mut state, &node, &mut buf)
            };
            self.ready
                .lock()
                .expect("ready lock")
                .items
                .insert(ticket, (node, p));
            self.drain(&mut state);
            next = self.next(Vec::new(), None);
        }
        self.visitor.finish(state);
    }

    /// Sorted walks: waits while `ticket` is too far ahead of the turn,
    /// so that prepared directories (a descriptor and the entries each)
    /// cannot pile up behind a slow visitor.  Their descriptors are not in
    /// the budget of those kept for children, so their number is bounded
    /// by a share of it too: a low `RLIMIT_NOFILE` slows the read-ahead
    /// down rather than running out of descriptors.
    fn hold_back(&self, ticket: u64) {
        let limit = (4 * self.opts.threads.max(2))
            .min(self.fd_budget / 4)
            .max(1) as u64;
        let mut r = self.ready.lock().expect("ready lock");
        while ticket >= r.turn + limit && !self.quit.load(Ordering::Relaxed) {
            r.held += 1;
            r = self.ahead.wait(r).expect("ready lock");
            r.held -= 1;
        }
    }

    /// Sorted walks: unless another worker is at it, visits the ready
    /// directories in ticket order until the next one is not ready, then
    /// lets the visitor write what it holds ([`Visitor::turn_done`]).
    /// One worker visits many directories in a row, so turns rarely pass
    /// between threads (handing each turn to the worker that read the
    /// directory cost a thread wake-up per directory: the walk took twice
    /// as long on 8 workers as on one).
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
                let item = {
                    let mut r = self.ready.lock().expect("ready lock");
                    let turn = r.turn;
                    r.items.remove(&turn)
                };
                let Some((node, p)) = item else {
                    break;
                };
                let children = self.complete(state, &node, p);
                self.hand_in(children);
                let mut r = self.ready.lock().expect("ready lock");
                r.turn += 1;
                if r.held > 0 {
                    self.ahead.notify_all();
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

    /// Sorted walks: queues the children of a directory just visited (in
    /// ticket order: the queue's order is the one-thread order) and
    /// counts the directory done.
    fn hand_in(&self, children: Vec<Arc<Node>>) {
        let mut q = self.queue.lock().expect("queue lock");
        match self.opts.order {
            Order::BreadthFirst => q.dirs.extend(children),
            Order::DepthFirst => q.dirs.extend(children.into_iter().rev()),
        }
        q.active -= 1;
        if q.active == 0 && q.dirs.is_empty() {
            drop(q);
            self.wake.notify_all();
            return;
        }
        let wake = q.dirs.len().min(q.idle);
        drop(q);
        self.wake_idle(wake);
    }

    /// Wakes `n` idle workers for the directories waiting for them: one
    /// by name, several all at once (a notify per worker would cost a
    /// futex call each).
    fn wake_idle(&self, n: usize) {
        if n == 1 {
            self.wake.notify_one();
        } else if n > 1 {
            self.wake.notify_all();
        }
    }

    /// Opens the directory of `node` and checks it may be read (`same_fs`,
    /// loops with `-L`): `Err(None)` to skip it.
    fn open_checked(&self, node: &Arc<Node>) -> Result<OwnedFd, Option<WalkErrorKind>> {
        let fd = self
            .open_node(node)
            .map_err(|e| Some(WalkErrorKind::Io(e)))?;
        if self.opts.same_fs || self.opts.follow == Follow::Always {
            if let Ok(st) = sys::fstat(fd.as_fd()) {
                let id = (st.st_dev, st.st_ino);
                let _ = node.id.set(id);
                if self.opts.same_fs && id.0 != node.root_dev {
                    return Err(None);
                }
                if self.opts.follow == Follow::Always {
                    if let Some(ancestor) = find_loop(node, id) {
                        return Err(Some(WalkErrorKind::Loop(ancestor)));
                    }
                }
            }
        }
        Ok(fd)
    }

    /// Sorted walks: reads, sorts and classifies one directory, showing
    /// nothing to the visitor.
    fn prepare(&self, state: &mut V::State, node: &Arc<Node>, buf: &mut Vec<u8>) -> Prepared {
        let path = build_path(node);
        let fd = match self.open_checked(node) {
            Ok(fd) => fd,
            Err(Some(kind)) => return Prepared::Failed(path, kind),
            Err(None) => return Prepared::Skipped,
        };
        self.stats.dirs_read.fetch_add(1, Ordering::Relaxed);
        let read_started = sys::now().0;
        let mut dv = DirVisit::new(node, &path);
        // Nothing is visited: every entry goes to `dv.unknown`.
        let fd = self.read(state, fd, &path, buf, &mut dv);
        dv.unknown.retain(|b| !b.entries.is_empty());
        let entries = self.sort_and_classify(fd.as_fd(), &mut dv, read_started);
        let errors = std::mem::take(&mut dv.deferred);
        drop(dv);
        Prepared::Read {
            path,
            fd,
            entries,
            errors,
        }
    }

    /// Sorted walks: on its turn, reports a prepared directory's errors,
    /// visits its entries and returns its subdirectories.
    fn complete(&self, state: &mut V::State, node: &Arc<Node>, p: Prepared) -> Vec<Arc<Node>> {
        let (path, fd, entries, errors) = match p {
            Prepared::Failed(path, kind) => {
                self.report(state, &path, kind);
                self.finish_one(state, node);
                return Vec::new();
            }
            Prepared::Skipped => {
                self.finish_one(state, node);
                return Vec::new();
            }
            Prepared::Read {
                path,
                fd,
                entries,
                errors,
            } => (path, fd, entries, errors),
        };
        for e in errors {
            self.report(state, &path, WalkErrorKind::Io(e));
        }
        let mut dv = DirVisit::new(node, &path);
        self.visit_batches(state, &mut dv, fd.as_fd(), &entries);
        self.adopt_children(state, node, fd, &mut dv)
    }

    /// The end of a directory's walk: its subdirectories (none after a
    /// quit), its descriptor kept for their `openat` if the budget allows,
    /// its own read counted done.
    fn adopt_children(
        &self,
        state: &mut V::State,
        node: &Arc<Node>,
        fd: OwnedFd,
        dv: &mut DirVisit<'_>,
    ) -> Vec<Arc<Node>> {
        let mut children = std::mem::take(&mut dv.children);
        if self.quit.load(Ordering::Relaxed) {
            children.clear();
        }
        if !children.is_empty() {
            node.children_left.store(children.len(), Ordering::Relaxed);
            node.pending.fetch_add(children.len(), Ordering::AcqRel);
            // Keep this descriptor for the children's openat, budget allowing.
            if self.cached_fds.fetch_add(1, Ordering::AcqRel) < self.fd_budget {
                *node.fd.lock().expect("fd lock") = Some(Arc::new(fd));
            } else {
                self.cached_fds.fetch_sub(1, Ordering::AcqRel);
            }
        }
        self.finish_one(state, node);
        children
    }

    /// Reads one directory, visits its entries and queues its subdirectories.
    ///
    /// Entries whose type the directory entry gives are visited as they are
    /// read, so that memory does not grow with the directory's size; those
    /// whose type must first be learnt (no `d_type`; links to follow) are
    /// gathered and classified together once the read is over, which the
    /// link-count trick needs.
    fn process(&self, state: &mut V::State, node: &Arc<Node>, buf: &mut Vec<u8>) -> Vec<Arc<Node>> {
        let path = build_path(node);
        let fd = match self.open_checked(node) {
            Ok(fd) => fd,
            Err(kind) => {
                if let Some(kind) = kind {
                    self.report(state, &path, kind);
                }
                self.finish_one(state, node);
                return Vec::new();
            }
        };
        self.stats.dirs_read.fetch_add(1, Ordering::Relaxed);
        let read_started = sys::now().0;
        let mut dv = DirVisit::new(node, &path);
        let fd = self.read(state, fd, &path, buf, &mut dv);
        dv.unknown.retain(|b| !b.entries.is_empty());
        if !dv.unknown.is_empty() && !self.quit.load(Ordering::Relaxed) {
            let mut batches = std::mem::take(&mut dv.unknown);
            self.classify(fd.as_fd(), &mut batches, read_started, dv.known_dirs);
            self.visit_batches(state, &mut dv, fd.as_fd(), &batches);
        }
        self.adopt_children(state, node, fd, &mut dv)
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
        let batches = std::mem::take(&mut dv.unknown);
        let mut all = if batches.len() == 1 {
            batches.into_iter().next().expect("one batch")
        } else {
            let mut all = Batch::default();
            for b in &batches {
                for e in &b.entries {
                    all.push_kind(b.name(e), e.ino, e.kind);
                }
            }
            all
        };
        let names = &all.names;
        let name = |e: &BatchEntry| &names[e.name_start as usize..];
        // Names are NUL-terminated and hold no NUL: comparing from the
        // start up to the terminator is comparing the names as bytes.
        all.entries.sort_unstable_by(|a, b| {
            let (x, y) = (name(a), name(b));
            let x = &x[..x.iter().position(|&c| c == 0).unwrap_or(x.len())];
            let y = &y[..y.iter().position(|&c| c == 0).unwrap_or(y.len())];
            x.cmp(y)
        });
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

    /// Reads the whole directory, visiting entries of known type at once
    /// and gathering the others in `dv.unknown`.  A directory found huge
    /// after [`SLICE_CHECK_AFTER`] entries is read on from there in slices,
    /// each visited on its slice's thread.
    fn read(
        &self,
        state: &mut V::State,
        fd: OwnedFd,
        path: &[u8],
        buf: &mut Vec<u8>,
        dv: &mut DirVisit<'_>,
    ) -> OwnedFd {
        let may_slice = self.opts.read.threads > 1;
        let mut reader = DirReader::with_buffer(fd, std::mem::take(buf));
        if may_slice {
            reader = reader.with_first_read(FIRST_READ);
        }
        let mut taken = 0;
        let mut checked = false;
        let mut prev_off = u64::MAX;
        let mut resume = None;
        loop {
            let off = match reader.next_with_fd() {
                Ok(Some((dir, e))) => {
                    self.take(state, dv, dir, e.name_cstr(), e.ino(), e.file_type());
                    e.next_offset()
                }
                Ok(None) => break,
                Err(e) => {
                    self.read_error(state, dv, path, e);
                    break;
                }
            };
            taken += 1;
            // A directory that filled the small first read is checked for
            // slicing before more of it is read one block after another
            // (cold, each block is a wait); only where the resume point is
            // exact (see `slice::read_dir_from`): offsets that differ.
            let big = reader.first_read_drained_full() || taken >= SLICE_CHECK_AFTER;
            if may_slice && !checked && big && off != prev_off {
                checked = true;
                if let Ok(ReadPlan::Sliced { space, slices }) =
                    slice::plan(reader.fd(), &self.opts.read)
                {
                    resume = Some((space, slices, off));
                    break;
                }
            }
            prev_off = off;
            if self.quit.load(Ordering::Relaxed) {
                break;
            }
        }
        let (fd, b) = reader.into_parts();
        *buf = b;
        if let Some((space, slices, from)) = resume {
            self.stats.dirs_sliced.fetch_add(1, Ordering::Relaxed);
            let dv_ref = &*dv;
            let outcome = slice::read_dir_from(
                fd.as_fd(),
                space,
                from,
                slices,
                self.opts.read.buffer_size,
                |_| SliceVisit {
                    shared: self,
                    state: Some(self.visitor.state()),
                    dv: dv_ref.fork(),
                },
            );
            for e in outcome.errors {
                self.read_error(state, dv, path, e);
            }
            for mut s in outcome.sinks {
                if let Some(st) = s.state.take() {
                    self.visitor.finish(st);
                }
                dv.join(s.dv);
            }
        }
        fd
    }

    /// Reports a failed read, at once or (sorted walks) on the directory's
    /// turn.
    fn read_error(&self, state: &mut V::State, dv: &mut DirVisit<'_>, path: &[u8], e: io::Error) {
        if self.opts.sort {
            dv.deferred.push(e);
        } else {
            self.report(state, path, WalkErrorKind::Io(e));
        }
    }

    /// Takes one entry just read: visits it if its type is known (or need
    /// not be), else keeps it for [`Shared::classify`]; in a sorted walk,
    /// keeps every entry.
    fn take(
        &self,
        state: &mut V::State,
        dv: &mut DirVisit<'_>,
        dir: BorrowedFd<'_>,
        name: &CStr,
        ino: u64,
        t: FileType,
    ) {
        let t = if self.opts.ignore_dtype {
            FileType::UNKNOWN
        } else {
            t
        };
        let kind = Kind::from_type(t);
        let unknown = match kind {
            Kind::Unknown => true,
            Kind::NotDir(FileType::SYMLINK) => self.opts.follow == Follow::Always,
            Kind::Dir => {
                dv.known_dirs += 1;
                false
            }
            Kind::NotDir(_) => false,
        };
        if !unknown {
            self.stats.types.by_dtype.fetch_add(1, Ordering::Relaxed);
        }
        // Types matter only to descend: at the depth limit, the visitor
        // stats what it needs itself.  Following links, every entry goes
        // through the batch, so that the directory's entries are visited
        // (and its subdirectories walked) in the order read, links among
        // them, as find visits them: `-L ... -delete` depends on it.
        let follow_all = self.opts.follow == Follow::Always;
        if self.opts.sort || (unknown || follow_all) && dv.depth < self.opts.max_depth {
            if dv.unknown.is_empty() {
                dv.unknown.push(Batch::default());
            }
            dv.unknown[0].push(name, ino, t);
        } else {
            self.visit_entry(state, dv, dir, name, ino, kind);
        }
    }

    /// Visits one entry of the directory of `dv` and, if it is to be
    /// walked, makes it a child.
    fn visit_entry(
        &self,
        state: &mut V::State,
        dv: &mut DirVisit<'_>,
        dir: BorrowedFd<'_>,
        name: &CStr,
        ino: u64,
        kind: Kind,
    ) {
        if self.quit.load(Ordering::Relaxed) {
            return;
        }
        let depth = dv.depth;
        let descend = kind == Kind::Dir && depth < self.opts.max_depth;
        let mut flow = Flow::Continue;
        dv.path.truncate(dv.base);
        dv.path.extend_from_slice(name.to_bytes());
        let v = Visit {
            path: &dv.path,
            name_start: dv.base,
            root_len: dv.node.root_len,
            depth,
            dir,
            at_name: name,
            known: kind,
            ino,
            follow: self.opts.follow == Follow::Always,
            post_order: false,
            mask: self.opts.stat_mask,
            meta: OnceLock::new(),
        };
        if self.visitor.excluded(state, &v) {
            return;
        }
        if depth >= self.opts.min_depth && !(self.opts.post_order && descend) {
            flow = self.visitor.visit(state, &v);
        }
        if flow == Flow::Quit {
            self.quit.store(true, Ordering::Relaxed);
            return;
        }
        if descend && flow != Flow::Prune {
            dv.children.push(Arc::new(Node {
                parent: Some(Arc::clone(dv.node)),
                name: name.to_owned(),
                depth,
                id: OnceLock::new(),
                fd: Mutex::new(None),
                children_left: AtomicUsize::new(0),
                pending: AtomicUsize::new(1),
                root_dev: dv.node.root_dev,
                is_root: false,
                root_len: dv.node.root_len,
            }));
        }
    }

    /// Visits the classified entries of `batches` (one per slice of the
    /// read): big ones on all threads at once, each thread with a visitor
    /// state of its own.
    fn visit_batches(
        &self,
        state: &mut V::State,
        dv: &mut DirVisit<'_>,
        dir: BorrowedFd<'_>,
        batches: &[Batch],
    ) {
        let total: usize = batches.iter().map(|b| b.entries.len()).sum();
        let threads = self.opts.read.threads.max(1);
        if total < PARALLEL_VISIT_MIN || threads < 2 || self.opts.sort {
            for b in batches {
                for e in &b.entries {
                    self.visit_entry(state, dv, dir, b.name(e), e.ino, e.kind);
                }
            }
            return;
        }
        // Parts of about total / threads entries, never across batches.
        let per = total.div_ceil(threads);
        let parts: Vec<(&Batch, &[BatchEntry])> = batches
            .iter()
            .flat_map(|b| b.entries.chunks(per).map(move |c| (b, c)))
            .collect();
        let dv_ref = &*dv;
        let done: Vec<DirVisit<'_>> = std::thread::scope(|scope| {
            let handles: Vec<_> = parts
                .into_iter()
                .map(|(b, part)| {
                    scope.spawn(move || {
                        let mut st = self.visitor.state();
                        let mut mine = dv_ref.fork();
                        for e in part {
                            self.visit_entry(&mut st, &mut mine, dir, b.name(e), e.ino, e.kind);
                        }
                        self.visitor.finish(st);
                        mine
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a visiting thread panicked"))
                .collect()
        });
        for p in done {
            dv.join(p);
        }
    }

    /// Learns which entries of `batches` are directories (and, with `-L`,
    /// which symlinks lead to one), with as few stats as possible.
    /// `known_dirs`: the directory's subdirectories that `d_type` named.
    fn classify(
        &self,
        dir: BorrowedFd<'_>,
        batches: &mut [Batch],
        read_started: i64,
        known_dirs: u64,
    ) {
        let counters = &self.stats.types;
        if self.opts.follow == Follow::Always {
            for b in batches.iter_mut() {
                for i in 0..b.entries.len() {
                    if !matches!(
                        b.entries[i].kind,
                        Kind::Unknown | Kind::NotDir(FileType::SYMLINK)
                    ) {
                        continue;
                    }
                    let name = b.name(&b.entries[i]);
                    counters.stats.fetch_add(1, Ordering::Relaxed);
                    let t = sys::statx_follow_at(dir, name, StatxFlags::TYPE)
                        .or_else(|_| sys::statx_at(dir, name, StatxFlags::TYPE))
                        .map_or(FileType::UNKNOWN, |s| {
                            FileType::from_mode(s.stx_mode as u32)
                        });
                    // A link to a directory is walked; the visit still
                    // sees a link.
                    b.entries[i].kind = if t.is_dir() {
                        Kind::Dir
                    } else {
                        Kind::from_type(t)
                    };
                }
            }
            return;
        }
        let before = self.settled_state(dir, read_started);
        let mut known_dirs = known_dirs;
        if let Some(before) = &before {
            // First the likely directories alone: when they hold every
            // subdirectory, nothing is built for the others.
            if let Some(found) = self.classify_likely(dir, batches, before, known_dirs) {
                known_dirs += found;
            } else {
                return;
            }
        }
        let mut at = Vec::new();
        let mut unknown: Vec<Unknown<'_>> = Vec::new();
        for (bi, b) in batches.iter().enumerate() {
            for (ei, e) in b.entries.iter().enumerate() {
                if e.kind == Kind::Unknown {
                    at.push((bi, ei));
                    unknown.push(Unknown {
                        name: b.name(e),
                        ino: e.ino,
                        kind: Kind::Unknown,
                    });
                }
            }
        }
        let opts = ResolveOptions {
            want: Want::DirOrNot,
            in_flight: self.opts.threads,
        };
        match before {
            Some(before) => {
                scan::resolve_unknown(dir, &before, known_dirs, &mut unknown, opts, counters)
            }
            None => {
                // The directory changed around the read: no link count.
                counters.fallbacks.fetch_add(1, Ordering::Relaxed);
                let opts = ResolveOptions {
                    want: Want::FullType,
                    ..opts
                };
                let any = DirState::unusable();
                scan::resolve_unknown(dir, &any, known_dirs, &mut unknown, opts, counters);
            }
        }
        let kinds: Vec<Kind> = unknown.iter().map(|u| u.kind).collect();
        drop(unknown);
        for ((bi, ei), k) in at.into_iter().zip(kinds) {
            batches[bi].entries[ei].kind = k;
        }
    }

    /// The first step of [`Shared::classify`] ([`scan::resolve_likely`]):
    /// stats the likely directories until the link count is reached.
    /// `None` if every entry is classified; else how many directories the
    /// likely ones held (the others are still unknown).
    fn classify_likely(
        &self,
        dir: BorrowedFd<'_>,
        batches: &mut [Batch],
        before: &DirState,
        known_dirs: u64,
    ) -> Option<u64> {
        let counters = &self.stats.types;
        let mut at = Vec::new();
        let mut likely: Vec<Unknown<'_>> = Vec::new();
        let mut total = 0;
        for (bi, b) in batches.iter().enumerate() {
            total += b.entries.len();
            for (ei, e) in b.entries.iter().enumerate() {
                let name = b.name(e);
                if scan::is_likely_dir_name(name.to_bytes()) {
                    at.push((bi, ei));
                    likely.push(Unknown {
                        name,
                        ino: e.ino,
                        kind: Kind::Unknown,
                    });
                }
            }
        }
        if likely.len() == total {
            // Nothing to spare: the full resolve does the same work.
            return Some(0);
        }
        let outcome = scan::resolve_likely(
            dir,
            before,
            known_dirs,
            &mut likely,
            self.opts.threads,
            counters,
        );
        let kinds: Vec<Kind> = likely.iter().map(|u| u.kind).collect();
        drop(likely);
        for (&(bi, ei), k) in at.iter().zip(kinds) {
            batches[bi].entries[ei].kind = k;
        }
        match outcome {
            scan::Likely::AllFound => {
                let mut others = 0;
                for e in batches.iter_mut().flat_map(|b| b.entries.iter_mut()) {
                    if e.kind == Kind::Unknown {
                        e.kind = Kind::NotDir(FileType::UNKNOWN);
                        others += 1;
                    }
                }
                counters.by_nlink.fetch_add(others, Ordering::Relaxed);
                None
            }
            scan::Likely::Partial { found } => Some(found),
        }
    }

    /// The directory's state after its read, if nothing changed in it
    /// since before the read started (its times are older), so that it can
    /// stand for the state before the read.
    fn settled_state(&self, dir: BorrowedFd<'_>, read_started: i64) -> Option<DirState> {
        let st = sys::fstat(dir).ok()?;
        let dev = st.st_dev as u64;
        let magic = {
            let cache = self.fs_magic.lock().expect("magic lock");
            cache.iter().find(|(d, _)| *d == dev).map(|&(_, m)| m)
        };
        let magic = match magic {
            Some(m) => m,
            None => {
                let m = sys::fs_magic(dir).ok()?;
                self.fs_magic.lock().expect("magic lock").push((dev, m));
                m
            }
        };
        let state = DirState::from_stat(&st, magic);
        state.settled_before(read_started).then_some(state)
    }

    /// Opens the directory of `node`: relative to its parent's descriptor
    /// if still open, else by a relative path from the nearest open
    /// ancestor (in steps, for any depth).
    fn open_node(&self, node: &Node) -> io::Result<OwnedFd> {
        let Some(parent) = &node.parent else {
            return sys::open_dir_path(&node.name);
        };
        let follow = self.opts.follow == Follow::Always;
        // Cloned out first: the lock must not be held while opening, which
        // may lock the ancestors' descriptors in turn.
        let parent_fd = parent.fd.lock().expect("fd lock").clone();
        let r = match parent_fd {
            Some(pfd) => open_at(pfd.as_fd(), &node.name, follow),
            None => {
                self.stats.reopened_by_path.fetch_add(1, Ordering::Relaxed);
                self.open_by_path(node, follow)
            }
        };
        if parent.children_left.fetch_sub(1, Ordering::AcqRel) == 1
            && parent.fd.lock().expect("fd lock").take().is_some()
        {
            self.cached_fds.fetch_sub(1, Ordering::AcqRel);
        }
        r
    }

    /// Opens `node` by the names from its nearest ancestor with an open
    /// descriptor (or from its root's path).
    fn open_by_path(&self, node: &Node, follow: bool) -> io::Result<OwnedFd> {
        let mut names: Vec<&CStr> = vec![&node.name];
        let mut base: Option<Arc<OwnedFd>> = None;
        let mut up = node.parent.as_deref();
        while let Some(n) = up {
            let cached = n.fd.lock().expect("fd lock").clone();
            if let Some(fd) = cached {
                base = Some(fd);
                break;
            }
            names.push(&n.name);
            up = n.parent.as_deref();
        }
        names.reverse();
        // Join the names in chunks that stay well below PATH_MAX.
        let mut current: Option<OwnedFd> = None;
        let mut chunk: Vec<u8> = Vec::new();
        let last = names.len() - 1;
        for (i, name) in names.iter().enumerate() {
            if !chunk.is_empty() {
                chunk.push(b'/');
            }
            chunk.extend_from_slice(name.to_bytes());
            if chunk.len() < PATH_STEP && i != last {
                continue;
            }
            let c = CString::new(std::mem::take(&mut chunk)).expect("names have no NUL");
            let from = match (&current, &base) {
                (Some(fd), _) => fd.as_fd(),
                (None, Some(b)) => b.as_fd(),
                (None, None) => rustix::fs::CWD,
            };
            current = Some(open_at(from, &c, follow || i != last)?);
        }
        current.ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))
    }

    /// One piece of a directory's work is done (its read, or a subtree);
    /// at zero, the post-order visit, then the parent's turn.
    fn finish_one(&self, state: &mut V::State, node: &Arc<Node>) {
        if node.pending.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        if self.opts.post_order
            && !self.quit.load(Ordering::Relaxed)
            && node.depth >= self.opts.min_depth
        {
            self.visit_post_order(state, node);
        }
        if let Some(parent) = &node.parent {
            self.finish_one(state, parent);
        }
    }

    /// Visits a directory after everything below it.
    fn visit_post_order(&self, state: &mut V::State, node: &Node) {
        let path = build_path(node);
        let by_path = !self.opts.post_order_parent_fd && node.parent.is_some();
        let parent_fd = match &node.parent {
            Some(_) if by_path => None,
            Some(p) => match self.reopen(p) {
                Ok(fd) => Some(fd),
                Err(e) => return self.report(state, &path, WalkErrorKind::Io(e)),
            },
            None => None,
        };
        let dir = parent_fd.as_ref().map_or(rustix::fs::CWD, |f| f.as_fd());
        let whole_path;
        let at_name: &CStr = if by_path {
            whole_path = CString::new(path.clone()).expect("names have no NUL");
            &whole_path
        } else {
            &node.name
        };
        let name_start = if node.parent.is_some() {
            path.len() - node.name.as_bytes().len()
        } else {
            0
        };
        let v = Visit {
            path: &path,
            name_start,
            root_len: node.root_len,
            depth: node.depth,
            dir,
            at_name,
            known: Kind::Dir,
            ino: node.id.get().map_or(0, |id| id.1),
            follow: node.is_root && self.opts.follow != Follow::Never
                || self.opts.follow == Follow::Always,
            post_order: true,
            mask: self.opts.stat_mask,
            meta: OnceLock::new(),
        };
        if self.visitor.visit(state, &v) == Flow::Quit {
            self.quit.store(true, Ordering::Relaxed);
        }
    }

    /// Opens `node` again (for a post-order visit of one of its children).
    fn reopen(&self, node: &Node) -> io::Result<OwnedFd> {
        let cached = node.fd.lock().expect("fd lock").clone();
        if let Some(fd) = cached {
            return sys::reopen_dir(fd.as_fd());
        }
        match &node.parent {
            None => sys::open_dir_path(&node.name),
            Some(_) => self.open_by_path(node, self.opts.follow == Follow::Always),
        }
    }

    /// Passes a problem to the visitor.
    fn report(&self, state: &mut V::State, path: &[u8], kind: WalkErrorKind) {
        let e = WalkError {
            path: path.to_vec(),
            kind,
        };
        self.visitor.error(state, &e);
    }
}

/// `openat` of a directory, following a final symlink only if `follow`.
fn open_at(base: BorrowedFd<'_>, name: &CStr, follow: bool) -> io::Result<OwnedFd> {
    if follow {
        sys::open_dir_follow_at(base, name)
    } else {
        sys::open_dir_at(base, name)
    }
}

/// The device number of a statx result, encoded as `st_dev` is (the walk
/// compares it with `fstat` results).
fn dev_of(st: &Statx) -> u64 {
    sys::makedev(st.stx_dev_major, st.stx_dev_minor)
}

/// The path of `node`: its root's path and the names below it.
fn build_path(node: &Node) -> Vec<u8> {
    let mut names = Vec::with_capacity(node.depth + 1);
    let mut n = Some(node);
    while let Some(x) = n {
        names.push(x.name.as_bytes());
        n = x.parent.as_deref();
    }
    let mut path = Vec::new();
    for (i, name) in names.iter().rev().enumerate() {
        if i > 0 && !path.ends_with(b"/") {
            path.push(b'/');
        }
        path.extend_from_slice(name);
    }
    path
}

/// The path of the ancestor of `node` with the same (dev, ino), if any.
fn find_loop(node: &Node, id: (u64, u64)) -> Option<Vec<u8>> {
    let mut up = node.parent.as_deref();
    while let Some(n) = up {
        if n.id.get() == Some(&id) {
            return Some(build_path(n));
        }
        up = n.parent.as_deref();
    }
    None
}

/// One thread's share of visiting a directory's entries.
struct DirVisit<'n> {
    /// The directory.
    node: &'n Arc<Node>,
    /// The directory's path and a `/`, then the name of the entry visited.
    path: Vec<u8>,
    /// Where the names start in `path`.
    base: usize,
    /// The entries' depth.
    depth: usize,
    /// Subdirectories to walk.
    children: Vec<Arc<Node>>,
    /// Entries whose type is still to be learnt (one batch per slice).
    unknown: Vec<Batch>,
    /// Subdirectories named by `d_type`.
    known_dirs: u64,
    /// Sorted walks: read errors, reported on the directory's turn.
    deferred: Vec<io::Error>,
}

impl<'n> DirVisit<'n> {
    fn new(node: &'n Arc<Node>, dir_path: &[u8]) -> DirVisit<'n> {
        let mut path = Vec::with_capacity(dir_path.len() + 64);
        path.extend_from_slice(dir_path);
        if !path.ends_with(b"/") {
            path.push(b'/');
        }
        DirVisit {
            node,
            base: path.len(),
            path,
            depth: node.depth + 1,
            children: Vec::new(),
            unknown: Vec::new(),
            known_dirs: 0,
            deferred: Vec::new(),
        }
    }

    /// An empty share of the same directory, for another thread.
    fn fork(&self) -> DirVisit<'n> {
        DirVisit {
            node: self.node,
            path: self.path[..self.base].to_vec(),
            base: self.base,
            depth: self.depth,
            children: Vec::new(),
            unknown: Vec::new(),
            known_dirs: 0,
            deferred: Vec::new(),
        }
    }

    /// Takes back what another thread's share found.
    fn join(&mut self, other: DirVisit<'n>) {
        self.children.extend(other.children);
        self.known_dirs += other.known_dirs;
        self.unknown.extend(other.unknown);
        self.deferred.extend(other.deferred);
    }
}

/// The sink of one slice of a huge directory: visits entries on the
/// slice's thread.
struct SliceVisit<'s, 'v, 'n, V: Visitor> {
    shared: &'s Shared<'v, V>,
    state: Option<V::State>,
    dv: DirVisit<'n>,
}

impl<V: Visitor> EntrySink for SliceVisit<'_, '_, '_, V> {
    fn entry(&mut self, dir: BorrowedFd<'_>, e: &crate::dir::Entry<'_>) {
        if let Some(state) = self.state.as_mut() {
            self.shared.take(
                state,
                &mut self.dv,
                dir,
                e.name_cstr(),
                e.ino(),
                e.file_type(),
            );
        }
    }
}

/// One directory's entries: names in an arena, NUL-terminated.
#[derive(Debug, Default)]
struct Batch {
    names: Vec<u8>,
    entries: Vec<BatchEntry>,
}

#[derive(Debug, Clone, Copy)]
struct BatchEntry {
    name_start: u32,
    ino: u64,
    kind: Kind,
}

impl Batch {
    fn push(&mut self, name: &CStr, ino: u64, t: FileType) {
        self.push_kind(name, ino, Kind::from_type(t));
    }

    fn push_kind(&mut self, name: &CStr, ino: u64, kind: Kind) {
        self.entries.push(BatchEntry {
            name_start: self.names.len() as u32,
            ino,
            kind,
        });
        self.names.extend_from_slice(name.to_bytes_with_nul());
    }

    fn name(&self, e: &BatchEntry) -> &CStr {
        CStr::from_bytes_until_nul(&self.names[e.name_start as usize..]).expect("NUL-terminated")
    }
}
