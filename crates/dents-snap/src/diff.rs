//! Two snapshots compared as streams: both are in the schema's level
//! order ([`crate::schema::ORDER`]), so one merge pass pairs the rows of
//! the same path, holding one row group of each file.
//!
//! What is held beyond that is proportional to the changes, not to the
//! snapshots: entries added and removed (path, device, inode, a few
//! fields) wait for the end, where the pairs with the same device and
//! inode become renames; and `--growth` keeps one total per directory
//! above a change.
//!
//! The lines, as `zfs diff` writes them, paths escaped as it does
//! ([`crate::escape`]: a newline or ` -> ` in a name cannot forge a line):
//!
//! * `M PATH`: the same path in both, with another type, size, blocks,
//!   mode, owner, group, mtime or inode number (a file replaced under the
//!   same name is a modification, not a removal and an addition);
//! * `R OLD -> NEW`: a removed and an added entry with the same device
//!   and inode number (and type); the entries inside a renamed directory
//!   are not listed again (an `M NEW/...` if they changed too);
//! * `- PATH`, `+ PATH`: the rest.
//!
//! `M` lines come first, as the merge meets them, then `R`, `-` and `+`
//! lines, each group in the snapshots' order.

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::escape::escape_into;
use crate::merge::{next_root, root_len, rooted_cmp};
use crate::reader::{column_bit, SnapshotReader};
use crate::row::{components, Row};
use crate::Error;

/// What to write.
#[derive(Clone, Copy, Debug, Default)]
pub struct DiffOptions {
    /// Instead of the changes, the directories whose disk usage
    /// (`blocks` × 512 of everything below them, as du counts) changed,
    /// largest growth first: `+BYTES PATH` or `-BYTES PATH`.
    pub growth: bool,
}

/// What the diff found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiffCounts {
    /// Entries added.
    pub added: u64,
    /// Entries removed.
    pub removed: u64,
    /// Entries modified.
    pub modified: u64,
    /// Entries renamed (not counting those inside a renamed directory).
    pub renamed: u64,
}

/// What pairs a removed and an added entry: device, inode, type.
type PairKey = ((Option<u64>, u64), u8);

/// An entry added or removed, kept until the end.
struct Loose {
    path: Vec<u8>,
    depth: u32,
    kind: u8,
    key: (Option<u64>, u64),
    /// The row's compared fields, to tell a renamed entry that changed.
    sig: Sig,
}

/// The fields whose change makes an `M`.
#[derive(PartialEq, Eq, Clone, Copy)]
struct Sig {
    kind: u8,
    size: Option<i64>,
    blocks: Option<i64>,
    mode: Option<u32>,
    uid: Option<u32>,
    gid: Option<u32>,
    mtime: Option<i64>,
}

fn sig(r: &Row) -> Sig {
    Sig {
        kind: r.kind,
        size: r.size,
        blocks: r.blocks,
        mode: r.mode,
        uid: r.uid,
        gid: r.gid,
        mtime: r.mtime,
    }
}

fn loose(r: &Row) -> Loose {
    Loose {
        path: r.path.clone(),
        depth: r.depth,
        kind: r.kind,
        key: (r.dev, r.ino),
        sig: sig(r),
    }
}

/// Rows the merge reads between two calls of [`diff_checking`]'s
/// `idle`: a row group's worth.
pub const IDLE_CHECK_ROWS: u32 = crate::writer::ROW_GROUP_ROWS as u32;

/// Merges `old` and `new`, writing each line (with its newline) through
/// `out`; an `Err` from `out` (closed output) stops the diff.
pub fn diff(
    old: &SnapshotReader,
    new: &SnapshotReader,
    opts: DiffOptions,
    out: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> Result<DiffCounts, Error> {
    diff_checking(old, new, opts, out, || Ok(()))
}

/// [`diff`], calling `idle` every [`IDLE_CHECK_ROWS`] rows merged,
/// whether lines were written or not; an `Err` from it stops the diff as
/// one from `out` does.  Where the changes are sparse, lines can be
/// seconds apart: this is where a writer learns that its reader is gone
/// without waiting for the next line (the `dents` command polls its
/// standard output there, and ends as a write to a closed pipe would).
pub fn diff_checking(
    old: &SnapshotReader,
    new: &SnapshotReader,
    opts: DiffOptions,
    mut out: impl FnMut(&[u8]) -> std::io::Result<()>,
    mut idle: impl FnMut() -> std::io::Result<()>,
) -> Result<DiffCounts, Error> {
    let io = |e| Error::Io(Vec::new(), e);
    let mut counts = DiffCounts::default();
    let mut removed: Vec<Loose> = Vec::new();
    let mut added: Vec<Loose> = Vec::new();
    let mut growth: HashMap<Vec<u8>, i64> = HashMap::new();
    // Only the columns compared are decoded (not the name, link count,
    // ctime, atime or target): in a diff of 10M rows, decoding, copying
    // and freeing the rows' bytes took most of the time.
    let columns = ["size", "blocks", "mode", "uid", "gid", "dev", "mtime"]
        .iter()
        .fold(0, |m, c| m | column_bit(c));
    let mut a = Ordered::new(old.rows_of(columns));
    let mut b = Ordered::new(new.rows_of(columns));
    let mut x = a.next()?;
    let mut y = b.next()?;
    let mut line = Vec::new();
    let mut since_check = 0u32;
    loop {
        since_check += 1;
        if since_check == IDLE_CHECK_ROWS {
            since_check = 0;
            idle().map_err(io)?;
        }
        let ord = match (&x, &y) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some((r, ra)), Some((s, rs))) => {
                rooted_cmp(&r.path, r.depth, *ra, &s.path, s.depth, *rs)
            }
        };
        match ord {
            Ordering::Less => {
                let (r, _) = x.take().unwrap_or_default();
                counts.removed += 1;
                if opts.growth {
                    add_growth(&mut growth, &r, -usage(&r)?);
                } else {
                    removed.push(loose(&r));
                }
                x = a.next()?;
            }
            Ordering::Greater => {
                let (s, _) = y.take().unwrap_or_default();
                counts.added += 1;
                if opts.growth {
                    add_growth(&mut growth, &s, usage(&s)?);
                } else {
                    added.push(loose(&s));
                }
                y = b.next()?;
            }
            Ordering::Equal => {
                let ((r, _), (s, _)) = (x.take().unwrap_or_default(), y.take().unwrap_or_default());
                if opts.growth {
                    add_growth(&mut growth, &s, usage(&s)? - usage(&r)?);
                } else if sig(&r) != sig(&s) || r.ino != s.ino {
                    counts.modified += 1;
                    emit(&mut line, b"M ", &s.path, None);
                    out(&line).map_err(io)?;
                }
                x = a.next()?;
                y = b.next()?;
            }
        }
    }
    if opts.growth {
        let mut dirs: Vec<(Vec<u8>, i64)> = growth.into_iter().filter(|(_, d)| *d != 0).collect();
        dirs.sort_by(|p, q| q.1.cmp(&p.1).then_with(|| p.0.cmp(&q.0)));
        for (path, d) in dirs {
            line.clear();
            line.extend_from_slice(format!("{d:+} ").as_bytes());
            escape_into(&mut line, &path);
            line.push(b'\n');
            out(&line).map_err(io)?;
        }
        return Ok(counts);
    }
    renames(&mut removed, &mut added, &mut counts, &mut line, &mut out)?;
    for (tag, list) in [(b"- ", &removed), (b"+ ", &added)] {
        for l in list.iter().filter(|l| !l.path.is_empty()) {
            emit(&mut line, tag, &l.path, None);
            out(&line).map_err(io)?;
        }
    }
    Ok(counts)
}

/// Pairs removed and added entries with the same device, inode and type
/// into renames (emptying their paths in the lists), writes the `R`
/// lines, and leaves out the entries inside a renamed directory.
fn renames(
    removed: &mut [Loose],
    added: &mut [Loose],
    counts: &mut DiffCounts,
    line: &mut Vec<u8>,
    out: &mut impl FnMut(&[u8]) -> std::io::Result<()>,
) -> Result<(), Error> {
    let io = |e| Error::Io(Vec::new(), e);
    let mut by_key: HashMap<PairKey, Vec<usize>> = HashMap::new();
    for (i, l) in added.iter().enumerate().rev() {
        by_key.entry((l.key, l.kind)).or_default().push(i);
    }
    // Old directory path -> new: for the entries inside renamed ones.
    let mut moved_dirs: HashMap<Vec<u8>, Vec<u8>> = HashMap::new();
    // `removed` is in level order: a directory's rename is known before
    // its entries'.
    for r in removed.iter_mut() {
        let Some(j) = by_key.get_mut(&(r.key, r.kind)).and_then(|v| v.pop()) else {
            continue;
        };
        let n = &mut added[j];
        let implied = implied_path(&moved_dirs, &r.path, r.depth);
        if r.kind == b'd' {
            moved_dirs.insert(r.path.clone(), n.path.clone());
        }
        if implied.as_deref() == Some(&n.path[..]) {
            if r.sig != n.sig {
                counts.modified += 1;
                emit(line, b"M ", &n.path, None);
                out(line).map_err(io)?;
            }
        } else {
            counts.renamed += 1;
            emit(line, b"R ", &r.path, Some(&n.path));
            out(line).map_err(io)?;
        }
        // Paired: neither is listed as removed or added.
        counts.removed -= 1;
        counts.added -= 1;
        r.path.clear();
        n.path.clear();
    }
    Ok(())
}

/// Where `path` is now if the nearest directory above it that moved took
/// it along.
fn implied_path(moved: &HashMap<Vec<u8>, Vec<u8>>, path: &[u8], depth: u32) -> Option<Vec<u8>> {
    if moved.is_empty() {
        return None;
    }
    let comps = components(path, depth);
    let mut end = path.len();
    for c in comps.iter().rev().take(comps.len() - 1) {
        // The ancestor's path ends before `/NAME`.
        end -= c.len() + 1;
        if let Some(to) = moved.get(&path[..end]) {
            let mut p = to.clone();
            p.extend_from_slice(&path[end..]);
            return Some(p);
        }
    }
    None
}

/// `TAG PATH\n` or `TAG OLD -> NEW\n` into `line`.
fn emit(line: &mut Vec<u8>, tag: &[u8], path: &[u8], to: Option<&[u8]>) {
    line.clear();
    line.extend_from_slice(tag);
    escape_into(line, path);
    if let Some(to) = to {
        line.extend_from_slice(b" -> ");
        escape_into(line, to);
    }
    line.push(b'\n');
}

/// An entry's disk usage in bytes, as du counts it.
fn usage(r: &Row) -> Result<i64, Error> {
    r.blocks.map(|b| b.saturating_mul(512)).ok_or_else(|| {
        Error::Corrupt("--growth needs sizes: a --names-only snapshot has none".into())
    })
}

/// Adds `delta` to the totals of the entry (a directory) and of every
/// directory above it.
fn add_growth(growth: &mut HashMap<Vec<u8>, i64>, r: &Row, delta: i64) {
    if delta == 0 {
        return;
    }
    let comps = components(&r.path, r.depth);
    let mut end = r.path.len();
    if r.kind == b'd' {
        *growth.entry(r.path.clone()).or_default() += delta;
    }
    for c in comps.iter().rev().take(comps.len() - 1) {
        end -= c.len() + 1;
        *growth.entry(r.path[..end].to_vec()).or_default() += delta;
    }
}

/// A snapshot's rows, refused when they go back in the level order (a
/// file not written by `dents scan`, or damaged): a merge of rows out of
/// order would give wrong answers silently.
struct Ordered<'a> {
    rows: crate::reader::Rows<'a>,
    /// The previous row's depth, path (a buffer reused) and root's end,
    /// once there is one.
    prev: Option<(u32, Vec<u8>, usize)>,
}

impl<'a> Ordered<'a> {
    fn new(rows: crate::reader::Rows<'a>) -> Ordered<'a> {
        Ordered { rows, prev: None }
    }

    /// The next row and where its root ends ([`root_len`], found once a
    /// row for the comparisons here and in the merge), checked against
    /// the previous one without building either's components
    /// ([`rooted_cmp`]): the lists of components, built twice a row here
    /// and twice a comparison in the merge, were allocations and copies
    /// for every row of both snapshots.
    fn next(&mut self) -> Result<Option<(Row, usize)>, Error> {
        let Some(r) = self.rows.next().transpose()? else {
            return Ok(None);
        };
        let root = match &mut self.prev {
            Some((depth, path, prev_root)) => {
                let (ord, root) = next_root(path, *depth, *prev_root, &r.path, r.depth);
                if ord != Ordering::Less {
                    return Err(Error::Corrupt(format!(
                        "rows out of the snapshot order at {}",
                        crate::escape::escape(&r.path)
                    )));
                }
                *depth = r.depth;
                *prev_root = root;
                path.clear();
                path.extend_from_slice(&r.path);
                root
            }
            None => {
                let root = root_len(&r.path, r.depth);
                self.prev = Some((r.depth, r.path.clone(), root));
                root
            }
        };
        Ok(Some((r, root)))
    }
}
