//! Streamed listings: each entry is written as soon as it is read.
//!
//! This is `dents ls`'s default: no sort, no long format, so nothing needs
//! the whole directory first.  Every reading thread formats its own
//! entries into its own buffer and writes full buffers, so memory stays a
//! few buffers per thread however large the directory.
//!
//! Types: `d_type` serves where the filesystem gives it.  Where it does
//! not, `-F` stats the entry on the spot (its `*` needs the mode anyway);
//! `-p` and `--file-type` set the entry aside and, after the read, resolve
//! all such entries at once with [`dents::scan::resolve_unknown`], which
//! for `-p` can spare nearly every stat through the directory's link count.

use std::ffi::CStr;
use std::os::fd::BorrowedFd;
use std::sync::atomic::Ordering;

use dents::dir::RawEntry;
use dents::scan::{self, Counters, DirState, Kind, ResolveOptions, Unknown, Want};
use dents::slice::EntrySink;
use dents::FileType;
use dents::StatFields;

use super::args::{Hidden, Indicator, LsOptions};
use super::listing::report_entry;
use super::name;
use crate::errors::Status;
use crate::output::{Output, ThreadBuf};

/// What every streaming thread of one listing shares.
#[derive(Debug)]
pub struct StreamConfig<'a> {
    /// The options.
    pub opts: &'a LsOptions,
    /// How names are quoted.
    pub quoter: &'a super::quoting::Quoter,
    /// The directory as named on the command line, for messages.
    pub dir_path: &'a [u8],
    /// How types were learnt.
    pub counters: &'a Counters,
    /// The command's exit status, raised by what cannot be stat'ed.
    pub status: &'a Status,
}

impl StreamConfig<'_> {
    /// Whether entries of unknown type are set aside for a batch resolve.
    fn defers_unknown(&self) -> bool {
        matches!(self.opts.indicator, Indicator::Slash | Indicator::FileType)
    }
}

/// One thread's streaming sink.
#[derive(Debug)]
pub struct StreamSink<'a> {
    cfg: &'a StreamConfig<'a>,
    buf: ThreadBuf<'a>,
    /// Entries seen (with `--count`, instead of printing them).
    pub count: u64,
    /// Entries whose `d_type` said directory.
    pub known_dirs: u64,
    /// Names set aside until their type is resolved, NUL-terminated.
    deferred_names: Vec<u8>,
    /// (offset in `deferred_names`, inode, listed) of each set-aside
    /// entry; hidden ones are resolved (the link count counts them) but
    /// not listed.
    deferred: Vec<(usize, u64, bool)>,
}

impl<'a> StreamSink<'a> {
    /// A sink writing to `out`.
    pub fn new(cfg: &'a StreamConfig<'a>, out: &'a Output) -> StreamSink<'a> {
        StreamSink {
            cfg,
            buf: ThreadBuf::new(out),
            count: 0,
            known_dirs: 0,
            deferred_names: Vec::new(),
            deferred: Vec::new(),
        }
    }

    /// Writes `.` or `..` (for `-a`), stat'ed relative to `dir`.
    pub fn dot_entry(&mut self, dir: BorrowedFd<'_>, name: &CStr) {
        self.count += 1;
        if self.cfg.opts.count {
            return;
        }
        self.write(dir, name, 0, FileType::DIRECTORY);
    }

    /// Formats one entry of type `t` (perhaps unknown) into the buffer.
    fn write(&mut self, dir: BorrowedFd<'_>, name: &CStr, ino: u64, t: FileType) {
        let opts = self.cfg.opts;
        let needs_mode =
            opts.indicator == Indicator::Classify && (t.is_unknown() || t == FileType::REGULAR);
        let suffix = if needs_mode {
            match dents::fs::stat_at(dir, name, StatFields::TYPE | StatFields::MODE) {
                Ok(st) => {
                    let mode = st.mode();
                    name::indicator(FileType::from_mode(mode), mode & 0o111 != 0, opts.indicator)
                }
                Err(e) => {
                    report_entry(
                        self.cfg.status,
                        self.cfg.dir_path,
                        name.to_bytes(),
                        "cannot access",
                        &e,
                    );
                    None
                }
            }
        } else {
            name::indicator(t, false, opts.indicator)
        };
        let ino = inode_of(self.cfg, dir, name, ino);
        format_line(&mut self.buf.buf, self.cfg, name.to_bytes(), ino, suffix);
        self.buf.maybe_flush();
    }

    /// Writes the set-aside entries of all `sinks` once their types are
    /// resolved.  `before` is the directory's state from before the read.
    pub fn finish_deferred(
        sinks: &mut [StreamSink<'_>],
        dir: BorrowedFd<'_>,
        before: &DirState,
        threads: usize,
    ) {
        let Some(first) = sinks.first() else { return };
        let cfg = first.cfg;
        let known_dirs = sinks.iter().map(|s| s.known_dirs).sum();
        let mut unknown: Vec<Unknown<'_>> = Vec::new();
        let mut listed = Vec::new();
        for s in sinks.iter() {
            for &(off, ino, shown) in &s.deferred {
                listed.push(shown);
                let name = CStr::from_bytes_until_nul(&s.deferred_names[off..])
                    .expect("stored NUL-terminated");
                unknown.push(Unknown {
                    name,
                    ino,
                    kind: Kind::Unknown,
                });
            }
        }
        if unknown.is_empty() {
            return;
        }
        let want = match cfg.opts.indicator {
            Indicator::Slash => Want::DirOrNot,
            _ => Want::FullType,
        };
        let opts = ResolveOptions {
            want,
            in_flight: threads,
        };
        scan::resolve_unknown(dir, before, known_dirs, &mut unknown, opts, cfg.counters);
        let mut out = Vec::with_capacity(64 * 1024);
        let output = sinks[0].buf.output();
        for (u, _) in unknown.iter().zip(&listed).filter(|(_, &shown)| shown) {
            let t = match u.kind {
                Kind::Dir => FileType::DIRECTORY,
                Kind::NotDir(t) => t,
                Kind::Unknown => {
                    let e =
                        std::io::Error::from_raw_os_error(rustix::io::Errno::NOENT.raw_os_error());
                    report_entry(
                        cfg.status,
                        cfg.dir_path,
                        u.name.to_bytes(),
                        "cannot access",
                        &e,
                    );
                    FileType::UNKNOWN
                }
            };
            let suffix = name::indicator(t, false, cfg.opts.indicator);
            let ino = inode_of(cfg, dir, u.name, u.ino);
            format_line(&mut out, cfg, u.name.to_bytes(), ino, suffix);
            if out.len() >= crate::output::FLUSH_AT {
                output.write(&out);
                out.clear();
            }
        }
        output.write(&out);
    }
}

/// The inode number `-i` prints: the stat's, as GNU's (`d_ino` is the
/// mounted-on directory's at a mount point); `None` if the stat failed
/// (reported).  Without `-i`, `d_ino` unchanged.
fn inode_of(cfg: &StreamConfig<'_>, dir: BorrowedFd<'_>, name: &CStr, d_ino: u64) -> Option<u64> {
    if !cfg.opts.inode {
        return Some(d_ino);
    }
    match dents::fs::stat_at(dir, name, StatFields::INO) {
        Ok(st) => Some(st.ino()),
        Err(e) => {
            report_entry(
                cfg.status,
                cfg.dir_path,
                name.to_bytes(),
                "cannot access",
                &e,
            );
            None
        }
    }
}

/// Appends one short-format line: inode, name, suffix, terminator.
fn format_line(
    out: &mut Vec<u8>,
    cfg: &StreamConfig<'_>,
    name: &[u8],
    ino: Option<u64>,
    suffix: Option<u8>,
) {
    if cfg.opts.inode {
        match ino {
            Some(ino) => crate::numfmt::push_u64(out, ino),
            None => out.push(b'?'),
        }
        out.push(b' ');
    }
    name::push_name(out, name, cfg.quoter);
    if let Some(c) = suffix {
        out.push(c);
    }
    out.push(if cfg.opts.zero { 0 } else { b'\n' });
}

impl EntrySink for StreamSink<'_> {
    fn entry(&mut self, dir: BorrowedFd<'_>, e: &RawEntry<'_>) {
        let t = if self.cfg.opts.ignore_dtype {
            FileType::UNKNOWN
        } else {
            e.file_type()
        };
        if self.cfg.opts.hidden == Hidden::Hide && e.name().first() == Some(&b'.') {
            // Not listed, but a hidden subdirectory counts in the link
            // count: resolving the others needs to know it.
            if t.is_dir() {
                self.known_dirs += 1;
            } else if t.is_unknown() && self.cfg.defers_unknown() {
                self.deferred
                    .push((self.deferred_names.len(), e.ino(), false));
                self.deferred_names
                    .extend_from_slice(e.name_cstr().to_bytes_with_nul());
            }
            return;
        }
        self.count += 1;
        if self.cfg.opts.indicator != Indicator::None && !t.is_unknown() {
            self.cfg.counters.by_dtype.fetch_add(1, Ordering::Relaxed);
            self.known_dirs += t.is_dir() as u64;
        }
        if self.cfg.opts.count {
            return;
        }
        if t.is_unknown() && self.cfg.defers_unknown() {
            self.deferred
                .push((self.deferred_names.len(), e.ino(), true));
            self.deferred_names
                .extend_from_slice(e.name_cstr().to_bytes_with_nul());
            return;
        }
        self.write(dir, e.name_cstr(), e.ino(), t);
    }
}
