//! `dents scan`: a snapshot of trees in Parquet (the dents-snap crate),
//! with GNU-style messages for what cannot be read (each also recorded in
//! the snapshot) and exit status 1 after any.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use dents::Follow;
use dents_snap::ScanOptions;

use crate::errors;

const HELP: &str = "\
Usage: dents scan [OPTION]... [--since=OLD] -o SNAPSHOT [PATH]...
Write a snapshot of the trees under each PATH (the current directory by
default) to SNAPSHOT, a Parquet file: one row per entry, with its path
(exact bytes), name, depth, type, size, blocks, mode, owner, group, links,
inode, device, times (ns) and symlink target (docs/snapshot.md).

  -o, --output=SNAPSHOT  the file to write (replaced only once complete)
  -j, --threads=N        walk on N threads
  -x, --one-file-system  skip directories on other file systems
  -H                     follow symbolic links given as PATHs
  -L                     follow all symbolic links
      --names-only       keep names, types, inodes and directories' times
      --since=OLD        refresh: take from the snapshot OLD the entries of
                           each directory unchanged since (its device,
                           inode and times), reading only the others; the
                           result is what a full scan would write
      --help             display this help and exit

Exit status: 0 if every entry was read, 1 if some could not be (they are
listed in the snapshot's record), 2 if no snapshot was written.
";

/// Runs `dents scan ARGS` (`args[0]` is "scan"); the exit status.
pub fn main(args: &[OsString]) -> i32 {
    let mut opts = ScanOptions::default();
    let mut output: Option<OsString> = None;
    let mut roots: Vec<Vec<u8>> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    let mut it = args.iter().skip(1);
    let mut only_paths = false;
    while let Some(a) = it.next() {
        let b = a.as_bytes();
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
        let mut value = |name: &str| -> Option<Vec<u8>> {
            match inline {
                Some(v) => Some(v.to_vec()),
                None => match it.next() {
                    Some(v) => Some(v.as_bytes().to_vec()),
                    None => {
                        usage_error(&if name.len() > 1 {
                            format!("option '--{name}' requires an argument")
                        } else {
                            format!("option requires an argument -- '{name}'")
                        });
                        None
                    }
                },
            }
        };
        match opt {
            b"--" => only_paths = true,
            b"-o" | b"--output" => match value("o") {
                Some(v) => output = Some(OsString::from(std::ffi::OsStr::from_bytes(&v))),
                None => return errors::SERIOUS,
            },
            b"-j" | b"--threads" => {
                let Some(v) = value("j") else {
                    return errors::SERIOUS;
                };
                match std::str::from_utf8(&v)
                    .ok()
                    .and_then(|s| s.parse::<usize>().ok())
                {
                    Some(n) if n > 0 => {
                        opts.threads = n;
                        texts.push(format!("-j {n}"));
                    }
                    _ => {
                        return usage_error(&format!(
                            "invalid number of threads: '{}'",
                            String::from_utf8_lossy(&v)
                        ))
                    }
                }
            }
            b"-x" | b"--one-file-system" => {
                opts.same_file_system = true;
                texts.push("-x".into());
            }
            b"-H" => {
                opts.follow = Follow::Roots;
                texts.push("-H".into());
            }
            b"-L" => {
                opts.follow = Follow::Always;
                texts.push("-L".into());
            }
            b"--since" => match value("since") {
                Some(v) => opts.since = Some(std::ffi::OsStr::from_bytes(&v).into()),
                None => return errors::SERIOUS,
            },
            b"--names-only" => {
                opts.names_only = true;
                texts.push("--names-only".into());
            }
            b"--help" => return dents_tools::texts::print_text(HELP, b"dents: ", errors::SERIOUS),
            _ => {
                return usage_error(&format!(
                    "unrecognized option '{}'",
                    String::from_utf8_lossy(b)
                ));
            }
        }
    }
    let Some(output) = output else {
        return usage_error("no snapshot named: give -o SNAPSHOT");
    };
    if roots.is_empty() {
        roots.push(b".".to_vec());
    }
    opts.options_text = texts.join(" ");
    let mut status = 0;
    let result = dents_snap::scan(&roots, &opts, Path::new(&output), |p| {
        say(&p.message());
        status = 1;
    });
    match result {
        Ok(summary) => {
            if let (Some(why), Some(old)) = (&summary.not_reused, &opts.since) {
                let mut m = b"cannot reuse ".to_vec();
                let named = why.named(old.as_os_str().as_bytes());
                dents_tools::quote::for_message(&mut m, named);
                m.extend_from_slice(format!(": {}; every directory read", why.why).as_bytes());
                say(&m);
            }
            status
        }
        Err(e) => {
            say(format!("cannot write snapshot: {e}").as_bytes());
            errors::SERIOUS
        }
    }
}

/// `dents: TEXT` on stderr.
fn say(text: &[u8]) {
    let mut m = b"dents: ".to_vec();
    m.extend_from_slice(text);
    m.push(b'\n');
    errors::write_stderr(&m);
}

/// A usage error: the message, the hint, status 2.
fn usage_error(text: &str) -> i32 {
    say(text.as_bytes());
    errors::write_stderr(b"Try 'dents scan --help' for more information.\n");
    errors::SERIOUS
}
