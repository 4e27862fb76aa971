//! The default walk order's guarantee (`dents::walk::Order::Hybrid`), on a
//! real tree, at several numbers of workers: every entry at depth 3 or
//! less is visited before any deeper entry; on one worker those entries
//! come in level order; a walk that quits on a match at depth 3 reads no
//! directory below depth 2.
//!
//! The check is shown to fail on a depth-first walk of the same tree, so
//! a default that went depth first (or lost the barrier between the
//! levels) would fail here.

use std::fs;
use std::path::Path;
use std::sync::Mutex;

use dents::walk::{walk, Order, Visit, Visitor, WalkOptions};
use dents::Error;
use dents::Flow;
use dents::Walker;

/// Entries down to this depth come first (the documented guarantee).
const LEVELS: usize = 3;

/// Subdirectories and files in each directory.
const FANOUT: usize = 4;

/// Directories down to this depth (the files of the deepest ones are one
/// deeper).
const DEPTH: usize = 5;

/// Makes a tree of `FANOUT` subdirectories and `FANOUT` files in every
/// directory down to `DEPTH`: 1,364 directories, enough at depths 1 to 3
/// (84) to keep 8 workers busy on the top levels.  Returns how many
/// entries it holds, the root included.
fn make_tree(root: &Path) -> usize {
    let mut entries = 1;
    let mut level = vec![root.to_path_buf()];
    for depth in 1..=DEPTH + 1 {
        let mut next = Vec::new();
        for dir in &level {
            for i in 0..FANOUT {
                fs::write(dir.join(format!("f{i}")), b"x").unwrap();
                entries += 1;
                if depth <= DEPTH {
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

/// Records the depth of every visit, in the order the visits happen (the
/// lock orders visits on different workers as they took place).
#[derive(Default)]
struct Depths {
    seen: Mutex<Vec<usize>>,
    quit_at: Option<Vec<u8>>,
}

impl Visitor for Depths {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        self.seen.lock().unwrap().push(v.depth());
        if self.quit_at.as_deref() == Some(v.name()) {
            Flow::Quit
        } else {
            Flow::Continue
        }
    }
    fn error(&self, _: &mut (), e: Error) {
        panic!("walk error: {e:?}");
    }
}

/// Whether every entry at depth `LEVELS` or less comes before any deeper
/// one: `Err` with the positions of the first deeper entry and of the
/// last shallow one after it.
fn shallow_first(depths: &[usize]) -> Result<(), (usize, usize)> {
    let first_deep = depths.iter().position(|&d| d > LEVELS);
    let last_shallow = depths.iter().rposition(|&d| d <= LEVELS);
    match (first_deep, last_shallow) {
        (Some(deep), Some(shallow)) if deep < shallow => Err((deep, shallow)),
        _ => Ok(()),
    }
}

fn walk_depths(root: &Path, opts: &WalkOptions) -> Vec<usize> {
    let rec = Depths::default();
    walk(&[root.as_os_str().as_encoded_bytes().to_vec()], opts, &rec);
    rec.seen.into_inner().unwrap()
}

#[test]
fn default_order_visits_the_top_levels_first_at_any_number_of_workers() {
    let dir = tempfile::tempdir().unwrap();
    let entries = make_tree(dir.path());
    assert_eq!(WalkOptions::new().get_order(), Order::Hybrid);
    for threads in [1, 2, 3, 8, 32] {
        let opts = WalkOptions::new().threads(threads);
        // Several rounds: the multi-worker interleavings differ each time.
        for round in 0..5 {
            let depths = walk_depths(dir.path(), &opts);
            assert_eq!(depths.len(), entries, "{threads} workers: every entry once");
            if let Err((deep, shallow)) = shallow_first(&depths) {
                panic!(
                    "{threads} workers, round {round}: an entry at depth {} (visit {deep}) \
                     came before one at depth {} (visit {shallow})",
                    depths[deep], depths[shallow]
                );
            }
            if threads == 1 {
                let top = depths.iter().take_while(|&&d| d <= LEVELS);
                assert!(
                    top.clone().zip(top.skip(1)).all(|(a, b)| a <= b),
                    "one worker: the top levels in level order: {depths:?}"
                );
            }
        }
    }
}

#[test]
fn the_check_fails_on_a_depth_first_walk() {
    let dir = tempfile::tempdir().unwrap();
    make_tree(dir.path());
    for threads in [1, 2] {
        let opts = WalkOptions::new().threads(threads).order(Order::DepthFirst);
        let depths = walk_depths(dir.path(), &opts);
        assert!(
            shallow_first(&depths).is_err(),
            "{threads} workers: a depth-first walk passed the check"
        );
    }
    // Breadth first on one worker keeps it too (level order all the way
    // down); on several, a worker may read a directory of depth 3 while
    // another still reads one of depth 2: only the hybrid's barrier rules
    // that out.
    let opts = WalkOptions::new().threads(1).order(Order::BreadthFirst);
    assert_eq!(shallow_first(&walk_depths(dir.path(), &opts)), Ok(()));
}

#[test]
fn the_walker_api_and_sorted_walks_keep_the_guarantee() {
    let dir = tempfile::tempdir().unwrap();
    let entries = make_tree(dir.path());
    for (threads, sort) in [(1, false), (8, false), (1, true), (8, true)] {
        let depths = Mutex::new(Vec::new());
        Walker::new(dir.path())
            .threads(threads)
            .sort_by_name(sort)
            .for_each(|e| {
                depths.lock().unwrap().push(e.unwrap().depth());
                Flow::Continue
            });
        let depths = depths.into_inner().unwrap();
        assert_eq!(depths.len(), entries);
        assert_eq!(
            shallow_first(&depths),
            Ok(()),
            "{threads} workers, sort {sort}"
        );
        if sort {
            // Sorted: level order all the way down, whatever the workers.
            assert!(depths.windows(2).all(|w| w[0] <= w[1]), "sort {threads}");
        }
    }
}

#[test]
fn quitting_on_a_match_at_depth_3_reads_no_directory_below_depth_2() {
    let dir = tempfile::tempdir().unwrap();
    make_tree(dir.path());
    // One needle at depth 3, in the last directory of depth 2 by name.
    let last = format!("d{}", FANOUT - 1);
    let needle_dir = dir.path().join(&last).join(&last);
    fs::write(needle_dir.join("needle"), b"").unwrap();
    let shallow_dirs = 1 + FANOUT + FANOUT * FANOUT;
    for threads in [1, 2, 8] {
        for _ in 0..5 {
            let rec = Depths {
                quit_at: Some(b"needle".to_vec()),
                ..Depths::default()
            };
            let opts = WalkOptions::new().threads(threads);
            let stats = walk(
                &[dir.path().as_os_str().as_encoded_bytes().to_vec()],
                &opts,
                &rec,
            );
            let depths = rec.seen.into_inner().unwrap();
            let read = stats.dirs_read as usize;
            assert!(
                read <= shallow_dirs,
                "{threads} workers: {read} directories read, only {shallow_dirs} above depth 3"
            );
            assert!(depths.iter().all(|&d| d <= LEVELS), "{threads}: {depths:?}");
        }
    }
}
