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
//! The parallel walk does not visit in that order, so the order of the
//! few paths that need it (the links of an inode met more than once) is
//! worked out after the walk: each directory on their way is read again
//! (names and inode numbers only, no stat) and its entries placed as fts
//! places them.  A path's place is the list of its components' places,
//! compared in order (depth first).

use std::collections::{HashMap, HashSet};
use std::ffi::CString;

use dents::dir::DirReader;

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
    let sorts = sort_any_fs
        || rustix::fs::fstatfs(reader.fd())
            .map_or(true, |s| !NO_SORT_FS.contains(&(s.f_type as u64)));
    let mut batch: Vec<(u64, Option<Vec<u8>>)> = Vec::new();
    let mut base = 0u64;
    let mut flush = |batch: &mut Vec<(u64, Option<Vec<u8>>)>, base: &mut u64| {
        if sorts && batch.len() > INODE_SORT_ABOVE {
            // Stable: two links of one inode in one directory keep their
            // readdir order.
            batch.sort_by_key(|e| e.0);
        }
        for (i, (_, name)) in batch.drain(..).enumerate() {
            if let Some(n) = name {
                out.insert(n, *base + i as u64);
            }
        }
        *base += BATCH as u64;
    };
    // A read error ends the list there, as it ends fts's.
    while let Ok(Some(e)) = reader.next_entry() {
        let name = names.contains(e.name()).then(|| e.name().to_vec());
        batch.push((e.ino(), name));
        if batch.len() == BATCH {
            flush(&mut batch, &mut base);
        }
    }
    flush(&mut batch, &mut base);
    out
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
