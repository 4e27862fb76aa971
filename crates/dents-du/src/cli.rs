//! `dents du`: GNU du's command line as a program, argv in, exit status
//! out, as `dents_find::main` and `dents_ls::main` are for find and ls.
//!
//! [`main`] reads the arguments with [`args`] (the parser `dents-mpi
//! du` shares), writes what it refuses or warns, runs the
//! [`engine`](crate::engine) with a [`Console`] (standard output, GNU's
//! messages, the status line), words
//! the engine's problems as GNU du does and returns its exit status: 0,
//! or 1 after any problem (usage errors included).  Nothing here exits
//! the process, and nothing of one command is kept in the process:
//! [`main_to`] writes to its caller's writers instead of standard output
//! and error, so several commands can run at once in one process.
//!
//! `--from SNAPSHOT` is read here with every other option, by the same
//! parser, but answered by the caller: reading a snapshot needs Parquet
//! (the dents-snap crate), which du's engine does not depend on.  The
//! `dents` executable calls [`main_with_snapshots`] with a
//! [`FromSnapshot`] that reads them; [`main`] refuses `--from`.

use std::ffi::OsString;
use std::io::Write;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::sync::{Arc, Mutex};

use dents_tools::errors::{self, Status};
use dents_tools::numfmt::Numbers;
use dents_tools::output::Output;
use dents_tools::progress::{self, Progress, Tally};
use dents_tools::quote;

use crate::args::{self, Command, Env, Parsed, Refusal};
use crate::engine::{Du, Problem, Sink};
use crate::files0::{self, Files0Name};
use crate::time_style::TimeFormat;
use crate::Options;

const USAGE: &str = "\
Usage: dents du [OPTION]... [FILE]...
  or:  dents du [OPTION]... --files0-from=F
Summarize device usage of the set of FILEs, recursively for directories,
on all cores.  GNU du's options, lines and exit status.

  -0, --null            end each output line with NUL, not newline
  -a, --all             write counts for all files, not just directories
      --apparent-size   print apparent sizes rather than device usage
  -B, --block-size=SIZE  scale sizes by SIZE before printing them
  -b, --bytes           equivalent to '--apparent-size --block-size=1'
  -c, --total           produce a grand total
  -D, --dereference-args  dereference only symlinks listed on the command line
  -d, --max-depth=N     print the total for a directory (or file, with --all)
                          only if it is N or fewer levels below the argument
      --files0-from=F   summarize device usage of the NUL-terminated file
                          names in file F; if F is -, read names from stdin
  -H                    equivalent to --dereference-args (-D)
  -h, --human-readable  print sizes in human readable format (e.g., 1K 234M 2G)
      --inodes          list inode usage information instead of block usage
  -k                    like --block-size=1K
  -L, --dereference     dereference all symbolic links
  -l, --count-links     count sizes many times if hard linked
  -m                    like --block-size=1M
  -P, --no-dereference  don't follow any symbolic links (this is the default)
  -S, --separate-dirs   for directories do not include size of subdirectories
      --si              like -h, but use powers of 1000 not 1024
  -s, --summarize       display only a total for each argument
  -t, --threshold=SIZE  exclude entries smaller than SIZE if positive,
                          or entries greater than SIZE if negative
      --time            show time of the last modification of any file in the
                          directory, or any of its subdirectories
      --time=WORD       show time as WORD instead of modification time:
                          atime, access, use, ctime or status
      --time-style=STYLE  show times using STYLE, which can be:
                            full-iso, long-iso, iso, or +FORMAT
  -X, --exclude-from=FILE  exclude files that match any pattern in FILE
      --exclude=PATTERN  exclude files that match PATTERN
  -x, --one-file-system  skip directories on different file systems
  -o, --export=FILE     also write the scan in ncdu's JSON export format
                          (browse it with 'ncdu -f FILE' or 'gdu -f FILE')
  -j, --threads=N       walk on N threads (default: eight per core, those
                          past one more than the cores started only once a
                          read has waited on the disk)
      --from=SNAPSHOT   the lines for the entries SNAPSHOT stored ('dents
                          scan'), not the live tree; FILEs default to its roots
      --help            display this help and exit
      --version         output version information and exit

Lines come in post-order (a directory after everything below it);
siblings may come in another order than GNU du's.
";

/// `quoteaf(x)`: shell-escaped, always quoted.
fn qa(s: &[u8]) -> Vec<u8> {
    args::quote_always(s)
}

/// A caller's writer, shared by the threads that write to it.
type Shared = Arc<Mutex<Box<dyn Write + Send>>>;

/// Where one command's messages go: the process's standard error, or
/// the writer its caller gave ([`main_to`]), so that two commands in one
/// process never mix their messages.
#[derive(Clone)]
struct Messages(Option<Shared>);

impl Messages {
    /// Writes `bytes` as they are.
    fn write(&self, bytes: &[u8]) {
        match &self.0 {
            None => errors::write_stderr(bytes),
            Some(w) => {
                // Nowhere to say that a message could not be said.
                let _ = w.lock().unwrap_or_else(|p| p.into_inner()).write_all(bytes);
            }
        }
    }

    /// Writes `dents: TEXT`, as GNU du says a problem.
    fn say(&self, text: &[u8]) {
        let mut m = b"dents: ".to_vec();
        m.extend_from_slice(text);
        m.push(b'\n');
        self.write(&m);
    }
}

/// Where one command writes: the process's standard output and error,
/// or its caller's writers ([`main_to`]).
struct Streams {
    /// The caller's standard output; `None`: the process's.
    out: Option<Box<dyn Write + Send>>,
    messages: Messages,
}

impl Streams {
    /// The process's standard output and error.
    fn process() -> Streams {
        Streams {
            out: None,
            messages: Messages(None),
        }
    }
}

/// Writes a refused command line as GNU du does; its status.
fn refuse(r: &Refusal, said: &Messages) -> i32 {
    for m in &r.said {
        said.say(m);
    }
    said.write(&r.plain);
    if r.try_help {
        said.write(b"Try 'dents du --help' for more information.\n");
    }
    1
}

/// What answers `du --from SNAPSHOT`: du's lines for the entries the
/// snapshot `snapshot` stored, for `opts` and the FILE operands `files`
/// (none: the snapshot's roots), written and said through `console`;
/// the exit status (the caller closes standard output after it).
pub type FromSnapshot =
    fn(snapshot: &[u8], opts: &Options, files: &[Vec<u8>], console: &Console) -> i32;

/// Runs `dents du` with `argv` (starting with `du`); returns the exit
/// status.  `--from SNAPSHOT` is refused: see [`main_with_snapshots`].
pub fn main(argv: &[OsString]) -> i32 {
    command_line(argv, None, Streams::process())
}

/// [`main`], writing to `out` what it would write to standard output and
/// to `err` what it would say on standard error, so that a program can
/// run several du commands at once, each with its own output, messages
/// and exit status.  Neither is a terminal: names are written raw and no
/// status line is drawn.  A failed write to `out` is said on `err`
/// (`dents: write error`) and makes the status 1.
pub fn main_to(
    argv: &[OsString],
    out: impl Write + Send + 'static,
    err: impl Write + Send + 'static,
) -> i32 {
    let err: Box<dyn Write + Send> = Box::new(err);
    let streams = Streams {
        out: Some(Box::new(out)),
        messages: Messages(Some(Arc::new(Mutex::new(err)))),
    };
    command_line(argv, None, streams)
}

/// [`main`], with `--from SNAPSHOT` answered by `from` (the `dents`
/// executable's reader of snapshots), after the same parsing as every
/// other option.
pub fn main_with_snapshots(argv: &[OsString], from: FromSnapshot) -> i32 {
    command_line(argv, Some(from), Streams::process())
}

/// Writes a text asked for (`--help`, `--version`) to `out`, or to
/// standard output; the exit status: 0, or GNU du's `write error`
/// message and 1 when it could not be written (standard output closed or
/// full), where `print!` would have written to the `/dev/null` Rust's
/// runtime puts on a descriptor closed at start, and succeeded.
fn print(out: Option<Box<dyn Write + Send>>, text: &str, said: &Messages) -> i32 {
    let written = match out {
        None => dents_tools::output::write_stdout(text.as_bytes()),
        Some(mut out) => out.write_all(text.as_bytes()).and_then(|()| out.flush()),
    };
    dents_tools::texts::text_status(written, b"dents: ", 1, |m| said.write(m))
}

/// Parses `argv` (starting with `du`), says GNU's refusals and
/// warnings, runs what it asks; the exit status.
fn command_line(argv: &[OsString], from: Option<FromSnapshot>, streams: Streams) -> i32 {
    let args: Vec<Vec<u8>> = argv[1..].iter().map(|a| a.as_bytes().to_vec()).collect();
    let c = match args::parse(&args, &Env::from_process()) {
        Ok(Parsed::Run(c)) => c,
        Ok(Parsed::Help) => return print(streams.out, USAGE, &streams.messages),
        Ok(Parsed::Version) => {
            let version = format!("dents du {}\n", env!("CARGO_PKG_VERSION"));
            return print(streams.out, &version, &streams.messages);
        }
        Err(r) => return refuse(&r, &streams.messages),
    };
    for w in &c.warnings {
        streams.messages.say(w);
    }
    run(c, from, streams)
}

/// `quotef(x)`: quoted only if needed (file names in some messages).
fn qf(s: &[u8]) -> Vec<u8> {
    args::quote_if_needed(s)
}

/// `dents du`'s sink: standard output, GNU's messages, the exit
/// status, the status line.  A [`FromSnapshot`] writes through it.
pub struct Console {
    out: Output,
    /// Where its messages go.
    said: Messages,
    /// The command's exit status.
    status: Arc<Status>,
    quote_names: bool,
    /// `--time`'s style (`None` without `--time`).
    time_format: Option<TimeFormat>,
    progress: Option<Progress>,
}

impl Console {
    /// Says `dents: TEXT` on standard error, as GNU du says a problem.
    pub fn say(&self, text: &[u8]) {
        self.said.say(text);
    }

    /// Raises the exit status to at least `code`.
    pub fn raise(&self, code: i32) {
        self.status.raise(code);
    }

    /// The exit status so far.
    pub fn status(&self) -> i32 {
        self.status.get()
    }
}

impl Sink for Console {
    type Tally = Tally;

    fn write(&self, bytes: &[u8]) {
        self.out.write(bytes);
    }

    fn problem(&self, p: &Problem<'_>) {
        let mut m = Vec::new();
        match p {
            Problem::CannotAccess(path, e) => {
                m.extend_from_slice(b"cannot access ");
                m.extend_from_slice(&qa(path));
                if let Some(e) = e {
                    m.extend_from_slice(b": ");
                    m.extend_from_slice(errors::describe(e).as_bytes());
                }
            }
            Problem::CannotRead(path, e) => {
                m.extend_from_slice(b"cannot read directory ");
                m.extend_from_slice(&qa(path));
                m.extend_from_slice(b": ");
                m.extend_from_slice(errors::describe(e).as_bytes());
            }
            Problem::ReadCut(path, e) => {
                m.extend_from_slice(&qf(path));
                m.extend_from_slice(b": ");
                m.extend_from_slice(errors::describe(e).as_bytes());
            }
        }
        self.said.say(&m);
        self.status.raise(1);
    }

    fn push_name(&self, out: &mut Vec<u8>, path: &[u8]) {
        if self.quote_names {
            quote::for_terminal(out, path);
        } else {
            out.extend_from_slice(path);
        }
    }

    fn push_time(&self, out: &mut Vec<u8>, sec: i64, nsec: u32) {
        if let Some(f) = &self.time_format {
            f.push(out, sec, nsec);
        }
    }

    fn seen(&self, tally: &mut Tally, path: &[u8], is_dir: bool) {
        if let Some(p) = &self.progress {
            p.saw(tally, path, is_dir);
        }
    }

    fn counted(&self, tally: &mut Tally, size: u64) {
        if let Some(p) = &self.progress {
            p.counted(tally, size);
        }
    }

    fn flush_tally(&self, tally: &mut Tally) {
        if let Some(p) = &self.progress {
            p.flush(tally);
        }
    }
}

/// The names of `--files0-from`: `Err` if the file cannot be opened
/// (GNU du stops); none, after GNU's message, if it cannot be read (GNU
/// du goes on: `-c` prints a total).
fn read_files0(from: &[u8], status: &Status, said: &Messages) -> Result<Vec<u8>, i32> {
    match files0::read_list(from) {
        Ok(v) => Ok(v),
        Err(e) => {
            said.say(&e.message(from, &errors::describe));
            match e {
                files0::ListError::Open(_) => Err(1),
                files0::ListError::Read(_) => {
                    status.raise(1);
                    Ok(Vec::new())
                }
            }
        }
    }
}

/// Runs a parsed command line: the lines, the messages, the status;
/// `--from` with `from`.
fn run(mut a: Box<Command>, from: Option<FromSnapshot>, streams: Streams) -> i32 {
    let said = streams.messages;
    let time_format = a.time_format;
    let status = Arc::new(Status::new());
    let files0 = match &a.files0_from {
        Some(from) => match read_files0(from, &status, &said) {
            Ok(v) => Some(v),
            Err(code) => return code,
        },
        None => None,
    };
    // Sizes in the locale's digits (LC_NUMERIC), as GNU's human_readable.
    a.opts.units.numbers = Numbers::from_locale();
    // A caller's writers are not the terminal.
    let own = streams.out.is_none();
    let stdout_tty = own && dents_os::is_terminal(std::io::stdout().as_fd());
    let stderr_tty = own && dents_os::is_terminal(std::io::stderr().as_fd());
    let progress = stderr_tty.then(|| {
        Progress::new(
            progress::When::After(std::time::Duration::from_secs(1)),
            // The locale's quotes (a UTF-8 locale), as GNU's `quote()`:
            // the locale `setlocale` adopted, not the variables.
            dents_os::locale_is_utf8(),
        )
        .with_bytes()
    });
    // GNU du flushes each line, so a failed write is seen before
    // close_stdout, which then says `write error` without a cause (but for
    // a closed standard output, whose close fails too).
    let out = match streams.out {
        Some(w) => Output::from_writer(w),
        None => match Output::stdout() {
            Ok(out) => out,
            Err(e) => {
                said.say(format!("write error: {}", errors::describe(&e)).as_bytes());
                return 1;
            }
        },
    };
    // A reader that leaves while du has nothing to write (the walk
    // before `-s`'s one line) ends it then, as its next write would; not
    // with --export, whose file must be written whole.
    if own && a.export.is_none() {
        dents_os::end_when_reader_gone();
    }
    let raised = Arc::clone(&status);
    let reporter = said.clone();
    let out = out.reporting_errors(move |e| {
        let mut m = b"write error".to_vec();
        if e.raw_os_error() == Some(rustix::io::Errno::BADF.raw_os_error()) {
            m.extend_from_slice(b": ");
            m.extend_from_slice(errors::describe(e).as_bytes());
        }
        reporter.say(&m);
        raised.raise(1);
    });
    let sink = Console {
        out,
        said,
        status,
        quote_names: stdout_tty
            && !a.opts.nul
            && std::env::var_os("QUOTING_STYLE").as_deref() != Some("literal".as_ref()),
        time_format,
        progress,
    };
    if let Some(snapshot) = &a.from {
        let code = if a.files0_from.is_some() || a.export.is_some() {
            sink.say(b"--from cannot be combined with --files0-from or --export");
            sink.said
                .write(b"Try 'dents du --help' for more information.\n");
            1
        } else if let Some(from) = from {
            from(snapshot, &a.opts, &a.files, &sink)
        } else {
            sink.say(b"--from: this program reads no snapshots");
            1
        };
        return sink.out.close_status(code, 1);
    }
    let export_path = a.export.clone();
    let du = Du::new(a.opts.clone(), &sink);
    if let Some(x) = du.export() {
        x.set_root_name(&crate::ncdu::absolute(&a.files[0]));
        // For tests only: spill below this many bytes (the export is the
        // same whatever the threshold; tests compare tiny ones with none).
        if let Some(n) = std::env::var("DENTS_DU_EXPORT_SPILL")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            x.set_spill_threshold(n);
        }
    }
    std::thread::scope(|s| {
        if let Some(p) = &sink.progress {
            s.spawn(|| p.run());
        }
        match &files0 {
            None => {
                for f in &a.files {
                    if f.is_empty() {
                        sink.say(b"invalid zero-length file name");
                        sink.status.raise(1);
                        continue;
                    }
                    du.add_root(f);
                }
            }
            Some(list) => {
                let from = a.files0_from.as_deref().unwrap_or(b"-");
                for name in files0::names(list, from) {
                    match name {
                        Files0Name::File(f) => du.add_root(f),
                        Files0Name::Refused(r) => {
                            sink.say(&r.message(&qf(from)));
                            sink.status.raise(1);
                        }
                    }
                }
            }
        }
        if let Some(p) = &sink.progress {
            p.stop();
        }
    });
    if let (Some(path), Some(x)) = (&export_path, du.export()) {
        // Said, and the du lines still written.
        if let Err(code) = write_export(path, x, &sink, own) {
            sink.status.raise(code);
        }
    }
    match du.finish() {
        Ok(true) => {}
        _ => sink.status.raise(1),
    }
    // GNU's close_stdout: a closed standard output is said last.
    sink.out.close_status(sink.status.get(), 1)
}

/// Writes the ncdu export to `path` (`-`: standard output, or the
/// caller's output if not `own`).  Not even made when the temporary
/// file failed: the export is lost.
fn write_export(
    path: &[u8],
    x: &crate::ncdu::Export,
    sink: &Console,
    own: bool,
) -> Result<(), i32> {
    if let Some(e) = x.spill_error() {
        // GNU sort's words for its own temporary files.
        let dir = qa(e.dir.as_os_str().as_bytes());
        let mut m = if e.create {
            b"cannot create temporary file in ".to_vec()
        } else {
            b"write failed: temporary file in ".to_vec()
        };
        m.extend_from_slice(&dir);
        m.extend_from_slice(b": ");
        m.extend_from_slice(errors::describe(&e.error).as_bytes());
        sink.say(&m);
        return Err(1);
    }
    let now = dents_os::now().0;
    let r = if path == b"-" && own {
        x.write_to(&mut std::io::stdout().lock(), now)
    } else if path == b"-" {
        x.write_to(&mut Through(&sink.out), now)
    } else {
        std::fs::File::create(std::ffi::OsStr::from_bytes(path))
            .and_then(|f| x.write_to(&mut std::io::BufWriter::new(f), now))
    };
    r.map_err(|e| {
        let mut m = qa(path);
        m.extend_from_slice(b": ");
        m.extend_from_slice(errors::describe(&e).as_bytes());
        sink.say(&m);
        1
    })
}

/// A writer into an [`Output`] (whose failures its reporter says).
struct Through<'a>(&'a Output);

impl Write for Through<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.write(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush();
        Ok(())
    }
}
