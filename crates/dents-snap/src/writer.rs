//! The streaming writer: rows buffered column by column up to one row
//! group, then compressed (zstd) and written; nothing kept per entry once
//! its row group is out.  The file is written under a temporary name in
//! the target's directory and renamed over the target only by
//! [`SnapshotWriter::finish`], after the footer is written and the data
//! synced: a scan that fails or is interrupted leaves no file that looks
//! complete (and a temporary one only if the process is killed).

use std::fs::{File, OpenOptions};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, Int32Type, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;

use crate::chunk::ChunkWriter;
use crate::record::ScanRecord;
use crate::row::Row;
use crate::schema;
use crate::Error;

/// Rows in a row group: 16 Ki rows of ~100-byte paths is a few MiB of
/// buffers (here and in every reader, which holds one group), and large
/// enough groups for zstd: on the real-tree shape 32 Ki rows made the
/// file no smaller and the scan's peak RSS larger (docs/history/
/// benchmarks.md, "Issue 27: dents scan speed and memory, session 12").
pub const ROW_GROUP_ROWS: usize = 16 * 1024;

/// Bytes of paths, names and targets that flush a row group early
/// (very long paths), so the buffers stay bounded whatever the names.
const ROW_GROUP_BYTES: usize = 32 << 20;

/// The columns of a row group being filled: the writer's own (rows
/// pushed one by one), or one filled by a scan's visits and written whole
/// ([`SnapshotWriter::write_group`]), so that its rows cross from the walk
/// to the writer's thread a row group at a time.
#[derive(Default)]
pub struct Columns {
    path: Flat,
    name: Flat,
    depth: Vec<i32>,
    kind: Vec<u8>,
    size: Opt<i64>,
    blocks: Opt<i64>,
    mode: Opt<i32>,
    uid: Opt<i32>,
    gid: Opt<i32>,
    nlink: Opt<i64>,
    ino: Vec<i64>,
    dev: Opt<i64>,
    mtime: Opt<i64>,
    ctime: Opt<i64>,
    atime: Opt<i64>,
    target: OptFlat,
    rows: usize,
    bytes: usize,
}

impl Columns {
    /// Adds one row, copied (the caller keeps its buffers).
    pub fn push(&mut self, r: &Row) {
        let c = self;
        c.bytes += r.path.len() + r.name.len() + r.target.as_ref().map_or(0, |t| t.len());
        c.path.push(&r.path);
        c.name.push(&r.name);
        c.depth.push(r.depth as i32);
        c.kind.push(r.kind);
        c.size.push(r.size);
        c.blocks.push(r.blocks);
        c.mode.push(r.mode.map(|v| v as i32));
        c.uid.push(r.uid.map(|v| v as i32));
        c.gid.push(r.gid.map(|v| v as i32));
        c.nlink.push(r.nlink);
        c.ino.push(r.ino as i64);
        c.dev.push(r.dev.map(|v| v as i64));
        c.mtime.push(r.mtime);
        c.ctime.push(r.ctime);
        c.atime.push(r.atime);
        c.target.push(r.target.as_deref());
        c.rows += 1;
    }

    /// Whether the columns hold a whole row group: [`ROW_GROUP_ROWS`]
    /// rows, or 32 MiB of paths, names and targets (`ROW_GROUP_BYTES`).
    pub fn is_full(&self) -> bool {
        self.rows >= ROW_GROUP_ROWS || self.bytes >= ROW_GROUP_BYTES
    }

    /// Rows held.
    pub fn rows(&self) -> usize {
        self.rows
    }
}

/// A byte-array column: the values end to end and where each ends.  A
/// row costs a copy into one buffer, not an allocation of its own; the
/// `ByteArray`s the column writer takes are made when the row group is
/// written, all slices of that one buffer, and the buffer is taken back
/// once the column is written ([`Flat::give_back`]): a row group costs
/// no new buffer (a fresh one of a few MiB is fresh pages, each a fault
/// and a zeroing by the kernel).
#[derive(Default)]
struct Flat {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Flat {
    fn push(&mut self, v: &[u8]) {
        self.bytes.extend_from_slice(v);
        self.ends.push(self.bytes.len());
    }

    /// The values as `ByteArray`s sharing one buffer, and that buffer
    /// (for [`Flat::give_back`]); the column is left empty.
    fn take_arrays(&mut self) -> (Bytes, Vec<ByteArray>) {
        let all = Bytes::from(std::mem::take(&mut self.bytes));
        let mut start = 0;
        let arrays = self
            .ends
            .iter()
            .map(|&end| {
                let a = ByteArray::from(all.slice(start..end));
                start = end;
                a
            })
            .collect();
        self.ends.clear();
        (all, arrays)
    }

    /// Takes back the buffer of [`Flat::take_arrays`] once its column is
    /// written (nothing else holds it then), to fill the next row group;
    /// if something still held it, the next group starts a buffer of the
    /// same size (no regrowth by doubling in a steady stream of rows).
    fn give_back(&mut self, all: Bytes) {
        self.bytes = match all.try_into_mut() {
            Ok(b) => {
                let mut v = Vec::from(b);
                v.clear();
                v
            }
            Err(all) => Vec::with_capacity(all.len()),
        };
    }
}

/// The type column's values: one static slice a letter, so that no value
/// costs an allocation or a reference count.
fn letters(kind: &mut Vec<u8>) -> Vec<ByteArray> {
    let v = kind
        .iter()
        .map(|&k| match LETTERS.iter().position(|&l| l == k) {
            Some(i) => ByteArray::from(Bytes::from_static(&LETTERS[i..i + 1])),
            // Not a letter of the schema's (a row made elsewhere): as is.
            None => ByteArray::from(vec![k]),
        })
        .collect();
    kind.clear();
    v
}

const LETTERS: &[u8] = b"fdlbcpsU";

/// A nullable column: the values present and one definition level per
/// row (1 present, 0 null).
struct Opt<T> {
    values: Vec<T>,
    defs: Vec<i16>,
}

impl<T> Default for Opt<T> {
    fn default() -> Self {
        Opt {
            values: Vec::new(),
            defs: Vec::new(),
        }
    }
}

impl<T> Opt<T> {
    fn push(&mut self, v: Option<T>) {
        match v {
            Some(v) => {
                self.values.push(v);
                self.defs.push(1);
            }
            None => self.defs.push(0),
        }
    }

    fn clear(&mut self) {
        self.values.clear();
        self.defs.clear();
    }
}

/// A nullable byte-array column ([`Opt`] of a [`Flat`]).
#[derive(Default)]
struct OptFlat {
    values: Flat,
    defs: Vec<i16>,
}

impl OptFlat {
    fn push(&mut self, v: Option<&[u8]>) {
        match v {
            Some(v) => {
                self.values.push(v);
                self.defs.push(1);
            }
            None => self.defs.push(0),
        }
    }
}

/// A snapshot being written (see the module doc).
pub struct SnapshotWriter {
    writer: Option<SerializedFileWriter<File>>,
    /// The same file, to sync it once the footer is written.
    file: File,
    tmp: PathBuf,
    target: PathBuf,
    cols: Columns,
    rows: u64,
    /// The paths' and names' column chunks ([`crate::chunk`]).
    chunks: ChunkWriter,
}

impl SnapshotWriter {
    /// Starts a snapshot to be renamed to `target` by
    /// [`SnapshotWriter::finish`].
    pub fn create(target: &Path) -> Result<SnapshotWriter, Error> {
        let tmp = temp_name(target);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| Error::Io(tmp.as_os_str().as_bytes().to_vec(), e))?;
        let cleanup = |e: Error| {
            let _ = std::fs::remove_file(&tmp);
            e
        };
        let clone = file
            .try_clone()
            .map_err(|e| cleanup(Error::Io(tmp.as_os_str().as_bytes().to_vec(), e)))?;
        let schema = Arc::new(parse_message_type(schema::MESSAGE).map_err(|e| cleanup(e.into()))?);
        let writer = SerializedFileWriter::new(clone, schema, Arc::new(properties()))
            .map_err(|e| cleanup(e.into()))?;
        let chunks = ChunkWriter::new(zstd_level()).map_err(cleanup)?;
        Ok(SnapshotWriter {
            writer: Some(writer),
            file,
            tmp,
            target: target.to_owned(),
            cols: Columns::default(),
            rows: 0,
            chunks,
        })
    }

    /// Adds one row; writes a row group when one is full.
    pub fn push(&mut self, r: Row) -> Result<(), Error> {
        self.push_ref(&r)
    }

    /// Adds one row, copied: the caller keeps (and may reuse) its
    /// buffers.  Writes a row group when one is full.
    pub fn push_ref(&mut self, r: &Row) -> Result<(), Error> {
        self.cols.push(r);
        self.rows += 1;
        if self.cols.is_full() {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes `c`'s rows (a whole row group, filled elsewhere: see
    /// [`Columns`]) after the rows pushed before, and leaves `c` empty
    /// with its buffers, to be filled again.
    pub fn write_group(&mut self, c: &mut Columns) -> Result<(), Error> {
        self.flush()?;
        self.rows += c.rows as u64;
        let w = self.writer.as_mut().ok_or(Error::Closed)?;
        write_columns(w, &mut self.chunks, c)
    }

    /// Rows pushed so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes the buffered rows as one row group.
    fn flush(&mut self) -> Result<(), Error> {
        let w = self.writer.as_mut().ok_or(Error::Closed)?;
        write_columns(w, &mut self.chunks, &mut self.cols)
    }

    /// Writes the last row group and the footer with `record`, syncs the
    /// file and renames it to the target.  On error nothing is left.
    pub fn finish(self, record: &ScanRecord) -> Result<(), Error> {
        self.finish_with(record, &[])
    }

    /// [`SnapshotWriter::finish`], with more key-value pairs in the
    /// footer after the record's (a shard's place in a sharded snapshot,
    /// [`crate::sharded`]).
    pub fn finish_with(
        mut self,
        record: &ScanRecord,
        extra: &[(String, String)],
    ) -> Result<(), Error> {
        self.flush()?;
        let mut w = self.writer.take().ok_or(Error::Closed)?;
        for (k, v) in record.to_pairs().into_iter().chain(extra.iter().cloned()) {
            w.append_key_value_metadata(KeyValue::new(k, v));
        }
        w.close()?;
        let path_err = |p: &Path, e| Error::Io(p.as_os_str().as_bytes().to_vec(), e);
        self.file.sync_all().map_err(|e| path_err(&self.tmp, e))?;
        std::fs::rename(&self.tmp, &self.target).map_err(|e| path_err(&self.target, e))?;
        // Renamed: nothing for Drop to remove.
        self.tmp = PathBuf::new();
        Ok(())
    }
}

impl Drop for SnapshotWriter {
    /// A snapshot not finished is removed: nothing partial stays.
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Columns whose values rarely repeat within a row group: written plain,
/// without a dictionary.  A row group's 16 Ki values never fill the
/// writer's dictionary page, so it never fell back: each value was hashed
/// into a dictionary nearly as long as the column, then stored as an
/// index beside it; zstd does better on the plain values (the real-tree
/// shape's snapshot 7.43 -> 6.39 MB, `flat1m`'s 3.50 -> 1.56 MB) and the
/// writer spends 8-13% less CPU (docs/history/benchmarks.md, "Issue 27:
/// the writer's CPU, session 16").  The others (`depth`, `type`, `mode`,
/// `uid`, `gid`, `nlink`, `dev`) repeat a few values and keep theirs.
pub const PLAIN_COLUMNS: [&str; 6] = ["size", "blocks", "ino", "mtime", "ctime", "atime"];

/// The writer's settings: zstd; paths and names delta-encoded (sorted
/// siblings share prefixes) rather than dictionary-encoded;
/// [`PLAIN_COLUMNS`] plain.
fn properties() -> WriterProperties {
    let mut p = WriterProperties::builder()
        .set_compression(Compression::ZSTD(zstd_level()))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_created_by(format!("dents {}", env!("CARGO_PKG_VERSION")));
    for c in ["path", "name", "target"] {
        let col = ColumnPath::from(c);
        p = p
            .set_column_dictionary_enabled(col.clone(), false)
            .set_column_statistics_enabled(col.clone(), EnabledStatistics::None)
            .set_column_encoding(col, Encoding::DELTA_BYTE_ARRAY);
    }
    for c in PLAIN_COLUMNS {
        p = p.set_column_dictionary_enabled(ColumnPath::from(c), false);
    }
    p.build()
}

/// zstd's level for every column: the lowest the crate takes (the
/// columns are written once a scan, and read many times).
fn zstd_level() -> ZstdLevel {
    ZstdLevel::try_new(1).unwrap_or_default()
}

/// Writes `c`'s rows as one row group (none if it is empty) and clears
/// it, keeping its buffers.  The paths and names go through `chunks`.
fn write_columns(
    w: &mut SerializedFileWriter<File>,
    chunks: &mut ChunkWriter,
    c: &mut Columns,
) -> Result<(), Error> {
    if c.rows == 0 {
        return Ok(());
    }
    let descr = |i: usize| w.schema_descr().column(i);
    let (path, name) = (descr(0), descr(1));
    let mut rg = w.next_row_group()?;
    macro_rules! req {
        ($t:ty, $v:expr) => {{
            let mut col = rg.next_column()?.ok_or(Error::Closed)?;
            col.typed::<$t>().write_batch(&$v, None, None)?;
            col.close()?;
        }};
    }
    macro_rules! opt {
        ($t:ty, $v:expr) => {{
            let mut col = rg.next_column()?.ok_or(Error::Closed)?;
            col.typed::<$t>()
                .write_batch(&$v.values, Some(&$v.defs), None)?;
            col.close()?;
        }};
    }
    for (flat, descr) in [(&mut c.path, path), (&mut c.name, name)] {
        chunks.append(&mut rg, descr, &flat.bytes, &flat.ends)?;
        flat.bytes.clear();
        flat.ends.clear();
    }
    req!(Int32Type, c.depth);
    req!(ByteArrayType, letters(&mut c.kind));
    opt!(Int64Type, c.size);
    opt!(Int64Type, c.blocks);
    opt!(Int32Type, c.mode);
    opt!(Int32Type, c.uid);
    opt!(Int32Type, c.gid);
    opt!(Int64Type, c.nlink);
    req!(Int64Type, c.ino);
    opt!(Int64Type, c.dev);
    opt!(Int64Type, c.mtime);
    opt!(Int64Type, c.ctime);
    opt!(Int64Type, c.atime);
    {
        let (all, arrays) = c.target.values.take_arrays();
        let mut col = rg.next_column()?.ok_or(Error::Closed)?;
        col.typed::<ByteArrayType>()
            .write_batch(&arrays, Some(&c.target.defs), None)?;
        col.close()?;
        drop(arrays);
        c.target.values.give_back(all);
    }
    rg.close()?;
    c.depth.clear();
    c.ino.clear();
    for o in [
        &mut c.size,
        &mut c.blocks,
        &mut c.nlink,
        &mut c.mtime,
        &mut c.ctime,
        &mut c.atime,
        &mut c.dev,
    ] {
        o.clear();
    }
    for o in [&mut c.mode, &mut c.uid, &mut c.gid] {
        o.clear();
    }
    c.target.defs.clear();
    c.rows = 0;
    c.bytes = 0;
    Ok(())
}

/// `DIR/.NAME.PID.tmp` beside `target`: the same filesystem, so the
/// final rename is atomic; hidden, and not ending in `.parquet`, so that
/// no glob takes it for a snapshot.
fn temp_name(target: &Path) -> PathBuf {
    let dir = target.parent().unwrap_or(Path::new(""));
    let mut name = std::ffi::OsString::from(".");
    name.push(target.file_name().unwrap_or_default());
    name.push(format!(".{}.tmp", std::process::id()));
    dir.join(name)
}
