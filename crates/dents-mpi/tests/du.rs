//! `dents-mpi du` under `mpirun` with 1 to 4 ranks on one machine,
//! against GNU du (whose lines `dents du` prints byte for byte), compared
//! as sorted lines: real trees, loop filesystems, a huge directory split
//! over the ranks, unreadable directories, hard links across ranks.

mod common;

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

use common::{build_tree, gnu_du, mpi_du, sorted, Run};
use dents_testfs::{FsKind, LoopFs};

/// Lines, messages and status equal to GNU du's for each option set,
/// each with a different number of ranks, on the tree at `root`
/// (relative paths).
fn assert_like_gnu(root: &Path, cases: &[&[&str]]) {
    for (i, args) in cases.iter().enumerate() {
        assert_case_like_gnu(root, args, i % 4 + 1);
    }
}

/// Lines, messages and status of `du ARGS` at `-np NP` equal to GNU du's.
fn assert_case_like_gnu(root: &Path, args: &[&str], np: usize) {
    let want = gnu_du(root, args);
    let got = mpi_du(np, root, args);
    assert_eq!(
        got.status, want.status,
        "status of du {args:?} at -np {np}: {}",
        got.stderr
    );
    assert_eq!(
        sorted(&got.stdout, args),
        sorted(&want.stdout, args),
        "lines of du {args:?} at -np {np}"
    );
    assert_eq!(
        du_messages(&got.stderr),
        du_messages(&want.stderr),
        "messages of du {args:?} at -np {np}"
    );
}

/// du's messages, sorted (mpirun adds its own report of a non-zero
/// status).
fn du_messages(stderr: &str) -> Vec<&str> {
    let mut v: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            ["du: ", "Try ", "file operands"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .collect();
    v.sort();
    v
}

/// One case of `built_tree`: GNU du's lines, messages and status for
/// `du ARGS` on the built tree at `-np NP`.
fn check_built_tree((np, args): (usize, &[&str])) {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    build_tree(tmp.path());
    assert_case_like_gnu(tmp.path(), args, np);
}

dents_testfs::test_cases! {
/// GNU du's lines for the option sets people use, over 1 to 4 ranks.
mod built_tree: (usize, &[&str]) => check_built_tree;
    plain: (1, &["."]),
    all: (2, &["-a", "."]),
    summarize_two: (3, &["-s", "d1", "d2"]),
    total: (4, &["-c", "d0", "d4", "empty"]),
    all_human_depth_2: (1, &["-ahd2", "."]),
    apparent_bytes: (2, &["--apparent-size", "-b", "."]),
    inodes_all: (3, &["--inodes", "-a", "."]),
    separate_dirs: (4, &["-S", "."]),
    one_file_system_all: (1, &["-x", "-a", "."]),
    null_all: (2, &["-0", "-a", "."]),
    summarize_human: (3, &["-sh", "."]),
    count_links_all_k: (4, &["-l", "-a", "-k", "."]),
    threshold_all: (1, &["-a", "-t", "20K", "."]),
    exclude_all: (2, &["-a", "--exclude=f1*", "."]),
    a_dangling_link_and_a_link_to_a_directory: (3, &["-a", "d3/dangling", "link-to-d1"]),
    // Excluded arguments are skipped before their stat.
    excluded_arguments: (4, &["--exclude=no*", "nosuch", "d1", "--", ""]),
}

/// Every rank count on the plainest case (`-a .`), on one tree.
#[test]
fn like_gnu_du_on_a_built_tree_at_every_rank_count() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    build_tree(tmp.path());
    for np in 1..=4 {
        let want = gnu_du(tmp.path(), &["-a", "."]);
        let got = mpi_du(np, tmp.path(), &["-a", "."]);
        assert_eq!(
            sorted(&got.stdout, &[]),
            sorted(&want.stdout, &[]),
            "-np {np}"
        );
    }
}

/// A tree of real shape (the bench corpus when mounted, else
/// /usr/include's shape), links counted each time (`-l`: which of two
/// hard links counts is a matter of order, in GNU du as here).
fn check_real_tree_shape((np, args): (usize, &[&str])) {
    let tree = common::shape_tree();
    let shape = tree.root.as_path();
    let Some(_) = common::mpirun() else { return };
    let want = gnu_du(shape, args);
    let got = mpi_du(np, shape, args);
    assert_eq!(got.status, want.status);
    assert_eq!(
        sorted(&got.stdout, args),
        sorted(&want.stdout, args),
        "du {args:?} -np {np}"
    );
}

dents_testfs::test_cases! {
/// GNU du's lines on a tree of real shape.
mod real_tree_shape: (usize, &[&str]) => check_real_tree_shape;
    count_links: (2, &["-l", "."]),
    count_links_all_bytes: (3, &["-l", "-a", "-B1", "."]),
}

/// Hard links whose names lie far apart (so on different ranks): each
/// counted once over all ranks, in the totals of every argument and the
/// grand total, as GNU du counts them.
fn check_hard_links_across_ranks(args: &[&str]) {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for i in 0..60 {
        let a = root.join(format!("a/x{}/y{}", i % 7, i % 3));
        let b = root.join(format!("b/p{}/q{}", i % 5, i % 4));
        fs::create_dir_all(&a).unwrap();
        fs::create_dir_all(&b).unwrap();
        fs::write(a.join(format!("f{i}")), vec![b'h'; 3000 * (i + 1)]).unwrap();
        fs::hard_link(a.join(format!("f{i}")), b.join(format!("g{i}"))).unwrap();
    }
    for np in 1..=4 {
        let want = gnu_du(root, args);
        let got = mpi_du(np, root, args);
        // Several arguments: the split between a and b depends on
        // which link is met first; the grand total does not.
        let keep = |s: &[u8]| -> Vec<Vec<u8>> {
            let lines = sorted(s, args);
            if args.contains(&"-sc") {
                lines
                    .into_iter()
                    .filter(|l| l.ends_with(b"total"))
                    .collect()
            } else {
                lines
            }
        };
        assert_eq!(
            keep(&got.stdout),
            keep(&want.stdout),
            "du {args:?} -np {np}"
        );
    }
}

dents_testfs::test_cases! {
/// Hard links counted once across ranks, at 1 to 4 ranks.
mod hard_links_across_ranks: &[&str] => check_hard_links_across_ranks;
    summarize: &["-s", "."],
    summarize_two_and_total: &["-sc", "a", "b"],
    inodes: &["--inodes", "-s", "."],
    bytes: &["-sb", "."],
}

/// A directory far larger than the slicing threshold: read in slices
/// spread over the ranks, every entry exactly once (`-a`: one line per
/// entry).  The corpus's million-entry directory where mounted, compared
/// with a plain `read_dir` (GNU du takes over 10 s on it on a loaded
/// machine; its files are empty: `0` each), else 200,000 entries on a
/// loop ext4 (a million takes minutes to create there); and 50,000 on
/// XFS (linear offsets), compared with GNU du.
#[test]
fn huge_directory_split_over_ranks_every_entry_once() {
    let Some(_) = common::mpirun() else { return };
    for huge in common::huge_dirs() {
        let base = &huge.base;
        let got = mpi_du(4, base, &["-a", "flat1m"]);
        assert_eq!(got.status, 0, "{}", got.stderr);
        let lines = sorted(&got.stdout, &[]);
        assert_eq!(
            lines.len(),
            huge.entries + 1,
            "one line per entry and the directory"
        );
        assert!(lines.windows(2).all(|w| w[0] != w[1]), "an entry twice");
        // -S: the entries a slice reads are the directory's own, counted
        // in its line (its subdirectories' totals are not).
        let own = fs::read_dir(base.join("flat1m"))
            .unwrap()
            .filter(|e| !e.as_ref().unwrap().file_type().unwrap().is_dir())
            .count();
        let got = mpi_du(3, base, &["-S", "--inodes", "-d", "0", "flat1m"]);
        assert_eq!(got.status, 0, "{}", got.stderr);
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            format!("{}\tflat1m\n", own + 1),
            "du -S --inodes on {base:?}"
        );
        if huge.fs.is_some() {
            let want = gnu_du(base, &["-a", "flat1m"]);
            assert_eq!(lines, sorted(&want.stdout, &[]), "on {base:?}");
            continue;
        }
        // The corpus: GNU du takes over 10 s there; its files are empty.
        let dir = fs::metadata(base.join("flat1m")).unwrap();
        let mut want = vec![format!("{}\tflat1m", dir.blocks() / 2).into_bytes()];
        for e in fs::read_dir(base.join("flat1m")).unwrap() {
            let e = e.unwrap();
            assert_eq!(
                e.metadata().unwrap().blocks(),
                0,
                "the corpus's files are empty"
            );
            let mut line = b"0\tflat1m/".to_vec();
            line.extend_from_slice(e.file_name().as_bytes());
            want.push(line);
        }
        want.sort();
        assert!(
            lines == want,
            "the lines differ from the directory's entries"
        );
    }
}

/// The trees on each kind of loop filesystem (types from `d_type`, from
/// stats without it, btrfs's link counts, tmpfs's offsets).
fn check_loop_filesystem(kind: FsKind) {
    let Some(_) = common::mpirun() else { return };
    let Some(fs) = LoopFs::new_or_skip(kind, 200) else {
        return;
    };
    build_tree(fs.path());
    assert_like_gnu(fs.path(), &[&["-a", "."], &["-s", "."], &["-S", "."]]);
}

dents_testfs::test_cases! {
/// GNU du's lines on each kind of loop filesystem.
mod loop_filesystems: dents_testfs::FsKind => check_loop_filesystem;
    ext4_without_filetype: dents_testfs::FsKind::Ext4NoFiletype,
    btrfs: dents_testfs::FsKind::Btrfs,
    tmpfs: dents_testfs::FsKind::Tmpfs,
}

/// Unreadable directories, met by whichever rank walks them (as an
/// unprivileged user: root reads everything): GNU's message for each,
/// status 1 (the worst over the ranks), and the sizes of the rest.
#[test]
fn unreadable_directories_on_some_ranks() {
    let Some(_) = common::mpirun() else { return };
    if !dents_testfs::is_root() {
        return dents_testfs::skip("not root: cannot switch to another user with setpriv");
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::set_permissions(root, fs::Permissions::from_mode(0o755)).unwrap();
    build_tree(root);
    let mut locked = Vec::new();
    for a in 0..6 {
        let d = root.join(format!("d{a}/locked"));
        fs::create_dir_all(d.join("inner")).unwrap();
        fs::write(d.join("inner/x"), b"x").unwrap();
        fs::set_permissions(&d, fs::Permissions::from_mode(0o000)).unwrap();
        locked.push(format!("./d{a}/locked"));
    }
    for np in [1, 2, 4] {
        let want = common::as_nobody(gnu_du_cmd(root, &["-a", "."]));
        let got = common::as_nobody(common::mpi_du_cmd(np, root, &["-a", "."]));
        assert_eq!(got.status, 1, "-np {np}: {}", got.stderr);
        assert_eq!(want.status, 1);
        assert_eq!(
            sorted(&got.stdout, &[]),
            sorted(&want.stdout, &[]),
            "-np {np}"
        );
        // mpirun adds its own report of a rank's non-zero status.
        let mut msgs: Vec<&str> = got
            .stderr
            .lines()
            .filter(|l| l.starts_with("du: "))
            .collect();
        msgs.sort();
        let mut gnu_msgs: Vec<&str> = want.stderr.lines().collect();
        gnu_msgs.sort();
        assert_eq!(msgs, gnu_msgs, "messages at -np {np}");
        for l in &locked {
            assert!(
                got.stderr.contains(&format!("cannot read directory '{l}'")),
                "{l}"
            );
        }
    }
}

fn gnu_du_cmd(root: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("du");
    c.args(args).current_dir(root);
    c
}

/// One subtree holds nearly all the work: the ranks that run out first
/// steal from the one that has it (the items they received say so), and
/// the result is still GNU's.
#[test]
fn ranks_that_run_out_of_work_steal() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::create_dir_all(root.join("small")).unwrap();
    fs::write(root.join("small/f"), b"f").unwrap();
    for i in 0..400 {
        let d = root.join(format!("big/l{}/m{}/n{i}", i % 10, i % 40));
        fs::create_dir_all(&d).unwrap();
        for f in 0..5 {
            fs::write(d.join(format!("f{f}")), vec![b'z'; 100 * f]).unwrap();
        }
    }
    let want = gnu_du(root, &["-a", "."]);
    let got: Run =
        common::run(common::mpi_du_cmd(4, root, &["-a", "."]).env("DENTS_MPI_STATS", "1"));
    assert_eq!(got.status, 0);
    assert_eq!(sorted(&got.stdout, &[]), sorted(&want.stdout, &[]));
    let stolen: u64 = got
        .stderr
        .lines()
        .filter_map(|l| l.split(", ").nth(1)?.split(' ').next()?.parse::<u64>().ok())
        .sum();
    assert_eq!(
        got.stderr
            .lines()
            .filter(|l| l.contains("items walked"))
            .count(),
        4
    );
    assert!(stolen > 0, "no rank stole anything: {}", got.stderr);
}

/// `--per-rank-output=PREFIX`: each rank's lines in `PREFIX.RANK`; all of
/// them together are GNU's.
#[test]
fn per_rank_output_files() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    build_tree(tmp.path());
    let out = tempfile::tempdir().unwrap();
    let prefix = out.path().join("lines");
    let mut c = common::mpi_cmd(3, tmp.path());
    c.arg(format!("--per-rank-output={}", prefix.display()))
        .args(["du", "-a", "."]);
    let got = common::run(&mut c);
    assert_eq!(got.status, 0, "{}", got.stderr);
    assert!(got.stdout.is_empty());
    let mut all = Vec::new();
    for r in 0..3 {
        all.extend(fs::read(format!("{}.{r}", prefix.display())).unwrap());
    }
    let want = gnu_du(tmp.path(), &["-a", "."]);
    assert_eq!(sorted(&all, &[]), sorted(&want.stdout, &[]));
}

/// `-X`/`--exclude-from` and `--files0-from` (a list with an empty name,
/// from a file and from standard input), at 1 to 4 ranks: GNU du's lines,
/// messages and status.
#[test]
fn exclude_from_and_files0_from_like_gnu() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    build_tree(root);
    fs::write(root.join("patterns"), b"f1*\nsub 2\n").unwrap();
    fs::write(root.join("list"), b"d1\0d3/sub 2\0\0d4\0").unwrap();
    let cases: &[&[&str]] = &[
        &["-a", "-X", "patterns", "d1", "d2", "d3"],
        &["--exclude-from=patterns", "-c", "."],
        &["-Xpatterns", "-s", "d4", "d5"],
        &["--files0-from=list", "-c"],
        &["-a", "--files0-from", "list", "-d1"],
        &["--files0-from=missing", "-c"],
        &["-X", "missing", "."],
        &["--files0-from=list", "d1"],
    ];
    assert_like_gnu(root, cases);
    for np in 1..=3 {
        let args = ["--files0-from=-", "-a"];
        let list = b"d2\0-\0d5\0";
        let mut c = common::mpi_du_cmd(np, root, &args);
        let got = run_with_stdin(&mut c, list);
        let mut g = Command::new("du");
        g.args(args).current_dir(root).env("LC_ALL", "C");
        let want = run_with_stdin(&mut g, list);
        assert_eq!(got.status, want.status, "-np {np}: {}", got.stderr);
        assert_eq!(
            sorted(&got.stdout, &[]),
            sorted(&want.stdout, &[]),
            "-np {np}"
        );
    }
}

/// Runs `cmd` with `input` on its standard input.
fn run_with_stdin(cmd: &mut Command, input: &[u8]) -> Run {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    Run {
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code().unwrap_or(-1),
    }
}

/// `touch -h -d DATE [-a|-m] PATH`: a time set to the nanosecond.
fn touch(path: &Path, date: &str, which: &str) {
    let mut args = vec!["-d", date];
    if !which.is_empty() {
        args.push(which);
    }
    dents_testfs::cli::touch(path, &args);
}

/// `--time`, `--time=WORD` and `--time-style` at 1 to 4 ranks, with
/// `-a`, `-d 1`, `-s`, `-c`: GNU du's lines.  The latest times lie where
/// other ranks walk them: at the end of a deep chain, below a huge
/// directory read in slices (the modification time in a subdirectory a
/// slice spills, the access time in a file a slice reads), so a
/// directory's time is only right if its parts' latest times come back
/// with their totals.
#[test]
fn time_and_time_style_like_gnu() {
    let Some(_) = common::mpirun() else { return };
    let Some(xfs) = LoopFs::new_or_skip(FsKind::Xfs, 300) else {
        return;
    };
    let root = xfs.path();
    build_tree(&root.join("tree"));
    let mut chain = root.join("deep");
    for i in 0..30 {
        chain.push(format!("level{i}"));
    }
    fs::create_dir_all(&chain).unwrap();
    fs::write(chain.join("latest"), b"l").unwrap();
    touch(&chain.join("latest"), "2031-03-04 05:06:07.123456789", "-m");
    // Long names: past 1 MiB of directory, where it is sliced.
    let huge = root.join("huge");
    dents_testfs::fill_flat(&huge, 50_000, |i| {
        format!("a-name-long-enough-to-fill-{i:06}")
    });
    assert!(fs::metadata(&huge).unwrap().len() >= 1 << 20, "not huge");
    fs::create_dir_all(huge.join("sub/chain/below")).unwrap();
    fs::write(huge.join("sub/chain/below/f"), b"f").unwrap();
    touch(
        &huge.join("sub/chain/below/f"),
        "2030-01-02 03:04:05.5 UTC",
        "-m",
    );
    touch(&huge.join("sub/chain/below/f"), "2001-01-01", "-a");
    touch(
        &huge.join("a-name-long-enough-to-fill-031337"),
        "2032-12-31 23:59:59.999999999",
        "-a",
    );
    // Reading directories moves their access times once (relatime): one
    // walk first, so that `--time=atime` compares settled times.
    assert_eq!(gnu_du(root, &["-s", "."]).status, 0);
    let cases: &[&[&str]] = &[
        &["--time", "."],
        &["--time", "-a", "."],
        &["--time=atime", "-a", "."],
        &["--time=ctime", "-d", "1", "."],
        &["--time=access", "--time-style=full-iso", "-d", "1", "."],
        &[
            "--time",
            "--time-style=long-iso",
            "-s",
            "huge",
            "deep",
            "tree",
        ],
        &["--time", "--time-style=iso", "-a", "deep"],
        &["--time", "--time-style=+%s.%N", "-c", "-d", "1", "."],
        &["--time=status", "--time-style=full-iso", "-s", "-c", "huge"],
        &["--time", "--time-style=+%s.%N", "-S", "."],
        &["--time=atime", "--time-style=+%s.%N", "-s", "huge"],
    ];
    for np in 1..=4 {
        for args in cases {
            assert_case_like_gnu(root, args, np);
        }
    }
    // The times that must have come back from other ranks' parts.
    let huge_line = mpi_du(4, root, &["--time", "--time-style=+%s.%N", "-s", "huge"]);
    assert!(
        String::from_utf8_lossy(&huge_line.stdout).contains("\t1893553445.500000000\thuge"),
        "{:?}",
        String::from_utf8_lossy(&huge_line.stdout)
    );
    // Bad words and styles: GNU's messages and status.
    assert_like_gnu(
        root,
        &[
            &["--time=bogus", "deep"],
            &["--time", "--time-style=bogus", "deep"],
            &["--time-style=bogus", "-s", "deep"],
        ],
    );
}

/// ncdu's export made by `dents du`'s engine (in this process) of the
/// tree at `root`: the reference for `dents-mpi du --export`.
fn engine_export(root: &Path, one_file_system: bool, exclude: Option<&str>) -> Vec<u8> {
    use dents_du::engine::{Du, Problem, Sink};
    struct Quiet;
    impl Sink for Quiet {
        type Tally = ();
        fn write(&self, _: &[u8]) {}
        fn problem(&self, _: &Problem<'_>) {}
        fn push_time(&self, _: &mut Vec<u8>, _: i64, _: u32) {}
    }
    let mut opts = dents_du::Options {
        export: true,
        one_file_system,
        ..dents_du::Options::default()
    };
    if let Some(p) = exclude {
        opts.excludes.add(p.as_bytes());
    }
    let du = Du::new(opts, &Quiet);
    let x = du.export().expect("exporting");
    x.set_root_name(root.as_os_str().as_bytes());
    du.add_root(root.as_os_str().as_bytes());
    let mut out = Vec::new();
    x.write_to(&mut out, 0).unwrap();
    out
}

/// The export parsed and made comparable (Python's json): the timestamp
/// dropped, each directory's items sorted; with `unread`, the items of
/// the directories of that name dropped and the directories marked
/// `"read_error":true` (what a user who cannot read them sees).
fn normalized_export(json: &[u8], unread: Option<&str>) -> String {
    const SCRIPT: &str = r#"
import json, sys
def norm(x):
    if isinstance(x, list):
        if len(sys.argv) > 1 and x[0]["name"] == sys.argv[1]:
            return [dict(x[0], read_error=True)]
        return [x[0]] + sorted((norm(c) for c in x[1:]), key=lambda c: json.dumps(c, sort_keys=True))
    return x
e = json.loads(sys.stdin.buffer.read())
e[2].pop("timestamp")
print(json.dumps(e[:3] + [norm(x) for x in e[3:]], sort_keys=True))
"#;
    use std::io::Write;
    use std::process::Stdio;
    let mut c = Command::new("python3");
    c.arg("-c").arg(SCRIPT).args(unread);
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    child.stdin.take().unwrap().write_all(json).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "not ncdu's JSON: {:?}",
        String::from_utf8_lossy(json)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `--export` at 1 to 4 ranks: the export parsed equals `dents du`'s
/// (each directory's items sorted), with hard links across directories
/// and ranks (every name exported), `--exclude`, `-x` over a mount
/// point (what they leave out marked `"excluded"`, in a walk and in a
/// slice), unreadable directories (as nobody), and a huge directory read
/// in slices by several ranks (each slice sends its entries' JSON).
#[test]
fn export_like_dents_du() {
    let Some(_) = common::mpirun() else { return };
    if !dents_testfs::is_root() {
        return dents_testfs::skip("not root: no loop filesystem, no mount for -x");
    }
    let Some(xfs) = LoopFs::new_or_skip(FsKind::Xfs, 300) else {
        return;
    };
    let root = xfs.path().to_path_buf();
    fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
    build_tree(&root.join("tree"));
    for i in 0..40 {
        let a = root.join(format!("links/a{}/x{}", i % 3, i % 4));
        let b = root.join(format!("links/b{}", i % 5));
        fs::create_dir_all(&a).unwrap();
        fs::create_dir_all(&b).unwrap();
        fs::write(a.join(format!("f{i}")), vec![b'h'; 700 * i]).unwrap();
        fs::hard_link(a.join(format!("f{i}")), b.join(format!("g{i}"))).unwrap();
    }
    let huge = root.join("huge");
    dents_testfs::fill_flat(&huge, 50_000, |i| {
        format!("a-name-long-enough-to-fill-{i:06}")
    });
    assert!(fs::metadata(&huge).unwrap().len() >= 1 << 20, "not huge");
    fs::create_dir_all(huge.join("sub/dir/deeper")).unwrap();
    fs::write(huge.join("sub/dir/deeper/f1x"), b"x").unwrap();
    fs::hard_link(root.join("links/a0/x0/f0"), huge.join("sub/link-f0")).unwrap();
    // Read by a slice at 2 ranks and more: excluded by `f1*`.
    fs::write(huge.join("f1-in-a-slice"), b"s").unwrap();
    let locked = root.join("tree/d3/locked");
    fs::create_dir_all(locked.join("inner")).unwrap();
    fs::write(locked.join("inner/x"), b"x").unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    // Another filesystem below, for -x.
    let mnt = root.join("mnt");
    fs::create_dir(&mnt).unwrap();
    dents_testfs::cli::run_ok(
        Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=1m", "none"])
            .arg(&mnt),
    );
    fs::write(mnt.join("other-fs"), b"o").unwrap();
    // And one met by a slice of the huge directory.
    let slice_mnt = huge.join("mnt-in-a-slice");
    fs::create_dir(&slice_mnt).unwrap();
    dents_testfs::cli::run_ok(
        Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=1m", "none"])
            .arg(&slice_mnt),
    );
    let result = std::panic::catch_unwind(|| {
        let out_dir = tempfile::tempdir().unwrap();
        let export_file = out_dir.path().join("export.json");
        for np in 1..=4 {
            for (x, exclude) in [(false, None), (true, None), (false, Some("f1*"))] {
                let want = normalized_export(&engine_export(&root, x, exclude), None);
                let mut args = vec![format!("--export={}", export_file.display())];
                if x {
                    args.push("-x".into());
                }
                if let Some(p) = exclude {
                    args.push(format!("--exclude={p}"));
                }
                args.push(".".into());
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let _ = fs::remove_file(&export_file);
                let got = mpi_du(np, &root, &args);
                assert_eq!(got.status, 0, "du {args:?} -np {np}: {}", got.stderr);
                let json = fs::read(&export_file).unwrap();
                assert!(
                    normalized_export(&json, None) == want,
                    "export of du {args:?} at -np {np} differs from dents du's"
                );
            }
        }
        // As nobody: the locked directory exported without its items.
        fs::set_permissions(out_dir.path(), fs::Permissions::from_mode(0o777)).unwrap();
        let want = normalized_export(&engine_export(&root, false, None), Some("locked"));
        for np in [2, 4] {
            let arg = format!("-o{}", export_file.display());
            let _ = fs::remove_file(&export_file);
            let got = common::as_nobody(common::mpi_du_cmd(np, &root, &[&arg, "."]));
            assert_eq!(got.status, 1, "-np {np}: {}", got.stderr);
            let messages: Vec<&str> = got
                .stderr
                .lines()
                .filter(|l| l.starts_with("du: "))
                .collect();
            assert_eq!(
                messages,
                ["du: cannot read directory './tree/d3/locked': Permission denied"],
                "-np {np}"
            );
            let json = fs::read(&export_file).unwrap();
            assert!(
                normalized_export(&json, None) == want,
                "export as nobody at -np {np} differs from dents du's"
            );
        }
    });
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    dents_testfs::cli::run_ok(Command::new("umount").arg(&mnt));
    dents_testfs::cli::run_ok(Command::new("umount").arg(&slice_mnt));
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}

/// A huge directory with a corrupt block (a zeroed leaf in the middle of
/// its hash order, on ext4: reading it fails part way with `EBADMSG`),
/// split over 1 to 4 ranks.  GNU du reads up to the bad block and says
/// `du: DIR: Bad message`; every rank whose slice meets the block says the
/// same (no rank fails silently), the status is 1, every line GNU prints
/// is printed (the slices after the bad block are read too) and none
/// twice, and the export marks the directory `read_error`, whichever
/// rank's slice failed.
#[test]
fn a_corrupt_block_in_a_huge_directory() {
    let Some(_) = common::mpirun() else { return };
    let Some(fs) = LoopFs::new_or_skip(FsKind::Ext4, 200) else {
        return;
    };
    let root = fs.path();
    fs.build_corrupt_dir_tree();
    let once = |out: &[u8]| {
        let l = sorted(out, &[]);
        let mut d = l.clone();
        d.dedup();
        assert_eq!(d.len(), l.len(), "a line printed twice");
        l
    };
    let want = gnu_du(root, &["-a", "."]);
    assert_eq!(
        want.stderr, "du: ./big: Bad message\n",
        "GNU du's own words"
    );
    assert_eq!(want.status, 1);
    let gnu_lines = once(&want.stdout);
    let export = tempfile::tempdir().unwrap();
    let file = export.path().join("export.json");
    for np in 1..=4 {
        let got = mpi_du(np, root, &["-a", "."]);
        assert_eq!(got.status, 1, "-np {np}: {}", got.stderr);
        let msgs: Vec<&str> = got
            .stderr
            .lines()
            .filter(|l| l.starts_with("du: "))
            .collect();
        assert!(
            !msgs.is_empty() && msgs.iter().all(|m| *m == "du: ./big: Bad message"),
            "-np {np}: {}",
            got.stderr
        );
        let ours = once(&got.stdout);
        let lost: Vec<&Vec<u8>> = gnu_lines
            .iter()
            .filter(|l| ours.binary_search(l).is_err())
            .collect();
        // The lines themselves, and ours for the same paths: a failure
        // seen once under a loaded CI run (one line) says which.
        let path_of = |l: &[u8]| {
            l.iter()
                .position(|&c| c == b'\t')
                .map(|i| l[i + 1..].to_vec())
        };
        let lost_paths: Vec<Vec<u8>> = lost.iter().filter_map(|l| path_of(l)).collect();
        let text = |ls: Vec<&Vec<u8>>| -> Vec<String> {
            ls.iter()
                .map(|l| String::from_utf8_lossy(l).into_owned())
                .collect()
        };
        let ours_there = ours
            .iter()
            .filter(|l| path_of(l).is_some_and(|p| lost_paths.contains(&p)))
            .collect();
        assert!(
            lost.is_empty(),
            "-np {np}: GNU's lines missing: {:?}; ours for those paths: {:?}; stderr: {}",
            text(lost.clone()),
            text(ours_there),
            got.stderr
        );
        let got = mpi_du(
            np,
            root,
            &["-s", &format!("--export={}", file.display()), "."],
        );
        assert_eq!(got.status, 1, "-np {np}: {}", got.stderr);
        let json = fs::read_to_string(&file).unwrap();
        let info = dents_testfs::cli::export_info(&json, "big");
        assert!(info.contains(r#""read_error":true"#), "-np {np}: {info}");
    }
}

/// One case of `command_line`: environment variables and arguments.
type Line = (
    &'static [(&'static str, &'static str)],
    &'static [&'static str],
);

/// `dents-mpi du ARGS` with `ENV` at `-np 1` to `4` against GNU du: the
/// same lines, the same messages (each said once, not once a rank) and
/// the same status.  The tree holds `t` (a small tree), `list` (three
/// names, one empty, one missing), and no `nonexistent`.
fn check_command_line((env, args): Line) {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    build_tree(&root.join("t"));
    fs::write(root.join("list"), b"t/d1\0\0nonexistent\0").unwrap();
    let mut g = Command::new("du");
    g.args(args).current_dir(root).env("LC_ALL", "C");
    for (k, v) in env {
        g.env(k, v);
    }
    let want = common::run(&mut g);
    for np in 1..=4 {
        let mut c = common::mpi_du_cmd(np, root, args);
        for (k, v) in env {
            c.env(k, v);
        }
        let got = common::run(&mut c);
        let case = format!("{env:?} du {args:?} at -np {np}");
        assert_eq!(
            du_messages(&got.stderr),
            du_messages(&want.stderr),
            "messages of {case}"
        );
        assert_eq!(
            sorted(&got.stdout, args),
            sorted(&want.stdout, args),
            "lines of {case}"
        );
        assert_eq!(got.status, want.status, "status of {case}: {}", got.stderr);
    }
}

dents_testfs::test_cases! {
/// The command line `dents du` reads, read alike by `dents-mpi du` (one
/// parser): abbreviated long options, `BLOCKSIZE`, GNU's words for a
/// missing option argument or operand, names quoted with control
/// characters escaped, `--files0-from`'s messages once.
mod command_line: super::Line => check_command_line;
    abbreviated_summarize: (&[], &["--summ", "t"]),
    abbreviated_max_depth: (&[], &["--max-d=1", "t"]),
    ambiguous_long_option: (&[], &["--s", "t"]),
    blocksize_env: (&[("BLOCKSIZE", "1M")], &["t"]),
    block_size_env_human: (&[("BLOCK_SIZE", "human-readable")], &["-s", "t"]),
    max_depth_long_without_argument: (&[], &["t", "--max-depth"]),
    missing_operand: (&[], &["nonexistent", "t"]),
    missing_operand_with_newline: (&[], &["non\nexistent", "t"]),
    missing_operand_with_quote: (&[], &["non'existent", "t"]),
    zero_length_operand: (&[], &["", "t"]),
    files0_from_missing_file: (&[], &["--files0-from=nonexistent", "-c"]),
    files0_from_empty_and_missing_names: (&[], &["--files0-from=list", "-s"]),
    files0_from_with_operand: (&[], &["--files0-from=list", "t"]),
    summarize_warning: (&[], &["-s", "-d0", "t"]),
    inodes_apparent_warning: (&[], &["--inodes", "-b", "t"]),
    // The grand total is printed whatever the threshold, as GNU's.
    total_threshold_above_everything: (&[], &["-c", "-t", "1G", "t"]),
    total_negative_threshold: (&[], &["-c", "-t", "-1", "t"]),
}
