//! `dents du --from SNAPSHOT`: the lines, messages and exit status of
//! `dents du` on the unchanged tree, byte for byte (lines compared
//! sorted: du's siblings come in no fixed order), for du's options, FILE
//! subsets and hard links; what a snapshot cannot answer refused; bad
//! snapshots refused in du's style.
//!
//! Run one case alone: `cargo test -p dents-cli --test scan_from -- du_option_sets::all --exact`.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use dents_testfs::cli::c_locale_command;
use dents_testfs::{snapshot, test_cases, FsKind, LoopFs};

/// One run's output: lines sorted, stderr lines sorted, status.
#[derive(Debug, PartialEq, Eq)]
struct Run {
    lines: Vec<String>,
    stderr: Vec<String>,
    status: i32,
}

/// The executable under test.
const DENTS: &str = env!("CARGO_BIN_EXE_dents");

/// What settles the tree's access times before a scan (see
/// [`snapshot::fresh`]).
const SETTLE: &[&str] = &["du", "-a", "t"];

fn run(mut c: Command, nul: bool) -> Run {
    let out = c.output().expect("dents runs");
    let sep = if nul { 0 } else { b'\n' };
    let mut lines: Vec<String> = out
        .stdout
        .split(|&b| b == sep)
        .filter(|l| !l.is_empty())
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect();
    lines.sort();
    let mut stderr: Vec<String> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(str::to_owned)
        .collect();
    stderr.sort();
    Run {
        lines,
        stderr,
        status: out.status.code().unwrap_or(-1),
    }
}

/// A tree with a bit of everything: nested and empty directories, files
/// of several sizes, a sparse file, symlinks (to a file, to a directory,
/// dangling), hard links across directories, awkward names.
fn build_tree(root: &Path) {
    let d = |p: &str| fs::create_dir_all(root.join(p)).unwrap();
    let f = |p: &str, n: usize| fs::write(root.join(p), vec![b'x'; n]).unwrap();
    d("t/a/b/c/d");
    d("t/a/empty");
    d("t/e/f");
    d("t/with space/sub");
    f("t/top", 10);
    f("t/a/one", 1);
    f("t/a/b/four_k", 4096);
    f("t/a/b/c/big", 300_000);
    f("t/a/b/c/d/deep", 5000);
    f("t/e/f/g", 70_000);
    f("t/with space/sub/x y", 123);
    f("t/e/.hidden", 2000);
    for i in 0..30 {
        f(&format!("t/e/many{i:02}"), i * 1000);
    }
    let sparse = fs::File::create(root.join("t/a/sparse")).unwrap();
    sparse.set_len(64 << 20).unwrap();
    std::os::unix::fs::FileExt::write_at(&sparse, b"data", 1 << 20).unwrap();
    symlink("top", root.join("t/link_to_file")).unwrap();
    symlink("e", root.join("t/link_to_dir")).unwrap();
    symlink("nowhere", root.join("t/dangling")).unwrap();
    // Hard links: one inode in three directories, one twice in one.
    fs::hard_link(root.join("t/a/b/c/big"), root.join("t/e/big_again")).unwrap();
    fs::hard_link(root.join("t/a/b/c/big"), root.join("t/with space/big3")).unwrap();
    fs::hard_link(root.join("t/e/f/g"), root.join("t/e/f/g2")).unwrap();
    for n in dents_testfs::awkward_names() {
        let p = root.join("t/e/f").join(std::ffi::OsStr::from_bytes(&n));
        fs::write(p, &n).unwrap();
    }
}

/// `dents du ARGS FILES` on the tree against `dents du --from S ARGS
/// FROM_FILES`.
fn same(dir: &Path, snap: &Path, args: &[&str], files: &[&str], from_files: &[&str]) {
    let nul = args.iter().any(|a| *a == "-0" || *a == "--null");
    let mut live: Vec<&str> = vec!["du"];
    live.extend_from_slice(args);
    live.extend_from_slice(files);
    let from_arg = format!("--from={}", snap.display());
    let mut from: Vec<&str> = vec!["du", &from_arg];
    from.extend_from_slice(args);
    from.extend_from_slice(from_files);
    let l = run(c_locale_command(DENTS, dir, &live), nul);
    let f = run(c_locale_command(DENTS, dir, &from), nul);
    assert!(!l.lines.is_empty(), "no lines from du {live:?}");
    assert_eq!(f, l, "du {from:?} against du {live:?}");
}

/// One case of `du_option_sets`: `du ARGS t` both ways.
fn check_options(args: &[&str]) {
    let (tmp, snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    same(tmp.path(), &snap, args, &["t"], &["t"]);
}

test_cases! {
/// du's options, alone and as people combine them.
mod du_option_sets: &[&str] => check_options;
    no_options: &[],
    all: &["-a"],
    summarize: &["-s"],
    total: &["-c"],
    max_depth_1: &["-d", "1"],
    max_depth_2_all: &["-a", "--max-depth=2"],
    human: &["-h"],
    si_all: &["--si", "-a"],
    bytes: &["-b"],
    bytes_all: &["-ab"],
    apparent_size: &["--apparent-size"],
    kibibytes: &["-k"],
    block_size_m: &["-BM"],
    inodes: &["--inodes"],
    inodes_all: &["--inodes", "-a"],
    count_links: &["-l"],
    count_links_all: &["-la"],
    separate_dirs: &["-S"],
    separate_dirs_all_human: &["-aSh"],
    threshold_5k: &["-t", "5k"],
    threshold_negative_all: &["-t", "-5000", "-a"],
    time: &["--time"],
    time_all: &["--time", "-a"],
    time_atime: &["--time=atime"],
    time_ctime_full_iso: &["--time=ctime", "--time-style=full-iso"],
    time_style_format: &["--time", "--time-style=+%s.%N", "-a"],
    one_file_system: &["-x"],
    null: &["-0", "-a"],
    exclude_glob: &["--exclude=*.hidden", "-a"],
    exclude_dir: &["--exclude=b", "-a"],
    summarize_total_human: &["-sch"],
    total_threshold_above_everything: &["-c", "-t", "1G"],
}

/// One case of `du_files`: FILE operands (a subset of the snapshot,
/// several, overlapping, spelt with slashes).
fn check_files(files: &[&str]) {
    let (tmp, snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    let (args, files): (Vec<&str>, Vec<&str>) = files.iter().partition(|a| a.starts_with('-'));
    same(tmp.path(), &snap, &args, &files, &files);
}

test_cases! {
/// FILE operands below the snapshot's root.
mod du_files: &[&str] => check_files;
    one_subdirectory: &["t/a"],
    two_subdirectories: &["t/a", "t/e"],
    subdirectory_then_root: &["t/a", "t/e", "t"],
    root_then_subdirectory: &["t", "t/a"],
    root_twice_summarized: &["-s", "t", "t"],
    files_then_root_total: &["-c", "t/top", "t/a/one", "t"],
    file_then_its_directory_all: &["-a", "t/e/many01", "t/e"],
    a_file_alone: &["t/a/b/c/big"],
    hard_links_in_two_arguments: &["t/e", "t/with space", "-a"],
    trailing_slashes: &["-a", "t//", "t/a/"],
    a_directory_with_a_space: &["t/with space/sub"],
    a_symlink_operand: &["t/link_to_dir"],
}

/// No FILE: the snapshot's roots, as `dents du ROOTS`.
#[test]
fn du_defaults_to_the_snapshot_roots() {
    let (tmp, snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    same(tmp.path(), &snap, &["-a"], &["t"], &[]);
    let snap2 = snapshot::scan(DENTS, tmp.path(), &[], &["t/e", "t/a"]);
    same(tmp.path(), &snap2, &["-c"], &["t/a", "t/e"], &[]);
}

/// Hard links on filesystems whose directory orders differ: the inode is
/// charged to the same link (GNU's order) both ways.
fn check_links_on(kind: FsKind) {
    let Some(fs_) = LoopFs::new_or_skip(kind, 64) else {
        return;
    };
    let root = fs_.path();
    for i in 0..40 {
        let d = root.join(format!("t/d{i:02}"));
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("own"), vec![b'y'; 5000 + i * 10]).unwrap();
    }
    for i in 0..20 {
        let orig = root.join(format!("t/d{i:02}/orig"));
        fs::write(&orig, vec![b'z'; 20_000 + i * 4096]).unwrap();
        for (k, j) in [i + 5, i + 11, 39 - i].into_iter().enumerate() {
            let l = root.join(format!("t/d{j:02}/link{i:02}_{k}"));
            fs::hard_link(&orig, l).unwrap();
        }
    }
    run(c_locale_command(DENTS, root, &["du", "-a", "t"]), false);
    let snap = snapshot::scan(DENTS, root, &[], &["t"]);
    for args in [&[][..], &["-a"], &["-S"], &["--inodes", "-a"], &["-l"]] {
        same(root, &snap, args, &["t"], &["t"]);
    }
    same(
        root,
        &snap,
        &["-a"],
        &["t/d30", "t/d10", "t"],
        &["t/d30", "t/d10", "t"],
    );
    fs::remove_file(&snap).unwrap();
}

test_cases! {
/// Hard links across directories on real filesystems.
mod du_hard_links: dents_testfs::FsKind => check_links_on;
    ext4: dents_testfs::FsKind::Ext4,
    xfs: dents_testfs::FsKind::Xfs,
    btrfs: dents_testfs::FsKind::Btrfs,
}

/// `-L` from a snapshot scanned with `-L`; refused from one scanned
/// without, and the reverse.
#[test]
fn du_dereference_needs_a_snapshot_scanned_so() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::create_dir_all(root.join("t/real/sub")).unwrap();
    fs::write(root.join("t/real/sub/f"), vec![b'q'; 9000]).unwrap();
    fs::create_dir(root.join("t/other")).unwrap();
    symlink("../real", root.join("t/other/to_real")).unwrap();
    symlink("real/sub/f", root.join("t/to_f")).unwrap();
    run(c_locale_command(DENTS, root, &["du", "-a", "t"]), false);
    let snap = snapshot::scan(DENTS, root, &["-L"], &["t"]);
    same(root, &snap, &["-L", "-s"], &["t"], &["t"]);
    same(root, &snap, &["-L", "-s"], &["t/other"], &["t/other"]);
    let f = run(
        c_locale_command(DENTS, root, &["du", "--from", "s.parquet", "-s"]),
        false,
    );
    assert_eq!(f.status, 1);
    assert_eq!(
        f.stderr,
        ["dents: 's.parquet': scanned with -L: du --from answers for -L only"]
    );
    assert!(f.lines.is_empty());
    let plain = snapshot::scan(DENTS, root, &[], &["t"]);
    let f = run(
        c_locale_command(DENTS, root, &["du", "--from", "s.parquet", "-L"]),
        false,
    );
    assert_eq!(
        f.stderr,
        ["dents: 's.parquet': scanned with -P: du --from answers for -P only"]
    );
    assert_eq!(f.status, 1);
    let _ = plain;
}

/// `-x` on a tree with a file system mounted inside: a snapshot scanned
/// with `-x` answers `du -x`, and refuses du without it.
#[test]
fn du_one_file_system_with_a_mount_inside() {
    if !dents_testfs::needs_root("mounts a tmpfs inside the tree") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    build_tree(root);
    let mnt = root.join("t/a/mnt");
    fs::create_dir(&mnt).unwrap();
    let st = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=8m", "dents-test"])
        .arg(&mnt)
        .status()
        .unwrap();
    assert!(st.success(), "mount tmpfs");
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(self.0).status();
        }
    }
    let _guard = Unmount(&mnt);
    fs::create_dir(mnt.join("inside")).unwrap();
    fs::write(mnt.join("inside/file"), vec![b'm'; 50_000]).unwrap();
    run(c_locale_command(DENTS, root, &["du", "-a", "t"]), false);
    let snap = snapshot::scan(DENTS, root, &[], &["t"]);
    same(root, &snap, &["-x", "-a"], &["t"], &["t"]);
    same(root, &snap, &["-a"], &["t"], &["t"]);
    let snap = snapshot::scan(DENTS, root, &["-x"], &["t"]);
    same(root, &snap, &["-x"], &["t"], &["t"]);
    let f = run(
        c_locale_command(DENTS, root, &["du", "--from", "s.parquet"]),
        false,
    );
    assert_eq!(
        f.stderr,
        ["dents: 's.parquet': scanned with -x (other file systems left out): du --from needs -x"]
    );
    assert_eq!(f.status, 1);
}

/// A FILE that is not in the snapshot: du's `cannot access`, status 1,
/// the other FILEs still counted.
#[test]
fn du_file_outside_the_roots() {
    let (tmp, _snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    let f = run(
        c_locale_command(
            DENTS,
            tmp.path(),
            &[
                "du",
                "--from",
                "s.parquet",
                "-s",
                "elsewhere",
                "t/a",
                "t/nothing",
            ],
        ),
        false,
    );
    assert_eq!(f.status, 1);
    assert_eq!(
        f.stderr,
        [
            "dents: cannot access 'elsewhere': not in the snapshot 's.parquet'",
            "dents: cannot access 't/nothing': not in the snapshot 's.parquet'",
        ]
    );
    let live = run(
        c_locale_command(DENTS, tmp.path(), &["du", "-s", "t/a"]),
        false,
    );
    assert_eq!(f.lines, live.lines);
}

/// A snapshot of names only has no sizes: refused.
#[test]
fn du_refuses_a_names_only_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    build_tree(tmp.path());
    snapshot::scan(DENTS, tmp.path(), &["--names-only"], &["t"]);
    let f = run(
        c_locale_command(DENTS, tmp.path(), &["du", "--from", "s.parquet"]),
        false,
    );
    assert_eq!(
        f.stderr,
        ["dents: 's.parquet': a snapshot of names only (scanned with --names-only): du needs sizes"]
    );
    assert_eq!(f.status, 1);
    assert!(f.lines.is_empty());
}

/// One case of `bad_snapshots`: beside a good snapshot, a truncated one
/// and a file that is not Parquet; `du --from FILE t`: status 1, no line,
/// one message that starts with `says`.
fn check_bad_snapshot((file, says): (&str, &str)) {
    let (tmp, snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    let dir = tmp.path();
    snapshot::cut_short(&snap, &dir.join("cut.parquet"));
    snapshot::not_parquet(&dir.join("text.parquet"));
    let f = run(
        c_locale_command(DENTS, dir, &["du", "--from", file, "t"]),
        false,
    );
    assert_eq!(f.status, 1, "{file}");
    assert!(f.lines.is_empty(), "{file}");
    assert_eq!(f.stderr.len(), 1, "{file}: {:?}", f.stderr);
    assert!(f.stderr[0].starts_with(says), "{file}: {:?}", f.stderr);
}

test_cases! {
/// A truncated snapshot, a file that is not Parquet, a missing one:
/// one message each, status 1, no line.
mod du_bad_snapshots: (&str, &str) => check_bad_snapshot;
    cut_short: (
        "cut.parquet",
        "dents: 'cut.parquet': not a snapshot: not a Parquet file, or cut short",
    ),
    not_parquet: (
        "text.parquet",
        "dents: 'text.parquet': not a snapshot: not a Parquet file, or cut short",
    ),
    missing: (
        "missing.parquet",
        "dents: 'missing.parquet': No such file or directory",
    ),
}

/// A closed standard output: du's `write error`, status 1, as `dents du`.
#[test]
fn du_from_with_stdout_closed() {
    let (tmp, _snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    let closed = |args: &[&str]| {
        // A closed descriptor 1, not /dev/null: the shell's `>&-`.
        let mut sh = Command::new("sh");
        sh.arg("-c")
            .arg("exec \"$@\" >&-")
            .arg("sh")
            .arg(env!("CARGO_BIN_EXE_dents"))
            .args(args)
            .current_dir(tmp.path())
            .env("LC_ALL", "C");
        run(sh, false)
    };
    let l = closed(&["du", "-a", "t"]);
    let f = closed(&["du", "--from", "s.parquet", "-a", "t"]);
    assert_eq!(l.status, 1);
    assert!(!l.stderr.is_empty());
    assert_eq!(f, l);
}

/// One case of `du_foreign_snapshots`: a Parquet file of someone else
/// and a snapshot of another schema version; `du --from FILE`: refused
/// by name, status 1, no line.
fn check_foreign((file, says): (&str, &str)) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    snapshot::foreign_parquet(&dir.join("other.parquet"));
    snapshot::other_version(&dir.join("v2.parquet"));
    let f = run(c_locale_command(DENTS, dir, &["du", "--from", file]), false);
    assert_eq!(f.stderr, [says], "{file}");
    assert_eq!(f.status, 1, "{file}");
    assert!(f.lines.is_empty(), "{file}");
}

test_cases! {
/// A Parquet file of someone else, and a snapshot of another schema
/// version: refused by name, status 1.
mod du_foreign_snapshots: (&str, &str) => check_foreign;
    foreign_parquet: (
        "other.parquet",
        "dents: 'other.parquet': not a dents snapshot (a Parquet file without dents.snapshot.version)",
    ),
    other_version: (
        "v2.parquet",
        "dents: 'v2.parquet': snapshot schema version 2; this dents reads version 1",
    ),
}

/// What the scan could not read: said again by du --from, in du's words,
/// status 1, the lines those of du on the tree (run as `nobody`, for
/// whom a directory of mode 000 cannot be read).
#[test]
fn du_says_what_the_scan_could_not_read() {
    if !dents_testfs::needs_root("runs the scan and du as nobody through setpriv") {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::set_permissions(root, fs::Permissions::from_mode(0o777)).unwrap();
    build_tree(root);
    fs::set_permissions(root.join("t/a/b"), fs::Permissions::from_mode(0o000)).unwrap();
    use dents_testfs::cli::as_nobody;
    let scanned = as_nobody(c_locale_command(
        DENTS,
        root,
        &["scan", "-o", "s.parquet", "t"],
    ))
    .output()
    .unwrap();
    assert_eq!(scanned.status.code(), Some(1), "{scanned:?}");
    let l = run(
        as_nobody(c_locale_command(DENTS, root, &["du", "-a", "t"])),
        false,
    );
    let f = run(
        as_nobody(c_locale_command(
            DENTS,
            root,
            &["du", "--from=s.parquet", "-a"],
        )),
        false,
    );
    assert_eq!(
        l.stderr,
        ["dents: cannot read directory 't/a/b': Permission denied"]
    );
    assert_eq!(l.status, 1);
    assert_eq!(f, l);
}
