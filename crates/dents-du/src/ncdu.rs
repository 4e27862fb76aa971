//! ncdu's JSON export (format 1.2, <https://dev.yorhel.nl/ncdu/jsonfmt>):
//! what `ncdu -f FILE` and `gdu -f FILE` browse.
//!
//! ```text
//! [1,2,{"progname":"dents",...},
//!   [{"name":"/root","asize":..,"dsize":..,"dev":..,"ino":..},   a directory: an array,
//!    {"name":"file","asize":..,"dsize":..,"ino":..},              its own info first,
//!    [{"name":"sub",...}, ...]]]                                  then its items
//! ```
//!
//! A directory that could not be read (or searched) carries
//! `"read_error":true`, as ncdu writes it; entries `--exclude` or `-x`
//! leave out are written by name with `"excluded"` (`"pattern"`,
//! `"othfs"`), as ncdu writes them.  Items carry their own sizes only (readers add them up); hard links
//! carry `hlnkc`, `ino` and `nlink` so that readers count them once
//! (every link is exported, as ncdu does).  Names are bytes: `"`, `\`
//! and control bytes are escaped, every other byte (UTF-8 or not) is
//! written as it is, as ncdu writes them.
//!
//! The format nests a directory's items inside it, in pre-order, while
//! the parallel walk finishes subtrees in any order: each directory's
//! items are gathered in its [`ExportDir`] and the finished subtree is
//! appended to its parent's as a whole.  So that the export (about 70
//! bytes an entry) is not held in memory whole, a directory holding more
//! than 1 MiB of JSON writes it to an unlinked temporary file in
//! `$TMPDIR` and keeps only its place (`spill.rs`); the export is written
//! at the end from both, in order.  The du lines do not depend on it.

mod spill;

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

pub use spill::SpillError;
use spill::{Parts, Spill};

use dents::FileType;
use dents::Metadata;

/// The items of one directory, gathered as JSON (each item preceded by a
/// comma: the directory's own info object comes first).  One made by
/// [`Export::new_dir`] spills to its export's temporary file; a default
/// one keeps everything in memory.
#[derive(Debug, Default)]
pub struct ExportDir {
    items: Mutex<Parts>,
    /// The directory could not be read (whole): ncdu's `read_error`.
    read_error: AtomicBool,
    spill: Option<Arc<Spill>>,
}

/// Why an entry is left out of the scan (ncdu's `excluded` values).
#[derive(Clone, Copy, Debug)]
pub enum Excluded<'a> {
    /// `--exclude`, `-X`: `"pattern"`.
    Pattern,
    /// On another filesystem under `-x` (its stat): `"othfs"`.
    OtherFs(&'a Metadata),
}

/// The whole export of one argument.
#[derive(Debug, Default)]
pub struct Export {
    root: Mutex<Parts>,
    /// Where directories' JSON goes past a threshold.
    spill: Arc<Spill>,
    /// The name the top directory is given (ncdu writes its absolute path).
    root_name: Mutex<Option<Vec<u8>>>,
}

/// Appends `s` as a JSON string.
fn push_str(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    for &c in s {
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            c if c < 0x20 => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(c >> 4) as usize]);
                out.push(HEX[(c & 15) as usize]);
            }
            c => out.push(c),
        }
    }
    out.push(b'"');
}

fn push_num(out: &mut Vec<u8>, key: &str, n: u64) {
    out.push(b',');
    out.push(b'"');
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":");
    dents_tools::numfmt::push_u64(out, n);
}

/// The info object of an entry.
fn push_info(out: &mut Vec<u8>, name: &[u8], st: &Metadata, with_dev: bool, read_error: bool) {
    let t = st.file_type();
    out.extend_from_slice(b"{\"name\":");
    push_str(out, name);
    let asize = if t == FileType::REGULAR || t == FileType::SYMLINK || t.is_dir() {
        st.len()
    } else {
        0
    };
    push_num(out, "asize", asize);
    push_num(out, "dsize", st.blocks().saturating_mul(512));
    if with_dev || t.is_dir() {
        push_num(out, "dev", st.dev());
    }
    push_num(out, "ino", st.ino());
    if !t.is_dir() && st.nlink() > 1 {
        out.extend_from_slice(b",\"hlnkc\":true");
        push_num(out, "nlink", st.nlink());
    }
    if !t.is_dir() && t != FileType::REGULAR {
        out.extend_from_slice(b",\"notreg\":true");
    }
    if read_error {
        out.extend_from_slice(b",\"read_error\":true");
    }
    out.push(b'}');
}

/// A directory as an array: its info, then its items (a comma first
/// unless it is the top directory).  Its items' memory part is copied,
/// their spilled segments are referred to.
fn dir_array(name: &[u8], st: &Metadata, items: Option<&ExportDir>, root: bool) -> Parts {
    let mut head = Vec::with_capacity(96 + name.len());
    if !root {
        head.push(b',');
    }
    head.push(b'[');
    let read_error = items.is_some_and(|d| d.read_error.load(Ordering::Relaxed));
    push_info(&mut head, name, st, root, read_error);
    let mut out = Parts::default();
    out.push(&head, None);
    if let Some(d) = items {
        out.push_parts(&d.lock(), None);
    }
    out.push(b"]", None);
    out
}

impl ExportDir {
    fn lock(&self) -> std::sync::MutexGuard<'_, Parts> {
        self.items.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a file (anything not walked into).
    pub fn push_file(&self, name: &[u8], st: &Metadata) {
        let mut out = Vec::with_capacity(96 + name.len());
        out.push(b',');
        push_info(&mut out, name, st, false, false);
        self.push_items(&out);
    }

    /// Adds an entry left out of the scan, as ncdu 1.18 writes it: a
    /// name and why, without sizes.  ncdu does not stat what a pattern
    /// excludes, so its device is 0 (written, as ncdu writes a device
    /// unlike its parent's); a mount point under `-x` keeps its device,
    /// and is a directory of nothing when it is one.
    pub fn push_excluded(&self, name: &[u8], why: Excluded<'_>) {
        let mut out = Vec::with_capacity(48 + name.len());
        out.push(b',');
        let dir = matches!(why, Excluded::OtherFs(st) if st.file_type().is_dir());
        if dir {
            out.push(b'[');
        }
        out.extend_from_slice(b"{\"name\":");
        push_str(&mut out, name);
        match why {
            Excluded::Pattern => out.extend_from_slice(b",\"dev\":0,\"excluded\":\"pattern\""),
            Excluded::OtherFs(st) => {
                push_num(&mut out, "dev", st.dev());
                out.extend_from_slice(b",\"excluded\":\"othfs\"");
            }
        }
        out.push(b'}');
        if dir {
            out.push(b']');
        }
        self.push_items(&out);
    }

    /// Adds a finished subdirectory with its items.
    pub fn push_dir(&self, name: &[u8], st: &Metadata, items: Option<&ExportDir>) {
        let part = dir_array(name, st, items, false);
        self.lock().push_parts(&part, self.spill.as_deref());
    }

    /// Adds items made elsewhere: a [`dir_item`], or what another part of
    /// the directory gathered ([`ExportDir::take`]).
    pub fn push_items(&self, items: &[u8]) {
        self.lock().push(items, self.spill.as_deref());
    }

    /// Marks the directory as not read (whole): ncdu's `"read_error":true`
    /// in its info.
    pub fn mark_read_error(&self) {
        self.read_error.store(true, Ordering::Relaxed);
    }

    /// The items gathered so far, taken out (each preceded by a comma).
    pub fn take(&self) -> Vec<u8> {
        let parts = std::mem::take(&mut *self.lock());
        parts.to_vec(self.spill.as_deref())
    }
}

/// A finished subdirectory with its items as [`ExportDir::push_dir`]
/// adds it to its parent's (a comma first): for a parent whose items
/// are gathered elsewhere (another process, in `dents-mpi`).
pub fn dir_item(name: &[u8], st: &Metadata, items: Option<&ExportDir>) -> Vec<u8> {
    dir_array(name, st, items, false).to_vec(items.and_then(|d| d.spill.as_deref()))
}

/// `path` made absolute (without resolving links), as ncdu names the
/// directory it scanned.
pub fn absolute(path: &[u8]) -> Vec<u8> {
    if path.starts_with(b"/") {
        return path.to_vec();
    }
    let mut abs = std::env::current_dir()
        .map(|d| d.into_os_string().into_encoded_bytes())
        .unwrap_or_default();
    for part in path.split(|&c| c == b'/') {
        match part {
            b"" | b"." => {}
            b".." => {
                if let Some(i) = abs.iter().rposition(|&c| c == b'/') {
                    abs.truncate(i.max(1));
                }
            }
            p => {
                if !abs.ends_with(b"/") {
                    abs.push(b'/');
                }
                abs.extend_from_slice(p);
            }
        }
    }
    abs
}

impl Export {
    /// An empty export.
    pub fn new() -> Export {
        Export::default()
    }

    /// A directory's record, spilling to this export's temporary file.
    pub fn new_dir(&self) -> ExportDir {
        ExportDir {
            spill: Some(self.spill.clone()),
            ..ExportDir::default()
        }
    }

    /// Where the temporary file is made (by default `$TMPDIR`, else
    /// `/tmp`); before the walk.
    pub fn set_spill_dir(&self, dir: &Path) {
        self.spill.set_dir(dir);
    }

    /// The memory a directory's JSON may hold before it is spilled
    /// (default 1 MiB; `usize::MAX`: never, all in memory); before the
    /// walk.  For tests, which compare tiny thresholds with none.
    #[doc(hidden)]
    pub fn set_spill_threshold(&self, bytes: usize) {
        self.spill.set_threshold(bytes);
    }

    /// Why the export was lost, if the temporary file could not be made
    /// or written (taken out: said once).
    pub fn spill_error(&self) -> Option<SpillError> {
        self.spill.take_error()
    }

    fn lock_root(&self) -> std::sync::MutexGuard<'_, Parts> {
        self.root.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Names the top directory (ncdu and gdu show it as the path
    /// scanned: an absolute one); by default, the argument as given.
    pub fn set_root_name(&self, name: &[u8]) {
        *self.root_name.lock().unwrap_or_else(|e| e.into_inner()) = Some(name.to_vec());
    }

    fn name_for<'a>(&self, path: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        match &*self.root_name.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(n) => std::borrow::Cow::Owned(n.clone()),
            None => std::borrow::Cow::Borrowed(path),
        }
    }

    /// The argument was a directory: its tree.
    pub fn root_dir(&self, path: &[u8], st: &Metadata, items: Option<&ExportDir>) {
        let name = self.name_for(path);
        let part = dir_array(&name, st, items, true);
        let mut r = self.lock_root();
        *r = Parts::default();
        r.push_parts(&part, Some(&self.spill));
    }

    /// The argument was not a directory: exported as a directory of
    /// nothing (the format's top level is a directory).
    pub fn root_file(&self, path: &[u8], st: &Metadata) {
        let name = self.name_for(path);
        let mut out = vec![b'['];
        push_info(&mut out, &name, st, true, false);
        out.push(b']');
        let mut r = self.lock_root();
        *r = Parts::default();
        r.push(&out, Some(&self.spill));
    }

    /// The top directory's JSON, taken out (for the process that writes
    /// the export, when another finished the top directory).
    pub fn take_root_json(&self) -> Vec<u8> {
        std::mem::take(&mut *self.lock_root()).to_vec(Some(&self.spill))
    }

    /// Appends to the top directory's JSON a part of what
    /// [`Export::take_root_json`] gave elsewhere (parts in order).
    pub fn extend_root_json(&self, part: &[u8]) {
        self.lock_root().push(part, Some(&self.spill));
    }

    /// Writes the export; `timestamp`: seconds since the epoch.
    ///
    /// Nothing when the argument was never scanned (it could not be
    /// stat'ed): the format has no way to say so (its top level is a
    /// directory), and ncdu leaves its file empty then too, rather than
    /// a document that no reader takes.  An error if the temporary file
    /// failed (see [`Export::spill_error`]).
    pub fn write_to(&self, w: &mut dyn Write, timestamp: i64) -> io::Result<()> {
        if let Some(e) = self.spill.take_error() {
            return Err(e.error);
        }
        let root = self.lock_root();
        if root.is_empty() {
            return w.flush();
        }
        let mut head = Vec::new();
        head.extend_from_slice(b"[1,2,{\"progname\":\"dents\",\"progver\":");
        push_str(&mut head, env!("CARGO_PKG_VERSION").as_bytes());
        head.extend_from_slice(b",\"timestamp\":");
        dents_tools::numfmt::push_u64(&mut head, timestamp.max(0) as u64);
        head.extend_from_slice(b"},\n");
        w.write_all(&head)?;
        root.write_to(Some(&self.spill), w)?;
        if let Some(e) = self.spill.take_error() {
            return Err(e.error);
        }
        w.write_all(b"]\n")?;
        w.flush()
    }
}
