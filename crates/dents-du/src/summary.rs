//! du as a plain call: each argument's total and the problems met, as
//! values, for a program that wants sizes rather than du's lines.
//!
//! [`summarize`] walks its arguments one after another with the same
//! engine as `dents du -s` (all cores, hard links counted once over all
//! the arguments, GNU's rules for `-L`, `-x`, `--exclude`), but nothing
//! is formatted and nothing is written: the caller gets a [`Summary`] per
//! argument and a [`DuProblem`] per file or directory that could not be
//! counted, and decides what to say.
//!
//! ```no_run
//! let opts = dents_du::Options { apparent: true, ..Default::default() };
//! let report = dents_du::summary::summarize(&["/usr/share", "/usr/lib"], &opts);
//! for s in &report.summaries {
//!     println!("{} bytes, {} inodes: {}", s.bytes, s.inodes, String::from_utf8_lossy(&s.path));
//! }
//! for p in &report.problems {
//!     eprintln!("{p}");
//! }
//! ```

use std::fmt;
use std::io;
use std::sync::Mutex;

use crate::engine::{Du, Problem, Sink};
use crate::time_style::{unpack_time, NO_TIME};
use crate::Options;

/// One argument's sums.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Summary {
    /// The argument as given.
    pub path: Vec<u8>,
    /// Bytes: disk usage (blocks × 512), or apparent sizes with
    /// [`Options::apparent`]; what `du -sB1` (`du -sb`) prints.
    pub bytes: u64,
    /// Inodes counted (`du -s --inodes`).
    pub inodes: u64,
    /// The latest time of the kind [`Options::time`] asks for (seconds,
    /// nanoseconds since the epoch); `None` without it, or when nothing
    /// was counted.
    pub latest: Option<(i64, u32)>,
}

/// What went wrong with one path (du's three messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProblemKind {
    /// It could not be stat'ed (or, under `-L`, it is a dangling link):
    /// not counted.
    CannotAccess,
    /// A directory that could not be read: its own size still counts.
    CannotRead,
    /// A directory whose read failed part way: what was read counts.
    ReadCut,
}

/// A path that could not be counted, or not whole.
#[derive(Debug)]
#[non_exhaustive]
pub struct DuProblem {
    /// What went wrong.
    pub kind: ProblemKind,
    /// The path, as du names it (under its argument).
    pub path: Vec<u8>,
    /// The system's error (none for a dangling link under `-L`).
    pub error: Option<io::Error>,
}

impl fmt::Display for DuProblem {
    /// GNU du's words, without the program's name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = String::from_utf8_lossy(&self.path);
        match self.kind {
            ProblemKind::CannotAccess => write!(f, "cannot access '{path}'")?,
            ProblemKind::CannotRead => write!(f, "cannot read directory '{path}'")?,
            ProblemKind::ReadCut => write!(f, "{path}")?,
        }
        match &self.error {
            Some(e) => write!(f, ": {}", dents_tools::errors::describe(e)),
            None => Ok(()),
        }
    }
}

/// The sums of every argument and the problems met.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Summaries {
    /// One per argument, in the order given.  An argument that could not
    /// be stat'ed, that `--exclude` leaves out, or that an earlier
    /// argument's walk counted already (GNU du prints no line for it)
    /// sums to nothing.
    pub summaries: Vec<Summary>,
    /// Every path that could not be counted, or not whole.
    pub problems: Vec<DuProblem>,
}

impl Summaries {
    /// Whether every path was counted whole (du's exit status 0).
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }

    /// The bytes of all the arguments together (`du -c`'s total).
    pub fn total_bytes(&self) -> u64 {
        self.summaries.iter().map(|s| s.bytes).sum()
    }
}

/// Walks each of `roots` as `du -s` with `opts` would, and returns the
/// sums and the problems.  `opts`'s line options (`-a`, `-d`, `-c`,
/// `--threshold`, `-0`, the export) do not apply: there are no lines.
pub fn summarize<P: AsRef<[u8]>>(roots: &[P], opts: &Options) -> Summaries {
    let opts = Options {
        all: false,
        max_depth: 0,
        total: false,
        export: false,
        // As du with several arguments: a directory (and a file) met
        // again under a later argument is not counted twice.
        hash_all: opts.hash_all || roots.len() > 1,
        ..opts.clone()
    };
    let want_time = opts.time.is_some();
    let sink = Collect::default();
    let du = Du::new(opts, &sink);
    let mut summaries = Vec::with_capacity(roots.len());
    for root in roots {
        let root = root.as_ref();
        du.add_root(root);
        let d = du.take_total();
        summaries.push(Summary {
            path: root.to_vec(),
            bytes: d.size,
            inodes: d.inodes,
            latest: (want_time && d.tmax != NO_TIME).then(|| unpack_time(d.tmax)),
        });
    }
    // The lines (one per argument) were formatted into the engine's
    // buffer and are dropped here; nothing else is pending.
    let _ = du.finish();
    Summaries {
        summaries,
        problems: sink
            .problems
            .into_inner()
            .unwrap_or_else(|p| p.into_inner()),
    }
}

/// A sink that writes nothing and keeps the problems.
#[derive(Debug, Default)]
struct Collect {
    problems: Mutex<Vec<DuProblem>>,
}

impl Sink for Collect {
    type Tally = ();

    fn write(&self, _bytes: &[u8]) {}

    fn problem(&self, p: &Problem<'_>) {
        let (kind, path, error) = match p {
            Problem::CannotAccess(path, e) => (ProblemKind::CannotAccess, path, *e),
            Problem::CannotRead(path, e) => (ProblemKind::CannotRead, path, Some(*e)),
            Problem::ReadCut(path, e) => (ProblemKind::ReadCut, path, Some(*e)),
        };
        let problem = DuProblem {
            kind,
            path: path.to_vec(),
            // The OS's errors are rebuilt from their number (an
            // `io::Error` cannot be cloned).
            error: error.map(|e| match e.raw_os_error() {
                Some(n) => io::Error::from_raw_os_error(n),
                None => io::Error::new(e.kind(), e.to_string()),
            }),
        };
        self.problems
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(problem);
    }

    fn push_time(&self, _out: &mut Vec<u8>, _sec: i64, _nsec: u32) {}
}
