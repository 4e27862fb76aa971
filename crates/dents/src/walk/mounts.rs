//! Loop checks: mount points (from the mount table) and the identity of
//! each directory entered, compared with its ancestors'.

use std::sync::{Arc, Weak};

use rustix::fs::StatxFlags;

use crate::metadata::Metadata;
use crate::sys::{self, Statx};

use super::node::{build_path, Node};
use super::{Follow, Shared, Visit, Visitor};

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

/// The mount points (`/proc/self/mountinfo`), sorted.
pub(super) struct Mounts {
    points: Vec<Vec<u8>>,
}

impl Mounts {
    /// Reads the mount table; `None` if it cannot be read.
    pub(super) fn load() -> Option<Mounts> {
        let table = std::fs::read("/proc/self/mountinfo").ok()?;
        let mut points: Vec<Vec<u8>> = table
            .split(|&b| b == b'\n')
            .filter_map(|line| line.split(|&b| b == b' ').nth(4))
            .map(unescape_octal)
            .collect();
        if points.is_empty() {
            return None;
        }
        points.sort_unstable();
        points.dedup();
        Some(Mounts { points })
    }

    /// Whether `path` (canonical) is a mount point.
    fn is_point(&self, path: &[u8]) -> bool {
        self.points
            .binary_search_by(|p| p.as_slice().cmp(path))
            .is_ok()
    }

    /// Whether a mount point lies strictly below `dir` (canonical).
    fn any_below(&self, dir: &[u8]) -> bool {
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
    /// `readlink`s of ever longer paths, and a chain of such starts (one
    /// per level, as dents-mpi spills them) took 6 s to walk at `-np 2`,
    /// 2,000 levels 49 s.  A start whose name is longer than `PATH_MAX`
    /// gets no scope: its subdirectories are stat'ed to find mount points.
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

impl<V: Visitor> Shared<'_, V> {
    /// Whether the subdirectory being visited (`v`, an entry of `node`) is one of its own ancestors, as
    /// find checks every directory it enters: `Err` with that ancestor's
    /// path; else how it was reached, for its node.
    ///
    /// Cheap where no loop is possible.  Within one filesystem, a plain
    /// subdirectory (no mount point, no link followed) lies strictly below
    /// its parent in the real tree, so it cannot be any ancestor reached
    /// through plain subdirectories only: a loop needs a mount point or a
    /// followed link on the way.  So the entry is checked against every
    /// ancestor only where it is such a crossing itself, else only against
    /// those above the nearest crossing (none, in most walks).  Its
    /// identity costs nothing where it cannot cross anything (the parent's
    /// device, `d_ino`); with `-L` it is the stat the visit needs anyway;
    /// without, a stat only for mount points, which the mount table names
    /// (and for every subdirectory where that table is not known).
    pub(super) fn closes_loop(&self, node: &Arc<Node>, v: &Visit<'_>) -> Result<Reached, Vec<u8>> {
        let plain = (node.id.0, v.ino);
        let stat_id = |st: &Statx| (dev_of(st), st.stx_ino);
        let meta_id = |m: &Metadata| (m.dev(), m.ino());
        let (id, crossing, mounts) = if self.opts.follow == Follow::Always {
            let id = v.metadata().map_or(plain, meta_id);
            (id, id != plain, MountScope::None)
        } else {
            match &node.mounts {
                MountScope::None => (plain, false, MountScope::None),
                MountScope::Below(canon) => {
                    let m = self
                        .mounts
                        .as_ref()
                        .expect("a mount scope comes from a mount table");
                    let mut child = canon.to_vec();
                    if !child.ends_with(b"/") {
                        child.push(b'/');
                    }
                    child.extend_from_slice(v.name());
                    let id = if m.is_point(&child) {
                        sys::statx_at(v.dir, v.at_name, StatxFlags::INO)
                            .map_or(plain, |st| stat_id(&st))
                    } else {
                        plain
                    };
                    let below = if m.any_below(&child) {
                        MountScope::Below(child.into())
                    } else {
                        MountScope::None
                    };
                    (id, id != plain, below)
                }
                MountScope::Unknown => {
                    let id = sys::statx_at(v.dir, v.at_name, StatxFlags::INO)
                        .map_or(plain, |st| stat_id(&st));
                    (id, id != plain, MountScope::Unknown)
                }
            }
        };
        let start = if crossing {
            Some(Arc::clone(node))
        } else {
            node.check_from.as_ref().and_then(Weak::upgrade)
        };
        let mut up = start.as_deref();
        while let Some(n) = up {
            if n.id == id {
                return Err(build_path(n));
            }
            up = n.parent.as_deref();
        }
        Ok(Reached {
            id,
            check_from: if crossing {
                Some(Arc::downgrade(node))
            } else {
                node.check_from.clone()
            },
            mounts,
        })
    }
}

/// A mount table field with its `\ooo` escapes decoded.
fn unescape_octal(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        let oct = field
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match (field[i], oct) {
            (b'\\', Some(d)) => {
                out.push((d[0] - b'0') << 6 | (d[1] - b'0') << 3 | (d[2] - b'0'));
                i += 4;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// How a subdirectory was reached (see [`Shared::closes_loop`]).
pub(super) struct Reached {
    pub(super) id: (u64, u64),
    pub(super) check_from: Option<Weak<Node>>,
    pub(super) mounts: MountScope,
}

/// The device number of a statx result, encoded as `st_dev` is (the walk
/// compares it with `fstat` results).
pub(super) fn dev_of(st: &Statx) -> u64 {
    sys::makedev(st.stx_dev_major, st.stx_dev_minor)
}
