//! The long format (`-l`), byte for byte as GNU ls writes it.
//!
//! Columns are as wide as their widest value across the listing, so the
//! whole directory is gathered first ([`super::listing`]).  Lines are then
//! formatted on several threads, each into its own buffer, and written in
//! order.

use std::collections::HashMap;

use dents::dir::FileType;

use super::args::{Indicator, LsOptions};
use super::listing::{Listing, Record};
use super::name;
use super::timefmt::TimeFormatter;
use crate::output::Output;

/// Column widths of one listing.
#[derive(Debug, Default)]
struct Widths {
    inode: usize,
    nlink: usize,
    owner: usize,
    group: usize,
    size: usize,
    major: usize,
    minor: usize,
    time: usize,
}

/// Everything the lines of one listing share.
struct Columns<'a> {
    opts: &'a LsOptions,
    terminal: bool,
    users: HashMap<u32, Vec<u8>>,
    groups: HashMap<u32, Vec<u8>>,
    widths: Widths,
    any_acl: bool,
}

/// Writes `listing` in the long format; with `total`, the `total N` line
/// first (as for a directory).
pub fn print(
    listing: &Listing,
    opts: &LsOptions,
    terminal: bool,
    total: bool,
    threads: usize,
    out: &Output,
) {
    let cols = Columns::measure(listing, opts, terminal);
    let mut head = Vec::new();
    if total {
        let blocks: u64 = listing
            .records
            .iter()
            .filter_map(|r| r.meta.as_ref())
            .map(|m| m.blocks)
            .sum();
        head.extend_from_slice(b"total ");
        if opts.human {
            head.extend_from_slice(human_size(blocks * 512).as_bytes());
        } else {
            head.extend_from_slice(blocks.div_ceil(2).to_string().as_bytes());
        }
        head.push(b'\n');
    }
    out.write(&head);

    let threads = threads.clamp(1, 64);
    let chunk = listing.records.len().div_ceil(threads).max(4096);
    let parts: Vec<Vec<u8>> = std::thread::scope(|scope| {
        let handles: Vec<_> = listing
            .records
            .chunks(chunk)
            .map(|part| {
                let cols = &cols;
                scope.spawn(move || {
                    let mut times = TimeFormatter::new(&cols.opts.time_style);
                    let mut buf = Vec::with_capacity(part.len() * 64);
                    for r in part {
                        cols.line(&mut buf, listing, r, &mut times);
                    }
                    buf
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("formatter panicked"))
            .collect()
    });
    for p in parts {
        out.write(&p);
    }
}

impl<'a> Columns<'a> {
    /// Looks up owners and groups and measures every column.
    fn measure(listing: &Listing, opts: &'a LsOptions, terminal: bool) -> Columns<'a> {
        let mut cols = Columns {
            opts,
            terminal,
            users: HashMap::new(),
            groups: HashMap::new(),
            widths: Widths::default(),
            any_acl: false,
        };
        let w = &mut cols.widths;
        let mut times = TimeFormatter::new(&opts.time_style);
        let mut scratch = Vec::new();
        let (now_s, now_ns) = dents::sys::now();
        times.format(&mut scratch, now_s, now_ns);
        w.time = scratch.len();
        for r in &listing.records {
            if opts.inode {
                w.inode = w.inode.max(digits(r.ino));
            }
            let Some(m) = &r.meta else {
                // A failed stat prints "?" in every column.
                w.nlink = w.nlink.max(1);
                w.owner = w.owner.max(1);
                w.group = w.group.max(1);
                w.size = w.size.max(1);
                continue;
            };
            cols.any_acl |= m.acl != b' ';
            w.nlink = w.nlink.max(digits(m.nlink as u64));
            if opts.show_owner {
                let u = cols
                    .users
                    .entry(m.uid)
                    .or_insert_with(|| id_name(m.uid, opts.numeric_ids, dents::sys::user_name));
                w.owner = w.owner.max(u.len());
            }
            if opts.show_group {
                let g = cols
                    .groups
                    .entry(m.gid)
                    .or_insert_with(|| id_name(m.gid, opts.numeric_ids, dents::sys::group_name));
                w.group = w.group.max(g.len());
            }
            if is_device(m.mode) {
                w.major = w.major.max(digits(m.rdev.0 as u64));
                w.minor = w.minor.max(digits(m.rdev.1 as u64));
            } else {
                w.size = w.size.max(size_text(m.size, opts.human).len());
            }
        }
        if w.major + w.minor > 0 {
            w.size = w.size.max(w.major + 2 + w.minor);
        }
        cols
    }

    /// Appends the long-format line of `r`.
    fn line(&self, out: &mut Vec<u8>, listing: &Listing, r: &Record, times: &mut TimeFormatter) {
        let w = &self.widths;
        if self.opts.inode {
            pad_left(out, r.ino.to_string().as_bytes(), w.inode);
            out.push(b' ');
        }
        match &r.meta {
            Some(m) => {
                mode_string(out, m.mode);
                if self.any_acl {
                    out.push(m.acl);
                }
                out.push(b' ');
                pad_left(out, m.nlink.to_string().as_bytes(), w.nlink);
                out.push(b' ');
                if self.opts.show_owner {
                    pad_right(out, &self.users[&m.uid], w.owner);
                    out.push(b' ');
                }
                if self.opts.show_group {
                    pad_right(out, &self.groups[&m.gid], w.group);
                    out.push(b' ');
                }
                if is_device(m.mode) {
                    let blanks = w.size.saturating_sub(w.major + 2 + w.minor);
                    pad_left(out, m.rdev.0.to_string().as_bytes(), w.major + blanks);
                    out.extend_from_slice(b", ");
                    pad_left(out, m.rdev.1.to_string().as_bytes(), w.minor);
                } else {
                    pad_left(out, size_text(m.size, self.opts.human).as_bytes(), w.size);
                }
                out.push(b' ');
                times.format(out, m.mtime.0, m.mtime.1);
                out.push(b' ');
            }
            None => self.unknown_columns(out, r.file_type),
        }
        name::push_name(out, listing.name(r), self.terminal);
        match (&r.target, &r.meta) {
            (Some(t), _) => {
                out.extend_from_slice(b" -> ");
                name::push_name(out, t, self.terminal);
                if self.opts.indicator != Indicator::None {
                    if let Some(mode) = r.target_meta {
                        push_mode_indicator(out, mode, self.opts.indicator);
                    }
                }
            }
            (None, Some(m)) if r.file_type != FileType::SYMLINK => {
                push_mode_indicator(out, m.mode, self.opts.indicator)
            }
            _ => {}
        }
        out.push(if self.opts.zero { 0 } else { b'\n' });
    }

    /// The columns of an entry whose stat failed, as GNU prints them.
    fn unknown_columns(&self, out: &mut Vec<u8>, t: FileType) {
        let w = &self.widths;
        out.push(type_letter(t));
        out.extend_from_slice(b"?????????");
        if self.any_acl {
            out.push(b'?');
        }
        out.push(b' ');
        pad_left(out, b"?", w.nlink);
        out.push(b' ');
        if self.opts.show_owner {
            pad_right(out, b"?", w.owner);
            out.push(b' ');
        }
        if self.opts.show_group {
            pad_right(out, b"?", w.group);
            out.push(b' ');
        }
        pad_left(out, b"?", w.size);
        out.push(b' ');
        pad_left(out, b"?", w.time);
        out.push(b' ');
    }
}

/// A user or group name, or the number when asked or when there is none.
fn id_name(id: u32, numeric: bool, lookup: fn(u32) -> Option<Vec<u8>>) -> Vec<u8> {
    if numeric {
        return id.to_string().into_bytes();
    }
    lookup(id).unwrap_or_else(|| id.to_string().into_bytes())
}

/// Whether `mode` is a character or block device.
fn is_device(mode: u32) -> bool {
    matches!(mode & 0o170000, 0o020000 | 0o060000)
}

/// The number of decimal digits of `n`.
fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

fn pad_left(out: &mut Vec<u8>, s: &[u8], width: usize) {
    out.resize(out.len() + width.saturating_sub(s.len()), b' ');
    out.extend_from_slice(s);
}

fn pad_right(out: &mut Vec<u8>, s: &[u8], width: usize) {
    out.extend_from_slice(s);
    out.resize(out.len() + width.saturating_sub(s.len()), b' ');
}

/// The size column's text: bytes, or GNU's `-h` form.
fn size_text(size: u64, human: bool) -> String {
    if human {
        human_size(size)
    } else {
        size.to_string()
    }
}

/// `-h` sizes as GNU writes them: powers of 1024, rounded up, one decimal
/// below 10 (`0`, `1023`, `1.0K`, `9.9K`, `10K`, `1.0M`).
pub fn human_size(n: u64) -> String {
    const UNITS: &[u8] = b"KMGTPEZY";
    if n < 1024 {
        return n.to_string();
    }
    let n = n as u128;
    let mut unit = 1u128;
    for (i, &u) in UNITS.iter().enumerate() {
        unit *= 1024;
        let tenths = (n * 10).div_ceil(unit);
        if tenths < 100 {
            return format!("{}.{}{}", tenths / 10, tenths % 10, u as char);
        }
        let whole = n.div_ceil(unit);
        if whole < 1024 || i == UNITS.len() - 1 {
            return format!("{whole}{}", u as char);
        }
    }
    unreachable!("the last unit always returns")
}

/// The type letter GNU uses for a `d_type` when the stat failed.
fn type_letter(t: FileType) -> u8 {
    match t {
        FileType::FIFO => b'p',
        FileType::CHAR_DEVICE => b'c',
        FileType::DIRECTORY => b'd',
        FileType::BLOCK_DEVICE => b'b',
        FileType::REGULAR => b'-',
        FileType::SYMLINK => b'l',
        FileType::SOCKET => b's',
        FileType::WHITEOUT => b'w',
        _ => b'?',
    }
}

/// Appends the ten-character mode string (`drwxr-xr-x`).
pub fn mode_string(out: &mut Vec<u8>, mode: u32) {
    out.push(type_letter(FileType::from_mode(mode)));
    let bit = |m: u32, c: u8| if mode & m != 0 { c } else { b'-' };
    let special = |x: u32, s: u32, set_x: u8, set_nox: u8| match (mode & x != 0, mode & s != 0) {
        (true, true) => set_x,
        (false, true) => set_nox,
        (true, false) => b'x',
        (false, false) => b'-',
    };
    out.extend_from_slice(&[
        bit(0o400, b'r'),
        bit(0o200, b'w'),
        special(0o100, 0o4000, b's', b'S'),
        bit(0o040, b'r'),
        bit(0o020, b'w'),
        special(0o010, 0o2000, b's', b'S'),
        bit(0o004, b'r'),
        bit(0o002, b'w'),
        special(0o001, 0o1000, b't', b'T'),
    ]);
}

/// Appends the `-F`/`--file-type` suffix for a file of `mode`.
pub fn push_mode_indicator(out: &mut Vec<u8>, mode: u32, style: Indicator) {
    let t = FileType::from_mode(mode);
    let exec = t == FileType::REGULAR && mode & 0o111 != 0;
    if let Some(c) = name::indicator(t, exec, style) {
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes_round_up_like_gnu() {
        assert_eq!(human_size(0), "0");
        assert_eq!(human_size(1023), "1023");
        assert_eq!(human_size(1024), "1.0K");
        assert_eq!(human_size(1025), "1.1K");
        assert_eq!(human_size(10 * 1024 - 1), "10K");
        assert_eq!(human_size(1024 * 1024 - 1), "1.0M");
        assert_eq!(human_size(151_344), "148K");
    }

    #[test]
    fn mode_strings() {
        let s = |m| {
            let mut v = Vec::new();
            mode_string(&mut v, m);
            String::from_utf8(v).unwrap()
        };
        assert_eq!(s(0o040755), "drwxr-xr-x");
        assert_eq!(s(0o104755), "-rwsr-xr-x");
        assert_eq!(s(0o041777), "drwxrwxrwt");
        assert_eq!(s(0o102644), "-rw-r-Sr--");
        assert_eq!(s(0o120777), "lrwxrwxrwx");
    }

    #[test]
    fn digit_counts() {
        assert_eq!(digits(0), 1);
        assert_eq!(digits(9), 1);
        assert_eq!(digits(10), 2);
        assert_eq!(digits(u64::MAX), 20);
    }
}
