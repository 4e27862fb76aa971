//! Two du commands in one process at once (`dents_du::main_to`): each
//! gets its own output, its own messages and its own exit status, and
//! each one's are GNU du's, whatever the other meets at the same time.
//!
//! One command meets a directory it cannot read, which needs a user who
//! cannot read it: as root, the test runs this binary again as nobody
//! (`setpriv`), whose child half does the work.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use dents_testfs::cli::have_program;
use dents_testfs::{at_once, is_root, skip, Gathered};

/// What a command wrote and its exit status.
#[derive(Debug, PartialEq)]
struct Ran {
    /// Its output's lines, sorted (du's siblings may come in another
    /// order than GNU's).
    lines: Vec<Vec<u8>>,
    /// Its messages, as written, `du:` spelt `dents:`.
    err: Vec<u8>,
    status: i32,
}

fn sorted_lines(out: &[u8]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = out
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    v.sort();
    v
}

/// GNU du with `args`, in the C locale.
fn gnu(args: &[String]) -> Ran {
    let o = Command::new("du")
        .args(args)
        .env("LC_ALL", "C")
        .output()
        .expect("GNU du runs");
    let err = String::from_utf8_lossy(&o.stderr).replace("du: ", "dents: ");
    Ran {
        lines: sorted_lines(&o.stdout),
        err: err.into_bytes(),
        status: o.status.code().unwrap_or(-1),
    }
}

/// `dents_du::main_to` with `args`, into writers of its own.
fn dents(args: &[String]) -> Ran {
    let mut argv = vec![OsString::from("du")];
    argv.extend(args.iter().map(OsString::from));
    let (out, err) = (Gathered::default(), Gathered::default());
    let status = dents_du::main_to(&argv, out.clone(), err.clone());
    Ran {
        lines: sorted_lines(&out.bytes()),
        err: err.bytes(),
        status,
    }
}

/// A small tree: nested directories and files of a few sizes.
fn tree(root: &Path) {
    for d in 0..4 {
        let sub = root.join(format!("d{d}/e{}", d % 2));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..8 {
            std::fs::write(sub.join(format!("f{f}")), vec![b'x'; 1000 * f + d]).unwrap();
        }
    }
}

/// Runs `du -s` on the tree `a` and `du -a --inodes` on the tree `b`
/// (whose `d1/e1` cannot be read) on two threads at once, a few rounds:
/// each must give GNU du's lines, messages and status (0 and 1).
fn check_two_at_once(a: &Path, b: &Path) {
    let a_args = vec!["-s".to_string(), a.to_str().unwrap().to_string()];
    let b_args = vec![
        "-a".to_string(),
        "--inodes".to_string(),
        b.to_str().unwrap().to_string(),
    ];
    let want = [gnu(&a_args), gnu(&b_args)];
    assert_eq!(want[0].status, 0, "GNU du -s: {:?}", want[0]);
    assert_eq!(want[1].status, 1, "GNU du -a --inodes: {:?}", want[1]);
    assert!(
        !want[1].err.is_empty(),
        "GNU du says the unreadable directory"
    );
    let commands: Vec<_> = [&a_args, &b_args]
        .into_iter()
        .zip(&want)
        .map(|(args, want)| {
            move || {
                let got = dents(args);
                if got == *want {
                    Vec::new()
                } else {
                    vec![format!("du {args:?}:\n got {got:?}\nwant {want:?}")]
                }
            }
        })
        .collect();
    at_once(5, &commands);
}

#[test]
fn two_commands_on_two_threads() {
    if !have_program("du", "--version") {
        return skip("GNU du is the reference");
    }
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    tree(&a);
    tree(&b);
    let locked = b.join("d1/e1");
    // Searchable by anyone, so that an unprivileged child can walk it.
    let open = std::fs::Permissions::from_mode(0o755);
    std::fs::set_permissions(tmp.path(), open.clone()).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if is_root() {
        // Root reads every directory: the commands run as nobody instead.
        if !have_program("setpriv", "--version") {
            return skip("setpriv (util-linux) runs the commands as nobody");
        }
        let out = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(std::env::current_exe().unwrap())
            .args(["child_two_commands", "--exact", "--ignored", "--nocapture"])
            .args(["--test-threads=1"])
            .env("DENTS_DU_CHILD", tmp.path())
            .output()
            .expect("setpriv runs the child");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("checked two commands"),
            "child failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    } else {
        check_two_at_once(&a, &b);
    }
    std::fs::set_permissions(&locked, open).unwrap();
}

/// The child half of `two_commands_on_two_threads`, run as nobody when
/// the tests run as root.
#[test]
#[ignore = "a child process of two_commands_on_two_threads, run by it"]
fn child_two_commands() {
    let dir = std::env::var_os("DENTS_DU_CHILD").expect("run by two_commands_on_two_threads");
    let dir = Path::new(&dir);
    check_two_at_once(&dir.join("a"), &dir.join("b"));
    println!("checked two commands");
}
