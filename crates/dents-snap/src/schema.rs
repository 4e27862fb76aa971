//! The snapshot's schema, version 1: its columns, their Parquet types,
//! and the keys of the scan's own record (docs/snapshot.md says the same
//! for readers outside Rust).
//!
//! The version rule: a snapshot says its version in the key-value
//! metadata key [`VERSION_KEY`].  Adding a nullable column at the end
//! keeps the version (old readers ignore it); anything else (a column
//! removed, renamed, retyped, reordered, its meaning changed, or the row
//! order changed) makes a new version.  A reader refuses any version but
//! its own, so that no answer comes silently from columns it misreads.

/// The schema version this crate writes and reads.
pub const VERSION: u32 = 1;

/// The key-value metadata key holding [`VERSION`] (decimal).
pub const VERSION_KEY: &str = "dents.snapshot.version";

/// The Parquet schema, in the Parquet message syntax.
///
/// Paths, names and symlink targets are `binary` without a `STRING`
/// annotation: they are the exact bytes of the directory entries, which
/// need not be UTF-8 (DuckDB reads them as `BLOB`; `decode(path)` gives
/// text where they are UTF-8).  Times are nanoseconds since the epoch,
/// UTC; a time outside what 64 bits of nanoseconds hold (before 1677,
/// after 2262) is stored as null.
pub const MESSAGE: &str = "
message dents_snapshot {
  required binary path;
  required binary name;
  required int32 depth;
  required binary type (STRING);
  optional int64 size;
  optional int64 blocks;
  optional int32 mode (INTEGER(32,false));
  optional int32 uid (INTEGER(32,false));
  optional int32 gid (INTEGER(32,false));
  optional int64 nlink;
  required int64 ino (INTEGER(64,false));
  optional int64 dev (INTEGER(64,false));
  optional int64 mtime (TIMESTAMP(NANOS,true));
  optional int64 ctime (TIMESTAMP(NANOS,true));
  optional int64 atime (TIMESTAMP(NANOS,true));
  optional binary target;
}
";

/// The columns in schema order (their names in [`MESSAGE`]).
pub const COLUMNS: [&str; 16] = [
    "path", "name", "depth", "type", "size", "blocks", "mode", "uid", "gid", "nlink", "ino", "dev",
    "mtime", "ctime", "atime", "target",
];

/// Key of the scan's roots: each escaped ([`crate::escape`]), one per line.
pub const ROOTS_KEY: &str = "dents.scan.roots";
/// Key of the time the scan started: `SECONDS.NANOSECONDS` since the epoch.
pub const START_KEY: &str = "dents.scan.start";
/// Key of the time the scan ended, as [`START_KEY`].
pub const END_KEY: &str = "dents.scan.end";
/// Key of the scan's options, as given on `dents scan`'s command line.
pub const OPTIONS_KEY: &str = "dents.scan.options";
/// Key of the version of dents that wrote the snapshot.
pub const DENTS_VERSION_KEY: &str = "dents.version";
/// Key of the number of errors met (all of them, even past [`MAX_ERRORS`]).
pub const ERROR_COUNT_KEY: &str = "dents.scan.error_count";
/// Key of the errors' messages: each escaped, one per line, the first
/// [`MAX_ERRORS`] only.
pub const ERRORS_KEY: &str = "dents.scan.errors";
/// Key of the old snapshot a refresh started from (`--since`), escaped;
/// absent or empty for a scan that read every directory.  Keys added
/// after version 1 was first written: a reader takes a missing one as
/// empty or 0.
pub const SINCE_KEY: &str = "dents.scan.since";
/// Key of the number of directories read (`getdents`).
pub const DIRS_READ_KEY: &str = "dents.scan.dirs_read";
/// Key of the number of directories whose listing came from the old
/// snapshot instead ([`SINCE_KEY`]).
pub const DIRS_REUSED_KEY: &str = "dents.scan.dirs_reused";
/// Key of the row order: [`ORDER`].
pub const ORDER_KEY: &str = "dents.snapshot.order";

/// The row order of version 1: level order, the roots sorted by their
/// bytes, then every entry at depth 1, then at depth 2..., each level in
/// the order of its paths compared name by name (bytes).  It is the
/// order of a sorted breadth-first walk, which does not depend on the
/// threads, and the order `dents diff` merges two snapshots in.
pub const ORDER: &str = "level";

/// Error messages kept in the record at most: the count says how many
/// more there were, and memory stays bounded on a tree where every
/// directory fails.
pub const MAX_ERRORS: usize = 10_000;

/// An entry's type as the `type` column spells it: find's `%y` letters.
pub fn type_letter(t: dents::FileType) -> &'static str {
    use dents::FileType as T;
    match t {
        T::REGULAR => "f",
        T::DIRECTORY => "d",
        T::SYMLINK => "l",
        T::BLOCK_DEVICE => "b",
        T::CHAR_DEVICE => "c",
        T::FIFO => "p",
        T::SOCKET => "s",
        _ => "U",
    }
}

/// The type a `type` letter stands for ([`type_letter`]'s inverse; `U`,
/// or a letter the schema does not have, is unknown).
pub fn letter_type(letter: u8) -> dents::FileType {
    use dents::FileType as T;
    match letter {
        b'f' => T::REGULAR,
        b'd' => T::DIRECTORY,
        b'l' => T::SYMLINK,
        b'b' => T::BLOCK_DEVICE,
        b'c' => T::CHAR_DEVICE,
        b'p' => T::FIFO,
        b's' => T::SOCKET,
        _ => T::UNKNOWN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dents::FileType as T;

    #[test]
    fn a_type_letter_reads_back_as_its_type() {
        let types = [
            T::REGULAR,
            T::DIRECTORY,
            T::SYMLINK,
            T::BLOCK_DEVICE,
            T::CHAR_DEVICE,
            T::FIFO,
            T::SOCKET,
            T::UNKNOWN,
        ];
        for t in types {
            assert_eq!(letter_type(type_letter(t).as_bytes()[0]), t, "{t:?}");
        }
        assert_eq!(letter_type(b'x'), T::UNKNOWN);
    }
}
