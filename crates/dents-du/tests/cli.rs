//! `dents_du::main`, the command line as a library call: argv in, exit
//! status out, nothing exiting the process.  What it prints is tested
//! through the `dents` executable (dents-cli's `tests/du*.rs`); here, what
//! only a caller of the library meets: `--from` without a reader of
//! snapshots.

use std::ffi::OsString;

fn argv(words: &[&str]) -> Vec<OsString> {
    words.iter().map(OsString::from).collect()
}

#[test]
fn main_runs_and_returns_the_status() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), b"x").unwrap();
    let d = dir.path().to_str().unwrap();
    assert_eq!(dents_du::main(&argv(&["du", "-s", d])), 0);
    assert_eq!(dents_du::main(&argv(&["du", "--no-such-option"])), 1);
}

#[test]
fn main_refuses_from_without_a_reader_of_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    assert_eq!(dents_du::main(&argv(&["du", "--from", "s.parquet", d])), 1);
}

#[test]
fn main_with_snapshots_hands_from_to_the_reader_with_du_s_options() {
    fn reader(
        snapshot: &[u8],
        opts: &dents_du::Options,
        files: &[Vec<u8>],
        console: &dents_du::cli::Console,
    ) -> i32 {
        assert_eq!(snapshot, b"s.parquet");
        assert_eq!(opts.max_depth, 0, "-s read by du's parser");
        assert!(opts.apparent, "-b read by du's parser");
        assert_eq!(files, [b"a".to_vec()]);
        assert_eq!(console.status(), 0);
        console.raise(1);
        console.status() + 2
    }
    let args = argv(&["du", "-sb", "--from=s.parquet", "a"]);
    assert_eq!(dents_du::main_with_snapshots(&args, reader), 3);
}
