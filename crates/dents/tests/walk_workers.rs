//! How many workers a walk starts.  Left to the default thread count, a
//! walk starts one worker more than the cores while no open or read has
//! waited on the disk, and all of them once one has; a count the caller
//! chose starts them all as work is found.  The "waited" threshold is a
//! test knob here, so that both sides are tested whatever the machine's
//! speed: at `Duration::MAX` nothing ever waits; at zero every open and
//! read is slow, and on tmpfs (no block device, as NFS or FUSE) every
//! slow one is a wait (what else confirms a wait: `walk_disk_wait.rs`).
//! Those cases make tmpfs (root; skipped loudly otherwise, and required
//! under CI).

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use dents::walk::{default_threads, walk, Visit, Visitor, WalkOptions};
use dents::{Error, Flow, Stats};
use dents_testfs::{FsKind, LoopFs};

/// Subdirectories of the root: far more than any default thread count
/// (at most 64), so that every worker the rule allows finds work.
const SUBDIRS: usize = 300;

/// Counts visits.
#[derive(Default)]
struct Count(AtomicU64);

impl Visitor for Count {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), _: &Visit<'_>) -> Flow {
        self.0.fetch_add(1, Ordering::Relaxed);
        Flow::Continue
    }
    fn error(&self, _: &mut (), e: Error) {
        panic!("unexpected error: {e}");
    }
}

/// A root of [`SUBDIRS`] directories holding one file each.
fn wide_tree(root: &Path) {
    for i in 0..SUBDIRS {
        let d = root.join(format!("d{i:03}"));
        fs::create_dir(&d).unwrap();
        fs::write(d.join("f"), b"").unwrap();
    }
}

fn run(opts: &WalkOptions) -> Stats {
    let dir = tempfile::tempdir().unwrap();
    run_in(dir.path(), opts)
}

/// [`run`] on a tmpfs of its own, where every slow read is a wait; `None`
/// where tmpfs cannot be mounted (said loudly).
fn run_on_tmpfs(opts: &WalkOptions) -> Option<Stats> {
    let fs = LoopFs::new_or_skip(FsKind::Tmpfs, 16)?;
    Some(run_in(fs.path(), opts))
}

fn run_in(dir: &Path, opts: &WalkOptions) -> Stats {
    wide_tree(dir);
    let count = Count::default();
    let root = dir.as_os_str().as_encoded_bytes().to_vec();
    let stats = walk(&[root], opts, &count);
    assert_eq!(count.0.load(Ordering::Relaxed), 1 + 2 * SUBDIRS as u64);
    stats
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[test]
fn without_disk_waits_the_default_starts_one_worker_past_the_cores() {
    let stats = run(&WalkOptions::new().test_disk_wait(Some(Duration::MAX)));
    let eager = (cores() + 1).min(default_threads()) as u64;
    assert_eq!(stats.workers_started, eager, "{stats:?}");
}

#[test]
fn a_disk_wait_starts_every_default_worker() {
    let Some(stats) = run_on_tmpfs(&WalkOptions::new().test_disk_wait(Some(Duration::ZERO))) else {
        return;
    };
    assert_eq!(stats.workers_started, default_threads() as u64, "{stats:?}");
}

#[test]
fn a_chosen_thread_count_starts_them_all_without_waits() {
    let n = cores() + 3;
    let stats = run(&WalkOptions::new()
        .threads(n)
        .test_disk_wait(Some(Duration::MAX)));
    assert_eq!(stats.workers_started, n as u64, "{stats:?}");
}

#[test]
fn threads_zero_is_the_default_rule() {
    let stats = run(&WalkOptions::new()
        .threads(0)
        .test_disk_wait(Some(Duration::MAX)));
    let eager = (cores() + 1).min(default_threads()) as u64;
    assert_eq!(stats.workers_started, eager, "{stats:?}");
}

#[test]
fn threads_up_to_follows_the_default_rule_with_its_own_count() {
    let n = cores() + 5;
    let stats = run(&WalkOptions::new()
        .threads_up_to(n)
        .test_disk_wait(Some(Duration::MAX)));
    assert_eq!(stats.workers_started, (cores() + 1) as u64, "{stats:?}");
    let Some(stats) = run_on_tmpfs(
        &WalkOptions::new()
            .threads_up_to(n)
            .test_disk_wait(Some(Duration::ZERO)),
    ) else {
        return;
    };
    assert_eq!(stats.workers_started, n as u64, "{stats:?}");
}
