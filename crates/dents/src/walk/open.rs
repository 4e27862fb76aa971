//! Opening directories within the descriptor budget: the plan of workers
//! and descriptors, `openat` on a parent kept open or by a path from an
//! ancestor, retries on `EMFILE`.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::descriptors::{grow_descriptor_table, retry_emfile};
use crate::file_type::FileType;
use crate::metadata::StatFields;
use crate::sys;

use super::node::{build_path, Node};
use super::{ErrorKind, Follow, Shared, Visitor, WalkOptions};

/// Relative paths longer than this are opened in several steps.
pub(super) const PATH_STEP: usize = 3072;

/// How many workers a walk runs and how many descriptors it may keep
/// beyond theirs (for the children's `openat`, and for the slices of huge
/// directories), from the soft `RLIMIT_NOFILE` and the descriptors open
/// now, so that the walk never runs out (`EMFILE`), however low the limit.
///
/// Each worker holds at most two descriptors at a time of its own (the
/// directory it reads, and one more for a moment: a step of a long path,
/// or a parent for a post-order visit); with fewer free than two per
/// worker there are fewer workers, at least one.  A few are left to the
/// visitor (its `-exec` pipes), and with a high limit half of what
/// remains.  With [`WalkOptions::fd_budget`] set, that is the share kept
/// and every worker runs.
pub(super) fn fd_plan(opts: &WalkOptions) -> (usize, usize) {
    let threads = opts.threads.max(1);
    if let Some(budget) = opts.fixed_fd_budget() {
        return (threads, budget);
    }
    let free = crate::descriptors::descriptors_free();
    let spare = if free >= 128 {
        64 + (free - 64) / 2
    } else {
        (free / 4).min(2)
    };
    let permits = free - spare;
    let workers = (permits / 2).clamp(1, threads);
    (workers, permits.saturating_sub(2 * workers))
}

/// The descriptor number from which a walk grows the descriptor table
/// to what it may keep ([`Shared::reserve_table`]): past the kernel's
/// first table (64 slots), in its second (128), so that a walk that
/// keeps fewer pays no growth beyond the kernel's own (a sorted walk of
/// a small tree took 14 ms instead of 3.7 when the walk grew the table
/// from descriptor 48: one grace period).
const TABLE_RESERVE_AT: i32 = 100;

/// Descriptors of the process beyond the walk's budget the grown table
/// holds (standard streams, the workers' own, the visitor's).
const TABLE_SPARE: usize = 128;

/// The largest table a walk grows ([`Shared::reserve_table`]): 16,384
/// slots take 128 KiB of kernel memory; past it the kernel grows the
/// table itself.
const TABLE_RESERVE_MAX: usize = 16_384;

/// An open or a directory's first read that takes longer than this has
/// waited on the disk (or the machine is overloaded, where more workers
/// cost little): in the page cache an `openat` takes microseconds, and a
/// first `getdents64` filling the 64 KiB buffer well under this.
pub(super) const DISK_WAIT: Duration = Duration::from_micros(250);

impl<V: Visitor> Shared<'_, V> {
    /// When an open or read starts, the time to give
    /// [`Shared::note_disk_wait`]; `None` where it cannot change how many
    /// workers start (the caller chose the count, or a wait was seen), so
    /// that the clock is not read for every directory.
    pub(super) fn disk_clock(&self) -> Option<Instant> {
        (!self.opts.threads_chosen && !self.disk_waits()).then(Instant::now)
    }

    /// Records that the open or read begun at `since` (of a directory
    /// below a root on device `root_dev`, where it was opened) waited on
    /// the disk, if it took longer than [`DISK_WAIT`] and the thread has
    /// read from a block device in this walk, or the root is on a
    /// filesystem with no block device of its own (NFS, FUSE, btrfs:
    /// their reads are not counted so): the walk may then start all its
    /// workers ([`Shared::disk_waits`]).  The root's device, known from
    /// its stat, stands for the directory's: a `statx` of each slow
    /// directory made the system calls of a walk depend on timing (one
    /// more now and then under `strace`).
    ///
    /// Time alone is not enough: in the page cache a worker taken off its
    /// core for a scheduler tick (4 ms) takes as long, and on a loaded
    /// machine that happened 17–46 times in a hot `find -s` of the
    /// real-tree shape with three workers, the first within 30 ms, with
    /// not one block read.  Starting every worker then made the sorted
    /// walk and `dents scan` 5–7% slower in wall time (docs/history/
    /// benchmarks.md, "The walk's disk wait").  The blocks are read
    /// only for a slow open or read, so a walk in the page cache pays a
    /// `getrusage` per such wait, not per directory.
    pub(super) fn note_disk_wait(&self, since: Option<Instant>, root_dev: Option<u64>) {
        let wait = self.opts.disk_wait.unwrap_or(DISK_WAIT);
        if since.is_some_and(|t| t.elapsed() >= wait)
            && (self.read_blocks() || root_dev.is_some_and(sys::is_anonymous_device))
        {
            self.disk_waited.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the calling thread has read from a block device since the
    /// walk began (a worker's thread begins with the walk; the thread
    /// that called the walk is compared with its count at the start).
    fn read_blocks(&self) -> bool {
        let base = if std::thread::current().id() == self.caller.0 {
            self.caller.1
        } else {
            0
        };
        sys::blocks_read_by_thread() > base
    }

    /// Whether a read has waited on the disk in this walk.
    pub(super) fn disk_waits(&self) -> bool {
        self.disk_waited.load(Ordering::Relaxed)
    }

    /// Opens the directory of `node` and checks it may be read (`same_fs`,
    /// loops with `-L`): `Err(None)` to skip it.
    pub(super) fn open_checked(&self, node: &Arc<Node>) -> Result<OwnedFd, Option<ErrorKind>> {
        let opening = self.disk_clock();
        let opened = self.open_node(node);
        let root_dev = opened.is_ok().then(|| node.open().root_dev);
        self.note_disk_wait(opening, root_dev);
        let fd = opened.map_err(|e| {
            // Under -L a link to a directory whose target went away since
            // it was typed (another worker's -delete, say) is now a broken
            // link: find takes that for the link itself, with no error.
            if self.target_vanished(node, &e) {
                None
            } else {
                Some(ErrorKind::Io(e))
            }
        })?;
        self.reserve_table(fd.as_fd());
        // Loops were ruled out when the entry was visited
        // ([`Shared::closes_loop`]).  The identity is for `same_fs` and
        // for the post-order visits' reopening of a parent by `..`
        // (`parent_of`), which visits without the parent's descriptor
        // (du) never do: for them, no `fstat` per directory.
        if self.opts.same_fs || self.opts.post_order && self.opts.post_order_parent_fd {
            if let Ok(st) = sys::fstat(fd.as_fd()) {
                let id = (st.st_dev, st.st_ino);
                let _ = node.open().opened.set(id);
                if self.opts.same_fs && id.0 != node.open().root_dev {
                    return Err(None);
                }
            }
        }
        Ok(fd)
    }

    /// Once a descriptor the walk opens is numbered [`TABLE_RESERVE_AT`]
    /// or more (the process holds that many), grows the process's
    /// descriptor table in one step to what the walk may keep
    /// ([`grow_descriptor_table`]), rather than in the kernel's
    /// doublings, each of which stalls every open of every worker for an
    /// RCU grace period: a sorted walk of the real-tree shape keeps some
    /// 3,400 open (a level's parents, for their children's `openat`), and
    /// the six doublings to 4,096 left a seventh of its two cores idle.
    /// A walk that keeps few (an unsorted one keeps tens) grows nothing.
    fn reserve_table(&self, fd: BorrowedFd<'_>) {
        if fd.as_raw_fd() < TABLE_RESERVE_AT || self.table_reserved.swap(true, Ordering::Relaxed) {
            return;
        }
        grow_descriptor_table(fd, (self.fd_budget + TABLE_SPARE).min(TABLE_RESERVE_MAX));
    }

    /// Whether opening `node` failed because it is a followed symlink whose
    /// target is gone: `ENOENT` under `Follow::Always`, the entry itself
    /// still there as a symlink (checked by its path from the working
    /// directory; if that fails too the error stands).
    fn target_vanished(&self, node: &Node, e: &io::Error) -> bool {
        if self.opts.follow != Follow::Always
            || node.parent.is_none()
            || e.raw_os_error() != Some(libc::ENOENT)
        {
            return false;
        }
        let Ok(path) = CString::new(build_path(node)) else {
            return false;
        };
        sys::statx_at(rustix::fs::CWD, &path, StatFields::TYPE.statx_mask())
            .is_ok_and(|st| FileType::from_mode(u32::from(st.stx_mode)) == FileType::SYMLINK)
    }

    /// Takes up to `want` descriptors from the walk's share (see
    /// [`fd_plan`]); returns how many (given back by subtracting them
    /// from `cached_fds`).
    pub(super) fn take_fds(&self, want: usize) -> usize {
        let mut have = self.cached_fds.load(Ordering::Acquire);
        loop {
            let n = want.min(self.fd_budget.saturating_sub(have));
            if n == 0 {
                return 0;
            }
            match self.cached_fds.compare_exchange_weak(
                have,
                have + n,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return n,
                Err(now) => have = now,
            }
        }
    }

    /// Opens the directory of `node`: relative to its parent's descriptor
    /// if still open, else by a relative path from the nearest open
    /// ancestor (in steps, for any depth).
    fn open_node(&self, node: &Node) -> io::Result<OwnedFd> {
        let Some(parent) = &node.parent else {
            return retry_emfile(|| sys::open_dir_path(node.name()));
        };
        let follow = self.opts.follow == Follow::Always;
        // Cloned out first: the lock must not be held while opening, which
        // may lock the ancestors' descriptors in turn.
        let cached = parent.open().fd.lock().expect("fd lock").clone();
        let parent_fd = match cached {
            None if parent.parent.is_none() => self.open_anchor(parent),
            fd => fd,
        };
        let r = match parent_fd {
            Some(pfd) => retry_emfile(|| open_at(pfd.as_fd(), node.name(), follow)),
            None => {
                self.stats.reopened_by_path.fetch_add(1, Ordering::Relaxed);
                retry_emfile(|| self.open_by_path(node, follow))
            }
        };
        if parent.open().children_left.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.give_back_fd(parent);
        }
        r
    }

    /// The descriptor of `anchor`, a directory with no parent node (a
    /// root, or the anchor of a sorted walk's spilled group, which stands
    /// for its children's parent: `node.rs`), opened by its path now if
    /// it has none and more than one child is still to be opened relative
    /// to it, within the budget; given back as a parent's is, once its
    /// last child is opened.
    ///
    /// A spilled group whose parent kept no descriptor (the budget), or
    /// a later group of a parent of more than the spill limit's
    /// subdirectories, comes back without one (see `Spilled::fds`):
    /// without this open its children would each be opened by their
    /// whole path from the working directory, every component looked up
    /// again (docs/history/benchmarks.md, session 19).
    fn open_anchor(&self, anchor: &Node) -> Option<Arc<OwnedFd>> {
        let o = anchor.open();
        // Held while opening (nothing above an anchor is locked in turn),
        // so that its siblings' workers open it once between them.
        let mut fd = o.fd.lock().expect("fd lock");
        if fd.is_none() && o.children_left.load(Ordering::Acquire) > 1 && self.take_fds(1) == 1 {
            match retry_emfile(|| sys::open_dir_path(anchor.name())) {
                Ok(f) => *fd = Some(Arc::new(f)),
                // Its children are opened by path, and fail there.
                Err(_) => {
                    self.cached_fds.fetch_sub(1, Ordering::AcqRel);
                }
            }
        }
        fd.clone()
    }

    /// Gives back the descriptor `node` keeps for its children, if any:
    /// none of them will open relative to it.
    pub(super) fn give_back_fd(&self, node: &Node) {
        if node.open().fd.lock().expect("fd lock").take().is_some() {
            self.cached_fds.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Opens `node` by the names from its nearest ancestor with an open
    /// descriptor (or from its root's path).
    fn open_by_path(&self, node: &Node, follow: bool) -> io::Result<OwnedFd> {
        let mut names: Vec<&CStr> = vec![node.name()];
        let mut base: Option<Arc<OwnedFd>> = None;
        let mut up = node.parent.as_deref();
        while let Some(n) = up {
            let cached = n.open().fd.lock().expect("fd lock").clone();
            if let Some(fd) = cached {
                base = Some(fd);
                break;
            }
            names.push(n.name());
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

    /// Opens `node` again (for a post-order visit of one of its children).
    pub(super) fn reopen(&self, node: &Node) -> io::Result<OwnedFd> {
        let cached = node.open().fd.lock().expect("fd lock").clone();
        retry_emfile(|| {
            if let Some(fd) = &cached {
                return sys::reopen_dir(fd.as_fd());
            }
            match &node.parent {
                None => sys::open_dir_path(node.name()),
                Some(_) => self.open_by_path(node, self.opts.follow == Follow::Always),
            }
        })
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
