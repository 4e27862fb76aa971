//! One directory: which entries are subdirectories, with the fewest stats.
//!
//! Where `getdents64` gives each entry's type (`d_type`), nothing needs a
//! stat.  Where it does not (ext2/ext4 made without `filetype`, some FUSE
//! and network filesystems) every peer stats every entry just to learn
//! whether to descend.  [`resolve_unknown`] spends as few stats as possible
//! (the tricks of IO::AIO's `aio_scandir`):
//!
//! 1. **The link count.**  A directory has `2 + subdirectories` links on
//!    filesystems that keep the count (ext2/3/4, XFS, tmpfs): once that many
//!    subdirectories are found, all other entries are non-directories.
//!    btrfs gives 1 for every directory and others give 0 or 1: there the
//!    trick is not applied.
//! 2. **Likely directories first.**  The unknown entries are stat'ed names
//!    starting with `.` first, then names without a dot (shorter first),
//!    then the rest, each group in inode order (a cheap proxy for where the
//!    inodes lie on disk).  A directory of a million `IMG_*.JPG` and one
//!    `thumbs` subdirectory is resolved with one stat.
//! 3. **Relative, several at once.**  `statx` relative to the directory's
//!    descriptor (no path walk), on several threads for large sets; the
//!    number in flight grows only once the first stats did not suffice, so
//!    the easy case stays at one stat.
//! 4. **Before and after.**  The directory is stat'ed before reading and
//!    after resolving; if its link count, size, mtime or ctime changed, or a
//!    timestamp falls within the last second (too coarse to show a change),
//!    every unresolved entry is stat'ed: a directory is never reported as a
//!    non-directory because of a concurrent change.
//!
//! The `name/.` probe of `aio_scandir` is not used: `statx` relative to the
//! directory already avoids the path walk it saves, and it needs an extra
//! `lstat` for every symlink to a directory.

use std::ffi::CStr;
use std::io;
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use rustix::fs::StatxFlags;

use crate::file_type::FileType;
use crate::sys;

/// Unresolved entries below this count are stat'ed on the calling thread.
const PARALLEL_MIN: usize = 256;

/// Entries stat'ed one at a time before more threads join.
const SERIAL_HEAD: usize = 16;

/// What is known about an entry's type.
///
/// Not `#[non_exhaustive]`: every entry is a directory, not one, or not
/// yet known, and a caller must handle each to classify it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Not resolved (yet).
    Unknown,
    /// A directory (not a symlink to one).
    Dir,
    /// Not a directory; the exact type if a stat or `d_type` told it,
    /// [`FileType::UNKNOWN`] if only the link count did.
    NotDir(FileType),
}

impl Kind {
    /// The kind that `d_type` (or a stat's mode) `t` gives.
    pub fn from_type(t: FileType) -> Kind {
        if t.is_unknown() {
            Kind::Unknown
        } else if t.is_dir() {
            Kind::Dir
        } else {
            Kind::NotDir(t)
        }
    }
}

/// An entry whose type `getdents64` left unknown.
#[derive(Clone, Debug)]
pub struct Unknown<'a> {
    /// The entry's name.
    pub name: &'a CStr,
    /// `d_ino`: orders the stats.
    pub ino: u64,
    /// The answer, filled in by [`resolve_unknown`].
    pub kind: Kind,
}

/// What the caller needs to know of each unknown entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Want {
    /// Only whether it is a directory: the link count may spare stats.
    DirOrNot,
    /// Its exact type: every unknown entry is stat'ed.
    FullType,
}

/// The directory as stat'ed before its entries were read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DirState {
    nlink: u64,
    size: u64,
    mtime: (i64, u32),
    ctime: (i64, u32),
    fs_magic: u64,
}

impl DirState {
    /// Stats the open directory `dir` (do this before reading it).
    pub fn of(dir: BorrowedFd<'_>) -> io::Result<DirState> {
        let st = sys::fstat(dir)?;
        Ok(DirState::from_stat(&st, sys::fs_magic(dir)?))
    }

    /// The state from a stat of the directory, on a filesystem of type
    /// `fs_magic`.
    pub(crate) fn from_stat(st: &rustix::fs::Stat, fs_magic: u64) -> DirState {
        DirState {
            nlink: st.st_nlink,
            size: st.st_size as u64,
            mtime: (st.st_mtime, st.st_mtime_nsec as u32),
            ctime: (st.st_ctime, st.st_ctime_nsec as u32),
            fs_magic,
        }
    }

    /// A state whose link count is never used (for full-type resolves).
    pub fn unusable() -> DirState {
        DirState {
            nlink: 0,
            size: 0,
            mtime: (0, 0),
            ctime: (0, 0),
            fs_magic: 0,
        }
    }

    /// The same directory stat'ed again (same filesystem).
    fn refresh(&self, dir: BorrowedFd<'_>) -> io::Result<DirState> {
        Ok(DirState::from_stat(&sys::fstat(dir)?, self.fs_magic))
    }

    /// Whether nothing changed in the directory since before `read_started`
    /// (seconds): then a state taken after the read describes the listing
    /// as well as one taken before it.  A second of margin covers clocks
    /// coarser than the one the read started by.
    pub fn settled_before(&self, read_started: i64) -> bool {
        self.mtime.0 < read_started - 1 && self.ctime.0 < read_started - 1
    }

    /// The number of subdirectories the link count promises, if this
    /// filesystem keeps directory link counts.
    pub fn expected_subdirs(&self) -> Option<u64> {
        if self.fs_magic == sys::BTRFS_SUPER_MAGIC || self.nlink < 2 {
            return None;
        }
        Some(self.nlink - 2)
    }

    /// Whether `later` shows a change, or this state is too recent for a
    /// change within the same second to show.
    fn changed_or_recent(&self, later: &DirState, now: i64) -> bool {
        self != later || self.mtime.0 >= now - 1 || self.ctime.0 >= now - 1
    }
}

/// How many stats were made and how each entry's type was learnt; shared
/// by all threads of a scan (`dents --debug` prints them).
#[derive(Debug, Default)]
pub struct Counters {
    /// `statx` calls made to classify entries.
    pub stats: AtomicU64,
    /// Entries whose type came from `d_type`.
    pub by_dtype: AtomicU64,
    /// Entries known to be non-directories from the link count alone.
    pub by_nlink: AtomicU64,
    /// Entries whose type came from a stat.
    pub by_stat: AtomicU64,
    /// Directories whose before/after check forced a stat of every entry.
    pub fallbacks: AtomicU64,
    /// Directories where the link count could not be used.
    pub nlink_unusable: AtomicU64,
    /// Entries that vanished before they could be stat'ed.
    pub vanished: AtomicU64,
}

impl Counters {
    /// A one-line summary, in the spirit of `bfs -D stat`.
    pub fn summary(&self) -> String {
        let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
        format!(
            "stats {}, by d_type {}, by link count {}, by stat {}, fallbacks {}, link count unusable {}, vanished {}",
            g(&self.stats),
            g(&self.by_dtype),
            g(&self.by_nlink),
            g(&self.by_stat),
            g(&self.fallbacks),
            g(&self.nlink_unusable),
            g(&self.vanished),
        )
    }
}

/// Options of [`resolve_unknown`].
#[derive(Copy, Clone, Debug)]
pub struct ResolveOptions {
    /// What must be known of each entry.
    pub want: Want,
    /// At most this many stats in flight (threads).
    pub in_flight: usize,
}

/// Resolves the kind of every entry of `unknown`, entries of the open
/// directory `dir` whose `d_type` was unknown.
///
/// `before` is the directory's state from before it was read;
/// `known_subdirs` counts the entries whose `d_type` said directory.
/// Entries that vanish before their stat stay [`Kind::Unknown`].
pub fn resolve_unknown(
    dir: BorrowedFd<'_>,
    before: &DirState,
    known_subdirs: u64,
    unknown: &mut [Unknown<'_>],
    opts: ResolveOptions,
    counters: &Counters,
) {
    if unknown.is_empty() {
        return;
    }
    let expected = match opts.want {
        Want::FullType => None,
        Want::DirOrNot => before.expected_subdirs(),
    };
    if opts.want == Want::DirOrNot && expected.is_none() {
        counters.nlink_unusable.fetch_add(1, Ordering::Relaxed);
    }
    // Subdirectories still to find among the unknown entries; a count
    // below what d_type already showed means the link count is not usable.
    let to_find = expected.and_then(|e| e.checked_sub(known_subdirs));
    if expected.is_some() && to_find.is_none() {
        counters.nlink_unusable.fetch_add(1, Ordering::Relaxed);
    }

    let (mut order, mut rest) = likely_dirs_first(unknown);
    let reached = |found: u64| to_find.is_some_and(|t| found >= t);
    let mut done = stat_in_order(dir, unknown, &order, to_find, opts.in_flight, counters);
    let head = order.len();
    if done.issued == head && !reached(done.found) && !rest.is_empty() {
        // The likely directories did not suffice: the rest, in inode order.
        rest.sort_unstable_by_key(|&i| (unknown[i].ino, i));
        order.extend_from_slice(&rest);
        let more = stat_in_order(
            dir,
            unknown,
            &order[head..],
            to_find.map(|t| t - done.found),
            opts.in_flight,
            counters,
        );
        done.issued += more.issued;
        done.found += more.found;
    } else {
        order.extend_from_slice(&rest);
    }

    if let Some(to_find) = to_find {
        let after = before.refresh(dir);
        let now = sys::now().0;
        let trustworthy =
            matches!(&after, Ok(a) if !before.changed_or_recent(a, now)) && done.found == to_find;
        if trustworthy {
            for u in unknown.iter_mut().filter(|u| u.kind == Kind::Unknown) {
                u.kind = Kind::NotDir(FileType::UNKNOWN);
                counters.by_nlink.fetch_add(1, Ordering::Relaxed);
            }
        } else {
            counters.fallbacks.fetch_add(1, Ordering::Relaxed);
            let left: Vec<usize> = order[done.issued..]
                .iter()
                .copied()
                .filter(|&i| unknown[i].kind == Kind::Unknown)
                .collect();
            stat_in_order(dir, unknown, &left, None, opts.in_flight, counters);
        }
    }
}

/// Whether a name is among those stat'ed first: names starting with `.`
/// and names without a dot, which directories mostly have and files
/// mostly do not.
pub fn is_likely_dir_name(name: &[u8]) -> bool {
    name.first() == Some(&b'.') || !name.contains(&b'.')
}

/// What [`resolve_likely`] concluded.
///
/// Not `#[non_exhaustive]`: the likely directories either account for
/// every subdirectory or not, and the caller must handle both (resolve
/// the rest, or not).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Likely {
    /// The likely candidates hold every subdirectory the link count
    /// promises and the directory did not change: every other entry of
    /// unknown type is a non-directory.
    AllFound,
    /// They do not, or the count cannot be trusted: `found` directories
    /// were found among them (those stat'ed have their kind); resolve the
    /// entries still unknown with [`resolve_unknown`], adding `found` to
    /// the subdirectories already known.
    Partial {
        /// Directories found among the candidates.
        found: u64,
    },
}

/// The first step of [`resolve_unknown`] for a caller that holds many
/// unknown entries: only the likely directories among them
/// ([`is_likely_dir_name`]) are passed in `likely`, so that when they hold
/// every subdirectory (the usual case) nothing need be built for the
/// others.  Same arguments as [`resolve_unknown`] otherwise.
pub fn resolve_likely(
    dir: BorrowedFd<'_>,
    before: &DirState,
    known_subdirs: u64,
    likely: &mut [Unknown<'_>],
    in_flight: usize,
    counters: &Counters,
) -> Likely {
    let Some(to_find) = before
        .expected_subdirs()
        .and_then(|e| e.checked_sub(known_subdirs))
    else {
        return Likely::Partial { found: 0 };
    };
    let (mut order, mut rest) = likely_dirs_first(likely);
    rest.sort_unstable_by_key(|&i| (likely[i].ino, i));
    order.extend_from_slice(&rest);
    let done = stat_in_order(dir, likely, &order, Some(to_find), in_flight, counters);
    if done.found == to_find {
        let after = before.refresh(dir);
        let now = sys::now().0;
        if matches!(&after, Ok(a) if !before.changed_or_recent(a, now)) {
            for u in likely.iter_mut().filter(|u| u.kind == Kind::Unknown) {
                u.kind = Kind::NotDir(FileType::UNKNOWN);
                counters.by_nlink.fetch_add(1, Ordering::Relaxed);
            }
            return Likely::AllFound;
        }
    }
    Likely::Partial { found: done.found }
}

/// The order of the stats, in two parts: the likely directories (names
/// starting with `.`, then names without a dot, shorter first; inode order
/// within each group), sorted; and the rest, left unsorted, since the
/// stats seldom get that far.
fn likely_dirs_first(unknown: &[Unknown<'_>]) -> (Vec<usize>, Vec<usize>) {
    let mut likely: Vec<(u8, usize, u64, usize)> = Vec::new();
    let mut rest = Vec::new();
    for (i, u) in unknown.iter().enumerate() {
        let name = u.name.to_bytes();
        if name.first() == Some(&b'.') {
            likely.push((0, 0, u.ino, i));
        } else if is_likely_dir_name(name) {
            likely.push((1, name.len(), u.ino, i));
        } else {
            rest.push(i);
        }
    }
    // The index makes every key distinct: an unstable sort is exact.
    likely.sort_unstable();
    (likely.into_iter().map(|k| k.3).collect(), rest)
}

/// What [`stat_in_order`] did.
struct Done {
    /// How many entries of the order were stat'ed (a prefix of it).
    issued: usize,
    /// How many of them were directories.
    found: u64,
}

/// Stats `unknown[order[..]]` in order, stopping once `stop_after`
/// directories are found (if given).  Small sets and the first few stats go
/// on this thread; the rest on up to `in_flight` threads.
fn stat_in_order(
    dir: BorrowedFd<'_>,
    unknown: &mut [Unknown<'_>],
    order: &[usize],
    stop_after: Option<u64>,
    in_flight: usize,
    counters: &Counters,
) -> Done {
    let mut done = Done {
        issued: 0,
        found: 0,
    };
    let reached = |found: u64| stop_after.is_some_and(|s| found >= s);
    let serial = if order.len() < PARALLEL_MIN || in_flight <= 1 {
        order.len()
    } else {
        SERIAL_HEAD.min(order.len())
    };
    while done.issued < serial && !reached(done.found) {
        let u = &mut unknown[order[done.issued]];
        u.kind = stat_kind(dir, u.name, counters);
        done.found += (u.kind == Kind::Dir) as u64;
        done.issued += 1;
    }
    if done.issued == order.len() || reached(done.found) {
        return done;
    }

    // The rest on several threads, each taking the next entry in order.
    let rest = &order[done.issued..];
    let next = AtomicUsize::new(0);
    let found = AtomicU64::new(done.found);
    let stop = AtomicBool::new(false);
    let results: Vec<Vec<(usize, Kind)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..in_flight.min(rest.len()))
            .map(|_| {
                let (next, found, stop) = (&next, &found, &stop);
                let names: &[Unknown<'_>] = unknown;
                let work = move || {
                    let mut out = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&idx) = rest.get(i) else { break };
                        let kind = stat_kind(dir, names[idx].name, counters);
                        if kind == Kind::Dir {
                            let f = found.fetch_add(1, Ordering::Relaxed) + 1;
                            if stop_after.is_some_and(|s| f >= s) {
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                        out.push((i, kind));
                    }
                    out
                };
                // A thread that cannot start: its share is done here.
                std::thread::Builder::new()
                    .spawn_scoped(scope, work)
                    .map_err(|_| work())
            })
            .collect();
        workers
            .into_iter()
            .map(|w| match w {
                Ok(w) => w.join().expect("stat worker panicked"),
                Err(out) => out,
            })
            .collect()
    });
    // Entries past the stop point may have been stat'ed by a thread that
    // had not seen the stop yet: keep their answers too, and report the
    // longest stat'ed prefix so the caller stats only what is left.
    let mut stated = vec![false; rest.len()];
    for (i, kind) in results.into_iter().flatten() {
        unknown[rest[i]].kind = kind;
        stated[i] = true;
    }
    let prefix = stated.iter().take_while(|&&s| s).count();
    done.issued += prefix;
    done.found = found.load(Ordering::Relaxed);
    done
}

/// Stats one entry and says what it is; a vanished entry stays unknown.
fn stat_kind(dir: BorrowedFd<'_>, name: &CStr, counters: &Counters) -> Kind {
    counters.stats.fetch_add(1, Ordering::Relaxed);
    match sys::statx_at(dir, name, StatxFlags::TYPE) {
        Ok(st) => {
            counters.by_stat.fetch_add(1, Ordering::Relaxed);
            Kind::from_type(FileType::from_mode(st.stx_mode as u32))
        }
        Err(_) => {
            counters.vanished.fetch_add(1, Ordering::Relaxed);
            Kind::Unknown
        }
    }
}
