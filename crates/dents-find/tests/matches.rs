//! A command's matches as values (`Command::matches`,
//! `Command::for_each_match`): the paths GNU find names with `-print0`
//! for the same expression, the metadata the expression fetched (equal to
//! `lstat`'s, or `stat`'s under `-L`), errors as values with GNU's line,
//! the walk stopped by a dropped iterator, a panic of the callback (or of
//! the walk, under the iterator) raised in the caller at any thread count,
//! and several commands' iterators on one thread each with its own status.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, MetadataExt};
use std::path::Path;
use std::process;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use dents::{Flow, StatFields};
use dents_find::{Command, FoundEntry};

/// Seconds a walk that must end may take before it is taken for hung.
const LIMIT: Duration = Duration::from_secs(60);

/// A tree with files of several sizes, directories, links (one broken,
/// one to a directory) and awkward names (newlines, invalid UTF-8).
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("f1"), b"").unwrap();
    fs::write(root.join("f2.txt"), vec![b'x'; 3000]).unwrap();
    fs::create_dir_all(root.join("sub1/deep")).unwrap();
    fs::write(root.join("sub1/a.txt"), b"abc").unwrap();
    fs::write(root.join("sub1/deep/x"), vec![b'y'; 5000]).unwrap();
    fs::create_dir(root.join("sub2")).unwrap();
    for (i, name) in dents_testfs::awkward_names().iter().enumerate() {
        let p = root.join("sub2").join(OsStr::from_bytes(name));
        if i % 3 == 0 {
            fs::create_dir(&p).unwrap();
            fs::write(p.join("in\nside"), b"z").unwrap();
        } else {
            fs::write(&p, vec![b'q'; i * 100]).unwrap();
        }
    }
    symlink("f2.txt", root.join("link")).unwrap();
    symlink("nowhere", root.join("broken")).unwrap();
    symlink("sub1", root.join("dirlink")).unwrap();
    dir
}

/// `args` with `{}` made `root`.
fn with_root(args: &[&[u8]], root: &Path) -> Vec<Vec<u8>> {
    args.iter()
        .map(|a| match *a {
            b"{}" => root.as_os_str().as_bytes().to_vec(),
            a => a.to_vec(),
        })
        .collect()
}

/// The paths GNU find names with `args` (each ending with NUL), sorted,
/// each once.
fn gnu_paths(args: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let o = process::Command::new("find")
        .args(args.iter().map(|a| OsStr::from_bytes(a)))
        .env("LC_ALL", "C")
        .output()
        .expect("GNU find is installed");
    let mut v: Vec<Vec<u8>> = o
        .stdout
        .split(|&b| b == 0)
        .filter(|r| !r.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The matches of `args`, in the order they came, and the status.
fn matched(args: &[Vec<u8>]) -> (Vec<FoundEntry>, i32) {
    let command = Command::parse(args.iter().map(|a| OsStr::from_bytes(a))).unwrap();
    let mut matches = command.matches();
    let found: Vec<FoundEntry> = matches.by_ref().map(Result::unwrap).collect();
    (found, matches.status().expect("ended").code())
}

/// A case: our expression, and GNU's that prints the same entries with
/// `-print0` (`{}` is the tree).
type Case = (&'static [&'static [u8]], &'static [&'static [u8]]);

/// The matches of the case's first line are the paths GNU prints with
/// its second, each once, and the callback form gets the same.
fn check(case: Case) {
    let dir = tree();
    let (ours, theirs) = (with_root(case.0, dir.path()), with_root(case.1, dir.path()));
    let want = gnu_paths(&theirs);
    let (found, status) = matched(&ours);
    let mut got: Vec<Vec<u8>> = found.iter().map(|f| f.path().to_vec()).collect();
    got.sort();
    let before = got.len();
    got.dedup();
    assert_eq!(before, got.len(), "{:?}: a visit matched twice", case.0);
    assert_eq!(got, want, "{:?} against GNU's {:?}", case.0, case.1);
    assert_eq!(status, 0, "{:?}", case.0);
    // The callback form: the same paths.
    let seen = std::sync::Mutex::new(Vec::new());
    let command = Command::parse(ours.iter().map(|a| OsStr::from_bytes(a))).unwrap();
    let status = command.for_each_match(|m| {
        seen.lock().unwrap().push(m.path().to_vec());
        Flow::Continue
    });
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    assert_eq!(seen, want, "{:?} by callback", case.0);
    assert!(status.success());
}

dents_testfs::test_cases! {
    /// Expressions, each against GNU find's `-print0` of the same entries.
    mod gnu_print0: super::Case => check;
    no_expression: (&[b"{}"], &[b"{}", b"-print0"]),
    name: (&[b"{}", b"-name", b"*.txt"], &[b"{}", b"-name", b"*.txt", b"-print0"]),
    name_with_newline: (&[b"{}", b"-name", b"*\n*"], &[b"{}", b"-name", b"*\n*", b"-print0"]),
    name_invalid_utf8: (&[b"{}", b"-name", b"*\xff*"], &[b"{}", b"-name", b"*\xff*", b"-print0"]),
    type_d_print: (&[b"{}", b"-type", b"d", b"-print"], &[b"{}", b"-type", b"d", b"-print0"]),
    size_more_than_2k: (&[b"{}", b"-size", b"+2k"], &[b"{}", b"-size", b"+2k", b"-print0"]),
    printf: (&[b"{}", b"-type", b"f", b"-printf", b"%s\n"], &[b"{}", b"-type", b"f", b"-print0"]),
    printf_empty_format: (&[b"{}", b"-name", b"f*", b"-printf", b""], &[b"{}", b"-name", b"f*", b"-print0"]),
    ls: (&[b"{}", b"-type", b"l", b"-ls"], &[b"{}", b"-type", b"l", b"-print0"]),
    print_twice: (&[b"{}", b"-name", b"f*", b"-print", b"-print0"], &[b"{}", b"-name", b"f*", b"-print0"]),
    prune_or_print: (
        &[b"{}", b"-name", b"sub*", b"-prune", b"-o", b"-type", b"f", b"-print"],
        &[b"{}", b"-name", b"sub*", b"-prune", b"-o", b"-type", b"f", b"-print0"],
    ),
    comma: (
        &[b"{}", b"-type", b"d", b"-print", b",", b"-name", b"*.txt", b"-print"],
        &[b"{}", b"-type", b"d", b"-print0", b",", b"-name", b"*.txt", b"-print0"],
    ),
    not_dir: (&[b"{}", b"!", b"-type", b"d"], &[b"{}", b"!", b"-type", b"d", b"-print0"]),
    depth_dirs: (&[b"{}", b"-depth", b"-type", b"d"], &[b"{}", b"-depth", b"-type", b"d", b"-print0"]),
    maxdepth_1: (&[b"{}", b"-maxdepth", b"1"], &[b"{}", b"-maxdepth", b"1", b"-print0"]),
    mindepth_3: (&[b"{}", b"-mindepth", b"3"], &[b"{}", b"-mindepth", b"3", b"-print0"]),
    follow_files: (&[b"-L", b"{}", b"-type", b"f"], &[b"-L", b"{}", b"-type", b"f", b"-print0"]),
    xtype_l: (&[b"{}", b"-xtype", b"l"], &[b"{}", b"-xtype", b"l", b"-print0"]),
    quit_after_one: (&[b"{}", b"-name", b"x", b"-print", b"-quit"], &[b"{}", b"-name", b"x", b"-print0", b"-quit"]),
    // Actions that do not write to standard output: no match, as GNU
    // prints nothing.
    exec_only: (&[b"{}", b"-name", b"f1", b"-exec", b"true", b";"], &[b"{}", b"-name", b"f1", b"-exec", b"true", b";"]),
    fprint_only: (&[b"{}", b"-fprint", b"/dev/null"], &[b"{}", b"-fprint", b"/dev/null"]),
    false_: (&[b"{}", b"-false"], &[b"{}", b"-false"]),
}

/// The fields of `got` (those it holds) equal `want`'s.
fn same_fields(got: &dents::Metadata, want: &fs::Metadata, path: &[u8]) {
    let p = String::from_utf8_lossy(path);
    let fields = got.fields();
    assert!(fields.contains(StatFields::BASIC), "{p}: {fields:?}");
    assert_eq!(got.ino(), want.ino(), "{p}");
    assert_eq!(got.mode(), want.mode(), "{p}");
    assert_eq!(got.nlink(), want.nlink(), "{p}");
    assert_eq!(got.uid(), want.uid(), "{p}");
    assert_eq!(got.gid(), want.gid(), "{p}");
    assert_eq!(got.len(), want.size(), "{p}");
    assert_eq!(got.blocks(), want.blocks(), "{p}");
    assert_eq!(got.dev(), want.dev(), "{p}");
    assert_eq!(got.rdev(), want.rdev(), "{p}");
    let t = |t: Option<dents::Timestamp>| t.map(|t| t.to_system_time());
    assert_eq!(t(got.mtime()), want.modified().ok(), "{p}");
    // Not the access time: the walk's reads of a directory move it.
    let ctime = |m: &fs::Metadata| (m.ctime(), m.ctime_nsec());
    let c = got.ctime().unwrap();
    assert_eq!((c.secs, i64::from(c.nsecs)), ctime(want), "{p}");
}

/// What `-size` stat'ed comes with each match, equal to `lstat`'s, and
/// the type is the entry's own; a match the expression did not stat for
/// carries none.
#[test]
fn metadata_is_the_lstat_the_expression_made() {
    let dir = tree();
    let root = dir.path().as_os_str().as_bytes();
    let (found, _) = matched(&with_root(&[b"{}", b"-size", b"-100M"], dir.path()));
    assert!(found.len() > 30, "{}", found.len());
    for f in &found {
        let want = fs::symlink_metadata(OsStr::from_bytes(f.path())).unwrap();
        let got = f.metadata().expect("-size stat'ed every entry");
        same_fields(got, &want, f.path());
        assert_eq!(f.file_type(), got.file_type());
        assert_eq!(f.ino(), want.ino());
        assert_eq!(
            f.depth(),
            f.path()[root.len()..]
                .iter()
                .filter(|&&b| b == b'/')
                .count()
        );
        assert!(f.path().ends_with(f.name()));
    }
    let (found, _) = matched(&with_root(&[b"{}", b"-name", b"*"], dir.path()));
    // The walk stats a starting point, no other entry for -name.
    for f in &found {
        let p = String::from_utf8_lossy(f.path());
        assert_eq!(f.metadata().is_some(), f.depth() == 0, "{p}");
    }
    // The directory entry's type, no stat needed.
    let link = found.iter().find(|f| f.name() == b"link").unwrap();
    assert_eq!(link.file_type(), dents::FileType::SYMLINK);
}

/// Under `-L` the metadata is the target's (`stat`), a broken link's own.
#[test]
fn metadata_under_follow_is_the_targets() {
    let dir = tree();
    let (found, _) = matched(&with_root(&[b"-L", b"{}", b"-size", b"-100M"], dir.path()));
    let mut checked = 0;
    for f in &found {
        let path = OsStr::from_bytes(f.path());
        let want = fs::metadata(path)
            .or_else(|_| fs::symlink_metadata(path))
            .unwrap();
        same_fields(f.metadata().expect("stat'ed"), &want, f.path());
        assert!(f.follows_links());
        if f.name() == b"link" {
            assert_eq!(f.file_type(), dents::FileType::REGULAR);
            checked += 1;
        }
        if f.name() == b"broken" {
            assert_eq!(f.file_type(), dents::FileType::SYMLINK);
            checked += 1;
        }
    }
    assert_eq!(checked, 2);
}

/// An error that names a path is an item, with GNU's line (`dents` for
/// `find`), and makes the status 1; not written to standard error.
#[test]
fn errors_are_items_with_gnus_line() {
    let dir = tree();
    let missing = dir.path().join("missing\nname");
    let args = [dir.path().join("f1"), missing.clone()];
    let mut matches = Command::parse(&args).unwrap().matches();
    let (mut found, mut errors) = (Vec::new(), Vec::new());
    for item in matches.by_ref() {
        match item {
            Ok(f) => found.push(f.into_path()),
            Err(e) => errors.push(e),
        }
    }
    assert_eq!(found, [args[0].as_os_str().as_bytes()]);
    assert_eq!(errors.len(), 1);
    let e = &errors[0];
    assert_eq!(e.path(), missing.as_os_str().as_bytes());
    assert_eq!(e.io_error().kind(), std::io::ErrorKind::NotFound);
    let gnu = process::Command::new("find")
        .args(&args)
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    assert_eq!(
        dents_testfs::cli::stderr_lines(e.message(), "dents:"),
        dents_testfs::cli::stderr_lines(&gnu.stderr, "find:")
    );
    assert_eq!(matches.status().unwrap().code(), 1);
}

/// A tree of `dirs` directories of `files` files each.
fn big_tree(dirs: usize, files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for d in 0..dirs {
        dents_testfs::fill_flat(&dir.path().join(format!("d{d:03}")), files, |i| {
            format!("f{i:05}")
        });
    }
    dir
}

/// Lines of a file.
fn lines(path: &Path) -> usize {
    fs::read(path)
        .unwrap()
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// Dropping the iterator after a few matches stops the walk: the entries
/// evaluated after (counted by an `-fprint` log) are a few batches, not
/// the tree, and the drop returns at once.
#[test]
fn dropping_the_iterator_stops_the_walk() {
    let (dirs, files) = (200, 500);
    let dir = big_tree(dirs, files);
    let log = tempfile::NamedTempFile::new().unwrap();
    let args = [
        dir.path().as_os_str(),
        "-fprint".as_ref(),
        log.path().as_os_str(),
        "-print".as_ref(),
    ];
    let mut matches = Command::parse(args).unwrap().matches();
    let first: Vec<_> = matches.by_ref().take(10).collect();
    assert_eq!(first.len(), 10);
    let t = Instant::now();
    drop(matches);
    let took = t.elapsed();
    let evaluated = lines(log.path());
    let total = dirs * files + dirs + 1;
    assert!(
        evaluated < total / 4,
        "{evaluated} of {total} entries evaluated after a drop"
    );
    assert!(took < Duration::from_secs(5), "the drop took {took:?}");
    // The whole walk, for scale: every entry logged.
    let log2 = tempfile::NamedTempFile::new().unwrap();
    let args = [
        dir.path().as_os_str(),
        "-fprint".as_ref(),
        log2.path().as_os_str(),
    ];
    assert!(Command::parse(args).unwrap().matches().count() == 0);
    assert_eq!(lines(log2.path()), total);
}

/// `Flow::Quit` from the callback stops the walk as `-quit` does.
#[test]
fn quit_from_the_callback_stops_the_walk() {
    let dir = big_tree(100, 500);
    let seen = AtomicUsize::new(0);
    let status = Command::parse(["-j2".as_ref(), dir.path().as_os_str()])
        .unwrap()
        .for_each_match(|_| {
            if seen.fetch_add(1, Ordering::Relaxed) >= 9 {
                Flow::Quit
            } else {
                Flow::Continue
            }
        });
    assert!(status.success());
    // Each worker may be in the middle of one visit when another quits.
    assert!(seen.into_inner() <= 12);
}

/// `Flow::Prune` from the callback leaves a directory unentered.
#[test]
fn prune_from_the_callback_leaves_the_directory_out() {
    let dir = tree();
    let seen = std::sync::Mutex::new(Vec::new());
    Command::parse([dir.path()]).unwrap().for_each_match(|m| {
        seen.lock().unwrap().push(m.path().to_vec());
        if m.name() == b"sub2" {
            Flow::Prune
        } else {
            Flow::Continue
        }
    });
    let seen = seen.into_inner().unwrap();
    let sub2 = dir.path().join("sub2");
    let sub2 = sub2.as_os_str().as_bytes();
    assert!(seen.iter().any(|p| p == sub2));
    assert!(!seen
        .iter()
        .any(|p| p.starts_with(sub2) && p.len() > sub2.len()));
    assert!(seen.iter().any(|p| p.ends_with(b"sub1/deep/x")));
}

/// A panic in the callback at `threads` workers reaches the caller, with
/// its message, within [`LIMIT`].
fn panic_reaches_the_caller(threads: usize) {
    let dir = big_tree(24, 50);
    let root = dir.path().to_path_buf();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let j = format!("-j{threads}");
        let command = Command::parse([j.as_ref(), root.as_os_str()]).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            command.for_each_match(|m| {
                if m.name() == b"f00025" {
                    panic!("callback panic at {}", String::from_utf8_lossy(m.name()));
                }
                Flow::Continue
            })
        }));
        let _ = tx.send(r.map_err(|p| {
            p.downcast_ref::<String>()
                .cloned()
                .unwrap_or_else(|| "a payload that is not a String".into())
        }));
    });
    match rx.recv_timeout(LIMIT) {
        Ok(Err(text)) => assert_eq!(text, "callback panic at f00025"),
        Ok(Ok(status)) => panic!("the walk ended with {status:?}, no panic"),
        Err(_) => panic!("no end within {LIMIT:?} at {threads} threads (deadlock)"),
    }
}

dents_testfs::test_cases! {
    /// A panic in `for_each_match`'s callback, at 1, 2 and 8 threads.
    mod callback_panics: usize => panic_reaches_the_caller;
    one_thread: 1,
    two_threads: 2,
    eight_threads: 8,
}

/// A panic on the walk's threads (the library's test knob: reading an
/// entry named `dents-test-panic`) at `threads` workers is raised again
/// by the iterator's `next`, within [`LIMIT`], not a hang nor a short
/// result.
fn walk_panic_reaches_the_iterator(threads: usize) {
    let dir = big_tree(24, 50);
    fs::write(dir.path().join("d017/dents-test-panic"), b"").unwrap();
    let root = dir.path().to_path_buf();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let j = format!("-j{threads}");
        let mut matches = Command::parse([j.as_ref(), root.as_os_str()])
            .unwrap()
            .matches();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| matches.by_ref().count()));
        let _ = tx.send(r.map_err(|p| {
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        }));
    });
    match rx.recv_timeout(LIMIT) {
        Ok(Err(text)) => assert!(text.contains("dents-test-panic"), "{text}"),
        Ok(Ok(n)) => panic!("the walk ended with {n} matches, no panic"),
        Err(_) => panic!("no end within {LIMIT:?} at {threads} threads (deadlock)"),
    }
}

dents_testfs::test_cases! {
    /// A panic of the walk under `Command::matches`, at 1, 2 and 8 threads.
    mod iterator_panics: usize => walk_panic_reaches_the_iterator;
    one_thread: 1,
    two_threads: 2,
    eight_threads: 8,
}

/// Two commands' iterators stepped in turn on one thread: each gets its
/// own matches and its own status (one has a missing starting point).
#[test]
fn two_iterators_interleaved_keep_their_own_status() {
    let dir = tree();
    let sub1 = dir.path().join("sub1");
    let missing = dir.path().join("missing");
    let mut good = Command::parse([&sub1]).unwrap().matches();
    let mut bad = Command::parse([&missing, &sub1]).unwrap().matches();
    let (mut good_paths, mut bad_paths, mut bad_errors) = (Vec::new(), Vec::new(), 0);
    let (mut good_done, mut bad_done) = (false, false);
    while !(good_done && bad_done) {
        if !good_done {
            match good.next() {
                Some(item) => good_paths.push(item.unwrap().into_path()),
                None => good_done = true,
            }
        }
        if !bad_done {
            match bad.next() {
                Some(Ok(f)) => bad_paths.push(f.into_path()),
                Some(Err(_)) => bad_errors += 1,
                None => bad_done = true,
            }
        }
    }
    good_paths.sort();
    bad_paths.sort();
    assert_eq!(good_paths, bad_paths);
    assert_eq!(good_paths.len(), 4);
    assert_eq!(bad_errors, 1);
    assert_eq!(good.status().unwrap().code(), 0);
    assert_eq!(bad.status().unwrap().code(), 1);
}
