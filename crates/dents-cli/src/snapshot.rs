//! What `find --from` and `du --from` share: a snapshot opened, its rows
//! read on a second thread, a FILE placed among its roots, and the
//! refusal of options the scan did not walk with (the answer would be
//! wrong rather than refused).

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use dents::Follow;
use dents_snap::{Row, SnapshotReader};

/// Opens the snapshot named `snapshot`, or the message that says why it
/// cannot be read.
pub(crate) fn open(snapshot: &[u8]) -> Result<SnapshotReader, String> {
    SnapshotReader::open(Path::new(std::ffi::OsStr::from_bytes(snapshot)))
        .map_err(|e| e.to_string())
}

/// What the scan's options (its record's `options`) changed in what its
/// walk met.
pub(crate) struct Scanned {
    /// `--names-only`: no stat, so no sizes, times or owners.
    pub(crate) names_only: bool,
    /// `-L`, `-H` or neither.
    pub(crate) follow: Follow,
    /// `-x`: other file systems left out.
    pub(crate) one_file_system: bool,
}

impl Scanned {
    /// Reads the scan's options as its record keeps them (words apart).
    pub(crate) fn from_options(options: &str) -> Scanned {
        let has = |w: &str| options.split_whitespace().any(|o| o == w);
        Scanned {
            names_only: has("--names-only"),
            follow: if has("-L") {
                Follow::Always
            } else if has("-H") {
                Follow::Roots
            } else {
                Follow::Never
            },
            one_file_system: has("-x"),
        }
    }

    /// Why the snapshot (quoted as `name`) cannot answer for `tool` (`find`,
    /// `du`) walking with `follow` and `same_fs`, if it cannot: the links
    /// followed must be the scan's, and a scan that left other file
    /// systems out needs the tool's own `xdev` option.
    pub(crate) fn refusal(
        &self,
        name: &str,
        tool: &str,
        follow: Follow,
        same_fs: bool,
        xdev: &str,
    ) -> Option<String> {
        let word = |f: Follow| match f {
            Follow::Always => "-L",
            Follow::Roots => "-H",
            _ => "-P",
        };
        if self.follow != follow {
            let w = word(self.follow);
            return Some(format!(
                "{name}: scanned with {w}: {tool} --from answers for {w} only"
            ));
        }
        if self.one_file_system && !same_fs {
            return Some(format!(
                "{name}: scanned with -x (other file systems left out): {tool} --from needs {xdev}"
            ));
        }
        None
    }
}

/// A FILE found in the snapshot: its stored path and depth, and what
/// picks out the rows at or below it.
pub(crate) struct Target {
    pub(crate) stored: Vec<u8>,
    pub(crate) depth: u32,
    /// `stored` and a `/`: what the stored paths below it start with.
    prefix: Vec<u8>,
}

impl Target {
    fn new(stored: Vec<u8>, depth: u32) -> Target {
        let mut prefix = stored.clone();
        if !prefix.ends_with(b"/") {
            prefix.push(b'/');
        }
        Target {
            stored,
            depth,
            prefix,
        }
    }

    /// How many levels below the FILE the row stored at `path`, `depth`
    /// is, if it is the FILE (0) or an entry below it.  Rows come level
    /// by level, so a row of the right depth that starts with the
    /// FILE's path and has no more slashes is one of its entries.
    pub(crate) fn below(&self, path: &[u8], depth: u32) -> Option<usize> {
        let below = depth.checked_sub(self.depth)? as usize;
        if below == 0 {
            return (path == self.stored.as_slice()).then_some(0);
        }
        let rest = path.strip_prefix(self.prefix.as_slice())?;
        (memchr_count(rest) == below - 1).then_some(below)
    }
}

/// Names the rows at or below a FILE as the FILE was spelt (`a//b/`
/// for the stored `a/b`), as find and du on the tree would name them.
pub(crate) struct Spelling<'g> {
    /// The FILE as given.
    given: &'g [u8],
    /// Where the names below the FILE start in a stored path.
    names_at: usize,
    /// The FILE is spelt as stored: stored paths are the answer.
    same: bool,
    /// The last path made.
    scratch: Vec<u8>,
}

impl<'g> Spelling<'g> {
    /// The spelling of the FILE `given`, found in the snapshot as `t`.
    pub(crate) fn new(given: &'g [u8], t: &Target) -> Spelling<'g> {
        Spelling {
            given,
            names_at: t.prefix.len(),
            same: given == t.stored.as_slice(),
            scratch: Vec::new(),
        }
    }

    /// The path of the row stored at `stored`, `below` levels below the
    /// FILE ([`Target::below`]).
    pub(crate) fn path<'s>(&'s mut self, stored: &'s [u8], below: usize) -> &'s [u8] {
        if self.same {
            stored
        } else if below == 0 {
            self.given
        } else {
            self.scratch.clear();
            self.scratch.extend_from_slice(self.given);
            join(&mut self.scratch, &stored[self.names_at..]);
            &self.scratch
        }
    }
}

/// `path` without its trailing slashes (`/` stays).
pub(crate) fn trim_slashes(path: &[u8]) -> &[u8] {
    let mut p = path;
    while p.len() > 1 && p.ends_with(b"/") {
        p = &p[..p.len() - 1];
    }
    p
}

/// Joins a name below `dir` as the walker does (no `/` doubled).
pub(crate) fn join(dir: &mut Vec<u8>, name: &[u8]) {
    if !dir.ends_with(b"/") {
        dir.push(b'/');
    }
    dir.extend_from_slice(name);
}

/// Where `file` is in a snapshot whose roots are `roots`: below the
/// longest root it starts with.
pub(crate) fn locate(roots: &[Vec<u8>], file: &[u8]) -> Option<Target> {
    let nf = trim_slashes(file);
    let mut best: Option<(usize, Target)> = None;
    for r in roots {
        let nr = trim_slashes(r);
        let rest = if nf == nr {
            Some(&b""[..])
        } else if nr == b"/" {
            nf.strip_prefix(b"/")
        } else {
            nf.strip_prefix(nr).and_then(|x| x.strip_prefix(b"/"))
        };
        let Some(rest) = rest else { continue };
        let names: Vec<&[u8]> = rest
            .split(|&c| c == b'/')
            .filter(|c| !c.is_empty())
            .collect();
        // The walk made no `.` or `..` below a root.
        if names.iter().any(|c| *c == b"." || *c == b"..") {
            continue;
        }
        let mut stored = r.clone();
        for n in &names {
            join(&mut stored, n);
        }
        if best.as_ref().map_or(true, |(l, _)| nr.len() > *l) {
            best = Some((nr.len(), Target::new(stored, names.len() as u32)));
        }
    }
    best.map(|(_, t)| t)
}

/// The slashes in `b`.
fn memchr_count(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c == b'/').count()
}

/// Rows decoded at once by the reading thread.
const BATCH: usize = 4096;

/// Hands each row of `reader` (the columns of `columns`) to `f`, in
/// order, decoded on another thread while `f` counts (half the time on
/// two cores); here if no thread can start.
pub(crate) fn for_each_row(
    reader: &SnapshotReader,
    columns: u32,
    mut f: impl FnMut(Row),
) -> Result<(), dents_snap::Error> {
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Vec<Row>, dents_snap::Error>>(4);
        let started = std::thread::Builder::new().spawn_scoped(s, move || {
            let mut batch = Vec::with_capacity(BATCH);
            for r in reader.rows_of(columns) {
                match r {
                    Ok(row) => batch.push(row),
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
                if batch.len() == BATCH {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                    // The counting side stopped: so does the reading.
                    if tx.send(Ok(full)).is_err() {
                        return;
                    }
                }
            }
            let _ = tx.send(Ok(batch));
        });
        if started.is_err() {
            for r in reader.rows_of(columns) {
                f(r?);
            }
            return Ok(());
        }
        for batch in rx {
            for row in batch? {
                f(row);
            }
        }
        Ok(())
    })
}
