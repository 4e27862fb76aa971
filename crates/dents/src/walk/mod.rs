//! The parallel walker: every entry of one or more trees, exactly once.
//!
//! ```text
//!            roots                      workers (N threads)
//!              |                   +--------------------------------+
//!              v                   |  take a directory              |
//!   +---------------------+  pop   |  open it (openat on parent)    |
//!   | queue of directories| -----> |  read it; visit each entry of  |
//!   | top levels: FIFO    |        |   known type as it is read     |
//!   | below: LIFO         | <----- |  classify the unknown ones,    |
//!   +---------------------+  push  |   visit them                   |
//!                                  |  queue its subdirectories      |
//!                                  +--------------------------------+
//! ```
//!
//! Entries whose `d_type` says what they are are visited straight from the
//! read buffer, so memory does not grow with a directory's size.  Nor
//! with its width: an unsorted walk hands a directory's subdirectories to
//! the queue 1,024 at a time as it reads them (other workers read them
//! meanwhile), and a worker that finds the queue past 16,384 directories
//! stops its read to read queued ones itself until half are left, as
//! GNU's fts reads a huge directory 100,000 entries at a time; the
//! queue's memory stays near 2 MiB whatever the width.  Where the order
//! lets no worker take them (the deep subdirectories of a directory at
//! depth 2 being read, in the hybrid order) the deep list goes on, past
//! 24,576 directories, in a temporary file, its oldest part spilled and
//! read back last in, first out, each directory a record of its name and
//! identity, its parent node kept once for its siblings (`deep.rs`).
//! Entries of unknown type are known only once the whole directory is
//! read, and their directory's listing is held until then.  A directory with so
//! many subdirectories (its link count says so) is read serially rather
//! than in slices, whose subdirectories would wait for the end.  After
//! its first 8 KiB of entries a directory is checked for slicing; a huge
//! one on ext4 or XFS is read on from where the serial read stopped, in
//! slices of the rest of its offset space ([`crate::unstable::read_dir_from`]), each
//! slice visited on its own thread; a walk that sets
//! [`WalkOptions::offer_big_dirs`] first offers such a directory, read
//! that far, to its visitor ([`Visitor::take_rest`]: `dents-mpi` reads
//! the rest on other machines).  Entries of unknown type (no `d_type`;
//! links to follow with `-L`) are gathered, one batch per slice, and
//! classified together ([`crate::scan`]): first the likely directories alone
//! ([`crate::scan::resolve_likely`]), which usually account for every
//! subdirectory the link count promises; then, only if not, the rest.
//!
//! One lock guards the queue, taken once per directory (queue the
//! children, take the next); idle workers are woken only for work there
//! is, and workers are started only as the queue grows beyond them.
//!
//! # Order
//!
//! The default order ([`Order::Hybrid`]) reads the directories of the top
//! levels (depth 0 to 2) first in, first out, and the deeper ones last in,
//! first out; a deeper one is taken only once no directory of the top
//! levels is waiting or being read.  It guarantees, at any number of
//! workers, that **every entry at depth 3 or less is visited before any
//! entry deeper than 3** (and, on one worker, that those entries come in
//! level order, but for a directory of more subdirectories than the
//! queue keeps, read in part before the rest of it is: see above), so
//! that a shallow match is found, and `-quit` stops the
//! walk, after reading only the few directories of the top levels; below,
//! each worker goes on depth first, where the directory it just read is
//! still in the caches (breadth first costs more CPU:
//! docs/walk-order.md#1-where-breadth-first-loses-hot).
//! [`Order::BreadthFirst`] keeps the level order
//! all the way down, [`Order::DepthFirst`] none.
//!
//! Each queued directory is a node with a counted link to its parent,
//! so paths are built from names when a directory is read rather than
//! stored for every entry.  A directory's descriptor stays open while its
//! subdirectories still need it as the base of their `openat`; when more
//! descriptors would be needed than the budget (derived from
//! `RLIMIT_NOFILE`) allows, a subdirectory is opened by a relative path
//! from its nearest ancestor still open, in steps short enough for any
//! depth, so trees deeper than `PATH_MAX` are walked and `EMFILE` never
//! happens.  The budget and the number of workers come from the limit and
//! the descriptors open when the walk starts (two a worker at most, fewer
//! workers where few are free; a huge directory's slices only from what
//! is left); an open that still meets `EMFILE` (the visitor's own files)
//! waits for descriptors to come back and tries again.  Nothing about a
//! directory is kept per level that a deep chain would make quadratic:
//! paths are built from at most 64 names, post-order parents reopened by
//! `..` (checked by device and inode), chains of nodes dropped in a loop.
//!
//! Loops: as find, every directory entered is checked against its
//! ancestors' (device, inode), before its visit, and one that closes a
//! loop is reported instead of visited.  Where no loop is possible the
//! check costs nothing: without a mount point or a followed link on the
//! way, a subdirectory lies strictly below its parent in the real tree.
//! Mount points are known from the mount table read when the walk starts
//! (a bind mount of an ancestor below itself: `mount --bind a a/b/c`);
//! a mount made while the walk runs is not seen there, where find, which
//! stats every directory it enters, would see it.
//!
//! Post-order (`-depth`): each directory counts the work still pending
//! below it (its own read and each subdirectory's subtree); the worker that
//! brings the count to zero visits the directory and passes the completion
//! up to its parent.
//!
//! The visitor runs on the worker threads, with per-thread state of its
//! own (an output buffer, say): output streams as the walk goes, and a slow
//! reader of it slows the workers down instead of growing a queue.
//! A panic of the visitor, on any worker, ends the walk: the other
//! workers stop visiting and leave, every thread is joined, and the
//! panic (its own payload) goes on from the thread that called the walk.
//!
//! # Sorted walks
//!
//! With [`WalkOptions::sort_by_name`] every directory is read whole, its entries
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
//! (names and 16 bytes each; at most 16 directories a worker, and 16 MiB
//! in all, ahead of the visits), and the visits, and so the visitor's
//! work, are serial (what the visitor stats can be stat'ed ahead on the
//! workers: [`Visitor::stat_ahead`]).
//! Level by level, the queue holds every directory of the level being
//! visited and of the next, so its memory would grow with the tree's
//! width: past a few thousand directories it is spilled, in order, to a
//! temporary file (the one [`crate::spill`] makes, as the ncdu export
//! does), each group of siblings written as its parent's path and their
//! names and identities (a directory's subdirectories queued, and so
//! spilled, 1,024 at a time as it is visited: a wide one is never all
//! nodes at once, only its sorted listing), and read back a segment at
//! a time (a segment
//! that cannot be read back is the walk's error, [`Operation::ReadBack`],
//! reported in its place in the order: its directories are not walked,
//! the rest is).  A directory
//! read back has no parent node (its parent's path stands for it): it is
//! opened relative to its parent's descriptor, kept with its group where
//! the budget let the parent keep one, else opened again once for the
//! group, else by its path; the walks whose directories need their
//! ancestors (post-order visits, `Follow::Always`'s loop checks, a
//! directory with mount points below it or a stat kept for
//! [`Visitor::listing_stated`]) keep those in memory, in their place.
//! A visitor that stats entries says which ([`Visitor::stat_ahead`]): the
//! workers then stat them in parallel before the visits (a directory's
//! first entries while it is prepared, the rest of a big one in chunks on
//! helper threads, a bounded window ahead of its visits).
//!
//! # Parts
//!
//! One [`walk`] shares one `Shared` (options, queue, descriptor budget,
//! statistics) among its workers; each file below adds the methods of one
//! concern to it.
//!
//! The files form layers: each uses only files of lower layers (and the
//! shared types of `mod.rs`, which uses them all); `tests/layers.rs`
//! keeps it so.
//!
//! | layer | file | what it does |
//! | --- | --- | --- |
//! | 5 | `sorted` | sorted walks: tickets, directories prepared ahead, visited in ticket order by one worker at a time |
//! | 5 | `classify` | the types `d_type` leaves unknown, learnt with as few stats as possible (the link count) |
//! | 5 | `post` | finishing a directory: its descriptor kept for its children, pending work counted down, post-order visits |
//! | 4 | `read` | reading one directory: the roots' visits, entries visited as read or gathered in batches, huge directories in slices, a wide one's subdirectories handed to the queue as read |
//! | 3 | `queue` | the work queue: a worker's loop, queueing children and taking the next directory under one lock, waking idle workers |
//! | 2 | `open` | the descriptor plan and budget, `openat` on a kept parent or by a path from an ancestor, `EMFILE` retries |
//! | 2 | `loops` | loop checks: the identity of each directory entered against its ancestors', where a loop is possible |
//! | 2 | `deep` | an unsorted walk's deep list past its limit: the oldest spilled to a temporary file, read back last in, first out |
//! | 1 | `panics` | a panic on any thread: caught, the walk stopped and every worker let go, the original panic resumed on the caller's thread |
//! | 1 | `node` | a directory of the walk (`Node`): while queued, its parent link, name and identity; once taken, its `Open` part (kept descriptor, pending counts); paths built from names |
//! | 0 | `held` | workers held back (a sorted walk's, too far ahead of the visits), each woken by itself when its turn comes |
//! | 0 | `mounts` | the mount table: which mount points lie below a directory |
//! | 0 | `start` | where a walk starts, the big directory offered ([`crate::unstable`] makes them public) |
//! | 0 | `stored` | a visit of a recorded entry (a snapshot's row, `find --from`): its stat given, nothing read or stat'ed |
//!
//! `mod.rs` holds the public types ([`WalkOptions`], [`Visitor`],
//! [`Visit`], ...) and [`walk`]: the plan, the roots, the workers started.
//!
//! A directory's life: queued as a `Node` by its parent's read
//! (`read.rs`), taken by a worker (`queue.rs`), opened (`open.rs`), read
//! and its entries visited (`read.rs`, `classify.rs`; each subdirectory
//! checked for loops, `mounts.rs`, and made a child `Node`), then
//! finished (`post.rs`): its children queued, its descriptor kept while
//! they need it, its post-order visit once everything below is done.

mod classify;
mod deep;
mod held;
mod loops;
mod mounts;
mod node;
mod open;
mod panics;
mod post;
mod queue;
mod read;
mod sorted;
pub(crate) mod start;
mod stored;

pub use stored::Recorded;

use std::ffi::CStr;
use std::io;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

use crate::error::{Error, ErrorKind, Operation};
use crate::file_type::FileType;
use crate::flow::Flow;
use crate::follow::Follow;
use crate::metadata::{Metadata, StatFields};
use crate::scan::{Counters, Kind};
use crate::slice::ReadOptions;
use crate::stats::Stats;
use crate::sys;

use self::mounts::Mounts;
use self::open::fd_plan;
use self::panics::Payload;
use self::queue::Queue;
use self::sorted::Ready;
use self::start::{BigDir, Start};

/// The order directories are read in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Order {
    /// Breadth first: every entry in level order (approximately, with
    /// several threads), results near the roots first.
    BreadthFirst,
    /// Depth first (approximately, with several threads).
    DepthFirst,
    /// Level order across the top three levels, then depth first below
    /// (the default): near-root results first at depth-first cost.
    ///
    /// The guarantee, at any number of workers: **every entry at depth 3
    /// or less is visited before any entry deeper than 3** (a starting
    /// point is at depth 0; post-order visits, [`WalkOptions::contents_first`],
    /// are not covered: a directory's comes after its contents).  On one
    /// worker, the entries down to depth 3 come in level order (all of
    /// depth 1, then all of depth 2, then all of depth 3).  Below depth 3
    /// the order is depth first and not specified further.  So a match at
    /// depth 3 or less is found, and a walk that quits on it stops, after
    /// reading only the directories above depth 3.  A sorted walk
    /// ([`WalkOptions::sort_by_name`]) in this order is a sorted breadth-first
    /// walk, which keeps the guarantee.
    ///
    /// Why: breadth first costs more CPU than depth first on the same
    /// system calls, because a directory's descriptor, kernel state and
    /// node are cold when its turn comes a level later
    /// (docs/walk-order.md#1-where-breadth-first-loses-hot); the top
    /// levels hold few directories, so reading only them in level order
    /// costs nothing measurable.
    Hybrid,
}

/// Options of a walk, built from [`WalkOptions::new`] through its
/// setters (the names [`crate::Walker`]'s builder uses) and read back
/// through its `get_*` methods, as `std::process::Command` does.
///
/// The fields are private and the struct `#[non_exhaustive]` so that an
/// option can be added in any release without breaking a caller.
///
/// ```
/// use dents::walk::{Order, WalkOptions};
/// let opts = WalkOptions::new()
///     .threads(4)
///     .order(Order::DepthFirst)
///     .max_depth(3)
///     .follow_links(dents::Follow::Roots);
/// assert_eq!(opts.get_threads(), 4);
/// assert_eq!(opts.get_follow(), dents::Follow::Roots);
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct WalkOptions {
    /// Worker threads (default: [`default_threads`]).
    pub(crate) threads: usize,
    /// The caller chose `threads`: all may start at once.  Left to the
    /// default, workers past one more than the cores start only once a
    /// read has waited on the disk (`Shared::note_disk_wait`).
    pub(crate) threads_chosen: bool,
    /// How long an open or a first read may take before it counts as a
    /// wait on the disk (`None`: `open::DISK_WAIT`).
    pub(crate) disk_wait: Option<std::time::Duration>,
    /// Breadth first, depth first, or the top levels breadth first and
    /// depth first below (the default: [`Order::Hybrid`]).
    pub(crate) order: Order,
    /// Visit directories after their contents (`-depth`).
    pub(crate) post_order: bool,
    /// Entries shallower than this are not visited (roots are depth 0).
    pub(crate) min_depth: usize,
    /// Entries deeper than this are not visited, nor directories at this
    /// depth read.
    pub(crate) max_depth: usize,
    /// Symlink policy.
    pub(crate) follow: Follow,
    /// Do not read directories on other filesystems than their root's.
    pub(crate) same_fs: bool,
    /// Fields [`Visit::metadata`] fetches; the type and mode always.
    pub(crate) stat_mask: StatFields,
    /// Treat every `d_type` as unknown (a test knob:
    /// [`WalkOptions::test_ignore_dtype`]).
    pub(crate) ignore_dtype: bool,
    /// How one huge directory is read.
    pub(crate) read: ReadOptions,
    /// Descriptors the walk may hold; `None`: from `RLIMIT_NOFILE` (a
    /// test knob: [`WalkOptions::test_fd_budget`]).
    pub(crate) fd_budget: Option<usize>,
    /// Visit each directory's entries sorted by name.
    pub(crate) sort: bool,
    /// Post-order visits come with their parent's descriptor.
    pub(crate) post_order_parent_fd: bool,
    /// Directories of at least this many bytes are offered to
    /// [`Visitor::take_rest`].
    pub(crate) offer_big_dirs: Option<u64>,
    /// Directories a sorted walk queues in memory before spilling the
    /// rest; `None`: the default (a test knob:
    /// [`WalkOptions::test_queue_spill`]).
    pub(crate) queue_spill: Option<usize>,
    /// Sorted walks: the bytes prepared directories may hold (`None`: the
    /// default; test knob: [`WalkOptions::test_ready_bytes`]).
    pub(crate) ready_bytes: Option<usize>,
    /// A test knob: the read back of the spilled queue from its file
    /// numbered this (from 0) fails ([`WalkOptions::test_queue_read_fail`]).
    pub(crate) queue_read_fail: Option<u64>,
}

impl Default for WalkOptions {
    fn default() -> WalkOptions {
        WalkOptions {
            threads: default_threads(),
            threads_chosen: false,
            disk_wait: None,
            order: Order::Hybrid,
            post_order: false,
            min_depth: 0,
            max_depth: usize::MAX,
            follow: Follow::Never,
            same_fs: false,
            stat_mask: StatFields::BASIC,
            ignore_dtype: false,
            read: ReadOptions::default(),
            fd_budget: None,
            sort: false,
            post_order_parent_fd: true,
            offer_big_dirs: None,
            queue_spill: None,
            ready_bytes: None,
            queue_read_fail: None,
        }
    }
}

impl WalkOptions {
    /// The default options: every entry of every tree, on
    /// [`default_threads`] workers, in [`Order::Hybrid`], directories
    /// before their contents, symlinks not followed, [`StatFields::BASIC`]
    /// fetched by [`Visit::metadata`].
    pub fn new() -> WalkOptions {
        WalkOptions::default()
    }

    /// Worker threads; 0 for the default ([`default_threads`]).
    ///
    /// With the default, a walk starts one worker more than the cores as
    /// it finds directories, and the rest only once a read has waited on
    /// the disk: on a tree in the page cache, more workers than cores
    /// only add hand-offs.  A number given here starts them all as work
    /// is found.
    pub fn threads(mut self, n: usize) -> WalkOptions {
        self.threads = if n == 0 { default_threads() } else { n };
        self.threads_chosen = n != 0;
        self
    }

    /// Up to `n` worker threads (0: the default's number), started as the
    /// default's are ([`WalkOptions::threads`]): one more than the cores
    /// as directories are found, the rest once a read has waited on the
    /// disk.  For a caller whose own default is another number of
    /// workers (du's, twice the walker's), which the user did not choose.
    pub fn threads_up_to(mut self, n: usize) -> WalkOptions {
        self.threads = if n == 0 { default_threads() } else { n };
        self.threads_chosen = false;
        self
    }

    /// The order directories are read in (default: [`Order::Hybrid`]).
    pub fn order(mut self, order: Order) -> WalkOptions {
        self.order = order;
        self
    }

    /// Visit directories after their contents (find's `-depth`; walkdir's
    /// `contents_first`).
    pub fn contents_first(mut self, yes: bool) -> WalkOptions {
        self.post_order = yes;
        self
    }

    /// Entries shallower than this are not visited (roots are depth 0).
    pub fn min_depth(mut self, depth: usize) -> WalkOptions {
        self.min_depth = depth;
        self
    }

    /// Entries deeper than this are not visited, nor directories at this
    /// depth read.
    pub fn max_depth(mut self, depth: usize) -> WalkOptions {
        self.max_depth = depth;
        self
    }

    /// Which symbolic links are followed (default: [`Follow::Never`]);
    /// `true` and `false` as walkdir's `follow_links`.
    pub fn follow_links(mut self, follow: impl Into<Follow>) -> WalkOptions {
        self.follow = follow.into();
        self
    }

    /// Do not read directories on other filesystems than their root's
    /// (find's `-xdev`).
    pub fn same_file_system(mut self, yes: bool) -> WalkOptions {
        self.same_fs = yes;
        self
    }

    /// Fields [`Visit::metadata`] fetches (default: [`StatFields::BASIC`]);
    /// the type and mode always.
    pub fn stat_fields(mut self, fields: StatFields) -> WalkOptions {
        self.stat_mask = fields;
        self
    }

    /// How one huge directory is read (slices, their threads, the read
    /// buffer).
    pub fn read_options(mut self, read: ReadOptions) -> WalkOptions {
        self.read = read;
        self
    }

    /// Visit each directory's entries sorted by name (bytes), in an order
    /// that does not depend on the threads: see
    /// [`sort mode`](self#sorted-walks).
    pub fn sort_by_name(mut self, yes: bool) -> WalkOptions {
        self.sort = yes;
        self
    }

    /// Whether post-order visits of directories below a root come with
    /// their parent's descriptor (the default; reopened for the visit: an
    /// `openat` and a `close` per directory).  `false` spares those two
    /// calls for a visitor that learnt what it needs before descending
    /// (du): the visit's [`Visit::parent_fd`] is then the current
    /// directory and its [`Visit::at_name`] the whole path, so a stat
    /// still works, through a path lookup (which fails beyond
    /// `PATH_MAX`).
    pub fn post_order_parent_fd(mut self, yes: bool) -> WalkOptions {
        self.post_order_parent_fd = yes;
        self
    }

    /// Directories of at least this many bytes (`st_size`), on a file
    /// system where reading in slices is exact, are offered to
    /// [`Visitor::take_rest`] once the read of their first entries shows
    /// they are big (on one thread too).  `None` (the default): none is
    /// offered, and reading a directory costs no more than without the
    /// offer.  **Unstable**, as [`crate::unstable`] (dents-mpi's): it may
    /// change in any release.
    pub fn offer_big_dirs(mut self, min_size: Option<u64>) -> WalkOptions {
        self.offer_big_dirs = min_size;
        self
    }

    /// A test knob, in every build so that a Cargo feature does not change
    /// the struct: treat every `d_type` as unknown, so that the paths for
    /// file systems without one run anywhere.  Harmless (every type is
    /// then learnt by the walk's classification, slower).
    #[doc(hidden)]
    pub fn test_ignore_dtype(mut self, yes: bool) -> WalkOptions {
        self.ignore_dtype = yes;
        self
    }

    /// A test knob, in every build so that a Cargo feature does not change
    /// the struct: how long an open or a directory's first read may take
    /// before it counts as a wait on the disk, after which a walk left to
    /// the default thread count starts all its workers (`None`: 250 µs),
    /// to test both sides of the rule whatever the machine's speed.  The
    /// visits are the same whatever it is.
    #[doc(hidden)]
    pub fn test_disk_wait(mut self, wait: Option<std::time::Duration>) -> WalkOptions {
        self.disk_wait = wait;
        self
    }

    /// A test knob, in every build so that a Cargo feature does not change
    /// the struct: the descriptors the walk may hold (`None`: from
    /// `RLIMIT_NOFILE`), to test deep trees with a tiny budget.  Harmless
    /// (directories beyond it are opened by a path from an ancestor, more
    /// slowly).
    #[doc(hidden)]
    pub fn test_fd_budget(mut self, budget: Option<usize>) -> WalkOptions {
        self.fd_budget = budget;
        self
    }

    /// A test knob, in every build so that a Cargo feature does not change
    /// the struct: the bytes a sorted walk's directories read ahead of
    /// their visits may hold together before its workers wait for the
    /// visits (`None`: the default, 16 MiB), to test the bound on small
    /// trees.  The visits are the same whatever it is.
    #[doc(hidden)]
    pub fn test_ready_bytes(mut self, bytes: Option<usize>) -> WalkOptions {
        self.ready_bytes = bytes;
        self
    }

    /// A test knob, in every build: the directories a sorted walk keeps
    /// queued in memory before it spills the rest of its queue to a
    /// temporary file, and an unsorted walk its deep list (`None`: the
    /// defaults, a few thousand and 24,576; `Some(usize::MAX)`: never),
    /// to test the spilled queue on small trees.  The visits are the
    /// same whatever it is.
    #[doc(hidden)]
    pub fn test_queue_spill(mut self, dirs: Option<usize>) -> WalkOptions {
        self.queue_spill = dirs;
        self
    }

    /// A test knob, in every build: a walk's read back of its
    /// spilled queue from the temporary file numbered `n` (from 0) fails
    /// as an I/O error (`EIO`) would, without reading (`None`: none
    /// fails), to test what the walk does when the file cannot be read
    /// back ([`crate::Operation::ReadBack`]); a fault hard to make for
    /// real in an unlinked file.  Only a walk that spills reads back
    /// (see [`WalkOptions::test_queue_spill`]).
    #[doc(hidden)]
    pub fn test_queue_read_fail(mut self, n: Option<u64>) -> WalkOptions {
        self.queue_read_fail = n;
        self
    }

    /// Worker threads.
    pub fn get_threads(&self) -> usize {
        self.threads
    }

    /// The order directories are read in.
    pub fn get_order(&self) -> Order {
        self.order
    }

    /// Whether directories are visited after their contents.
    pub fn get_contents_first(&self) -> bool {
        self.post_order
    }

    /// The depth above which entries are not visited.
    pub fn get_min_depth(&self) -> usize {
        self.min_depth
    }

    /// The depth below which entries are not visited.
    pub fn get_max_depth(&self) -> usize {
        self.max_depth
    }

    /// Which symbolic links are followed.
    pub fn get_follow(&self) -> Follow {
        self.follow
    }

    /// Whether the walk stays on its roots' file systems.
    pub fn get_same_file_system(&self) -> bool {
        self.same_fs
    }

    /// The fields [`Visit::metadata`] fetches.
    pub fn get_stat_fields(&self) -> StatFields {
        self.stat_mask
    }

    /// How one huge directory is read.
    pub fn get_read_options(&self) -> &ReadOptions {
        &self.read
    }

    /// Whether each directory's entries are visited sorted by name.
    pub fn get_sort_by_name(&self) -> bool {
        self.sort
    }

    /// Whether post-order visits come with their parent's descriptor.
    pub fn get_post_order_parent_fd(&self) -> bool {
        self.post_order_parent_fd
    }

    /// The size from which directories are offered to
    /// [`Visitor::take_rest`].
    pub fn get_offer_big_dirs(&self) -> Option<u64> {
        self.offer_big_dirs
    }

    /// Whether every `d_type` is taken as unknown (a test knob).
    pub(crate) fn ignores_dtype(&self) -> bool {
        self.ignore_dtype
    }

    /// The descriptor budget a test set, if any (a test knob).
    pub(crate) fn fixed_fd_budget(&self) -> Option<usize> {
        self.fd_budget
    }
}

/// The default number of workers: four per core, at least 4 and at most
/// 64.
///
/// A worker blocked on the disk (a cold `openat` or `getdents64`) leaves
/// its core idle; more workers than cores keep several reads in flight.
/// Measured on 2 cores over the shape of /usr and the toolchains: cold,
/// 8 workers walked it clearly faster than 2; hot, no slower
/// (docs/history/benchmarks.md#tree-shape-jobs; the latest hot run by
/// thread count: docs/benchmarks.md#find-walks).
///
/// Not all start at once: a walk left to this default starts one worker
/// more than the cores as it finds directories, and the rest only once an
/// open or a read has waited on the disk (slow, and the thread read blocks
/// from a device meanwhile, or the filesystem has no block device: NFS,
/// FUSE; a worker only kept off its core is not waiting on the disk).
/// In the page cache the extra workers only take turns on the cores: the
/// visitor walked 1.6k entries (three crates' sources) in 2.3–2.6 ms so,
/// 2.6–2.7 ms with all eight started, where walkdir took 3.2 ms (2 cores,
/// hyperfine, 300 runs).
pub fn default_threads() -> usize {
    (sys::cores() * 4).clamp(4, 64)
}

/// Visits the entries of a walk; shared by all workers.
///
/// A panic in any of its methods, on any thread, ends the walk: the
/// workers stop visiting, all are joined, and [`walk`] (or
/// [`crate::unstable::walk_from`], [`crate::unstable::walk_slice`]) resumes the panic, with its payload,
/// on the calling thread.
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
    /// Whatever the visitor holds back (buffered output) must go out now,
    /// before the next visits, which may be on another thread: a sorted
    /// walk's worker ends its turn; a huge directory's entries are about
    /// to be visited on threads of their own, each with its own state
    /// (so, on one worker too, output keeps the visits' order); a worker
    /// finished a top-level directory of [`Order::Hybrid`] on several
    /// workers (so the order's guarantee holds for the output as well).
    fn turn_done(&self, _state: &mut Self::State) {}
    /// A hint that this worker's visits so far may have to be seen before
    /// visits other workers make next: the worker is about to wait for
    /// work (the others go on meanwhile), or, in a post-order walk on
    /// several workers, to count a directory's work done (after which its
    /// post-order visit, or an ancestor's, may come on another worker).
    /// Unlike [`Visitor::turn_done`] it comes often (up to once per
    /// directory): a visitor that holds visits back only for speed (the
    /// iterator's batches of entries) hands them on here; one whose output
    /// order matters must still do so at `turn_done`, and, in a post-order
    /// walk, here too, or a directory's output may come out before its
    /// contents' (held by this worker).  The default does nothing.
    fn handoff(&self, _state: &mut Self::State) {}
    /// Offered the rest of a big directory the walk is reading (see
    /// [`WalkOptions::offer_big_dirs`]): `true` takes it, and the walk
    /// then reads no more of that directory, leaving the entries from
    /// [`BigDir::from`] on to the visitor, which reads them elsewhere (in
    /// slices, with [`crate::unstable::walk_slice`]: on other machines,
    /// say).  **Unstable**, as everything of [`crate::unstable`]: it may
    /// change in any release.  The entries
    /// before are visited by this walk, as are the directory's own visits
    /// (before its read, and in post-order after what this walk read of
    /// it).  In a sorted walk only the entries read here are among the
    /// directory's sorted visits.  The default declines: the walk reads
    /// on, in slices on its
    /// own threads if the directory is big enough for
    /// [`crate::slice::ReadOptions`].
    fn take_rest(&self, _state: &mut Self::State, _dir: &BigDir<'_>) -> bool {
        false
    }
    /// **Unstable** (for dents-snap's refresh; it may change without
    /// notice, as [`Visitor::take_rest`] for dents-mpi): asked for the
    /// entries of a directory just opened (`dir`: where it lies in the
    /// walk; `fd`: the directory, to `fstat` it) before it is read.
    /// `Some` listing is taken instead of reading the directory: its
    /// entries are classified and visited as if read (sorted first in a
    /// sorted walk), its subdirectories walked.  The caller answers for
    /// the listing being the directory's (a stale one is walked as
    /// given); an entry of [`FileType::UNKNOWN`] type is classified as an
    /// unknown `d_type` is.  The default reads.  A slice of a directory
    /// ([`crate::unstable::walk_slice`]) is always read: the listing is
    /// the whole directory's, so it is asked for where the directory is
    /// opened whole, and a directory whose listing is taken is never
    /// offered to [`Visitor::take_rest`].
    fn listing(
        &self,
        _state: &mut Self::State,
        _dir: &Start<'_>,
        _fd: BorrowedFd<'_>,
    ) -> Option<Listing> {
        None
    }
    /// **Unstable** (for dents-snap's refresh, as [`Visitor::listing`]):
    /// sorted walks only, not following every link, not post-order.
    /// Asked for the entries of a directory *before* it is opened, with
    /// the metadata its own visit had (`stat`: stat'ed relative to its
    /// parent, or the root's stat), where the visit had one.
    ///
    /// * `None` (the default): not answered; the directory is opened and
    ///   [`Visitor::listing`] asked.
    /// * `Some(None)`: the directory is opened and read, and
    ///   [`Visitor::listing`] is not asked for it.
    /// * `Some(Some(listing))`: taken as [`Visitor::listing`]'s is, and
    ///   the directory is not read; it is not even opened when its
    ///   entries need no descriptor (none to classify, none to stat
    ///   ahead: [`Visitor::stat_ahead`]), so that a directory the visitor
    ///   knows costs no system call of its own; its visits then reach
    ///   their entries by their whole path.
    fn listing_stated(
        &self,
        _state: &mut Self::State,
        _dir: &Start<'_>,
        _stat: &Metadata,
    ) -> Option<Option<Listing>> {
        None
    }
    /// **Unstable**, with [`Visitor::listing_stated`]: whether this
    /// visitor answers it, so that the walk keeps each directory's stat
    /// until the directory is taken (a box per queued directory).  The
    /// default: no.
    fn lists_by_stat(&self) -> bool {
        false
    }
    /// Sorted walks only ([`WalkOptions::sort_by_name`]): whether the visit of
    /// an entry whose type is `known` (as [`Visit::known_type`] gives
    /// it) will ask for its [`Visit::metadata`].  `true` has the workers
    /// stat such entries in parallel, ahead of the visits, which are
    /// serial (one worker at a time): a directory's first entries while
    /// it is prepared, the rest of a big one in chunks on threads of
    /// their own a little ahead of its visits, so that memory does not
    /// grow with its size.  The metadata is then from a moment before
    /// the visit, and an entry the visit does not look at (excluded,
    /// say) is stat'ed all the same.  The default: `false`, entries are
    /// stat'ed when the visit asks.  Walks that are not sorted never ask.
    fn stat_ahead(&self, _known: Option<FileType>) -> bool {
        false
    }
    /// Hears of a problem (an unreadable directory, a loop): the error is
    /// the visitor's to keep, as the iterator's `Err` is its consumer's.
    fn error(&self, state: &mut Self::State, e: Error);
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
    mask: StatFields,
    /// The metadata given with the visit (stat'ed ahead, a root's, a
    /// recorded entry's): read as is.  Not put in `meta`: filling a
    /// `OnceLock` costs a `Once` call, 16% of a scan's user time on a
    /// directory of a million entries (docs/benchmarks.md, "Snapshots
    /// at 10M (session 14)").
    given: Option<Result<Metadata, i32>>,
    /// The metadata stat'ed on first use, when none was given.
    meta: OnceLock<Result<Metadata, i32>>,
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

    /// The inode number from the directory entry (or the stat).  For a
    /// symlink the walk follows, the link's own, though the visit is typed
    /// by its target: the target's is in [`Visit::metadata`] (the loop
    /// check tells a followed link by that difference).
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
        known_type(self.known)
    }

    /// The file type, from the directory entry where it said, else from a
    /// stat (following symlinks if the walk follows them).
    pub fn file_type(&self) -> FileType {
        match self.known {
            Kind::Dir => FileType::DIRECTORY,
            // A symlink that the walk follows is typed by its target.
            Kind::NotDir(t) if !(t.is_unknown() || self.follow && t == FileType::SYMLINK) => t,
            _ => self
                .metadata()
                .map_or(FileType::UNKNOWN, |st| st.file_type()),
        }
    }

    /// The entry's metadata, fetched once on first use; with `-L` (or a
    /// root under `-H`) a symlink's target, or the link itself if broken
    /// (its target missing, or a file where a directory should be on the
    /// way to it: `ENOTDIR`, as find takes it).
    ///
    /// The fields fetched are [`WalkOptions::stat_fields`]'s (and the type
    /// and mode); one `statx` relative to [`Visit::parent_fd`], converted
    /// to dents's own [`Metadata`].
    pub fn metadata(&self) -> io::Result<&Metadata> {
        let r = match &self.given {
            Some(r) => r,
            None => self
                .meta
                .get_or_init(|| stat_entry(self.dir, self.at_name, self.follow, self.mask)),
        };
        r.as_ref().map_err(|&e| io::Error::from_raw_os_error(e))
    }

    /// The metadata [`Visit::metadata`] already fetched, if it was asked
    /// for (and succeeded): `None` without a system call otherwise.  What a
    /// caller handing entries on (the Python package's `find`) gives with
    /// them, so that what the visitor stat'ed is not stat'ed again.
    pub fn cached_metadata(&self) -> Option<&Metadata> {
        self.given
            .as_ref()
            .or(self.meta.get())
            .and_then(|r| r.as_ref().ok())
    }

    /// The metadata of the entry itself, never following a symlink.
    /// (Not cached: one `statx` a call.)
    pub fn link_metadata(&self) -> io::Result<Metadata> {
        sys::statx_at(self.dir, self.at_name, self.mask.statx_mask())
            .map(|st| Metadata::from_statx(&st))
    }
}

/// The type a [`Kind`] tells without a system call ([`Visit::known_type`]).
fn known_type(kind: Kind) -> Option<FileType> {
    match kind {
        Kind::Dir => Some(FileType::DIRECTORY),
        Kind::NotDir(t) if !t.is_unknown() => Some(t),
        _ => None,
    }
}

/// The stat behind [`Visit::metadata`] (an errno for a failure): one
/// `statx` of `name` in `dir`, following a symlink if `follow`, and then
/// the link itself if it is broken (its target missing, or a file where
/// a directory should be on the way to it: `ENOTDIR`, as find takes it).
/// Sorted walks that stat ahead ([`Visitor::stat_ahead`]) call it on
/// their workers, so that a visit's metadata is the same either way.
fn stat_entry(
    dir: BorrowedFd<'_>,
    name: &CStr,
    follow: bool,
    fields: StatFields,
) -> Result<Metadata, i32> {
    let mask = fields.statx_mask();
    let r = if follow {
        match sys::statx_follow_at(dir, name, mask) {
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR)) => {
                sys::statx_at(dir, name, mask)
            }
            r => r,
        }
    } else {
        sys::statx_at(dir, name, mask)
    };
    r.map(|st| Metadata::from_statx(&st))
        .map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))
}

/// A directory's entries supplied by the visitor instead of a read
/// ([`Visitor::listing`]; unstable): names (bytes, no NUL or `/`), types
/// as `d_type` gives them, inode numbers.  Names live in one buffer, so
/// an entry costs its name, a NUL and 16 bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    names: Vec<u8>,
    entries: Vec<(u32, FileType, u64)>,
}

impl Listing {
    /// An empty listing.
    pub fn new() -> Listing {
        Listing::default()
    }

    /// An empty listing with room for `entries` entries whose names
    /// take `name_bytes` bytes together: filled without growing.
    pub fn with_capacity(entries: usize, name_bytes: usize) -> Listing {
        Listing {
            names: Vec::with_capacity(name_bytes + entries),
            entries: Vec::with_capacity(entries),
        }
    }

    /// Adds an entry; `false` (and nothing added) for a name that no
    /// directory can hold: empty, `.`, `..`, or with a NUL or a `/`.
    pub fn push(&mut self, name: &[u8], t: FileType, ino: u64) -> bool {
        if name.is_empty()
            || name == b"."
            || name == b".."
            || name.iter().any(|&c| c == 0 || c == b'/')
        {
            return false;
        }
        self.entries.push((self.names.len() as u32, t, ino));
        self.names.extend_from_slice(name);
        self.names.push(0);
        true
    }

    /// Entries in the listing.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The bytes of its names, their NULs included.
    pub(crate) fn names_len(&self) -> usize {
        self.names.len()
    }

    /// The entries: name (NUL-terminated), type, inode number.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&CStr, FileType, u64)> {
        self.entries.iter().map(|&(at, t, ino)| {
            let name = CStr::from_bytes_until_nul(&self.names[at as usize..])
                .expect("NUL-terminated by push");
            (name, t, ino)
        })
    }
}

/// What a walk did, counted by its workers as they go; handed back as
/// [`Stats`] once they are done.
#[derive(Debug, Default)]
struct Tally {
    /// Directories read.
    dirs_read: AtomicUsize,
    /// Directories read in slices on several threads.
    dirs_sliced: AtomicUsize,
    /// Directories opened by a path from an ancestor (fd budget, depth).
    reopened_by_path: AtomicUsize,
    /// How entries' types were learnt.
    types: Counters,
}

impl Tally {
    /// The counts, once the workers are done.
    fn stats(&self) -> Stats {
        let u = |a: &AtomicUsize| a.load(Ordering::Relaxed) as u64;
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let t = &self.types;
        Stats {
            dirs_read: u(&self.dirs_read),
            dirs_sliced: u(&self.dirs_sliced),
            reopened_by_path: u(&self.reopened_by_path),
            type_stats: g(&t.stats),
            types_from_dtype: g(&t.by_dtype),
            types_from_nlink: g(&t.by_nlink),
            types_from_stat: g(&t.by_stat),
            type_fallbacks: g(&t.fallbacks),
            nlink_unusable: g(&t.nlink_unusable),
            vanished: g(&t.vanished),
            queue_peak: 0,
            dirs_spilled: 0,
            workers_started: 0,
        }
    }
}

/// State shared by the workers.
struct Shared<'v, V: Visitor> {
    opts: WalkOptions,
    visitor: &'v V,
    queue: Mutex<Queue>,
    wake: Condvar,
    quit: AtomicBool,
    cached_fds: AtomicUsize,
    /// The descriptor table was grown for the walk's kept descriptors
    /// (`open.rs`, `Shared::reserve_table`).
    table_reserved: AtomicBool,
    fd_budget: usize,
    stats: Tally,
    fs_magic: Mutex<Vec<(u64, u64)>>,
    /// The mount points, for loop checks without `-L` (`None`: unknown).
    mounts: Option<Mounts>,
    /// Sorted walks: the prepared directories and whose turn it is.
    ready: Mutex<Ready>,
    /// Sorted walks: held by the one worker visiting ready directories.
    drainer: Mutex<()>,
    /// The first panic a worker caught, for the caller (`panics.rs`).
    panic: Mutex<Option<Payload>>,
    /// A worker panicked: the others visit nothing more and leave.
    panicked: AtomicBool,
    /// Sorted walks: part of the spilled queue could not be read back
    /// (`Queue::lost` holds it until reported).
    lost_any: AtomicBool,
    /// Sorted walks: the queue spills past its limit (decided once, when
    /// the walk starts), so a directory's subdirectories are queued a
    /// chunk at a time as it is visited.
    spills: bool,
    /// An open or a read has waited on the disk: every worker the walk
    /// may run may start ([`Queue::eager`]).
    disk_waited: AtomicBool,
    /// The thread that called the walk, and the blocks it had read from
    /// block devices then (`Shared::note_disk_wait`).
    caller: (std::thread::ThreadId, u64),
    /// Sorted walks: descriptors of directories visited, to be closed by
    /// a worker outside the visits (`sorted.rs`, `Shared::close_later`).
    closing: Mutex<Vec<OwnedFd>>,
}

/// Walks the trees under `roots`, visiting every entry (roots included)
/// with `visitor`; returns what the walk did ([`Stats`]).
///
/// ```no_run
/// use dents::walk::{walk, Visit, Visitor, WalkOptions};
/// use dents::{Error, Flow};
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
///     fn error(&self, _: &mut (), e: Error) {
///         eprintln!("{e}");
///     }
/// }
/// let count = Count(AtomicUsize::new(0));
/// walk(&[b"/usr/share".to_vec()], &WalkOptions::default(), &count);
/// println!("{} entries", count.0.load(Ordering::Relaxed));
/// ```
pub fn walk<V: Visitor>(roots: &[Vec<u8>], opts: &WalkOptions, visitor: &V) -> Stats {
    let starts: Vec<Start<'_>> = roots.iter().map(|r| Start::root(r)).collect();
    walk_from(&starts, opts, visitor)
}

/// Walks from each of `starts` ([`crate::unstable::walk_from`]).
pub(crate) fn walk_from<V: Visitor>(
    starts: &[Start<'_>],
    opts: &WalkOptions,
    visitor: &V,
) -> Stats {
    run(opts, visitor, |shared| {
        let mut state = visitor.state();
        let mut starts = starts.to_vec();
        if shared.opts.sort {
            starts.sort_unstable_by(|a, b| a.path.cmp(b.path));
        }
        for start in &starts {
            if shared.quit.load(Ordering::Relaxed) {
                break;
            }
            shared.visit_root(&mut state, start);
        }
        visitor.finish(state);
    })
}

/// Walks one slice of a huge directory ([`crate::unstable::walk_slice`]).
pub(crate) fn walk_slice<V: Visitor>(
    dir: &Start<'_>,
    fd: OwnedFd,
    (lo, hi): (u64, Option<u64>),
    opts: &WalkOptions,
    visitor: &V,
) -> Stats {
    run(opts, visitor, |shared| {
        let mut state = visitor.state();
        let children = shared.walk_slice_of(&mut state, dir, fd, lo, hi);
        visitor.finish(state);
        shared.queue.lock().expect("queue lock").push(children);
    })
}

/// Runs a walk: `seed` visits its starts (and queues their directories)
/// on the calling thread, then workers read the queue until it is empty.
fn run<V: Visitor>(opts: &WalkOptions, visitor: &V, seed: impl FnOnce(&Shared<'_, V>)) -> Stats {
    let (workers, fd_budget) = fd_plan(opts);
    let mut opts = opts.clone();
    // Under `ulimit -v`, a thread's stack (2 MiB) is address space taken
    // from the heap: one thread per 32 MiB of the limit, at least one.
    let memory_threads =
        sys::address_space_limit().map_or(usize::MAX, |l| (l >> 25).max(1) as usize);
    let workers = workers.min(memory_threads);
    opts.read.threads = opts.read.threads.min(memory_threads);
    // A sorted walk's visits follow the queue's order only where that
    // order does not depend on timing: first in, first out.  Level order
    // keeps the hybrid order's guarantee.
    if opts.sort && opts.order == Order::Hybrid {
        opts.order = Order::BreadthFirst;
    }
    // Depth first, only one worker keeps a sorted walk's order.
    let workers = if opts.sort && opts.order == Order::DepthFirst {
        1
    } else {
        workers
    };
    let opts = &opts;
    // Left to the default, workers past one more than the cores start
    // only once a read waits on the disk (`Shared::note_disk_wait`): on a
    // tree in the page cache they add only hand-offs (a walk of a crate's sources,
    // 1.6k entries, took 3.6 ms on 8 workers, 2.6 on 2: both cores);
    // cold, they keep reads in flight.
    let eager = if opts.threads_chosen {
        workers
    } else {
        workers.min(sys::cores() + 1)
    };
    let mut queue = Queue::new(opts.order, workers, eager);
    // A sorted walk goes level by level: its queue is bounded in memory,
    // the rest spilled ("Sorted walks").  Not where a queued directory
    // needs its ancestors (post-order visits count down through them;
    // loops through followed links are checked against them).
    let limit = opts.queue_spill.unwrap_or(queue::SPILL_LIMIT);
    if opts.sort
        && opts.order == Order::BreadthFirst
        && !opts.post_order
        && opts.follow != Follow::Always
        && limit != usize::MAX
    {
        queue.spilled = Some(Box::new(queue::Spilled::new(limit, opts.queue_read_fail)));
    }
    // An unsorted walk's deep list past its limit goes on in a temporary
    // file (`deep.rs`): where the order lets no worker take them (the
    // subdirectories of a directory at depth 2 being read, in the hybrid
    // order), nothing else bounds it.
    let deep_limit = opts.queue_spill.unwrap_or(deep::DEEP_LIMIT);
    if !opts.sort && deep_limit != usize::MAX {
        queue.deep_spilled = Some(Box::new(deep::DeepSpill::new(
            deep_limit,
            opts.queue_read_fail,
        )));
    }
    let spills = queue.spilled.is_some();
    let shared = Shared {
        opts: opts.clone(),
        visitor,
        queue: Mutex::new(queue),
        wake: Condvar::new(),
        quit: AtomicBool::new(false),
        cached_fds: AtomicUsize::new(0),
        table_reserved: AtomicBool::new(false),
        fd_budget,
        stats: Tally::default(),
        fs_magic: Mutex::new(Vec::new()),
        mounts: if opts.follow == Follow::Always {
            None
        } else {
            Mounts::load()
        },
        ready: Mutex::new(Ready::default()),
        drainer: Mutex::new(()),
        panic: Mutex::new(None),
        panicked: AtomicBool::new(false),
        lost_any: AtomicBool::new(false),
        spills,
        disk_waited: AtomicBool::new(false),
        caller: (std::thread::current().id(), sys::blocks_read_by_thread()),
        closing: Mutex::new(Vec::new()),
    };
    seed(&shared);
    // The calling thread is the first worker; it and the others start
    // more as the queue grows (see [`Shared::start_worker`]).  A panic on
    // any of them ends the walk, and comes back here once all are joined.
    std::thread::scope(|scope| shared.worker(scope));
    shared.rethrow();
    // A part of the deep list lost when no worker was left to report it.
    if !shared
        .queue
        .lock()
        .expect("queue lock")
        .lost_deep
        .is_empty()
    {
        let mut state = visitor.state();
        shared.settle_lost(&mut state);
        visitor.finish(state);
    }
    let mut stats = shared.stats.stats();
    let q = shared.queue.lock().expect("queue lock");
    stats.queue_peak = q.peak as u64;
    stats.workers_started = q.started as u64;
    stats.dirs_spilled =
        q.spilled.as_ref().map_or(0, |s| s.total) + q.deep_spilled.as_ref().map_or(0, |s| s.total);
    stats
}

impl<V: Visitor> Shared<'_, V> {
    /// Passes a problem to the visitor.
    fn report(
        &self,
        state: &mut V::State,
        (path, depth): (&[u8], usize),
        op: Operation,
        kind: ErrorKind,
    ) {
        let e = Error::new(path.to_vec(), depth, op, kind);
        self.visitor.error(state, e);
    }
}
