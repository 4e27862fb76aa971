//! A walk that keeps few descriptors does not grow the process's
//! descriptor table beyond what the kernel's own growth gives: growing
//! it from a threaded process waits for an RCU grace period (~10 ms),
//! which made a sorted walk of a small tree (3.7 ms) take 14 ms when the
//! walker grew the table from descriptor 48.  `FDSize` in
//! `/proc/self/status` is the table's size; this file holds one test, so
//! that no other test of the same process grows the table.

use std::fs;
use std::sync::atomic::{AtomicUsize, Ordering};

use dents::walk::{walk, Visit, Visitor, WalkOptions};
use dents::{Error, Flow};

/// Descriptors held open before the walk: the walk's own then number
/// from about 60, past the kernel's first table of 64 slots and within
/// its second, of 128 (the walker grows it from descriptor 100).
const HELD: usize = 56;

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

#[test]
fn a_walk_keeping_few_descriptors_grows_no_table() {
    let tmp = tempfile::tempdir().unwrap();
    for d in 0..3 {
        let dir = tmp.path().join(format!("d{d}"));
        fs::create_dir_all(dir.join("sub")).unwrap();
        fs::File::create(dir.join("sub").join("f")).unwrap();
    }
    let held: Vec<fs::File> = (0..HELD)
        .map(|_| fs::File::open(tmp.path()).unwrap())
        .collect();
    // The test harness's table may be past 64 slots already; it holds
    // the held descriptors and the walk's few.
    let before = table_size();
    let v = Count(AtomicUsize::new(0));
    let opts = WalkOptions::default().sort_by_name(true).threads(4);
    walk(
        &[tmp.path().as_os_str().as_encoded_bytes().to_vec()],
        &opts,
        &v,
    );
    assert_eq!(v.0.load(Ordering::Relaxed), 1 + 3 * 3, "visits");
    let after = table_size();
    drop(held);
    assert!(
        after <= before.max(128),
        "a walk of 7 directories from descriptor ~{HELD} grew the table from {before} \
         to {after} slots"
    );
}
