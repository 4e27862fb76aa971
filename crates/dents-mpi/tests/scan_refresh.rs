//! `dents-mpi scan --since OLD` on two ranks: NEW equals a full
//! `dents-mpi scan` and a `dents scan` of the same tree row by row and
//! field by field (the record but its times, and its errors' order,
//! which is the ranks'), whether OLD is sharded or a single file, after
//! each kind of change (files and subtrees added, removed, renamed and
//! moved, an mtime set back, a file grown in place, a directory made
//! unreadable) and after the random changes of `dents scan --since`'s
//! own test (`dents_testfs::refresh`), and after the changes a refresh
//! by identity could get wrong (a subtree moved between parents whose
//! mtimes are set back, a directory replaced at the same path, a root
//! that became a symlink, a directory made unreadable after OLD, one
//! inside the guard window: `dents_testfs::refresh::Edge`); and an OLD that cannot be used is said once,
//! not per rank, and everything read.
//!
//! The scans run as nobody (so that a mode makes a directory
//! unreadable) on a file system remounted `noatime` (reading a directory
//! sets its atime: two full scans in a row would differ).

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{as_nobody, dents, mpi_cmd, Run};
use dents_snap::ScanRecord;
use dents_testfs::refresh::{edge_history, history, Edge, OLD, OLD_NAMES};
use dents_testfs::snapshot::read;
use dents_testfs::{FsKind, LoopFs};

/// `mpirun -np 2 dents-mpi scan ARGS` as nobody in `dir`.
fn mpi_scan(dir: &Path, args: &[&str]) -> Run {
    let mut c = mpi_cmd(2, dir);
    c.arg("scan").args(args);
    let r = as_nobody(c);
    assert!(
        matches!(r.status, 0 | 1),
        "dents-mpi scan {args:?}: {}: {}",
        r.status,
        r.stderr
    );
    r
}

/// `dents scan ARGS` as nobody in `dir`.
fn one_scan(dir: &Path, args: &[&str]) -> Run {
    let mut a = vec!["scan"];
    a.extend(args);
    let r = as_nobody(dents(dir, &a));
    assert!(
        matches!(r.status, 0 | 1),
        "dents scan {args:?}: {}: {}",
        r.status,
        r.stderr
    );
    r
}

/// The lines of a run's messages, sorted (ranks say theirs in any
/// order); mpirun's own words about a rank's status 1 left out.
fn said(r: &Run) -> Vec<String> {
    let mut l: Vec<String> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("dents-mpi: "))
        .map(str::to_string)
        .collect();
    l.sort();
    l
}

/// A loop file system of `kind`, remounted `noatime`, that nobody may
/// write in; `None` after saying why not.
fn noatime_fs(kind: FsKind) -> Option<LoopFs> {
    if !dents_testfs::needs_root("setpriv runs the scans as nobody") {
        return None;
    }
    common::mpirun()?;
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

/// The record without what may differ between two scans of the same
/// tree: times, the order of the errors (the ranks'), the refresh's
/// counts and OLD's name.
fn comparable(mut r: ScanRecord) -> ScanRecord {
    (r.start, r.end) = Default::default();
    r.errors.sort();
    (r.dirs_read, r.dirs_reused, r.since) = (0, 0, None);
    r
}

/// NEW against the full scan FULL (either program's): every row, every
/// field, in order; the records alike; NEW's counts adding up to the
/// directories FULL read.  The directories NEW reused, returned.
fn compare(new: &Path, full: &Path, what: &str) -> u64 {
    let (nr, nrows) = read(new);
    let (fr, frows) = read(full);
    for (i, (n, f)) in nrows.iter().zip(&frows).enumerate() {
        assert_eq!(n, f, "{what}: row {i}");
    }
    assert_eq!(nrows.len(), frows.len(), "{what}: rows");
    assert_eq!(fr.dirs_reused, 0, "{what}");
    assert_eq!(
        nr.dirs_read + nr.dirs_reused,
        fr.dirs_read,
        "{what}: directories read and reused"
    );
    let reused = nr.dirs_reused;
    assert_eq!(comparable(nr), comparable(fr), "{what}: the record");
    reused
}

/// Refreshes from each OLD in `olds` with the arguments `opts` before the
/// root `t` (`--names-only`, `-H`, other roots), and checks NEW against
/// `dents-mpi scan` and `dents scan` without `--since`, messages
/// included; the directories each NEW reused.
fn refresh_and_check(base: &Path, olds: &[&str], opts: &[&str], what: &str) -> Vec<u64> {
    let with = |extra: &[&str]| {
        let mut a: Vec<&str> = opts.to_vec();
        a.extend(extra);
        a.push("t");
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let full = mpi_scan(base, &strs(&with(&["-o", "full"])));
    let single = one_scan(base, &strs(&with(&["-o", "one.parquet"])));
    let mut reused = Vec::new();
    for old in olds {
        let since = format!("--since={old}");
        let new = mpi_scan(base, &strs(&with(&[since.as_str(), "-o", "new"])));
        let what = format!("{what} from {old}");
        assert_eq!(new.status, full.status, "{what}: status");
        assert_eq!(said(&new), said(&full), "{what}: messages");
        let n = compare(&base.join("new"), &base.join("full"), &what);
        compare(&base.join("new"), &base.join("one.parquet"), &what);
        let (rec, _) = read(&base.join("new"));
        assert_eq!(rec.since.as_deref(), Some(old.as_bytes()), "{what}");
        reused.push(n);
    }
    let single = single.stderr.replace("dents: ", "dents-mpi: ");
    let mut single: Vec<&str> = single.lines().collect();
    single.sort();
    assert_eq!(said(&full), single, "{what}: messages of dents scan");
    reused
}

/// Each kind of change once, on ext4; the directories reused counted
/// exactly: those unchanged since OLD, wherever they are now.
#[test]
fn each_kind_of_change_against_full_scans() {
    let Some(lfs) = noatime_fs(FsKind::Ext4) else {
        return;
    };
    let base = lfs.path();
    let t = base.join("t");
    for d in [
        "a",
        "b",
        "c",
        "d/x/y",
        "e",
        "g/h/inner",
        "i",
        "j",
        "k",
        "l/sub",
        "m/n",
    ] {
        fs::create_dir_all(t.join(d)).unwrap();
    }
    for (i, f) in [
        "a/f",
        "c/f1",
        "c/f2",
        "d/x/y/f",
        "e/f",
        "g/h/f",
        "g/h/inner/f",
        "j/f",
        "k/f",
        "l/f",
        "m/f",
        "m/n/f",
    ]
    .iter()
    .enumerate()
    {
        fs::write(t.join(f), vec![b'.'; i * 700]).unwrap();
    }
    // Older than the guard: only then can anything be reused.
    std::thread::sleep(Duration::from_millis(2200));
    mpi_scan(base, &["-o", "old", "t"]);
    one_scan(base, &["-o", "old.parquet", "t"]);
    mpi_scan(base, &["--names-only", "-o", "oldn", "t"]);
    fs::write(t.join("a/added"), b"added").unwrap();
    fs::create_dir_all(t.join("b/new/inner")).unwrap();
    fs::write(t.join("b/new/inner/leaf"), b"leaf").unwrap();
    fs::remove_file(t.join("c/f1")).unwrap();
    fs::remove_dir_all(t.join("d")).unwrap();
    fs::rename(t.join("e/f"), t.join("a/moved")).unwrap();
    // A subtree moved: h's ctime changes, inner's does not (reused,
    // found by identity below its new path).
    fs::rename(t.join("g/h"), t.join("i/h2")).unwrap();
    // A file added, the mtime set back: only the ctime tells.
    let before = fs::metadata(t.join("j")).unwrap().modified().unwrap();
    fs::write(t.join("j/hidden"), b"h").unwrap();
    fs::File::open(t.join("j"))
        .unwrap()
        .set_modified(before)
        .unwrap();
    // A file grown in place: its directory does not change.
    {
        use std::io::Write;
        let mut w = fs::OpenOptions::new()
            .append(true)
            .open(t.join("k/f"))
            .unwrap();
        w.write_all(&[b'g'; 5000]).unwrap();
    }
    fs::set_permissions(t.join("l"), fs::Permissions::from_mode(0o000)).unwrap();
    // Unchanged: i/h2/inner, k, m, m/n.
    let reused = refresh_and_check(base, &["old", "old.parquet", "oldn"], &[], "full");
    assert_eq!(reused, [4, 4, 4], "directories reused");
    let reused = refresh_and_check(base, &["oldn", "old"], &["--names-only"], "names-only");
    assert_eq!(reused, [4, 4], "directories reused");
}

/// One seed of `dents scan --since`'s random test on one file system:
/// the tree, OLD (sharded, full and names-only) after changes inside the
/// guard window, more changes, then each refresh against full scans.
fn random_case((kind, seed): (FsKind, u64)) {
    let Some(lfs) = noatime_fs(kind) else {
        return;
    };
    let base = lfs.path();
    history(base, seed, |args| {
        mpi_scan(base, args);
    });
    let what = format!("{kind:?} seed {seed}");
    for (olds, opts) in [
        (&[OLD, OLD_NAMES][..], &[][..]),
        (&[OLD_NAMES][..], &["--names-only"][..]),
    ] {
        let reused = refresh_and_check(base, olds, opts, &what);
        assert!(reused.iter().all(|&n| n > 0), "{what}: nothing reused");
    }
}

dents_testfs::test_cases! {
    /// Fixed seeds (those of `dents scan --since`'s test).
    mod random: (dents_testfs::FsKind, u64) => random_case;
    ext4_1: (dents_testfs::FsKind::Ext4, 1),
    ext4_2: (dents_testfs::FsKind::Ext4, 2),
    xfs_1: (dents_testfs::FsKind::Xfs, 1),
    tmpfs_1: (dents_testfs::FsKind::Tmpfs, 1),
}

/// What makes OLD unusable, for [`refused`].
#[derive(Clone, Copy, Debug, PartialEq)]
enum Unusable {
    /// No such file.
    Missing,
    /// One shard of a sharded snapshot, given alone.
    AShardAlone,
    /// Written by another dents version.
    OtherVersion,
    /// The refresh follows every link (`-L`).
    FollowingAll,
    /// A sharded OLD one of whose shards is not a snapshot.
    ADamagedShard,
}

/// OLD that cannot be used: said once (not once per rank), in `dents
/// scan`'s words; every directory read; NEW equals a full scan.
fn refused(what: Unusable) {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for sub in ["t/a/b", "t/c"] {
        fs::create_dir_all(d.join(sub)).unwrap();
    }
    fs::write(d.join("t/a/f"), b"f").unwrap();
    std::thread::sleep(Duration::from_millis(2200));
    let run = |args: &[&str]| {
        let mut c = mpi_cmd(2, d);
        c.arg("scan").args(args);
        common::run(&mut c)
    };
    assert_eq!(run(&["-o", "old", "t"]).status, 0);
    let version = env!("CARGO_PKG_VERSION");
    let (old, why, opts): (&str, String, &[&str]) = match what {
        Unusable::Missing => ("missing", "No such file or directory".into(), &[]),
        Unusable::AShardAlone => (
            "old/part-1.parquet",
            "one of the 2 shards of a sharded snapshot: open its directory".into(),
            &[],
        ),
        Unusable::OtherVersion => {
            let (mut rec, rows) = read(&d.join("old"));
            rec.dents_version = "0.0.0".into();
            fs::create_dir(d.join("other")).unwrap();
            let mut w = dents_snap::sharded::ShardWriter::create(&d.join("other"), 0).unwrap();
            for r in rows {
                w.push(r).unwrap();
            }
            w.finish(&rec, 1).unwrap();
            (
                "other",
                format!("written by dents 0.0.0, this is dents {version}"),
                &[],
            )
        }
        Unusable::FollowingAll => (
            "old",
            "scans that follow every link (-L) are not refreshed".into(),
            &["-L"],
        ),
        Unusable::ADamagedShard => {
            fs::write(d.join("old/part-1.parquet"), b"not parquet at all").unwrap();
            ("old", String::new(), &[])
        }
    };
    let since = format!("--since={old}");
    let mut args: Vec<&str> = opts.to_vec();
    args.extend([since.as_str(), "-o", "new", "t"]);
    let new = run(&args);
    assert_eq!(new.status, 0, "{}", new.stderr);
    if what == Unusable::ADamagedShard {
        // The damaged shard is named, not OLD; the Parquet library's own
        // words end the reason: only ours are checked.
        let head = "dents-mpi: cannot reuse 'old/part-1.parquet': not a snapshot: \
                    not a Parquet file, or cut short (";
        assert!(
            new.stderr.starts_with(head)
                && new.stderr.ends_with("); every directory read\n")
                && new.stderr.lines().count() == 1,
            "{}",
            new.stderr
        );
    } else {
        assert_eq!(
            new.stderr,
            format!("dents-mpi: cannot reuse '{old}': {why}; every directory read\n")
        );
    }
    let mut args: Vec<&str> = opts.to_vec();
    args.extend(["-o", "full", "t"]);
    assert_eq!(run(&args).status, 0);
    let (rec, _) = read(&d.join("new"));
    assert_eq!((rec.dirs_read, rec.dirs_reused), (4, 0));
    assert_eq!(rec.since.as_deref(), Some(old.as_bytes()));
    let (new_rec, new_rows) = read(&d.join("new"));
    let (full_rec, full_rows) = read(&d.join("full"));
    let no_atime = |rows: Vec<dents_snap::Row>| {
        rows.into_iter()
            .map(|r| dents_snap::Row { atime: None, ..r })
            .collect::<Vec<_>>()
    };
    assert_eq!(no_atime(new_rows), no_atime(full_rows));
    assert_eq!(comparable(new_rec), comparable(full_rec));
}

dents_testfs::test_cases! {
    /// Each reason OLD is not used.
    mod refusals: crate::Unusable => refused;
    missing: crate::Unusable::Missing,
    a_shard_alone: crate::Unusable::AShardAlone,
    other_version: crate::Unusable::OtherVersion,
    following_all: crate::Unusable::FollowingAll,
    a_damaged_shard: crate::Unusable::ADamagedShard,
}

/// The words of `v` as `&str`s, for a command's arguments.
fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// One [`Edge`] after OLD (sharded and single, full; sharded,
/// names-only): NEW equals both full scans; the directories untouched
/// are reused.
fn edge(what: Edge) {
    let Some(lfs) = noatime_fs(FsKind::Ext4) else {
        return;
    };
    let base = lfs.path();
    let want = edge_history(base, what, |args| {
        mpi_scan(base, args);
        if args.contains(&OLD) {
            let single: Vec<&str> = args
                .iter()
                .map(|&a| if a == OLD { "old.parquet" } else { a })
                .collect();
            one_scan(base, &single);
        }
    });
    // Every option of the edge (and its roots besides `t`), with and
    // without `--names-only`.
    let opts = what.options();
    let mut reused = refresh_and_check(base, &[OLD, "old.parquet"], opts, &format!("{what:?}"));
    let names_only = [opts, &["--names-only"]].concat();
    reused.extend(refresh_and_check(
        base,
        &[OLD_NAMES],
        &names_only,
        &format!("{what:?}"),
    ));
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
