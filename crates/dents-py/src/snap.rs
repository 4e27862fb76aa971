//! `dents.scan`: a snapshot of trees in Parquet, written by the same code
//! as `dents scan` (the dents-snap crate).

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use dents::Follow;
use dents_snap::{Problem, ScanOptions};

/// A problem met: the path, the errno, the message as `dents scan` says it.
pub type Met = (Vec<u8>, Option<i32>, Vec<u8>);

/// A scan done: the rows written and, for a refresh whose old snapshot
/// could not be used (at all, or past some point), the file to name (OLD
/// or its shard) and why, with what was read instead.
pub type Done = (u64, Option<(Vec<u8>, String)>);

/// How `scan` walks.
pub struct PyScanOptions {
    /// Worker threads (`None`: the walker's default).
    pub threads: Option<usize>,
    /// `-x`.
    pub one_file_system: bool,
    /// `None`, `"roots"` (-H) or `"all"` (-L).
    pub follow: Follow,
    /// `--names-only`.
    pub names_only: bool,
    /// `--since`: the old snapshot to refresh from.
    pub since: Option<Vec<u8>>,
}

/// Scans `roots` into `output`; the rows written (and, refreshing, why
/// the old snapshot could not be used, if it could not) and the problems
/// met (path, errno, message), or the error that kept the snapshot from
/// being written (nothing left at `output` then).
pub fn scan(
    roots: &[Vec<u8>],
    output: &[u8],
    o: &PyScanOptions,
) -> (Result<Done, dents_snap::Error>, Vec<Met>) {
    let mut texts = Vec::new();
    if let Some(n) = o.threads {
        texts.push(format!("-j {n}"));
    }
    if o.one_file_system {
        texts.push("-x".into());
    }
    match o.follow {
        Follow::Roots => texts.push("-H".into()),
        Follow::Always => texts.push("-L".into()),
        _ => {}
    }
    if o.names_only {
        texts.push("--names-only".into());
    }
    let opts = ScanOptions {
        threads: o.threads.unwrap_or(0),
        same_file_system: o.one_file_system,
        follow: o.follow,
        names_only: o.names_only,
        options_text: texts.join(" "),
        since: o
            .since
            .as_ref()
            .map(|s| std::ffi::OsStr::from_bytes(s).into()),
    };
    let mut problems = Vec::new();
    let r = dents_snap::scan(
        roots,
        &opts,
        Path::new(std::ffi::OsStr::from_bytes(output)),
        |p: &Problem| problems.push((p.path.clone(), p.errno, p.message())),
    );
    (
        r.map(|s| {
            let old = opts.since.as_deref().unwrap_or(Path::new(""));
            let why = s.not_reused.map(|n| {
                let named = n.named(old.as_os_str().as_bytes()).to_vec();
                (named, n.text())
            });
            (s.rows, why)
        }),
        problems,
    )
}
