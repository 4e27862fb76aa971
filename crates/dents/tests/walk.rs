//! The walker against a plain reference walk, on real directories.
//!
//! The reference is a recursive `std::fs::read_dir` with `symlink_metadata`:
//! slow and obviously right.  Every configuration of the walker (threads,
//! order, post-order, forced unknown types, a tiny descriptor budget) must
//! report exactly the reference's paths, each once.

use std::collections::HashMap;
use std::ffi::{CString, OsStr};
use std::fs;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use dents::walk::{walk, Order, Visit, Visitor, WalkOptions};
use dents::{Error, ErrorKind, Operation};
use dents::{Flow, Follow};

/// Records every visit in order, and every error.
#[derive(Default)]
struct Recorder {
    visits: Mutex<Vec<(Vec<u8>, bool)>>,
    errors: Mutex<Vec<String>>,
    prune: Option<Vec<u8>>,
    quit_at: Option<Vec<u8>>,
}

impl Visitor for Recorder {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        self.visits
            .lock()
            .unwrap()
            .push((v.path().to_vec(), v.is_post_order()));
        if self.quit_at.as_deref() == Some(v.path()) {
            return Flow::Quit;
        }
        if self.prune.as_deref() == Some(v.name()) {
            return Flow::Prune;
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

impl Recorder {
    fn paths(&self) -> Vec<Vec<u8>> {
        self.visits
            .lock()
            .unwrap()
            .iter()
            .map(|(p, _)| p.clone())
            .collect()
    }
}

/// The reference: every path under `root` (root included), recursively.
fn reference(root: &Path) -> Vec<Vec<u8>> {
    fn rec(p: &Path, out: &mut Vec<Vec<u8>>) {
        out.push(p.as_os_str().as_bytes().to_vec());
        if fs::symlink_metadata(p).map(|m| m.is_dir()).unwrap_or(false) {
            // Listed whole before recursing: one open directory at a time.
            let children: Vec<_> = fs::read_dir(p)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            for c in children {
                rec(&c, out);
            }
        }
    }
    let mut out = Vec::new();
    rec(root, &mut out);
    out.sort();
    out
}

/// Asserts equal path lists, reporting a short difference if not.
fn assert_same_paths(got: &[Vec<u8>], want: &[Vec<u8>], what: &str) {
    if got == want {
        return;
    }
    let g: std::collections::HashSet<&Vec<u8>> = got.iter().collect();
    let w: std::collections::HashSet<&Vec<u8>> = want.iter().collect();
    let show = |v: Vec<&&Vec<u8>>| {
        v.iter()
            .take(5)
            .map(|p| {
                let s = String::from_utf8_lossy(p);
                let tail: String = s
                    .chars()
                    .rev()
                    .take(80)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                format!("…{tail} ({} bytes)", p.len())
            })
            .collect::<Vec<_>>()
    };
    let missing: Vec<_> = w.difference(&g).collect();
    let extra: Vec<_> = g.difference(&w).collect();
    panic!(
        "{what}: got {} paths, want {}; {} missing {:?}; {} extra {:?}",
        got.len(),
        want.len(),
        missing.len(),
        show(missing.clone()),
        extra.len(),
        show(extra.clone())
    );
}

fn sorted(mut v: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    v.sort();
    v
}

/// A tree of several shapes: wide, deep, symlinks, special files.
fn tree(root: &Path) {
    for a in 0..6 {
        for b in 0..5 {
            let d = root.join(format!("a{a}")).join(format!("b{b}"));
            fs::create_dir_all(&d).unwrap();
            for f in 0..40 {
                fs::File::create(d.join(format!("f{f}.txt"))).unwrap();
            }
        }
    }
    let wide = root.join("wide");
    fs::create_dir(&wide).unwrap();
    for i in 0..6000 {
        fs::File::create(wide.join(format!("IMG_{i:05}.JPG"))).unwrap();
    }
    fs::create_dir(wide.join("sub")).unwrap();
    fs::File::create(wide.join("sub").join("inner")).unwrap();
    let mut deep = root.join("deep");
    for i in 0..40 {
        deep = deep.join(format!("level{i}"));
    }
    fs::create_dir_all(&deep).unwrap();
    fs::File::create(deep.join("bottom")).unwrap();
    // A subdirectory with a dot in its name is not among the likely
    // directories: without d_type, finding it takes the second pass.
    fs::create_dir(root.join("conf.d")).unwrap();
    fs::File::create(root.join("conf.d").join("inside.conf")).unwrap();
    symlink("a0", root.join("link-to-a0")).unwrap();
    symlink("nowhere", root.join("dangling")).unwrap();
    fs::File::create(root.join(OsStr::from_bytes(b"bad\xffname"))).unwrap();
    fs::File::create(root.join("new\nline")).unwrap();
    let _sock = std::os::unix::net::UnixListener::bind(root.join("sock")).unwrap();
}

/// A temporary directory holding [`tree`] at `t`: the directory, the
/// root's path (and as bytes), and the reference's paths.
fn fixture() -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>, Vec<Vec<u8>>) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("t");
    fs::create_dir(&root).unwrap();
    tree(&root);
    let want = reference(&root);
    let root_b = root.as_os_str().as_bytes().to_vec();
    (tmp, root, root_b, want)
}

fn opts(threads: usize, order: Order, post: bool, ignore_dtype: bool) -> WalkOptions {
    WalkOptions::new()
        .threads(threads)
        .order(order)
        .contents_first(post)
        .test_ignore_dtype(ignore_dtype)
}

/// One case of `every_configuration`: the walk in this configuration
/// (order, post-order, `d_type` ignored, descriptor budget), at 1, 2 and 8
/// threads, reports exactly the reference's paths and no error.
fn check_every_configuration((order, post, ignore, budget): (Order, bool, bool, Option<usize>)) {
    let (_tmp, _root, root_b, want) = fixture();
    for threads in [1, 2, 8] {
        let mut o = opts(threads, order, post, ignore);
        o = o.test_fd_budget(budget);
        let r = Recorder::default();
        walk(std::slice::from_ref(&root_b), &o, &r);
        let what = format!("{threads} {order:?} post={post} ignore={ignore} budget={budget:?}");
        assert_same_paths(&sorted(r.paths()), &want, &what);
        assert!(r.errors.lock().unwrap().is_empty());
    }
}

dents_testfs::test_cases! {
/// Every configuration reports exactly the reference: (order,
/// post-order, `d_type` ignored, descriptor budget).
mod every_configuration: (dents::walk::Order, bool, bool, Option<usize>) => check_every_configuration;
    breadth_first_pre_typed_unbounded: (dents::walk::Order::BreadthFirst, false, false, None),
    breadth_first_pre_typed_one_descriptor: (dents::walk::Order::BreadthFirst, false, false, Some(1)),
    breadth_first_pre_untyped_unbounded: (dents::walk::Order::BreadthFirst, false, true, None),
    breadth_first_pre_untyped_one_descriptor: (dents::walk::Order::BreadthFirst, false, true, Some(1)),
    breadth_first_post_typed_unbounded: (dents::walk::Order::BreadthFirst, true, false, None),
    breadth_first_post_typed_one_descriptor: (dents::walk::Order::BreadthFirst, true, false, Some(1)),
    breadth_first_post_untyped_unbounded: (dents::walk::Order::BreadthFirst, true, true, None),
    breadth_first_post_untyped_one_descriptor: (dents::walk::Order::BreadthFirst, true, true, Some(1)),
    depth_first_pre_typed_unbounded: (dents::walk::Order::DepthFirst, false, false, None),
    depth_first_pre_typed_one_descriptor: (dents::walk::Order::DepthFirst, false, false, Some(1)),
    depth_first_pre_untyped_unbounded: (dents::walk::Order::DepthFirst, false, true, None),
    depth_first_pre_untyped_one_descriptor: (dents::walk::Order::DepthFirst, false, true, Some(1)),
    depth_first_post_typed_unbounded: (dents::walk::Order::DepthFirst, true, false, None),
    depth_first_post_typed_one_descriptor: (dents::walk::Order::DepthFirst, true, false, Some(1)),
    depth_first_post_untyped_unbounded: (dents::walk::Order::DepthFirst, true, true, None),
    depth_first_post_untyped_one_descriptor: (dents::walk::Order::DepthFirst, true, true, Some(1)),
}

/// One case of `parents_and_contents`: directories come before their
/// contents, or after them in post-order (`post`).
fn check_parents_and_contents(post: bool) {
    let (_tmp, _root, root_b, _) = fixture();
    let r = Recorder::default();
    walk(
        std::slice::from_ref(&root_b),
        &opts(4, Order::BreadthFirst, post, false),
        &r,
    );
    let visits = r.visits.lock().unwrap();
    let index: HashMap<&[u8], usize> = visits
        .iter()
        .enumerate()
        .map(|(i, (p, _))| (p.as_slice(), i))
        .collect();
    for (i, (p, _)) in visits.iter().enumerate() {
        let Some(slash) = p.iter().rposition(|&b| b == b'/') else {
            continue;
        };
        let parent = &p[..slash];
        if let Some(&pi) = index.get(parent) {
            if post {
                assert!(
                    pi > i,
                    "{:?} after its parent in post-order",
                    String::from_utf8_lossy(p)
                );
            } else {
                assert!(pi < i, "{:?} before its parent", String::from_utf8_lossy(p));
            }
        }
    }
    // Post-order visits are marked as such, and only directories get them.
    for (p, is_post) in visits.iter() {
        if *is_post {
            assert!(fs::symlink_metadata(OsStr::from_bytes(p)).unwrap().is_dir());
        }
    }
}

dents_testfs::test_cases! {
/// Directories come before their contents, and after them in post-order.
mod parents_and_contents: bool => check_parents_and_contents;
    pre_order: false,
    post_order: true,
}

#[test]
fn breadth_first_visits_shallow_entries_first_on_one_thread() {
    let (_tmp, _root, root_b, _) = fixture();
    let r = Recorder::default();
    walk(
        std::slice::from_ref(&root_b),
        &opts(1, Order::BreadthFirst, false, false),
        &r,
    );
    let depth = |p: &[u8]| p.iter().filter(|&&b| b == b'/').count();
    let depths: Vec<usize> = r.paths().iter().map(|p| depth(p)).collect();
    assert!(
        depths.windows(2).all(|w| w[0] <= w[1]),
        "breadth-first order on one thread"
    );
}

#[test]
fn depth_limits_prune_and_quit() {
    let (_tmp, root, root_b, _) = fixture();
    let base = root_b.iter().filter(|&&b| b == b'/').count();
    let want = reference(&root);
    let depth = |p: &[u8]| p.iter().filter(|&&b| b == b'/').count() - base;

    let mut o = opts(4, Order::BreadthFirst, false, false);
    o = o.min_depth(2);
    o = o.max_depth(3);
    let r = Recorder::default();
    walk(std::slice::from_ref(&root_b), &o, &r);
    let expect: Vec<Vec<u8>> = want
        .iter()
        .filter(|p| (2..=3).contains(&depth(p)))
        .cloned()
        .collect();
    assert_same_paths(&sorted(r.paths()), &expect, "min/max depth");

    let r = Recorder {
        prune: Some(b"a3".to_vec()),
        ..Recorder::default()
    };
    walk(
        std::slice::from_ref(&root_b),
        &opts(4, Order::BreadthFirst, false, false),
        &r,
    );
    let a3 = [root_b.as_slice(), b"/a3/"].concat();
    let expect: Vec<Vec<u8>> = want
        .iter()
        .filter(|p| !p.starts_with(&a3))
        .cloned()
        .collect();
    assert_same_paths(&sorted(r.paths()), &expect, "prune");

    let quit_at = [root_b.as_slice(), b"/wide"].concat();
    let r = Recorder {
        quit_at: Some(quit_at.clone()),
        ..Recorder::default()
    };
    walk(
        std::slice::from_ref(&root_b),
        &opts(1, Order::BreadthFirst, false, false),
        &r,
    );
    let paths = r.paths();
    assert_eq!(
        paths.last(),
        Some(&quit_at),
        "nothing is visited after -quit on one thread"
    );
    assert!(paths.len() < want.len() / 2);
}

/// Makes a chain of directories deeper than PATH_MAX below `root`, with
/// `*at` calls (a path that long cannot be named from the root).
fn deep_chain(root: &Path, levels: usize) -> usize {
    let name = "d".repeat(200);
    let c = CString::new(name.clone()).unwrap();
    let mut fd: OwnedFd =
        dents::fs::open_dir(&CString::new(root.as_os_str().as_bytes()).unwrap()).unwrap();
    for _ in 0..levels {
        rustix::fs::mkdirat(fd.as_fd(), &c, rustix::fs::Mode::from_raw_mode(0o755)).unwrap();
        fd = dents::fs::open_dir_at(fd.as_fd(), &c).unwrap();
    }
    let f = rustix::fs::openat(
        fd.as_fd(),
        c"leaf",
        rustix::fs::OFlags::CREATE | rustix::fs::OFlags::WRONLY,
        rustix::fs::Mode::from_raw_mode(0o644),
    )
    .unwrap();
    drop(f);
    root.as_os_str().len() + levels * (name.len() + 1) + "/leaf".len()
}

/// A chain of 70 levels under a temporary directory, deeper than
/// `PATH_MAX`: the directory, the root's path as bytes, the levels and
/// the leaf's path length.
fn path_max_chain() -> (tempfile::TempDir, Vec<u8>, usize, usize) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("t");
    fs::create_dir(&root).unwrap();
    let levels = 70;
    let leaf_len = deep_chain(&root, levels);
    assert!(leaf_len > 3 * 4096);
    let root_b = root.as_os_str().as_bytes().to_vec();
    (tmp, root_b, levels, leaf_len)
}

/// One case of `deeper_than_path_max`: a tree deeper than `PATH_MAX` is
/// walked whole, with no error, with this descriptor budget and order.
fn check_deeper_than_path_max((budget, order): (Option<usize>, Order)) {
    let (_tmp, root_b, levels, leaf_len) = path_max_chain();
    let mut o = opts(2, order, false, false);
    o = o.test_fd_budget(budget);
    let r = Recorder::default();
    walk(std::slice::from_ref(&root_b), &o, &r);
    assert!(
        r.errors.lock().unwrap().is_empty(),
        "{:?}",
        r.errors.lock().unwrap()
    );
    let paths = r.paths();
    assert_eq!(paths.len(), 1 + levels + 1, "{budget:?} {order:?}");
    let longest = paths.iter().map(Vec::len).max().unwrap();
    assert_eq!(longest, leaf_len);
    assert!(paths
        .iter()
        .any(|p| p.ends_with(b"/leaf") && p.len() == leaf_len));
}

dents_testfs::test_cases! {
/// A tree deeper than `PATH_MAX` is walked with a tiny descriptor
/// budget: (budget, order).
mod deeper_than_path_max: (Option<usize>, dents::walk::Order) => check_deeper_than_path_max;
    one_descriptor_breadth_first: (Some(1), dents::walk::Order::BreadthFirst),
    one_descriptor_depth_first: (Some(1), dents::walk::Order::DepthFirst),
    four_descriptors_breadth_first: (Some(4), dents::walk::Order::BreadthFirst),
    four_descriptors_depth_first: (Some(4), dents::walk::Order::DepthFirst),
    unbounded_breadth_first: (None, dents::walk::Order::BreadthFirst),
    unbounded_depth_first: (None, dents::walk::Order::DepthFirst),
}

/// Post-order visits need the parent again: also beyond `PATH_MAX`, with
/// one descriptor.
#[test]
fn a_tree_deeper_than_path_max_is_walked_in_post_order_with_one_descriptor() {
    let (_tmp, root_b, levels, _) = path_max_chain();
    let mut o = opts(2, Order::BreadthFirst, true, false);
    o = o.test_fd_budget(Some(1));
    let r = Recorder::default();
    walk(std::slice::from_ref(&root_b), &o, &r);
    assert!(
        r.errors.lock().unwrap().is_empty(),
        "{:?}",
        r.errors.lock().unwrap()
    );
    assert_eq!(r.paths().len(), 1 + levels + 1);
}

/// Runs this test binary's test `name` again in a child with
/// `RLIMIT_NOFILE` = 16, with `DENTS_CHILD` set so the test body runs.
fn rerun_with_nofile_16(name: &str) {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("prlimit")
        .args(["--nofile=16:16", "--"])
        .arg(exe)
        .args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env("DENTS_CHILD", "1")
        .output()
        .expect("prlimit (util-linux) runs");
    assert!(
        out.status.success(),
        "child failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
}

/// The soft limit on open descriptors, as `/proc/self/limits` says.
fn nofile_soft_limit() -> u64 {
    let limits = fs::read_to_string("/proc/self/limits").unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    line.split_whitespace().nth(3).unwrap().parse().unwrap()
}

#[test]
fn nofile_16_never_runs_out_of_descriptors() {
    if std::env::var_os("DENTS_CHILD").is_none() {
        return rerun_with_nofile_16("nofile_16_never_runs_out_of_descriptors");
    }
    assert_eq!(nofile_soft_limit(), 16);
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("t");
    fs::create_dir(&root).unwrap();
    tree(&root);
    // Within PATH_MAX, so that the path-based reference reaches it too.
    deep_chain(&root, 15);
    let want = reference(&root);
    let root_b = root.as_os_str().as_bytes().to_vec();
    // Sorted walks too: their read-ahead holds descriptors of its own.
    for (threads, post, sort) in [
        (1, false, false),
        (4, false, false),
        (4, true, false),
        (4, false, true),
        (8, true, true),
    ] {
        let r = Recorder::default();
        let mut o = opts(threads, Order::BreadthFirst, post, false);
        let read = o.get_read_options().clone().threads(2);
        o = o.read_options(read);
        o = o.sort_by_name(sort);
        walk(std::slice::from_ref(&root_b), &o, &r);
        assert!(
            r.errors.lock().unwrap().is_empty(),
            "{:?}",
            r.errors.lock().unwrap()
        );
        assert_same_paths(
            &sorted(r.paths()),
            &want,
            &format!("threads {threads} post {post} sort {sort}"),
        );
    }
}

#[test]
fn symlinks_are_followed_as_asked_and_loops_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("t");
    fs::create_dir_all(root.join("real/inner")).unwrap();
    fs::File::create(root.join("real/inner/file")).unwrap();
    symlink("real", root.join("link")).unwrap();
    symlink("..", root.join("real/inner/up")).unwrap();
    let root_b = root.as_os_str().as_bytes().to_vec();

    // -P: the links are entries, not walked: t, real, real/inner,
    // real/inner/file, real/inner/up, link.
    let r = Recorder::default();
    walk(
        std::slice::from_ref(&root_b),
        &opts(2, Order::BreadthFirst, false, false),
        &r,
    );
    assert_eq!(r.paths().len(), 6);

    // -L: link/ is walked; inner/up leads back to real: a loop, reported.
    let mut o = opts(2, Order::BreadthFirst, false, false);
    o = o.follow_links(Follow::Always);
    let r = Recorder::default();
    walk(std::slice::from_ref(&root_b), &o, &r);
    let paths = r.paths();
    let has = |s: &str| paths.iter().any(|p| p.ends_with(s.as_bytes()));
    assert!(has("/link/inner/file"));
    let errors = r.errors.lock().unwrap();
    assert!(errors.iter().any(|e| e.contains("loop to")), "{errors:?}");

    // -H: a root that is a link is followed, links below it are not.
    let link_root = root.join("link").as_os_str().as_bytes().to_vec();
    let mut o = opts(2, Order::BreadthFirst, false, false);
    o = o.follow_links(Follow::Roots);
    let r = Recorder::default();
    walk(std::slice::from_ref(&link_root), &o, &r);
    assert_eq!(r.paths().len(), 4, "{:?}", r.paths());
}

#[test]
fn same_fs_stops_at_a_mount_point() {
    if !dents_testfs::needs_root("cannot mount a tmpfs") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("t");
    let mnt = root.join("mnt");
    fs::create_dir_all(&mnt).unwrap();
    fs::File::create(root.join("here")).unwrap();
    let st = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(&mnt)
        .status()
        .unwrap();
    assert!(st.success());
    fs::File::create(mnt.join("there")).unwrap();
    let root_b = root.as_os_str().as_bytes().to_vec();
    let mut o = opts(2, Order::BreadthFirst, false, false);
    o = o.same_file_system(true);
    let r = Recorder::default();
    walk(std::slice::from_ref(&root_b), &o, &r);
    let mut o2 = o.clone();
    o2 = o2.same_file_system(false);
    let r2 = Recorder::default();
    walk(std::slice::from_ref(&root_b), &o2, &r2);
    let _ = Command::new("umount").arg(&mnt).status();
    let paths = r.paths();
    assert!(
        paths.iter().any(|p| p.ends_with(b"/mnt")),
        "the mount point itself is visited"
    );
    assert!(!paths.iter().any(|p| p.ends_with(b"/there")));
    assert!(r2.paths().iter().any(|p| p.ends_with(b"/there")));
}

#[test]
fn a_tree_changing_during_the_walk_loses_no_stable_entry() {
    let (_tmp, root, root_b, want) = fixture();
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let d = root
                    .join(format!("a{}", i % 6))
                    .join(format!("churn{}", i % 40));
                let _ = fs::create_dir(&d);
                let _ = fs::File::create(d.join("x"));
                let old = root
                    .join(format!("a{}", (i + 3) % 6))
                    .join(format!("churn{}", (i + 20) % 40));
                let _ = fs::remove_dir_all(&old);
                let _ = fs::File::create(root.join("wide").join(format!("tmp{}", i % 100)));
                let _ = fs::remove_file(root.join("wide").join(format!("tmp{}", (i + 50) % 100)));
                i += 1;
            }
        });
        for round in 0..12 {
            let r = Recorder::default();
            let mut o = opts(
                1 + round % 4,
                Order::BreadthFirst,
                round % 3 == 0,
                round % 2 == 0,
            );
            let read = o.get_read_options().clone().min_sliced_size(0);
            o = o.read_options(read);
            walk(std::slice::from_ref(&root_b), &o, &r);
            let got = sorted(r.paths());
            let mut counts: HashMap<&[u8], usize> = HashMap::new();
            for p in &got {
                *counts.entry(p).or_default() += 1;
            }
            for p in &want {
                assert_eq!(
                    counts.get(p.as_slice()),
                    Some(&1),
                    "round {round}: {:?}",
                    String::from_utf8_lossy(p)
                );
            }
        }
        stop.store(true, Ordering::Relaxed);
    });
}

/// A huge directory is read on from its 4096th entry in slices, each
/// slice visited on its own thread; without `d_type`, its entries are
/// classified together and visited on several threads.  On every
/// filesystem where slicing is used (and the others), in every
/// configuration, each path is reported exactly once.
#[test]
fn huge_directories_are_walked_exactly_on_every_filesystem() {
    use dents_testfs::{FsKind, LoopFs};
    for kind in [
        FsKind::Ext4,
        FsKind::Ext4NoDirIndex,
        FsKind::Ext4NoFiletype,
        FsKind::Xfs,
        FsKind::Btrfs,
        FsKind::Tmpfs,
    ] {
        let Some(fs) = LoopFs::new_or_skip(kind, 256) else {
            continue;
        };
        let root = fs.path().join("t");
        let big = root.join("big");
        // More than PARALLEL_VISIT_MIN (16384) entries, with
        // subdirectories among them (each holding a file) so that the
        // children of sliced reads and parallel visits are walked too.
        dents_testfs::fill_flat(&big, 20_000, |i| format!("IMG_{i:07}.JPG"));
        for d in 0..25 {
            let sub = big.join(format!("dir{d:02}"));
            fs::create_dir(&sub).unwrap();
            fs::File::create(sub.join("inside")).unwrap();
        }
        fs::File::create(root.join("small")).unwrap();
        let want = reference(&root);
        let root_b = root.as_os_str().as_bytes().to_vec();
        for threads in [1, 2, 4] {
            for read_threads in [1, 4] {
                for ignore in [false, true] {
                    let mut o = opts(threads, Order::BreadthFirst, false, ignore);
                    let read = o
                        .get_read_options()
                        .clone()
                        .threads(read_threads)
                        .min_sliced_size(0);
                    o = o.read_options(read);
                    let r = Recorder::default();
                    let stats = walk(std::slice::from_ref(&root_b), &o, &r);
                    let what =
                        format!("{kind:?}: -j{threads}, {read_threads} slices, ignore={ignore}");
                    assert_same_paths(&sorted(r.paths()), &want, &what);
                    assert!(r.errors.lock().unwrap().is_empty(), "{what}");
                    // The sliced path was taken where slicing is exact.
                    let sliceable = matches!(
                        kind,
                        FsKind::Ext4
                            | FsKind::Ext4NoDirIndex
                            | FsKind::Ext4NoFiletype
                            | FsKind::Xfs
                    );
                    let sliced = stats.dirs_sliced;
                    let expected = u64::from(sliceable && read_threads > 1);
                    assert_eq!(sliced, expected, "{what}: directories read in slices");
                }
            }
        }
    }
}

/// Without `d_type`, on a directory old enough for its link count to be
/// trusted: the likely directories are stat'ed first; a subdirectory with
/// a dot in its name is not among them, and must still be found (the
/// second pass), while a directory whose subdirectories are all likely
/// ones is classified with no stat of its files.
#[test]
fn link_count_passes_find_dotted_subdirectories() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("t");
    let mixed = root.join("mixed");
    let plain = root.join("plain");
    dents_testfs::fill_flat(&mixed, 3000, |i| format!("file{i:05}.txt"));
    dents_testfs::fill_flat(&plain, 3000, |i| format!("photo{i:05}.jpg"));
    for d in ["sub", ".hidden", "v1.2", "conf.d"] {
        fs::create_dir(mixed.join(d)).unwrap();
        fs::File::create(mixed.join(d).join("inside")).unwrap();
    }
    fs::create_dir(plain.join("only")).unwrap();
    fs::File::create(plain.join("only").join("inside")).unwrap();
    // Times within the last second cannot show a change: wait them out so
    // that the link counts are trusted rather than every entry stat'ed.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let want = reference(&root);
    let root_b = root.as_os_str().as_bytes().to_vec();
    for threads in [1, 2] {
        let o = opts(threads, Order::BreadthFirst, false, true);
        let r = Recorder::default();
        let stats = walk(std::slice::from_ref(&root_b), &o, &r);
        assert_same_paths(&sorted(r.paths()), &want, &format!("-j{threads}"));
        assert_eq!(stats.type_fallbacks, 0);
        // Not every entry was stat'ed: `plain`'s 3000 files not at all.
        let stats_made = stats.type_stats;
        assert!(stats_made < 3100, "{stats_made} stats");
        assert!(stats.types_from_nlink >= 3000);
    }
}

/// One case of `sorted_walks`: a sorted walk without `d_type` or with
/// (`ignore`), in pre- or post-order (`post`), visits in the same order at
/// 1, 2 and 8 threads, in pre-order the sorted reference's.
fn check_sorted_walks((ignore, post): (bool, bool)) {
    let (_tmp, root, root_b, _) = fixture();
    let want = dents_testfs::sorted_breadth_first(&root);
    let mut first: Option<Vec<(Vec<u8>, bool)>> = None;
    for threads in [1, 2, 8] {
        let mut o = opts(threads, Order::BreadthFirst, post, ignore);
        o = o.sort_by_name(true);
        let r = Recorder::default();
        walk(std::slice::from_ref(&root_b), &o, &r);
        let visits = r.visits.into_inner().unwrap();
        let what = format!("threads {threads}, post {post}, no d_type {ignore}");
        if !post {
            let got: Vec<Vec<u8>> = visits.iter().map(|(p, _)| p.clone()).collect();
            let at = got.iter().zip(&want).position(|(a, b)| a != b);
            assert!(
                got == want,
                "{what}: first difference at {at:?} of {} / {}",
                got.len(),
                want.len()
            );
        }
        match &first {
            None => first = Some(visits),
            Some(f) => assert!(*f == visits, "{what}: differs from one thread"),
        }
    }
}

dents_testfs::test_cases! {
/// Sorted walks visit in one order whatever the threads: (`d_type`
/// ignored, post-order).
mod sorted_walks: (bool, bool) => check_sorted_walks;
    typed_pre_order: (false, false),
    typed_post_order: (false, true),
    untyped_pre_order: (true, false),
    untyped_post_order: (true, true),
}

/// Leaves out entries by name, counting how often it was asked.
struct Excluder {
    rec: Recorder,
    name: &'static [u8],
    asked: std::sync::atomic::AtomicUsize,
}

impl Visitor for Excluder {
    type State = ();
    fn state(&self) {}
    fn visit(&self, s: &mut (), v: &Visit<'_>) -> Flow {
        self.rec.visit(s, v)
    }
    fn excluded(&self, _: &mut (), v: &Visit<'_>) -> bool {
        self.asked.fetch_add(1, Ordering::Relaxed);
        v.name() == self.name
    }
    fn error(&self, s: &mut (), e: Error) {
        self.rec.error(s, e)
    }
}

/// One case of `excluded_entries`: an excluded directory is neither
/// visited nor walked, in pre- or post-order, at minimum depth 0 or 3.
fn check_excluded_entries((post, min_depth): (bool, usize)) {
    let (_tmp, _root, root_b, want) = fixture();
    let kept: Vec<Vec<u8>> = want
        .iter()
        .filter(|p| !p.windows(4).any(|w| w == b"/b1/") && !p.ends_with(b"/b1"))
        .cloned()
        .collect();
    let mut o = opts(4, Order::BreadthFirst, post, false);
    o = o.min_depth(min_depth);
    let x = Excluder {
        rec: Recorder::default(),
        name: b"b1",
        asked: Default::default(),
    };
    walk(std::slice::from_ref(&root_b), &o, &x);
    let depth = |p: &Vec<u8>| {
        p.len() > root_b.len() && {
            let rel = &p[root_b.len()..];
            rel.iter().filter(|&&b| b == b'/').count() >= min_depth
        } || min_depth == 0
    };
    let want: Vec<Vec<u8>> = kept.iter().filter(|p| depth(p)).cloned().collect();
    assert_same_paths(
        &sorted(x.rec.paths()),
        &want,
        &format!("post {post}, min depth {min_depth}"),
    );
    // Asked of everything walked, below the minimum depth too.
    assert!(x.asked.load(Ordering::Relaxed) >= kept.len());
}

dents_testfs::test_cases! {
/// Excluded entries are neither visited nor walked: (post-order,
/// minimum depth).
mod excluded_entries: (bool, usize) => check_excluded_entries;
    pre_order: (false, 0),
    pre_order_min_depth_3: (false, 3),
    post_order: (true, 0),
    post_order_min_depth_3: (true, 3),
}
