//! One entry of a snapshot: one row, owned.

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
