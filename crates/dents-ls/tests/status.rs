//! Each run of [`dents_ls::main`] keeps its own exit status: a program
//! that lists several times (or on several threads at once) gets each
//! listing's own answer, not the worst of every listing so far.

use std::ffi::OsString;
use std::path::Path;

/// `dents_ls::main` on `path` (`ls -d`: nothing is printed for a
/// directory that exists but its name).
fn list(path: &Path) -> i32 {
    let argv: Vec<OsString> = vec!["ls".into(), "-d".into(), path.into()];
    dents_ls::main(&argv)
}

#[test]
fn a_listing_after_a_failed_one_starts_from_status_zero() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    assert_eq!(list(&missing), 2, "a missing operand is a serious problem");
    assert_eq!(
        list(tmp.path()),
        0,
        "the second listing saw the first's status"
    );
}

#[test]
fn listings_on_eight_threads_keep_their_own_status() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..8)
            .map(|i| {
                let path = if i % 2 == 0 { tmp.path() } else { &missing };
                (
                    i,
                    s.spawn(move || (0..20).map(|_| list(path)).collect::<Vec<_>>()),
                )
            })
            .collect();
        for (i, run) in runs {
            let want = if i % 2 == 0 { 0 } else { 2 };
            let got = run.join().unwrap();
            assert!(got.iter().all(|&c| c == want), "thread {i}: {got:?}");
        }
    });
}
