//! GNU du's walk order, for the entries that need it: where each path
//! comes in the order gnulib's fts visits a tree.
//!
//! GNU du charges an inode with several links to the first of its links
//! that its walk visits.  The walk is fts's: physical, no comparison
//! function, so each directory's entries come in the order `readdir`
//! gives them, depth first (a directory's subtree before its next
//! sibling).  Two exceptions in `fts_build`: it reads at most 100,000
//! entries at a time (`FTS_MAX_READDIR_ENTRIES`), and a batch of more than
//! 10,000 (`FTS_INODE_SORT_DIR_ENTRIES_THRESHOLD`) is sorted by inode
//! number unless the directory is on tmpfs, NFS or CIFS (where the sort
//! would not help); without `FTS_CWDFD` (under `-L`) fts cannot tell the
//! filesystem and sorts on all of them.
//!
//! The parallel walk does not visit in that order.  During the walk
//! ([`Places`], [`Node`]), a directory holding a link of an inode with
//! several links is read a second time through the descriptor the walk
//! has open (names hashed and inode numbers, no stat), and its entries
//! placed as fts places them; its ancestors are placed the same way,
//! each read once through `..` from the directory below, so nothing is
//! opened by path (paths deeper than `PATH_MAX` work).  A link's place
//! is its directory's [`Node`] (the chain of places up to the argument)
//! and its place there, compared depth first ([`cmp_places`]).
//!
//! [`GnuOrder`] does the same from paths, for `--from` (a snapshot's
//! entries have no open directory) and `-L`'s replay.

use std::cmp::Ordering;
use std::collections::hash_map::{DefaultHasher, Entry as MapEntry};
use std::collections::{HashMap, HashSet};
use std::ffi::CString;
use std::hash::{BuildHasherDefault, Hasher};
use std::os::fd::BorrowedFd;
use std::sync::Arc;

use dents::dir::{DirReader, RawEntry};

use crate::dui::AtomicDui;

/// fts's batch: entries read before the batch is processed.
const BATCH: usize = 100_000;

/// A batch of more entries than this is sorted by inode number.
const INODE_SORT_ABOVE: usize = 10_000;

/// Filesystems where fts does not sort by inode (`statfs`'s `f_type`).
const NO_SORT_FS: [u64; 4] = [
    0x0102_1994, // tmpfs
    0x6969,      // NFS
    0xFF53_4D42, // CIFS
    0xFE53_4D42, // SMB2
];

/// The places of some paths in GNU's walk order below one argument.
#[derive(Debug, Default)]
pub struct GnuOrder {
    /// A needed path's place in its directory's fts order.
    place: HashMap<Vec<u8>, u64>,
    /// The argument's key: its path and a `/`.
    root_key: Vec<u8>,
}

/// Whether fts sorts a big batch of the directory open as `dir` by inode.
fn sorts_by_inode(dir: BorrowedFd<'_>, sort_any_fs: bool) -> bool {
    sort_any_fs
        || rustix::fs::fstatfs(dir).map_or(true, |s| !NO_SORT_FS.contains(&(s.f_type as u64)))
}

/// Reads `reader` to its end and hands each entry's `take` (if any) to
/// `put` with the entry's place in fts's order: batches of [`BATCH`]
/// entries, each in `readdir` order or, above [`INODE_SORT_ABOVE`] and if
/// `sorts`, by inode number.  A read error ends the list there, as it
/// ends fts's.
fn fts_order<T>(
    reader: &mut DirReader,
    sorts: bool,
    mut take: impl FnMut(&RawEntry<'_>) -> Option<T>,
    mut put: impl FnMut(T, u64),
) {
    let mut batch: Vec<(u64, Option<T>)> = Vec::new();
    let mut base = 0u64;
    let mut flush = |batch: &mut Vec<(u64, Option<T>)>, base: &mut u64| {
        if sorts && batch.len() > INODE_SORT_ABOVE {
            // Stable: two links of one inode in one directory keep their
            // readdir order.
            batch.sort_by_key(|e| e.0);
        }
        for (i, (_, t)) in batch.drain(..).enumerate() {
            if let Some(t) = t {
                put(t, *base + i as u64);
            }
        }
        *base += BATCH as u64;
    };
    while let Ok(Some(e)) = reader.next_entry() {
        let t = take(&e);
        batch.push((e.ino(), t));
        if batch.len() == BATCH {
            flush(&mut batch, &mut base);
        }
    }
    flush(&mut batch, &mut base);
}

/// Where a directory's entries come in fts's order: name → place.
pub(crate) fn fts_places(
    dir: &[u8],
    names: &HashSet<&[u8]>,
    sort_any_fs: bool,
) -> HashMap<Vec<u8>, u64> {
    let mut out = HashMap::new();
    let Ok(c) = CString::new(dir) else {
        return out;
    };
    let Ok(mut reader) = DirReader::open(&c) else {
        return out;
    };
    let sorts = sorts_by_inode(reader.fd(), sort_any_fs);
    fts_order(
        &mut reader,
        sorts,
        |e| names.contains(e.name()).then(|| e.name().to_vec()),
        |n, at| {
            out.insert(n, at);
        },
    );
    out
}

/// The place of a name not found where it was looked for: last.
pub const UNKNOWN: u64 = u64::MAX;

/// A hasher for keys that are hashes already.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A name's 64-bit hash (SipHash with fixed keys: the same every run).
pub fn name_hash(name: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    h.write(name);
    h.finish()
}

/// The places of every entry of one directory in fts's order, read
/// through a descriptor the walk has open.
///
/// Names are kept as 64-bit hashes (8 bytes and a place an entry, not
/// the name); the names whose hashes collide in the directory are kept
/// whole, from a second read, so that every lookup is exact.
#[derive(Debug, Default)]
pub struct Places {
    /// Name hash → place ([`UNKNOWN`] where two names share the hash).
    by_hash: HashMap<u64, u64, BuildHasherDefault<IdHasher>>,
    /// The names whose hashes collide → place.
    by_name: HashMap<Box<[u8]>, u64>,
}

impl Places {
    /// Reads the directory open as `dir` (from its start, through a
    /// descriptor of its own: the walk's keeps its position) and places
    /// its entries.  `sort_any_fs`: fts sorts big directories on every
    /// filesystem (`-L`).  A directory that cannot be read again places
    /// nothing (every name [`UNKNOWN`]).
    pub fn read(dir: BorrowedFd<'_>, sort_any_fs: bool) -> Places {
        let mut out = Places::default();
        let Ok(mut reader) = DirReader::open_at(dir, c".") else {
            return out;
        };
        let sorts = sorts_by_inode(reader.fd(), sort_any_fs);
        let mut collided: HashSet<u64> = HashSet::new();
        fts_order(
            &mut reader,
            sorts,
            |e| Some(name_hash(e.name())),
            |h, at| match out.by_hash.entry(h) {
                MapEntry::Vacant(v) => {
                    v.insert(at);
                }
                MapEntry::Occupied(mut o) => {
                    o.insert(UNKNOWN);
                    collided.insert(h);
                }
            },
        );
        if collided.is_empty() {
            return out;
        }
        let Ok(mut reader) = DirReader::open_at(dir, c".") else {
            return out;
        };
        fts_order(
            &mut reader,
            sorts,
            |e| {
                collided
                    .contains(&name_hash(e.name()))
                    .then(|| e.name().into())
            },
            |n, at| {
                out.by_name.insert(n, at);
            },
        );
        out
    }

    /// The place of `name` ([`UNKNOWN`] if it was not read).
    pub fn of(&self, name: &[u8]) -> u64 {
        match self.by_hash.get(&name_hash(name)) {
            Some(&UNKNOWN) => self.by_name.get(name).copied().unwrap_or(UNKNOWN),
            Some(&p) => p,
            None => UNKNOWN,
        }
    }

    /// The place of the name whose [`name_hash`] is `h`, when only the
    /// hash was kept ([`UNKNOWN`] if no name or several have it).
    pub fn of_hash(&self, h: u64) -> u64 {
        self.by_hash.get(&h).copied().unwrap_or(UNKNOWN)
    }
}

/// A directory on the way to a link whose charge waits for GNU's order:
/// its place in its parent's fts order and its parent's node, up to the
/// argument (a chain shared by all the links below; memory per
/// directory, not per path).
#[derive(Debug)]
pub struct Node {
    /// Its id in the run (from 1, in the order nodes are made, over all
    /// arguments): how a hard-link set word names it.
    pub id: u64,
    /// The parent's node; `None` for the argument.
    pub parent: Option<Arc<Node>>,
    /// Its place among its parent's entries (0 for the argument).
    pub place: u64,
    /// Its depth below the argument.
    pub depth: usize,
    /// Its name (the argument's path for the argument).
    pub name: Box<[u8]>,
    /// What the links charged below it add to its line (summed after
    /// the walk; less, in wrapping arithmetic, what was charged below it
    /// provisionally and moved to an earlier link).
    pub extra: AtomicDui,
}

impl Node {
    /// The path the walk gave the directory: its ancestors' names joined
    /// as the walker joins them.
    pub fn path(&self) -> Vec<u8> {
        let mut names = vec![&*self.name];
        let mut n = self;
        while let Some(p) = n.parent.as_deref() {
            names.push(&p.name);
            n = p;
        }
        let mut path = Vec::new();
        for name in names.iter().rev() {
            if !path.is_empty() && !path.ends_with(b"/") {
                path.push(b'/');
            }
            path.extend_from_slice(name);
        }
        path
    }
}

/// Compares two entries' places in GNU's walk order, each given as its
/// directory's node and its place there: depth first, so the places of
/// the first components where the two paths part decide.
pub fn cmp_places(a: (&Node, u64), b: (&Node, u64)) -> Ordering {
    let ((mut x, mut xp), (mut y, mut yp)) = (a, b);
    // Up to the same depth: the deeper entry becomes its ancestor at the
    // other's depth.
    while x.depth > y.depth {
        xp = x.place;
        x = x
            .parent
            .as_deref()
            .expect("a node above the argument's depth");
    }
    while y.depth > x.depth {
        yp = y.place;
        y = y
            .parent
            .as_deref()
            .expect("a node above the argument's depth");
    }
    // Then up together until both are entries of one directory.
    while !std::ptr::eq(x, y) {
        let (Some(px), Some(py)) = (x.parent.as_deref(), y.parent.as_deref()) else {
            break;
        };
        (xp, yp) = (x.place, y.place);
        (x, y) = (px, py);
    }
    xp.cmp(&yp)
}

impl GnuOrder {
    /// The places of `paths` (entries below the argument `root`, as the
    /// walk built them), reading each directory on their way once.
    /// `sort_any_fs`: fts sorts big directories on every filesystem
    /// (`-L`).
    pub fn of<'p>(root: &[u8], paths: impl Iterator<Item = &'p [u8]>, sort_any_fs: bool) -> Self {
        let mut root_key = root.to_vec();
        if !root_key.ends_with(b"/") {
            root_key.push(b'/');
        }
        // Each needed directory (by its path as the walk wrote it) and
        // the names needed in it.
        let mut needed: HashMap<Vec<u8>, HashSet<Vec<u8>>> = HashMap::new();
        for p in paths {
            let Some(rest) = p.get(root_key.len()..) else {
                continue;
            };
            let mut end = root_key.len();
            for (i, comp) in rest.split(|&c| c == b'/').enumerate() {
                let dir = if i == 0 { root } else { &p[..end] };
                needed
                    .entry(dir.to_vec())
                    .or_default()
                    .insert(comp.to_vec());
                end += comp.len() + usize::from(i > 0);
            }
        }
        let mut place = HashMap::new();
        for (dir, names) in &needed {
            let names: HashSet<&[u8]> = names.iter().map(Vec::as_slice).collect();
            let mut key = if dir.as_slice() == root {
                root_key.clone()
            } else {
                let mut k = dir.clone();
                k.push(b'/');
                k
            };
            let klen = key.len();
            for (name, at) in fts_places(dir, &names, sort_any_fs) {
                key.truncate(klen);
                key.extend_from_slice(&name);
                place.insert(key.clone(), at);
            }
        }
        GnuOrder { place, root_key }
    }

    /// The key of `path` in GNU's order: its components' places, from the
    /// argument down (a component whose directory could not be read
    /// again comes last, and such paths by their bytes).
    pub fn key(&self, path: &[u8]) -> (Vec<u64>, Vec<u8>) {
        let mut key = Vec::new();
        if let Some(rest) = path.get(self.root_key.len()..) {
            let mut end = self.root_key.len();
            for comp in rest.split(|&c| c == b'/') {
                end += comp.len();
                key.push(self.place.get(&path[..end]).copied().unwrap_or(u64::MAX));
                end += 1;
            }
        }
        (key, path.to_vec())
    }
}
