//! `WalkOptions::post_order_parent_fd = false`: post-order visits come
//! without the parent's descriptor, and a stat through the visit still
//! gives the directory's own metadata (by its path), for every directory
//! exactly once and after everything below it.

use std::collections::HashMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::sync::Mutex;

use dents::walk::{walk, Order, Visit, Visitor, WalkOptions};
use dents::Error;
use dents::Flow;

#[derive(Default)]
struct Dirs {
    /// Post-order visits: path -> inode from the visit's stat.
    seen: Mutex<HashMap<Vec<u8>, u64>>,
    /// Every visit's path, in order.
    order: Mutex<Vec<(Vec<u8>, bool)>>,
    errors: Mutex<Vec<String>>,
}

impl Visitor for Dirs {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        self.order
            .lock()
            .unwrap()
            .push((v.path().to_vec(), v.is_post_order()));
        if v.is_post_order() {
            let st = v.metadata().expect("a stat by path works");
            let old = self
                .seen
                .lock()
                .unwrap()
                .insert(v.path().to_vec(), st.ino());
            assert!(old.is_none(), "visited twice: {:?}", v.path());
        }
        Flow::Continue
    }
    fn error(&self, _: &mut (), e: Error) {
        self.errors.lock().unwrap().push(format!("{e:?}"));
    }
}

#[test]
fn post_order_visits_by_path_stat_the_right_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    for d in ["a/b/c", "a/d", "e", "f/g/h/i"] {
        fs::create_dir_all(root.join(d)).unwrap();
    }
    for f in ["a/x", "a/b/c/y", "e/z", "f/g/h/i/w"] {
        fs::write(root.join(f), b"1").unwrap();
    }
    for threads in [1, 4] {
        let opts = WalkOptions::new()
            .threads(threads)
            .order(Order::DepthFirst)
            .contents_first(true)
            .post_order_parent_fd(false);
        let dirs = Dirs::default();
        let r = root.to_str().unwrap().as_bytes().to_vec();
        walk(&[r], &opts, &dirs);
        assert!(dirs.errors.lock().unwrap().is_empty());
        let seen = dirs.seen.lock().unwrap();
        assert_eq!(seen.len(), 10, "{seen:?}");
        for (path, ino) in seen.iter() {
            let md = fs::symlink_metadata(std::str::from_utf8(path).unwrap()).unwrap();
            assert_eq!(*ino, md.ino(), "{}", String::from_utf8_lossy(path));
        }
        // Each directory after every entry below it.
        let order = dirs.order.lock().unwrap();
        for (i, (p, post)) in order.iter().enumerate() {
            if !post {
                continue;
            }
            let mut prefix = p.clone();
            prefix.push(b'/');
            assert!(
                order[i + 1..].iter().all(|(q, _)| !q.starts_with(&prefix)),
                "{} before its contents",
                String::from_utf8_lossy(p)
            );
        }
    }
}
