//! A walk's queue stays bounded in memory: past a limit its directories
//! are spilled to a temporary file and read back as the walk goes on.
//!
//! A sorted walk's queue (`walk/queue.rs`, `Spilled`) is spilled in
//! order.  On a wide real tree
//! (levels of 30, 600 and 600 directories) with a deep, long-named chain
//! beside it (paths past 4 KiB and 64 levels: groups too long to spill,
//! kept in memory in their place, and paths kept every 64 levels), the
//! walk with a tiny limit (1, 7, 100 directories, set through a hidden
//! test knob) visits exactly what the walk never spilled visits, in the
//! same order, with the same paths, depths, types and stats, at 1 and 4
//! workers; the directories queued in memory at once stay within twice
//! the limit, where the unspilled walk queues most of a level of 600
//! (all but those the workers have taken); siblings read back together
//! are opened relative to their parent, opened once for them.
//!
//! An unsorted walk's deep list (`walk/deep.rs`) is spilled oldest first
//! and read back last in, first out, once those above are taken.  On one
//! worker (whose order is fixed) the walk with a tiny limit (1, 3, 20)
//! visits exactly what the walk that never spills visits, in the same
//! order, in the hybrid and depth-first orders, pre- and post-order
//! (paths kept every 64 levels made again from the parent when read
//! back); on four workers the same entries, each directory after its
//! contents in post-order.
//!
//! A part of a spilled queue that cannot be read back (an I/O error,
//! made by another hidden knob: an unlinked temporary file gives no way
//! to fail its reads for real) is the walk's error, and the walk goes
//! on: it visits what the unspilled walk visits but the contents of the
//! lost directories (in a contents-first walk, those directories' own
//! visits, which come after their contents, too), their parents'
//! post-order visits included.

use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Mutex;

use dents::walk::{walk, Order, Visit, Visitor, WalkOptions};
use dents::{Error, FileType, Flow, Follow, Operation, Stats};

/// Every visit as one line: depth, type, post-order, inode, size and path
/// bytes; and the errors.
struct Lines(Mutex<Vec<Vec<u8>>>, Mutex<Vec<Error>>);

impl Visitor for Lines {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        let (ino, size) = v.metadata().map_or((0, 0), |m| (m.ino(), m.len()));
        let (depth, known, post) = (v.depth(), v.known_type(), v.is_post_order());
        let mut line = format!("{depth} {known:?} {post} {ino} {size} ").into_bytes();
        line.extend_from_slice(v.path());
        self.0.lock().unwrap().push(line);
        Flow::Continue
    }
    /// Stats made ahead of the visits, as a scan's are.
    fn stat_ahead(&self, _known: Option<FileType>) -> bool {
        true
    }
    fn error(&self, _: &mut (), e: Error) {
        self.1.lock().unwrap().push(e);
    }
}

/// A wide tree: 30 directories, each with 20, each with two files and
/// one directory of one file; and a chain of 70 directories of 60-byte
/// names.
fn make_tree(root: &Path) {
    for a in 0..30 {
        for b in 0..20 {
            let d = root.join(format!("a{a:02}/b{b:02}"));
            fs::create_dir_all(d.join("c")).unwrap();
            fs::write(d.join("c/g"), b"").unwrap();
            fs::write(d.join("f1"), b"x").unwrap();
            fs::write(d.join("f2"), vec![b'y'; a * 20 + b]).unwrap();
        }
    }
    std::os::unix::fs::symlink("a00", root.join("link")).unwrap();
    // Created step by step from the last one: the whole path is too long
    // for one call.
    let long = "L".repeat(60);
    let mut cur = fs::File::open(root).unwrap();
    for i in 0..70 {
        let name = format!("{long}{i:02}");
        let c = std::ffi::CString::new(name.clone()).unwrap();
        rustix::fs::mkdirat(&cur, &c, rustix::fs::Mode::from_raw_mode(0o755)).unwrap();
        let fd = rustix::fs::openat(
            &cur,
            &c,
            rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::RDONLY,
            rustix::fs::Mode::empty(),
        )
        .unwrap();
        cur = fs::File::from(fd);
    }
}

fn run(roots: &[Vec<u8>], threads: usize, limit: usize) -> (Vec<Vec<u8>>, Stats) {
    let (lines, stats, errors) = run_failing(roots, threads, limit, None);
    assert!(errors.is_empty(), "{errors:?}");
    (lines, stats)
}

/// [`run`], the read back numbered `fail` failing.
fn run_failing(
    roots: &[Vec<u8>],
    threads: usize,
    limit: usize,
    fail: Option<u64>,
) -> (Vec<Vec<u8>>, Stats, Vec<Error>) {
    let opts = WalkOptions::new()
        .threads(threads)
        .sort_by_name(true)
        .test_queue_spill(Some(limit))
        .test_queue_read_fail(fail);
    walk_lines(roots, &opts)
}

/// The visits of a walk of `roots` with `opts`, its stats and errors.
fn walk_lines(roots: &[Vec<u8>], opts: &WalkOptions) -> (Vec<Vec<u8>>, Stats, Vec<Error>) {
    let v = Lines(Mutex::new(Vec::new()), Mutex::new(Vec::new()));
    let stats = walk(roots, opts, &v);
    (v.0.into_inner().unwrap(), stats, v.1.into_inner().unwrap())
}

/// The same visits in the same order.
fn assert_same_visits(got: &[Vec<u8>], want: &[Vec<u8>], at: &str) {
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g == w,
            "{at}, visit {k}: {} where {}",
            String::from_utf8_lossy(g),
            String::from_utf8_lossy(w)
        );
    }
    assert_eq!(got.len(), want.len(), "{at}: visits");
}

/// A visit line's path.
fn path_of(line: &[u8]) -> &[u8] {
    let mut at = 0;
    for _ in 0..5 {
        at += line[at..].iter().position(|&b| b == b' ').unwrap() + 1;
    }
    &line[at..]
}

/// The directory holding `path`.
fn parent_of(path: &[u8]) -> &[u8] {
    &path[..path.iter().rposition(|&b| b == b'/').unwrap_or(0)]
}

#[test]
fn a_queue_not_read_back_is_an_error_and_the_rest_is_walked() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    let root = tmp.path().as_os_str().as_bytes().to_vec();
    let roots = [root];
    let (want, _) = run(&roots, 1, usize::MAX);
    let limit = 7;
    for threads in [1, 4] {
        // The first segment read back (top-level directories: whole
        // subtrees lost), one at the second level, one further on (a
        // segment holds under twice the limit's directories).
        let (_, st) = run(&roots, threads, limit);
        let reads = st.dirs_spilled / (2 * limit as u64);
        for fail in [0, 20, reads - 1] {
            let (got, st, errors) = run_failing(&roots, threads, limit, Some(fail));
            let at = format!("{threads} workers, read {fail} failing");
            assert!(st.dirs_spilled > 500, "{at}: {st:?}");
            assert_eq!(errors.len(), 1, "{at}: {errors:?}");
            let e = &errors[0];
            let Operation::ReadBack { dirs_lost } = e.operation() else {
                panic!("{at}: {e:?}");
            };
            assert!((1..2 * limit as u64).contains(&dirs_lost), "{at}: {e:?}");
            assert_eq!(e.depth(), 0);
            assert_eq!(e.path(), std::env::temp_dir(), "{at}");
            let io = e.io_error().expect("an I/O error");
            let cause = std::error::Error::source(io.get_ref().expect("a cause"))
                .and_then(|c| c.downcast_ref::<std::io::Error>())
                .expect("the read's error");
            assert_eq!(cause.raw_os_error(), Some(libc::EIO), "{at}");
            let msg = e.to_string();
            assert!(
                msg.ends_with(&format!(
                    "{dirs_lost} directories not walked: Input/output error"
                )),
                "{at}: {msg}"
            );
            // What is visited is the whole walk's visits in order, but
            // for the contents of `dirs_lost` directories, each of them
            // visited and none of its contents (every directory that can
            // spill holds something).
            let mut missing = Vec::new();
            let mut g = got.iter().peekable();
            for w in &want {
                if g.peek() == Some(&w) {
                    g.next();
                } else {
                    missing.push(path_of(w));
                }
            }
            assert!(g.next().is_none(), "{at}: visits not in the whole walk's");
            let visited: HashSet<&[u8]> = got.iter().map(|l| path_of(l)).collect();
            let lost: BTreeSet<&[u8]> = missing
                .iter()
                .map(|p| parent_of(p))
                .filter(|p| visited.contains(p))
                .collect();
            assert_eq!(lost.len() as u64, dirs_lost, "{at}: {lost:?}");
            for p in &missing {
                assert!(
                    lost.iter().any(|d| p.starts_with(d) && p[d.len()] == b'/'),
                    "{at}: {} missing",
                    String::from_utf8_lossy(p)
                );
            }
            for l in &got {
                assert!(
                    !lost.contains(parent_of(path_of(l))),
                    "{at}: part of a lost directory visited"
                );
            }
        }
    }
}

#[test]
fn a_spilled_queue_walks_as_one_in_memory() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    let root = tmp.path().as_os_str().as_bytes().to_vec();
    let mut slashed = root.clone();
    slashed.push(b'/');
    for roots in [vec![root.clone()], vec![slashed, root.clone()]] {
        for threads in [1, 4] {
            let (want, st) = run(&roots, threads, usize::MAX);
            assert_eq!(st.dirs_spilled, 0);
            assert!(
                st.queue_peak >= 400,
                "{threads} workers: unspilled, most of a level of 600 is queued: {}",
                st.queue_peak
            );
            assert!(want.len() > roots.len() * 1900, "{} visits", want.len());
            for limit in [1, 7, 100] {
                let (got, st) = run(&roots, threads, limit);
                assert!(st.dirs_spilled > 500, "{limit}: {st:?}");
                assert!(
                    st.queue_peak <= 2 * limit as u64,
                    "{threads} workers, limit {limit}: {} queued in memory at once",
                    st.queue_peak
                );
                // Siblings read back together are opened relative to their
                // parent, opened once for them, not each by its whole path
                // (the 600 directories of the second level come in groups
                // of 7 or more; those of the third, one to a parent, are
                // opened by path).
                if limit > 1 {
                    assert!(
                        st.reopened_by_path + 500 < st.dirs_spilled,
                        "{threads} workers, limit {limit}: {st:?}"
                    );
                }
                assert_same_visits(&got, &want, &format!("{threads} workers, limit {limit}"));
            }
        }
    }
}

/// A walk form: its order and whether it is contents first.
type Form = (Order, bool);

const FORMS: [Form; 4] = [
    (Order::Hybrid, false),
    (Order::Hybrid, true),
    (Order::DepthFirst, false),
    (Order::DepthFirst, true),
];

/// An unsorted walk in `form` on `threads` workers, following links as
/// `follow` says, its deep list spilled past `limit`.
fn deep_opts((order, post): Form, threads: usize, follow: Follow, limit: usize) -> WalkOptions {
    WalkOptions::new()
        .threads(threads)
        .order(order)
        .contents_first(post)
        .follow_links(follow)
        .test_queue_spill(Some(limit))
}

/// A walk in `form` of `root`, unsorted, its deep list spilled past
/// `limit`, the read back numbered `fail` failing.
fn run_deep(
    root: &[u8],
    form: Form,
    threads: usize,
    limit: usize,
    fail: Option<u64>,
) -> (Vec<Vec<u8>>, Stats, Vec<Error>) {
    let opts = deep_opts(form, threads, Follow::Never, limit).test_queue_read_fail(fail);
    walk_lines(&[root.to_vec()], &opts)
}

/// Each directory's visit after every visit below it (its direct
/// entries', and so, in turn, everything below).
fn assert_contents_first(lines: &[Vec<u8>], at: &str) {
    let index: std::collections::HashMap<&[u8], usize> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (path_of(l), i))
        .collect();
    assert_eq!(index.len(), lines.len(), "{at}: a path visited twice");
    for (i, l) in lines.iter().enumerate() {
        if let Some(&parent) = index.get(parent_of(path_of(l))) {
            assert!(
                parent > i,
                "{at}: {} after its directory",
                String::from_utf8_lossy(path_of(l))
            );
        }
    }
}

#[test]
fn a_spilled_deep_list_walks_as_one_in_memory() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    let root = tmp.path().as_os_str().as_bytes().to_vec();
    for form in FORMS {
        let (want, st, errors) = run_deep(&root, form, 1, usize::MAX, None);
        assert!(errors.is_empty(), "{form:?}: {errors:?}");
        assert_eq!(st.dirs_spilled, 0);
        assert!(want.len() > 3000, "{} visits", want.len());
        let mut want_sorted = want.clone();
        want_sorted.sort();
        for limit in [1, 3, 20] {
            let at = format!("{form:?}, limit {limit}");
            let (got, st, errors) = run_deep(&root, form, 1, limit, None);
            assert!(errors.is_empty(), "{at}: {errors:?}");
            assert!(st.dirs_spilled > 0, "{at}: {st:?}");
            assert_same_visits(&got, &want, &at);
            let (mut got, st, errors) = run_deep(&root, form, 4, limit, None);
            assert!(errors.is_empty(), "{at}, 4 workers: {errors:?}");
            assert!(st.dirs_spilled > 0, "{at}, 4 workers: {st:?}");
            if form.1 {
                assert_contents_first(&got, &at);
            }
            got.sort();
            assert!(got == want_sorted, "{at}, 4 workers: other visits");
        }
    }
}

#[test]
fn a_deep_list_not_read_back_is_an_error_and_the_rest_is_walked() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    let root = tmp.path().as_os_str().as_bytes().to_vec();
    let limit = 3;
    for form in FORMS {
        let (want, _, _) = run_deep(&root, form, 1, usize::MAX, None);
        for fail in [0, 7, 40] {
            let at = format!("{form:?}, read {fail} failing");
            let (got, st, errors) = run_deep(&root, form, 1, limit, Some(fail));
            assert!(st.dirs_spilled > 500, "{at}: {st:?}");
            assert_eq!(errors.len(), 1, "{at}: {errors:?}");
            let e = &errors[0];
            let Operation::ReadBack { dirs_lost } = e.operation() else {
                panic!("{at}: {e:?}");
            };
            assert!(dirs_lost >= 1, "{at}: {e:?}");
            assert_eq!(e.path(), std::env::temp_dir(), "{at}");
            let msg = e.to_string();
            assert!(
                msg.ends_with(&format!(
                    "{dirs_lost} directories not walked: Input/output error"
                )),
                "{at}: {msg}"
            );
            // The visits are the whole walk's but for what is lost; in
            // its order before the post-order visits (a lost directory's
            // parent is visited once the loss is counted, before what
            // the whole walk visits after its lost subdirectories).
            let got_set: HashSet<&[u8]> = got.iter().map(|l| l.as_slice()).collect();
            assert_eq!(got_set.len(), got.len(), "{at}: a visit made twice");
            let want_set: HashSet<&[u8]> = want.iter().map(|l| l.as_slice()).collect();
            assert!(
                got_set.is_subset(&want_set),
                "{at}: visits not in the whole walk's"
            );
            if !form.1 {
                let mut g = got.iter().peekable();
                for w in &want {
                    if g.peek() == Some(&w) {
                        g.next();
                    }
                }
                assert!(g.next().is_none(), "{at}: not in the whole walk's order");
            }
            let missing: Vec<&[u8]> = want
                .iter()
                .filter(|w| !got_set.contains(w.as_slice()))
                .map(|w| path_of(w))
                .collect();
            let visited: HashSet<&[u8]> = got.iter().map(|l| path_of(l)).collect();
            let missing_set: HashSet<&[u8]> = missing.iter().copied().collect();
            // The lost directories: pre-order, visited as their parent's
            // entries, their contents missing; post-order, missing with
            // their contents, their parents visited.
            let lost: BTreeSet<&[u8]> = if form.1 {
                missing
                    .iter()
                    .copied()
                    .filter(|p| !missing_set.contains(parent_of(p)))
                    .collect()
            } else {
                missing
                    .iter()
                    .map(|p| parent_of(p))
                    .filter(|p| visited.contains(p))
                    .collect()
            };
            assert_eq!(lost.len() as u64, dirs_lost, "{at}: {lost:?}");
            for p in &missing {
                assert!(
                    lost.iter()
                        .any(|d| p == d || p.starts_with(d) && p[d.len()] == b'/'),
                    "{at}: {} missing",
                    String::from_utf8_lossy(p)
                );
            }
            for d in &lost {
                assert!(
                    visited.contains(parent_of(d)),
                    "{at}: {}'s directory not visited",
                    String::from_utf8_lossy(d)
                );
            }
            if form.1 {
                assert_contents_first(&got, &at);
            }
        }
    }
}

/// Below a mount point (and, with `-L`, a followed link) a directory's
/// loop checks start from an ancestor and its mount scope is derived from
/// its parent's: its record says how, so such directories are spilled
/// too (where a sorted walk keeps them in memory), and read back they
/// still catch a bind mount's loop.  The tree on a tmpfs mounted in the
/// root, a bind mount of it below itself: on one worker, the walk with a
/// limit of 3 visits and reports exactly what the unspilled walk does,
/// in the same order, most directories spilled as records.
#[test]
fn a_deep_list_below_a_mount_point_is_spilled_with_its_loop_checks() {
    if !dents_testfs::needs_root("mounts tmpfs and a bind mount") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    fs::create_dir(&m).unwrap();
    let _tmpfs = dents_testfs::mount(&["-t".as_ref(), "tmpfs".as_ref(), "tmpfs".as_ref()], &m);
    make_tree(&m);
    let c = m.join("a00/b00/c");
    let _bind = dents_testfs::mount(&["--bind".as_ref(), m.as_os_str()], &c);
    let root = tmp.path().as_os_str().as_bytes().to_vec();
    for follow in [Follow::Never, Follow::Always] {
        for (order, post) in FORMS {
            let at = format!("{order:?}, post-order {post}, {follow:?}");
            let opts = |limit| deep_opts((order, post), 1, follow, limit);
            let (want, st, want_errors) =
                walk_lines(std::slice::from_ref(&root), &opts(usize::MAX));
            assert_eq!(st.dirs_spilled, 0, "{at}");
            let loops: Vec<String> = want_errors.iter().map(|e| e.to_string()).collect();
            // With `-L` the loop is met again through `link` (to `a00`).
            let n = if follow == Follow::Always { 2 } else { 1 };
            assert!(
                loops.len() == n && loops.iter().all(|l| l.contains("/b00/c: ")),
                "{at}: {loops:?}"
            );
            let (got, st, errors) = walk_lines(std::slice::from_ref(&root), &opts(3));
            assert!(st.dirs_spilled > 500, "{at}: {st:?}");
            let got_errors: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            assert_eq!(got_errors, loops, "{at}");
            assert_same_visits(&got, &want, &at);
        }
    }
    // A loop that only a plain directory's check finds, from where its
    // crossing's parent starts it: with `-L`, `a00/b00/up` leads to `m`
    // (not an ancestor of the root `a00/b00`), whose `a00` is plain and
    // whose `a00/b00` is the root again, found from the check start
    // `a00` inherited from `up` (a spilled directory's derived start).
    std::os::unix::fs::symlink("../..", m.join("a00/b00/up")).unwrap();
    let root = m.join("a00/b00").as_os_str().as_bytes().to_vec();
    for (order, post) in FORMS {
        let at = format!("{order:?}, post-order {post}, the link up");
        let opts = |limit| deep_opts((order, post), 1, Follow::Always, limit);
        let (want, _, want_errors) = walk_lines(std::slice::from_ref(&root), &opts(usize::MAX));
        let loops: Vec<String> = want_errors.iter().map(|e| e.to_string()).collect();
        assert!(
            loops.iter().any(|l| l.contains("/up/a00/b00: ")),
            "{at}: {loops:?}"
        );
        let (got, st, errors) = walk_lines(std::slice::from_ref(&root), &opts(1));
        assert!(st.dirs_spilled > 500, "{at}: {st:?}");
        let got_errors: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(got_errors, loops, "{at}");
        assert!(got == want, "{at}: other visits");
    }
}
