//! The walk's error, in every form (iterator, closure, visitor): a
//! problem met at one path of the walk, which goes on past it.
//!
//! An [`Error`] says where (the path, as bytes or as a [`Path`], and its
//! depth below the root it was reached from, as the walk knew it), what
//! the walk was doing there ([`Operation`]: opening a directory, reading
//! it, stat'ing an entry, entering a directory through a link) and what
//! went wrong ([`ErrorKind`]: a failed system call, or a symlink loop).  It prints as find prints its
//! messages, `PATH: Permission denied`, and converts into an
//! [`io::Error`] that keeps that context.
//!
//! ```
//! use dents::{ErrorKind, Walker};
//! let dir = tempfile::tempdir().unwrap();
//! let missing = dir.path().join("missing");
//! let err = Walker::new(&missing).into_iter().next().unwrap().unwrap_err();
//! assert_eq!(err.path(), missing);
//! assert_eq!(err.depth(), 0);
//! assert_eq!(err.operation(), dents::Operation::Stat);
//! assert!(matches!(err.kind(), ErrorKind::Io(e) if e.kind() == std::io::ErrorKind::NotFound));
//! assert_eq!(err.to_string(), format!("{}: No such file or directory", missing.display()));
//! let io: std::io::Error = err.into();
//! assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
//! ```

use std::ffi::OsStr;
use std::fmt;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A problem at one path of a walk: where, how deep, and what.
///
/// The walk reports it and goes on with the rest of the tree: to a
/// [`crate::walk::Visitor::error`], to [`crate::Walker::for_each`]'s
/// closure, or as an `Err` of the iterator.  One type for all three, so
/// that a visitor's errors and the iterator's are worded and matched the
/// same way.
#[derive(Debug)]
pub struct Error {
    path: Vec<u8>,
    depth: usize,
    op: Operation,
    kind: ErrorKind,
}

/// What went wrong at an [`Error`]'s path ([`Error::operation`] says at
/// which step: a read cut part way is an [`ErrorKind::Io`] at
/// [`Operation::ReadCut`]).
///
/// Not `#[non_exhaustive]`, unlike [`Operation`]: a visitor words each
/// kind of problem differently (find and du as GNU's, a snapshot's row),
/// so a new kind must fail to build every visitor until it is worded,
/// rather than fall silently into a generic message.
#[derive(Debug)]
pub enum ErrorKind {
    /// A system call failed (opening, reading or stat'ing the path).
    Io(io::Error),
    /// Following symlinks led back to a directory already on the way
    /// down: the error's path is the same directory as this ancestor,
    /// which is not walked again.
    Loop {
        /// The ancestor's path (bytes: names are never assumed UTF-8).
        ancestor: Vec<u8>,
    },
}

/// What the walk was doing when a problem came up: which of its steps
/// failed at the error's path.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Operation {
    /// Opening a directory to read it (or reopening one: a post-order
    /// visit's parent, a huge directory's slice).
    Open,
    /// Reading a directory: nothing of it was read.
    Read,
    /// Reading a directory failed part way, after some of its entries
    /// (or, in slices, the part before the failing one) were read and
    /// visited: what follows the failure in the directory's own order was
    /// not read.  GNU's fts calls this `FTS_ERR` where a directory that
    /// gave nothing is `FTS_DNR` ([`Operation::Read`] here), and du words
    /// the two apart (`du: DIR: CAUSE` against `du: cannot read directory
    /// 'DIR': CAUSE`).  A corrupt block of a directory does it.  The kind
    /// is [`ErrorKind::Io`].
    ReadCut,
    /// Stat'ing an entry: a starting point, or an entry's metadata that
    /// was asked for.
    Stat,
    /// Entering a directory reached by following a link: it is one of its
    /// own ancestors ([`ErrorKind::Loop`]).
    Enter,
    /// Reading back the walk's queue from its temporary file (past a few
    /// thousand queued directories a sorted walk's queue is spilled
    /// there, past 24,576 an unsorted walk's deep list): `dirs_lost`
    /// directories, queued in that part of the file, were not walked
    /// (each was visited as an entry of its parent; what lies below it
    /// was not, nor, in a contents-first walk, the directory's own
    /// visit, which comes after its contents).  The error's path is the directory the temporary file
    /// is in; the kind is [`ErrorKind::Io`], whose message says what was
    /// lost and its cause (the failed read's error, its
    /// [`std::error::Error::source`]).  The walk goes on with the rest.
    ReadBack {
        /// Directories not walked.
        dirs_lost: u64,
    },
}

impl Error {
    /// An error at `path`, `depth` below the starting point it was
    /// reached from (roots are 0): for a walk of the caller's own that
    /// hands its problems to a [`crate::walk::Visitor`] (a snapshot's
    /// recorded tree, dents-mpi's ranks), as the walk would.
    pub fn new(path: Vec<u8>, depth: usize, op: Operation, kind: ErrorKind) -> Error {
        Error {
            path,
            depth,
            op,
            kind,
        }
    }

    /// The path the error concerns: the directory that could not be
    /// opened or read, the entry that could not be stat'ed, or the
    /// directory that closes a loop.
    pub fn path(&self) -> &Path {
        Path::new(OsStr::from_bytes(&self.path))
    }

    /// [`Error::path`] as bytes.
    pub fn path_bytes(&self) -> &[u8] {
        &self.path
    }

    /// How deep the path lies below the root it was reached from (roots
    /// are 0), as the walk counted it (with roots inside other roots, the
    /// depth below the one this path was reached from).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// What the walk was doing at the path: [`Operation::Open`] and
    /// [`Operation::Read`] of a directory (nothing of it walked),
    /// [`Operation::ReadCut`] (part of it walked), [`Operation::Stat`] of
    /// an entry, [`Operation::Enter`] of a directory that closes a loop,
    /// [`Operation::ReadBack`] of the walk's spilled queue.
    pub fn operation(&self) -> Operation {
        self.op
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The failed system call's error, if that is what this is.
    pub fn io_error(&self) -> Option<&io::Error> {
        match &self.kind {
            ErrorKind::Io(e) => Some(e),
            ErrorKind::Loop { .. } => None,
        }
    }

    /// The failed system call's error without the path, if that is what
    /// this is.
    pub fn into_io_error(self) -> Option<io::Error> {
        match self.kind {
            ErrorKind::Io(e) => Some(e),
            ErrorKind::Loop { .. } => None,
        }
    }

    /// For a loop: the ancestor the path leads back to.
    pub fn loop_ancestor(&self) -> Option<&Path> {
        match &self.kind {
            ErrorKind::Loop { ancestor } => Some(Path::new(OsStr::from_bytes(ancestor))),
            ErrorKind::Io(_) => None,
        }
    }
}

impl fmt::Display for Error {
    /// `PATH: MESSAGE`, the message as the C library words it (no
    /// "(os error N)" suffix), as find prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Io(e) => write_io(f, &self.path, e),
            ErrorKind::Loop { ancestor } => write_loop(f, &self.path, ancestor),
        }
    }
}

/// `PATH: MESSAGE` of a failed system call.
fn write_io(f: &mut fmt::Formatter<'_>, path: &[u8], e: &io::Error) -> fmt::Result {
    let path = Path::new(OsStr::from_bytes(path)).display();
    write!(f, "{path}: {}", describe(e))
}

/// `PATH: File system loop detected; …` of a loop back to `ancestor`.
fn write_loop(f: &mut fmt::Formatter<'_>, path: &[u8], ancestor: &[u8]) -> fmt::Result {
    write!(
        f,
        "{}: File system loop detected; it is the same directory as {}",
        Path::new(OsStr::from_bytes(path)).display(),
        Path::new(OsStr::from_bytes(ancestor)).display()
    )
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Io(e) => Some(e),
            ErrorKind::Loop { .. } => None,
        }
    }
}

impl From<Error> for io::Error {
    /// An [`io::Error`] of the same [`io::ErrorKind`] (`Other` for a loop)
    /// that carries the whole [`Error`], path and depth included: its
    /// message is the `PATH: MESSAGE` line, and
    /// [`io::Error::into_inner`] gives the [`Error`] back.
    fn from(e: Error) -> io::Error {
        let kind = match &e.kind {
            ErrorKind::Io(io) => io.kind(),
            ErrorKind::Loop { .. } => io::ErrorKind::Other,
        };
        io::Error::new(kind, e)
    }
}

/// The C library's words for an error (`strerror`), without std's
/// " (os error N)": the cause as GNU's tools print it in a message.  An
/// error of dents's own or a caller's (no OS error number) is its whole
/// message.  The one home of this rule: the tools' messages
/// (`dents_tools::errors`), dents-snap and dents-mpi call it.
///
/// ```
/// use std::io;
/// let e = io::Error::from_raw_os_error(13);
/// assert_eq!(dents::describe(&e), "Permission denied");
/// let own = io::Error::other("no such slice (os error 5)");
/// assert_eq!(dents::describe(&own), "no such slice (os error 5)");
/// ```
pub fn describe(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) if e.raw_os_error().is_some() => s[..i].to_string(),
        _ => s,
    }
}
