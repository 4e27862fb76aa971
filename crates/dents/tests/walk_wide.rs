//! Wide directories (issue 29): more subdirectories in one directory
//! than an unsorted walk keeps queued at once.
//!
//! The walk hands a directory's subdirectories to the queue a chunk at a
//! time while it reads it, and a worker whose read finds the queue long
//! stops to read queued directories itself, so that the queue stays near
//! 16,384 directories (`QUEUE_HIGH` in `walk/read.rs`) however wide a
//! directory is.  Checked here on a directory of 40,000 subdirectories
//! (and one of 20,000 deeper down, which the hybrid order reads depth
//! first): every walk form gives exactly the reference's paths, each
//! directory's contents before its post-order visit, the hybrid order's
//! shallow entries before the deep ones, and a queue that never held
//! more than twice the limit (before, the whole directory was queued
//! once its read was over: 40,000 at once).  The same tree one level
//! down, the wide directory at depth 2: in the hybrid order no worker
//! may take its subdirectories while it is read, and the queue stays
//! bounded only by spilling them to a temporary file (`walk/deep.rs`).
//!
//! In `/dev/shm` where there is one (a disk makes it slower, not
//! different); `walk.rs` and dents-cli's `wide_trees.rs` walk wide
//! directories on ext4, XFS and btrfs.

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::sync::Mutex;

use dents::walk::{walk, Order, Visit, Visitor, WalkOptions};
use dents::{Error, Flow};

/// Subdirectories of the wide directory at the top.
const WIDE: usize = 40_000;

/// Subdirectories of the wide directory at depth 3 (`w/d00000/x/inner`).
const INNER_WIDE: usize = 20_000;

/// Every this many subdirectories of the top one, one holds a file and a
/// subdirectory with a file.
const FULL_EVERY: usize = 997;

/// The most directories a walk of the tree may queue: twice the walk's
/// limit, room for the chunks other workers hand over while one helps.
const QUEUE_BOUND: u64 = 2 * 16_384;

/// Records every visit in order, and every error.
#[derive(Default)]
struct Recorder {
    visits: Mutex<Vec<(Vec<u8>, bool)>>,
    errors: Mutex<Vec<String>>,
}

impl Visitor for Recorder {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        let visit = (v.path().to_vec(), v.is_post_order());
        self.visits.lock().unwrap().push(visit);
        Flow::Continue
    }
    fn error(&self, _: &mut (), e: Error) {
        self.errors.lock().unwrap().push(e.to_string());
    }
}

/// Builds the tree at `w`; returns its directories' count (`w`'s
/// parents aside).
fn build(w: &Path) -> usize {
    dents_testfs::fill_subdirs(w, WIDE, |i| format!("d{i:05}"));
    let mut dirs = 1 + WIDE;
    for i in (0..WIDE).step_by(FULL_EVERY) {
        let d = w.join(format!("d{i:05}"));
        fs::write(d.join("f"), b"f").unwrap();
        fs::create_dir(d.join("sub")).unwrap();
        fs::write(d.join("sub/g"), b"g").unwrap();
        dirs += 1;
    }
    let inner = w.join("d00000/x/inner");
    dents_testfs::fill_subdirs(&inner, INNER_WIDE, |i| format!("e{i:05}"));
    dirs + 2 + INNER_WIDE
}

/// A walk form: order, contents first, descriptor budget, `d_type`
/// ignored, the wide directory at depth 2 (else at the root).
type Form = (Order, bool, Option<usize>, bool, bool);

/// One case of `wide`: the walk in this form at 1, 2 and 8 threads.
fn check((order, post, budget, untyped, at_depth_2): Form) {
    let tmp = dents_testfs::DeepTmp::new();
    let root = tmp.path().join("w");
    let dirs = if at_depth_2 {
        // In the hybrid order a directory at depth 2 is read before any
        // deeper one may be: none of its subdirectories (depth 3) can be
        // taken while it is read, and its queue is spilled instead.
        build(&root.join("a/w")) + 2
    } else {
        build(&root)
    };
    let mut want = dents_testfs::sorted_breadth_first(&root);
    want.sort();
    let root_b = root.as_os_str().as_encoded_bytes().to_vec();
    let base = root_b.iter().filter(|&&c| c == b'/').count();
    for threads in [1, 2, 8] {
        let what = format!(
            "{threads} threads, {order:?}, post={post}, budget={budget:?}, untyped={untyped}"
        );
        let o = WalkOptions::new()
            .threads(threads)
            .order(order)
            .contents_first(post)
            .test_fd_budget(budget)
            .test_ignore_dtype(untyped);
        let r = Recorder::default();
        let stats = walk(std::slice::from_ref(&root_b), &o, &r);
        let errors = r.errors.into_inner().unwrap();
        assert!(errors.is_empty(), "{what}: {errors:?}");
        let visits = r.visits.into_inner().unwrap();
        let mut got: Vec<Vec<u8>> = visits.iter().map(|(p, _)| p.clone()).collect();
        got.sort();
        assert!(
            got == want,
            "{what}: {} paths, want {}",
            got.len(),
            want.len()
        );
        assert_eq!(stats.dirs_read, dirs as u64, "{what}: directories read");
        // Without `d_type` a directory's subdirectories are known only once
        // its read is over (classified together); they are handed over
        // as they are visited then.
        assert!(
            stats.queue_peak <= QUEUE_BOUND,
            "{what}: {} directories queued at once",
            stats.queue_peak
        );
        // The wide directory's descriptor is kept for its children while
        // they are handed over, even once all handed so far are opened.
        if budget.is_none() {
            assert_eq!(stats.reopened_by_path, 0, "{what}: opened by path");
        }
        if at_depth_2 && order == Order::Hybrid {
            assert!(stats.dirs_spilled > 0, "{what}: nothing spilled");
        }
        let at: HashMap<&[u8], usize> = visits
            .iter()
            .enumerate()
            .map(|(i, (p, _))| (p.as_slice(), i))
            .collect();
        if post {
            // Each directory after everything below it: its last child
            // handed over does not let it go before its read is over.
            for (i, (p, _)) in visits.iter().enumerate() {
                if let Some(slash) = p.iter().rposition(|&c| c == b'/') {
                    if let Some(&parent) = at.get(&p[..slash]) {
                        assert!(parent > i, "{what}: {:?} after its parent", p);
                    }
                }
            }
        } else if order == Order::Hybrid {
            // The hybrid order's promise: every entry down to depth 3
            // before any deeper one.
            let depth = |p: &[u8]| p.iter().filter(|&&c| c == b'/').count() - base;
            let last_shallow = visits.iter().rposition(|(p, _)| depth(p) <= 3);
            let first_deep = visits.iter().position(|(p, _)| depth(p) > 3);
            assert!(
                last_shallow < first_deep,
                "{what}: an entry deeper than 3 at {first_deep:?}, a shallow one at {last_shallow:?}"
            );
        }
    }
}

dents_testfs::test_cases! {
/// Every form walks the wide tree exactly, its queue bounded: (order,
/// contents first, descriptor budget, `d_type` ignored, the wide
/// directory at depth 2).
mod wide: (dents::walk::Order, bool, Option<usize>, bool, bool) => check;
    hybrid: (dents::walk::Order::Hybrid, false, None, false, false),
    hybrid_contents_first: (dents::walk::Order::Hybrid, true, None, false, false),
    breadth_first: (dents::walk::Order::BreadthFirst, false, None, false, false),
    breadth_first_contents_first: (dents::walk::Order::BreadthFirst, true, None, false, false),
    depth_first: (dents::walk::Order::DepthFirst, false, None, false, false),
    depth_first_contents_first: (dents::walk::Order::DepthFirst, true, None, false, false),
    // No descriptor to spare for the wide directory's children: each is
    // opened by its path.
    hybrid_one_descriptor: (dents::walk::Order::Hybrid, false, Some(1), false, false),
    hybrid_contents_first_one_descriptor: (dents::walk::Order::Hybrid, true, Some(1), false, false),
    // Classified after the read, visited on one thread (not in parts).
    hybrid_untyped: (dents::walk::Order::Hybrid, false, None, true, false),
    breadth_first_untyped: (dents::walk::Order::BreadthFirst, false, None, true, false),
    // du's form.
    depth_first_contents_first_untyped: (dents::walk::Order::DepthFirst, true, None, true, false),
    // At depth 2: its subdirectories wait for the top levels (hybrid),
    // spilled past the limit.
    hybrid_at_depth_2: (dents::walk::Order::Hybrid, false, None, false, true),
    hybrid_contents_first_at_depth_2: (dents::walk::Order::Hybrid, true, None, false, true),
    hybrid_one_descriptor_at_depth_2: (dents::walk::Order::Hybrid, false, Some(1), false, true),
    hybrid_untyped_at_depth_2: (dents::walk::Order::Hybrid, false, None, true, true),
    depth_first_contents_first_untyped_at_depth_2: (dents::walk::Order::DepthFirst, true, None, true, true),
}

/// A sorted walk of the wide tree: its queue spills past a few thousand
/// directories, and a wide directory's subdirectories are queued (so
/// spilled) a chunk at a time as it is visited, which must not change
/// the order: exactly the sorted breadth-first reference, at 1, 2 and 8
/// threads, the queue spilled.
#[test]
fn sorted_walk_keeps_its_order() {
    let tmp = dents_testfs::DeepTmp::new();
    let root = tmp.path().join("w");
    build(&root);
    let want = dents_testfs::sorted_breadth_first(&root);
    let root_b = root.as_os_str().as_encoded_bytes().to_vec();
    for threads in [1, 2, 8] {
        let o = WalkOptions::new().threads(threads).sort_by_name(true);
        let r = Recorder::default();
        let stats = walk(std::slice::from_ref(&root_b), &o, &r);
        let errors = r.errors.into_inner().unwrap();
        assert!(errors.is_empty(), "{threads} threads: {errors:?}");
        let got: Vec<Vec<u8>> = r
            .visits
            .into_inner()
            .unwrap()
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        if let Some(i) = (0..got.len().min(want.len())).find(|&i| got[i] != want[i]) {
            panic!(
                "{threads} threads: visit {i} is {:?}, want {:?}",
                String::from_utf8_lossy(&got[i]),
                String::from_utf8_lossy(&want[i])
            );
        }
        assert_eq!(got.len(), want.len(), "{threads} threads: visits");
        assert!(
            stats.dirs_spilled > 0,
            "{threads} threads: the queue never spilled"
        );
    }
}
