//! Paths, names, errors and stat results as `os` makes them.

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use pyo3::{intern, PyTypeInfo};

/// How long a thread waiting for the scan sleeps between checks for
/// signals (Ctrl-C): short enough to feel immediate.
pub const SIGNAL_CHECK: std::time::Duration = std::time::Duration::from_millis(50);

/// The scan's next message on `rx`, waited for with the GIL released and
/// signals checked every [`SIGNAL_CHECK`] (Ctrl-C raises
/// `KeyboardInterrupt` from here): `Ok(None)` once the scan has ended
/// (its sender gone) or `rx` was closed.  The one receive loop of the
/// iterators (`scandir`, `find`); each closes its scan on `Err` or `None`.
pub fn recv_checking_signals<T: Send>(
    py: Python<'_>,
    rx: &mut Option<std::sync::mpsc::Receiver<T>>,
) -> PyResult<Option<T>> {
    use std::sync::mpsc::RecvTimeoutError;
    loop {
        // The receiver crosses into the waiting closure and comes back.
        let Some(r) = rx.take() else {
            return Ok(None);
        };
        let (r, got) = py.allow_threads(move || {
            let got = r.recv_timeout(SIGNAL_CHECK);
            (r, got)
        });
        *rx = Some(r);
        match got {
            Ok(m) => return Ok(Some(m)),
            Err(RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(RecvTimeoutError::Disconnected) => return Ok(None),
        }
    }
}

/// A panic of one of the extension's threads, as the exception pyo3 raises
/// for a panic on the Python thread (`pyo3_runtime.PanicException`), with
/// the panic's message: a worker's bug surfaces as an exception rather
/// than a hang or a silently short result.
pub fn panic_error(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let text = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic from Rust code".to_string());
    pyo3::panic::PanicException::new_err(text)
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

/// `os.path.join(dir, name)` for a name read from `dir` (no `/` in it),
/// with room for a NUL: made into a `CString` (a walk's read-ahead job),
/// it is not copied again.
pub fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(dir.len() + 2 + name.len());
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

/// The fields of an `os.stat_result`, from a `stat(2)` structure or from
/// the metadata a walk fetched.
pub struct StatValues {
    mode: u32,
    ino: u64,
    dev: u64,
    nlink: u64,
    uid: u32,
    gid: u32,
    size: i64,
    /// Seconds and nanoseconds of the access, modification and status
    /// change times.
    times: [(i64, u32); 3],
    blksize: i64,
    blocks: i64,
    rdev: u64,
}

impl StatValues {
    /// The fields of a `stat` structure.
    // The field types differ between architectures.
    #[allow(clippy::unnecessary_cast)]
    pub fn from_stat(st: &rustix::fs::Stat) -> StatValues {
        StatValues {
            mode: st.st_mode as u32,
            ino: st.st_ino as u64,
            dev: st.st_dev as u64,
            nlink: st.st_nlink as u64,
            uid: st.st_uid,
            gid: st.st_gid,
            size: st.st_size as i64,
            times: [
                (st.st_atime as i64, st.st_atime_nsec as u32),
                (st.st_mtime as i64, st.st_mtime_nsec as u32),
                (st.st_ctime as i64, st.st_ctime_nsec as u32),
            ],
            blksize: st.st_blksize as i64,
            blocks: st.st_blocks as i64,
            rdev: st.st_rdev as u64,
        }
    }

    /// The fields of a walk's metadata, if it holds all that `stat(2)`
    /// gives (a `statx` asked for fewer may have fewer).
    pub fn from_metadata(m: &dents::Metadata) -> Option<StatValues> {
        if !m.fields().contains(dents::StatFields::BASIC) {
            return None;
        }
        let t = |t: Option<dents::Timestamp>| t.map(|t| (t.secs, t.nsecs));
        Some(StatValues {
            mode: m.mode(),
            ino: m.ino(),
            dev: m.dev(),
            nlink: m.nlink(),
            uid: m.uid(),
            gid: m.gid(),
            size: i64::try_from(m.len()).ok()?,
            times: [t(m.atime())?, t(m.mtime())?, t(m.ctime())?],
            blksize: i64::from(m.blksize()),
            blocks: i64::try_from(m.blocks()).ok()?,
            rdev: m.rdev(),
        })
    }
}

/// Whether `os.stat_result` takes all its fields as one tuple in the
/// order of [`stat_result`]'s (CPython on Linux: the ten of the sequence,
/// then the float times, the nanosecond times, `st_blksize`, `st_blocks`,
/// `st_rdev`): checked once, by building one from `0..19`.
static WHOLE_TUPLE: GILOnceCell<bool> = GILOnceCell::new();

/// The attributes of [`WHOLE_TUPLE`]'s check and their places.
const PLACES: [(&str, usize); 6] = [
    ("st_mode", 0),
    ("st_ctime", 12),
    ("st_atime_ns", 13),
    ("st_ctime_ns", 15),
    ("st_blksize", 16),
    ("st_rdev", 18),
];

fn whole_tuple(py: Python<'_>, ty: &Bound<'_, PyAny>) -> bool {
    *WHOLE_TUPLE.get_or_init(py, || {
        let check = || -> PyResult<bool> {
            if ty.getattr("n_fields")?.extract::<usize>()? != 19 {
                return Ok(false);
            }
            let probe = ty.call1((PyTuple::new(py, 0..19usize)?,))?;
            for (name, at) in PLACES {
                if probe.getattr(name)?.extract::<usize>()? != at {
                    return Ok(false);
                }
            }
            Ok(true)
        };
        check().unwrap_or(false)
    })
}

/// `os.stat_result` from `st`, field for field as `os.stat` fills it
/// (the float times as `sec + nsec * 1e-9`).  Built from one tuple where
/// the interpreter's `stat_result` allows (faster than the sequence and a
/// dict of the named fields, the general way, kept for others:
/// docs/history/benchmarks.md#what-changed-this-session-ab-in-one-run).
pub fn stat_result(py: Python<'_>, st: &StatValues) -> PyResult<PyObject> {
    let [a, m, c] = st.times;
    let float = |(sec, nsec): (i64, u32)| sec as f64 + f64::from(nsec) * 1e-9;
    let ns = |(sec, nsec): (i64, u32)| i128::from(sec) * 1_000_000_000 + i128::from(nsec);
    let ty = os_module(py)?.getattr(intern!(py, "stat_result"))?;
    let seq = (
        st.mode, st.ino, st.dev, st.nlink, st.uid, st.gid, st.size, a.0, m.0, c.0,
    );
    if whole_tuple(py, &ty) {
        let mut fields: Vec<Bound<'_, PyAny>> = Vec::with_capacity(19);
        fields.extend(seq.into_pyobject(py)?.iter());
        for t in [a, m, c] {
            fields.push(float(t).into_pyobject(py)?.into_any());
        }
        for t in [a, m, c] {
            fields.push(ns(t).into_pyobject(py)?.into_any());
        }
        fields.push(st.blksize.into_pyobject(py)?.into_any());
        fields.push(st.blocks.into_pyobject(py)?.into_any());
        fields.push(st.rdev.into_pyobject(py)?.into_any());
        return Ok(ty.call1((PyTuple::new(py, fields)?,))?.unbind());
    }
    let extra = PyDict::new(py);
    let times = [
        (intern!(py, "st_atime"), intern!(py, "st_atime_ns"), a),
        (intern!(py, "st_mtime"), intern!(py, "st_mtime_ns"), m),
        (intern!(py, "st_ctime"), intern!(py, "st_ctime_ns"), c),
    ];
    for (f, n, t) in times {
        extra.set_item(f, float(t))?;
        extra.set_item(n, ns(t))?;
    }
    extra.set_item(intern!(py, "st_blksize"), st.blksize)?;
    extra.set_item(intern!(py, "st_blocks"), st.blocks)?;
    extra.set_item(intern!(py, "st_rdev"), st.rdev)?;
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
        Ok(st) => stat_result(py, &StatValues::from_stat(&st)),
        Err(e) => Err(os_error(py, &io::Error::from(e), path)),
    }
}
