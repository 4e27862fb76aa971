//! `dents diff OLD NEW`: what changed between two snapshots, one line
//! per changed entry as `zfs diff` writes them (the dents-snap crate's
//! `diff`), or with `--growth` the directories ranked by growth.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use dents_snap::diff::{diff_checking, DiffOptions};
use dents_snap::SnapshotReader;

use crate::{errors, output};

const HELP: &str = "\
Usage: dents diff [OPTION]... OLD NEW
Write one line per entry that differs between the snapshots OLD and NEW
(written by 'dents scan'):
  M PATH          type, size, blocks, mode, owner, group, mtime or inode changed
  R OLD -> NEW    moved (the same device and inode)
  - PATH          removed
  + PATH          added
Paths are escaped as zfs diff escapes them: a byte that is not printable
ASCII, a space or a backslash is written \\ooo (octal).

      --growth   instead, every directory whose disk usage changed (all
                 below it, as du counts), largest growth first: BYTES PATH
      --help     display this help and exit

Exit status: 0 if the snapshots are the same, 1 if they differ, 2 on trouble.
";

/// Runs `dents diff ARGS` (`args[0]` is "diff"); the exit status.
pub fn main(args: &[OsString]) -> i32 {
    let mut opts = DiffOptions::default();
    let mut files: Vec<&OsString> = Vec::new();
    let mut only_files = false;
    for a in &args[1..] {
        match a.as_bytes() {
            b"--" if !only_files => only_files = true,
            b"--growth" if !only_files => opts.growth = true,
            b"--help" if !only_files => {
                return dents_tools::texts::print_text(HELP, b"dents: ", errors::SERIOUS)
            }
            b if b.starts_with(b"-") && b.len() > 1 && !only_files => {
                return usage_error(&format!(
                    "unrecognized option '{}'",
                    String::from_utf8_lossy(b)
                ));
            }
            _ => files.push(a),
        }
    }
    let [old, new] = files[..] else {
        return usage_error(if files.len() < 2 {
            "missing operand"
        } else {
            "extra operand"
        });
    };
    let open = |p: &OsString| SnapshotReader::open(Path::new(p));
    let (old, new) = match (open(old), open(new)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => {
            say(&e.to_string());
            return errors::SERIOUS;
        }
    };
    // Closed when the process started: Rust put /dev/null there, and
    // every write must fail as it would have (EBADF), as for ls and find.
    let closed = dents_os::closed_at_start(1);
    let mut out = std::io::BufWriter::with_capacity(output::FLUSH_AT, std::io::stdout().lock());
    let write = |line: &[u8]| {
        if closed {
            return Err(output::ebadf());
        }
        out.write_all(line)
    };
    // The merge's check between lines (sparse changes leave seconds
    // between them): a reader gone ends us now, as the next write would,
    // not at that write.  Polled here, not by a thread of its own: see
    // dents_os::end_if_reader_gone.
    let result =
        diff_checking(&old, &new, opts, write, dents_os::end_if_reader_gone).and_then(|c| {
            out.flush()
                .map_err(|e| dents_snap::Error::Io(Vec::new(), e))?;
            Ok(c)
        });
    match result {
        Ok(c) if c == Default::default() => 0,
        Ok(_) => 1,
        Err(dents_snap::Error::Io(p, e)) if p.is_empty() => {
            say(&format!("write error: {}", errors::describe(&e)));
            errors::SERIOUS
        }
        Err(e) => {
            say(&e.to_string());
            errors::SERIOUS
        }
    }
}

fn say(text: &str) {
    errors::write_stderr(format!("dents: {text}\n").as_bytes());
}

fn usage_error(text: &str) -> i32 {
    say(text);
    errors::write_stderr(b"Try 'dents diff --help' for more information.\n");
    errors::SERIOUS
}
