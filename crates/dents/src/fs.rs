//! Descriptor-relative file operations with dents's own types: open a
//! directory, stat an entry of one, read a symlink.
//!
//! These are what a program working beside the walker (or beside
//! [`DirReader`](crate::dir::DirReader) and [`crate::slice`]) needs to go
//! on from where they leave it: a directory's descriptor and an entry's
//! name relative to it ([`Visit::parent_fd`](crate::walk::Visit::parent_fd)
//! and [`Visit::at_name`](crate::walk::Visit::at_name)), so that nothing
//! is looked up by path again.  Stats return [`Metadata`] and take
//! [`StatFields`]: no type of a dependency appears here.
//!
//! ```
//! use dents::{fs, StatFields};
//! # fn main() -> std::io::Result<()> {
//! let tmp = tempfile::tempdir()?;
//! std::fs::write(tmp.path().join("file"), b"12345")?;
//! std::os::unix::fs::symlink("file", tmp.path().join("link"))?;
//! let path = std::ffi::CString::new(tmp.path().as_os_str().as_encoded_bytes())?;
//! let dir = fs::open_dir(&path)?;
//! use std::os::fd::AsFd;
//! let link = fs::stat_at(dir.as_fd(), c"link", StatFields::SIZE)?;
//! assert!(link.is_symlink());
//! let target = fs::stat_follow_at(dir.as_fd(), c"link", StatFields::SIZE)?;
//! assert_eq!(target.len(), 5);
//! assert_eq!(fs::readlink_at(dir.as_fd(), c"link")?, b"file");
//! assert!(fs::fstat(dir.as_fd())?.is_dir());
//! # Ok(())
//! # }
//! ```

use std::ffi::CStr;
use std::io;
use std::os::fd::{BorrowedFd, OwnedFd};

pub use crate::descriptors::{
    descriptors_free, grow_descriptor_table, out_of_descriptors, retry_emfile,
};
use crate::metadata::{Metadata, StatFields};
use crate::sys;

/// Opens a directory named by a path (absolute, or relative to the
/// current directory), following symlinks as command-line arguments are
/// followed.  Read-only and close-on-exec.
pub fn open_dir(path: &CStr) -> io::Result<OwnedFd> {
    sys::open_dir_path(path)
}

/// Opens the directory `name` relative to `parent`, not following a
/// symlink in the last component (`O_NOFOLLOW`: a symlink is an error,
/// `ELOOP`).
pub fn open_dir_at(parent: BorrowedFd<'_>, name: &CStr) -> io::Result<OwnedFd> {
    sys::open_dir_at(parent, name)
}

/// Opens the directory `name` relative to `parent`, following a symlink
/// in its last component (`find -L`).
pub fn open_dir_follow_at(parent: BorrowedFd<'_>, name: &CStr) -> io::Result<OwnedFd> {
    sys::open_dir_follow_at(parent, name)
}

/// The metadata of `name` relative to the directory `dir`, not following
/// a final symlink (`lstat`), fetching `fields` (the type and mode
/// always): one `statx`.
pub fn stat_at(dir: BorrowedFd<'_>, name: &CStr, fields: StatFields) -> io::Result<Metadata> {
    sys::statx_at(dir, name, fields.statx_mask()).map(|st| Metadata::from_statx(&st))
}

/// The metadata of `name` relative to `dir`, following symlinks (`stat`),
/// fetching `fields` (the type and mode always): one `statx`.
pub fn stat_follow_at(
    dir: BorrowedFd<'_>,
    name: &CStr,
    fields: StatFields,
) -> io::Result<Metadata> {
    sys::statx_follow_at(dir, name, fields.statx_mask()).map(|st| Metadata::from_statx(&st))
}

/// The metadata of an open file (every field of [`StatFields::BASIC`]).
pub fn fstat(fd: BorrowedFd<'_>) -> io::Result<Metadata> {
    sys::statx_fd(fd, StatFields::BASIC.statx_mask()).map(|st| Metadata::from_statx(&st))
}

/// The target of the symlink `name` relative to `dir`, as bytes.
pub fn readlink_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<Vec<u8>> {
    sys::readlink_at(dir, name)
}
