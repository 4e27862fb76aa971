//! `dents.scandir`: `os.scandir`'s iterator, read on a background thread
//! (one huge ext4 or XFS directory on several, `dents::slice`) and handed
//! over in batches through a bounded channel.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use dents::dir::{DirReader, RawEntry};
use dents::slice::{self, EntrySink, ReadOptions, ReadPlan};
use dents::FileType;
use pyo3::exceptions::PyFileNotFoundError;
use pyo3::prelude::*;

use crate::shared::Locked;
use crate::util::{self, PyPath};

/// Entries per batch sent from the reader to the iterator.
const BATCH: usize = 512;
/// Batches the channel holds: the most entries read ahead of the consumer
/// is about `BATCH * (QUEUE + threads)`.
const QUEUE: usize = 16;
/// The `getdents64` buffer of a serial read.
pub const READ_BUFFER: usize = 128 * 1024;

/// Entries as read, names packed in one buffer (no allocation per entry).
#[derive(Default)]
pub struct Entries {
    names: Vec<u8>,
    /// Per entry: where its name ends in `names`, `d_ino`, `d_type`.
    ents: Vec<(usize, u64, u8)>,
}

impl Entries {
    fn with_capacity(n: usize) -> Entries {
        Entries {
            names: Vec::with_capacity(n * 24),
            ents: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, e: &RawEntry<'_>) {
        self.names.extend_from_slice(e.name());
        self.ents
            .push((self.names.len(), e.ino(), e.file_type().as_dtype()));
    }

    fn len(&self) -> usize {
        self.ents.len()
    }

    fn is_empty(&self) -> bool {
        self.ents.is_empty()
    }

    /// The `i`th entry: name, inode, `d_type`.
    fn get(&self, i: usize) -> Option<(&[u8], u64, u8)> {
        let &(end, ino, dtype) = self.ents.get(i)?;
        let start = if i == 0 { 0 } else { self.ents[i - 1].0 };
        Some((&self.names[start..end], ino, dtype))
    }
}

type Batch = io::Result<Entries>;

/// A slice's sink: batches its entries into the channel; stops taking
/// entries once the consumer has gone.
struct BatchSink {
    tx: SyncSender<Batch>,
    batch: Entries,
    stop: Arc<AtomicBool>,
}

impl BatchSink {
    fn flush(&mut self) {
        if !self.batch.is_empty() && !self.stop.load(Ordering::Relaxed) {
            let b = std::mem::take(&mut self.batch);
            if self.tx.send(Ok(b)).is_err() {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
    }
}

impl EntrySink for BatchSink {
    fn entry(&mut self, _dir: BorrowedFd<'_>, entry: &RawEntry<'_>) {
        if self.stop.load(Ordering::Relaxed) {
            return;
        }
        self.batch.push(entry);
        if self.batch.len() >= BATCH {
            self.flush();
        }
    }

    /// The consumer closed the iterator (or dropped it): the slices' reads
    /// end here rather than read the rest of the directory for nothing.
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Reads the directory `fd` into `tx`: serially in the kernel's order, or
/// in slices where the library finds that pays (large ext4/XFS directories).
fn read_into(fd: OwnedFd, tx: SyncSender<Batch>, stop: Arc<AtomicBool>, threads: usize) {
    let opts = ReadOptions::new().threads(threads);
    let plan = slice::plan(fd.as_fd(), &opts).unwrap_or(ReadPlan::Serial);
    if let ReadPlan::Sliced { .. } = plan {
        let outcome =
            slice::read_dir_with_plan(fd.as_fd(), plan, opts.get_buffer_size(), |_| BatchSink {
                tx: tx.clone(),
                batch: Entries::with_capacity(BATCH),
                stop: stop.clone(),
            });
        for mut sink in outcome.sinks {
            sink.flush();
        }
        if let Some(e) = outcome.errors.into_iter().next() {
            let _ = tx.send(Err(e));
        }
        return;
    }
    let mut reader = DirReader::with_buffer_size(fd, READ_BUFFER);
    let mut batch = Entries::with_capacity(BATCH);
    loop {
        match reader.next_entry() {
            Ok(Some(e)) => {
                batch.push(&e);
                if batch.len() >= BATCH {
                    let full = std::mem::replace(&mut batch, Entries::with_capacity(BATCH));
                    if tx.send(Ok(full)).is_err() {
                        return;
                    }
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                }
            }
            Ok(None) => break,
            Err(e) => {
                if !batch.is_empty() {
                    let _ = tx.send(Ok(batch));
                }
                let _ = tx.send(Err(e));
                return;
            }
        }
    }
    if !batch.is_empty() {
        let _ = tx.send(Ok(batch));
    }
}

/// The iterator `dents.scandir` returns: `os.scandir`'s, also a context
/// manager with `close()`; several threads may share it (each entry goes
/// to one of them).
#[pyclass(module = "dents", name = "ScandirIterator", frozen)]
pub struct ScandirIterator {
    state: Locked<State>,
}

/// The directory being listed, shared by its entries.
pub struct Dir {
    obj: PyObject,
    bytes: Vec<u8>,
    is_bytes: bool,
    /// The descriptor given to `scandir(fd)`: entries' paths are their
    /// bare names and they are stat'ed at it, as `os.DirEntry`'s.
    dir_fd: Option<i32>,
}

impl Dir {
    /// What the entries of a `find` share: whether their names are
    /// `bytes` (their paths are whole, no directory to join).
    pub fn of_find(py: Python<'_>, is_bytes: bool) -> Arc<Dir> {
        Arc::new(Dir {
            obj: py.None(),
            bytes: Vec::new(),
            is_bytes,
            dir_fd: None,
        })
    }
}

/// What a walk already knows of an entry's `lstat` and `stat` (a find
/// expression's tests stat'ed it): given by `stat()` with no system call.
#[derive(Default)]
pub struct Known {
    /// The entry's own metadata (`stat(follow_symlinks=False)`).
    pub lstat: Option<util::StatValues>,
    /// Its target's (`stat()`), for a symlink followed under `-L`.
    pub stat: Option<util::StatValues>,
}

struct State {
    dir: Arc<Dir>,
    rx: Option<Receiver<Batch>>,
    buf: Entries,
    /// The next entry of `buf`.
    next: usize,
    stop: Arc<AtomicBool>,
    reader: Option<JoinHandle<()>>,
}

impl State {
    /// Stops the reader and waits for its threads to end.
    /// Returns the reader's panic, if it panicked.
    fn close(&mut self, py: Python<'_>) -> Option<Box<dyn std::any::Any + Send>> {
        self.stop.store(true, Ordering::Relaxed);
        self.rx = None;
        self.buf = Entries::default();
        self.next = 0;
        let h = self.reader.take()?;
        py.allow_threads(|| h.join()).err()
    }
}

impl Drop for ScandirIterator {
    fn drop(&mut self) {
        let state = self.state.get_mut();
        if state.reader.is_some() {
            Python::with_gil(|py| state.close(py));
        }
    }
}

/// Opens `path` and starts reading it (`threads` readers at most).
pub fn open(py: Python<'_>, path: PyPath, threads: usize) -> PyResult<ScandirIterator> {
    let c = util::cstring(&path.bytes)?;
    let fd = match py.allow_threads(|| dents::fs::open_dir(&c)) {
        Ok(fd) => fd,
        Err(e) => return Err(util::os_error(py, &e, &path.obj)),
    };
    start(py, fd, path, None, threads)
}

/// `scandir(fd)`: lists the directory open at `fd`, which stays open (the
/// caller's). It is reopened through `/proc/self/fd` (a descriptor of our
/// own without `unsafe`): unlike `os.scandir`'s `dup`, the caller's
/// offset is neither used nor moved.
pub fn open_fd(py: Python<'_>, fd: i32, threads: usize) -> PyResult<ScandirIterator> {
    let path = PyPath {
        obj: fd.into_pyobject(py)?.into_any().unbind(),
        bytes: Vec::new(),
        is_bytes: false,
    };
    let c = util::cstring(format!("/proc/self/fd/{fd}").as_bytes())?;
    let own = match py.allow_threads(|| dents::fs::open_dir(&c)) {
        Ok(own) => own,
        // A number that is no descriptor: os.scandir's EBADF, from its
        // dup, which names no file.
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NOENT.raw_os_error()) => {
            let ebadf = io::Error::from_raw_os_error(rustix::io::Errno::BADF.raw_os_error());
            return Err(util::os_error(py, &ebadf, &py.None()));
        }
        Err(e) => return Err(util::os_error(py, &e, &path.obj)),
    };
    start(py, own, path, Some(fd), threads)
}

/// Starts the reader of `fd` (`threads` readers at most).
fn start(
    py: Python<'_>,
    fd: OwnedFd,
    path: PyPath,
    dir_fd: Option<i32>,
    threads: usize,
) -> PyResult<ScandirIterator> {
    let (tx, rx) = sync_channel(QUEUE);
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let reader = std::thread::Builder::new()
        .name("dents-scandir".into())
        .spawn(move || read_into(fd, tx, stop2, threads))
        .map_err(|e| util::os_error(py, &e, &path.obj))?;
    Ok(ScandirIterator {
        state: Locked::new(State {
            dir: Arc::new(Dir {
                obj: path.obj,
                bytes: path.bytes,
                is_bytes: path.is_bytes,
                dir_fd,
            }),
            rx: Some(rx),
            buf: Entries::default(),
            next: 0,
            stop,
            reader: Some(reader),
        }),
    })
}

#[pymethods]
impl ScandirIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<DirEntry>> {
        let mut guard = self.state.lock(py)?;
        let st = &mut *guard;
        loop {
            if let Some((name, ino, dtype)) = st.buf.get(st.next) {
                st.next += 1;
                return Ok(Some(DirEntry {
                    name: util::name_obj(py, name, st.dir.is_bytes),
                    dir: st.dir.clone(),
                    path: OnceLock::new(),
                    ino,
                    dtype,
                    stat: OnceLock::new(),
                    lstat: OnceLock::new(),
                    known: None,
                }));
            }
            match util::recv_checking_signals(py, &mut st.rx) {
                Ok(Some(Ok(batch))) => {
                    st.buf = batch;
                    st.next = 0;
                }
                Ok(Some(Err(e))) => {
                    let err = util::os_error(py, &e, &st.dir.obj);
                    st.close(py);
                    return Err(err);
                }
                Ok(None) => {
                    // The reader's end, or its panic (which dropped its
                    // sender): not a silently short listing.
                    return match st.close(py) {
                        Some(payload) => Err(util::panic_error(payload)),
                        None => Ok(None),
                    };
                }
                Err(interrupted) => {
                    st.close(py);
                    return Err(interrupted);
                }
            }
        }
    }

    /// Stops reading and frees the resources (also done at the end of the
    /// iteration and when the iterator is garbage collected).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        match self.state.lock(py)?.close(py) {
            Some(payload) => Err(util::panic_error(payload)),
            None => Ok(()),
        }
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }
}

/// An entry of `dents.scandir`, with `os.DirEntry`'s interface.
#[pyclass(module = "dents", name = "DirEntry", frozen)]
pub struct DirEntry {
    name: PyObject,
    dir: Arc<Dir>,
    /// Made on first use (`os.DirEntry` makes it at once: no difference
    /// to see, one string less per entry never asked for its path).
    path: OnceLock<PyObject>,
    ino: u64,
    dtype: u8,
    stat: OnceLock<PyObject>,
    lstat: OnceLock<PyObject>,
    /// Stat results the walk made, turned into `os.stat_result`s when
    /// first asked for.
    known: Option<Box<Known>>,
}

impl DirEntry {
    /// An entry a `find` matched: its whole path (`bytes` or decoded as
    /// `dir` says), the last component starting at `name_start`, and what
    /// the walk learnt of it.
    pub fn found(
        py: Python<'_>,
        dir: &Arc<Dir>,
        path: &[u8],
        name_start: usize,
        (ino, dtype): (u64, u8),
        known: Option<Box<Known>>,
    ) -> DirEntry {
        DirEntry {
            name: util::name_obj(py, &path[name_start..], dir.is_bytes),
            dir: dir.clone(),
            path: OnceLock::from(util::name_obj(py, path, dir.is_bytes)),
            ino,
            dtype,
            stat: OnceLock::new(),
            lstat: OnceLock::new(),
            known,
        }
    }

    /// Stats the entry now: by its path, or at the descriptor it was
    /// listed from (`os.stat(name, dir_fd=fd)`, as `os.DirEntry` does).
    fn stat_now(&self, py: Python<'_>, follow: bool) -> PyResult<PyObject> {
        let Some(fd) = self.dir.dir_fd else {
            return util::stat_path(py, self.path_obj(py), follow);
        };
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item(pyo3::intern!(py, "dir_fd"), fd)?;
        kwargs.set_item(pyo3::intern!(py, "follow_symlinks"), follow)?;
        Ok(util::os_module(py)?
            .call_method(
                pyo3::intern!(py, "stat"),
                (self.name.bind(py),),
                Some(&kwargs),
            )?
            .unbind())
    }

    /// The walk's stat of the entry, if it made the one asked for.
    fn known_result(&self, py: Python<'_>, follow: bool) -> Option<PyResult<PyObject>> {
        let k = self.known.as_deref()?;
        let v = if follow {
            k.stat.as_ref()
        } else {
            k.lstat.as_ref()
        }?;
        Some(util::stat_result(py, v))
    }

    fn path_obj(&self, py: Python<'_>) -> &PyObject {
        self.path.get_or_init(|| {
            if self.dir.dir_fd.is_some() {
                return self.name.clone_ref(py);
            }
            // The name's bytes again: os.fsencode of it.
            let name = self.name.bind(py);
            let bytes = match name.downcast::<pyo3::types::PyBytes>() {
                Ok(b) => b.as_bytes().to_vec(),
                Err(_) => name
                    .extract::<std::ffi::OsString>()
                    .map(std::os::unix::ffi::OsStringExt::into_vec)
                    .unwrap_or_default(),
            };
            let p = util::join(&self.dir.bytes, &bytes);
            util::name_obj(py, &p, self.dir.is_bytes)
        })
    }

    fn get_lstat(&self, py: Python<'_>) -> PyResult<PyObject> {
        if let Some(s) = self.lstat.get() {
            return Ok(s.clone_ref(py));
        }
        let s = match self.known_result(py, false) {
            Some(r) => r?,
            None => self.stat_now(py, false)?,
        };
        Ok(self.lstat.get_or_init(|| s).clone_ref(py))
    }

    fn get_stat(&self, py: Python<'_>, follow_symlinks: bool) -> PyResult<PyObject> {
        if !follow_symlinks {
            return self.get_lstat(py);
        }
        if let Some(s) = self.stat.get() {
            return Ok(s.clone_ref(py));
        }
        let s = if let Some(r) = self.known_result(py, true) {
            r?
        } else if self.is_symlink(py)? {
            self.stat_now(py, true)?
        } else {
            self.get_lstat(py)?
        };
        Ok(self.stat.get_or_init(|| s).clone_ref(py))
    }

    /// `os.DirEntry`'s test: from `d_type` where it says enough, else from
    /// a stat; a vanished file is of no type.
    fn test_mode(&self, py: Python<'_>, follow_symlinks: bool, dtype: FileType) -> PyResult<bool> {
        let t = FileType::from_dtype(self.dtype);
        let need_stat = t.is_unknown() || (follow_symlinks && t == FileType::SYMLINK);
        if !need_stat {
            return Ok(t == dtype);
        }
        match self.get_stat(py, follow_symlinks) {
            Ok(st) => {
                let mode: u32 = st
                    .bind(py)
                    .getattr(pyo3::intern!(py, "st_mode"))?
                    .extract()?;
                Ok(FileType::from_mode(mode) == dtype)
            }
            Err(e) if e.is_instance_of::<PyFileNotFoundError>(py) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

#[pymethods]
impl DirEntry {
    /// The entry's file name (`str` or `bytes`, as the directory was given).
    #[getter]
    fn name(&self, py: Python<'_>) -> PyObject {
        self.name.clone_ref(py)
    }

    /// The directory given to `scandir` joined with `name`.
    #[getter]
    fn path(&self, py: Python<'_>) -> PyObject {
        self.path_obj(py).clone_ref(py)
    }

    /// The inode number from the directory entry (`d_ino`).
    fn inode(&self) -> u64 {
        self.ino
    }

    /// Whether the entry is a directory (or a symlink to one, unless
    /// `follow_symlinks` is false).
    #[pyo3(signature = (*, follow_symlinks = true))]
    fn is_dir(&self, py: Python<'_>, follow_symlinks: bool) -> PyResult<bool> {
        self.test_mode(py, follow_symlinks, FileType::DIRECTORY)
    }

    /// Whether the entry is a regular file (or a symlink to one, unless
    /// `follow_symlinks` is false).
    #[pyo3(signature = (*, follow_symlinks = true))]
    fn is_file(&self, py: Python<'_>, follow_symlinks: bool) -> PyResult<bool> {
        self.test_mode(py, follow_symlinks, FileType::REGULAR)
    }

    /// Whether the entry is a symbolic link.
    fn is_symlink(&self, py: Python<'_>) -> PyResult<bool> {
        self.test_mode(py, false, FileType::SYMLINK)
    }

    /// Never a junction on Linux (Python 3.12's `os.DirEntry.is_junction`).
    fn is_junction(&self) -> bool {
        false
    }

    /// `os.stat_result` of the entry (of its target with
    /// `follow_symlinks`), fetched on first use and cached.
    #[pyo3(signature = (*, follow_symlinks = true))]
    fn stat(&self, py: Python<'_>, follow_symlinks: bool) -> PyResult<PyObject> {
        self.get_stat(py, follow_symlinks)
    }

    fn __fspath__(&self, py: Python<'_>) -> PyObject {
        self.path_obj(py).clone_ref(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("<DirEntry {}>", self.name.bind(py).repr()?))
    }
}
