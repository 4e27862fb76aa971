//! A sequence kept in the parts it was made in: a sliced read's records
//! stay in each slice's vector, in slice order, instead of being copied
//! into one (that copy wrote every record again to fresh pages, on one
//! thread, between the read and the output: docs/history/benchmarks.md,
//! "Session 6: ls -l pipelined").

/// Items in parts, indexed as one sequence: item `i` is in the part whose
/// range of indices holds `i`.
#[derive(Debug)]
pub struct Parts<T> {
    parts: Vec<Vec<T>>,
    /// The index of each part's first item.
    starts: Vec<usize>,
    len: usize,
}

impl<T> Default for Parts<T> {
    fn default() -> Parts<T> {
        Parts {
            parts: Vec::new(),
            starts: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Parts<T> {
    /// The sequence of `parts`' items, in order.
    pub fn from_parts(parts: Vec<Vec<T>>) -> Parts<T> {
        let mut p = Parts {
            parts,
            starts: Vec::new(),
            len: 0,
        };
        p.count();
        p
    }

    /// Sets the parts' starts and the length.
    fn count(&mut self) {
        self.starts.clear();
        self.len = 0;
        for part in &self.parts {
            self.starts.push(self.len);
            self.len += part.len();
        }
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Which part holds item `i`, and where in it.
    fn locate(&self, i: usize) -> (usize, usize) {
        if self.parts.len() == 1 {
            return (0, i);
        }
        let p = self.starts.partition_point(|&s| s <= i) - 1;
        (p, i - self.starts[p])
    }

    /// Item `i`.  Panics if there is none.
    pub fn get(&self, i: usize) -> &T {
        let (p, k) = self.locate(i);
        &self.parts[p][k]
    }

    /// Item `i`, to change.  Panics if there is none.
    pub fn get_mut(&mut self, i: usize) -> &mut T {
        let (p, k) = self.locate(i);
        &mut self.parts[p][k]
    }

    /// The items in order.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.parts.iter().flatten()
    }

    /// The parts, in order.
    pub fn parts(&self) -> impl Iterator<Item = &[T]> + '_ {
        self.parts.iter().map(Vec::as_slice)
    }

    /// The items in order, to change.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> + '_ {
        self.parts.iter_mut().flatten()
    }

    /// Appends `item` to the last part (a first one if there is none).
    pub fn push(&mut self, item: T) {
        if self.parts.is_empty() {
            self.parts.push(Vec::new());
            self.starts.push(0);
        }
        self.parts.last_mut().expect("a part").push(item);
        self.len += 1;
    }

    /// Keeps only the items for which `keep` is true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        for part in &mut self.parts {
            part.retain(&mut keep);
        }
        self.count();
    }

    /// The items from index `from` on, in runs of at most `n` items, none
    /// spanning two parts.
    pub fn chunks_mut_from(&mut self, from: usize, n: usize) -> impl Iterator<Item = &mut [T]> {
        self.parts
            .iter_mut()
            .zip(&self.starts)
            .flat_map(move |(part, &start)| {
                let skip = from.saturating_sub(start).min(part.len());
                part[skip..].chunks_mut(n.max(1))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_read_as_one_sequence() {
        let mut p = Parts::from_parts(vec![vec![0, 1, 2], vec![], vec![3], vec![4, 5]]);
        assert_eq!(p.len(), 6);
        assert_eq!(
            (0..6).map(|i| *p.get(i)).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4, 5]
        );
        assert_eq!(p.iter().copied().collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
        *p.get_mut(3) = 30;
        p.push(6);
        assert_eq!(*p.get(6), 6);
        let runs: Vec<Vec<i32>> = p.chunks_mut_from(2, 2).map(|c| c.to_vec()).collect();
        assert_eq!(runs, [vec![2], vec![30], vec![4, 5], vec![6]]);
        p.retain(|&x| x % 2 == 0);
        assert_eq!(p.iter().copied().collect::<Vec<_>>(), [0, 2, 30, 4, 6]);
        assert_eq!(
            (0..5).map(|i| *p.get(i)).collect::<Vec<_>>(),
            [0, 2, 30, 4, 6]
        );
        for x in p.iter_mut() {
            *x += 1;
        }
        assert_eq!(*p.get(4), 7);
    }

    #[test]
    fn an_empty_sequence_takes_pushes() {
        let mut p: Parts<u8> = Parts::default();
        assert_eq!(p.len(), 0);
        assert_eq!(p.chunks_mut_from(0, 4).count(), 0);
        p.push(1);
        p.push(2);
        assert_eq!(p.iter().copied().collect::<Vec<_>>(), [1, 2]);
        assert_eq!(*p.get(1), 2);
    }
}
