//! The library walker and reader under hostile conditions: trees deeper
//! than the stack, a descriptor limit lower than the workers, loops
//! through bind mounts, a directory removed while open.

use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use dents::dir::DirReader;
use dents::walk::{walk, Order, Visit, Visitor, WalkOptions};
use dents::{Error, ErrorKind, Operation};
use dents::{Flow, Follow};
use rustix::fs::{Mode, OFlags};

/// Counts visits (pre- and post-order), keeps the deepest depth, the
/// paths of the visits named `keep`, and every error.
#[derive(Default)]
struct Tally {
    visits: AtomicUsize,
    post: AtomicUsize,
    deepest: AtomicUsize,
    kept: Mutex<Vec<Vec<u8>>>,
    keep: Vec<u8>,
    errors: Mutex<Vec<String>>,
}

impl Visitor for Tally {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        self.visits.fetch_add(1, Ordering::Relaxed);
        if v.is_post_order() {
            self.post.fetch_add(1, Ordering::Relaxed);
        }
        self.deepest.fetch_max(v.depth(), Ordering::Relaxed);
        if v.name() == self.keep.as_slice() {
            self.kept.lock().unwrap().push(v.path().to_vec());
        }
        Flow::Continue
    }
    fn error(&self, _: &mut (), e: Error) {
        let what = match e.kind() {
            ErrorKind::Io(io) if e.operation() == Operation::ReadCut => format!("read cut: {io}"),
            ErrorKind::Io(io) => io.to_string(),
            ErrorKind::Loop { ancestor } => {
                format!("loop to {}", String::from_utf8_lossy(ancestor))
            }
        };
        self.errors.lock().unwrap().push(format!(
            "{}: {what}",
            String::from_utf8_lossy(e.path_bytes())
        ));
    }
}

/// A chain of `levels` directories `a` below `root/deep` and a file `f`
/// at the bottom (by `mkdirat`, far deeper than `PATH_MAX`).
fn deep_chain(root: &Path, levels: usize) {
    let top = root.join("deep");
    std::fs::create_dir(&top).unwrap();
    let dir = OFlags::RDONLY | OFlags::DIRECTORY;
    let mut fd: OwnedFd = rustix::fs::open(&top, dir, Mode::empty()).unwrap();
    for _ in 0..levels {
        rustix::fs::mkdirat(fd.as_fd(), "a", Mode::from_raw_mode(0o755)).unwrap();
        fd = rustix::fs::openat(fd.as_fd(), "a", dir, Mode::empty()).unwrap();
    }
    let file = OFlags::CREATE | OFlags::WRONLY;
    drop(rustix::fs::openat(fd.as_fd(), "f", file, Mode::from_raw_mode(0o644)).unwrap());
}

/// A temporary directory in `/dev/shm` where there is one, removed by
/// `rm -rf` (the standard library's removal recurses a frame a level).
struct Tmp(tempfile::TempDir);

impl Tmp {
    fn new() -> Tmp {
        let shm = Path::new("/dev/shm");
        let t = if shm.is_dir() {
            tempfile::tempdir_in(shm)
        } else {
            tempfile::tempdir()
        };
        Tmp(t.unwrap())
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = Command::new("rm")
            .arg("-rf")
            .arg(self.0.path().join("deep"))
            .status();
    }
}

/// One case of `chain_of_20000_levels`: a chain of 20,000 levels is
/// walked whole, with no error, in this mode.
fn check_chain_of_20000_levels(
    (threads, order, post, sort, follow): (usize, Order, bool, bool, Follow),
) {
    const LEVELS: usize = 20_000;
    let tmp = Tmp::new();
    deep_chain(tmp.0.path(), LEVELS);
    let root = tmp.0.path().join("deep").as_os_str().as_bytes().to_vec();
    let mut leaf = root.clone();
    leaf.extend_from_slice("/a".repeat(LEVELS).as_bytes());
    leaf.extend_from_slice(b"/f");
    let what = format!("threads {threads} {order:?} post {post} sort {sort} {follow:?}");
    let t = Tally {
        keep: b"f".to_vec(),
        ..Tally::default()
    };
    let opts = WalkOptions::new()
        .threads(threads)
        .order(order)
        .contents_first(post)
        .sort_by_name(sort)
        .follow_links(follow);
    walk(std::slice::from_ref(&root), &opts, &t);
    assert_eq!(*t.errors.lock().unwrap(), Vec::<String>::new(), "{what}");
    assert_eq!(t.visits.load(Ordering::Relaxed), LEVELS + 2, "{what}");
    let post_visits = if post { LEVELS + 1 } else { 0 };
    assert_eq!(t.post.load(Ordering::Relaxed), post_visits, "{what}");
    assert_eq!(t.deepest.load(Ordering::Relaxed), LEVELS + 1, "{what}");
    assert_eq!(*t.kept.lock().unwrap(), vec![leaf.clone()], "{what}");
}

dents_testfs::test_cases! {
/// A chain of 20,000 levels is walked in every mode: (threads, order,
/// post-order, sorted, symlinks followed).
mod chain_of_20000_levels: (usize, dents::walk::Order, bool, bool, dents::Follow) => check_chain_of_20000_levels;
    one_thread: (1, dents::walk::Order::BreadthFirst, false, false, dents::Follow::Never),
    four_threads: (4, dents::walk::Order::BreadthFirst, false, false, dents::Follow::Never),
    post_order: (4, dents::walk::Order::BreadthFirst, true, false, dents::Follow::Never),
    depth_first_post_order_one_thread: (1, dents::walk::Order::DepthFirst, true, false, dents::Follow::Never),
    depth_first: (4, dents::walk::Order::DepthFirst, false, false, dents::Follow::Never),
    sorted: (4, dents::walk::Order::BreadthFirst, false, true, dents::Follow::Never),
    sorted_post_order: (4, dents::walk::Order::BreadthFirst, true, true, dents::Follow::Never),
    following_links: (4, dents::walk::Order::BreadthFirst, false, false, dents::Follow::Always),
    following_links_post_order: (2, dents::walk::Order::BreadthFirst, true, false, dents::Follow::Always),
}

/// Runs this binary's test `name` again under `prlimit --nofile=LIMIT`,
/// with `DENTS_CHILD` set so that its body runs.
fn rerun_with_nofile(name: &str, limit: u32) {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("prlimit")
        .arg(format!("--nofile={limit}:{limit}"))
        .arg("--")
        .arg(exe)
        .args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env("DENTS_CHILD", "1")
        .output()
        .expect("prlimit (util-linux) runs");
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("1 passed"),
        "limit {limit}:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_descriptor_limit_below_the_workers_loses_no_entry() {
    if std::env::var_os("DENTS_CHILD").is_none() {
        for limit in [6, 7, 9, 12, 20] {
            rerun_with_nofile("a_descriptor_limit_below_the_workers_loses_no_entry", limit);
        }
        return;
    }
    // 100 directories of 3 levels, a file at each bottom; one directory
    // big enough to be read in slices where the filesystem allows.
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("t");
    for i in 0..100 {
        let d = t.join(format!("d{i}/e/g"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::File::create(d.join("f")).unwrap();
    }
    let big = t.join("big");
    std::fs::create_dir(&big).unwrap();
    for i in 0..12_000 {
        std::fs::File::create(big.join(format!("entry-with-a-long-name-{i:06}"))).unwrap();
    }
    let root = t.as_os_str().as_bytes().to_vec();
    for (threads, post, sort) in [
        (1, false, false),
        (8, false, false),
        (64, true, false),
        (8, false, true),
    ] {
        let what = format!("threads {threads} post {post} sort {sort}");
        let tally = Tally {
            keep: b"f".to_vec(),
            ..Tally::default()
        };
        let mut opts = WalkOptions::new()
            .threads(threads)
            .contents_first(post)
            .sort_by_name(sort);
        let read = opts
            .get_read_options()
            .clone()
            .threads(8)
            .min_sliced_size(0);
        opts = opts.read_options(read);
        walk(std::slice::from_ref(&root), &opts, &tally);
        assert_eq!(
            *tally.errors.lock().unwrap(),
            Vec::<String>::new(),
            "{what}"
        );
        assert_eq!(tally.kept.lock().unwrap().len(), 100, "{what}");
        let all = 1 + 1 + 12_000 + 400;
        assert_eq!(tally.visits.load(Ordering::Relaxed), all, "{what}");
    }
}

#[test]
fn a_bind_mount_loop_is_reported_and_not_entered() {
    if !dents_testfs::needs_root("cannot bind-mount") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    std::fs::create_dir_all(a.join("b/c")).unwrap();
    std::fs::File::create(a.join("b/f")).unwrap();
    let _u = dents_testfs::mount(&["--bind".as_ref(), a.as_os_str()], &a.join("b/c"));
    let root = a.as_os_str().as_bytes().to_vec();
    for (threads, follow) in [(1, Follow::Never), (4, Follow::Never), (4, Follow::Always)] {
        let tally = Tally {
            keep: b"c".to_vec(),
            ..Tally::default()
        };
        let opts = WalkOptions::new().threads(threads).follow_links(follow);
        walk(std::slice::from_ref(&root), &opts, &tally);
        // a, a/b, a/b/f: the loop's entry is neither visited nor entered.
        assert_eq!(tally.visits.load(Ordering::Relaxed), 3, "{follow:?}");
        assert!(tally.kept.lock().unwrap().is_empty());
        let a_s = String::from_utf8_lossy(&root);
        assert_eq!(
            *tally.errors.lock().unwrap(),
            vec![format!("{a_s}/b/c: loop to {a_s}")],
            "{follow:?}"
        );
    }
}

#[test]
fn a_directory_removed_while_open_reads_as_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d");
    std::fs::create_dir(&d).unwrap();
    let fd = rustix::fs::open(&d, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()).unwrap();
    std::fs::remove_dir(&d).unwrap();
    let mut r = DirReader::new(fd);
    assert!(r.next_entry().unwrap().is_none());
    assert!(r.next_entry().unwrap().is_none());
}
