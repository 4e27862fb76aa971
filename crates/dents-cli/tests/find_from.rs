//! `dents find --from SNAPSHOT`: the lines, messages and exit status of
//! `dents find` on the unchanged tree, byte for byte, for each expression
//! the stored fields answer (and those that reach the live entry by its
//! path); what a snapshot cannot answer refused; bad snapshots refused.
//!
//! Each case is compared twice: with `dents find -s TREE` byte for byte
//! and in order (its sorted, breadth-first walk is the snapshot's level
//! order; `-ls`'s growing columns included), and with plain `dents find
//! TREE`, records sorted and runs of blanks collapsed (its order is its
//! own), as tests/find.rs compares.
//!
//! Run one case alone: `cargo test -p dents-cli --test find_from -- expressions::size_over_1m --exact`.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output};

use dents_testfs::cli::{c_locale_command, sorted_records, touch};
use dents_testfs::snapshot;
use dents_testfs::test_cases;

/// The executable under test.
const DENTS: &str = env!("CARGO_BIN_EXE_dents");

/// What settles the tree's access times before a scan (see
/// [`snapshot::fresh`]).
const SETTLE: &[&str] = &["find", "t", "-ls"];

/// A tree with a bit of everything: nested and empty directories, empty
/// and sparse files, symlinks (to a file, a directory, nowhere), hard
/// links across directories, awkward names (a newline, invalid UTF-8),
/// modes with set-id and sticky bits, owners without names, a fifo, and
/// times of several ages.
fn build_tree(root: &Path) {
    let d = |p: &str| fs::create_dir_all(root.join(p)).unwrap();
    let f = |p: &str, n: usize| fs::write(root.join(p), vec![b'x'; n]).unwrap();
    d("t/a/b/c");
    d("t/empty");
    d("t/odd");
    d("t/sticky");
    f("t/zero", 0);
    f("t/one", 1);
    f("t/a/four_k", 4096);
    f("t/a/b/mid", 600_000);
    f("t/a/b/c/big", 3_000_000);
    let sparse = fs::File::create(root.join("t/a/sparse")).unwrap();
    sparse.set_len(8 << 20).unwrap();
    std::os::unix::fs::FileExt::write_at(&sparse, b"data", 1 << 20).unwrap();
    symlink("one", root.join("t/to_one")).unwrap();
    symlink("a/b", root.join("t/to_dir")).unwrap();
    symlink("nowhere", root.join("t/dangling")).unwrap();
    fs::hard_link(root.join("t/a/b/mid"), root.join("t/mid_again")).unwrap();
    fs::hard_link(root.join("t/a/b/mid"), root.join("t/odd/mid3")).unwrap();
    for n in dents_testfs::awkward_names() {
        let p = root.join("t/odd").join(std::ffi::OsStr::from_bytes(&n));
        fs::write(p, &n).unwrap();
    }
    let mode = |p: &str, m: u32| {
        fs::set_permissions(root.join(p), fs::Permissions::from_mode(m)).unwrap();
    };
    mode("t/one", 0o600);
    mode("t/a/four_k", 0o4755);
    mode("t/a/b/mid", 0o640);
    mode("t/sticky", 0o1777);
    mode("t/zero", 0o000);
    let fifo = root.join("t/a/fifo");
    let st = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(st.success(), "mkfifo");
    // Owners: root can give files away, to ids with and without names.
    if rustix::process::geteuid().is_root() {
        let own = |p: &str, uid: u32, gid: u32| {
            std::os::unix::fs::lchown(root.join(p), Some(uid), Some(gid)).unwrap();
        };
        own("t/one", 65534, 65534);
        own("t/a/b", 4242, 4343);
        own("t/dangling", 4242, 0);
    }
    touch(
        &root.join("t/a/b/mid"),
        &["-m", "-d", "2020-01-02 03:04:05.123456789"],
    );
    touch(&root.join("t/one"), &["-a", "-d", "2021-06-07 08:09:10"]);
    touch(&root.join("t/a/b/c/big"), &["-m", "-d", "3 days ago"]);
    touch(&root.join("t/zero"), &["-m", "-d", "90 minutes ago"]);
    f("t/reference", 10);
    touch(&root.join("t/reference"), &["-m", "-d", "2 days ago"]);
}

/// What a run printed, wrote to `out` (the `-fprint` family's file) and
/// said, and its status.
#[derive(Debug, PartialEq, Eq)]
struct Run {
    stdout: Vec<u8>,
    file: Vec<u8>,
    stderr: Vec<u8>,
    status: Option<i32>,
}

fn run(dir: &Path, args: &[&str]) -> Run {
    let out: Output = c_locale_command(DENTS, dir, args).output().unwrap();
    let file = fs::read(dir.join("out")).unwrap_or_default();
    let _ = fs::remove_file(dir.join("out"));
    Run {
        stdout: out.stdout,
        file,
        stderr: out.stderr,
        status: out.status.code(),
    }
}

/// Records sorted, runs of blanks collapsed (`-ls`'s columns grow with
/// the order).
fn loose(bytes: &[u8], sep: u8) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = sorted_records(bytes, sep)
        .into_iter()
        .map(|r| {
            let mut out = Vec::with_capacity(r.len());
            for b in r {
                if !(b == b' ' && out.last() == Some(&b' ')) {
                    out.push(b);
                }
            }
            out
        })
        .collect();
    v.sort();
    v
}

/// The words as `&str`s.
fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// `dents find --from s.parquet PATHS EXPR` against `dents find -s PATHS
/// EXPR` (in order, byte for byte) and `dents find PATHS EXPR` (sorted).
fn same(dir: &Path, paths: &[&str], from_paths: &[&str], expr: &[&str]) {
    let cat = |head: &[&str], paths: &[&str]| -> Vec<String> {
        head.iter()
            .chain(paths)
            .chain(expr)
            .map(|s| s.to_string())
            .collect()
    };
    let from_v = cat(&["find", "--from", "s.parquet"], from_paths);
    let sorted_v = cat(&["find", "-s"], paths);
    let live_v = cat(&["find"], paths);
    let f = run(dir, &strs(&from_v));
    let s = run(dir, &strs(&sorted_v));
    let l = run(dir, &strs(&live_v));
    let show = |r: &Run| {
        format!(
            "status {:?}\n--- stdout\n{}--- file\n{}--- stderr\n{}",
            r.status,
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&r.file),
            String::from_utf8_lossy(&r.stderr)
        )
    };
    // In order: one PATH (find -s walks several PATHs' levels together;
    // --from takes one PATH after the other, as GNU), without -depth.
    let post_order = expr.contains(&"-depth");
    if !post_order && paths.len() == 1 {
        assert!(
            f == s,
            "find {expr:?}: --from differs from find -s\n== --from\n{}\n== find -s\n{}",
            show(&f),
            show(&s)
        );
    }
    let nul = expr
        .iter()
        .any(|a| a.contains("print0") || a.contains("\\0"));
    let sep = if nul { 0 } else { b'\n' };
    let key = |r: &Run| {
        (
            loose(&r.stdout, sep),
            loose(&r.file, sep),
            sorted_records(&r.stderr, b'\n'),
            r.status,
        )
    };
    assert!(
        key(&f) == key(&l),
        "find {expr:?}: --from differs from find\n== --from\n{}\n== find\n{}",
        show(&f),
        show(&l)
    );
}

/// One case of `expressions`: the expression on `t`, both ways.
fn check(expr: &[&str]) {
    let (tmp, _snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    same(tmp.path(), &["t"], &["t"], expr);
}

test_cases! {
/// Tests, actions, options and operators the stored fields answer, and
/// those that reach the live entry by its path.
mod expressions: &[&str] => check;
    print: &[],
    print0: &["-print0"],
    name_glob: &["-name", "*i*"],
    name_newline: &["-name", "new*"],
    iname: &["-iname", "*ONE*"],
    path: &["-path", "t/a/*"],
    ipath: &["-ipath", "T/A/B*"],
    regex: &["-regex", ".*/[a-m][a-z]*"],
    iregex_posix_extended: &["-regextype", "posix-extended", "-iregex", ".*/(ONE|ZERO)"],
    type_d: &["-type", "d"],
    type_f: &["-type", "f"],
    type_l: &["-type", "l"],
    type_p: &["-type", "p"],
    type_several: &["-type", "l,p"],
    size_over_1m: &["-size", "+1M"],
    size_exact_blocks: &["-size", "1"],
    size_bytes_under: &["-size", "-5c"],
    size_kib: &["-size", "+3k"],
    empty: &["-empty"],
    not_empty_dirs: &["-type", "d", "!", "-empty"],
    perm_exact: &["-perm", "640"],
    perm_all: &["-perm", "-4000"],
    perm_any: &["-perm", "/1000"],
    perm_symbolic: &["-perm", "-u=rw"],
    user_root: &["-user", "root"],
    uid: &["-uid", "4242"],
    gid_over: &["-gid", "+100"],
    group_root: &["-group", "root"],
    nouser: &["-nouser"],
    nogroup: &["-nogroup"],
    links_2: &["-links", "2"],
    links_over_2: &["-links", "+2"],
    inum_of_one: &["-samefile", "t/one"],
    samefile_hard_link: &["-samefile", "t/mid_again"],
    newer: &["-newer", "t/reference"],
    anewer: &["-anewer", "t/reference"],
    cnewer: &["-cnewer", "t/reference"],
    newermt: &["-newermt", "2020-06-01"],
    not_newermt: &["!", "-newermt", "2020-06-01"],
    neweram: &["-neweram", "t/reference"],
    mtime_over_1: &["-mtime", "+1"],
    mtime_0: &["-mtime", "0"],
    mmin_under_120: &["-mmin", "-120"],
    mmin_over_60: &["-mmin", "+60"],
    atime_over_365: &["-atime", "+365"],
    amin_under_10: &["-amin", "-10"],
    ctime_0: &["-ctime", "0"],
    cmin_under_60: &["-cmin", "-60"],
    daystart_mtime: &["-daystart", "-mtime", "+0"],
    used: &["-used", "-1000"],
    lname: &["-lname", "*o*"],
    ilname: &["-ilname", "A*"],
    maxdepth_1: &["-maxdepth", "1"],
    mindepth_2: &["-mindepth", "2"],
    mindepth_maxdepth: &["-mindepth", "1", "-maxdepth", "2", "-type", "d"],
    depth: &["-depth"],
    depth_prune_ignored: &["-depth", "-name", "a", "-prune"],
    prune: &["-name", "a", "-prune", "-o", "-print"],
    prune_odd: &["-path", "t/odd", "-prune", "-o", "-type", "f", "-print"],
    print_quit: &["-print", "-quit"],
    quit_after_match: &["-name", "four_k", "-print", "-quit"],
    or_not: &["(", "-type", "l", "-o", "-empty", ")", "!", "-name", "z*"],
    comma: &["-name", "one", "-print", ",", "-name", "zero", "-print0"],
    false_: &["-false"],
    ls: &["-ls"],
    ls_type_f: &["-type", "f", "-ls"],
    printf_sizes: &["-printf", "%p %s %b %k %n %i %m %M %U %G %u %g %y %d %D\\n"],
    printf_names: &["-printf", "[%f] [%h] [%H] [%P] %l\\n"],
    printf_times: &["-printf", "%t|%TY-%Tm-%Td %TH:%TM:%TS|%A@|%C+|%Tk\\n"],
    printf_widths: &["-printf", "%-10s|%8m|%.3f|%5d\\0"],
    printf_sparseness: &["-type", "f", "-printf", "%S %p\\n"],
    printf_fstype_and_target_type: &["-printf", "%F %Y %p\\n"],
    fprint: &["-fprint", "out"],
    fprint0: &["-fprint0", "out"],
    fls: &["-fls", "out"],
    fprintf: &["-fprintf", "out", "%i %p\\n"],
    readable: &["-readable"],
    writable_not: &["!", "-writable"],
    executable: &["-type", "f", "-executable"],
    xtype_l: &["-xtype", "l"],
    xtype_d: &["-xtype", "d"],
    fstype: &["-fstype", "tmpfs", "-o", "-fstype", "ext4"],
    exec_plus: &["-type", "f", "-name", "*i*", "-exec", "printf", "[%s]\\n", "{}", "+"],
    exec_semicolon: &["-name", "one", "-exec", "echo", "got", "{}", ";"],
    hidden: &["-hidden"],
    nohidden: &["-nohidden"],
    exclude: &["-exclude", "-name", "odd"],
    limit: &["-type", "f", "-limit", "3"],
    xdev: &["-xdev"],
}

/// PATH operands: below the root, several, spelt with slashes; and no
/// PATH (the snapshot's roots).
#[test]
fn paths_below_the_root_and_the_default() {
    let (tmp, _snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    let dir = tmp.path();
    same(dir, &["t/a"], &["t/a"], &["-type", "f"]);
    same(dir, &["t/a", "t/odd"], &["t/a", "t/odd"], &["-ls"]);
    same(dir, &["t/a/"], &["t/a/"], &[]);
    same(dir, &["t/one"], &["t/one"], &["-printf", "%p %P %H\\n"]);
    same(dir, &["t"], &[], &["-name", "*e*"]);
}

/// A PATH that is not in the snapshot: find's `'PATH': ...` message,
/// status 1, the other PATHs still searched.
#[test]
fn a_path_outside_the_roots() {
    let (tmp, _snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    let f = run(
        tmp.path(),
        &[
            "find",
            "--from",
            "s.parquet",
            "elsewhere",
            "t/a",
            "t/nothing",
        ],
    );
    assert_eq!(f.status, Some(1));
    assert_eq!(
        String::from_utf8_lossy(&f.stderr),
        "dents: 'elsewhere': not in the snapshot 's.parquet'\n\
         dents: 't/nothing': not in the snapshot 's.parquet'\n"
    );
    let l = run(tmp.path(), &["find", "-s", "t/a"]);
    assert_eq!(f.stdout, l.stdout);
}

/// What acts on the live tree where a path cannot stand for it, and
/// birth times (no snapshot keeps them): refused before anything runs,
/// naming the primary and `--from`, status 1.
fn check_refused(expr: &[&str]) {
    let (tmp, _snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    let mut args = vec!["find", "--from", "s.parquet"];
    args.extend_from_slice(expr);
    let f = run(tmp.path(), &args);
    assert_eq!(f.status, Some(1), "{expr:?}");
    assert!(f.stdout.is_empty(), "{expr:?}: {f:?}");
    let said = String::from_utf8_lossy(&f.stderr).into_owned();
    assert!(
        expr.iter()
            .any(|w| said.starts_with(&format!("dents: {w} ")))
            && said.contains("--from"),
        "{expr:?}: {said}"
    );
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(tmp.path().join("t/one").exists());
}

test_cases! {
/// Refused with --from.
mod refused: &[&str] => check_refused;
    delete: &["-name", "one", "-delete"],
    execdir: &["-execdir", "true", ";"],
    okdir: &["-okdir", "true", ";"],
    newer_birth: &["-newerBt", "2020-01-01"],
    newer_than_birth: &["-newermB", "t/one"],
    printf_birth: &["-printf", "%p %B@\\n"],
    fprintf_birth: &["-fprintf", "out", "%-5BY\\n"],
}

/// `%%B` is a `%` then a `B`, not a birth time: not refused.
#[test]
fn printf_percent_then_b_is_not_birth() {
    let (tmp, _snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    same(tmp.path(), &["t"], &["t"], &["-printf", "%%B %p\\n"]);
}

/// `-L` and `-H` from a snapshot scanned so; refused from one scanned
/// otherwise, and `-xdev` needed on a snapshot scanned with `-x`.
#[test]
fn follow_and_xdev_must_be_the_scans() {
    let (tmp, _snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    let dir = tmp.path();
    let f = run(dir, &["find", "--from", "s.parquet", "-L", "t"]);
    assert_eq!(
        String::from_utf8_lossy(&f.stderr),
        "dents: 's.parquet': scanned with -P: find --from answers for -P only\n"
    );
    assert_eq!(f.status, Some(1));
    assert!(f.stdout.is_empty());
    snapshot::scan(DENTS, dir, &["-L"], &["t"]);
    same(dir, &["-L", "t"], &["-L", "t"], &["-type", "d"]);
    same(
        dir,
        &["-L", "t"],
        &["-L", "t"],
        &["-printf", "%p %y %s %n\\n"],
    );
    let f = run(dir, &["find", "--from", "s.parquet", "t"]);
    assert_eq!(
        String::from_utf8_lossy(&f.stderr),
        "dents: 's.parquet': scanned with -L: find --from answers for -L only\n"
    );
    snapshot::scan(DENTS, dir, &["-x"], &["t"]);
    same(dir, &["t"], &["t"], &["-xdev", "-type", "f"]);
    let f = run(dir, &["find", "--from", "s.parquet", "t"]);
    assert_eq!(
        String::from_utf8_lossy(&f.stderr),
        "dents: 's.parquet': scanned with -x (other file systems left out): \
         find --from needs -xdev\n"
    );
    assert_eq!(f.status, Some(1));
}

/// A snapshot of names only answers names and types, and refuses what
/// needs a stat.
#[test]
fn a_names_only_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    build_tree(dir);
    snapshot::scan(DENTS, dir, &["--names-only"], &["t"]);
    same(dir, &["t"], &["t"], &["-name", "*o*", "-type", "f"]);
    let f = run(dir, &["find", "--from", "s.parquet", "-size", "+1k"]);
    assert_eq!(
        String::from_utf8_lossy(&f.stderr),
        "dents: 's.parquet': a snapshot of names only (scanned with --names-only): \
         the expression needs what a stat gives\n"
    );
    assert_eq!(f.status, Some(1));
    assert!(f.stdout.is_empty());
}

/// One case of `bad_snapshots`: beside a good snapshot, a truncated one,
/// a file that is not Parquet, a foreign Parquet file and another schema
/// version; `find --from FILE t`: status 1, no line, one message that
/// starts with `says`.
fn check_bad_snapshot((file, says): (&str, &str)) {
    let (tmp, snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    let dir = tmp.path();
    snapshot::cut_short(&snap, &dir.join("cut.parquet"));
    snapshot::not_parquet(&dir.join("text.parquet"));
    snapshot::foreign_parquet(&dir.join("other.parquet"));
    snapshot::other_version(&dir.join("v2.parquet"));
    let f = run(dir, &["find", "--from", file, "t"]);
    assert_eq!(f.status, Some(1), "{file}");
    assert!(f.stdout.is_empty(), "{file}");
    let said = String::from_utf8_lossy(&f.stderr);
    assert_eq!(said.lines().count(), 1, "{file}: {said}");
    assert!(said.starts_with(says), "{file}: {said}");
}

test_cases! {
/// A truncated snapshot, a file that is not Parquet, a missing one, a
/// foreign Parquet file, another schema version: one message each,
/// status 1, no line.
mod bad_snapshots: (&str, &str) => check_bad_snapshot;
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
    foreign_parquet: (
        "other.parquet",
        "dents: 'other.parquet': not a dents snapshot (a Parquet file without dents.snapshot.version)",
    ),
    other_version: (
        "v2.parquet",
        "dents: 'v2.parquet': snapshot schema version 2; this dents reads version 1",
    ),
}

/// `--from` without its argument: find's usage message, status 1.
#[test]
fn from_without_a_snapshot_is_a_usage_error() {
    let (tmp, _snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    let f = run(tmp.path(), &["find", "--from"]);
    assert_eq!(
        String::from_utf8_lossy(&f.stderr),
        "dents: option '--from' requires an argument\n\
         Try 'dents find --help' for more information.\n"
    );
    assert_eq!(f.status, Some(1));
}

/// A closed standard output: find's two messages and status 1, as
/// `dents find` on the tree.
#[test]
fn stdout_closed() {
    let (tmp, _snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    let closed = |args: &[&str]| {
        let out = Command::new("sh")
            .arg("-c")
            .arg("exec \"$@\" >&-")
            .arg("sh")
            .arg(env!("CARGO_BIN_EXE_dents"))
            .args(args)
            .current_dir(tmp.path())
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code(),
        )
    };
    let l = closed(&["find", "t"]);
    let f = closed(&["find", "--from", "s.parquet", "t"]);
    assert_eq!(l.1, Some(1));
    assert!(!l.0.is_empty());
    assert_eq!(f, l);
}

/// What the scan could not read: said again in find's words, status 1,
/// the lines those of find on the tree (run as `nobody`, for whom a
/// directory of mode 000 cannot be read).
#[test]
fn says_what_the_scan_could_not_read() {
    if !dents_testfs::needs_root("runs the scan and find as nobody through setpriv") {
        return;
    }
    use dents_testfs::cli::as_nobody;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::set_permissions(root, fs::Permissions::from_mode(0o777)).unwrap();
    fs::create_dir_all(root.join("t/a/closed/inside")).unwrap();
    fs::write(root.join("t/a/f"), b"x").unwrap();
    fs::set_permissions(root.join("t/a/closed"), fs::Permissions::from_mode(0o000)).unwrap();
    let scanned = as_nobody(c_locale_command(
        DENTS,
        root,
        &["scan", "-o", "s.parquet", "t"],
    ))
    .output()
    .unwrap();
    assert_eq!(scanned.status.code(), Some(1), "{scanned:?}");
    let l = as_nobody(c_locale_command(DENTS, root, &["find", "-s", "t"]))
        .output()
        .unwrap();
    let f = as_nobody(c_locale_command(DENTS, root, &["find", "--from=s.parquet"]))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&l.stderr),
        "dents: 't/a/closed': Permission denied\n"
    );
    assert_eq!(f.stderr, l.stderr);
    assert_eq!(f.stdout, l.stdout);
    assert_eq!(f.status.code(), Some(1));
    assert_eq!(l.status.code(), Some(1));
}

/// Several roots in one snapshot, with hard links between them.
#[test]
fn a_snapshot_of_several_roots() {
    let (tmp, _snap) = snapshot::fresh(DENTS, build_tree, SETTLE);
    let dir = tmp.path();
    snapshot::scan(DENTS, dir, &[], &["t/odd", "t/a"]);
    same(
        dir,
        &["t/a", "t/odd"],
        &[],
        &["-links", "+1", "-printf", "%p %n\\n"],
    );
    same(
        dir,
        &["t/odd", "t/a"],
        &["t/odd", "t/a"],
        &["-print", "-quit"],
    );
}

/// `-xdev` on a tree with a file system mounted inside: the mount point
/// is listed, not entered, both ways; a snapshot scanned with `-x`
/// answers `-xdev`.
#[test]
fn xdev_with_a_mount_inside() {
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
    c_locale_command(DENTS, root, &["find", "t", "-ls"])
        .output()
        .unwrap();
    snapshot::scan(DENTS, root, &[], &["t"]);
    same(root, &["t"], &["t"], &["-xdev"]);
    same(root, &["t"], &["t"], &["-mount", "-type", "d"]);
    same(root, &["t"], &["t"], &["-fstype", "tmpfs"]);
    same(root, &["t"], &["t"], &["-size", "+10k"]);
    snapshot::scan(DENTS, root, &["-x"], &["t"]);
    same(root, &["t"], &["t"], &["-xdev", "-printf", "%p %D\\n"]);
}
