//! `dents du`: GNU du's command line on the dents-du engine.
//!
//! This module reads the arguments as GNU's `getopt_long` does (options
//! and operands in any order, `--` ends options, long options by any
//! unambiguous prefix), builds [`dents_du::Options`], words the engine's
//! problems as GNU du does and returns its exit status: 0, or 1 after any
//! problem (usage errors included).

use std::ffi::OsString;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;

use dents_du::engine::{Du, Problem, Sink};
use dents_du::files0::{self, Files0Name};
use dents_du::size::{self, SizeError, Units};
use dents_du::time_style::{self, BadArgument, TimeFormat};
use dents_du::{Follow, Options, TimeKind};

use crate::numfmt::Numbers;
use crate::output::Output;
use crate::progress::{self, Progress, Tally};
use crate::{errors, quote};

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
  -j, --threads=N       walk on N threads (default: four per core)
      --help            display this help and exit
      --version         output version information and exit

Lines come in post-order (a directory after everything below it);
siblings may come in another order than GNU du's.
";

/// Long options, in GNU du's order (it lists ambiguous ones so): name, takes an argument (0 no, 1 required, 2 optional),
/// and the short option (or pseudo-option) it stands for.
const LONG: &[(&str, u8, char)] = &[
    ("all", 0, 'a'),
    ("apparent-size", 0, 'A'),
    ("block-size", 1, 'B'),
    ("bytes", 0, 'b'),
    ("count-links", 0, 'l'),
    ("dereference", 0, 'L'),
    ("dereference-args", 0, 'D'),
    ("exclude", 1, '\u{1}'),
    ("exclude-from", 1, 'X'),
    ("files0-from", 1, '\u{2}'),
    ("human-readable", 0, 'h'),
    ("inodes", 0, '\u{4}'),
    ("si", 0, '\u{5}'),
    ("max-depth", 1, 'd'),
    ("null", 0, '0'),
    ("no-dereference", 0, 'P'),
    ("one-file-system", 0, 'x'),
    ("separate-dirs", 0, 'S'),
    ("summarize", 0, 's'),
    ("total", 0, 'c'),
    ("threshold", 1, 't'),
    ("time", 2, '\u{6}'),
    ("time-style", 1, '\u{7}'),
    ("help", 0, '\u{3}'),
    ("version", 0, '\u{8}'),
    ("export", 1, 'o'),
    ("threads", 1, 'j'),
];

/// Short options that take an argument.
const SHORT_ARG: &str = "dtBXoj";
/// Short options without one.
const SHORT_FLAG: &str = "0aAbchHklmsxDLPS";

/// Whether messages use the locale's quotes (a UTF-8 locale): GNU's
/// `quote()` writes ‘x’ there, 'x' in the C locale.  The character set
/// of the locale `setlocale` adopted (see `main.rs`), not the variables:
/// a locale that is not installed leaves the C locale, as for GNU du.
fn utf8_locale() -> bool {
    dents_os::locale_is_utf8()
}

/// `quote(x)` as GNU's messages: locale quotes.
fn q(s: &[u8]) -> Vec<u8> {
    let (l, r) = if utf8_locale() {
        ("\u{2018}", "\u{2019}")
    } else {
        ("'", "'")
    };
    let mut v = l.as_bytes().to_vec();
    v.extend_from_slice(s);
    v.extend_from_slice(r.as_bytes());
    v
}

/// `quoteaf(x)`: shell-escaped, always quoted.
fn qa(s: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    quote::for_message(&mut v, s);
    v
}

/// Writes `dents: TEXT` on stderr.
fn say(text: &[u8]) {
    let mut m = b"dents: ".to_vec();
    m.extend_from_slice(text);
    m.push(b'\n');
    errors::write_stderr(&m);
}

/// A usage error: the message, the hint, status 1.
fn usage_error(text: &[u8]) -> i32 {
    if !text.is_empty() {
        say(text);
    }
    errors::write_stderr(b"Try 'dents du --help' for more information.\n");
    1
}

/// GNU's `xstrtol_fatal` wording for a bad size argument.
fn size_error(e: SizeError, opt: &str, arg: &[u8]) -> i32 {
    let mut m = Vec::new();
    match e {
        SizeError::Invalid => {
            m.extend_from_slice(format!("invalid {opt} argument ").as_bytes());
        }
        SizeError::InvalidSuffix => {
            m.extend_from_slice(format!("invalid suffix in {opt} argument ").as_bytes());
        }
        SizeError::Overflow => {
            m.extend_from_slice(format!("{opt} argument ").as_bytes());
        }
    }
    m.push(b'\'');
    m.extend_from_slice(arg);
    m.push(b'\'');
    if e == SizeError::Overflow {
        m.extend_from_slice(b" too large");
    }
    say(&m);
    1
}

/// An argmatch failure, as GNU words it, with the valid arguments.
fn bad_argument(e: &BadArgument) -> i32 {
    say(&e.message(&q));
    errors::write_stderr(&e.valid_arguments(&q));
    usage_error(b"")
}

/// One option met: its character, its long name if so written, its argument.
type Found = (char, Option<&'static str>, Option<Vec<u8>>);

/// The parsed command line.
struct Args {
    opts: Options,
    files: Vec<Vec<u8>>,
    files0_from: Option<Vec<u8>>,
    time_style: Option<Vec<u8>>,
    export: Option<Vec<u8>>,
    summarize: bool,
    max_depth: Option<usize>,
}

/// Runs `dents du`; `argv[0]` is "du".
pub fn main(argv: &[OsString]) -> i32 {
    // One malloc arena: set by main's `startup`, before any thread.
    let posix = std::env::var_os("POSIXLY_CORRECT").is_some();
    let mut opts = Options {
        units: Units::default_for(posix),
        ..Options::default()
    };
    // An internal switch for the benchmarks (docs/benchmarks.md, session
    // 5): `DENTS_DU_INO_ORDER=1` stats in inode order, measured and not
    // made the default (no clearly faster cold walk, 6% more CPU hot).
    if let Some(v) = std::env::var_os("DENTS_DU_INO_ORDER") {
        opts.ino_order = v != "0";
    }
    // DU_BLOCK_SIZE, then BLOCK_SIZE, then BLOCKSIZE (GNU's order).
    let env_spec = ["DU_BLOCK_SIZE", "BLOCK_SIZE", "BLOCKSIZE"]
        .iter()
        .find_map(std::env::var_os);
    if let Some(spec) = env_spec {
        opts.units = size::parse_block_size(spec.as_bytes()).unwrap_or(Units::default_for(posix));
    }
    let mut a = Args {
        opts,
        files: Vec::new(),
        files0_from: None,
        time_style: None,
        export: None,
        summarize: false,
        max_depth: None,
    };
    if let Err(code) = parse(argv, &mut a) {
        return code;
    }
    run(a)
}

/// Reads the options into `a`; `Err(status)` after a usage error (or
/// `--help`, `--version`: `Err(0)`).
fn parse(argv: &[OsString], a: &mut Args) -> Result<(), i32> {
    let mut ok = true;
    let mut i = 1;
    let mut operands_only = false;
    while i < argv.len() {
        let arg = argv[i].as_bytes();
        i += 1;
        if operands_only || arg == b"-" || !arg.starts_with(b"-") {
            a.files.push(arg.to_vec());
            continue;
        }
        if arg == b"--" {
            operands_only = true;
            continue;
        }
        // (option char, long name if any, its argument if any)
        let mut found: Vec<Found> = Vec::new();
        if let Some(long) = arg.strip_prefix(b"--") {
            let (name, value) = match long.iter().position(|&c| c == b'=') {
                Some(p) => (&long[..p], Some(long[p + 1..].to_vec())),
                None => (long, None),
            };
            let exact = LONG.iter().find(|(n, _, _)| n.as_bytes() == name);
            let matches: Vec<_> = LONG
                .iter()
                .filter(|(n, _, _)| n.as_bytes().starts_with(name))
                .collect();
            let entry = match (exact, matches.len()) {
                (Some(e), _) => e,
                (None, 1) => matches[0],
                (None, 0) => {
                    let mut m = b"unrecognized option '".to_vec();
                    m.extend_from_slice(arg);
                    m.push(b'\'');
                    return Err(usage_error(&m));
                }
                _ => {
                    let mut m = b"option '".to_vec();
                    m.extend_from_slice(arg);
                    m.extend_from_slice(b"' is ambiguous; possibilities:");
                    for (n, _, _) in &matches {
                        m.extend_from_slice(format!(" '--{n}'").as_bytes());
                    }
                    return Err(usage_error(&m));
                }
            };
            let (lname, has_arg, c) = *entry;
            let value = match (has_arg, value) {
                (0, Some(_)) => {
                    return Err(usage_error(
                        format!("option '--{lname}' doesn't allow an argument").as_bytes(),
                    ))
                }
                (1, None) => {
                    if i < argv.len() {
                        i += 1;
                        Some(argv[i - 1].as_bytes().to_vec())
                    } else {
                        return Err(usage_error(
                            format!("option '--{lname}' requires an argument").as_bytes(),
                        ));
                    }
                }
                (_, v) => v,
            };
            found.push((c, Some(lname), value));
        } else {
            let mut j = 1;
            while j < arg.len() {
                let c = arg[j] as char;
                j += 1;
                if SHORT_ARG.contains(c) {
                    let value = if j < arg.len() {
                        let v = arg[j..].to_vec();
                        j = arg.len();
                        v
                    } else if i < argv.len() {
                        i += 1;
                        argv[i - 1].as_bytes().to_vec()
                    } else {
                        return Err(usage_error(
                            format!("option requires an argument -- '{c}'").as_bytes(),
                        ));
                    };
                    found.push((c, None, Some(value)));
                } else if SHORT_FLAG.contains(c) {
                    found.push((c, None, None));
                } else {
                    let mut m = b"invalid option -- '".to_vec();
                    m.push(arg[j - 1]);
                    m.push(b'\'');
                    return Err(usage_error(&m));
                }
            }
        }
        for (c, long, value) in found {
            let optname = |short: char| match long {
                Some(l) => format!("--{l}"),
                None => format!("-{short}"),
            };
            let value = value.unwrap_or_default();
            let o = &mut a.opts;
            match c {
                '0' => o.nul = true,
                'a' => o.all = true,
                'A' => o.apparent = true,
                'b' => {
                    o.apparent = true;
                    o.units = Units::blocks(1);
                }
                'c' => o.total = true,
                'h' => o.units = Units::human(),
                '\u{5}' => o.units = Units::si(),
                'k' => o.units = Units::blocks(1024),
                'm' => o.units = Units::blocks(1024 * 1024),
                'd' => match size::parse_depth(&value) {
                    Some(d) => {
                        a.max_depth = Some(d);
                    }
                    None => {
                        let mut m = b"invalid maximum depth ".to_vec();
                        m.extend_from_slice(&q(&value));
                        say(&m);
                        ok = false;
                    }
                },
                'l' => o.count_links = true,
                's' => a.summarize = true,
                't' => match size::parse_threshold(&value) {
                    Ok(t) => {
                        if t == 0 && value.first() == Some(&b'-') {
                            say(b"invalid --threshold argument '-0'");
                            return Err(1);
                        }
                        o.threshold = t;
                    }
                    Err(e) => return Err(size_error(e, &optname('t'), &value)),
                },
                'x' => o.one_file_system = true,
                'B' => match size::parse_block_size(&value) {
                    Ok(u) => o.units = u,
                    Err(e) => return Err(size_error(e, &optname('B'), &value)),
                },
                'H' | 'D' => o.follow = Follow::Roots,
                'L' => o.follow = Follow::Always,
                'P' => o.follow = Follow::Never,
                'S' => o.separate_dirs = true,
                'X' => match std::fs::read(std::ffi::OsStr::from_bytes(&value)) {
                    Ok(text) => o.excludes.add_lines(&text),
                    Err(e) => {
                        let mut m = qf(&value);
                        m.extend_from_slice(b": ");
                        m.extend_from_slice(errors::describe(&e).as_bytes());
                        say(&m);
                        ok = false;
                    }
                },
                '\u{1}' => o.excludes.add(&value),
                '\u{2}' => a.files0_from = Some(value),
                '\u{3}' => {
                    print!("{USAGE}");
                    return Err(0);
                }
                '\u{4}' => o.inodes = true,
                '\u{6}' => {
                    o.time = Some(if value.is_empty() && long.is_some() && !arg_has_eq(arg) {
                        TimeKind::Modification
                    } else {
                        match time_style::time_kind(&value) {
                            Ok(k) => k,
                            Err(e) => return Err(bad_argument(&e)),
                        }
                    });
                }
                '\u{7}' => a.time_style = Some(value),
                '\u{8}' => {
                    println!("dents du {}", env!("CARGO_PKG_VERSION"));
                    return Err(0);
                }
                'o' => a.export = Some(value),
                'j' => match std::str::from_utf8(&value)
                    .ok()
                    .and_then(|s| s.parse::<usize>().ok())
                {
                    Some(n) if n > 0 => o.threads = n,
                    _ => {
                        let mut m = b"invalid number of threads ".to_vec();
                        m.extend_from_slice(&q(&value));
                        return Err(usage_error(&m));
                    }
                },
                _ => unreachable!("every option is handled"),
            }
        }
    }
    if !ok {
        return Err(usage_error(b""));
    }
    let o = &mut a.opts;
    if o.all && a.summarize {
        say(b"cannot both summarize and show all entries");
        return Err(usage_error(b""));
    }
    if a.summarize {
        match a.max_depth {
            Some(0) => say(b"warning: summarizing is the same as using --max-depth=0"),
            Some(d) => {
                say(format!("warning: summarizing conflicts with --max-depth={d}").as_bytes());
                return Err(usage_error(b""));
            }
            None => {}
        }
        o.max_depth = 0;
    } else if let Some(d) = a.max_depth {
        o.max_depth = d;
    }
    if o.inodes {
        if o.apparent {
            say(b"warning: options --apparent-size and -b are ineffective with --inodes");
        }
        o.units.block = 1;
    }
    Ok(())
}

/// Whether a long option was written with `=` (`--time=` is an empty
/// argument, not none).
fn arg_has_eq(arg: &[u8]) -> bool {
    arg.contains(&b'=')
}

/// `quotef(x)`: quoted only if needed (file names in some messages).
fn qf(s: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    quote::for_terminal(&mut v, s);
    v
}

/// The sink: standard output, GNU's messages, the status line.
struct CliSink {
    out: Output,
    quote_names: bool,
    /// `--time`'s style (`None` without `--time`).
    time_format: Option<TimeFormat>,
    progress: Option<Progress>,
}

impl Sink for CliSink {
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
        say(&m);
        errors::raise(1);
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

/// The names of `--files0-from`: `Err` if the file cannot be opened.
fn read_files0(from: &[u8]) -> Result<Vec<u8>, i32> {
    files0::read_list(from).map_err(|e| {
        say(&files0::cannot_open(&qa(from), &errors::describe(&e)));
        1
    })
}

fn run(mut a: Args) -> i32 {
    if a.files0_from.is_some() {
        if let Some(first) = a.files.first() {
            let mut m = b"extra operand ".to_vec();
            m.extend_from_slice(&q(first));
            say(&m);
            errors::write_stderr(b"file operands cannot be combined with --files0-from\n");
            return usage_error(b"");
        }
    }
    let time_format = if a.opts.time.is_some() {
        match TimeFormat::new(a.time_style.as_deref()) {
            Ok(f) => Some(f),
            Err(e) => return bad_argument(&e),
        }
    } else {
        None
    };
    let files0 = match &a.files0_from {
        Some(from) => match read_files0(from) {
            Ok(v) => Some(v),
            Err(code) => return code,
        },
        None => None,
    };
    if files0.is_some() || a.files.len() > 1 {
        a.opts.hash_all = true;
    }
    // Sizes in the locale's digits (LC_NUMERIC), as GNU's human_readable.
    a.opts.units.numbers = Numbers::from_locale();
    if a.files.is_empty() && files0.is_none() {
        a.files.push(b".".to_vec());
    }
    if a.export.is_some() {
        if files0.is_some() || a.files.len() != 1 {
            say(b"--export takes exactly one FILE argument");
            return usage_error(b"");
        }
        a.opts.export = true;
    }
    let stdout_tty = dents_os::is_terminal(std::io::stdout().as_fd());
    let stderr_tty = dents_os::is_terminal(std::io::stderr().as_fd());
    let progress = stderr_tty.then(|| {
        Progress::new(
            progress::When::After(std::time::Duration::from_secs(1)),
            utf8_locale(),
        )
        .with_bytes()
    });
    let out = Output::stdout().reporting_errors(|e| {
        let mut m = b"write error: ".to_vec();
        m.extend_from_slice(errors::describe(e).as_bytes());
        say(&m);
        errors::raise(1);
    });
    let sink = CliSink {
        out,
        quote_names: stdout_tty
            && !a.opts.nul
            && std::env::var_os("QUOTING_STYLE").as_deref() != Some("literal".as_ref()),
        time_format,
        progress,
    };
    let export_path = a.export.clone();
    let du = Du::new(a.opts.clone(), &sink);
    if let Some(x) = du.export() {
        x.set_root_name(&dents_du::ncdu::absolute(&a.files[0]));
    }
    std::thread::scope(|s| {
        if let Some(p) = &sink.progress {
            s.spawn(|| p.run());
        }
        match &files0 {
            None => {
                for f in &a.files {
                    if f.is_empty() {
                        say(b"invalid zero-length file name");
                        errors::raise(1);
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
                            say(&r.message(&qf(from)));
                            errors::raise(1);
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
        if let Err(code) = write_export(path, x) {
            return code;
        }
    }
    match du.finish() {
        Ok(true) => {}
        _ => errors::raise(1),
    }
    errors::status()
}

/// Writes the ncdu export to `path` (`-`: standard output).
fn write_export(path: &[u8], x: &dents_du::ncdu::Export) -> Result<(), i32> {
    let now = dents_os::now().0;
    let r = if path == b"-" {
        x.write_to(&mut std::io::stdout().lock(), now)
    } else {
        std::fs::File::create(std::ffi::OsStr::from_bytes(path))
            .and_then(|f| x.write_to(&mut std::io::BufWriter::new(f), now))
    };
    r.map_err(|e| {
        let mut m = qa(path);
        m.extend_from_slice(b": ");
        m.extend_from_slice(errors::describe(&e).as_bytes());
        say(&m);
        1
    })
}
