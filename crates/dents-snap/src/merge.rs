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
fn root_len(path: &[u8], depth: u32) -> usize {
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
    a_depth
        .cmp(&b_depth)
        .then_with(|| same_depth_cmp(a, root_len(a, a_depth), b, root_len(b, b_depth)))
}

/// [`level_cmp`] of two paths at the same depth whose roots end at `ra`
/// and `rb`.
fn same_depth_cmp(a: &[u8], ra: usize, b: &[u8], rb: usize) -> Ordering {
    a[..ra].cmp(&b[..rb]).then_with(|| {
        // After the root, each name is preceded by one `/`; comparing
        // name by name is comparing the rests with `/` as the lowest
        // byte: equal up to the first difference, which decides.
        let (x, y) = (&a[ra..], &b[rb..]);
        let same = x.iter().zip(y).take_while(|(p, q)| p == q).count();
        match (x.get(same), y.get(same)) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(b'/'), Some(_)) => Ordering::Less,
            (Some(_), Some(b'/')) => Ordering::Greater,
            (Some(p), Some(q)) => p.cmp(q),
        }
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
