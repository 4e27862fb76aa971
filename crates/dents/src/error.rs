//! The walker API's error: a problem met at one path of the walk, which
//! goes on past it.
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

pub use crate::walk::Operation;
use crate::walk::{WalkError, WalkErrorKind};

/// A problem at one path of a walk: where, how deep, and what.
///
/// The walk reports it and goes on with the rest of the tree.
#[derive(Debug)]
pub struct Error {
    path: Vec<u8>,
    depth: usize,
    op: Operation,
    kind: ErrorKind,
}

/// What went wrong at an [`Error`]'s path.
#[derive(Debug)]
#[non_exhaustive]
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

impl Error {
    /// Builds an error from the walker's report.
    pub(crate) fn from_walk(e: &WalkError) -> Error {
        let kind = match &e.kind {
            WalkErrorKind::Io(io) | WalkErrorKind::ReadCut(io) => ErrorKind::Io(copy_io_error(io)),
            WalkErrorKind::Loop(a) => ErrorKind::Loop {
                ancestor: a.clone(),
            },
        };
        Error {
            path: e.path.clone(),
            depth: e.depth,
            op: e.op,
            kind,
        }
    }

    /// An error at a path the caller knows the depth of.
    pub(crate) fn new(path: Vec<u8>, depth: usize, op: Operation, kind: ErrorKind) -> Error {
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
    /// an entry, [`Operation::Enter`] of a directory that closes a loop.
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

/// The walker's own report prints as [`Error`] does.
///
/// ```
/// use dents::walk::{WalkError, WalkErrorKind};
/// let e = WalkError {
///     path: b"/no/such".to_vec(),
///     depth: 0,
///     op: dents::Operation::Open,
///     kind: WalkErrorKind::Io(std::io::Error::from_raw_os_error(2)),
/// };
/// assert_eq!(e.to_string(), "/no/such: No such file or directory");
/// let source = std::error::Error::source(&e).expect("the system call's error");
/// assert_eq!(source.to_string(), "No such file or directory (os error 2)");
/// ```
impl fmt::Display for WalkError {
    /// `PATH: MESSAGE`, as [`Error`]'s.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            WalkErrorKind::Io(e) | WalkErrorKind::ReadCut(e) => write_io(f, &self.path, e),
            WalkErrorKind::Loop(ancestor) => write_loop(f, &self.path, ancestor),
        }
    }
}

impl std::error::Error for WalkError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            WalkErrorKind::Io(e) | WalkErrorKind::ReadCut(e) => Some(e),
            WalkErrorKind::Loop(_) => None,
        }
    }
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
/// assert_eq!(dents::error::describe(&e), "Permission denied");
/// let own = io::Error::other("no such slice (os error 5)");
/// assert_eq!(dents::error::describe(&own), "no such slice (os error 5)");
/// ```
pub fn describe(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) if e.raw_os_error().is_some() => s[..i].to_string(),
        _ => s,
    }
}

/// An owned copy of an error the walk lends: the same OS error number, or
/// the same kind and message.
fn copy_io_error(e: &io::Error) -> io::Error {
    match e.raw_os_error() {
        Some(n) => io::Error::from_raw_os_error(n),
        None => io::Error::new(e.kind(), e.to_string()),
    }
}
