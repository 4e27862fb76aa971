//! The deep part of an unsorted walk's queue past its limit: its oldest
//! directories spilled to a temporary file a segment at a time, and read
//! back last in, first out, as the walk gets down to them.
//!
//! The deep directories are taken last in, first out, and only once no
//! shallow one is waiting or being read (`queue.rs`).  A directory at
//! depth 2 of a million subdirectories, in the hybrid order, is shallow
//! and its subdirectories deep: while it is read none of them may be
//! taken, so the read's hand-off and help (`read.rs`) cannot keep the
//! queue short, and it held them all, about 128 bytes each (GNU find's
//! fts holds 100,000 entries at a time).  Past [`DEEP_LIMIT`] the oldest
//! ones, at the bottom of the stack, go to the file as records of their
//! names and identities (about 30 bytes each, on disk), and come back a
//! segment at a time once those in memory are all taken: the order is
//! the one they would have been taken in, exactly.
//!
//! Unlike the sorted walk's spilled queue (`queue.rs`, `Spilled`), whose
//! directories come back under an anchor that stands for their parent,
//! a directory spilled here keeps its parent node, held in memory once
//! for each run of siblings: the deep queue's parents are few (the
//! directories whose subdirectories wait), and with its parent a
//! directory read back is the node it was: its path, its parent's kept
//! descriptor and its post-order count work through it as before, in
//! every walk form.  So do its loop checks and its mount points below,
//! which follow from its parent's (below a mount point or a followed
//! link, where the sorted walk's spill keeps its directories in memory):
//! a byte of the record says how ([`Derived`]).

use std::collections::VecDeque;
use std::ffi::CString;
use std::sync::{Arc, Weak};

use crate::spill::SpillFile;
use crate::{Error, ErrorKind, Operation};

use super::mounts::{child_canon, MountScope};
use super::node::{build_path, Node, PATH_KEEP};

/// Deep directories an unsorted walk keeps queued in memory at most;
/// past it the oldest are spilled, keeping the newest half.
///
/// Above the read's own bound (`QUEUE_HIGH` in `read.rs`, 16,384, past
/// which a reader stops to read queued directories itself until half are
/// left): where the workers may take the deep directories the queue
/// stays near that without the file; the file takes what they may not.
pub(super) const DEEP_LIMIT: usize = 24 * 1024;

/// A run's first byte: siblings written as records.
const GROUP: u8 = 0;
/// A run's first byte: the next of [`Segment::kept`].
const KEPT: u8 = 1;

/// The spilled part of the deep queue: a stack of segments, each the
/// bottom of the in-memory stack when it was spilled.
pub(super) struct DeepSpill {
    /// The temporary file, made on first use.
    file: SpillFile,
    /// The segments, the last one on top (the next read back).
    segments: Vec<Segment>,
    /// Directories spilled and not yet read back.
    pub(super) dirs: usize,
    /// Directories kept in memory at most.
    limit: usize,
    /// Directories written as records, in all (those kept in memory in
    /// their place not counted).
    pub(super) total: u64,
    /// Segments read back from the file so far.
    reads: u64,
    /// A test knob ([`super::WalkOptions::test_queue_read_fail`]): the
    /// read back from the file numbered this (from 0) fails.
    fail_read: Option<u64>,
    /// A segment's bytes, read back (kept for its capacity).
    buf: Vec<u8>,
}

/// Part of the spilled deep queue: runs of siblings as records, and the
/// directories that cannot be records (see [`Derived`]) kept in
/// memory in their place.
struct Segment {
    place: Place,
    /// Directories in it.
    dirs: usize,
    /// Each [`GROUP`] run's parent and directories, in order.
    parents: Vec<(Arc<Node>, usize)>,
    /// Each [`KEPT`] run, in order.
    kept: Vec<Vec<Arc<Node>>>,
}

/// Where a segment's records are.
enum Place {
    /// In the file: offset and length.
    File { at: u64, len: usize },
    /// In memory: the file could not take them (nothing is lost, only
    /// memory).
    Mem(Vec<u8>),
}

/// A segment of a spilled queue that could not be read back.
pub(super) struct Lost {
    /// The failed read's error.
    pub(super) error: std::io::Error,
    /// Directories in it, not walked.
    pub(super) dirs: usize,
    /// Kept descriptors of their parents, closed with it: to give back
    /// to the walk's budget (a sorted walk's spilled groups keep them).
    pub(super) fds: usize,
}

impl Lost {
    /// The walk's error for it, at `dir`, the temporary file's directory
    /// ([`Operation::ReadBack`]).
    pub(super) fn into_error(self, dir: &std::path::Path) -> Error {
        let dirs_lost = self.dirs as u64;
        let io = std::io::Error::new(
            self.error.kind(),
            ReadBackError {
                dirs: dirs_lost,
                cause: self.error,
            },
        );
        let path = dir.as_os_str().as_encoded_bytes().to_vec();
        Error::new(
            path,
            0,
            Operation::ReadBack { dirs_lost },
            ErrorKind::Io(io),
        )
    }
}

/// The cause of an [`Operation::ReadBack`] error: its message says what
/// was lost, then the failed read's own words (its source).
#[derive(Debug)]
struct ReadBackError {
    dirs: u64,
    cause: std::io::Error,
}

impl std::fmt::Display for ReadBackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the walk's queue could not be read back from its temporary file here, \
             {} directories not walked: {}",
            self.dirs,
            crate::describe(&self.cause)
        )
    }
}

impl std::error::Error for ReadBackError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.cause)
    }
}

/// A segment of the deep queue that could not be read back: its
/// directories' parents, each with how many of its subdirectories were
/// lost, to count them done (`post.rs`, `Shared::settle_lost`).
pub(super) struct LostDeep {
    pub(super) lost: Lost,
    pub(super) parents: Vec<(Arc<Node>, usize)>,
}

impl DeepSpill {
    /// A spilled deep queue keeping up to `limit` directories in memory.
    pub(super) fn new(limit: usize, fail_read: Option<u64>) -> DeepSpill {
        DeepSpill {
            file: SpillFile::default(),
            segments: Vec::new(),
            dirs: 0,
            limit: limit.max(1),
            total: 0,
            reads: 0,
            fail_read,
            buf: Vec::new(),
        }
    }

    /// Spills the oldest directories of `deep` (the in-memory stack, its
    /// top at the back) if it holds more than the limit, keeping the
    /// newest half of the limit.
    pub(super) fn spill_past_limit(&mut self, deep: &mut VecDeque<Arc<Node>>) {
        if deep.len() <= self.limit {
            return;
        }
        let n = deep.len() - self.limit / 2;
        let mut seg = Segment {
            place: Place::Mem(Vec::new()),
            dirs: n,
            parents: Vec::new(),
            kept: Vec::new(),
        };
        let mut bytes = Vec::new();
        let mut run = None::<u8>;
        let mut records = 0;
        for node in deep.drain(..n) {
            let record = node
                .parent
                .as_ref()
                .and_then(|p| Some((p, Derived::of(&node, p)?)));
            match record {
                Some((parent, derived)) => {
                    let same = run == Some(GROUP)
                        && seg
                            .parents
                            .last()
                            .is_some_and(|(p, _)| Arc::ptr_eq(p, parent));
                    if !same {
                        bytes.push(GROUP);
                        seg.parents.push((Arc::clone(parent), 0));
                        run = Some(GROUP);
                    }
                    let name = node.name().to_bytes();
                    bytes.extend_from_slice(&node.id.0.to_le_bytes());
                    bytes.extend_from_slice(&node.id.1.to_le_bytes());
                    bytes.push(derived);
                    bytes.extend_from_slice(&(name.len() as u32).to_le_bytes());
                    bytes.extend_from_slice(name);
                    seg.parents.last_mut().expect("a group").1 += 1;
                    records += 1;
                }
                None => {
                    if run == Some(KEPT) {
                        seg.kept.last_mut().expect("a kept run").push(node);
                    } else {
                        bytes.push(KEPT);
                        seg.kept.push(vec![node]);
                        run = Some(KEPT);
                    }
                }
            }
        }
        seg.place = match self.file.write(&bytes) {
            Some(at) => Place::File {
                at,
                len: bytes.len(),
            },
            None => Place::Mem(bytes),
        };
        self.dirs += n;
        self.total += records;
        self.segments.push(seg);
    }

    /// Reads the last segment back onto `into` (the in-memory stack,
    /// empty: the segment's order is the stack's); where it cannot be
    /// read, only its kept runs go there, and what is lost is returned.
    ///
    /// As with a sorted walk's spilled queue (`Spilled::refill` in
    /// `queue.rs`), a segment's records are its directories' only trace:
    /// the loss is counted and reported, and the walk goes on.
    pub(super) fn refill(&mut self, into: &mut VecDeque<Arc<Node>>) -> Option<LostDeep> {
        let seg = self.segments.pop()?;
        self.dirs -= seg.dirs;
        let (bytes, from_file) = match seg.place {
            Place::Mem(b) => (b, false),
            Place::File { at, len } => {
                let mut b = std::mem::take(&mut self.buf);
                let read = read_segment(
                    &self.file,
                    (at, len),
                    &mut b,
                    &mut self.reads,
                    self.fail_read,
                );
                // The top of the stack: the next segment goes here.
                self.file.truncate(at);
                if let Err(error) = read {
                    self.buf = b;
                    let mut kept_dirs = 0;
                    for run in seg.kept {
                        kept_dirs += run.len();
                        into.extend(run);
                    }
                    return Some(LostDeep {
                        lost: Lost {
                            error,
                            dirs: seg.dirs - kept_dirs,
                            fds: 0,
                        },
                        parents: seg.parents,
                    });
                }
                (b, true)
            }
        };
        let mut parents = seg.parents.into_iter();
        let mut kept = seg.kept.into_iter();
        let mut at = 0;
        while at < bytes.len() {
            let kind = bytes[at];
            at += 1;
            if kind == KEPT {
                into.extend(kept.next().expect("a kept run for each mark"));
            } else {
                let (parent, n) = parents.next().expect("a parent for each group");
                decode_group(&bytes, &mut at, &parent, n, into);
            }
        }
        if from_file {
            self.buf = bytes;
        }
        None
    }

    /// Drops what is spilled: the walk stops, nothing more is taken.
    pub(super) fn clear(&mut self) {
        self.segments.clear();
        self.dirs = 0;
        self.file.clear();
    }

    /// The directory the temporary file is in.
    pub(super) fn dir(&self) -> std::path::PathBuf {
        self.file.dir()
    }
}

/// Reads the segment of `len` bytes at `at` of `file` into `buf`, as
/// read back number `*reads` (counted), failing as an I/O error (`EIO`)
/// would where the test knob `fail_read` names that number
/// ([`super::WalkOptions::test_queue_read_fail`]).
pub(super) fn read_segment(
    file: &SpillFile,
    (at, len): (u64, usize),
    buf: &mut Vec<u8>,
    reads: &mut u64,
    fail_read: Option<u64>,
) -> std::io::Result<()> {
    buf.resize(len, 0);
    let n = *reads;
    *reads += 1;
    if fail_read == Some(n) {
        return Err(std::io::Error::from_raw_os_error(libc::EIO));
    }
    file.read_at(at, buf)
}

/// How a spilled directory's loop-check start and mount scope follow
/// from its parent's: a byte of its record, two bits each.
///
/// A subdirectory's loop checks start at its parent where it is itself
/// a crossing (a mount point, a followed link), else where its parent's
/// start (`loops.rs`, `Shared::closes_loop`); its mount scope is none,
/// unknown, or below its canonical path, its parent's and its name.  A
/// directory for which they do not so follow, or that keeps a stat
/// (see [`Node::keep_stat`]), stays in memory.
struct Derived;

impl Derived {
    const FROM_NONE: u8 = 0;
    const FROM_PARENTS: u8 = 1;
    const FROM_PARENT: u8 = 2;
    const MOUNTS_NONE: u8 = 0;
    const MOUNTS_UNKNOWN: u8 = 1 << 2;
    const MOUNTS_BELOW: u8 = 2 << 2;

    /// The byte for `node`, a subdirectory of `parent`; `None` where
    /// it cannot be made again from its record.
    fn of(node: &Node, parent: &Arc<Node>) -> Option<u8> {
        if node.stat().is_some() {
            return None;
        }
        let from = match node.check_from() {
            None => Self::FROM_NONE,
            Some(w) if parent.check_from().is_some_and(|p| Weak::ptr_eq(w, p)) => {
                Self::FROM_PARENTS
            }
            Some(w) if std::ptr::eq(w.as_ptr(), Arc::as_ptr(parent)) => Self::FROM_PARENT,
            Some(_) => return None,
        };
        let mounts = match (node.mounts(), parent.mounts()) {
            (MountScope::None, _) => Self::MOUNTS_NONE,
            (MountScope::Unknown, _) => Self::MOUNTS_UNKNOWN,
            (MountScope::Below(c), MountScope::Below(p))
                if **c == *child_canon(p, node.name().to_bytes()) =>
            {
                Self::MOUNTS_BELOW
            }
            (MountScope::Below(_), _) => return None,
        };
        Some(from | mounts)
    }

    /// The loop-check start and mount scope the byte `d` says, for the
    /// subdirectory `name` of `parent` (whose canonical path is `canon`
    /// where its mount scope has one).
    fn apply(
        d: u8,
        parent: &Arc<Node>,
        canon: Option<&[u8]>,
        name: &[u8],
    ) -> (Option<Weak<Node>>, MountScope) {
        let from = match d & 3 {
            Self::FROM_PARENTS => parent.check_from().cloned(),
            Self::FROM_PARENT => Some(Arc::downgrade(parent)),
            _ => None,
        };
        let mounts = match d & !3 {
            Self::MOUNTS_UNKNOWN => MountScope::Unknown,
            Self::MOUNTS_BELOW => {
                let canon = canon.expect("a parent with mount points below has its path");
                MountScope::Below(child_canon(canon, name).into())
            }
            _ => MountScope::None,
        };
        (from, mounts)
    }
}

/// Reads the group at `*at` of `bytes`, the `n` subdirectories of
/// `parent` (its count is kept with it in the segment's `parents`, not
/// in the bytes), onto `into` in order.
fn decode_group(
    bytes: &[u8],
    at: &mut usize,
    parent: &Arc<Node>,
    n: usize,
    into: &mut VecDeque<Arc<Node>>,
) {
    let mut take = |len: usize| {
        let b = &bytes[*at..*at + len];
        *at += len;
        b
    };
    let u32_at = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize;
    let u64_at = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let canon = match parent.mounts() {
        MountScope::Below(c) => Some(&**c),
        _ => None,
    };
    // Every PATH_KEEP levels a directory keeps its whole path.
    let parent_path = ((parent.depth + 1) % PATH_KEEP == 0).then(|| build_path(parent));
    let mut path = Vec::new();
    for _ in 0..n {
        let id = (u64_at(take(8)), u64_at(take(8)));
        let derived = take(1)[0];
        let len = u32_at(take(4));
        let name = CString::new(take(len)).expect("names have no NUL");
        let (check_from, mounts) = Derived::apply(derived, parent, canon, name.as_bytes());
        if let Some(p) = &parent_path {
            path.clear();
            path.extend_from_slice(p);
            if !path.is_empty() && !path.ends_with(b"/") {
                path.push(b'/');
            }
            path.extend_from_slice(name.as_bytes());
        }
        into.push_back(Node::child(parent, &name, &path, id, check_from, mounts));
    }
}
