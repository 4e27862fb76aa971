//! Refresh: the listings of an old snapshot's directories, indexed by
//! identity, and the rule that decides when one may stand for reading
//! the directory again (`dents scan --since OLD`).
//!
//! A directory's listing (names, types, inode numbers) is taken from OLD
//! instead of a `getdents` when, at the moment the new scan opens it:
//!
//! * its identity (`st_dev`, `st_ino`) is a directory OLD read whole;
//! * its time (the later of `st_mtime` and `st_ctime`: `utimes` can set
//!   the mtime back, never the ctime) is the one OLD recorded for it;
//! * that time is more than [`GUARD_NANOS`] before OLD's scan started.
//!
//! Any change to a directory's entries (create, unlink, rename in or
//! out) sets its mtime and ctime to the time of the change, so an
//! unchanged time says the entries are the ones OLD read, as long as a
//! change made after OLD read the directory cannot carry the same
//! timestamp as the one before it: the guard.  The kernel stamps inodes
//! from a coarse clock (one tick, up to 10 ms, behind the time OLD took
//! as its start), some file systems keep whole seconds (ext4 with
//! 128-byte inodes) or two (FAT), and the clock of a network file
//! system's server may differ from ours.  Two seconds covers the first
//! three; a server clock more than that apart from ours is not covered
//! (scan such a tree without `--since`).
//!
//! Listings are looked up by identity and depth, not by path: the names
//! of a directory do not depend on where it lies, and the walk builds
//! each entry's path from the directory it is in now.  So a subtree moved
//! since OLD to another parent at the same depth (its descendants keep
//! their times; the moved directory's ctime changes, so it is read again)
//! is found by identity below its new parent and pathed from there, never
//! served from where it was; one moved to another depth is read again
//! (the index holds only the levels near the walk's, below).  A
//! directory deleted and its inode number reused is younger than OLD, so
//! it is read.
//!
//! What OLD did not read whole is not in the index: directories it met
//! errors in or below (their messages in its record), and with `-x` those
//! on another file system than their root.  A directory OLD met twice (a
//! tree reached from two roots, a bind mount) is indexed where it was met
//! first: a listing is only taken when the directory's time says it has
//! not changed since before OLD began, so both of OLD's reads of it
//! listed the same entries.  OLD is not used at all
//! (a full scan, and [`Index::open`] says why) when it is not a
//! snapshot this dents reads, was written by another dents version, was
//! scanned with `-L` or is refreshed with `-L` (a followed link's row
//! holds its target's type and inode, not the entry's), or lists fewer
//! error messages than it met errors.
//!
//! The index is built on a thread of its own while the walk goes on,
//! a level at a time: OLD's rows are in level order, so the listings of
//! the directories at depth `d` are whole once the rows at `d + 1` have
//! been read, and are published then.  A lookup waits only until the
//! level of its depth in the new scan is published.  Reading OLD whole
//! before the walk began was about 100 ms of a 350 ms names-only
//! refresh of 400,000 entries, during which nothing else ran.
//!
//! A sorted walk visits level by level and says how deep its visits are
//! ([`Index::walked_to`], [`Wanted::follows_walk`]): the builder then
//! reads no further than a level ahead of it (rows at depth `e + 2` once
//! entries at `e` are visited: a directory is looked up only after its
//! visit as an entry, so the level it needs is always let through), and
//! the levels of directories the walk has passed are dropped.  The index
//! then holds three levels of OLD's listings at a time, not all of them
//! (on the real-tree shape at most 45% of its entries; a refresh's peak
//! RSS 49 -> 41 MB).  A walk that cannot say (a rank of `dents-mpi`)
//! has OLD indexed whole.  Should
//! OLD prove damaged part way ([`Index::stopped`]), the levels published
//! before are used still (their rows were read whole before the damage,
//! and a listing is only taken where a directory's identity and time
//! match), and every other directory is read: which directories are
//! reused does not depend on how far the walk had got when the damage
//! was found, and the damage is said when a directory the walk asked
//! for was not among them.
//!
//! Memory: per entry of OLD held, its name, a NUL and 16 bytes (inode
//! 8, name offset 4, type 1, and the padding to 8); per directory of a
//! level held, about 48 bytes of hash table; while the index is built, the paths of
//! two levels' directories, and for a moment a level's listings twice
//! (their vectors grow by doubling, and are trimmed when the level is
//! published).

use std::collections::{HashMap, HashSet};
use std::os::fd::BorrowedFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock, RwLockReadGuard};
use std::thread::JoinHandle;

use crate::schema::letter_type;
use dents::walk::Listing;

use crate::merge::root_len;
use crate::reader::{DirRow, SnapshotReader};
use crate::row::nanos;
use crate::Error;

/// The guard window (see the module doc): a directory whose time is
/// less than this before OLD's start is read again.
pub const GUARD_NANOS: i64 = 2_000_000_000;

/// A directory's identity: `st_dev`, `st_ino`.
type Key = (u64, u64);

/// Hashes identities for the index's tables.  std's default (SipHash,
/// keyed against crafted inputs) was 2.6% of a names-only refresh's
/// samples; inode numbers are the file system's, not an adversary's, so
/// one multiply-and-fold a word serves.
#[derive(Clone, Copy, Default)]
struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Not used by `Key` (its words come through `write_u64`); any
        // other input still hashes, a byte at a time.
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        // A 64-bit odd multiplier (the golden ratio's), whose high half
        // mixes every bit of the word; the rotation spreads it to the
        // low bits the table indexes by.
        let m = u128::from((self.0 ^ n).rotate_left(26)) * 0x9E37_79B9_7F4A_7C15;
        self.0 = (m as u64) ^ ((m >> 64) as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Tables keyed by identity.
type IdMap<V> = HashMap<Key, V, std::hash::BuildHasherDefault<IdHasher>>;

/// One directory OLD read whole.
struct Dir {
    /// Its time as OLD recorded it (the later of mtime and ctime, ns).
    time: i64,
    /// Its entries: `entries[first..first + count]` of its level.
    first: usize,
    count: usize,
}

/// One entry of a listing: 16 bytes, as the index holds one for each
/// entry of OLD.
struct Entry {
    ino: u64,
    /// Where its name starts in its level's `names` (NUL-terminated): a
    /// level's names stay below 4 GiB (past that its directories are
    /// read again).
    name_at: u32,
    kind: u8,
}

/// The size promised above.
const _: () = assert!(std::mem::size_of::<Entry>() == 16);

/// OLD's directories at one depth, with their listings (the entries at
/// the depth below); never changed once published.
#[derive(Default)]
struct Level {
    dirs: IdMap<Dir>,
    names: Vec<u8>,
    entries: Vec<Entry>,
}

/// What the builder has published so far.
#[derive(Default)]
struct Built {
    /// The levels whose listings are whole, by depth.
    levels: Vec<Arc<Level>>,
    /// No level will be added: OLD is read, or could not be.
    over: bool,
    /// Why OLD could not be read to its end: nothing more is reused.
    stopped: Option<NotReused>,
}

/// The index as the builder and the lookups share it.  Lookups read
/// `built` side by side; one that must wait for a level takes `bell`
/// before looking again, and the builder rings it (taking it) after
/// each change, so that no change falls between a look and the wait.
#[derive(Default)]
struct Shared {
    built: RwLock<Built>,
    bell: Mutex<()>,
    /// Rung at each level published, and when the build is over.
    grown: Condvar,
    /// The index was dropped: the builder stops at its next row.
    dropped: AtomicBool,
    /// A lookup went unanswered because the build stopped short
    /// ([`Index::stopped`]).
    hid: AtomicBool,
    /// The walk says how deep its visits are ([`Index::walked_to`]): the
    /// builder keeps a level ahead of them, and levels behind them are
    /// dropped.
    follows: AtomicBool,
    /// The deepest entries the walk has visited ([`Index::walked_to`]).
    walked: AtomicUsize,
    /// Rung when `walked` grows, and when the index is dropped: the
    /// builder waits on it (with `bell`) for the walk to come closer.
    walk_moved: Condvar,
}

impl Shared {
    /// Waits, when the walk says how deep it is, until reading the rows
    /// at `depth` (the listings of level `depth - 1`) keeps the index at
    /// most a level ahead of it: until the walk has visited entries at
    /// `depth - 2`.  A lookup at depth `d` waits for level `d`, and the
    /// walk looks a directory up only once it has visited it as an entry
    /// (at `d`): the rows it needs are always let through.
    fn wait_for_walk(&self, depth: usize) {
        if !self.follows.load(Ordering::Acquire) {
            return;
        }
        let mut bell = self.bell.lock().unwrap_or_else(|p| p.into_inner());
        while self.walked.load(Ordering::Acquire) + 2 < depth
            && !self.dropped.load(Ordering::Acquire)
        {
            bell = self
                .walk_moved
                .wait(bell)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    fn built(&self) -> RwLockReadGuard<'_, Built> {
        // A panic while the lock was held cannot leave `Built` half
        // changed (each change is one push or one assignment).
        self.built.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Changes what is built, then wakes the lookups waiting.
    fn change(&self, f: impl FnOnce(&mut Built)) {
        f(&mut self.built.write().unwrap_or_else(|p| p.into_inner()));
        drop(self.bell.lock().unwrap_or_else(|p| p.into_inner()));
        self.grown.notify_all();
    }
}

/// The directories of an old snapshot that a refresh may reuse, built
/// as the walk goes (see the module doc).
pub struct Index {
    shared: Arc<Shared>,
    builder: Option<JoinHandle<()>>,
    /// OLD's start, nanoseconds since the epoch.
    start: i64,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let b = self.shared.built();
        f.debug_struct("Index")
            .field("levels", &b.levels.len())
            .field("over", &b.over)
            .finish()
    }
}

impl Drop for Index {
    fn drop(&mut self) {
        self.shared.dropped.store(true, Ordering::Release);
        // A builder waiting for the walk wakes to see it.
        drop(self.shared.bell.lock().unwrap_or_else(|p| p.into_inner()));
        self.shared.walk_moved.notify_all();
        if let Some(h) = self.builder.take() {
            // The builder's panic is already its `stopped`.
            let _ = h.join();
        }
    }
}

/// Why OLD is not used at all, or not past some point: the message
/// `cannot reuse 'FILE': ` and [`NotReused::text`].
#[derive(Clone, Debug)]
pub struct NotReused {
    /// The file the message names when it is not OLD itself: the shard
    /// of a sharded OLD that cannot be read, so that the user is sent to
    /// the broken file rather than to a directory of good ones.
    pub file: Option<Vec<u8>>,
    /// Why, after `cannot reuse 'FILE': `.
    pub why: String,
    /// The directories whose listings were taken from the part of OLD
    /// read before it stopped ([`Index::stopped`]); 0 when it was not
    /// used at all.
    pub reused: u64,
}

impl NotReused {
    /// For a reason that concerns OLD as a whole.
    fn whole(why: impl Into<String>) -> NotReused {
        NotReused {
            file: None,
            why: why.into(),
            reused: 0,
        }
    }

    /// For an error reading `old`: the shard it names, if not OLD.
    fn of_error(e: &Error, old: &Path) -> NotReused {
        use std::os::unix::ffi::OsStrExt;
        NotReused {
            file: e
                .path()
                .filter(|p| *p != old.as_os_str().as_bytes())
                .map(<[u8]>::to_vec),
            why: strip_path(e),
            reused: 0,
        }
    }

    /// The path the message names: [`NotReused::file`], else `old`.
    pub fn named<'a>(&'a self, old: &'a [u8]) -> &'a [u8] {
        self.file.as_deref().unwrap_or(old)
    }

    /// The message after `cannot reuse 'FILE': `: why, then what the
    /// scan did instead (`every directory read`, or which were not when
    /// some listings had been taken).
    pub fn text(&self) -> String {
        match self.reused {
            0 => format!("{}; every directory read", self.why),
            n => format!(
                "{}; every directory read but the {n} listed from it before",
                self.why
            ),
        }
    }
}

/// Which options of the new scan matter to reuse.
#[derive(Clone, Copy, Debug)]
pub struct Wanted {
    /// The new scan follows every link (`-L`).
    pub follow_all: bool,
    /// The walk is sorted (level order) and says how deep its visits
    /// are ([`Index::walked_to`]): the index then holds a few levels of
    /// OLD at a time, not all of it.  A walk that cannot say must not
    /// set it (the builder would wait for it).
    pub follows_walk: bool,
}

impl Index {
    /// Checks that OLD may be used and starts reading it into an index
    /// of its directories' listings (on a thread of its own, or this one
    /// if no thread can be started), or says why it cannot be used at
    /// all.
    pub fn open(old: &Path, wanted: Wanted) -> Result<Index, NotReused> {
        let reader = SnapshotReader::open(old).map_err(|e| NotReused::of_error(&e, old))?;
        let rec = reader.record();
        let ours = env!("CARGO_PKG_VERSION");
        if rec.dents_version != ours {
            return Err(NotReused::whole(format!(
                "written by dents {}, this is dents {ours}",
                rec.dents_version
            )));
        }
        let words: Vec<&str> = rec.options.split_whitespace().collect();
        if words.contains(&"-L") || wanted.follow_all {
            return Err(NotReused::whole(
                "scans that follow every link (-L) are not refreshed",
            ));
        }
        if rec.error_count > rec.errors.len() as u64 {
            return Err(NotReused::whole(format!(
                "its record keeps {} of its {} errors' messages",
                rec.errors.len(),
                rec.error_count
            )));
        }
        let denied = denied_paths(&rec.errors).ok_or_else(|| {
            NotReused::whole("its record names a path with quotes or escapes in an error")
        })?;
        let start = nanos(rec.start.secs, rec.start.nsecs)
            .ok_or_else(|| NotReused::whole("its start time is out of range"))?;
        let xdev = words.contains(&"-x");
        let shared = Arc::new(Shared::default());
        shared.follows.store(wanted.follows_walk, Ordering::Release);
        // The job is taken back and run here if no thread can be started.
        let job = Arc::new(Mutex::new(Some((reader, denied, old.to_path_buf()))));
        let run = {
            let (shared, job) = (Arc::clone(&shared), Arc::clone(&job));
            move || build(&job, xdev, &shared)
        };
        let builder = std::thread::Builder::new()
            .name("dents-index".into())
            .spawn(run)
            .ok();
        if builder.is_none() {
            // Built before the walk begins: nothing to wait for.
            shared.follows.store(false, Ordering::Release);
            build(&job, xdev, &shared);
        }
        Ok(Index {
            shared,
            builder,
            start,
        })
    }

    /// Why OLD could not be read to its end (damaged past the levels
    /// published), if that left a directory unanswered: a lookup that
    /// found no listing in the levels published before.  Which lookups
    /// those are depends on the trees, not on how far the build had got
    /// when the walk ended (a damage the walk never needed is not said).
    /// `reused`: the directories the walk took listings of.
    pub fn stopped(&self, reused: u64) -> Option<NotReused> {
        if !self.shared.hid.load(Ordering::Relaxed) {
            return None;
        }
        let stopped = self.shared.built().stopped.clone()?;
        Some(NotReused { reused, ..stopped })
    }

    /// The walk has visited entries at `depth` ([`Wanted::follows_walk`];
    /// a sorted walk visits level by level).  Directories above
    /// `depth - 1` will not be looked up again: their levels are dropped,
    /// and the builder may read on.
    pub fn walked_to(&self, depth: usize) {
        let sh = &self.shared;
        if !sh.follows.load(Ordering::Acquire) || depth <= sh.walked.load(Ordering::Acquire) {
            return;
        }
        sh.walked.fetch_max(depth, Ordering::AcqRel);
        {
            let mut b = sh.built.write().unwrap_or_else(|p| p.into_inner());
            let done = depth.saturating_sub(1).min(b.levels.len());
            for l in &mut b.levels[..done] {
                if !l.dirs.is_empty() || !l.entries.is_empty() {
                    *l = Arc::default();
                }
            }
        }
        drop(sh.bell.lock().unwrap_or_else(|p| p.into_inner()));
        sh.walk_moved.notify_all();
    }

    /// The listing of the directory open at `fd`, at `depth` in the new
    /// scan, if it may stand for reading it (see the module doc); `None`:
    /// read it.  One `fstat`: for walks that have no stat of the
    /// directory already.
    pub fn listing_at(&self, fd: BorrowedFd<'_>, depth: usize) -> Option<Listing> {
        self.listing(&dents::fs::fstat(fd).ok()?, depth)
    }

    /// The listing of the directory whose metadata is `m` (its stat by
    /// the walk, relative to its parent: no system call here), at
    /// `depth` in the new scan (where OLD must have it too), if it may
    /// stand for reading it (see the module doc); `None`: read it.  Waits
    /// for that level of OLD to be indexed, unless its time already says
    /// to read it.
    ///
    /// A directory that was readable in OLD and is not now had its mode
    /// changed since, and a `chmod` sets the ctime: its time no longer
    /// matches, so it is opened, and its error is NEW's as a full scan's
    /// (`edges::unreadable_after_old` in the scan_refresh tests).
    pub fn listing(&self, m: &dents::Metadata, depth: usize) -> Option<Listing> {
        let t = |t: Option<dents::Timestamp>| t.and_then(|t| nanos(t.secs, t.nsecs));
        let now = t(m.mtime())?.max(t(m.ctime())?);
        if now >= self.start.saturating_sub(GUARD_NANOS) {
            return None;
        }
        let key = (m.dev(), m.ino());
        let level = self.level_of(key, depth)?;
        let d = &level.dirs[&key];
        if now != d.time {
            return None;
        }
        listing_in(&level, d)
    }

    /// Level `depth` of OLD, if it holds `key`, waiting for it to be
    /// published.  `None` when it does not hold it, or OLD was read (or
    /// proved damaged) before it.
    fn level_of(&self, key: Key, depth: usize) -> Option<Arc<Level>> {
        // Once a look finds nothing, the next is made with the bell
        // held until the wait: a change after it rings only once the
        // wait has begun.
        let mut bell = None;
        loop {
            {
                let b = self.shared.built();
                if let Some(l) = b.levels.get(depth) {
                    return l.dirs.contains_key(&key).then(|| Arc::clone(l));
                }
                if b.over {
                    if b.stopped.is_some() {
                        self.shared.hid.store(true, Ordering::Relaxed);
                    }
                    return None;
                }
            }
            bell = Some(
                match bell.take() {
                    None => self.shared.bell.lock(),
                    Some(held) => self.shared.grown.wait(held),
                }
                .unwrap_or_else(|p| p.into_inner()),
            );
        }
    }
}

/// The listing OLD holds for `d`, a directory of `level`; `None` if a
/// name in it is not one a directory can hold (a damaged or foreign OLD):
/// then it is read.
fn listing_in(level: &Level, d: &Dir) -> Option<Listing> {
    let entries = &level.entries[d.first..d.first + d.count];
    // A level's names are contiguous, in its entries' order, each
    // with its NUL: a name ends where the next begins, the span from
    // a directory's first to past its last sizes the listing.
    let end_of = |i: usize| {
        level
            .entries
            .get(i)
            .map_or(level.names.len(), |e| e.name_at as usize)
    };
    let span = match entries.first() {
        None => 0,
        Some(f) => end_of(d.first + d.count) - f.name_at as usize,
    };
    let mut l = Listing::with_capacity(d.count, span.saturating_sub(d.count));
    for (i, e) in entries.iter().enumerate() {
        let name = &level.names[e.name_at as usize..end_of(d.first + i + 1) - 1];
        if !l.push(name, letter_type(e.kind), e.ino) {
            return None;
        }
    }
    Some(l)
}

/// The error without the path in front (the caller names it: OLD, or
/// [`NotReused::file`]).
fn strip_path(e: &Error) -> String {
    let s = e.to_string();
    match s.find("': ") {
        Some(i) if s.starts_with('\'') => s[i + 3..].to_string(),
        _ => s,
    }
}

/// The paths whose directories OLD did not read whole: each path its
/// errors name, and that path's parent (an entry that could not be
/// stat'ed or whose link could not be read has no row, so its directory's
/// listing lacks it).  `None` when a message's path is not quoted plainly
/// (`'PATH'` with no quote inside), so that it cannot be read back.
fn denied_paths(errors: &[Vec<u8>]) -> Option<HashSet<Vec<u8>>> {
    let mut denied = HashSet::new();
    for m in errors {
        let mut rest: &[u8] = m;
        for what in [
            &b"cannot read directory "[..],
            b"cannot read symbolic link ",
            b"cannot access ",
        ] {
            if let Some(r) = rest.strip_prefix(what) {
                rest = r;
                break;
            }
        }
        let end = rest.windows(3).rposition(|w| w == b"': ")?;
        let quoted = &rest[..end + 1];
        if quoted.len() < 2 || quoted[0] != b'\'' {
            return None;
        }
        let path = &quoted[1..quoted.len() - 1];
        if path.contains(&b'\'') {
            return None;
        }
        denied.insert(trim(path).to_vec());
        if let Some(i) = path.iter().rposition(|&c| c == b'/') {
            denied.insert(trim(&path[..i.max(1)]).to_vec());
        }
    }
    Some(denied)
}

/// A path without trailing slashes (but `/` stays): how a root given as
/// `t/` and its children's `t/a` agree on the directory's name.
fn trim(p: &[u8]) -> &[u8] {
    let mut end = p.len();
    while end > 1 && p[end - 1] == b'/' {
        end -= 1;
    }
    &p[..end]
}

/// The job of [`build`]: OLD's reader, the paths its errors name, OLD's
/// name; taken by whichever thread runs it.
type Job = Mutex<Option<(SnapshotReader, HashSet<Vec<u8>>, std::path::PathBuf)>>;

/// Reads OLD's rows (level order: the entries of a directory are
/// contiguous in the level below it) into levels, publishing each in
/// `shared` once whole; then marks the build over, with why it stopped
/// if OLD could not be read to its end.  Rows are read as borrowed
/// column values ([`SnapshotReader::for_each_dir_row`]): only a
/// directory's path is copied (the key its children are found by).
fn build(job: &Job, xdev: bool, shared: &Shared) {
    // Marks the build over however it ends, a panic included, so that
    // no lookup waits for a level that will not come.
    struct Over<'a>(&'a Shared, Option<NotReused>);
    impl Drop for Over<'_> {
        fn drop(&mut self) {
            let stopped = self.1.take();
            self.0.change(|b| {
                b.over = true;
                b.stopped = stopped;
            });
        }
    }
    let mut over = Over(
        shared,
        Some(NotReused::whole("its index stopped part way (a panic)")),
    );
    let Some((reader, denied, old)) = job.lock().ok().and_then(|mut j| j.take()) else {
        return;
    };
    let mut builder = Builder {
        xdev,
        denied: &denied,
        shared,
        root_dev: HashMap::new(),
        depth: 0,
        parents: None,
        above: HashMap::new(),
        spoilt: Vec::new(),
        open: None,
        here: Level::default(),
        here_paths: HashMap::new(),
    };
    let read = reader.for_each_dir_row(|row| {
        if shared.dropped.load(Ordering::Relaxed) {
            // Not an error of OLD's: nothing waits for the rest.
            return Err(Error::Corrupt("the index was dropped".into()));
        }
        builder.row(row)
    });
    over.1 = match read {
        Ok(()) => {
            builder.finish();
            None
        }
        Err(_) if shared.dropped.load(Ordering::Relaxed) => None,
        Err(e) => Some(NotReused::of_error(&e, &old)),
    };
}

/// The state of [`build`] between rows.
struct Builder<'a> {
    xdev: bool,
    denied: &'a HashSet<Vec<u8>>,
    shared: &'a Shared,
    /// With `-x`: each root's device.
    root_dev: HashMap<Vec<u8>, u64>,
    /// The depth of the rows being read.
    depth: u32,
    /// The directories of the level above, given their entries by this
    /// level's rows (`None` at depth 0); and by the prefix their
    /// children's paths start with.
    parents: Option<Level>,
    above: HashMap<Vec<u8>, Key>,
    /// Directories of `parents` whose entries came in two runs: the
    /// order is not what was written; reuse nothing of them.
    spoilt: Vec<Key>,
    /// The directory of `parents` whose entries are being gathered: its
    /// prefix and key.
    open: Option<(Vec<u8>, Key)>,
    /// This level's directories (their entries come with the next), and
    /// by prefix.
    here: Level,
    here_paths: HashMap<Vec<u8>, Key>,
}

impl Builder<'_> {
    fn row(&mut self, row: DirRow<'_>) -> Result<(), Error> {
        if row.depth != self.depth {
            if row.depth != self.depth + 1 {
                return Err(Error::Corrupt("rows not in level order".into()));
            }
            self.depth = row.depth;
            if let Some(whole) = self.parents.take() {
                self.publish(whole);
            }
            self.shared.wait_for_walk(row.depth as usize);
            self.parents = Some(std::mem::take(&mut self.here));
            self.above = std::mem::take(&mut self.here_paths);
            self.open = None;
        }
        if let Some(parents) = &mut self.parents {
            // The name is the path's last component (names hold no `/`).
            let cut = row
                .path
                .iter()
                .rposition(|&c| c == b'/')
                .map_or(0, |i| i + 1);
            let (prefix, name) = row.path.split_at(cut);
            if self
                .open
                .as_ref()
                .is_none_or(|(p, _)| p.as_slice() != prefix)
            {
                self.open = self.above.get(prefix).map(|&k| (prefix.to_vec(), k));
                if let Some((_, k)) = &self.open {
                    match parents.dirs.get_mut(k) {
                        Some(d) if d.count > 0 || d.first != usize::MAX => self.spoilt.push(*k),
                        Some(d) => d.first = parents.entries.len(),
                        None => {}
                    }
                }
            }
            if let Some((_, k)) = &self.open {
                if let Some(d) = parents.dirs.get_mut(k) {
                    match u32::try_from(parents.names.len()) {
                        Ok(name_at) if d.first + d.count == parents.entries.len() => {
                            d.count += 1;
                            parents.entries.push(Entry {
                                ino: row.ino,
                                name_at,
                                kind: row.kind,
                            });
                            parents.names.extend_from_slice(name);
                            parents.names.push(0);
                        }
                        Ok(_) => {}
                        // Its listing cannot be whole: read it again.
                        Err(_) if self.spoilt.last() != Some(k) => self.spoilt.push(*k),
                        Err(_) => {}
                    }
                }
            }
        }
        if row.kind != b'd' {
            return Ok(());
        }
        let (Some(dev), Some(m), Some(c)) = (row.dev, row.mtime, row.ctime) else {
            return Ok(());
        };
        let key = (dev, row.ino);
        let other_fs = self.xdev && {
            let root = &row.path[..root_len(row.path, row.depth)];
            if row.depth == 0 {
                self.root_dev.insert(root.to_vec(), dev);
            }
            self.root_dev.get(root).is_some_and(|&d| d != dev)
        };
        // Met before in this level: indexed there already.  (Met in
        // another level, it is indexed in each: both are listings of a
        // directory unchanged since before OLD began, or not used.)
        if self.here.dirs.contains_key(&key) || other_fs || self.denied.contains(trim(row.path)) {
            return Ok(());
        }
        self.here.dirs.insert(
            key,
            Dir {
                time: m.max(c),
                first: usize::MAX,
                count: 0,
            },
        );
        let mut prefix = Vec::with_capacity(row.path.len() + 1);
        prefix.extend_from_slice(row.path);
        if !prefix.ends_with(b"/") {
            prefix.push(b'/');
        }
        self.here_paths.insert(prefix, key);
        Ok(())
    }

    /// The last levels, once every row is read: the one above the last
    /// rows, and the last (its directories read empty).
    fn finish(&mut self) {
        if let Some(whole) = self.parents.take() {
            self.publish(whole);
        }
        let last = std::mem::take(&mut self.here);
        self.publish(last);
    }

    /// Publishes a level whose listings are whole.
    fn publish(&mut self, mut level: Level) {
        for k in self.spoilt.drain(..) {
            level.dirs.remove(&k);
        }
        // A directory that OLD read empty has no run: its listing is empty.
        for d in level.dirs.values_mut() {
            if d.first == usize::MAX {
                d.first = 0;
            }
        }
        level.names.shrink_to_fit();
        level.entries.shrink_to_fit();
        self.shared.change(|b| b.levels.push(Arc::new(level)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delta::row;
    use crate::record::{ScanRecord, Time};
    use crate::{Row, SnapshotWriter};
    use dents::FileType;
    use std::time::{Duration, Instant};

    /// Levels deep of [`chain`]'s tree.
    const DEEP: u32 = 10;

    /// A directory's row in OLD: device 7, its times long before OLD's
    /// start (see [`write_old`]).
    fn dir_row(path: &[u8], depth: u32, ino: u64) -> Row {
        let t = Some(1_000_000_000_000_000_000);
        Row {
            depth,
            kind: b'd',
            ino,
            dev: Some(7),
            mtime: t,
            ctime: t,
            ..row(path.to_vec())
        }
    }

    /// A file's row in OLD.
    fn file_row(path: &[u8], depth: u32, ino: u64) -> Row {
        Row {
            depth,
            ino,
            ..row(path.to_vec())
        }
    }

    /// OLD of root `r` in `dir`, started at 2,000,000,000 s, its rows
    /// `rows` (in level order).
    fn write_old(dir: &Path, rows: impl IntoIterator<Item = Row>) -> std::path::PathBuf {
        let file = dir.join("old.parquet");
        let mut w = SnapshotWriter::create(&file).unwrap();
        for r in rows {
            w.push(r).unwrap();
        }
        let rec = ScanRecord {
            roots: vec![b"r".to_vec()],
            start: Time {
                secs: 2_000_000_000,
                nsecs: 0,
            },
            dents_version: env!("CARGO_PKG_VERSION").into(),
            ..ScanRecord::default()
        };
        w.finish(&rec).unwrap();
        file
    }

    /// OLD's index, told of the walk's depth or not.
    fn index_of(old: &Path, follows_walk: bool) -> Index {
        let wanted = Wanted {
            follow_all: false,
            follows_walk,
        };
        Index::open(old, wanted).unwrap()
    }

    /// OLD of a chain of directories `r/d1/d2/...`, each holding two
    /// files and the next directory, `DEEP` deep.
    fn chain(dir: &Path) -> std::path::PathBuf {
        let mut rows = vec![dir_row(b"r", 0, 1)];
        let mut parent = String::from("r");
        for k in 1..=DEEP {
            let here = format!("{parent}/d{k}");
            rows.push(dir_row(here.as_bytes(), k, 100 + u64::from(k)));
            for f in ["fa", "fb"] {
                let path = format!("{parent}/{f}{k}");
                rows.push(file_row(path.as_bytes(), k, 1_000 + u64::from(k)));
            }
            parent = here;
        }
        write_old(dir, rows)
    }

    /// Levels published, and those still holding listings.
    fn counts(ix: &Index) -> (usize, usize) {
        let b = ix.shared.built();
        let held = b.levels.iter().filter(|l| !l.dirs.is_empty()).count();
        (b.levels.len(), held)
    }

    /// Waits (10 s at most) for `want` levels published, then a while
    /// longer to see that no more come.
    fn settles_at(ix: &Index, want: usize) -> (usize, usize) {
        let until = Instant::now() + Duration::from_secs(10);
        while counts(ix).0 < want && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(200));
        counts(ix)
    }

    /// The index of [`chain`]'s OLD (in a directory gone with the first
    /// value), told of the walk's depth or not.
    fn chain_index(follows_walk: bool) -> (tempfile::TempDir, Index) {
        let dir = tempfile::tempdir().unwrap();
        let ix = index_of(&chain(dir.path()), follows_walk);
        (dir, ix)
    }

    #[test]
    fn the_index_keeps_a_level_ahead_of_the_walk_and_drops_those_behind() {
        let (_dir, ix) = chain_index(true);
        // Before any visit: the rows to depth 2 read, levels 0 and 1
        // whole (level 1 once the first row at depth 3 is met).
        assert_eq!(settles_at(&ix, 2), (2, 2));
        ix.walked_to(1);
        assert_eq!(settles_at(&ix, 3), (3, 3));
        // Entries at depth 4 visited: the builder reads to depth 6
        // (levels to 5), and levels 0 to 2 are dropped.
        ix.walked_to(4);
        assert_eq!(settles_at(&ix, 6), (6, 3));
        let d4 = (7, 104);
        let l = ix.level_of(d4, 4).expect("r/d1/d2/d3/d4 at depth 4");
        assert_eq!(l.dirs[&d4].count, 3);
        // Looked up at another depth, a directory is not found.
        assert!(ix.level_of(d4, 5).is_none());
        // Dropped while its builder waits for the walk: it stops.
        drop(ix);
    }

    #[test]
    fn without_the_walk_s_word_the_index_is_read_whole() {
        let (_dir, ix) = chain_index(false);
        // A level a depth, 0 to DEEP, none dropped (the deepest: the
        // last directory, read empty).
        let all = DEEP as usize + 1;
        assert_eq!(settles_at(&ix, all), (all, all));
        ix.walked_to(5);
        assert_eq!(counts(&ix), (all, all));
    }

    /// A listing gives each of OLD's names whole, and none that no
    /// directory can hold: a name with a NUL (a damaged or foreign OLD)
    /// makes its directory be read, never reused cut short at the NUL.
    #[test]
    fn a_listing_has_whole_names_and_none_with_a_nul() {
        let dir = tempfile::tempdir().unwrap();
        let old = write_old(
            dir.path(),
            [
                dir_row(b"r", 0, 1),
                file_row(b"r/a\0b", 1, 2),
                file_row(b"r/c", 1, 3),
                dir_row(b"r/d", 1, 4),
                file_row(b"r/d/eee", 2, 5),
                file_row(b"r/d/f", 2, 6),
                dir_row(b"r/d/gg", 2, 7),
            ],
        );
        let ix = index_of(&old, false);
        let names = |key: Key, depth: usize| {
            let level = ix.level_of(key, depth).expect("indexed");
            listing_in(&level, &level.dirs[&key])
        };
        let want = |entries: &[(&[u8], FileType, u64)]| {
            let mut l = Listing::new();
            for &(n, t, ino) in entries {
                assert!(l.push(n, t, ino));
            }
            Some(l)
        };
        let (file, directory) = (FileType::REGULAR, FileType::DIRECTORY);
        assert_eq!(names((7, 1), 0), None, "r holds a name with a NUL");
        assert_eq!(
            names((7, 4), 1),
            want(&[(b"eee", file, 5), (b"f", file, 6), (b"gg", directory, 7)])
        );
        assert_eq!(names((7, 7), 2), want(&[]), "r/d/gg, read empty");
    }
}
