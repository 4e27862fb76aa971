//! How many workers du's walk starts.  du's default count (eight a
//! core) is not the user's choice: its workers start as the walker's
//! default ones do, one more than the cores while no read has waited on
//! the disk (a small tree in the page cache is walked faster so: 5.1 ms
//! of CPU against 6.3 ms), all of them once one has.  A count given with
//! `-j` starts them all.  The walker's "waited" threshold is a test knob,
//! so that both sides are tested whatever the machine's speed; the cold
//! side runs on tmpfs (root; skipped loudly otherwise), where with no
//! block device every slow read is a wait.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use dents::walk::{walk, Visit, Visitor};
use dents::{Error, Flow, Stats};
use dents_du::Options;
use dents_testfs::{FsKind, LoopFs};

/// Subdirectories of the root: more than du's default workers (at most
/// 128), so that every worker the rule allows finds work.
const SUBDIRS: usize = 300;

#[derive(Default)]
struct Count(AtomicU64);

impl Visitor for Count {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), _: &Visit<'_>) -> Flow {
        self.0.fetch_add(1, Ordering::Relaxed);
        Flow::Continue
    }
    fn error(&self, _: &mut (), e: Error) {
        panic!("unexpected error: {e}");
    }
}

fn run(o: &Options, disk_wait: Duration) -> Stats {
    let dir = tempfile::tempdir().unwrap();
    run_in(dir.path(), o, disk_wait)
}

fn run_in(dir: &Path, o: &Options, disk_wait: Duration) -> Stats {
    for i in 0..SUBDIRS {
        let d = dir.join(format!("d{i:03}"));
        fs::create_dir(&d).unwrap();
        fs::write(d.join("f"), b"").unwrap();
    }
    let count = Count::default();
    let root = dir.as_os_str().as_encoded_bytes().to_vec();
    let opts = o.walk_options().test_disk_wait(Some(disk_wait));
    let stats = walk(&[root], &opts, &count);
    assert_eq!(count.0.load(Ordering::Relaxed), 1 + 2 * SUBDIRS as u64);
    stats
}

fn cores() -> u64 {
    std::thread::available_parallelism().map_or(1, |n| n.get()) as u64
}

#[test]
fn dus_default_workers_start_as_the_walkers_default_do() {
    let o = Options::default();
    let hot = run(&o, Duration::MAX);
    assert_eq!(hot.workers_started, cores() + 1, "{hot:?}");
    let Some(fs) = LoopFs::new_or_skip(FsKind::Tmpfs, 16) else {
        return;
    };
    let cold = run_in(fs.path(), &o, Duration::ZERO);
    assert_eq!(cold.workers_started, o.threads as u64, "{cold:?}");
}

#[test]
fn a_count_given_with_j_starts_them_all() {
    let o = Options {
        threads: 6,
        threads_chosen: true,
        ..Options::default()
    };
    let stats = run(&o, Duration::MAX);
    assert_eq!(stats.workers_started, 6, "{stats:?}");
}

#[test]
fn j_on_the_command_line_is_a_chosen_count() {
    let parse = |args: &[&str]| {
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        match dents_du::args::parse(&args, &dents_du::args::Env::default()) {
            Ok(dents_du::args::Parsed::Run(c)) => c.opts,
            _ => panic!("{args:?} not parsed as a run"),
        }
    };
    let given = parse(&["-s", "-j", "6", "x"]);
    assert!(given.threads_chosen && given.threads == 6, "{given:?}");
    let default = parse(&["-s", "x"]);
    assert!(!default.threads_chosen, "{default:?}");
}
