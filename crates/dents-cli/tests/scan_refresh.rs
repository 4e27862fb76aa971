//! `dents scan --since OLD`: a refresh writes exactly what a full scan
//! writes, field by field (the record's times and its refresh counts
//! aside), after random changes to the tree: files and subtrees added,
//! removed and renamed, directories' mtimes set back with `utimes`,
//! files grown in place, changes inside the guard window just before OLD,
//! directories made unreadable and readable again, a directory listed but
//! not searchable (its entries cannot be stat'ed).  On ext4, XFS, btrfs
//! and tmpfs, full and names-only, one test per filesystem and seed;
//! more seeds by hand (`random_by_hand`).
//!
//! The scans run as nobody (so that a mode makes a directory
//! unreadable) on a file system remounted `noatime` (reading a directory
//! or a link sets its atime: two full scans in a row would differ).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use dents_testfs::snapshot::read;
use dents_testfs::{cli::as_nobody, FsKind, LoopFs};

/// A small deterministic generator (xorshift64*): the same seed, the
/// same changes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Every directory under `root` (itself included) and every file, as
/// paths, sorted; directories that cannot be read are listed, not
/// entered.
fn inventory(root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut dirs = vec![root.to_path_buf()];
    let mut files = Vec::new();
    let mut i = 0;
    while i < dirs.len() {
        let d = dirs[i].clone();
        i += 1;
        let Ok(rd) = fs::read_dir(&d) else { continue };
        let mut names: Vec<_> = rd.map(|e| e.unwrap().path()).collect();
        names.sort();
        for p in names {
            if fs::symlink_metadata(&p).unwrap().is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    (dirs, files)
}

/// The first tree: `dirs` directories in a random shape, files in each
/// (some with content), a few symlinks.
fn build(root: &Path, rng: &mut Rng) {
    fs::create_dir(root).unwrap();
    let mut dirs = vec![root.to_path_buf()];
    for i in 0..40 {
        let parent = dirs[rng.below(dirs.len())].clone();
        let d = parent.join(format!("d{i}"));
        fs::create_dir(&d).unwrap();
        dirs.push(d);
    }
    for (i, d) in dirs.iter().enumerate() {
        for j in 0..rng.below(8) {
            fs::write(d.join(format!("f{i}_{j}")), vec![b'x'; rng.below(3000)]).unwrap();
        }
        if rng.below(4) == 0 {
            std::os::unix::fs::symlink(format!("f{i}_0"), d.join(format!("l{i}"))).unwrap();
        }
    }
    // A directory nobody may search but may list: a full scan lists it
    // and cannot stat its entries, so OLD's listing of it lacks them
    // (it must not stand for reading it, though it stays unchanged).
    let d = &dirs[1 + rng.below(dirs.len() - 1)];
    fs::write(d.join("unstatable"), b"u").unwrap();
    fs::set_permissions(d, fs::Permissions::from_mode(0o444)).unwrap();
}

/// One random change; the directories and files are re-inventoried
/// each time, so that the changes compose.
fn change(root: &Path, rng: &mut Rng, n: usize) {
    let (dirs, files) = inventory(root);
    // Directories nobody can read stay as they are (but for the change
    // that opens them again): their contents are not what is tested.
    let open: Vec<&PathBuf> = dirs
        .iter()
        .filter(|d| fs::metadata(d).unwrap().permissions().mode() & 0o777 != 0)
        .collect();
    let pick_dir = |rng: &mut Rng| open[rng.below(open.len())].clone();
    match rng.below(10) {
        // Add a file, or a subtree.
        0 => {
            let d = pick_dir(rng);
            fs::write(d.join(format!("new{n}")), b"added").unwrap();
        }
        1 => {
            let d = pick_dir(rng).join(format!("sub{n}"));
            fs::create_dir_all(d.join("inner")).unwrap();
            fs::write(d.join("inner/leaf"), b"leaf").unwrap();
        }
        // Remove a file, or a subtree (not the root).
        2 if !files.is_empty() => {
            let _ = fs::remove_file(&files[rng.below(files.len())]);
        }
        3 if open.len() > 1 => {
            let d = open[1 + rng.below(open.len() - 1)];
            let _ = fs::remove_dir_all(d);
        }
        // Rename a file across directories.
        4 if !files.is_empty() => {
            let f = &files[rng.below(files.len())];
            let to = pick_dir(rng).join(format!("moved{n}"));
            let _ = fs::rename(f, to);
        }
        // Move a subtree: its descendants keep their times.
        5 if open.len() > 1 => {
            let from = open[1 + rng.below(open.len() - 1)].clone();
            let to = pick_dir(rng);
            if !to.starts_with(&from) {
                let _ = fs::rename(&from, to.join(format!("tree{n}")));
            }
        }
        // A file added, then the directory's mtime set back: only its
        // ctime tells.
        6 => {
            let d = pick_dir(rng);
            let before = fs::metadata(&d).unwrap().modified().unwrap();
            fs::write(d.join(format!("hidden{n}")), b"h").unwrap();
            fs::File::open(&d).unwrap().set_modified(before).unwrap();
        }
        // A file grown in place: its directory does not change.
        7 if !files.is_empty() => {
            let f = &files[rng.below(files.len())];
            if fs::symlink_metadata(f).unwrap().is_file() {
                use std::io::Write;
                let mut w = fs::OpenOptions::new().append(true).open(f).unwrap();
                w.write_all(&[b'g'; 5000]).unwrap();
            }
        }
        // A directory made unreadable, or one opened again.
        8 if open.len() > 1 => {
            let d = open[1 + rng.below(open.len() - 1)];
            fs::set_permissions(d, fs::Permissions::from_mode(0o000)).unwrap();
        }
        _ => {
            if let Some(d) = dirs
                .iter()
                .find(|d| fs::metadata(d).unwrap().permissions().mode() & 0o777 == 0)
            {
                fs::set_permissions(d, fs::Permissions::from_mode(0o755)).unwrap();
            } else {
                let d = pick_dir(rng);
                fs::write(d.join(format!("other{n}")), b"o").unwrap();
            }
        }
    }
}

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

/// One seed on one file system: a tree, OLD (full and names-only) after
/// a few changes inside the guard window, more changes, then each
/// refresh against a full scan.
fn run_seed(kind: FsKind, seed: u64) {
    let Some(lfs) = LoopFs::new_or_skip(kind, 0) else {
        return;
    };
    let st = Command::new("mount")
        .args(["-o", "remount,noatime"])
        .arg(lfs.path())
        .status()
        .expect("mount runs");
    assert!(st.success(), "remount noatime");
    let base = lfs.path();
    fs::set_permissions(base, fs::Permissions::from_mode(0o777)).unwrap();
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let t = base.join("t");
    build(&t, &mut rng);
    // Older than the guard: only then can anything be reused.
    std::thread::sleep(Duration::from_millis(2200));
    // Changes just before OLD: inside the guard window, read again.
    for n in 0..3 {
        change(&t, &mut rng, n);
    }
    scan(base, &["-o", "old.parquet", "t"]);
    scan(base, &["--names-only", "-o", "oldn.parquet", "t"]);
    for n in 3..3 + 12 {
        change(&t, &mut rng, n);
    }
    let what = format!("{kind:?} seed {seed}");
    for (old, mode, name) in [
        ("old.parquet", None, "full"),
        ("oldn.parquet", Some("--names-only"), "names-only"),
        // A names-only OLD stands for the listings of a full refresh.
        ("oldn.parquet", None, "full from names-only"),
    ] {
        let mut args: Vec<&str> = mode.into_iter().collect();
        let since = format!("--since={old}");
        let mut full_args = args.clone();
        full_args.extend(["-o", "full.parquet", "t"]);
        args.extend([since.as_str(), "-o", "new.parquet", "t"]);
        let new_err = scan(base, &args);
        let full_err = scan(base, &full_args);
        assert_eq!(new_err, full_err, "{what} {name}: messages");
        let reused = compare(
            &base.join("new.parquet"),
            &base.join("full.parquet"),
            &format!("{what} {name}"),
        );
        assert!(reused > 0, "{what} {name}: nothing reused");
    }
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
        let o = Command::new(env!("CARGO_BIN_EXE_dents"))
            .current_dir(d)
            .arg("scan")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "dents scan {args:?}: {o:?}");
        assert!(o.stderr.is_empty(), "dents scan {args:?}: {o:?}");
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
