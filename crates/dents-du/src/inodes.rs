//! A concurrent map from (device, inode) to a 64-bit word: du's
//! hard-link set, dense enough for tens of millions of inodes.
//!
//! One open-addressed table per shard, 16 bytes a slot: the word, and
//! the key packed in one 64-bit word, the inode number's low 48 bits
//! beside a 16-bit index into the shard's table of *prefixes* (the
//! device and the inode number's high 16 bits).  A tree has one or two
//! prefixes (one a filesystem: ext4's inode numbers have 32 bits, XFS's
//! stay below 2⁴⁸ up to filesystems of petabytes), overlayfs's `xino`
//! one a layer; so the key costs 8 bytes, not 16.  A key whose prefix
//! finds no room (a shard's 4,096 prefixes taken: inode numbers hashed
//! over 64 bits, thousands of devices) goes to the shard's *wide* table
//! of 24-byte slots, (device, inode, word) unpacked: exact for every
//! key, dense for the keys filesystems give.  Measured at 10M keys: 27.3 bytes a key (the
//! tables 59% full), 40.9 with 24-byte slots (docs/history/benchmarks.md,
//! "Hard-link set's 16-byte slot and the wide queue (session 15)").
//!
//! A table is probed linearly from a slot picked by multiplying the
//! key's hash by the table's length, so that it may grow by half rather
//! than double.  A shard grows alone, so the old and new tables live
//! side by side for 1/64 of the map at a time, not for all of it.
//!
//! Why locks and not atomic slots: growing a lock-free table needs a
//! migration protocol; two threads inserting 10M keys made 1,334
//! `futex` calls, one for about 7,500 inserts
//! (docs/history/benchmarks.md, "Hard-link set at 10M (session 14)"), so
//! there is little a lock-free table could win.
//!
//! Keys are never removed (du never forgets an inode it counted), nor
//! prefixes: a prefix absent from a full prefix table stays absent, so
//! its keys are in the wide table and nowhere else.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

/// Shards: a power of two, a few per worker.
const SHARDS: usize = 64;

/// A shard's table grows past this fraction full (13/16): linear
/// probing stays short (about 3 probes a miss on average) and the slots
/// are at least 54% full after the growth by half.
const MAX_LOAD_NUM: usize = 13;
const MAX_LOAD_DEN: usize = 16;

/// A new table's slots.
const FIRST_SLOTS: usize = 16;

/// The bits of the inode number a packed key holds.
const LOW_BITS: u32 = 48;

/// The mask of those bits.
const LOW: u64 = (1 << LOW_BITS) - 1;

/// Prefixes a shard numbers (16 bits hold up to 65,535, 0 marking a
/// free slot): trees have a few, one a filesystem or overlay layer; a
/// filesystem that hashes its inode numbers over 64 bits would give
/// every key a prefix of its own, each costing more than a wide slot,
/// so the numbers stop at 4,096 a shard (262,144 over the map).
const MAX_PREFIXES: usize = 4096;

/// Prefixes looked for by a linear scan before the shard indexes them
/// in a hash map (a tree has one or two).
const SCANNED_PREFIXES: usize = 8;

/// The key's hash: Fibonacci hashing of the inode (inode numbers come in
/// runs, which the multiplication spreads over the high bits), the device
/// mixed in first.  Its top 6 bits pick the shard, the rest the slot.
fn hash(dev: u64, ino: u64) -> u64 {
    (ino ^ dev.wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(31))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The slot a hash starts probing at in a table of `n` slots: the hash's
/// bits below the shard's, scaled to `n` (no power of two needed).
fn home(h: u64, n: usize) -> usize {
    (((h << 6) as u128 * n as u128) >> 64) as usize
}

/// Whether a table of `slots` slots holding `len` keys must grow before
/// it takes one more.
fn full(len: usize, slots: usize) -> bool {
    (len + 1) * MAX_LOAD_DEN > slots * MAX_LOAD_NUM
}

/// A table's next length: half as large again.
fn grown(slots: usize) -> usize {
    (slots + slots / 2).max(FIRST_SLOTS)
}

/// A shard's prefixes: (device, inode number >> 48), numbered from 1 in
/// the order met.
#[derive(Debug, Default)]
struct Prefixes {
    /// Prefix `i + 1` is `list[i]`.
    list: Vec<(u64, u64)>,
    /// The numbers of `list`'s prefixes, once there are more than
    /// [`SCANNED_PREFIXES`].
    index: HashMap<(u64, u64), u64>,
}

impl Prefixes {
    /// The number of `p`, if it has one.
    fn find(&self, p: (u64, u64)) -> Option<u64> {
        if self.list.len() <= SCANNED_PREFIXES {
            let i = self.list.iter().position(|&q| q == p)?;
            Some(i as u64 + 1)
        } else {
            self.index.get(&p).copied()
        }
    }

    /// The number of `p`, given one if it has none and fewer than
    /// `limit` prefixes have.
    fn number(&mut self, p: (u64, u64), limit: usize) -> Option<u64> {
        if let Some(n) = self.find(p) {
            return Some(n);
        }
        if self.list.len() >= limit {
            return None;
        }
        self.list.push(p);
        let n = self.list.len() as u64;
        if self.list.len() > SCANNED_PREFIXES {
            if self.index.is_empty() {
                self.index = (self.list.iter().copied()).zip(1..).collect();
            } else {
                self.index.insert(p, n);
            }
        }
        Some(n)
    }

    /// The (device, inode) of a packed key.
    fn unpack(&self, key: u64) -> (u64, u64) {
        let (dev, high) = self.list[(key >> LOW_BITS) as usize - 1];
        (dev, high << LOW_BITS | key & LOW)
    }
}

/// The shard's dense table: slots of (packed key, word), the key 0
/// marking a free slot (a prefix's number is never 0).
#[derive(Debug, Default)]
struct Narrow {
    slots: Vec<[u64; 2]>,
    /// Keys held.
    len: usize,
}

impl Narrow {
    /// The slot holding `key`, or the free slot where it would go.
    fn find(&self, key: u64, h: u64) -> Result<usize, usize> {
        let n = self.slots.len();
        let mut i = home(h, n);
        loop {
            let s = self.slots[i][0];
            if s == key {
                return Ok(i);
            }
            if s == 0 {
                return Err(i);
            }
            i += 1;
            if i == n {
                i = 0;
            }
        }
    }

    /// Moves every key into a table half as large again (zeroed memory:
    /// the pages are the kernel's fresh ones, touched as they fill).
    fn grow(&mut self, prefixes: &Prefixes) {
        let n = grown(self.slots.len());
        let old = std::mem::replace(&mut self.slots, vec![[0; 2]; n]);
        for s in old {
            if s[0] == 0 {
                continue;
            }
            let (dev, ino) = prefixes.unpack(s[0]);
            let Err(i) = self.find(s[0], hash(dev, ino)) else {
                unreachable!("a key is in the old table once");
            };
            self.slots[i] = s;
        }
    }
}

/// The shard's table of the keys whose prefix has no number: slots of
/// device, inode, word.  The key (0, 0) marks a free slot; the real key
/// (0, 0), which no filesystem gives but nothing forbids, is kept apart
/// ([`Wide::zero`]).
#[derive(Debug, Default)]
struct Wide {
    slots: Vec<[u64; 3]>,
    /// Keys held in `slots`.
    len: usize,
    /// The word of the key (0, 0), if it is there.
    zero: Option<u64>,
}

impl Wide {
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
        if full(self.len, self.slots.len()) {
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

    /// Moves every key into a table half as large again.
    fn grow(&mut self) {
        let n = grown(self.slots.len());
        let old = std::mem::replace(&mut self.slots, vec![[0; 3]; n]);
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

/// One shard: its prefixes, its dense table, its wide table.
#[derive(Debug, Default)]
struct Shard {
    prefixes: Prefixes,
    narrow: Narrow,
    wide: Wide,
}

impl Shard {
    /// The word of (dev, ino), if it is there.
    fn get(&self, dev: u64, ino: u64, h: u64, limit: usize) -> Option<u64> {
        match self.prefixes.find((dev, ino >> LOW_BITS)) {
            Some(p) if !self.narrow.slots.is_empty() => {
                let key = p << LOW_BITS | ino & LOW;
                let i = self.narrow.find(key, h).ok()?;
                Some(self.narrow.slots[i][1])
            }
            Some(_) => None,
            // A prefix without a number while numbers are left: none of
            // its keys was ever inserted.
            None if self.prefixes.list.len() < limit => None,
            None => self.wide.get(dev, ino, h),
        }
    }

    /// The word of (dev, ino), inserted as 0 if it was not there, and
    /// whether it was inserted now.
    fn entry(&mut self, dev: u64, ino: u64, h: u64, limit: usize) -> (&mut u64, bool) {
        let Some(p) = self.prefixes.number((dev, ino >> LOW_BITS), limit) else {
            return self.wide.entry(dev, ino, h);
        };
        let key = p << LOW_BITS | ino & LOW;
        let t = &mut self.narrow;
        if full(t.len, t.slots.len()) {
            t.grow(&self.prefixes);
        }
        match t.find(key, h) {
            Ok(i) => (&mut t.slots[i][1], false),
            Err(i) => {
                t.len += 1;
                t.slots[i] = [key, 0];
                (&mut t.slots[i][1], true)
            }
        }
    }

    fn len(&self) -> usize {
        self.narrow.len + self.wide.len()
    }

    /// The bytes of its tables' slots, full or free.
    fn table_bytes(&self) -> usize {
        self.narrow.slots.len() * 16 + self.wide.slots.len() * 24
    }
}

/// A concurrent map (device, inode) → a 64-bit word, in 64 shards of
/// open-addressed tables: about 16 bytes a key and the tables' slack
/// (between 54% and 81% full), 24 for keys beyond a shard's 4,096
/// prefixes (device and inode number's high 16 bits).  Used as a set
/// ([`InodeMap::insert`], [`InodeMap::contains`]), its words 0, or with
/// words of the caller's meaning ([`InodeMap::update`]).
#[derive(Debug)]
pub struct InodeMap {
    shards: Box<[Mutex<Shard>]>,
    /// Prefixes a shard numbers (the rest go to its wide table).
    prefixes: usize,
}

impl Default for InodeMap {
    fn default() -> InodeMap {
        InodeMap::test_with_prefixes(MAX_PREFIXES)
    }
}

impl InodeMap {
    /// For tests: a map whose shards number at most `limit` prefixes
    /// (at most 4,096, the default), so that a few keys reach the wide
    /// tables.
    #[doc(hidden)]
    pub fn test_with_prefixes(limit: usize) -> InodeMap {
        InodeMap {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            prefixes: limit.min(MAX_PREFIXES),
        }
    }

    fn lock(&self, h: u64) -> MutexGuard<'_, Shard> {
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
        self.lock(h).entry(dev, ino, h, self.prefixes).1
    }

    /// Whether (dev, ino) is there.
    pub fn contains(&self, dev: u64, ino: u64) -> bool {
        self.get(dev, ino).is_some()
    }

    /// The word of (dev, ino), if it is there.
    pub fn get(&self, dev: u64, ino: u64) -> Option<u64> {
        let h = hash(dev, ino);
        self.lock(h).get(dev, ino, h, self.prefixes)
    }

    /// Calls `f` on the word of (dev, ino) (inserted as 0 if it was not
    /// there, then `f`'s second argument is `true`), under the lock of
    /// its shard: what `f` reads and writes of the word is atomic with
    /// respect to every other caller.  `f` must not call this map.
    pub fn update<R>(&self, dev: u64, ino: u64, f: impl FnOnce(&mut u64, bool) -> R) -> R {
        let h = hash(dev, ino);
        let mut t = self.lock(h);
        let (word, fresh) = t.entry(dev, ino, h, self.prefixes);
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
            .map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).table_bytes())
            .sum()
    }

    /// How many keys are in the wide tables (their prefix without a
    /// number): for tests and measurements.
    pub fn wide_len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).wide.len())
            .sum()
    }
}
