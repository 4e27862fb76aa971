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
//! Listings are looked up by identity alone, not by path: the names of a
//! directory do not depend on where it lies, and the walk builds each
//! entry's path from the directory it is in now.  So a subtree moved
//! since OLD (its descendants keep their times; the moved directory's
//! ctime changes, so it is read again) is found by identity below its new
//! parent and pathed from there, never served from where it was.  A
//! directory deleted and its inode number reused is younger than OLD, so
//! it is read.
//!
//! What OLD did not read whole is not in the index: directories it met
//! errors in or below (their messages in its record), and with `-x` those
//! on another file system than their root.  OLD is not used at all
//! (a full scan, and [`Index::open`] says why) when it is not a
//! snapshot this dents reads, was written by another dents version, was
//! scanned with `-L` or is refreshed with `-L` (a followed link's row
//! holds its target's type and inode, not the entry's), or lists fewer
//! error messages than it met errors.
//!
//! Memory: per entry of OLD, its name and 25 bytes (inode 8, name offset
//! 8, type 1, and the padding to 8); per directory about 48 bytes of
//! hash table; while the index is built, the paths of two levels'
//! directories.

use std::collections::{HashMap, HashSet};
use std::os::fd::BorrowedFd;
use std::path::Path;

use crate::schema::letter_type;
use dents::walk::Listing;

use crate::reader::SnapshotReader;
use crate::row::nanos;
use crate::Error;

/// The guard window (see the module doc): a directory whose time is
/// less than this before OLD's start is read again.
pub const GUARD_NANOS: i64 = 2_000_000_000;

/// One directory OLD read whole.
struct Dir {
    /// Its time as OLD recorded it (the later of mtime and ctime, ns).
    time: i64,
    /// Its entries: `entries[first..first + count]`.
    first: usize,
    count: usize,
}

/// One entry of a listing.
struct Entry {
    /// Where its name starts in `names` (NUL-terminated there).
    name_at: usize,
    ino: u64,
    kind: u8,
}

/// The directories of an old snapshot that a refresh may reuse.
pub struct Index {
    dirs: HashMap<(u64, u64), Dir>,
    names: Vec<u8>,
    entries: Vec<Entry>,
    /// OLD's start, nanoseconds since the epoch.
    start: i64,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("dirs", &self.dirs.len())
            .field("entries", &self.entries.len())
            .finish()
    }
}

/// Why OLD is not used at all: the message `cannot reuse 'FILE': WHY`.
#[derive(Debug)]
pub struct NotReused {
    /// The file the message names when it is not OLD itself: the shard
    /// of a sharded OLD that cannot be read, so that the user is sent to
    /// the broken file rather than to a directory of good ones.
    pub file: Option<Vec<u8>>,
    /// Why, after `cannot reuse 'FILE': `.
    pub why: String,
}

impl NotReused {
    /// For a reason that concerns OLD as a whole.
    fn whole(why: impl Into<String>) -> NotReused {
        NotReused {
            file: None,
            why: why.into(),
        }
    }

    /// The path the message names: [`NotReused::file`], else `old`.
    pub fn named<'a>(&'a self, old: &'a [u8]) -> &'a [u8] {
        self.file.as_deref().unwrap_or(old)
    }
}

/// Which options of the new scan matter to reuse.
#[derive(Clone, Copy, Debug)]
pub struct Wanted {
    /// The new scan follows every link (`-L`).
    pub follow_all: bool,
}

impl Index {
    /// Reads OLD whole into an index of its directories' listings, or
    /// says why it cannot be used at all.
    pub fn open(old: &Path, wanted: Wanted) -> Result<Index, NotReused> {
        let reader = SnapshotReader::open(old).map_err(|e| {
            use std::os::unix::ffi::OsStrExt;
            NotReused {
                file: e
                    .path()
                    .filter(|p| *p != old.as_os_str().as_bytes())
                    .map(<[u8]>::to_vec),
                why: strip_path(&e),
            }
        })?;
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
        build(&reader, start, xdev, &denied).map_err(|e| NotReused::whole(e.to_string()))
    }

    /// Directories in the index.
    pub fn dirs(&self) -> usize {
        self.dirs.len()
    }

    /// The listing of the directory open at `fd`, if it may stand for
    /// reading it (see the module doc); `None`: read it.  One `fstat`:
    /// for walks that have no stat of the directory already.
    pub fn listing_at(&self, fd: BorrowedFd<'_>) -> Option<Listing> {
        self.listing(&dents::fs::fstat(fd).ok()?)
    }

    /// The listing of the directory whose metadata is `m` (its stat by
    /// the walk, relative to its parent: no system call here), if it may
    /// stand for reading it (see the module doc); `None`: read it.
    ///
    /// A directory that was readable in OLD and is not now had its mode
    /// changed since, and a `chmod` sets the ctime: its time no longer
    /// matches, so it is opened, and its error is NEW's as a full scan's
    /// (`edges::unreadable_after_old` in the scan_refresh tests).
    pub fn listing(&self, m: &dents::Metadata) -> Option<Listing> {
        let d = self.dirs.get(&(m.dev(), m.ino()))?;
        let t = |t: Option<dents::Timestamp>| t.and_then(|t| nanos(t.secs, t.nsecs));
        let now = t(m.mtime())?.max(t(m.ctime())?);
        if now != d.time || now >= self.start.saturating_sub(GUARD_NANOS) {
            return None;
        }
        let mut l = Listing::new();
        for e in &self.entries[d.first..d.first + d.count] {
            let rest = &self.names[e.name_at..];
            let name = &rest[..rest.iter().position(|&c| c == 0).unwrap_or(rest.len())];
            if !l.push(name, letter_type(e.kind), e.ino) {
                return None;
            }
        }
        Some(l)
    }
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

/// The index from OLD's rows (level order: the entries of a directory
/// are contiguous in the level below it).  Rows are read as borrowed
/// column values ([`SnapshotReader::for_each_dir_row`]): only a
/// directory's path is copied (the key its children are found by).
fn build(
    reader: &SnapshotReader,
    start: i64,
    xdev: bool,
    denied: &HashSet<Vec<u8>>,
) -> Result<Index, Error> {
    let mut ix = Index {
        dirs: HashMap::new(),
        names: Vec::new(),
        entries: Vec::with_capacity(reader.num_rows().min(1 << 24) as usize),
        start,
    };
    // Identities seen twice (a tree reached from two roots, a bind
    // mount) or denied: never reused, whichever listing came first.
    let mut spoilt: HashSet<(u64, u64)> = HashSet::new();
    let mut root_dev: HashMap<Vec<u8>, u64> = HashMap::new();
    // The directories of the level above (by the prefix their children's
    // paths start with) and of this one.
    let mut above: HashMap<Vec<u8>, (u64, u64)> = HashMap::new();
    let mut here: HashMap<Vec<u8>, (u64, u64)> = HashMap::new();
    let mut depth = 0;
    // The directory whose entries are being gathered: its prefix and key.
    let mut open: Option<(Vec<u8>, (u64, u64))> = None;
    reader.for_each_dir_row(|row| {
        if row.depth != depth {
            if row.depth != depth + 1 {
                return Err(Error::Corrupt("rows not in level order".into()));
            }
            depth = row.depth;
            above = std::mem::take(&mut here);
            open = None;
        }
        if row.depth > 0 {
            // The name is the path's last component (names hold no `/`).
            let cut = row
                .path
                .iter()
                .rposition(|&c| c == b'/')
                .map_or(0, |i| i + 1);
            let (prefix, name) = row.path.split_at(cut);
            if open.as_ref().is_none_or(|(p, _)| p.as_slice() != prefix) {
                open = above.get(prefix).map(|&k| (prefix.to_vec(), k));
                if let Some((_, k)) = &open {
                    match ix.dirs.get_mut(k) {
                        // A second run of the same directory: the order is
                        // not what was written; reuse nothing of it.
                        Some(d) if d.count > 0 || d.first != usize::MAX => {
                            spoilt.insert(*k);
                        }
                        Some(d) => d.first = ix.entries.len(),
                        None => {}
                    }
                }
            }
            if let Some((_, k)) = &open {
                if let Some(d) = ix.dirs.get_mut(k) {
                    if d.first + d.count == ix.entries.len() {
                        d.count += 1;
                        ix.entries.push(Entry {
                            name_at: ix.names.len(),
                            ino: row.ino,
                            kind: row.kind,
                        });
                        ix.names.extend_from_slice(name);
                        ix.names.push(0);
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
        let other_fs = xdev && {
            let root = root_of(row.path, row.depth);
            if row.depth == 0 {
                root_dev.insert(root.to_vec(), dev);
            }
            root_dev.get(root).is_some_and(|&d| d != dev)
        };
        if other_fs || denied.contains(trim(row.path)) || ix.dirs.contains_key(&key) {
            spoilt.insert(key);
        }
        ix.dirs.entry(key).or_insert(Dir {
            time: m.max(c),
            first: usize::MAX,
            count: 0,
        });
        let mut prefix = Vec::with_capacity(row.path.len() + 1);
        prefix.extend_from_slice(row.path);
        if !prefix.ends_with(b"/") {
            prefix.push(b'/');
        }
        here.insert(prefix, key);
        Ok(())
    })?;
    for k in spoilt {
        ix.dirs.remove(&k);
    }
    // A directory that OLD read empty has no run: its listing is empty.
    for d in ix.dirs.values_mut() {
        if d.first == usize::MAX {
            d.first = 0;
        }
    }
    ix.names.shrink_to_fit();
    ix.entries.shrink_to_fit();
    Ok(ix)
}

/// The root a path at `depth` was reached from: the path less its last
/// `depth` names (see [`crate::row::components`]), without building the
/// list of them.
fn root_of(path: &[u8], depth: u32) -> &[u8] {
    let mut end = path.len();
    for _ in 0..depth {
        match path[..end].iter().rposition(|&b| b == b'/') {
            Some(i) => end = i,
            None => break,
        }
    }
    &path[..end]
}
