//! The streaming reader: the footer checked when opening (a Parquet
//! file, a dents snapshot, this schema version), then the rows a row
//! group at a time: memory holds one row group, whatever the file's size.
//!
//! A sharded snapshot (a directory of shards, [`crate::sharded`]) reads
//! as one: every shard checked when opening, the record shard 0's, and
//! the rows of all shards merged in level order as they stream (one row
//! group per shard in memory).

use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use parquet::column::reader::get_typed_column_reader;
use parquet::data_type::{ByteArray, ByteArrayType, DataType, Int32Type, Int64Type};
use parquet::file::reader::{FileReader, RowGroupReader};
use parquet::file::serialized_reader::SerializedFileReader;
use parquet::schema::parser::parse_message_type;

use crate::delta;
use crate::merge::Merge;
use crate::record::ScanRecord;
use crate::row::Row;
use crate::schema;
use crate::sharded;
use crate::Error;

/// A snapshot opened for reading: one file, or the shards of a sharded
/// snapshot.
pub struct SnapshotReader {
    /// The files, in the order of their shard index.
    shards: Vec<SerializedFileReader<File>>,
    record: ScanRecord,
}

/// A file opened and checked: its reader, record and place among shards
/// (index, count), if it is a shard.
type Opened = (SerializedFileReader<File>, ScanRecord, Option<(u32, u32)>);

impl std::fmt::Debug for SnapshotReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnapshotReader")
            .field("record", &self.record)
            .finish()
    }
}

impl SnapshotReader {
    /// Opens `path`: refuses a file that is not Parquet or is cut short
    /// ([`Error::NotParquet`]), a Parquet file that is not a snapshot
    /// ([`Error::Foreign`]), and a snapshot of another schema version
    /// ([`Error::Version`]).  A directory is opened as a sharded
    /// snapshot ([`crate::sharded`]): all its shards, each checked, must
    /// be there ([`Error::Sharded`]); a shard of several is refused
    /// alone.
    pub fn open(path: &Path) -> Result<SnapshotReader, Error> {
        if path.is_dir() {
            return SnapshotReader::open_sharded(path);
        }
        let (reader, record, shard) = open_file(path)?;
        if let Some((_, count)) = shard.filter(|&(_, n)| n > 1) {
            return Err(Error::Sharded(
                path.as_os_str().as_bytes().to_vec(),
                format!("one of the {count} shards of a sharded snapshot: open its directory"),
            ));
        }
        Ok(SnapshotReader {
            shards: vec![reader],
            record,
        })
    }

    /// Opens the directory `dir` as a sharded snapshot.
    fn open_sharded(dir: &Path) -> Result<SnapshotReader, Error> {
        let name = |p: &Path| p.as_os_str().as_bytes().to_vec();
        let shard_error = |why: String| Error::Sharded(name(dir), why);
        let mut found = Vec::new();
        for e in std::fs::read_dir(dir).map_err(|e| Error::Io(name(dir), e))? {
            let e = e.map_err(|e| Error::Io(name(dir), e))?;
            if let Some(i) = sharded::shard_index(e.file_name().as_bytes()) {
                found.push(i);
            }
        }
        found.sort_unstable();
        if found.first() != Some(&0) {
            return Err(shard_error(format!(
                "not a sharded snapshot: no {}",
                sharded::shard_name(0)
            )));
        }
        let mut shards = Vec::new();
        let mut record = None;
        let mut count = 0;
        for (k, &i) in found.iter().enumerate() {
            let path = dir.join(sharded::shard_name(i));
            let (reader, rec, place) = open_file(&path)?;
            let Some((index, n)) = place else {
                return Err(shard_error(format!(
                    "{} is not a shard (no {})",
                    sharded::shard_name(i),
                    sharded::INDEX_KEY
                )));
            };
            if k == 0 {
                count = n;
            }
            if index != i || n != count || i as usize != k || i >= count {
                return Err(shard_error(format!(
                    "shard {} of {count} found as {}",
                    index,
                    sharded::shard_name(i)
                )));
            }
            match &record {
                None => record = Some(rec),
                Some(r) => {
                    let r: &ScanRecord = r;
                    if r.roots != rec.roots || r.options != rec.options {
                        return Err(shard_error(format!(
                            "{} is of another scan (its roots or options differ)",
                            sharded::shard_name(i)
                        )));
                    }
                }
            }
            shards.push(reader);
        }
        if shards.len() != count as usize {
            return Err(shard_error(format!(
                "{} of its {count} shards missing",
                count as usize - shards.len()
            )));
        }
        Ok(SnapshotReader {
            shards,
            record: record.expect("shard 0 was opened"),
        })
    }

    /// How many files the snapshot is (1, or its shards).
    pub fn shard_count(&self) -> usize {
        self.shards.len()
    }
}

/// Opens and checks one Parquet file of a snapshot.
fn open_file(path: &Path) -> Result<Opened, Error> {
    let name = || path.as_os_str().as_bytes().to_vec();
    let file = File::open(path).map_err(|e| Error::Io(name(), e))?;
    let reader =
        SerializedFileReader::new(file).map_err(|e| Error::NotParquet(name(), e.to_string()))?;
    let meta = reader.metadata().file_metadata();
    let kv = meta.key_value_metadata();
    let get = |k: &str| {
        kv.and_then(|kv| kv.iter().find(|p| p.key == k))
            .and_then(|p| p.value.as_deref())
    };
    let version = get(schema::VERSION_KEY).ok_or_else(|| Error::Foreign(name()))?;
    if version != schema::VERSION.to_string() {
        return Err(Error::Version(name(), version.to_string()));
    }
    let ours = parse_message_type(schema::MESSAGE)?;
    let theirs = meta.schema();
    if theirs.get_fields().len() != ours.get_fields().len()
        || theirs
            .get_fields()
            .iter()
            .zip(ours.get_fields())
            .any(|(a, b)| a.name() != b.name() || a.get_physical_type() != b.get_physical_type())
    {
        return Err(Error::Schema(name()));
    }
    let record = ScanRecord::from_pairs(get).map_err(|key| Error::Record(name(), key))?;
    let shard = match get(sharded::LAYOUT_KEY) {
        None => None,
        Some(v) if v != sharded::LAYOUT.to_string() => {
            return Err(Error::Sharded(
                name(),
                format!(
                    "sharded layout version {v}; this dents reads version {}",
                    sharded::LAYOUT
                ),
            ))
        }
        Some(_) => {
            let num = |k: &'static str| {
                get(k)
                    .and_then(|v| v.parse::<u32>().ok())
                    .ok_or_else(|| Error::Record(name(), k))
            };
            Some((num(sharded::INDEX_KEY)?, num(sharded::COUNT_KEY)?))
        }
    };
    Ok((reader, record, shard))
}

impl SnapshotReader {
    /// The scan's record.
    pub fn record(&self) -> &ScanRecord {
        &self.record
    }

    /// Rows in the snapshot (from the footers).
    pub fn num_rows(&self) -> u64 {
        self.shards
            .iter()
            .map(|r| r.metadata().file_metadata().num_rows() as u64)
            .sum()
    }

    /// The rows in the file's order, read a row group at a time.
    pub fn rows(&self) -> Rows<'_> {
        self.rows_of(u32::MAX)
    }

    /// The rows in the file's order with only some columns read: bit `i`
    /// of `columns` for column `i` of [`schema::COLUMNS`] (the others are
    /// `None`, or empty for `name`).  `path`, `depth`, `type` and `ino`
    /// are always read.  A reader that needs a few columns (`du --from`)
    /// skips decoding the rest: a third of the time on a 480k-row file.
    pub fn rows_of(&self, columns: u32) -> Rows<'_> {
        let mut files: Vec<FileRows<'_>> = self
            .shards
            .iter()
            .map(|reader| FileRows {
                reader,
                next_group: 0,
                buffered: Vec::new().into_iter(),
                columns,
                bytes: Default::default(),
            })
            .collect();
        Rows(if files.len() == 1 {
            Inner::One(files.pop().expect("one file"))
        } else {
            Inner::Merged(Merge::new(files))
        })
    }
}

/// One row as a refresh's index reads it ([`SnapshotReader::for_each_dir_row`]):
/// borrowed from the row group's decoded columns, nothing allocated per
/// row.
pub(crate) struct DirRow<'a> {
    /// The path's bytes.
    pub path: &'a [u8],
    /// Levels below the root.
    pub depth: u32,
    /// The type letter.
    pub kind: u8,
    /// Inode number.
    pub ino: u64,
    /// `st_dev`, where stat'ed.
    pub dev: Option<u64>,
    /// Modification and status change times (ns), where stat'ed.
    pub mtime: Option<i64>,
    pub ctime: Option<i64>,
}

impl SnapshotReader {
    /// Calls `f` with each row's path, depth, type, inode, device and
    /// times, in the file's order.  A refresh's index needs only these
    /// (the name is the path's last component), and building a [`Row`]
    /// for each (two byte vectors allocated and copied, ten columns more
    /// carried) was most of the index's time.  A sharded snapshot's rows
    /// are merged as [`SnapshotReader::rows`] merges them.
    pub(crate) fn for_each_dir_row(
        &self,
        mut f: impl FnMut(DirRow<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if self.shards.len() != 1 {
            let cols = column_bit("dev") | column_bit("mtime") | column_bit("ctime");
            for row in self.rows_of(cols) {
                let row = row?;
                f(DirRow {
                    path: &row.path,
                    depth: row.depth,
                    kind: row.kind,
                    ino: row.ino,
                    dev: row.dev,
                    mtime: row.mtime,
                    ctime: row.ctime,
                })?;
            }
            return Ok(());
        }
        let reader = &self.shards[0];
        let mut path = ByteColumn::default();
        for i in 0..reader.num_row_groups() {
            let g = reader.get_row_group(i)?;
            let g = &*g;
            let n = g.metadata().num_rows() as usize;
            path.read(g, 0, n)?;
            let (depth, _) = read_column::<Int32Type>(g, 2, n)?;
            let (kind, _) = read_column::<ByteArrayType>(g, 3, n)?;
            let (ino, _) = read_column::<Int64Type>(g, 10, n)?;
            let opt = |i| -> Result<Vec<Option<i64>>, Error> {
                let (v, d) = read_column::<Int64Type>(g, i, n)?;
                Ok(spread(v, &d, n))
            };
            let (dev, mtime, ctime) = (opt(11)?, opt(12)?, opt(13)?);
            if [path.len(), depth.len(), kind.len(), ino.len()]
                .iter()
                .any(|&l| l != n)
            {
                return Err(Error::Corrupt(
                    "a required column has nulls or too few values".into(),
                ));
            }
            for r in 0..n {
                f(DirRow {
                    path: path.get(r),
                    depth: depth[r] as u32,
                    kind: kind[r].data().first().copied().unwrap_or(b'U'),
                    ino: ino[r] as u64,
                    dev: dev[r].map(|v| v as u64),
                    mtime: mtime[r],
                    ctime: ctime[r],
                })?;
            }
        }
        Ok(())
    }
}

/// The bit of [`SnapshotReader::rows_of`] for the column named `name`
/// (0 for a name not in the schema).
pub fn column_bit(name: &str) -> u32 {
    schema::COLUMNS
        .iter()
        .position(|c| *c == name)
        .map_or(0, |i| 1 << i)
}

/// The rows of a snapshot, in order ([`SnapshotReader::rows`]); a
/// sharded snapshot's merged in level order.
pub struct Rows<'a>(Inner<'a>);

enum Inner<'a> {
    One(FileRows<'a>),
    Merged(Merge<FileRows<'a>>),
}

impl Iterator for Rows<'_> {
    type Item = Result<Row, Error>;

    fn next(&mut self) -> Option<Result<Row, Error>> {
        match &mut self.0 {
            Inner::One(r) => r.next(),
            Inner::Merged(m) => m.next(),
        }
    }
}

/// The rows of one file, a row group at a time.
struct FileRows<'a> {
    reader: &'a SerializedFileReader<File>,
    next_group: usize,
    buffered: std::vec::IntoIter<Row>,
    columns: u32,
    /// The path and name columns' buffers, kept between row groups.
    bytes: (ByteColumn, ByteColumn),
}

impl Iterator for FileRows<'_> {
    type Item = Result<Row, Error>;

    fn next(&mut self) -> Option<Result<Row, Error>> {
        loop {
            if let Some(r) = self.buffered.next() {
                return Some(Ok(r));
            }
            if self.next_group >= self.reader.num_row_groups() {
                return None;
            }
            let i = self.next_group;
            self.next_group += 1;
            match self
                .reader
                .get_row_group(i)
                .map_err(Error::from)
                .and_then(|g| read_group(&*g, self.columns, &mut self.bytes))
            {
                Ok(rows) => self.buffered = rows.into_iter(),
                Err(e) => {
                    // No more rows after a broken group.
                    self.next_group = usize::MAX;
                    return Some(Err(e));
                }
            }
        }
    }
}

/// Reads column `i` of `g` (`n` rows) as values of `T` and, for a
/// nullable column, definition levels.
pub(crate) fn read_column<T: DataType>(
    g: &dyn RowGroupReader,
    i: usize,
    n: usize,
) -> Result<(Vec<T::T>, Vec<i16>), Error> {
    let mut r = get_typed_column_reader::<T>(g.get_column_reader(i)?);
    let mut values = Vec::with_capacity(n);
    let mut defs = Vec::with_capacity(n);
    let mut got = 0;
    while got < n {
        let (records, _, _) = r.read_records(n - got, Some(&mut defs), None, &mut values)?;
        if records == 0 {
            return Err(Error::Corrupt(format!(
                "column {} ends after {got} of {n} rows",
                schema::COLUMNS[i]
            )));
        }
        got += records;
    }
    Ok((values, defs))
}

/// A row group's paths or names, decoded into one buffer
/// ([`crate::delta`]) where they are delta-encoded, as dents writes
/// them, else by the crate's decoder; the buffer kept from one row
/// group to the next.
#[derive(Default)]
struct ByteColumn {
    packed: delta::Packed,
    values: Option<Vec<ByteArray>>,
}

impl ByteColumn {
    /// Column `i` of `g` (`n` rows), required.
    fn read(&mut self, g: &dyn RowGroupReader, i: usize, n: usize) -> Result<(), Error> {
        self.values = match delta::read(g, i, n, &mut self.packed)? {
            true => None,
            false => Some(read_column::<ByteArrayType>(g, i, n)?.0),
        };
        Ok(())
    }

    fn len(&self) -> usize {
        self.values.as_ref().map_or(self.packed.len(), Vec::len)
    }

    fn get(&self, i: usize) -> &[u8] {
        match &self.values {
            Some(v) => v[i].data(),
            None => self.packed.get(i),
        }
    }
}

/// Puts a nullable column's values back at their rows.
fn spread<T: Clone>(values: Vec<T>, defs: &[i16], n: usize) -> Vec<Option<T>> {
    if defs.is_empty() {
        return values.into_iter().map(Some).collect();
    }
    let mut it = values.into_iter();
    defs.iter()
        .take(n)
        .map(|&d| if d > 0 { it.next() } else { None })
        .collect()
}

fn bytes(b: ByteArray) -> Vec<u8> {
    b.data().to_vec()
}

/// The rows of one row group, with the columns of the mask `columns`
/// (see [`SnapshotReader::rows_of`]).
fn read_group(
    g: &dyn RowGroupReader,
    columns: u32,
    (path, name): &mut (ByteColumn, ByteColumn),
) -> Result<Vec<Row>, Error> {
    let n = g.metadata().num_rows() as usize;
    let wanted = |i: usize| columns & (1 << i) != 0;
    path.read(g, 0, n)?;
    if wanted(1) {
        name.read(g, 1, n)?;
    }
    let names = if wanted(1) { name.len() } else { n };
    let (depth, _) = read_column::<Int32Type>(g, 2, n)?;
    let (kind, _) = read_column::<ByteArrayType>(g, 3, n)?;
    let opt64 = |i| -> Result<Vec<Option<i64>>, Error> {
        if !wanted(i) {
            return Ok(vec![None; n]);
        }
        let (v, d) = read_column::<Int64Type>(g, i, n)?;
        Ok(spread(v, &d, n))
    };
    let opt32 = |i| -> Result<Vec<Option<i32>>, Error> {
        if !wanted(i) {
            return Ok(vec![None; n]);
        }
        let (v, d) = read_column::<Int32Type>(g, i, n)?;
        Ok(spread(v, &d, n))
    };
    let size = opt64(4)?;
    let blocks = opt64(5)?;
    let mode = opt32(6)?;
    let uid = opt32(7)?;
    let gid = opt32(8)?;
    let nlink = opt64(9)?;
    let (ino, _) = read_column::<Int64Type>(g, 10, n)?;
    let dev = opt64(11)?;
    let mtime = opt64(12)?;
    let ctime = opt64(13)?;
    let atime = opt64(14)?;
    let target = if wanted(15) {
        let (tv, td) = read_column::<ByteArrayType>(g, 15, n)?;
        spread(tv, &td, n)
    } else {
        vec![None; n]
    };
    if [path.len(), names, depth.len(), kind.len(), ino.len()]
        .iter()
        .any(|&l| l != n)
    {
        return Err(Error::Corrupt(
            "a required column has nulls or too few values".into(),
        ));
    }
    let mut rows = Vec::with_capacity(n);
    let mut cols = (kind.into_iter(), target.into_iter());
    for i in 0..n {
        rows.push(Row {
            path: path.get(i).to_vec(),
            name: if wanted(1) {
                name.get(i).to_vec()
            } else {
                Vec::new()
            },
            depth: depth[i] as u32,
            kind: cols
                .0
                .next()
                .and_then(|k| k.data().first().copied())
                .unwrap_or(b'U'),
            size: size[i],
            blocks: blocks[i],
            mode: mode[i].map(|v| v as u32),
            uid: uid[i].map(|v| v as u32),
            gid: gid[i].map(|v| v as u32),
            nlink: nlink[i],
            ino: ino[i] as u64,
            dev: dev[i].map(|v| v as u64),
            mtime: mtime[i],
            ctime: ctime[i],
            atime: atime[i],
            target: cols.1.next().flatten().map(bytes),
        });
    }
    Ok(rows)
}
