//! What travels between ranks: message tags and the byte encoding of
//! work items (little-endian integers, length-prefixed paths).

/// A rank asks another for work (control: not counted for termination).
pub const REQUEST: i32 = 1;
/// Work items, the answer to a request (counted).
pub const WORK: i32 = 2;
/// No work to give, the answer to a request (control).
pub const NO_WORK: i32 = 3;
/// A `-quit`: every rank stops walking (counted).
pub const QUIT: i32 = 6;
/// Lines for rank 0's standard output (counted).
pub const STDOUT: i32 = 7;
/// Messages for rank 0's standard error (counted).
pub const STDERR: i32 = 8;
/// Rank 0 wrote a batch of output: the sender may send another (control).
pub const ACK: i32 = 9;
/// A job's own message (du's totals and hard-link questions; counted).
pub const JOB: i32 = 10;

/// One unit of work: a directory whose tree is walked (its entry visited
/// too), or a slice of a huge directory's offset space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// The directory's path, as the walk would have built it.
    pub path: Vec<u8>,
    /// Its depth below its starting point.
    pub depth: u32,
    /// Which starting point (argument) it lies under.
    pub root: u32,
    /// The device of that starting point (`-x`, `-xdev`).
    pub root_dev: u64,
    /// Where its result goes back to: (rank, the job's own key); du sends
    /// the directory's total there.
    pub reply: (u32, u64),
    /// A slice `[lo, hi)` of the directory's offset space (`hi` =
    /// `u64::MAX`: to the end) rather than the whole directory: only its
    /// entries are visited (and their trees walked), not the directory.
    pub slice: Option<(u64, u64)>,
}

/// Appends `n` to `out`.
pub fn put_u64(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(&n.to_le_bytes());
}

/// Appends a length-prefixed byte string.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_u64(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Reads what the `put_` functions wrote, front to back.
pub struct Reader<'a>(pub &'a [u8]);

impl<'a> Reader<'a> {
    /// The next integer (0 past the end: messages come from our own ranks).
    pub fn u64(&mut self) -> u64 {
        let (head, rest) = self.0.split_at(8.min(self.0.len()));
        self.0 = rest;
        let mut b = [0u8; 8];
        b[..head.len()].copy_from_slice(head);
        u64::from_le_bytes(b)
    }

    /// The next byte string.
    pub fn bytes(&mut self) -> &'a [u8] {
        let n = (self.u64() as usize).min(self.0.len());
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        head
    }

    /// Whether everything was read.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Encodes items for a [`WORK`] message.
pub fn encode_items(items: &[Item]) -> Vec<u8> {
    let mut out = Vec::with_capacity(items.iter().map(|i| i.path.len() + 48).sum());
    for i in items {
        put_bytes(&mut out, &i.path);
        put_u64(&mut out, i.depth as u64);
        put_u64(&mut out, i.root as u64);
        put_u64(&mut out, i.root_dev);
        put_u64(&mut out, i.reply.0 as u64);
        put_u64(&mut out, i.reply.1);
        match i.slice {
            None => put_u64(&mut out, 0),
            Some((lo, hi)) => {
                put_u64(&mut out, 1);
                put_u64(&mut out, lo);
                put_u64(&mut out, hi);
            }
        }
    }
    out
}

/// Decodes a [`WORK`] message.
pub fn decode_items(body: &[u8]) -> Vec<Item> {
    let mut r = Reader(body);
    let mut items = Vec::new();
    while !r.is_empty() {
        let path = r.bytes().to_vec();
        items.push(Item {
            path,
            depth: r.u64() as u32,
            root: r.u64() as u32,
            root_dev: r.u64(),
            reply: (r.u64() as u32, r.u64()),
            slice: match r.u64() {
                0 => None,
                _ => Some((r.u64(), r.u64())),
            },
        });
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_round_trip() {
        let items = vec![
            Item {
                path: b"a/b\nc".to_vec(),
                depth: 2,
                root: 1,
                root_dev: 7,
                reply: (3, u64::MAX),
                slice: Some((5, u64::MAX)),
            },
            Item {
                path: Vec::new(),
                depth: 0,
                root: 0,
                root_dev: 0,
                reply: (0, 0),
                slice: None,
            },
        ];
        assert_eq!(decode_items(&encode_items(&items)), items);
    }
}
