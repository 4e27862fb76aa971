//! Sharded snapshots: a directory of Parquet files, one per writer
//! (`dents-mpi scan`: one per MPI rank), read as one snapshot.
//!
//! Layout (version [`LAYOUT`], docs/snapshot.md): `DIR/part-I.parquet`
//! for `I` in `0..N`, each a snapshot of the schema with its rows in
//! level order; the union of their rows is the scan's, each entry in
//! exactly one shard.  Each shard's footer holds the record and
//! [`LAYOUT_KEY`], [`INDEX_KEY`], [`COUNT_KEY`]; shard 0's record is the
//! whole scan's (every writer's errors, the end of the last), the
//! others' their own part.  Nothing else in the directory is a shard.
//!
//! [`ShardWriter`] writes one shard with bounded memory although its
//! rows come in no order (a rank walks pieces of the tree as it gets
//! them): rows are sorted in runs of at most [`RUN_ROWS`], each run
//! spilled to a hidden file in the directory, and the runs merged
//! ([`crate::merge`]) into the shard at the end.  No writer waits for
//! another: there is no sort across shards; readers merge them.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::merge::{sort_rows, Merge};
use crate::record::ScanRecord;
use crate::row::Row;
use crate::writer::SnapshotWriter;
use crate::Error;

/// Key of the sharded layout's version: [`LAYOUT`].
pub const LAYOUT_KEY: &str = "dents.shard.layout";
/// The sharded layout's version (names, keys, the record in shard 0).
pub const LAYOUT: u32 = 1;
/// Key of a shard's index `I` (its file is `part-I.parquet`).
pub const INDEX_KEY: &str = "dents.shard.index";
/// Key of the number of shards `N`.
pub const COUNT_KEY: &str = "dents.shard.count";

/// Rows sorted in memory before they are spilled as a run.
pub const RUN_ROWS: usize = 64 * 1024;

/// Rows the merging thread hands over at once.
const MERGE_BATCH: usize = 4096;

/// Bytes of paths, names and targets that spill a run early.
const RUN_BYTES: usize = 32 << 20;

/// The file name of shard `index`: `part-INDEX.parquet`.
pub fn shard_name(index: u32) -> String {
    format!("part-{index}.parquet")
}

/// The index of a shard's file name, if it is one.
pub fn shard_index(name: &[u8]) -> Option<u32> {
    let n = name.strip_prefix(b"part-")?.strip_suffix(b".parquet")?;
    if n.is_empty() || !n.iter().all(u8::is_ascii_digit) || (n.len() > 1 && n[0] == b'0') {
        return None;
    }
    std::str::from_utf8(n).ok()?.parse().ok()
}

/// The temporary directory a sharded snapshot `target` is written in
/// before it is renamed to `target`: `.NAME.TAG.tmp` beside it (the same
/// file system, so the rename is atomic; hidden, and no `.parquet`).
pub fn temp_dir_name(target: &Path, tag: u32) -> PathBuf {
    let dir = target.parent().unwrap_or(Path::new(""));
    let mut name = std::ffi::OsString::from(".");
    name.push(target.file_name().unwrap_or_default());
    name.push(format!(".{tag}.tmp"));
    dir.join(name)
}

/// The footer pairs that place a shard in its snapshot.
pub fn shard_pairs(index: u32, count: u32) -> Vec<(String, String)> {
    vec![
        (LAYOUT_KEY.into(), LAYOUT.to_string()),
        (INDEX_KEY.into(), index.to_string()),
        (COUNT_KEY.into(), count.to_string()),
    ]
}

/// One shard being written (see the module doc).
pub struct ShardWriter {
    dir: PathBuf,
    index: u32,
    /// `None` once taken by [`ShardWriter::finish`].
    writer: Option<SnapshotWriter>,
    buf: Vec<Row>,
    bytes: usize,
    /// The runs spilled so far (removed when merged, or on drop).
    runs: Vec<PathBuf>,
    rows: u64,
}

impl ShardWriter {
    /// Starts shard `index` in the directory `dir` (its file is made at
    /// once, so that an unwritable directory fails here).
    pub fn create(dir: &Path, index: u32) -> Result<ShardWriter, Error> {
        Ok(ShardWriter {
            writer: Some(SnapshotWriter::create(&dir.join(shard_name(index)))?),
            dir: dir.to_owned(),
            index,
            buf: Vec::new(),
            bytes: 0,
            runs: Vec::new(),
            rows: 0,
        })
    }

    /// Adds a row, in any order.
    pub fn push(&mut self, row: Row) -> Result<(), Error> {
        self.bytes += row.path.len() + row.name.len() + row.target.as_ref().map_or(0, Vec::len);
        self.buf.push(row);
        self.rows += 1;
        if self.buf.len() >= RUN_ROWS || self.bytes >= RUN_BYTES {
            self.spill()?;
        }
        Ok(())
    }

    /// Rows pushed so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Sorts the buffered rows and writes them as a run.
    fn spill(&mut self) -> Result<(), Error> {
        let path = self
            .dir
            .join(format!(".run-{}-{}.tmp", self.index, self.runs.len()));
        let io = |e| Error::Io(path.as_os_str().as_bytes().to_vec(), e);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io)?;
        self.runs.push(path.clone());
        sort_rows(&mut self.buf);
        let mut w = BufWriter::with_capacity(1 << 16, file);
        for r in self.buf.drain(..) {
            encode(&mut w, &r).map_err(io)?;
        }
        w.flush().map_err(io)?;
        self.bytes = 0;
        Ok(())
    }

    /// Writes the shard: the runs and the rows still buffered merged in
    /// level order, then the footer with `record` and the shard's place
    /// (`count` shards); renamed to `part-INDEX.parquet` when complete.
    pub fn finish(mut self, record: &ScanRecord, count: u32) -> Result<(), Error> {
        sort_rows(&mut self.buf);
        let mut streams: Vec<Box<dyn Iterator<Item = Result<Row, Error>> + Send>> = Vec::new();
        for path in &self.runs {
            let file =
                File::open(path).map_err(|e| Error::Io(path.as_os_str().as_bytes().to_vec(), e))?;
            // Open, the run needs no name: nothing to remove later.
            let _ = std::fs::remove_file(path);
            streams.push(Box::new(RunReader {
                r: BufReader::with_capacity(1 << 16, file),
                path: path.as_os_str().as_bytes().to_vec(),
            }));
        }
        self.runs.clear();
        streams.push(Box::new(std::mem::take(&mut self.buf).into_iter().map(Ok)));
        let mut writer = self.writer.take().ok_or(Error::Closed)?;
        // The merge (runs decoded, compared) on a thread of its own while
        // this one encodes the Parquet: both take a core's worth.
        std::thread::scope(|s| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Vec<Row>, Error>>(4);
            let merging = std::thread::Builder::new().spawn_scoped(s, move || {
                let mut batch = Vec::with_capacity(MERGE_BATCH);
                for row in Merge::new(streams) {
                    match row {
                        Ok(r) => batch.push(r),
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    }
                    if batch.len() == MERGE_BATCH {
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(MERGE_BATCH));
                        // The writer failed: stop merging.
                        if tx.send(Ok(full)).is_err() {
                            return;
                        }
                    }
                }
                let _ = tx.send(Ok(batch));
            });
            if let Err(e) = merging {
                return Err(Error::Io(self.dir.as_os_str().as_bytes().to_vec(), e));
            }
            for batch in rx {
                for row in batch? {
                    writer.push(row)?;
                }
            }
            Ok(())
        })?;
        writer.finish_with(record, &shard_pairs(self.index, count))
    }
}

impl Drop for ShardWriter {
    /// Runs not merged are removed (the shard's own file by its writer).
    fn drop(&mut self) {
        for r in &self.runs {
            let _ = std::fs::remove_file(r);
        }
    }
}

/// A run's rows, read back in the order written.
struct RunReader {
    r: BufReader<File>,
    path: Vec<u8>,
}

impl Iterator for RunReader {
    type Item = Result<Row, Error>;

    fn next(&mut self) -> Option<Result<Row, Error>> {
        match decode(&mut self.r) {
            Ok(Some(row)) => Some(Ok(row)),
            Ok(None) => None,
            Err(e) => Some(Err(Error::Io(self.path.clone(), e))),
        }
    }
}

// A run's encoding: per row, the path, name and target as a u32 length
// (u32::MAX: no target) and bytes, the depth, the kind, a bit per
// optional field present, then the fields present, little-endian.  Only
// this process reads it, at once.

fn put_bytes(w: &mut impl Write, b: Option<&[u8]>) -> std::io::Result<()> {
    match b {
        Some(b) => {
            w.write_all(&(b.len() as u32).to_le_bytes())?;
            w.write_all(b)
        }
        None => w.write_all(&u32::MAX.to_le_bytes()),
    }
}

fn encode(w: &mut impl Write, r: &Row) -> std::io::Result<()> {
    put_bytes(w, Some(&r.path))?;
    put_bytes(w, Some(&r.name))?;
    put_bytes(w, r.target.as_deref())?;
    w.write_all(&r.depth.to_le_bytes())?;
    w.write_all(&[r.kind])?;
    w.write_all(&r.ino.to_le_bytes())?;
    let wide = [
        r.size,
        r.blocks,
        r.nlink,
        r.dev.map(|d| d as i64),
        r.mtime,
        r.ctime,
        r.atime,
    ];
    let narrow = [r.mode, r.uid, r.gid];
    let mut present = 0u16;
    for (i, v) in wide.iter().enumerate() {
        present |= (v.is_some() as u16) << i;
    }
    for (i, v) in narrow.iter().enumerate() {
        present |= (v.is_some() as u16) << (7 + i);
    }
    w.write_all(&present.to_le_bytes())?;
    for v in wide.iter().flatten() {
        w.write_all(&v.to_le_bytes())?;
    }
    for v in narrow.iter().flatten() {
        w.write_all(&v.to_le_bytes())?;
    }
    Ok(())
}

fn get<const N: usize>(r: &mut impl Read) -> std::io::Result<[u8; N]> {
    let mut b = [0u8; N];
    r.read_exact(&mut b)?;
    Ok(b)
}

fn get_bytes(r: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let n = u32::from_le_bytes(get(r)?);
    if n == u32::MAX {
        return Ok(None);
    }
    let mut v = vec![0u8; n as usize];
    r.read_exact(&mut v)?;
    Ok(Some(v))
}

/// The next row, `None` at the end of the run.
fn decode(r: &mut BufReader<File>) -> std::io::Result<Option<Row>> {
    use std::io::BufRead;
    if r.fill_buf()?.is_empty() {
        return Ok(None);
    }
    let path = get_bytes(r)?.unwrap_or_default();
    let name = get_bytes(r)?.unwrap_or_default();
    let target = get_bytes(r)?;
    let depth = u32::from_le_bytes(get(r)?);
    let [kind] = get::<1>(r)?;
    let ino = u64::from_le_bytes(get(r)?);
    let present = u16::from_le_bytes(get(r)?);
    let mut wide = [None; 7];
    for (i, v) in wide.iter_mut().enumerate() {
        if present & (1 << i) != 0 {
            *v = Some(i64::from_le_bytes(get(r)?));
        }
    }
    let mut narrow = [None; 3];
    for (i, v) in narrow.iter_mut().enumerate() {
        if present & (1 << (7 + i)) != 0 {
            *v = Some(u32::from_le_bytes(get(r)?));
        }
    }
    Ok(Some(Row {
        path,
        name,
        depth,
        kind,
        size: wide[0],
        blocks: wide[1],
        mode: narrow[0],
        uid: narrow[1],
        gid: narrow[2],
        nlink: wide[2],
        ino,
        dev: wide[3].map(|d| d as u64),
        mtime: wide[4],
        ctime: wide[5],
        atime: wide[6],
        target,
    }))
}
