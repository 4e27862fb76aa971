//! dents: fast, exact directory scanning for Linux.
//!
//! # Module map
//!
//! Data flows upward; each module knows only those listed below it.
//!
//! | module    | concern |
//! |-----------|---------|
//! | [`walk`]  | the parallel walker: trees breadth or depth first, an fd budget, post-order, symlink policy |
//! | [`scan`]  | one directory: which entries are subdirectories, with the fewest stats (d_type, link count, likely-directories first) |
//! | [`slice`](mod@slice) | one directory on many threads: its offset space cut into slices, each read on its own descriptor, exactly once per entry |
//! | [`dir`]   | one directory's entries: `getdents64` into a buffer the reader owns, entries borrowed from it |
//! | [`sys`]   | the only place with `unsafe` and raw system calls |
//!
//! Names are bytes everywhere (`&[u8]`, `&CStr`): never assumed UTF-8.
//!
//! # Example
//!
//! Count the entries of a directory, on as many threads as pay:
//!
//! ```no_run
//! use dents::slice::{read_dir, NameCollector, ReadOptions};
//! # fn main() -> std::io::Result<()> {
//! let dir = dents::sys::open_dir_path(c"/usr/bin")?;
//! let outcome = read_dir(std::os::fd::AsFd::as_fd(&dir), &ReadOptions::default(), |_slice| NameCollector::default());
//! let total: usize = outcome.sinks.iter().map(|s| s.names.len()).sum();
//! println!("{total} entries, read as {:?}", outcome.plan);
//! # Ok(())
//! # }
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod dir;
pub mod scan;
pub mod slice;
#[allow(unsafe_code)]
pub mod sys;
pub mod walk;
