//! `WalkOptions::ino_order`: each entry still visited exactly once (and
//! post-order after its subtree), and on one thread a directory's entries
//! come by inode number, in runs, not in the order `getdents64` gives.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Mutex;

use dents::walk::{walk, Flow, Order, Visit, Visitor, WalkError, WalkOptions};

/// Records (path, inode, post-order) of every visit, in order.
#[derive(Default)]
struct Recorder {
    visits: Mutex<Vec<(Vec<u8>, u64, bool)>>,
}

impl Visitor for Recorder {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        let ino = v.metadata().expect("stat").ino();
        self.visits
            .lock()
            .unwrap()
            .push((v.path().to_vec(), ino, v.is_post_order()));
        Flow::Continue
    }
    fn error(&self, _: &mut (), e: &WalkError) {
        panic!("{}: {:?}", String::from_utf8_lossy(&e.path), e.kind);
    }
}

/// Every path below `root` (and `root`), by a plain recursive read.
fn reference(root: &Path, out: &mut Vec<Vec<u8>>) {
    out.push(root.as_os_str().as_bytes().to_vec());
    if fs::symlink_metadata(root).unwrap().is_dir() {
        for e in fs::read_dir(root).unwrap() {
            reference(&e.unwrap().path(), out);
        }
    }
}

/// A directory of `files` files (names made so that the hash order of
/// ext4 and the creation order, which is roughly the inode order, differ)
/// and a few subdirectories with files of their own.
fn tree(root: &Path, files: usize) {
    fs::create_dir(root).unwrap();
    for i in 0..files {
        fs::write(root.join(format!("f{:05}", (i * 7919) % 100_000)), b"x").unwrap();
    }
    for d in 0..5 {
        let sub = root.join(format!("d{d}"));
        fs::create_dir(&sub).unwrap();
        for i in 0..40 {
            fs::write(sub.join(format!("g{i}")), b"").unwrap();
        }
    }
}

fn run(root: &Path, threads: usize, post: bool, ino_order: bool) -> Vec<(Vec<u8>, u64, bool)> {
    let opts = WalkOptions::new()
        .threads(threads)
        .order(Order::DepthFirst)
        .contents_first(post)
        .ino_order(ino_order);
    let r = Recorder::default();
    walk(&[root.as_os_str().as_bytes().to_vec()], &opts, &r);
    r.visits.into_inner().unwrap()
}

#[test]
fn every_entry_is_visited_once_and_directories_after_their_subtrees() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("t");
    // More entries than one run (256), so that runs are flushed in the
    // middle of the read too.
    tree(&root, 3000);
    let mut want = Vec::new();
    reference(&root, &mut want);
    want.sort();
    for threads in [1, 2, 8] {
        for post in [false, true] {
            let got = run(&root, threads, post, true);
            let mut paths: Vec<Vec<u8>> = got.iter().map(|(p, _, _)| p.clone()).collect();
            paths.sort();
            assert_eq!(paths, want, "threads {threads}, post-order {post}");
            if post {
                // A directory's visit comes after every visit below it.
                for (i, (p, _, is_post)) in got.iter().enumerate() {
                    if !is_post {
                        continue;
                    }
                    let mut prefix = p.clone();
                    prefix.push(b'/');
                    assert!(
                        !got[i + 1..].iter().any(|(q, _, _)| q.starts_with(&prefix)),
                        "{} visited before its subtree",
                        String::from_utf8_lossy(p)
                    );
                }
            }
        }
    }
}

/// The visits of the entries directly in `dir`, in visit order.
fn inodes_in(got: &[(Vec<u8>, u64, bool)], dir: &Path) -> Vec<u64> {
    let mut prefix = dir.as_os_str().as_bytes().to_vec();
    prefix.push(b'/');
    got.iter()
        .filter(|(p, _, _)| p.starts_with(&prefix) && !p[prefix.len()..].contains(&b'/'))
        .map(|&(_, ino, _)| ino)
        .collect()
}

#[test]
fn one_thread_visits_a_directory_by_inode_in_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("t");
    // Fewer entries than one run (256): the whole directory is one run.
    tree(&root, 200);
    let sorted_runs = |v: &[u64]| v.windows(2).all(|w| w[0] <= w[1]);
    let got = run(&root, 1, false, true);
    let inos = inodes_in(&got, &root);
    assert_eq!(inos.len(), 205);
    assert!(sorted_runs(&inos), "entries not visited by inode");
    // The subdirectories are read in inode order too (one thread: the
    // order they are taken from the queue).
    let subs: Vec<u64> = (0..5)
        .map(|d| {
            let sub = root.join(format!("d{d}"));
            inodes_in(&got, &sub)[0]
        })
        .collect();
    let firsts: Vec<usize> = subs
        .iter()
        .map(|i| got.iter().position(|(_, ino, _)| ino == i).unwrap())
        .collect();
    let mut dirs: Vec<(u64, usize)> = (0..5)
        .map(|d| {
            let p = root.join(format!("d{d}"));
            let ino = fs::metadata(&p).unwrap();
            (std::os::unix::fs::MetadataExt::ino(&ino), firsts[d])
        })
        .collect();
    dirs.sort();
    assert!(
        dirs.windows(2).all(|w| w[0].1 < w[1].1),
        "subdirectories not read in inode order: {dirs:?}"
    );
    // Without the option the order is the directory's own: on the
    // filesystems the tests run on (ext4's hashed order, tmpfs's newest
    // first) not sorted, which is what makes the check above mean something.
    let plain = inodes_in(&run(&root, 1, false, false), &root);
    assert!(
        !sorted_runs(&plain),
        "the read order is already by inode here"
    );
}
