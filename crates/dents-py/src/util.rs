//! Paths, names, errors and stat results as `os` makes them.

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBytes, PyDict};
use pyo3::{intern, PyTypeInfo};

/// How long a thread waiting for the scan sleeps between checks for
/// signals (Ctrl-C): short enough to feel immediate.
pub const SIGNAL_CHECK: std::time::Duration = std::time::Duration::from_millis(50);

/// Waits up to [`SIGNAL_CHECK`] for the scan's next message on `rx`,
/// with the GIL released (the receiver crosses into the waiting closure
/// and comes back).
pub fn recv_released<T: Send>(
    py: Python<'_>,
    rx: &mut Option<std::sync::mpsc::Receiver<T>>,
) -> Option<Result<T, std::sync::mpsc::RecvTimeoutError>> {
    let r = rx.take()?;
    let (r, got) = py.allow_threads(move || {
        let got = r.recv_timeout(SIGNAL_CHECK);
        (r, got)
    });
    *rx = Some(r);
    Some(got)
}

static OS: GILOnceCell<Py<PyModule>> = GILOnceCell::new();

/// The `os` module, imported once.
pub fn os_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    Ok(OS
        .get_or_try_init(py, || py.import("os").map(Bound::unbind))?
        .bind(py))
}

/// A path as the caller gave it (after `os.fspath`): the object, to be
/// handed back in results and errors, and its bytes, for the system calls.
pub struct PyPath {
    /// The `str` or `bytes` object.
    pub obj: PyObject,
    /// `os.fsencode` of it.
    pub bytes: Vec<u8>,
    /// Whether results are `bytes` (else `str`).
    pub is_bytes: bool,
}

/// `os.fspath(obj)` with its bytes (`os.fsencode`).
pub fn fspath(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<PyPath> {
    let p = os_module(py)?.call_method1(intern!(py, "fspath"), (obj,))?;
    if let Ok(b) = p.downcast::<PyBytes>() {
        let bytes = b.as_bytes().to_vec();
        return Ok(PyPath {
            obj: p.unbind(),
            bytes,
            is_bytes: true,
        });
    }
    // str: encoded as os.fsencode does (UTF-8, surrogateescape).
    let s: OsString = p.extract()?;
    Ok(PyPath {
        obj: p.unbind(),
        bytes: s.into_vec(),
        is_bytes: false,
    })
}

/// The bytes of a path as a C string; `ValueError` for an embedded NUL,
/// as `os` raises.
pub fn cstring(bytes: &[u8]) -> PyResult<CString> {
    CString::new(bytes).map_err(|_| PyValueError::new_err("embedded null byte"))
}

/// A name or path as a Python object: `bytes`, or `str` decoded as
/// `os.fsdecode` does (UTF-8 with surrogateescape).
pub fn name_obj(py: Python<'_>, bytes: &[u8], as_bytes: bool) -> PyObject {
    if as_bytes {
        PyBytes::new(py, bytes).into_any().unbind()
    } else {
        match OsStr::from_bytes(bytes).into_pyobject(py) {
            Ok(s) => s.into_any().unbind(),
            Err(never) => match never {},
        }
    }
}

/// `os.path.join(dir, name)` for a name read from `dir` (no `/` in it).
pub fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(dir.len() + 1 + name.len());
    p.extend_from_slice(dir);
    if !dir.is_empty() && !dir.ends_with(b"/") {
        p.push(b'/');
    }
    p.extend_from_slice(name);
    p
}

/// The `OSError` subclass `os` raises for `err` on `filename`
/// (`FileNotFoundError`, `PermissionError`, ...), with `errno`,
/// `strerror` and `filename` set.
pub fn os_error(py: Python<'_>, err: &io::Error, filename: &PyObject) -> PyErr {
    let errno = err.raw_os_error().unwrap_or(5); // EIO for a malformed record
    let make = || -> PyResult<PyErr> {
        let strerror = os_module(py)?.call_method1(intern!(py, "strerror"), (errno,))?;
        let exc = PyOSError::type_object(py).call1((errno, strerror, filename.bind(py)))?;
        Ok(PyErr::from_value(exc))
    };
    make().unwrap_or_else(|e| e)
}

/// `os.stat_result` from a `stat` structure, field for field as
/// `os.stat` fills it (the float times as `sec + nsec * 1e-9`).
pub fn stat_result(py: Python<'_>, st: &rustix::fs::Stat) -> PyResult<PyObject> {
    let seq = (
        st.st_mode,
        st.st_ino,
        st.st_dev,
        st.st_nlink,
        st.st_uid,
        st.st_gid,
        st.st_size,
        st.st_atime,
        st.st_mtime,
        st.st_ctime,
    );
    let extra = PyDict::new(py);
    let times = [
        (
            intern!(py, "st_atime"),
            intern!(py, "st_atime_ns"),
            st.st_atime,
            st.st_atime_nsec,
        ),
        (
            intern!(py, "st_mtime"),
            intern!(py, "st_mtime_ns"),
            st.st_mtime,
            st.st_mtime_nsec,
        ),
        (
            intern!(py, "st_ctime"),
            intern!(py, "st_ctime_ns"),
            st.st_ctime,
            st.st_ctime_nsec,
        ),
    ];
    for (f, ns, sec, nsec) in times {
        // The field types differ between architectures.
        #[allow(clippy::unnecessary_cast)]
        let (sec, nsec) = (sec as i64, nsec as u64);
        extra.set_item(f, sec as f64 + nsec as f64 * 1e-9)?;
        extra.set_item(ns, sec as i128 * 1_000_000_000 + nsec as i128)?;
    }
    extra.set_item(intern!(py, "st_blksize"), st.st_blksize)?;
    extra.set_item(intern!(py, "st_blocks"), st.st_blocks)?;
    extra.set_item(intern!(py, "st_rdev"), st.st_rdev)?;
    let ty = os_module(py)?.getattr(intern!(py, "stat_result"))?;
    Ok(ty.call1((seq, extra))?.unbind())
}

/// `stat` or `lstat` of a path, on the calling thread with the GIL released.
pub fn stat_path(py: Python<'_>, path: &PyObject, follow: bool) -> PyResult<PyObject> {
    let bytes: Vec<u8> = match path.bind(py).downcast::<PyBytes>() {
        Ok(b) => b.as_bytes().to_vec(),
        Err(_) => path.bind(py).extract::<OsString>()?.into_vec(),
    };
    let c = cstring(&bytes)?;
    let r = py.allow_threads(|| {
        if follow {
            rustix::fs::stat(c.as_c_str())
        } else {
            rustix::fs::lstat(c.as_c_str())
        }
    });
    match r {
        Ok(st) => stat_result(py, &st),
        Err(e) => Err(os_error(py, &io::Error::from(e), path)),
    }
}
