//! `dents-mpi du`'s command line: GNU du's options that the distributed
//! engine supports.

use dents_du::files0::{self, Files0Name};
use dents_du::size::{parse_block_size, parse_depth, parse_threshold, Units};
use dents_du::time_style::{self, BadArgument, TimeFormat};
use dents_du::{Follow, Options, TimeKind};
use std::os::unix::ffi::OsStrExt;

use crate::msg;

/// The options and the files (`.` when none).
pub struct DuArgs {
    /// du's options.
    pub opts: Options,
    /// The arguments.
    pub files: Vec<Vec<u8>>,
    /// `--files0-from=F`: the file naming the arguments (`-`: standard
    /// input, which mpirun gives rank 0).
    pub files0_from: Option<Vec<u8>>,
    /// How `--time` writes times (`--time-style`, `TIME_STYLE`); `None`
    /// without `--time`.
    pub time_format: Option<TimeFormat>,
    /// `-o`/`--export=FILE`: where rank 0 writes ncdu's JSON export.
    pub export: Option<Vec<u8>>,
}

/// Reads `args` (after `du`); `Err` with the message for a bad one.
pub fn parse(args: &[Vec<u8>]) -> Result<DuArgs, String> {
    let posix = std::env::var_os("POSIXLY_CORRECT").is_some();
    let mut opts = Options {
        units: Units::default_for(posix),
        ..Options::default()
    };
    if let Some(spec) = ["DU_BLOCK_SIZE", "BLOCK_SIZE"]
        .iter()
        .find_map(std::env::var_os)
    {
        if let Ok(u) = parse_block_size(spec.as_encoded_bytes()) {
            opts.units = u;
        }
    }
    let mut files = Vec::new();
    let mut files0_from = None;
    let mut time_style = None;
    let mut export = None;
    let mut summarize = false;
    let mut i = 0;
    let mut only_files = false;
    let value = |i: &mut usize, inline: &[u8], name: &str| -> Result<Vec<u8>, String> {
        if !inline.is_empty() {
            return Ok(inline.to_vec());
        }
        *i += 1;
        args.get(*i)
            .cloned()
            .ok_or_else(|| format!("option requires an argument -- '{name}'"))
    };
    while i < args.len() {
        let a = &args[i];
        if only_files || a.len() < 2 || a[0] != b'-' {
            files.push(a.clone());
        } else if a == b"--" {
            only_files = true;
        } else if let Some(long) = a.strip_prefix(b"--") {
            let (name, inline) = match long.iter().position(|&c| c == b'=') {
                Some(p) => (&long[..p], Some(&long[p + 1..])),
                None => (long, None),
            };
            let mut val = |what: &str| -> Result<Vec<u8>, String> {
                match inline {
                    Some(v) => Ok(v.to_vec()),
                    None => value(&mut i, b"", what),
                }
            };
            match name {
                b"all" => opts.all = true,
                b"summarize" => summarize = true,
                b"total" => opts.total = true,
                b"max-depth" => opts.max_depth = depth(&val("max-depth")?)?,
                b"human-readable" => opts.units = Units::human(),
                b"si" => opts.units = Units::si(),
                b"bytes" => {
                    opts.apparent = true;
                    opts.units = Units::blocks(1);
                }
                b"apparent-size" => opts.apparent = true,
                b"block-size" => opts.units = block_size(&val("block-size")?)?,
                b"inodes" => opts.inodes = true,
                b"count-links" => opts.count_links = true,
                b"dereference" => opts.follow = Follow::Always,
                b"no-dereference" => opts.follow = Follow::Never,
                b"dereference-args" => opts.follow = Follow::Roots,
                b"one-file-system" => opts.one_file_system = true,
                b"separate-dirs" => opts.separate_dirs = true,
                b"threshold" => opts.threshold = threshold(&val("threshold")?)?,
                b"null" => opts.nul = true,
                b"exclude" => opts.excludes.add(&val("exclude")?),
                b"exclude-from" => exclude_from(&mut opts, &val("exclude-from")?)?,
                b"files0-from" => files0_from = Some(val("files0-from")?),
                b"time" => {
                    opts.time = Some(match inline {
                        None => TimeKind::Modification,
                        Some(word) => time_style::time_kind(word).map_err(bad_argument)?,
                    })
                }
                b"time-style" => time_style = Some(val("time-style")?),
                b"export" => export = Some(val("export")?),
                _ => {
                    return Err(format!(
                        "unrecognized option '{}'",
                        String::from_utf8_lossy(a)
                    ))
                }
            }
        } else {
            let mut j = 1;
            while j < a.len() {
                let c = a[j];
                let rest = &a[j + 1..];
                match c {
                    b'a' => opts.all = true,
                    b's' => summarize = true,
                    b'c' => opts.total = true,
                    b'h' => opts.units = Units::human(),
                    b'k' => opts.units = Units::blocks(1024),
                    b'm' => opts.units = Units::blocks(1 << 20),
                    b'b' => {
                        opts.apparent = true;
                        opts.units = Units::blocks(1);
                    }
                    b'l' => opts.count_links = true,
                    b'x' => opts.one_file_system = true,
                    b'S' => opts.separate_dirs = true,
                    b'0' => opts.nul = true,
                    b'L' => opts.follow = Follow::Always,
                    b'P' => opts.follow = Follow::Never,
                    b'H' | b'D' => opts.follow = Follow::Roots,
                    b'd' | b'B' | b't' | b'X' | b'o' => {
                        let v = value(&mut i, rest, &(c as char).to_string())?;
                        match c {
                            b'd' => opts.max_depth = depth(&v)?,
                            b'B' => opts.units = block_size(&v)?,
                            b'X' => exclude_from(&mut opts, &v)?,
                            b'o' => export = Some(v),
                            _ => opts.threshold = threshold(&v)?,
                        }
                        break;
                    }
                    _ => return Err(format!("invalid option -- '{}'", c as char)),
                }
                j += 1;
            }
        }
        i += 1;
    }
    if summarize {
        if opts.all {
            return Err("cannot both summarize and show all entries".into());
        }
        if opts.max_depth != usize::MAX && opts.max_depth != 0 {
            return Err(format!(
                "warning: summarizing conflicts with --max-depth={}",
                opts.max_depth
            ));
        }
        opts.max_depth = 0;
    }
    let time_format = match opts.time {
        Some(_) => Some(TimeFormat::new(time_style.as_deref()).map_err(bad_argument)?),
        None => None,
    };
    if opts.inodes {
        // Counts are not sizes: no block size divides them (`-h` still
        // scales them, as GNU's).
        opts.units.block = 1;
    }
    if files0_from.is_some() {
        if let Some(first) = files.first() {
            return Err(format!(
                "extra operand {}\nfile operands cannot be combined with --files0-from",
                String::from_utf8_lossy(&msg::quote(first))
            ));
        }
    } else if files.is_empty() {
        files.push(b".".to_vec());
    }
    opts.hash_all = files.len() > 1 || files0_from.is_some();
    if export.is_some() {
        if files0_from.is_some() || files.len() != 1 {
            return Err("--export takes exactly one FILE argument".into());
        }
        opts.export = true;
    }
    Ok(DuArgs {
        opts,
        files,
        files0_from,
        time_format,
        export,
    })
}

/// GNU's message for a word that is none of an option's (`--time=WORD`,
/// `--time-style`): the valid ones listed.
fn bad_argument(e: BadArgument) -> String {
    let mut m = e.message(&ascii_quote);
    m.push(b'\n');
    m.extend_from_slice(&e.valid_arguments(&ascii_quote));
    m.pop();
    String::from_utf8_lossy(&m).into_owned()
}

/// GNU's `quote` in the C locale, as dents-mpi's other messages quote
/// (`'x'`).
fn ascii_quote(s: &[u8]) -> Vec<u8> {
    [b"'", s, b"'"].concat()
}

/// `-X FILE`: the patterns of FILE, one a line.
fn exclude_from(opts: &mut Options, file: &[u8]) -> Result<(), String> {
    match std::fs::read(std::ffi::OsStr::from_bytes(file)) {
        Ok(text) => {
            opts.excludes.add_lines(&text);
            Ok(())
        }
        Err(e) => Err(format!(
            "{}: {}",
            String::from_utf8_lossy(file),
            msg::describe(&e)
        )),
    }
}

/// The arguments named by `--files0-from=FROM` (`-`: standard input),
/// NUL-separated, with GNU du's message for each it refuses (an empty
/// name, `-` read from standard input); `Err` with the message if FROM
/// cannot be read.
pub fn files0(from: &[u8]) -> Result<(Vec<Vec<u8>>, Vec<String>), String> {
    let text = files0::read_list(from).map_err(|e| {
        String::from_utf8_lossy(&files0::cannot_open(&msg::quote(from), &msg::describe(&e)))
            .into_owned()
    })?;
    let (mut files, mut refused) = (Vec::new(), Vec::new());
    for name in files0::names(&text, from) {
        match name {
            Files0Name::File(f) => files.push(f.to_vec()),
            Files0Name::Refused(r) => {
                refused.push(String::from_utf8_lossy(&r.message(from)).into_owned())
            }
        }
    }
    Ok((files, refused))
}

fn depth(v: &[u8]) -> Result<usize, String> {
    parse_depth(v).ok_or_else(|| format!("invalid maximum depth '{}'", String::from_utf8_lossy(v)))
}

fn block_size(v: &[u8]) -> Result<Units, String> {
    parse_block_size(v).map_err(|_| {
        format!(
            "invalid --block-size argument '{}'",
            String::from_utf8_lossy(v)
        )
    })
}

fn threshold(v: &[u8]) -> Result<i64, String> {
    parse_threshold(v).map_err(|_| {
        format!(
            "invalid --threshold argument '{}'",
            String::from_utf8_lossy(v)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<Vec<u8>> {
        a.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn short_options_combine_and_take_values() {
        let p = parse(&args(&["-ahd2", "x", "-B", "1M", "y"])).unwrap();
        assert!(p.opts.all);
        assert_eq!(p.opts.max_depth, 2);
        assert_eq!(p.opts.units.block, 1 << 20);
        assert_eq!(p.files, args(&["x", "y"]));
        let p = parse(&args(&["-sb", "--exclude=*.o"])).unwrap();
        assert_eq!(p.opts.max_depth, 0);
        assert!(p.opts.apparent);
        assert_eq!(p.files, args(&["."]));
        assert!(parse(&args(&["-q"])).is_err());
        assert!(parse(&args(&["-sa"])).is_err());
    }

    #[test]
    fn time_and_export_options() {
        let p = parse(&args(&[
            "--time=ctime",
            "--time-style=+%s",
            "-ox.json",
            "d",
        ]))
        .unwrap();
        assert_eq!(p.opts.time, Some(TimeKind::Change));
        assert!(p.time_format.is_some() && p.opts.export);
        assert_eq!(p.export.as_deref(), Some(&b"x.json"[..]));
        assert_eq!(
            parse(&args(&["--time", "d"])).unwrap().opts.time,
            Some(TimeKind::Modification)
        );
        // A style is read only with --time, as GNU's.
        assert!(parse(&args(&["--time-style=bogus", "d"]))
            .unwrap()
            .time_format
            .is_none());
        let e = parse(&args(&["--time=x"])).err().unwrap();
        assert!(
            e.starts_with("invalid argument 'x' for '--time'\nValid arguments are:"),
            "{e}"
        );
        let e = parse(&args(&["--export=x", "a", "b"])).err().unwrap();
        assert_eq!(e, "--export takes exactly one FILE argument");
    }
}
