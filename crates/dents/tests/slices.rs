//! A sliced read yields exactly the entries of a plain read.
//!
//! Every way the library reads a directory (the serial [`DirReader`], a
//! forced sliced plan of 2 to 64 slices, the plan [`slice::read_dir`]
//! picks itself) is compared byte for byte with the reference, glibc's
//! `readdir` through `std::fs::read_dir`, on real filesystems made in loop
//! images: ext4 hashed (htree) and linear (`^dir_index`), XFS, btrfs and
//! tmpfs, at sizes from empty to a million entries, with awkward names,
//! with far more slices than entries, and while other entries are created
//! and removed.  No name may be reported twice.
//!
//! Without root or the mkfs tools these tests print `SKIPPED` and pass;
//! under CI they fail (see `dents_testfs`).

use std::collections::{HashMap, HashSet};
use std::ffi::CString;
use std::fs;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use dents::dir::DirReader;
use dents::slice::{
    self, NameCollector, OffsetSpace, ReadOptions, ReadOutcome, ReadPlan, DEFAULT_MIN_SLICED_SIZE,
};
use dents_testfs::{awkward_names, fill_flat, FsKind, LoopFs};

/// The slice counts every sliceable directory is read with: even, odd,
/// prime, more than the cores, the library's maximum.
const SLICE_COUNTS: [usize; 5] = [2, 3, 7, 16, 64];

/// ext4's block size as mkfs.ext4 picks it for our image sizes.
const EXT4_BLOCK: u64 = 4096;

/// The reference: glibc's readdir (through std), names sorted as bytes.
fn reference(dir: &Path) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().as_bytes().to_vec())
        .collect();
    v.sort();
    v
}

fn open(dir: &Path) -> OwnedFd {
    dents::fs::open_dir(&CString::new(dir.as_os_str().as_bytes()).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

fn dir_size(fd: BorrowedFd<'_>) -> u64 {
    dents::fs::fstat(fd).unwrap().len()
}

/// Up to a few names, readable, for failure messages.
fn show<'a>(names: impl IntoIterator<Item = &'a Vec<u8>>) -> Vec<String> {
    names
        .into_iter()
        .take(5)
        .map(|n| format!("{:?}", String::from_utf8_lossy(n)))
        .collect()
}

/// Asserts that `got` (names tagged with the slice that reported them, in
/// any order) holds each name of `want` (sorted) exactly once and nothing
/// else; the message says which names were lost, added or doubled, and by
/// which slices.
fn assert_exact(mut got: Vec<(Vec<u8>, usize)>, want: &[Vec<u8>], what: &str) {
    got.sort();
    let doubled: Vec<String> = got
        .windows(2)
        .filter(|w| w[0].0 == w[1].0)
        .take(5)
        .map(|w| {
            format!(
                "{:?} (slices {} and {})",
                String::from_utf8_lossy(&w[0].0),
                w[0].1,
                w[1].1
            )
        })
        .collect();
    let mut names: Vec<Vec<u8>> = got.into_iter().map(|(n, _)| n).collect();
    let before = names.len();
    names.dedup();
    assert_eq!(
        names.len(),
        before,
        "{what}: {} names reported twice, e.g. {doubled:?}",
        before - names.len()
    );
    if names != want {
        let set: HashSet<&Vec<u8>> = names.iter().collect();
        let wanted: HashSet<&Vec<u8>> = want.iter().collect();
        let lost: Vec<&Vec<u8>> = want.iter().filter(|n| !set.contains(n)).collect();
        let extra: Vec<&Vec<u8>> = names.iter().filter(|n| !wanted.contains(n)).collect();
        panic!(
            "{what}: {} names, reference has {}; lost {} e.g. {:?}; extra {} e.g. {:?}",
            names.len(),
            want.len(),
            lost.len(),
            show(lost.iter().copied()),
            extra.len(),
            show(extra.iter().copied()),
        );
    }
}

/// The names of an outcome, each tagged with its slice.
fn tagged(sinks: Vec<NameCollector>) -> Vec<(Vec<u8>, usize)> {
    sinks
        .into_iter()
        .enumerate()
        .flat_map(|(i, s)| s.names.into_iter().map(move |n| (n, i)))
        .collect()
}

/// Names read by the plain reader, serially, in directory order.
fn serial(dir: &Path) -> Vec<(Vec<u8>, usize)> {
    let mut r = DirReader::new(open(dir));
    let mut v = Vec::new();
    while let Some(e) = r.next_entry().unwrap() {
        v.push((e.name().to_vec(), 0));
    }
    v
}

/// Reads `dir` with the forced plan `slices` slices of `space`.
fn read_sliced(
    fd: BorrowedFd<'_>,
    space: OffsetSpace,
    slices: usize,
    buffer_size: usize,
) -> ReadOutcome<NameCollector> {
    let out =
        slice::read_dir_with_plan(fd, ReadPlan::Sliced { space, slices }, buffer_size, |_| {
            NameCollector::default()
        });
    assert!(out.errors.is_empty(), "{slices} slices: {:?}", out.errors);
    assert_eq!(out.sinks.len(), slices);
    out
}

/// Whether the library may slice directories of `kind` at all.
fn sliceable(kind: FsKind) -> bool {
    matches!(
        kind,
        FsKind::Ext4 | FsKind::Ext4NoDirIndex | FsKind::Ext4NoFiletype | FsKind::Xfs
    )
}

/// Asserts the offset space the library finds for `fd` (of `size` bytes).
fn check_space(kind: FsKind, fd: BorrowedFd<'_>, size: u64, what: &str) -> Option<OffsetSpace> {
    let space = slice::offset_space(fd, size).unwrap();
    match kind {
        FsKind::Ext4 | FsKind::Ext4NoFiletype if size > EXT4_BLOCK => {
            // With dir_index, ext4 turns a directory into a hash tree as
            // soon as it outgrows its first block.
            assert_eq!(space, Some(OffsetSpace::Hashed), "{what}");
        }
        FsKind::Ext4 | FsKind::Ext4NoFiletype => {
            // One block: not flagged as indexed, yet the kernel reads it in
            // hash order (is_dx_dir), so either space is exact (positions
            // still only grow); it is never big enough to be sliced.
            assert!(space.is_some(), "{what}");
        }
        FsKind::Ext4NoDirIndex => {
            assert_eq!(space, Some(OffsetSpace::Linear { end: size }), "{what}")
        }
        FsKind::Xfs => assert!(
            matches!(space, Some(OffsetSpace::Linear { .. })),
            "{what}: {space:?}"
        ),
        FsKind::Btrfs | FsKind::Tmpfs => assert_eq!(space, None, "{what}"),
    }
    space
}

/// What [`check_dir`] saw.
struct Checked {
    /// Entries (the reference's count).
    entries: usize,
    /// Probes over every sliced read.
    probes: usize,
}

/// Checks every way of reading `dir` against the reference.
fn check_dir(dir: &Path, kind: FsKind) -> Checked {
    let what = format!("{kind:?} {}", dir.display());
    let want = reference(dir);
    assert_exact(serial(dir), &want, &format!("{what}: serial DirReader"));
    let fd = open(dir);
    let size = dir_size(fd.as_fd());
    let what = format!("{what} ({} entries, {size} bytes)", want.len());
    let mut probes = 0;
    if let Some(space) = check_space(kind, fd.as_fd(), size, &what) {
        for slices in SLICE_COUNTS {
            let out = read_sliced(fd.as_fd(), space, slices, 64 * 1024);
            probes += out.probes;
            assert_exact(
                tagged(out.sinks),
                &want,
                &format!("{what}: {slices} slices of {space:?}"),
            );
        }
        // A small buffer: slice ends and probes fall between refills.
        let out = read_sliced(fd.as_fd(), space, 7, 512);
        probes += out.probes;
        assert_exact(
            tagged(out.sinks),
            &want,
            &format!("{what}: 7 slices of {space:?}, 512-byte buffers"),
        );
    }
    // The library's own choice, with default options.
    let opts = ReadOptions::default();
    let out = slice::read_dir(fd.as_fd(), &opts, |_| NameCollector::default());
    assert!(out.errors.is_empty(), "{what}: {:?}", out.errors);
    let expected_plan = match slice::offset_space(fd.as_fd(), size).unwrap() {
        Some(space) if sliceable(kind) && size >= DEFAULT_MIN_SLICED_SIZE => ReadPlan::Sliced {
            space,
            slices: slice::default_slices(),
        },
        _ => ReadPlan::Serial,
    };
    assert_eq!(out.plan, expected_plan, "{what}: default plan");
    probes += out.probes;
    assert_exact(tagged(out.sinks), &want, &format!("{what}: default read"));
    Checked {
        entries: want.len(),
        probes,
    }
}

/// The plain names of the test directories (15 bytes, as cameras name).
fn name(i: usize) -> String {
    format!("IMG_{i:07}.JPG")
}

/// Makes `dir` with `n` plain names and, if `awkward`, the awkward ones.
fn make_dir(dir: &Path, n: usize, awkward: bool) -> usize {
    fill_flat(dir, n, name);
    let mut total = n;
    if awkward {
        let a = awkward_names();
        fill_flat(dir, a.len(), |i| a[i].clone());
        total += a.len();
    }
    total
}

/// Adds plain names to `dir` one at a time until its size reaches
/// `threshold`; returns how many it took.
fn grow_to(dir: &Path, threshold: u64) -> usize {
    fs::create_dir(dir).unwrap();
    let fd = open(dir);
    let mut n = 0;
    while dir_size(fd.as_fd()) < threshold {
        fs::File::create(dir.join(name(n))).unwrap();
        n += 1;
        assert!(
            n < 1_000_000,
            "{}: never reached {threshold}",
            dir.display()
        );
    }
    n
}

/// Directories just below and just above the slicing threshold: the plan
/// must be serial below, and sliced above where the filesystem allows.
fn around_threshold(root: &Path, kind: FsKind) {
    let above = root.join("threshold_above");
    let n = grow_to(&above, DEFAULT_MIN_SLICED_SIZE);
    // The same names in the same order, one fewer: the same layout, one
    // entry short of the size that crossed the threshold.
    let below = root.join("threshold_below");
    fill_flat(&below, n - 1, name);
    // Four threads: the plan must not depend on this machine's cores.
    let opts = ReadOptions::new().threads(4);
    let fd = open(&below);
    let size = dir_size(fd.as_fd());
    assert!(
        size < DEFAULT_MIN_SLICED_SIZE,
        "{kind:?}: {} entries make {size} bytes",
        n - 1
    );
    assert_eq!(slice::plan(fd.as_fd(), &opts).unwrap(), ReadPlan::Serial);
    check_dir(&below, kind);
    let fd = open(&above);
    let size = dir_size(fd.as_fd());
    let plan = slice::plan(fd.as_fd(), &opts).unwrap();
    if sliceable(kind) {
        let space = slice::offset_space(fd.as_fd(), size).unwrap().unwrap();
        assert_eq!(plan, ReadPlan::Sliced { space, slices: 4 }, "{kind:?}");
    } else {
        assert_eq!(plan, ReadPlan::Serial, "{kind:?}");
    }
    check_dir(&above, kind);
    eprintln!(
        "{kind:?}: the threshold of {DEFAULT_MIN_SLICED_SIZE} bytes is crossed at {n} entries"
    );
}

/// Every size on one filesystem.
fn sizes_on(kind: FsKind) {
    let Some(fs) = LoopFs::new_or_skip(kind, 512) else {
        return;
    };
    let root = fs.path();
    let started = Instant::now();
    for n in [0usize, 1, 2, 3, 10, 100] {
        let d = root.join(format!("n{n}"));
        let total = make_dir(&d, n, false);
        let checked = check_dir(&d, kind);
        assert_eq!(checked.entries, total);
        if n == 3 && sliceable(kind) {
            // 64 slices over 3 entries: slices that read an entry they do
            // not own must have probed.
            assert!(checked.probes > 0, "{kind:?}: no probe over 3 entries");
        }
    }
    let d = root.join("awkward");
    let total = make_dir(&d, 0, true);
    assert_eq!(check_dir(&d, kind).entries, total);
    // Without an index every creation scans the whole directory: 50,000
    // files take 80 s (quadratic), 20,000 take 10 s and still span over a
    // hundred blocks, twice the slicing threshold.
    let large = if kind == FsKind::Ext4NoDirIndex {
        20_000
    } else {
        50_000
    };
    for n in [1000, large] {
        let d = root.join(format!("n{n}"));
        let total = make_dir(&d, n, true);
        assert_eq!(check_dir(&d, kind).entries, total);
    }
    around_threshold(root, kind);
    eprintln!("{kind:?}: sizes checked in {:.1?}", started.elapsed());
}

/// About 2 s (as the other kinds but one).
#[test]
fn exact_on_ext4_hashed() {
    sizes_on(FsKind::Ext4);
}

/// About 15 s: without an index every creation scans the whole directory.
#[test]
fn exact_on_ext4_without_dir_index() {
    sizes_on(FsKind::Ext4NoDirIndex);
}

/// ext4 without file types slices like ext4; the types are not used here.
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

/// A few entries under many slices: most slices are empty and most
/// entries are first read by a slice that does not own them, so the held
/// first entry must be placed by a probe.
fn sparse_on(kind: FsKind) {
    let Some(fs) = LoopFs::new_or_skip(kind, 512) else {
        return;
    };
    // Three entries in a fresh directory (one block; XFS keeps it inline).
    let few = fs.path().join("few");
    make_dir(&few, 3, false);
    // Three entries left of 5,000: the offset space of a big directory
    // (hashed on ext4) with nearly all of it empty.
    let sparse = fs.path().join("sparse");
    make_dir(&sparse, 5000, false);
    for i in (0..5000).filter(|i| ![0, 2500, 4999].contains(i)) {
        fs::remove_file(sparse.join(name(i))).unwrap();
    }
    for dir in [&few, &sparse] {
        let want = reference(dir);
        assert_eq!(want.len(), 3);
        let fd = open(dir);
        let size = dir_size(fd.as_fd());
        let what = format!("{kind:?} {}", dir.display());
        let space = check_space(kind, fd.as_fd(), size, &what).expect("sliceable");
        for slices in [4, 16, 64] {
            let out = read_sliced(fd.as_fd(), space, slices, 64 * 1024);
            let empty = out.sinks.iter().filter(|s| s.names.is_empty()).count();
            let probes = out.probes;
            assert_exact(
                tagged(out.sinks),
                &want,
                &format!("{what}: {slices} slices of {space:?}"),
            );
            assert!(empty >= slices - 3, "{what}: {slices} slices");
            if slices == 64 {
                // Fewer slices may each hold two entries or none (linear
                // ext4 packs a fresh directory's entries at the front),
                // but of 64 slices some read a first entry with no second
                // one before their end, which only a probe can place.
                assert!(probes >= 1, "{what}: {slices} slices: no probe ran");
            }
        }
    }
}

#[test]
fn many_slices_over_few_entries_ext4_hashed() {
    sparse_on(FsKind::Ext4);
}

#[test]
fn many_slices_over_few_entries_ext4_without_dir_index() {
    sparse_on(FsKind::Ext4NoDirIndex);
}

#[test]
fn many_slices_over_few_entries_xfs() {
    sparse_on(FsKind::Xfs);
}

/// A million entries: exact, and the slices share the work.
fn million_on(kind: FsKind) {
    let Some(fs) = LoopFs::new_or_skip(kind, 3072) else {
        return;
    };
    let d = fs.path().join("flat1m");
    let started = Instant::now();
    fill_flat(&d, 1_000_000, name);
    eprintln!("{kind:?}: 1M files made in {:.1?}", started.elapsed());
    let want = reference(&d);
    assert_eq!(want.len(), 1_000_000);
    let fd = open(&d);
    let size = dir_size(fd.as_fd());
    let what = format!("{kind:?} 1M entries ({size} bytes)");
    let space = check_space(kind, fd.as_fd(), size, &what).expect("sliceable");
    for slices in [2, 7, 64] {
        let out = read_sliced(fd.as_fd(), space, slices, 64 * 1024);
        let counts: Vec<usize> = out.sinks.iter().map(|s| s.names.len()).collect();
        let (least, most) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        eprintln!("{what}: {slices} slices hold {least} to {most} entries");
        if space == OffsetSpace::Hashed {
            // Hashes spread names evenly over the space: no slice may be
            // starved, or slicing would not pay.  A quarter of the fair
            // share is far outside chance at these numbers.  (XFS packs
            // its data blocks unevenly: a few slices there can hold
            // little, which costs balance, not exactness.)
            assert!(
                *least >= 1_000_000 / slices / 4,
                "{what}: {slices} slices: {counts:?}"
            );
        }
        assert_exact(
            tagged(out.sinks),
            &want,
            &format!("{what}: {slices} slices of {space:?}"),
        );
    }
    let out = slice::read_dir(fd.as_fd(), &ReadOptions::default(), |_| {
        NameCollector::default()
    });
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert!(
        matches!(out.plan, ReadPlan::Sliced { .. }),
        "{:?}",
        out.plan
    );
    assert_exact(tagged(out.sinks), &want, &format!("{what}: default read"));
    assert_exact(serial(&d), &want, &format!("{what}: serial DirReader"));
    eprintln!("{kind:?}: 1M test done in {:.1?}", started.elapsed());
}

/// About 40 s on this 2-core machine with the image in /dev/shm, nearly all
/// of it making the files (one openat + close each, ~30 us; creations in one
/// directory are serialised by its lock, so threads would not help).
#[test]
fn a_million_entries_on_ext4_hashed() {
    million_on(FsKind::Ext4);
}

/// About 40 s, as on ext4.
#[test]
fn a_million_entries_on_xfs() {
    million_on(FsKind::Xfs);
}

/// How many creations later the churning thread removes a name.
const CHURN_LAG: u64 = 1000;

/// Sliced reads of a directory of 20,000 stable files while another thread
/// creates and removes other files in it: every stable file is reported
/// exactly once; every churning name that existed for the whole read
/// (created before it started, removed after it ended) is reported; no
/// name removed before the read started, or created after it ended, is
/// reported; and nothing but stable and churning names is reported.  A
/// churning name may be seen twice (it can move past a slice boundary
/// between two reads); that is only reported.
fn churn_on(kind: FsKind) {
    let Some(fs) = LoopFs::new_or_skip(kind, 512) else {
        return;
    };
    let d = fs.path().join("busy");
    fill_flat(&d, 20_000, |i| format!("stable{i:06}"));
    let stable = reference(&d);
    assert_eq!(stable.len(), 20_000);
    let stable_set: HashSet<&Vec<u8>> = stable.iter().collect();
    let stop = AtomicBool::new(false);
    // `churn{j}` exists from before `created` passes `j` until after
    // `removing` passes `j`, and is gone once `removed` passes `j`
    // (SeqCst: the reader's loads order the churn's steps around its read).
    let created = AtomicU64::new(0);
    let removing = AtomicU64::new(0);
    let removed = AtomicU64::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        // Stops the churn however this thread leaves the scope: a failed
        // assertion must not leave the scope waiting forever.
        let _stop = StopOnDrop(&stop);
        s.spawn(|| {
            // New names all the time (the directory grows, blocks split),
            // each removed CHURN_LAG creations later.
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                fs::File::create(d.join(format!("churn{i}"))).unwrap();
                created.store(i + 1, Ordering::SeqCst);
                if i >= CHURN_LAG {
                    let gone = i - CHURN_LAG;
                    removing.store(gone + 1, Ordering::SeqCst);
                    fs::remove_file(d.join(format!("churn{gone}"))).unwrap();
                    removed.store(gone + 1, Ordering::SeqCst);
                }
                i += 1;
            }
        });
        while removed.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        let mut doubled = 0;
        let mut churn_seen = 0;
        let mut raced = 0;
        let mut windows = 0;
        let mut required = 0;
        for round in 0..20 {
            let slices = 2 + round % 15;
            let gone_before = removed.load(Ordering::SeqCst);
            let made_before = created.load(Ordering::SeqCst);
            let fd = open(&d);
            let size = dir_size(fd.as_fd());
            let space = slice::offset_space(fd.as_fd(), size).unwrap().unwrap();
            // Small buffers: many getdents calls, interleaved with changes.
            let out = read_sliced(fd.as_fd(), space, slices, 4096);
            drop(fd);
            let going_after = removing.load(Ordering::SeqCst);
            let made_after = created.load(Ordering::SeqCst);
            raced += (made_after != made_before) as usize;
            let what = format!("{kind:?} round {round}, {slices} slices of {space:?}");
            let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
            for n in out.sinks.into_iter().flat_map(|s| s.names) {
                *seen.entry(n).or_default() += 1;
            }
            for n in &stable {
                assert_eq!(
                    seen.get(n).copied().unwrap_or(0),
                    1,
                    "{what}: {:?}",
                    String::from_utf8_lossy(n)
                );
            }
            // Present for the whole read: created before it, not yet
            // being removed after it.
            let whole = going_after..made_before;
            if !whole.is_empty() {
                windows += 1;
            }
            for j in whole.clone() {
                required += 1;
                assert!(
                    seen.contains_key(format!("churn{j}").as_bytes()),
                    "{what}: churn{j} existed during the whole read (churn{}..churn{} did) \
                     and was not reported",
                    whole.start,
                    whole.end - 1
                );
            }
            for (n, c) in &seen {
                if stable_set.contains(n) {
                    continue;
                }
                let j: u64 = std::str::from_utf8(n)
                    .ok()
                    .and_then(|n| n.strip_prefix("churn"))
                    .and_then(|j| j.parse().ok())
                    .unwrap_or_else(|| {
                        panic!("{what}: {:?} came from nowhere", String::from_utf8_lossy(n))
                    });
                assert!(
                    j >= gone_before,
                    "{what}: churn{j} was removed before the read started \
                     (churn0..churn{} were) and was reported",
                    gone_before - 1
                );
                assert!(
                    j <= made_after,
                    "{what}: churn{j} was created after the read ended \
                     (churn{made_after} at the latest) and was reported"
                );
                churn_seen += 1;
                if *c > 1 {
                    doubled += 1;
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
        eprintln!(
            "{kind:?}: 20 sliced reads in {:.1?}, {raced} of them during changes; \
             {churn_seen} churning names seen, {doubled} of them twice; \
             {windows} reads with names present throughout, {required} such names checked",
            started.elapsed()
        );
        // Reads that met no change prove nothing about changes.
        assert!(
            raced >= 10,
            "{kind:?}: only {raced} of 20 reads met a change"
        );
        // Nor do reads during which every churning name changed.
        assert!(
            windows >= 10,
            "{kind:?}: only {windows} of 20 reads had churning names present throughout"
        );
    });
}

/// Sets the flag when dropped, also while unwinding.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[test]
fn stable_entries_exactly_once_while_others_change_ext4_hashed() {
    churn_on(FsKind::Ext4);
}

#[test]
fn stable_entries_exactly_once_while_others_change_ext4_without_dir_index() {
    churn_on(FsKind::Ext4NoDirIndex);
}

#[test]
fn stable_entries_exactly_once_while_others_change_xfs() {
    churn_on(FsKind::Xfs);
}

/// A sink that wants its first entry only.
#[derive(Default)]
struct FirstOnly {
    seen: usize,
}

impl slice::EntrySink for FirstOnly {
    fn entry(&mut self, _dir: BorrowedFd<'_>, _entry: &dents::dir::RawEntry<'_>) {
        self.seen += 1;
    }

    fn stopped(&self) -> bool {
        self.seen >= 1
    }
}

#[test]
fn a_stopped_sink_ends_its_read() {
    // A consumer gone (Python's scandir closed) must not have the rest of
    // a huge directory read for nothing: each slice, and a serial read,
    // ends at the first entry after its sink says it is stopped.
    let Some(fs) = LoopFs::new_or_skip(FsKind::Ext4, 256) else {
        return;
    };
    let dir = fs.path().join("big");
    make_dir(&dir, 20_000, false);
    let fd = open(&dir);
    let size = dir_size(fd.as_fd());
    let space = check_space(FsKind::Ext4, fd.as_fd(), size, "big").expect("sliceable");
    let out = slice::read_dir_with_plan(
        fd.as_fd(),
        ReadPlan::Sliced { space, slices: 4 },
        64 * 1024,
        |_| FirstOnly::default(),
    );
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let seen: Vec<usize> = out.sinks.iter().map(|s| s.seen).collect();
    // The entry held at a slice's start may come with the next one.
    assert!(seen.iter().all(|&n| n <= 2), "{seen:?}");
    let mut reader = DirReader::new(open(&dir));
    let mut one = FirstOnly::default();
    slice::read_serial(&mut reader, &mut one).unwrap();
    assert_eq!(one.seen, 1);
}

/// A slice whose read fails (a zeroed leaf of an ext4 htree: `EBADMSG`)
/// keeps every entry it read before the failure.  The slice is made to
/// start at the last entry before the bad leaf, so that its first entry
/// is the only one it can read: a slice that held its first entry back
/// until it had read a second lost it, and with it a line GNU du prints
/// (`dents-mpi`'s du test met it once, where a slice boundary of
/// mkfs's random hash seed fell there).
#[test]
fn a_slice_cut_by_a_bad_block_keeps_what_it_read() {
    let Some(lfs) = LoopFs::new_or_skip(FsKind::Ext4, 200) else {
        return;
    };
    lfs.build_corrupt_dir_tree();
    let big = lfs.path().join("big");
    let fd = open(&big);
    // The plain reader, front to back: each name with its `next_offset`,
    // up to the bad leaf.
    let mut r = DirReader::new(open(&big));
    let mut before: Vec<(Vec<u8>, u64)> = Vec::new();
    let err = loop {
        match r.next_raw() {
            Ok(Some(e)) => before.push((e.name().to_vec(), e.next_offset())),
            Ok(None) => panic!("read to the end: the bad leaf was not met"),
            Err(e) => break e,
        }
    };
    assert_eq!(err.raw_os_error(), Some(libc::EBADMSG), "{err}");
    before.retain(|(n, _)| n != b"." && n != b"..");
    assert!(
        before.len() >= 2,
        "{} entries before the bad leaf",
        before.len()
    );
    // The last entry's position is the one before it's `next_offset`.
    let lo = before[before.len() - 2].1;
    // From `lo` on: every entry whose position (its predecessor's
    // `next_offset`) is at least `lo` (several where hashes collide).
    let from_lo: Vec<Vec<u8>> = (1..before.len())
        .filter(|&i| before[i - 1].1 >= lo)
        .map(|i| before[i].0.clone())
        .collect();
    let want: Vec<Vec<u8>> = {
        let mut v: Vec<Vec<u8>> = before.iter().map(|(n, _)| n.clone()).collect();
        v.sort();
        v
    };
    // (ext4 gives the last entry read before a failure its own position
    // as its `next_offset`, so `lo` is also that entry's `next_offset`.)
    for (what, hi) in [
        ("to the end", None),
        (
            "just past the last entry",
            Some(before[before.len() - 1].1 + 1),
        ),
    ] {
        let mut tail = NameCollector::default();
        let r = dents::unstable::read_slice_range(fd.as_fd(), lo, hi, 64 << 10, &mut tail);
        let e = r.expect_err("the slice meets the bad leaf");
        assert_eq!(e.raw_os_error(), Some(libc::EBADMSG), "{what}: {e}");
        assert_eq!(
            show(&tail.names),
            show(&from_lo),
            "{what}: the slice's entries before the bad leaf"
        );
        // With the slice before it, the two tile the space up to the bad
        // leaf: every entry read serially, once.
        let mut head = NameCollector::default();
        dents::unstable::read_slice_range(fd.as_fd(), 0, Some(lo), 64 << 10, &mut head)
            .unwrap_or_else(|e| panic!("{what}: the slice before: {e}"));
        let got = tagged(vec![head, tail]);
        assert_exact(got, &want, what);
    }
}
