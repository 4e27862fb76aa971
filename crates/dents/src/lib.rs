//! dents: fast, exact directory scanning for Linux.
//!
//! # Module map
//!
//! Data flows upward; each module uses only modules of lower layers
//! (`tests/layers.rs` keeps it so).
//!
//! | layer | module    | concern |
//! |---|-----------|---------|
//! | 5 | `walker`  | [`Walker`]: the walker API, a builder over [`walk`], as an iterator, a closure or a visitor; [`DirEntry`], [`Entry`], [`IntoIter`] |
//! | 4 | [`unstable`] | what dents-mpi needs of the walker and the slice reader; may change in any release |
//! | 3 | [`walk`]  | the parallel walker: trees breadth or depth first, an fd budget, post-order, symlink policy |
//! | 3 | [`fs`]    | open a directory, stat an entry of one, read a symlink: descriptor-relative, in dents's own types |
//! | 2 | `error`   | [`Error`]: a walk's error, in every form (path, depth, the step that failed, what went wrong); [`describe`] |
//! | 2 | `stats`   | [`Stats`]: what a walk did, in plain numbers, for every form of walk |
//! | 2 | `flow`    | [`Flow`]: what a visitor or closure tells the walk after an entry |
//! | 2 | `follow`  | [`Follow`]: which symbolic links a walk follows |
//! | 2 | `metadata` | [`Metadata`], [`StatFields`], [`Timestamp`], [`RecordedStat`]: dents's own metadata type and stat field mask (no dependency's type) |
//! | 2 | [`scan`]  | one directory: which entries are subdirectories, with the fewest stats (d_type, link count, likely-directories first) |
//! | 2 | [`slice`](mod@slice) | one directory on many threads: its offset space cut into slices, each read on its own descriptor, exactly once per entry |
//! | 1 | [`spill`] | a temporary file, unlinked, that bytes are spilled to and read back from by segments: a walk's queue past its limit, dents-du's ncdu export |
//! | 1 | [`mountinfo`] | the mount table (`/proc/self/mountinfo`): devices, mount points, types, escapes undone |
//! | 1 | `descriptors` | (private) the process's descriptors: how many are free, an open that waits for one (public in [`fs`]) |
//! | 1 | [`dir`]   | one directory's entries: `getdents64` into a buffer the reader owns, entries borrowed from it |
//! | 0 | `file_type` | [`FileType`]: an entry's type, from `d_type` or a stat's mode |
//! | 0 | `sys`     | (private) the only place with `unsafe` and raw system calls; what the OS says (the cores we may use) |
//!
//! The modules in `code` type are private: their items have one public
//! path, at the crate root (`dents::Error`, `dents::Flow`...), as the
//! walker's users name them; the modules in links hold the rest.
//!
//! Names are bytes everywhere (`&[u8]`, `&CStr`): never assumed UTF-8.
//! No type of a dependency (rustix, libc) is part of the API, so their
//! versions are not dents's users' concern (`tests/public_api.rs` checks every
//! public module).
//!
//! # Walking a tree
//!
//! [`Walker`] is the way in: a builder for the options, then the entries
//! as an iterator (simplest: one thread, owned entries, bounded memory),
//! a closure on the walk's worker threads, or a [`walk::Visitor`] with
//! per-worker state:
//!
//! | form | call | runs on | entries |
//! |------|------|---------|---------|
//! | iterator | `for e in walker` ([`Walker::into_iter`]) | the caller's thread; the walk on background threads | owned [`DirEntry`], through a bounded channel |
//! | closure | [`Walker::for_each`] | the walk's worker threads | borrowed [`Entry`], metadata fetched lazily |
//! | visitor | [`Walker::visit`] | the walk's worker threads | [`walk::Visit`], per-worker state |
//!
//! The iterator is the simplest: one thread sees every entry, in a
//! `for` loop, with `?` for errors.  The workers hand entries over in
//! batches (up to 128 at a time, a directory's or several), so the
//! channel costs little per entry.  The walk runs ahead of the consumer
//! only as far as the channel holds ([`Walker::channel_capacity`]
//! entries, plus a batch being filled per worker), so a slow consumer
//! slows the walk down instead of growing memory, and dropping the
//! iterator stops the walk and joins its threads.
//!
//! The closure and the visitor run on the workers themselves: no entry
//! is copied, [`Entry::metadata`] stats only the entries it is asked of
//! (with only the [`StatFields`] asked for), and
//! [`Entry::parent_fd`] with [`Entry::at_name`] give descriptor-relative
//! access (`openat`, `fstatat`…) that no path lookup can be raced on.
//!
//! ```
//! use dents::Walker;
//! # fn main() -> Result<(), dents::Error> {
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("file"), b"").unwrap();
//! for entry in Walker::new(dir.path()).sort_by_name(true) {
//!     let entry = entry?;
//!     println!("{} {}", entry.depth(), entry.path().display());
//! }
//! # Ok(())
//! # }
//! ```
//!
//! walkdir's programs run unchanged with their `use` lines changed
//! (`use dents::{DirEntry, Walker as WalkDir};`): `follow_links(true)`,
//! `into_iter().filter_entry(..)`, `sort_by_file_name()`, `sort_by(..)`,
//! `DirEntry::metadata()` and `path_is_symlink()` (`tests/walkdir_examples.rs`
//! runs walkdir's own examples both ways on one tree).
//!
//! # Pruning, and errors that say what happened
//!
//! [`IntoIter::filter_entry`] leaves out the entries a predicate rejects
//! and does not descend into such directories: the predicate runs on
//! the walk's workers, so a pruned directory is never opened.  Each
//! problem comes as an [`Error`] in the stream, and the walk goes on: its
//! path, its depth below the root it was reached from, the step that
//! failed ([`Operation`]) and why ([`ErrorKind`]).  An entry whose stat
//! fails is still an entry; its [`DirEntry::metadata`] is the error.
//!
//! ```
//! use std::io::ErrorKind;
//! use dents::{DirEntry, Operation, Walker};
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::create_dir_all(dir.path().join("src/.git/objects")).unwrap();
//! std::fs::write(dir.path().join("src/main.rs"), b"fn main() {}").unwrap();
//! std::os::unix::fs::symlink("no/such/target", dir.path().join("src/dangling")).unwrap();
//!
//! fn is_hidden(entry: &DirEntry) -> bool {
//!     entry.file_name().as_encoded_bytes().starts_with(b".")
//! }
//!
//! // A second starting point that does not exist: an error, not the end.
//! let missing = dir.path().join("missing");
//! let (mut bytes, mut not_found) = (0, Vec::new());
//! let mut walk = Walker::new(dir.path()).root(&missing).into_iter().filter_entry(|e| !is_hidden(e));
//! for entry in walk.by_ref() {
//!     let entry = match entry {
//!         Ok(entry) => entry,
//!         Err(err) => {
//!             // Say what failed where, and go on.
//!             match (err.operation(), err.io_error().map(|e| e.kind())) {
//!                 (_, Some(ErrorKind::NotFound)) => not_found.push((err.path().to_owned(), err.depth())),
//!                 (Operation::Open | Operation::Read, _) => eprintln!("cannot read directory: {err}"),
//!                 (Operation::ReadCut, _) => eprintln!("read part way: {err}"),
//!                 _ => eprintln!("{err} (at depth {})", err.depth()),
//!             }
//!             continue;
//!         }
//!     };
//!     match entry.metadata() {
//!         Ok(m) if m.is_file() => bytes += m.len(),
//!         Ok(_) => {}
//!         Err(err) => eprintln!("cannot stat: {err}"),
//!     }
//! }
//! assert_eq!(bytes, 12);
//! assert_eq!(not_found, [(missing, 0)], "a starting point is at depth 0");
//! assert_eq!(walk.stats().unwrap().dirs_read, 2, "src/.git was never opened");
//! ```
//!
//! # Reading one directory
//!
//! Count the entries of a directory, on as many threads as pay:
//!
//! ```no_run
//! use dents::slice::{read_dir, NameCollector, ReadOptions};
//! # fn main() -> std::io::Result<()> {
//! let dir = dents::fs::open_dir(c"/usr/bin")?;
//! let outcome = read_dir(std::os::fd::AsFd::as_fd(&dir), &ReadOptions::default(), |_slice| NameCollector::default());
//! let total: usize = outcome.sinks.iter().map(|s| s.names.len()).sum();
//! println!("{total} entries, read as {:?}", outcome.plan);
//! # Ok(())
//! # }
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod descriptors;
pub mod dir;
mod error;
mod file_type;
mod flow;
mod follow;
pub mod fs;
mod metadata;
pub mod mountinfo;
pub mod scan;
pub mod slice;
pub mod spill;
mod stats;
#[allow(unsafe_code)]
mod sys;
pub mod unstable;
pub mod walk;
mod walker;

pub use error::{describe, Error, ErrorKind, Operation};
pub use file_type::FileType;
pub use flow::Flow;
pub use follow::Follow;
pub use metadata::{Metadata, RecordedStat, StatFields, Timestamp};
pub use stats::Stats;
pub use walker::{DirEntry, Entry, IntoIter, Walker};
