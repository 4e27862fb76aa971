//! The command line of a scan, as `dents scan` and `dents-mpi scan` read
//! it: `-o`, `-j`, `-x`, `-H`, `-L`, `--names-only`, `--since`, `--`,
//! `-jN` and `-oFILE` glued as getopt takes them, `--long=VALUE`.
//!
//! The result is data: what to scan, the help asked for, or a usage
//! error whose words both commands say after their own prefix (this
//! library prints nothing and never exits).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use dents::Follow;

use crate::scan::ScanOptions;

/// What the command line asks.
#[derive(Debug)]
pub enum Parsed {
    /// A scan.
    Scan(ScanArgs),
    /// `--help` (the options before it were read; what follows is not).
    Help,
}

/// A scan's command line, read.
#[derive(Debug)]
pub struct ScanArgs {
    /// The options, `options_text` (their words for the record) filled.
    pub options: ScanOptions,
    /// `-o`'s value, as given (it may be empty).
    pub output: Vec<u8>,
    /// The paths in the order given; `.` if none.
    pub roots: Vec<Vec<u8>>,
}

/// A command line that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsageError {
    /// The option at the end without its value, as written (`-o`,
    /// `--output`, `-j`, `--threads`, `--since`).
    MissingValue(Vec<u8>),
    /// A long option without a value given one (`--names-only=1`), named
    /// as written.
    UnexpectedValue(Vec<u8>),
    /// `-j`'s value is no positive number.
    BadThreads(Vec<u8>),
    /// An option no scan knows, as given.
    Unrecognized(Vec<u8>),
    /// No `-o`, or an empty one.
    NoOutput,
}

impl UsageError {
    /// getopt's words for it; `output` names `-o`'s value in the hint of
    /// [`UsageError::NoOutput`] (`SNAPSHOT`, `DIR`).
    pub fn message(&self, output: &str) -> String {
        match self {
            UsageError::MissingValue(opt) if opt.starts_with(b"--") => {
                format!(
                    "option '{}' requires an argument",
                    String::from_utf8_lossy(opt)
                )
            }
            UsageError::MissingValue(opt) => format!(
                "option requires an argument -- '{}'",
                String::from_utf8_lossy(&opt[1..])
            ),
            UsageError::UnexpectedValue(opt) => format!(
                "option '{}' doesn't allow an argument",
                String::from_utf8_lossy(opt)
            ),
            UsageError::BadThreads(v) => {
                format!(
                    "invalid number of threads: '{}'",
                    String::from_utf8_lossy(v)
                )
            }
            UsageError::Unrecognized(opt) => {
                format!("unrecognized option '{}'", String::from_utf8_lossy(opt))
            }
            UsageError::NoOutput => format!("no snapshot named: give -o {output}"),
        }
    }
}

/// Reads a scan's arguments (the words after `scan`).
pub fn parse<'a>(args: impl IntoIterator<Item = &'a [u8]>) -> Result<Parsed, UsageError> {
    let mut options = ScanOptions::default();
    let mut output = None;
    let mut roots = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    let mut it = args.into_iter();
    let mut only_paths = false;
    while let Some(b) = it.next() {
        if only_paths || !b.starts_with(b"-") || b == b"-" {
            roots.push(b.to_vec());
            continue;
        }
        let (opt, inline) = match b.iter().position(|&c| c == b'=') {
            Some(i) if b.starts_with(b"--") => (&b[..i], Some(&b[i + 1..])),
            _ => (b, None),
        };
        // -jN and -oFILE glued, as getopt takes them.
        let (opt, inline) = match opt {
            [b'-', c @ (b'j' | b'o'), rest @ ..] if !rest.is_empty() && inline.is_none() => {
                (if *c == b'j' { &b"-j"[..] } else { &b"-o"[..] }, Some(rest))
            }
            _ => (opt, inline),
        };
        let mut value = || match inline {
            Some(v) => Ok(v.to_vec()),
            None => it
                .next()
                .map(<[u8]>::to_vec)
                .ok_or_else(|| UsageError::MissingValue(opt.to_vec())),
        };
        // (getopt's words: a flag given `=VALUE` is refused.)
        let flag = || match inline {
            Some(_) => Err(UsageError::UnexpectedValue(opt.to_vec())),
            None => Ok(()),
        };
        match opt {
            b"--" => only_paths = true,
            b"-o" | b"--output" => output = Some(value()?),
            b"-j" | b"--threads" => {
                let v = value()?;
                match std::str::from_utf8(&v)
                    .ok()
                    .and_then(|s| s.parse::<usize>().ok())
                {
                    Some(n) if n > 0 => {
                        options.threads = n;
                        texts.push(format!("-j {n}"));
                    }
                    _ => return Err(UsageError::BadThreads(v)),
                }
            }
            b"-x" | b"--one-file-system" => {
                flag()?;
                options.same_file_system = true;
                texts.push("-x".into());
            }
            b"-H" => {
                options.follow = Follow::Roots;
                texts.push("-H".into());
            }
            b"-L" => {
                options.follow = Follow::Always;
                texts.push("-L".into());
            }
            b"--since" => options.since = Some(OsStr::from_bytes(&value()?).into()),
            b"--names-only" => {
                flag()?;
                options.names_only = true;
                texts.push("--names-only".into());
            }
            b"--help" => {
                flag()?;
                return Ok(Parsed::Help);
            }
            _ => return Err(UsageError::Unrecognized(b.to_vec())),
        }
    }
    let output = output
        .filter(|o| !o.is_empty())
        .ok_or(UsageError::NoOutput)?;
    if roots.is_empty() {
        roots.push(b".".to_vec());
    }
    options.options_text = texts.join(" ");
    Ok(Parsed::Scan(ScanArgs {
        options,
        output,
        roots,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(words: &[&str]) -> Result<Parsed, UsageError> {
        parse(words.iter().map(|w| w.as_bytes()))
    }

    fn scan(words: &[&str]) -> ScanArgs {
        match parse_words(words) {
            Ok(Parsed::Scan(a)) => a,
            other => panic!("{words:?}: {other:?}"),
        }
    }

    #[test]
    fn options_their_record_and_the_roots() {
        let a = scan(&["-x", "-j3", "--names-only", "-oout", "t", "-L", "u"]);
        assert_eq!(a.output, b"out");
        assert_eq!(a.roots, [b"t".to_vec(), b"u".to_vec()]);
        assert_eq!(a.options.threads, 3);
        assert!(a.options.same_file_system && a.options.names_only);
        assert_eq!(a.options.follow, Follow::Always);
        assert_eq!(a.options.options_text, "-x -j 3 --names-only -L");
        let a = scan(&["--output=o", "--threads=2", "-H", "--since=old", "--", "-x"]);
        assert_eq!(a.output, b"o");
        assert_eq!(a.roots, [b"-x".to_vec()]);
        assert_eq!(a.options.follow, Follow::Roots);
        assert_eq!(a.options.since.as_deref(), Some("old".as_ref()));
        assert_eq!(a.options.options_text, "-j 2 -H");
        assert_eq!(scan(&["-o", "s", "-"]).roots, [b"-".to_vec()]);
        assert_eq!(scan(&["-o", "s"]).roots, [b".".to_vec()]);
    }

    #[test]
    fn usage_errors_and_help() {
        let err = |w: &[&str]| parse_words(w).expect_err("a usage error");
        assert_eq!(err(&["-j"]), UsageError::MissingValue(b"-j".to_vec()));
        assert_eq!(
            err(&["--output"]),
            UsageError::MissingValue(b"--output".to_vec())
        );
        assert_eq!(
            err(&["--since"]),
            UsageError::MissingValue(b"--since".to_vec())
        );
        assert_eq!(
            err(&["-o", "s", "--names-only=1"]),
            UsageError::UnexpectedValue(b"--names-only".to_vec())
        );
        assert_eq!(err(&["-o", "", "t"]), UsageError::NoOutput);
        assert_eq!(err(&["--output=", "t"]), UsageError::NoOutput);
        assert_eq!(
            err(&["-j", "0", "-o", "s"]),
            UsageError::BadThreads(b"0".to_vec())
        );
        assert_eq!(err(&["--threads="]), UsageError::BadThreads(Vec::new()));
        assert_eq!(err(&["-x=1"]), UsageError::Unrecognized(b"-x=1".to_vec()));
        assert_eq!(err(&["--since=", "t"]), UsageError::NoOutput);
        assert!(matches!(
            parse_words(&["-q", "--help"]),
            Err(UsageError::Unrecognized(_))
        ));
        assert!(matches!(
            parse_words(&["-x", "--help", "-q"]),
            Ok(Parsed::Help)
        ));
        assert_eq!(
            UsageError::MissingValue(b"--since".to_vec()).message("DIR"),
            "option '--since' requires an argument"
        );
        assert_eq!(
            UsageError::MissingValue(b"-j".to_vec()).message("DIR"),
            "option requires an argument -- 'j'"
        );
        assert_eq!(
            UsageError::UnexpectedValue(b"--help".to_vec()).message("DIR"),
            "option '--help' doesn't allow an argument"
        );
        assert_eq!(
            UsageError::NoOutput.message("SNAPSHOT"),
            "no snapshot named: give -o SNAPSHOT"
        );
    }
}
