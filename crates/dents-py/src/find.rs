//! `dents.find`: a find expression run by the engine of `dents find`
//! (the dents-find crate) on a thread of its own, its output handed to
//! the Python iterator through a bounded channel.
//!
//! The engine writes whole records (paths ending with NUL for the
//! implicit `-print`, which is `-print0` here; lines for `-print`,
//! `-printf`, `-ls`) in buffers of up to 64 KiB.  At most [`QUEUED`]
//! buffers wait for the consumer: when it is slow, the walker threads
//! block on the channel and memory stays bounded.  When the iterator is
//! closed or dropped, or `onerror` raises, the walk is told to stop and
//! stops as `-quit` stops it (`Command::run_to_reader_until`: a walk
//! that prints nothing has no failed write to notice), the channel's
//! receiver goes, and its thread is waited for.
//!
//! With `entries`, the iterator gives `DirEntry` objects rather than
//! records: the entries the expression printed for, with the metadata its
//! tests already fetched, as the engine hands them over
//! (`dents_find::Command::matches`, on its own threads and bounded
//! channel); an error that names a path comes from it as a value, for
//! `onerror` or standard error.

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use dents::FileType;
use dents_find::{FoundEntry, Matches, PathError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::scandir::{Dir, DirEntry, Known};
use crate::shared::Locked;
use crate::util::{self, StatValues};

/// Messages that may wait for the consumer.
const QUEUED: usize = 8;

/// What the walk hands the iterator in records mode.
enum Message {
    /// A buffer of the engine's output (whole records).
    Records(Vec<u8>),
    /// An error that names a path, for `onerror`: the path and the
    /// system's error number.
    PathError(Vec<u8>, i32),
}

/// The engine's standard output: each buffer sent down the channel.
struct ChannelSink(SyncSender<Message>);

impl Write for ChannelSink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0
            .send(Message::Records(bytes.to_vec()))
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The `DirEntry` of a match: its type and stat results as the walk
/// knows them, so that what the expression stat'ed is not stat'ed again
/// (under `-L`, the metadata is the target's, or a broken link's own).
fn dir_entry(py: Python<'_>, dir: &Arc<Dir>, f: &FoundEntry) -> DirEntry {
    let meta = f.metadata();
    let values = meta.and_then(StatValues::from_metadata);
    let (dtype, known) = match (f.follows_links(), meta, values) {
        (false, _, values) => (
            f.file_type(),
            values.map(|v| Known {
                lstat: Some(v),
                stat: None,
            }),
        ),
        // Followed: the metadata is the target's, or the broken link's.
        (true, Some(m), Some(values)) if m.is_symlink() => (
            FileType::SYMLINK,
            Some(Known {
                lstat: Some(values),
                stat: None,
            }),
        ),
        (true, _, values) => (
            FileType::UNKNOWN,
            values.map(|v| Known {
                lstat: None,
                stat: Some(v),
            }),
        ),
    };
    let path = f.path();
    let name_start = path.len() - f.name().len();
    let ids = (f.ino(), dtype.as_dtype());
    DirEntry::found(py, dir, path, name_start, ids, known.map(Box::new))
}

/// Where the iterator's items come from.
enum Source {
    /// Records: the engine's output on the channel, from its thread
    /// (giving GNU find's exit status); `None` once ended or closed.
    Records {
        rx: Option<Receiver<Message>>,
        walker: Option<JoinHandle<i32>>,
        /// Set to stop the walk.
        stop: Arc<AtomicBool>,
    },
    /// Entries: the engine's matches, and what the entries share.
    Entries(Box<Matches>, Arc<Dir>),
}

/// What the iterator holds between calls.
struct State {
    /// Records not yet handed out, as Python objects.
    ready: VecDeque<PyObject>,
    /// The walk.
    source: Source,
    /// The exit status, once the walk is over (read by `status` without
    /// the state's lock, which a thread in `next()` may hold).
    status: Arc<OnceLock<i32>>,
    /// Output after the last record end (a `-printf` without one).
    tail: Vec<u8>,
    /// The byte ending each record.
    sep: u8,
    /// Records as `bytes` rather than `str`.
    as_bytes: bool,
    /// The caller's `onerror`, called with an `OSError` for each error
    /// that names a path.
    onerror: Option<PyObject>,
}

impl State {
    /// Takes a message of the walk.
    fn take_message(&mut self, py: Python<'_>, m: Message) -> PyResult<()> {
        match m {
            Message::Records(buf) => self.take(py, &buf),
            Message::PathError(path, errno) => self.path_error(py, &path, errno)?,
        }
        Ok(())
    }

    /// Calls `onerror` with an `OSError` for `path`'s error number.
    fn path_error(&self, py: Python<'_>, path: &[u8], errno: i32) -> PyResult<()> {
        if let Some(onerror) = &self.onerror {
            let filename = util::name_obj(py, path, self.as_bytes);
            let err = util::os_error(py, &io::Error::from_raw_os_error(errno), &filename);
            onerror.call1(py, (err.value(py),))?;
        }
        Ok(())
    }

    /// An error of entries mode: to `onerror`, or to standard error as
    /// `dents find` writes it.
    fn entry_error(&self, py: Python<'_>, e: &PathError) -> PyResult<()> {
        if self.onerror.is_none() {
            e.report();
            return Ok(());
        }
        // EIO for an error the system did not number.
        let errno = e.io_error().raw_os_error().unwrap_or(5);
        self.path_error(py, e.path(), errno)
    }

    /// The next item of entries mode, waited for with the GIL released
    /// and signals checked every [`util::SIGNAL_CHECK`]; `None` at the end.
    fn next_entry(&mut self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        loop {
            let Source::Entries(matches, dir) = &mut self.source else {
                return Ok(None);
            };
            let got = py.allow_threads(|| {
                std::panic::catch_unwind(AssertUnwindSafe(|| {
                    matches.next_timeout(util::SIGNAL_CHECK)
                }))
            });
            match got {
                Ok(Ok(Some(Ok(found)))) => {
                    let entry = dir_entry(py, dir, &found);
                    return Ok(Some(Py::new(py, entry)?.into_any()));
                }
                Ok(Ok(Some(Err(e)))) => {
                    if let Err(raised) = self.entry_error(py, &e) {
                        // Over, as a generator is after it raised.
                        self.close(py);
                        return Err(raised);
                    }
                }
                Ok(Ok(None)) => {
                    self.close(py);
                    return Ok(None);
                }
                Ok(Err(dents_find::TimedOut)) => {
                    if let Err(interrupted) = py.check_signals() {
                        self.close(py);
                        return Err(interrupted);
                    }
                }
                // The walk panicked: not a silently short result.
                Err(payload) => {
                    self.status.get_or_init(|| 1);
                    return Err(util::panic_error(payload));
                }
            }
        }
    }

    /// Turns a buffer of the engine's output into records.
    fn take(&mut self, py: Python<'_>, buf: &[u8]) {
        let mut rest = buf;
        if !self.tail.is_empty() {
            match rest.iter().position(|&b| b == self.sep) {
                Some(i) => {
                    let mut first = std::mem::take(&mut self.tail);
                    first.extend_from_slice(&rest[..i]);
                    self.ready
                        .push_back(util::name_obj(py, &first, self.as_bytes));
                    rest = &rest[i + 1..];
                }
                None => {
                    self.tail.extend_from_slice(rest);
                    return;
                }
            }
        }
        let mut records = rest.split(|&b| b == self.sep);
        let last = records.next_back().unwrap_or_default();
        for r in records {
            self.ready.push_back(util::name_obj(py, r, self.as_bytes));
        }
        self.tail.extend_from_slice(last);
    }

    /// Stops the walk (if still running) and waits for its thread, with
    /// the GIL released, dropping what was not handed out; returns the
    /// walk's panic, if it panicked (its status is then 1).
    fn close(&mut self, py: Python<'_>) -> Option<Box<dyn std::any::Any + Send>> {
        self.ready.clear();
        self.tail.clear();
        let (status, panic) = match &mut self.source {
            Source::Records { rx, walker, stop } => {
                stop.store(true, Ordering::Relaxed);
                *rx = None;
                let w = walker.take()?;
                match py.allow_threads(|| w.join()) {
                    Ok(status) => (status, None),
                    Err(payload) => (1, Some(payload)),
                }
            }
            Source::Entries(matches, _) => {
                let stopped = py.allow_threads(|| {
                    std::panic::catch_unwind(AssertUnwindSafe(|| matches.stop()))
                });
                match stopped {
                    Ok(status) => (status.code(), None),
                    Err(payload) => (1, Some(payload)),
                }
            }
        };
        self.status.get_or_init(|| status);
        panic
    }
}

/// The iterator `dents.find` returns.
#[pyclass(module = "dents", name = "FindIterator")]
pub struct FindIterator {
    /// The exit status, once the walk is over.
    status: Arc<OnceLock<i32>>,
    /// Stepped by one Python thread at a time (see [`Locked`]).
    state: Locked<State>,
}

impl Drop for FindIterator {
    /// Stops the walk and waits for its thread (a panic of the walk has
    /// nowhere to go).
    fn drop(&mut self) {
        let state = self.state.get_mut();
        Python::with_gil(|py| state.close(py));
    }
}

/// Whether the expression writes lines to standard output itself
/// (`-print`, `-printf`, `-ls`): then its records are lines; otherwise
/// the implicit `-print0` ends each path with NUL.
fn prints_lines(expression: &[Vec<u8>]) -> bool {
    expression
        .iter()
        .any(|w| matches!(w.as_slice(), b"-print" | b"-printf" | b"-ls"))
}

/// How `dents.find` runs, beside its paths and expression.
pub struct How<'a> {
    /// Items as `bytes` rather than `str`.
    pub as_bytes: bool,
    /// Items are `DirEntry` objects.
    pub entries: bool,
    /// Called with an `OSError` for each error that names a path (then
    /// not written to standard error).
    pub onerror: Option<PyObject>,
    /// find's `-P`, `-H` or `-L`, as `P`, `H` or `L`.
    pub follow: &'a str,
}

/// Reads `paths` and `expression` as `dents find -FOLLOW PATHS
/// EXPRESSION` and starts the walk: a parse error raises `ValueError`
/// with GNU's text.
pub fn start(
    py: Python<'_>,
    paths: Vec<Vec<u8>>,
    expression: Vec<Vec<u8>>,
    how: How<'_>,
) -> PyResult<FindIterator> {
    let How {
        as_bytes,
        entries,
        onerror,
        follow,
    } = how;
    let follow: &OsStr = match follow {
        "P" => "-P".as_ref(),
        "H" => "-H".as_ref(),
        "L" => "-L".as_ref(),
        other => {
            return Err(PyValueError::new_err(format!(
                "follow must be 'P', 'H' or 'L', not {other:?}"
            )))
        }
    };
    // A NUL cannot be in a path or a word of find's command line: Python's
    // os functions raise for it rather than match nothing.
    for arg in paths.iter().chain(&expression) {
        util::cstring(arg)?;
    }
    let sep = if prints_lines(&expression) { b'\n' } else { 0 };
    let args: Vec<&OsStr> = std::iter::once(follow)
        .chain(
            paths
                .iter()
                .chain(&expression)
                .map(|a| OsStr::from_bytes(a)),
        )
        .collect();
    let command = py
        .allow_threads(|| dents_find::Command::parse_print0(&args))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let status = Arc::default();
    let wants_errors = onerror.is_some();
    let state = |source| State {
        ready: VecDeque::new(),
        source,
        status: Arc::clone(&status),
        tail: Vec::new(),
        sep,
        as_bytes,
        onerror,
    };
    if entries {
        // Errors come with the matches, said on the consumer's thread.
        let dir = Dir::of_find(py, as_bytes);
        let matches = py.allow_threads(|| command.matches());
        return Ok(FindIterator {
            status: Arc::clone(&status),
            state: Locked::new(state(Source::Entries(Box::new(matches), dir))),
        });
    }
    let (tx, rx) = mpsc::sync_channel(QUEUED);
    let command = if wants_errors {
        // Said on the consumer's thread, where `onerror` may run.
        let errors = tx.clone();
        command.on_path_error(move |path, e| {
            // EIO for an error the system did not number.
            let errno = e.raw_os_error().unwrap_or(5);
            // A closed iterator: nobody to tell.
            let _ = errors.send(Message::PathError(path.to_vec(), errno));
        })
    } else {
        command
    };
    let stop = Arc::new(AtomicBool::new(false));
    let stopped_by = Arc::clone(&stop);
    let walker = std::thread::Builder::new()
        .name("dents-find".into())
        .spawn(move || {
            command
                .run_to_reader_until(ChannelSink(tx), stopped_by)
                .code()
        })
        .map_err(PyErr::from)?;
    let source = Source::Records {
        rx: Some(rx),
        walker: Some(walker),
        stop,
    };
    Ok(FindIterator {
        status: Arc::clone(&status),
        state: Locked::new(state(source)),
    })
}

#[pymethods]
impl FindIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let mut guard = self.state.lock(py)?;
        let st = &mut *guard;
        loop {
            if let Some(r) = st.ready.pop_front() {
                return Ok(Some(r));
            }
            let rx = match &mut st.source {
                Source::Records { rx, .. } => rx,
                Source::Entries(..) => return st.next_entry(py),
            };
            match util::recv_checking_signals(py, rx) {
                Ok(Some(m)) => {
                    if let Err(raised) = st.take_message(py, m) {
                        // `onerror` raised: the walk is over, as a
                        // generator is after it raised.
                        st.close(py);
                        return Err(raised);
                    }
                }
                Ok(None) => {
                    // The walk's end, or its panic (which dropped its
                    // sender): not a silently short result.
                    let tail = std::mem::take(&mut st.tail);
                    if let Some(payload) = st.close(py) {
                        return Err(util::panic_error(payload));
                    }
                    if !tail.is_empty() {
                        return Ok(Some(util::name_obj(py, &tail, st.as_bytes)));
                    }
                    return Ok(None);
                }
                Err(interrupted) => {
                    st.close(py);
                    return Err(interrupted);
                }
            }
        }
    }

    /// Stops the walk and waits for its threads (also done at the end of
    /// the iteration, when `onerror` raises, and when the iterator is
    /// dropped).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        match self.state.lock(py)?.close(py) {
            Some(payload) => Err(util::panic_error(payload)),
            None => Ok(()),
        }
    }

    /// GNU find's exit status once the walk is over (0, or 1 after a
    /// problem, which find reported on standard error); `None` before.
    #[getter]
    fn status(&self) -> Option<i32> {
        self.status.get().copied()
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
