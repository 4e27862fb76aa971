//! `dents-mpi find` on a directory that is readable but not searchable
//! (mode 666), as an unprivileged user, at 1 to 4 ranks: GNU find lists
//! its entries (read without a stat) and says it cannot enter the
//! subdirectory.  At 2 ranks and more the subdirectory was spilled as a
//! work item whose start, resolved by path, failed: it was never
//! printed, only the message.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use common::{run, sorted};

#[test]
fn subdirectory_of_an_unsearchable_directory_is_listed() {
    let Some(_) = common::mpirun() else { return };
    if !dents_testfs::needs_root("switches to nobody with setpriv") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::set_permissions(root, fs::Permissions::from_mode(0o755)).unwrap();
    for d in ["mx/d/sub/deeper", "mx/e/f", "mx/g"] {
        fs::create_dir_all(root.join(d)).unwrap();
    }
    fs::write(root.join("mx/d/file"), b"x").unwrap();
    fs::write(root.join("mx/e/f/file"), b"x").unwrap();
    fs::set_permissions(root.join("mx/d"), fs::Permissions::from_mode(0o666)).unwrap();
    let mut g = Command::new("find");
    g.arg("mx").current_dir(root).env("LC_ALL", "C");
    let want = common::as_nobody(g);
    assert_eq!(want.status, 1, "GNU find: {}", want.stderr);
    for np in 1..=4 {
        for round in 0..5 {
            let mut c = common::mpi_cmd(np, root);
            c.args(["find", "mx"]);
            let got = common::as_nobody(c);
            let what = format!("-np {np}, run {round}");
            assert_eq!(got.status, 1, "{what}: {}", got.stderr);
            let text = |v: Vec<Vec<u8>>| -> Vec<String> {
                v.iter()
                    .map(|l| String::from_utf8_lossy(l).into_owned())
                    .collect()
            };
            assert_eq!(
                text(sorted(&got.stdout, &[])),
                text(sorted(&want.stdout, &[])),
                "{what}"
            );
            // `dents:` where GNU says `find:`; mpirun adds its own report.
            let mut msgs: Vec<&str> = got
                .stderr
                .lines()
                .filter_map(|l| l.strip_prefix("dents: "))
                .collect();
            msgs.sort();
            let mut gnu: Vec<&str> = want
                .stderr
                .lines()
                .filter_map(|l| l.strip_prefix("find: "))
                .collect();
            gnu.sort();
            assert_eq!(msgs, gnu, "messages at {what}");
        }
    }
    let _ = run(Command::new("chmod").arg("755").arg(root.join("mx/d")));
}
