//! `unstable::walk_from`: directories left out of one walk and walked from
//! as starts give exactly the visits (path, name, root, depth) of the
//! walk of the whole tree, with the depth limits counted from the root;
//! `unstable::walk_slice` over slices that tile a directory gives the visits
//! of the walk of that directory's tree, less the directory's own.

use std::collections::BTreeSet;
use std::fs;
use std::sync::Mutex;

use dents::dir::DirReader;
use dents::unstable::{walk_from, walk_slice, Start};
use dents::walk::{walk, Visit, Visitor, WalkOptions};
use dents::Error;
use dents::Flow;

type Seen = (Vec<u8>, Vec<u8>, Vec<u8>, usize, bool);

/// Records every visit; leaves out (and records) directories at `cut`.
struct Record {
    cut: Option<usize>,
    seen: Mutex<BTreeSet<Seen>>,
    left_out: Mutex<Vec<(Vec<u8>, usize, usize)>>,
}

impl Record {
    fn new(cut: Option<usize>) -> Record {
        Record {
            cut,
            seen: Mutex::new(BTreeSet::new()),
            left_out: Mutex::new(Vec::new()),
        }
    }
}

impl Visitor for Record {
    type State = ();
    fn state(&self) {}
    fn excluded(&self, _: &mut (), v: &Visit<'_>) -> bool {
        if Some(v.depth()) == self.cut && v.file_type().is_dir() {
            let item = (v.path().to_vec(), v.root().len(), v.depth());
            self.left_out.lock().unwrap().push(item);
            return true;
        }
        false
    }
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        let seen = (
            v.path().to_vec(),
            v.name().to_vec(),
            v.root().to_vec(),
            v.depth(),
            v.is_post_order(),
        );
        assert!(
            self.seen.lock().unwrap().insert(seen),
            "{:?} twice",
            v.path()
        );
        Flow::Continue
    }
    fn error(&self, _: &mut (), e: Error) {
        panic!("{e:?}");
    }
}

/// The options of one case: the order and the depth limits, 3 threads.
fn options(post_order: bool, min_depth: usize, max_depth: usize) -> WalkOptions {
    WalkOptions::new()
        .contents_first(post_order)
        .min_depth(min_depth)
        .max_depth(max_depth)
        .threads(3)
}

/// The visits of the whole walk from `root`.
fn walk_whole(root: &[u8], opts: &WalkOptions) -> Record {
    let whole = Record::new(None);
    walk(&[root.to_vec()], opts, &whole);
    whole
}

/// One case of `starts_below_roots`: a walk cut at depth 1 or 2, then
/// resumed from what it left out, visits as the whole walk does, with
/// these options.
fn check_starts_below_roots((post_order, min_depth, max_depth): (bool, usize, usize)) {
    let tmp = tempfile::tempdir().unwrap();
    for a in 0..4 {
        for b in 0..3 {
            let d = tmp.path().join(format!("t/a{a}/b{b}/c"));
            fs::create_dir_all(&d).unwrap();
            fs::write(d.join("f"), b"").unwrap();
            fs::write(tmp.path().join(format!("t/a{a}/g{b}")), b"").unwrap();
        }
    }
    let root = format!("{}/t", tmp.path().display()).into_bytes();
    let opts = options(post_order, min_depth, max_depth);
    let whole = walk_whole(&root, &opts);
    for cut in [1, 2] {
        let parts = Record::new(Some(cut));
        walk(std::slice::from_ref(&root), &opts, &parts);
        let left = parts.left_out.lock().unwrap().clone();
        assert!(!left.is_empty());
        let starts: Vec<Start<'_>> = left
            .iter()
            .map(|(p, root_len, depth)| Start {
                path: p,
                root_len: *root_len,
                depth: *depth,
            })
            .collect();
        let rest = Record {
            cut: None,
            seen: Mutex::new(std::mem::take(&mut *parts.seen.lock().unwrap())),
            left_out: Mutex::new(Vec::new()),
        };
        walk_from(&starts, &opts, &rest);
        assert_eq!(
            *rest.seen.lock().unwrap(),
            *whole.seen.lock().unwrap(),
            "cut at {cut}, post-order {post_order}, depths {min_depth}..={max_depth}"
        );
    }
}

dents_testfs::test_cases! {
/// Starts below roots visit as the whole walk: (post-order, min depth,
/// max depth).
mod starts_below_roots: (bool, usize, usize) => check_starts_below_roots;
    pre_order: (false, 0, usize::MAX),
    post_order: (true, 0, usize::MAX),
    pre_order_depth_3: (false, 3, 3),
    post_order_depths_2_to_4: (true, 2, 4),
}

/// One case of `slices_of_a_directory`: a directory walked in four
/// slices visits as the whole walk below it does, with these options.
fn check_slices_of_a_directory((post_order, min_depth, max_depth): (bool, usize, usize)) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("t/big");
    for i in 0..300 {
        fs::create_dir_all(&dir).unwrap();
        if i % 50 == 0 {
            let sub = dir.join(format!("d{i}/e"));
            fs::create_dir_all(&sub).unwrap();
            fs::write(sub.join("f"), b"").unwrap();
        } else {
            fs::write(dir.join(format!("f{i}")), b"").unwrap();
        }
    }
    let root = format!("{}/t", tmp.path().display()).into_bytes();
    let dir_path = [root.as_slice(), b"/big"].concat();
    let open = || fs::File::open(&dir).unwrap().into();
    // Cut points: the positions that follow the 1st, 100th and 200th
    // entries read (slices [0, c1), [c1, c2), [c2, c3), [c3, end)).
    let mut reader = DirReader::new(open());
    let mut cuts = Vec::new();
    let mut n = 0;
    while let Some(e) = reader.next_raw().unwrap() {
        if [1, 100, 200].contains(&n) {
            cuts.push(e.next_offset());
        }
        n += 1;
    }
    assert_eq!(cuts.len(), 3);
    let mut bounds = vec![0];
    bounds.extend(&cuts);
    let opts = options(post_order, min_depth, max_depth);
    let whole = walk_whole(&root, &opts);
    let want: BTreeSet<Seen> = whole
        .seen
        .into_inner()
        .unwrap()
        .into_iter()
        .filter(|s| s.0.starts_with(&dir_path) && s.0 != dir_path)
        .collect();
    assert!(want.len() >= 300);
    let slices = Record::new(None);
    let start = Start {
        path: &dir_path,
        root_len: root.len(),
        depth: 1,
    };
    for (i, &lo) in bounds.iter().enumerate() {
        let hi = bounds.get(i + 1).copied();
        walk_slice(&start, open(), (lo, hi), &opts, &slices);
    }
    assert_eq!(
        slices.seen.into_inner().unwrap(),
        want,
        "post-order {post_order}, depths {min_depth}..={max_depth}"
    );
}

dents_testfs::test_cases! {
/// Slices of a directory visit as the whole walk below it: (post-order,
/// min depth, max depth).
mod slices_of_a_directory: (bool, usize, usize) => check_slices_of_a_directory;
    pre_order: (false, 0, usize::MAX),
    post_order: (true, 0, usize::MAX),
    pre_order_depth_2: (false, 2, 2),
    post_order_depths_2_to_3: (true, 2, 3),
}

/// Starts deeper than `PATH_MAX` (dents-mpi's items travel as paths): each
/// is stat'ed, visited and opened relative to its parent, opened in steps,
/// and the visits are those of the whole walk, with no error.
#[test]
fn starts_longer_than_path_max_visit_as_the_whole_walk() {
    use rustix::fs::{mkdirat, openat, Mode, OFlags};
    let tmp = tempfile::tempdir().unwrap();
    // t/dd/dd/... 1,500 levels (4,500 bytes below t), built one level at
    // a time relative to the last (a whole path that long is refused).
    let flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC;
    let mut fd = openat(rustix::fs::CWD, tmp.path(), flags, Mode::empty()).unwrap();
    mkdirat(&fd, "t", Mode::from_raw_mode(0o755)).unwrap();
    fd = openat(&fd, "t", flags, Mode::empty()).unwrap();
    for level in 1..=1500 {
        mkdirat(&fd, "dd", Mode::from_raw_mode(0o755)).unwrap();
        if level % 100 == 0 {
            mkdirat(&fd, "side", Mode::from_raw_mode(0o755)).unwrap();
            let f = openat(
                &fd,
                "file",
                OFlags::CREATE | OFlags::WRONLY,
                Mode::from_raw_mode(0o644),
            );
            drop(f.unwrap());
        }
        fd = openat(&fd, "dd", flags, Mode::empty()).unwrap();
    }
    let root = format!("{}/t", tmp.path().display()).into_bytes();
    let opts = options(false, 0, usize::MAX);
    let whole = walk_whole(&root, &opts);
    assert_eq!(whole.seen.lock().unwrap().len(), 1 + 1500 + 15 * 2);
    // Left out at depths whose paths are longer than PATH_MAX (4096).
    for cut in [1400, 1450] {
        let parts = Record::new(Some(cut));
        walk(std::slice::from_ref(&root), &opts, &parts);
        let left = parts.left_out.lock().unwrap().clone();
        assert!(left.iter().all(|(p, _, _)| p.len() > 4096), "{cut}");
        assert_eq!(left.len(), 1 + usize::from(cut % 100 == 0));
        let starts: Vec<Start<'_>> = left
            .iter()
            .map(|(p, root_len, depth)| Start {
                path: p,
                root_len: *root_len,
                depth: *depth,
            })
            .collect();
        let rest = Record {
            cut: None,
            seen: Mutex::new(std::mem::take(&mut *parts.seen.lock().unwrap())),
            left_out: Mutex::new(Vec::new()),
        };
        walk_from(&starts, &opts, &rest);
        assert_eq!(
            *rest.seen.lock().unwrap(),
            *whole.seen.lock().unwrap(),
            "cut at {cut}"
        );
    }
}
