//! An error met before the walk starts, on one rank only: every rank ends,
//! with an error status, at any number of ranks.  (`--output` is opened
//! by rank 0 alone; when that failed, rank 0 said so and ended while the
//! other ranks waited for it in the walk's first collective call, and
//! the job never ended.)

mod common;

use std::process::Command;

use common::{mpi_cmd, run};

/// How long a job that should end at once may take before it counts as
/// hung (mpirun's start on a loaded machine takes a few seconds).
const HANG: &str = "60";

/// `mpirun -np NP dents-mpi ARGS` under `timeout`: status 124 means hung.
fn run_bounded(np: usize, args: &[&str]) -> common::Run {
    let dir = tempfile::tempdir().unwrap();
    let inner = mpi_cmd(np, dir.path());
    let mut c = Command::new("timeout");
    c.args(["-k", "5", HANG])
        .arg(inner.get_program())
        .args(inner.get_args())
        .current_dir(dir.path())
        .env("LC_ALL", "C");
    common::copy_env(&inner, &mut c);
    c.args(args);
    run(&mut c)
}

/// Ends at every -np with status 2 and rank 0's message, once.
fn assert_ends_with_error(args: &[&str]) {
    let Some(_) = common::mpirun() else { return };
    for np in 1..=4 {
        let got = run_bounded(np, args);
        assert_ne!(got.status, 124, "dents-mpi {args:?} at -np {np} hung");
        assert_eq!(
            got.status, 2,
            "status of dents-mpi {args:?} at -np {np}: {}",
            got.stderr
        );
        let said: Vec<&str> = got
            .stderr
            .lines()
            .filter(|l| l.starts_with("dents-mpi: /nonexistent/x: "))
            .collect();
        assert_eq!(
            said,
            ["dents-mpi: /nonexistent/x: No such file or directory"],
            "messages of dents-mpi {args:?} at -np {np}: {}",
            got.stderr
        );
    }
}

#[test]
fn output_file_that_cannot_be_made_ends_du_on_every_rank() {
    assert_ends_with_error(&["--output=/nonexistent/x", "du", "-s", "/etc"]);
}

#[test]
fn output_file_that_cannot_be_made_ends_find_on_every_rank() {
    assert_ends_with_error(&["--output=/nonexistent/x", "find", "/etc", "-name", "x"]);
}

/// `du --from` (the shared parser's) is refused on every rank, with one
/// message, rather than answered from the live tree.
#[test]
fn du_from_a_snapshot_is_refused_on_every_rank() {
    let Some(_) = common::mpirun() else { return };
    for np in 1..=4 {
        let got = run_bounded(np, &["du", "--from=s.parquet", "-s", "."]);
        assert_ne!(got.status, 124, "dents-mpi du --from at -np {np} hung");
        assert_eq!(got.status, 1, "-np {np}: {}", got.stderr);
        let said: Vec<&str> = got
            .stderr
            .lines()
            .filter(|l| l.starts_with("du: --from"))
            .collect();
        assert_eq!(said.len(), 1, "-np {np}: {}", got.stderr);
        assert!(got.stdout.is_empty(), "-np {np}: walked the tree");
    }
}
