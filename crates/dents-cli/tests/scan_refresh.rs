//! `dents scan --since OLD`: a refresh writes exactly what a full scan
//! writes, field by field (the record's times and its refresh counts
//! aside), after random changes to the tree: files and subtrees added,
//! removed and renamed, directories' mtimes set back with `utimes`,
//! files grown in place, changes inside the guard window just before OLD,
//! directories made unreadable and readable again, a directory listed but
//! not searchable (its entries cannot be stat'ed).  On ext4, XFS, btrfs
//! and tmpfs, full and names-only, one test per filesystem and seed;
//! more seeds by hand (`random_by_hand`).  And once each, the changes a
//! refresh by identity could get wrong (`dents_testfs::refresh::Edge`:
//! a subtree moved between parents whose mtimes are set back, a
//! directory replaced at the same path, a root that became a symlink, a
//! directory made unreadable after OLD, one inside the guard window),
//! with the directories reused counted exactly.
//!
//! The scans run as nobody (so that a mode makes a directory
//! unreadable) on a file system remounted `noatime` (reading a directory
//! or a link sets its atime: two full scans in a row would differ).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use dents_testfs::refresh::{edge_history, history, Edge, OLD, OLD_NAMES};
use dents_testfs::snapshot::read;
use dents_testfs::{cli::as_nobody, FsKind, LoopFs};

/// `dents scan ARGS` as nobody in `dir`; its stderr.
fn scan(dir: &Path, args: &[&str]) -> String {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dents"));
    c.current_dir(dir).arg("scan").args(args);
    let o = as_nobody(c).output().expect("dents runs");
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "dents scan {args:?}: {o:?}"
    );
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `dents scan ARGS` in `dir`, which must succeed (status 0); its stderr.
fn scan_ok(dir: &Path, args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_dents"))
        .current_dir(dir)
        .arg("scan")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "dents scan {args:?}: {o:?}");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// NEW against the full scan FULL: every row, every field; the record
/// but its times and refresh counts; and NEW's counts adding up to the
/// directories FULL read.  The directories NEW reused, returned.
fn compare(new: &Path, full: &Path, what: &str) -> u64 {
    let (nr, nrows) = read(new);
    let (fr, frows) = read(full);
    for (i, (n, f)) in nrows.iter().zip(&frows).enumerate() {
        assert_eq!(n, f, "{what}: row {i}");
    }
    assert_eq!(nrows.len(), frows.len(), "{what}: rows");
    assert_eq!(nr.roots, fr.roots, "{what}");
    assert_eq!(nr.options, fr.options, "{what}");
    assert_eq!(nr.errors, fr.errors, "{what}");
    assert_eq!(nr.error_count, fr.error_count, "{what}");
    assert_eq!(nr.dents_version, fr.dents_version, "{what}");
    assert_eq!(fr.dirs_reused, 0, "{what}");
    assert_eq!(
        nr.dirs_read + nr.dirs_reused,
        fr.dirs_read,
        "{what}: directories read and reused"
    );
    nr.dirs_reused
}

/// A loop file system of `kind`, remounted `noatime`, that anyone may
/// write in; `None` after saying why not.
fn noatime_fs(kind: FsKind) -> Option<LoopFs> {
    let lfs = LoopFs::new_or_skip(kind, 0)?;
    let st = Command::new("mount")
        .args(["-o", "remount,noatime"])
        .arg(lfs.path())
        .status()
        .expect("mount runs");
    assert!(st.success(), "remount noatime");
    fs::set_permissions(lfs.path(), fs::Permissions::from_mode(0o777)).unwrap();
    Some(lfs)
}

/// Whether the rule lets a refresh from `old` reuse some directory of
/// the tree `full` scanned: one in both with the same identity, mtime
/// and ctime, its time before OLD's start less the guard, that the
/// scans (run as nobody) may read and search, and that no error of
/// OLD's names (nor, to be safe, any path holding its path).  A random
/// history can change every directory left (seed 231 on ext4 did):
/// then nothing is reused, rightly.
fn some_reusable(old: &Path, full: &Path) -> bool {
    let (rec, old_rows) = read(old);
    let (_, full_rows) = read(full);
    let start = rec.start.secs * 1_000_000_000 + i64::from(rec.start.nsecs);
    let guard = dents_snap::refresh::GUARD_NANOS;
    let dirs: std::collections::HashMap<_, _> = old_rows
        .iter()
        .filter(|r| r.kind == b'd')
        .map(|r| ((r.dev, r.ino), (r.mtime, r.ctime)))
        .collect();
    full_rows.iter().any(|r| {
        let times = (r.mtime, r.ctime);
        let named = |e: &Vec<u8>| e.windows(r.path.len()).any(|w| w == r.path.as_slice());
        r.kind == b'd'
            && r.mode.is_some_and(|m| m & 0o005 == 0o005)
            && !rec.errors.iter().any(named)
            && dirs.get(&(r.dev, r.ino)) == Some(&times)
            && r.mtime.max(r.ctime).is_some_and(|t| t < start - guard)
    })
}

/// Each refresh of `base/t` (with `opts`) against a full scan, messages
/// included: full from OLD, names-only from OLD_NAMES, and full from
/// OLD_NAMES (a names-only OLD stands for the listings of a full
/// refresh).  The directories each reused, and whether the rule allowed
/// any ([`some_reusable`]).
fn refreshes(base: &Path, opts: &[&str], what: &str) -> Vec<(u64, bool)> {
    let mut reused = Vec::new();
    for (old, mode, name) in [
        (OLD, None, "full"),
        (OLD_NAMES, Some("--names-only"), "names-only"),
        (OLD_NAMES, None, "full from names-only"),
    ] {
        let mut args: Vec<&str> = opts.iter().copied().chain(mode).collect();
        let since = format!("--since={old}");
        let mut full_args = args.clone();
        full_args.extend(["-o", "full.parquet", "t"]);
        args.extend([since.as_str(), "-o", "new.parquet", "t"]);
        let new_err = scan(base, &args);
        let full_err = scan(base, &full_args);
        assert_eq!(new_err, full_err, "{what} {name}: messages");
        let n = compare(
            &base.join("new.parquet"),
            &base.join("full.parquet"),
            &format!("{what} {name}"),
        );
        reused.push((
            n,
            some_reusable(&base.join(old), &base.join("full.parquet")),
        ));
    }
    reused
}

/// One seed on one file system: a tree, OLD (full and names-only) after
/// a few changes inside the guard window, more changes, then each
/// refresh against a full scan.
fn run_seed(kind: FsKind, seed: u64) {
    let Some(lfs) = noatime_fs(kind) else {
        return;
    };
    let base = lfs.path();
    history(base, seed, |args| {
        scan(base, args);
    });
    let what = format!("{kind:?} seed {seed}");
    for (n, allowed) in refreshes(base, &[], &what) {
        assert!(n > 0 || !allowed, "{what}: nothing reused");
    }
}

/// One [`Edge`] after OLD, on ext4: each refresh equals a full scan,
/// messages included; the directories untouched, and only they, reused.
fn edge(what: Edge) {
    let Some(lfs) = noatime_fs(FsKind::Ext4) else {
        return;
    };
    let base = lfs.path();
    let want = edge_history(base, what, |args| {
        scan(base, args);
    });
    let reused: Vec<u64> = refreshes(base, what.options(), &format!("{what:?}"))
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert!(
        reused.iter().all(|n| want.contains(n)),
        "{what:?}: directories reused: {reused:?}, want {want:?}"
    );
}

dents_testfs::test_cases! {
    /// Each change a refresh by identity could get wrong.
    mod edges: dents_testfs::refresh::Edge => edge;
    moved_between_parents_times_set_back: dents_testfs::refresh::Edge::MovedBetweenParentsTimesSetBack,
    replaced_at_the_same_path: dents_testfs::refresh::Edge::ReplacedAtTheSamePath,
    root_became_a_symlink: dents_testfs::refresh::Edge::RootBecameASymlink,
    root_became_a_symlink_followed: dents_testfs::refresh::Edge::RootBecameASymlinkFollowed,
    unreadable_after_old: dents_testfs::refresh::Edge::UnreadableAfterOld,
    inside_the_guard_window: dents_testfs::refresh::Edge::InsideTheGuardWindow,
    reached_from_two_roots: dents_testfs::refresh::Edge::ReachedFromTwoRoots,
}

dents_testfs::test_cases! {
    /// Fixed seeds on each file system.
    mod random: (dents_testfs::FsKind, u64) => run_case;
    ext4_1: (dents_testfs::FsKind::Ext4, 1),
    ext4_2: (dents_testfs::FsKind::Ext4, 2),
    xfs_1: (dents_testfs::FsKind::Xfs, 1),
    xfs_2: (dents_testfs::FsKind::Xfs, 2),
    btrfs_1: (dents_testfs::FsKind::Btrfs, 1),
    btrfs_2: (dents_testfs::FsKind::Btrfs, 2),
    tmpfs_1: (dents_testfs::FsKind::Tmpfs, 1),
    tmpfs_2: (dents_testfs::FsKind::Tmpfs, 2),
}

fn run_case((kind, seed): (FsKind, u64)) {
    run_seed(kind, seed);
}

/// More seeds, by hand: `DENTS_REFRESH_SEEDS=FIRST..LAST` (inclusive) on
/// every file system of the table.
#[test]
#[ignore = "by hand: DENTS_REFRESH_SEEDS=3..50 cargo test ... -- --ignored random_by_hand"]
fn random_by_hand() {
    let spec = std::env::var("DENTS_REFRESH_SEEDS").unwrap_or_else(|_| "3..10".into());
    let (a, b) = spec.split_once("..").expect("FIRST..LAST");
    let (a, b): (u64, u64) = (a.parse().unwrap(), b.parse().unwrap());
    for seed in a..=b {
        for kind in [FsKind::Ext4, FsKind::Xfs, FsKind::Btrfs, FsKind::Tmpfs] {
            run_seed(kind, seed);
        }
    }
}

/// OLD that cannot be used: said on one line, and the scan reads all.
#[test]
fn an_old_snapshot_that_cannot_be_used_is_said_and_everything_read() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("t/a")).unwrap();
    let d = dir.path();
    let mut c = Command::new(env!("CARGO_BIN_EXE_dents"));
    let o = c
        .current_dir(d)
        .args(["scan", "--since=missing", "-o", "n.parquet", "t"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "dents: cannot reuse 'missing': No such file or directory; every directory read\n"
    );
    assert_eq!(o.status.code(), Some(0));
    let (rec, _) = read(&d.join("n.parquet"));
    assert_eq!((rec.dirs_read, rec.dirs_reused), (2, 0));
    assert_eq!(rec.since.as_deref(), Some(&b"missing"[..]));
    let o = Command::new(env!("CARGO_BIN_EXE_dents"))
        .current_dir(d)
        .args(["scan", "-L", "--since", "n.parquet", "-o", "m.parquet", "t"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "dents: cannot reuse 'n.parquet': scans that follow every link (-L) are not refreshed; every directory read\n"
    );
}

/// A sharded OLD with one shard that is not a snapshot: the message
/// names that shard, not OLD's directory (whose other shards are good),
/// and the scan reads everything.
#[test]
fn a_damaged_shard_of_old_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir_all(d.join("t/a")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_dents"))
        .current_dir(d)
        .args(["scan", "-o", "old.parquet", "t"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let (rec, rows) = read(&d.join("old.parquet"));
    fs::create_dir(d.join("olds")).unwrap();
    for i in 0..2 {
        let mut w = dents_snap::sharded::ShardWriter::create(&d.join("olds"), i).unwrap();
        for r in rows.iter().filter(|_| i == 0) {
            w.push(r.clone()).unwrap();
        }
        w.finish(&rec, 2).unwrap();
    }
    fs::write(d.join("olds/part-1.parquet"), b"not parquet at all").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_dents"))
        .current_dir(d)
        .args(["scan", "--since=olds", "-o", "n.parquet", "t"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let said = String::from_utf8_lossy(&o.stderr);
    // The Parquet library's own words end the reason: only ours are checked.
    let head = "dents: cannot reuse 'olds/part-1.parquet': not a snapshot: \
                not a Parquet file, or cut short (";
    assert!(
        said.starts_with(head) && said.ends_with("); every directory read\n"),
        "{said}"
    );
    assert_eq!(said.lines().count(), 1, "{said}");
    let (rec, _) = read(&d.join("n.parquet"));
    assert_eq!((rec.dirs_read, rec.dirs_reused), (2, 0));
}

/// OLD whose rows prove out of level order after its footer and its
/// first levels were read: the directories of the levels indexed before
/// (t, t/a, t/d: each level is whole once the one below it is read) are
/// reused, every other read, and the refresh says so on one line when a
/// directory it asked for was kept out by the damage; NEW is still a
/// full scan's.
#[test]
fn old_found_damaged_part_way_is_said_and_the_rest_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for sub in ["t/a/b", "t/a/c", "t/d/e"] {
        fs::create_dir_all(d.join(sub)).unwrap();
    }
    fs::write(d.join("t/a/b/f"), b"f").unwrap();
    // Older than the guard: only then can anything be reused.
    std::thread::sleep(Duration::from_millis(2200));
    let run = |args: &[&str]| scan_ok(d, args);
    run(&["-o", "old.parquet", "t"]);
    let (rec, rows) = read(&d.join("old.parquet"));
    // The last row again, two levels deeper: the levels jump there.
    let mut deeper = rows.last().unwrap().clone();
    deeper.path.extend_from_slice(b"/x/y");
    deeper.depth += 2;
    let mut w = dents_snap::SnapshotWriter::create(&d.join("bad.parquet")).unwrap();
    for r in rows.into_iter().chain([deeper]) {
        w.push(r).unwrap();
    }
    w.finish(&rec).unwrap();
    let said = run(&["--since=bad.parquet", "-o", "new.parquet", "t"]);
    assert_eq!(run(&["-o", "full.parquet", "t"]), "");
    let reused = compare(&d.join("new.parquet"), &d.join("full.parquet"), "damaged");
    assert_eq!(reused, 3);
    assert_eq!(
        said,
        "dents: cannot reuse 'bad.parquet': damaged snapshot: rows not in level order; \
         every directory read but the 3 listed from it before\n"
    );
    // The directories of the level the damage kept out all changed: no
    // lookup went unanswered, so there is nothing to say, however far
    // OLD had been read when the walk ended.
    for changed in ["t/a/b/g", "t/a/c/g", "t/d/e/g"] {
        fs::write(d.join(changed), b"g").unwrap();
    }
    // Reading a directory changed since it was last read sets its atime
    // (relatime): one scan first, so that the two below see the same.
    run(&["-o", "warm.parquet", "t"]);
    let said = run(&["--since=bad.parquet", "-o", "new2.parquet", "t"]);
    assert_eq!(run(&["-o", "full2.parquet", "t"]), "");
    let reused = compare(&d.join("new2.parquet"), &d.join("full2.parquet"), "changed");
    assert_eq!((reused, said.as_str()), (3, ""));
}

/// A sharded OLD (a directory of shards, as `dents-mpi scan` writes) is
/// indexed through the merged rows, a single file through its columns
/// (`SnapshotReader::for_each_dir_row`): the two must reuse the same
/// directories, and each refresh equal a full scan.
#[test]
fn a_sharded_old_reuses_what_its_single_file_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for sub in ["t/a/b", "t/a/c", "t/d", "t/e/f/g"] {
        fs::create_dir_all(d.join(sub)).unwrap();
    }
    for (i, f) in ["t/x", "t/a/y", "t/a/b/z", "t/a/c/w", "t/e/f/g/v", "t/d/u"]
        .iter()
        .enumerate()
    {
        fs::write(d.join(f), vec![b'.'; i * 100]).unwrap();
    }
    std::os::unix::fs::symlink("a/y", d.join("t/l")).unwrap();
    // Older than the guard: only then can anything be reused.
    std::thread::sleep(Duration::from_millis(2200));
    let run = |args: &[&str]| {
        let said = scan_ok(d, args);
        assert!(said.is_empty(), "dents scan {args:?}: {said}");
    };
    run(&["-o", "old.parquet", "t"]);
    let (rec, rows) = read(&d.join("old.parquet"));
    fs::create_dir(d.join("olds")).unwrap();
    let mut shards = [
        dents_snap::sharded::ShardWriter::create(&d.join("olds"), 0).unwrap(),
        dents_snap::sharded::ShardWriter::create(&d.join("olds"), 1).unwrap(),
    ];
    for (i, r) in rows.into_iter().enumerate() {
        shards[i % 2].push(r).unwrap();
    }
    for s in shards {
        s.finish(&rec, 2).unwrap();
    }
    fs::write(d.join("t/a/c/new"), b"new").unwrap();
    // Reading a directory changed since it was last read sets its atime
    // (relatime): one scan first, so that the three below see the same.
    run(&["-o", "warm.parquet", "t"]);
    run(&["--since=old.parquet", "-o", "new1.parquet", "t"]);
    run(&["--since=olds", "-o", "new2.parquet", "t"]);
    run(&["-o", "full.parquet", "t"]);
    let one = compare(&d.join("new1.parquet"), &d.join("full.parquet"), "file");
    let two = compare(&d.join("new2.parquet"), &d.join("full.parquet"), "shards");
    // Every directory but t/a/c (changed) is reused: 7 of 8.
    assert_eq!((one, two), (7, 7));
}
