//! `dents-mpi du` with arguments that share hard links or overlap, and
//! with `-L` over symlinked directories: GNU du counts every file and
//! directory once over the whole command, in the arguments' order.
//! Walked together over the ranks, the arguments raced for what they
//! share: `du -s backup.1 backup.2` gave 4/808 or 552/260 where GNU
//! gives 804/8, `du -c T T/A` totals that changed every run, `du -sL T`
//! a symlinked directory counted once per path.  Each case runs at
//! `-np 1..3`, [`REPEAT`] times each (the failures came and went).

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use common::{gnu_du, mpi_du, run, sorted};

/// Runs of each case at each number of ranks.
const REPEAT: usize = 20;

/// `backup.1` (200 files of 4 KiB), `backup.2` its hard-linked copy with
/// one new file (the README's example); `R/deep/d1/e`, `R/deep/d2` and
/// `T/A/x`, `T/B` with three files each; under `T`, `linkA` -> `A`,
/// `A/x/toB` -> `B`, `A/up` -> `A`'s parent (a loop under `-L`),
/// `flink` -> `A/g1`.
fn build(root: &Path) {
    let b1 = root.join("backup.1");
    fs::create_dir(&b1).unwrap();
    for i in 0..200 {
        fs::write(b1.join(format!("f{i}")), vec![b'x'; 4096]).unwrap();
    }
    dents_testfs::cli::run_ok(
        Command::new("cp")
            .args(["-al", "backup.1", "backup.2"])
            .current_dir(root),
    );
    fs::write(root.join("backup.2/new"), b"new\n").unwrap();
    for d in ["R/deep/d1/e", "R/deep/d2", "T/A/x", "T/B"] {
        fs::create_dir_all(root.join(d)).unwrap();
    }
    for d in [
        "R/deep",
        "R/deep/d1",
        "R/deep/d1/e",
        "R/deep/d2",
        "T",
        "T/A",
        "T/A/x",
        "T/B",
    ] {
        for i in 1..=3 {
            fs::write(root.join(d).join(format!("g{i}")), vec![0u8; i * 5000]).unwrap();
        }
    }
    symlink("A", root.join("T/linkA")).unwrap();
    symlink("../../B", root.join("T/A/x/toB")).unwrap();
    symlink("..", root.join("T/A/up")).unwrap();
    symlink("A/g1", root.join("T/flink")).unwrap();
}

/// `du ARGS` at `-np 1..=ranks`, `REPEAT` times each: GNU's status and
/// messages, and its lines (in GNU's order with `-s`, whose lines are
/// the arguments'; sorted otherwise, a directory's lines coming in
/// another order across ranks).
fn assert_like_gnu(args: &[&str], ranks: usize) {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    build(tmp.path());
    let want = gnu_du(tmp.path(), args);
    let exact = args.iter().any(|a| a.starts_with('-') && a.contains('s'));
    for np in 1..=ranks {
        for round in 0..REPEAT {
            let got = mpi_du(np, tmp.path(), args);
            let what = format!("du {args:?} at -np {np}, run {round}");
            assert_eq!(
                got.status, want.status,
                "status of {what}: {:?}",
                got.stderr
            );
            if exact {
                assert_eq!(
                    String::from_utf8_lossy(&got.stdout),
                    String::from_utf8_lossy(&want.stdout),
                    "lines of {what}"
                );
            } else {
                assert_eq!(
                    lines(&got.stdout, args),
                    lines(&want.stdout, args),
                    "lines of {what}"
                );
            }
            let said = |s: &str| -> Vec<String> {
                let mut v: Vec<String> = s
                    .lines()
                    .filter(|l| l.starts_with("du: "))
                    .map(str::to_string)
                    .collect();
                v.sort();
                v
            };
            assert_eq!(said(&got.stderr), said(&want.stderr), "messages of {what}");
        }
    }
}

/// The output's lines, sorted, as text (for the failure message).
fn lines(out: &[u8], args: &[&str]) -> Vec<String> {
    sorted(out, args)
        .iter()
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect()
}

/// Issue 24.2's example at -np 1..4: GNU's 804 and 8.
#[test]
fn hard_links_charged_to_the_first_argument() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    build(tmp.path());
    let args = ["-s", "backup.1", "backup.2"];
    let want = gnu_du(tmp.path(), &args);
    for np in 1..=4 {
        for round in 0..5 {
            let got = mpi_du(np, tmp.path(), &args);
            assert_eq!(
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&want.stdout),
                "du {args:?} at -np {np}, run {round}: {}",
                got.stderr
            );
            assert_eq!(got.status, 0, "{}", got.stderr);
        }
    }
    // And the other way round: backup.2 takes them all.
    let args = ["-s", "backup.2", "backup.1"];
    let want = gnu_du(tmp.path(), &args);
    let got = run(&mut common::mpi_du_cmd(3, tmp.path(), &args));
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(&want.stdout)
    );
}

/// One case: its arguments.
fn check(args: &[&str]) {
    assert_like_gnu(args, 3);
}

dents_testfs::test_cases! {
    /// Overlapping arguments, hard links across arguments, `-L`.
    mod arguments: &[&str] => check;
    backups_summarized: &["-s", "backup.1", "backup.2"],
    backups_every_file: &["-a", "backup.1", "backup.2"],
    inner_after_outer: &["-c", "R/deep", "R/deep/d1"],
    outer_after_inner: &["-c", "R/deep/d1", "R/deep"],
    tree_and_its_child: &["-c", "T", "T/A"],
    child_then_tree: &["-c", "T/A", "T"],
    same_twice: &["-c", "T", "T"],
    file_then_its_tree: &["-a", "-c", "T/A/g1", "T"],
    tree_then_its_file: &["-a", "-c", "T", "T/A/g1"],
    symlinked_dirs_summarized: &["-sL", "T"],
    symlinked_dirs_two_arguments: &["-sL", "T/B", "T"],
    symlinked_dirs_tree_first: &["-sL", "T", "T/B"],
    count_links_counts_again: &["-l", "-c", "backup.1", "backup.2"],
}
