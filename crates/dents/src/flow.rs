//! What a visitor, or a closure of [`crate::Walker::for_each`], tells the
//! walk after each entry: go on, not into this directory, or stop.

/// What the visitor tells the walk after visiting an entry.
///
/// Not `#[non_exhaustive]`: walks outside this crate take a visitor's
/// answers too (a snapshot's walk, `find --from`; dents-mpi's), and each
/// must do what every answer says: a new one must fail to build them
/// rather than be ignored.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on (and into this entry, if it is a directory).
    Continue,
    /// Go on, but not into this directory (`-prune`).
    Prune,
    /// Stop the whole walk (`-quit`).
    Quit,
}
