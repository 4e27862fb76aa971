//! One entry of a snapshot: one row, owned, and the one set of rules
//! that makes a row from a walk's visit ([`fill_row`]), for every scan
//! (`dents scan`, a refresh, `dents-mpi scan`'s shards).

use dents::walk::Visit;
use dents::{FileType, StatFields};

use crate::problem::Problem;
use crate::schema::type_letter;
use dents::describe;

/// One entry: the columns of [`crate::schema::MESSAGE`] in Rust types
/// (`None` where the column is null: not stat'ed with `--names-only`, or
/// not known).  Times are nanoseconds since the epoch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// The path as the walk made it: a root as given, then names joined
    /// with `/`; exact bytes.
    pub path: Vec<u8>,
    /// The last name of the path (the root itself for a root).
    pub name: Vec<u8>,
    /// Directories below the root (0 for a root).
    pub depth: u32,
    /// find's `%y` letter: `f d l b c p s`, `U` unknown.
    pub kind: u8,
    /// `st_size`.
    pub size: Option<i64>,
    /// `st_blocks` (512-byte units).
    pub blocks: Option<i64>,
    /// `st_mode`: type and permission bits.
    pub mode: Option<u32>,
    /// Owner.
    pub uid: Option<u32>,
    /// Group.
    pub gid: Option<u32>,
    /// Hard links.
    pub nlink: Option<i64>,
    /// Inode number.
    pub ino: u64,
    /// Device: `makedev(major, minor)`, as `st_dev`.
    pub dev: Option<u64>,
    /// Last modification, nanoseconds since the epoch.
    pub mtime: Option<i64>,
    /// Last status change.
    pub ctime: Option<i64>,
    /// Last access.
    pub atime: Option<i64>,
    /// A symlink's target, bytes.
    pub target: Option<Vec<u8>>,
}

impl Row {
    /// The path's components in the snapshot's order: the root, then one
    /// name per level (`depth` names split off the end).
    pub fn components(&self) -> Vec<&[u8]> {
        components(&self.path, self.depth)
    }
}

/// `path` split into its root and `depth` names (see [`Row::components`]).
pub fn components(path: &[u8], depth: u32) -> Vec<&[u8]> {
    let mut names = Vec::with_capacity(depth as usize + 1);
    let mut rest = path;
    for _ in 0..depth {
        match rest.iter().rposition(|&b| b == b'/') {
            Some(i) => {
                names.push(&rest[i + 1..]);
                rest = &rest[..i];
            }
            None => break,
        }
    }
    names.push(rest);
    names.reverse();
    names
}

/// The snapshot's row order (level order, see [`crate::schema::ORDER`])
/// between two entries.
pub fn order(a: &Row, b: &Row) -> std::cmp::Ordering {
    a.depth
        .cmp(&b.depth)
        .then_with(|| a.components().cmp(&b.components()))
}

/// An `i64` of nanoseconds since the epoch; `None` past its range.
pub fn nanos(secs: i64, nsecs: u32) -> Option<i64> {
    secs.checked_mul(1_000_000_000)?
        .checked_add(i64::from(nsecs))
}

/// The fields a walk's visits must stat for [`fill_row`] (its
/// `stat_mask`): everything the columns hold, or with `--names-only`
/// what names-only rows keep.
pub fn stat_fields(names_only: bool) -> StatFields {
    if names_only {
        StatFields::TYPE | StatFields::INO | StatFields::MTIME | StatFields::CTIME
    } else {
        StatFields::BASIC
    }
}

/// Fills `row` with the entry `v`'s columns (or says the problem that
/// keeps it out of the snapshot): its path, name, depth, type and inode,
/// and what a stat tells; with `names_only`, a stat only for
/// directories (their times) and entries whose type the directory did
/// not tell, and only directories keep `dev` and times.  A symlink's
/// target is read.  `row`'s byte buffers are reused (cleared, not
/// reallocated), so a caller may fill the same row again and again.
///
/// The one home of the per-entry rules: every scan, sorted or sharded,
/// writes the same row for the same entry.
pub fn fill_row(row: &mut Row, v: &Visit<'_>, names_only: bool) -> Result<(), Problem> {
    row.path.clear();
    row.path.extend_from_slice(v.path());
    row.name.clear();
    row.name.extend_from_slice(v.name());
    row.depth = v.depth() as u32;
    row.ino = v.ino();
    row.size = None;
    row.blocks = None;
    row.mode = None;
    row.uid = None;
    row.gid = None;
    row.nlink = None;
    row.dev = None;
    row.mtime = None;
    row.ctime = None;
    row.atime = None;
    row.target = None;
    // A symlink the walk follows is typed by its target: only a stat
    // tells.
    let known = v
        .known_type()
        .filter(|t| !(v.follows_links() && *t == FileType::SYMLINK));
    // Names only: a stat for directories (their times) and for entries
    // whose type the directory did not tell.  Not under -L: there the
    // walk types a followed link by its target but keeps the link's own
    // inode from the directory entry (its loop check tells a crossing by
    // that difference), so only a stat gives the target's inode.
    if names_only && !v.follows_links() {
        if let Some(t) = known.filter(|t| !t.is_dir()) {
            row.kind = type_letter(t).as_bytes()[0];
            return Ok(());
        }
    }
    let problem = |row: &Row, what: &'static str, e: &std::io::Error| Problem {
        path: row.path.clone(),
        what,
        cause: describe(e),
        errno: e.raw_os_error(),
    };
    let m = match v.metadata() {
        Ok(m) => m,
        Err(e) => return Err(problem(row, "cannot access", &e)),
    };
    row.kind = type_letter(m.file_type()).as_bytes()[0];
    row.ino = m.ino();
    if names_only && !m.is_dir() {
        return Ok(());
    }
    let time = |t: Option<dents::Timestamp>| t.and_then(|t| nanos(t.secs, t.nsecs));
    row.mtime = time(m.mtime());
    row.ctime = time(m.ctime());
    row.dev = Some(m.dev());
    if names_only {
        return Ok(());
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
            Err(e) => return Err(problem(row, "cannot read symbolic link", &e)),
        }
    }
    Ok(())
}
