//! Streamed listings: each entry is written as soon as it is read.
//!
//! This is `dents ls`'s default: no sort, no long format, so nothing needs
//! the whole directory first.  Every reading thread formats its own
//! entries into its own buffer and writes full buffers, so memory stays a
//! few buffers per thread however large the directory.  A stat is made
//! only where the output needs one the directory did not give: the type
//! when `d_type` is unknown (`-F`, `--file-type`), the mode of regular
//! files for `-F`'s `*`.

use std::ffi::CStr;
use std::os::fd::BorrowedFd;

use dents::dir::{Entry, FileType};
use dents::slice::EntrySink;
use dents::sys;
use rustix::fs::StatxFlags;

use super::args::{Hidden, Indicator, LsOptions};
use super::listing::report_entry;
use super::name;
use crate::output::{Output, ThreadBuf};

/// What every streaming thread of one listing shares.
#[derive(Debug)]
pub struct StreamConfig<'a> {
    /// The options.
    pub opts: &'a LsOptions,
    /// Whether names are quoted for a terminal.
    pub terminal: bool,
    /// The directory as named on the command line, for messages.
    pub dir_path: &'a [u8],
}

/// One thread's streaming sink.
#[derive(Debug)]
pub struct StreamSink<'a> {
    cfg: &'a StreamConfig<'a>,
    buf: ThreadBuf<'a>,
    /// Entries seen (with `--count`, instead of printing them).
    pub count: u64,
}

impl<'a> StreamSink<'a> {
    /// A sink writing to `out`.
    pub fn new(cfg: &'a StreamConfig<'a>, out: &'a Output) -> StreamSink<'a> {
        StreamSink {
            cfg,
            buf: ThreadBuf::new(out),
            count: 0,
        }
    }

    /// Writes `.` or `..` (for `-a`), stat'ed relative to `dir`.
    pub fn dot_entry(&mut self, dir: BorrowedFd<'_>, name: &CStr) {
        self.count += 1;
        if self.cfg.opts.count {
            return;
        }
        let ino = sys::statx_at(dir, name, StatxFlags::INO).map_or(0, |s| s.stx_ino);
        self.write(dir, name, ino, FileType::DIRECTORY);
    }

    /// Formats one entry into the buffer.
    fn write(&mut self, dir: BorrowedFd<'_>, name: &CStr, ino: u64, t: FileType) {
        let opts = self.cfg.opts;
        let out = &mut self.buf.buf;
        if opts.inode {
            out.extend_from_slice(ino.to_string().as_bytes());
            out.push(b' ');
        }
        name::push_name(out, name.to_bytes(), self.cfg.terminal);
        let needs_mode = match opts.indicator {
            Indicator::None => false,
            Indicator::FileType => t.is_unknown(),
            Indicator::Classify => t.is_unknown() || t == FileType::REGULAR,
        };
        let (t, exec) = if needs_mode {
            match sys::statx_at(dir, name, StatxFlags::TYPE | StatxFlags::MODE) {
                Ok(st) => {
                    let mode = st.stx_mode as u32;
                    (FileType::from_mode(mode), mode & 0o111 != 0)
                }
                Err(e) => {
                    report_entry(self.cfg.dir_path, name.to_bytes(), "cannot access", &e);
                    (FileType::UNKNOWN, false)
                }
            }
        } else {
            (t, false)
        };
        if let Some(c) = name::indicator(t, exec, opts.indicator) {
            out.push(c);
        }
        out.push(if opts.zero { 0 } else { b'\n' });
        self.buf.maybe_flush();
    }
}

impl EntrySink for StreamSink<'_> {
    fn entry(&mut self, dir: BorrowedFd<'_>, e: &Entry<'_>) {
        if self.cfg.opts.hidden == Hidden::Hide && e.name().first() == Some(&b'.') {
            return;
        }
        self.count += 1;
        if !self.cfg.opts.count {
            self.write(dir, e.name_cstr(), e.ino(), e.file_type());
        }
    }
}
