//! Rows and problems from the library's visitor walk
//! ([`dents::walk::Visit`], [`dents::Error`]), for a scan that
//! drives the walk itself rather than through [`crate::scan()`]'s sorted
//! walker: `dents-mpi scan`, whose ranks walk work items of one tree.
//!
//! The rows are [`crate::row::fill_row`]'s, as [`crate::scan()`]'s are,
//! and the problems [`Problem::of_walk`]'s, so that the union of a
//! sharded scan's rows equals the rows `dents scan` writes for the same
//! tree.

use crate::problem::Problem;
use crate::row::{fill_row, Row};
use dents::walk::Visit;

/// The fields a walk's visits must stat ([`crate::row::stat_fields`]).
pub use crate::row::stat_fields;

/// The row of a visited entry, or the problem that keeps it out
/// ([`fill_row`]'s rules).
pub fn row_of_visit(v: &Visit<'_>, names_only: bool) -> Result<Row, Problem> {
    let mut row = Row::default();
    fill_row(&mut row, v, names_only)?;
    Ok(row)
}
