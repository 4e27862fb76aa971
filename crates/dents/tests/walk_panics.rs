//! A panic of the caller's code during a walk ends the walk and reaches
//! the caller, at any number of threads, in every form of the walk.
//!
//! The caller's code (a `for_each` closure, a [`Visitor`]'s methods, the
//! body of a `for` loop over the iterator) panics at one entry; the walk
//! must end (within [`LIMIT`]: a deadlock fails the test instead of
//! hanging the suite), its panic must come back to the caller's thread
//! with its own payload (not "a scoped thread panicked"), and every
//! descriptor the walk opened must be closed by then.  One walk at a time
//! in this file: descriptors are counted for the whole process.

use std::any::Any;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Duration;

use dents::walk::{walk, Visit, Visitor, WalkOptions};
use dents::Error;
use dents::Walker;
use dents::{Flow, Follow};
use dents_testfs::{FsKind, LoopFs};

/// How long a walk of these small trees may take before it is taken for
/// deadlocked.
const LIMIT: Duration = Duration::from_secs(20);

/// The name of the entry whose visit panics.
const TARGET: &[u8] = b"panic_here";

/// The payload the caller's code panics with: the test checks that this
/// very value comes back.
#[derive(Debug, PartialEq)]
struct Boom(u32);

/// Serialises the tests of this file (descriptors are counted per process).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Where the caller's code panics.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// A [`Walker::for_each`] closure, at the entry named [`TARGET`].
    ForEach,
    /// A [`Visitor::visit`] with per-worker state, at [`TARGET`].
    Visit,
    /// A [`Visitor::error`], at the loop a link back to the root makes
    /// under [`Follow::Always`].
    Error,
    /// The closure of a sorted walk ([`Walker::sort_by_name`]).
    Sorted,
    /// A [`Visitor::visit`] of a sorted walk whose queue is spilled to its
    /// temporary file past 3 directories (a hidden test knob), at
    /// [`TARGET`], two levels below the first spilled one: groups and
    /// their parents' kept descriptors are in the file's records then.
    SortedSpilled,
    /// A [`Visitor::visit`] of an unsorted depth-first walk whose deep
    /// list is spilled to its temporary file past 3 directories (the
    /// same knob), at [`TARGET`]: read back from the file, its parent
    /// held in the spilled segment.
    DeepSpilled,
    /// The closure, at the post-order visit of the directory [`TARGET`]
    /// ([`Walker::contents_first`]).
    ContentsFirst,
    /// The body of a `for` loop over the iterator.
    Iterator,
    /// A huge directory read in slices on threads of their own (ext4, as
    /// root): the visit of one of its later entries.
    Slices,
    /// A huge directory whose entries of unknown type are classified,
    /// then visited in parts on threads of their own (ext4, as root).
    Parts,
    /// A directory of more subdirectories (each holding a file) than the
    /// queue keeps: they are handed to the queue as it is read, and the
    /// reading worker stops to read some itself; a visit well into them.
    Wide,
    /// [`Form::Wide`] with `d_type` ignored: the subdirectories are
    /// classified once the read is over, then handed to the queue as
    /// they are visited, the visiting worker helping.
    WideUntyped,
}

/// A [`Form`] at a number of threads.
#[derive(Clone, Copy, Debug)]
struct Case {
    form: Form,
    threads: usize,
}

/// The descriptors open in this process.
fn open_fds() -> usize {
    fs::read_dir("/proc/self/fd").unwrap().count()
}

/// Runs `f` on a thread of its own; its panic (or its value), or a
/// failure if it has not ended within [`LIMIT`].
fn within_limit<R: Send + 'static>(
    what: &str,
    f: impl FnOnce() -> R + Send + 'static,
) -> Result<R, Box<dyn Any + Send>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(panic::catch_unwind(AssertUnwindSafe(f)));
    });
    match rx.recv_timeout(LIMIT) {
        Ok(r) => r,
        Err(_) => panic!("{what}: the walk did not end within {LIMIT:?} (deadlock)"),
    }
}

/// A tree of 20 × 10 directories of a few files each, with one entry
/// named [`TARGET`] (a directory holding a file) deep in it, and a link
/// back to the root (a loop under [`Follow::Always`]).
fn tree(root: &Path) {
    for d in 0..20 {
        for e in 0..10 {
            let dir = root.join(format!("d{d:02}/e{e:02}"));
            fs::create_dir_all(&dir).unwrap();
            for f in 0..5 {
                fs::write(dir.join(format!("f{f}")), b"").unwrap();
            }
        }
    }
    let target = root
        .join("d13/e07")
        .join(std::ffi::OsStr::from_bytes(TARGET));
    fs::create_dir(&target).unwrap();
    fs::write(target.join("inside"), b"").unwrap();
    // Back to the root (from d17/e02): a loop under Follow::Always.  It
    // was "../../..", the root's parent, which walked all of the
    // temporary directory (other tests' files, an entry named
    // dents-test-panic among them) before meeting the loop.
    symlink("../..", root.join("d17/e02/up")).unwrap();
}

/// A huge directory (more entries than a walk reads before slicing, and
/// than it visits on one thread), with a few subdirectories.
fn huge_tree(root: &Path) {
    let big = root.join("big");
    dents_testfs::fill_flat(&big, 20_000, |i| format!("IMG_{i:07}.JPG"));
    for d in 0..10 {
        fs::create_dir(big.join(format!("dir{d:02}"))).unwrap();
    }
}

/// Subdirectories of [`wide_tree`]'s directory: past the 16,384 an
/// unsorted walk keeps queued before its reading worker helps.
const WIDE: usize = 40_000;

/// One directory of [`WIDE`] subdirectories, a file in each.
fn wide_tree(root: &Path) {
    let w = root.join("w");
    dents_testfs::fill_subdirs(&w, WIDE, |i| format!("d{i:05}"));
    for i in 0..WIDE {
        fs::write(w.join(format!("d{i:05}/f")), b"").unwrap();
    }
}

/// A visitor that panics at [`TARGET`] (or, `after`, at the visit that
/// brings the count of visits to it), with a per-worker buffer that
/// unwinding must drop.
struct Panicky {
    after: Option<usize>,
    count: std::sync::atomic::AtomicUsize,
    on_error: bool,
}

impl Visitor for Panicky {
    type State = Vec<u8>;
    fn state(&self) -> Vec<u8> {
        Vec::with_capacity(4096)
    }
    fn visit(&self, buf: &mut Vec<u8>, v: &Visit<'_>) -> Flow {
        buf.extend_from_slice(v.path());
        let n = self
            .count
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        let hit = match self.after {
            Some(after) => n == after,
            None => !self.on_error && v.name() == TARGET,
        };
        if hit {
            panic::panic_any(Boom(1));
        }
        Flow::Continue
    }
    fn error(&self, _: &mut Vec<u8>, _: Error) {
        if self.on_error {
            panic::panic_any(Boom(2));
        }
    }
}

/// The panic a closure raises at [`TARGET`]'s visit (its post-order visit
/// with `post`), for the [`Walker::for_each`] forms.
fn closure_at_target(post: bool) -> impl Fn(Result<dents::Entry<'_>, dents::Error>) -> Flow + Sync {
    move |e| {
        if let Ok(e) = e {
            if e.file_name_bytes() == TARGET && e.is_contents_first_visit() == post {
                panic::panic_any(Boom(3));
            }
        }
        Flow::Continue
    }
}

/// Runs the case's walk and checks that it ends within the limit, with
/// the caller's own panic, every descriptor closed.
fn check(case: Case) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let what = format!("{case:?}");
    let _fs;
    let _shm;
    let tmp;
    let root: PathBuf = match case.form {
        Form::Slices | Form::Parts => {
            let Some(fs) = LoopFs::new_or_skip(FsKind::Ext4, 256) else {
                return;
            };
            let root = fs.path().join("t");
            huge_tree(&root);
            _fs = fs;
            root
        }
        Form::Wide | Form::WideUntyped => {
            let shm = dents_testfs::DeepTmp::new();
            wide_tree(shm.path());
            let root = shm.path().to_path_buf();
            _shm = shm;
            root
        }
        _ => {
            tmp = tempfile::tempdir().unwrap();
            tree(tmp.path());
            tmp.path().to_path_buf()
        }
    };
    let before = open_fds();
    let threads = case.threads;
    let form = case.form;
    let r = within_limit(&what, move || {
        let walker = Walker::new(&root).threads(threads);
        match form {
            Form::ForEach => {
                walker.for_each(closure_at_target(false));
            }
            Form::Sorted => {
                walker.sort_by_name(true).for_each(closure_at_target(false));
            }
            Form::ContentsFirst => {
                walker
                    .contents_first(true)
                    .for_each(closure_at_target(true));
            }
            Form::Visit | Form::Error => {
                let v = Panicky {
                    after: None,
                    count: Default::default(),
                    on_error: matches!(form, Form::Error),
                };
                walker.follow_links(Follow::Always).visit(&v);
            }
            Form::SortedSpilled | Form::DeepSpilled => {
                let o = WalkOptions::new().threads(threads);
                let o = if matches!(form, Form::SortedSpilled) {
                    o.sort_by_name(true)
                } else {
                    o.order(dents::walk::Order::DepthFirst)
                };
                let o = o.test_queue_spill(Some(3));
                let v = Panicky {
                    after: None,
                    count: Default::default(),
                    on_error: false,
                };
                let root = root.as_os_str().as_bytes().to_vec();
                walk(&[root], &o, &v);
            }
            Form::Iterator => {
                for e in walker {
                    if e.unwrap().file_name_bytes() == TARGET {
                        panic::panic_any(Boom(4));
                    }
                }
            }
            Form::Wide | Form::WideUntyped => {
                // Visits of the subdirectories' files come only once their
                // directories are read: the 60,000th visit is past the
                // point where the queue was long enough to help.
                let v = Panicky {
                    after: Some(60_000),
                    count: Default::default(),
                    on_error: false,
                };
                let root = root.as_os_str().as_bytes().to_vec();
                let o = WalkOptions::new()
                    .threads(threads)
                    .test_ignore_dtype(matches!(form, Form::WideUntyped));
                walk(&[root], &o, &v);
            }
            Form::Slices | Form::Parts => {
                let mut o = WalkOptions::new().threads(threads);
                let read = o.get_read_options().clone().threads(4).min_sliced_size(0);
                o = o.read_options(read);
                o = o.test_ignore_dtype(matches!(form, Form::Parts));
                // Well past the entries read before the directory is
                // found huge: a visit from a slice's (or a part's) thread.
                let v = Panicky {
                    after: Some(15_000),
                    count: Default::default(),
                    on_error: false,
                };
                let root = root.as_os_str().as_bytes().to_vec();
                walk(&[root], &o, &v);
            }
        }
    });
    let payload = match r {
        Ok(()) => panic!("{what}: the walk ended without the caller's panic"),
        Err(p) => p,
    };
    let want = match case.form {
        Form::ForEach | Form::Sorted | Form::ContentsFirst => Boom(3),
        Form::Visit
        | Form::SortedSpilled
        | Form::DeepSpilled
        | Form::Slices
        | Form::Parts
        | Form::Wide
        | Form::WideUntyped => Boom(1),
        Form::Error => Boom(2),
        Form::Iterator => Boom(4),
    };
    match payload.downcast_ref::<Boom>() {
        Some(b) => assert_eq!(*b, want, "{what}"),
        None => panic!(
            "{what}: the caller got another panic than its own: {:?}",
            payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or(payload.downcast_ref::<&str>().copied())
        ),
    }
    assert_eq!(open_fds(), before, "{what}: descriptors left open");
}

dents_testfs::test_cases! {
    /// Each form at 1, 2 and 8 threads.
    mod panics: super::Case => check;
    for_each_1: super::Case { form: super::Form::ForEach, threads: 1 },
    for_each_2: super::Case { form: super::Form::ForEach, threads: 2 },
    for_each_8: super::Case { form: super::Form::ForEach, threads: 8 },
    visit_1: super::Case { form: super::Form::Visit, threads: 1 },
    visit_2: super::Case { form: super::Form::Visit, threads: 2 },
    visit_8: super::Case { form: super::Form::Visit, threads: 8 },
    error_1: super::Case { form: super::Form::Error, threads: 1 },
    error_2: super::Case { form: super::Form::Error, threads: 2 },
    error_8: super::Case { form: super::Form::Error, threads: 8 },
    sorted_1: super::Case { form: super::Form::Sorted, threads: 1 },
    sorted_2: super::Case { form: super::Form::Sorted, threads: 2 },
    sorted_8: super::Case { form: super::Form::Sorted, threads: 8 },
    sorted_spilled_1: super::Case { form: super::Form::SortedSpilled, threads: 1 },
    sorted_spilled_2: super::Case { form: super::Form::SortedSpilled, threads: 2 },
    sorted_spilled_8: super::Case { form: super::Form::SortedSpilled, threads: 8 },
    deep_spilled_1: super::Case { form: super::Form::DeepSpilled, threads: 1 },
    deep_spilled_2: super::Case { form: super::Form::DeepSpilled, threads: 2 },
    deep_spilled_8: super::Case { form: super::Form::DeepSpilled, threads: 8 },
    contents_first_1: super::Case { form: super::Form::ContentsFirst, threads: 1 },
    contents_first_2: super::Case { form: super::Form::ContentsFirst, threads: 2 },
    contents_first_8: super::Case { form: super::Form::ContentsFirst, threads: 8 },
    iterator_1: super::Case { form: super::Form::Iterator, threads: 1 },
    iterator_2: super::Case { form: super::Form::Iterator, threads: 2 },
    iterator_8: super::Case { form: super::Form::Iterator, threads: 8 },
    slices_1: super::Case { form: super::Form::Slices, threads: 1 },
    slices_2: super::Case { form: super::Form::Slices, threads: 2 },
    slices_8: super::Case { form: super::Form::Slices, threads: 8 },
    parts_1: super::Case { form: super::Form::Parts, threads: 1 },
    parts_2: super::Case { form: super::Form::Parts, threads: 2 },
    parts_8: super::Case { form: super::Form::Parts, threads: 8 },
    wide_1: super::Case { form: super::Form::Wide, threads: 1 },
    wide_2: super::Case { form: super::Form::Wide, threads: 2 },
    wide_8: super::Case { form: super::Form::Wide, threads: 8 },
    wide_untyped_1: super::Case { form: super::Form::WideUntyped, threads: 1 },
    wide_untyped_2: super::Case { form: super::Form::WideUntyped, threads: 2 },
    wide_untyped_8: super::Case { form: super::Form::WideUntyped, threads: 8 },
}

/// A walk that panics does not spoil the next one in the same process.
#[test]
fn a_walk_after_a_panicking_one_is_whole() {
    check(Case {
        form: Form::ForEach,
        threads: 8,
    });
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    tree(tmp.path());
    let n = within_limit("after", {
        let root = tmp.path().to_path_buf();
        move || Walker::new(root).threads(8).into_iter().count()
    })
    .unwrap_or_else(|_| panic!("the second walk panicked"));
    // 1 root, 20 + 200 directories, 1000 files, the target and its file,
    // the link.
    assert_eq!(n, 1 + 20 + 200 + 1000 + 2 + 1);
}
