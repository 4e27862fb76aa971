//! The mount points (from the mount table), and which of them lie below
//! a directory: what the loop checks ([`super::loops`]) need to know
//! where a loop through a bind mount could start.

use crate::sys;

/// Which mount points lie below a directory, for the loop checks without
/// `-L`: a loop through a bind mount needs a mount point.
#[derive(Debug)]
pub(super) enum MountScope {
    /// None: no entry below can be a mount point.
    None,
    /// Some, and this is the directory's canonical path: its entries are
    /// looked up among the mount points.
    Below(Box<[u8]>),
    /// Not known (no mount table, or no canonical path): every
    /// subdirectory is stat'ed.
    Unknown,
}

/// The canonical path of the entry `name` of the directory whose
/// canonical path is `canon` (a [`MountScope::Below`]'s).
pub(super) fn child_canon(canon: &[u8], name: &[u8]) -> Vec<u8> {
    let mut child = Vec::with_capacity(canon.len() + 1 + name.len());
    child.extend_from_slice(canon);
    if !child.ends_with(b"/") {
        child.push(b'/');
    }
    child.extend_from_slice(name);
    child
}

/// The mount points (`/proc/self/mountinfo`), sorted.
pub(super) struct Mounts {
    points: Vec<Vec<u8>>,
}

impl Mounts {
    /// Reads the mount table; `None` if it cannot be read.
    pub(super) fn load() -> Option<Mounts> {
        let mut points: Vec<Vec<u8>> = crate::mountinfo::read()
            .ok()?
            .into_iter()
            .map(|m| m.point)
            .collect();
        if points.is_empty() {
            return None;
        }
        points.sort_unstable();
        points.dedup();
        Some(Mounts { points })
    }

    /// Whether `path` (canonical) is a mount point.
    pub(super) fn is_point(&self, path: &[u8]) -> bool {
        self.points
            .binary_search_by(|p| p.as_slice().cmp(path))
            .is_ok()
    }

    /// Whether a mount point lies strictly below `dir` (canonical).
    pub(super) fn any_below(&self, dir: &[u8]) -> bool {
        let mut prefix = dir.to_vec();
        if !prefix.ends_with(b"/") {
            prefix.push(b'/');
        }
        let i = self
            .points
            .partition_point(|p| p.as_slice() < prefix.as_slice());
        self.points
            .get(i)
            .is_some_and(|p| p.starts_with(&prefix) && p.len() > prefix.len())
    }

    /// The scope of a start: a root directory, or (`depth` > 0) a
    /// directory met below one.
    ///
    /// A root is made canonical by `realpath`, which reads every component
    /// as a link; a start below one by the kernel's own name of the
    /// directory opened (`/proc/self/fd`), one call whatever its depth.
    /// Made canonical by `realpath`, a start 1,000 levels deep cost 1,000
    /// `readlink`s of ever longer paths: work quadratic in the depth,
    /// which a chain of such starts (one per level, as dents-mpi spills
    /// them) multiplied (docs/distributed.md#several-arguments-and--l).
    /// A start whose name is longer than `PATH_MAX` gets no scope: its
    /// subdirectories are stat'ed to find mount points.
    pub(super) fn scope_of_start(mounts: Option<&Mounts>, path: &[u8], depth: usize) -> MountScope {
        let Some(m) = mounts else {
            return MountScope::Unknown;
        };
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        let canonical = if depth == 0 {
            std::fs::canonicalize(std::ffi::OsStr::from_bytes(path))
                .map(|c| c.into_os_string().into_vec())
        } else {
            sys::canonical_dir(path)
        };
        match canonical {
            Ok(c) => {
                if m.any_below(&c) {
                    MountScope::Below(c.into())
                } else {
                    MountScope::None
                }
            }
            Err(_) => MountScope::Unknown,
        }
    }
}
