//! A sorted walk's workers prepare directories (open, read, sort, stat
//! ahead) ahead of the serial visits, within a window of tickets and a
//! bound on the bytes the prepared directories hold together.  Each
//! prepared directory keeps its descriptor until its visit, so the
//! descriptors open during a slow visitor's visits show how far ahead
//! the workers went: with the byte bound at one byte, no further than one
//! directory a worker; with the default, many more (which shows that the
//! count can fail).  The visits are the same either way.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use dents::walk::{walk, Visit, Visitor, WalkOptions};
use dents::{Error, FileType, Flow};

/// Directories under the root, each of [`FILES`] files: every one
/// prepared holds its listing and 1,024 stats (about 150 KB).
const DIRS: usize = 48;
const FILES: usize = 1_200;
const THREADS: usize = 8;

/// Records the visits, and the most descriptors open at the first entry
/// of each directory, where it sleeps so that the workers get ahead.
struct Slow {
    seen: Mutex<Vec<Vec<u8>>>,
    most_fds: AtomicUsize,
}

impl Visitor for Slow {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        self.seen.lock().unwrap().push(v.path().to_vec());
        if v.name() == b"f00000" {
            self.most_fds.fetch_max(open_fds(), Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(15));
        }
        Flow::Continue
    }
    fn stat_ahead(&self, _known: Option<FileType>) -> bool {
        true
    }
    fn error(&self, _: &mut (), e: Error) {
        panic!("unexpected walk error: {e}");
    }
}

fn open_fds() -> usize {
    fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .count()
}

fn make_tree(root: &Path) {
    for d in 0..DIRS {
        let dir = root.join(format!("d{d:03}"));
        fs::create_dir(&dir).unwrap();
        for f in 0..FILES {
            fs::File::create(dir.join(format!("f{f:05}"))).unwrap();
        }
    }
}

/// The visits in order and the most descriptors seen open beyond those
/// open before the walk.
fn run(root: &Path, ready_bytes: Option<usize>) -> (Vec<Vec<u8>>, usize) {
    let v = Slow {
        seen: Mutex::new(Vec::new()),
        most_fds: AtomicUsize::new(0),
    };
    let before = open_fds();
    let opts = WalkOptions::default()
        .sort_by_name(true)
        .threads(THREADS)
        .test_ready_bytes(ready_bytes);
    let root = root.as_os_str().as_encoded_bytes().to_vec();
    walk(&[root], &opts, &v);
    let most = v.most_fds.load(Ordering::Relaxed).saturating_sub(before);
    (v.seen.into_inner().unwrap(), most)
}

#[test]
fn the_byte_bound_stops_the_workers_one_directory_ahead() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    let (tiny_order, tiny_fds) = run(tmp.path(), Some(1));
    let (default_order, default_fds) = run(tmp.path(), None);
    assert_eq!(tiny_order.len(), 1 + DIRS * (FILES + 1));
    assert_eq!(tiny_order, default_order, "the bound changed the visits");
    // Each worker holds the directory it prepares (read, kept for its
    // visit) and at most one more for a moment; the byte bound lets no
    // worker start another while one waits.
    let bound = 2 * THREADS + 2;
    assert!(
        tiny_fds <= bound,
        "{tiny_fds} descriptors open with the byte bound at 1 (at most {bound})"
    );
    assert!(
        default_fds > bound,
        "only {default_fds} descriptors open by default: the workers did not get ahead, \
         so this test shows nothing"
    );
}
