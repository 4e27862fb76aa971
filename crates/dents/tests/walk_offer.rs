//! `WalkOptions::offer_big_dirs` and `Visitor::take_rest`: a big directory
//! is offered once its first entries are read, on one thread as on
//! several; taken, the walk reads no more of it, and the slices of the
//! rest (`walk_slice` from the offered position) visit exactly the
//! entries the walk left, so that the two together give the visits of
//! the whole walk, each once.  A pruned directory, one beyond the depth
//! limit, one on a file system where slicing is not exact, or any without
//! the option is never offered.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::sync::Mutex;

use dents::slice::OffsetSpace;
use dents::unstable::{slice_starts_from, walk_slice, BigDir};
use dents::walk::{walk, Visit, Visitor, WalkOptions};
use dents::Error;
use dents::Flow;
use dents_testfs::{fill_flat, FsKind, LoopFs};

/// A visit: path, root, depth, post-order.
type Seen = (Vec<u8>, Vec<u8>, usize, bool);

/// An offer taken: the directory's path, its root's length, its depth,
/// its offset space and the position its rest begins at.
type Taken = (Vec<u8>, usize, usize, OffsetSpace, u64);

/// Records every visit (none twice); takes every offer (`take`) or
/// declines it, recording it either way; prunes directories named
/// `prune`.
struct Record {
    take: bool,
    prune: Option<&'static [u8]>,
    seen: Mutex<BTreeSet<Seen>>,
    offers: Mutex<Vec<Taken>>,
}

impl Record {
    fn new(take: bool, prune: Option<&'static [u8]>) -> Record {
        Record {
            take,
            prune,
            seen: Mutex::new(BTreeSet::new()),
            offers: Mutex::new(Vec::new()),
        }
    }
}

impl Visitor for Record {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        let seen = (
            v.path().to_vec(),
            v.root().to_vec(),
            v.depth(),
            v.is_post_order(),
        );
        assert!(
            self.seen.lock().unwrap().insert(seen),
            "{:?} twice",
            String::from_utf8_lossy(v.path())
        );
        if self.prune == Some(v.name()) {
            return Flow::Prune;
        }
        Flow::Continue
    }
    fn take_rest(&self, _: &mut (), dir: &BigDir<'_>) -> bool {
        assert_eq!(dir.root(), &dir.path()[..dir.start().root_len]);
        self.offers.lock().unwrap().push((
            dir.path().to_vec(),
            dir.start().root_len,
            dir.depth(),
            dir.space(),
            dir.from(),
        ));
        self.take
    }
    fn error(&self, _: &mut (), e: Error) {
        panic!("{e:?}");
    }
}

/// Under `base`: `t/big`, 6,000 entries (about 200 KiB), every 500th a
/// directory with a small tree; `t/small`, a few entries.
fn make_tree(base: &Path) {
    let big = base.join("t/big");
    fill_flat(&big, 6000, |i| format!("an-entry-of-the-big-one-{i:05}"));
    for i in (0..6000).step_by(500) {
        let name = big.join(format!("an-entry-of-the-big-one-{i:05}"));
        fs::remove_file(&name).unwrap();
        fs::create_dir_all(name.join("below")).unwrap();
        fs::write(name.join("below/f"), b"").unwrap();
    }
    for i in 0..5 {
        fs::create_dir_all(base.join(format!("t/small/d{i}"))).unwrap();
    }
}

fn options(threads: usize, post_order: bool, offer: Option<u64>) -> WalkOptions {
    WalkOptions::new()
        .threads(threads)
        .contents_first(post_order)
        .offer_big_dirs(offer)
}

/// The walk with `t/big` taken, then the slices of its rest, against the
/// whole walk: the same visits, each once; the walk read part of it, the
/// slices the rest.
fn taken_and_sliced(base: &Path, what: &str) {
    let root = format!("{}/t", base.display()).into_bytes();
    let big = [root.as_slice(), b"/big"].concat();
    let cases = [
        (1, false, false),
        (1, true, false),
        (4, false, false),
        (4, true, false),
        (4, false, true),
    ];
    for (threads, post_order, sort) in cases {
        let case = format!("{what}, {threads} threads, post-order {post_order}, sort {sort}");
        let options =
            |threads, post_order, offer| options(threads, post_order, offer).sort_by_name(sort);
        let whole = Record::new(false, None);
        walk(
            std::slice::from_ref(&root),
            &options(threads, post_order, None),
            &whole,
        );
        assert!(whole.offers.lock().unwrap().is_empty(), "{case}");
        let whole = whole.seen.into_inner().unwrap();
        let parts = Record::new(true, None);
        let opts = options(threads, post_order, Some(64 * 1024));
        walk(std::slice::from_ref(&root), &opts, &parts);
        let offers = parts.offers.lock().unwrap().clone();
        assert_eq!(offers.len(), 1, "{case}: {offers:?}");
        let (path, root_len, depth, space, from) = offers[0].clone();
        assert_eq!((&path, root_len, depth), (&big, root.len(), 1), "{case}");
        let below = |s: &&Seen| s.0.starts_with(&big) && s.0.len() > big.len();
        let walked = parts.seen.lock().unwrap().iter().filter(below).count();
        assert!(walked > 0, "{case}: nothing of the big one read before");
        let starts = slice_starts_from(space, from, 3);
        let start = dents::unstable::Start {
            path: &path,
            root_len,
            depth,
        };
        for (i, &lo) in starts.iter().enumerate() {
            let fd = fs::File::open(base.join("t/big")).unwrap().into();
            walk_slice(&start, fd, (lo, starts.get(i + 1).copied()), &opts, &parts);
        }
        let got = parts.seen.into_inner().unwrap();
        let sliced = got.iter().filter(below).count() - walked;
        assert!(sliced > 0, "{case}: the slices read nothing");
        assert!(got == whole, "{case}: the visits differ");
    }
}

/// Never offered: pruned, beyond `-maxdepth`, or without the option;
/// declined, the walk reads on and visits everything.
fn never_offered_or_declined(base: &Path, what: &str) {
    let root = format!("{}/t", base.display()).into_bytes();
    let whole = Record::new(false, None);
    walk(
        std::slice::from_ref(&root),
        &options(4, false, None),
        &whole,
    );
    let whole = whole.seen.into_inner().unwrap();
    let declined = Record::new(false, None);
    walk(
        std::slice::from_ref(&root),
        &options(1, false, Some(64 * 1024)),
        &declined,
    );
    assert_eq!(declined.offers.lock().unwrap().len(), 1, "{what}");
    assert!(declined.seen.into_inner().unwrap() == whole, "{what}");
    let pruned = Record::new(true, Some(b"big"));
    walk(
        std::slice::from_ref(&root),
        &options(4, false, Some(64 * 1024)),
        &pruned,
    );
    assert!(pruned.offers.lock().unwrap().is_empty(), "{what}: pruned");
    let shallow = Record::new(true, None);
    let opts = options(4, false, Some(64 * 1024)).max_depth(1);
    walk(std::slice::from_ref(&root), &opts, &shallow);
    assert!(
        shallow.offers.lock().unwrap().is_empty(),
        "{what}: -maxdepth 1"
    );
    let bigger = Record::new(true, None);
    walk(&[root], &options(4, false, Some(64 << 20)), &bigger);
    assert!(bigger.offers.lock().unwrap().is_empty(), "{what}: 64 MiB");
}

fn on(kind: FsKind) {
    let Some(fs) = LoopFs::new_or_skip(kind, 200) else {
        return;
    };
    make_tree(fs.path());
    let what = format!("{kind:?}");
    taken_and_sliced(fs.path(), &what);
    never_offered_or_declined(fs.path(), &what);
}

#[test]
fn offered_on_ext4_hashed() {
    on(FsKind::Ext4);
}

#[test]
fn offered_on_ext4_without_dir_index() {
    on(FsKind::Ext4NoDirIndex);
}

#[test]
fn offered_on_xfs() {
    on(FsKind::Xfs);
}

/// tmpfs's offsets do not survive a seek: its big directories are read
/// here, never offered.
#[test]
fn never_offered_on_tmpfs() {
    let Some(fs) = LoopFs::new_or_skip(FsKind::Tmpfs, 200) else {
        return;
    };
    make_tree(fs.path());
    let root = format!("{}/t", fs.path().display()).into_bytes();
    let r = Record::new(true, None);
    walk(&[root], &options(4, false, Some(64 * 1024)), &r);
    assert!(r.offers.lock().unwrap().is_empty());
    assert!(r.seen.lock().unwrap().len() > 6000);
}
