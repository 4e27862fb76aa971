//! `dents scan`: a snapshot of trees in Parquet (the dents-snap crate),
//! with GNU-style messages for what cannot be read (each also recorded in
//! the snapshot) and exit status 1 after any.

use std::ffi::{OsStr, OsString};
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use dents_snap::args::Parsed;

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

/// The soft `RLIMIT_NOFILE` a scan raises itself to, at most: the walk
/// keeps up to about half of it open (the kernel's memory for each open
/// directory, and the table of 16,384 descriptors the walk grows to, stay
/// modest).
const SCAN_DESCRIPTORS: u64 = 16_384;

/// Runs `dents scan ARGS` (`args[0]` is "scan"); the exit status.
pub fn main(args: &[OsString]) -> i32 {
    let a = match dents_snap::args::parse(args.iter().skip(1).map(|a| a.as_bytes())) {
        Ok(Parsed::Scan(a)) => a,
        Ok(Parsed::Help) => {
            return dents_tools::texts::print_text(HELP, b"dents: ", errors::SERIOUS)
        }
        Err(e) => return usage_error(&e.message("SNAPSHOT")),
    };
    let (opts, output) = (a.options, Path::new(OsStr::from_bytes(&a.output)));
    // The scan runs no other program: its sorted walk may keep more
    // directories open than the usual soft limit of 1,024 allows.  The
    // table for them is grown now, while this is the only thread: later,
    // each growth would stall every open of the walk.
    dents_os::raise_descriptor_limit(SCAN_DESCRIPTORS);
    if let Ok(root) = std::fs::File::open("/") {
        dents::fs::grow_descriptor_table(root.as_fd(), SCAN_DESCRIPTORS as usize);
    }
    let mut status = 0;
    let result = dents_snap::scan(&a.roots, &opts, output, |p| {
        say(&p.message());
        status = 1;
    });
    match result {
        Ok(summary) => {
            if let (Some(why), Some(old)) = (&summary.not_reused, &opts.since) {
                let mut m = b"cannot reuse ".to_vec();
                let named = why.named(old.as_os_str().as_bytes());
                dents_tools::quote::for_message(&mut m, named);
                m.extend_from_slice(format!(": {}", why.text()).as_bytes());
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
