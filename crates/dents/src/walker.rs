//! The walker API: [`crate::Walker`], a builder over [`crate::walk::walk`]
//! with three ways to take the entries (the crate docs set them side by
//! side), and the entries they give.
//!
//! ```
//! use dents::Walker;
//! # fn main() -> Result<(), dents::Error> {
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::create_dir(dir.path().join("sub")).unwrap();
//! std::fs::write(dir.path().join("sub/file"), b"").unwrap();
//!
//! let mut paths = Vec::new();
//! for entry in Walker::new(dir.path()).min_depth(1) {
//!     paths.push(entry?.path().strip_prefix(dir.path()).unwrap().to_owned());
//! }
//! paths.sort();
//! assert_eq!(paths, ["sub", "sub/file"].map(std::path::PathBuf::from));
//! # Ok(())
//! # }
//! ```

use std::ffi::{CStr, CString, OsStr};
use std::io;
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::error::{Error, ErrorKind, Operation};
use crate::file_type::FileType;
use crate::fs;
use crate::metadata::{Metadata, StatFields};
use crate::stats::Stats;
use crate::walk::{self, Order, Visit, Visitor, WalkOptions};

use crate::flow::Flow;
use crate::follow::Follow;

/// Entries the iterator's channel holds by default.
const DEFAULT_CAPACITY: usize = 1024;

/// The most entries one message of the iterator's channel carries.  A
/// message per entry cost a futex call for every two or three entries
/// (the consumer waking for each); per batch, those calls all but go,
/// and 128 entries of a batch (about 30 KiB) stay in the caches.
const MAX_BATCH: usize = 128;

/// How a channel of `capacity` entries is cut: entries per batch (an
/// eighth of the capacity, so that several batches are in flight, at
/// most [`MAX_BATCH`]) and batches the channel holds.
fn batch_plan(capacity: usize) -> (usize, usize) {
    let batch = (capacity / 8).clamp(1, MAX_BATCH);
    (batch, capacity.div_ceil(batch))
}

/// A walk to be run: its starting points and options (a builder).
///
/// Every option has a default that walks the whole of every tree, on
/// [`crate::walk::default_threads`] workers, in the default order
/// ([`crate::walk::Order::Hybrid`]: the top levels first), directories
/// before their contents, symlinks not followed.  Run it with one of the
/// three forms: `for entry in walker` ([`Walker::into_iter`]),
/// [`Walker::for_each`], [`Walker::visit`].
///
/// ```
/// use dents::{Follow, Walker};
/// let dir = tempfile::tempdir().unwrap();
/// let walker = Walker::new(dir.path())
///     .threads(2)
///     .max_depth(3)
///     .follow_links(Follow::Never)
///     .same_file_system(true)
///     .sort_by_name(true);
/// let entries: Vec<_> = walker.into_iter().collect::<Result<_, _>>().unwrap();
/// assert_eq!(entries.len(), 1); // the root alone
/// assert_eq!(entries[0].depth(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct Walker {
    roots: Vec<Vec<u8>>,
    opts: WalkOptions,
    fields: Option<StatFields>,
    capacity: usize,
    /// walkdir's order: each directory's entries right after it (see
    /// [`Walker::sort_by_file_name`]), sorted by this if set.
    preorder: Option<Option<Comparator>>,
}

/// [`Walker::sort_by`]'s comparison, called on the iterator's thread.
type CompareFn = dyn FnMut(&DirEntry, &DirEntry) -> std::cmp::Ordering + Send;

/// A [`CompareFn`] the clones of a [`Walker`] share.
#[derive(Clone)]
struct Comparator(Arc<std::sync::Mutex<Box<CompareFn>>>);

impl std::fmt::Debug for Comparator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Comparator")
    }
}

impl Walker {
    /// A walk of the tree under `root` (the root included, at depth 0).
    ///
    /// Paths of entries start with `root` exactly as given, joined to the
    /// names below it with `/`.  Any name works, UTF-8 or not: pass
    /// `OsStr::from_bytes(b"...")` for raw bytes.
    pub fn new<P: AsRef<Path>>(root: P) -> Walker {
        Walker {
            roots: vec![root.as_ref().as_os_str().as_bytes().to_vec()],
            opts: WalkOptions::default(),
            fields: None,
            capacity: DEFAULT_CAPACITY,
            preorder: None,
        }
    }

    /// A walk of several trees at once (sharing the workers), in the order
    /// given (sorted, with [`Walker::sort_by_name`]).  No root: nothing
    /// is walked.
    ///
    /// ```
    /// let a = tempfile::tempdir().unwrap();
    /// let b = tempfile::tempdir().unwrap();
    /// let n = dents::Walker::from_roots([a.path(), b.path()]).into_iter().count();
    /// assert_eq!(n, 2);
    /// ```
    pub fn from_roots<I>(roots: I) -> Walker
    where
        I: IntoIterator,
        I::Item: AsRef<Path>,
    {
        let mut w = Walker::new("");
        w.roots = roots
            .into_iter()
            .map(|r| r.as_ref().as_os_str().as_bytes().to_vec())
            .collect();
        w
    }

    /// Adds another starting point.
    pub fn root<P: AsRef<Path>>(mut self, root: P) -> Walker {
        self.roots
            .push(root.as_ref().as_os_str().as_bytes().to_vec());
        self
    }

    /// Worker threads; 0 for the default ([`crate::walk::default_threads`]:
    /// four per core, as reads block on the disk, of which one more than
    /// the cores start at first and the rest once a read waits on the
    /// disk).  A number given here starts them all as work is found.
    pub fn threads(mut self, n: usize) -> Walker {
        self.opts = self.opts.threads(n);
        self
    }

    /// Entries deeper than `depth` are neither yielded nor, for
    /// directories at `depth`, read (roots are at depth 0).
    pub fn max_depth(mut self, depth: usize) -> Walker {
        self.opts.max_depth = depth;
        self
    }

    /// Entries shallower than `depth` are not yielded (their directories
    /// are still read): `min_depth(1)` leaves the roots out.
    pub fn min_depth(mut self, depth: usize) -> Walker {
        self.opts.min_depth = depth;
        self
    }

    /// Which symlinks are followed: [`Follow::Never`] (the default: a
    /// link is an entry of its own), [`Follow::Roots`] (links given as
    /// roots), [`Follow::Always`] (links to directories are walked, and
    /// loops back to an ancestor reported as [`ErrorKind::Loop`]).  A
    /// `bool` works too, as walkdir's `follow_links` takes it: `true` is
    /// [`Follow::Always`], `false` [`Follow::Never`].
    ///
    /// A link that cannot be followed (its target missing, or a file
    /// where a directory should be on the way to it) is no error: it is
    /// an entry of its own, typed [`FileType::SYMLINK`], its metadata the
    /// link's, as find's `-L` takes it.
    ///
    /// ```
    /// use dents::{FileType, Follow, StatFields, Walker};
    /// let dir = tempfile::tempdir().unwrap();
    /// std::os::unix::fs::symlink("nowhere", dir.path().join("broken")).unwrap();
    /// let walker = Walker::new(dir.path())
    ///     .min_depth(1)
    ///     .follow_links(Follow::Always)
    ///     .stat_fields(StatFields::BASIC);
    /// let entries: Vec<_> = walker.into_iter().collect::<Result<_, _>>().unwrap();
    /// assert_eq!(entries.len(), 1);
    /// assert_eq!(entries[0].file_type(), FileType::SYMLINK);
    /// assert!(entries[0].metadata().unwrap().is_symlink());
    /// ```
    pub fn follow_links(mut self, follow: impl Into<Follow>) -> Walker {
        self.opts.follow = follow.into();
        self
    }

    /// With `true`, directories on another filesystem than their root's
    /// are yielded but not read (find's `-xdev`).
    pub fn same_file_system(mut self, yes: bool) -> Walker {
        self.opts.same_fs = yes;
        self
    }

    /// Read directories depth first (as far as several workers allow:
    /// exactly with one thread or [`Walker::sort_by_name`]).
    pub fn depth_first(mut self) -> Walker {
        self.opts.order = Order::DepthFirst;
        self
    }

    /// Read directories breadth first: every entry in level order (as far
    /// as several workers allow: exactly with one thread or
    /// [`Walker::sort_by_name`]).  The default order already gives the top
    /// three levels first, for less CPU ([`Order::Hybrid`]).
    pub fn breadth_first(mut self) -> Walker {
        self.opts.order = Order::BreadthFirst;
        self
    }

    /// With `true`, a directory is yielded after everything below it
    /// (post-order: what deleting a tree needs), instead of before.
    pub fn contents_first(mut self, yes: bool) -> Walker {
        self.opts.post_order = yes;
        self
    }

    /// With `true`, each directory's entries come sorted by name (as
    /// bytes), in an order that does not depend on the threads: breadth
    /// first, level by level; depth first, as a one-thread walk.  Costs
    /// parallelism in the visits (see [`crate::walk`]'s sorted walks).
    pub fn sort_by_name(mut self, yes: bool) -> Walker {
        self.opts.sort = yes;
        self
    }

    /// Entries in walkdir's sorted order: depth first, each directory's
    /// entries, sorted by name (as bytes), right after it, as
    /// `walkdir::WalkDir::sort_by_file_name` gives them (the iterator
    /// only; the closure and visitor forms take [`Walker::sort_by_name`]'s
    /// order).
    ///
    /// Directories are read by one worker, depth first, and each
    /// directory's entries are handed over together, so memory holds the
    /// entries still to come of the directories open on the way down, as
    /// walkdir's does.  With [`Walker::contents_first`], the order is
    /// [`Walker::sort_by_name`]'s.
    pub fn sort_by_file_name(mut self) -> Walker {
        self.preorder = Some(None);
        self.sort_by_name(true)
    }

    /// Entries in walkdir's order (see [`Walker::sort_by_file_name`]),
    /// each directory's sorted by `cmp` rather than by name (walkdir's
    /// `sort_by`).  `cmp` runs on the iterator's thread, once a
    /// directory's entries are all there; a directory's errors come
    /// before its entries.  The walk still reads directories in name
    /// order, so the entries of those it read before their turn are held
    /// in memory until then (all of a tree, at worst).  With
    /// [`Walker::min_depth`] above 1, the entries of directories above it
    /// come in groups ordered by their directory's path, not by `cmp`.
    ///
    /// ```
    /// use dents::Walker;
    /// let dir = tempfile::tempdir().unwrap();
    /// for (name, len) in [("a", 3), ("b", 1), ("c", 2)] {
    ///     std::fs::write(dir.path().join(name), vec![0u8; len]).unwrap();
    /// }
    /// let by_size: Vec<_> = Walker::new(dir.path())
    ///     .min_depth(1)
    ///     .sort_by(|x, y| x.metadata().unwrap().len().cmp(&y.metadata().unwrap().len()))
    ///     .into_iter()
    ///     .map(|e| e.unwrap().file_name().to_owned())
    ///     .collect();
    /// assert_eq!(by_size, ["b", "c", "a"]);
    /// ```
    pub fn sort_by<F>(mut self, cmp: F) -> Walker
    where
        F: FnMut(&DirEntry, &DirEntry) -> std::cmp::Ordering + Send + Sync + 'static,
    {
        self.preorder = Some(Some(Comparator(Arc::new(std::sync::Mutex::new(Box::new(
            cmp,
        ))))));
        self.sort_by_name(true)
    }

    /// Which fields a stat fetches.
    ///
    /// The closure and visitor forms stat an entry only when asked
    /// ([`Entry::metadata`]); by default they fetch
    /// [`StatFields::BASIC`].  The iterator's entries carry metadata only
    /// when this is set: every entry is then stat'ed on the workers with
    /// these fields, and [`DirEntry::metadata`] gives the result.  A stat
    /// that fails (an entry that vanished, or one in a directory that can
    /// be read but not searched) does not lose the entry: it is yielded,
    /// and its [`DirEntry::metadata`] is the [`Error`]
    /// ([`Operation::Stat`]).  Without this, [`DirEntry::metadata`] stats
    /// on the caller's thread, by path, when called.
    pub fn stat_fields(mut self, fields: StatFields) -> Walker {
        self.fields = Some(fields);
        self
    }

    /// Entries (and errors) the iterator's channel holds before the walk
    /// waits for the consumer (default 1024; at least 1).  Memory grows
    /// with this, not with the tree.
    ///
    /// The count is of entries, not of messages: the workers hand
    /// entries over in batches of an eighth of this (at most 128; one
    /// entry at a time below 16), and each worker fills one batch while
    /// the channel is full, so at most `entries` plus one batch per
    /// worker are held ahead of the consumer.  A batch goes as soon as it
    /// is full, or when its worker is about to wait for work, ends a turn
    /// whose order others must follow, or ends the walk: entries may
    /// reach the consumer up to a batch later than they were read.
    pub fn channel_capacity(mut self, entries: usize) -> Walker {
        self.capacity = entries.max(1);
        self
    }

    /// The starting points, as bytes.
    pub fn roots(&self) -> impl Iterator<Item = &[u8]> {
        self.roots.iter().map(|r| r.as_slice())
    }

    /// The walk's options as the low-level [`crate::walk::walk`] takes
    /// them.
    fn walk_options(&self) -> WalkOptions {
        let mut opts = self.opts.clone();
        opts.stat_mask = self.fields.unwrap_or(StatFields::BASIC);
        opts
    }

    /// Runs the walk with a [`Visitor`] of your own: the low-level form,
    /// with per-worker state (an output buffer, counters) and
    /// [`Visitor::excluded`] to leave subtrees out before they are read.
    ///
    /// A panic of the visitor ends the walk as one of
    /// [`Walker::for_each`]'s closure does: it goes on from here.
    ///
    /// `Entry::from(visit)` gives the comfortable view of a visit; a
    /// visitor hears of problems as the other forms do, as an [`Error`].
    ///
    /// ```
    /// use dents::walk::{Visit, Visitor};
    /// use dents::{Entry, Error, Flow, Walker};
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// /// Adds up the sizes of regular files, with a per-worker subtotal.
    /// struct Size(AtomicU64);
    /// impl Visitor for Size {
    ///     type State = u64;
    ///     fn state(&self) -> u64 { 0 }
    ///     fn visit(&self, subtotal: &mut u64, v: &Visit<'_>) -> Flow {
    ///         let e = Entry::from(v);
    ///         if e.file_type().is_file() {
    ///             *subtotal += e.metadata().map_or(0, |m| m.len());
    ///         }
    ///         Flow::Continue
    ///     }
    ///     fn error(&self, _: &mut u64, e: Error) { panic!("{e}") }
    ///     fn finish(&self, subtotal: u64) { self.0.fetch_add(subtotal, Ordering::Relaxed); }
    /// }
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a"), [0u8; 100]).unwrap();
    /// std::fs::write(dir.path().join("b"), [0u8; 20]).unwrap();
    /// let size = Size(AtomicU64::new(0));
    /// let stats = Walker::new(dir.path()).visit(&size);
    /// assert_eq!(size.0.into_inner(), 120);
    /// assert_eq!(stats.dirs_read, 1);
    /// ```
    pub fn visit<V: Visitor>(&self, visitor: &V) -> Stats {
        walk::walk(&self.roots, &self.walk_options(), visitor)
    }

    /// Runs the walk, calling `f` with every entry (`Ok`) and every
    /// problem met (`Err`), on the walk's worker threads: several calls
    /// run at once, so `f` is `Fn + Sync` (gather results through an
    /// atomic, a `Mutex`, a channel).  `f` says how to go on:
    /// [`Flow::Continue`], [`Flow::Prune`] (not into this directory),
    /// [`Flow::Quit`] (stop the walk).  Returns when the walk is done.
    /// If `f` panics, on whichever thread, the walk stops, its threads
    /// end and its descriptors are closed, and the panic goes on from
    /// here with its own payload.
    ///
    /// ```
    /// use dents::{Flow, Walker};
    /// use std::sync::Mutex;
    /// let dir = tempfile::tempdir().unwrap();
    /// for d in ["keep", "skip"] {
    ///     std::fs::create_dir(dir.path().join(d)).unwrap();
    ///     std::fs::write(dir.path().join(d).join("f"), b"").unwrap();
    /// }
    /// let names = Mutex::new(Vec::new());
    /// let stats = Walker::new(dir.path()).min_depth(1).for_each(|entry| {
    ///     let entry = match entry {
    ///         Ok(entry) => entry,
    ///         Err(err) => { eprintln!("{err}"); return Flow::Continue; }
    ///     };
    ///     names.lock().unwrap().push(entry.path().strip_prefix(dir.path()).unwrap().to_owned());
    ///     if entry.file_name() == "skip" { Flow::Prune } else { Flow::Continue }
    /// });
    /// let mut names = names.into_inner().unwrap();
    /// names.sort();
    /// assert_eq!(names, ["keep", "keep/f", "skip"].map(std::path::PathBuf::from));
    /// assert_eq!(stats.dirs_read, 2); // the root and keep
    /// ```
    pub fn for_each<F>(&self, f: F) -> Stats
    where
        F: Fn(Result<Entry<'_>, Error>) -> Flow + Sync,
    {
        let visitor = ClosureVisitor {
            f,
            quit: AtomicBool::new(false),
        };
        self.visit(&visitor)
    }
}

impl IntoIterator for &Walker {
    type Item = Result<DirEntry, Error>;
    type IntoIter = IntoIter;

    /// A walk with a copy of these options (see [`IntoIter`]).
    fn into_iter(self) -> IntoIter {
        IntoIter::new(self.clone())
    }
}

impl IntoIterator for Walker {
    type Item = Result<DirEntry, Error>;
    type IntoIter = IntoIter;

    /// The iterator of the walk's entries and errors (see [`IntoIter`]):
    /// the walk starts on background threads at its first
    /// [`Iterator::next`].
    fn into_iter(self) -> IntoIter {
        IntoIter::new(self)
    }
}

/// One entry as the walk's workers see it, borrowed for the time of a
/// visit ([`Walker::for_each`], or `Entry::from(visit)` in a
/// [`Visitor`]).
///
/// Nothing is copied: the path is the walk's buffer, and the metadata is
/// fetched on first use (once), with the walk's [`StatFields`].
/// [`Entry::to_dir_entry`] makes a [`DirEntry`] to keep.
#[derive(Clone, Copy, Debug)]
pub struct Entry<'a> {
    visit: &'a Visit<'a>,
}

impl<'a> From<&'a Visit<'a>> for Entry<'a> {
    fn from(visit: &'a Visit<'a>) -> Entry<'a> {
        Entry { visit }
    }
}

impl<'a> Entry<'a> {
    /// The path: the root as given, then the names below it joined with
    /// `/`.
    pub fn path(&self) -> &'a Path {
        Path::new(OsStr::from_bytes(self.visit.path()))
    }

    /// [`Entry::path`] as bytes.
    pub fn path_bytes(&self) -> &'a [u8] {
        self.visit.path()
    }

    /// The last name of the path (for a root: the root as given).
    pub fn file_name(&self) -> &'a OsStr {
        OsStr::from_bytes(self.visit.name())
    }

    /// [`Entry::file_name`] as bytes.
    pub fn file_name_bytes(&self) -> &'a [u8] {
        self.visit.name()
    }

    /// How deep below its root the entry lies (roots are 0).
    pub fn depth(&self) -> usize {
        self.visit.depth()
    }

    /// The file type: from the directory entry where the filesystem said,
    /// else from a stat (of the target, for a symlink the walk follows).
    pub fn file_type(&self) -> FileType {
        self.visit.file_type()
    }

    /// Whether this is a directory (see [`Entry::file_type`]).
    pub fn is_dir(&self) -> bool {
        self.file_type().is_dir()
    }

    /// The inode number, from the directory entry (for a directory's
    /// visit after its contents, from its metadata: the walk no longer
    /// holds its entry then).
    pub fn ino(&self) -> u64 {
        match self.visit.ino() {
            0 if self.visit.is_post_order() => self.visit_ino_from_stat(),
            ino => ino,
        }
    }

    fn visit_ino_from_stat(&self) -> u64 {
        self.metadata().map_or(0, |m| m.ino())
    }

    /// The entry's metadata, stat'ed once on first use with the walk's
    /// [`StatFields`] (of the target, for a symlink the walk follows, or
    /// the link itself if it is broken).
    pub fn metadata(&self) -> std::io::Result<Metadata> {
        self.visit.metadata().cloned()
    }

    /// The metadata of the entry itself, never following a symlink (a
    /// new stat at each call).
    pub fn symlink_metadata(&self) -> std::io::Result<Metadata> {
        self.visit.link_metadata()
    }

    /// Whether this is a directory's visit after its contents (with
    /// [`Walker::contents_first`]).
    pub fn is_contents_first_visit(&self) -> bool {
        self.visit.is_post_order()
    }

    /// Whether the entry itself is a symlink, whether or not the walk
    /// follows it ([`Entry::file_type`] is then its target's): its path
    /// names a link.  Free where the directory entry said; an `lstat`
    /// otherwise (a followed entry whose type the walk learnt from its
    /// target, a root under [`Follow::Roots`] or [`Follow::Always`]).
    pub fn path_is_symlink(&self) -> bool {
        match link_known(self.visit) {
            Some(link) => link,
            None => self.visit.link_metadata().is_ok_and(|m| m.is_symlink()),
        }
    }

    /// The directory holding the entry, open, for `*at` system calls with
    /// [`Entry::at_name`] (the current directory, for a root).
    pub fn parent_fd(&self) -> BorrowedFd<'a> {
        self.visit.parent_fd()
    }

    /// The name to give `*at` system calls with [`Entry::parent_fd`].
    pub fn at_name(&self) -> &'a CStr {
        self.visit.at_name()
    }

    /// The low-level view of the same visit.
    pub fn as_visit(&self) -> &'a Visit<'a> {
        self.visit
    }

    /// An owned copy of what is known of the entry: path, depth, type and
    /// inode number ([`DirEntry::metadata`] stats by path when called,
    /// with [`StatFields::BASIC`]).
    pub fn to_dir_entry(&self) -> DirEntry {
        let v = self.visit;
        DirEntry {
            name_start: v.path().len() - v.name().len(),
            path: v.path().to_vec(),
            depth: v.depth(),
            file_type: v.file_type(),
            ino: self.ino(),
            post_order: v.is_post_order(),
            follow: v.follows_links(),
            link: link_known(v),
            fields: StatFields::BASIC,
            metadata: None,
        }
    }
}

/// Whether a visit's path is a symlink, if that is known without a
/// system call: always when the walk does not follow it (its type is the
/// link's own); when it does, only if the directory entry said it is a
/// link (a type learnt from a stat is the target's).
fn link_known(v: &Visit<'_>) -> Option<bool> {
    if !v.follows_links() {
        return Some(v.file_type() == FileType::SYMLINK);
    }
    (v.known_type() == Some(FileType::SYMLINK)).then_some(true)
}

/// One entry of the walk, owned: what the iterator yields.
///
/// It carries what the walk knew of the entry: its path, depth, type and
/// inode number, and the outcome of its stat when the walk was asked for
/// stat fields ([`Walker::stat_fields`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    path: Vec<u8>,
    name_start: usize,
    depth: usize,
    file_type: FileType,
    ino: u64,
    post_order: bool,
    /// The walk followed this entry if a symlink: its metadata is the
    /// target's.
    follow: bool,
    /// Whether the path is a symlink, where the walk knew without a stat.
    link: Option<bool>,
    /// The fields a stat made on demand fetches.
    fields: StatFields,
    /// The stat made on the workers (`Err`: its errno), if one was.
    metadata: Option<Result<Metadata, i32>>,
}

impl DirEntry {
    /// The path: the root as given, then the names below it joined with
    /// `/`.
    pub fn path(&self) -> &Path {
        Path::new(OsStr::from_bytes(&self.path))
    }

    /// [`DirEntry::path`] as bytes.
    pub fn path_bytes(&self) -> &[u8] {
        &self.path
    }

    /// The path, owned.
    pub fn into_path(self) -> PathBuf {
        PathBuf::from(std::ffi::OsString::from_vec(self.path))
    }

    /// The last name of the path (for a root: the root as given).
    pub fn file_name(&self) -> &OsStr {
        OsStr::from_bytes(self.file_name_bytes())
    }

    /// [`DirEntry::file_name`] as bytes.
    pub fn file_name_bytes(&self) -> &[u8] {
        &self.path[self.name_start..]
    }

    /// How deep below its root the entry lies (roots are 0).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The file type (of the target, for a symlink the walk follows).
    pub fn file_type(&self) -> FileType {
        self.file_type
    }

    /// Whether this is a directory.
    pub fn is_dir(&self) -> bool {
        self.file_type.is_dir()
    }

    /// The inode number, from the directory entry.
    pub fn ino(&self) -> u64 {
        self.ino
    }

    /// The entry's metadata (its target's, for a symlink the walk
    /// follows, or the link's own if broken), or why it could not be had:
    /// an [`Error`] at this path, [`Operation::Stat`].
    ///
    /// With [`Walker::stat_fields`], the stat was made on the walk's
    /// workers, with those fields, and this returns its outcome (cheap: a
    /// copy).  Without, each call stats now, by path (so a path relative
    /// to the working directory must still be valid, and the entry may
    /// have changed or gone since it was read), with
    /// [`StatFields::BASIC`].
    pub fn metadata(&self) -> Result<Metadata, Error> {
        let r = match &self.metadata {
            Some(r) => r.clone().map_err(io::Error::from_raw_os_error),
            None => self.stat_now(),
        };
        r.map_err(|e| {
            Error::new(
                self.path.clone(),
                self.depth,
                Operation::Stat,
                ErrorKind::Io(e),
            )
        })
    }

    /// A stat by path, following the entry if the walk followed it (and
    /// taking a broken link for itself, as the walk does).
    fn stat_now(&self) -> io::Result<Metadata> {
        let path = CString::new(self.path.as_slice())
            .map_err(|_| io::Error::from_raw_os_error(libc::ENOENT))?;
        let cwd = rustix::fs::CWD;
        if !self.follow {
            return fs::stat_at(cwd, &path, self.fields);
        }
        match fs::stat_follow_at(cwd, &path, self.fields) {
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR)) => {
                fs::stat_at(cwd, &path, self.fields)
            }
            r => r,
        }
    }

    /// Whether the entry itself is a symlink, whether or not the walk
    /// follows it (walkdir's name): [`DirEntry::path`] then names a link,
    /// and [`DirEntry::file_type`] is its target's.  Known from the walk
    /// unless it followed the entry and typed it by its target; then an
    /// `lstat` by path, at each call.
    pub fn path_is_symlink(&self) -> bool {
        match self.link {
            Some(link) => link,
            None => CString::new(self.path.as_slice())
                .ok()
                .and_then(|p| fs::stat_at(rustix::fs::CWD, &p, StatFields::empty()).ok())
                .is_some_and(|m| m.is_symlink()),
        }
    }

    /// Whether this is a directory's visit after its contents (with
    /// [`Walker::contents_first`]).
    pub fn is_contents_first_visit(&self) -> bool {
        self.post_order
    }
}

/// [`Walker::for_each`]'s visitor: the closure for entries and errors.
struct ClosureVisitor<F> {
    f: F,
    /// The closure said [`Flow::Quit`] to an error: stop at the next
    /// entry.
    quit: AtomicBool,
}

impl<F> Visitor for ClosureVisitor<F>
where
    F: Fn(Result<Entry<'_>, Error>) -> Flow + Sync,
{
    type State = ();

    fn state(&self) {}

    fn excluded(&self, _: &mut (), _: &Visit<'_>) -> bool {
        self.quit.load(Ordering::Relaxed)
    }

    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        if self.quit.load(Ordering::Relaxed) {
            return Flow::Quit;
        }
        (self.f)(Ok(Entry::from(v)))
    }

    fn error(&self, _: &mut (), e: Error) {
        if (self.f)(Err(e)) == Flow::Quit {
            self.quit.store(true, Ordering::Relaxed);
        }
    }
}

/// A predicate of [`IntoIter::filter_entry`], shared by the workers.
type Predicate = Arc<dyn Fn(&DirEntry) -> bool + Send + Sync>;

/// The iterator over a walk's entries: the walk runs on background
/// threads and hands each entry over through a bounded channel.
///
/// The walk starts at the first [`Iterator::next`] (so that
/// [`IntoIter::filter_entry`] can still be added before).  The entries
/// come in the walk's order (by default every entry down to depth 3
/// before any deeper one, see [`Order::Hybrid`]; with several threads,
/// directories' entries interleave unless [`Walker::sort_by_name`]).
/// Memory stays bounded: the workers wait while the channel is full
/// ([`Walker::channel_capacity`]).
///
/// Dropping the iterator before the end stops the walk: the workers see
/// the channel closed at their next entry, leave what they were reading
/// and stop; the drop returns once every thread of the walk has ended.
///
/// A panic on the walk's threads (in a [`IntoIter::filter_entry`] or
/// [`Walker::sort_by`] closure) reaches the caller from `next`, after the
/// entries handed over before it; entries a worker had gathered in a
/// batch not yet handed over are not yielded.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// for i in 0..100 {
///     std::fs::write(dir.path().join(i.to_string()), b"").unwrap();
/// }
/// let mut it = dents::Walker::new(dir.path()).into_iter();
/// let first = it.next().unwrap().unwrap();
/// assert_eq!(first.path(), dir.path());
/// drop(it); // stops the walk and joins its threads
/// ```
pub struct IntoIter {
    /// The walk to start at the first `next` (`None` once started).
    walker: Option<Walker>,
    /// [`IntoIter::filter_entry`]'s predicates, all of which an entry
    /// must pass.
    filters: Vec<Predicate>,
    /// The batches of entries from the workers.
    rx: Option<Batches>,
    cancel: Arc<AtomicBool>,
    walk: Option<JoinHandle<Stats>>,
    stats: Option<Stats>,
    /// An error to yield before anything else (the walk thread could not
    /// be started).
    pending: Option<Error>,
    /// walkdir's order, when asked for: see [`Preorder`].
    preorder: Option<Preorder>,
}

impl std::fmt::Debug for IntoIter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntoIter")
            .field("walker", &self.walker)
            .field("filters", &self.filters.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl IntoIter {
    fn new(w: Walker) -> IntoIter {
        IntoIter {
            walker: Some(w),
            filters: Vec::new(),
            rx: None,
            cancel: Arc::new(AtomicBool::new(false)),
            walk: None,
            stats: None,
            pending: None,
            preorder: None,
        }
    }

    /// Yields only the entries for which `predicate` is true, and does
    /// not descend into a directory for which it is false (walkdir's
    /// `filter_entry`): what is pruned is never opened.
    ///
    /// The predicate runs on the walk's worker threads, as each entry is
    /// met, several calls at once (so it is `Fn + Send + Sync`); the
    /// entry it sees is the one the iterator would yield.  Entries the
    /// walk does not yield are not passed to it (those shallower than
    /// [`Walker::min_depth`], whose directories are read all the same),
    /// and with [`Walker::contents_first`] a directory is passed after
    /// its contents, so the predicate filters it without pruning.
    /// Several `filter_entry` calls add up: an entry must pass each.
    ///
    /// # Panics
    ///
    /// If called once the walk has begun (after the first `next`): the
    /// predicate could not be decided on the workers for what they have
    /// already read.
    ///
    /// ```
    /// use dents::{DirEntry, Walker};
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::create_dir_all(dir.path().join(".git/objects")).unwrap();
    /// std::fs::write(dir.path().join("src"), b"").unwrap();
    ///
    /// fn is_hidden(entry: &DirEntry) -> bool {
    ///     entry.file_name().to_str().is_some_and(|s| s.starts_with('.'))
    /// }
    /// let mut it = Walker::new(dir.path()).min_depth(1).into_iter().filter_entry(|e| !is_hidden(e));
    /// let names: Vec<_> = it.by_ref().map(|e| e.unwrap().file_name().to_owned()).collect();
    /// assert_eq!(names, ["src"]);
    /// assert_eq!(it.stats().unwrap().dirs_read, 1, ".git was not opened");
    /// ```
    pub fn filter_entry<P>(mut self, predicate: P) -> IntoIter
    where
        P: Fn(&DirEntry) -> bool + Send + Sync + 'static,
    {
        assert!(
            self.walker.is_some(),
            "dents::IntoIter::filter_entry called after the walk began"
        );
        self.filters.push(Arc::new(predicate));
        self
    }

    /// Starts the walk, if not yet started.
    fn start(&mut self) {
        let Some(w) = self.walker.take() else {
            return;
        };
        let (batch, slots) = batch_plan(w.capacity);
        let (tx, rx) = mpsc::sync_channel(slots);
        let spare = Arc::new(Mutex::new(Vec::new()));
        let mut opts = w.walk_options();
        if let (Some(cmp), false) = (&w.preorder, opts.post_order) {
            // Depth first, the directories' entries come in the order of
            // the directories themselves (one worker): each is handed
            // over right when the consumer needs it.
            opts.order = Order::DepthFirst;
            opts.sort = true;
            self.preorder = Some(Preorder {
                cmp: cmp.clone(),
                open: Vec::new(),
                ahead: None,
                waiting: std::collections::HashMap::new(),
            });
        }
        // A sorted depth-first walk runs on one worker (see
        // `walk::run`): every visit goes through one state, in order.
        let one_visitor = opts.sort && opts.order == Order::DepthFirst;
        let visitor = ChannelVisitor {
            tx,
            one_visitor,
            cancel: Arc::clone(&self.cancel),
            fields: w.fields,
            filters: std::mem::take(&mut self.filters),
            batch,
            spare: Arc::clone(&spare),
        };
        let roots = w.roots;
        let first = roots.first().cloned().unwrap_or_default();
        let spawned = std::thread::Builder::new()
            .name("dents-walk".into())
            .spawn(move || walk::walk(&roots, &opts, &visitor));
        match spawned {
            Ok(h) => self.walk = Some(h),
            // No thread to walk on: the walk could not start reading.
            Err(e) => {
                let kind = ErrorKind::Io(e);
                self.pending = Some(Error::new(first, 0, Operation::Read, kind));
            }
        }
        self.rx = Some(Batches {
            rx,
            current: Vec::new(),
            spare,
            // Enough for every batch in flight to come back once.
            keep: slots + 2,
        });
    }

    /// What the walk did, once the iterator has yielded its last item
    /// (`None` before that).
    pub fn stats(&self) -> Option<Stats> {
        self.stats
    }

    /// Waits for the walk's thread, if still running, and keeps its stats.
    fn join(&mut self) {
        if let Some(h) = self.walk.take() {
            match h.join() {
                Ok(stats) => self.stats = Some(stats),
                // The walk panicked (a bug): let the consumer see it.
                Err(p) => std::panic::resume_unwind(p),
            }
        }
    }
}

impl Iterator for IntoIter {
    type Item = Result<DirEntry, Error>;

    fn next(&mut self) -> Option<Result<DirEntry, Error>> {
        self.start();
        if let Some(e) = self.pending.take() {
            return Some(Err(e));
        }
        let item = match self.preorder.take() {
            Some(mut pre) => {
                let item = pre.next(self.rx.as_mut()?);
                self.preorder = Some(pre);
                item
            }
            None => self.rx.as_mut()?.recv(),
        };
        if item.is_none() {
            // Every sender is gone: the walk is over.
            self.rx = None;
            self.join();
        }
        item
    }
}

impl Drop for IntoIter {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        // Closing the channel wakes workers waiting to send.
        self.rx = None;
        if let Some(h) = self.walk.take() {
            // A panic of the walk has nowhere to go while dropping.
            let _ = h.join();
        }
    }
}

/// The consumer's end of the channel: batches taken one at a time, each
/// emptied batch given back to the workers to fill again.
struct Batches {
    rx: Receiver<Vec<Item>>,
    /// The batch being yielded, reversed (its next item last).
    current: Vec<Item>,
    /// Emptied batches, for [`ChannelVisitor::fresh`].
    spare: Arc<Mutex<Vec<Vec<Item>>>>,
    /// The most batches kept in `spare`.
    keep: usize,
}

impl Batches {
    /// The next item; `None` once every worker is gone and every batch
    /// taken.
    fn recv(&mut self) -> Option<Item> {
        loop {
            if let Some(item) = self.current.pop() {
                return Some(item);
            }
            let mut batch = self.rx.recv().ok()?;
            batch.reverse();
            let empty = std::mem::replace(&mut self.current, batch);
            // Never waits for the lock (a wait is a futex call or two):
            // a batch not given back is freed, and a worker makes another.
            if let (true, Ok(mut spare)) = (empty.capacity() > 0, self.spare.try_lock()) {
                if spare.len() < self.keep {
                    spare.push(empty);
                }
            }
        }
    }
}

/// The iterator's visitor: gathers entries and errors in a batch per
/// worker and sends each batch down the channel.
struct ChannelVisitor {
    tx: SyncSender<Vec<Item>>,
    /// Every visit is made by one worker, on one state, in the walk's
    /// order (a sorted depth-first walk): the end of a turn hands nothing
    /// over to another worker, so the batch goes on filling.
    one_visitor: bool,
    cancel: Arc<AtomicBool>,
    /// [`Walker::stat_fields`]: every entry stat'ed here with these.
    fields: Option<StatFields>,
    filters: Vec<Predicate>,
    /// Items a batch holds before it is sent.
    batch: usize,
    /// Batches the consumer emptied (see [`Batches`]).
    spare: Arc<Mutex<Vec<Vec<Item>>>>,
}

impl ChannelVisitor {
    /// An empty batch: one given back if any, else a new one.
    fn fresh(&self) -> Vec<Item> {
        // Never waits for the lock, as the consumer does not.
        let given = self.spare.try_lock().ok().and_then(|mut s| s.pop());
        given.unwrap_or_else(|| Vec::with_capacity(self.batch))
    }

    /// Sends what `batch` holds, if anything, and leaves it empty; `false`
    /// once the consumer has gone (the walk is then to stop).
    fn send(&self, batch: &mut Vec<Item>) -> bool {
        if batch.is_empty() {
            return true;
        }
        let full = std::mem::replace(batch, self.fresh());
        if self.tx.send(full).is_err() {
            self.cancel.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Adds `item` to the worker's batch, sending the batch once full.
    fn push(&self, batch: &mut Vec<Item>, item: Item) -> bool {
        batch.push(item);
        batch.len() < self.batch || self.send(batch)
    }
}

impl Visitor for ChannelVisitor {
    /// The worker's batch being filled.
    type State = Vec<Item>;

    fn state(&self) -> Vec<Item> {
        Vec::new()
    }

    /// Once the consumer has gone, nothing more is read or visited.
    fn excluded(&self, _: &mut Vec<Item>, _: &Visit<'_>) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    fn visit(&self, batch: &mut Vec<Item>, v: &Visit<'_>) -> Flow {
        if self.cancel.load(Ordering::Relaxed) {
            // No send fails while a batch fills: the flag says it.
            return Flow::Quit;
        }
        let entry = Entry::from(v);
        let mut owned = entry.to_dir_entry();
        if let Some(fields) = self.fields {
            // A failed stat stays with its entry: the entry was read.
            owned.fields = fields;
            owned.metadata = Some(
                entry
                    .metadata()
                    .map_err(|e| e.raw_os_error().unwrap_or(libc::EIO)),
            );
        }
        if !self.filters.iter().all(|p| p(&owned)) {
            return Flow::Prune;
        }
        if self.push(batch, Ok(owned)) {
            Flow::Continue
        } else {
            Flow::Quit
        }
    }

    fn error(&self, batch: &mut Vec<Item>, e: Error) {
        self.push(batch, Err(e));
    }

    /// With [`Walker::stat_fields`] every entry is stat'ed: a sorted walk
    /// then stats them on its workers ahead of the serial visits, not in
    /// the visits one at a time.
    fn stat_ahead(&self, _known: Option<FileType>) -> bool {
        self.fields.is_some()
    }

    /// The order others' visits must follow (a sorted walk's turn, a top
    /// level of the hybrid order): this worker's entries go first.
    ///
    /// With one visitor, no other worker's visits can come next: sending
    /// here would hand over each directory's entries on their own (a
    /// sorted depth-first walk ends a turn at nearly every directory), and
    /// wake the consumer, which waits for the next batch, once for each:
    /// 1.6 context switches a directory, more CPU than walkdir's sorted
    /// walk (docs/benchmarks.md, "Embedding").
    fn turn_done(&self, batch: &mut Vec<Item>) {
        if !self.one_visitor {
            self.send(batch);
        }
    }

    /// The worker is about to wait, or others' visits may have to come
    /// after its own (contents first): its entries go now rather than
    /// when the batch is full.
    fn handoff(&self, batch: &mut Vec<Item>) {
        self.send(batch);
    }

    fn finish(&self, mut batch: Vec<Item>) {
        self.send(&mut batch);
    }
}

/// An item of the iterator.
type Item = Result<DirEntry, Error>;

/// walkdir's order rebuilt from a sorted depth-first walk on one worker:
/// the walk hands over each directory's entries together (its errors
/// first), directories in the order a depth-first walk meets them, so
/// the entries of the next directory to arrive are always those of the
/// next directory walkdir would descend into.  Each directory yielded is
/// followed by its entries, if the next group is its.
struct Preorder {
    cmp: Option<Comparator>,
    /// The entries still to yield of each directory open on the way down.
    open: Vec<std::collections::VecDeque<Item>>,
    /// The item received but not yet placed.
    ahead: Option<Item>,
    /// With a comparison of the caller's, the directories are yielded in
    /// another order than the walk's (by name): groups that came before
    /// their directory was yielded, by directory.
    waiting: std::collections::HashMap<Vec<u8>, std::collections::VecDeque<Item>>,
}

impl Preorder {
    fn next(&mut self, rx: &mut Batches) -> Option<Item> {
        loop {
            let Some(top) = self.open.last_mut() else {
                // Nothing open: the next group is a top one (the roots,
                // or the entries at min_depth of a directory above it).
                let group = match self.waiting.keys().min().cloned() {
                    Some(k) => self.waiting.remove(&k).unwrap_or_default(),
                    None => {
                        let first = self.ahead.take().or_else(|| rx.recv())?;
                        self.group(rx, first)
                    }
                };
                self.open.push(group);
                continue;
            };
            let Some(item) = top.pop_front() else {
                self.open.pop();
                continue;
            };
            if let Ok(e) = &item {
                if e.is_dir() {
                    if let Some(group) = self.group_of(rx, trim_slash(e.path_bytes())) {
                        self.open.push(group);
                    }
                }
            }
            return Some(item);
        }
    }

    /// The group of the directory `dir`, if it has one.  The walk hands
    /// groups over in its own order, depth first by name: one that
    /// comes after `dir` in that order means `dir` has none.
    fn group_of(
        &mut self,
        rx: &mut Batches,
        dir: &[u8],
    ) -> Option<std::collections::VecDeque<Item>> {
        if let Some(g) = self.waiting.remove(dir) {
            return Some(g);
        }
        loop {
            let first = self.ahead.take().or_else(|| rx.recv())?;
            let key = parent_of(&first).to_vec();
            if key == dir {
                return Some(self.group(rx, first));
            }
            let past = walk_order_after(&key, dir);
            if self.cmp.is_none() || past {
                // In the walk's own order the next group is always the
                // next directory's: this one is not `dir`'s.
                if self.cmp.is_none() {
                    self.ahead = Some(first);
                    return None;
                }
                let g = self.group(rx, first);
                self.waiting.insert(key, g);
                return None;
            }
            let g = self.group(rx, first);
            self.waiting.insert(key, g);
        }
    }

    /// `first` and the items after it of the same directory, sorted by
    /// the comparison if there is one (errors first).
    fn group(&mut self, rx: &mut Batches, first: Item) -> std::collections::VecDeque<Item> {
        let parent = parent_of(&first).to_vec();
        let mut group = vec![first];
        loop {
            match rx.recv() {
                Some(item) if parent_of(&item) == parent.as_slice() => group.push(item),
                Some(item) => {
                    self.ahead = Some(item);
                    break;
                }
                None => break,
            }
        }
        if let Some(Comparator(cmp)) = &self.cmp {
            let mut cmp = cmp.lock().unwrap_or_else(|p| p.into_inner());
            group.sort_by(|a, b| match (a, b) {
                (Ok(a), Ok(b)) => cmp(a, b),
                (Err(_), Ok(_)) => std::cmp::Ordering::Less,
                (Ok(_), Err(_)) => std::cmp::Ordering::Greater,
                (Err(_), Err(_)) => std::cmp::Ordering::Equal,
            });
        }
        group.into()
    }
}

/// Whether the directory `a` comes after `b` in a depth-first walk by
/// name (names compared as bytes, a directory before what lies in it).
fn walk_order_after(a: &[u8], b: &[u8]) -> bool {
    let names = |p: &[u8]| -> Vec<Vec<u8>> {
        p.split(|&c| c == b'/')
            .filter(|n| !n.is_empty())
            .map(<[u8]>::to_vec)
            .collect()
    };
    names(a) > names(b)
}

/// The directory whose group an item is part of: the one it lies in
/// (none, empty, for a root), or for a failed open or read the directory
/// itself, whose entries it comes with.
fn parent_of(item: &Item) -> &[u8] {
    match item {
        Ok(e) if e.depth() == 0 => b"",
        Ok(e) => trim_slash(&e.path_bytes()[..e.name_start]),
        Err(e) => match e.operation() {
            Operation::Open | Operation::Read | Operation::ReadCut => trim_slash(e.path_bytes()),
            _ if e.depth() == 0 => b"",
            _ => dir_name(e.path_bytes()),
        },
    }
}

/// `path` without trailing slashes (but `/` itself kept).
fn trim_slash(path: &[u8]) -> &[u8] {
    let mut end = path.len();
    while end > 1 && path[end - 1] == b'/' {
        end -= 1;
    }
    &path[..end]
}

/// The head of `path` before its last name.
fn dir_name(path: &[u8]) -> &[u8] {
    let path = trim_slash(path);
    match path.iter().rposition(|&b| b == b'/') {
        Some(0) => b"/",
        Some(i) => &path[..i],
        None => b"",
    }
}
