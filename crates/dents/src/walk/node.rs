//! A directory of the walk (queued, being read, or a parent kept for its
//! children), and its path built from names.

use std::ffi::CString;
use std::os::fd::OwnedFd;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use super::mounts::MountScope;
use crate::metadata::Metadata;

/// Every this many levels a directory keeps its whole path, so that a
/// path is built from at most this many names (deep trees: linear, not
/// quadratic in the depth).
pub(super) const PATH_KEEP: usize = 64;

/// A directory in the walk: queued, being read, or a parent kept for its
/// children.
#[derive(Debug)]
pub(super) struct Node {
    pub(super) parent: Option<Arc<Node>>,
    /// The name relative to the parent; for a root, the root path.
    pub(super) name: CString,
    pub(super) depth: usize,
    /// (dev, ino) as reached: the parent's device and the entry's
    /// `d_ino` where nothing can make them differ (no mount point, no
    /// link followed), else from a stat.  Loop checks compare these.
    pub(super) id: (u64, u64),
    /// The directory's metadata as its visit had it (stat'ed relative to
    /// its parent, or a root's stat), in sorted walks that keep it for
    /// [`super::Visitor::listing_stated`]: its listing may then be taken
    /// without opening it.
    pub(super) stat: Option<Metadata>,
    /// (dev, ino) of the directory as opened (`fstat`), where needed: the
    /// post-order visits check a parent reopened by `..` against it.
    pub(super) opened: OnceLock<(u64, u64)>,
    /// The whole path, kept on every [`PATH_KEEP`]-th level so that
    /// building a path never walks up more than that many levels.
    pub(super) path: Option<Box<[u8]>>,
    /// Where the loop check of a plain subdirectory starts (see
    /// [`Shared::closes_loop`]): the parent of the nearest
    /// ancestor-or-self reached across a mount point or a followed link;
    /// `None` if there is none (no loop is possible).
    pub(super) check_from: Option<Weak<Node>>,
    /// Mount points below this directory (see [`MountScope`]).
    pub(super) mounts: MountScope,
    /// The open descriptor kept for the children's `openat`.
    pub(super) fd: Mutex<Option<Arc<OwnedFd>>>,
    /// Children not yet opened: at zero, `fd` is released.
    pub(super) children_left: AtomicUsize,
    /// Post-order: pending work below (own read + subtrees).
    pub(super) pending: AtomicUsize,
    /// The root's device (for `-xdev`).
    pub(super) root_dev: u64,
    /// Whether this directory's entries' symlinks are followed.
    pub(super) is_root: bool,
    /// The length of the starting point at the head of every path below.
    pub(super) root_len: usize,
    /// Whether the walk visits this directory itself (`false`: a slice's
    /// directory, visited by the caller of [`super::walk_slice`]).
    pub(super) visited: bool,
}

impl Drop for Node {
    /// Drops the chain of parents that only this node held one at a time:
    /// dropped recursively, a chain of tens of thousands of levels would
    /// overflow the stack.
    fn drop(&mut self) {
        let mut up = self.parent.take();
        while let Some(p) = up {
            up = match Arc::into_inner(p) {
                Some(mut n) => n.parent.take(),
                None => None,
            };
        }
    }
}

/// The path of `node`: its root's path and the names below it (from the
/// nearest ancestor that keeps its path, at most [`PATH_KEEP`] levels up).
pub(super) fn build_path(node: &Node) -> Vec<u8> {
    let mut names: Vec<&[u8]> = Vec::with_capacity(node.depth.min(PATH_KEEP) + 1);
    let mut kept: &[u8] = &[];
    let mut len = 0;
    let mut n = Some(node);
    while let Some(x) = n {
        if let Some(p) = &x.path {
            kept = p;
            break;
        }
        names.push(x.name.as_bytes());
        len += x.name.as_bytes().len() + 1;
        n = x.parent.as_deref();
    }
    let mut path = Vec::with_capacity(kept.len() + len);
    path.extend_from_slice(kept);
    for name in names.iter().rev() {
        if !path.is_empty() && !path.ends_with(b"/") {
            path.push(b'/');
        }
        path.extend_from_slice(name);
    }
    path
}
