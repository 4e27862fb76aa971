//! A sorted walk's queue stays bounded in memory: past a limit its
//! directories are spilled, in order, to a temporary file and read back
//! as the walk goes on (`walk/queue.rs`, `Spilled`).  On a wide real tree
//! (levels of 30, 600 and 600 directories) with a deep, long-named chain
//! beside it (paths past 4 KiB and 64 levels: groups too long to spill,
//! kept in memory in their place, and paths kept every 64 levels), the
//! walk with a tiny limit (1, 7, 100 directories, set through a hidden
//! test knob) visits exactly what the walk never spilled visits, in the
//! same order, with the same paths, depths, types and stats, at 1 and 4
//! workers; the directories queued in memory at once stay within twice
//! the limit, where the unspilled walk queues most of a level of 600
//! (all but those the workers have taken).

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Mutex;

use dents::walk::{walk, Visit, Visitor, WalkOptions};
use dents::{Error, FileType, Flow, Stats};

/// Every visit as one line: depth, type, inode, size and path bytes.
struct Lines(Mutex<Vec<Vec<u8>>>);

impl Visitor for Lines {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        let (ino, size) = v.metadata().map_or((0, 0), |m| (m.ino(), m.len()));
        let mut line = format!("{} {:?} {ino} {size} ", v.depth(), v.known_type()).into_bytes();
        line.extend_from_slice(v.path());
        self.0.lock().unwrap().push(line);
        Flow::Continue
    }
    /// Stats made ahead of the visits, as a scan's are.
    fn stat_ahead(&self, _known: Option<FileType>) -> bool {
        true
    }
    fn error(&self, _: &mut (), e: Error) {
        panic!("walk error: {e:?}");
    }
}

/// A wide tree: 30 directories, each with 20, each with two files and
/// one directory; and a chain of 70 directories of 60-byte names.
fn make_tree(root: &Path) {
    for a in 0..30 {
        for b in 0..20 {
            let d = root.join(format!("a{a:02}/b{b:02}"));
            fs::create_dir_all(d.join("c")).unwrap();
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
    let v = Lines(Mutex::new(Vec::new()));
    let opts = WalkOptions::new()
        .threads(threads)
        .sort_by_name(true)
        .test_queue_spill(Some(limit));
    let stats = walk(roots, &opts, &v);
    (v.0.into_inner().unwrap(), stats)
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
                assert_eq!(got.len(), want.len(), "{threads} workers, limit {limit}");
                for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        g == w,
                        "{threads} workers, limit {limit}, visit {k}: {} where {}",
                        String::from_utf8_lossy(g),
                        String::from_utf8_lossy(w)
                    );
                }
            }
        }
    }
}
