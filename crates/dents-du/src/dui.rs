//! du's sums: a size, an inode count and the latest time ([`Dui`], GNU's
//! `duinfo`), and the same added to by many threads at once
//! ([`AtomicDui`]).  Apart from the engine so that the modules below it
//! (the walk order, the hard-link set, `-L`'s replay) can hold sums
//! without importing the engine that uses them.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use crate::time_style::NO_TIME;

/// A size, an inode count and the latest time, summed as GNU's `duinfo`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dui {
    /// Bytes (blocks × 512, or apparent sizes).
    pub size: u64,
    /// Inodes.
    pub inodes: u64,
    /// Latest time, packed as `sec << 30 | nsec` (ordered as the times).
    pub tmax: i64,
}

impl Dui {
    /// Nothing: no size, no inode, no time.
    pub const ZERO: Dui = Dui {
        size: 0,
        inodes: 0,
        tmax: NO_TIME,
    };

    /// Adds `o`: sizes and counts summed, the later time kept.
    pub fn add(&mut self, o: &Dui) {
        self.size += o.size;
        self.inodes += o.inodes;
        self.tmax = self.tmax.max(o.tmax);
    }

    /// Adds `o` whose size and count may be negative (as wrapped by
    /// [`AtomicDui::take_back`]).
    pub fn add_wrapping(&mut self, o: &Dui) {
        self.size = self.size.wrapping_add(o.size);
        self.inodes = self.inodes.wrapping_add(o.inodes);
        self.tmax = self.tmax.max(o.tmax);
    }
}

/// A [`Dui`] that threads add to at once: a directory's running sum
/// (the latest time kept by `fetch_max` on the packed time).
#[derive(Debug)]
pub struct AtomicDui {
    size: AtomicU64,
    inodes: AtomicU64,
    tmax: AtomicI64,
}

impl AtomicDui {
    /// A sum starting at `d`.
    pub fn new(d: Dui) -> AtomicDui {
        AtomicDui {
            size: AtomicU64::new(d.size),
            inodes: AtomicU64::new(d.inodes),
            tmax: AtomicI64::new(d.tmax),
        }
    }

    /// Adds `d`: sizes and counts summed, the later time kept.
    pub fn add(&self, d: &Dui) {
        self.size.fetch_add(d.size, Ordering::Relaxed);
        self.inodes.fetch_add(d.inodes, Ordering::Relaxed);
        self.tmax.fetch_max(d.tmax, Ordering::Relaxed);
    }

    /// Takes `d`'s size and count back (the time stays: a maximum cannot
    /// be undone); the sum may go below zero, wrapped, until what it is
    /// added to ([`Dui::add_wrapping`]) holds `d`.
    pub fn take_back(&self, d: &Dui) {
        self.size.fetch_sub(d.size, Ordering::Relaxed);
        self.inodes.fetch_sub(d.inodes, Ordering::Relaxed);
    }

    /// The sum so far.
    pub fn get(&self) -> Dui {
        Dui {
            size: self.size.load(Ordering::Relaxed),
            inodes: self.inodes.load(Ordering::Relaxed),
            tmax: self.tmax.load(Ordering::Relaxed),
        }
    }
}
