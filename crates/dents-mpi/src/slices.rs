//! Huge directories spread over the ranks as slices of their offset
//! space: which directories, the slice items, reading one slice.  Used by
//! du and find alike.
//!
//! Slices that tile a directory's offset space read every entry present
//! for the whole read exactly once between them, whichever rank reads
//! each (`dents::unstable::read_slice_range`), on file systems where
//! `dents::slice::offset_space` calls slicing exact (ext4 with `dir_index`,
//! XFS).

use std::io;
use std::os::fd::{AsFd, OwnedFd};

use dents::slice;
pub use dents::slice::OffsetSpace;
use dents::walk::Visit;

use crate::wire::Item;

/// A directory whose path is this long or longer is walked where it is
/// met, never spilled as an item: an item travels as its path, and each
/// of its opens and stats resolves that path again, component by
/// component (in steps beyond `PATH_MAX`).  Down a chain 10,000 levels
/// deep, spilling every level made `-np 2` far slower than one rank;
/// paths under `PATH_MAX` resolve in one call each
/// (docs/distributed.md#several-arguments-and--l).
pub const LONGEST_SPILLED_PATH: usize = 4095;

/// Whether the directory `v` may be spilled as an item, by its path.
pub fn spillable(v: &Visit<'_>) -> bool {
    v.path().len() < LONGEST_SPILLED_PATH
}

/// Directories at least this large (bytes of `st_size`, about 30,000
/// entries on ext4) are read in slices spread over the ranks.
pub const HUGE_DIR: u64 = 1 << 20;

/// The offset space of the directory `v`, if slicing it is exact.
pub fn sliceable(v: &Visit<'_>) -> Option<OffsetSpace> {
    let fd = dents::fs::open_dir_at(v.parent_fd(), v.at_name()).ok()?;
    let size = dents::fs::fstat(fd.as_fd()).ok()?.len();
    slice::offset_space(fd.as_fd(), size).ok().flatten()
}

/// The slice items of the directory `dir` (an item whose `slice` is
/// ignored): a few per rank, at most `slice::MAX_SLICES`, tiling `space`,
/// none empty.
pub fn slice_items(dir: &Item, space: OffsetSpace, ranks: u32) -> Vec<Item> {
    slice_items_from(dir, space, 0, ranks)
}

/// The slice items of the part of `space` from position `from` on (the
/// rest of a directory read up to `from`), as [`slice_items`].
pub fn slice_items_from(dir: &Item, space: OffsetSpace, from: u64, ranks: u32) -> Vec<Item> {
    let n = (ranks as usize * 4).min(slice::MAX_SLICES);
    let starts = dents::unstable::slice_starts_from(space, from, n);
    let mut items: Vec<Item> = Vec::with_capacity(starts.len());
    for (i, &lo) in starts.iter().enumerate() {
        let hi = starts.get(i + 1).copied().unwrap_or(u64::MAX);
        if lo < hi {
            items.push(Item {
                slice: Some((lo, hi)),
                ..dir.clone()
            });
        }
    }
    items
}

/// Opens the directory of the slice `item` by its path.
pub fn open(item: &Item) -> io::Result<OwnedFd> {
    let path = std::ffi::CString::new(item.path.clone())
        // A path with a NUL byte cannot exist.
        .map_err(|_| io::Error::from_raw_os_error(rustix::io::Errno::NOENT.raw_os_error()))?;
    dents::fs::open_dir(&path)
}

/// The offset range `[lo, hi)` of the slice `item` (`hi` = `None`: to the
/// end), as `dents::unstable::read_slice_range` takes it.
pub fn range(item: &Item) -> (u64, Option<u64>) {
    let (lo, hi) = item.slice.expect("a slice item");
    (lo, (hi != u64::MAX).then_some(hi))
}
