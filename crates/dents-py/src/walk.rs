//! `dents.walk`: `os.walk`'s tuples in `os.walk`'s order, with the
//! directories it will ask for next read ahead on worker threads.
//!
//! The walk itself (the order, pruning through `dirnames`, `onerror`,
//! symlinks) runs on the Python thread exactly as `os.walk` runs it: a
//! stack of directories still to list, depth first.  What changes is where
//! a listing comes from.  Each directory to list is a read job keyed by
//! its place in the walk's order (the places of its ancestors among their
//! parents' subdirectories, from the top down).  A worker reading a
//! directory queues a job for each of its subdirectories at once (the walk
//! descends into them unless the caller prunes `dirnames`); workers take
//! the queued job that comes first in the walk's order, so that the
//! listings read ahead are the ones the walk needs next.  When the walk
//! reaches a directory its listing is usually read; if no worker has
//! started it the walk reads it right there, and if a worker is reading
//! it the walk waits with the GIL released, checking for signals.
//!
//! ```text
//!   walk stack (top = next)   queued jobs by key
//!   | b/x |  0.1.0  <- next    0.1.0  b/x    <- taken first by a worker
//!   | b/y |  0.1.1             0.1.1  b/y
//!   | c   |  0.2               0.2    c
//!   | d   |  0.3               0.3.0  d/p    <- queued by the worker that
//!                                               read d, ahead of the walk
//! ```
//!
//! Each listing is one directory read front to back (`getdents64` into a
//! large buffer): the kernel's order, which is `os.scandir`'s.  A listing
//! holds what `os.walk` asks of each entry: `is_dir()` (following
//! symlinks: a symlink to a directory is in `dirnames`) and `is_symlink()`,
//! from `d_type` or, where that is missing, `statx` relative to the
//! directory.  Finished listings wait in a buffer of bounded size
//! (workers pause when it is full), so memory does not grow with the tree
//! when the consumer is slow.

use std::collections::{BTreeMap, HashMap};
use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use dents::dir::DirReader;
use dents::FileType;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use rustix::fs::{AtFlags, StatxFlags};

use crate::scandir::READ_BUFFER;
use crate::shared::Locked;
use crate::util::{self, PyPath};

/// Entries of finished listings that may wait for the walk before the
/// workers pause.
const BUFFERED_ENTRIES: usize = 256 * 1024;
/// Jobs waiting before sleeping workers are woken.
const WAKE_AT: usize = 8;
/// Finished listings that may wait, for a plain walk: a deeper buffer
/// measured no faster there (316 against 325-331 ms on the real-tree
/// shape) and only holds more.
const BUFFERED_LISTINGS: usize = 256;
/// Finished listings that may wait for `walk(stat=True)`, whose workers
/// (an `lstat` an entry) are slower than the walk: 256 listings of the
/// real-tree shape (12 entries each on average) are 9 ms of the walk's
/// work, so a big directory on one worker (18k entries, 30 ms) drained
/// them and the walk waited for it, one core idle.  With 4,096 those
/// waits fell from 140-290 to 5-80 ms a walk (docs/benchmarks.md,
/// "Python"); [`BUFFERED_ENTRIES`] still bounds the memory.
const BUFFERED_LISTINGS_STAT: usize = 4096;

/// A directory's entries as read: what `os.walk` asks of each.
///
/// The names lie end to end in one buffer (not one allocation each): the
/// Python thread, which frees a listing once it has made its objects,
/// then frees three blocks rather than one per entry.
#[derive(Default)]
pub struct Entries {
    /// The names, end to end.
    names: Vec<u8>,
    entries: Vec<WalkEntry>,
    /// Their `lstat`s, for `walk(stat=True)` (else empty), in the same
    /// order (`None`: the entry vanished).
    stats: Vec<Option<rustix::fs::Stat>>,
    /// Read-ahead jobs a worker queued for the subdirectories the walk
    /// will descend into unless the caller prunes them (entry index, job),
    /// in the listing's order; empty for a listing the walk read itself.
    ahead: Vec<(usize, Option<Arc<Job>>)>,
}

/// One entry of a listing.
#[derive(Clone, Copy)]
pub struct WalkEntry {
    /// Where its name ends in [`Entries::names`] (and the next one
    /// starts).
    end: usize,
    is_dir: bool,
    is_symlink: bool,
}

impl Entries {
    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The `i`-th entry.
    pub fn get(&self, i: usize) -> WalkEntry {
        self.entries[i]
    }

    /// The `i`-th entry's name.
    pub fn name(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.entries[i - 1].end };
        &self.names[start..self.entries[i].end]
    }

    /// The read-ahead job a worker queued for the `i`-th entry, if any
    /// (once: a name the caller repeats in `dirnames` gets a new job).
    fn take_ahead(&mut self, i: usize) -> Option<Arc<Job>> {
        let at = self.ahead.binary_search_by_key(&i, |(j, _)| *j).ok()?;
        self.ahead[at].1.take()
    }

    fn push(&mut self, name: &[u8], is_dir: bool, is_symlink: bool) {
        self.names.extend_from_slice(name);
        self.entries.push(WalkEntry {
            end: self.names.len(),
            is_dir,
            is_symlink,
        });
    }
}

impl WalkEntry {
    /// Whether it is a directory (following a symlink).
    pub fn is_dir(&self) -> bool {
        self.is_dir
    }

    /// Whether it is a symlink.
    pub fn is_symlink(&self) -> bool {
        self.is_symlink
    }
}

/// How directories are read for a walk.
#[derive(Copy, Clone)]
pub struct How {
    /// Stat entries by their paths (`followlinks`: see [`classify`]).
    pub by_path: bool,
    /// `lstat` every entry (`walk(stat=True)`).
    pub stat: bool,
}

/// `lstat` of the entry `name` of `dir` (at `dir_path`), as `os.lstat` of
/// the joined path would give it.
fn lstat(
    dir: BorrowedFd<'_>,
    dir_path: &[u8],
    name: &CStr,
    by_path: bool,
) -> Option<rustix::fs::Stat> {
    let st = if by_path && fits_path_max(dir_path, name) {
        let p = CString::new(util::join(dir_path, name.to_bytes())).ok()?;
        rustix::fs::lstat(p.as_c_str())
    } else {
        rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
    };
    st.ok()
}

/// Whether `dir_path/name` can be given to one system call.  The walk
/// reads directories deeper than `PATH_MAX` (opened in steps), so an entry
/// whose path is longer is stat'ed relative to its open directory: by the
/// path, it would fail (`ENAMETOOLONG`) and be left out of `walk(stat=True)`'s
/// dict, or its type taken for a file's.
fn fits_path_max(dir_path: &[u8], name: &CStr) -> bool {
    dir_path.len() + name.to_bytes().len() + 2 < PATH_MAX
}

/// A directory's entries, or why it could not be read.
pub type Listing = io::Result<Entries>;

/// A directory's identity: its device (major, minor) and inode.
type Identity = (u32, u32, u64);

fn identity_of(st: &rustix::fs::Statx) -> Identity {
    (st.stx_dev_major, st.stx_dev_minor, st.stx_ino)
}

/// A listing read ahead, with the identity of the directory read: the
/// directory itself is closed at once by the worker that read it, so
/// that listings waiting for the walk hold no descriptors (a process
/// allowed few, which `os.walk` walks with one at a time, must not run
/// out of them) and their `close`s are not the walk's thread's.
type Ahead = io::Result<(Entries, Identity)>;

/// The listing of a directory read ahead, as `os.walk`, listing `path`
/// only now, would have it; `None` if `path` no longer names the directory
/// read (removed, renamed, replaced, or no longer reachable): it is to be
/// read again, which gives what `os.walk` gives, the error included.
fn check_ahead(ahead: Ahead, path: &CStr) -> Option<Listing> {
    let (entries, read) = match ahead {
        Ok(ahead) => ahead,
        Err(e) => return Some(Err(e)),
    };
    let now = rustix::fs::statx(rustix::fs::CWD, path, AtFlags::empty(), StatxFlags::INO).ok()?;
    (identity_of(&now) == read).then_some(Ok(entries))
}

/// `os.DirEntry.is_dir()` (following symlinks) and `is_symlink()` of the
/// entry `name` of `dir` (at `dir_path`): an entry that cannot be stat'ed
/// is neither.
///
/// `os` stats `dir_path/name`; the stats here are relative to the open
/// directory where that gives the same answer, and by the path where it may
/// not: following a symlink (whose target may lie along a path too long or
/// with too many symlinks to resolve: a loop walked with `followlinks`) and
/// under `followlinks` (the path itself may hold many symlinks), unless the
/// path is too long for a system call ([`fits_path_max`]).
fn classify(
    dir: BorrowedFd<'_>,
    dir_path: &[u8],
    name: &CStr,
    t: FileType,
    by_path: bool,
) -> (bool, bool) {
    let fits = fits_path_max(dir_path, name);
    let path_stat = |flags: AtFlags| -> Option<FileType> {
        let st = if fits {
            let p = CString::new(util::join(dir_path, name.to_bytes())).ok()?;
            rustix::fs::statx(rustix::fs::CWD, p.as_c_str(), flags, StatxFlags::TYPE)
        } else {
            rustix::fs::statx(dir, name, flags, StatxFlags::TYPE)
        };
        Some(FileType::from_mode(st.ok()?.stx_mode as u32))
    };
    let follow_is_dir = || path_stat(AtFlags::empty()).is_some_and(|m| m.is_dir());
    if t.is_dir() {
        (true, false)
    } else if t == FileType::SYMLINK {
        (follow_is_dir(), true)
    } else if t.is_unknown() {
        let lstat = if by_path && fits {
            path_stat(AtFlags::SYMLINK_NOFOLLOW)
        } else {
            dents::fs::stat_at(dir, name, dents::StatFields::TYPE)
                .ok()
                .map(|st| st.file_type())
        };
        match lstat {
            Some(FileType::SYMLINK) => (follow_is_dir(), true),
            Some(m) => (m.is_dir(), false),
            None => (false, false),
        }
    } else {
        (false, false)
    }
}

/// Linux's `PATH_MAX`.
const PATH_MAX: usize = 4096;

/// Lists the directory at `path` in the kernel's order, reusing `buf`.
pub fn read_listing(path: &CStr, buf: &mut Vec<u8>, how: How) -> Listing {
    read_open(path, buf, how).map(|(entries, _)| entries)
}

/// [`read_listing`], with the identity of the directory read.
fn read_ahead(path: &CStr, buf: &mut Vec<u8>, how: How) -> Ahead {
    let (entries, fd) = read_open(path, buf, how)?;
    let st = rustix::fs::statx(&fd, c"", AtFlags::EMPTY_PATH, StatxFlags::INO)?;
    Ok((entries, identity_of(&st)))
}

/// Lists the directory at `path`, returning it still open.
fn read_open(path: &CStr, buf: &mut Vec<u8>, how: How) -> io::Result<(Entries, OwnedFd)> {
    let fd = dents::fs::open_dir(path)?;
    let mut reader = DirReader::with_buffer(fd, std::mem::take(buf));
    let mut out = Entries::default();
    let r = loop {
        match reader.next_with_fd() {
            Ok(Some((dir, e))) => {
                let (is_dir, is_symlink) = classify(
                    dir,
                    path.to_bytes(),
                    e.name_cstr(),
                    e.file_type(),
                    how.by_path,
                );
                if how.stat {
                    let st = lstat(dir, path.to_bytes(), e.name_cstr(), how.by_path);
                    out.stats.push(st);
                }
                out.push(e.name(), is_dir, is_symlink);
            }
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    let (fd, b) = reader.into_parts();
    *buf = b;
    r.map(|()| (out, fd))
}

/// Where a directory comes in the walk's order: the places of its
/// ancestors and itself among their parents' subdirectories, from the top
/// down; keys compare as the walk reaches them (a directory before its
/// subdirectories, those before its next sibling).
type WalkKey = Arc<[u32]>;

/// The key of the `i`-th subdirectory of the directory keyed `parent`.
fn child_key(parent: &[u32], i: usize) -> WalkKey {
    let i = u32::try_from(i).unwrap_or(u32::MAX);
    parent.iter().copied().chain([i]).collect()
}

/// Where the keys of jobs the walk queues for a directory's subdirectories
/// start: after those of the entries a worker queued (a directory has
/// fewer than 2^31 entries).
const QUEUED_BY_WALK: usize = 1 << 31;

/// A directory to read ahead.
struct Job {
    path: CString,
    /// Its place in the walk's order: workers read the first queued job.
    key: WalkKey,
    state: Mutex<JobState>,
    done: Condvar,
}

enum JobState {
    Queued,
    /// Being read by a worker; `waited`: the walk waits on `Job::done` for
    /// it, so the worker must wake it (a wake is a futex call even with
    /// nobody waiting: one per directory otherwise).
    Running {
        waited: bool,
    },
    /// Pruned (or the walk ended) while a worker read it: the worker
    /// drops the listing.
    Cancelled,
    Done(Ahead),
    /// The worker reading it panicked: the walk raises the panic.
    Panicked(Box<dyn std::any::Any + Send>),
    Taken,
}

/// The workers' side: the jobs in the walk's order and the count of
/// buffered entries.
///
/// Workers take the job the walk reaches first.  (Taking the newest, as a
/// stack, follows the walk's order with one worker only: with several,
/// one that finishes a later sibling first queues its subdirectories ahead
/// of the earlier sibling's, the workers read far ahead, the buffer fills
/// with listings needed late, and the walk, finding its next directories
/// unread, reads them itself: up to 26k of the real-tree shape's 34k.)
struct Queue {
    jobs: BTreeMap<WalkKey, Arc<Job>>,
    buffered: usize,
    /// Finished listings not taken yet.
    listings: usize,
    /// How many finished listings may wait ([`BUFFERED_LISTINGS`] or
    /// [`BUFFERED_LISTINGS_STAT`]).
    max_listings: usize,
    /// Workers asleep on `Shared::wake`: woken only when there are some,
    /// since a futex wake per directory costs as much as reading it.
    idle: usize,
    /// Of the `idle` workers, those already woken that have not run yet: a
    /// woken worker waits for a core before it takes the lock, and counted
    /// as idle meanwhile it would be woken again at every listing (95k
    /// futex calls for 38k directories).
    woken: usize,
    shutdown: bool,
}

impl Queue {
    /// Whether workers pause: as many finished listings wait as may.
    fn full(&self) -> bool {
        self.buffered >= BUFFERED_ENTRIES || self.listings >= self.max_listings
    }

    /// How many sleeping workers to wake for `jobs` new jobs: those not
    /// woken already, counted as woken from now.
    fn wake_for(&mut self, jobs: usize) -> usize {
        let n = jobs.min(self.idle - self.woken);
        self.woken += n;
        n
    }

    /// Counts every sleeping worker as woken (before a `notify_all`).
    fn wake_all(&mut self) {
        self.woken = self.idle;
    }
}

struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
    how: How,
}

/// Worker threads reading directories ahead of the walk.
struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

fn size_of(l: &Ahead) -> usize {
    l.as_ref().map_or(1, |v| v.0.len() + 1)
}

fn worker(shared: Arc<Shared>) {
    let mut buf = vec![0u8; READ_BUFFER];
    loop {
        let job = {
            let mut q = shared.queue.lock().unwrap();
            loop {
                if q.shutdown {
                    return;
                }
                if !q.full() {
                    if let Some((_, j)) = q.jobs.pop_first() {
                        break j;
                    }
                }
                q.idle += 1;
                q = shared.wake.wait(q).unwrap();
                q.idle -= 1;
                // (A spurious wake-up may take another's count: that one is
                // then woken again, never left asleep.)
                q.woken = q.woken.saturating_sub(1);
            }
        };
        {
            let mut st = job.state.lock().unwrap();
            if !matches!(*st, JobState::Queued) {
                continue; // taken by the walk itself
            }
            *st = JobState::Running { waited: false };
        }
        // A panic is handed to the walk, which waits for this job: left
        // `Running`, the walk would wait for it forever.
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            read_ahead(&job.path, &mut buf, shared.how)
        }));
        let mut st = job.state.lock().unwrap();
        if matches!(*st, JobState::Cancelled) {
            *st = JobState::Taken;
            continue;
        }
        let waited = matches!(*st, JobState::Running { waited: true });
        if matches!(&read, Ok(Err(e)) if dents::fs::out_of_descriptors(e)) {
            // Left to the walk, which reads it itself when it gets there
            // (with one descriptor, as `os.walk` does) rather than report
            // an error `os.walk` would not meet.
            *st = JobState::Queued;
            drop(st);
            if waited {
                job.done.notify_all();
            }
            continue;
        }
        *st = match read {
            Ok(mut listing) => {
                let children = match &mut listing {
                    Ok((entries, _)) => expand(&job.path, &job.key, entries, shared.how),
                    Err(_) => Vec::new(),
                };
                // The lock order is a job's state, then the queue.
                let mut q = shared.queue.lock().unwrap();
                q.buffered += size_of(&listing);
                q.listings += 1;
                q.jobs
                    .extend(children.into_iter().map(|j| (j.key.clone(), j)));
                // Sleeping workers are woken for the new jobs unless they
                // sleep because the buffer is full (they would sleep again).
                let wake = if q.full() {
                    0
                } else {
                    let jobs = q.jobs.len();
                    q.wake_for(jobs)
                };
                drop(q);
                for _ in 0..wake {
                    shared.wake.notify_one();
                }
                JobState::Done(listing)
            }
            Err(payload) => JobState::Panicked(payload),
        };
        drop(st);
        if waited {
            job.done.notify_all();
        }
    }
}

/// Queues a job for each subdirectory of a listing just read that the walk
/// descends into unless the caller prunes it (`os.walk` follows a symlink
/// only with `followlinks`), recording them in the listing: when the walk
/// gets there, the first of them is usually read already.  Returns them in
/// the listing's order.
fn expand(dir: &CStr, key: &[u32], entries: &mut Entries, how: How) -> Vec<Arc<Job>> {
    let mut jobs = Vec::new();
    for i in 0..entries.len() {
        let e = entries.get(i);
        // (`by_path` is set by `followlinks`.)
        if !e.is_dir() || (e.is_symlink() && !how.by_path) {
            continue;
        }
        let Ok(path) = CString::new(util::join(dir.to_bytes(), entries.name(i))) else {
            continue;
        };
        let job = Arc::new(Job {
            path,
            key: child_key(key, i),
            state: Mutex::new(JobState::Queued),
            done: Condvar::new(),
        });
        entries.ahead.push((i, Some(job.clone())));
        jobs.push(job);
    }
    jobs
}

impl Pool {
    fn new(threads: usize, how: How) -> Pool {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                jobs: BTreeMap::new(),
                buffered: 0,
                listings: 0,
                max_listings: if how.stat {
                    BUFFERED_LISTINGS_STAT
                } else {
                    BUFFERED_LISTINGS
                },
                idle: 0,
                woken: 0,
                shutdown: false,
            }),
            wake: Condvar::new(),
            how,
        });
        let workers = (0..threads)
            .filter_map(|_| {
                let s = shared.clone();
                std::thread::Builder::new()
                    .name("dents-walk".into())
                    .spawn(move || worker(s))
                    .ok()
            })
            .collect();
        Pool { shared, workers }
    }

    /// Queues `paths`, given with their keys.
    fn submit(&self, paths: impl Iterator<Item = (CString, WalkKey)>) -> Vec<Arc<Job>> {
        let jobs: Vec<Arc<Job>> = paths
            .map(|(path, key)| {
                Arc::new(Job {
                    path,
                    key,
                    state: Mutex::new(JobState::Queued),
                    done: Condvar::new(),
                })
            })
            .collect();
        if !jobs.is_empty() {
            let mut q = self.shared.queue.lock().unwrap();
            q.jobs
                .extend(jobs.iter().map(|j| (j.key.clone(), j.clone())));
            // Workers are woken only once a few jobs wait: the walk reads
            // its next directory itself if no worker has started it, and
            // a wake per directory (futex, context switch) costs more than
            // reading a small one.
            // Workers paused by a full buffer are left to `taken`.
            let wake = if q.jobs.len() >= WAKE_AT && !q.full() {
                let jobs = q.jobs.len();
                q.wake_for(jobs)
            } else {
                0
            };
            drop(q);
            for _ in 0..wake {
                self.shared.wake.notify_one();
            }
        }
        jobs
    }

    /// The listing of `job`: taken as it is if a worker has read it (the
    /// usual case), with the GIL held: releasing and taking it again costs
    /// as much as making a small directory's objects.  Else read here if no
    /// worker has started it, or waited for; all with the GIL released once
    /// (not once for the wait and once for the checks after).
    fn take(&self, py: Python<'_>, job: &Job, buf: &mut Vec<u8>) -> PyResult<Listing> {
        {
            let mut st = job.state.lock().unwrap();
            if matches!(*st, JobState::Done(_)) {
                let JobState::Done(l) = std::mem::replace(&mut *st, JobState::Taken) else {
                    unreachable!("matched just above")
                };
                drop(st);
                let how = self.shared.how;
                return Ok(self.checked(l, job, || {
                    py.allow_threads(|| read_listing(&job.path, buf, how))
                }));
            }
        }
        loop {
            let got = py.allow_threads(|| {
                let mut st = job.state.lock().unwrap();
                loop {
                    match std::mem::replace(&mut *st, JobState::Taken) {
                        JobState::Queued => {
                            drop(st);
                            return Some(Ok(self.read_here(job, buf)));
                        }
                        JobState::Done(l) => {
                            drop(st);
                            return Some(Ok(self.checked(l, job, || {
                                read_listing(&job.path, buf, self.shared.how)
                            })));
                        }
                        JobState::Panicked(payload) => return Some(Err(payload)),
                        JobState::Running { .. } => {
                            *st = JobState::Running { waited: true };
                            let (s, timeout) =
                                job.done.wait_timeout(st, util::SIGNAL_CHECK).unwrap();
                            st = s;
                            if timeout.timed_out() && matches!(*st, JobState::Running { .. }) {
                                return None;
                            }
                        }
                        JobState::Taken | JobState::Cancelled => {
                            unreachable!("a job is taken once, and never once cancelled")
                        }
                    }
                }
            });
            match got {
                Some(Ok(listing)) => return Ok(listing),
                Some(Err(payload)) => return Err(util::panic_error(payload)),
                None => py.check_signals()?,
            }
        }
    }

    /// The listing `l` of `job` read ahead, taken: as it is if the job's
    /// path still names the directory read, else read again by `reread`.
    fn checked(&self, l: Ahead, job: &Job, reread: impl FnOnce() -> Listing) -> Listing {
        self.taken(&l);
        check_ahead(l, &job.path).unwrap_or_else(reread)
    }

    /// Counts a finished listing taken, waking paused workers once the
    /// buffer is down to half: woken as soon as there is room for one
    /// listing, they would sleep again after each (a futex wake and two
    /// context switches per directory).
    fn taken(&self, listing: &Ahead) {
        let mut q = self.shared.queue.lock().unwrap();
        let half =
            |q: &Queue| q.buffered <= BUFFERED_ENTRIES / 2 && q.listings <= q.max_listings / 2;
        let was_half = half(&q);
        q.buffered -= size_of(listing);
        q.listings -= 1;
        let wake = !was_half && half(&q) && q.idle > q.woken;
        if wake {
            q.wake_all();
        }
        drop(q);
        if wake {
            self.shared.wake.notify_all();
        }
    }

    /// Drops the read-ahead jobs of `entries` the walk will not take (their
    /// directories were pruned), and those queued under them, so that no
    /// worker reads a pruned subtree and their listings free the buffer.
    fn cancel(&self, entries: &mut Entries) {
        let mut left: Vec<Arc<Job>> = entries.ahead.drain(..).filter_map(|(_, j)| j).collect();
        while let Some(job) = left.pop() {
            let mut st = job.state.lock().unwrap();
            match std::mem::replace(&mut *st, JobState::Taken) {
                JobState::Running { .. } => *st = JobState::Cancelled,
                JobState::Done(l) => {
                    drop(st);
                    self.taken(&l);
                    if let Ok((mut e, _)) = l {
                        left.extend(e.ahead.drain(..).filter_map(|(_, j)| j));
                    }
                }
                _ => {}
            }
        }
    }

    /// Reads a job no worker has started, taking it off the queue.
    fn read_here(&self, job: &Job, buf: &mut Vec<u8>) -> Listing {
        self.shared.queue.lock().unwrap().jobs.remove(&*job.key);
        read_listing(&job.path, buf, self.shared.how)
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.queue.lock().unwrap().shutdown = true;
        self.shared.wake.notify_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// Where a directory to list is: its path, or the read-ahead job that
/// holds it (one copy of the path, not one for the walk and one for the
/// job).
enum At {
    /// No read-ahead job (no pool, the top, or a path with a NUL).
    Path(Vec<u8>),
    /// Read ahead: the job holds the path.
    Job(Arc<Job>),
}

impl At {
    /// The directory's key in the walk's order (the top's is empty).
    fn key(&self) -> WalkKey {
        match self {
            At::Path(_) => Arc::from([]),
            At::Job(j) => j.key.clone(),
        }
    }

    /// The directory's path.
    fn bytes(&self) -> &[u8] {
        match self {
            At::Path(b) => b,
            At::Job(j) => j.path.to_bytes(),
        }
    }
}

/// A subdirectory to walk: the read-ahead job a worker queued for it, or
/// its path.
type Child = Result<Arc<Job>, Vec<u8>>;

/// What is left to do, on the walk's stack.
enum Step {
    /// List a directory (and yield it, top-down).
    Visit { path: PyObject, at: At },
    /// Yield a directory's tuple (bottom-up, after its subdirectories).
    Yield(PyObject),
}

/// A directory just yielded top-down: its subdirectories are pushed once
/// the caller comes back, from `dirnames` as the caller left it.
struct Yielded {
    top: PyObject,
    top_at: At,
    dirs: Py<PyList>,
    /// The name objects put in `dirs`, with their entries' places in
    /// `entries`.
    names: Vec<(PyObject, usize)>,
    entries: Entries,
}

/// The iterator behind `dents.walk`; several threads may share it (each
/// tuple goes to one of them).
#[pyclass(module = "dents", name = "WalkIterator", frozen)]
pub struct Walk {
    state: Locked<WalkState>,
}

struct WalkState {
    stack: Vec<Step>,
    yielded: Option<Yielded>,
    pool: Option<Pool>,
    onerror: Option<PyObject>,
    topdown: bool,
    followlinks: bool,
    how: How,
    is_bytes: bool,
    finished: bool,
    buf: Vec<u8>,
}

/// Starts a walk of `top` (read on `threads` threads besides the caller's).
pub fn new(
    top: PyPath,
    topdown: bool,
    onerror: Option<PyObject>,
    followlinks: bool,
    threads: usize,
    stat: bool,
) -> Walk {
    let how = How {
        by_path: followlinks,
        stat,
    };
    let pool = (threads > 0).then(|| Pool::new(threads, how));
    Walk {
        state: Locked::new(WalkState {
            stack: vec![Step::Visit {
                path: top.obj,
                at: At::Path(top.bytes),
            }],
            yielded: None,
            pool,
            onerror,
            topdown,
            followlinks,
            how,
            is_bytes: top.is_bytes,
            finished: false,
            buf: vec![0u8; READ_BUFFER],
        }),
    }
}

impl WalkState {
    /// Pushes the subdirectories to walk (in `dirs`' order: the first on
    /// top), each with the read-ahead job a worker queued for it (`Ok`) or
    /// its path (`Err`), for which a job is queued here.
    /// `parent` is their directory's key; a job queued here is keyed after
    /// those a worker queued for the same directory (by the entries'
    /// places: a name the caller added to `dirnames` comes after them).
    fn push_children(&mut self, parent: &[u32], children: Vec<(PyObject, Child)>) {
        let Some(pool) = &self.pool else {
            for (path, at) in children.into_iter().rev() {
                let at = match at {
                    Ok(job) => At::Job(job),
                    Err(bytes) => At::Path(bytes),
                };
                self.stack.push(Step::Visit { path, at });
            }
            return;
        };
        // Each path moves into its job (`util::join` left room for the
        // NUL); one with a NUL (only possible from a caller's edit of
        // `dirnames`) stays a path, left to the walk, which reports it.
        let mut paths = Vec::with_capacity(children.len());
        // (`None`: a job is queued for it now.)
        let steps: Vec<(PyObject, Option<Child>)> = children
            .into_iter()
            .enumerate()
            .rev()
            .map(|(place, (path, at))| match at {
                Ok(job) => (path, Some(Ok(job))),
                Err(bytes) => match CString::new(bytes) {
                    Ok(c) => {
                        paths.push((c, child_key(parent, QUEUED_BY_WALK + place)));
                        (path, None)
                    }
                    Err(e) => (path, Some(Err(e.into_vec()))),
                },
            })
            .collect();
        let mut jobs = pool.submit(paths.into_iter()).into_iter();
        for (path, at) in steps {
            let at = match at {
                Some(Ok(job)) => At::Job(job),
                None => At::Job(jobs.next().expect("a job for each path submitted")),
                Some(Err(b)) => At::Path(b),
            };
            self.stack.push(Step::Visit { path, at });
        }
    }

    /// The `i`-th entry of the listing of `top` as a subdirectory to walk:
    /// its path object, and the job a worker queued for it (whose path is
    /// that path already) or its path.
    fn child(
        &self,
        py: Python<'_>,
        top: &At,
        entries: &mut Entries,
        i: usize,
    ) -> (PyObject, Child) {
        match entries.take_ahead(i) {
            Some(job) => (
                util::name_obj(py, job.path.to_bytes(), self.is_bytes),
                Ok(job),
            ),
            None => {
                let path = util::join(top.bytes(), entries.name(i));
                (util::name_obj(py, &path, self.is_bytes), Err(path))
            }
        }
    }

    /// After a top-down yield: the subdirectories left in `dirnames`, as
    /// `os.walk` takes them (a symlink is descended only with
    /// `followlinks`; names the caller added are checked with
    /// `os.path.islink`, as `os.walk` checks every name).
    fn descend(&mut self, py: Python<'_>, mut y: Yielded) -> PyResult<()> {
        let list = y.dirs.bind(py);
        let mut children = Vec::with_capacity(list.len());
        let mut next = 0; // where the caller's list is expected to go on in `names`
        let mut index: Option<HashMap<usize, usize>> = None;
        for item in list.iter() {
            let ptr = item.as_ptr() as usize;
            let known = if y
                .names
                .get(next)
                .is_some_and(|(o, _)| o.as_ptr() as usize == ptr)
            {
                next += 1;
                Some(next - 1)
            } else {
                index
                    .get_or_insert_with(|| {
                        y.names
                            .iter()
                            .enumerate()
                            .map(|(i, (o, _))| (o.as_ptr() as usize, i))
                            .collect()
                    })
                    .get(&ptr)
                    .copied()
            };
            match known {
                Some(i) => {
                    let at = y.names[i].1;
                    if self.followlinks || !y.entries.get(at).is_symlink() {
                        children.push(self.child(py, &y.top_at, &mut y.entries, at));
                    }
                }
                None => {
                    let os_path = util::os_module(py)?.getattr(intern!(py, "path"))?;
                    let path =
                        os_path.call_method1(intern!(py, "join"), (y.top.bind(py), &item))?;
                    if self.followlinks
                        || !os_path
                            .call_method1(intern!(py, "islink"), (&path,))?
                            .is_truthy()?
                    {
                        let p = util::fspath(py, &path)?;
                        children.push((p.obj, Err(p.bytes)));
                    }
                }
            }
        }
        if let Some(pool) = &self.pool {
            pool.cancel(&mut y.entries);
        }
        self.push_children(&y.top_at.key(), children);
        Ok(())
    }

    fn next(&mut self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        if let Some(y) = self.yielded.take() {
            self.descend(py, y)?;
        }
        while let Some(step) = self.stack.pop() {
            let (path, at) = match step {
                Step::Yield(t) => return Ok(Some(t)),
                Step::Visit { path, at } => (path, at),
            };
            let listing = match (&at, &self.pool) {
                (At::Job(job), Some(pool)) => pool.take(py, job, &mut self.buf)?,
                _ => {
                    let c = util::cstring(at.bytes())?;
                    let buf = &mut self.buf;
                    let how = self.how;
                    py.allow_threads(|| read_listing(&c, buf, how))
                }
            };
            let mut entries = match listing {
                Ok(entries) => entries,
                Err(e) => {
                    if let Some(onerror) = &self.onerror {
                        onerror.call1(py, (util::os_error(py, &e, &path),))?;
                    }
                    continue;
                }
            };
            // Sized once: the lists' items are counted before they are made.
            let ndirs = entries.entries.iter().filter(|e| e.is_dir()).count();
            let mut dirs = Vec::with_capacity(ndirs);
            let mut nondirs = Vec::with_capacity(entries.len() - ndirs);
            let mut names = Vec::with_capacity(if self.topdown { ndirs } else { 0 });
            let mut children = Vec::new();
            let stats = self.how.stat.then(|| PyDict::new(py));
            for i in 0..entries.len() {
                let e = entries.get(i);
                let name = util::name_obj(py, entries.name(i), self.is_bytes);
                if let (Some(stats), Some(st)) = (&stats, entries.stats.get_mut(i)) {
                    if let Some(st) = st.take() {
                        stats.set_item(&name, Stat(st))?;
                    }
                }
                if !e.is_dir() {
                    nondirs.push(name);
                    continue;
                }
                if self.topdown {
                    names.push((name.clone_ref(py), i));
                } else if self.followlinks || !e.is_symlink() {
                    children.push(self.child(py, &at, &mut entries, i));
                }
                dirs.push(name);
            }
            let dirs = PyList::new(py, dirs)?;
            let mut items = vec![
                path.clone_ref(py),
                dirs.clone().into_any().unbind(),
                PyList::new(py, nondirs)?.into_any().unbind(),
            ];
            if let Some(stats) = stats {
                items.push(stats.into_any().unbind());
            }
            let tuple = PyTuple::new(py, items)?.into_any().unbind();
            if self.topdown {
                self.yielded = Some(Yielded {
                    top: path,
                    top_at: at,
                    dirs: dirs.unbind(),
                    names,
                    entries,
                });
                return Ok(Some(tuple));
            }
            self.stack.push(Step::Yield(tuple));
            if let Some(pool) = &self.pool {
                pool.cancel(&mut entries);
            }
            self.push_children(&at.key(), children);
        }
        Ok(None)
    }
}

#[pymethods]
impl Walk {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let mut st = self.state.lock(py)?;
        if st.finished {
            return Ok(None);
        }
        let r = st.next(py);
        if !matches!(r, Ok(Some(_))) {
            // The end, or an exception (from onerror, Ctrl-C): like a
            // generator, the walk is over; its threads stop now.
            st.finished = true;
            st.stack.clear();
            st.yielded = None;
            st.pool = None;
        }
        r
    }

    /// Stops the walk and its threads (also done when it is garbage
    /// collected).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let mut st = self.state.lock(py)?;
        st.finished = true;
        st.stack.clear();
        st.yielded = None;
        st.pool = None;
        Ok(())
    }
}

/// An `lstat` result from `walk(stat=True)`: `os.stat_result`'s attributes,
/// made into Python objects only when read.
#[pyclass(module = "dents", name = "Stat", frozen)]
pub struct Stat(rustix::fs::Stat);

// The field types differ between architectures.
#[allow(clippy::unnecessary_cast)]
#[pymethods]
impl Stat {
    #[getter]
    fn st_mode(&self) -> u32 {
        self.0.st_mode as u32
    }
    #[getter]
    fn st_ino(&self) -> u64 {
        self.0.st_ino as u64
    }
    #[getter]
    fn st_dev(&self) -> u64 {
        self.0.st_dev as u64
    }
    #[getter]
    fn st_nlink(&self) -> u64 {
        self.0.st_nlink as u64
    }
    #[getter]
    fn st_uid(&self) -> u32 {
        self.0.st_uid
    }
    #[getter]
    fn st_gid(&self) -> u32 {
        self.0.st_gid
    }
    #[getter]
    fn st_size(&self) -> i64 {
        self.0.st_size as i64
    }
    #[getter]
    fn st_atime(&self) -> f64 {
        self.0.st_atime as i64 as f64 + self.0.st_atime_nsec as u64 as f64 * 1e-9
    }
    #[getter]
    fn st_mtime(&self) -> f64 {
        self.0.st_mtime as i64 as f64 + self.0.st_mtime_nsec as u64 as f64 * 1e-9
    }
    #[getter]
    fn st_ctime(&self) -> f64 {
        self.0.st_ctime as i64 as f64 + self.0.st_ctime_nsec as u64 as f64 * 1e-9
    }
    #[getter]
    fn st_atime_ns(&self) -> i128 {
        self.0.st_atime as i128 * 1_000_000_000 + self.0.st_atime_nsec as i128
    }
    #[getter]
    fn st_mtime_ns(&self) -> i128 {
        self.0.st_mtime as i128 * 1_000_000_000 + self.0.st_mtime_nsec as i128
    }
    #[getter]
    fn st_ctime_ns(&self) -> i128 {
        self.0.st_ctime as i128 * 1_000_000_000 + self.0.st_ctime_nsec as i128
    }
    #[getter]
    fn st_blksize(&self) -> i64 {
        self.0.st_blksize as i64
    }
    #[getter]
    fn st_blocks(&self) -> i64 {
        self.0.st_blocks as i64
    }
    #[getter]
    fn st_rdev(&self) -> u64 {
        self.0.st_rdev as u64
    }

    /// The same as an `os.stat_result` (what `os.lstat` returns).
    fn to_stat_result(&self, py: Python<'_>) -> PyResult<PyObject> {
        util::stat_result(py, &util::StatValues::from_stat(&self.0))
    }

    fn __repr__(&self) -> String {
        format!(
            "dents.Stat(st_mode={}, st_ino={}, st_dev={}, st_nlink={}, st_uid={}, st_gid={}, st_size={}, st_mtime_ns={})",
            self.st_mode(),
            self.st_ino(),
            self.st_dev(),
            self.st_nlink(),
            self.st_uid(),
            self.st_gid(),
            self.st_size(),
            self.st_mtime_ns()
        )
    }
}
