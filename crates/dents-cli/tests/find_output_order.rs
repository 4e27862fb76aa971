//! `dents find`'s output in the walk's order, where a huge directory is
//! read in slices (or its entries, typed by stats, visited) on threads of
//! their own, each with an output buffer of its own.
//!
//! With one worker a directory's line must come before the lines of its
//! entries (depth first, and in the default order), and with the default
//! order at any number of workers every line of depth 3 or less before
//! any deeper line: the order's guarantee holds for what is printed, not
//! only for the visits.  Before the fix, the slice threads wrote their
//! lines before the worker's own buffer, which held the huge directory's
//! line: 19,836 of 20,021 lines came before their directory's.

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use dents_testfs::{fill_flat, FsKind, LoopFs};

/// Files in the huge directory: about 600 KiB of directory, well above
/// the 256 KiB from which a directory is read in slices.
const HUGE: usize = 20_000;

/// The tree under `root`: `a/huge` (depth 2) with [`HUGE`] files and a
/// few nested subdirectories, and a fan of directories down to depth 6
/// with files at every level.
fn make_tree(root: &Path) {
    let huge = root.join("a/huge");
    fill_flat(&huge, HUGE, |i| format!("file-{i:06}-with-a-longer-name"));
    for i in 0..5 {
        fs::create_dir_all(huge.join(format!("sub{i}/x/y"))).unwrap();
        fill_flat(&huge.join(format!("sub{i}/x")), 20, |j| format!("g{j}"));
    }
    for a in 0..3 {
        for b in 0..3 {
            let mid = root.join(format!("b{a}/c{b}"));
            fill_flat(&mid, 20, |j| format!("m{j}"));
            for c in 0..3 {
                let low = mid.join(format!("d{c}/e/f"));
                fill_flat(&low, 50, |j| format!("l{j}"));
                fill_flat(&mid.join(format!("d{c}")), 20, |j| format!("k{j}"));
            }
        }
    }
}

/// `dents find ROOT ARGS -printf '%d %p\n'`: each line's depth and path.
fn lines(root: &Path, args: &[&str]) -> Vec<(usize, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_dents"))
        .arg("find")
        .args(args)
        .arg(root)
        .args(["-printf", "%d %p\\n"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .map(|l| {
            let (d, p) = l.split_once(' ').unwrap();
            (d.parse().unwrap(), p.to_owned())
        })
        .collect()
}

/// The lines printed before their directory's line.
fn before_their_directory(lines: &[(usize, String)]) -> Vec<String> {
    let at: HashMap<&str, usize> = lines
        .iter()
        .enumerate()
        .map(|(i, (_, p))| (p.as_str(), i))
        .collect();
    lines
        .iter()
        .enumerate()
        .filter(|(i, (_, p))| {
            let parent = p.rsplit_once('/').map_or("", |(d, _)| d);
            at.get(parent).is_some_and(|&j| j > *i)
        })
        .map(|(_, (_, p))| p.clone())
        .collect()
}

/// Checks the walks on one filesystem kind.
fn check(kind: FsKind) {
    let Some(fs) = LoopFs::new_or_skip(kind, 256) else {
        return;
    };
    let root = fs.path().join("t");
    make_tree(&root);
    let total = lines(&root, &["-j1", "-S", "dfs"]).len();
    assert!(total > HUGE, "{kind:?}: {total} lines");
    for args in [&["-j1", "-S", "dfs"][..], &["-j1"], &["-j1", "-S", "bfs"]] {
        for round in 0..3 {
            let got = lines(&root, args);
            assert_eq!(got.len(), total, "{kind:?} {args:?}");
            let early = before_their_directory(&got);
            assert!(
                early.is_empty(),
                "{kind:?} {args:?} round {round}: {} lines before their directory's, first {:?}",
                early.len(),
                early.first()
            );
        }
    }
    // The default order, on several workers: every line of depth <= 3
    // before any deeper one; on one worker, those in level order.
    for args in [&["-j1"][..], &["-j2"], &["-j8"]] {
        for round in 0..3 {
            let got = lines(&root, args);
            let last_shallow = got.iter().rposition(|(d, _)| *d <= 3).unwrap();
            let first_deep = got.iter().position(|(d, _)| *d > 3).unwrap();
            assert!(
                last_shallow < first_deep,
                "{kind:?} {args:?} round {round}: line {last_shallow} of depth <= 3 after line \
                 {first_deep} of depth > 3 ({:?} after {:?})",
                got[last_shallow],
                got[first_deep]
            );
            if args == ["-j1"] {
                let top: Vec<usize> = got[..first_deep].iter().map(|(d, _)| *d).collect();
                assert!(
                    top.windows(2).all(|w| w[0] <= w[1]),
                    "{kind:?} -j1 round {round}: not level order"
                );
            }
        }
    }
}

/// Directory entries with their types: the huge directory is read in
/// slices, each slice's entries visited on its thread.
#[test]
fn huge_directory_read_in_slices_prints_in_order() {
    check(FsKind::Ext4);
}

/// No `d_type`: the huge directory's entries are typed by stats and
/// visited on several threads at once.
#[test]
fn huge_directory_typed_by_stats_prints_in_order() {
    check(FsKind::Ext4NoFiletype);
}

/// `-depth` on several workers: every directory's line after the lines of
/// everything below it, as GNU's `-depth` promises (what `cpio` and
/// `rm`-like scripts rely on).  Each worker keeps an output buffer of its
/// own: before the fix, a worker printed a directory while the lines of
/// one of its subtrees still waited in another worker's buffer (seen in
/// 6 runs of 20 at `-j2` on a tree of 900 directories).
fn check_depth(threads: &str) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("t");
    for a in 0..30 {
        for b in 0..30 {
            fill_flat(&root.join(format!("a{a}/b{b}")), 20, |i| format!("f{i}"));
        }
    }
    for round in 0..20 {
        let out = Command::new(env!("CARGO_BIN_EXE_dents"))
            .args(["find", threads])
            .arg(&root)
            .args(["-depth", "-printf", "%d %p\\n"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{threads}: {out:?}");
        let got: Vec<(usize, String)> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let (d, p) = l.split_once(' ').unwrap();
                (d.parse().unwrap(), p.to_owned())
            })
            .collect();
        assert_eq!(
            got.len(),
            1 + 30 + 900 + 900 * 20,
            "{threads} round {round}"
        );
        let at: HashMap<&str, usize> = got
            .iter()
            .enumerate()
            .map(|(i, (_, p))| (p.as_str(), i))
            .collect();
        let late: Vec<&str> = got
            .iter()
            .enumerate()
            .filter(|(i, (_, p))| {
                let parent = p.rsplit_once('/').map_or("", |(d, _)| d);
                at.get(parent).is_some_and(|&j| j < *i)
            })
            .map(|(_, (_, p))| p.as_str())
            .collect();
        assert!(
            late.is_empty(),
            "{threads} round {round}: {} lines after their directory's, first {:?}",
            late.len(),
            late.first()
        );
    }
}

dents_testfs::test_cases! {
    /// `-depth` at 1, 2 and 8 workers.
    mod depth_after_contents: &str => check_depth;
    one_worker: "-j1",
    two_workers: "-j2",
    eight_workers: "-j8",
}
