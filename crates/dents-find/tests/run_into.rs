//! `Command::run_into`: a find command's output written into a writer
//! the caller borrows for the run and reads afterwards.

use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A tree of `dirs` directories of 100 files each.
fn tree(root: &Path, dirs: usize) {
    for d in 0..dirs {
        let dir = root.join(format!("d{d}"));
        std::fs::create_dir(&dir).unwrap();
        for f in 0..100 {
            std::fs::write(dir.join(format!("f{f}")), b"").unwrap();
        }
    }
}

/// Lines (records ending with `sep`), sorted.
fn sorted(bytes: &[u8], sep: u8) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = bytes.split(|&b| b == sep).collect();
    v.sort_unstable();
    v
}

#[test]
fn a_borrowed_vec_gets_what_gnu_find_prints() {
    let tmp = tempfile::tempdir().unwrap();
    tree(tmp.path(), 30);
    let args = [tmp.path().as_os_str(), "-name".as_ref(), "f1*".as_ref()];
    let mut found = Vec::new();
    let status = dents_find::Command::parse(args)
        .unwrap()
        .run_into(&mut found)
        .unwrap();
    assert!(status.success());
    let gnu = std::process::Command::new("find")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(sorted(&found, b'\n'), sorted(&gnu.stdout, b'\n'));
    assert_eq!(found.len(), gnu.stdout.len());
}

/// A writer that fails once it has taken `room` bytes.
struct Full {
    room: usize,
    taken: usize,
}

impl Write for Full {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.taken + bytes.len() > self.room {
            return Err(io::Error::from_raw_os_error(28)); // ENOSPC
        }
        self.taken += bytes.len();
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_writer_stops_the_walk_and_its_error_is_returned() {
    let tmp = tempfile::tempdir().unwrap();
    tree(tmp.path(), 300);
    let mut out = Full {
        room: 1000,
        taken: 0,
    };
    let err = dents_find::Command::parse([tmp.path().as_os_str()])
        .unwrap()
        .run_into(&mut out)
        .unwrap_err();
    assert_eq!(err.raw_os_error(), Some(28));
    assert!(out.taken <= 1000);
    // The same command into a Vec: the whole tree.
    let mut all = Vec::new();
    dents_find::Command::parse([tmp.path().as_os_str()])
        .unwrap()
        .run_into(&mut all)
        .unwrap();
    let entries = all.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(entries, 1 + 300 + 300 * 100);
    assert!(all.starts_with(tmp.path().as_os_str().as_bytes()));
}
