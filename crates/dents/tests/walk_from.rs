//! `walk::walk_from`: directories left out of one walk and walked from
//! as starts give exactly the visits (path, name, root, depth) of the
//! walk of the whole tree, with the depth limits counted from the root.

use std::collections::BTreeSet;
use std::fs;
use std::sync::Mutex;

use dents::walk::{walk, walk_from, Flow, Start, Visit, Visitor, WalkError, WalkOptions};

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
    fn error(&self, _: &mut (), e: &WalkError) {
        panic!("{e:?}");
    }
}

#[test]
fn starts_below_roots_visit_as_the_whole_walk() {
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
    for (post_order, min_depth, max_depth) in [
        (false, 0, usize::MAX),
        (true, 0, usize::MAX),
        (false, 3, 3),
        (true, 2, 4),
    ] {
        let opts = WalkOptions {
            post_order,
            min_depth,
            max_depth,
            threads: 3,
            ..WalkOptions::default()
        };
        let whole = Record::new(None);
        walk(std::slice::from_ref(&root), &opts, &whole);
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
}
