//! `dents find --from SNAPSHOT [PATH...] [EXPRESSION]`: find's language
//! on the entries a snapshot stored (`dents scan`), not on the tree.
//!
//! The evaluator is find's own ([`dents_find::Command`]): only the walk
//! differs.  [`SnapshotWalk`] is a [`dents_find::Walk`] that reads the
//! snapshot's rows below each PATH and hands each to the evaluator as a
//! [`Visit`] whose stat is the row ([`Visit::recorded`]): a stored row is
//! a stat already fetched, so every test that reads a stat (`-size`,
//! `-perm`, `-user`, the times, `-ls`, `-printf`'s numbers) answers from
//! the snapshot, and nothing is stat'ed again.  What only the live tree
//! knows is reached through the entry's path, relative to the current
//! directory: `-readable` and kin, `-xtype`, `-empty` on a directory,
//! `-lname` and `%l`, `-exec` and `-ok`, and `%Y`.  What would act on or
//! need a place in the live tree that a path cannot stand for
//! (`-delete`, `-execdir`, `-okdir`) or a field no snapshot keeps (birth
//! times) is refused before anything runs.  docs/conformance.md lists
//! each predicate.
//!
//! Entries come in the snapshot's order (level order: a directory's
//! entries after every entry of the levels above), `-depth` included:
//! it only stops `-prune`, as in find.  PATHs default to the snapshot's
//! roots; a PATH must be a root or a path below one, spelt as the root
//! was given; one that is not is an error (find's `'PATH': ...` message).

use std::collections::HashSet;
use std::ffi::{CStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;

use dents::walk::{Recorded, Visit, Visitor, WalkOptions};
use dents::{Error, ErrorKind, Operation};
use dents::{Flow, Follow};
use dents::{Metadata, StatFields};
use dents::{RecordedStat, Timestamp};
use dents_snap::{Row, ScanRecord, SnapshotReader};

use crate::snapshot::{self, for_each_row, locate, trim_slashes, Scanned, Spelling};
use crate::{errors, quote};

/// `'x'`, quoted as GNU quotes names in messages.
fn qa(s: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    quote::for_message(&mut v, s);
    v
}

/// Writes `dents: TEXT` on standard error.
fn say(text: &[u8]) {
    let mut m = b"dents: ".to_vec();
    m.extend_from_slice(text);
    m.push(b'\n');
    errors::write_stderr(&m);
}

/// Runs `dents find --from ...` (`argv[0]` is `find`, `argv[1]` the
/// `--from` option); the exit status.
pub(crate) fn main(argv: &[OsString]) -> i32 {
    let first = argv[1].as_bytes();
    let (snapshot, rest) = match first.strip_prefix(b"--from=") {
        Some(s) => (s.to_vec(), &argv[2..]),
        None => match argv.get(2) {
            Some(s) => (s.as_bytes().to_vec(), &argv[3..]),
            None => {
                say(b"option '--from' requires an argument");
                errors::write_stderr(b"Try 'dents find --help' for more information.\n");
                return 1;
            }
        },
    };
    let mut command = match dents_find::Command::parse(rest) {
        Ok(c) => c.ending_when_reader_gone(),
        Err(e) => {
            e.report();
            return 1;
        }
    };
    if let Some(why) = refused(&command) {
        say(why.as_bytes());
        return 1;
    }
    let reader = match snapshot::open(&snapshot) {
        Ok(r) => r,
        Err(why) => {
            say(why.as_bytes());
            return 1;
        }
    };
    command.default_paths_to(&reader.record().roots);
    let mut walk = SnapshotWalk {
        reader: &reader,
        snapshot: &snapshot,
        started: false,
        stopped: false,
        status: 0,
    };
    let status = command.run_with(&mut walk).code();
    status.max(walk.status)
}

/// Why the command cannot run on a snapshot, if it cannot: a primary
/// that acts on the live tree where a path cannot stand for it, or that
/// reads a field no snapshot keeps.
fn refused(command: &dents_find::Command) -> Option<String> {
    for words in command.primaries() {
        let Some(name) = words.first() else { continue };
        let word = String::from_utf8_lossy(name);
        let live = match name.as_slice() {
            b"-delete" => Some("deletes from the live tree"),
            b"-execdir" | b"-okdir" => Some("runs in the live entry's directory"),
            _ => None,
        };
        if let Some(what) = live {
            return Some(format!(
                "{word} {what}: not with --from (a snapshot's entries are read, not the tree)"
            ));
        }
        let birth = match name.as_slice() {
            w if w.len() == 8 && w.starts_with(b"-newer") => w[6] == b'B' || w[7] == b'B',
            b"-printf" | b"-fprintf" => words.last().is_some_and(|f| asks_birth(f)),
            _ => false,
        };
        if birth {
            return Some(format!(
                "{word} needs birth times, which a snapshot does not keep: not with --from"
            ));
        }
    }
    None
}

/// Whether a `-printf` format has a `%B` (birth time) directive.
fn asks_birth(format: &[u8]) -> bool {
    let mut i = 0;
    while i < format.len() {
        if format[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        if format.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        while i < format.len() && b"-+ #0123456789.".contains(&format[i]) {
            i += 1;
        }
        if format.get(i) == Some(&b'B') {
            return true;
        }
    }
    false
}

/// The walks of a find command over a snapshot's rows.
struct SnapshotWalk<'r> {
    reader: &'r SnapshotReader,
    /// The snapshot's name, as given.
    snapshot: &'r [u8],
    /// The first walk has begun (the checks made, the scan's errors said).
    started: bool,
    /// Refused, or the snapshot could not be read: no more walks.
    stopped: bool,
    /// 1 after a problem said here (not through the evaluator).
    status: i32,
}

/// Why the snapshot cannot answer for a walk with `opts`, if it cannot:
/// options that change what the walk meets must be the scan's.
fn snapshot_refusal(snapshot: &[u8], record: &ScanRecord, opts: &WalkOptions) -> Option<String> {
    let name = String::from_utf8_lossy(&qa(snapshot)).into_owned();
    let scanned = Scanned::from_options(&record.options);
    // What find reads beyond names, types and inodes is a stat.
    let beyond_names =
        opts.get_stat_fields().bits() & !(StatFields::TYPE | StatFields::INO).bits() != 0;
    if scanned.names_only && beyond_names {
        return Some(format!(
            "{name}: a snapshot of names only (scanned with --names-only): \
             the expression needs what a stat gives"
        ));
    }
    scanned.refusal(
        &name,
        "find",
        opts.get_follow(),
        opts.get_same_file_system(),
        "-xdev",
    )
}

/// A row's stat, as a stat would have given it.  The device a device
/// file stands for is not stored: it is read from the live entry at
/// `path` (0 if it is gone).
fn metadata(row: &Row, path: &[u8]) -> Metadata {
    let mut fields = StatFields::TYPE | StatFields::INO;
    let mut has = |present: bool, f: StatFields| {
        if present {
            fields |= f;
        }
    };
    has(row.mode.is_some(), StatFields::MODE);
    has(row.nlink.is_some(), StatFields::NLINK);
    has(row.uid.is_some(), StatFields::UID);
    has(row.gid.is_some(), StatFields::GID);
    has(row.size.is_some(), StatFields::SIZE);
    has(row.blocks.is_some(), StatFields::BLOCKS);
    has(row.atime.is_some(), StatFields::ATIME);
    has(row.mtime.is_some(), StatFields::MTIME);
    has(row.ctime.is_some(), StatFields::CTIME);
    let time = |ns: Option<i64>| {
        let ns = ns.unwrap_or(0);
        Timestamp {
            secs: ns.div_euclid(1_000_000_000),
            nsecs: ns.rem_euclid(1_000_000_000) as u32,
        }
    };
    let rdev = if matches!(row.kind, b'b' | b'c') {
        std::fs::symlink_metadata(std::ffi::OsStr::from_bytes(path)).map_or(0, |m| m.rdev())
    } else {
        0
    };
    // A names-only row has no mode: its type still comes from it.
    let type_bits = match row.kind {
        b'f' => 0o100000,
        b'd' => 0o040000,
        b'l' => 0o120000,
        b'b' => 0o060000,
        b'c' => 0o020000,
        b'p' => 0o010000,
        b's' => 0o140000,
        _ => 0,
    };
    RecordedStat {
        fields,
        mode: row.mode.unwrap_or(type_bits),
        nlink: row.nlink.unwrap_or(0).max(0) as u64,
        uid: row.uid.unwrap_or(0),
        gid: row.gid.unwrap_or(0),
        ino: row.ino,
        len: row.size.unwrap_or(0).max(0) as u64,
        blocks: row.blocks.unwrap_or(0).max(0) as u64,
        dev: row.dev.unwrap_or(0),
        rdev,
        atime: time(row.atime),
        mtime: time(row.mtime),
        ctime: time(row.ctime),
    }
    .into()
}

/// The directory holding `path` (names joined with `/`), trimmed.
fn parent_of(path: &[u8]) -> &[u8] {
    match path.iter().rposition(|&c| c == b'/') {
        Some(0) => b"/",
        Some(i) => trim_slashes(&path[..i]),
        None => b"",
    }
}

impl SnapshotWalk<'_> {
    /// The error of a starting point the snapshot does not hold: looked
    /// up (not stat'ed) in it, so what a stat of it would have failed.
    fn not_stored(&self, root: &[u8]) -> Error {
        let mut m = b"not in the snapshot ".to_vec();
        m.extend_from_slice(&qa(self.snapshot));
        let io = std::io::Error::other(String::from_utf8_lossy(&m).into_owned());
        Error::new(root.to_vec(), 0, Operation::Stat, ErrorKind::Io(io))
    }

    /// Visits the entries of the snapshot below `root` (a PATH as
    /// given); `false` once the visitor quits or the snapshot fails.
    fn walk_one<V: Visitor>(
        &mut self,
        root: &[u8],
        opts: &WalkOptions,
        visitor: &V,
        st: &mut V::State,
    ) -> bool {
        let record = self.reader.record();
        // Several trailing slashes count as one, as the walk keeps them.
        let Some(t) = locate(&record.roots, root) else {
            visitor.error(st, self.not_stored(root));
            return true;
        };
        let mut spelling = Spelling::new(root, &t);
        let mut at_name: Vec<u8> = Vec::new();
        // Directories whose entries are not visited (pruned, excluded,
        // on another file system with -xdev), by stored path.
        let mut skipped: HashSet<Vec<u8>> = HashSet::new();
        let mut root_dev = None;
        let mut found = false;
        let mut quit = false;
        let read = for_each_row(self.reader, u32::MAX, |row| {
            if quit {
                return;
            }
            let Some(below) = t.below(&row.path, row.depth) else {
                return;
            };
            if below > opts.get_max_depth() {
                return;
            }
            let is_dir = row.kind == b'd';
            if below > 0 && !skipped.is_empty() && skipped.contains(parent_of(&row.path)) {
                if is_dir {
                    skipped.insert(trim_slashes(&row.path).to_vec());
                }
                return;
            }
            found = true;
            let path = spelling.path(&row.path, below);
            at_name.clear();
            at_name.extend_from_slice(path);
            at_name.push(0);
            let Ok(name) = CStr::from_bytes_with_nul(&at_name) else {
                return;
            };
            let follow = opts.get_follow() == Follow::Always
                || opts.get_follow() == Follow::Roots && below == 0;
            let v = Visit::recorded(
                Recorded {
                    path,
                    root_len: root.len(),
                    depth: below,
                    dir: rustix::fs::CWD,
                    at_name: name,
                    file_type: dents_snap::schema::letter_type(row.kind),
                    follow,
                },
                metadata(&row, path),
            );
            let dev = row.dev.unwrap_or(0);
            if below == 0 {
                root_dev = Some(dev);
            }
            let mut enter = is_dir;
            if visitor.excluded(st, &v) {
                if is_dir {
                    skipped.insert(trim_slashes(&row.path).to_vec());
                }
                return;
            }
            if below >= opts.get_min_depth() {
                match visitor.visit(st, &v) {
                    Flow::Continue => {}
                    Flow::Prune => enter = false,
                    Flow::Quit => {
                        quit = true;
                        return;
                    }
                }
            }
            // -xdev: a mount point is visited, not entered.
            if opts.get_same_file_system() && root_dev.is_some_and(|d| d != dev) {
                enter = false;
            }
            if is_dir && !enter {
                skipped.insert(trim_slashes(&row.path).to_vec());
            }
        });
        if let Err(e) = read {
            let mut m = qa(self.snapshot);
            m.extend_from_slice(b": ");
            m.extend_from_slice(e.to_string().as_bytes());
            say(&m);
            self.status = 1;
            self.stopped = true;
            return false;
        }
        if !found {
            visitor.error(st, self.not_stored(root));
        }
        !quit
    }
}

impl dents_find::Walk for SnapshotWalk<'_> {
    fn walk<V: Visitor>(&mut self, roots: &[Vec<u8>], opts: &WalkOptions, visitor: &V) {
        if !self.started {
            self.started = true;
            let record = self.reader.record();
            if let Some(why) = snapshot_refusal(self.snapshot, record, opts) {
                say(why.as_bytes());
                self.status = 1;
                self.stopped = true;
            } else {
                // What the scan could not read, said again in find's
                // words (`'PATH': CAUSE`): find on the tree would say it.
                for e in &record.errors {
                    let e = e
                        .strip_prefix(b"cannot read directory ")
                        .or_else(|| e.strip_prefix(b"cannot access "))
                        .unwrap_or(e);
                    say(e);
                    self.status = 1;
                }
                if record.error_count > 0 {
                    self.status = 1;
                }
            }
        }
        if self.stopped {
            return;
        }
        let mut st = visitor.state();
        for root in roots {
            if !self.walk_one(root, opts, visitor, &mut st) {
                break;
            }
        }
        visitor.finish(st);
    }
}
