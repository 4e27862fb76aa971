//! `Visitor::listing` (unstable, for dents-snap's refresh): a walk,
//! sorted or not, takes the entries a visitor supplies for a directory instead of
//! reading it, visits them (sorted in a sorted walk), classifies those of unknown type and
//! walks the subdirectories among them; a directory not supplied is read.

use std::fs;
use std::os::fd::BorrowedFd;
use std::sync::Mutex;

use dents::unstable::Start;
use dents::walk::{walk, Listing, Visit, Visitor, WalkOptions};
use dents::Error;
use dents::FileType;
use dents::Flow;

/// Records visits (path and type); supplies a listing for directories
/// whose path ends in `/supplied`.
struct Supply {
    seen: Mutex<Vec<(String, FileType)>>,
}

impl Visitor for Supply {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        let rel = String::from_utf8_lossy(v.path()).into_owned();
        self.seen.lock().unwrap().push((rel, v.file_type()));
        Flow::Continue
    }
    fn listing(&self, _: &mut (), dir: &Start<'_>, _fd: BorrowedFd<'_>) -> Option<Listing> {
        if !dir.path.ends_with(b"/supplied") {
            return None;
        }
        let mut l = Listing::new();
        // "ghost" is not on disk: visited all the same (the caller
        // answers for the listing); "sub" is a real directory, given
        // with an unknown type: classified, then walked; "real" is on
        // disk but left out: not visited.
        assert!(l.push(b"ghost", FileType::REGULAR, 7));
        assert!(l.push(b"sub", FileType::UNKNOWN, 0));
        assert!(!l.push(b"a/b", FileType::REGULAR, 1));
        assert!(!l.push(b"..", FileType::DIRECTORY, 1));
        assert!(!l.push(b"", FileType::REGULAR, 1));
        Some(l)
    }
    fn error(&self, _: &mut (), e: Error) {
        panic!("{e:?}")
    }
}

fn tree() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let s = t.path().join("supplied");
    fs::create_dir_all(s.join("sub")).unwrap();
    fs::write(s.join("real"), b"").unwrap();
    fs::write(s.join("sub/inner"), b"").unwrap();
    fs::write(t.path().join("plain"), b"").unwrap();
    t
}

fn run(threads: usize, sort: bool) -> (Vec<(String, FileType)>, u64) {
    let t = tree();
    let root = t.path().as_os_str().as_encoded_bytes().to_vec();
    let v = Supply {
        seen: Mutex::new(Vec::new()),
    };
    let opts = WalkOptions::new().threads(threads).sort_by_name(sort);
    let stats = walk(std::slice::from_ref(&root), &opts, &v);
    let prefix = String::from_utf8(root).unwrap();
    let mut seen: Vec<(String, FileType)> = v
        .seen
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|(p, t)| (p[prefix.len()..].to_string(), t))
        .collect();
    if !sort {
        seen.sort();
    }
    let read = stats.dirs_read;
    (seen, read)
}

/// What a walk of the tree with `supplied` given should visit.
fn wanted() -> Vec<(String, FileType)> {
    [
        ("", FileType::DIRECTORY),
        ("/plain", FileType::REGULAR),
        ("/supplied", FileType::DIRECTORY),
        ("/supplied/ghost", FileType::REGULAR),
        ("/supplied/sub", FileType::DIRECTORY),
        ("/supplied/sub/inner", FileType::REGULAR),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_string(), t))
    .collect()
}

#[test]
fn a_supplied_listing_replaces_the_read_at_any_number_of_threads() {
    for threads in [1, 4] {
        let (seen, read) = run(threads, true);
        assert_eq!(seen, wanted(), "{threads} threads");
        // The root and sub are read; supplied is not.
        assert_eq!(read, 2, "{threads} threads");
    }
}

/// dents-mpi's walks are not sorted: they take a supplied listing too
/// (visited in the listing's order, which `run` sorts away here).
#[test]
fn an_unsorted_walk_takes_a_supplied_listing_too() {
    for threads in [1, 4] {
        let (seen, read) = run(threads, false);
        assert_eq!(seen, wanted(), "{threads} threads");
        assert_eq!(read, 2, "{threads} threads");
    }
}
