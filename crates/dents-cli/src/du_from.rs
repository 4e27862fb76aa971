//! `dents du --from SNAPSHOT [OPTION]... [FILE]...`: du's lines for the
//! entries a snapshot stored (`dents scan`), computed by
//! [`dents_du::stored`] without touching the tree.
//!
//! FILE defaults to the snapshot's roots; a FILE must be a root or a
//! path below one, spelt as the root was given (`a/b` below the root
//! `a`).  Options that change what the walk would have met (`-L`, `-H`,
//! a snapshot taken with `-x`) must match the scan's, and a snapshot of
//! names only has no sizes: those are refused rather than answered wrong.

use dents_du::args::quote_always as qa;
use dents_du::cli::Console;
use dents_du::stored::{StoredDu, StoredEntry};
use dents_du::{Options, TimeKind};
use dents_snap::reader::column_bit;
use dents_snap::Row;

use crate::snapshot::{self, for_each_row, locate, trim_slashes, Scanned, Spelling};

/// The entry du needs of a row, at the path `path`.
fn entry<'a>(row: &Row, path: &'a [u8], depth: usize) -> StoredEntry<'a> {
    let t = |ns: Option<i64>| {
        ns.map_or((0, 0), |ns| {
            (
                ns.div_euclid(1_000_000_000),
                ns.rem_euclid(1_000_000_000) as u32,
            )
        })
    };
    StoredEntry {
        path,
        depth,
        kind: row.kind,
        size: row.size.unwrap_or(0).max(0) as u64,
        blocks: row.blocks.unwrap_or(0).max(0) as u64,
        nlink: row.nlink.unwrap_or(1).max(0) as u64,
        dev: row.dev.unwrap_or(0),
        ino: row.ino,
        mtime: t(row.mtime),
        atime: t(row.atime),
        ctime: t(row.ctime),
    }
}

/// Says why the snapshot cannot answer for these options, if it cannot.
fn refusal(snapshot: &[u8], options: &str, opts: &Options) -> Option<String> {
    let name = String::from_utf8_lossy(&qa(snapshot)).into_owned();
    let scanned = Scanned::from_options(options);
    if scanned.names_only {
        return Some(format!(
            "{name}: a snapshot of names only (scanned with --names-only): du needs sizes"
        ));
    }
    scanned.refusal(&name, "du", opts.follow, opts.one_file_system, "-x")
}

/// Runs du over the snapshot `snapshot` (dents-du's
/// [`FromSnapshot`](dents_du::cli::FromSnapshot), after du's own
/// parsing); the exit status.
pub(crate) fn run(snapshot: &[u8], opts: &Options, files: &[Vec<u8>], sink: &Console) -> i32 {
    let reader = match snapshot::open(snapshot) {
        Ok(r) => r,
        Err(why) => {
            sink.say(why.as_bytes());
            return 1;
        }
    };
    let record = reader.record().clone();
    if let Some(why) = refusal(snapshot, &record.options, opts) {
        sink.say(why.as_bytes());
        return 1;
    }
    // What the scan could not read, said again: du on the tree would say it.
    for e in &record.errors {
        sink.say(e);
        sink.raise(1);
    }
    if record.error_count > record.errors.len() as u64 {
        sink.raise(1);
    }
    let files: Vec<Vec<u8>> = if files.is_empty() {
        record.roots.clone()
    } else {
        files.to_vec()
    };
    let mut opts = opts.clone();
    opts.hash_all = opts.hash_all || files.len() > 1;
    // Only the columns du reads are decoded.
    let time_column = match opts.time {
        Some(TimeKind::Modification) => "mtime",
        Some(TimeKind::Access) => "atime",
        Some(TimeKind::Change) => "ctime",
        None => "",
    };
    let columns = ["size", "blocks", "nlink", "dev", time_column]
        .iter()
        .fold(0, |m, c| m | column_bit(c));
    let mut du = StoredDu::new(opts, sink);
    for f in &files {
        if f.is_empty() {
            sink.say(b"invalid zero-length file name");
            sink.raise(1);
            continue;
        }
        // Several trailing slashes count as one, as du's walk trims them.
        let mut len = f.len();
        if len > 2 && f[len - 1] == b'/' {
            while len > 1 && f[len - 2] == b'/' {
                len -= 1;
            }
        }
        let f = &f[..len];
        let found = locate(&record.roots, f);
        let mut parent = None;
        let mut begun = false;
        let mut failed = None;
        if let Some(t) = &found {
            let mut spelling = Spelling::new(f, t);
            let parent_path = (t.depth > 0).then(|| {
                let cut = t.stored.iter().rposition(|&b| b == b'/').unwrap_or(0);
                trim_slashes(&t.stored[..cut.max(1)]).to_vec()
            });
            let read = for_each_row(&reader, columns, |row| {
                if row.depth < t.depth {
                    if row.depth + 1 == t.depth
                        && parent_path.as_deref() == Some(trim_slashes(&row.path))
                        && row.kind == b'd'
                    {
                        parent = row.dev.map(|d| (d, row.ino));
                    }
                    return;
                }
                let Some(below) = t.below(&row.path, row.depth) else {
                    return;
                };
                if below == 0 {
                    du.begin(parent);
                    begun = true;
                }
                let path = spelling.path(&row.path, below);
                du.push(&entry(&row, path, below));
            });
            failed = read.err();
        }
        if let Some(e) = failed {
            let mut m = qa(snapshot);
            m.extend_from_slice(b": ");
            m.extend_from_slice(e.to_string().as_bytes());
            sink.say(&m);
            return 1;
        }
        if !begun || !du.end() {
            let mut m = b"cannot access ".to_vec();
            m.extend_from_slice(&qa(f));
            m.extend_from_slice(b": not in the snapshot ");
            m.extend_from_slice(&qa(snapshot));
            sink.say(&m);
            sink.raise(1);
            continue;
        }
    }
    if !du.finish() {
        sink.raise(1);
    }
    sink.status()
}
