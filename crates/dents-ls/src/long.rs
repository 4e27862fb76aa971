//! The long format (`-l`), byte for byte as GNU ls writes it.
//!
//! Columns are as wide as their widest value across the listing, so the
//! whole directory is gathered first ([`super::listing`]).  Lines are then
//! formatted on several threads, block by block, and written in order
//! ([`super::ordered`]).

use dents::FileType;

use super::args::{Indicator, LsOptions};
use super::listing::{Listing, Record};
use super::name::{self, NameStyle};
use super::timefmt::TimeFormatter;
use crate::filemode::{mode_string, type_letter};
use crate::numfmt::{digits, push_u64, Numbers};

/// Records formatted by one thread at a time (see [`super::ordered`]).
const FORMAT_BLOCK: usize = 4096;

/// Bytes of lines held before they are written, on one thread.
const FLUSH_AT: usize = 2 * 1024 * 1024;

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
    style: &'a NameStyle<'a>,
    users: IdNames,
    groups: IdNames,
    widths: Widths,
    any_acl: bool,
    /// The 512-byte blocks of the listing's files (not of `also`'s), for
    /// the `total` line.
    blocks: u64,
    /// The locale's decimal point, for `-h` (`4,6M` in de_DE).
    numbers: Numbers,
}

/// Writes `listing` in the long format to `out`; with `total`, the
/// `total N` line first (as for a directory).
pub fn print(
    listing: &Listing,
    also: Option<&Listing>,
    opts: &LsOptions,
    style: &NameStyle<'_>,
    total: bool,
    threads: usize,
    out: &mut dyn FnMut(&[u8]),
) {
    let cols = Columns::measure(listing, also, opts, style, threads);
    let mut head = Vec::new();
    if total {
        head.extend_from_slice(b"total ");
        if opts.human {
            head.extend_from_slice(&human_size(cols.blocks * 512, &cols.numbers));
        } else {
            push_u64(&mut head, cols.blocks.div_ceil(2));
        }
        head.push(b'\n');
    }
    out(&head);

    // Blocks of records are formatted by all threads at once, each into a
    // buffer of its own that is reused, then written in order.
    // Painted lines on one thread: GNU's reset before the first color
    // must land in the first painted line.
    let threads = if style.colors.is_some() {
        1
    } else {
        threads.clamp(1, 64)
    };
    if threads == 1 {
        // On this thread: no thread started per listing (-lR lists many
        // small ones), and painting keeps this thread's way with the
        // run's first reset (see `paint::deferring_reset`).
        let mut buf = Vec::new();
        let mut tf = TimeFormatter::new(&opts.time_style);
        for i in 0..listing.len() {
            cols.line(&mut buf, listing, listing.get(i), &mut tf);
            if buf.len() >= FLUSH_AT {
                out(&buf);
                buf.clear();
            }
        }
        out(&buf);
        return;
    }
    let cols = &cols;
    super::ordered::format_in_order(
        listing.len(),
        FORMAT_BLOCK,
        threads,
        || TimeFormatter::new(&opts.time_style),
        |tf, items, buf| {
            for i in items {
                cols.line(buf, listing, listing.get(i), tf);
            }
        },
        out,
    );
}

/// Listings longer than this are measured on several threads.
const PARALLEL_MEASURE_MIN: usize = 16 * 1024;

/// What the column widths need to know of some records: the widths of
/// their numbers, the owners and groups met (looked up once all are
/// met), and the blocks for the total.
#[derive(Debug, Default)]
struct Tally {
    widths: Widths,
    any_acl: bool,
    blocks: u64,
    uids: Vec<u32>,
    gids: Vec<u32>,
    /// Some stat failed: its line has `?` in every column.
    failed: bool,
}

impl Tally {
    /// Takes `records` into account.
    fn add(&mut self, records: &[Record], opts: &LsOptions) {
        let numbers = Numbers::from_locale();
        let w = &mut self.widths;
        for r in records {
            if opts.inode {
                w.inode = w.inode.max(r.ino_text().len());
            }
            let Some(m) = r.meta() else {
                self.failed = true;
                continue;
            };
            self.blocks += m.blocks;
            self.any_acl |= r.acl != b' ';
            w.nlink = w.nlink.max(digits(m.nlink as u64));
            if opts.show_owner && !self.uids.contains(&m.uid) {
                self.uids.push(m.uid);
            }
            if opts.show_group && !self.gids.contains(&m.gid) {
                self.gids.push(m.gid);
            }
            if m.is_device() {
                w.major = w.major.max(digits(m.rdev().0 as u64));
                w.minor = w.minor.max(digits(m.rdev().1 as u64));
            } else if opts.human {
                w.size = w.size.max(human_size(m.size(), &numbers).len());
            } else {
                w.size = w.size.max(digits(m.size()));
            }
        }
    }

    /// Takes in what `other` found.
    fn merge(&mut self, other: Tally) {
        let (w, o) = (&mut self.widths, &other.widths);
        w.inode = w.inode.max(o.inode);
        w.nlink = w.nlink.max(o.nlink);
        w.size = w.size.max(o.size);
        w.major = w.major.max(o.major);
        w.minor = w.minor.max(o.minor);
        self.any_acl |= other.any_acl;
        self.blocks += other.blocks;
        self.failed |= other.failed;
        for uid in other.uids {
            if !self.uids.contains(&uid) {
                self.uids.push(uid);
            }
        }
        for gid in other.gids {
            if !self.gids.contains(&gid) {
                self.gids.push(gid);
            }
        }
    }
}

/// User or group names by id: the few distinct ids of a listing.
#[derive(Debug, Default)]
struct IdNames(Vec<(u32, Vec<u8>)>);

impl IdNames {
    /// The name of `id`, looked up (with `lookup`) on first use.
    fn get_or_lookup(
        &mut self,
        id: u32,
        numeric: bool,
        lookup: fn(u32) -> Option<Vec<u8>>,
    ) -> &[u8] {
        let i = match self.0.iter().position(|(k, _)| *k == id) {
            Some(i) => i,
            None => {
                self.0.push((id, id_name(id, numeric, lookup)));
                self.0.len() - 1
            }
        };
        &self.0[i].1
    }

    /// The name of `id`, which was looked up while measuring.
    fn get(&self, id: u32) -> &[u8] {
        self.0
            .iter()
            .find(|(k, _)| *k == id)
            .map_or(&b"?"[..], |(_, v)| v)
    }
}

impl<'a> Columns<'a> {
    /// Looks up owners and groups and measures every column, the
    /// listing's parts on up to `threads` threads.  `also`: the directory
    /// operands, measured but not printed here.
    fn measure(
        listing: &Listing,
        also: Option<&Listing>,
        opts: &'a LsOptions,
        style: &'a NameStyle<'a>,
        threads: usize,
    ) -> Columns<'a> {
        let parts: Vec<&[Record]> = listing.stored_parts().collect();
        let mut tallies: Vec<Tally> = parts.iter().map(|_| Tally::default()).collect();
        if threads > 1 && listing.len() > PARALLEL_MEASURE_MIN {
            std::thread::scope(|scope| {
                for (tally, part) in tallies.iter_mut().zip(&parts) {
                    crate::threads::spawn_or_run(scope, move || tally.add(part, opts));
                }
            });
        } else {
            for (tally, part) in tallies.iter_mut().zip(&parts) {
                tally.add(part, opts);
            }
        }
        let mut tally = Tally::default();
        for t in tallies {
            tally.merge(t);
        }
        // The operands' lines count in the widths, not in the total.
        let blocks = tally.blocks;
        for part in also.into_iter().flat_map(|l| l.stored_parts()) {
            tally.add(part, opts);
        }
        let mut cols = Columns {
            opts,
            style,
            users: IdNames::default(),
            groups: IdNames::default(),
            widths: tally.widths,
            any_acl: tally.any_acl,
            blocks,
            numbers: Numbers::from_locale(),
        };
        let w = &mut cols.widths;
        for uid in tally.uids {
            let u = cols
                .users
                .get_or_lookup(uid, opts.numeric_ids, dents_os::user_name);
            w.owner = w.owner.max(u.len());
        }
        for gid in tally.gids {
            let g = cols
                .groups
                .get_or_lookup(gid, opts.numeric_ids, dents_os::group_name);
            w.group = w.group.max(g.len());
        }
        if tally.failed {
            // A failed stat prints "?" in every column.
            w.nlink = w.nlink.max(1);
            w.owner = w.owner.max(1);
            w.group = w.group.max(1);
            w.size = w.size.max(1);
        }
        let mut times = TimeFormatter::new(&opts.time_style);
        let mut scratch = Vec::new();
        let (now_s, now_ns) = dents_os::now();
        times.format(&mut scratch, now_s, now_ns);
        w.time = scratch.len();
        if w.major + w.minor > 0 {
            w.size = w.size.max(w.major + 2 + w.minor);
        }
        cols
    }

    /// Appends the long-format line of `r`.
    fn line(&self, out: &mut Vec<u8>, listing: &Listing, r: &Record, times: &mut TimeFormatter) {
        // GNU sets the normal color (`no`) at the start of each line.
        if let Some(c) = self.style.colors {
            c.normal(out);
        }
        // Where GNU starts counting the columns that decide whether a
        // painted name may wrap (see `counts_after_ids`).
        let mut counted_from = out.len();
        let w = &self.widths;
        if self.opts.inode {
            pad_left(out, r.ino_text().as_bytes(), w.inode);
            out.push(b' ');
        }
        match r.meta() {
            Some(m) => {
                mode_string(out, m.mode());
                if self.any_acl {
                    out.push(r.acl);
                }
                out.push(b' ');
                pad_num(out, m.nlink as u64, w.nlink);
                out.push(b' ');
                if self.opts.show_owner {
                    push_id(out, self.users.get(m.uid), w.owner);
                    out.push(b' ');
                }
                if self.opts.show_group {
                    push_id(out, self.groups.get(m.gid), w.group);
                    out.push(b' ');
                }
                if self.counts_after_ids() {
                    counted_from = out.len();
                }
                if m.is_device() {
                    let blanks = w.size.saturating_sub(w.major + 2 + w.minor);
                    pad_num(out, m.rdev().0 as u64, w.major + blanks);
                    out.extend_from_slice(b", ");
                    pad_num(out, m.rdev().1 as u64, w.minor);
                } else if self.opts.human {
                    pad_left(out, &human_size(m.size(), &self.numbers), w.size);
                } else {
                    pad_num(out, m.size(), w.size);
                }
                out.push(b' ');
                let (secs, nanos) = m.mtime();
                times.format(out, secs, nanos);
                out.push(b' ');
            }
            None => self.unknown_columns(out, r.file_type, &mut counted_from),
        }
        let kind = name::kind_of(r);
        // The target's column, as GNU counts it, leaves out the name's
        // color sequences (and the run's first reset).
        let name_col = out.len() - counted_from;
        let w = self
            .style
            .push(out, listing.name(r), &kind, false, name_col, false);
        if let Some(t) = listing.target(r) {
            out.extend_from_slice(b" -> ");
            let col = name_col + w.width + 4;
            self.style.push(out, t, &kind, true, col, false);
            if r.target_mode != 0 {
                push_mode_indicator(out, r.target_mode as u32, self.opts.indicator);
            }
        } else if let Some(m) = r.meta() {
            if r.file_type != FileType::SYMLINK {
                push_mode_indicator(out, m.mode(), self.opts.indicator);
            }
        }
        out.push(if self.opts.zero { 0 } else { b'\n' });
    }

    /// GNU writes the owner and group columns straight out and counts a
    /// line's columns (for the clear-to-end-of-line after a painted name
    /// that may wrap) from after them when it shows either: a quirk kept,
    /// so that the same names get the sequence.
    fn counts_after_ids(&self) -> bool {
        self.opts.show_owner || self.opts.show_group
    }

    /// The columns of an entry whose stat failed, as GNU prints them;
    /// `counted_from` as in [`Columns::line`].
    fn unknown_columns(&self, out: &mut Vec<u8>, t: FileType, counted_from: &mut usize) {
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
        if self.counts_after_ids() {
            *counted_from = out.len();
        }
        pad_left(out, b"?", w.size);
        out.push(b' ');
        pad_left(out, b"?", w.time);
        out.push(b' ');
    }
}

/// A user or group name, or the number when asked or when there is none.
/// Appends an owner or group column: names left-aligned, numbers (`-n`,
/// or an id without a name) right-aligned, as GNU aligns them.
fn push_id(out: &mut Vec<u8>, id: &[u8], width: usize) {
    if id.iter().all(u8::is_ascii_digit) {
        pad_left(out, id, width);
    } else {
        pad_right(out, id, width);
    }
}

fn id_name(id: u32, numeric: bool, lookup: fn(u32) -> Option<Vec<u8>>) -> Vec<u8> {
    if numeric {
        return id.to_string().into_bytes();
    }
    lookup(id).unwrap_or_else(|| id.to_string().into_bytes())
}

/// Appends `n` right-aligned in `width` columns.
fn pad_num(out: &mut Vec<u8>, n: u64, width: usize) {
    out.resize(out.len() + width.saturating_sub(digits(n)), b' ');
    push_u64(out, n);
}

fn pad_left(out: &mut Vec<u8>, s: &[u8], width: usize) {
    out.resize(out.len() + width.saturating_sub(s.len()), b' ');
    out.extend_from_slice(s);
}

fn pad_right(out: &mut Vec<u8>, s: &[u8], width: usize) {
    out.extend_from_slice(s);
    out.resize(out.len() + width.saturating_sub(s.len()), b' ');
}

/// `-h` sizes as GNU writes them: powers of 1024, rounded up, one decimal
/// below 10 (`0`, `1023`, `1.0K`, `9.9K`, `10K`, `1.0M`), with the
/// locale's decimal point (`4,6M` in de_DE).
pub fn human_size(n: u64, numbers: &Numbers) -> Vec<u8> {
    const UNITS: &[u8] = b"KMGTPEZY";
    if n < 1024 {
        return n.to_string().into_bytes();
    }
    let n = n as u128;
    let mut unit = 1u128;
    for (i, &u) in UNITS.iter().enumerate() {
        unit *= 1024;
        let tenths = (n * 10).div_ceil(unit);
        if tenths < 100 {
            let mut v = (tenths / 10).to_string().into_bytes();
            v.extend_from_slice(numbers.decimal_point());
            v.extend_from_slice(format!("{}{}", tenths % 10, u as char).as_bytes());
            return v;
        }
        let whole = n.div_ceil(unit);
        if whole < 1024 || i == UNITS.len() - 1 {
            return format!("{whole}{}", u as char).into_bytes();
        }
    }
    unreachable!("the last unit always returns")
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
        let h = |n| String::from_utf8(human_size(n, &Numbers::c())).unwrap();
        assert_eq!(h(0), "0");
        assert_eq!(h(1023), "1023");
        assert_eq!(h(1024), "1.0K");
        assert_eq!(h(1025), "1.1K");
        assert_eq!(h(10 * 1024 - 1), "10K");
        assert_eq!(h(1024 * 1024 - 1), "1.0M");
        assert_eq!(h(151_344), "148K");
    }
}
