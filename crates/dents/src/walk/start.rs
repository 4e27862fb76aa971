//! Where a walk starts, and the big directory a walk offers: the types
//! of the walker that only [`crate::unstable`] makes public.

use crate::slice::OffsetSpace;

/// Where a walk starts: a starting point (a root), or a directory below
/// one that another walk met and left out (through
/// [`crate::walk::Visitor::excluded`]) to be walked apart, on another thread or
/// another machine (`dents-mpi`).
#[derive(Copy, Clone, Debug)]
pub struct Start<'a> {
    /// The path, as the walk that met it built it.
    pub path: &'a [u8],
    /// The length of the starting point at its head ([`crate::walk::Visit::root`]).
    pub root_len: usize,
    /// Its depth below that starting point (0: a root).
    pub depth: usize,
}

impl<'a> Start<'a> {
    /// A starting point.
    pub fn root(path: &'a [u8]) -> Start<'a> {
        Start {
            path,
            root_len: path.len(),
            depth: 0,
        }
    }
}

/// A big directory being read, offered to [`crate::walk::Visitor::take_rest`]: where
/// it lies in the walk, its offset space, and how far this walk read it.
#[derive(Debug)]
pub struct BigDir<'a> {
    pub(crate) start: Start<'a>,
    pub(crate) size: u64,
    pub(crate) space: OffsetSpace,
    pub(crate) from: u64,
}

impl<'a> BigDir<'a> {
    /// The directory as [`crate::unstable::walk_slice`] takes it: its path, its starting
    /// point's length and its depth in the walk.
    pub fn start(&self) -> Start<'a> {
        self.start
    }

    /// The directory's path, as the walk built it.
    pub fn path(&self) -> &'a [u8] {
        self.start.path
    }

    /// The starting point the directory was reached from ([`crate::walk::Visit::root`]).
    pub fn root(&self) -> &'a [u8] {
        &self.start.path[..self.start.root_len]
    }

    /// The directory's depth below its starting point.
    pub fn depth(&self) -> usize {
        self.start.depth
    }

    /// Its size in bytes (`st_size`).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Its offset space, where slicing is exact.
    pub fn space(&self) -> OffsetSpace {
        self.space
    }

    /// The position the rest begins at: every entry before it was read
    /// (and is visited) by this walk, every entry present for the whole
    /// read from it on is the taker's, as the slices of
    /// [`crate::unstable::slice_starts_from`]`(space, from, n)` read them.
    pub fn from(&self) -> u64 {
        self.from
    }
}
