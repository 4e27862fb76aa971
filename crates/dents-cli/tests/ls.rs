//! Differential tests: `dents ls` against GNU ls on real directories.
//!
//! A fixture tree with every kind of file and awkward name is built in a
//! temporary directory; both tools run with `LC_ALL=C TZ=UTC` and their
//! outputs are compared byte for byte (after sorting lines where dents's
//! order is the directory's own and ls's is sorted).

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use dents_testfs::cli::{as_nobody, run_ok};
use dents_testfs::{FsKind, LoopFs};

/// The fixture tree; removed on drop.
struct Fixture {
    tmp: tempfile::TempDir,
}

impl Fixture {
    /// The fixture, or `None` after saying why not: it holds devices
    /// (`mknod`) and a file of another owner (`chown`), which need root.
    fn new_or_skip() -> Option<Fixture> {
        dents_testfs::needs_root(
            "the ls fixture holds devices (mknod) and a file of another owner (chown)",
        )
        .then(Fixture::new)
    }

    /// Builds the tree described in the module docs.
    fn new() -> Fixture {
        let tmp = tempfile::Builder::new()
            .prefix("dents-ls-")
            .tempdir()
            .unwrap();
        let d = tmp.path().join("d");
        fs::create_dir(&d).unwrap();
        let file = |name: &[u8], len: u64, mode: u32| {
            let p = d.join(OsStr::from_bytes(name));
            let f = fs::File::create(&p).unwrap();
            f.set_len(len).unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(mode)).unwrap();
            p
        };
        file(b"empty", 0, 0o644);
        file(b"one", 1, 0o644);
        file(b"k1023", 1023, 0o600);
        file(b"k1024", 1024, 0o640);
        file(b"k1025", 1025, 0o644);
        file(b"big", 10 << 20, 0o644);
        file(b"exec", 5, 0o755);
        file(b"setuid", 5, 0o4755);
        file(b"setgid", 5, 0o2711);
        file(b"noperm", 5, 0o000);
        file(b"with space", 3, 0o644);
        file(b"new\nline", 3, 0o644);
        file(b"bad\xffutf8", 3, 0o644);
        file(b"-dash", 3, 0o644);
        file(b".hidden", 3, 0o644);
        file("café".as_bytes(), 3, 0o644);
        file(&[b'L'; 255], 3, 0o644);
        let linked = file(b"hardlinked", 7, 0o644);
        fs::hard_link(&linked, d.join("hardlink2")).unwrap();
        fs::create_dir(d.join("subdir")).unwrap();
        fs::create_dir(d.join(".hiddendir")).unwrap();
        let sticky = d.join("sticky");
        fs::create_dir(&sticky).unwrap();
        fs::set_permissions(&sticky, fs::Permissions::from_mode(0o1777)).unwrap();
        symlink("one", d.join("link-file")).unwrap();
        symlink("subdir", d.join("link-dir")).unwrap();
        symlink("nowhere", d.join("link-dangling")).unwrap();
        symlink("loop-b", d.join("loop-a")).unwrap();
        symlink("loop-a", d.join("loop-b")).unwrap();
        run_ok(Command::new("mkfifo").arg(d.join("fifo")));
        let _sock = std::os::unix::net::UnixListener::bind(d.join("sock")).unwrap();
        run_ok(
            Command::new("mknod")
                .arg(d.join("null-dev"))
                .args(["c", "1", "3"]),
        );
        run_ok(
            Command::new("mknod")
                .arg(d.join("loop-dev"))
                .args(["b", "7", "200"]),
        );
        // Times: long ago, recent, in the future.
        run_ok(
            Command::new("touch")
                .args(["-d", "2001-02-03 04:05:06.123456789"])
                .arg(d.join("one")),
        );
        run_ok(
            Command::new("touch")
                .args(["-d", "2099-01-01 00:00:00"])
                .arg(d.join("k1023")),
        );
        run_ok(
            Command::new("touch")
                .args(["-h", "-d", "1999-12-31 23:59:59"])
                .arg(d.join("link-file")),
        );
        // An ACL, where setfacl exists (CI installs it).
        let acl = d.join("with-acl");
        fs::File::create(&acl).unwrap();
        match Command::new("setfacl")
            .args(["-m", "u:nobody:r"])
            .arg(&acl)
            .status()
        {
            Ok(s) if s.success() => {}
            _ => dents_testfs::skip("setfacl not available: the ACL mark is not exercised"),
        }
        // An owner without a name.
        let orphan = file(b"orphan", 2, 0o644);
        std::os::unix::fs::chown(&orphan, Some(4242), Some(4343)).unwrap();
        Fixture { tmp }
    }

    /// The fixture's main directory.
    fn dir(&self) -> PathBuf {
        self.tmp.path().join("d")
    }
}

fn dents() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dents"));
    c.env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env_remove("TIME_STYLE");
    c
}

fn gnu_ls() -> Command {
    let mut c = Command::new("ls");
    c.env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env_remove("TIME_STYLE");
    c
}

fn output(cmd: &mut Command) -> Output {
    cmd.stdin(Stdio::null()).output().unwrap()
}

/// Runs `dents ls ARGS` and `ls GNU_ARGS` in `cwd`; returns both outputs.
fn both(cwd: &Path, dents_args: &[&str], gnu_args: &[&str]) -> (Output, Output) {
    let d = output(dents().current_dir(cwd).arg("ls").args(dents_args));
    let g = output(gnu_ls().current_dir(cwd).args(gnu_args));
    (d, g)
}

/// Standard error as bytes with the program's name at the start of each
/// line (`prog`) made `PROG:`, so that `ls:` and `dents:` compare equal.
fn stderr_of(bytes: &[u8], prog: &[u8]) -> Vec<u8> {
    bytes
        .split_inclusive(|&b| b == b'\n')
        .flat_map(|l| match l.strip_prefix(prog) {
            Some(rest) => [&b"PROG:"[..], rest].concat(),
            None => l.to_vec(),
        })
        .collect()
}

/// Asserts identical stderr (program name aside, as bytes) and exit status.
fn assert_same_status_and_stderr(args: &[&str], d: &Output, g: &Output) {
    assert_eq!(d.status.code(), g.status.code(), "exit status of {args:?}");
    assert!(
        stderr_of(&d.stderr, b"dents:") == stderr_of(&g.stderr, b"ls:"),
        "stderr of dents ls {args:?} differs from GNU ls's\n--- dents\n{}\n--- ls\n{}",
        String::from_utf8_lossy(&d.stderr),
        String::from_utf8_lossy(&g.stderr)
    );
}

/// Asserts identical stdout, stderr (program name aside) and exit status,
/// with a readable diff.
fn assert_same(args: &[&str], d: &Output, g: &Output) {
    if d.stdout != g.stdout {
        panic!(
            "dents ls {args:?} differs from GNU ls\n--- dents\n{}\n--- ls\n{}\n--- dents stderr\n{}",
            String::from_utf8_lossy(&d.stdout),
            String::from_utf8_lossy(&g.stdout),
            String::from_utf8_lossy(&d.stderr)
        );
    }
    assert_same_status_and_stderr(args, d, g);
}

/// Lines of `bytes`, sorted: for outputs whose order differs by design.
fn sorted_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    v.sort();
    v
}

fn long_format_like_gnu((dargs, gargs): (&[&str], &[&str])) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let (d, g) = both(fx.tmp.path(), dargs, gargs);
    assert_same(dargs, &d, &g);
}

dents_testfs::test_cases! {
    /// One test per option set: dents ls's long format against GNU ls's, byte for byte.
    mod long_format: (&[&str], &[&str]) => long_format_like_gnu;
    l: (&["-l", "--sort=name", "d"], &["-l", "d"]),
    l_a: (&["-la", "--sort=name", "d"], &["-la", "d"]),
    l_big_a: (&["-lA", "--sort=name", "d"], &["-lA", "d"]),
    l_i: (&["-li", "--sort=name", "d"], &["-li", "d"]),
    l_n: (&["-ln", "--sort=name", "d"], &["-ln", "d"]),
    l_h: (&["-lh", "--sort=name", "d"], &["-lh", "d"]),
    l_g: (&["-lg", "--sort=name", "d"], &["-lg", "d"]),
    l_o: (&["-lo", "--sort=name", "d"], &["-lo", "d"]),
    l_r: (&["-lr", "--sort=name", "d"], &["-lr", "d"]),
    l_t: (&["-lt", "d"], &["-lt", "d"]),
    l_t_r: (&["-ltr", "d"], &["-ltr", "d"]),
    l_big_s: (&["-lS", "d"], &["-lS", "d"]),
    l_big_s_r: (&["-lSr", "d"], &["-lSr", "d"]),
    l_big_f: (&["-lF", "--sort=name", "d"], &["-lF", "d"]),
    l_file_type: (&["-l", "--file-type", "--sort=name", "d"], &["-l", "--file-type", "d"]),
    full_time: (&["--full-time", "--sort=name", "d"], &["--full-time", "d"]),
    l_time_style_long_iso: (&["-l", "--time-style=long-iso", "--sort=name", "d"], &["-l", "--time-style=long-iso", "d"]),
    l_time_style_iso: (&["-l", "--time-style=iso", "--sort=name", "d"], &["-l", "--time-style=iso", "d"]),
    l_time_style_format: (&["-l", "--time-style=+%s %N", "--sort=name", "d"], &["-l", "--time-style=+%s %N", "d"]),
    l_time_style_two_formats: (&["-l", "--time-style=+old %Y\nnew %H", "--sort=name", "d"], &["-l", "--time-style=+old %Y\nnew %H", "d"]),
    l_d_d_subdir: (&["-ld", "d", "d/subdir"], &["-ld", "d", "d/subdir"]),
    l_files_sorted: (&["-l", "--sort=name", "d/one", "d/link-dir", "d/fifo"], &["-l", "d/fifo", "d/link-dir", "d/one"]),
    l_files_unsorted: (&["-l", "d/one", "d/link-dir", "d/fifo"], &["-lU", "d/one", "d/link-dir", "d/fifo"]),
}

#[test]
fn time_style_from_environment_like_gnu() {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let d = output(
        dents()
            .env("TIME_STYLE", "long-iso")
            .current_dir(fx.tmp.path())
            .args(["ls", "-l", "--sort=name", "d"]),
    );
    let g = output(
        gnu_ls()
            .env("TIME_STYLE", "long-iso")
            .current_dir(fx.tmp.path())
            .args(["-l", "d"]),
    );
    assert_same(&["TIME_STYLE=long-iso", "-l"], &d, &g);
}

fn short_format_like_gnu((dargs, gargs): (&[&str], &[&str])) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let (d, g) = both(fx.tmp.path(), dargs, gargs);
    assert_same(dargs, &d, &g);
}

dents_testfs::test_cases! {
    /// One test per option set: dents ls's short formats against GNU ls's.
    mod short_formats: (&[&str], &[&str]) => short_format_like_gnu;
    plain: (&["--sort=name", "d"], &["d"]),
    a: (&["-a", "--sort=name", "d"], &["-a", "d"]),
    big_a: (&["-A", "--sort=name", "d"], &["-A", "d"]),
    big_f: (&["-F", "--sort=name", "d"], &["-F", "d"]),
    file_type: (&["--file-type", "--sort=name", "d"], &["--file-type", "d"]),
    i: (&["-i", "--sort=name", "d"], &["-i", "d"]),
    o1: (&["-1", "--sort=name", "d"], &["-1", "d"]),
    t: (&["-t", "d"], &["-t", "d"]),
    big_s: (&["-S", "d"], &["-S", "d"]),
    r: (&["-r", "--sort=name", "d"], &["-r", "d"]),
    p: (&["-p", "--sort=name", "d"], &["-p", "d"]),
    indicator_style_slash: (&["--indicator-style=slash", "--sort=name", "d"], &["-p", "d"]),
    indicator_style_classify: (&["--indicator-style=classify", "--sort=name", "d"], &["-F", "d"]),
    ignore_dtype_p: (&["--ignore-dtype", "-p", "--sort=name", "d"], &["-p", "d"]),
    ignore_dtype_file_type: (&["--ignore-dtype", "--file-type", "--sort=name", "d"], &["--file-type", "d"]),
    ignore_dtype_big_f: (&["--ignore-dtype", "-F", "--sort=name", "d"], &["-F", "d"]),
    ignore_dtype_l: (&["--ignore-dtype", "-l", "--sort=name", "d"], &["-l", "d"]),
    d_subdir: (&["--sort=name", "d/subdir", "d"], &["d", "d/subdir"]),
    d_one_d_exec: (&["--sort=name", "d/one", "d/exec", "d"], &["d/exec", "d/one", "d"]),
}

fn unsorted_like_gnu((dargs, gargs): (&[&str], &[&str])) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let (d, g) = both(fx.tmp.path(), dargs, gargs);
    assert_same_status_and_stderr(dargs, &d, &g);
    let (mut ds, mut gs) = (sorted_lines(&d.stdout), sorted_lines(&g.stdout));
    if dargs.contains(&"-l") {
        // The "total" line stands first in both; sorting moved it.
        ds.retain(|l| !l.starts_with(b"total "));
        gs.retain(|l| !l.starts_with(b"total "));
    }
    assert_eq!(ds, gs, "dents ls {dargs:?}");
}

dents_testfs::test_cases! {
    /// One test per option set: unsorted dents ls lists GNU ls's entries (sorted lines compared).
    mod unsorted_default: (&[&str], &[&str]) => unsorted_like_gnu;
    plain: (&["d"], &["d"]),
    big_a: (&["-A", "d"], &["-A", "d"]),
    a: (&["-a", "d"], &["-a", "d"]),
    big_f: (&["-F", "d"], &["-F", "d"]),
    file_type: (&["--file-type", "d"], &["--file-type", "d"]),
    p: (&["-p", "d"], &["-p", "d"]),
    p_a: (&["-pa", "d"], &["-pa", "d"]),
    ignore_dtype_p_big_a: (&["--ignore-dtype", "-pA", "d"], &["-pA", "d"]),
    ignore_dtype_file_type_big_a: (&["--ignore-dtype", "--file-type", "-A", "d"], &["--file-type", "-A", "d"]),
    ignore_dtype_big_f_big_a: (&["--ignore-dtype", "-FA", "d"], &["-FA", "d"]),
    i_big_a: (&["-iA", "d"], &["-iA", "d"]),
    l: (&["-l", "d"], &["-l", "d"]),
}

#[test]
fn names_are_raw_bytes_off_a_terminal() {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let out = output(dents().args(["ls", "-0", "-A"]).arg(fx.dir()));
    assert!(out.status.success());
    let mut got: Vec<&[u8]> = out
        .stdout
        .split(|&b| b == 0)
        .filter(|s| !s.is_empty())
        .collect();
    got.sort();
    let mut want: Vec<Vec<u8>> = fs::read_dir(fx.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_vec())
        .collect();
    want.sort();
    assert_eq!(got, want.iter().map(Vec::as_slice).collect::<Vec<_>>());
    assert!(want.iter().any(|n| n == b"new\nline"));
    assert!(want.iter().any(|n| n == b"bad\xffutf8"));
}

/// What `--count` should print over the fixture: the entries `ls -a`
/// lists, and how many of them (`.`, `..` and hidden ones) `args` leaves
/// out.
#[derive(Clone, Copy)]
enum Listed {
    /// Without `-a` or `-A`: no hidden entries.
    Visible,
    /// `-A`: every entry but `.` and `..`.
    AlmostAll,
    /// `-a`: every entry, `.` and `..` too.
    All,
}

dents_testfs::test_cases! {
    /// `--count` with the options that change what is listed, one test
    /// each.
    mod count: (&[&str], super::Listed) => count_counts_what_would_be_listed;
    plain: (&["--count"], super::Listed::Visible),
    almost_all: (&["--count", "-A"], super::Listed::AlmostAll),
    all: (&["--count", "-a"], super::Listed::All),
    long_almost_all: (&["--count", "-l", "-A"], super::Listed::AlmostAll),
}

/// One case of `count`: the number printed is what would be listed.
fn count_counts_what_would_be_listed((args, listed): (&[&str], Listed)) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let n = fs::read_dir(fx.dir()).unwrap().count();
    let hidden = fs::read_dir(fx.dir())
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().as_bytes()[0] == b'.')
        .count();
    let want = match listed {
        Listed::Visible => n - hidden,
        Listed::AlmostAll => n,
        Listed::All => n + 2,
    };
    let out = output(dents().arg("ls").args(args).arg(fx.dir()));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{want}\n"),
        "{args:?}"
    );
}

/// A directory big enough to be read in slices on ext4 and XFS.
fn big_dir(root: &Path, n: usize) -> PathBuf {
    let d = root.join("big");
    fs::create_dir(&d).unwrap();
    for i in 0..n {
        fs::File::create(d.join(format!("IMG_{i:07}.JPG"))).unwrap();
    }
    d
}

#[test]
fn a_sliced_directory_lists_exactly_what_gnu_lists() {
    let tmp = tempfile::tempdir().unwrap();
    let big = big_dir(tmp.path(), 30_000);
    let d = output(dents().args(["ls", "--debug", "-j4"]).arg(&big));
    let stderr = String::from_utf8_lossy(&d.stderr);
    let fs_type = output(Command::new("stat").args(["-f", "-c", "%T"]).arg(&big));
    let fs_type = String::from_utf8_lossy(&fs_type.stdout).trim().to_string();
    if fs_type.starts_with("ext") || fs_type == "xfs" {
        assert!(
            stderr.contains("Sliced"),
            "expected a sliced read on {fs_type}: {stderr}"
        );
    } else {
        dents_testfs::skip(&format!(
            "temp dir is on {fs_type}: sliced read not exercised here"
        ));
    }
    let g = output(gnu_ls().arg("-f").arg(&big));
    let mut want = sorted_lines(&g.stdout);
    want.retain(|l| l != b"." && l != b"..");
    assert_eq!(sorted_lines(&d.stdout), want);
    assert_eq!(d.stdout.len(), 30_000 * "IMG_0000000.JPG\n".len());

    let (dl, gl) = both(
        tmp.path(),
        &["-l", "--sort=name", "-j4", "big"],
        &["-l", "big"],
    );
    assert_same(&["-l", "big"], &dl, &gl);
}

/// A huge directory with a zeroed block in its middle (an ext4 htree
/// leaf: reading it fails part way with `EBADMSG`), read in slices:
/// `dents ls` says what GNU ls says, with its status, and lists every
/// name GNU lists before the bad block, none twice (its slices read past
/// the block too, so it lists more).  Unsorted, long and recursive.
#[test]
fn a_directory_with_a_corrupt_block_loses_nothing_gnu_lists() {
    let Some(fs) = LoopFs::new_or_skip(FsKind::Ext4, 200) else {
        return;
    };
    let root = fs.path();
    fs.build_corrupt_dir_tree();
    // The names a listing's lines end with, sorted; none twice.
    let names = |out: &[u8]| {
        let mut v: Vec<Vec<u8>> = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| l.rsplit(|&b| b == b' ').next().unwrap_or(l).to_vec())
            .collect();
        v.sort();
        let n = v.len();
        v.dedup();
        assert_eq!(v.len(), n, "a name listed twice");
        v
    };
    for args in [&["-U", "big"][..], &["-l", "big"], &["-R", "."]] {
        let (d, g) = both(root, args, args);
        assert_same_status_and_stderr(args, &d, &g);
        assert!(
            String::from_utf8_lossy(&g.stderr).contains("Bad message"),
            "{args:?}: GNU ls met the bad block: {}",
            String::from_utf8_lossy(&g.stderr)
        );
        let (ours, gnu) = (names(&d.stdout), names(&g.stdout));
        assert!(gnu.len() > 3, "{args:?}: GNU listed part of it");
        let lost: Vec<String> = gnu
            .iter()
            .filter(|n| ours.binary_search(n).is_err())
            .take(3)
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .collect();
        assert!(
            lost.is_empty(),
            "{args:?}: names GNU lists missing: {lost:?}"
        );
    }
}

#[test]
fn missing_argument_is_reported_like_gnu_and_the_rest_listed() {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let (d, g) = both(
        fx.tmp.path(),
        &["--sort=name", "nope", "d/subdir"],
        &["nope", "d/subdir"],
    );
    assert_eq!(d.stdout, g.stdout);
    assert_eq!(d.status.code(), Some(2));
    assert_eq!(g.status.code(), Some(2));
    assert!(!g.stderr.is_empty());
    assert_same_status_and_stderr(&["nope", "d/subdir"], &d, &g);
}

/// Runs `dents DARGS` and GNU `ls GARGS` in `dir` as nobody and asserts
/// the same output, status and messages (in any order); GNU's output.
fn same_as_nobody(dir: &Path, dargs: &[&str], gargs: &[&str]) -> Output {
    let mut dc = dents();
    dc.current_dir(dir).args(dargs);
    let mut gc = gnu_ls();
    gc.current_dir(dir).args(gargs);
    let d = output(&mut as_nobody(dc));
    let g = output(&mut as_nobody(gc));
    assert_same(dargs, &d, &g);
    let mut de: Vec<String> = String::from_utf8_lossy(&d.stderr)
        .lines()
        .map(str::to_string)
        .collect();
    let mut ge: Vec<String> = String::from_utf8_lossy(&g.stderr)
        .lines()
        .map(|l| l.replacen("ls:", "dents:", 1))
        .collect();
    de.sort();
    ge.sort();
    assert_eq!(de, ge, "stderr of {dargs:?}");
    g
}

/// One case of `unreadable_and_unsearchable`: `dents ls DARGS` against
/// GNU `ls GARGS`, both as nobody, beside a directory that cannot be read
/// (`locked`), one that cannot be searched (`noexec`) and an open one.
fn check_unreadable_and_unsearchable((dargs, gargs): (&[&str], &[&str])) {
    if !dents_testfs::needs_root("cannot switch to another user") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let locked = tmp.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::File::create(locked.join("inside")).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let noexec = tmp.path().join("noexec");
    fs::create_dir(&noexec).unwrap();
    for n in ["a", "b"] {
        fs::File::create(noexec.join(n)).unwrap();
    }
    fs::set_permissions(&noexec, fs::Permissions::from_mode(0o644)).unwrap();
    let open = tmp.path().join("open");
    fs::create_dir(&open).unwrap();
    fs::File::create(open.join("x")).unwrap();
    same_as_nobody(tmp.path(), dargs, gargs);
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&noexec, fs::Permissions::from_mode(0o755)).unwrap();
}

dents_testfs::test_cases! {
/// Unreadable and unsearchable directories are reported as GNU reports
/// them: (dents's arguments, GNU's).
mod unreadable_and_unsearchable: (&[&str], &[&str]) => check_unreadable_and_unsearchable;
    unreadable_beside_open: (&["ls", "--sort=name", "locked", "open"], &["locked", "open"]),
    unsearchable_long: (&["ls", "-l", "--sort=name", "noexec"], &["-l", "noexec"]),
    unsearchable_classify: (&["ls", "-F", "--sort=name", "noexec"], &["-F", "noexec"]),
}

/// One case of `sliced_unsearchable`: `dents ls DARGS` against GNU
/// `ls GARGS`, as nobody, on a directory of 30,000 entries read in slices
/// that cannot be searched.
fn check_sliced_unsearchable((dargs, gargs): (&[&str], &[&str])) {
    // Each slice reads on a descriptor of its own, opened from the
    // directory's; `openat(dir, ".")` needs search permission, which a
    // `r--` directory refuses: every name must still be listed (and with
    // `-l` each entry's stat refused), as GNU does.
    if !dents_testfs::needs_root("cannot switch to another user") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let big = big_dir(tmp.path(), 30_000);
    if !read_in_slices(&big) {
        return;
    }
    fs::set_permissions(&big, fs::Permissions::from_mode(0o644)).unwrap();
    let g = same_as_nobody(tmp.path(), dargs, gargs);
    assert!(g.stdout.len() >= 30_000 * 16, "GNU listed {gargs:?} whole");
    fs::set_permissions(&big, fs::Permissions::from_mode(0o755)).unwrap();
}

dents_testfs::test_cases! {
/// A sliced directory that cannot be searched is listed as GNU lists it:
/// (dents's arguments, GNU's).
mod sliced_unsearchable: (&[&str], &[&str]) => check_sliced_unsearchable;
    plain: (&["ls", "--sort=name", "-j4", "big"], &["big"]),
    long: (&["ls", "-l", "--sort=name", "-j4", "big"], &["-l", "big"]),
    classify: (&["ls", "-F", "--sort=name", "-j4", "big"], &["-F", "big"]),
}

/// One case of `closed_pipe`: `dents ls ARGS` on 50,000 entries, its
/// output closed after 16 bytes, ends at once, killed by SIGPIPE, quietly.
fn check_closed_pipe(args: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let big = big_dir(tmp.path(), 50_000);
    let mut child = dents()
        .args(args)
        .arg(&big)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        out.status.signal(),
        Some(libc_sigpipe()),
        "{args:?}: {:?}",
        out.status
    );
}

dents_testfs::test_cases! {
/// A closed pipe ends the listing at once and quietly.
mod closed_pipe: &[&str] => check_closed_pipe;
    streamed: &["ls"],
    long: &["ls", "-l"],
}

fn libc_sigpipe() -> i32 {
    13
}

/// One case of `closed_pipe_like_gnu`: `dents ls OPTS` and GNU `ls` on
/// 2,000 operands of 20,000 entries, their output closed after the first
/// line: both killed by SIGPIPE within the bound, quietly.
fn check_closed_pipe_like_gnu(opts: &[&str]) {
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    dents_testfs::fill_flat(&tmp.path().join("d"), 20_000, |i| format!("f{i:06}"));
    // 2,000 operands of 20,000 entries each: 40 million names, tens of
    // seconds to list in full (about 4 s per 4 million on the project's
    // machines), far beyond the bound.
    let bound = std::time::Duration::from_secs(2);
    let operands = vec!["d"; 2000];
    let gnu_opts: Vec<&str> = opts
        .iter()
        .copied()
        .filter(|o| *o != "--sort=name")
        .collect();
    let mut d = dents();
    d.current_dir(tmp.path())
        .arg("ls")
        .args(opts)
        .args(&operands);
    let mut g = gnu_ls();
    g.current_dir(tmp.path()).args(&gnu_opts).args(&operands);
    let (d_line, d_status, d_err, took) = dents_testfs::first_line_then_close(d, b'\n', bound);
    let (g_line, g_status, g_err, _) = dents_testfs::first_line_then_close(g, b'\n', bound);
    // GNU is killed by SIGPIPE at its next write, and says nothing.
    assert_eq!(
        g_status.and_then(|s| s.signal()),
        Some(libc_sigpipe()),
        "GNU ls {gnu_opts:?}"
    );
    assert!(g_err.is_empty(), "GNU ls {gnu_opts:?}");
    assert!(
        d_status.is_some(),
        "dents ls {opts:?} still running {took:?} after its output was closed"
    );
    assert_eq!(
        d_status.and_then(|s| s.signal()),
        Some(libc_sigpipe()),
        "dents ls {opts:?}: {d_status:?}"
    );
    assert!(
        d_err.is_empty(),
        "dents ls {opts:?}: {}",
        String::from_utf8_lossy(&d_err)
    );
    // Both begin with the first operand's heading.
    assert_eq!(d_line, b"d:\n", "dents ls {opts:?}");
    assert_eq!(g_line, b"d:\n", "GNU ls {gnu_opts:?}");
}

dents_testfs::test_cases! {
/// A closed pipe ends a long listing (many operands) at once and quietly,
/// as GNU's.
mod closed_pipe_like_gnu: &[&str] => check_closed_pipe_like_gnu;
    plain: &[],
    long: &["-l"],
    sorted_classify: &["--sort=name", "-F"],
}

#[test]
fn bad_options_are_usage_errors() {
    let out = output(dents().args(["ls", "--no-such-option"]));
    assert_eq!(out.status.code(), Some(2));
    // GNU's words: ls_term.rs, issue_24_messages.
    let out = output(dents().args(["ls", "-l", "--time-style=bogus", "."]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("invalid argument 'bogus' for 'time style'")
    );
    let out = output(dents().args(["nosuchcommand"]));
    assert_eq!(out.status.code(), Some(2));
}

/// One case of `symlink_arguments`: `dents ls DARGS` against GNU
/// `ls GARGS` in the fixture.
fn check_symlink_argument((dargs, gargs): (&[&str], &[&str])) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let (d, g) = both(fx.tmp.path(), dargs, gargs);
    assert_same(dargs, &d, &g);
}

dents_testfs::test_cases! {
/// Symlink arguments follow GNU's rules: without -l a symlink to a
/// directory is listed as the directory; with -l, -F or -d it is shown
/// as the link.
mod symlink_arguments: (&[&str], &[&str]) => check_symlink_argument;
    to_directory: (&["--sort=name", "d/link-dir"], &["d/link-dir"]),
    to_directory_long: (&["-l", "--sort=name", "d/link-dir"], &["-l", "d/link-dir"]),
    to_directory_classify: (&["-F", "--sort=name", "d/link-dir"], &["-F", "d/link-dir"]),
    to_directory_with_slash_long: (&["-l", "--sort=name", "d/link-dir/"], &["-l", "d/link-dir/"]),
    dangling: (&["--sort=name", "d/link-dangling"], &["d/link-dangling"]),
}

/// The `--debug` counters line of a dents run, as `(name, value)` pairs.
fn counters(stderr: &[u8]) -> Vec<(String, u64)> {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .rev()
        .find(|l| l.contains("by link count"))
        .expect("a counters line");
    line.trim_start_matches("dents: debug: ")
        .split(", ")
        .map(|kv| {
            let (k, v) = kv.rsplit_once(' ').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect()
}

fn counter(c: &[(String, u64)], name: &str) -> u64 {
    c.iter()
        .find(|(k, _)| k == name)
        .unwrap_or_else(|| panic!("no counter {name}"))
        .1
}

#[test]
fn slash_indicator_spares_stats_through_the_link_count() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("m");
    fs::create_dir(&d).unwrap();
    for i in 0..2000 {
        fs::File::create(d.join(format!("file{i:05}.txt"))).unwrap();
    }
    for n in ["sub", ".hidden-sub", "zdir"] {
        fs::create_dir(d.join(n)).unwrap();
    }
    symlink("sub", d.join("link-to-sub")).unwrap();
    run_ok(Command::new("mkfifo").arg(d.join("queue.fifo")));
    // Timestamps within the last second cannot show a change: wait them out
    // so that the link count is trusted rather than the fallback taken.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let out = output(
        dents()
            .args(["ls", "--debug", "--ignore-dtype", "-pA"])
            .arg(&d),
    );
    let g = output(gnu_ls().args(["-pA"]).arg(&d));
    assert_eq!(sorted_lines(&out.stdout), sorted_lines(&g.stdout));
    let c = counters(&out.stderr);
    assert_eq!(counter(&c, "fallbacks"), 0, "{c:?}");
    assert_eq!(counter(&c, "link count unusable"), 0, "{c:?}");
    // Three subdirectories among 2005 entries.  Likely directories first:
    // ".hidden-sub", then the dot-free names by length: "sub", "zdir"
    // (then "link-to-sub") — all three found after three stats; the 2002
    // others are non-directories by the link count.
    assert_eq!(counter(&c, "stats"), 3, "{c:?}");
    assert_eq!(counter(&c, "by link count"), 2002, "{c:?}");

    // Without -A the hidden subdirectory is not listed, but the link count
    // counts it: it must still be found (streamed and gathered listings),
    // or every other entry would be stat'ed looking for it.
    for args in [&["-p"][..], &["-p", "--sort=name"]] {
        let out = output(
            dents()
                .args(["ls", "--debug", "--ignore-dtype"])
                .args(args)
                .arg(&d),
        );
        let g = output(gnu_ls().args(["-p"]).arg(&d));
        assert_eq!(
            sorted_lines(&out.stdout),
            sorted_lines(&g.stdout),
            "{args:?}"
        );
        let c = counters(&out.stderr);
        assert_eq!(counter(&c, "fallbacks"), 0, "{args:?}: {c:?}");
        assert_eq!(counter(&c, "stats"), 3, "{args:?}: {c:?}");
    }

    // A change between the two stats of the directory forces the fallback:
    // here, a directory made just now is "recent".
    fs::create_dir(d.join("fresh")).unwrap();
    let out = output(
        dents()
            .args(["ls", "--debug", "--ignore-dtype", "-pA"])
            .arg(&d),
    );
    let g = output(gnu_ls().args(["-pA"]).arg(&d));
    assert_eq!(sorted_lines(&out.stdout), sorted_lines(&g.stdout));
    let c = counters(&out.stderr);
    assert_eq!(counter(&c, "fallbacks"), 1, "{c:?}");
    assert_eq!(counter(&c, "stats"), 2006, "{c:?}");
}

/// Whether `dents ls --debug` read `dir` in slices (where the temporary
/// directory's filesystem slices at all); says why not otherwise.
fn read_in_slices(dir: &Path) -> bool {
    let d = output(dents().args(["ls", "--debug", "-j4"]).arg(dir));
    let sliced = String::from_utf8_lossy(&d.stderr).contains("Sliced");
    if !sliced {
        dents_testfs::skip("temp dir does not slice big directories: sliced -l not exercised");
    }
    sliced
}

/// One case of `sliced_long_listing`: `dents ls ARGS` against GNU's on a
/// directory of 30,000 entries and more, read in slices.
fn check_sliced_long_listing(args: &[&str]) {
    // The slices' readers stat their own entries, so symlinks' targets
    // (kept per slice, renumbered at the join), hidden entries, types and
    // modes come from every slice: all must land on the right lines.
    let tmp = tempfile::tempdir().unwrap();
    let big = big_dir(tmp.path(), 30_000);
    for i in (0..30_000).step_by(997) {
        let target = format!("IMG_{:07}.JPG", (i * 7) % 30_000);
        symlink(&target, big.join(format!("link{i:05}"))).unwrap();
        symlink(format!("gone{i}"), big.join(format!("dangling{i:05}"))).unwrap();
        fs::create_dir(big.join(format!("sub{i:05}"))).unwrap();
        fs::write(big.join(format!(".hidden{i:05}")), b"x").unwrap();
        let exe = big.join(format!("run{i:05}"));
        fs::write(&exe, b"#!/bin/sh\n").unwrap();
        fs::set_permissions(&exe, fs::Permissions::from_mode(0o755)).unwrap();
    }
    if !read_in_slices(&big) {
        return;
    }
    // dents's default order is the directory's: named first, so that
    // a sort letter of `args` overrides it as GNU's does its default.
    let dargs: Vec<&str> = ["--sort=name"]
        .into_iter()
        .chain(args.iter().copied())
        .chain(["-j4", "big"])
        .collect();
    let gargs: Vec<&str> = args.iter().copied().chain(["big"]).collect();
    let (d, g) = both(tmp.path(), &dargs, &gargs);
    assert!(g.stdout.len() > 30_000 * 40, "GNU listed {args:?} whole");
    assert_same(&dargs, &d, &g);
}

dents_testfs::test_cases! {
/// A sliced long listing, stated while read, is GNU's.
mod sliced_long_listing: &[&str] => check_sliced_long_listing;
    long: &["-l"],
    long_all: &["-la"],
    long_classify: &["-lF"],
    long_inode: &["-li"],
    long_numeric_full_iso: &["-ln", "--time-style=full-iso"],
    long_by_size: &["-lS"],
    long_by_time_reversed: &["-ltr"],
    long_slash: &["-lp"],
    long_recursive: &["-lR"],
}

/// Runs one case of a table: `dents ls DARGS` against GNU `ls GARGS` in
/// the fixture (`LS_COLORS` set to `colors`, if any).
fn check_against_gnu((dargs, gargs, colors): (&[&str], &[&str], Option<&str>)) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let mut d = dents();
    let mut g = gnu_ls();
    for c in [&mut d, &mut g] {
        c.current_dir(fx.tmp.path()).env_remove("LS_COLORS");
        if let Some(colors) = colors {
            c.env("LS_COLORS", colors);
        }
    }
    let d = output(d.arg("ls").args(dargs));
    let g = output(g.args(gargs));
    assert_same(dargs, &d, &g);
}

dents_testfs::test_cases! {
/// Issue 24's options against GNU ls in the fixture: (dents's arguments,
/// GNU's, `LS_COLORS`).  dents is given `--sort=name` (GNU's default
/// order, which dents applies off a terminal when asked).
mod issue_24: (&[&str], &[&str], Option<&str>) => check_against_gnu;
    // 24.15: -1 has no effect after -l (before it, -l wins anyway).
    long_then_one: (&["-l", "-1", "--sort=name", "d"], &["-l", "-1", "d"], None),
    one_then_long: (&["-1", "-l", "--sort=name", "d"], &["-1", "-l", "d"], None),
    no_group_then_one: (&["-g", "-1", "--sort=name", "d"], &["-g", "-1", "d"], None),
    full_time_then_one: (
        &["--full-time", "-1", "--sort=name", "d"],
        &["--full-time", "-1", "d"],
        None
    ),
    long_one_columns: (&["-l", "-1", "-C", "--sort=name", "d"], &["-l", "-1", "-C", "d"], None),
    long_then_single_column_word: (
        &["-l", "--format=single-column", "--sort=name", "d"],
        &["-l", "--format=single-column", "d"],
        None
    ),
    long_unsorted_one: (&["-l", "-U", "-1", "d"], &["-l", "-U", "-1", "d"], None),
    long_f_one: (&["-l", "-f", "-1", "d"], &["-l", "-f", "-1", "d"], None),
    // 24.20: unsorted with -a, `.` and `..` where the directory has them,
    // off a terminal too (streamed or gathered).
    all_unsorted: (&["-a", "-U", "d"], &["-a", "-U", "d"], None),
    f_option: (&["-f", "d"], &["-f", "d"], None),
    all_unsorted_columns: (&["-a", "-U", "-C", "d"], &["-a", "-U", "-C", "d"], None),
    all_unsorted_long: (&["-a", "-U", "-l", "d"], &["-a", "-U", "-l", "d"], None),
    all_unsorted_recursive: (
        &["-a", "-U", "-R", "d/subdir"],
        &["-a", "-U", "-R", "d/subdir"],
        None
    ),
    // 24.16: -p does not look at a symlink's target (GNU: `sl -> dir`),
    // --file-type and -F do, and so do colors that check targets and
    // --group-directories-first.
    long_slash: (&["-l", "-p", "--sort=name", "d"], &["-l", "-p", "d"], None),
    long_indicator_style_slash: (
        &["-l", "--indicator-style=slash", "--sort=name", "d"],
        &["-l", "--indicator-style=slash", "d"],
        None
    ),
    long_slash_operands: (
        &["-l", "-p", "--sort=name", "d/link-dir", "d/link-file", "d/one"],
        &["-l", "-p", "d/link-dir", "d/link-file", "d/one"],
        None
    ),
    long_file_type: (&["-l", "--file-type", "--sort=name", "d"], &["-l", "--file-type", "d"], None),
    long_slash_dirs_first: (
        &["-l", "-p", "--group-directories-first", "--sort=name", "d"],
        &["-l", "-p", "--group-directories-first", "d"],
        None
    ),
    long_slash_colors_checking_targets: (
        &["-l", "-p", "--color=always", "--sort=name", "d"],
        &["-l", "-p", "--color=always", "d"],
        Some("or=01;31:di=01;34")
    ),
    long_slash_colors_not_checking_targets: (
        &["-l", "-p", "--color=always", "--sort=name", "d"],
        &["-l", "-p", "--color=always", "d"],
        Some("di=01;34")
    ),
}

/// Where standard output goes in [`output_failures`]: the shell's
/// redirection.
const TO_FULL_DISK: &str = ">/dev/full";
/// Standard output closed before ls starts.
const CLOSED: &str = ">&-";

/// Lists `args` in a tree holding a directory of 20,000 names (more than
/// one buffer of output) and one that nobody can open, as nobody, with
/// standard output sent where `redirect` says: the same messages, in the
/// same order, and status as GNU ls, whose stdio keeps a failed write
/// for `close_stdout` and lists the rest.
fn fails_to_write_like_gnu((redirect, dargs, gargs): (&str, &[&str], &[&str])) {
    if !dents_testfs::needs_root("cannot switch to another user") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    big_dir(tmp.path(), 20_000);
    let locked = tmp.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let script = format!("exec \"$0\" \"$@\" {redirect}");
    let shell = || {
        let mut c = Command::new("sh");
        c.current_dir(tmp.path())
            .env("LC_ALL", "C")
            .env("TZ", "UTC")
            .env_remove("TIME_STYLE")
            .args(["-c", &script]);
        c
    };
    let mut dc = shell();
    dc.arg(env!("CARGO_BIN_EXE_dents")).arg("ls").args(dargs);
    let mut gc = shell();
    gc.arg("ls").args(gargs);
    let d = output(&mut as_nobody(dc));
    let g = output(&mut as_nobody(gc));
    assert!(
        !g.stderr.is_empty(),
        "GNU ls said nothing: the case tests nothing"
    );
    assert_same_status_and_stderr(dargs, &d, &g);
}

dents_testfs::test_cases! {
    /// One test per command line and failing output: the messages and
    /// status of GNU ls.
    mod output_failures: (&str, &[&str], &[&str]) => fails_to_write_like_gnu;
    full_disk: (super::TO_FULL_DISK, &["--sort=name", "big"], &["big"]),
    full_disk_then_unreadable: (super::TO_FULL_DISK, &["--sort=name", "big", "locked"], &["big", "locked"]),
    full_disk_long_then_unreadable: (super::TO_FULL_DISK, &["-l", "--sort=name", "big", "locked"], &["-l", "big", "locked"]),
    full_disk_recursive: (super::TO_FULL_DISK, &["-R", "--sort=name", "."], &["-R", "."]),
    closed: (super::CLOSED, &["--sort=name", "big"], &["big"]),
    closed_then_unreadable: (super::CLOSED, &["--sort=name", "big", "locked"], &["big", "locked"]),
}

/// Lists `args` as nobody, in a tree holding a directory of 20,000 names
/// and one that nobody can open, with standard output and standard error
/// in one file: the messages come between the same lines as GNU ls's
/// (its `error()` flushes standard output first).
fn messages_in_place_like_gnu((dargs, gargs): (&[&str], &[&str])) {
    if !dents_testfs::needs_root("cannot switch to another user") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    big_dir(tmp.path(), 20_000);
    let locked = tmp.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let joined = |mut cmd: Command, name: &str| {
        let path = tmp.path().join(name);
        let file = fs::File::create(&path).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
        cmd.current_dir(tmp.path())
            .stdout(file.try_clone().unwrap())
            .stderr(file);
        let status = as_nobody(cmd).status().unwrap();
        (status.code(), fs::read(&path).unwrap())
    };
    let mut dc = dents();
    dc.arg("ls").args(dargs);
    let mut gc = gnu_ls();
    gc.args(gargs);
    let (dcode, d) = joined(dc, "dents.out");
    let (gcode, g) = joined(gc, "ls.out");
    assert_eq!(dcode, gcode, "exit status of {dargs:?}");
    assert!(
        stderr_of(&d, b"dents:") == stderr_of(&g, b"ls:"),
        "dents ls {dargs:?} with 2>&1 differs from GNU ls: first difference at line {}",
        d.split(|&b| b == b'\n')
            .zip(g.split(|&b| b == b'\n'))
            .position(|(a, b)| a != b && stderr_of(a, b"dents:") != stderr_of(b, b"ls:"))
            .map_or("(length)".to_string(), |i| (i + 1).to_string())
    );
}

dents_testfs::test_cases! {
    /// One test per command line: messages and output in one file.
    mod messages_in_place: (&[&str], &[&str]) => messages_in_place_like_gnu;
    short: (&["--sort=name", "big", "locked"], &["big", "locked"]),
    one_per_line: (&["-1", "--sort=name", "big", "locked"], &["-1", "big", "locked"]),
    long: (&["-l", "--sort=name", "big", "locked"], &["-l", "big", "locked"]),
    recursive: (&["-R", "--sort=name", "."], &["-R", "."]),
    recursive_long: (&["-lR", "--sort=name", "."], &["-lR", "."]),
}
