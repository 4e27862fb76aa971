//! The walker grows the process's descriptor table once, to what it may
//! keep, when it keeps many descriptors open, instead of letting the
//! kernel double it step by step (each step of a threaded process waits
//! for an RCU grace period while every open waits for it); a walk that
//! keeps few grows nothing (a growth it would not have had cost a sorted
//! walk of a small tree 14 ms instead of 3.7).  The table's size is
//! `FDSize` in `/proc/self/status`, the process's: this file holds one
//! test, which walks the small tree first and then the wide one, so that
//! nothing else grows the table meanwhile.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use dents::walk::{walk, Visit, Visitor, WalkOptions};
use dents::{Error, Flow};

/// Directories under the wide tree's root, each with a subdirectory: a
/// sorted walk keeps every one open (for its subdirectory's `openat`)
/// until the next level is opened, well past the kernel's first table
/// of 64.
const DIRS: usize = 300;

/// The small tree's directories under its root, each with a
/// subdirectory.
const SMALL_DIRS: usize = 3;

/// Descriptors held open during the small walk: its own then number from
/// about 60, past the kernel's first table of 64 slots and within its
/// second, of 128 (the walker grows it from descriptor 100).
const HELD: usize = 56;

/// The soft descriptor limit the test sets for the wide walk: the walk's
/// budget follows from it (about half), and the table it grows to with it.
const LIMIT: u64 = 4096;

struct Count(AtomicUsize);

impl Visitor for Count {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), _: &Visit<'_>) -> Flow {
        self.0.fetch_add(1, Ordering::Relaxed);
        Flow::Continue
    }
    fn error(&self, _: &mut (), e: Error) {
        panic!("unexpected walk error: {e}");
    }
}

fn table_size() -> usize {
    let status = fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("FDSize:"))
        .and_then(|v| v.trim().parse().ok())
        .expect("FDSize in /proc/self/status")
}

/// `dirs` directories under `root`, each holding a subdirectory with a
/// file.
fn make_tree(root: &Path, dirs: usize) {
    for d in 0..dirs {
        let dir = root.join(format!("d{d:03}"));
        fs::create_dir_all(dir.join("sub")).unwrap();
        fs::File::create(dir.join("sub").join("f")).unwrap();
    }
}

/// A sorted walk of `root` on 4 threads; the entries visited.
fn sorted_walk(root: &Path) -> usize {
    let v = Count(AtomicUsize::new(0));
    let opts = WalkOptions::default().sort_by_name(true).threads(4);
    walk(&[root.as_os_str().as_encoded_bytes().to_vec()], &opts, &v);
    v.0.into_inner()
}

/// A walk keeping few descriptors leaves the table as it found it.
fn small_walk_grows_no_table() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path(), SMALL_DIRS);
    let held: Vec<fs::File> = (0..HELD)
        .map(|_| fs::File::open(tmp.path()).unwrap())
        .collect();
    // The test harness's table may be past 64 slots already; it holds
    // the held descriptors and the walk's few.
    let before = table_size();
    assert_eq!(sorted_walk(tmp.path()), 1 + 3 * SMALL_DIRS, "visits");
    let after = table_size();
    drop(held);
    assert!(
        after <= before.max(128),
        "a walk of 7 directories from descriptor ~{HELD} grew the table from {before} \
         to {after} slots"
    );
}

/// A walk keeping hundreds grows the table to its budget at once.
fn wide_walk_grows_the_table_at_once() {
    let lim = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    if lim.maximum.is_some_and(|hard| hard < LIMIT) {
        eprintln!(
            "SKIPPED: the hard RLIMIT_NOFILE is below {LIMIT}: the table this test \
             expects cannot be grown"
        );
        return;
    }
    rustix::process::setrlimit(
        rustix::process::Resource::Nofile,
        rustix::process::Rlimit {
            current: Some(LIMIT),
            maximum: lim.maximum,
        },
    )
    .expect("set the soft RLIMIT_NOFILE");
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path(), DIRS);
    let before = table_size();
    assert_eq!(sorted_walk(tmp.path()), 1 + 3 * DIRS, "visits");
    let after = table_size();
    // The budget is about half the limit's free descriptors (some 2,000):
    // the table grows at once to hold them, 4,096 slots.  Grown by the
    // kernel alone, it would hold the few hundred the walk kept: 512.
    assert!(
        after >= 2048,
        "the descriptor table grew from {before} to {after} slots only: \
         not to the walk's budget at once"
    );
}

#[test]
fn the_table_grows_at_once_for_a_walk_keeping_many_and_not_for_few() {
    small_walk_grows_no_table();
    wide_walk_grows_the_table_at_once();
}
