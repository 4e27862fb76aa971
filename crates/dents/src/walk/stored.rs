//! Visits of recorded entries: an entry a snapshot stored, handed to a
//! [`Visitor`](super::Visitor) as the walk would hand it, its stat
//! already fetched (`dents find --from`).  The walk's own code is not
//! involved: the caller reads the records and calls the visitor.

use std::ffi::CStr;
use std::os::fd::BorrowedFd;
use std::sync::OnceLock;

use super::Visit;
use crate::file_type::FileType;
use crate::metadata::Metadata;
use crate::scan::Kind;

/// Where a recorded entry is and what it was.
#[derive(Debug)]
pub struct Recorded<'a> {
    /// The path, as the walk made it (a root, then names joined with `/`).
    pub path: &'a [u8],
    /// The length of the starting point at the head of `path`.
    pub root_len: usize,
    /// Levels below the starting point (0 for the starting point).
    pub depth: usize,
    /// The directory to resolve [`Recorded::at_name`] from (the current
    /// directory, with the whole path as the name): what a test that
    /// needs the live entry (`-readable`, `-exec`) reaches.
    pub dir: BorrowedFd<'a>,
    /// The name relative to [`Recorded::dir`].
    pub at_name: &'a CStr,
    /// The recorded type.
    pub file_type: FileType,
    /// Whether the walk that recorded it followed symlinks here.
    pub follow: bool,
}

impl<'a> Visit<'a> {
    /// A visit of the recorded entry `r` whose stat is `meta`: tests read
    /// `meta` and never stat the entry again ([`Visit::link_metadata`]
    /// still asks the live tree).
    pub fn recorded(r: Recorded<'a>, meta: Metadata) -> Visit<'a> {
        let name_start = if r.depth == 0 {
            0
        } else {
            r.path.iter().rposition(|&c| c == b'/').map_or(0, |i| i + 1)
        };
        Visit {
            path: r.path,
            name_start,
            root_len: r.root_len,
            depth: r.depth,
            dir: r.dir,
            at_name: r.at_name,
            known: Kind::from_type(r.file_type),
            ino: meta.ino(),
            follow: r.follow,
            post_order: false,
            mask: meta.fields(),
            given: Some(Ok(meta)),
            meta: OnceLock::new(),
        }
    }
}
