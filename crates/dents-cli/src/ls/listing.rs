//! A whole directory gathered in memory, for the listings that need all
//! entries before the first line: sorted ones and the long format (whose
//! columns are as wide as their widest value).
//!
//! Names go into one byte arena per reading thread (NUL-terminated, ready
//! for `statx`), and each entry is a small fixed-size [`Record`], so a
//! million entries cost about 100 MB rather than a million allocations.
//! The stats then run on several threads, relative to the directory's
//! descriptor, each thread taking a contiguous run of records (slice order:
//! measured no slower than inode order, docs/benchmarks.md).

use std::cmp::Ordering;
use std::ffi::CStr;
use std::os::fd::BorrowedFd;

use dents::dir::{Entry, FileType};
use dents::slice::EntrySink;
use dents::sys::{self, Statx};
use rustix::fs::StatxFlags;

use super::args::{Hidden, SortKey};
use crate::errors;

/// What a stat found out about one entry.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    /// `st_mode`: type and permission bits.
    pub mode: u32,
    /// The number of hard links.
    pub nlink: u32,
    /// Owner and group ids.
    pub uid: u32,
    /// The group id.
    pub gid: u32,
    /// Size in bytes.
    pub size: u64,
    /// 512-byte blocks allocated.
    pub blocks: u64,
    /// The inode number the stat reported.
    pub ino: u64,
    /// Modification time, seconds and nanoseconds.
    pub mtime: (i64, u32),
    /// Device numbers of a device file.
    pub rdev: (u32, u32),
    /// The character GNU ls puts after the mode: b' ', b'+' or b'.'.
    pub acl: u8,
}

/// One entry of a gathered listing.
#[derive(Clone, Debug)]
pub struct Record {
    arena: u16,
    name_start: u32,
    name_len: u16,
    /// The type from `d_type`, or from the stat once done.
    pub file_type: FileType,
    /// `d_ino`.
    pub ino: u64,
    /// The stat, if one was asked for and succeeded.
    pub meta: Option<Meta>,
    /// A symlink's target (long format only).
    pub target: Option<Box<[u8]>>,
    /// The type the symlink's target has, when it was needed (`-lF`).
    pub target_meta: Option<u32>,
}

/// What the stats must find out.
#[derive(Copy, Clone, Debug)]
pub struct StatNeeds {
    /// Fields for `statx`; empty means no stat at all.
    pub mask: StatxFlags,
    /// Read symlink targets.
    pub targets: bool,
    /// Stat symlink targets too (for the indicator after `-> target`).
    pub target_types: bool,
    /// Look for ACLs (the `+` after the mode).
    pub acl: bool,
}

/// A gathered directory: arenas of names and their records.
#[derive(Debug, Default)]
pub struct Listing {
    arenas: Vec<Vec<u8>>,
    /// The entries, in whatever order the listing is in.
    pub records: Vec<Record>,
}

impl Listing {
    /// The name of `r` as bytes.
    pub fn name(&self, r: &Record) -> &[u8] {
        let a = &self.arenas[r.arena as usize];
        &a[r.name_start as usize..r.name_start as usize + r.name_len as usize]
    }

    /// Builds a listing from the sinks of one read, in slice order.
    pub fn from_sinks(sinks: Vec<GatherSink>) -> Listing {
        let mut listing = Listing::default();
        for sink in sinks {
            let arena = listing.arenas.len() as u16;
            listing.arenas.push(sink.names);
            listing
                .records
                .extend(sink.records.into_iter().map(|mut r| {
                    r.arena = arena;
                    r
                }));
        }
        listing
    }

    /// Adds an entry by name (for `.`, `..` and command-line files).
    pub fn push_name(&mut self, name: &[u8], file_type: FileType, ino: u64) {
        if self.arenas.is_empty() {
            self.arenas.push(Vec::new());
        }
        let arena = self.arenas.len() - 1;
        let record = push_into(&mut self.arenas[arena], name, file_type, ino);
        self.records.push(Record {
            arena: arena as u16,
            ..record
        });
    }

    /// Stats every record relative to `dir` on `threads` threads.
    /// Failures are reported as ls reports them, with `dir_path` prefixed.
    pub fn stat_all(
        &mut self,
        dir: BorrowedFd<'_>,
        dir_path: &[u8],
        needs: StatNeeds,
        threads: usize,
    ) {
        if needs.mask.is_empty() {
            return;
        }
        let threads = threads.clamp(1, 64);
        let chunk = self.records.len().div_ceil(threads).max(1);
        let arenas = &self.arenas;
        std::thread::scope(|scope| {
            for part in self.records.chunks_mut(chunk) {
                scope.spawn(move || {
                    for r in part {
                        stat_one(arenas, r, dir, dir_path, needs);
                    }
                });
            }
        });
    }

    /// Sorts the records by `key`, reversed if asked, on `threads` threads.
    pub fn sort(&mut self, key: SortKey, reverse: bool, threads: usize) {
        if key == SortKey::None {
            if reverse {
                self.records.reverse();
            }
            return;
        }
        let arenas = &self.arenas;
        let cmp = |a: &Record, b: &Record| {
            let o = compare(arenas, key, a, b);
            if reverse {
                o.reverse()
            } else {
                o
            }
        };
        let records = std::mem::take(&mut self.records);
        self.records = parallel_sort(records, threads, &cmp);
    }
}

/// Appends `name` NUL-terminated to `arena` and returns its record.
fn push_into(arena: &mut Vec<u8>, name: &[u8], file_type: FileType, ino: u64) -> Record {
    let start = arena.len() as u32;
    arena.extend_from_slice(name);
    arena.push(0);
    Record {
        arena: 0,
        name_start: start,
        name_len: name.len() as u16,
        file_type,
        ino,
        meta: None,
        target: None,
        target_meta: None,
    }
}

/// The name of `r` within `arenas`.
fn arena_name<'a>(arenas: &'a [Vec<u8>], r: &Record) -> &'a [u8] {
    let a = &arenas[r.arena as usize];
    &a[r.name_start as usize..r.name_start as usize + r.name_len as usize]
}

/// Orders two records as ls does for `key` (ties broken by name).
fn compare(arenas: &[Vec<u8>], key: SortKey, a: &Record, b: &Record) -> Ordering {
    let by_name = || arena_name(arenas, a).cmp(arena_name(arenas, b));
    let mtime = |r: &Record| r.meta.as_ref().map_or((0, 0), |m| m.mtime);
    let size = |r: &Record| r.meta.as_ref().map_or(0, |m| m.size);
    match key {
        SortKey::None | SortKey::Name => by_name(),
        SortKey::Time => mtime(b).cmp(&mtime(a)).then_with(by_name),
        SortKey::Size => size(b).cmp(&size(a)).then_with(by_name),
    }
}

/// Sorts `v` with `cmp`: runs sorted on `threads` threads, then merged.
fn parallel_sort<F>(mut v: Vec<Record>, threads: usize, cmp: &F) -> Vec<Record>
where
    F: Fn(&Record, &Record) -> Ordering + Sync,
{
    let threads = threads.clamp(1, 16);
    if threads == 1 || v.len() < 16_384 {
        v.sort_unstable_by(cmp);
        return v;
    }
    let chunk = v.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for part in v.chunks_mut(chunk) {
            scope.spawn(move || part.sort_unstable_by(cmp));
        }
    });
    // k-way merge of the sorted runs: k is small, so a linear scan of the
    // run heads is cheaper than a heap.
    let total = v.len();
    let mut runs = Vec::new();
    let mut rest = v;
    while !rest.is_empty() {
        let tail = rest.split_off(chunk.min(rest.len()));
        runs.push(rest.into_iter());
        rest = tail;
    }
    let mut heads: Vec<Option<Record>> = runs.iter_mut().map(Iterator::next).collect();
    let mut merged = Vec::with_capacity(total);
    loop {
        let mut best: Option<usize> = None;
        for (i, head) in heads.iter().enumerate() {
            let Some(h) = head else { continue };
            let better = match best {
                Some(b) => cmp(h, heads[b].as_ref().expect("best has a head")) == Ordering::Less,
                None => true,
            };
            if better {
                best = Some(i);
            }
        }
        let Some(b) = best else { break };
        merged.push(heads[b].take().expect("best has a head"));
        heads[b] = runs[b].next();
    }
    merged
}

/// Stats one record, filling its meta (and target) or reporting failure.
fn stat_one(
    arenas: &[Vec<u8>],
    r: &mut Record,
    dir: BorrowedFd<'_>,
    dir_path: &[u8],
    needs: StatNeeds,
) {
    let a = &arenas[r.arena as usize];
    let start = r.name_start as usize;
    let name = CStr::from_bytes_with_nul(&a[start..start + r.name_len as usize + 1])
        .expect("NUL-terminated");
    match sys::statx_at(dir, name, needs.mask | StatxFlags::TYPE | StatxFlags::MODE) {
        Ok(st) => {
            let mut meta = meta_from(&st);
            if needs.acl {
                meta.acl = sys::acl_marker_at(dir, name).ok().flatten().unwrap_or(b' ');
            }
            r.file_type = FileType::from_mode(meta.mode);
            if r.file_type == FileType::SYMLINK {
                if needs.targets {
                    match sys::readlink_at(dir, name) {
                        Ok(t) => r.target = Some(t.into_boxed_slice()),
                        Err(e) => {
                            report_entry(dir_path, name.to_bytes(), "cannot read symbolic link", &e)
                        }
                    }
                }
                if needs.target_types {
                    r.target_meta =
                        sys::statx_follow_at(dir, name, StatxFlags::TYPE | StatxFlags::MODE)
                            .ok()
                            .map(|t| t.stx_mode as u32);
                }
            }
            r.ino = meta.ino;
            r.meta = Some(meta);
        }
        Err(e) => report_entry(dir_path, name.to_bytes(), "cannot access", &e),
    }
}

/// Reports a failure on one entry of a directory: a minor problem.
pub fn report_entry(dir_path: &[u8], name: &[u8], what: &str, e: &std::io::Error) {
    errors::report(errors::MINOR, what, &join_path(dir_path, name), e);
}

/// `dir/name` as ls prints it in messages (no `./` for the current dir).
pub fn join_path(dir: &[u8], name: &[u8]) -> Vec<u8> {
    if dir == b"." {
        return name.to_vec();
    }
    let mut p = dir.to_vec();
    if !p.ends_with(b"/") {
        p.push(b'/');
    }
    p.extend_from_slice(name);
    p
}

/// The fields of a `statx` result that listings use.
pub fn meta_from(st: &Statx) -> Meta {
    Meta {
        mode: st.stx_mode as u32,
        nlink: st.stx_nlink,
        uid: st.stx_uid,
        gid: st.stx_gid,
        size: st.stx_size,
        blocks: st.stx_blocks,
        ino: st.stx_ino,
        mtime: (st.stx_mtime.tv_sec, st.stx_mtime.tv_nsec),
        rdev: (st.stx_rdev_major, st.stx_rdev_minor),
        acl: b' ',
    }
}

/// Gathers one slice's entries into an arena and records.
#[derive(Debug)]
pub struct GatherSink {
    hidden: Hidden,
    names: Vec<u8>,
    records: Vec<Record>,
}

impl GatherSink {
    /// An empty sink that skips what `hidden` hides.
    pub fn new(hidden: Hidden) -> GatherSink {
        GatherSink {
            hidden,
            names: Vec::new(),
            records: Vec::new(),
        }
    }
}

impl EntrySink for GatherSink {
    fn entry(&mut self, _dir: BorrowedFd<'_>, e: &Entry<'_>) {
        let name = e.name();
        if self.hidden == Hidden::Hide && name.first() == Some(&b'.') {
            return;
        }
        let r = push_into(&mut self.names, name, e.file_type(), e.ino());
        self.records.push(r);
    }
}
