//! `dents.scandir_split`: IO::AIO's `aio_scandir` call, on the library's
//! `scan` module (link count, likely directories first, before/after check).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::Ordering;

use dents::dir::RawEntry;
use dents::scan::{self, Counters, DirState, Kind, ResolveOptions, Unknown, Want};
use dents::slice::{self, EntrySink, ReadOptions};
use dents::FileType;

/// Stats in flight while resolving entries of unknown type.
const IN_FLIGHT: usize = 4;

#[derive(Default)]
struct Collect {
    entries: Vec<(CString, u64, FileType)>,
}

impl EntrySink for Collect {
    fn entry(&mut self, _dir: BorrowedFd<'_>, e: &RawEntry<'_>) {
        self.entries
            .push((e.name_cstr().to_owned(), e.ino(), e.file_type()));
    }
}

/// The subdirectories and the other entries of `path` (names as bytes),
/// and what it took: `(stats, by_dtype, by_nlink, fallbacks)`.
pub type Split = (Vec<Vec<u8>>, Vec<Vec<u8>>, [u64; 4]);

/// Splits the directory `path` into subdirectories (real ones: a symlink
/// to a directory is not one, as `lstat` says) and the rest.  Entries that
/// vanish before they can be stat'ed are left out.
pub fn split(path: &std::ffi::CStr, threads: usize) -> io::Result<Split> {
    let fd = dents::fs::open_dir(path)?;
    let before = DirState::of(fd.as_fd()).unwrap_or_else(|_| DirState::unusable());
    let opts = ReadOptions::new().threads(threads);
    let outcome = slice::read_dir(fd.as_fd(), &opts, |_| Collect::default());
    if let Some(e) = outcome.errors.into_iter().next() {
        return Err(e);
    }
    let entries: Vec<(CString, u64, FileType)> =
        outcome.sinks.into_iter().flat_map(|s| s.entries).collect();
    let counters = Counters::default();
    let known_subdirs = entries.iter().filter(|e| e.2.is_dir()).count() as u64;
    let mut unknown: Vec<Unknown<'_>> = entries
        .iter()
        .filter(|e| e.2.is_unknown())
        .map(|e| Unknown {
            name: &e.0,
            ino: e.1,
            kind: Kind::Unknown,
        })
        .collect();
    counters
        .by_dtype
        .fetch_add((entries.len() - unknown.len()) as u64, Ordering::Relaxed);
    scan::resolve_unknown(
        fd.as_fd(),
        &before,
        known_subdirs,
        &mut unknown,
        ResolveOptions {
            want: Want::DirOrNot,
            in_flight: IN_FLIGHT,
        },
        &counters,
    );
    let mut kinds = unknown.iter().map(|u| u.kind);
    let (mut dirs, mut nondirs) = (Vec::new(), Vec::new());
    for (name, _, t) in &entries {
        let kind = if t.is_unknown() {
            kinds.next().unwrap_or(Kind::Unknown)
        } else {
            Kind::from_type(*t)
        };
        match kind {
            Kind::Dir => dirs.push(name.as_bytes().to_vec()),
            Kind::NotDir(_) => nondirs.push(name.as_bytes().to_vec()),
            Kind::Unknown => {} // vanished
        }
    }
    let g = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
    let stats = [
        g(&counters.stats),
        g(&counters.by_dtype),
        g(&counters.by_nlink),
        g(&counters.fallbacks),
    ];
    Ok((dirs, nondirs, stats))
}
