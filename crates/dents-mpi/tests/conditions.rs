//! Issue 24's dents-mpi items under the conditions that break tools: a
//! tree 10,000 levels deep (paths far beyond `PATH_MAX`), a low limit
//! of descriptors on every rank, standard output closed, and an
//! unprivileged user — each at `-np 1..4`, against GNU du and find where
//! GNU is the reference.  The items: an error before the walk ends every
//! rank (24.1); hard links charged to the first argument, in order
//! (24.2); find's listing and messages, a readable but unsearchable
//! directory included (24.3); du's one command line (24.4: abbreviated
//! options, `BLOCKSIZE`).
//!
//! The descriptor limit is 24, not the 9 the walker alone survives:
//! Open MPI's own start-up (its event pipes, the shared-memory and TCP
//! transports, the plugins it opens) fails below about 16 descriptors
//! ("OPAL ERROR: Out of resource"), before dents-mpi runs a line.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use common::{run, sorted, Run};

/// What a run is put through.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Condition {
    /// A chain of [`DEEP_LEVELS`] directories beside the other entries.
    DeepTree,
    /// Every rank under `prlimit --nofile=24`.
    FewDescriptors,
    /// mpirun started with its standard output closed.
    StdoutClosed,
    /// Every rank (and GNU's tool) as nobody.
    Nobody,
}

use Condition::*;

/// Levels of the deep chain (`deep/t/ddd/...`).
const DEEP_LEVELS: usize = 10_000;

/// How long a job may take before it counts as hung.
const HANG: &str = "180";

/// The tree: `backup.1` (30 files of 4 KiB), `backup.2` its hard-linked
/// copy plus one new file, `mx/d` readable but not searchable (mode
/// 666) with a subdirectory, and with [`DeepTree`] the deep chain.
fn tree(cond: Condition) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::set_permissions(root, fs::Permissions::from_mode(0o755)).unwrap();
    let b1 = root.join("backup.1");
    fs::create_dir(&b1).unwrap();
    for i in 0..30 {
        fs::write(b1.join(format!("f{i}")), [b'x'; 4096]).unwrap();
    }
    let cp = Command::new("cp")
        .args(["-al", "backup.1", "backup.2"])
        .current_dir(root)
        .status()
        .unwrap();
    assert!(cp.success());
    fs::write(root.join("backup.2/new"), b"new\n").unwrap();
    for d in ["mx/d/sub", "mx/e"] {
        fs::create_dir_all(root.join(d)).unwrap();
    }
    fs::write(root.join("mx/d/file"), b"x").unwrap();
    fs::set_permissions(root.join("mx/d"), fs::Permissions::from_mode(0o666)).unwrap();
    if cond == DeepTree {
        let deep = root.join("deep");
        fs::create_dir(&deep).unwrap();
        common::build_chain(&deep, DEEP_LEVELS);
    }
    tmp
}

/// The operands for `cond`: the deep chain's directory added when there.
fn with_deep<'a>(cond: Condition, args: &[&'a str]) -> Vec<&'a str> {
    let mut v = args.to_vec();
    if cond == DeepTree {
        v.push("deep");
    }
    v
}

/// `mpirun -np NP dents-mpi ARGS` in `dir` under `cond`, ended after
/// [`HANG`] seconds (status 124) if it has not ended by then.
fn mpi(cond: Condition, np: usize, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let inner = common::mpi_cmd(np, dir);
    let mut argv: Vec<std::ffi::OsString> = vec!["timeout".into(), "-k".into(), "5".into()];
    argv.push(HANG.into());
    argv.push(inner.get_program().to_owned());
    let mut inner_args: Vec<std::ffi::OsString> = inner.get_args().map(|a| a.to_owned()).collect();
    if cond == FewDescriptors {
        // The last of mpirun's own arguments is the program: prlimit
        // goes before it, so that the limit is the ranks'.
        let program = inner_args.pop().unwrap();
        inner_args.extend(["prlimit".into(), "--nofile=24".into(), program]);
    }
    argv.extend(inner_args);
    argv.extend(args.iter().map(|a| a.into()));
    let mut c = if cond == StdoutClosed {
        let mut c = Command::new("sh");
        c.arg("-c").arg("exec \"$0\" \"$@\" >&-").args(&argv);
        c
    } else {
        let mut c = Command::new(&argv[0]);
        c.args(&argv[1..]);
        c
    };
    c.current_dir(dir);
    common::copy_env(&inner, &mut c);
    c.envs(env.iter().copied());
    if cond == Nobody {
        common::as_nobody(c)
    } else {
        run(&mut c)
    }
}

/// GNU's `prog ARGS` in `dir`, as nobody under [`Nobody`].
fn gnu(cond: Condition, prog: &str, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut c = Command::new(prog);
    c.args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .envs(env.iter().copied());
    if cond == Nobody {
        common::as_nobody(c)
    } else {
        run(&mut c)
    }
}

/// The messages of `stderr` that start with `prefix`, without it, sorted
/// (mpirun adds reports of its own).
fn messages<'a>(stderr: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut v: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .collect();
    v.sort();
    v
}

/// Sorted output lines as text, for readable failures.
fn lines(out: &[u8]) -> Vec<String> {
    sorted(out, &[])
        .iter()
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect()
}

/// With standard output closed there is nothing to compare: the job
/// must end, by itself, without a signal.  (Under mpirun a rank's
/// output goes to mpirun, which drops what it cannot write: status 0
/// and no message where GNU says `write error`; docs/conformance.md.)
fn assert_ended(got: &Run, what: &str) {
    assert_ne!(got.status, 124, "{what} hung");
    assert!(
        got.status == 0 || got.status == 1,
        "{what} ended with status {}: {}",
        got.status,
        got.stderr
    );
}

/// The skips every check shares: mpirun and, for [`Nobody`], root.
fn can_run(cond: Condition) -> bool {
    if common::mpirun().is_none() {
        return false;
    }
    cond != Nobody || dents_testfs::needs_root("switches to nobody with setpriv")
}

/// 24.1: `--output` that cannot be made ends every rank with status 2
/// and rank 0's one message.
fn start_error(cond: Condition) {
    if !can_run(cond) {
        return;
    }
    let tmp = tree(cond);
    let args = with_deep(cond, &["--output=/nonexistent/x", "du", "-s", "backup.1"]);
    for np in 1..=4 {
        let got = mpi(cond, np, tmp.path(), &args, &[]);
        let what = format!("{cond:?}: dents-mpi {args:?} at -np {np}");
        assert_ne!(got.status, 124, "{what} hung");
        assert_eq!(got.status, 2, "status of {what}: {}", got.stderr);
        assert_eq!(
            messages(&got.stderr, "dents-mpi: /nonexistent/x: "),
            ["No such file or directory"],
            "messages of {what}: {}",
            got.stderr
        );
    }
}

/// `du ARGS` (with `env`) on a fresh tree for `cond`: GNU's status and
/// lines exactly at every `-np` (only an end without a signal with
/// standard output closed).
fn assert_du_like_gnu(cond: Condition, args: &[&str], env: &[(&str, &str)]) {
    if !can_run(cond) {
        return;
    }
    let tmp = tree(cond);
    let args = with_deep(cond, args);
    let want = gnu(cond, "du", tmp.path(), &args, env);
    assert_eq!(want.status, 0, "GNU du: {}", want.stderr);
    let mpi_args: Vec<&str> = ["du"].iter().chain(&args).copied().collect();
    for np in 1..=4 {
        let got = mpi(cond, np, tmp.path(), &mpi_args, env);
        let what = format!("{cond:?}: {env:?} dents-mpi du {args:?} at -np {np}");
        if cond == StdoutClosed {
            assert_ended(&got, &what);
            continue;
        }
        assert_eq!(got.status, want.status, "status of {what}: {}", got.stderr);
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want.stdout),
            "lines of {what}"
        );
    }
}

/// 24.2: `du -s backup.1 backup.2`: the shared files charged to
/// `backup.1`, GNU's lines exactly.
fn hard_links_in_order(cond: Condition) {
    assert_du_like_gnu(cond, &["-s", "backup.1", "backup.2"], &[]);
}

/// 24.3: `find .`: GNU's entries (the unsearchable directory's names
/// included, as nobody) and its messages.
fn find_like_gnu(cond: Condition) {
    if !can_run(cond) {
        return;
    }
    let tmp = tree(cond);
    // The deep chain's paths would be 50 MB: depth and name suffice.
    let args = ["backup.1", "backup.2", "mx", "-printf", "%d %p\\n"];
    let args: Vec<&str> = if cond == DeepTree {
        ["deep", "backup.2", "mx", "-printf", "%d %f\\n"].to_vec()
    } else {
        args.to_vec()
    };
    let want = gnu(cond, "find", tmp.path(), &args, &[]);
    let mpi_args: Vec<&str> = ["find"].iter().chain(&args).copied().collect();
    for np in 1..=4 {
        let got = mpi(cond, np, tmp.path(), &mpi_args, &[]);
        let what = format!("{cond:?}: dents-mpi find {args:?} at -np {np}");
        if cond == StdoutClosed {
            assert_ended(&got, &what);
            continue;
        }
        assert_eq!(got.status, want.status, "status of {what}: {}", got.stderr);
        assert_eq!(lines(&got.stdout), lines(&want.stdout), "entries of {what}");
        assert_eq!(
            messages(&got.stderr, "dents: "),
            messages(&want.stderr, "find: "),
            "messages of {what}"
        );
    }
}

/// 24.4: `BLOCKSIZE=1K du --summ ...` (an abbreviated option and
/// du's environment) read as GNU reads it.
fn command_line_like_gnu(cond: Condition) {
    assert_du_like_gnu(cond, &["--summ", "-c", "backup.2"], &[("BLOCKSIZE", "1K")]);
}

/// One check of the table: which item, under which condition.
fn check((item, cond): (fn(Condition), Condition)) {
    item(cond)
}

dents_testfs::test_cases! {
    /// One test per item and condition.
    mod under: (fn(super::Condition), super::Condition) => check;
    start_error_deep_tree: (super::start_error, super::DeepTree),
    start_error_few_descriptors: (super::start_error, super::FewDescriptors),
    start_error_stdout_closed: (super::start_error, super::StdoutClosed),
    start_error_as_nobody: (super::start_error, super::Nobody),
    hard_links_deep_tree: (super::hard_links_in_order, super::DeepTree),
    hard_links_few_descriptors: (super::hard_links_in_order, super::FewDescriptors),
    hard_links_stdout_closed: (super::hard_links_in_order, super::StdoutClosed),
    hard_links_as_nobody: (super::hard_links_in_order, super::Nobody),
    find_deep_tree: (super::find_like_gnu, super::DeepTree),
    find_few_descriptors: (super::find_like_gnu, super::FewDescriptors),
    find_stdout_closed: (super::find_like_gnu, super::StdoutClosed),
    find_as_nobody: (super::find_like_gnu, super::Nobody),
    command_line_deep_tree: (super::command_line_like_gnu, super::DeepTree),
    command_line_few_descriptors: (super::command_line_like_gnu, super::FewDescriptors),
    command_line_stdout_closed: (super::command_line_like_gnu, super::StdoutClosed),
    command_line_as_nobody: (super::command_line_like_gnu, super::Nobody),
}
