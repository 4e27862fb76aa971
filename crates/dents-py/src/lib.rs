//! The Python package `dents`: `os.walk` and `os.scandir`, parallel and
//! exact, on the dents library.
//!
//! Its modules in layers: each uses only modules of lower layers, so there
//! is no import circle (`crates/testfs/tests/crates_layers.rs` keeps it so: this crate has no Rust tests).
//!
//! | layer | module | concern |
//! |-------|--------|---------|
//! | 0 | `util` | paths, names, `OSError`s and `os.stat_result`s exactly as `os` makes them |
//! | 0 | `shared` | an iterator's state stepped by several Python threads, one at a time |
//! | 0 | `split` | `dents.scandir_split`: `aio_scandir`'s `(dirs, nondirs)` with the fewest stats |
//! | 0 | `du` | `dents.du`: `du -s`'s total in bytes, on the dents-du engine |
//! | 0 | `snap` | `dents.scan`: a snapshot in Parquet, on the dents-snap crate |
//! | 1 | `scandir` | `dents.scandir`: `os.scandir`'s iterator and entries, a huge directory read in slices |
//! | 2 | `walk` | `dents.walk`: `os.walk`'s tuples and order, directories read ahead on worker threads |
//! | 2 | `find` | `dents.find`: a find expression on the engine of `dents find`, its output or its entries streamed |
//! | 3 | `floor` | `dents._walk_floor` (the `floor` feature, for measuring): `dents.walk`'s tuples from memory, the floor of its Python-thread cost |
//!
//! The Python side (`python/dents/__init__.py`) holds the signatures and
//! docstrings users see; this module is `dents._native`.

#![deny(unsafe_code)]

mod du;
mod find;
#[cfg(feature = "floor")]
mod floor;
mod scandir;
mod shared;
mod snap;
mod split;
mod util;
mod walk;

use pyo3::prelude::*;
use pyo3::types::PyList;

/// Worker threads when the caller gives none: what the library uses to
/// read one directory (the cores, at least 4).
fn default_threads() -> usize {
    dents::slice::default_slices()
}

/// `scandir(path, threads)`: see `dents.scandir` (`path` an open
/// directory's descriptor, or a path).
#[pyfunction]
#[pyo3(name = "scandir", signature = (path, threads = None))]
fn py_scandir(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    threads: Option<usize>,
) -> PyResult<scandir::ScandirIterator> {
    let threads = threads.unwrap_or_else(default_threads).max(1);
    if path.is_instance_of::<pyo3::types::PyInt>() && !path.is_instance_of::<pyo3::types::PyBool>()
    {
        return scandir::open_fd(py, path.extract()?, threads);
    }
    let p = util::fspath(py, path)?;
    scandir::open(py, p, threads)
}

/// `walk(top, topdown, onerror, followlinks, threads)`: see `dents.walk`.
#[pyfunction]
#[pyo3(name = "walk", signature = (top, topdown = true, onerror = None, followlinks = false, threads = None, stat = false))]
fn py_walk(
    py: Python<'_>,
    top: &Bound<'_, PyAny>,
    topdown: bool,
    onerror: Option<PyObject>,
    followlinks: bool,
    threads: Option<usize>,
    stat: bool,
) -> PyResult<walk::Walk> {
    let p = util::fspath(py, top)?;
    // As os.walk, whose scandir raises ValueError for a NUL.
    util::cstring(&p.bytes)?;
    let onerror = onerror.filter(|o| !o.is_none(py));
    Ok(walk::new(
        p,
        topdown,
        onerror,
        followlinks,
        threads.unwrap_or_else(default_threads),
        stat,
    ))
}

/// `_walk_floor(top)`: `walk(top)`'s tuples from listings read
/// beforehand (see the `floor` module; the `floor` feature only).
#[cfg(feature = "floor")]
#[pyfunction]
#[pyo3(name = "_walk_floor")]
fn py_walk_floor(py: Python<'_>, top: &Bound<'_, PyAny>) -> PyResult<floor::Floor> {
    let p = util::fspath(py, top)?;
    floor::load(py, p)
}

/// `scandir_split(path, threads)` → `(dirs, nondirs, counters)`: see
/// `dents.scandir_split`; `counters` is `(stats, by_dtype, by_nlink,
/// fallbacks)`.
#[pyfunction]
#[pyo3(name = "scandir_split", signature = (path, threads = None))]
fn py_scandir_split(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    threads: Option<usize>,
) -> PyResult<(PyObject, PyObject, [u64; 4])> {
    let p = util::fspath(py, path)?;
    let c = util::cstring(&p.bytes)?;
    let threads = threads.unwrap_or_else(default_threads).max(1);
    let (dirs, nondirs, counters) = py
        .allow_threads(|| split::split(&c, threads))
        .map_err(|e| util::os_error(py, &e, &p.obj))?;
    let list = |names: Vec<Vec<u8>>| -> PyResult<PyObject> {
        let objs = names.iter().map(|n| util::name_obj(py, n, p.is_bytes));
        Ok(PyList::new(py, objs)?.into_any().unbind())
    };
    Ok((list(dirs)?, list(nondirs)?, counters))
}

/// `du(path, apparent, count_links, one_file_system, threads, onerror)`:
/// see `dents.du`.
#[pyfunction]
#[pyo3(name = "du", signature = (path, apparent = false, count_links = false, one_file_system = false, threads = None, onerror = None))]
fn py_du(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    apparent: bool,
    count_links: bool,
    one_file_system: bool,
    threads: Option<usize>,
    onerror: Option<PyObject>,
) -> PyResult<u64> {
    let p = util::fspath(py, path)?;
    util::cstring(&p.bytes)?;
    let opts = du::DuOptions {
        apparent,
        count_links,
        one_file_system,
        threads,
    };
    let (total, problems) = py.allow_threads(|| du::du(&p.bytes, &opts));
    let error = |path: &[u8], errno: i32| {
        let filename = if path == p.bytes.as_slice() {
            p.obj.clone_ref(py)
        } else {
            util::name_obj(py, path, p.is_bytes)
        };
        util::os_error(py, &std::io::Error::from_raw_os_error(errno), &filename)
    };
    let onerror = onerror.filter(|o| !o.is_none(py));
    for (path, errno) in &problems {
        let e = error(path, *errno);
        match (&onerror, total) {
            (Some(f), Some(_)) => {
                f.call1(py, (e.value(py),))?;
            }
            _ => return Err(e),
        }
    }
    total.ok_or_else(|| error(&p.bytes, 2))
}

/// `find(paths, expression, as_bytes, entries, onerror, follow)`: see
/// `dents.find` (`paths` and the words of `expression` already
/// `os.fsencode`d; `follow` one of `P`, `H`, `L`).
#[pyfunction]
#[pyo3(
    name = "find",
    signature = (paths, expression, as_bytes, entries = false, onerror = None, follow = "P")
)]
fn py_find(
    py: Python<'_>,
    paths: Vec<Vec<u8>>,
    expression: Vec<Vec<u8>>,
    as_bytes: bool,
    entries: bool,
    onerror: Option<PyObject>,
    follow: &str,
) -> PyResult<find::FindIterator> {
    let how = find::How {
        as_bytes,
        entries,
        onerror,
        follow,
    };
    find::start(py, paths, expression, how)
}

/// `scan(roots, output, threads, one_file_system, follow, names_only,
/// onerror, since)`: see `dents.scan` (`roots`, `output` and `since`
/// already `os.fsencode`d); returns the rows written and, for a `since`
/// that could not be used at all, why (the wrapper warns).
#[pyfunction]
#[pyo3(name = "scan", signature = (roots, output, threads = None, one_file_system = false, follow = None, names_only = false, onerror = None, since = None))]
#[allow(clippy::too_many_arguments)]
fn py_scan(
    py: Python<'_>,
    roots: Vec<Vec<u8>>,
    output: Vec<u8>,
    threads: Option<usize>,
    one_file_system: bool,
    follow: Option<String>,
    names_only: bool,
    onerror: Option<PyObject>,
    since: Option<Vec<u8>>,
) -> PyResult<(u64, Option<(PyObject, String)>)> {
    let follow = match follow.as_deref() {
        None | Some("never") => dents::Follow::Never,
        Some("roots") => dents::Follow::Roots,
        Some("all") => dents::Follow::Always,
        Some(other) => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "follow must be None, 'roots' or 'all', not {other:?}"
            )))
        }
    };
    for r in &roots {
        util::cstring(r)?;
    }
    let opts = snap::PyScanOptions {
        threads,
        one_file_system,
        follow,
        names_only,
        since,
    };
    let (result, problems) = py.allow_threads(|| snap::scan(&roots, &output, &opts));
    let onerror = onerror.filter(|o| !o.is_none(py));
    if let Some(f) = &onerror {
        for (path, errno, message) in &problems {
            let filename = util::name_obj(py, path, false);
            let e = match errno {
                Some(n) => util::os_error(py, &std::io::Error::from_raw_os_error(*n), &filename),
                None => pyo3::exceptions::PyOSError::new_err(
                    String::from_utf8_lossy(message).into_owned(),
                ),
            };
            f.call1(py, (e.value(py),))?;
        }
    }
    match result {
        // The file named as bytes: a path, not text.
        Ok((rows, why)) => Ok((
            rows,
            why.map(|(named, text)| {
                (
                    pyo3::types::PyBytes::new(py, &named).into_any().unbind(),
                    text,
                )
            }),
        )),
        Err(dents_snap::Error::Io(path, e)) => {
            let name = if path.is_empty() { &output } else { &path };
            Err(util::os_error(py, &e, &util::name_obj(py, name, false)))
        }
        Err(e) => Err(pyo3::exceptions::PyOSError::new_err(e.to_string())),
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The package's version is the crate's: one number to bump.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // Only in a build for the panic tests (tests/test_panics.py), which
    // look for it: reading an entry named `dents-test-panic` panics.
    #[cfg(feature = "test-knobs")]
    m.add("_TEST_KNOBS", true)?;
    #[cfg(feature = "floor")]
    m.add_function(wrap_pyfunction!(py_walk_floor, m)?)?;
    m.add_function(wrap_pyfunction!(py_scandir, m)?)?;
    m.add_function(wrap_pyfunction!(py_walk, m)?)?;
    m.add_function(wrap_pyfunction!(py_scandir_split, m)?)?;
    m.add_function(wrap_pyfunction!(py_du, m)?)?;
    m.add_function(wrap_pyfunction!(py_find, m)?)?;
    m.add_function(wrap_pyfunction!(py_scan, m)?)?;
    m.add_class::<find::FindIterator>()?;
    m.add_class::<scandir::DirEntry>()?;
    m.add_class::<scandir::ScandirIterator>()?;
    m.add_class::<walk::Walk>()?;
    m.add_class::<walk::Stat>()?;
    Ok(())
}
