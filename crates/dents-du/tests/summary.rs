//! `dents_du::summary::summarize` against GNU du on real trees: each
//! argument's bytes and inodes as `du -s` prints them, hard links shared
//! between arguments counted once (in the first), problems as values in
//! GNU's words.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

use dents_du::summary::{summarize, ProblemKind};
use dents_du::Options;

/// Two trees sharing hard links, with files of assorted sizes.
fn trees(root: &Path) {
    for t in ["a", "b"] {
        fs::create_dir_all(root.join(t).join("sub/deeper")).unwrap();
    }
    for i in 0..200 {
        let dir = if i % 3 == 0 { "a/sub" } else { "a/sub/deeper" };
        fs::write(root.join(dir).join(format!("f{i}")), vec![b'x'; i * 97]).unwrap();
    }
    fs::write(root.join("b/own"), vec![b'y'; 70_000]).unwrap();
    for i in (0..200).step_by(7) {
        let dir = if i % 3 == 0 { "a/sub" } else { "a/sub/deeper" };
        fs::hard_link(
            root.join(dir).join(format!("f{i}")),
            root.join(format!("b/l{i}")),
        )
        .unwrap();
    }
}

/// GNU du's numbers, one per line: `du -s OPTS ARGS` in `cwd`.
fn gnu(cwd: &Path, opts: &[&str], args: &[&str]) -> Vec<u64> {
    let out = Command::new("du")
        .current_dir(cwd)
        .env("LC_ALL", "C")
        .arg("-s")
        .args(opts)
        .args(args)
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split('\t').next().unwrap().parse().unwrap())
        .collect()
}

/// `summarize` with `opts` against GNU du with `gnu_opts` (inodes or bytes).
fn like_gnu((opts, gnu_opts, inodes): (fn() -> Options, &[&str], bool)) {
    let opts = opts();
    let tmp = tempfile::tempdir().unwrap();
    trees(tmp.path());
    let args = ["a", "b", "a/sub"];
    let paths: Vec<Vec<u8>> = args
        .iter()
        .map(|a| tmp.path().join(a).as_os_str().as_bytes().to_vec())
        .collect();
    let got = summarize(&paths, &opts);
    assert!(got.ok(), "problems: {:?}", got.problems);
    let numbers: Vec<u64> = got
        .summaries
        .iter()
        .map(|s| if inodes { s.inodes } else { s.bytes })
        .collect();
    // GNU du -s a b a/sub: a/sub was counted in a, so GNU prints no line
    // for it; the plain call gives it a summary of nothing.
    let mut want = gnu(tmp.path(), gnu_opts, &args);
    if !gnu_opts.contains(&"-l") {
        assert_eq!(want.len(), 2, "GNU printed a line for a/sub: {want:?}");
        want.push(0);
    }
    assert_eq!(
        numbers, want,
        "summaries of {args:?} against du -s {gnu_opts:?}"
    );
    assert_eq!(got.summaries[0].path, paths[0]);
}

/// du's defaults.
fn plain() -> Options {
    Options::default()
}

/// `--apparent-size`.
fn apparent() -> Options {
    Options {
        apparent: true,
        ..Options::default()
    }
}

/// `-l`.
fn count_links() -> Options {
    Options {
        count_links: true,
        ..Options::default()
    }
}

/// One worker.
fn one_thread() -> Options {
    Options {
        threads: 1,
        ..Options::default()
    }
}

dents_testfs::test_cases! {
    /// One test per option set: the plain call's sums against GNU du -s.
    mod sums: (fn() -> dents_du::Options, &[&str], bool) => like_gnu;
    disk_usage: (super::plain, &["-B1"], false),
    apparent: (super::apparent, &["-b"], false),
    inodes: (super::plain, &["--inodes"], true),
    links_counted_each_time: (super::count_links, &["-B1", "-l"], false),
    one_thread: (super::one_thread, &["-B1"], false),
}

#[test]
fn a_missing_argument_is_a_problem_in_gnus_words_and_the_others_are_summed() {
    let tmp = tempfile::tempdir().unwrap();
    trees(tmp.path());
    let missing = tmp.path().join("missing");
    let a = tmp.path().join("a");
    let got = summarize(
        &[missing.as_os_str().as_bytes(), a.as_os_str().as_bytes()],
        &Options::default(),
    );
    assert!(!got.ok());
    assert_eq!(got.problems.len(), 1, "{:?}", got.problems);
    let p = &got.problems[0];
    assert_eq!(p.kind, ProblemKind::CannotAccess);
    assert_eq!(p.path, missing.as_os_str().as_bytes());
    let out = Command::new("du")
        .env("LC_ALL", "C")
        .arg("-s")
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(format!("du: {p}\n"), String::from_utf8(out.stderr).unwrap());
    assert_eq!(got.summaries[0].bytes, 0);
    assert_eq!(got.summaries[1].bytes, gnu(tmp.path(), &["-B1"], &["a"])[0]);
}

#[test]
fn the_latest_time_is_the_newest_files() {
    let tmp = tempfile::tempdir().unwrap();
    trees(tmp.path());
    let newest = tmp.path().join("a/sub/deeper/f1");
    let t = std::time::UNIX_EPOCH + std::time::Duration::new(4_000_000_000, 123_456_789);
    fs::File::options()
        .write(true)
        .open(&newest)
        .unwrap()
        .set_modified(t)
        .unwrap();
    let opts = Options {
        time: Some(dents_du::TimeKind::Modification),
        ..Default::default()
    };
    let a = tmp.path().join("a");
    let got = summarize(&[a.as_os_str().as_bytes()], &opts);
    assert_eq!(got.summaries[0].latest, Some((4_000_000_000, 123_456_789)));
    let without = summarize(&[a.as_os_str().as_bytes()], &Options::default());
    assert_eq!(without.summaries[0].latest, None);
}
