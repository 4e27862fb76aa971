//! `Visitor::stat_ahead`: a sorted walk stats the entries its visitor
//! wants on its workers, ahead of the serial visits (a directory's first
//! entries while it is prepared, the rest of a big one in chunks on
//! helper threads), and each visit finds its metadata already there.
//! Compared with a plain reference on real filesystems: `std::fs`'s
//! sorted listings in level order and `std::fs`'s stats, through a
//! directory larger than the part stat'ed while prepared plus several
//! chunks.

use std::collections::VecDeque;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use dents::walk::{walk, Visit, Visitor, WalkOptions};
use dents::Error;
use dents::FileType;
use dents::{Flow, Follow};
use dents_testfs::{fill_flat, FsKind, LoopFs};

/// Entries of the big directory: more than the 1024 stat'ed while it is
/// prepared and the 4096 from which the rest is streamed, in chunks of
/// 2048 (the last one partial).
const BIG: usize = 9_000;

/// What a visit saw: its path, whether its metadata was there before it
/// asked, and the metadata (inode, size, mode, links) or the errno.
type Seen = (Vec<u8>, bool, Stat);

/// An entry's inode, size, mode and link count, or the errno of its stat.
type Stat = Result<(u64, u64, u32, u64), i32>;

/// Records every visit; wants every entry stat'ed ahead, or only
/// directories and entries of unknown type; panics at `panic_at` if set.
struct Record {
    seen: Mutex<Vec<Seen>>,
    /// Each visit's known type, by path.
    known: Mutex<std::collections::HashMap<Vec<u8>, Option<FileType>>>,
    only_dirs: bool,
    panic_at: Option<Vec<u8>>,
}

impl Visitor for Record {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        if self.panic_at.as_deref() == Some(v.name()) {
            panic!("visitor panic at {:?}", String::from_utf8_lossy(v.path()));
        }
        let ahead = v.cached_metadata().is_some();
        self.known
            .lock()
            .unwrap()
            .insert(v.path().to_vec(), v.known_type());
        let m = v
            .metadata()
            .map(|m| (m.ino(), m.len(), m.mode(), m.nlink()))
            .map_err(|e| e.raw_os_error().unwrap_or(0));
        self.seen
            .lock()
            .unwrap()
            .push((v.path().to_vec(), ahead, m));
        Flow::Continue
    }
    fn stat_ahead(&self, known: Option<FileType>) -> bool {
        !self.only_dirs || known.map_or(true, |t| t.is_dir())
    }
    fn error(&self, _: &mut (), e: Error) {
        panic!("{e:?}")
    }
}

/// The tree: `big/` (files of several sizes, subdirectories with a file
/// each, links to a directory, to a file and to nothing), `small/`, and
/// a file at the top.
fn make_tree(root: &Path) {
    fill_flat(&root.join("big"), BIG, |i| {
        format!("e{:05}-{}", (i * 7919) % BIG, i % 3)
    });
    let big = root.join("big");
    for (i, name) in sorted_names(&big).iter().enumerate() {
        let p = big.join(std::ffi::OsStr::from_bytes(name));
        match i % 101 {
            0 => {
                fs::remove_file(&p).unwrap();
                fs::create_dir(&p).unwrap();
                fs::write(p.join("inner"), vec![b'x'; i % 5000]).unwrap();
            }
            1 => {
                fs::remove_file(&p).unwrap();
                std::os::unix::fs::symlink("../small", &p).unwrap();
            }
            2 => {
                fs::remove_file(&p).unwrap();
                std::os::unix::fs::symlink("nowhere", &p).unwrap();
            }
            3 => {
                fs::remove_file(&p).unwrap();
                std::os::unix::fs::symlink("../top", &p).unwrap();
            }
            k if k % 7 == 0 => fs::write(&p, vec![b'y'; i]).unwrap(),
            _ => {}
        }
    }
    fs::create_dir(root.join("small")).unwrap();
    fs::write(root.join("small/s"), b"small").unwrap();
    fs::write(root.join("top"), b"top").unwrap();
}

fn sorted_names(dir: &Path) -> Vec<Vec<u8>> {
    let mut names: Vec<Vec<u8>> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().as_bytes().to_vec())
        .collect();
    names.sort();
    names
}

/// The reference: the root, then each directory's sorted entries in
/// level order, as `std::fs` lists and stats them (following links
/// under `follow`, a broken one taken for itself).
fn reference(root: &Path, follow: bool) -> Vec<(Vec<u8>, Stat)> {
    let stat = |p: &Path| {
        let m = if follow {
            fs::metadata(p).or_else(|_| fs::symlink_metadata(p))
        } else {
            fs::symlink_metadata(p)
        };
        m.map(|m| (m.ino(), m.size(), m.mode(), m.nlink()))
            .map_err(|e| e.raw_os_error().unwrap_or(0))
    };
    let mut out = vec![(root.as_os_str().as_bytes().to_vec(), stat(root))];
    let mut queue = VecDeque::from([root.to_path_buf()]);
    while let Some(dir) = queue.pop_front() {
        for name in sorted_names(&dir) {
            let p: PathBuf = dir.join(std::ffi::OsStr::from_bytes(&name));
            let st = stat(&p);
            let is_dir = st.as_ref().is_ok_and(|m| m.2 & 0o170000 == 0o040000);
            out.push((p.as_os_str().as_bytes().to_vec(), st));
            if is_dir {
                queue.push_back(p);
            }
        }
    }
    out
}

/// One case: the filesystem, workers, links followed, what is wanted
/// stat'ed ahead.
#[derive(Clone, Copy, Debug)]
struct Case {
    fs: FsKind,
    threads: usize,
    follow: bool,
    only_dirs: bool,
}

fn check(c: Case) {
    let Some(fs) = LoopFs::new_or_skip(c.fs, 256) else {
        return;
    };
    let root = fs.path().join("t");
    fs::create_dir(&root).unwrap();
    make_tree(&root);
    let opts = WalkOptions::new()
        .threads(c.threads)
        .sort_by_name(true)
        .follow_links(if c.follow {
            Follow::Always
        } else {
            Follow::Never
        });
    let v = Record {
        seen: Mutex::new(Vec::new()),
        known: Mutex::default(),
        only_dirs: c.only_dirs,
        panic_at: None,
    };
    walk(&[root.as_os_str().as_bytes().to_vec()], &opts, &v);
    let seen = std::mem::take(&mut *v.seen.lock().unwrap());
    let want = reference(&root, c.follow);
    let got: Vec<_> = seen.iter().map(|(p, _, m)| (p.clone(), *m)).collect();
    assert_eq!(got.len(), want.len(), "entries visited");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w, "a visit against std::fs");
    }
    // Every entry below the root the visitor wanted stat'ed ahead was,
    // and no other (the root's stat is its visit's in any case); on one
    // worker, only a directory's first entries are (no helper threads).
    for (path, ahead, _) in &seen[1..] {
        let known = v.known.lock().unwrap().remove(path).expect("known type");
        let wanted = v.stat_ahead(known);
        let name = String::from_utf8_lossy(path);
        if c.threads > 1 {
            assert_eq!(*ahead, wanted, "{name:?} ({known:?}): stat'ed ahead");
        } else {
            assert!(!*ahead || wanted, "{name:?} ({known:?}): stat'ed ahead");
        }
    }
    if c.threads == 1 {
        let ahead = seen.iter().filter(|s| s.1).count();
        assert!(ahead >= 1024, "{ahead} entries stat'ed ahead on one worker");
    }
}

dents_testfs::test_cases! {
    /// Filesystems (with and without `d_type`), worker counts, `-L`, and
    /// a visitor that wants only some entries stat'ed ahead.
    mod stat_ahead: super::Case => check;
    ext4_1_thread: super::Case { fs: dents_testfs::FsKind::Ext4, threads: 1, follow: false, only_dirs: false },
    ext4_2_threads: super::Case { fs: dents_testfs::FsKind::Ext4, threads: 2, follow: false, only_dirs: false },
    ext4_8_threads: super::Case { fs: dents_testfs::FsKind::Ext4, threads: 8, follow: false, only_dirs: false },
    ext4_follow: super::Case { fs: dents_testfs::FsKind::Ext4, threads: 8, follow: true, only_dirs: false },
    ext4_only_dirs: super::Case { fs: dents_testfs::FsKind::Ext4, threads: 8, follow: false, only_dirs: true },
    no_dtype: super::Case { fs: dents_testfs::FsKind::Ext4NoFiletype, threads: 8, follow: false, only_dirs: false },
    no_dtype_only_dirs: super::Case { fs: dents_testfs::FsKind::Ext4NoFiletype, threads: 8, follow: false, only_dirs: true },
    xfs: super::Case { fs: dents_testfs::FsKind::Xfs, threads: 8, follow: false, only_dirs: false },
}

/// A panic of the visitor in the middle of a big directory's streamed
/// stats ends the walk (the helper threads let go) and reaches the
/// caller, within a time limit.
#[test]
fn visitor_panic_while_streaming_reaches_the_caller() {
    let Some(fs) = LoopFs::new_or_skip(FsKind::Ext4, 256) else {
        return;
    };
    let root = fs.path().join("t");
    fs::create_dir(&root).unwrap();
    make_tree(&root);
    // An entry well into the streamed part (past the first 1024).
    let names = sorted_names(&root.join("big"));
    let at = names[BIG - 100].clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let roots = vec![root.as_os_str().as_bytes().to_vec()];
    std::thread::spawn(move || {
        let opts = WalkOptions::new().threads(8).sort_by_name(true);
        let v = Record {
            seen: Mutex::new(Vec::new()),
            known: Mutex::default(),
            only_dirs: false,
            panic_at: Some(at),
        };
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            walk(&roots, &opts, &v);
        }));
        let _ = tx.send(r.is_err());
    });
    let panicked = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the walk did not end within 60 s");
    assert!(panicked, "the visitor's panic did not reach the caller");
}
