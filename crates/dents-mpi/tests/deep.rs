//! `dents-mpi` on a tree deeper than `PATH_MAX` (paths of 15,000 bytes),
//! on 1 to 4 ranks, against GNU find and du: every entry once, the same
//! totals, no error.  (At 2 ranks and more, items spilled beyond
//! `PATH_MAX` once failed with "File name too long", and a chain of items
//! each made canonical by `realpath` took minutes.)

mod common;

use std::process::Command;

use common::{run, sorted};

#[test]
fn a_tree_deeper_than_path_max_on_one_to_four_ranks() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    common::build_chain(tmp.path(), 3750);
    // Short lines (depth, name, type) for every entry: the whole paths
    // would be 28 MB.
    let find_args = ["t", "-printf", "%d %f %y\n"];
    let want_find = run(Command::new("find")
        .args(find_args)
        .current_dir(tmp.path())
        .env("LC_ALL", "C"));
    assert_eq!(want_find.status, 0, "{}", want_find.stderr);
    assert_eq!(
        want_find.stdout.iter().filter(|&&b| b == b'\n').count(),
        3758
    );
    let du_cases: [&[&str]; 3] = [&["-s", "t"], &["-s", "--inodes", "t"], &["-s", "-S", "t"]];
    for np in 1..=4 {
        let got = run(common::mpi_cmd(np, tmp.path()).arg("find").args(find_args));
        assert_eq!(
            (got.status, got.stderr.as_str()),
            (0, ""),
            "find at -np {np}"
        );
        assert_eq!(
            sorted(&got.stdout, &[]),
            sorted(&want_find.stdout, &[]),
            "find at -np {np}"
        );
        for args in du_cases {
            let want = common::gnu_du(tmp.path(), args);
            let got = common::mpi_du(np, tmp.path(), args);
            assert_eq!(
                (got.status, got.stderr.as_str(), got.stdout.as_slice()),
                (want.status, want.stderr.as_str(), want.stdout.as_slice()),
                "du {args:?} at -np {np}"
            );
        }
    }
}
