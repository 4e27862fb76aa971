//! A concurrent map from (device, inode) to a 64-bit word: du's
//! hard-link set, dense enough for tens of millions of inodes.
//!
//! One open-addressed table per shard, 24 bytes a slot (the key and the
//! word, inline: no pointer, no per-entry allocation), probed linearly
//! from a slot picked by multiplying the key's hash by the table's
//! length, so that a table may grow by half rather than double.  A
//! shard grows alone, so the old and new tables live side by side for
//! 1/64 of the map at a time, not for all of it.
//!
//! Why locks and not atomic slots: a 16-byte key cannot be compared and
//! swapped in one instruction on stable Rust, and growing a lock-free
//! table needs a migration protocol; two threads inserting 10M keys
//! made 1,334 `futex` calls, one for about 7,500 inserts
//! (docs/history/benchmarks.md, "Hard-link set at 10M (session 14)"), so
//! there is little a lock-free table could win.
//!
//! Keys are never removed (du never forgets an inode it counted).

use std::sync::{Mutex, MutexGuard};

/// Shards: a power of two, a few per worker.
const SHARDS: usize = 64;

/// A shard's table grows past this fraction full (13/16): linear
/// probing stays short (about 3 probes a miss on average) and the slots
/// are at least 54% full after the growth by half.
const MAX_LOAD_NUM: usize = 13;
const MAX_LOAD_DEN: usize = 16;

/// A new shard's slots.
const FIRST_SLOTS: usize = 16;

/// A slot: device, inode, word.  The key (0, 0) marks a free slot; the
/// real key (0, 0), which no filesystem gives but nothing forbids, is
/// kept apart ([`Table::zero`]).
type Slot = [u64; 3];

/// One shard's table.
#[derive(Debug, Default)]
struct Table {
    slots: Vec<Slot>,
    /// Keys held in `slots`.
    len: usize,
    /// The word of the key (0, 0), if it is there.
    zero: Option<u64>,
}

/// The key's hash: Fibonacci hashing of the inode (inode numbers come in
/// runs, which the multiplication spreads over the high bits), the device
/// mixed in first.
fn hash(dev: u64, ino: u64) -> u64 {
    (ino ^ dev.wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(31))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The slot a hash starts probing at in a table of `n` slots: the hash's
/// bits below the shard's, scaled to `n` (no power of two needed).
fn home(h: u64, n: usize) -> usize {
    (((h << 6) as u128 * n as u128) >> 64) as usize
}

impl Table {
    /// The slot holding (dev, ino), or the free slot where it would go.
    fn find(&self, dev: u64, ino: u64, h: u64) -> Result<usize, usize> {
        let n = self.slots.len();
        let mut i = home(h, n);
        loop {
            let s = &self.slots[i];
            if s[0] == dev && s[1] == ino {
                return Ok(i);
            }
            if s[0] == 0 && s[1] == 0 {
                return Err(i);
            }
            i += 1;
            if i == n {
                i = 0;
            }
        }
    }

    /// The word of (dev, ino), if it is there.
    fn get(&self, dev: u64, ino: u64, h: u64) -> Option<u64> {
        if dev == 0 && ino == 0 {
            return self.zero;
        }
        if self.slots.is_empty() {
            return None;
        }
        self.find(dev, ino, h).ok().map(|i| self.slots[i][2])
    }

    /// The word of (dev, ino), inserted as 0 if it was not there, and
    /// whether it was inserted now.
    fn entry(&mut self, dev: u64, ino: u64, h: u64) -> (&mut u64, bool) {
        if dev == 0 && ino == 0 {
            let fresh = self.zero.is_none();
            return (self.zero.get_or_insert(0), fresh);
        }
        if (self.len + 1) * MAX_LOAD_DEN > self.slots.len() * MAX_LOAD_NUM {
            self.grow();
        }
        match self.find(dev, ino, h) {
            Ok(i) => (&mut self.slots[i][2], false),
            Err(i) => {
                self.len += 1;
                self.slots[i] = [dev, ino, 0];
                (&mut self.slots[i][2], true)
            }
        }
    }

    /// Moves every key into a table half as large again (zeroed memory:
    /// the pages are the kernel's fresh ones, touched as they fill).
    fn grow(&mut self) {
        let n = (self.slots.len() + self.slots.len() / 2).max(FIRST_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![[0u64; 3]; n]);
        for s in old {
            if s[0] == 0 && s[1] == 0 {
                continue;
            }
            let Err(i) = self.find(s[0], s[1], hash(s[0], s[1])) else {
                unreachable!("a key is in the old table once");
            };
            self.slots[i] = s;
        }
    }

    fn len(&self) -> usize {
        self.len + usize::from(self.zero.is_some())
    }
}

/// A concurrent map (device, inode) → a 64-bit word, in 64 shards of
/// open-addressed tables: about 24 bytes a key and the tables' slack
/// (between 54% and 81% full).  Used as a set ([`InodeMap::insert`],
/// [`InodeMap::contains`]), its words 0, or with words of the caller's
/// meaning ([`InodeMap::update`]).
#[derive(Debug)]
pub struct InodeMap {
    shards: Box<[Mutex<Table>]>,
}

impl Default for InodeMap {
    fn default() -> InodeMap {
        InodeMap {
            shards: (0..SHARDS).map(|_| Mutex::new(Table::default())).collect(),
        }
    }
}

impl InodeMap {
    fn lock(&self, h: u64) -> MutexGuard<'_, Table> {
        // A worker that panicked holding the lock left the table whole
        // (no step of an insert can panic half way): carry on with it.
        self.shards[(h >> 58) as usize % SHARDS]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Inserts (dev, ino) with the word 0 if it is not there; `true` if
    /// it was not (this caller counts it).
    pub fn insert(&self, dev: u64, ino: u64) -> bool {
        let h = hash(dev, ino);
        self.lock(h).entry(dev, ino, h).1
    }

    /// Whether (dev, ino) is there.
    pub fn contains(&self, dev: u64, ino: u64) -> bool {
        self.get(dev, ino).is_some()
    }

    /// The word of (dev, ino), if it is there.
    pub fn get(&self, dev: u64, ino: u64) -> Option<u64> {
        let h = hash(dev, ino);
        self.lock(h).get(dev, ino, h)
    }

    /// Calls `f` on the word of (dev, ino) (inserted as 0 if it was not
    /// there, then `f`'s second argument is `true`), under the lock of
    /// its shard: what `f` reads and writes of the word is atomic with
    /// respect to every other caller.  `f` must not call this map.
    pub fn update<R>(&self, dev: u64, ino: u64, f: impl FnOnce(&mut u64, bool) -> R) -> R {
        let h = hash(dev, ino);
        let mut t = self.lock(h);
        let (word, fresh) = t.entry(dev, ino, h);
        f(word, fresh)
    }

    /// How many keys the map holds.
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).len())
            .sum()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes its tables hold (slots, full or free).
    pub fn table_bytes(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).slots.len() * 24)
            .sum()
    }
}
