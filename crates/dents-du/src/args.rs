//! du's command line, read as GNU du's `getopt_long` reads it, for
//! `dents du` and `dents-mpi du` alike (one parser, so the two cannot
//! drift): options and operands in any order, `--` ends the options, long
//! options by any unambiguous prefix.
//!
//! The parser neither prints nor exits: it returns the [`Command`] to run
//! (with the warnings GNU du says before running), or a [`Refusal`] with
//! GNU's words, which each tool writes with its own program name.  It
//! checks what GNU du checks before reading any file, in GNU's order
//! (the time style, then operands beside `--files0-from`).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use dents_tools::quote;

use crate::size::{self, SizeError, Units};
use crate::time_style::{self, BadArgument, TimeFormat};
use crate::{Follow, Options, TimeKind};

/// What the parser reads from the environment, read by the caller (a
/// library keeps no process state of its own; tests pass their own).
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// `POSIXLY_CORRECT` is set: 512-byte blocks by default.
    pub posixly_correct: bool,
    /// `DU_BLOCK_SIZE`, else `BLOCK_SIZE`, else `BLOCKSIZE` (GNU's order).
    pub block_size: Option<Vec<u8>>,
    /// Messages quote with the locale's quotes (‘x’, a UTF-8 locale)
    /// rather than 'x'.
    pub utf8_quotes: bool,
}

impl Env {
    /// The process's environment, as GNU du reads it.
    pub fn from_process() -> Env {
        // The character set of the locale setlocale adopted, not the
        // variables: a locale that is not installed leaves the C locale,
        // whose quotes are ASCII, as GNU du's.
        let utf8 = dents_os::locale_is_utf8();
        Env {
            posixly_correct: std::env::var_os("POSIXLY_CORRECT").is_some(),
            block_size: ["DU_BLOCK_SIZE", "BLOCK_SIZE", "BLOCKSIZE"]
                .iter()
                .find_map(std::env::var_os)
                .map(|s| s.into_encoded_bytes()),
            utf8_quotes: utf8,
        }
    }

    /// GNU's `quote(x)`: the locale's quotes around `s`.
    pub fn quote(&self, s: &[u8]) -> Vec<u8> {
        let (l, r): (&[u8], &[u8]) = if self.utf8_quotes {
            ("\u{2018}".as_bytes(), "\u{2019}".as_bytes())
        } else {
            (b"'", b"'")
        };
        [l, s, r].concat()
    }
}

/// GNU's `quoteaf(x)`: shell-escaped, always quoted (control characters
/// written as `$'\n'`).
pub fn quote_always(s: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    quote::for_message(&mut v, s);
    v
}

/// GNU's `quotef(x)`: shell-escaped, quoted only if needed.
pub fn quote_if_needed(s: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    quote::for_terminal(&mut v, s);
    v
}

/// A command line to run.
#[derive(Debug)]
pub struct Command {
    /// du's options (`hash_all` and `export` set from the operands).
    pub opts: Options,
    /// The operands, `.` when none (empty with `--files0-from`).
    pub files: Vec<Vec<u8>>,
    /// `--files0-from=F`: the file naming the arguments (`-`: standard
    /// input).
    pub files0_from: Option<Vec<u8>>,
    /// How `--time` writes times; `None` without `--time`.
    pub time_format: Option<TimeFormat>,
    /// `-o`/`--export=FILE`: where to write ncdu's JSON export.
    pub export: Option<Vec<u8>>,
    /// Messages to say before running (GNU's warnings), without the
    /// program's name.
    pub warnings: Vec<Vec<u8>>,
    /// `--from=SNAPSHOT`: du of the entries a snapshot stored, not of the
    /// live tree (`files` empty when no operand was given: the
    /// snapshot's roots).
    pub from: Option<Vec<u8>>,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Parsed {
    /// Run du.
    Run(Box<Command>),
    /// `--help`: the caller prints its help, status 0.
    Help,
    /// `--version`: the caller prints its version, status 0.
    Version,
}

/// A command line refused: GNU's words, to be written in this order on
/// standard error; the status is 1.
#[derive(Debug, Default)]
pub struct Refusal {
    /// Messages, each to be said as `PROGRAM: MESSAGE` (warnings said
    /// before the error included).
    pub said: Vec<Vec<u8>>,
    /// Text written as it is after them (argmatch's `Valid arguments
    /// are:` list, `file operands cannot be combined...`), each line
    /// ending with a newline.
    pub plain: Vec<u8>,
    /// GNU's `Try 'du --help'` hint follows (a usage error; not after
    /// `xstrtol_fatal`'s or `die`'s messages).
    pub try_help: bool,
}

impl Refusal {
    fn usage(said: Vec<Vec<u8>>) -> Refusal {
        Refusal {
            said,
            plain: Vec::new(),
            try_help: true,
        }
    }
}

/// Long options, in GNU du's order (it lists ambiguous ones so): name,
/// takes an argument (0 no, 1 required, 2 optional), and the short
/// option (or pseudo-option) it stands for.
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
    ("from", 1, '\u{9}'),
];

/// Short options that take an argument.
const SHORT_ARG: &str = "dtBXoj";
/// Short options without one.
/// (GNU du 9.1 has no `-A`: `--apparent-size` only.)
const SHORT_FLAG: &str = "0abchHklmsxDLPS";

/// GNU's `xstrtol_fatal` wording for a bad size argument (no hint).
fn size_error(e: SizeError, opt: &str, arg: &[u8]) -> Refusal {
    let mut m = Vec::new();
    match e {
        SizeError::Invalid => m.extend_from_slice(format!("invalid {opt} argument ").as_bytes()),
        SizeError::InvalidSuffix => {
            m.extend_from_slice(format!("invalid suffix in {opt} argument ").as_bytes())
        }
        SizeError::Overflow => m.extend_from_slice(format!("{opt} argument ").as_bytes()),
    }
    m.push(b'\'');
    m.extend_from_slice(arg);
    m.push(b'\'');
    if e == SizeError::Overflow {
        m.extend_from_slice(b" too large");
    }
    Refusal {
        said: vec![m],
        plain: Vec::new(),
        try_help: false,
    }
}

/// The text of an `-X FILE` (`-`: standard input, as gnulib's
/// `add_exclude_file` takes it; what it leaves unread is what a later
/// `--files0-from=-` reads).
fn read_exclude_file(name: &[u8]) -> std::io::Result<Vec<u8>> {
    if name != b"-" {
        return std::fs::read(OsStr::from_bytes(name));
    }
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut text)?;
    Ok(text)
}

/// An argmatch failure, as GNU words it, with the valid arguments.
fn bad_argument(env: &Env, said: Vec<Vec<u8>>, e: &BadArgument) -> Refusal {
    let q = |s: &[u8]| env.quote(s);
    let mut said = said;
    said.push(e.message(&q));
    Refusal {
        said,
        plain: e.valid_arguments(&q),
        try_help: true,
    }
}

/// One option met: its character, its long name if so written, its
/// argument (`None`: none given, which `--time` tells from `--time=`).
type Found = (char, Option<&'static str>, Option<Vec<u8>>);

/// A word of the command line as `getopt_long` reads it.
enum Token {
    /// An operand (a FILE).
    Operand(Vec<u8>),
    /// An option and its argument.
    Option(Found),
    /// A usage error (an unknown or ambiguous option, a missing or
    /// unwanted argument): getopt's message.  getopt goes on after it (with
    /// the next word, or the next letter of a cluster), and so does du,
    /// which stops only once every option is read.
    Refused(Vec<u8>),
}

/// The command line split as GNU du's `getopt_long` splits it, options
/// and operands in their order, usage errors where getopt meets them.
/// Apart from what the options mean, so that [`reads_standard_input`]
/// reads it as [`parse`] does.
fn tokens(args: &[Vec<u8>]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut operands_only = false;
    while i < args.len() {
        let arg = &args[i][..];
        i += 1;
        if operands_only || arg == b"-" || !arg.starts_with(b"-") {
            out.push(Token::Operand(arg.to_vec()));
            continue;
        }
        if arg == b"--" {
            operands_only = true;
            continue;
        }
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
                    out.push(Token::Refused(
                        [&b"unrecognized option '"[..], arg, b"'"].concat(),
                    ));
                    continue;
                }
                _ => {
                    let mut m = [&b"option '"[..], arg, b"' is ambiguous; possibilities:"].concat();
                    for (n, _, _) in &matches {
                        m.extend_from_slice(format!(" '--{n}'").as_bytes());
                    }
                    out.push(Token::Refused(m));
                    continue;
                }
            };
            let (lname, has_arg, c) = *entry;
            let value = match (has_arg, value) {
                (0, Some(_)) => {
                    out.push(Token::Refused(
                        format!("option '--{lname}' doesn't allow an argument").into_bytes(),
                    ));
                    continue;
                }
                (1, None) => match args.get(i) {
                    Some(v) => {
                        i += 1;
                        Some(v.clone())
                    }
                    None => {
                        out.push(Token::Refused(
                            format!("option '--{lname}' requires an argument").into_bytes(),
                        ));
                        continue;
                    }
                },
                (_, v) => v,
            };
            out.push(Token::Option((c, Some(lname), value)));
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
                    } else if let Some(v) = args.get(i) {
                        i += 1;
                        v.clone()
                    } else {
                        out.push(Token::Refused(
                            format!("option requires an argument -- '{c}'").into_bytes(),
                        ));
                        continue;
                    };
                    out.push(Token::Option((c, None, Some(value))));
                } else if SHORT_FLAG.contains(c) {
                    out.push(Token::Option((c, None, None)));
                } else {
                    out.push(Token::Refused(
                        [&b"invalid option -- '"[..], &arg[j - 1..j], b"'"].concat(),
                    ));
                    continue;
                }
            }
        }
    }
    out
}

/// Whether [`parse`] may read standard input for `-X -` (or
/// `--exclude-from=-`): a tool whose processes share one standard input
/// (`dents-mpi`) hands it to each first.
pub fn reads_standard_input(args: &[Vec<u8>]) -> bool {
    tokens(args)
        .iter()
        .any(|t| matches!(t, Token::Option(('X', _, Some(v))) if v == b"-"))
}

/// Reads du's arguments (after `du`); `env` is what the environment
/// says ([`Env::from_process`]).
pub fn parse(args: &[Vec<u8>], env: &Env) -> Result<Parsed, Refusal> {
    let mut o = Options {
        units: Units::default_for(env.posixly_correct),
        ..Options::default()
    };
    if let Some(spec) = &env.block_size {
        o.units = size::block_size_from_env(spec, env.posixly_correct);
    }
    let mut files: Vec<Vec<u8>> = Vec::new();
    let mut files0_from = None;
    let mut time_style: Option<Vec<u8>> = None;
    let mut export = None;
    let mut from = None;
    let mut summarize = false;
    let mut max_depth: Option<usize> = None;
    // Messages said so far (GNU says some and reads on, then stops).
    let mut said: Vec<Vec<u8>> = Vec::new();
    let mut ok = true;
    for token in tokens(args) {
        let (c, long, value) = match token {
            Token::Operand(f) => {
                files.push(f);
                continue;
            }
            Token::Option(found) => found,
            Token::Refused(m) => {
                said.push(m);
                ok = false;
                continue;
            }
        };
        let optname = |short: char| match long {
            Some(l) => format!("--{l}"),
            None => format!("-{short}"),
        };
        let given = value.is_some();
        let value = value.unwrap_or_default();
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
                Some(d) => max_depth = Some(d),
                None => {
                    said.push([&b"invalid maximum depth "[..], &env.quote(&value)].concat());
                    ok = false;
                }
            },
            'l' => o.count_links = true,
            's' => summarize = true,
            't' => match size::parse_threshold(&value) {
                Ok(t) => {
                    if t == 0 && value.first() == Some(&b'-') {
                        said.push(b"invalid --threshold argument '-0'".to_vec());
                        return Err(Refusal {
                            said,
                            ..Refusal::default()
                        });
                    }
                    o.threshold = t;
                }
                Err(e) => {
                    let mut r = size_error(e, &optname('t'), &value);
                    said.append(&mut r.said);
                    r.said = said;
                    return Err(r);
                }
            },
            'x' => o.one_file_system = true,
            'B' => match size::parse_block_size(&value) {
                Ok(u) => o.units = u,
                Err(e) => {
                    let mut r = size_error(e, &optname('B'), &value);
                    said.append(&mut r.said);
                    r.said = said;
                    return Err(r);
                }
            },
            'H' | 'D' => o.follow = Follow::Roots,
            'L' => o.follow = Follow::Always,
            'P' => o.follow = Follow::Never,
            'S' => o.separate_dirs = true,
            'X' => match read_exclude_file(&value) {
                Ok(text) => o.excludes.add_lines(&text),
                Err(e) => {
                    said.push(
                        [
                            &quote_if_needed(&value)[..],
                            b": ",
                            dents_tools::errors::describe(&e).as_bytes(),
                        ]
                        .concat(),
                    );
                    ok = false;
                }
            },
            '\u{1}' => o.excludes.add(&value),
            '\u{2}' => files0_from = Some(value),
            '\u{3}' => return Ok(Parsed::Help),
            '\u{4}' => o.inodes = true,
            '\u{6}' => {
                o.time = Some(if given {
                    match time_style::time_kind(&value) {
                        Ok(k) => k,
                        Err(e) => return Err(bad_argument(env, said, &e)),
                    }
                } else {
                    TimeKind::Modification
                });
            }
            '\u{7}' => time_style = Some(value),
            '\u{8}' => return Ok(Parsed::Version),
            '\u{9}' => from = Some(value),
            'o' => export = Some(value),
            'j' => match std::str::from_utf8(&value)
                .ok()
                .and_then(|s| s.parse::<usize>().ok())
            {
                Some(n) if n > 0 => {
                    o.threads = n;
                    o.threads_chosen = true;
                }
                _ => {
                    said.push([&b"invalid number of threads "[..], &env.quote(&value)].concat());
                    return Err(Refusal::usage(said));
                }
            },
            _ => unreachable!("every option is handled"),
        }
    }
    if !ok {
        return Err(Refusal::usage(said));
    }
    if o.all && summarize {
        said.push(b"cannot both summarize and show all entries".to_vec());
        return Err(Refusal::usage(said));
    }
    if summarize {
        match max_depth {
            Some(0) => {
                said.push(b"warning: summarizing is the same as using --max-depth=0".to_vec())
            }
            Some(d) => {
                said.push(
                    format!("warning: summarizing conflicts with --max-depth={d}").into_bytes(),
                );
                return Err(Refusal::usage(said));
            }
            None => {}
        }
        o.max_depth = 0;
    } else if let Some(d) = max_depth {
        o.max_depth = d;
    }
    if o.inodes {
        if o.apparent {
            said.push(
                b"warning: options --apparent-size and -b are ineffective with --inodes".to_vec(),
            );
        }
        // Counts are not sizes: no block size divides them (`-h` still
        // scales them, as GNU's).
        o.units.block = 1;
    }
    let time_format = match o.time {
        Some(_) => match TimeFormat::new(time_style.as_deref()) {
            Ok(f) => Some(f),
            Err(e) => return Err(bad_argument(env, said, &e)),
        },
        None => None,
    };
    if files0_from.is_some() {
        if let Some(first) = files.first() {
            said.push([&b"extra operand "[..], &env.quote(first)].concat());
            return Err(Refusal {
                said,
                plain: b"file operands cannot be combined with --files0-from\n".to_vec(),
                try_help: true,
            });
        }
    } else if files.is_empty() && from.is_none() {
        files.push(b".".to_vec());
    }
    o.hash_all = files0_from.is_some() || files.len() > 1;
    if export.is_some() {
        if files0_from.is_some() || files.len() != 1 {
            said.push(b"--export takes exactly one FILE argument".to_vec());
            return Err(Refusal::usage(said));
        }
        o.export = true;
    }
    Ok(Parsed::Run(Box::new(Command {
        opts: o,
        files,
        files0_from,
        time_format,
        export,
        warnings: said,
        from,
    })))
}
