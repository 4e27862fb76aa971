//! The walker API (`dents::Walker`) against a plain reference, on real
//! trees: each of its three forms (iterator, closure, visitor) must give
//! exactly the entries a recursive `std::fs::read_dir` finds, byte for
//! byte (names that are not UTF-8 included), with the same depths, types,
//! inode numbers and metadata.  Then its promises: bounded memory with a
//! slow consumer, a prompt stop when the iterator is dropped, errors with
//! path, depth and kind, and no dependency's type in its public API.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use dents::walk::{Visit, Visitor};
use dents::{DirEntry, Entry, ErrorKind, FileType, Flow, Follow, Metadata, StatFields, Walker};

/// What the tests compare for each entry: path bytes, depth, type, inode.
type Row = (Vec<u8>, usize, u8, u64);

/// A tree with a bit of everything: nested directories, an empty one, a
/// directory of 3000 files (several `getdents64` buffers), names that are
/// not UTF-8 (and one with a newline), symlinks to a file and to a
/// directory (not followed by default), a socket.
fn make_tree() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let r = tmp.path();
    let mk = |p: &[u8]| fs::create_dir_all(r.join(OsStr::from_bytes(p))).unwrap();
    let file =
        |p: &[u8], len: usize| fs::write(r.join(OsStr::from_bytes(p)), vec![b'x'; len]).unwrap();
    mk(b"a/b/c/d");
    mk(b"empty");
    mk(b"caf\xe9/\xff\xfe");
    mk(b"many");
    file(b"top", 10);
    file(b"a/one", 1);
    file(b"a/b/two", 2);
    file(b"a/b/c/d/deep", 3000);
    file(b"caf\xe9/\xff\xfe/\x80name", 5);
    file(b"caf\xe9/line\nbreak", 7);
    for i in 0..3000 {
        file(format!("many/f{i:05}").as_bytes(), i % 7);
    }
    symlink("top", r.join("link-to-file")).unwrap();
    symlink("a/b", r.join("link-to-dir")).unwrap();
    symlink("nowhere", r.join("broken")).unwrap();
    let _sock = std::os::unix::net::UnixListener::bind(r.join("sock")).unwrap();
    tmp
}

/// The reference: every path under `root` (root included) with its depth,
/// type (from `lstat`) and inode, by recursive `read_dir`.
fn reference(root: &Path) -> Vec<Row> {
    fn rec(p: &Path, depth: usize, out: &mut Vec<Row>) {
        let m = fs::symlink_metadata(p).unwrap();
        out.push((
            p.as_os_str().as_bytes().to_vec(),
            depth,
            FileType::from_mode(m.mode()).as_dtype(),
            m.ino(),
        ));
        if m.is_dir() {
            for e in fs::read_dir(p).unwrap() {
                rec(&e.unwrap().path(), depth + 1, out);
            }
        }
    }
    let mut out = Vec::new();
    rec(root, 0, &mut out);
    out
}

/// The reference of a sorted breadth-first walk: the root, then each
/// directory's entries sorted by name bytes, directories taken in the
/// order they were listed (level order).
fn sorted_bfs_reference(root: &Path) -> Vec<Vec<u8>> {
    let mut out = vec![root.as_os_str().as_bytes().to_vec()];
    let mut queue = std::collections::VecDeque::from([root.to_path_buf()]);
    while let Some(dir) = queue.pop_front() {
        let mut children: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        children.sort_by(|a, b| {
            a.file_name()
                .unwrap()
                .as_bytes()
                .cmp(b.file_name().unwrap().as_bytes())
        });
        for c in children {
            out.push(c.as_os_str().as_bytes().to_vec());
            if fs::symlink_metadata(&c).unwrap().is_dir() {
                queue.push_back(c);
            }
        }
    }
    out
}

fn row_of_owned(e: &DirEntry) -> Row {
    (
        e.path_bytes().to_vec(),
        e.depth(),
        e.file_type().as_dtype(),
        e.ino(),
    )
}

fn row_of_entry(e: &Entry<'_>) -> Row {
    (
        e.path_bytes().to_vec(),
        e.depth(),
        e.file_type().as_dtype(),
        e.ino(),
    )
}

fn sorted(mut v: Vec<Row>) -> Vec<Row> {
    v.sort();
    v
}

/// The iterator's rows, failing on any error.
fn iter_rows(w: Walker) -> Vec<Row> {
    w.into_iter().map(|r| row_of_owned(&r.unwrap())).collect()
}

/// The closure form's rows, failing on any error.
fn closure_rows(w: &Walker) -> Vec<Row> {
    let rows = Mutex::new(Vec::new());
    w.for_each(|e| {
        rows.lock().unwrap().push(row_of_entry(&e.unwrap()));
        Flow::Continue
    });
    rows.into_inner().unwrap()
}

/// The visitor form: per-worker row buffers, merged at the end.
struct Rows(Mutex<Vec<Row>>);

impl Visitor for Rows {
    type State = Vec<Row>;
    fn state(&self) -> Vec<Row> {
        Vec::new()
    }
    fn visit(&self, rows: &mut Vec<Row>, v: &Visit<'_>) -> Flow {
        rows.push(row_of_entry(&Entry::from(v)));
        Flow::Continue
    }
    fn error(&self, _: &mut Vec<Row>, e: dents::Error) {
        panic!("unexpected error {e:?}");
    }
    fn finish(&self, rows: Vec<Row>) {
        self.0.lock().unwrap().extend(rows);
    }
}

fn visitor_rows(w: &Walker) -> Vec<Row> {
    let rows = Rows(Mutex::new(Vec::new()));
    w.visit(&rows);
    rows.0.into_inner().unwrap()
}

/// The configurations every form is checked in.
fn configs(root: &Path) -> Vec<(&'static str, Walker)> {
    vec![
        ("default", Walker::new(root)),
        ("1 thread", Walker::new(root).threads(1)),
        ("8 threads", Walker::new(root).threads(8)),
        ("depth first", Walker::new(root).depth_first().threads(3)),
        ("contents first", Walker::new(root).contents_first(true)),
        ("sorted", Walker::new(root).sort_by_name(true)),
        ("tiny channel", Walker::new(root).channel_capacity(1)),
    ]
}

#[test]
fn every_form_matches_the_reference_byte_for_byte() {
    let tmp = make_tree();
    let want = sorted(reference(tmp.path()));
    assert!(want.len() > 3000);
    assert!(
        want.iter().any(|r| std::str::from_utf8(&r.0).is_err()),
        "the tree has non-UTF-8 names"
    );
    for (name, w) in configs(tmp.path()) {
        assert_eq!(sorted(iter_rows(w.clone())), want, "iterator, {name}");
        assert_eq!(sorted(closure_rows(&w)), want, "closure, {name}");
        assert_eq!(sorted(visitor_rows(&w)), want, "visitor, {name}");
    }
}

#[test]
fn paths_names_and_bytes_agree() {
    let tmp = make_tree();
    for r in Walker::new(tmp.path()) {
        let e = r.unwrap();
        assert_eq!(e.path().as_os_str().as_bytes(), e.path_bytes());
        assert_eq!(e.file_name().as_bytes(), e.file_name_bytes());
        if e.depth() == 0 {
            assert_eq!(e.path(), tmp.path());
            assert_eq!(
                e.file_name(),
                tmp.path().as_os_str(),
                "a root's name is the root as given"
            );
        } else {
            assert_eq!(Some(e.file_name()), e.path().file_name());
            assert!(e.path().starts_with(tmp.path()));
            assert_eq!(
                e.path()
                    .strip_prefix(tmp.path())
                    .unwrap()
                    .components()
                    .count(),
                e.depth()
            );
        }
        assert_eq!(e.is_dir(), e.file_type().is_dir());
        let p = e.clone().into_path();
        assert_eq!(p, e.path());
    }
}

#[test]
fn owned_entries_are_the_same_from_the_iterator_and_the_closure() {
    let tmp = make_tree();
    let w = Walker::new(tmp.path());
    let mut from_iter: Vec<DirEntry> = (&w).into_iter().map(Result::unwrap).collect();
    let from_closure = Mutex::new(Vec::new());
    w.for_each(|e| {
        from_closure.lock().unwrap().push(e.unwrap().to_dir_entry());
        Flow::Continue
    });
    let mut from_closure = from_closure.into_inner().unwrap();
    from_iter.sort_by(|a, b| a.path_bytes().cmp(b.path_bytes()));
    from_closure.sort_by(|a, b| a.path_bytes().cmp(b.path_bytes()));
    assert_eq!(from_iter.len(), reference(tmp.path()).len());
    assert_eq!(from_iter, from_closure);
}

#[test]
fn sorted_breadth_first_is_exactly_level_order() {
    let tmp = make_tree();
    let want = sorted_bfs_reference(tmp.path());
    for threads in [1, 2, 8] {
        let got: Vec<Vec<u8>> = Walker::new(tmp.path())
            .sort_by_name(true)
            .threads(threads)
            .into_iter()
            .map(|r| r.unwrap().path_bytes().to_vec())
            .collect();
        assert_eq!(got, want, "{threads} threads");
    }
}

#[test]
fn contents_first_yields_each_directory_after_its_contents() {
    let tmp = make_tree();
    let got: Vec<DirEntry> = Walker::new(tmp.path())
        .contents_first(true)
        .threads(4)
        .into_iter()
        .map(|r| r.unwrap())
        .collect();
    let index: HashMap<&[u8], usize> = got
        .iter()
        .enumerate()
        .map(|(i, e)| (e.path_bytes(), i))
        .collect();
    let mut dirs = 0;
    for (i, e) in got.iter().enumerate() {
        assert_eq!(e.is_contents_first_visit(), e.is_dir(), "{:?}", e.path());
        if let Some(parent) = e.path().parent().filter(|_| e.depth() > 0) {
            let p = index[parent.as_os_str().as_bytes()];
            assert!(p > i, "{:?} came before its entry {:?}", parent, e.path());
        }
        dirs += e.is_dir() as usize;
    }
    assert!(dirs >= 8);
}

/// One case of `depth_limits`: the walk between depths `MIN` and `MAX`,
/// by the iterator and by the closure, is the reference's rows at those
/// depths.
fn check_depth_limits((min, max): (usize, usize)) {
    let tmp = make_tree();
    let all = reference(tmp.path());
    let want = sorted(
        all.iter()
            .filter(|r| r.1 >= min && r.1 <= max)
            .cloned()
            .collect(),
    );
    let w = Walker::new(tmp.path()).min_depth(min).max_depth(max);
    assert_eq!(
        sorted(iter_rows(w.clone())),
        want,
        "iterator, depths {min}..={max}"
    );
    assert_eq!(
        sorted(closure_rows(&w)),
        want,
        "closure, depths {min}..={max}"
    );
}

dents_testfs::test_cases! {
/// Depth limits match the filtered reference: (min, max).
mod depth_limits: (usize, usize) => check_depth_limits;
    root_only: (0, 0),
    first_level: (1, 1),
    first_two_levels: (1, 2),
    from_the_second_level: (2, usize::MAX),
    third_and_fourth_levels: (3, 4),
}

#[test]
fn several_roots_are_walked_each_from_depth_zero() {
    let tmp = make_tree();
    let a = tmp.path().join("a");
    let many = tmp.path().join("many");
    let mut want = reference(&a);
    want.extend(reference(&many));
    let got = iter_rows(Walker::from_roots([&a, &many]));
    assert_eq!(sorted(got), sorted(want.clone()));
    let got = iter_rows(Walker::new(&a).root(&many));
    assert_eq!(sorted(got), sorted(want));
}

/// Metadata compared field by field with std's `lstat`.
fn assert_same_metadata(path: &Path, m: &Metadata, fields: StatFields) {
    let s = fs::symlink_metadata(path).unwrap();
    assert!(
        m.fields().contains(fields),
        "{path:?}: asked {fields:?}, got {:?}",
        m.fields()
    );
    assert_eq!(m.mode(), s.mode(), "{path:?}");
    assert_eq!(m.file_type(), FileType::from_mode(s.mode()));
    assert_eq!(m.dev(), s.dev());
    if fields.contains(StatFields::SIZE) {
        assert_eq!(m.len(), s.len(), "{path:?}");
    }
    if fields.contains(StatFields::NLINK) {
        assert_eq!(m.nlink(), s.nlink());
    }
    if fields.contains(StatFields::UID) {
        assert_eq!(m.uid(), s.uid());
    }
    if fields.contains(StatFields::GID) {
        assert_eq!(m.gid(), s.gid());
    }
    if fields.contains(StatFields::INO) {
        assert_eq!(m.ino(), s.ino());
    }
    if fields.contains(StatFields::BLOCKS) {
        assert_eq!(m.blocks(), s.blocks());
    }
    if fields.contains(StatFields::MTIME) {
        let t = m.mtime().unwrap();
        assert_eq!((t.secs, i64::from(t.nsecs)), (s.mtime(), s.mtime_nsec()));
        assert_eq!(m.modified().unwrap(), s.modified().unwrap());
    }
    if fields.contains(StatFields::CTIME) {
        let t = m.ctime().unwrap();
        assert_eq!((t.secs, i64::from(t.nsecs)), (s.ctime(), s.ctime_nsec()));
    }
}

#[test]
fn metadata_matches_lstat() {
    let tmp = make_tree();
    // The iterator without stat fields: a stat by path when asked, with
    // the basic fields.
    let mut n = 0;
    for r in Walker::new(tmp.path()) {
        let e = r.unwrap();
        assert_same_metadata(
            e.path(),
            &e.metadata().expect("a stat by path"),
            StatFields::BASIC,
        );
        n += 1;
    }
    assert!(n > 3000);
    // With stat fields: stat'ed on the workers.
    let fields = StatFields::SIZE | StatFields::MTIME | StatFields::NLINK | StatFields::INO;
    let mut n = 0;
    for r in Walker::new(tmp.path()).stat_fields(fields) {
        let e = r.unwrap();
        let m = e.metadata().expect("asked for");
        assert_same_metadata(e.path(), &m, fields);
        assert!(m.atime().is_none() || m.fields().contains(StatFields::ATIME));
        n += 1;
    }
    assert!(n > 3000);
    // The closure: fetched lazily, all basic fields by default.
    let n = AtomicUsize::new(0);
    Walker::new(tmp.path()).for_each(|e| {
        let e = e.unwrap();
        let m = e.metadata().unwrap();
        assert_same_metadata(e.path(), &m, StatFields::BASIC);
        assert_eq!(m.ino(), e.ino());
        assert_eq!(e.metadata().unwrap(), m, "fetched once, the same each time");
        assert_eq!(e.symlink_metadata().unwrap().ino(), m.ino());
        n.fetch_add(1, Ordering::Relaxed);
        Flow::Continue
    });
    assert!(n.into_inner() > 3000);
}

#[test]
fn sorted_iterator_with_stat_fields_is_level_order_with_lstats() {
    // Its visitor stats ahead on the workers (`Visitor::stat_ahead`): the
    // metadata must still be each entry's own, in the visits' order.
    let tmp = make_tree();
    let want = sorted_bfs_reference(tmp.path());
    let fields = StatFields::BASIC | StatFields::BLOCKS;
    for threads in [1, 2, 8] {
        let mut got = Vec::new();
        for r in Walker::new(tmp.path())
            .sort_by_name(true)
            .threads(threads)
            .stat_fields(fields)
        {
            let e = r.unwrap();
            assert_same_metadata(e.path(), &e.metadata().expect("asked for"), fields);
            got.push(e.path_bytes().to_vec());
        }
        assert_eq!(got, want, "{threads} threads");
    }
}

#[test]
fn following_links_types_entries_by_their_targets_and_reports_loops() {
    let tmp = make_tree();
    let r = tmp.path();
    symlink("../..", r.join("a/b/up")).unwrap();
    let mut loops = Vec::new();
    let mut types = HashMap::new();
    for item in Walker::new(r).follow_links(Follow::Always) {
        match item {
            Ok(e) => {
                types.insert(e.path().to_owned(), e.file_type());
            }
            Err(err) => loops.push(err),
        }
    }
    assert_eq!(types[&r.join("link-to-dir")], FileType::DIRECTORY);
    assert_eq!(types[&r.join("link-to-file")], FileType::REGULAR);
    assert_eq!(
        types[&r.join("link-to-dir/two")],
        FileType::REGULAR,
        "walked through the link"
    );
    // up -> ../.. from a/b is the root: a loop wherever it is reached.
    let mut seen: Vec<(PathBuf, usize, PathBuf)> = loops
        .iter()
        .map(|e| {
            assert!(e.io_error().is_none(), "{e}");
            assert!(matches!(e.kind(), ErrorKind::Loop { .. }));
            assert!(e.to_string().starts_with(&format!(
                "{}: File system loop detected",
                e.path().display()
            )));
            (
                e.path().to_owned(),
                e.depth(),
                e.loop_ancestor().unwrap().to_owned(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            (r.join("a/b/up"), 3, r.to_owned()),
            (r.join("link-to-dir/up"), 2, r.to_owned()),
        ]
    );
}

#[test]
fn errors_carry_path_depth_and_kind_in_every_form() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no\u{e9}such");
    // Iterator.
    let items: Vec<_> = Walker::new(&missing).into_iter().collect();
    assert_eq!(items.len(), 1);
    let err = items.into_iter().next().unwrap().unwrap_err();
    assert_eq!(err.path(), missing);
    assert_eq!(err.path_bytes(), missing.as_os_str().as_bytes());
    assert_eq!(err.depth(), 0);
    assert_eq!(err.io_error().unwrap().kind(), std::io::ErrorKind::NotFound);
    assert_eq!(
        err.to_string(),
        format!("{}: No such file or directory", missing.display())
    );
    let source = std::error::Error::source(&err).expect("the io::Error");
    assert_eq!(
        source.to_string(),
        std::io::Error::from_raw_os_error(2).to_string()
    );
    let io: std::io::Error = err.into();
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    assert_eq!(
        io.to_string(),
        format!("{}: No such file or directory", missing.display())
    );
    let back = io.into_inner().unwrap().downcast::<dents::Error>().unwrap();
    assert_eq!(back.depth(), 0);
    // Closure: the error reaches it as Err, and Quit on an error stops.
    let calls = AtomicUsize::new(0);
    Walker::new(&missing).root(tmp.path()).for_each(|e| {
        calls.fetch_add(1, Ordering::Relaxed);
        match e {
            Err(e) => {
                assert_eq!(e.path(), missing);
                Flow::Quit
            }
            Ok(_) => Flow::Continue,
        }
    });
    assert_eq!(
        calls.into_inner(),
        1,
        "the missing root comes first and quits"
    );
    // Visitor: the same error, handed over.
    struct Keep {
        errors: Mutex<Vec<dents::Error>>,
    }
    impl Visitor for Keep {
        type State = ();
        fn state(&self) {}
        fn visit(&self, _: &mut (), _: &Visit<'_>) -> Flow {
            Flow::Continue
        }
        fn error(&self, _: &mut (), e: dents::Error) {
            self.errors.lock().unwrap().push(e);
        }
    }
    let w = Walker::new(tmp.path()).root(&missing);
    let keep = Keep {
        errors: Mutex::new(Vec::new()),
    };
    w.visit(&keep);
    let errs = keep.errors.into_inner().unwrap();
    assert_eq!(errs.len(), 1);
    let err = &errs[0];
    assert_eq!((err.path(), err.depth()), (missing.as_path(), 0));
}

#[test]
fn unreadable_directory_is_reported_at_its_depth() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = make_tree();
    // Searchable by anyone, so that an unprivileged child can walk it.
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let locked = tmp.path().join("a/b/c");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    if is_root() {
        // Root reads every directory: the walk runs as nobody instead.
        let out = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(std::env::current_exe().unwrap())
            .args(["child_unreadable", "--exact", "--ignored", "--nocapture"])
            .args(["--test-threads=1"])
            .env("DENTS_API_CHILD", tmp.path())
            .output()
            .expect("setpriv (util-linux) runs the walk as nobody");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("checked unreadable"),
            "child failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    } else {
        check_unreadable(tmp.path());
    }
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
}

/// The child of `unreadable_directory_is_reported_at_its_depth`, run as
/// nobody when the tests run as root.
#[test]
#[ignore = "a child process of unreadable_directory_is_reported_at_its_depth, run by it"]
fn child_unreadable() {
    let dir = child_dir();
    check_unreadable(&dir);
    println!("checked unreadable");
}

/// The walk of `make_tree`'s tree at `root`, whose `a/b/c` cannot be read,
/// reports exactly that directory, at depth 3.
fn check_unreadable(root: &Path) {
    let locked = root.join("a/b/c");
    let errs: Vec<_> = Walker::new(root)
        .into_iter()
        .filter_map(Result::err)
        .collect();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!((errs[0].path(), errs[0].depth()), (locked.as_path(), 3));
    assert_eq!(
        errs[0].to_string(),
        format!("{}: Permission denied", locked.display())
    );
}

/// Whether this process runs as root (from /proc: no libc in the tests).
fn is_root() -> bool {
    let status = fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .and_then(|l| l.split_whitespace().nth(2))
        == Some("0")
}

#[test]
fn quit_and_prune_in_the_closure() {
    let tmp = make_tree();
    let calls = AtomicUsize::new(0);
    Walker::new(tmp.path()).threads(1).for_each(|_| {
        calls.fetch_add(1, Ordering::Relaxed);
        Flow::Quit
    });
    assert_eq!(calls.into_inner(), 1);
    let many = tmp.path().join("many");
    let rows = Mutex::new(Vec::new());
    Walker::new(tmp.path()).for_each(|e| {
        let e = e.unwrap();
        rows.lock().unwrap().push(e.path().to_owned());
        if e.path() == many {
            Flow::Prune
        } else {
            Flow::Continue
        }
    });
    let rows = rows.into_inner().unwrap();
    assert!(rows.contains(&many));
    assert!(!rows.iter().any(|p| p.starts_with(&many) && p != &many));
    assert_eq!(rows.len(), reference(tmp.path()).len() - 3000);
}

#[test]
fn iterator_stats_come_at_the_end() {
    let tmp = make_tree();
    let mut it = Walker::new(tmp.path()).into_iter();
    assert!(it.stats().is_none());
    let n = it.by_ref().count();
    assert_eq!(n, reference(tmp.path()).len());
    let stats = it.stats().expect("walk over");
    // root, a, a/b, a/b/c, a/b/c/d, empty, café, café/\xff\xfe, many.
    assert_eq!(stats.dirs_read, 9);
    assert!(stats.types_from_dtype + stats.types_from_stat + stats.types_from_nlink > 0);
}

/// One statistics type for every form of walk: the low-level walk, the
/// visitor, the closure and the iterator each return a `dents::Stats`,
/// and on one thread the same counts.
#[test]
fn every_form_returns_the_same_stats() {
    struct Nothing;
    impl Visitor for Nothing {
        type State = ();
        fn state(&self) {}
        fn visit(&self, _: &mut (), _: &Visit<'_>) -> Flow {
            Flow::Continue
        }
        fn error(&self, _: &mut (), e: dents::Error) {
            panic!("{e}");
        }
    }
    let tmp = make_tree();
    let w = Walker::new(tmp.path()).threads(1);
    let root = tmp.path().as_os_str().as_bytes().to_vec();
    let low: dents::Stats = dents::walk::walk(
        &[root],
        &dents::walk::WalkOptions::new().threads(1),
        &Nothing,
    );
    let visited: dents::Stats = w.visit(&Nothing);
    let closure: dents::Stats = w.for_each(|_| Flow::Continue);
    let mut it = w.into_iter();
    it.by_ref().for_each(drop);
    let iterated: dents::Stats = it.stats().expect("walk over");
    assert_eq!(low.dirs_read, 9, "{low:?}");
    for (form, s) in [
        ("visitor", visited),
        ("closure", closure),
        ("iterator", iterated),
    ] {
        assert_eq!(s, low, "{form}");
    }
}

// ---------------------------------------------------------------------
// Bounded memory and prompt stop, measured in a child process (this test
// binary run again on one test), so that nothing else of the test run
// counts in its peak RSS or its thread count.

/// Entries of the big flat directory (`DENTS_API_BIG` overrides).
fn big_entries() -> usize {
    std::env::var("DENTS_API_BIG")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000)
}

/// The peak resident set of this process, in KiB (`VmHWM`).
fn peak_rss_kib() -> u64 {
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn thread_count() -> usize {
    fs::read_dir("/proc/self/task").unwrap().count()
}

/// One flat directory of `n` hard links to one empty file, on tmpfs when
/// there is one (fast to make, and no disk).
fn make_big_dir(n: usize) -> tempfile::TempDir {
    let base = Path::new("/dev/shm");
    let tmp = if base.is_dir() {
        tempfile::tempdir_in(base).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    let dir = tmp.path().join("flat");
    fs::create_dir(&dir).unwrap();
    let src = tmp.path().join("src");
    fs::write(&src, b"").unwrap();
    let mut name = dir.clone();
    for i in 0..n {
        name.push(format!("entry-with-a-longish-name-{i:07}"));
        fs::hard_link(&src, &name).unwrap();
        name.pop();
    }
    tmp
}

/// Runs the child half of a test in a new process; returns its stdout.
fn run_child(test: &str, dir: &Path) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            test,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("DENTS_API_CHILD", dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child {test} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// A `key=value` number from a child's output.
fn field(out: &str, key: &str) -> u64 {
    // The harness prints "test NAME ... " before the child's first line.
    out.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key} in:\n{out}"))
        .trim()
        .parse()
        .unwrap()
}

/// The child's directory, when this process is a child.
fn child_dir() -> PathBuf {
    std::env::var_os("DENTS_API_CHILD")
        .map(PathBuf::from)
        .expect("a child test runs only from its parent (DENTS_API_CHILD unset)")
}

/// The child of `slow_consumer_keeps_memory_bounded`: reads the first
/// entries slowly (the walk could read the whole directory meanwhile, were
/// the channel not bounded), then the rest at full speed.
#[test]
#[ignore = "a child process of slow_consumer_keeps_memory_bounded_and_early_drop_stops_the_walk, run by it"]
fn child_slow_consumer() {
    let dir = child_dir();
    let before = peak_rss_kib();
    let capacity = std::env::var("DENTS_API_CAPACITY")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1024);
    let mut it = Walker::new(dir.join("flat"))
        .channel_capacity(capacity)
        .into_iter();
    let start = Instant::now();
    let mut n = 0u64;
    for item in it.by_ref() {
        item.unwrap();
        n += 1;
        if n <= 2000 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    println!("entries={n}");
    println!("rss_before_kib={before}");
    println!("peak_rss_kib={}", peak_rss_kib());
    println!("walk_ms={}", start.elapsed().as_millis());
    println!("dirs_read={}", it.stats().unwrap().dirs_read);
}

/// The child of `dropping_the_iterator_stops_the_walk`.
#[test]
#[ignore = "a child process of slow_consumer_keeps_memory_bounded_and_early_drop_stops_the_walk, run by it"]
fn child_early_drop() {
    let dir = child_dir();
    let flat = dir.join("flat");
    let threads_before = thread_count();
    // A walk that costs: every entry stat'ed.
    let w = Walker::new(&flat).stat_fields(StatFields::BASIC).threads(4);
    let mut it = w.clone().into_iter();
    for _ in 0..10 {
        it.next().unwrap().unwrap();
    }
    let threads_during = thread_count();
    let start = Instant::now();
    drop(it);
    let drop_us = start.elapsed().as_micros();
    // A thread that has ended may stay listed a moment after its join.
    let mut threads_after = thread_count();
    let settle = Instant::now();
    while threads_after > threads_before && settle.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(10));
        threads_after = thread_count();
    }
    for t in fs::read_dir("/proc/self/task").unwrap() {
        let comm = fs::read_to_string(t.unwrap().path().join("comm")).unwrap_or_default();
        println!("thread_left={}", comm.trim());
    }
    let start = Instant::now();
    let full = w.into_iter().count();
    println!("threads_before={threads_before}");
    println!("threads_during={threads_during}");
    println!("threads_after={threads_after}");
    println!("drop_us={drop_us}");
    println!("full_us={}", start.elapsed().as_micros());
    println!("full_entries={full}");
}

#[test]
fn slow_consumer_keeps_memory_bounded_and_early_drop_stops_the_walk() {
    let n = big_entries();
    let t = Instant::now();
    let tmp = make_big_dir(n);
    eprintln!("made {n} entries in {:?}", t.elapsed());

    let out = run_child("child_slow_consumer", tmp.path());
    eprint!("{out}");
    assert_eq!(field(&out, "entries"), n as u64 + 1);
    assert_eq!(field(&out, "dirs_read"), 1);
    let peak = field(&out, "peak_rss_kib");
    assert!(
        peak < 64 * 1024,
        "peak RSS {peak} KiB with a slow consumer of {n} entries"
    );

    let out = run_child("child_early_drop", tmp.path());
    eprint!("{out}");
    assert_eq!(field(&out, "full_entries"), n as u64 + 1);
    assert!(
        field(&out, "threads_during") > field(&out, "threads_before"),
        "the walk ran on threads of its own"
    );
    assert_eq!(
        field(&out, "threads_after"),
        field(&out, "threads_before"),
        "every thread of the walk joined"
    );
    let (drop_us, full_us) = (field(&out, "drop_us"), field(&out, "full_us"));
    assert!(drop_us < 1_500_000, "drop took {drop_us} µs");
    assert!(
        drop_us * 4 < full_us,
        "drop took {drop_us} µs, the whole walk {full_us} µs: it did not stop early"
    );
}
