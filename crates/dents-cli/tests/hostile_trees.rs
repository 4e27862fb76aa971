//! The walker under hostile conditions, through `dents find` (and `dents
//! ls` where the reading layer is shared), against GNU find: trees deeper
//! than the stack and `PATH_MAX`, a low descriptor limit, loops through
//! bind mounts, a real mount point with `-xdev`, a deleted working
//! directory, a small address space.

use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use dents_testfs::cli::run_ok;
use dents_testfs::{deep_chain, test_cases, DeepTmp};

fn dents_bin() -> &'static str {
    env!("CARGO_BIN_EXE_dents")
}

/// `dents find ARGS` in `cwd`, C locale.
fn dents_find(cwd: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(dents_bin());
    c.arg("find").args(args).current_dir(cwd);
    c.env("LC_ALL", "C").stdin(Stdio::null());
    c
}

/// GNU `find ARGS` in `cwd`, C locale.
fn gnu_find(cwd: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("find");
    c.args(args).current_dir(cwd);
    c.env("LC_ALL", "C").stdin(Stdio::null());
    c
}

/// What a run printed, summed up without holding it (a 20,000-level
/// chain prints 400 MB): the number of lines and an order-free hash of
/// them, the exit status, the whole stderr.
#[derive(Debug, PartialEq, Eq)]
struct Summary {
    lines: u64,
    hash: u64,
    status: Option<i32>,
    stderr: String,
}

fn summarize(mut cmd: Command) -> Summary {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        std::io::Read::read_to_end(&mut BufReader::new(stderr), &mut s).unwrap();
        s
    });
    let mut out = BufReader::with_capacity(1 << 20, child.stdout.take().unwrap());
    let (mut lines, mut hash) = (0u64, 0u64);
    let mut line = Vec::new();
    loop {
        line.clear();
        if out.read_until(b'\n', &mut line).unwrap() == 0 {
            break;
        }
        let mut h = DefaultHasher::new();
        line.hash(&mut h);
        hash = hash.wrapping_add(h.finish());
        lines += 1;
    }
    let status = child.wait().unwrap().code();
    let stderr = String::from_utf8(err.join().unwrap()).unwrap();
    Summary {
        lines,
        hash,
        status,
        stderr: stderr.replace("dents: ", "find: "),
    }
}

/// The bottom file's path in [`deep_chain`].
fn deep_leaf(levels: usize) -> String {
    format!("deep/{}f\n", "a/".repeat(levels))
}

const LEVELS: usize = 20_000;

#[test]
fn a_tree_of_20000_levels_is_walked_as_gnu_walks_it() {
    let tmp = DeepTmp::new();
    deep_chain(tmp.path(), LEVELS);
    let cwd = tmp.path();
    // Every path, pre- and post-order: as GNU's, which walks any depth.
    let pre = summarize(gnu_find(cwd, &["deep"]));
    assert_eq!(pre.lines, LEVELS as u64 + 2, "{pre:?}");
    let post = summarize(gnu_find(cwd, &["deep", "-depth"]));
    for (args, want) in [
        (&["deep"][..], &pre),
        (&["deep", "-depth"], &post),
        (&["-j", "1", "deep"], &pre),
        (&["-j", "1", "deep", "-depth"], &post),
        (&["-L", "deep"], &pre),
    ] {
        assert_eq!(
            &summarize(dents_find(cwd, args)),
            want,
            "dents find {args:?}"
        );
    }
    // The other ways through the tree, checked on the bottom file.
    let leaf = deep_leaf(LEVELS);
    for args in [
        &["-S", "dfs", "deep", "-name", "f"][..],
        &["-j", "1", "-S", "dfs", "deep", "-depth", "-name", "f"],
        &["-L", "deep", "-name", "f"],
        &["-L", "deep", "-depth", "-name", "f"],
    ] {
        let out = dents_find(cwd, args).output().unwrap();
        assert_eq!(
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).as_ref()
            ),
            (Some(0), ""),
            "dents find {args:?}"
        );
        assert_eq!(out.stdout, leaf.as_bytes(), "dents find {args:?}");
    }
}

#[test]
fn delete_removes_a_tree_of_20000_levels() {
    let tmp = DeepTmp::new();
    deep_chain(tmp.path(), LEVELS);
    for j in ["1", "4"] {
        let out = dents_find(tmp.path(), &["-j", j, "deep", "-delete"])
            .output()
            .unwrap();
        assert_eq!(
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).as_ref()
            ),
            (Some(0), ""),
            "-j {j}"
        );
        assert!(!tmp.path().join("deep").exists(), "-j {j}: entries left");
        if j == "1" {
            deep_chain(tmp.path(), LEVELS);
        }
    }
}

/// The lines of an output, sorted.
fn sorted_lines(out: &[u8]) -> BTreeSet<Vec<u8>> {
    out.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

#[test]
fn a_low_descriptor_limit_loses_no_entry() {
    // 60 directories of 3 levels, a file at each bottom, and one wide
    // directory; the limit leaves 3 to 29 descriptors beyond stdio.
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("t");
    for i in 0..60 {
        let d = t.join(format!("d{i}/e/g"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::File::create(d.join("f")).unwrap();
    }
    std::fs::create_dir_all(t.join("wide")).unwrap();
    for i in 0..200 {
        std::fs::create_dir(t.join(format!("wide/w{i}"))).unwrap();
        std::fs::File::create(t.join(format!("wide/w{i}/f"))).unwrap();
    }
    let want = gnu_find(tmp.path(), &["t", "-name", "f"]).output().unwrap();
    assert!(want.status.success());
    let want = sorted_lines(&want.stdout);
    assert_eq!(want.len(), 260);
    // 50 runs at each limit, the thread counts in turn, run at once.
    for limit in 6..=32 {
        let nofile = format!("--nofile={limit}");
        let children: Vec<_> = (0..50)
            .map(|run| {
                let j = ["1", "2", "8", "default"][run % 4];
                let mut c = Command::new("prlimit");
                c.arg(&nofile).arg("--").arg(dents_bin()).arg("find");
                if j != "default" {
                    c.args(["-j", j]);
                }
                c.args(["t", "-name", "f"]).current_dir(tmp.path());
                c.stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .stdin(Stdio::null());
                (j, c.spawn().unwrap())
            })
            .collect();
        for (j, c) in children {
            let out: Output = c.wait_with_output().unwrap();
            assert_eq!(
                (
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr).as_ref()
                ),
                (Some(0), ""),
                "limit {limit} -j {j}"
            );
            assert_eq!(sorted_lines(&out.stdout), want, "limit {limit} -j {j}");
        }
    }
}

#[test]
fn ls_recursive_under_a_low_descriptor_limit_is_gnus() {
    // GNU's ls -R holds one directory at a time; dents's workers hold one
    // each, its name lookups (-l) one more, a sliced read one a slice (or
    // none: read through the directory's own descriptor when none is
    // free). With 1 to 9 descriptors beyond stdio, the same bytes as GNU's.
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("t");
    for i in 0..40 {
        let d = t.join(format!("d{i}/e"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::File::create(d.join("f")).unwrap();
    }
    // Large enough to be read in slices (256 KiB of directory).
    let wide = t.join("wide");
    std::fs::create_dir_all(&wide).unwrap();
    for i in 0..6000 {
        std::fs::File::create(wide.join(format!("a-file-with-a-long-name-{i:05}"))).unwrap();
    }
    assert!(std::fs::metadata(&wide).unwrap().len() >= 256 * 1024);
    for args in [&["-R", "t"][..], &["-lR", "t"]] {
        let run = |program: &str, limit: u32| {
            let mut c = Command::new("prlimit");
            c.arg(format!("--nofile={limit}")).arg("--").arg(program);
            if program == dents_bin() {
                // Sorted off a terminal as GNU's is (dents streams unsorted).
                c.args(["ls", "--sort=name"]);
            }
            c.args(args)
                .current_dir(tmp.path())
                .env("LC_ALL", "C")
                .stdin(Stdio::null());
            c.output().unwrap()
        };
        let want = run("ls", 1024);
        assert!(
            want.status.success() && want.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&want.stderr)
        );
        for limit in 4..=12 {
            let out = run(dents_bin(), limit);
            assert_eq!(
                (
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr).as_ref()
                ),
                (Some(0), ""),
                "{args:?} limit {limit}"
            );
            assert!(
                out.stdout == want.stdout,
                "{args:?} limit {limit}: output differs"
            );
        }
    }
}

/// A mount made by a test; unmounted on drop.
struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Stdout's lines sorted, status, stderr with the program name as GNU's.
fn sorted_run(mut cmd: Command) -> (BTreeSet<Vec<u8>>, Option<i32>, String) {
    let out = cmd.output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    (
        sorted_lines(&out.stdout),
        out.status.code(),
        err.replace("dents: ", "find: "),
    )
}

/// `find ARGS` in `cwd` with each of `option_sets` before ARGS, as GNU's
/// `find ARGS` reports it there: the same lines (in any order), status
/// and messages.
fn like_gnu_at_each_option_set(cwd: &Path, option_sets: &[&[&str]], args: &[&str]) {
    let want = sorted_run(gnu_find(cwd, args));
    for set in option_sets {
        let mut all = set.to_vec();
        all.extend_from_slice(args);
        assert_eq!(
            sorted_run(dents_find(cwd, &all)),
            want,
            "dents find {all:?}"
        );
    }
}

/// `a` bind-mounted on `a/b/c` in a new temporary directory (a loop
/// through a mount); the directory and the mount, unmounted on drop.
/// `None` (the test skipped) without root.
fn bind_mount_loop() -> Option<(tempfile::TempDir, Mounted)> {
    if !dents_testfs::needs_root("cannot bind-mount") {
        return None;
    }
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    std::fs::create_dir_all(a.join("b/c")).unwrap();
    std::fs::create_dir_all(a.join("x/y")).unwrap();
    std::fs::File::create(a.join("b/f")).unwrap();
    run_ok(
        Command::new("mount")
            .arg("--bind")
            .arg(&a)
            .arg(a.join("b/c")),
    );
    let m = Mounted(a.join("b/c"));
    Some((tmp, m))
}

/// One case of `bind_mount_loop`: `find ARGS` (plain, on one thread,
/// depth first) on the loop through a bind mount, as GNU reports it.
fn check_bind_mount_loop(args: &[&str]) {
    let Some((tmp, _m)) = bind_mount_loop() else {
        return;
    };
    like_gnu_at_each_option_set(tmp.path(), &[&[], &["-j", "1"], &["-S", "dfs"]], args);
}

test_cases! {
/// A loop through a bind mount is reported as GNU reports it.
mod bind_mount_loop: &[&str] => check_bind_mount_loop;
    plain: &["a"],
    depth: &["a", "-depth"],
    maxdepth_2: &["a", "-maxdepth", "2"],
    maxdepth_1: &["a", "-maxdepth", "1"],
    mindepth_3: &["a", "-mindepth", "3"],
    xdev: &["a", "-xdev"],
    from_b: &["a/b"],
    from_the_mount: &["a/b/c"],
    follow: &["-L", "a"],
    name: &["a", "-name", "f"],
}

/// The loop is found even where GNU's message is the only output.
#[test]
fn a_loop_through_a_bind_mount_is_found_with_no_other_output() {
    let Some((tmp, _m)) = bind_mount_loop() else {
        return;
    };
    let cwd = tmp.path();
    let (_, status, err) = sorted_run(dents_find(cwd, &["a", "-mindepth", "3"]));
    assert_eq!(status, Some(1));
    assert!(err.contains("File system loop detected"), "{err}");
}

/// One case of `xdev_at_a_mount_point`: `find ARGS` on a tree with a
/// tmpfs mounted inside, as GNU's.
fn check_xdev_at_a_mount_point(args: &[&str]) {
    if !dents_testfs::needs_root("cannot mount a tmpfs") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("t");
    std::fs::create_dir_all(t.join("mnt")).unwrap();
    std::fs::create_dir_all(t.join("sub/deeper")).unwrap();
    std::fs::File::create(t.join("sub/f")).unwrap();
    run_ok(
        Command::new("mount")
            .args(["-t", "tmpfs", "tmpfs"])
            .arg(t.join("mnt")),
    );
    let _m = Mounted(t.join("mnt"));
    std::fs::create_dir_all(t.join("mnt/inside/more")).unwrap();
    std::fs::File::create(t.join("mnt/inside/g")).unwrap();
    let cwd = tmp.path();
    let want = sorted_run(gnu_find(cwd, args));
    assert_eq!(want.1, Some(0));
    assert_eq!(
        sorted_run(dents_find(cwd, args)),
        want,
        "dents find {args:?}"
    );
}

test_cases! {
/// `-xdev` and `-mount` stop at a real mount point.
mod xdev_at_a_mount_point: &[&str] => check_xdev_at_a_mount_point;
    xdev: &["t", "-xdev"],
    mount: &["t", "-mount"],
    plain: &["t"],
    xdev_depth: &["t", "-xdev", "-depth"],
    from_the_mount_point: &["t/mnt", "-xdev"],
}

/// One case of `deleted_working_directory`: `dents OURS` run in a
/// directory removed meanwhile prints what GNU's `THEIRS` prints there
/// (nothing, no error).
fn check_deleted_working_directory((ours, theirs): (&str, &str)) {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d");
    std::fs::create_dir(&d).unwrap();
    // A shell that enters d, removes it, then runs the command there.
    let in_removed = |prog: &str, args: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(format!("cd d && rmdir ../d && exec {prog} {args}"))
            .current_dir(tmp.path())
            .env("LC_ALL", "C")
            .output()
            .unwrap()
    };
    let ours = format!("{} {ours}", dents_bin());
    std::fs::create_dir_all(&d).unwrap();
    let want = in_removed(theirs, "");
    std::fs::create_dir_all(&d).unwrap();
    let got = in_removed(&ours, "");
    assert_eq!(
        (
            got.status.code(),
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&got.stderr)
        ),
        (
            want.status.code(),
            String::from_utf8_lossy(&want.stdout),
            String::from_utf8_lossy(&want.stderr)
        ),
        "{ours}"
    );
}

test_cases! {
/// A deleted working directory is empty, not an error.
mod deleted_working_directory: (&str, &str) => check_deleted_working_directory;
    find: ("find .", "find ."),
    find_depth: ("find . -depth", "find . -depth"),
    ls: ("ls", "ls"),
    ls_sorted_by_name: ("ls --sort=name", "ls"),
    ls_long: ("ls -l", "ls -l"),
}

#[test]
fn a_small_address_space_is_walked_or_refused_cleanly() {
    // A tree of a few thousand entries, and a directory of 3000 files.
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("t");
    for i in 0..30 {
        let d = t.join(format!("d{i}/e"));
        std::fs::create_dir_all(&d).unwrap();
        for k in 0..60 {
            std::fs::File::create(d.join(format!("f{k}"))).unwrap();
        }
    }
    let wide = tmp.path().join("wide");
    std::fs::create_dir(&wide).unwrap();
    for k in 0..3000 {
        std::fs::File::create(wide.join(format!("file-{k}"))).unwrap();
    }
    let cases: [&[&str]; 5] = [
        &["find", "t", "-ls"],
        &["find", "-j", "64", "t"],
        &["find", "t", "-depth", "-printf", "%p %s %u\n"],
        &["ls", "-l", "wide"],
        &["ls", "-l", "-j", "64", "--sort=name", "wide"],
    ];
    for args in cases {
        let full = Command::new(dents_bin())
            .args(args)
            .current_dir(tmp.path())
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        assert!(full.status.success(), "{args:?}");
        let sorted = args[0] == "find";
        let lines = |o: &[u8]| {
            let mut v: Vec<&[u8]> = o.split(|&b| b == b'\n').collect();
            if sorted {
                v.sort_unstable();
            }
            v.iter().map(|l| l.to_vec()).collect::<Vec<_>>()
        };
        for mib in [10u64, 16, 24, 32, 48, 64] {
            let out = Command::new("prlimit")
                .arg(format!("--as={}", mib << 20))
                .arg("--")
                .arg(dents_bin())
                .args(args)
                .current_dir(tmp.path())
                .env("LC_ALL", "C")
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            // Never a crash: the whole answer, or GNU's refusal.
            if out.status.success() {
                assert_eq!(
                    lines(&out.stdout),
                    lines(&full.stdout),
                    "{args:?} at {mib} MiB"
                );
                assert_eq!(err, "", "{args:?} at {mib} MiB");
            } else {
                let want = if args[0] == "find" { 1 } else { 2 };
                assert_eq!(
                    (out.status.code(), err.as_ref()),
                    (Some(want), "dents: memory exhausted\n"),
                    "{args:?} at {mib} MiB"
                );
                assert!(mib < 24, "{args:?} needs more than {mib} MiB");
            }
        }
    }
}

/// One case of `loop_of_links`: `find ARGS` (plain, on one thread,
/// sorted) on a tree with loops of symlinks, as GNU reports them.
fn check_loop_of_links(args: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    std::fs::create_dir_all(a.join("b/c")).unwrap();
    std::fs::File::create(a.join("b/c/f")).unwrap();
    std::os::unix::fs::symlink("..", a.join("b/up")).unwrap();
    std::os::unix::fs::symlink("../..", a.join("b/c/top")).unwrap();
    like_gnu_at_each_option_set(tmp.path(), &[&[], &["-j", "1"], &["-s"]], args);
}

test_cases! {
/// A loop of links is reported at every depth limit as GNU reports it.
mod loop_of_links: &[&str] => check_loop_of_links;
    follow: &["-L", "a"],
    maxdepth_1: &["-L", "a", "-maxdepth", "1"],
    maxdepth_2: &["-L", "a", "-maxdepth", "2"],
    maxdepth_3: &["-L", "a", "-maxdepth", "3"],
    mindepth_3: &["-L", "a", "-mindepth", "3"],
    depth: &["-L", "a", "-depth"],
    type_d: &["-L", "a", "-type", "d"],
}
