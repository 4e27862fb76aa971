//! dents-du: GNU du's engine on the dents walker.
//!
//! `du [OPTION]... [FILE]...` as coreutils 9 prints it, line for line,
//! with every tree walked on all cores (one huge directory too, in
//! slices), hard links counted once, and memory that grows with the
//! tree's shape (its open directories) rather than its size.
//!
//! # Module map
//!
//! Its modules in layers: each uses only modules of lower layers, so there
//! is no import circle (`tests/layers.rs` keeps it so).
//!
//! | layer | module | concern |
//! |-------|--------|---------|
//! | 0 | [`inodes`] | a concurrent map (device, inode) → word in dense open-addressed tables: the hard-link set's storage |
//! | 0 | [`glob`]   | `--exclude` patterns (`fnmatch` on the path and its tails) |
//! | 0 | [`ncdu`]   | `--export`: ncdu's JSON format, for `ncdu -f` and `gdu -f` |
//! | 0 | [`size`]   | `--block-size` and `--threshold` values; sizes written as GNU's `human_readable` writes them |
//! | 0 | [`time_style`] | `--time=WORD`, `--time-style`, `TIME_STYLE`: times packed for a `max`, written as GNU du writes them |
//! | 1 | [`args`]   | du's command line (GNU's options and messages), for `dents du` and `dents-mpi du` alike |
//! | 1 | [`dui`]    | the sums ([`Dui`]: size, inodes, latest time), plain and atomic |
//! | 2 | [`files0`] | `--files0-from`: the list's names and GNU's refusals |
//! | 2 | [`order`]  | GNU's walk order (fts's), worked out for the links of inodes met more than once |
//! | 3 | [`links`]  | the (device, inode) set: hard links (and directories, with several arguments) once |
//! | 4 | `logical`  | `-L`: each directory charged to its first path in GNU's order, replayed after the walk |
//! | 5 | [`engine`] | the walk: sums in the open directories, post-order lines, hard links, errors |
//! | 6 | [`stored`] | du over a snapshot's stored entries (`--from`): the engine's decisions and lines without a walk |
//! | 6 | [`summary`] | du as a plain call: each argument's sums and the problems met, as values |
//! | 6 | [`cli`]    | `dents du` as a program: [`main`] (argv in, exit status out; [`main_to`] to a caller's writers), its help, GNU's messages for the [`engine::Problem`]s, the `--from` hook |
//!
//! The `dents` executable (crate `dents-cli`) hands `dents du`'s
//! arguments to [`main_with_snapshots`], with the reader of `--from
//! SNAPSHOT` (Parquet, which this crate does not depend on).  `dents-mpi du` (crate
//! `dents-mpi`, du's sums over MPI ranks) has an engine of its own but
//! shares the rest: [`args`] (one command line), [`Options`] ([`Options::entry_dui`],
//! [`Options::stat_mask`], [`Options::walk_options`]), [`dui`], [`size`], [`links`],
//! [`glob`], [`files0`], [`time_style`] and [`ncdu`], so both print the
//! same bytes.
//!
//! # Memory
//!
//! Peak memory is bounded by the tree's shape and the workers, never by
//! the number of files: per worker ([`default_threads`], 16 on 2 cores)
//! its stack and a 16 KiB `getdents64` buffer (a huge directory's slices
//! have one each too); per directory queued or being walked, the
//! walker's record (links, identity, counters and the name) and the engine's sum
//! (three counters, keyed by its name under its parent's: linear in the
//! depth); and the hard-link set, 24 bytes
//! (and the table's slack: 54% to 81% full) per file with a link count
//! above 1 (per directory too with several arguments or `-L`).  An inode
//! met through two links or more in one argument adds, until the
//! argument's end, its first link in GNU's order (a record of 48 bytes
//! and the table's slack, however many links it has); a directory
//! holding links adds a node (about 80 bytes and the name) for it and
//! each directory above it; a directory holding
//! such links, while it is walked, the places of its entries (16 bytes
//! and the table's slack an entry).  Under `-L`, every file met adds 40
//! bytes and the table's slack until the argument's end.  On a tree like /usr
//! the program itself is most of the peak; docs/benchmarks.md#du has the
//! measured peak RSS against GNU du and the parallel peers.
//!
//! # Cold walks: what was tried
//!
//! Cold, a worker waits on each `statx` whose inode-table block is not
//! cached, so the stats in flight are the workers: hence eight workers a
//! core.  The seed's other "homework" (stats ordered by inode number
//! within and across directories, and the directories read next in inode
//! order) was built in the walker (runs of 256 entries sorted by inode,
//! subdirectories queued in that order) and measured cold on the shape
//! against the plain order (paired rounds on a loaded machine): no
//! faster beyond the noise, for more CPU hot and more peak memory
//! (docs/history/benchmarks.md#cold-inode-order-the-seeds-homework);
//! measured again on 190k entries of the real-tree shape, hot and cold,
//! within the noise (docs/history/benchmarks.md#inode-order-removed), and
//! removed.  io_uring `statx` was not tried.
//!
//! # A total as a plain call
//!
//! A program that wants sizes rather than du's lines calls
//! [`summary::summarize`]: a [`summary::Summary`] per argument (bytes,
//! inodes, latest time), hard links counted once, and each path that could
//! not be counted as a [`summary::DuProblem`], never written anywhere.
//!
//! ```
//! use std::os::unix::ffi::OsStrExt;
//! use dents_du::summary::{summarize, ProblemKind};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir(dir.path().join("logs"))?;
//! std::fs::write(dir.path().join("logs/a.log"), vec![b'x'; 3000])?;
//! std::fs::write(dir.path().join("b.txt"), vec![b'y'; 1000])?;
//! // A hard link: counted once, as du counts it.
//! std::fs::hard_link(dir.path().join("b.txt"), dir.path().join("logs/b.link"))?;
//! let missing = dir.path().join("missing");
//!
//! // du -sb DIR MISSING: apparent sizes, in bytes.
//! let opts = dents_du::Options { apparent: true, ..Default::default() };
//! let roots = [dir.path().as_os_str().as_bytes(), missing.as_os_str().as_bytes()];
//! let report = summarize(&roots, &opts);
//!
//! let dirs = std::fs::metadata(dir.path())?.len() + std::fs::metadata(dir.path().join("logs"))?.len();
//! assert_eq!(report.summaries[0].bytes, 3000 + 1000 + dirs);
//! assert_eq!(report.summaries[0].inodes, 4, "the tree, logs, a.log, b.txt once");
//! assert_eq!(report.summaries[1].bytes, 0, "not counted");
//! let problem = &report.problems[0];
//! assert_eq!((problem.kind, problem.path.as_slice()), (ProblemKind::CannotAccess, roots[1]));
//! assert_eq!(problem.error.as_ref().map(|e| e.kind()), Some(std::io::ErrorKind::NotFound));
//! // du's words for it, without the program's name.
//! assert!(problem.to_string().ends_with("missing': No such file or directory"));
//! assert!(!report.ok(), "du's exit status would be 1");
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Example: du's lines
//!
//! ```no_run
//! use dents_du::engine::{Du, Problem, Sink};
//! use dents_du::Options;
//!
//! struct Stdout;
//! impl Sink for Stdout {
//!     type Tally = ();
//!     fn write(&self, bytes: &[u8]) {
//!         use std::io::Write;
//!         std::io::stdout().write_all(bytes).unwrap();
//!     }
//!     fn problem(&self, p: &Problem<'_>) {
//!         eprintln!("{p:?}");
//!     }
//!     fn push_time(&self, out: &mut Vec<u8>, sec: i64, _nsec: u32) {
//!         out.extend_from_slice(sec.to_string().as_bytes());
//!     }
//! }
//! let opts = Options { max_depth: 0, ..Options::default() }; // du -s
//! let du = Du::new(opts, &Stdout);
//! du.add_root(b"/usr/share");
//! let ok = du.finish().unwrap();
//! # let _ = ok;
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod args;
pub mod cli;
pub mod dui;
pub mod engine;
pub mod files0;
pub mod glob;
pub mod inodes;
pub mod links;
mod logical;
pub mod ncdu;
pub mod order;
pub mod size;
pub mod stored;
pub mod summary;
pub mod time_style;

use dents::walk::{self, WalkOptions};
use dents::{Metadata, StatFields};
use dui::Dui;
use glob::Excludes;
use size::Units;

pub use cli::{main, main_to, main_with_snapshots};

/// du's default number of workers: eight per core, at least 8 and at
/// most 128 — twice the walker's default; started as the walker's
/// default ones are ([`Options::threads_chosen`]).
///
/// du stats every entry, and a worker stats its directory's entries one
/// after another: cold, each stat may wait for an inode-table block, so
/// the stats in flight are the workers.  Measured on 2 cores over the
/// shape of /usr, cold (machine shared): 16 workers were clearly faster
/// than 8, 32 little faster than 16; hot, the CPU time did not change
/// with the count.
pub fn default_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores * 8).clamp(8, 128)
}

/// Which symbolic links are followed: the walker's policy (`-P`, the
/// default: none; `-H`, `-D`: those given as arguments; `-L`: all).
pub use dents::Follow;

/// The time `--time` shows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimeKind {
    /// Modification (the default).
    Modification,
    /// Access (`atime`, `access`, `use`).
    Access,
    /// Status change (`ctime`, `status`).
    Change,
}

/// What du counts and prints (GNU's options).
#[derive(Clone, Debug)]
pub struct Options {
    /// `-a`: a line for files too.
    pub all: bool,
    /// `-d N` (`-s`: 0): lines only this deep (sizes are always whole).
    pub max_depth: usize,
    /// How sizes are written (`-h`, `-k`, `-B`...).
    pub units: Units,
    /// `--apparent-size`: bytes in the file rather than blocks on disk.
    pub apparent: bool,
    /// `--inodes`: inode counts instead of sizes.
    pub inodes: bool,
    /// `-l`: hard links counted each time.
    pub count_links: bool,
    /// `-P`, `-H`, `-L`.
    pub follow: Follow,
    /// `-x`: entries on other filesystems are skipped.
    pub one_file_system: bool,
    /// `-S`: a directory's size leaves out its subdirectories.
    pub separate_dirs: bool,
    /// `-t`: only sizes at least this (negative: at most its absolute value).
    pub threshold: i64,
    /// `--time[=WORD]`.
    pub time: Option<TimeKind>,
    /// `-0`: lines end with NUL.
    pub nul: bool,
    /// `--exclude`, `-X`.
    pub excludes: Excludes,
    /// `-c`: a grand total.
    pub total: bool,
    /// Every directory and argument is remembered (several arguments,
    /// `--files0-from`): GNU's "hash all", so nothing is counted twice
    /// across arguments.
    pub hash_all: bool,
    /// Worker threads.
    pub threads: usize,
    /// [`Options::threads`] was given (`-j`): every worker starts as work
    /// is found.  Otherwise they are du's default and start as the
    /// walker's default do ([`dents::walk::WalkOptions::threads_up_to`]):
    /// one more than the cores, the rest once a read waits on the disk.
    pub threads_chosen: bool,
    /// Build an ncdu export ([`engine::Du::export`]).
    pub export: bool,
}

impl Options {
    /// What du needs of each entry's stat (the time `--time` shows too).
    pub fn stat_mask(&self) -> StatFields {
        StatFields::TYPE
            | StatFields::MODE
            | StatFields::NLINK
            | StatFields::INO
            | StatFields::SIZE
            | StatFields::BLOCKS
            | time_style::stat_field(self.time)
    }

    /// The walk du makes of an argument: depth first, each directory
    /// visited after everything below it (its line comes after theirs),
    /// links followed as `-P`/`-H`/`-L` say, `-x`'s filesystem kept, the
    /// stat fields du reads, on [`Options::threads`] workers.  The engine
    /// and `dents-mpi du` start from it, so that the two walk alike; each
    /// adds what differs (how directories are read, whether a post-order
    /// visit needs its parent's descriptor).
    pub fn walk_options(&self) -> WalkOptions {
        let w = WalkOptions::new();
        let w = if self.threads_chosen {
            w.threads(self.threads.max(1))
        } else {
            w.threads_up_to(self.threads.max(1))
        };
        w.order(walk::Order::DepthFirst)
            .contents_first(true)
            .follow_links(self.follow)
            .same_file_system(self.one_file_system)
            .stat_fields(self.stat_mask())
    }

    /// One entry's own size (blocks × 512, or apparent: `st_size` of every
    /// type, as coreutils 9.1 counts them, a directory's own size too),
    /// one inode, and its time for `--time`.
    pub fn entry_dui(&self, st: &Metadata) -> Dui {
        let size = if self.apparent {
            st.len()
        } else {
            st.blocks().saturating_mul(512)
        };
        Dui {
            size,
            inodes: 1,
            tmax: time_style::entry_time(self.time, st),
        }
    }

    /// The number a line shows for `size` bytes and `inodes` entries
    /// (`--inodes` picks the count), whatever `--threshold` says: the
    /// grand total's (`-c`), which GNU du always prints.
    pub fn value(&self, size: u64, inodes: u64) -> u64 {
        if self.inodes {
            inodes
        } else {
            size
        }
    }

    /// The number a line shows for `size` bytes and `inodes` entries
    /// (`--inodes` picks the count), if `--threshold` lets it through
    /// (a negative threshold: at most its size; else at least).
    pub fn shown_value(&self, size: u64, inodes: u64) -> Option<u64> {
        let v = self.value(size, inodes);
        let t = self.threshold;
        let shown = if t < 0 {
            v <= t.unsigned_abs()
        } else {
            v >= t as u64
        };
        shown.then_some(v)
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            all: false,
            max_depth: usize::MAX,
            units: Units::default_for(false),
            apparent: false,
            inodes: false,
            count_links: false,
            follow: Follow::Never,
            one_file_system: false,
            separate_dirs: false,
            threshold: 0,
            time: None,
            nul: false,
            excludes: Excludes::default(),
            total: false,
            hash_all: false,
            threads: default_threads(),
            threads_chosen: false,
            export: false,
        }
    }
}
