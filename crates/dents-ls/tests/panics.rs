//! A panic on one of `ls -R`'s threads (here: the library's reader, made
//! to panic by its `test-knobs` feature when it reads an entry named
//! `dents-test-panic`) ends the run and reaches the caller of
//! [`dents_ls::main`] with its own payload, at any number of threads,
//! within a time limit: the other threads used to wait forever for the
//! panicked thread's block.

use std::ffi::OsString;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// How long `ls -R` of the small tree may take before it is taken for
/// deadlocked.
const LIMIT: Duration = Duration::from_secs(30);

/// 12 directories of 4 subdirectories of 2 files each; one of the deeper
/// directories holds the entry whose read panics.
fn tree(root: &Path) {
    for d in 0..12 {
        for e in 0..4 {
            let dir = root.join(format!("d{d:02}/e{e}"));
            fs::create_dir_all(&dir).unwrap();
            for f in 0..2 {
                fs::write(dir.join(format!("f{f}")), b"").unwrap();
            }
        }
    }
    fs::write(root.join("d09/e2/dents-test-panic"), b"").unwrap();
}

/// A case: `ls`'s options and its threads.
type Case = (&'static [&'static str], usize);

/// Runs `ls -R` over the tree at `threads` threads; the panic must come
/// back within [`LIMIT`].
fn panic_reaches_the_caller((args, threads): Case) {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let mut argv: Vec<OsString> = ["ls", "--threads", &threads.to_string()]
        .iter()
        .chain(args)
        .map(OsString::from)
        .collect();
    argv.push(dir.path().into());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(panic::catch_unwind(AssertUnwindSafe(|| {
            dents_ls::main(&argv)
        })));
    });
    let got = rx.recv_timeout(LIMIT).unwrap_or_else(|_| {
        panic!("ls {args:?} at {threads} threads: no end within {LIMIT:?} (deadlock)")
    });
    let payload = got.expect_err("the reader's panic reached the caller");
    let text = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(
        text.contains("dents-test-panic"),
        "the panic's own payload, not {text:?}"
    );
}

dents_testfs::test_cases! {
    /// `ls -R`'s scheduler, sorted, unsorted and long.
    mod recursive: super::Case => panic_reaches_the_caller;
    at_1_thread: (&["-R"], 1),
    at_2_threads: (&["-R"], 2),
    at_8_threads: (&["-R"], 8),
    unsorted_at_8_threads: (&["-RU"], 8),
    long_at_8_threads: (&["-lR"], 8),
}
