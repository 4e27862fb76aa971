//! Errors that say what happened: the depth the walk knew, the step that
//! failed ([`Operation`]), and an entry whose stat fails kept as an entry.
//!
//! Permissions do not stop root, so the tests about them walk as the
//! unprivileged `nobody`: run as root, a test builds its tree, then runs
//! itself again, alone, in a child process of this test binary under
//! `setpriv` (the child does the walk and its checks); run unprivileged,
//! it does both itself.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use dents::{ErrorKind, Operation, StatFields, Walker};
use dents_testfs::cli::{as_nobody, have_program};
use dents_testfs::{FsKind, LoopFs};

/// The environment variable that carries the tree's path to the child
/// that walks it as nobody.
const TREE_VAR: &str = "DENTS_TEST_NOBODY_TREE";

/// A directory every user can enter, for trees walked as nobody.
fn open_tempdir() -> tempfile::TempDir {
    let t = tempfile::tempdir().expect("tempdir");
    fs::set_permissions(t.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
    t
}

/// Runs `walk_as_nobody` on the tree `build` makes, as an unprivileged
/// user: in this process if it is one, else in a child of this test
/// binary run by `setpriv` as nobody (`test` is the calling test's name,
/// which the child runs alone).  In the child, `build` is not called:
/// the tree is the parent's.
fn as_nobody_on(test: &str, build: impl FnOnce(&Path), walk_as_nobody: impl FnOnce(&Path)) {
    if let Some(tree) = std::env::var_os(TREE_VAR) {
        return walk_as_nobody(Path::new(&tree));
    }
    let tmp = open_tempdir();
    build(tmp.path());
    if !dents_testfs::is_root() {
        return walk_as_nobody(tmp.path());
    }
    if !have_program("setpriv", "--version") {
        return dents_testfs::skip("setpriv is not installed");
    }
    let exe = std::env::current_exe().expect("this test binary");
    let mut cmd = Command::new(exe);
    cmd.args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(TREE_VAR, tmp.path());
    let out = as_nobody(cmd).output().expect("setpriv runs");
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the walk as nobody failed:\n{said}");
    assert!(said.contains("1 passed"), "the child ran no test:\n{said}");
}

/// With roots inside other roots, each error has the depth below the
/// root it was reached from: the same loop, met from `a` and from `a/b`,
/// is at depth 3 and at depth 2 (not twice 2, as a depth re-derived from
/// the longest root that is a prefix of the path would have it).
#[test]
fn nested_roots_give_each_error_its_own_depth() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    fs::create_dir_all(a.join("b/c")).unwrap();
    symlink("..", a.join("b/c/up")).unwrap();
    for threads in [1, 4] {
        let mut got: Vec<(PathBuf, usize, Operation)> =
            Walker::from_roots([a.clone(), a.join("b")])
                .follow_links(dents::Follow::Always)
                .threads(threads)
                .into_iter()
                .filter_map(Result::err)
                .map(|e| {
                    assert!(matches!(e.kind(), ErrorKind::Loop { .. }), "{e}");
                    (e.path().to_owned(), e.depth(), e.operation())
                })
                .collect();
        got.sort_by(|x, y| (&x.0, x.1).cmp(&(&y.0, y.1)));
        let up = a.join("b/c/up");
        assert_eq!(
            got,
            [(up.clone(), 2, Operation::Enter), (up, 3, Operation::Enter)],
            "{threads} threads"
        );
    }
    // The closure form says the same.
    let depths = std::sync::Mutex::new(Vec::new());
    Walker::from_roots([a.clone(), a.join("b")])
        .follow_links(dents::Follow::Always)
        .for_each(|r| {
            if let Err(e) = r {
                depths.lock().unwrap().push(e.depth());
            }
            dents::Flow::Continue
        });
    let mut depths = depths.into_inner().unwrap();
    depths.sort();
    assert_eq!(depths, [2, 3]);
}

/// A directory that cannot be opened is an [`Operation::Open`] error at
/// its own depth; a missing root an [`Operation::Stat`] one.
#[test]
fn an_unopenable_directory_is_an_open_error() {
    as_nobody_on(
        "an_unopenable_directory_is_an_open_error",
        |t| {
            fs::create_dir_all(t.join("top/shut")).unwrap();
            fs::write(t.join("top/shut/f"), b"").unwrap();
            fs::set_permissions(t.join("top/shut"), fs::Permissions::from_mode(0o000)).unwrap();
        },
        |t| {
            let root = t.join("top");
            let missing = t.join("missing");
            let mut errors: Vec<_> = Walker::from_roots([&root, &missing])
                .into_iter()
                .filter_map(Result::err)
                .map(|e| {
                    let io = e.io_error().map(|io| io.raw_os_error());
                    (e.path().to_owned(), e.depth(), e.operation(), io)
                })
                .collect();
            errors.sort_by(|x, y| x.0.cmp(&y.0));
            assert_eq!(
                errors,
                [
                    (missing, 0, Operation::Stat, Some(Some(libc::ENOENT))),
                    (
                        root.join("shut"),
                        1,
                        Operation::Open,
                        Some(Some(libc::EACCES))
                    ),
                ]
            );
        },
    );
}

/// A directory that can be read but not searched (`r` without `x`): its
/// names are listed, but every stat below it fails with `EACCES`.  With
/// stat fields, each entry is still yielded, its [`DirEntry::metadata`]
/// the stat's error ([`Operation::Stat`]); the subdirectory that cannot
/// be opened is one error ([`Operation::Open`]), not two identical ones
/// (its stat's and its open's).
///
/// [`DirEntry::metadata`]: dents::DirEntry::metadata
#[test]
fn a_failed_stat_keeps_its_entry() {
    as_nobody_on(
        "a_failed_stat_keeps_its_entry",
        |t| {
            fs::create_dir_all(t.join("listable/sub")).unwrap();
            fs::write(t.join("listable/file"), b"12345").unwrap();
            fs::set_permissions(t.join("listable"), fs::Permissions::from_mode(0o744)).unwrap();
        },
        |t| {
            let root = t.join("listable");
            for threads in [1, 4] {
                let mut entries = BTreeMap::new();
                let mut errors = Vec::new();
                for r in Walker::new(&root)
                    .threads(threads)
                    .stat_fields(StatFields::BASIC)
                {
                    match r {
                        Ok(e) => {
                            let m = e.metadata().map(|m| m.is_dir()).map_err(|err| {
                                assert_eq!(err.path(), e.path());
                                assert_eq!(err.depth(), e.depth());
                                (
                                    err.operation(),
                                    err.io_error().and_then(|io| io.raw_os_error()),
                                )
                            });
                            entries.insert(e.path().to_owned(), m);
                        }
                        Err(e) => errors.push((e.path().to_owned(), e.operation())),
                    }
                }
                let denied = Err((Operation::Stat, Some(libc::EACCES)));
                assert_eq!(
                    entries,
                    BTreeMap::from([
                        (root.clone(), Ok(true)),
                        (root.join("file"), denied),
                        (root.join("sub"), denied),
                    ]),
                    "{threads} threads"
                );
                assert_eq!(
                    errors,
                    [(root.join("sub"), Operation::Open)],
                    "{threads} threads"
                );
            }
        },
    );
}

/// A directory whose read fails part way (a zeroed block in the middle
/// of an ext4 directory: `EBADMSG`) is an [`Operation::ReadCut`] error,
/// after the entries read before the bad block.
#[test]
fn a_read_cut_part_way_says_so() {
    let Some(lfs) = LoopFs::new_or_skip(FsKind::Ext4, 200) else {
        return;
    };
    lfs.build_corrupt_dir_tree();
    let big = lfs.path().join("big");
    for threads in [1, 4] {
        let mut entries = 0;
        let mut errors = Vec::new();
        for r in Walker::new(&big).threads(threads).min_depth(1) {
            match r {
                Ok(_) => entries += 1,
                Err(e) => errors.push((e.path().to_owned(), e.depth(), e.operation())),
            }
        }
        assert_eq!(
            errors,
            [(big.clone(), 0, Operation::ReadCut)],
            "{threads} threads"
        );
        assert!(entries > 0, "entries before the bad block were yielded");
    }
}
