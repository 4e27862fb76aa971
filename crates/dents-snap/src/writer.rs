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

use crate::record::ScanRecord;
use crate::row::Row;
use crate::schema;
use crate::Error;

/// Rows in a row group: 32 Ki rows of ~100-byte paths is a few MiB of
/// buffers, and large enough groups for zstd and readers' scans.
pub const ROW_GROUP_ROWS: usize = 32 * 1024;

/// Bytes of paths, names and targets that flush a row group early
/// (very long paths), so the buffers stay bounded whatever the names.
const ROW_GROUP_BYTES: usize = 32 << 20;

/// The columns of the row group being filled.
#[derive(Default)]
struct Columns {
    path: ByteCol,
    name: ByteCol,
    depth: Vec<i32>,
    kind: Vec<ByteArray>,
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
    target: ByteCol,
    target_defs: Vec<i16>,
    rows: usize,
    bytes: usize,
}

/// A byte-string column of the row group being filled: the values'
/// bytes end to end and where each ends, made into values at the flush
/// as slices of one shared buffer.  Each value made from the row's own
/// vector cost a shrinking `realloc`, and each clone the encoders take
/// of such a value allocated a shared header: the allocator was a third
/// of a names-only refresh's CPU.
#[derive(Default)]
struct ByteCol {
    data: Vec<u8>,
    ends: Vec<usize>,
}

impl ByteCol {
    fn push(&mut self, v: &[u8]) {
        self.data.extend_from_slice(v);
        self.ends.push(self.data.len());
    }

    /// The values pushed since the last flush, emptying the column (its
    /// next buffer sized as this one).
    fn take(&mut self) -> Vec<ByteArray> {
        let size = self.data.len();
        let buf = Bytes::from(std::mem::replace(&mut self.data, Vec::with_capacity(size)));
        let mut start = 0;
        let values = self
            .ends
            .iter()
            .map(|&end| {
                let v = ByteArray::from(buf.slice(start..end));
                start = end;
                v
            })
            .collect();
        self.ends.clear();
        values
    }
}

/// The `type` column's value for a letter: a static slice, so that
/// neither the row nor the encoders' clones allocate.
fn kind_value(kind: u8) -> ByteArray {
    const LETTERS: &[u8] = b"fdlbcpsU";
    let at = LETTERS.iter().position(|&c| c == kind);
    match at {
        Some(i) => ByteArray::from(Bytes::from_static(&LETTERS[i..i + 1])),
        None => ByteArray::from(vec![kind]),
    }
}

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

/// A snapshot being written (see the module doc).
pub struct SnapshotWriter {
    writer: Option<SerializedFileWriter<File>>,
    /// The same file, to sync it once the footer is written.
    file: File,
    tmp: PathBuf,
    target: PathBuf,
    cols: Columns,
    rows: u64,
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
        Ok(SnapshotWriter {
            writer: Some(writer),
            file,
            tmp,
            target: target.to_owned(),
            cols: Columns::default(),
            rows: 0,
        })
    }

    /// Adds one row (its byte strings moved, not copied); writes a row
    /// group when one is full.
    pub fn push(&mut self, r: Row) -> Result<(), Error> {
        let c = &mut self.cols;
        c.bytes += r.path.len() + r.name.len() + r.target.as_ref().map_or(0, |t| t.len());
        c.path.push(&r.path);
        c.name.push(&r.name);
        c.depth.push(r.depth as i32);
        c.kind.push(kind_value(r.kind));
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
        match &r.target {
            Some(t) => {
                c.target.push(t);
                c.target_defs.push(1);
            }
            None => c.target_defs.push(0),
        }
        c.rows += 1;
        self.rows += 1;
        if c.rows >= ROW_GROUP_ROWS || c.bytes >= ROW_GROUP_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Rows pushed so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes the buffered rows as one row group.
    fn flush(&mut self) -> Result<(), Error> {
        if self.cols.rows == 0 {
            return Ok(());
        }
        let w = self.writer.as_mut().ok_or(Error::Closed)?;
        let mut rg = w.next_row_group()?;
        let c = &mut self.cols;
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
        req!(ByteArrayType, c.path.take());
        req!(ByteArrayType, c.name.take());
        req!(Int32Type, c.depth);
        req!(ByteArrayType, c.kind);
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
            let mut col = rg.next_column()?.ok_or(Error::Closed)?;
            col.typed::<ByteArrayType>().write_batch(
                &c.target.take(),
                Some(&c.target_defs),
                None,
            )?;
            col.close()?;
        }
        rg.close()?;
        c.depth.clear();
        c.kind.clear();
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
        c.target_defs.clear();
        c.rows = 0;
        c.bytes = 0;
        Ok(())
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

/// The writer's settings: zstd; paths and names delta-encoded (sorted
/// siblings share prefixes) rather than dictionary-encoded.
fn properties() -> WriterProperties {
    let mut p = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).unwrap_or_default()))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_created_by(format!("dents {}", env!("CARGO_PKG_VERSION")));
    for c in ["path", "name", "target"] {
        let col = ColumnPath::from(c);
        p = p
            .set_column_dictionary_enabled(col.clone(), false)
            .set_column_statistics_enabled(col.clone(), EnabledStatistics::None)
            .set_column_encoding(col, Encoding::DELTA_BYTE_ARRAY);
    }
    p.build()
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
