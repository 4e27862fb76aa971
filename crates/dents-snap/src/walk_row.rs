//! Rows and problems from the library's visitor walk
//! ([`dents::walk::Visit`], [`dents::walk::WalkError`]), for a scan that
//! drives the walk itself rather than through [`crate::scan()`]'s sorted
//! walker: `dents-mpi scan`, whose ranks walk work items of one tree.
//!
//! The rules are [`crate::scan()`]'s, entry for entry (the same columns
//! stat'ed, the same words for a problem), so that the union of a sharded
//! scan's rows equals the rows `dents scan` writes for the same tree.

use dents::walk::{Visit, WalkError, WalkErrorKind};
use dents::{FileType, StatFields};

use crate::row::{nanos, Row};
use crate::scan::{describe, Problem};
use crate::schema::type_letter;

/// The fields a walk's visits must stat (its `stat_mask`): everything the
/// columns hold, or with `--names-only` what names-only rows keep.
pub fn stat_fields(names_only: bool) -> StatFields {
    if names_only {
        StatFields::TYPE | StatFields::INO | StatFields::MTIME | StatFields::CTIME
    } else {
        StatFields::BASIC
    }
}

/// The row of a visited entry, or the problem that keeps it out.
pub fn row_of_visit(v: &Visit<'_>, names_only: bool) -> Result<Row, Problem> {
    let mut row = Row {
        path: v.path().to_vec(),
        name: v.name().to_vec(),
        depth: v.depth() as u32,
        ino: v.ino(),
        ..Row::default()
    };
    // A symlink the walk follows is typed by its target: only a stat
    // tells.
    let known = v
        .known_type()
        .filter(|t| !(v.follows_links() && *t == FileType::SYMLINK));
    // Names only: a stat for directories (their times) and for entries
    // whose type the directory did not tell.
    if names_only {
        if let Some(t) = known.filter(|t| !t.is_dir()) {
            row.kind = type_letter(t).as_bytes()[0];
            return Ok(row);
        }
    }
    let m = match v.metadata() {
        Ok(m) => m,
        Err(e) => {
            return Err(Problem {
                path: row.path,
                what: "cannot access",
                cause: describe(&e),
                errno: e.raw_os_error(),
            })
        }
    };
    row.kind = type_letter(m.file_type()).as_bytes()[0];
    row.ino = m.ino();
    let time = |t: Option<dents::metadata::Timestamp>| t.and_then(|t| nanos(t.secs, t.nsecs));
    row.mtime = time(m.mtime());
    row.ctime = time(m.ctime());
    row.dev = Some(m.dev());
    if names_only {
        if !m.is_dir() {
            row.mtime = None;
            row.ctime = None;
            row.dev = None;
        }
        return Ok(row);
    }
    row.size = Some(m.len() as i64);
    row.blocks = Some(m.blocks() as i64);
    row.mode = Some(m.mode());
    row.uid = Some(m.uid());
    row.gid = Some(m.gid());
    row.nlink = Some(m.nlink() as i64);
    row.atime = time(m.atime());
    if m.is_symlink() {
        match dents::fs::readlink_at(v.parent_fd(), v.at_name()) {
            Ok(t) => row.target = Some(t),
            Err(e) => {
                return Err(Problem {
                    path: row.path,
                    what: "cannot read symbolic link",
                    cause: describe(&e),
                    errno: e.raw_os_error(),
                })
            }
        }
    }
    Ok(row)
}

/// A walk's problem in [`crate::scan()`]'s words; `is_root`: the path is
/// one of the roots (a root that does not exist is `cannot access`).
pub fn problem_of_walk(e: &WalkError, is_root: bool) -> Problem {
    match &e.kind {
        WalkErrorKind::Io(io) | WalkErrorKind::ReadCut(io) => Problem {
            path: e.path.clone(),
            what: if is_root && io.raw_os_error() == Some(2) {
                "cannot access"
            } else {
                "cannot read directory"
            },
            cause: describe(io),
            errno: io.raw_os_error(),
        },
        WalkErrorKind::Loop(_) => Problem {
            path: e.path.clone(),
            what: "",
            cause: "File system loop detected".into(),
            errno: Some(40),
        },
    }
}
