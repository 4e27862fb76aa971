//! What counts as a wait on the disk, after which a walk left to the
//! default thread count starts all its workers: an open or a directory's
//! first read slower than the threshold (a test knob here: at zero every
//! one is slow) by a thread that has read from a block device, or of a
//! directory on a filesystem with no block device of its own.  A slow
//! open in the page cache (a worker kept off its core) is not one.  And a
//! sorted walk starts the rest once a wait is met, even when its workers
//! found the queue long and took their directories several at a time.
//!
//! Each test makes ext4 or tmpfs in a loop image (root; skipped loudly
//! otherwise, and required under CI).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use dents::walk::{default_threads, walk, Visit, Visitor, WalkOptions};
use dents::{Error, Flow};
use dents_testfs::{FsKind, LoopFs};

/// Counts visits, and the visitor states made (one a worker, and the
/// calling thread's for the roots): the workers started so far.
#[derive(Default)]
struct Count {
    visits: AtomicU64,
    states: AtomicU64,
    /// The states made when the entry named by `mark` was visited.
    at_mark: AtomicU64,
    mark: Vec<u8>,
}

impl Visitor for Count {
    type State = ();
    fn state(&self) {
        self.states.fetch_add(1, Ordering::SeqCst);
    }
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        self.visits.fetch_add(1, Ordering::Relaxed);
        if !self.mark.is_empty() && v.path().ends_with(&self.mark) {
            let states = self.states.load(Ordering::SeqCst);
            self.at_mark.store(states, Ordering::SeqCst);
        }
        Flow::Continue
    }
    fn error(&self, _: &mut (), e: Error) {
        panic!("unexpected error: {e}");
    }
}

/// `n` directories `dNNNNN` under `t` in `fs` (not its root: ext4 has
/// `lost+found` there), one empty file `f` in each; returns `t`.
fn wide_tree(fs: &LoopFs, n: usize) -> PathBuf {
    let root = fs.path().join("t");
    fs::create_dir(&root).unwrap();
    for i in 0..n {
        let d = root.join(format!("d{i:05}"));
        fs::create_dir(&d).unwrap();
        fs::write(d.join("f"), b"").unwrap();
    }
    root
}

/// Every open and first read counts as slow: only what confirms a wait
/// decides.
fn every_op_slow() -> WalkOptions {
    WalkOptions::new().test_disk_wait(Some(Duration::ZERO))
}

/// Walks `root` (`n` directories of [`wide_tree`]) unsorted, then
/// sorted, with every open and read slow, `before` each walk; asserts
/// that each started `expected` workers.
fn assert_started(root: &Path, n: usize, before: impl Fn(), expected: u64) {
    for opts in [every_op_slow(), every_op_slow().sort_by_name(true)] {
        before();
        let count = Count::default();
        let stats = walk(
            &[root.as_os_str().as_encoded_bytes().to_vec()],
            &opts,
            &count,
        );
        assert_eq!(count.visits.load(Ordering::Relaxed), 1 + 2 * n as u64);
        assert_eq!(stats.workers_started, expected, "{opts:?}: {stats:?}");
    }
}

fn eager() -> u64 {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores + 1).min(default_threads()) as u64
}

#[test]
fn slow_reads_in_the_page_cache_start_no_more_workers() {
    let Some(fs) = LoopFs::new_or_skip(FsKind::Ext4, 64) else {
        return;
    };
    // Made just now: every block of it is in the page cache.
    let root = wide_tree(&fs, 300);
    assert_started(&root, 300, || {}, eager());
}

#[test]
fn reads_from_the_disk_start_every_worker() {
    let Some(fs) = LoopFs::new_or_skip(FsKind::Ext4, 64) else {
        return;
    };
    let root = wide_tree(&fs, 300);
    let cold = || fs.remount().unwrap();
    assert_started(&root, 300, cold, default_threads() as u64);
}

#[test]
fn slow_reads_without_a_block_device_start_every_worker() {
    let Some(fs) = LoopFs::new_or_skip(FsKind::Tmpfs, 64) else {
        return;
    };
    let root = wide_tree(&fs, 300);
    assert_started(&root, 300, || {}, default_threads() as u64);
}

/// Directories of the mid-walk test, the first quarter read into the page
/// cache before the walk; the mark is visited half way, while the queue
/// still holds more directories than the workers take at a time.
const MID_DIRS: usize = 6_000;
const MID_HOT: usize = 1_500;

#[test]
fn a_sorted_walk_meeting_the_disk_mid_walk_starts_the_rest() {
    let Some(fs) = LoopFs::new_or_skip(FsKind::Ext4, 128) else {
        return;
    };
    let root = wide_tree(&fs, MID_DIRS);
    fs.remount().unwrap();
    // The root and the first directories read (their listings and their
    // file's inode): the walk's first reads are in the page cache, and
    // the first from the disk comes once its workers take several
    // directories at a time from a long queue.
    for e in fs::read_dir(&root).unwrap() {
        e.unwrap();
    }
    for i in 0..MID_HOT {
        let d = root.join(format!("d{i:05}"));
        for e in fs::read_dir(&d).unwrap() {
            e.unwrap().metadata().unwrap();
        }
    }
    let count = Count {
        mark: format!("d{:05}/f", MID_DIRS / 2).into_bytes(),
        ..Count::default()
    };
    let root = root.as_os_str().as_encoded_bytes().to_vec();
    let stats = walk(&[root], &every_op_slow().sort_by_name(true), &count);
    assert_eq!(
        count.visits.load(Ordering::Relaxed),
        1 + 2 * MID_DIRS as u64
    );
    // Every worker's state, and the calling thread's for the roots.
    let at_mark = count.at_mark.load(Ordering::SeqCst);
    assert!(
        at_mark > default_threads() as u64,
        "{at_mark} visitor states when half the tree was visited: \
         not every worker had started ({stats:?})"
    );
}
