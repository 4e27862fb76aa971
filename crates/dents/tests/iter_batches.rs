//! The iterator's batches: the workers hand entries over in batches
//! (`Walker::channel_capacity` / 8, at most 128), not one by one.  What
//! the batching must not change, on real trees: the one-thread order
//! (a batch cut in the middle of a directory, at every capacity), the
//! default order's guarantee through the iterator at several threads,
//! contents first at several threads (a directory after everything
//! below it, whichever worker read what), an idle worker's entries not
//! held back behind another's, an iterator dropped in the middle of a
//! batch, and a panic in the middle of a batch.

use std::collections::HashMap;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use dents::{DirEntry, Flow, Walker};

/// Serialises the tests of this file: some count the process's threads,
/// which the others' walks would add to.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Holds [`ONE_AT_A_TIME`] for a test (a failed test's poison ignored).
fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// How long a walk of these small trees may take before it is taken for
/// deadlocked.
const LIMIT: Duration = Duration::from_secs(30);

/// Entries of the big directory: several batches of the largest size, and
/// a remainder.
const BIG: usize = 1000;

/// A tree whose directories are cut by batches of every size: `big/`
/// with [`BIG`] files, and three levels of small directories (4
/// subdirectories and 3 files each) under `small/`.  Returns how many
/// entries it holds, the root included.
fn make_tree(root: &Path) -> usize {
    let big = root.join("big");
    fs::create_dir(&big).unwrap();
    for i in 0..BIG {
        fs::write(big.join(format!("f{i:04}")), b"").unwrap();
    }
    let mut entries = 2 + BIG;
    let mut level = vec![root.join("small")];
    fs::create_dir(&level[0]).unwrap();
    entries += 1;
    for depth in 1..=5 {
        let mut next = Vec::new();
        for dir in &level {
            for i in 0..3 {
                fs::write(dir.join(format!("f{i}")), b"").unwrap();
                entries += 1;
            }
            if depth < 5 {
                for i in 0..4 {
                    let sub = dir.join(format!("d{i}"));
                    fs::create_dir(&sub).unwrap();
                    entries += 1;
                    next.push(sub);
                }
            }
        }
        level = next;
    }
    entries
}

/// Runs `f` on a thread of its own and fails if it takes longer than
/// [`LIMIT`] (a deadlock fails the test instead of hanging the suite); a
/// panic of `f` is resumed here.
fn within_limit<R: Send + 'static>(what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    let h = std::thread::spawn(move || {
        let r = panic::catch_unwind(AssertUnwindSafe(f));
        let _ = tx.send(());
        r
    });
    match rx.recv_timeout(LIMIT) {
        Ok(()) => match h.join().unwrap() {
            Ok(r) => r,
            Err(p) => panic::resume_unwind(p),
        },
        Err(_) => panic!("{what}: still running after {LIMIT:?} (deadlocked?)"),
    }
}

/// The paths a walker's iterator yields, in its order.
fn iter_paths(w: Walker) -> Vec<Vec<u8>> {
    w.into_iter()
        .map(|r| r.unwrap().path_bytes().to_vec())
        .collect()
}

/// The paths the closure form visits, in the order visited.
fn closure_paths(w: &Walker) -> Vec<Vec<u8>> {
    let seen = Mutex::new(Vec::new());
    w.for_each(|e| {
        seen.lock().unwrap().push(e.unwrap().path_bytes().to_vec());
        Flow::Continue
    });
    seen.into_inner().unwrap()
}

/// One case of the one-thread order: an order and a channel capacity.
#[derive(Clone, Copy, Debug)]
struct Cut {
    order: WalkOrder,
    capacity: usize,
}

#[derive(Clone, Copy, Debug)]
enum WalkOrder {
    Default,
    DepthFirst,
    BreadthFirst,
    ContentsFirst,
}

/// On one thread the iterator yields exactly the visits' order, whatever
/// the capacity (batches of 1, of an odd size that cuts every directory,
/// of 128; a channel larger than the tree).
fn one_thread_order(case: Cut) {
    let _alone = alone();
    let tmp = tempfile::tempdir().unwrap();
    let entries = make_tree(tmp.path());
    let w = Walker::new(tmp.path()).threads(1);
    let w = match case.order {
        WalkOrder::Default => w,
        WalkOrder::DepthFirst => w.depth_first(),
        WalkOrder::BreadthFirst => w.breadth_first(),
        WalkOrder::ContentsFirst => w.contents_first(true),
    };
    let want = closure_paths(&w);
    assert_eq!(want.len(), entries);
    let got = within_limit("one-thread walk", move || {
        iter_paths(w.channel_capacity(case.capacity))
    });
    assert!(
        got == want,
        "{case:?}: the iterator's order is not the visits'"
    );
}

dents_testfs::test_cases! {
    /// Each order at channel capacities that make batches of 1, 7 (an
    /// odd cut), 100 and 128 entries.
    mod one_thread: super::Cut => one_thread_order;
    default_1: super::Cut { order: super::WalkOrder::Default, capacity: 1 },
    default_60: super::Cut { order: super::WalkOrder::Default, capacity: 60 },
    default_1024: super::Cut { order: super::WalkOrder::Default, capacity: 1024 },
    default_huge: super::Cut { order: super::WalkOrder::Default, capacity: 1 << 20 },
    depth_first_60: super::Cut { order: super::WalkOrder::DepthFirst, capacity: 60 },
    depth_first_1024: super::Cut { order: super::WalkOrder::DepthFirst, capacity: 1024 },
    breadth_first_60: super::Cut { order: super::WalkOrder::BreadthFirst, capacity: 60 },
    breadth_first_1024: super::Cut { order: super::WalkOrder::BreadthFirst, capacity: 1024 },
    contents_first_60: super::Cut { order: super::WalkOrder::ContentsFirst, capacity: 60 },
    contents_first_1024: super::Cut { order: super::WalkOrder::ContentsFirst, capacity: 1024 },
}

/// Through the iterator at several threads, every entry at depth 3 or
/// less comes before any deeper one (the default order's guarantee; a
/// worker's batch must go before a deeper directory is let go).
#[test]
fn the_default_order_guarantee_holds_through_the_iterator() {
    let _alone = alone();
    let tmp = tempfile::tempdir().unwrap();
    let entries = make_tree(tmp.path());
    for threads in [2, 3, 8] {
        for round in 0..5 {
            let w = Walker::new(tmp.path()).threads(threads);
            let depths: Vec<usize> = within_limit("walk", move || {
                w.into_iter().map(|r| r.unwrap().depth()).collect()
            });
            assert_eq!(depths.len(), entries);
            let first_deep = depths.iter().position(|&d| d > 3).unwrap();
            let last_shallow = depths.iter().rposition(|&d| d <= 3).unwrap();
            assert!(
                last_shallow < first_deep,
                "{threads} threads, round {round}: an entry at depth {} (#{last_shallow}) \
                 after one at depth {} (#{first_deep})",
                depths[last_shallow],
                depths[first_deep]
            );
        }
    }
}

/// Contents first at several threads: a directory comes after every
/// entry below it, though other workers read them (their batches must go
/// before the directory's visit can).
#[test]
fn contents_first_holds_at_several_threads() {
    let _alone = alone();
    let tmp = tempfile::tempdir().unwrap();
    let entries = make_tree(tmp.path());
    for threads in [2, 4, 8] {
        for round in 0..10 {
            let w = Walker::new(tmp.path())
                .threads(threads)
                .contents_first(true);
            let got: Vec<DirEntry> =
                within_limit("walk", move || w.into_iter().map(Result::unwrap).collect());
            assert_eq!(got.len(), entries);
            let index: HashMap<&[u8], usize> = got
                .iter()
                .enumerate()
                .map(|(i, e)| (e.path_bytes(), i))
                .collect();
            for (i, e) in got.iter().enumerate() {
                if e.depth() == 0 {
                    continue;
                }
                let parent = e.path().parent().unwrap().as_os_str().as_bytes();
                assert!(
                    index[parent] > i,
                    "{threads} threads, round {round}: {:?} came before {:?}",
                    e.path().parent().unwrap(),
                    e.path()
                );
            }
        }
    }
}

/// A worker that runs out of work hands over what it holds rather than
/// keep it until the walk ends: here the other worker will not go on
/// (its `filter_entry` waits) until the consumer has seen an entry the
/// first read.
#[test]
fn an_idle_workers_entries_are_not_held_back() {
    let _alone = alone();
    let tmp = tempfile::tempdir().unwrap();
    for d in ["a", "b"] {
        fs::create_dir(tmp.path().join(d)).unwrap();
        fs::write(tmp.path().join(d).join("x"), b"").unwrap();
    }
    // Until the two directories have been read by different workers ten
    // times (the schedule is the kernel's; one worker reading both proves
    // nothing).
    let mut apart = 0;
    for _ in 0..200 {
        let seen_a = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
        let reader_of_a = Arc::new(Mutex::new(None));
        let reader_of_b = Arc::new(Mutex::new(None));
        let timed_out = Arc::new(AtomicBool::new(false));
        let (s, ra, rb, t) = (
            Arc::clone(&seen_a),
            Arc::clone(&reader_of_a),
            Arc::clone(&reader_of_b),
            Arc::clone(&timed_out),
        );
        let it = Walker::new(tmp.path())
            .threads(2)
            .depth_first()
            .into_iter()
            .filter_entry(move |e| {
                let me = std::thread::current().id();
                match e.path().parent().and_then(|p| p.file_name()) {
                    Some(n) if n == "a" => *ra.lock().unwrap() = Some(me),
                    Some(n) if n == "b" && *ra.lock().unwrap() != Some(me) => {
                        *rb.lock().unwrap() = Some(me);
                        // Another worker read a (or has yet to): wait for
                        // the consumer to see a/x.
                        let (lock, cv) = &*s;
                        let g = lock.lock().unwrap();
                        let (g, w) = cv
                            .wait_timeout_while(g, Duration::from_secs(3), |seen| !*seen)
                            .unwrap();
                        if w.timed_out() && !*g {
                            t.store(true, Ordering::Relaxed);
                        }
                    }
                    _ => {}
                }
                true
            });
        let s = Arc::clone(&seen_a);
        within_limit("walk", move || {
            for e in it {
                if e.unwrap().path().ends_with("a/x") {
                    *s.0.lock().unwrap() = true;
                    s.1.notify_all();
                }
            }
        });
        assert!(
            !timed_out.load(Ordering::Relaxed),
            "a/x was held by an idle worker while the other waited for it"
        );
        let (a_by, b_by) = (*reader_of_a.lock().unwrap(), *reader_of_b.lock().unwrap());
        if a_by.is_some() && b_by.is_some() && a_by != b_by {
            apart += 1;
            if apart == 10 {
                return;
            }
        }
    }
    panic!("a and b read by different workers in only {apart} of 200 walks");
}

/// Threads of this process.
fn thread_count() -> usize {
    fs::read_dir("/proc/self/task").unwrap().count()
}

/// Threads of this process once those above `before` have gone (a
/// thread that has ended may stay listed a moment after its join), or
/// after two seconds.
fn settled_thread_count(before: usize) -> usize {
    let settle = Instant::now();
    while thread_count() > before && settle.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(5));
    }
    thread_count()
}

/// Dropping the iterator in the middle of a batch (and of a directory)
/// stops the walk and joins its threads, at 1, 2 and 8 threads.
#[test]
fn dropping_the_iterator_mid_batch_stops_the_walk() {
    let _alone = alone();
    let tmp = tempfile::tempdir().unwrap();
    let entries = make_tree(tmp.path());
    let root = tmp.path().to_path_buf();
    within_limit("drops", move || {
        for threads in [1, 2, 8] {
            for taken in [1, 5, 130, 700] {
                let before = thread_count();
                let mut it = Walker::new(&root).threads(threads).into_iter();
                for _ in 0..taken {
                    it.next().unwrap().unwrap();
                }
                drop(it);
                assert_eq!(
                    settled_thread_count(before),
                    before,
                    "{threads} threads, {taken} taken"
                );
            }
        }
        // And a walk after them is whole.
        assert_eq!(Walker::new(&root).into_iter().count(), entries);
    });
}

/// The panic payload of [`a_panic_mid_batch_reaches_the_consumer`].
#[derive(Debug, PartialEq)]
struct Boom(usize);

/// A `filter_entry` predicate (run on the workers) that panics at an
/// entry in the middle of a batch: the walk ends, and the consumer's
/// `next` panics with the predicate's own payload, at 1, 2 and 8
/// threads.
#[test]
fn a_panic_mid_batch_reaches_the_consumer() {
    let _alone = alone();
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    let root = tmp.path().to_path_buf();
    for threads in [1, 2, 8] {
        let root = root.clone();
        let before = thread_count();
        let (yielded, payload) = within_limit("walk", move || {
            let it = Walker::new(&root)
                .threads(threads)
                .into_iter()
                .filter_entry(move |e| {
                    if e.file_name_bytes() == b"f0500" {
                        panic::panic_any(Boom(threads));
                    }
                    true
                });
            let mut yielded = 0;
            let r = panic::catch_unwind(AssertUnwindSafe(|| {
                for e in it {
                    e.unwrap();
                    yielded += 1;
                }
            }));
            (yielded, r.err())
        });
        let payload = payload.unwrap_or_else(|| panic!("{threads} threads: no panic came back"));
        assert_eq!(
            payload.downcast_ref::<Boom>(),
            Some(&Boom(threads)),
            "{threads} threads: another payload"
        );
        assert!(yielded <= 2 + BIG + 400, "{threads} threads");
        assert_eq!(
            settled_thread_count(before),
            before,
            "{threads} threads: threads left"
        );
    }
}

/// This thread's voluntary context switches so far: how often it waited.
fn waits_of_this_thread() -> u64 {
    let status = fs::read_to_string("/proc/thread-self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
        .map(|n| n.trim().parse().unwrap())
        .unwrap()
}

/// A sorted depth-first walk (walkdir's order) runs on one worker, whose
/// turn ends at nearly every directory: its batches must still fill
/// across directories, or the consumer waits for (and is woken by) each
/// directory's entries on their own, 1.6 context switches a directory.
/// 1,000 directories of 2 files make 24 full batches: the consumer may
/// wait for each, not for each directory.
#[test]
fn a_sorted_walks_batches_fill_across_directories() {
    let _alone = alone();
    let tmp = tempfile::tempdir().unwrap();
    for i in 0..1000 {
        let d = tmp.path().join(format!("d{i:04}"));
        fs::create_dir(&d).unwrap();
        for f in ["a", "b"] {
            fs::write(d.join(f), b"").unwrap();
        }
    }
    let root = tmp.path().to_path_buf();
    let (n, waits) = within_limit("sorted walk", move || {
        let before = waits_of_this_thread();
        let n = Walker::new(&root).sort_by_file_name().into_iter().count();
        (n, waits_of_this_thread() - before)
    });
    assert_eq!(n, 3001);
    assert!(
        waits < 250,
        "the consumer waited {waits} times for 1,000 directories' entries"
    );
}
