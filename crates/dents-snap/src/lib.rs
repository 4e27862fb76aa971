//! Snapshots of a scan in Parquet: one row per entry, written as the walk
//! goes, read by dents, DuckDB, pyarrow and polars.
//!
//! Its modules in layers: each uses only modules of lower layers, so there
//! is no import circle (`tests/layers.rs` keeps it so).
//!
//! | layer | module | concern |
//! |-------|--------|---------|
//! | 0 | [`schema`] | the versioned schema: columns, Parquet types, metadata keys, the version rule, the row order |
//! | 0 | [`problem`] | a problem met during a scan (path, GNU's words, cause) |
//! | 0 | [`escape`] | bytes as one printable token (octal escapes, as `zfs diff`) |
//! | 0 | [`delta`] | a delta-encoded byte-array column decoded into one buffer (the paths) |
//! | 0 | [`chunk`] | a byte-array column (the paths) delta-encoded and compressed into a column chunk |
//! | 1 | [`row`] | one entry as a Rust value; the row order |
//! | 1 | [`record`] | the scan's own record (roots, times, options, version, errors) in the key-value metadata |
//! | 2 | [`merge`] | streams of rows in level order merged into one |
//! | 2 | [`writer`] | the streaming writer: row groups flushed as they fill, a temporary name renamed at the end |
//! | 3 | [`sharded`] | sharded snapshots: a directory of shards; a shard written from rows in any order |
//! | 4 | [`reader`] | the streaming reader: footer and version checked, a row group at a time |
//! | 5 | [`refresh`] | an old snapshot's listings by identity, and when one stands for reading a directory again |
//! | 5 | [`diff`](mod@diff) | two snapshots merged as streams: added, removed, modified, renamed |
//! | 6 | [`scan`](mod@scan) | the scan: the dents walker feeding the writer |
//! | 7 | [`walk_row`] | rows from the library's visitor walk (`dents-mpi scan`) |
//! | 7 | [`args`] | a scan's command line (`dents scan`, `dents-mpi scan`) read into options, or a usage error |
//!
//! The Parquet code is the `parquet` crate without arrow (its low-level
//! column writer and reader) and with zstd only: nothing here needs
//! arrow's arrays (docs/snapshot.md has the build times measured).  The
//! exceptions are the delta-encoded paths and names: decoded here
//! ([`delta`]), as the crate's decoder allocates each value, which cost
//! a refresh's index two fifths of its time (the pages still come
//! decompressed from the crate); and encoded here ([`chunk`]), as the
//! crate's encoder takes each value behind a reference count, nearly
//! half of what a names-only refresh spent writing (the page headers
//! and the chunk's metadata are still the crate's).
//!
//! This library never exits the process and keeps no global state; the
//! `dents scan` and `dents diff` commands are dents-cli's (their words
//! and messages: [`args`] only reads a scan's command line into data).

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod args;
pub mod chunk;
pub mod delta;
pub mod diff;
pub mod escape;
pub mod merge;
pub mod problem;
pub mod reader;
pub mod record;
pub mod refresh;
pub mod row;
pub mod scan;
pub mod schema;
pub mod sharded;
pub mod walk_row;
pub mod writer;

pub use reader::SnapshotReader;
pub use record::ScanRecord;
pub use row::Row;
pub use scan::{scan, Problem, ScanOptions, Summary};
pub use writer::SnapshotWriter;

use std::fmt;

/// What can go wrong writing or reading a snapshot.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A system call on this path failed.
    Io(Vec<u8>, std::io::Error),
    /// The file is not Parquet, or is cut short (no valid footer).
    NotParquet(Vec<u8>, String),
    /// A Parquet file, but not a dents snapshot.
    Foreign(Vec<u8>),
    /// A dents snapshot of another schema version (the version it says).
    Version(Vec<u8>, String),
    /// A snapshot whose columns are not the schema's.
    Schema(Vec<u8>),
    /// The scan's record lacks this key or has it malformed.
    Record(Vec<u8>, &'static str),
    /// The data inside the file is damaged.
    Corrupt(String),
    /// The Parquet library failed.
    Parquet(parquet::errors::ParquetError),
    /// The writer was used after it failed.
    Closed,
    /// A sharded snapshot (or one of its shards) that cannot be read as
    /// one: what is wrong.
    Sharded(Vec<u8>, String),
}

impl From<parquet::errors::ParquetError> for Error {
    fn from(e: parquet::errors::ParquetError) -> Self {
        match e {
            // Writes go through std::io: keep the OS's error (a full disk).
            parquet::errors::ParquetError::External(inner) => {
                match inner.downcast::<std::io::Error>() {
                    Ok(io) => Error::Io(Vec::new(), *io),
                    Err(other) => Error::Parquet(parquet::errors::ParquetError::External(other)),
                }
            }
            e => Error::Parquet(e),
        }
    }
}

impl Error {
    /// The file the error is about, if it names one.
    pub fn path(&self) -> Option<&[u8]> {
        match self {
            Error::Io(p, _) if p.is_empty() => None,
            Error::Io(p, _)
            | Error::NotParquet(p, _)
            | Error::Foreign(p)
            | Error::Version(p, _)
            | Error::Schema(p)
            | Error::Record(p, _)
            | Error::Sharded(p, _) => Some(p),
            Error::Corrupt(_) | Error::Parquet(_) | Error::Closed => None,
        }
    }
}

impl fmt::Display for Error {
    /// `'PATH': what`, the path quoted as GNU quotes it in messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let q = |p: &[u8]| {
            let mut m = Vec::new();
            dents_tools::quote::for_message(&mut m, p);
            String::from_utf8_lossy(&m).into_owned()
        };
        match self {
            Error::Io(p, e) if p.is_empty() => write!(f, "{}", scan::describe(e)),
            Error::Io(p, e) => write!(f, "{}: {}", q(p), scan::describe(e)),
            Error::NotParquet(p, why) => write!(
                f,
                "{}: not a snapshot: not a Parquet file, or cut short ({why})",
                q(p)
            ),
            Error::Foreign(p) => write!(
                f,
                "{}: not a dents snapshot (a Parquet file without {})",
                q(p),
                schema::VERSION_KEY
            ),
            Error::Version(p, v) => write!(
                f,
                "{}: snapshot schema version {v}; this dents reads version {}",
                q(p),
                schema::VERSION
            ),
            Error::Schema(p) => write!(
                f,
                "{}: not a dents snapshot: its columns are not the schema's",
                q(p)
            ),
            Error::Record(p, k) => write!(
                f,
                "{}: damaged snapshot: metadata {k} missing or malformed",
                q(p)
            ),
            Error::Corrupt(why) => write!(f, "damaged snapshot: {why}"),
            Error::Parquet(e) => write!(f, "{e}"),
            Error::Closed => write!(f, "snapshot writer used after a failure"),
            Error::Sharded(p, why) => write!(f, "{}: {why}", q(p)),
        }
    }
}

impl std::error::Error for Error {}
