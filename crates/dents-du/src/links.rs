//! The set of (device, inode) pairs already counted: hard links (and,
//! with several arguments, directories) are counted once; and, during one
//! argument's walk, the first link in GNU's order of each inode met
//! through several links ([`Owners`]).
//!
//! The set is an [`InodeMap`]: one 16-byte slot an inode (its key,
//! packed, and a word), in 64 shards of open-addressed tables.  The word tells what
//! the current argument's walk made of the inode ([`Met`]): counted by
//! an earlier argument (or not through a walk); met once so far in this
//! argument, at a link whose directory node and place in GNU's order
//! fit in the word, and charged there provisionally; or met again, its
//! first link in GNU's order kept in an [`Owner`] record.  So an inode
//! costs a record only when this argument met it through two links; a
//! tree whose links lead outside it (backups, package stores) costs the
//! slot alone.
//!
//! Which of two workers that meet the same inode at the same time
//! inserts it first is a matter of timing; the shard's lock orders them,
//! so totals never count an inode twice.  Which link an inode is charged
//! to is not: [`Owners`] keeps the first in GNU's order, whatever the
//! timing.
//!
//! Memory, an inode with several links (issue 29): its slot, 16 bytes
//! in tables between 54% and 81% full (20 to 30 bytes an inode; 24-byte
//! slots for keys the packing cannot number, [`InodeMap`]); an
//! inode met through two links in one argument adds an [`Owner`] record
//! (48 bytes with its key, in hash tables between 7/16 and 7/8 full)
//! until the argument's end.  Measured figures: docs/history/benchmarks.md,
//! "Hard-link set's 16-byte slot and the wide queue (session 15)" (29
//! bytes an inode at 10M; 43 with 24-byte slots) and "Hard-link set at
//! 10M (session 14)" (85 bytes an inode when each inode had an
//! [`Owner`] record drained into a hash set).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::dui::Dui;
pub use crate::inodes::InodeMap;
use crate::order::{cmp_places, Node};

/// Shards of the [`Owners`] records: a power of two, a few per worker.
const SHARDS: usize = 64;

/// The (dev, ino) pairs already counted, and what the current
/// argument's walk made of each ([`Met`]).
pub type LinkSet = InodeMap;

/// What a [`LinkSet`] word says of an inode, for the walk of the
/// argument whose first directory node id is `base`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Met {
    /// Counted before this argument (or by a set used as a plain set:
    /// its words are 0).
    Counted,
    /// Met once so far in this argument, at `place` in the directory
    /// whose node id is `node`, and charged there for now.
    Once {
        /// The link's directory's node id.
        node: u64,
        /// The link's place in that directory's fts order.
        place: u64,
    },
    /// Met through two links or more in this argument (or once, where
    /// its place does not fit in the word): its [`Owner`] record holds
    /// its first link in GNU's order.
    Again,
}

/// What the walk does with a link it meets ([`Met::step`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing: its inode was counted before this argument.
    Counted,
    /// Counts the inode, charged to this link for now.
    Once,
    /// Records the link as its inode's first ([`Owners::offer`]): the
    /// inode's first link met, whose place does not fit in a word.
    Record,
    /// Takes the provisional charge back from the first link met, at
    /// `place` in the directory node `node`, and records both
    /// ([`Owners::offer_second`]).
    Second {
        /// The first link's directory's node id.
        node: u64,
        /// The first link's place there.
        place: u64,
    },
    /// Offers the link to its inode's record ([`Owners::offer`]).
    Again,
}

/// The place a word's low half gives [`Met::Again`].
const AGAIN: u64 = u32::MAX as u64;

impl Met {
    /// Reads a word, for the argument whose first node id is `base`
    /// (at least 1: the word 0 is [`Met::Counted`] for every argument).
    pub fn of(word: u64, base: u64) -> Met {
        let (node, place) = (word >> 32, word & AGAIN);
        if node < base {
            Met::Counted
        } else if place == AGAIN {
            Met::Again
        } else {
            Met::Once { node, place }
        }
    }

    /// The word of [`Met::Once`] at (node, place), if both fit (a node id
    /// below 2³² − 1 — directories holding links, over a whole run — and
    /// a place below 2³² − 1: a directory of fewer than about 4 billion
    /// entries, [`crate::order::UNKNOWN`] excluded).
    pub fn once(node: u64, place: u64) -> Option<u64> {
        (node < AGAIN && place < AGAIN).then_some(node << 32 | place)
    }

    /// Meets a link of the inode whose word is `word` (`fresh`: just
    /// inserted) in the walk of the argument whose first node id is
    /// `base`, at the directory node `node`; `once`: the word of
    /// [`Met::Once`] at the link, if it fits and the walk charges
    /// provisionally.  Sets the word and says what the walk does.
    pub fn step(word: &mut u64, fresh: bool, base: u64, node: u64, once: Option<u64>) -> Step {
        let step = match (fresh, Met::of(*word, base)) {
            (false, Met::Counted) => return Step::Counted,
            (true, _) => match once {
                Some(w) => {
                    *word = w;
                    return Step::Once;
                }
                None => Step::Record,
            },
            (false, Met::Once { node, place }) => Step::Second { node, place },
            (false, Met::Again) => Step::Again,
        };
        *word = Met::again(node);
        step
    }

    /// The word of [`Met::Again`], made in the argument's directory node
    /// `node` (any of the argument's: it only says which argument).
    pub fn again(node: u64) -> u64 {
        node.min(AGAIN - 1) << 32 | AGAIN
    }
}

/// An inode met through several links in one argument's walk: the first
/// of its links so far in GNU's order.  Kept to 32 bytes (48 with its
/// key): there is one for every such inode.
#[derive(Debug)]
pub struct Owner {
    /// The directory holding that link.
    pub dir: Arc<Node>,
    /// The link's place in its directory's fts order.
    pub place: u64,
    /// What the inode counts (its inode count is 1), in the low 62 bits;
    /// bit 63: charged in this argument, set when the walk is settled;
    /// bit 62: counted in the totals already, provisionally charged to
    /// its first link met ([`Met::Once`]) and taken back from there.
    size_flags: u64,
    /// The inode's time ([`Dui::tmax`]).
    tmax: i64,
}

/// [`Owner::size_flags`]'s flag: charged in this argument.
const CHARGED: u64 = 1 << 63;

/// [`Owner::size_flags`]'s flag: counted in the totals when first met.
const MOVED: u64 = 1 << 62;

impl Owner {
    fn new(dir: Arc<Node>, place: u64, own: Dui, moved: bool) -> Owner {
        Owner {
            dir,
            place,
            // No file holds 4 EiB: the top bits are free.
            size_flags: own.size.min(MOVED - 1) | if moved { MOVED } else { 0 },
            tmax: own.tmax,
        }
    }

    /// What the inode counts.
    pub fn own(&self) -> Dui {
        Dui {
            size: self.size_flags & (MOVED - 1),
            inodes: 1,
            tmax: self.tmax,
        }
    }

    /// Whether it is charged in this argument (not counted by an earlier
    /// one).
    pub fn charged(&self) -> bool {
        self.size_flags & CHARGED != 0
    }

    /// Marks it charged in this argument.
    pub fn set_charged(&mut self) {
        self.size_flags |= CHARGED;
    }

    /// Whether the walk counted it in the totals already, when it met
    /// its first link ([`Met::Once`]): settling charges its directories
    /// only.
    pub fn moved(&self) -> bool {
        self.size_flags & MOVED != 0
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
        self.offer_with(dev, ino, dir, place, || {
            Owner::new(dir.clone(), place, own, false)
        });
    }

    /// The second link met of an inode first met at `first` (and
    /// charged there provisionally, taken back by the caller): its
    /// record, with the earlier of the two in GNU's order.
    pub fn offer_second(
        &self,
        (dev, ino): (u64, u64),
        first: (&Arc<Node>, u64),
        dir: &Arc<Node>,
        place: u64,
        own: Dui,
    ) {
        self.offer_with(dev, ino, first.0, first.1, || {
            Owner::new(first.0.clone(), first.1, own, true)
        });
        self.offer(dev, ino, dir, place, own);
    }

    fn offer_with(
        &self,
        dev: u64,
        ino: u64,
        dir: &Arc<Node>,
        place: u64,
        new: impl FnOnce() -> Owner,
    ) {
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
                map.insert((dev, ino), new());
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
    /// shard's memory is freed as soon as it is done.
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
