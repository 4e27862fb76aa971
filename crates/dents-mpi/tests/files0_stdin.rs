//! `find -files0-from -` at 1 to 4 ranks: mpirun gives its standard
//! input to rank 0 only; the other ranks, reading none, ran fewer walks
//! than rank 0 and the job never ended at `-np 2` and more.  Now every
//! rank walks rank 0's list: GNU find's lines, messages and status.
//! `du -X -` likewise: every rank excludes rank 0's patterns.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{mpi_cmd, sorted};

/// Runs `cmd` under `timeout` with `input` on its standard input.
fn run_with_input(cmd: &Command, input: &[u8]) -> common::Run {
    let mut c = Command::new("timeout");
    c.args(["-k", "5", "60"])
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    common::copy_env(cmd, &mut c);
    if let Some(d) = cmd.get_current_dir() {
        c.current_dir(d);
    }
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    common::Run {
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code().unwrap_or(-1),
    }
}

#[test]
fn starting_points_from_standard_input_on_every_rank() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    common::build_tree(tmp.path());
    let input = b"d1\0d2\0missing\0d4\0";
    let mut g = Command::new("find");
    g.args(["-files0-from", "-", "-name", "f1*"])
        .current_dir(tmp.path());
    let want = run_with_input(&g, input);
    for np in 1..=4 {
        let mut c = mpi_cmd(np, tmp.path());
        c.args(["find", "-files0-from", "-", "-name", "f1*"]);
        let got = run_with_input(&c, input);
        assert_ne!(got.status, 124, "-np {np} hung");
        assert_eq!(got.status, want.status, "-np {np}: {}", got.stderr);
        assert_eq!(
            sorted(&got.stdout, &[]),
            sorted(&want.stdout, &[]),
            "-np {np}"
        );
        let said = |s: &str, p: &str| -> Vec<String> {
            let mut v: Vec<String> = s
                .lines()
                .filter_map(|l| l.strip_prefix(p))
                .map(str::to_string)
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            said(&got.stderr, "dents: "),
            said(&want.stderr, "find: "),
            "messages at -np {np}"
        );
    }
}

/// `du -X -` at 1 to 4 ranks: the patterns (CRLF lines, a blank line)
/// are rank 0's standard input, and every rank excludes them: GNU du's
/// lines and status.
#[test]
fn du_exclude_patterns_from_standard_input_on_every_rank() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    common::build_tree(tmp.path());
    let input = b"f1*\r\n\n  \nsub 2\r\n";
    let args = ["-a", "-X", "-", "."];
    let mut g = Command::new("du");
    g.args(args).current_dir(tmp.path());
    let want = run_with_input(&g, input);
    assert_eq!(want.status, 0, "{}", want.stderr);
    for np in 1..=4 {
        let mut c = mpi_cmd(np, tmp.path());
        c.arg("du").args(args);
        let got = run_with_input(&c, input);
        assert_ne!(got.status, 124, "-np {np} hung");
        assert_eq!(got.status, want.status, "-np {np}: {}", got.stderr);
        assert_eq!(
            sorted(&got.stdout, &[]),
            sorted(&want.stdout, &[]),
            "-np {np}"
        );
    }
}
