//! A walk that keeps many descriptors open grows the process's
//! descriptor table once, to what it may keep, instead of letting the
//! kernel double it step by step (each step of a threaded process waits
//! for an RCU grace period while every open waits for it).  The table's
//! size is `FDSize` in `/proc/self/status`; this file holds one test, so
//! that no other test of the same process grows the table first.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use dents::walk::{walk, Visit, Visitor, WalkOptions};
use dents::{Error, Flow};

/// Directories under the root, each with a subdirectory: a sorted walk
/// keeps every one open (for its subdirectory's `openat`) until the
/// next level is opened, well past the kernel's first table of 64.
const DIRS: usize = 300;

/// The soft descriptor limit the test sets: the walk's budget follows
/// from it (about half), and the table it grows to with it.
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

fn make_tree(root: &Path) {
    for d in 0..DIRS {
        let dir = root.join(format!("d{d:03}"));
        fs::create_dir_all(dir.join("sub")).unwrap();
        fs::File::create(dir.join("sub").join("f")).unwrap();
    }
}

#[test]
fn a_walk_keeping_many_descriptors_grows_the_table_at_once() {
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
    make_tree(tmp.path());
    let before = table_size();
    let v = Count(AtomicUsize::new(0));
    let opts = WalkOptions::default().sort_by_name(true).threads(4);
    walk(
        &[tmp.path().as_os_str().as_encoded_bytes().to_vec()],
        &opts,
        &v,
    );
    assert_eq!(v.0.load(Ordering::Relaxed), 1 + 3 * DIRS, "visits");
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
