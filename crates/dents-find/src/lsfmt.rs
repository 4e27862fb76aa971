//! `-ls` and `-fls`: one `ls -dils`-like line per file, byte for byte as
//! GNU find 4.9 writes it.
//!
//! ```text
//!   9979506      4 -rw-r--r--   1 root     root            3 Feb  3  2001 t/one
//! ```
//!
//! Inode, 1K blocks (512-byte ones under `POSIXLY_CORRECT`), the mode,
//! links, owner and group (the numbers when they have no names), the size
//! or `major, minor` for a device, the modification time (`Mon dd HH:MM`
//! within six months (of 30 days) before the start of the run and an hour
//! after it, `Mon dd  YYYY` otherwise), the path, ` -> target` for a
//! symlink; names with the characters a shell would split on or that
//! cannot be seen escaped (`\ `, `\n`, `\377`), whatever the output.
//!
//! GNU's columns have minimum widths that grow, for the rest of the run,
//! when a wider value is printed (and an owner without a name widens its
//! column by one, a quirk of 4.9): the widths are shared by all threads
//! here, so lines match GNU's whenever no value is wider than the
//! minimum, and otherwise widen as GNU's do, in the order we print.
//! They are the command's ([`crate::ctx::Ctx::ls_widths`]): another
//! command in the same process starts from GNU's minimums again.

use std::sync::atomic::{AtomicUsize, Ordering};

use dents::walk::Visit;
use dents::FileType;
use dents::Metadata;
use dents::StatFields;

use super::cache::Cache;
use crate::errors;
use crate::numfmt::{digits, push_u64};

/// The stat fields a line shows.
pub const MASK: StatFields = StatFields::INO
    .union(StatFields::BLOCKS)
    .union(StatFields::MODE)
    .union(StatFields::NLINK)
    .union(StatFields::UID)
    .union(StatFields::GID)
    .union(StatFields::SIZE)
    .union(StatFields::MTIME);

/// What every `-ls` line of a run shares.
#[derive(Debug, Clone, Copy)]
pub struct Ls {
    /// The start of the run (seconds), which decides recent dates.
    pub start: i64,
    /// Blocks are counted in units of this many bytes (1024, or 512
    /// under `POSIXLY_CORRECT`).
    pub block_size: u64,
}

/// Appends `n` right-aligned in the column `width`, which grows to fit.
fn num_column(out: &mut Vec<u8>, n: u64, width: &AtomicUsize) {
    let len = digits(n);
    let w = width.fetch_max(len, Ordering::Relaxed).max(len);
    out.resize(out.len() + (w - len), b' ');
    push_u64(out, n);
}

/// Appends `s` left-aligned in `w` columns.
fn left(out: &mut Vec<u8>, s: &[u8], w: usize) {
    out.extend_from_slice(s);
    out.resize(out.len() + w.saturating_sub(s.len()), b' ');
}

/// Appends a name as GNU's `-ls` quotes it.
fn quoted_name(out: &mut Vec<u8>, name: &[u8]) {
    for &c in name {
        match c {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x0c => out.extend_from_slice(b"\\f"),
            b' ' => out.extend_from_slice(b"\\ "),
            b'"' => out.extend_from_slice(b"\\\""),
            0x21..=0x7e => out.push(c),
            _ => {
                out.push(b'\\');
                out.extend_from_slice(&[b'0' + (c >> 6), b'0' + (c >> 3 & 7), b'0' + (c & 7)]);
            }
        }
    }
}

impl Ls {
    /// Appends the line of `v`, whose metadata is `st`.
    pub fn line(&self, out: &mut Vec<u8>, v: &Visit<'_>, st: &Metadata, cache: &mut Cache) {
        crate::ctx::with(|ctx| self.line_in(&ctx.ls_widths, out, v, st, cache));
    }

    /// [`Ls::line`], with the command's column widths `widths` (inode,
    /// blocks, links, owner, group, major, minor, size).
    fn line_in(
        &self,
        widths: &[AtomicUsize; crate::ctx::LS_COLUMNS],
        out: &mut Vec<u8>,
        v: &Visit<'_>,
        st: &Metadata,
        cache: &mut Cache,
    ) {
        let [inode_w, blocks_w, nlink_w, owner_w, group_w, major_w, minor_w, size_w] = widths;
        num_column(out, st.ino(), inode_w);
        out.push(b' ');
        let blocks = (st.blocks() as u128 * 512).div_ceil(self.block_size as u128) as u64;
        num_column(out, blocks, blocks_w);
        out.push(b' ');
        let mode = st.mode();
        crate::filemode::mode_string(out, mode);
        out.push(b' ');
        num_column(out, st.nlink(), nlink_w);
        out.push(b' ');
        match cache.users.get(st.uid(), dents_os::user_name) {
            Some(name) => {
                let w = owner_w
                    .fetch_max(name.len(), Ordering::Relaxed)
                    .max(name.len());
                left(out, name, w);
                out.push(b' ');
            }
            None => {
                // `%-8lu ` whatever the column's width, which then grows
                // to what was printed, space included.
                let start = out.len();
                let mut n = Vec::with_capacity(20);
                push_u64(&mut n, st.uid() as u64);
                left(out, &n, 8);
                out.push(b' ');
                owner_w.fetch_max(out.len() - start, Ordering::Relaxed);
            }
        }
        let gname = cache.groups.get(st.gid(), dents_os::group_name);
        let mut n = Vec::new();
        let name = match gname {
            Some(name) => name,
            None => {
                push_u64(&mut n, st.gid() as u64);
                &n
            }
        };
        let w = group_w
            .fetch_max(name.len(), Ordering::Relaxed)
            .max(name.len());
        left(out, name, w);
        out.push(b' ');
        let t = FileType::from_mode(mode);
        if t == FileType::CHAR_DEVICE || t == FileType::BLOCK_DEVICE {
            num_column(out, st.rdev_major() as u64, major_w);
            out.extend_from_slice(b", ");
            num_column(out, st.rdev_minor() as u64, minor_w);
        } else {
            num_column(out, st.len(), size_w);
        }
        out.push(b' ');
        let mtime = st.mtime().map_or(0, |t| t.secs);
        let recent = self.start - 6 * 30 * 24 * 60 * 60 <= mtime && mtime <= self.start + 60 * 60;
        cache.clock.ls_date(out, mtime, recent);
        out.push(b' ');
        quoted_name(out, v.path());
        if t == FileType::SYMLINK {
            match dents::fs::readlink_at(v.parent_fd(), v.at_name()) {
                Ok(target) => {
                    out.extend_from_slice(b" -> ");
                    quoted_name(out, &target);
                }
                Err(e) => {
                    // GNU: the bare path, and the exit status unchanged.
                    let mut m = v.path().to_vec();
                    m.extend_from_slice(b": ");
                    m.extend_from_slice(errors::describe(&e).as_bytes());
                    super::msg::note(&m);
                }
            }
        }
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::quoted_name;

    #[test]
    fn names_quoted_like_gnu_ls() {
        let mut v = Vec::new();
        quoted_name(&mut v, b"a b\n\"\\\xff\t~");
        assert_eq!(v, b"a\\ b\\n\\\"\\\\\\377\\t~");
    }
}
