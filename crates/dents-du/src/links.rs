//! The set of (device, inode) pairs already counted: hard links (and,
//! with several arguments, directories) are counted once.
//!
//! Sharded by inode so that workers inserting at once rarely meet on a
//! lock.  Which of two workers that meet the same inode at the same time
//! inserts it first is a matter of timing; exactly one of them does, so
//! totals never count an inode twice.

use std::collections::HashSet;
use std::sync::Mutex;

/// Shards: a power of two, a few per worker.
const SHARDS: usize = 64;

/// A concurrent set of (dev, ino).
#[derive(Debug)]
pub struct LinkSet {
    shards: Vec<Mutex<HashSet<(u64, u64)>>>,
}

impl Default for LinkSet {
    fn default() -> LinkSet {
        LinkSet {
            shards: (0..SHARDS).map(|_| Mutex::new(HashSet::new())).collect(),
        }
    }
}

impl LinkSet {
    fn shard(&self, dev: u64, ino: u64) -> &Mutex<HashSet<(u64, u64)>> {
        let h = ino.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ dev;
        &self.shards[(h >> 58) as usize % SHARDS]
    }

    /// Inserts (dev, ino); `true` if it was not there (this caller counts it).
    pub fn insert(&self, dev: u64, ino: u64) -> bool {
        self.shard(dev, ino)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((dev, ino))
    }

    /// Whether (dev, ino) is there.
    pub fn contains(&self, dev: u64, ino: u64) -> bool {
        self.shard(dev, ino)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&(dev, ino))
    }

    /// How many pairs the set holds.
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).len())
            .sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
