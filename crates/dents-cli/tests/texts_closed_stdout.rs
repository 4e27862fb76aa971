//! `--help` and `--version` of each GNU drop-in, with standard output
//! closed (`>&-`) or full (`/dev/full`): GNU's `write error` message,
//! spelt with `dents:`, and GNU's exit status (du and find 1, ls 2), as
//! the GNU program run the same way gives them.  Before, du and ls wrote
//! to the `/dev/null` Rust's runtime puts on a descriptor closed at start
//! and said nothing, with status 0.

use std::process::Command;

/// What a shell line `exec PROGRAM ARGS REDIRECT` said and its status.
fn run(program: &str, args: &[&str], redirect: &str) -> (String, Option<i32>) {
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("exec \"$0\" \"$@\" {redirect}"))
        .arg(program)
        .args(args)
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code(),
    )
}

/// `dents CMD OPTION` against GNU's `CMD OPTION`, output closed and full.
fn check((cmd, option): (&str, &str)) {
    for (redirect, cause) in [
        (">&-", "Bad file descriptor"),
        (">/dev/full", "No space left on device"),
    ] {
        let (gnu_said, gnu_status) = run(cmd, &[option], redirect);
        assert_eq!(
            gnu_said,
            format!("{cmd}: write error: {cause}\n"),
            "GNU {cmd} {option} {redirect}"
        );
        let dents = run(env!("CARGO_BIN_EXE_dents"), &[cmd, option], redirect);
        assert_eq!(
            dents,
            (format!("dents: write error: {cause}\n"), gnu_status),
            "dents {cmd} {option} {redirect}"
        );
    }
}

dents_testfs::test_cases! {
    /// Each drop-in's texts asked for, to an output that cannot take them.
    mod texts: (&'static str, &'static str) => check;
    du_help: ("du", "--help"),
    du_version: ("du", "--version"),
    ls_help: ("ls", "--help"),
    ls_version: ("ls", "--version"),
    find_help: ("find", "--help"),
    find_version: ("find", "--version"),
}

/// `dents CMD --help` of a command of dents's own (no GNU program to ask):
/// the same message, with the command's status for trouble (2).  Before,
/// `dents diff --help` ended with 2 and said nothing.
fn check_own(cmd: &str) {
    for (redirect, cause) in [
        (">&-", "Bad file descriptor"),
        (">/dev/full", "No space left on device"),
    ] {
        let dents = run(env!("CARGO_BIN_EXE_dents"), &[cmd, "--help"], redirect);
        assert_eq!(
            dents,
            (format!("dents: write error: {cause}\n"), Some(2)),
            "dents {cmd} --help {redirect}"
        );
    }
}

dents_testfs::test_cases! {
    /// The help of dents's own commands, to an output that cannot take it.
    mod own: &'static str => check_own;
    diff_help: "diff",
    scan_help: "scan",
}
