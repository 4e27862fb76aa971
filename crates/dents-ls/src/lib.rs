//! `dents ls`'s engine: a lister made for huge directories.
//!
//! The `dents` executable hands [`main`] its arguments and exits with the
//! status it returns; nothing here exits the process.
//!
//! # Modules, in layers
//!
//! A module uses only modules of lower layers (`tests/layers.rs` checks
//! this table against the source), so there is no import circle:
//!
//! | layer | module | concern |
//! |---|------------|---------|
//! | 0 | `quoting`  | `--quoting-style`: names as GNU quotes them, bytes not text; option words in messages |
//! | 0 | `parts`    | a listing's records left in the parts they were read in |
//! | 0 | `version`  | `-v`: GNU's version sort (filevercmp) |
//! | 0 | `threads`  | threads that may not start: their work done on the caller's |
//! | 0 | `notes`    | messages held with a block of `-R` until its turn |
//! | 1 | `ordered`  | lines formatted on several threads, written in order |
//! | 1 | `timefmt`  | times in `-l`, `--time-style` |
//! | 1 | `paint`    | `--color`: LS_COLORS read, names coloured, GNU's reset placement |
//! | 2 | `args`     | options, with ls's letters; the last of conflicting options wins |
//! | 3 | `layout`   | `-C`, `-x`, `-m`: columns fitted to the width, as GNU's |
//! | 3 | `listing`  | a directory gathered whole, for sorting and `-l`; parallel stats and sort |
//! | 4 | `name`     | names and `-F` suffixes |
//! | 5 | `long`     | GNU's `-l` format, column widths and all |
//! | 5 | `stream`   | the default: entries written as read, on every reading thread |
//! | 5 | `recursive`| `-R`: directories listed on all workers, printed in GNU's order |
//!
//! lib.rs, above them all, holds [`main`]: the arguments read, each
//! operand listed, streamed or gathered.
//!
//! Command-line arguments are handled as GNU ls handles them: files first,
//! then each directory, with a `DIR:` header when there are several;
//! symlinks to directories are followed unless `-l`, `-F` or `-d`.

mod args;
mod layout;
mod listing;
mod long;
mod name;
mod notes;
mod ordered;
mod paint;
mod parts;
mod quoting;
mod recursive;
mod stream;
mod threads;
mod timefmt;
mod version;

use std::ffi::{CString, OsString};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;

use dents::scan::{Counters, DirState, Want};
use dents::slice::{self, ReadOptions};
use dents::FileType;
use dents::StatFields;

use args::{Format, Hidden, Indicator, LsOptions, SortKey};
use dents_tools::{errors, filemode, numfmt, output, quote};
use layout::Sink;
use listing::{GatherSink, Listing, StatNeeds};
use name::NameStyle;
use output::Output;
use paint::LsColors;
use quoting::Quoter;
use stream::{StreamConfig, StreamSink};

/// Listings longer than this are formatted on several threads in `-lR`
/// (a directory of `-R` is otherwise formatted on its worker alone).
const PARALLEL_FORMAT_MIN: usize = 16 * 1024;

/// Writes `--help`'s or `--version`'s text; the exit status: 0, or GNU
/// ls's `write error` message and 2 when standard output is closed or
/// full (clap's own print, and `print!`, would write to the `/dev/null`
/// Rust's runtime puts on a descriptor closed at start, and succeed).
fn print_text(text: &str) -> i32 {
    dents_tools::texts::print_text(text, b"dents: ", errors::SERIOUS)
}

/// Runs `dents ls` with `argv` (starting with `ls`); returns the exit status.
pub fn main(argv: &[OsString]) -> i32 {
    // The locale (it decides the quotes of messages and names) and the
    // time zone were set by main's `startup`, before any thread.
    let terminal = dents_os::is_terminal(std::io::stdout().as_fd());
    let usage = |u: args::Usage| {
        let mut msg = format!("dents: {}\n", u.text);
        if u.try_help {
            msg.push_str("Try 'dents ls --help' for more information.\n");
        }
        errors::write_stderr(msg.as_bytes());
        u.status
    };
    let matches = match args::command().try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) if !e.use_stderr() => return print_text(&e.render().to_string()),
        Err(e) => return usage(args::clap_usage(&e)),
    };
    if matches.get_flag("version") {
        return print_text(&format!("dents ls {}\n", env!("CARGO_PKG_VERSION")));
    }
    let opts = match args::options(&matches, terminal) {
        Ok(o) => o,
        Err(u) => return usage(u),
    };
    let out = match Output::stdout() {
        Ok(out) => out,
        Err(e) => {
            let msg = format!("dents: write error: {}\n", errors::describe(&e));
            errors::write_stderr(msg.as_bytes());
            return errors::SERIOUS;
        }
    };
    Lister::new(opts, terminal, std::sync::Arc::new(out)).run()
}

/// One run of `dents ls`.
struct Lister {
    opts: LsOptions,
    counters: Counters,
    /// This listing's exit status (its own: two listings in one process
    /// do not share one); its messages flush `out` first, as GNU's.
    status: errors::Status,
    out: std::sync::Arc<Output>,
    threads: usize,
    /// How names are quoted.
    quoter: Quoter,
    /// How directory headings are quoted (`:` too).
    dir_quoter: Quoter,
    /// The colors, when painting.
    colors: Option<LsColors>,
    /// How directories are read.
    read_opts: ReadOptions,
    /// Standard output is a terminal (each directory written at once).
    terminal: bool,
    /// Something was written (a blank line goes before the next heading).
    printed: std::sync::atomic::AtomicBool,
}

impl Lister {
    fn new(opts: LsOptions, terminal: bool, out: std::sync::Arc<Output>) -> Lister {
        let threads = opts.threads.unwrap_or_else(slice::default_slices);
        let mut quoter = Quoter::new(opts.quoting, opts.qmark);
        if opts.quoting == quoting::Style::Escape {
            quoter.quote_too(b" ");
        }
        match opts.indicator {
            Indicator::FileType => quoter.quote_too(b"*=>@|"),
            Indicator::Classify => quoter.quote_too(b"=>@|"),
            _ => {}
        }
        let mut dir_quoter = Quoter::new(opts.quoting, opts.qmark);
        dir_quoter.quote_too(b":");
        let colors = if opts.color {
            LsColors::from_env()
        } else {
            None
        };
        Lister {
            opts,
            counters: Counters::default(),
            status: errors::Status::flushing(std::sync::Arc::clone(&out)),
            out,
            threads,
            quoter,
            dir_quoter,
            colors,
            read_opts: ReadOptions::new().threads(threads),
            terminal,
            printed: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Writes `bytes` after what is carried, at once on a terminal or
    /// when enough is gathered: off a terminal, short listings of many
    /// small directories (-R) go out in large writes, as GNU's buffered
    /// output does.
    fn emit(&self, bytes: &[u8]) {
        if self.terminal {
            self.out.write(bytes);
        } else {
            self.out.carry(bytes);
        }
    }

    /// Writes what is carried.
    fn flush_carry(&self) {
        self.out.flush();
    }

    /// Whether GNU pads unquoted names in this format (when some are
    /// quoted).
    fn aligns(&self) -> bool {
        let o = &self.opts;
        (o.format == Format::Long
            || (matches!(o.format, Format::Vertical | Format::Horizontal) && o.width != 0))
            && matches!(
                o.quoting,
                quoting::Style::Shell | quoting::Style::ShellEscape | quoting::Style::CMaybe
            )
    }

    /// How names of `listing` (and `also`) are written.
    fn name_style<'a>(&'a self, listing: &Listing, also: Option<&Listing>) -> NameStyle<'a> {
        let pad_unquoted = self.aligns()
            && listing
                .iter()
                .map(|r| listing.name(r))
                .chain(also.into_iter().flat_map(|l| l.iter().map(|r| l.name(r))))
                .any(|n| self.quoter.needs_quoting(n));
        NameStyle {
            quoter: &self.quoter,
            colors: self.colors.as_ref(),
            pad_unquoted,
            line: if self.colors.is_some() {
                self.opts.width
            } else {
                0
            },
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
                errors::report(
                    &self.status,
                    errors::SERIOUS,
                    "cannot access",
                    p.as_bytes(),
                    &e,
                );
                continue;
            };
            match arg_type(&c, follow) {
                Ok(t) if t.is_dir() && !self.opts.directory => dirs.push_name(p.as_bytes(), t, 0),
                Ok(t) => files.push_name(p.as_bytes(), t, 0),
                Err(e) => errors::report(
                    &self.status,
                    errors::SERIOUS,
                    "cannot access",
                    p.as_bytes(),
                    &e,
                ),
            }
        }
        // GNU names each directory when given more than one argument, even
        // if some of them could not be listed.
        let headers = paths.len() > 1 || self.opts.recursive;
        // GNU measures the columns of the files' listing over every
        // operand, the directories' own lines included: they are stat'ed
        // with the same needs first (defect 14).
        let mut dir_needs = self.stat_needs();
        if !(self.opts.long || self.opts.inode) || files.is_empty() {
            dir_needs.mask = dir_needs.mask & (StatFields::MTIME | StatFields::SIZE);
            dir_needs.acl = false;
        }
        dir_needs.targets = false;
        dir_needs.target_types = false;
        dirs.stat_all(rustix::fs::CWD, b".", dir_needs, 1, &self.status);
        if !files.is_empty() {
            self.print_listing(files, rustix::fs::CWD, b".", false, None, Some(&dirs));
            self.printed
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        // Directories are visited in the listing's order too.
        dirs.sort(
            self.opts.sort,
            self.opts.reverse,
            false,
            1,
            &|n: &[u8]| self.quoter.quote(n).width,
        );
        if self.opts.recursive {
            let roots = dirs.iter().map(|r| dirs.name(r).to_vec()).collect();
            recursive::list_trees(&self, roots, headers);
        } else {
            for r in dirs.iter() {
                let path = dirs.name(r).to_vec();
                self.list_one(path, headers);
            }
        }
        if let Some(colors) = &self.colors {
            let mut end = Vec::new();
            colors.finish(&mut end);
            self.emit(&end);
        }
        self.flush_carry();
        if self.opts.debug {
            errors::write_stderr(format!("dents: debug: {}\n", self.counters.summary()).as_bytes());
        }
        // GNU's close_stdout: a failed write is said last, status 2.
        self.out.close_status(self.status.get(), errors::SERIOUS)
    }

    /// Lists the directory `path` (an operand; -R: see [`recursive`]).
    fn list_one(&self, path: Vec<u8>, headers: bool) {
        let mut head = Vec::new();
        if self.printed.load(std::sync::atomic::Ordering::Relaxed) {
            head.push(b'\n');
        }
        if headers {
            name::push_name(&mut head, &path, &self.dir_quoter);
            head.extend_from_slice(b":\n");
        }
        let cpath = CString::new(path.clone()).expect("checked for NUL above");
        if self.list_dir(&path, &cpath, &head) {
            self.printed
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Lists the contents of one directory operand, after `head` (a blank
    /// line and the `DIR:` header) once it is open; false if it could
    /// not be.
    fn list_dir(&self, path: &[u8], cpath: &CString, head: &[u8]) -> bool {
        let level = errors::SERIOUS;
        let dir = match dents::fs::open_dir(cpath) {
            Ok(fd) => fd,
            Err(e) => {
                errors::report(&self.status, level, "cannot open directory", path, &e);
                return false;
            }
        };
        self.emit(head);
        // Built once: `ReadOptions::default()` asks the available
        // parallelism, which reads cgroup files each time (-R: per
        // directory).
        let read_opts = &self.read_opts;
        // The state before the read, for the link-count trick's check.
        let resolving = matches!(self.opts.indicator, Indicator::Slash | Indicator::FileType);
        let before = if resolving {
            DirState::of(dir.as_fd()).ok()
        } else {
            None
        };
        let gather = self.opts.long
            || self.opts.sort != SortKey::None
            || self.opts.format != Format::OnePerLine
            || self.colors.is_some()
            || self.opts.dirs_first
            // Streamed, `.` and `..` go first: elsewhere in the
            // directory's order (small ext4 directories), the listing
            // puts them in their places.
            || (self.opts.hidden == Hidden::All
                && dot_positions(dir.as_fd()).is_some_and(|d| d != [(0, false), (0, true)]));
        if gather {
            let listing = self.gather(dir.as_fd(), path, level, read_opts);
            self.print_listing(listing, dir.as_fd(), path, true, before.as_ref(), None);
        } else {
            self.flush_carry();
            let cfg = StreamConfig {
                opts: &self.opts,
                quoter: &self.quoter,
                dir_path: path,
                counters: &self.counters,
                status: &self.status,
            };
            let mut count = 0;
            if self.opts.hidden == Hidden::All {
                let mut dots = StreamSink::new(&cfg, &self.out);
                dots.dot_entry(dir.as_fd(), c".");
                dots.dot_entry(dir.as_fd(), c"..");
                count += dots.count;
            }
            let mut outcome =
                slice::read_dir(dir.as_fd(), read_opts, |_| StreamSink::new(&cfg, &self.out));
            for e in &outcome.errors {
                errors::report(&self.status, level, "reading directory", path, e);
            }
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

    /// Reads the open directory `dir` whole (`.` and `..` added with
    /// `-a`); read errors reported with `status`.
    fn gather(
        &self,
        dir: BorrowedFd<'_>,
        path: &[u8],
        level: i32,
        read_opts: &ReadOptions,
    ) -> Listing {
        // A sliced read's threads stat their entries as they read them
        // (see `GatherSink::stating`); a serial read leaves the stats to
        // the listing, on several threads once the read is done.
        let outcome = match slice::plan(dir, read_opts) {
            Ok(plan @ slice::ReadPlan::Sliced { .. }) => {
                let needs = self.stat_needs();
                let targets = Default::default();
                slice::read_dir_with_plan(dir, plan, read_opts.get_buffer_size(), |i| {
                    self.gather_sink().for_slice(i).stating(needs, &targets)
                })
            }
            _ => slice::read_dir(dir, read_opts, |i| self.gather_sink().for_slice(i)),
        };
        self.gathered(outcome, dir, path, level)
    }

    /// A sink gathering entries for a listing.
    fn gather_sink(&self) -> GatherSink {
        GatherSink::new(self.opts.hidden, self.opts.ignore_dtype)
    }

    /// The listing of a directory read into gathering sinks; read errors
    /// reported at `level`.
    fn gathered(
        &self,
        outcome: slice::ReadOutcome<GatherSink>,
        dir: BorrowedFd<'_>,
        path: &[u8],
        level: i32,
    ) -> Listing {
        for e in &outcome.errors {
            notes::report(&self.status, level, "reading directory", path, e);
        }
        self.after_read(path, &outcome);
        let mut listing = Listing::from_sinks(outcome.sinks, path, &self.status);
        if self.opts.hidden == Hidden::All {
            let n = listing.len();
            listing.push_name(b".", FileType::DIRECTORY, 0);
            listing.push_name(b"..", FileType::DIRECTORY, 0);
            // Unsorted, GNU lists them where the directory has them (the
            // reads leave them out).
            if self.unsorted() {
                if let Some(dots) = dot_positions(dir) {
                    listing.set_order(order_with_dots(n, &dots));
                }
            }
        }
        listing
    }

    /// The listing keeps the directory's order.
    fn unsorted(&self) -> bool {
        self.opts.sort == SortKey::None && !self.opts.dirs_first
    }

    /// `path` quoted as GNU quotes file names at the start of messages.
    fn quoter_for_messages(&self, path: &[u8]) -> Vec<u8> {
        let q = Quoter::new(quoting::Style::ShellEscape, false);
        q.quote(path).bytes
    }

    /// Reports read errors and, with `--debug`, how the directory was read.
    fn after_read<S>(&self, path: &[u8], outcome: &slice::ReadOutcome<S>) {
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
    /// resolved (`-p`, `--file-type`, `-R`).  `also`: the directory operands,
    /// whose lines GNU counts in the widths of the files' columns.
    fn print_listing(
        &self,
        listing: Listing,
        dir: BorrowedFd<'_>,
        dir_path: &[u8],
        is_dir: bool,
        before: Option<&DirState>,
        also: Option<&Listing>,
    ) {
        let listing = self.prepare(listing, dir, dir_path, before, self.threads);
        if self.opts.count {
            self.emit(format!("{}\n", listing.len()).as_bytes());
        } else if self.opts.long {
            self.flush_carry();
            long::print(
                &listing,
                also,
                &self.opts,
                &self.name_style(&listing, also),
                is_dir,
                self.threads,
                &mut |b: &[u8]| self.out.write(b),
            );
        } else {
            self.print_short(&listing, also);
        }
    }

    /// Formats the prepared listing of a directory's contents into `out`
    /// (a block of `-R`), on this thread unless it is huge.
    fn format_listing(&self, listing: &Listing, out: &mut Vec<u8>) {
        if self.opts.count {
            out.extend_from_slice(format!("{}\n", listing.len()).as_bytes());
        } else if self.opts.long {
            let threads = if listing.len() > PARALLEL_FORMAT_MIN {
                self.threads
            } else {
                1
            };
            long::print(
                listing,
                None,
                &self.opts,
                &self.name_style(listing, None),
                true,
                threads,
                &mut |b: &[u8]| out.extend_from_slice(b),
            );
        } else {
            self.print_short_into(listing, None, out);
        }
    }

    /// Stats, resolves types and sorts a gathered listing of entries of
    /// `dir`, on up to `threads` threads (see [`Lister::print_listing`]).
    fn prepare(
        &self,
        mut listing: Listing,
        dir: BorrowedFd<'_>,
        dir_path: &[u8],
        before: Option<&DirState>,
        threads: usize,
    ) -> Listing {
        let needs = self.stat_needs();
        let started = std::time::Instant::now();
        listing.stat_all(dir, dir_path, needs, threads, &self.status);
        if let Some(before) = before {
            let want = match self.opts.indicator {
                Indicator::FileType => Some(Want::FullType),
                // -R descends into the directories among them.
                _ if self.opts.recursive => Some(Want::DirOrNot),
                Indicator::Slash => Some(Want::DirOrNot),
                _ => None,
            };
            if let Some(want) = want {
                listing.resolve_types(dir, before, want, threads, &self.counters);
            }
        }
        let stated = std::time::Instant::now();
        // GNU's widths for --sort=width count the space that aligns an
        // unquoted name with quoted ones (as the layout does).
        let pad = self.opts.sort == SortKey::Width
            && self.aligns()
            && listing
                .iter()
                .any(|r| self.quoter.needs_quoting(listing.name(r)));
        listing.sort(
            self.opts.sort,
            self.opts.reverse,
            self.opts.dirs_first,
            threads,
            &|n: &[u8]| {
                let q = self.quoter.quote(n);
                q.width + usize::from(pad && !q.quoted)
            },
        );
        if self.opts.debug {
            let msg = format!(
                "dents: debug: stats {:?}, sort {:?}\n",
                stated - started,
                stated.elapsed()
            );
            errors::write_stderr(msg.as_bytes());
        }
        listing
    }

    /// What the stats of a gathered listing must find out.
    fn stat_needs(&self) -> StatNeeds {
        let o = &self.opts;
        let mut mask = StatFields::empty();
        if o.long {
            mask |= StatFields::TYPE
                | StatFields::MODE
                | StatFields::NLINK
                | StatFields::UID
                | StatFields::GID
                | StatFields::SIZE
                | StatFields::BLOCKS
                | StatFields::MTIME
                | StatFields::INO;
        }
        // GNU stats every entry for -i: `d_ino` is the mounted-on
        // directory's number at a mount point, not the mounted root's.
        if o.inode {
            mask |= StatFields::INO;
        }
        match o.sort {
            SortKey::Time => mask |= StatFields::MTIME,
            SortKey::Size => mask |= StatFields::SIZE,
            _ => {}
        }
        // -p and --file-type need only types, which `d_type` or the
        // resolver gives; -F needs the mode for its `*`.
        if o.indicator == Indicator::Classify {
            mask |= StatFields::TYPE | StatFields::MODE;
        }
        // Colors need the mode (ex, su, sg, st, ow, tw) and links (mh).
        let check_links =
            self.colors.as_ref().is_some_and(|c| c.check_links(o.long)) || o.dirs_first;
        if self.colors.is_some() || o.dirs_first {
            mask |= StatFields::TYPE | StatFields::MODE | StatFields::NLINK;
        }
        StatNeeds {
            mask,
            targets: o.long,
            // GNU looks at the target for -l's indicator after `-> target`
            // only for --file-type and -F (not -p: `sl -> dir`, unless the
            // colors or --group-directories-first looked anyway).
            target_types: (o.long
                && matches!(o.indicator, Indicator::FileType | Indicator::Classify))
                || check_links,
            acl: o.long,
        }
    }

    /// Prints a gathered listing in a short format (one per line,
    /// columns or commas).
    fn print_short(&self, listing: &Listing, also: Option<&Listing>) {
        let mut buf = crate::output::ThreadBuf::new(&self.out);
        buf.buf = self.out.take_carried();
        self.print_short_into(listing, also, &mut buf);
        // What is left is carried on to the next directory's.
        if !self.terminal {
            self.out.carry(&std::mem::take(&mut buf.buf));
        }
    }

    /// Formats a short listing into `buf`.
    fn print_short_into(&self, listing: &Listing, also: Option<&Listing>, buf: &mut impl Sink) {
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
        let style = self.name_style(listing, also);
        let eol = if self.opts.zero { 0 } else { b'\n' };
        // One per line, unpainted: straight out, no cells.
        if self.opts.format == Format::OnePerLine && self.colors.is_none() {
            for r in listing.iter() {
                let out = buf.buf();
                self.push_frills(out, r, ino_width);
                name::push_name(out, listing.name(r), &self.quoter);
                self.push_indicator(out, r);
                out.push(eol);
                buf.maybe_flush();
            }
            return;
        }
        let mut cells = layout::Cells::default();
        for r in listing.iter() {
            let start = cells.mark();
            // The run's first reset is put in when the cells are laid
            // out, before the first paint printed (see `first_paint_at`).
            let ((mid, width, w), first_paint) = paint::first_paint_at(|| {
                let out = cells.buf();
                if let Some(c) = &self.colors {
                    c.normal(out);
                }
                self.push_frills(out, r, ino_width);
                let frills = if self.opts.inode { ino_width + 1 } else { 0 };
                let w = style.push(out, listing.name(r), &name::kind_of(r), false, 0, true);
                let mid = out.len();
                self.push_indicator(out, r);
                (mid, frills + w.width + out.len() - mid, w)
            });
            cells.push(start, mid, width, w.len, w.painted, first_paint);
        }
        layout::write(
            &cells,
            self.opts.format,
            self.opts.width,
            self.opts.tabsize,
            eol,
            self.colors.as_ref(),
            buf,
        );
    }

    /// The inode number before a name, padded to `width`.
    fn push_frills(&self, out: &mut Vec<u8>, r: &listing::Record, width: usize) {
        if self.opts.inode {
            let t = r.ino_text();
            out.resize(out.len() + width.saturating_sub(t.len()), b' ');
            out.extend_from_slice(t.as_bytes());
            out.push(b' ');
        }
    }

    /// The type indicator after a name.
    fn push_indicator(&self, out: &mut Vec<u8>, r: &listing::Record) {
        if let Some(m) = r.meta() {
            long::push_mode_indicator(out, m.mode(), self.opts.indicator);
        } else if let Some(c) = name::indicator(r.file_type, false, self.opts.indicator) {
            out.push(c);
        }
    }
}

/// The type of a command-line argument, following a symlink if `follow`
/// and the link leads to a directory.
fn arg_type(path: &CString, follow: bool) -> std::io::Result<FileType> {
    let cwd = rustix::fs::CWD;
    let st = dents::fs::stat_at(cwd, path, StatFields::TYPE)?;
    let t = st.file_type();
    if follow && t == FileType::SYMLINK {
        if let Ok(target) = dents::fs::stat_follow_at(cwd, path, StatFields::TYPE) {
            let tt = target.file_type();
            if tt.is_dir() {
                return Ok(tt);
            }
        }
    }
    Ok(t)
}

/// Where `.` and `..` are in the order the directory `dir` is read in:
/// for each, in the order they come, how many other entries come before
/// it, and whether it is `..`.  `None` if it cannot be read again.  The
/// read stops once both are seen (at once in most directories).
fn dot_positions(dir: BorrowedFd<'_>) -> Option<Vec<(usize, bool)>> {
    let fd = dents::fs::open_dir_at(dir, c".").ok()?;
    let mut reader = dents::dir::DirReader::new(fd);
    let mut others = 0;
    let mut dots = Vec::with_capacity(2);
    while dots.len() < 2 {
        let Some(e) = reader.next_raw().ok()? else {
            break;
        };
        match e.name() {
            b"." => dots.push((others, false)),
            b".." => dots.push((others, true)),
            _ => others += 1,
        }
    }
    Some(dots)
}

/// The order of a listing of `n` entries followed by `.` and `..` (the
/// records `n` and `n + 1`) that puts the dots at `dots` (see
/// [`dot_positions`]); a dot the read did not show goes last.
fn order_with_dots(n: usize, dots: &[(usize, bool)]) -> Vec<u32> {
    let mut order = Vec::with_capacity(n + 2);
    let mut placed = dots.iter().peekable();
    for i in 0..n {
        while let Some(&(_, dotdot)) = placed.next_if(|&&(at, _)| at == i) {
            order.push((n + usize::from(dotdot)) as u32);
        }
        order.push(i as u32);
    }
    order.extend(placed.map(|&(_, dotdot)| (n + usize::from(dotdot)) as u32));
    for dot in [n, n + 1] {
        if !order.contains(&(dot as u32)) {
            order.push(dot as u32);
        }
    }
    order
}

/// ENOENT, for a path that cannot name a file (it holds a NUL byte).
fn libc_enoent() -> i32 {
    rustix::io::Errno::NOENT.raw_os_error()
}
