//! A panic on one rank (here: the library's reader, made to panic by its
//! `test-knobs` feature when it reads an entry named `dents-test-panic`,
//! on whichever rank's worker walks that directory) ends the whole job
//! with a message and a nonzero status, within a time limit: the other
//! ranks used to wait forever for the panicked rank's part of the
//! termination waves.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{build_tree, mpi_cmd, mpirun, run};

/// How long the job may take before it is taken for deadlocked.
const LIMIT: Duration = Duration::from_secs(120);

/// `timeout`'s status when the limit ran out.
const TIMED_OUT: i32 = 124;

/// A case: the command, its walker's threads.
type Case = (&'static str, usize);

/// Runs `dents-mpi CMD` on 2 ranks over a tree that holds the entry whose
/// read panics; the job must end within [`LIMIT`], with the panic said.
fn the_job_ends((cmd, threads): Case) {
    let Some(_) = mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    build_tree(tmp.path());
    let deep = tmp.path().join("d4/sub 9/deeper/still");
    fs::write(deep.join("dents-test-panic"), b"").unwrap();
    let mut mpi = mpi_cmd(2, tmp.path());
    let j = format!("-j{threads}");
    match cmd {
        "find" => mpi.args(["find", &j, "."]),
        _ => mpi.args(["du", "-j", &threads.to_string(), "."]),
    };
    let r = run(&mut within(&mpi, tmp.path()));
    assert_ne!(
        r.status, TIMED_OUT,
        "{cmd} at {threads} threads: no end within {LIMIT:?} (deadlock)\n{}",
        r.stderr
    );
    assert_ne!(r.status, 0, "{cmd} at {threads} threads: {}", r.stderr);
    assert!(
        r.stderr.contains(
            "internal error: test knob: read an entry named dents-test-panic; ending the job"
        ),
        "{cmd} at {threads} threads: the panic is said: {}",
        r.stderr
    );
}

/// `cmd` under `timeout`, killed past [`LIMIT`].
fn within(cmd: &Command, dir: &Path) -> Command {
    let mut t = Command::new("timeout");
    t.args(["-k", "10", &LIMIT.as_secs().to_string()]);
    t.arg(cmd.get_program())
        .args(cmd.get_args())
        .current_dir(dir);
    common::copy_env(cmd, &mut t);
    t
}

dents_testfs::test_cases! {
    /// find's and du's jobs, at 1, 2 and 8 walker threads per rank.
    mod on_two_ranks: super::Case => the_job_ends;
    find_at_1_thread: ("find", 1),
    find_at_2_threads: ("find", 2),
    find_at_8_threads: ("find", 8),
    du_at_1_thread: ("du", 1),
    du_at_2_threads: ("du", 2),
    du_at_8_threads: ("du", 8),
}
