//! A directory of the walk (queued, being read, or a parent kept for its
//! children), and its path built from names.
//!
//! A queued directory is light: what it needs while it waits (its parent,
//! name, depth, identity, and, rarely, what a crossing or a kept path
//! adds) is in its [`Node`]; what it needs once a worker takes it (its
//! descriptor, the counts of its children and pending work, its root's
//! device) is an [`Open`] part allocated then.  On a wide tree (a
//! directory of a million subdirectories, all queued at once) a queued
//! directory costs a 96-byte allocation and its queue slot, not the
//! 208 bytes and a name of its own it cost with everything in one.

use std::collections::VecDeque;
use std::ffi::{CStr, CString};
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use super::mounts::MountScope;
use crate::metadata::Metadata;

/// Every this many levels a directory keeps its whole path, so that a
/// path is built from at most this many names (deep trees: linear, not
/// quadratic in the depth).
pub(super) const PATH_KEEP: usize = 64;

/// Bytes of a name (its NUL included) kept in the node itself: most
/// names are shorter, and a name of its own would be a second allocation
/// (32 bytes) for every queued directory.
const INLINE_NAME: usize = 23;

/// A directory's name, in the node when short enough.
#[derive(Debug)]
enum Name {
    /// NUL-terminated, the rest zeros.
    Inline([u8; INLINE_NAME]),
    /// Longer names.
    Heap(Box<CStr>),
}

impl Name {
    fn new(name: &CStr) -> Name {
        let b = name.to_bytes_with_nul();
        if b.len() <= INLINE_NAME {
            let mut a = [0u8; INLINE_NAME];
            a[..b.len()].copy_from_slice(b);
            Name::Inline(a)
        } else {
            Name::Heap(name.into())
        }
    }

    fn get(&self) -> &CStr {
        match self {
            Name::Inline(a) => CStr::from_bytes_until_nul(a).expect("NUL-terminated by new"),
            Name::Heap(b) => b,
        }
    }
}

/// What few directories need while queued: boxed, so that the others do
/// not pay for it.
#[derive(Debug)]
struct Extra {
    /// The whole path, kept on every [`PATH_KEEP`]-th level so that
    /// building a path never walks up more than that many levels.
    path: Option<Box<[u8]>>,
    /// Where the loop check of a plain subdirectory starts (see
    /// `Shared::closes_loop`): the parent of the nearest
    /// ancestor-or-self reached across a mount point or a followed link;
    /// `None` if there is none (no loop is possible).
    check_from: Option<Weak<Node>>,
    /// Mount points below this directory (see [`MountScope`]).
    mounts: MountScope,
    /// The directory's metadata as its visit had it (stat'ed relative to
    /// its parent, or a root's stat), kept only for a visitor that
    /// answers [`super::Visitor::listing_stated`]: its listing may then
    /// be taken without opening it.  Here, not in the node: a plain
    /// walk's queued directory does not pay for it.
    stat: Option<Metadata>,
}

/// A directory in the walk: queued, being read, or a parent kept for its
/// children.
#[derive(Debug)]
pub(super) struct Node {
    pub(super) parent: Option<Arc<Node>>,
    /// The name relative to the parent; for a root, the root path.
    name: Name,
    pub(super) depth: usize,
    /// (dev, ino) as reached: the parent's device and the entry's
    /// `d_ino` where nothing can make them differ (no mount point, no
    /// link followed), else from a stat.  Loop checks compare these.
    pub(super) id: (u64, u64),
    /// A kept path, a loop check's start, mount points below, a kept
    /// stat: `None` where all four are (most directories).
    extra: Option<Box<Extra>>,
    /// What the directory needs once taken: set by [`Node::open`].
    open: OnceLock<Box<Open>>,
}

/// What a directory needs once a worker takes it, and while its
/// children need it.
#[derive(Debug)]
pub(super) struct Open {
    /// (dev, ino) of the directory as opened (`fstat`), where needed: the
    /// post-order visits check a parent reopened by `..` against it.
    pub(super) opened: OnceLock<(u64, u64)>,
    /// The open descriptor kept for the children's `openat`.
    pub(super) fd: Mutex<Option<Arc<OwnedFd>>>,
    /// Children not yet opened: at zero, `fd` is released.
    pub(super) children_left: AtomicUsize,
    /// Post-order: pending work below (own read + subtrees).
    pub(super) pending: AtomicUsize,
    /// The root's device (for `-xdev`).
    pub(super) root_dev: u64,
    /// The length of the starting point at the head of every path below.
    pub(super) root_len: usize,
    /// Whether this directory's entries' symlinks are followed.
    pub(super) is_root: bool,
    /// Whether the walk visits this directory itself (`false`: a slice's
    /// directory, visited by the caller of [`super::walk_slice`]).
    pub(super) visited: bool,
}

impl Open {
    fn new(root_dev: u64, root_len: usize, is_root: bool, visited: bool) -> Open {
        Open {
            opened: OnceLock::new(),
            fd: Mutex::new(None),
            children_left: AtomicUsize::new(0),
            pending: AtomicUsize::new(1),
            root_dev,
            root_len,
            is_root,
            visited,
        }
    }
}

/// Where a directory given as a start sits (see [`Node::start`]).
pub(super) struct StartAt {
    pub(super) depth: usize,
    pub(super) id: (u64, u64),
    pub(super) mounts: MountScope,
    pub(super) root_dev: u64,
    pub(super) root_len: usize,
    pub(super) is_root: bool,
    pub(super) visited: bool,
}

impl Node {
    /// The node of a directory given as a start (a root, a start below
    /// one, a slice's directory): taken at once, so opened whole.
    pub(super) fn start(name: CString, at: StartAt) -> Arc<Node> {
        let extra = match at.mounts {
            MountScope::None => None,
            mounts => Some(Box::new(Extra {
                path: None,
                check_from: None,
                mounts,
                stat: None,
            })),
        };
        let open = OnceLock::new();
        let _ = open.set(Box::new(Open::new(
            at.root_dev,
            at.root_len,
            at.is_root,
            at.visited,
        )));
        Arc::new(Node {
            parent: None,
            name: Name::new(&name),
            depth: at.depth,
            id: at.id,
            extra,
            open,
        })
    }

    /// A subdirectory of `parent` to queue, at `path` (its whole path,
    /// kept on every [`PATH_KEEP`]-th level), reached as `id` with
    /// `check_from` and `mounts` (see [`Extra`]).
    pub(super) fn child(
        parent: &Arc<Node>,
        name: &CStr,
        path: &[u8],
        id: (u64, u64),
        check_from: Option<Weak<Node>>,
        mounts: MountScope,
    ) -> Arc<Node> {
        let depth = parent.depth + 1;
        let path = (depth % PATH_KEEP == 0).then(|| path.into());
        let extra = match (&path, &check_from, &mounts) {
            (None, None, MountScope::None) => None,
            _ => Some(Box::new(Extra {
                path,
                check_from,
                mounts,
                stat: None,
            })),
        };
        Arc::new(Node {
            parent: Some(Arc::clone(parent)),
            name: Name::new(name),
            depth,
            id,
            extra,
            open: OnceLock::new(),
        })
    }

    /// The metadata kept by [`Node::keep_stat`], if any.
    pub(super) fn stat(&self) -> Option<&Metadata> {
        self.extra.as_ref()?.stat.as_ref()
    }

    /// Keeps the directory's metadata as its visit had it, for
    /// [`super::Visitor::listing_stated`] (a node not yet shared).
    pub(super) fn keep_stat(&mut self, stat: Metadata) {
        self.extra
            .get_or_insert_with(|| {
                Box::new(Extra {
                    path: None,
                    check_from: None,
                    mounts: MountScope::None,
                    stat: None,
                })
            })
            .stat = Some(stat);
    }

    /// The name relative to the parent; for a root, the root path.
    pub(super) fn name(&self) -> &CStr {
        self.name.get()
    }

    /// The whole path, if this level keeps it.
    fn kept_path(&self) -> Option<&[u8]> {
        self.extra.as_ref().and_then(|e| e.path.as_deref())
    }

    /// Where the loop check of its subdirectories starts (see [`Extra`]).
    pub(super) fn check_from(&self) -> Option<&Weak<Node>> {
        self.extra.as_ref().and_then(|e| e.check_from.as_ref())
    }

    /// Mount points below this directory.
    pub(super) fn mounts(&self) -> &MountScope {
        const NONE: &MountScope = &MountScope::None;
        self.extra.as_ref().map_or(NONE, |e| &e.mounts)
    }

    /// What the directory needs once taken, made on first use (by the
    /// worker that takes it) from its parent's, which is open: a
    /// subdirectory is queued only by its parent's read.
    pub(super) fn open(&self) -> &Open {
        self.open.get_or_init(|| {
            let p = self.parent.as_ref().expect("a start is made open").open();
            Box::new(Open::new(p.root_dev, p.root_len, false, true))
        })
    }
}
/// A sorted walk's queued directories as records of its spilled queue
/// (`queue.rs`): a group of subdirectories of one directory, each made
/// again when read back with a node of its own for that directory, its
/// *anchor*, which holds its whole path as a root does (no parent:
/// nothing above it is kept for them).
///
/// A group's record: its directory's path (u32 length, bytes), depth,
/// identity, root device and root length (u64 each), then the number of
/// subdirectories (u32), and for each its identity (two u64) and its
/// name (u32 length, bytes).  Little-endian; only this process reads it.
impl Node {
    /// Whether this queued directory can be written as a record and made
    /// again from it: nothing in it but its name, depth, identity and
    /// (every [`PATH_KEEP`] levels) its path, which its anchor gives back.
    /// Not so with a loop check's start or mount points below (the loop
    /// checks walk up the parents, which a restored one does not have),
    /// nor with a kept stat.
    pub(super) fn spillable(&self) -> bool {
        match &self.extra {
            None => true,
            Some(e) => {
                e.check_from.is_none() && matches!(e.mounts, MountScope::None) && e.stat.is_none()
            }
        }
    }
}

/// Appends the record of `children` (each [`Node::spillable`]), the
/// subdirectories of `parent`, whose path is `path`, to `out`.
pub(super) fn encode_group(parent: &Node, path: &[u8], children: &[Arc<Node>], out: &mut Vec<u8>) {
    let p = parent.open();
    out.extend_from_slice(&(path.len() as u32).to_le_bytes());
    out.extend_from_slice(path);
    for n in [
        parent.depth as u64,
        parent.id.0,
        parent.id.1,
        p.root_dev,
        p.root_len as u64,
    ] {
        out.extend_from_slice(&n.to_le_bytes());
    }
    out.extend_from_slice(&(children.len() as u32).to_le_bytes());
    for c in children {
        debug_assert!(c.spillable() && c.depth == parent.depth + 1);
        let name = c.name().to_bytes();
        out.extend_from_slice(&c.id.0.to_le_bytes());
        out.extend_from_slice(&c.id.1.to_le_bytes());
        out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        out.extend_from_slice(name);
    }
}

/// Reads the group record at `*at` of `bytes` (moving `*at` past it),
/// pushing its directories onto `into` in order; returns how many.
///
/// `fd`: the parent's descriptor kept with the record, given to the
/// anchor for its children to open relative to it.
pub(super) fn decode_group(
    bytes: &[u8],
    at: &mut usize,
    fd: Option<Arc<OwnedFd>>,
    into: &mut VecDeque<Arc<Node>>,
) -> usize {
    let mut take = |n: usize| {
        let b = &bytes[*at..*at + n];
        *at += n;
        b
    };
    let u32_at = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize;
    let u64_at = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let len = u32_at(take(4));
    let path = take(len).to_vec();
    let depth = u64_at(take(8)) as usize;
    let id = (u64_at(take(8)), u64_at(take(8)));
    let root_dev = u64_at(take(8));
    let root_len = u64_at(take(8)) as usize;
    let n = u32_at(take(4));
    let anchor = Node::start(
        CString::new(path.clone()).expect("paths have no NUL"),
        StartAt {
            depth,
            id,
            mounts: MountScope::None,
            root_dev,
            root_len,
            is_root: false,
            visited: true,
        },
    );
    // Opened by path from the anchor (it has no descriptor): counted
    // down as they are, as a parent's are.
    anchor.open().children_left.store(n, Ordering::Relaxed);
    *anchor.open().fd.lock().expect("fd lock") = fd;
    let keeps_path = (depth + 1) % PATH_KEEP == 0;
    let mut child_path = Vec::new();
    for _ in 0..n {
        let cid = (u64_at(take(8)), u64_at(take(8)));
        let len = u32_at(take(4));
        let name = CString::new(take(len)).expect("names have no NUL");
        if keeps_path {
            child_path.clear();
            child_path.extend_from_slice(&path);
            if !child_path.is_empty() && !child_path.ends_with(b"/") {
                child_path.push(b'/');
            }
            child_path.extend_from_slice(name.as_bytes());
        }
        into.push_back(Node::child(
            &anchor,
            &name,
            &child_path,
            cid,
            None,
            MountScope::None,
        ));
    }
    n
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
        if let Some(p) = x.kept_path() {
            kept = p;
            break;
        }
        // (`to_bytes` measures the name: once.)
        let name = x.name().to_bytes();
        names.push(name);
        len += name.len() + 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A queued directory's node stays small: on a directory of a
    /// million subdirectories every one of them is queued at once.
    #[test]
    fn a_queued_node_is_small() {
        assert!(
            std::mem::size_of::<Node>() <= 80,
            "{}",
            std::mem::size_of::<Node>()
        );
    }

    /// Short names live in the node, long ones on their own; both read
    /// back as given.
    #[test]
    fn names_read_back() {
        for n in [&b""[..], b"a", &[b'x'; 22], &[b'y'; 23], &[0xff; 200]] {
            let c = CString::new(n).unwrap();
            assert_eq!(Name::new(&c).get(), c.as_c_str());
        }
        assert!(matches!(
            Name::new(&CString::new([b'x'; 22]).unwrap()),
            Name::Inline(_)
        ));
        assert!(matches!(
            Name::new(&CString::new([b'x'; 23]).unwrap()),
            Name::Heap(_)
        ));
    }
}
