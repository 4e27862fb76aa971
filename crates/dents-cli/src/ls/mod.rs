//! `dents ls`: a lister made for huge directories.
//!
//! | module     | concern |
//! |------------|---------|
//! | `args`     | options, with ls's letters; the last of conflicting options wins |
//! | `stream`   | the default: entries written as read, on every reading thread |
//! | `listing`  | a directory gathered whole, for sorting and `-l`; parallel stats and sort |
//! | `long`     | GNU's `-l` format, column widths and all |
//! | `timefmt`  | times in `-l`, `--time-style` |
//! | `name`     | names and `-F` suffixes |
//!
//! Command-line arguments are handled as GNU ls handles them: files first,
//! then each directory, with a `DIR:` header when there are several;
//! symlinks to directories are followed unless `-l`, `-F` or `-d`.

mod args;
mod listing;
mod long;
mod name;
mod stream;
mod timefmt;

use std::ffi::{CString, OsString};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;

use dents::dir::FileType;
use dents::scan::{Counters, DirState, Want};
use dents::slice::{self, ReadOptions};
use dents::sys;
use rustix::fs::StatxFlags;

use crate::errors;
use crate::output::Output;
use args::{Hidden, Indicator, LsOptions, SortKey};
use listing::{GatherSink, Listing, StatNeeds};
use stream::{StreamConfig, StreamSink};

/// Runs `dents ls` with `argv` (starting with `ls`); returns the exit status.
pub fn main(argv: &[OsString]) -> i32 {
    let matches = match args::command().try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) => {
            let code = if e.use_stderr() { errors::SERIOUS } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let opts = match args::options(&matches) {
        Ok(o) => o,
        Err(msg) => {
            errors::write_stderr(
                format!("dents: {msg}\nTry 'dents ls --help' for more information.\n").as_bytes(),
            );
            return errors::SERIOUS;
        }
    };
    sys::use_environment_locale();
    sys::tzset();
    Lister::new(opts).run()
}

/// One run of `dents ls`.
struct Lister {
    opts: LsOptions,
    counters: Counters,
    out: Output,
    terminal: bool,
    threads: usize,
}

impl Lister {
    fn new(opts: LsOptions) -> Lister {
        let terminal = sys::is_terminal(std::io::stdout().as_fd());
        let threads = opts.threads.unwrap_or_else(slice::default_threads);
        Lister {
            opts,
            counters: Counters::default(),
            out: Output::stdout(),
            terminal,
            threads,
        }
    }

    /// Lists every argument; returns the exit status.
    fn run(self) -> i32 {
        let paths = if self.opts.paths.is_empty() {
            vec![OsString::from(".")]
        } else {
            self.opts.paths.clone()
        };
        // GNU: command-line symlinks to directories are followed unless the
        // listing shows the links themselves.
        let follow =
            !(self.opts.directory || self.opts.long || self.opts.indicator == Indicator::Classify);
        let mut files = Listing::default();
        let mut dirs = Listing::default();
        for p in &paths {
            let Ok(c) = CString::new(p.as_bytes()) else {
                let e = std::io::Error::from_raw_os_error(libc_enoent());
                errors::report(errors::SERIOUS, "cannot access", p.as_bytes(), &e);
                continue;
            };
            match arg_type(&c, follow) {
                Ok(t) if t.is_dir() && !self.opts.directory => dirs.push_name(p.as_bytes(), t, 0),
                Ok(t) => files.push_name(p.as_bytes(), t, 0),
                Err(e) => errors::report(errors::SERIOUS, "cannot access", p.as_bytes(), &e),
            }
        }
        // GNU names each directory when given more than one argument, even
        // if some of them could not be listed.
        let headers = paths.len() > 1;
        let mut printed = false;
        // GNU measures the columns of the files' listing over every
        // operand, the directories' own lines included: they are stat'ed
        // with the same needs first (defect 14).
        let mut dir_needs = self.stat_needs();
        if !(self.opts.long || self.opts.inode) || files.is_empty() {
            dir_needs.mask &= StatxFlags::MTIME | StatxFlags::SIZE;
            dir_needs.acl = false;
        }
        dir_needs.targets = false;
        dir_needs.target_types = false;
        dirs.stat_all(rustix::fs::CWD, b".", dir_needs, 1);
        if !files.is_empty() {
            self.print_listing(files, rustix::fs::CWD, b".", false, None, Some(&dirs));
            printed = true;
        }
        // Directories are visited in the listing's order too.
        dirs.sort(self.opts.sort, self.opts.reverse, 1);
        for r in dirs.iter() {
            let path = dirs.name(r);
            let mut head = Vec::new();
            if printed {
                head.push(b'\n');
            }
            if headers {
                name::push_name(&mut head, path, self.terminal);
                head.extend_from_slice(b":\n");
            }
            let cpath = CString::new(path).expect("checked for NUL above");
            printed |= self.list_dir(path, &cpath, &head);
        }
        if self.opts.debug {
            errors::write_stderr(format!("dents: debug: {}\n", self.counters.summary()).as_bytes());
        }
        errors::status()
    }

    /// Lists the contents of one directory, after `head` (a blank line
    /// and the `DIR:` header) once it is open; false if it could not be.
    fn list_dir(&self, path: &[u8], cpath: &CString, head: &[u8]) -> bool {
        let dir = match sys::open_dir_path(cpath) {
            Ok(fd) => fd,
            Err(e) => {
                errors::report(errors::SERIOUS, "cannot open directory", path, &e);
                return false;
            }
        };
        self.out.write(head);
        let read_opts = ReadOptions {
            threads: self.threads,
            ..ReadOptions::default()
        };
        // The state before the read, for the link-count trick's check.
        let resolving = matches!(self.opts.indicator, Indicator::Slash | Indicator::FileType);
        let before = if resolving {
            DirState::of(dir.as_fd()).ok()
        } else {
            None
        };
        let gather = self.opts.long || self.opts.sort != SortKey::None;
        if gather {
            let ignore_dtype = self.opts.ignore_dtype;
            let outcome = slice::read_dir(dir.as_fd(), &read_opts, |_| {
                GatherSink::new(self.opts.hidden, ignore_dtype)
            });
            self.after_read(path, &outcome);
            let mut listing = Listing::from_sinks(outcome.sinks);
            listing.set_own_fds(is_own_fd_dir(dir.as_fd()));
            if self.opts.hidden == Hidden::All {
                listing.push_name(b".", FileType::DIRECTORY, 0);
                listing.push_name(b"..", FileType::DIRECTORY, 0);
            }
            self.print_listing(listing, dir.as_fd(), path, true, before.as_ref(), None);
        } else {
            let cfg = StreamConfig {
                opts: &self.opts,
                terminal: self.terminal,
                dir_path: path,
                counters: &self.counters,
            };
            let mut count = 0;
            if self.opts.hidden == Hidden::All {
                let mut dots = StreamSink::new(&cfg, &self.out);
                dots.dot_entry(dir.as_fd(), c".");
                dots.dot_entry(dir.as_fd(), c"..");
                count += dots.count;
            }
            let mut outcome = slice::read_dir(dir.as_fd(), &read_opts, |_| {
                StreamSink::new(&cfg, &self.out)
            });
            self.after_read(path, &outcome);
            if let Some(before) = &before {
                StreamSink::finish_deferred(&mut outcome.sinks, dir.as_fd(), before, self.threads);
            }
            count += outcome.sinks.iter().map(|s| s.count).sum::<u64>();
            drop(outcome);
            if self.opts.count {
                self.out.write(format!("{count}\n").as_bytes());
            }
        }
        true
    }

    /// Reports read errors and, with `--debug`, how the directory was read.
    fn after_read<S>(&self, path: &[u8], outcome: &slice::ReadOutcome<S>) {
        for e in &outcome.errors {
            errors::report(errors::SERIOUS, "reading directory", path, e);
        }
        if self.opts.debug {
            let mut msg = b"dents: debug: ".to_vec();
            crate::quote::for_message(&mut msg, path);
            msg.extend_from_slice(
                format!(": plan {:?}, probes {}\n", outcome.plan, outcome.probes).as_bytes(),
            );
            errors::write_stderr(&msg);
        }
    }

    /// Stats, sorts and prints a gathered listing of entries of `dir`.
    /// `is_dir`: a directory's contents (with the `total` line), not
    /// command-line files.  `before` is the directory's state before the
    /// read, given when types still unknown after the stats are to be
    /// resolved (`-p`, `--file-type`).  `also`: the directory operands,
    /// whose lines GNU counts in the widths of the files' columns.
    fn print_listing(
        &self,
        mut listing: Listing,
        dir: BorrowedFd<'_>,
        dir_path: &[u8],
        is_dir: bool,
        before: Option<&DirState>,
        also: Option<&Listing>,
    ) {
        let needs = self.stat_needs();
        let started = std::time::Instant::now();
        listing.stat_all(dir, dir_path, needs, self.threads);
        if let Some(before) = before {
            let want = match self.opts.indicator {
                Indicator::Slash => Some(Want::DirOrNot),
                Indicator::FileType => Some(Want::FullType),
                _ => None,
            };
            if let Some(want) = want {
                listing.resolve_types(dir, before, want, self.threads, &self.counters);
            }
        }
        let stated = std::time::Instant::now();
        listing.sort(self.opts.sort, self.opts.reverse, self.threads);
        if self.opts.debug {
            let msg = format!(
                "dents: debug: stats {:?}, sort {:?}\n",
                stated - started,
                stated.elapsed()
            );
            errors::write_stderr(msg.as_bytes());
        }
        if self.opts.count {
            self.out.write(format!("{}\n", listing.len()).as_bytes());
        } else if self.opts.long {
            long::print(
                &listing,
                also,
                &self.opts,
                self.terminal,
                is_dir,
                self.threads,
                &self.out,
            );
        } else {
            self.print_short(&listing, also);
        }
    }

    /// What the stats of a gathered listing must find out.
    fn stat_needs(&self) -> StatNeeds {
        let o = &self.opts;
        let mut mask = StatxFlags::empty();
        if o.long {
            mask |= StatxFlags::TYPE
                | StatxFlags::MODE
                | StatxFlags::NLINK
                | StatxFlags::UID
                | StatxFlags::GID
                | StatxFlags::SIZE
                | StatxFlags::BLOCKS
                | StatxFlags::MTIME
                | StatxFlags::INO;
        }
        // GNU stats every entry for -i: `d_ino` is the mounted-on
        // directory's number at a mount point, not the mounted root's.
        if o.inode {
            mask |= StatxFlags::INO;
        }
        match o.sort {
            SortKey::Time => mask |= StatxFlags::MTIME,
            SortKey::Size => mask |= StatxFlags::SIZE,
            _ => {}
        }
        // -p and --file-type need only types, which `d_type` or the
        // resolver gives; -F needs the mode for its `*`.
        if o.indicator == Indicator::Classify {
            mask |= StatxFlags::TYPE | StatxFlags::MODE;
        }
        StatNeeds {
            mask,
            targets: o.long,
            target_types: o.long && o.indicator != Indicator::None,
            acl: o.long,
        }
    }

    /// Prints a gathered listing one name per line.
    fn print_short(&self, listing: &Listing, also: Option<&Listing>) {
        let mut buf = crate::output::ThreadBuf::new(&self.out);
        // GNU pads the inode numbers to the widest of the listing (and of
        // the directory operands, for the files' listing).
        let ino_width = if self.opts.inode {
            listing
                .iter()
                .chain(also.into_iter().flat_map(|l| l.iter()))
                .map(|r| r.ino_text().len())
                .max()
                .unwrap_or(0)
        } else {
            0
        };
        for r in listing.iter() {
            let out = &mut buf.buf;
            if self.opts.inode {
                let t = r.ino_text();
                out.resize(out.len() + ino_width.saturating_sub(t.len()), b' ');
                out.extend_from_slice(t.as_bytes());
                out.push(b' ');
            }
            name::push_name(out, listing.name(r), self.terminal);
            if let Some(m) = r.meta() {
                long::push_mode_indicator(out, m.mode(), self.opts.indicator);
            } else if let Some(c) = name::indicator(r.file_type, false, self.opts.indicator) {
                out.push(c);
            }
            out.push(if self.opts.zero { 0 } else { b'\n' });
            buf.maybe_flush();
        }
    }
}

/// The type of a command-line argument, following a symlink if `follow`
/// and the link leads to a directory.
fn arg_type(path: &CString, follow: bool) -> std::io::Result<FileType> {
    let cwd = rustix::fs::CWD;
    let st = sys::statx_at(cwd, path, StatxFlags::TYPE)?;
    let t = FileType::from_mode(st.stx_mode as u32);
    if follow && t == FileType::SYMLINK {
        if let Ok(target) = sys::statx_follow_at(cwd, path, StatxFlags::TYPE) {
            let tt = FileType::from_mode(target.stx_mode as u32);
            if tt.is_dir() {
                return Ok(tt);
            }
        }
    }
    Ok(t)
}

/// Whether `dir` is this process's own `/proc/self/fd` or `fdinfo`,
/// where the descriptors the read itself opened and closed appear.
fn is_own_fd_dir(dir: BorrowedFd<'_>) -> bool {
    let Ok(st) = sys::fstat(dir) else {
        return false;
    };
    [
        c"/proc/self/fd",
        c"/proc/self/fdinfo",
        c"/proc/thread-self/fd",
    ]
    .iter()
    .any(|p| {
        sys::statx_follow_at(rustix::fs::CWD, p, StatxFlags::INO).is_ok_and(|s| {
            s.stx_ino == st.st_ino && sys::makedev(s.stx_dev_major, s.stx_dev_minor) == st.st_dev
        })
    })
}

/// ENOENT, for a path that cannot name a file (it holds a NUL byte).
fn libc_enoent() -> i32 {
    rustix::io::Errno::NOENT.raw_os_error()
}
