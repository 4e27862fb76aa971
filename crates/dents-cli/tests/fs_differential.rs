//! Differential tests on real filesystems: `dents find` against GNU find and
//! `dents ls` against GNU ls on every kind of filesystem `dents_testfs`
//! makes (ext4 hashed, ext4 without `dir_index`, ext4 without `filetype`,
//! XFS, btrfs, tmpfs), one test function per kind so that one can be run
//! alone.
//!
//! The tree (`t/` at the root of the filesystem) has a directory `t/big` of
//! more than 20,000 entries (files, subdirectories, symlinks, a hard link)
//! large enough to be read in slices on ext4 and XFS (checked: with strace
//! for `find`, with `--debug` for `ls`), and a tree `t/tree` of nested
//! directories, symlinks (good, dangling, looping), a fifo, empty files
//! and directories, and every awkward name of `dents_testfs::awkward_names`.
//!
//! For each expression of a table, both tools' standard output (records
//! split at the separator the expression uses, sorted: dents's order is its
//! own), exit status and standard error (as bytes, program name aside,
//! lines sorted) must be equal; for `ls` in a sorted mode the standard
//! output must be equal byte for byte.
//!
//! Without root or the mkfs tools these tests print `SKIPPED` and pass;
//! under CI they fail (see `dents_testfs`).

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use dents_testfs::cli::{run_ok, sorted_records, stderr_lines};
use dents_testfs::{awkward_names, fill_flat, skip, FsKind, LoopFs};

/// Files in `t/big`, besides its subdirectories and links: past the 16,384
/// entries at which one directory's visit goes parallel.
const BIG_FILES: usize = 20_500;

/// Subdirectories of `t/big`.
const BIG_SUBDIRS: usize = 40;

/// The name of file `i` of `t/big`.
fn big_name(i: usize) -> String {
    // Short: on ext4 without dir_index each creation scans the whole
    // linear directory, so its size makes the tree's cost.
    format!("f{i:05}")
}

/// Whether dents reads a big directory of `kind` in slices.
fn sliceable(kind: FsKind) -> bool {
    matches!(
        kind,
        FsKind::Ext4 | FsKind::Ext4NoDirIndex | FsKind::Ext4NoFiletype | FsKind::Xfs
    )
}

/// Builds `t/` in `root` (see the module docs).
fn build(root: &Path) {
    let t = root.join("t");
    let big = t.join("big");
    fill_flat(&big, BIG_FILES, big_name);
    // A few files with contents, for -size and %s.
    for i in (0..BIG_FILES).step_by(997) {
        fs::write(big.join(big_name(i)), vec![b'x'; i % 3000]).unwrap();
    }
    // Subdirectories among the files: on ext4 without `filetype` they must
    // be told apart from the 20,000 files while the directory is sliced.
    for k in 0..BIG_SUBDIRS {
        let s = big.join(format!("sub{k:03}"));
        fs::create_dir(&s).unwrap();
        if k % 2 == 0 {
            fs::write(s.join("inner"), b"inner\n").unwrap();
        }
    }
    for k in 0..5 {
        symlink(big_name(k), big.join(format!("link{k}"))).unwrap();
    }
    symlink("sub001", big.join("link-dir")).unwrap();
    symlink("nowhere", big.join("link-dangling")).unwrap();
    fs::hard_link(big.join(big_name(7)), big.join("hard")).unwrap();

    let tree = t.join("tree");
    fs::create_dir_all(tree.join("a/b/c/d")).unwrap();
    fs::create_dir_all(tree.join("empty-dir")).unwrap();
    fs::write(tree.join("a/one"), b"1").unwrap();
    fs::write(tree.join("a/b/leaf.txt"), vec![b'l'; 5000]).unwrap();
    fs::write(tree.join("a/b/c/d/deepest"), b"").unwrap();
    fs::write(tree.join("empty-file"), b"").unwrap();
    let exe = tree.join("a/run.sh");
    fs::write(&exe, b"#!/bin/sh\n").unwrap();
    fs::set_permissions(&exe, fs::Permissions::from_mode(0o755)).unwrap();
    symlink("a", tree.join("to-a")).unwrap();
    symlink("a/b/leaf.txt", tree.join("to-leaf")).unwrap();
    symlink("nowhere", tree.join("dangling")).unwrap();
    symlink("loop", tree.join("loop")).unwrap();
    run_ok(Command::new("mkfifo").arg(tree.join("fifo")));
    let awk = tree.join("awkward");
    let names = awkward_names();
    fill_flat(&awk, names.len(), |i| names[i].clone());
    let odd = awk.join(OsStr::from_bytes(b"dir with\nnewline"));
    fs::create_dir(&odd).unwrap();
    fs::write(odd.join(OsStr::from_bytes(b"in\xffside")), b"abc").unwrap();
}

/// `program ARGS` in `cwd` with the tests' environment and no terminal.
fn run(program: &str, cwd: &Path, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env("NO_COLOR", "1")
        .env_remove("POSIXLY_CORRECT")
        .env_remove("LS_COLORS")
        .env_remove("TIME_STYLE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// `dents ARGS` in `cwd`.
fn dents(cwd: &Path, args: &[&str]) -> Output {
    run(env!("CARGO_BIN_EXE_dents"), cwd, args)
}

/// At most `n` records of each side that the other lacks, for messages.
fn difference(d: &[Vec<u8>], g: &[Vec<u8>], n: usize) -> String {
    let only = |a: &[Vec<u8>], b: &[Vec<u8>]| -> Vec<String> {
        let set: std::collections::HashSet<&Vec<u8>> = b.iter().collect();
        a.iter()
            .filter(|r| !set.contains(r))
            .take(n)
            .map(|r| format!("{:?}", String::from_utf8_lossy(r)))
            .collect()
    };
    format!(
        "{} records from dents, {} from GNU; only dents: {:?}; only GNU: {:?}",
        d.len(),
        g.len(),
        only(d, g),
        only(g, d)
    )
}

/// Compares the two runs; `sorted` says whether stdout's records are
/// sorted first (split at `sep`) or compared byte for byte.
fn compare(what: &str, d: &Output, g: &Output, sep: u8, sorted: bool) -> Option<String> {
    let mut problems = Vec::new();
    let (dout, gout) = if sorted {
        (
            sorted_records(&d.stdout, sep),
            sorted_records(&g.stdout, sep),
        )
    } else {
        (vec![d.stdout.clone()], vec![g.stdout.clone()])
    };
    if dout != gout {
        problems.push(if sorted {
            format!("stdout: {}", difference(&dout, &gout, 5))
        } else {
            let at = d
                .stdout
                .iter()
                .zip(&g.stdout)
                .position(|(a, b)| a != b)
                .unwrap_or(d.stdout.len().min(g.stdout.len()));
            let from = at.saturating_sub(80);
            format!(
                "stdout differs at byte {at} (dents {} bytes, GNU {}):\n  dents: {:?}\n  GNU:   {:?}",
                d.stdout.len(),
                g.stdout.len(),
                String::from_utf8_lossy(&d.stdout[from..(at + 80).min(d.stdout.len())]),
                String::from_utf8_lossy(&g.stdout[from..(at + 80).min(g.stdout.len())]),
            )
        });
    }
    if d.status.code() != g.status.code() {
        problems.push(format!(
            "exit status: dents {:?}, GNU {:?}",
            d.status.code(),
            g.status.code()
        ));
    }
    let prog: &[u8] = if what.starts_with("ls") {
        b"ls:"
    } else {
        b"find:"
    };
    let (de, ge) = (
        stderr_lines(&d.stderr, b"dents:"),
        stderr_lines(&g.stderr, prog),
    );
    if de != ge {
        problems.push(format!("stderr: {}", difference(&de, &ge, 5)));
    }
    (!problems.is_empty()).then(|| format!("== {what}\n  {}", problems.join("\n  ")))
}

/// `find` expressions, run in the filesystem's root by both tools.
const FIND_CASES: &[&[&str]] = &[
    &["t"],
    &["t", "-type", "f"],
    &["t", "-type", "d"],
    &["t", "-type", "l"],
    &["t", "-type", "p"],
    &["t", "-type", "f,l"],
    &["t/big", "-maxdepth", "1", "-type", "d"],
    &["t", "-xtype", "l"],
    &["t", "-name", "*7*"],
    &["t", "-name", "sub0[0-2]*", "-o", "-name", ".*"],
    &["t", "-iname", "F0000*"],
    &["t", "-size", "+0"],
    &["t", "-size", "-2k", "-type", "f"],
    &["t", "-size", "+1k"],
    &["t", "-size", "1"],
    &["t", "-size", "2000c"],
    &[
        "t",
        "-printf",
        "%p|%f|%h|%P|%d|%y|%Y|%s|%n|%m|%M|%i|%l|%k|%b|%T@|%C@\\n",
    ],
    &["t/tree", "-printf", "[%-20f][%5d][%.3p]\\0"],
    &["t", "-empty"],
    &["t", "-type", "d", "-empty"],
    &["t", "-links", "1", "-type", "f"],
    &["t", "-links", "+1"],
    &["t", "-links", "2"],
    &["t", "-print0"],
    &["t/tree", "-name", "*e*", "-print0"],
    &["t", "-depth"],
    &["t/tree", "-depth", "-type", "d"],
    &["t", "-mindepth", "2", "-maxdepth", "2"],
    &["t", "-maxdepth", "1"],
    &["t", "-mindepth", "3"],
    &["t", "-maxdepth", "0"],
    &["t", "-name", "sub0*", "-prune", "-o", "-print"],
    &[
        "t", "-path", "t/tree", "-prune", "-o", "-name", "*1*", "-print",
    ],
    &["t", "-depth", "-name", "a", "-prune", "-o", "-print"],
    &["t", "-perm", "-u+x", "-type", "f"],
    &["t", "-newer", "t/tree/a/one", "-name", "*deep*"],
    &["-L", "t/tree"],
    &["-L", "t", "-type", "d"],
    &["-H", "t/tree/to-a", "-type", "f"],
    &["t", "-samefile", "t/big/hard"],
    &["t", "-quit"],
    &["t/nonexistent", "t/tree/a"],
];

/// `(dents ls ARGS, GNU ls ARGS, sorted)`: with `sorted` false the outputs
/// must be equal byte for byte; with it true, as sorted lines (dents lists
/// in directory order by default).
const LS_CASES: &[(&[&str], &[&str], bool)] = &[
    (&["ls", "t/big"], &["t/big"], true),
    (&["ls", "-a", "t/big"], &["-a", "t/big"], true),
    (&["ls", "-F", "t/big"], &["-F", "t/big"], true),
    (
        &["ls", "-1", "t/tree/awkward"],
        &["-1", "t/tree/awkward"],
        true,
    ),
    (&["ls", "--sort=name", "t/big"], &["t/big"], false),
    (
        &["ls", "-a", "--sort=name", "t/big"],
        &["-a", "t/big"],
        false,
    ),
    (
        &["ls", "-l", "--sort=name", "t/big"],
        &["-l", "t/big"],
        false,
    ),
    (
        &["ls", "-i", "--sort=name", "t/big"],
        &["-i", "t/big"],
        false,
    ),
    (
        &["ls", "-F", "--sort=name", "t/big"],
        &["-F", "t/big"],
        false,
    ),
    (
        &["ls", "-a", "--sort=name", "t/tree/awkward"],
        &["-a", "t/tree/awkward"],
        false,
    ),
    (
        &["ls", "-l", "--sort=name", "t/tree", "t/tree/awkward"],
        &["-l", "t/tree", "t/tree/awkward"],
        false,
    ),
    (
        &["ls", "-lai", "--sort=name", "t/tree/a"],
        &["-lai", "t/tree/a"],
        false,
    ),
    (
        &["ls", "-F", "--sort=name", "t/tree"],
        &["-F", "t/tree"],
        false,
    ),
    (
        &["ls", "-l", "--sort=size", "t/tree"],
        &["-lS", "t/tree"],
        false,
    ),
    (
        &["ls", "--sort=name", "t/nonexistent", "t/tree/a"],
        &["t/nonexistent", "t/tree/a"],
        false,
    ),
];

/// Runs every case on a new filesystem of `kind`.
fn differential(kind: FsKind) {
    let Some(fs) = LoopFs::new_or_skip(kind, 256) else {
        return;
    };
    let started = std::time::Instant::now();
    let root = fs.path();
    build(root);
    let built = started.elapsed();
    let big = root.join("t/big");
    let n_big = fs::read_dir(&big).unwrap().count();
    assert_eq!(n_big, BIG_FILES + BIG_SUBDIRS + 8);
    assert!(n_big > 16_384);
    if sliceable(kind) {
        let size = fs::metadata(&big).unwrap().len();
        assert!(
            size >= dents::slice::DEFAULT_MIN_SLICED_SIZE,
            "{kind:?}: t/big is {size} bytes, too small to be sliced"
        );
    }
    let mut failures = Vec::new();
    for args in FIND_CASES {
        let mut dargs = vec!["find"];
        dargs.extend_from_slice(args);
        let d = dents(root, &dargs);
        let g = run("find", root, args);
        let sep = if args.contains(&"-print0") || args.iter().any(|a| a.ends_with("\\0")) {
            0
        } else {
            b'\n'
        };
        failures.extend(compare(&format!("find {args:?}"), &d, &g, sep, true));
    }
    for (dargs, gargs, sorted) in LS_CASES {
        let d = dents(root, dargs);
        let g = run("ls", root, gargs);
        let what = format!("ls {dargs:?} / ls {gargs:?}");
        failures.extend(compare(&what, &d, &g, b'\n', *sorted));
    }
    assert!(
        failures.is_empty(),
        "{kind:?}: {} of {} cases differ from GNU:\n{}",
        failures.len(),
        FIND_CASES.len() + LS_CASES.len(),
        failures.join("\n")
    );
    check_slicing(kind, root);
    eprintln!(
        "{kind:?}: tree built in {built:.1?}, differential done in {:.1?}",
        started.elapsed()
    );
}

/// Asserts that `t/big` was read in slices by `find` and by `ls` where the
/// filesystem allows it, and serially elsewhere.
fn check_slicing(kind: FsKind, root: &Path) {
    // ls says how it read each directory.
    let out = dents(root, &["ls", "--debug", "t/big"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.contains("plan Sliced"),
        sliceable(kind),
        "{kind:?}: dents ls --debug t/big: {err}"
    );
    // find: each slice reads on a descriptor of its own, opened as "."
    // relative to the directory's.
    if Command::new("strace").arg("-V").output().is_err() {
        return skip("strace not installed: find's sliced read not checked");
    }
    let log = root.join("strace.out");
    let st = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=openat", "-o"])
        .arg(&log)
        .arg(env!("CARGO_BIN_EXE_dents"))
        .args(["find", "t/big", "-type", "f"])
        .current_dir(root)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    let text = fs::read_to_string(&log).unwrap();
    fs::remove_file(&log).unwrap();
    let reopens = text
        .lines()
        .filter(|l| l.contains("openat(") && l.contains(", \".\", ") && l.contains("O_DIRECTORY"))
        .count();
    if sliceable(kind) {
        assert!(
            reopens >= 2,
            "{kind:?}: find read t/big without slices ({reopens} reopens)"
        );
    } else {
        assert_eq!(reopens, 0, "{kind:?}: find sliced t/big");
    }
}

#[test]
fn find_and_ls_match_gnu_on_ext4() {
    differential(FsKind::Ext4);
}

#[test]
fn find_and_ls_match_gnu_on_ext4_without_dir_index() {
    differential(FsKind::Ext4NoDirIndex);
}

#[test]
fn find_and_ls_match_gnu_on_ext4_without_filetype() {
    differential(FsKind::Ext4NoFiletype);
}

#[test]
fn find_and_ls_match_gnu_on_xfs() {
    differential(FsKind::Xfs);
}

#[test]
fn find_and_ls_match_gnu_on_btrfs() {
    differential(FsKind::Btrfs);
}

#[test]
fn find_and_ls_match_gnu_on_tmpfs() {
    differential(FsKind::Tmpfs);
}
