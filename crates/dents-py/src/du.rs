//! `dents.du`: the total of `dents du -s` (GNU du's), in bytes, on the
//! dents-du engine: hard links counted once, the tree walked on all cores.

use std::sync::Mutex;

use dents_du::engine::{Du, Problem, Sink};
use dents_du::size::Units;
use dents_du::Options;

/// What a `du -s` run left: its output line and its problems.
#[derive(Default)]
struct Collect {
    out: Mutex<Vec<u8>>,
    /// (path, errno) of each problem, in the order met.
    problems: Mutex<Vec<(Vec<u8>, i32)>>,
}

impl Sink for Collect {
    type Tally = ();

    fn write(&self, bytes: &[u8]) {
        self.out.lock().unwrap().extend_from_slice(bytes);
    }

    fn problem(&self, p: &Problem<'_>) {
        let (path, errno) = match p {
            // A dangling symlink under -L has no cause: ENOENT.
            Problem::CannotAccess(path, e) => (path, e.and_then(|e| e.raw_os_error()).unwrap_or(2)),
            Problem::CannotRead(path, e) | Problem::ReadCut(path, e) => {
                (path, e.raw_os_error().unwrap_or(5))
            }
        };
        self.problems.lock().unwrap().push((path.to_vec(), errno));
    }

    fn push_time(&self, _out: &mut Vec<u8>, _sec: i64, _nsec: u32) {}
}

/// How `du` counts.
pub struct DuOptions {
    /// `--apparent-size`.
    pub apparent: bool,
    /// `-l`.
    pub count_links: bool,
    /// `-x`.
    pub one_file_system: bool,
    /// Worker threads (`None`: du's default).
    pub threads: Option<usize>,
}

/// The total of `du -s -B1 PATH` (`--apparent-size`: `du -sb`), if the
/// argument could be accessed, and the problems met.
pub fn du(path: &[u8], o: &DuOptions) -> (Option<u64>, Vec<(Vec<u8>, i32)>) {
    let mut opts = Options {
        max_depth: 0,
        units: Units::blocks(1),
        apparent: o.apparent,
        count_links: o.count_links,
        one_file_system: o.one_file_system,
        nul: true,
        ..Options::default()
    };
    if let Some(t) = o.threads {
        opts.threads = t.max(1);
        opts.threads_chosen = true;
    }
    let sink = Collect::default();
    let engine = Du::new(opts, &sink);
    engine.add_root(path);
    let _ = engine.finish();
    let out = sink.out.into_inner().unwrap();
    // One line: "SIZE\tPATH\0".
    let total = out
        .split(|&b| b == b'\t')
        .next()
        .filter(|_| !out.is_empty())
        .and_then(|n| std::str::from_utf8(n).ok()?.parse().ok());
    (total, sink.problems.into_inner().unwrap())
}
