//! **Unstable**: what the distributed mode (`dents-mpi`) needs of the
//! walker and of the slice reader to spread one walk, and the slices of
//! one huge directory, over processes: walks that start below a root
//! ([`walk_from`]) or at a slice of a directory ([`walk_slice`]), the
//! place a walk starts ([`Start`]), the big directory a walk offers
//! ([`BigDir`], with [`crate::walk::Visitor::take_rest`] and
//! [`crate::walk::WalkOptions::offer_big_dirs`]), and the slices of an
//! offset space read one at a time ([`slice_starts_from`],
//! [`read_dir_from`], [`read_slice_range`]).
//!
//! Everything here may change, or go, in any release, minor and patch
//! ones included: it is shaped by what `dents-mpi` and `dents-snap` do
//! today (how work is cut between ranks, how a refresh lists a
//! directory), not by what another program would need, and it exposes
//! the walk's own notions (a start's root length, a position in a
//! directory's offset space) that the walker may have to change to get
//! faster.  It lives apart so that the rest of the crate can keep its
//! promises; a program outside this workspace should not use it, or pin
//! the exact version if it does.

use std::io;
use std::os::fd::{BorrowedFd, OwnedFd};

use crate::slice::{EntrySink, OffsetSpace, ReadOutcome};
use crate::stats::Stats;
use crate::walk::{Visitor, WalkOptions};

// Defined with the walker, which makes them; public only here.
pub use crate::walk::start::{BigDir, Start};

/// Walks from each of `starts` as [`crate::walk::walk`] from roots, each visit with
/// the path, root and depth it has in the walk of the whole tree: a
/// start below a root is visited (and its tree walked) as that walk
/// would have, its depth counting against [`crate::walk::WalkOptions::min_depth`] and
/// [`crate::walk::WalkOptions::max_depth`], its symlinks not followed under
/// [`crate::Follow::Roots`].  Its ancestors are unknown here: loops through
/// them (`-L`) are not found, nor is a start on another filesystem than
/// its root checked for [`crate::walk::WalkOptions::same_file_system`] (the caller's part).
pub fn walk_from<V: Visitor>(starts: &[Start<'_>], opts: &WalkOptions, visitor: &V) -> Stats {
    crate::walk::walk_from(starts, opts, visitor)
}

/// Walks one slice of a huge directory: the entries `dents::slice`
/// reads from `[lo, hi)` of its offset space (`hi` = `None`: to the end;
/// see [`read_slice_range`]), each visited with what the
/// read gave (name, `d_type`, inode: no stat unless the visitor asks for
/// [`crate::walk::Visit::metadata`]), as [`walk_from`] would visit them below `dir`,
/// and the trees of those that are directories walked.  The directory
/// itself (open as `fd`) is not visited, before or after (its visit is
/// the caller's, once for all its slices); its entries are visited in the
/// order read, even in a sorted walk.
///
/// For a caller that spreads the slices of one directory over processes
/// (`dents-mpi`): each entry then costs what it costs in a whole walk.
pub fn walk_slice<V: Visitor>(
    dir: &Start<'_>,
    fd: OwnedFd,
    range: (u64, Option<u64>),
    opts: &WalkOptions,
    visitor: &V,
) -> Stats {
    crate::walk::walk_slice(dir, fd, range, opts, visitor)
}

/// The start positions of `slices` slices of the part of `space` from
/// position `from` on (one slice if nothing of the space is left).
pub fn slice_starts_from(space: OffsetSpace, from: u64, slices: usize) -> Vec<u64> {
    crate::slice::slice_starts_from(space, from, slices)
}

/// Reads the entries of `dir` from position `from` on, in `slices` slices
/// of the rest of `space`, feeding sinks made by `make_sink(slice)`.
///
/// This finishes a read begun serially: `from` must be the `next_offset`
/// of the last entry taken from that read, and that entry's predecessor
/// must have had a different `next_offset`.  (On ext4, entries whose
/// names' hashes collide share one position, and every one of them but
/// the last has that position as its `next_offset`: resuming there would
/// read again the colliding entries already taken.  Where two successive
/// `next_offset`s differ, the last entry taken lies before `from`.)
pub fn read_dir_from<S, F>(
    dir: BorrowedFd<'_>,
    space: OffsetSpace,
    from: u64,
    slices: usize,
    buffer_size: usize,
    make_sink: F,
) -> ReadOutcome<S>
where
    S: EntrySink,
    F: Fn(usize) -> S + Sync,
{
    crate::slice::read_dir_from(dir, space, from, slices, buffer_size, make_sink)
}

/// Reads one slice, `[lo, hi)` of `dir`'s offset space (`hi` = `None`: to
/// the end), on a descriptor of its own, feeding `sink`.
///
/// For a caller that spreads the slices of one directory over processes
/// (`dents-mpi`): slices that tile the space (the [`crate::slice::slice_starts`] of a
/// space [`crate::slice::offset_space`] calls exact) read every entry present for the
/// whole read exactly once between them, wherever each is read.  Returns
/// whether a probe was needed to place the slice's first entry.
pub fn read_slice_range<S: EntrySink>(
    dir: BorrowedFd<'_>,
    lo: u64,
    hi: Option<u64>,
    buffer_size: usize,
    sink: &mut S,
) -> io::Result<bool> {
    crate::slice::read_slice(dir, lo, hi, buffer_size, sink)
}
