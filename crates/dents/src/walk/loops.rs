//! Loop checks: the identity of each directory entered, compared with
//! its ancestors' where a loop is possible (a mount point or a followed
//! link on the way; [`super::mounts`] says where mount points are).

use std::sync::{Arc, Weak};

use rustix::fs::StatxFlags;

use crate::metadata::Metadata;
use crate::sys::{self, Statx};

use super::mounts::{child_canon, MountScope};
use super::node::{build_path, Node};
use super::{Follow, Shared, Visit, Visitor};

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
            match node.mounts() {
                MountScope::None => (plain, false, MountScope::None),
                MountScope::Below(canon) => {
                    let m = self
                        .mounts
                        .as_ref()
                        .expect("a mount scope comes from a mount table");
                    let child = child_canon(canon, v.name());
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
            node.check_from().and_then(Weak::upgrade)
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
                node.check_from().cloned()
            },
            mounts,
        })
    }
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
