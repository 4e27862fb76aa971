//! Helpers for the tests of snapshots (`dents scan`, `find --from`,
//! `du --from`, `dents-mpi scan`, the file format): scanning a tree,
//! making the files a reader must refuse, reading rows back.
//!
//! The Parquet writer is behind the `parquet` feature, and reading rows
//! behind `snap` (which needs `dents-snap`): dents-snap's own tests use
//! the first without the second, so that this crate depends on the crate
//! they test only where a caller asks for it.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::cli::c_locale_command;

/// The snapshot [`scan`] and [`fresh`] write, in the directory they scan
/// from.
pub const SNAPSHOT: &str = "s.parquet";

/// Runs `program scan -o OUT OPTS ROOTS` in `dir` (in the C locale, see
/// [`c_locale_command`]), which must succeed; what it did.
pub fn scan_to(
    program: impl AsRef<OsStr>,
    dir: &Path,
    out: &str,
    opts: &[&str],
    roots: &[&str],
) -> Output {
    let mut args = vec!["scan", "-o", out];
    args.extend_from_slice(opts);
    args.extend_from_slice(roots);
    let o = c_locale_command(program, dir, &args).output().unwrap();
    assert!(o.status.success(), "dents scan: {o:?}");
    o
}

/// Runs `program scan -o s.parquet OPTS ROOTS` in `dir` (see
/// [`scan_to`]); the snapshot's path.
pub fn scan(program: impl AsRef<OsStr>, dir: &Path, opts: &[&str], roots: &[&str]) -> PathBuf {
    scan_to(program, dir, SNAPSHOT, opts, roots);
    dir.join(SNAPSHOT)
}

/// A new temporary directory holding the tree `build` makes, its access
/// times settled by one run of `program SETTLE` (the first walk moves the
/// directories' ones, relatime, which would make a later walk differ from
/// the scan), then `t` scanned with [`scan`]: the directory and the
/// snapshot's path.
pub fn fresh(
    program: impl AsRef<OsStr>,
    build: fn(&Path),
    settle: &[&str],
) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    build(tmp.path());
    c_locale_command(program.as_ref(), tmp.path(), settle)
        .output()
        .unwrap();
    let snap = scan(program, tmp.path(), &[], &["t"]);
    (tmp, snap)
}

/// Writes at `dst` the first half of the snapshot `good`: a file cut
/// short, its Parquet footer gone.
pub fn cut_short(good: &Path, dst: &Path) {
    let bytes = fs::read(good).unwrap();
    fs::write(dst, &bytes[..bytes.len() / 2]).unwrap();
}

/// Writes at `dst` a text file (CSV) that is no Parquet file.
pub fn not_parquet(dst: &Path) {
    fs::write(dst, b"path,size\nt,1\n").unwrap();
}

/// A Parquet file with `message` as schema and the key-value pairs `kv`,
/// no rows, written by the parquet crate directly (not by dents's
/// writer, which writes only snapshots).
#[cfg(feature = "parquet")]
pub fn parquet_with<K: AsRef<str>, V: AsRef<str>>(path: &Path, message: &str, kv: &[(K, V)]) {
    use parquet::file::metadata::KeyValue;
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use std::sync::Arc;
    let schema = Arc::new(parquet::schema::parser::parse_message_type(message).unwrap());
    let file = fs::File::create(path).unwrap();
    let mut w =
        SerializedFileWriter::new(file, schema, Arc::new(WriterProperties::builder().build()))
            .unwrap();
    for (k, v) in kv {
        w.append_key_value_metadata(KeyValue::new(k.as_ref().to_owned(), v.as_ref().to_owned()));
    }
    w.close().unwrap();
}

/// Writes at `dst` somebody else's Parquet file: a schema of one column
/// `x`, and no `dents.snapshot.version` among its key-value pairs.
#[cfg(feature = "parquet")]
pub fn foreign_parquet(dst: &Path) {
    parquet_with(
        dst,
        "message m { required int64 x; }",
        &[("owner", "someone")],
    );
}

/// Writes at `dst` a snapshot of schema version 2 (this dents reads 1):
/// the snapshot's schema, the record of a scan of `t` with its version
/// changed.
#[cfg(feature = "snap")]
pub fn other_version(dst: &Path) {
    let mut pairs = dents_snap::ScanRecord {
        roots: vec![b"t".to_vec()],
        ..Default::default()
    }
    .to_pairs();
    // The first pair is the version (`ScanRecord::to_pairs`).
    pairs[0].1 = "2".into();
    parquet_with(dst, dents_snap::schema::MESSAGE, &pairs);
}

/// The record and the rows, in order, of a snapshot (a file or a sharded
/// directory); panics, naming it, if it cannot be read.
#[cfg(feature = "snap")]
pub fn read(snapshot: &Path) -> (dents_snap::ScanRecord, Vec<dents_snap::Row>) {
    let r =
        dents_snap::SnapshotReader::open(snapshot).unwrap_or_else(|e| panic!("{snapshot:?}: {e}"));
    let rows = r
        .rows()
        .map(|r| r.unwrap_or_else(|e| panic!("{snapshot:?}: {e}")))
        .collect();
    (r.record().clone(), rows)
}

/// The rows of a snapshot, in order (see [`read`]).
#[cfg(feature = "snap")]
pub fn rows(snapshot: &Path) -> Vec<dents_snap::Row> {
    read(snapshot).1
}
