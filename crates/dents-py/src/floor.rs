//! `dents._walk_floor`: the floor of `dents.walk`'s cost on the Python
//! thread, for measuring only (built with the `floor` feature, never in
//! the wheel a user gets; bench/pyfloor.py).
//!
//! `dents.walk` reads directories on worker threads; what it cannot move
//! off the Python thread is making the objects it yields.  This yields
//! the same tuples, `(dirpath, dirnames, filenames)` top-down in
//! `os.walk`'s order, from listings read beforehand on another thread and
//! held in Rust memory, so that iterating it does nothing but make those
//! objects: what `dents.walk` would cost with free reading and free
//! hand-overs.

use std::ffi::CString;

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::scandir::READ_BUFFER;
use crate::util;
use crate::walk::{self, Entries, How};

/// One directory read ahead: its path and entries.
struct Dir {
    path: Vec<u8>,
    entries: Entries,
}

/// The iterator of `dents._walk_floor`.
#[pyclass(module = "dents", name = "WalkFloor")]
pub struct Floor {
    /// The directories still to yield, the next one last.
    dirs: Vec<Dir>,
    is_bytes: bool,
}

/// Reads the whole tree under `top` (on another thread, so that the
/// Python thread's instruction count leaves the reading out) in
/// `os.walk`'s top-down order.
pub fn load(py: Python<'_>, top: util::PyPath) -> PyResult<Floor> {
    let bytes = top.bytes;
    let dirs = py.allow_threads(|| {
        std::thread::spawn(move || {
            let how = How {
                by_path: false,
                stat: false,
            };
            let mut buf = vec![0u8; READ_BUFFER];
            let mut out = Vec::new();
            let mut stack = vec![bytes];
            while let Some(path) = stack.pop() {
                let Ok(c) = CString::new(path.clone()) else {
                    continue;
                };
                let Ok(entries) = walk::read_listing(&c, &mut buf, how) else {
                    continue;
                };
                let children: Vec<Vec<u8>> = (0..entries.len())
                    .filter(|&i| entries.get(i).is_dir() && !entries.get(i).is_symlink())
                    .map(|i| util::join(&path, entries.name(i)))
                    .collect();
                stack.extend(children.into_iter().rev());
                out.push(Dir { path, entries });
            }
            out.reverse();
            out
        })
        .join()
        .unwrap_or_default()
    });
    Ok(Floor {
        dirs,
        is_bytes: top.is_bytes,
    })
}

#[pymethods]
impl Floor {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let Some(d) = self.dirs.pop() else {
            return Ok(None);
        };
        let e = &d.entries;
        let name = |i: usize| util::name_obj(py, e.name(i), self.is_bytes);
        let ndirs = (0..e.len()).filter(|&i| e.get(i).is_dir()).count();
        let mut dirs = Vec::with_capacity(ndirs);
        let mut files = Vec::with_capacity(e.len() - ndirs);
        for i in 0..e.len() {
            if e.get(i).is_dir() {
                dirs.push(name(i));
            } else {
                files.push(name(i));
            }
        }
        let dirs = PyList::new(py, dirs)?;
        let files = PyList::new(py, files)?;
        let path = util::name_obj(py, &d.path, self.is_bytes);
        Ok(Some(
            PyTuple::new(
                py,
                [path, dirs.into_any().unbind(), files.into_any().unbind()],
            )?
            .into_any()
            .unbind(),
        ))
    }
}
