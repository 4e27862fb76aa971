//! Sorted walks of a tree with many directories a level, on several
//! workers, visit every entry once in the one-thread order (compared with
//! `std::fs`'s listings sorted breadth first), on a real ext4 filesystem.
//!
//! The tree is wide enough that the queue holds more directories than
//! workers (each worker takes several at a time), and a slow visitor
//! keeps the workers far ahead of the visits (each is held back, and let
//! go on alone when its turn comes): the paths where a directory could be
//! lost, visited twice or out of turn.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use dents::walk::{walk, Visit, Visitor, WalkOptions};
use dents::{Error, Flow};
use dents_testfs::{FsKind, LoopFs};

/// Records the paths visited, in order, pausing `pause` at each visit of
/// a directory (a visitor slower than the reads).
struct Paths {
    seen: Mutex<Vec<Vec<u8>>>,
    pause: Duration,
}

impl Visitor for Paths {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        self.seen.lock().unwrap().push(v.path().to_vec());
        if !self.pause.is_zero() && v.known_type().is_some_and(|t| t.is_dir()) {
            std::thread::sleep(self.pause);
        }
        Flow::Continue
    }
    fn error(&self, _: &mut (), e: Error) {
        panic!("walk error: {e:?}");
    }
}

/// The tree: `width` directories under the root, `width` under each of
/// them, two files in each of those, and a file beside each directory.
fn make_tree(root: &Path, width: usize) {
    for i in 0..width {
        let a = root.join(format!("d{i:02}"));
        fs::create_dir(&a).unwrap();
        fs::write(root.join(format!("f{i:02}")), b"").unwrap();
        for j in 0..width {
            let b = a.join(format!("e{j:02}"));
            fs::create_dir(&b).unwrap();
            fs::write(a.join(format!("g{j:02}")), b"").unwrap();
            fs::write(b.join("x"), b"").unwrap();
            fs::write(b.join("y"), b"").unwrap();
        }
    }
}

/// One case: the workers and the visitor's pause at each directory.
fn check((threads, pause_us): (usize, u64)) {
    let Some(fs) = LoopFs::new_or_skip(FsKind::Ext4, 128) else {
        return;
    };
    let root = fs.path().join("t");
    fs::create_dir(&root).unwrap();
    make_tree(&root, 24);
    let want = dents_testfs::sorted_breadth_first(&root);
    // The root, a directory and a file a name of the top level, as many
    // under each, two files in each of the lowest directories.
    assert_eq!(want.len(), 1 + 2 * 24 + 24 * 24 * (2 + 2), "entries made");
    let v = Paths {
        seen: Mutex::new(Vec::new()),
        pause: Duration::from_micros(pause_us),
    };
    let opts = WalkOptions::new().threads(threads).sort_by_name(true);
    walk(&[root.as_os_str().as_bytes().to_vec()], &opts, &v);
    let got = v.seen.into_inner().unwrap();
    let at = got.iter().zip(&want).position(|(a, b)| a != b);
    assert!(
        got == want,
        "{threads} workers: {} entries visited of {}, first difference at {at:?}: {:?}",
        got.len(),
        want.len(),
        at.map(|k| String::from_utf8_lossy(&got[k]).into_owned())
    );
}

dents_testfs::test_cases! {
/// A sorted walk of a wide tree: (workers, the visitor's pause at each
/// directory in microseconds).
mod wide_sorted_walks: (usize, u64) => check;
    two_workers_slow_visits: (2, 200),
    eight_workers_slow_visits: (8, 200),
    eight_workers: (8, 0),
    thirty_two_workers_slow_visits: (32, 100),
}
