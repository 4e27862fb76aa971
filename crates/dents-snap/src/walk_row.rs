//! Rows and problems from the library's visitor walk
//! ([`dents::walk::Visit`], [`dents::Error`]), for a scan that
//! drives the walk itself rather than through [`crate::scan()`]'s sorted
//! walker: `dents-mpi scan`, whose ranks walk work items of one tree.
//!
//! The rows are [`crate::row::fill_row`]'s, as [`crate::scan()`]'s are,
//! and the problems in the same words, so that the union of a sharded
//! scan's rows equals the rows `dents scan` writes for the same tree.

use crate::problem::Problem;
use crate::row::{fill_row, Row};
use dents::describe;
use dents::walk::Visit;
use dents::{Error, ErrorKind};

/// The fields a walk's visits must stat ([`crate::row::stat_fields`]).
pub use crate::row::stat_fields;

/// The row of a visited entry, or the problem that keeps it out
/// ([`fill_row`]'s rules).
pub fn row_of_visit(v: &Visit<'_>, names_only: bool) -> Result<Row, Problem> {
    let mut row = Row::default();
    fill_row(&mut row, v, names_only)?;
    Ok(row)
}

/// A walk's problem in [`crate::scan()`]'s words; `is_root`: the path is
/// one of the roots (a root that does not exist is `cannot access`).
pub fn problem_of_walk(e: &Error, is_root: bool) -> Problem {
    match e.kind() {
        ErrorKind::Io(io) => Problem {
            path: e.path_bytes().to_vec(),
            what: if is_root && io.raw_os_error() == Some(2) {
                "cannot access"
            } else {
                "cannot read directory"
            },
            cause: describe(io),
            errno: io.raw_os_error(),
        },
        ErrorKind::Loop { .. } => Problem {
            path: e.path_bytes().to_vec(),
            what: "",
            cause: "File system loop detected".into(),
            errno: Some(40),
        },
    }
}
