//! Streams of rows, each in the snapshot's level order, merged into one
//! stream in that order: the shards of a sharded snapshot
//! ([`crate::reader`]), and the sorted runs a rank of `dents-mpi scan`
//! spills before writing its shard.  Memory: one row per stream here
//! (each stream holds its own buffer: a row group, a run's read buffer).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::row::Row;
use crate::Error;

/// Where the root ends in `path` at `depth`: the path less its last
/// `depth` names (see [`crate::row::components`]).
pub fn root_len(path: &[u8], depth: u32) -> usize {
    let mut end = path.len();
    for _ in 0..depth {
        match path[..end].iter().rposition(|&b| b == b'/') {
            Some(i) => end = i,
            None => break,
        }
    }
    end
}

/// The level order ([`crate::row::order`]) between two paths at their
/// depths, without building their lists of components: the depth, then
/// the root's bytes, then the names one by one.
pub fn level_cmp(a: &[u8], a_depth: u32, b: &[u8], b_depth: u32) -> Ordering {
    a_depth.cmp(&b_depth).then_with(|| {
        // Most comparisons (a diff makes three or four a row) are of
        // paths under one root that differ in their last names: decided
        // without `b`'s root ([`by_names`]).  A diff of two 9.2M-row
        // snapshots spent a fifth of its time finding both roots and
        // comparing them.
        let ra = root_len(a, a_depth);
        by_names(a, ra, b).unwrap_or_else(|| same_depth_cmp(a, ra, b, root_len(b, b_depth)))
    })
}

/// The order of `a` (whose root ends at `ra`) and `b`, at the same
/// depth, and proof that `b`'s root ends at `ra` too, from their first
/// difference alone: where `a`'s root ends before it and as many `/`
/// follow it in both, `root_len` finds in `b` as many of the slashes it
/// counts after the difference as in `a`, and the rest among bytes they
/// share, so the roots end at the same place and only the names after
/// it decide.  `None` where that does not hold.
fn by_names(a: &[u8], ra: usize, b: &[u8]) -> Option<Ordering> {
    let m = mismatch(a, b);
    (ra < m && slashes(&a[m..]) == slashes(&b[m..])).then(|| names_cmp(a.get(m), b.get(m)))
}

/// [`level_cmp`] of two paths whose roots' ends ([`root_len`]) are
/// known: a stream of rows finds each row's once, not once a comparison.
pub fn rooted_cmp(
    a: &[u8],
    a_depth: u32,
    ra: usize,
    b: &[u8],
    b_depth: u32,
    rb: usize,
) -> Ordering {
    a_depth.cmp(&b_depth).then_with(|| {
        if ra != rb {
            return same_depth_cmp(a, ra, b, rb);
        }
        // Roots of one length: bytes of the roots compare as bytes, and
        // past them names one by one.
        let m = mismatch(a, b);
        if m < ra {
            a[m].cmp(&b[m])
        } else {
            names_cmp(a.get(m), b.get(m))
        }
    })
}

/// The order of `prev` (ending its root at `prev_root`) and `next`, the
/// next row of a stream, with where `next`'s root ends: `prev_root`
/// again without looking for it where the bytes show it is the same
/// (the same depth, the first difference after `prev_root`, and as
/// many `/` after it in both), as it is for every row of a directory
/// but the first.
pub fn next_root(
    prev: &[u8],
    prev_depth: u32,
    prev_root: usize,
    next: &[u8],
    next_depth: u32,
) -> (Ordering, usize) {
    if prev_depth == next_depth {
        if let Some(ord) = by_names(prev, prev_root, next) {
            return (ord, prev_root);
        }
    }
    let root = root_len(next, next_depth);
    let ord = rooted_cmp(prev, prev_depth, prev_root, next, next_depth, root);
    (ord, root)
}

/// How many leading bytes `a` and `b` share.
fn mismatch(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    // Sixteen bytes compared at a time: paths of one directory share
    // most of their bytes.
    while i + 16 <= n && a[i..i + 16] == b[i..i + 16] {
        i += 16;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

fn slashes(s: &[u8]) -> usize {
    s.iter().filter(|&&c| c == b'/').count()
}

/// The order of two paths below the same root, equal before these
/// bytes (their first difference; `None` past a path's end): names are
/// compared one by one, so a `/` (a name's end) is lower than any byte.
fn names_cmp(x: Option<&u8>, y: Option<&u8>) -> Ordering {
    match (x, y) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(b'/'), Some(_)) => Ordering::Less,
        (Some(_), Some(b'/')) => Ordering::Greater,
        (Some(p), Some(q)) => p.cmp(q),
    }
}

/// [`level_cmp`] of two paths at the same depth whose roots end at `ra`
/// and `rb`.
fn same_depth_cmp(a: &[u8], ra: usize, b: &[u8], rb: usize) -> Ordering {
    a[..ra].cmp(&b[..rb]).then_with(|| {
        // After the root, each name is preceded by one `/`; comparing
        // name by name is comparing the rests with `/` as the lowest
        // byte: equal up to the first difference, which decides.
        let (x, y) = (&a[ra..], &b[rb..]);
        let same = mismatch(x, y);
        names_cmp(x.get(same), y.get(same))
    })
}

/// Sorts `rows` in level order.  Each row's root is found once, and an
/// index is sorted rather than the rows (a row is some 200 bytes to
/// move): the sort took half of a rank's time when it moved rows and
/// looked for the roots at each comparison.
pub fn sort_rows(rows: &mut Vec<Row>) {
    let roots: Vec<usize> = rows.iter().map(|r| root_len(&r.path, r.depth)).collect();
    let mut order: Vec<u32> = (0..rows.len() as u32).collect();
    order.sort_unstable_by(|&i, &j| {
        let (a, b) = (&rows[i as usize], &rows[j as usize]);
        a.depth
            .cmp(&b.depth)
            .then_with(|| same_depth_cmp(&a.path, roots[i as usize], &b.path, roots[j as usize]))
    });
    let mut taken: Vec<Option<Row>> = rows.drain(..).map(Some).collect();
    rows.extend(
        order
            .iter()
            .map(|&i| taken[i as usize].take().expect("each row once")),
    );
}

/// The level order between two rows (as [`crate::row::order`]).
pub fn row_cmp(a: &Row, b: &Row) -> Ordering {
    level_cmp(&a.path, a.depth, &b.path, b.depth)
}

/// The head of one stream, ordered so that the heap's top is the least.
struct Head {
    row: Row,
    source: usize,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap keeps the greatest on top.  Equal rows
        // come in the order of their streams.
        row_cmp(&other.row, &self.row).then_with(|| other.source.cmp(&self.source))
    }
}

/// Streams in level order merged into one in level order; the first
/// error of any stream ends it.
pub struct Merge<I> {
    streams: Vec<I>,
    heads: BinaryHeap<Head>,
    started: bool,
    failed: bool,
}

impl<I: Iterator<Item = Result<Row, Error>>> Merge<I> {
    /// Merges `streams` (each in level order).
    pub fn new(streams: Vec<I>) -> Merge<I> {
        Merge {
            heads: BinaryHeap::with_capacity(streams.len()),
            streams,
            started: false,
            failed: false,
        }
    }

    /// Takes the next row of stream `i` into the heap; `Err` if it failed.
    fn refill(&mut self, i: usize) -> Result<(), Error> {
        match self.streams[i].next() {
            Some(Ok(row)) => {
                self.heads.push(Head { row, source: i });
                Ok(())
            }
            Some(Err(e)) => Err(e),
            None => Ok(()),
        }
    }
}

impl<I: Iterator<Item = Result<Row, Error>>> Iterator for Merge<I> {
    type Item = Result<Row, Error>;

    fn next(&mut self) -> Option<Result<Row, Error>> {
        if self.failed {
            return None;
        }
        if !self.started {
            self.started = true;
            for i in 0..self.streams.len() {
                if let Err(e) = self.refill(i) {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
        let Head { row, source } = self.heads.pop()?;
        if let Err(e) = self.refill(source) {
            self.failed = true;
            return Some(Err(e));
        }
        Some(Ok(row))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dents_testfs::refresh::Rng;

    fn row(path: &[u8], depth: u32) -> Row {
        Row {
            path: path.to_vec(),
            depth,
            ..Row::default()
        }
    }

    /// `level_cmp` agrees with `row::order` (the schema's definition) on
    /// paths whose names hold bytes below and above `/`.
    #[test]
    fn level_cmp_is_row_order() {
        let rows = [
            row(b"r", 0),
            row(b"r/a", 1),
            row(b"r/a.b", 1),
            row(b"r/a-", 1),
            row(b"r/a/b", 2),
            row(b"r/a.b/c", 2),
            row(b"r/a/b.c", 2),
            row(b"r/a!/b", 2),
            row(b"r/\xff/\n", 2),
            row(b"r/s/t", 1),
            row(b"r/s", 1),
            row(b"a/b", 0),
            row(b"a/b/c", 1),
            row(b"a", 0),
            row(b"a/b", 1),
            row(b"/", 0),
            row(b"//x", 1),
        ];
        for a in &rows {
            for b in &rows {
                assert_eq!(
                    row_cmp(a, b),
                    crate::row::order(a, b),
                    "{:?} vs {:?}",
                    String::from_utf8_lossy(&a.path),
                    String::from_utf8_lossy(&b.path)
                );
            }
        }
    }

    /// `level_cmp` agrees with `row::order` on random paths of a few
    /// short names (bytes around `/`, so that first differences fall in
    /// roots, at a name's end and inside names), at every depth their
    /// slashes allow and more, including roots that hold `/`.
    #[test]
    fn level_cmp_is_row_order_on_random_paths() {
        let mut rng = Rng::seeded(1);
        let mut next = |n: u64| rng.below(n as usize) as u64;
        let alphabet = [b'a', b'b', b'.', b'/', b'0', 0xff];
        let mut rows = Vec::new();
        for _ in 0..3_000 {
            let len = 1 + next(40) as usize;
            // Long shared runs: most pairs differ late, as siblings do.
            let mut p: Vec<u8> = b"/var/tmp/root".to_vec();
            p.truncate(next(14) as usize);
            for _ in 0..len {
                p.push(alphabet[next(alphabet.len() as u64) as usize]);
            }
            let slashes = p.iter().filter(|&&c| c == b'/').count() as u64;
            rows.push(row(&p, next(slashes + 2) as u32));
        }
        for i in 0..300_000 {
            let a = &rows[next(rows.len() as u64) as usize];
            let mut b = rows[next(rows.len() as u64) as usize].clone();
            if i % 2 == 0 {
                // A near sibling of `a`: its path with the end changed,
                // cut or extended, at its depth or one off.
                let mut p = a.path.clone();
                let keep = p.len() - next(p.len().min(6) as u64 + 1) as usize;
                p.truncate(keep);
                for _ in 0..next(4) {
                    p.push(alphabet[next(alphabet.len() as u64) as usize]);
                }
                let depth = (a.depth + next(3) as u32).saturating_sub(1);
                b = row(&p, depth);
            }
            let (a, b) = (a, &b);
            let (ra, rb) = (root_len(&a.path, a.depth), root_len(&b.path, b.depth));
            let want = crate::row::order(a, b);
            let pair = format!(
                "{:?} ({}) vs {:?} ({})",
                String::from_utf8_lossy(&a.path),
                a.depth,
                String::from_utf8_lossy(&b.path),
                b.depth
            );
            assert_eq!(
                next_root(&a.path, a.depth, ra, &b.path, b.depth),
                (want, rb),
                "next_root: {pair}"
            );
            assert_eq!(
                rooted_cmp(&a.path, a.depth, ra, &b.path, b.depth, rb),
                want,
                "rooted_cmp: {pair}"
            );
            assert_eq!(row_cmp(a, b), want, "level_cmp: {pair}");
        }
    }

    /// `sort_rows` sorts as `row::order` does.
    #[test]
    fn sort_rows_is_row_order() {
        let mut rows: Vec<Row> = [
            &b"r/b/c"[..],
            b"r/a.b/c",
            b"r/a/b",
            b"r",
            b"r/a",
            b"r/a.b",
            b"q/x",
            b"q",
            b"r/a!",
        ]
        .iter()
        .map(|p| row(p, p.iter().filter(|&&c| c == b'/').count() as u32))
        .collect();
        let mut want = rows.clone();
        want.sort_by(crate::row::order);
        sort_rows(&mut rows);
        assert_eq!(rows, want);
    }

    /// Three sorted streams merge into the sorted union.
    #[test]
    fn merges_in_level_order() {
        let mut all: Vec<Row> = [
            &b"r"[..],
            b"r/a",
            b"r/b",
            b"r/c",
            b"r/a/x",
            b"r/b/y",
            b"r/c/z",
        ]
        .iter()
        .map(|p| row(p, p.iter().filter(|&&c| c == b'/').count() as u32))
        .collect();
        let streams: Vec<Vec<Row>> = (0..3)
            .map(|k| {
                all.iter()
                    .enumerate()
                    .filter(|(i, _)| i % 3 == k)
                    .map(|(_, r)| r.clone())
                    .collect()
            })
            .collect();
        let merged: Vec<Row> =
            Merge::new(streams.into_iter().map(|s| s.into_iter().map(Ok)).collect())
                .map(|r| r.unwrap())
                .collect();
        all.sort_by(crate::row::order);
        assert_eq!(merged, all);
    }
}
