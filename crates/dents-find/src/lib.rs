//! find's engine: the find language (POSIX, GNU's tests and actions,
//! a few of bfs's) on the dents parallel walker, with GNU find's output
//! and messages, byte for byte.  The `dents find` command is this crate
//! behind [`main`].
//!
//! # Use
//!
//! [`Command::parse`] reads a command line as `find` takes it (starting
//! points, then the expression) and refuses a bad one with GNU's message
//! ([`ParseError`], with a "did you mean" hint for a misspelt word);
//! [`Command::run`] runs it as `dents find` does, to standard output;
//! [`Command::run_to`] hands the output to a writer of the caller's.
//! Both return GNU's [`ExitStatus`].
//!
//! ```no_run
//! let status = dents_find::Command::parse(["/usr/include", "-name", "*.h"])?.run();
//! assert!(status.success());
//! # Ok::<(), dents_find::ParseError>(())
//! ```
//!
//! # Embedding: matches, errors and status as values
//!
//! A program that wants the entries rather than find's text takes the
//! matches as values: [`Command::matches`] is an iterator (the walk on
//! threads of its own, a bounded channel between, a drop stops the walk)
//! of [`FoundEntry`]s, each with the metadata the expression already
//! fetched (no stat of its own), and of the errors that name a path as
//! [`PathError`]s rather than lines on standard error;
//! [`Matches::status`] is GNU find's exit status at the end.
//! [`Command::for_each_match`] calls a closure on the walk's threads
//! instead ([`Match`], borrowed during the visit; a [`dents::Flow`] back).
//! A match is an entry an action writing to standard output ran for
//! (`-print`, `-printf`, `-ls`, the implicit `-print`): the entries
//! `find ... -print0` names.  [`Command::run_into`] hands over the text
//! itself, into any writer; [`Command::on_path_error`] the errors, to a
//! closure.
//!
//! ```
//! use dents_find::Command;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir_all(dir.path().join("logs/old"))?;
//! std::fs::write(dir.path().join("logs/app.log"), vec![b'x'; 4000])?;
//! std::fs::write(dir.path().join("logs/old/app.log.1"), vec![b'x'; 9000])?;
//! std::fs::write(dir.path().join("logs/notes.txt"), b"small")?;
//! let gone = dir.path().join("gone");
//!
//! // find DIR GONE -name '*.log*' -size +1k: the expression stats each
//! // candidate for -size, so each match brings its metadata along.
//! let args = [dir.path(), gone.as_path()].map(|p| p.as_os_str().to_owned());
//! let expression = ["-name", "*.log*", "-size", "+1k"].map(Into::into);
//! let mut matches = Command::parse(args.into_iter().chain(expression))?.matches();
//! let mut sizes = Vec::new();
//! let mut problems = Vec::new();
//! for item in matches.by_ref() {
//!     match item {
//!         Ok(entry) => {
//!             let len = entry.metadata().expect("stat'ed by -size").len();
//!             sizes.push((String::from_utf8_lossy(entry.name()).into_owned(), len));
//!         }
//!         // GNU's line, for a program that wants to say it as find does.
//!         Err(e) => problems.push(String::from_utf8_lossy(e.message()).into_owned()),
//!     }
//! }
//! sizes.sort();
//! assert_eq!(sizes, [("app.log".to_string(), 4000), ("app.log.1".to_string(), 9000)]);
//! assert_eq!(problems.len(), 1);
//! assert!(problems[0].ends_with("gone': No such file or directory\n"));
//! // 1, as GNU find's: a starting point was missing.
//! assert_eq!(matches.status().map(|s| s.code()), Some(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Modules, in layers
//!
//! A module uses only modules of lower layers (`tests/layers.rs` checks
//! this table against the source), so there is no import circle:
//!
//! | layer | module | concern |
//! |---|----------|---------|
//! | 0 | `regex`  | `-regex` dialects on Oniguruma, whole-path matches |
//! | 0 | `mode`   | `-perm` modes, octal and symbolic |
//! | 0 | `users`  | user and group names and ids |
//! | 0 | `time`   | a file's times (`TimeField`), `-mtime`/`-mmin` windows, `-daystart` |
//! | 0 | `names`  | a path's last component (`-name`) and `%f`/`%h` pieces |
//! | 0 | `found`  | a match handed to a program: borrowed during its visit, or owned; an error that names a path |
//! | 0 | `datefmt` | file times for `-printf` and `-ls`, cached per hour and second |
//! | 0 | `ctx`    | a command's own context: exit status, `-ls` widths, `-D` flags, message prefix, mount table; each thread's current one |
//! | 0 | `color`  | `LS_COLORS`: paths painted as GNU ls and bfs paint them; `?` on a terminal; colored messages |
//! | 1 | `datetime` | `-newerXt` date strings, as GNU's date parser reads them |
//! | 1 | `msg`    | GNU's message style and quoting; the exit status |
//! | 2 | `debug`  | `-D` flags and the diagnostics they write |
//! | 2 | `files0` | `-files0-from`: starting points read from a file, and its errors |
//! | 2 | `fstype` | filesystem type names from the mount list (`-fstype`, `%F`) |
//! | 2 | `outfiles` | the files of `-fprint`, `-fprintf`, `-fls`, opened once and shared |
//! | 3 | `cache`  | what `-printf` and `-ls` look up once per thread |
//! | 3 | `exec`   | `-exec`/`-ok`, one file or many per command; `-execdir` through the directory's descriptor |
//! | 4 | `printf` | `-printf` formats: GNU's directives, escapes, flags, widths |
//! | 4 | `lsfmt`  | `-ls` lines and GNU's growing columns |
//! | 5 | `expr`   | the expression tree and what each primary costs, reads and does; `-D rates` |
//! | 6 | `parse`  | the command line: one table of every word (name, kind, arity, reader), GNU's two-pass expression reading and its errors |
//! | 6 | `opt`    | the optimiser's passes, and what the walk must fetch (`stat_mask`) |
//! | 6 | `eval`   | the walker's visitor: each entry through the expression |
//! | 7 | `matches` | the matches as values: a callback on the walk's threads, an iterator with errors and status |
//!
//! lib.rs, above them all, holds [`Command`]: it optimises the
//! expression, sets the walk up and runs it.  What ls, find and du share
//! (messages, buffered output, numbers, the status line, mode strings,
//! `fnmatch` patterns)
//! is the `dents-tools` crate.
//!
//! bfs's additions: `-s` (sorted, deterministic walk: the walker's sort
//! mode), `-exclude`/`-nohidden` (the walker's `excluded` hook),
//! `-hidden`, `-limit`, `-color`/`-nocolor`, `-status`/`-nostatus` (the
//! status line, `dents_tools::progress`, also shown unasked on a terminal
//! once a walk takes more than a second; drawn only with the default
//! `progress` feature: a program that turns the default features off
//! never shows it and does not build indicatif).
//!
//! Output order differs from GNU find's (the walk is parallel, the top
//! three levels first and depth first below them: `dents::walk::Order`;
//! a directory's entries are visited by the thread that read it); the
//! lines themselves are GNU's, byte for byte.

#![warn(missing_docs)]

mod cache;
mod color;
mod ctx;
mod datefmt;
mod datetime;
mod debug;
mod eval;
mod exec;
mod expr;
mod files0;
mod found;
mod fstype;
mod lsfmt;
mod matches;
mod mode;
mod msg;
mod names;
mod opt;
mod outfiles;
mod parse;
mod printf;
mod regex;
mod time;
mod users;

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use dents::walk::{self, WalkOptions};

use dents_tools::output::Output;
use dents_tools::{errors, filemode, numfmt, output, progress};
pub use eval::{Finder as Evaluator, State as EvaluatorState};
pub use found::{FoundEntry, Match, PathError};
pub use matches::{Matches, TimedOut};
pub use parse::ParseError;
use parse::Parsed;

/// Walks the starting points of `-files0-from`: each run of names
/// between empty ones as one walk, each empty name reported after the
/// names before it, as GNU reads them one by one.
fn walk_list(
    items: &[files0::Item],
    from: &[u8],
    wopts: &WalkOptions,
    finder: &eval::Finder<'_>,
    walker: &mut impl Walk,
) {
    let mut run: Vec<Vec<u8>> = Vec::new();
    for item in items.iter().map(Some).chain([None]) {
        match item {
            Some(files0::Item::Path(p)) => run.push(p.clone()),
            _ => {
                if !run.is_empty() && !finder.quit_requested() {
                    finder.set_roots(&run);
                    walker.walk(&run, wopts, finder);
                }
                run.clear();
                if let Some(files0::Item::Empty(n)) = item {
                    files0::report_empty(from, *n);
                }
            }
        }
    }
}

/// Runs `dents find` with `argv` (starting with `find`); returns the exit
/// status: 0, or 1 after any problem, as GNU find.  What the executable
/// calls, after it has set up the process's time zone and locale
/// (`dents_os::tzset`, `dents_os::use_environment_locale`: only sound before any
/// thread starts, so the executable's own start-up does it); then
/// [`Command::parse`] and [`Command::run`].
pub fn main(argv: &[OsString]) -> i32 {
    let stdout_tty = dents_os::is_terminal(std::io::stdout().as_fd());
    let stderr_tty = dents_os::is_terminal(std::io::stderr().as_fd());
    let terminals = Terminals {
        stdout: stdout_tty,
        stderr: stderr_tty,
    };
    let ctx = ctx::Ctx::new(b"dents");
    // The line's errors are said in the command's words and colors.
    let _in = ctx::enter(&ctx);
    match Command::parse_on(&argv[1..], terminals, b'\n', Arc::clone(&ctx)) {
        Ok(command) => command
            .ending_when_reader_gone()
            .run_on(Destination::Stdout, terminals, &mut LocalWalk, None)
            .code(),
        Err(e) => {
            e.report();
            msg::FAILURE
        }
    }
}

/// Does a command's walks: [`walk::walk`] in this process for
/// [`Command::run`] and [`Command::run_to`]; a program that spreads a walk
/// over processes gives its own to [`Command::run_to_with`].
pub trait Walk {
    /// Walks the trees under `roots`, visiting every entry with `visitor`
    /// (find's evaluator), as [`walk::walk`] does.
    fn walk<V: walk::Visitor>(&mut self, roots: &[Vec<u8>], opts: &WalkOptions, visitor: &V);
}

/// [`walk::walk`], in this process.
struct LocalWalk;

impl Walk for LocalWalk {
    fn walk<V: walk::Visitor>(&mut self, roots: &[Vec<u8>], opts: &WalkOptions, visitor: &V) {
        walk::walk(roots, opts, visitor);
    }
}

/// The exit status of a find run: 0, or 1 after any problem, as GNU
/// find's.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ExitStatus(i32);

impl ExitStatus {
    /// The status as a process exit code.
    pub fn code(self) -> i32 {
        self.0
    }

    /// Whether the run met no problem.
    pub fn success(self) -> bool {
        self.0 == 0
    }
}

impl ParseError {
    /// Writes the error to standard error as `dents find` does (GNU's
    /// line, then the hint if any) and raises the exit status to 1.
    pub fn report(&self) {
        msg::error(&self.message);
        if let Some(hint) = &self.hint {
            msg::note(hint);
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.message))?;
        if let Some(hint) = &self.hint {
            write!(f, "\n{}", String::from_utf8_lossy(hint))?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseError {}

/// Whether standard output and standard error are terminals: colors,
/// `?` for unprintable characters, the status line.
#[derive(Copy, Clone, Debug)]
struct Terminals {
    stdout: bool,
    stderr: bool,
}

impl Terminals {
    /// Asks the process's descriptors.
    fn of_process() -> Terminals {
        use std::io::IsTerminal;
        Terminals {
            stdout: std::io::stdout().is_terminal(),
            stderr: std::io::stderr().is_terminal(),
        }
    }
}

/// Where the output of `-print`, `-printf`, `-ls` and the like goes
/// (`-fprint FILE` and kin still write their files).
enum Destination<'m> {
    /// The process's standard output, as `dents find` writes it.
    Stdout,
    /// A caller's writer.
    Sink(Output),
    /// Nowhere: each entry they print for is a match, handed to a
    /// program as a value (`matches.rs`).
    Matches(&'m dyn eval::OnMatch),
}

/// A find command line, read and checked: what `dents find ARGS` does,
/// ready to run.
///
/// ```
/// use std::io::{self, Write};
/// use std::sync::mpsc;
///
/// /// Hands each buffer of records to a channel.
/// struct Channel(mpsc::Sender<Vec<u8>>);
///
/// impl Write for Channel {
///     fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
///         self.0.send(bytes.to_vec()).map_err(|_| io::ErrorKind::BrokenPipe)?;
///         Ok(bytes.len())
///     }
///     fn flush(&mut self) -> io::Result<()> {
///         Ok(())
///     }
/// }
///
/// let command = dents_find::Command::parse(["src", "-name", "lib.rs", "-print0"])?;
/// let (tx, rx) = mpsc::channel();
/// let status = command.run_to(Channel(tx));
/// let found: Vec<u8> = rx.iter().flatten().collect();
/// assert_eq!(found, b"src/lib.rs\0");
/// assert!(status.success());
/// # Ok::<(), dents_find::ParseError>(())
/// ```
///
/// Messages (a file that cannot be read, a command that failed) go to
/// standard error in GNU's words, as `dents find` writes them; the
/// errors that name a path can be handed to the caller instead
/// ([`Command::on_path_error`]).  Each
/// command has its own exit status, `-ls` columns, `-D` flags and
/// message colors: several commands may run at once in one process, on
/// as many threads.
#[derive(Debug)]
pub struct Command {
    plan: Plan,
    /// `LS_COLORS`, read once.
    colors: color::Colors,
    /// What GNU keeps in globals, this command's own.
    ctx: Arc<ctx::Ctx>,
    /// The process ends once standard output's reader is gone
    /// ([`Command::ending_when_reader_gone`]).
    end_when_reader_gone: bool,
}

/// What a command line asks for.
#[derive(Debug)]
enum Plan {
    /// A walk.
    Walk(Box<parse::Options>),
    /// Nothing more: `--help`, `-version` or `-D help` wrote their text
    /// while the line was read; leave with this status.
    Done(i32),
}

impl Command {
    /// Reads find's arguments (those after `find`): the global options,
    /// the starting points and the expression, as GNU find reads them.
    /// GNU's warnings go to standard error as they are met; output files
    /// (`-fprint`) are opened; `--help` and `-version` write their text
    /// to standard output at once (then [`Command::run`] only returns
    /// their status).  The error carries GNU's message.
    pub fn parse<I, S>(args: I) -> Result<Command, ParseError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        Command::parse_on(
            args,
            Terminals::of_process(),
            b'\n',
            ctx::Ctx::new(b"dents"),
        )
    }

    /// [`Command::parse`], except that an expression without an action
    /// prints with `-print0` rather than `-print`: each name ends with a
    /// NUL byte, so a name holding a newline reads back whole (what a
    /// library caller splitting the output wants).
    pub fn parse_print0<I, S>(args: I) -> Result<Command, ParseError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        Command::parse_on(
            args,
            Terminals::of_process(),
            b'\0',
            ctx::Ctx::new(b"dents"),
        )
    }

    /// Hands each error that names a path (a directory that cannot be
    /// read, a file that cannot be stat'ed, a starting point that does not
    /// exist: GNU's `find: 'PATH': CAUSE`) to `handler`, on whichever
    /// thread meets it, instead of writing it to standard error.  The exit
    /// status is 1 all the same.  Other messages (warnings, `-exec`'s)
    /// still go to standard error.
    pub fn on_path_error(
        self,
        handler: impl Fn(&[u8], &std::io::Error) + Send + Sync + 'static,
    ) -> Command {
        self.ctx.set_path_error_handler(Box::new(handler));
        self
    }

    /// [`Command::parse`], messages colored if standard error is a
    /// terminal, the implicit `-print` ending names with `implicit_end`,
    /// in the command's context `ctx`.
    fn parse_on<I, S>(
        args: I,
        terminals: Terminals,
        implicit_end: u8,
        ctx: Arc<ctx::Ctx>,
    ) -> Result<Command, ParseError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<Vec<u8>> = args
            .into_iter()
            .map(|a| a.as_ref().as_bytes().to_vec())
            .collect();
        let _in = ctx::enter(&ctx);
        // Messages about the command line already in color, as bfs's.
        let table = color::Colors::from_env();
        message_colors(&ctx, color::auto(terminals.stderr).then_some(&table));
        let plan = match parse::parse_ending(&args, implicit_end)? {
            Parsed::Run(o) => Plan::Walk(o),
            Parsed::Exit(code) => Plan::Done(code),
        };
        Ok(Command {
            plan,
            colors: table,
            ctx,
            end_when_reader_gone: false,
        })
    }

    /// For an executable whose standard output is this command's (`dents
    /// find`): where the expression does nothing but write there, the
    /// process ends as soon as standard output is a pipe whose reader is
    /// gone, as the next write would end it (SIGPIPE), not only at that
    /// write: a walk that finds nothing more ends then, not at its end
    /// ([`dents_os::end_when_reader_gone`]).  Off by default: it starts a
    /// thread that outlives the call and may end the process, which a
    /// program that embeds the command does not want.
    pub fn ending_when_reader_gone(mut self) -> Command {
        self.end_when_reader_gone = true;
        self
    }

    /// The starting points (`.` if the line names none; none for
    /// `--help` and the like, and with `-files0-from`, whose names are
    /// read when the command runs).
    pub fn paths(&self) -> &[Vec<u8>] {
        match &self.plan {
            Plan::Walk(o) if o.files0_from.is_none() => &o.paths,
            _ => &[],
        }
    }

    /// Each primary of the expression (and of `-exclude`) as written: its
    /// words (`-printf`, `%p\n`), in the order of the line, the `-print`
    /// GNU adds included.  What a caller that cannot do everything find
    /// does (`dents find --from`, whose entries are a snapshot's) reads
    /// to refuse a line before running it.
    pub fn primaries(&self) -> Vec<&[Vec<u8>]> {
        fn walk<'e>(e: &'e expr::Expr, out: &mut Vec<&'e [Vec<u8>]>) {
            match e {
                expr::Expr::Not(x) => walk(x, out),
                expr::Expr::And(a, b) | expr::Expr::Or(a, b) | expr::Expr::Comma(a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
                expr::Expr::Prim(p) => out.push(&p.words),
            }
        }
        let mut out = Vec::new();
        if let Plan::Walk(o) = &self.plan {
            walk(&o.expr, &mut out);
            if let Some(x) = &o.exclude {
                walk(x, &mut out);
            }
        }
        out
    }

    /// Takes `paths` as the starting points if the line named none (rather
    /// than `.`): a snapshot's roots, for `dents find --from`.
    pub fn default_paths_to(&mut self, paths: &[Vec<u8>]) {
        if let Plan::Walk(o) = &mut self.plan {
            if o.default_paths && o.files0_from.is_none() {
                o.paths = paths.to_vec();
            }
        }
    }

    /// [`Command::run`], with the walks done by `walker` (`dents find
    /// --from` visits a snapshot's stored entries instead of the tree).
    pub fn run_with(self, walker: &mut impl Walk) -> ExitStatus {
        self.run_on(Destination::Stdout, Terminals::of_process(), walker, None)
    }

    /// Runs the command as `dents find` does: output to standard output
    /// (colored and with `?` for unprintable characters on a terminal),
    /// messages to standard error; returns GNU find's exit status.
    pub fn run(self) -> ExitStatus {
        self.run_on(
            Destination::Stdout,
            Terminals::of_process(),
            &mut LocalWalk,
            None,
        )
    }

    /// Runs the command with what it would write to standard output
    /// (`-print`, `-print0`, `-printf`, `-ls`, and the default `-print`)
    /// handed to `sink` instead: whole records, in buffers of up to
    /// 64 KiB, one `write_all` at a time from whichever walker thread
    /// filled the buffer.  Names are given raw (no colors unless
    /// `-color` asks, no `?` for unprintable characters).
    pub fn run_to(self, sink: impl Write + Send + 'static) -> ExitStatus {
        self.run_to_with(sink, &mut LocalWalk)
    }

    /// [`Command::run_to`], with the walks done by `walker` rather than
    /// by [`walk::walk`] in this process: `dents-mpi` spreads them over
    /// the ranks of an MPI job, each rank running the same command.
    pub fn run_to_with(
        self,
        sink: impl Write + Send + 'static,
        walker: &mut impl Walk,
    ) -> ExitStatus {
        let out = Output::from_writer(sink).reporting_errors(|e| {
            msg::path_error(b"output", e);
            msg::error(b"write error");
        });
        let terminals = Terminals {
            stdout: false,
            ..Terminals::of_process()
        };
        self.run_on(Destination::Sink(out), terminals, walker, None)
    }

    /// [`Command::run_to`] into any writer of the caller's, borrowed for
    /// the run (a `Vec<u8>` it reads afterwards, a locked stdout, a
    /// socket): the walk runs on other threads and this thread writes
    /// their buffers to `out` as they come (at most a few wait, so a slow
    /// writer holds the walk back rather than filling memory).  If a
    /// write to `out` fails, the walk stops as `-quit` stops it and the
    /// error is returned.
    ///
    /// ```
    /// let command = dents_find::Command::parse(["src", "-name", "lib.rs"])?;
    /// let mut found = Vec::new();
    /// let status = command.run_into(&mut found).expect("a Vec takes every write");
    /// assert_eq!(found, b"src/lib.rs\n");
    /// assert!(status.success());
    /// # Ok::<(), dents_find::ParseError>(())
    /// ```
    pub fn run_into<W: Write + ?Sized>(self, out: &mut W) -> std::io::Result<ExitStatus> {
        /// Buffers that may wait for the writing thread.
        const WAITING: usize = 4;
        /// Hands each buffer to the writing thread.
        struct Handoff(std::sync::mpsc::SyncSender<Vec<u8>>);
        impl Write for Handoff {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0
                    .send(bytes.to_vec())
                    .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let (tx, rx) = std::sync::mpsc::sync_channel(WAITING);
        std::thread::scope(|s| {
            let walk = s.spawn(move || self.run_to_reader(Handoff(tx)));
            let mut failed = None;
            for buf in rx.iter() {
                if let Err(e) = out.write_all(&buf) {
                    failed = Some(e);
                    // The walk's next write fails: it stops.
                    break;
                }
            }
            drop(rx);
            let status = walk
                .join()
                .unwrap_or_else(|payload| std::panic::resume_unwind(payload));
            match failed {
                Some(e) => Err(e),
                None => out.flush().map(|()| status),
            }
        })
    }

    /// [`Command::run_to`] for a reader that may stop reading early (an
    /// iterator its caller leaves): once a write to `sink` fails, the
    /// reader is taken to be gone and the walk stops as `-quit` stops it,
    /// with no message and the exit status left as it was.
    pub fn run_to_reader(self, sink: impl Write + Send + 'static) -> ExitStatus {
        self.run_to_reader_until(sink, Arc::default())
    }

    /// [`Command::run_to_reader`] that also stops, the same way, once
    /// `stop` is set: what a reader that leaves sets, since a walk that
    /// writes nothing (no match), or too little to fill a buffer, has no
    /// failed write to notice it by.
    pub fn run_to_reader_until(
        self,
        sink: impl Write + Send + 'static,
        stop: Arc<AtomicBool>,
    ) -> ExitStatus {
        let gone = stop;
        let flag = Arc::clone(&gone);
        let out = Output::from_writer(sink)
            .reporting_errors(move |_| flag.store(true, Ordering::Relaxed));
        let terminals = Terminals {
            stdout: false,
            ..Terminals::of_process()
        };
        self.run_on(
            Destination::Sink(out),
            terminals,
            &mut LocalWalk,
            Some(&gone),
        )
    }

    /// Makes the command ready for walks of the caller's own (its own
    /// starting points or work items, as a distributed mode has), output
    /// handed to `sink` as [`Command::run_to`] hands it; `Err` with the
    /// status for a command that is already done (`--help`).
    pub fn search_to(self, sink: impl Write + Send + 'static) -> Result<Search, ExitStatus> {
        let _in = ctx::enter(&self.ctx);
        let out = Output::from_writer(sink).reporting_errors(|e| {
            msg::path_error(b"output", e);
            msg::error(b"write error");
        });
        let stderr = Terminals::of_process().stderr;
        let color_err = |opts: &parse::Options| opts.color.unwrap_or_else(|| color::auto(stderr));
        match self.plan {
            Plan::Walk(o) => {
                message_colors(&self.ctx, color_err(&o).then_some(&self.colors));
                let colors = (o.color == Some(true)).then_some(self.colors);
                Ok(Search::new(*o, colors, out, true, self.ctx).0)
            }
            Plan::Done(code) => Err(ExitStatus(code)),
        }
    }

    /// Runs the command to `dest`, its walks done by `walker`; a walk that
    /// sees `stop` set stops.
    fn run_on(
        self,
        dest: Destination<'_>,
        terminals: Terminals,
        walker: &mut impl Walk,
        stop: Option<&AtomicBool>,
    ) -> ExitStatus {
        let ctx = self.ctx;
        let _in = ctx::enter(&ctx);
        let end_when_reader_gone = self.end_when_reader_gone;
        let opts = match self.plan {
            Plan::Walk(o) => *o,
            Plan::Done(code) => return ExitStatus(code),
        };
        let table = self.colors;
        let color_out = opts.color.unwrap_or_else(|| color::auto(terminals.stdout));
        let color_err = opts.color.unwrap_or_else(|| color::auto(terminals.stderr));
        message_colors(&ctx, color_err.then_some(&table));
        // The status line: asked for (-status), or unasked on a terminal once
        // the walk has taken a second; never with -nostatus or off a terminal.
        let when = match opts.status {
            Some(false) => None,
            Some(true) => Some(progress::When::Now),
            None => Some(progress::When::After(std::time::Duration::from_secs(1))),
        };
        let progress = when
            .filter(|_| terminals.stderr)
            .map(|w| progress::Progress::new(w, msg::utf8_locale()));
        let to_stdout = matches!(dest, Destination::Stdout);
        let mut on_match = None;
        let out = match dest {
            // A failed write to standard output: GNU's two messages, status 1.
            Destination::Stdout => match Output::stdout() {
                Ok(out) => out.reporting_errors(|e| {
                    msg::path_error(b"standard output", e);
                    msg::error(b"write error");
                }),
                Err(e) => {
                    msg::path_error(b"standard output", &e);
                    return ExitStatus(1);
                }
            },
            Destination::Sink(out) => out,
            Destination::Matches(m) => {
                on_match = Some(m);
                Output::from_writer(std::io::sink())
            }
        };
        let (search, roots) = Search::new(
            opts,
            color_out.then_some(table),
            out,
            !to_stdout,
            Arc::clone(&ctx),
        );
        let wopts = &search.wopts;
        let mut has_quit = false;
        let mut only_stdout = true;
        search.expr.each(&mut |p| {
            has_quit |= matches!(p, expr::Pred::Quit);
            only_stdout &= only_writes_stdout(p);
        });
        // A reader that leaves while no match is found ends us then, as
        // the next write would; not where the expression does more than
        // write to standard output (deletes, runs commands, writes
        // files): GNU's goes on doing that until it writes.
        if to_stdout && only_stdout && end_when_reader_gone {
            dents_os::end_when_reader_gone();
        }
        let mut finder = search.evaluator_with(progress.as_ref());
        if let Some(stop) = stop {
            finder = finder.stopped_by(stop);
        }
        if let Some(m) = on_match {
            finder = finder.recording(m);
        }
        std::thread::scope(|s| {
            if let Some(p) = &progress {
                s.spawn(|| p.run());
                p.wait_shown();
            }
            match &roots.files0_from {
                None if has_quit => {
                    // GNU takes the starting points one after the other: after
                    // `-quit`, the later ones are not even looked at.
                    for root in &roots.paths {
                        if finder.quit_requested() {
                            break;
                        }
                        let one = std::slice::from_ref(root);
                        finder.set_roots(one);
                        walker.walk(one, wopts, &finder);
                    }
                }
                None => {
                    finder.set_roots(&roots.paths);
                    walker.walk(&roots.paths, wopts, &finder);
                }
                Some(from) => match files0::read(from) {
                    Ok(items) => walk_list(&items, from, wopts, &finder, walker),
                    Err(m) => msg::error(&m),
                },
            }
            // The walk is over: no more status (batched commands may still run).
            if let Some(p) = &progress {
                p.stop();
            }
        });
        search.finish_commands(&finder);
        // Standard output was closed: GNU's last flush fails if output is
        // still pending, then closing it fails.  Its stdio flushes standard
        // output before each message: nothing is pending after a message
        // about the last starting point (the output before it was flushed).
        if to_stdout && search.out.wrote_to_closed() {
            let e = crate::output::ebadf();
            if !finder.last_root_failed() {
                msg::path_error(b"standard output", &e);
            }
            let mut m = b"write error: ".to_vec();
            m.extend_from_slice(errors::describe(&e).as_bytes());
            msg::error(&m);
        }
        ExitStatus(ctx.status())
    }
}

/// Whether the primary `p` has no effect but writing to standard output
/// (tests, `-print`, `-printf`, `-ls`, `-prune`, `-quit`...).
fn only_writes_stdout(p: &expr::Pred) -> bool {
    use outfiles::Dest;
    match p {
        _ if p.changes_files() => false,
        expr::Pred::Printf { dest, .. }
        | expr::Pred::Ls { dest, .. }
        | expr::Pred::FPrint { dest, .. } => matches!(dest, Dest::Stdout),
        _ => true,
    }
}

/// Sets the starts of `ctx`'s messages: in `colors` if messages are
/// colored.
fn message_colors(ctx: &ctx::Ctx, colors: Option<&color::Colors>) {
    if let Some(c) = colors {
        let (mut plain, mut warning) = (Vec::new(), Vec::new());
        c.message_prefix(&mut plain, ctx.program(), false);
        c.message_prefix(&mut warning, ctx.program(), true);
        ctx.set_prefixes(plain, warning);
    } else {
        let mut plain = ctx.program().to_vec();
        plain.extend_from_slice(b": ");
        let mut warning = plain.clone();
        warning.extend_from_slice(b"warning: ");
        ctx.set_prefixes(plain, warning);
    }
}

/// Where a command's walks start: its paths, or the file of
/// `-files0-from` that names them.
struct Roots {
    paths: Vec<Vec<u8>>,
    files0_from: Option<Vec<u8>>,
}

/// A command made ready to walk ([`Command::search_to`]): the optimised
/// expression, the walk's options, where the output goes.  For a
/// program that walks by itself (its own starting points or work items,
/// as a distributed mode has) and runs find's evaluator on what it
/// meets:
///
/// ```no_run
/// let command = dents_find::Command::parse(["-name", "*.h", "-print0"])?;
/// let Ok(search) = command.search_to(std::io::sink()) else { return Ok(()) };
/// let evaluator = search.evaluator();
/// for root in [b"/usr/include".to_vec(), b"/usr/local/include".to_vec()] {
///     let roots = std::slice::from_ref(&root);
///     evaluator.set_roots(roots);
///     dents::walk::walk(roots, search.walk_options(), &evaluator);
/// }
/// let status = search.finish(&evaluator);
/// # Ok::<(), dents_find::ParseError>(())
/// ```
pub struct Search {
    expr: expr::Expr,
    exclude: Option<expr::Expr>,
    wopts: WalkOptions,
    out: Output,
    colors: Option<color::Colors>,
    serial: bool,
    post_order: bool,
    ignore_race: bool,
    /// Names raw: the output is no terminal.
    raw_names: bool,
    /// The command's context, adopted by every thread of its walks.
    ctx: Arc<ctx::Ctx>,
}

impl std::fmt::Debug for Search {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Search")
            .field("expr", &self.expr)
            .field("wopts", &self.wopts)
            .finish_non_exhaustive()
    }
}

impl Search {
    /// Optimises the command's expression and works out what the walk
    /// must fetch; the starting points are handed back apart.
    fn new(
        opts: parse::Options,
        colors: Option<color::Colors>,
        out: Output,
        raw_names: bool,
        ctx: Arc<ctx::Ctx>,
    ) -> (Search, Roots) {
        let expr = opt::optimise(opts.expr, opts.opt_level);
        let exclude = opts.exclude.map(|e| opt::optimise(e, opts.opt_level));
        if opts.debug_tree {
            let mut t = String::from_utf8_lossy(ctx.program()).into_owned();
            t.push_str(": optimised expression: ");
            expr.dump(&mut t);
            t.push('\n');
            errors::write_stderr(t.as_bytes());
        }
        let mut needs = opt::analyse(&expr);
        if let Some(x) = &exclude {
            needs.stat_mask |= opt::analyse(x).stat_mask;
        }
        // Coloring reads modes (and link counts), but only when it is on.
        if let Some(c) = &colors {
            needs.stat_mask |= c.stat_mask();
        }
        // Threads 0: the walk's default.
        let wopts = WalkOptions::new()
            .threads(opts.threads.unwrap_or(0))
            .order(opts.order)
            .contents_first(opts.depth)
            .min_depth(opts.min_depth)
            .max_depth(opts.max_depth)
            .follow_links(opts.follow)
            .same_file_system(opts.xdev)
            .sort_by_name(opts.sort)
            // Under -L, loops are found by inode.
            .stat_fields(if opts.follow == dents::Follow::Always {
                needs.stat_mask | dents::StatFields::INO
            } else {
                needs.stat_mask
            });
        let search = Search {
            expr,
            exclude,
            wopts,
            out,
            colors,
            serial: needs.serial,
            post_order: opts.depth,
            ignore_race: opts.ignore_race,
            raw_names,
            ctx,
        };
        let roots = Roots {
            paths: opts.paths,
            files0_from: opts.files0_from,
        };
        (search, roots)
    }

    /// The walk the command asks for: threads, order, depths, symlinks,
    /// one filesystem, and the stat fields its tests read.
    pub fn walk_options(&self) -> &WalkOptions {
        &self.wopts
    }

    /// The evaluator: a [`dents::walk::Visitor`] that runs the expression
    /// on each entry of the walks it is given.
    pub fn evaluator(&self) -> Evaluator<'_> {
        self.evaluator_with(None)
    }

    /// [`Search::evaluator`], counting entries for a status line.
    fn evaluator_with<'a>(&'a self, progress: Option<&'a progress::Progress>) -> Evaluator<'a> {
        let finder = eval::Finder::new(
            &self.expr,
            &self.out,
            self.serial,
            self.post_order,
            self.ignore_race,
            &self.ctx,
        )
        .with_ux(self.colors.as_ref(), progress, self.exclude.as_ref())
        .stating_ahead(opt::stats_every_entry(&self.expr));
        if self.raw_names {
            finder.raw_names()
        } else {
            finder
        }
    }

    /// Runs the commands of `-exec ... +` still waiting for paths, and
    /// writes `-D rates`.
    fn finish_commands(&self, evaluator: &Evaluator<'_>) {
        evaluator.finish_commands();
        if debug::on(debug::RATES) {
            self.expr.report_rates();
        }
    }

    /// After the last walk: runs the commands still waiting for paths
    /// (`-exec ... +`) and returns GNU find's exit status.
    pub fn finish(&self, evaluator: &Evaluator<'_>) -> ExitStatus {
        let _in = ctx::enter(&self.ctx);
        self.finish_commands(evaluator);
        ExitStatus(self.ctx.status())
    }
}
