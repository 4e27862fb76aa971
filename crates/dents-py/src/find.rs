//! `dents.find`: a find expression run by the engine of `dents find`
//! (the dents-find crate) on a thread of its own, its output handed to
//! the Python iterator through a bounded channel.
//!
//! The engine writes whole records (paths ending with NUL for the
//! implicit `-print`, which is `-print0` here; lines for `-print`,
//! `-printf`, `-ls`) in buffers of up to 64 KiB.  At most [`QUEUED`]
//! buffers wait for the consumer: when it is slow, the walker threads
//! block on the channel and memory stays bounded.  When the iterator is
//! closed or dropped, the channel's receiver goes, the engine's next
//! write fails and the walk stops as `-quit` stops it
//! (`Command::run_to_reader`).
//!
//! With `entries`, the iterator gives `DirEntry` objects rather than
//! records: the walk is wrapped by [`Recorder`], which makes the engine
//! write out what each visit printed at once, on the visiting thread
//! (the evaluator's `turn_done`), and notes the entry of each visit that
//! printed something, with the metadata its tests already fetched.

use std::cell::Cell;
use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use dents::dir::FileType;
use dents::walk::{self, Flow, Visit, Visitor, WalkError, WalkOptions};
use dents::StatFields;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::scandir::{Dir, DirEntry, Known};
use crate::shared::Locked;
use crate::util::{self, StatValues};

/// Messages that may wait for the consumer.
const QUEUED: usize = 8;
/// Entries a walker thread gathers before it sends them.
const ENTRY_BATCH: usize = 256;

/// What the walk hands the iterator.
enum Message {
    /// A buffer of the engine's output (whole records).
    Records(Vec<u8>),
    /// Entries that printed.
    Entries(Vec<Found>),
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

thread_local! {
    /// Whether the engine wrote output on this thread since the
    /// [`Recorder`] last looked.
    static PRINTED: Cell<bool> = const { Cell::new(false) };
}

/// The engine's standard output in entries mode: the bytes are not
/// needed, only that the visit being recorded printed.
struct PrintMarker;

impl Write for PrintMarker {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        PRINTED.with(|p| p.set(true));
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An entry a visit printed, as the walk saw it.
struct Found {
    path: Vec<u8>,
    name_start: usize,
    ino: u64,
    dtype: u8,
    known: Option<Box<Known>>,
}

impl Found {
    /// The entry of `v`, with the metadata its evaluation fetched: the
    /// entry's own (`lstat`), or under `-L` its target's (`stat`) unless
    /// the link is broken.
    fn of(v: &Visit<'_>) -> Found {
        let meta = v.cached_metadata();
        let values = meta.and_then(StatValues::from_metadata);
        let (dtype, known) = match (v.follows_links(), meta, values) {
            (false, _, values) => (
                v.known_type().unwrap_or(FileType::UNKNOWN),
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
        Found {
            path: v.path().to_vec(),
            name_start: v.path().len() - v.name().len(),
            ino: v.ino(),
            dtype: dtype.as_dtype(),
            known: known.map(Box::new),
        }
    }
}

/// The walks of an entries-mode find: [`walk::walk`] with the engine's
/// visitor wrapped in a [`Recorder`].
struct EntryWalk {
    tx: SyncSender<Message>,
    /// Set once the iterator has gone: no further walk starts.
    gone: AtomicBool,
}

impl dents_find::Walk for EntryWalk {
    fn walk<V: Visitor>(&mut self, roots: &[Vec<u8>], opts: &WalkOptions, visitor: &V) {
        if !self.gone.load(Ordering::Relaxed) {
            let recorder = Recorder {
                inner: visitor,
                tx: &self.tx,
                gone: &self.gone,
            };
            // A stat the expression makes fetches all of `stat(2)`'s
            // fields (the kernel may leave out the times not asked for),
            // so that the entry's `stat()` needs none of its own.  No
            // entry is stat'ed for that: the mask only widens the stats
            // the expression makes.
            let opts = opts
                .clone()
                .stat_fields(opts.get_stat_fields().union(StatFields::BASIC));
            walk::walk(roots, &opts, &recorder);
        }
    }
}

/// The engine's visitor, each visit's output written out at once so that
/// the visits that printed are known, their entries sent in batches.
struct Recorder<'a, V> {
    inner: &'a V,
    tx: &'a SyncSender<Message>,
    gone: &'a AtomicBool,
}

impl<V> Recorder<'_, V> {
    /// Sends the entries gathered; notes a consumer that has gone.
    fn send(&self, found: &mut Vec<Found>) {
        if !found.is_empty() {
            let batch = std::mem::take(found);
            if self.tx.send(Message::Entries(batch)).is_err() {
                self.gone.store(true, Ordering::Relaxed);
            }
        }
    }
}

impl<V: Visitor> Visitor for Recorder<'_, V> {
    type State = (V::State, Vec<Found>);

    fn state(&self) -> Self::State {
        (self.inner.state(), Vec::new())
    }

    fn visit(&self, st: &mut Self::State, v: &Visit<'_>) -> Flow {
        if self.gone.load(Ordering::Relaxed) {
            return Flow::Quit;
        }
        PRINTED.with(|p| p.set(false));
        let flow = self.inner.visit(&mut st.0, v);
        // The engine's `turn_done` writes its buffers out, here, now.
        self.inner.turn_done(&mut st.0);
        if PRINTED.with(|p| p.replace(false)) {
            st.1.push(Found::of(v));
            if st.1.len() >= ENTRY_BATCH {
                self.send(&mut st.1);
            }
        }
        if self.gone.load(Ordering::Relaxed) {
            Flow::Quit
        } else {
            flow
        }
    }

    fn excluded(&self, st: &mut Self::State, v: &Visit<'_>) -> bool {
        self.inner.excluded(&mut st.0, v)
    }

    fn turn_done(&self, st: &mut Self::State) {
        self.inner.turn_done(&mut st.0);
        self.send(&mut st.1);
    }

    fn error(&self, st: &mut Self::State, e: &WalkError) {
        self.inner.error(&mut st.0, e);
    }

    fn finish(&self, st: Self::State) {
        let (inner, mut found) = st;
        self.inner.finish(inner);
        self.send(&mut found);
    }
}

/// What the iterator holds between calls.
struct State {
    /// Records not yet handed out, as Python objects.
    ready: VecDeque<PyObject>,
    /// The engine's output; `None` once it ended or was closed.
    rx: Option<Receiver<Message>>,
    /// The engine's thread, giving GNU find's exit status.
    walker: Option<JoinHandle<i32>>,
    /// The exit status, once the walk is over (read by `status` without
    /// the state's lock, which a thread in `next()` may hold).
    status: Arc<OnceLock<i32>>,
    /// Output after the last record end (a `-printf` without one).
    tail: Vec<u8>,
    /// The byte ending each record.
    sep: u8,
    /// Records as `bytes` rather than `str`.
    as_bytes: bool,
    /// Entries mode: what the entries share.
    entries: Option<Arc<Dir>>,
    /// The caller's `onerror`, called with an `OSError` for each error
    /// that names a path.
    onerror: Option<PyObject>,
}

impl State {
    /// Takes a message of the walk.
    fn take_message(&mut self, py: Python<'_>, m: Message) -> PyResult<()> {
        match (m, &self.entries) {
            (Message::Records(buf), _) => self.take(py, &buf),
            (Message::Entries(found), Some(dir)) => {
                for f in found {
                    let entry =
                        DirEntry::found(py, dir, &f.path, f.name_start, (f.ino, f.dtype), f.known);
                    self.ready.push_back(Py::new(py, entry)?.into_any());
                }
            }
            (Message::Entries(_), None) => {}
            (Message::PathError(path, errno), _) => {
                if let Some(onerror) = &self.onerror {
                    let filename = util::name_obj(py, &path, self.as_bytes);
                    let err = util::os_error(py, &io::Error::from_raw_os_error(errno), &filename);
                    onerror.call1(py, (err.value(py),))?;
                }
            }
        }
        Ok(())
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
    /// the GIL released; returns the walk's panic, if it panicked (its
    /// status is then 1).
    fn close(&mut self, py: Python<'_>) -> Option<Box<dyn std::any::Any + Send>> {
        self.rx = None;
        let w = self.walker.take()?;
        let (status, panic) = match py.allow_threads(|| w.join()) {
            Ok(status) => (status, None),
            Err(payload) => (1, Some(payload)),
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
    let (tx, rx) = mpsc::sync_channel(QUEUED);
    let command = match &onerror {
        // Said on the consumer's thread, where `onerror` may run.
        Some(_) => {
            let errors = tx.clone();
            command.on_path_error(move |path, e| {
                // EIO for an error the system did not number.
                let errno = e.raw_os_error().unwrap_or(5);
                // A closed iterator: nobody to tell.
                let _ = errors.send(Message::PathError(path.to_vec(), errno));
            })
        }
        None => command,
    };
    let walker = std::thread::Builder::new()
        .name("dents-find".into())
        .spawn(move || {
            if entries {
                let mut walker = EntryWalk {
                    tx,
                    gone: AtomicBool::new(false),
                };
                command.run_to_with(PrintMarker, &mut walker).code()
            } else {
                command.run_to_reader(ChannelSink(tx)).code()
            }
        })
        .map_err(PyErr::from)?;
    let status = Arc::default();
    Ok(FindIterator {
        status: Arc::clone(&status),
        state: Locked::new(State {
            ready: VecDeque::new(),
            rx: Some(rx),
            walker: Some(walker),
            status: Arc::clone(&status),
            tail: Vec::new(),
            sep,
            as_bytes,
            entries: entries.then(|| Dir::of_find(py, as_bytes)),
            onerror,
        }),
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
            match util::recv_checking_signals(py, &mut st.rx) {
                Ok(Some(m)) => st.take_message(py, m)?,
                Ok(None) => {
                    // The walk's end, or its panic (which dropped its
                    // sender): not a silently short result.
                    if let Some(payload) = st.close(py) {
                        return Err(util::panic_error(payload));
                    }
                    let tail = std::mem::take(&mut st.tail);
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
    /// the iteration; dropping the iterator stops the walk too).
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
