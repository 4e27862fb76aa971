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

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Mutex;
use std::thread::JoinHandle;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::util;

/// Buffers of output that may wait for the consumer.
const QUEUED: usize = 8;

/// The engine's standard output: each buffer sent down the channel.
struct ChannelSink(SyncSender<Vec<u8>>);

impl Write for ChannelSink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0
            .send(bytes.to_vec())
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What the iterator holds between calls.
struct State {
    /// Records not yet handed out, as Python objects.
    ready: VecDeque<PyObject>,
    /// The engine's output; `None` once it ended or was closed.
    rx: Option<Receiver<Vec<u8>>>,
    /// The engine's thread, giving GNU find's exit status.
    walker: Option<JoinHandle<i32>>,
    /// The exit status, once the walk is over.
    status: Option<i32>,
    /// Output after the last record end (a `-printf` without one).
    tail: Vec<u8>,
    /// The byte ending each record.
    sep: u8,
    /// Records as `bytes` rather than `str`.
    as_bytes: bool,
}

impl State {
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
    /// the GIL released.
    fn close(&mut self, py: Python<'_>) {
        self.rx = None;
        if let Some(w) = self.walker.take() {
            let status = py.allow_threads(|| w.join().unwrap_or(1));
            self.status.get_or_insert(status);
        }
    }
}

/// The iterator `dents.find` returns.
#[pyclass(module = "dents", name = "FindIterator")]
pub struct FindIterator {
    state: Mutex<State>,
}

/// Whether the expression writes lines to standard output itself
/// (`-print`, `-printf`, `-ls`): then its records are lines; otherwise
/// the implicit `-print0` ends each path with NUL.
fn prints_lines(expression: &[Vec<u8>]) -> bool {
    expression
        .iter()
        .any(|w| matches!(w.as_slice(), b"-print" | b"-printf" | b"-ls"))
}

/// Reads `paths` and `expression` as `dents find PATHS EXPRESSION` and
/// starts the walk: a parse error raises `ValueError` with GNU's text.
pub fn start(
    py: Python<'_>,
    paths: Vec<Vec<u8>>,
    expression: Vec<Vec<u8>>,
    as_bytes: bool,
) -> PyResult<FindIterator> {
    let sep = if prints_lines(&expression) { b'\n' } else { 0 };
    let args: Vec<&OsStr> = paths
        .iter()
        .chain(&expression)
        .map(|a| OsStr::from_bytes(a))
        .collect();
    let command = py
        .allow_threads(|| dents_find::Command::parse_print0(&args))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let (tx, rx) = mpsc::sync_channel(QUEUED);
    let walker = std::thread::Builder::new()
        .name("dents-find".into())
        .spawn(move || command.run_to_reader(ChannelSink(tx)).code())
        .map_err(PyErr::from)?;
    Ok(FindIterator {
        state: Mutex::new(State {
            ready: VecDeque::new(),
            rx: Some(rx),
            walker: Some(walker),
            status: None,
            tail: Vec::new(),
            sep,
            as_bytes,
        }),
    })
}

#[pymethods]
impl FindIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(r) = st.ready.pop_front() {
                return Ok(Some(r));
            }
            let Some(got) = util::recv_released(py, &mut st.rx) else {
                return Ok(None);
            };
            match got {
                Ok(buf) => st.take(py, &buf),
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        st.close(py);
                        return Err(e);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    st.close(py);
                    let tail = std::mem::take(&mut st.tail);
                    if !tail.is_empty() {
                        return Ok(Some(util::name_obj(py, &tail, st.as_bytes)));
                    }
                    return Ok(None);
                }
            }
        }
    }

    /// Stops the walk and waits for its threads (also done at the end of
    /// the iteration; dropping the iterator stops the walk too).
    fn close(&mut self, py: Python<'_>) {
        self.state
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .close(py);
    }

    /// GNU find's exit status once the walk is over (0, or 1 after a
    /// problem, which find reported on standard error); `None` before.
    #[getter]
    fn status(&self) -> Option<i32> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).status
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&mut self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(py);
        false
    }
}
