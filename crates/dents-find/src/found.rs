//! What a command hands a program for each entry it matched
//! ([`Command::matches`](crate::Command::matches),
//! [`Command::for_each_match`](crate::Command::for_each_match)): the
//! entry as the walk saw it, with the metadata the expression already
//! fetched, borrowed during the visit ([`Match`]) or owned ([`FoundEntry`]),
//! and an error that names a path ([`PathError`]).

use std::io;

use dents::walk::Visit;
use dents::{FileType, Metadata};

/// An entry the command matched, borrowed for the time of its visit (the
/// callback of [`Command::for_each_match`](crate::Command::for_each_match),
/// on the walk's thread that visits it).
#[derive(Clone, Copy, Debug)]
pub struct Match<'a> {
    visit: &'a Visit<'a>,
}

impl<'a> Match<'a> {
    /// The visit that matched.
    pub(crate) fn new(visit: &'a Visit<'a>) -> Match<'a> {
        Match { visit }
    }

    /// The path, as the starting point was given and joined with `/`
    /// (what `-print` prints).
    pub fn path(&self) -> &'a [u8] {
        self.visit.path()
    }

    /// The last component (a starting point's whole path as given).
    pub fn name(&self) -> &'a [u8] {
        self.visit.name()
    }

    /// Depth below the starting point (starting points are 0).
    pub fn depth(&self) -> usize {
        self.visit.depth()
    }

    /// The inode number from the directory entry; for a symlink the
    /// walk follows (`-L`), the link's own ([`Match::metadata`] has the
    /// target's).
    pub fn ino(&self) -> u64 {
        self.visit.ino()
    }

    /// Whether this is a directory's visit after its entries (`-depth`).
    pub fn is_post_order(&self) -> bool {
        self.visit.is_post_order()
    }

    /// Whether the walk follows this entry if it is a symlink (`-L`, or a
    /// starting point under `-H`): then the type and metadata are the
    /// target's, or the link's own if it is broken.
    pub fn follows_links(&self) -> bool {
        self.visit.follows_links()
    }

    /// The type as `-type` sees it, without a system call (under `-L`, a
    /// symlink's target's): from the directory entry, or from a stat the
    /// walk or the expression made;
    /// [`FileType::UNKNOWN`] if neither told (a filesystem without
    /// `d_type`, or a followed symlink the expression did not stat).
    pub fn file_type(&self) -> FileType {
        type_without_stat(self.visit)
    }

    /// The metadata the expression fetched (its tests of size, times,
    /// owner...), without a system call; `None` if it fetched none.  The
    /// fields are [`StatFields::BASIC`](dents::StatFields::BASIC) and
    /// those the expression needs; under `-L`, a symlink's target's (the
    /// link's own if broken).
    pub fn cached_metadata(&self) -> Option<&'a Metadata> {
        self.visit.cached_metadata()
    }

    /// The metadata, fetched now if the expression did not (one `statx`
    /// at the directory's descriptor, kept for later calls).
    pub fn metadata(&self) -> io::Result<&'a Metadata> {
        self.visit.metadata()
    }

    /// The entry as an owned value, to keep after the visit.
    pub fn to_owned(&self) -> FoundEntry {
        FoundEntry::of(self.visit)
    }
}

/// The type of `v` without a system call (see [`Match::file_type`]).
fn type_without_stat(v: &Visit<'_>) -> FileType {
    match (v.known_type(), v.follows_links()) {
        (Some(t), false) => t,
        (Some(t), true) if t != FileType::SYMLINK => t,
        _ => v
            .cached_metadata()
            .map_or(FileType::UNKNOWN, |m| m.file_type()),
    }
}

/// An entry the command matched, owned: what
/// [`Command::matches`](crate::Command::matches) yields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundEntry {
    path: Vec<u8>,
    name_start: usize,
    depth: usize,
    ino: u64,
    post_order: bool,
    follows_links: bool,
    file_type: FileType,
    metadata: Option<Metadata>,
}

impl FoundEntry {
    /// The entry of `v`, with the metadata its evaluation fetched.
    pub(crate) fn of(v: &Visit<'_>) -> FoundEntry {
        FoundEntry {
            path: v.path().to_vec(),
            name_start: v.path().len() - v.name().len(),
            depth: v.depth(),
            ino: v.ino(),
            post_order: v.is_post_order(),
            follows_links: v.follows_links(),
            file_type: type_without_stat(v),
            metadata: v.cached_metadata().cloned(),
        }
    }

    /// The path, as the starting point was given and joined with `/`
    /// (what `-print` prints).
    pub fn path(&self) -> &[u8] {
        &self.path
    }

    /// The path, owned.
    pub fn into_path(self) -> Vec<u8> {
        self.path
    }

    /// The last component (a starting point's whole path as given).
    pub fn name(&self) -> &[u8] {
        &self.path[self.name_start..]
    }

    /// Depth below the starting point (starting points are 0).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The inode number from the directory entry (see [`Match::ino`]).
    pub fn ino(&self) -> u64 {
        self.ino
    }

    /// Whether this is a directory's visit after its entries (`-depth`).
    pub fn is_post_order(&self) -> bool {
        self.post_order
    }

    /// Whether the walk followed this entry if it is a symlink (see
    /// [`Match::follows_links`]).
    pub fn follows_links(&self) -> bool {
        self.follows_links
    }

    /// The type as `-type` sees it (see [`Match::file_type`]):
    /// [`FileType::UNKNOWN`] where only a stat would have told and the
    /// expression made none.
    pub fn file_type(&self) -> FileType {
        self.file_type
    }

    /// The metadata the expression fetched (see [`Match::cached_metadata`]);
    /// `None` if it fetched none: no stat is made for a match (a
    /// starting point's, which the walk stats, always comes).
    pub fn metadata(&self) -> Option<&Metadata> {
        self.metadata.as_ref()
    }
}

/// An error that names a path (`find: 'PATH': CAUSE`): a directory that
/// cannot be read, a file that cannot be stat'ed, a starting point that
/// does not exist.  The command's exit status is 1 all the same.
#[derive(Debug)]
pub struct PathError {
    path: Vec<u8>,
    error: io::Error,
    /// GNU's line, as `dents find` would have written it.
    message: Vec<u8>,
}

impl PathError {
    /// The error of `path`, with the line `dents find` writes for it.
    pub(crate) fn new(path: &[u8], error: &io::Error, message: Vec<u8>) -> PathError {
        let error = match error.raw_os_error() {
            Some(n) => io::Error::from_raw_os_error(n),
            None => io::Error::new(error.kind(), error.to_string()),
        };
        PathError {
            path: path.to_vec(),
            error,
            message,
        }
    }

    /// The path, as the walk built it.
    pub fn path(&self) -> &[u8] {
        &self.path
    }

    /// What the system said.
    pub fn io_error(&self) -> &io::Error {
        &self.error
    }

    /// GNU find's line for the error (`dents: 'PATH': CAUSE` and a
    /// newline, quoted for the locale), as `dents find` writes it.
    pub fn message(&self) -> &[u8] {
        &self.message
    }

    /// Writes [`PathError::message`] to standard error, as `dents find`
    /// does.
    pub fn report(&self) {
        dents_tools::errors::write_stderr(&self.message);
    }
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", String::from_utf8_lossy(&self.path), self.error)
    }
}

impl std::error::Error for PathError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}
