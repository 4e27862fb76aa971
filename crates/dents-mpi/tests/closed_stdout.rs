//! `dents-mpi scan` and `du` where standard output is closed: the help
//! (the only thing scan writes there) and du's help and version fail as GNU's `close_stdout` and `dents
//! scan` fail (`write error: Bad file descriptor`, a failure status)
//! rather than going silently to the `/dev/null` Rust's runtime put on
//! the closed descriptor.
//!
//! Run as one process, without mpirun (an MPI singleton): under mpirun a
//! rank's standard output is a pipe to mpirun, whose own closed output
//! the rank cannot see.

mod common;

use std::process::Command;

use common::{mpirun, run};

/// `dents-mpi ARGS >&-`, one process.
fn closed_stdout(args: &[&str]) -> common::Run {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(r#"exec "$0" "$@" >&-"#)
        .arg(env!("CARGO_BIN_EXE_dents-mpi"))
        .args(args)
        .current_dir(dir.path())
        .env("LC_ALL", "C")
        .env("OMPI_MCA_orte_tmpdir_base", dir.path());
    run(&mut c)
}

#[test]
fn scan_help_to_a_closed_stdout_says_write_error() {
    if mpirun().is_none() {
        return;
    }
    let r = closed_stdout(&["scan", "--help"]);
    assert_eq!(r.stderr, "dents-mpi: write error: Bad file descriptor\n");
    assert_eq!(r.status, 2, "as `dents scan --help >&-`");
}

#[test]
fn scan_help_to_an_open_stdout_succeeds() {
    if mpirun().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let r = run(Command::new(env!("CARGO_BIN_EXE_dents-mpi"))
        .args(["scan", "--help"])
        .current_dir(dir.path())
        .env("LC_ALL", "C")
        .env("OMPI_MCA_orte_tmpdir_base", dir.path()));
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with(b"Usage: mpirun -np N dents-mpi scan"));
}

/// `dents-mpi du --help` or `--version` to a closed output: GNU du's
/// message and status.
fn check_du_text(option: &str) {
    if mpirun().is_none() {
        return;
    }
    let r = closed_stdout(&["du", option]);
    assert_eq!(r.stderr, "du: write error: Bad file descriptor\n");
    assert_eq!(r.status, 1, "as GNU `du {option} >&-`");
}

dents_testfs::test_cases! {
    /// du's texts asked for, to a closed output.
    mod du_text_to_a_closed_stdout: &str => check_du_text;
    help: "--help",
    version: "--version",
}
