//! What a walk did, in plain numbers: the one statistics type every form
//! of walk returns ([`crate::walk::walk`], [`crate::Walker`]'s iterator,
//! closure and visitor, [`crate::unstable`]'s walks).

/// What a walk did, in plain numbers.
///
/// The walk counts with atomics while its workers run and hands this
/// copy back once they are done, so that reading it needs no atomics
/// and a field can be added in any release (`#[non_exhaustive]`).
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::create_dir(dir.path().join("d")).unwrap();
/// let stats = dents::Walker::new(dir.path()).for_each(|_| dents::Flow::Continue);
/// assert_eq!(stats.dirs_read, 2);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Directories read.
    pub dirs_read: u64,
    /// Directories read in slices on several threads (huge ext4 or XFS
    /// ones).
    pub dirs_sliced: u64,
    /// Directories opened by a path from an ancestor rather than from
    /// their parent's descriptor (descriptor budget, very deep trees).
    pub reopened_by_path: u64,
    /// `statx` calls made to tell directories from the rest where the
    /// filesystem gave no type.
    pub type_stats: u64,
    /// Entries whose type came from the directory entry (`d_type`).
    pub types_from_dtype: u64,
    /// Entries known not to be directories from their parent's link count.
    pub types_from_nlink: u64,
    /// Entries whose type came from a stat.
    pub types_from_stat: u64,
    /// Directories whose link count could not be trusted after all (the
    /// directory changed around its read, or too recently to tell), so
    /// that every entry of unknown type was stat'ed.
    pub type_fallbacks: u64,
    /// Directories whose link count could not be used to classify
    /// their entries.
    pub nlink_unusable: u64,
    /// Entries that vanished between being read and being stat'ed.
    pub vanished: u64,
    /// The most directories queued in memory at once, waiting to be read.
    pub queue_peak: u64,
    /// Directories of the queue spilled to its temporary file past its
    /// memory limit: a sorted walk's (see [`crate::walk`], "Sorted
    /// walks"), an unsorted walk's deep list.
    pub dirs_spilled: u64,
    /// Worker threads the walk ran (the calling thread included): with
    /// the default thread count, one more than the cores unless a read
    /// waited on the disk ([`crate::walk::WalkOptions::threads`]).
    pub workers_started: u64,
}
