//! A sliced read yields exactly the entries of a serial read: checked on
//! real ext4 (hashed and linear), XFS, btrfs and tmpfs filesystems made in
//! loop images, at many sizes, against glibc's `readdir` as the reference.

use std::collections::HashSet;
use std::ffi::{CString, OsStr};
use std::fs;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use dents::dir::DirReader;
use dents::slice::{
    self, NameCollector, OffsetSpace, ReadOptions, ReadPlan, DEFAULT_MIN_SLICED_SIZE,
};
use dents_testfs::{awkward_names, fill, FsKind, LoopFs};

/// The reference: glibc's readdir (through std), names sorted as bytes.
fn reference(dir: &Path) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().as_bytes().to_vec())
        .collect();
    v.sort();
    v
}

fn open(dir: &Path) -> OwnedFd {
    dents::sys::open_dir_path(&CString::new(dir.as_os_str().as_bytes()).unwrap()).unwrap()
}

/// Names from all sinks, sorted; panics on a duplicate.
fn collect(sinks: Vec<NameCollector>, what: &str) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = sinks.into_iter().flat_map(|s| s.names).collect();
    v.sort();
    let before = v.len();
    v.dedup();
    assert_eq!(
        v.len(),
        before,
        "{what}: {} names reported twice",
        before - v.len()
    );
    v
}

/// Names read by the plain reader, serially.
fn serial(dir: &Path) -> Vec<Vec<u8>> {
    let mut r = DirReader::new(open(dir));
    let mut v = Vec::new();
    while let Some(e) = r.next_entry().unwrap() {
        v.push(e.name().to_vec());
    }
    v.sort();
    v
}

/// Reads `dir` in `slices` slices of its offset space (if it has one).
fn sliced(dir: &Path, slices: usize) -> Option<(Vec<Vec<u8>>, usize)> {
    let fd = open(dir);
    let size = dents::sys::fstat(fd.as_fd()).unwrap().st_size as u64;
    let space = slice::offset_space(fd.as_fd(), size).unwrap()?;
    let plan = ReadPlan::Sliced { space, slices };
    let out = slice::read_dir_with_plan(fd.as_fd(), plan, 65536, |_| NameCollector::default());
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    Some((collect(out.sinks, &format!("{slices} slices")), out.probes))
}

/// Checks every way of reading `dir` against the reference.
fn check_dir(dir: &Path, kind: FsKind) -> usize {
    let want = reference(dir);
    assert_eq!(serial(dir), want, "{kind:?} serial reader");
    let mut probes = 0;
    for slices in [2, 3, 7, 16, 64] {
        if let Some((got, p)) = sliced(dir, slices) {
            assert_eq!(got.len(), want.len(), "{kind:?} {slices} slices: count");
            assert!(got == want, "{kind:?} {slices} slices: names differ");
            probes += p;
        }
    }
    let fd = open(dir);
    let out = slice::read_dir(
        fd.as_fd(),
        &ReadOptions {
            threads: 4,
            ..ReadOptions::default()
        },
        |_| NameCollector::default(),
    );
    assert!(out.errors.is_empty());
    assert!(
        collect(out.sinks, "default") == want,
        "{kind:?} default plan"
    );
    // The plan follows the size threshold and the filesystem.
    let size = dents::sys::fstat(fd.as_fd()).unwrap().st_size as u64;
    let sliceable = matches!(
        kind,
        FsKind::Ext4 | FsKind::Ext4NoDirIndex | FsKind::Ext4NoFiletype | FsKind::Xfs
    );
    let expect_sliced = sliceable && size >= DEFAULT_MIN_SLICED_SIZE;
    assert_eq!(
        matches!(out.plan, ReadPlan::Sliced { .. }),
        expect_sliced,
        "{kind:?} size {size}: {:?}",
        out.plan
    );
    probes
}

/// The names of a test directory of `n` entries (plus awkward ones).
fn name(i: usize) -> Vec<u8> {
    format!("IMG_{i:07}.JPG").into_bytes()
}

fn sizes_on(kind: FsKind) {
    let Some(fs) = LoopFs::new_or_skip(kind, 512) else {
        return;
    };
    let root = fs.path();
    let fd = open(root);
    let space = slice::offset_space(fd.as_fd(), 1 << 20).unwrap();
    match kind {
        FsKind::Ext4 | FsKind::Ext4NoFiletype => {
            // The root of a fresh ext4 is small; a large directory is hashed.
            fill(&root.join("probe"), 2000, name);
            let big = open(&root.join("probe"));
            let size = dents::sys::fstat(big.as_fd()).unwrap().st_size as u64;
            assert_eq!(
                slice::offset_space(big.as_fd(), size).unwrap(),
                Some(OffsetSpace::Hashed)
            );
        }
        FsKind::Ext4NoDirIndex => assert!(matches!(space, Some(OffsetSpace::Linear { .. }))),
        FsKind::Xfs => assert!(matches!(space, Some(OffsetSpace::Linear { .. }))),
        FsKind::Btrfs | FsKind::Tmpfs => assert_eq!(space, None),
    }
    let mut probes = 0;
    // Around the slicing threshold: an ext4 block of 4 KiB holds about a
    // hundred of these names.
    for n in [0usize, 1, 2, 3, 10, 100, 1000, 5_000, 12_000, 50_000] {
        // Unindexed ext4 makes each creation scan the whole directory.
        if kind == FsKind::Ext4NoDirIndex && n > 12_000 {
            continue;
        }
        let d = root.join(format!("n{n}"));
        fill(&d, n, name);
        if n >= 10 {
            for a in awkward_names() {
                fs::File::create(d.join(OsStr::from_bytes(&a))).unwrap();
            }
        }
        probes += check_dir(&d, kind);
    }
    if matches!(kind, FsKind::Ext4 | FsKind::Xfs) {
        // 64 slices over a handful of entries: most slices are empty and
        // the held-first-entry probe must place the entries exactly once.
        assert!(probes > 0, "{kind:?}: the probe path never ran");
    }
}

#[test]
fn exact_on_ext4_hashed() {
    sizes_on(FsKind::Ext4);
}

#[test]
fn exact_on_ext4_without_dir_index() {
    sizes_on(FsKind::Ext4NoDirIndex);
}

#[test]
fn exact_on_ext4_without_filetype() {
    sizes_on(FsKind::Ext4NoFiletype);
}

#[test]
fn exact_on_xfs() {
    sizes_on(FsKind::Xfs);
}

#[test]
fn exact_on_btrfs() {
    sizes_on(FsKind::Btrfs);
}

#[test]
fn exact_on_tmpfs() {
    sizes_on(FsKind::Tmpfs);
}

fn million_on(kind: FsKind) {
    let Some(fs) = LoopFs::new_or_skip(kind, 3072) else {
        return;
    };
    let d = fs.path().join("flat1m");
    fill(&d, 1_000_000, name);
    let want = reference(&d);
    assert_eq!(want.len(), 1_000_000);
    for slices in [8, 61] {
        let (got, _) = sliced(&d, slices).expect("ext4 and xfs slice");
        assert!(got == want, "{kind:?} 1M entries, {slices} slices");
    }
    let fd = open(&d);
    let out = slice::read_dir(fd.as_fd(), &ReadOptions::default(), |_| {
        NameCollector::default()
    });
    assert!(matches!(out.plan, ReadPlan::Sliced { .. }));
    assert!(collect(out.sinks, "default") == want);
}

/// Takes about half a minute: a million files are created first.
#[test]
fn a_million_entries_on_ext4() {
    million_on(FsKind::Ext4);
}

/// Takes about half a minute: a million files are created first.
#[test]
fn a_million_entries_on_xfs() {
    million_on(FsKind::Xfs);
}

fn churn_on(kind: FsKind) {
    let Some(fs) = LoopFs::new_or_skip(kind, 512) else {
        return;
    };
    let d = fs.path().join("busy");
    fill(&d, 20_000, |i| format!("stable{i:06}").into_bytes());
    let stable: HashSet<Vec<u8>> = reference(&d).into_iter().collect();
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let _ = fs::File::create(d.join(format!("churn{}", i % 3000)));
                let _ = fs::remove_file(d.join(format!("churn{}", (i + 1500) % 3000)));
                i += 1;
            }
        });
        let mut dup_churn = 0;
        for round in 0..20 {
            let slices = 2 + round % 15;
            let fd = open(&d);
            let size = dents::sys::fstat(fd.as_fd()).unwrap().st_size as u64;
            let space = slice::offset_space(fd.as_fd(), size).unwrap().unwrap();
            let out = slice::read_dir_with_plan(
                fd.as_fd(),
                ReadPlan::Sliced { space, slices },
                65536,
                |_| NameCollector::default(),
            );
            assert!(out.errors.is_empty());
            let mut seen: std::collections::HashMap<Vec<u8>, usize> =
                std::collections::HashMap::new();
            for n in out.sinks.into_iter().flat_map(|s| s.names) {
                *seen.entry(n).or_default() += 1;
            }
            for n in &stable {
                assert_eq!(
                    seen.get(n),
                    Some(&1),
                    "{kind:?} round {round}, {slices} slices: {:?}",
                    String::from_utf8_lossy(n)
                );
            }
            for (n, c) in &seen {
                assert!(
                    stable.contains(n) || n.starts_with(b"churn"),
                    "{:?} came from nowhere",
                    String::from_utf8_lossy(n)
                );
                if *c > 1 {
                    dup_churn += 1;
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
        if dup_churn > 0 {
            eprintln!(
                "{kind:?}: {dup_churn} entries created or removed during the reads were seen twice"
            );
        }
    });
}

#[test]
fn stable_entries_exactly_once_while_others_change_ext4() {
    churn_on(FsKind::Ext4);
}

#[test]
fn stable_entries_exactly_once_while_others_change_xfs() {
    churn_on(FsKind::Xfs);
}

#[test]
fn a_buffer_too_small_for_one_entry_grows() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d");
    fill(&d, 50, name);
    for a in awkward_names() {
        fs::File::create(d.join(OsStr::from_bytes(&a))).unwrap();
    }
    let mut r = DirReader::with_buffer_size(open(&d), 1);
    let mut got = Vec::new();
    while let Some(e) = r.next_entry().unwrap() {
        assert!(!e.is_dot_or_dotdot());
        got.push(e.name().to_vec());
    }
    got.sort();
    assert_eq!(got, reference(&d));
    assert!(r.buffer_size() > 255);
}
