//! The set of (device, inode) pairs already counted: hard links (and,
//! with several arguments, directories) are counted once; and, during one
//! argument's walk, the first link in GNU's order of each inode met
//! through several links ([`Owners`]).
//!
//! The set is an [`InodeMap`] (24 bytes an inode in dense tables); the
//! records are sharded by inode so that workers inserting at once rarely
//! meet on a lock.  Which of two workers that meet the same inode at the same time
//! inserts it first is a matter of timing; exactly one of them does, so
//! totals never count an inode twice.  Which link an inode is charged to
//! is not: [`Owners`] keeps the first in GNU's order, whatever the
//! timing.
//!
//! Memory, an inode with several links (issue 29): one [`Owner`] record
//! during the walk (48 bytes with its key), in hash tables that grow by
//! doubling (between 7/16 and 7/8 full), then its key (16 bytes) in the
//! [`LinkSet`] as the records are drained.  Measured (peak resident set
//! of `dents du -s` less `dents du -sl`'s, which keeps no set, on trees
//! of files with a second link outside the tree): about 110 bytes an
//! inode at 1M inodes, 72 at 3M (GNU du: 28 and 24; dents before the
//! records shrank from 64 bytes: 176 and 116); docs/history/benchmarks.md,
//! "Issue 29: the ncdu export and the hard-link set".

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::dui::Dui;
pub use crate::inodes::InodeMap;
use crate::order::{cmp_places, Node};

/// Shards: a power of two, a few per worker.
const SHARDS: usize = 64;

/// The (dev, ino) pairs already counted: an [`InodeMap`] whose words
/// are 0.
pub type LinkSet = InodeMap;

/// An inode met through several links in one argument's walk: the first
/// of its links so far in GNU's order.  Kept to 32 bytes (48 with its
/// key): there is one for every such inode (see the crate doc's figure).
#[derive(Debug)]
pub struct Owner {
    /// The directory holding that link.
    pub dir: Arc<Node>,
    /// The link's place in its directory's fts order.
    pub place: u64,
    /// What the inode counts (its inode count is 1), in the low 63 bits;
    /// the top bit: charged in this argument (not counted by an earlier
    /// one), set when the walk is settled.
    size_charged: u64,
    /// The inode's time ([`Dui::tmax`]).
    tmax: i64,
}

/// [`Owner::size_charged`]'s flag.
const CHARGED: u64 = 1 << 63;

impl Owner {
    fn new(dir: Arc<Node>, place: u64, own: Dui) -> Owner {
        Owner {
            dir,
            place,
            // No file holds 8 EiB: the top bit is free.
            size_charged: own.size.min(CHARGED - 1),
            tmax: own.tmax,
        }
    }

    /// What the inode counts.
    pub fn own(&self) -> Dui {
        Dui {
            size: self.size_charged & !CHARGED,
            inodes: 1,
            tmax: self.tmax,
        }
    }

    /// Whether it is charged in this argument (not counted by an earlier
    /// one).
    pub fn charged(&self) -> bool {
        self.size_charged & CHARGED != 0
    }

    /// Marks it charged in this argument.
    pub fn set_charged(&mut self) {
        self.size_charged |= CHARGED;
    }
}

/// The inodes with several links met in one argument's walk, each with
/// its first link in GNU's order so far: one record an inode, however
/// many links it has.
#[derive(Debug)]
pub struct Owners {
    shards: Vec<Mutex<HashMap<(u64, u64), Owner>>>,
}

impl Default for Owners {
    fn default() -> Owners {
        Owners {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }
}

impl Owners {
    fn shard(&self, dev: u64, ino: u64) -> &Mutex<HashMap<(u64, u64), Owner>> {
        let h = ino.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ dev;
        &self.shards[(h >> 58) as usize % SHARDS]
    }

    /// A link of (dev, ino) at `place` in `dir`: kept if it comes before
    /// the inode's first link so far in GNU's order.
    pub fn offer(&self, dev: u64, ino: u64, dir: &Arc<Node>, place: u64, own: Dui) {
        let mut map = self
            .shard(dev, ino)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        match map.get_mut(&(dev, ino)) {
            Some(o) => {
                if cmp_places((dir, place), (&o.dir, o.place)).is_lt() {
                    o.dir = dir.clone();
                    o.place = place;
                }
            }
            None => {
                map.insert((dev, ino), Owner::new(dir.clone(), place, own));
            }
        }
    }

    /// Calls `f` on every record, a shard at a time.
    pub fn for_each(&self, mut f: impl FnMut((u64, u64), &mut Owner)) {
        for s in &self.shards {
            let mut map = s.lock().unwrap_or_else(|e| e.into_inner());
            for (&k, o) in map.iter_mut() {
                f(k, o);
            }
        }
    }

    /// Calls `f` on every record, taken out a shard at a time: each
    /// shard's memory is freed as soon as it is done, so that what `f`
    /// adds elsewhere (the [`LinkSet`]) grows as the records go rather
    /// than beside all of them.
    pub fn drain(&self, mut f: impl FnMut((u64, u64), Owner)) {
        for s in &self.shards {
            let map = std::mem::take(&mut *s.lock().unwrap_or_else(|e| e.into_inner()));
            for (k, o) in map {
                f(k, o);
            }
        }
    }

    /// Calls `f` on the record of (dev, ino), if there is one.
    pub fn with<R>(&self, dev_ino: (u64, u64), f: impl FnOnce(&Owner) -> R) -> Option<R> {
        let map = self
            .shard(dev_ino.0, dev_ino.1)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        map.get(&dev_ino).map(f)
    }

    /// Whether no inode was met through several links.
    pub fn is_empty(&self) -> bool {
        self.shards
            .iter()
            .all(|s| s.lock().unwrap_or_else(|e| e.into_inner()).is_empty())
    }
}

/// `-L`: a file's first visit in the walk (its directory's id in the
/// walk and its name's hash), and, if the walk met it again, every visit
/// (charged after the walk to the first in GNU's order).
#[derive(Debug)]
pub struct LogicalFile {
    /// The id of the directory it was first met in.
    pub parent: usize,
    /// The hash of the name it was first met by.
    pub name_hash: u64,
    /// Its latest time: added to the directory it is charged to after
    /// the walk (a time cannot be taken out of a maximum again).
    pub tmax: i64,
    /// The later visits, if any.
    pub again: Option<Box<Again>>,
}

/// A file met more than once under `-L`.
#[derive(Debug)]
pub struct Again {
    /// What it counts.
    pub own: Dui,
    /// The later visits: directory id and name.
    pub visits: Vec<(usize, Box<[u8]>)>,
}

/// `-L`: the files met in one argument's walk, by (device, inode).
#[derive(Debug)]
pub struct LogicalFiles {
    shards: Vec<Mutex<HashMap<(u64, u64), LogicalFile>>>,
}

impl Default for LogicalFiles {
    fn default() -> LogicalFiles {
        LogicalFiles {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }
}

impl LogicalFiles {
    /// Records a visit of (dev, ino) as `name` in the directory `parent`;
    /// `true` if it is the first (the walk counts it, provisionally).
    pub fn visit(&self, (dev, ino): (u64, u64), parent: usize, name: &[u8], own: &Dui) -> bool {
        let h = ino.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ dev;
        let mut map = self.shards[(h >> 58) as usize % SHARDS]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        match map.get_mut(&(dev, ino)) {
            None => {
                map.insert(
                    (dev, ino),
                    LogicalFile {
                        parent,
                        name_hash: crate::order::name_hash(name),
                        tmax: own.tmax,
                        again: None,
                    },
                );
                true
            }
            Some(f) => {
                f.again
                    .get_or_insert_with(|| {
                        Box::new(Again {
                            own: *own,
                            visits: Vec::new(),
                        })
                    })
                    .visits
                    .push((parent, name.into()));
                false
            }
        }
    }

    /// Calls `f` on every record, a shard at a time.
    pub fn for_each(&self, mut f: impl FnMut((u64, u64), &LogicalFile)) {
        for s in &self.shards {
            for (&k, v) in s.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                f(k, v);
            }
        }
    }
}
