//! A whole directory gathered in memory, for the listings that need all
//! entries before the first line: sorted ones and the long format (whose
//! columns are as wide as their widest value).
//!
//! Names go into one byte arena per reading thread (NUL-terminated, ready
//! for `statx`), and each entry is a small fixed-size [`Record`], so a
//! million entries cost a few arenas' growth, not a million allocations.
//! A directory read in slices is stat'ed by its readers, each entry right
//! after it is read ([`GatherSink::stating`]): both cores are busy from
//! the first read on, not reading first and stat'ing after.  Otherwise
//! the stats run once the read is done, on several threads, relative to
//! the directory's descriptor, each thread taking blocks of records in
//! read order.  Inode order was not adopted: the project's first experiment
//! (a C program stat'ing 1M entries of one ext4 directory in read order
//! and in inode order, hot and cold) found it no faster either way, name
//! lookups rather than inode reads dominating.

use std::cmp::Ordering;
use std::ffi::{CStr, CString};
use std::os::fd::BorrowedFd;
use std::sync::{Arc, Mutex};

use dents::dir::RawEntry;
use dents::fs;
use dents::scan::{self, Counters, DirState, Kind, ResolveOptions, Unknown, Want};
use dents::slice::EntrySink;
use dents::FileType;
use dents::{Metadata, StatFields};

use super::args::{Hidden, SortKey};
use super::parts::Parts;
use crate::errors::{self, Status};

/// What a stat found out about one entry, packed: a million of these are
/// held at once.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    /// Size in bytes; for a device file, its major and minor numbers.
    size: u64,
    /// 512-byte blocks allocated.
    pub blocks: u64,
    /// Modification time, seconds.
    mtime_sec: i64,
    /// Modification time, nanoseconds.
    mtime_nsec: u32,
    /// The number of hard links.
    pub nlink: u32,
    /// The owner's id.
    pub uid: u32,
    /// The group's id.
    pub gid: u32,
    /// `st_mode`: type and permission bits; 0 until a stat succeeded.
    mode: u16,
}

impl Meta {
    /// `st_mode`.
    pub fn mode(&self) -> u32 {
        self.mode as u32
    }

    /// Size in bytes (0 for devices).
    pub fn size(&self) -> u64 {
        if self.is_device() {
            0
        } else {
            self.size
        }
    }

    /// Major and minor device numbers.
    pub fn rdev(&self) -> (u32, u32) {
        ((self.size >> 32) as u32, self.size as u32)
    }

    /// Whether this is a character or block device.
    pub fn is_device(&self) -> bool {
        matches!(self.mode as u32 & 0o170000, 0o020000 | 0o060000)
    }

    /// Modification time: seconds and nanoseconds.
    pub fn mtime(&self) -> (i64, u32) {
        (self.mtime_sec, self.mtime_nsec)
    }
}

/// No symlink target recorded.
const NO_TARGET: u32 = u32::MAX;

/// One entry of a gathered listing: fixed size, no allocation of its own.
#[derive(Clone, Debug)]
pub struct Record {
    /// `d_ino`, or the stat's inode number once stat'ed.
    pub ino: u64,
    meta: Meta,
    target: u32,
    name_start: u32,
    /// The mode of a symlink's target, when it was needed (`-lF`); 0 if not.
    pub target_mode: u16,
    name_len: u16,
    arena: u16,
    /// The type from `d_type`, or from the stat once done.
    pub file_type: FileType,
    /// The character GNU ls puts after the mode: b' ', b'+' or b'.'.
    pub acl: u8,
    /// A stat was asked for and failed.
    pub stat_failed: bool,
    /// The entry was gone at the stat and is not listed (our own
    /// short-lived descriptors in `/proc/self/fd`).
    gone: bool,
}

impl Record {
    /// The inode number as ls prints it: `?` where the stat failed.
    pub fn ino_text(&self) -> String {
        if self.stat_failed {
            "?".to_string()
        } else {
            self.ino.to_string()
        }
    }

    /// The stat, if one was asked for and succeeded.
    pub fn meta(&self) -> Option<&Meta> {
        (self.meta.mode != 0).then_some(&self.meta)
    }
}

/// What the stats must find out.
#[derive(Copy, Clone, Debug)]
pub struct StatNeeds {
    /// Fields for `statx`; empty means no stat at all.
    pub mask: StatFields,
    /// Read symlink targets.
    pub targets: bool,
    /// Stat symlink targets too (for the indicator after `-> target`).
    pub target_types: bool,
    /// Look for ACLs (the `+` after the mode).
    pub acl: bool,
}

/// A gathered directory: arenas of names, their records, and the order.
#[derive(Debug, Default)]
pub struct Listing {
    arenas: Vec<Vec<u8>>,
    /// The records, one part per arena: a sliced read's slices are not
    /// copied into one vector.
    records: Parts<Record>,
    /// Indices into `records` in listing order; empty: records' own order.
    order: Vec<u32>,
    targets: Vec<Box<[u8]>>,
    /// Hidden entries (not listed) that `d_type` called directories, and
    /// the names of hidden entries of unknown type, NUL-terminated: the
    /// link count counts hidden subdirectories too.
    hidden_dirs: u64,
    hidden_unknown: Vec<u8>,
    /// How many records, from the first, were stat'ed as they were read
    /// (by [`GatherSink::stating`]): [`Listing::stat_all`] skips them.
    stated: usize,
}

impl Listing {
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.records.len() == 0
    }

    /// The records in listing order.
    pub fn iter(&self) -> impl Iterator<Item = &Record> + '_ {
        (0..self.records.len()).map(|i| self.get(i))
    }

    /// The records in the order they are stored, not the listing's, part
    /// by part: the fastest way through all of them (one after the other
    /// in memory, parts on several threads), for what does not depend on
    /// the order (column widths, totals).
    pub fn stored_parts(&self) -> impl Iterator<Item = &[Record]> + '_ {
        self.records.parts()
    }

    /// The `i`th record in listing order.
    pub fn get(&self, i: usize) -> &Record {
        match self.order.get(i) {
            Some(&j) => self.records.get(j as usize),
            None => self.records.get(i),
        }
    }

    /// The name of `r` as bytes.
    pub fn name(&self, r: &Record) -> &[u8] {
        arena_name(&self.arenas, r)
    }

    /// The target of the symlink `r`, if it was read.
    pub fn target(&self, r: &Record) -> Option<&[u8]> {
        (r.target != NO_TARGET).then(|| &*self.targets[r.target as usize])
    }

    /// Builds a listing from the sinks of one read, in slice order, and
    /// reports what their stats could not find out (with `dir_path`
    /// prefixed), slice by slice in read order.
    pub fn from_sinks(mut sinks: Vec<GatherSink>, dir_path: &[u8], status: &Status) -> Listing {
        for sink in &mut sinks {
            for (name, what, e) in sink.failures.drain(..) {
                report_entry(status, dir_path, &name, what, &e);
            }
        }
        let stated = sinks.iter().all(|s| s.stat.is_some());
        let mut listing = Listing {
            targets: sinks
                .first()
                .and_then(|s| s.targets.as_ref())
                .map(|t| std::mem::take(&mut *t.lock().unwrap_or_else(|p| p.into_inner())))
                .unwrap_or_default(),
            ..Listing::default()
        };
        let mut parts = Vec::with_capacity(sinks.len());
        for (arena, mut sink) in sinks.into_iter().enumerate() {
            listing.hidden_dirs += sink.hidden_dirs;
            listing.hidden_unknown.append(&mut sink.hidden_unknown);
            sink.names.shrink_to_fit();
            listing.arenas.push(sink.names);
            // Made for another slice than the one it read (not by
            // `Lister::gather`): its records are told their arena here.
            if sink.arena as usize != arena {
                for r in &mut sink.records {
                    r.arena = arena as u16;
                }
            }
            parts.push(sink.records);
        }
        listing.records = Parts::from_parts(parts);
        if stated {
            listing.stated = listing.records.len();
        }
        listing
    }

    /// Lists the records in `order` (indices of all of them, in the order
    /// they were added) while the listing is not sorted.
    pub fn set_order(&mut self, order: Vec<u32>) {
        debug_assert_eq!(order.len(), self.records.len());
        self.order = order;
    }

    /// Adds an entry by name (for `.`, `..` and command-line files).
    pub fn push_name(&mut self, name: &[u8], file_type: FileType, ino: u64) {
        if self.arenas.is_empty() {
            self.arenas.push(Vec::new());
        }
        let arena = self.arenas.len() - 1;
        let record = push_into(&mut self.arenas[arena], name, file_type, ino, arena as u16);
        self.records.push(record);
    }

    /// Stats every record relative to `dir` on `threads` threads.
    /// Failures are reported as ls reports them, with `dir_path` prefixed.
    pub fn stat_all(
        &mut self,
        dir: BorrowedFd<'_>,
        dir_path: &[u8],
        needs: StatNeeds,
        threads: usize,
        status: &Status,
    ) {
        if needs.mask.is_empty() {
            return;
        }
        // Small listings (most directories of a tree under -R) are stat'ed
        // on this thread: starting threads would cost more than the stats.
        let threads = if self.records.len() - self.stated <= STAT_BLOCK {
            1
        } else {
            threads.clamp(1, 64)
        };
        let arenas = &self.arenas;
        let targets = std::sync::Mutex::new(std::mem::take(&mut self.targets));
        // Small blocks handed out on demand rather than one share per
        // thread: a thread that gets slower names (or less CPU) does not
        // leave the others idle at the end.
        if threads == 1 {
            let mut targets = targets;
            for r in self
                .records
                .chunks_mut_from(self.stated, STAT_BLOCK)
                .flatten()
            {
                stat_one(arenas, r, (dir, dir_path), needs, &targets, status);
            }
            self.targets = std::mem::take(targets.get_mut().unwrap_or_else(|p| p.into_inner()));
            self.settle_vanished(dir, dir_path, status);
            return;
        }
        let blocks = std::sync::Mutex::new(self.records.chunks_mut_from(self.stated, STAT_BLOCK));
        std::thread::scope(|scope| {
            for _ in 0..threads {
                let (targets, blocks) = (&targets, &blocks);
                crate::threads::spawn_or_run(scope, move || loop {
                    let next = blocks.lock().unwrap_or_else(|p| p.into_inner()).next();
                    let Some(part) = next else { break };
                    for r in part {
                        stat_one(arenas, r, (dir, dir_path), needs, targets, status);
                    }
                });
            }
        });
        drop(blocks);
        self.targets = targets.into_inner().unwrap_or_else(|p| p.into_inner());
        self.settle_vanished(dir, dir_path, status);
    }

    /// Entries gone between the read and their stat: in this process's own
    /// `/proc/self/fd`, the descriptors the read itself used, which GNU's
    /// listing does not have: dropped.  Elsewhere, reported as ls reports
    /// them.
    fn settle_vanished(&mut self, dir: BorrowedFd<'_>, dir_path: &[u8], status: &Status) {
        if !self.records.iter().any(|r| r.gone) {
            return;
        }
        if is_own_fd_dir(dir) {
            self.records.retain(|r| !r.gone);
            return;
        }
        let e = std::io::Error::from_raw_os_error(rustix::io::Errno::NOENT.raw_os_error());
        for r in self.records.iter_mut().filter(|r| r.gone) {
            r.gone = false;
            report_entry(
                status,
                dir_path,
                arena_name(&self.arenas, r),
                "cannot access",
                &e,
            );
        }
    }

    /// Learns the type of every record whose type is still unknown, with
    /// as few stats as `want` allows (see [`dents::scan`]).
    pub fn resolve_types(
        &mut self,
        dir: BorrowedFd<'_>,
        before: &DirState,
        want: Want,
        threads: usize,
        counters: &Counters,
    ) {
        // `.` and `..` (-a) are not among the links of subdirectories.
        let mut known_dirs = self
            .records
            .iter()
            .filter(|r| r.file_type.is_dir() && !matches!(self.name(r), b"." | b".."))
            .count() as u64;
        // Hidden subdirectories count in the link count but are not
        // listed: those of unknown type (dot names, usually few) are
        // stat'ed here.
        known_dirs += self.hidden_dirs;
        for name in self
            .hidden_unknown
            .split(|&b| b == 0)
            .filter(|n| !n.is_empty())
        {
            let name = CString::new(name).expect("names have no NUL");
            counters
                .stats
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if fs::stat_at(dir, &name, StatFields::TYPE).is_ok_and(|st| st.is_dir()) {
                known_dirs += 1;
            }
        }
        let arenas = &self.arenas;
        let mut idx = Vec::new();
        let mut unknown = Vec::new();
        for (i, r) in self.records.iter().enumerate() {
            if r.file_type.is_unknown() {
                let a = &arenas[r.arena as usize];
                let start = r.name_start as usize;
                let name = CStr::from_bytes_with_nul(&a[start..start + r.name_len as usize + 1])
                    .expect("NUL-terminated");
                idx.push(i);
                unknown.push(Unknown {
                    name,
                    ino: r.ino,
                    kind: Kind::Unknown,
                });
            } else {
                counters
                    .by_dtype
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let opts = ResolveOptions {
            want,
            in_flight: threads,
        };
        scan::resolve_unknown(dir, before, known_dirs, &mut unknown, opts, counters);
        let kinds: Vec<Kind> = unknown.iter().map(|u| u.kind).collect();
        for (i, kind) in idx.into_iter().zip(kinds) {
            self.records.get_mut(i).file_type = match kind {
                Kind::Dir => FileType::DIRECTORY,
                Kind::NotDir(t) => t,
                Kind::Unknown => FileType::UNKNOWN,
            };
        }
    }

    /// Sorts by `key`, reversed if asked, directories first if asked,
    /// on `threads` threads.  Names compare in the locale's collation
    /// (`strcoll`), as GNU's; `width`: a name's width on the screen (for
    /// `--sort=width`).
    pub fn sort(
        &mut self,
        key: SortKey,
        reverse: bool,
        dirs_first: bool,
        threads: usize,
        width: &(dyn Fn(&[u8]) -> usize + Sync),
    ) {
        if key == SortKey::None && !dirs_first {
            // GNU does not sort at all, -r or not; the order set (`.` and
            // `..` in their places) stays.
            return;
        }
        let order: Vec<u32> = (0..self.records.len() as u32).collect();
        let bytewise = dents_os::collation_is_bytewise();
        if key == SortKey::Name && bytewise && !dirs_first {
            self.order = self.sort_by_bytes(reverse, threads);
            return;
        }
        let (arenas, records) = (&self.arenas, &self.records);
        let ctx = SortCtx {
            arenas,
            key,
            bytewise,
            width,
        };
        let is_dir = |r: &Record| {
            r.file_type.is_dir()
                || (r.file_type == FileType::SYMLINK && r.target_mode as u32 & 0o170000 == 0o040000)
        };
        let cmp = |a: &u32, b: &u32| {
            let (ra, rb) = (records.get(*a as usize), records.get(*b as usize));
            if dirs_first {
                let o = is_dir(rb).cmp(&is_dir(ra));
                if o != Ordering::Equal {
                    return o;
                }
            }
            if key == SortKey::None {
                return if reverse { b.cmp(a) } else { a.cmp(b) };
            }
            let o = ctx.compare(ra, rb);
            if reverse {
                o.reverse()
            } else {
                o
            }
        };
        self.order = parallel_sort(order, threads, &cmp);
    }
}

impl Listing {
    /// The listing order by names as bytes (GNU's order in the C
    /// locales: `strcoll` is `strcmp` there).  Each name's first eight
    /// bytes, as one number, decide most comparisons without looking up
    /// the names (a name shorter than eight bytes ends in zeros, which no
    /// name holds, so the order is the bytes' order).
    fn sort_by_bytes(&self, reverse: bool, threads: usize) -> Vec<u32> {
        let arenas = &self.arenas;
        let keyed: Vec<(u64, u32)> = self
            .records
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let n = arena_name(arenas, r);
                let mut head = [0u8; 8];
                let k = n.len().min(8);
                head[..k].copy_from_slice(&n[..k]);
                (u64::from_be_bytes(head), i as u32)
            })
            .collect();
        let records = &self.records;
        let cmp = |a: &(u64, u32), b: &(u64, u32)| {
            a.0.cmp(&b.0).then_with(|| {
                let na = arena_name(arenas, records.get(a.1 as usize));
                let nb = arena_name(arenas, records.get(b.1 as usize));
                na[na.len().min(8)..].cmp(&nb[nb.len().min(8)..])
            })
        };
        let sorted = parallel_sort(keyed, threads, &cmp);
        let mut order: Vec<u32> = sorted.into_iter().map(|(_, i)| i).collect();
        if reverse {
            order.reverse();
        }
        order
    }
}

/// Whether `dir` is this process's own `/proc/self/fd` or `fdinfo`,
/// where the descriptors the read itself opened and closed appear.
fn is_own_fd_dir(dir: BorrowedFd<'_>) -> bool {
    let Ok(st) = fs::fstat(dir) else {
        return false;
    };
    [
        c"/proc/self/fd",
        c"/proc/self/fdinfo",
        c"/proc/thread-self/fd",
    ]
    .iter()
    .filter_map(|p| fs::stat_follow_at(rustix::fs::CWD, p, StatFields::INO).ok())
    .any(|s| s.ino() == st.ino() && s.dev() == st.dev())
}

/// Records stat'ed by one thread at a time in [`Listing::stat_all`].
const STAT_BLOCK: usize = 512;

/// Appends `name` NUL-terminated to `arena` and returns its record.
fn push_into(
    arena: &mut Vec<u8>,
    name: &[u8],
    file_type: FileType,
    ino: u64,
    arena_index: u16,
) -> Record {
    let start = arena.len() as u32;
    arena.extend_from_slice(name);
    arena.push(0);
    Record {
        ino,
        meta: Meta::default(),
        target: NO_TARGET,
        target_mode: 0,
        name_start: start,
        name_len: name.len() as u16,
        arena: arena_index,
        file_type,
        acl: b' ',
        stat_failed: false,
        gone: false,
    }
}

/// The name of `r` within `arenas`.
fn arena_name<'a>(arenas: &'a [Vec<u8>], r: &Record) -> &'a [u8] {
    let a = &arenas[r.arena as usize];
    &a[r.name_start as usize..r.name_start as usize + r.name_len as usize]
}

/// What comparing two records needs.
struct SortCtx<'a> {
    arenas: &'a [Vec<u8>],
    key: SortKey,
    /// The collation is byte order (C, POSIX, C.UTF-8).
    bytewise: bool,
    width: &'a (dyn Fn(&[u8]) -> usize + Sync),
}

impl SortCtx<'_> {
    /// Orders two names in the locale's collation.
    fn coll(&self, a: &[u8], b: &[u8]) -> Ordering {
        if self.bytewise {
            return a.cmp(b);
        }
        fn c(n: &[u8]) -> &CStr {
            CStr::from_bytes_until_nul(n).expect("NUL-terminated")
        }
        dents_os::strcoll(c(a), c(b))
    }

    /// Orders two records as ls does for `key` (ties broken by name).
    fn compare(&self, a: &Record, b: &Record) -> Ordering {
        let (na, nb) = (arena_cname(self.arenas, a), arena_cname(self.arenas, b));
        let by_name = || self.coll(na, nb);
        let mtime = |r: &Record| r.meta.mtime();
        let size = |r: &Record| r.meta.size();
        let bare = |n: &'_ [u8]| n[..n.len() - 1].to_vec();
        match self.key {
            SortKey::None | SortKey::Name => by_name(),
            SortKey::Time => mtime(b).cmp(&mtime(a)).then_with(by_name),
            SortKey::Size => size(b).cmp(&size(a)).then_with(by_name),
            SortKey::Version => {
                super::version::filevercmp(&bare(na), &bare(nb)).then_with(|| na.cmp(nb))
            }
            SortKey::Extension => {
                let ext = |n: &'_ [u8]| -> Vec<u8> {
                    match n.iter().rposition(|&c| c == b'.') {
                        Some(i) => n[i..].to_vec(),
                        None => vec![0],
                    }
                };
                self.coll(&ext(na), &ext(nb)).then_with(by_name)
            }
            SortKey::Width => {
                let w = |n: &[u8]| (self.width)(&n[..n.len() - 1]);
                w(na).cmp(&w(nb)).then_with(by_name)
            }
        }
    }
}

/// The name of `r` with its terminating NUL.
fn arena_cname<'a>(arenas: &'a [Vec<u8>], r: &Record) -> &'a [u8] {
    let a = &arenas[r.arena as usize];
    &a[r.name_start as usize..r.name_start as usize + r.name_len as usize + 1]
}

/// Sorts `v` with `cmp`: runs sorted on `threads` threads, then merged.
fn parallel_sort<T, F>(mut v: Vec<T>, threads: usize, cmp: &F) -> Vec<T>
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let threads = threads.clamp(1, 16);
    if threads == 1 || v.len() < 16_384 {
        v.sort_unstable_by(cmp);
        return v;
    }
    let chunk = v.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for part in v.chunks_mut(chunk) {
            crate::threads::spawn_or_run(scope, move || part.sort_unstable_by(cmp));
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
    let mut heads: Vec<Option<T>> = runs.iter_mut().map(Iterator::next).collect();
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

/// Stats one record of the pool of [`Listing::stat_all`], filling its
/// meta (and target) or reporting failure.
fn stat_one(
    arenas: &[Vec<u8>],
    r: &mut Record,
    (dir, dir_path): (BorrowedFd<'_>, &[u8]),
    needs: StatNeeds,
    targets: &std::sync::Mutex<Vec<Box<[u8]>>>,
    status: &Status,
) {
    let a = &arenas[r.arena as usize];
    let start = r.name_start as usize;
    let name = CStr::from_bytes_with_nul(&a[start..start + r.name_len as usize + 1])
        .expect("NUL-terminated");
    let found = stat_record(r, dir, name, needs);
    if let Some(t) = found.target {
        let mut targets = targets.lock().unwrap_or_else(|p| p.into_inner());
        r.target = targets.len() as u32;
        targets.push(t);
    }
    if let Some((what, e)) = found.failure {
        report_entry(status, dir_path, name.to_bytes(), what, &e);
    }
}

/// What a stat found beside the record it filled: the symlink's target
/// and what failed, for the caller to keep and to report.
struct Found {
    target: Option<Box<[u8]>>,
    failure: Option<(&'static str, std::io::Error)>,
}

/// Stats the entry `name` of `dir` into its record `r`.  A vanished
/// entry is only marked (`gone`), to be settled once all are stat'ed.
fn stat_record(r: &mut Record, dir: BorrowedFd<'_>, name: &CStr, needs: StatNeeds) -> Found {
    let mut found = Found {
        target: None,
        failure: None,
    };
    let st = match fs::stat_at(dir, name, needs.mask | StatFields::TYPE | StatFields::MODE) {
        Ok(st) => st,
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NOENT.raw_os_error()) => {
            // Reported (or dropped) once all are stat'ed.
            r.gone = true;
            r.stat_failed = true;
            return found;
        }
        Err(e) => {
            r.stat_failed = true;
            found.failure = Some(("cannot access", e));
            return found;
        }
    };
    r.meta = meta_from(&st);
    r.ino = st.ino();
    r.file_type = FileType::from_mode(r.meta.mode());
    if needs.acl {
        r.acl = dents_os::acl_marker_at(dir, name)
            .ok()
            .flatten()
            .unwrap_or(b' ');
    }
    if r.file_type != FileType::SYMLINK {
        return found;
    }
    if needs.targets {
        match fs::readlink_at(dir, name) {
            Ok(t) => found.target = Some(t.into_boxed_slice()),
            Err(e) => found.failure = Some(("cannot read symbolic link", e)),
        }
    }
    if needs.target_types {
        r.target_mode = fs::stat_follow_at(dir, name, StatFields::TYPE | StatFields::MODE)
            .map_or(0, |t| t.mode() as u16);
    }
    found
}

/// Reports a failure on one entry of a directory: a minor problem.
pub fn report_entry(
    status: &Status,
    dir_path: &[u8],
    name: &[u8],
    what: &'static str,
    e: &std::io::Error,
) {
    // Held with the directory's block under -R (said in GNU's order).
    super::notes::report(status, errors::MINOR, what, &join_path(dir_path, name), e);
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

/// The path of the subdirectory `name` of `dir` as `-R` names it (its
/// heading, its messages): as gnulib's `file_name_concat`, which GNU ls
/// uses there, `dir`'s trailing slashes are one and `.` is kept (`./a`),
/// unlike [`join_path`]'s (the names in messages about entries).
pub fn subdir_path(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let kept = dir
        .iter()
        .rposition(|&b| b != b'/')
        .map_or(dir.len(), |i| i + 1);
    let mut p = dir[..kept].to_vec();
    if !p.ends_with(b"/") {
        p.push(b'/');
    }
    p.extend_from_slice(name);
    p
}

/// The fields of a stat's result that listings use (a time the kernel did
/// not fill in reads as 0, as the raw `statx` field did).
pub fn meta_from(st: &Metadata) -> Meta {
    let mtime = st.mtime().map_or((0, 0), |t| (t.secs, t.nsecs));
    let mut meta = Meta {
        size: st.len(),
        blocks: st.blocks(),
        mtime_sec: mtime.0,
        mtime_nsec: mtime.1,
        nlink: st.nlink() as u32,
        uid: st.uid(),
        gid: st.gid(),
        mode: st.mode() as u16,
    };
    if meta.is_device() {
        meta.size = (st.rdev_major() as u64) << 32 | st.rdev_minor() as u64;
    }
    meta
}

/// Symlink targets read by the sinks of one read, in the order read.
pub type SharedTargets = Arc<Mutex<Vec<Box<[u8]>>>>;

/// Gathers one slice's entries into an arena and records, and with
/// [`GatherSink::stating`] stats each as it is read.
#[derive(Debug)]
pub struct GatherSink {
    hidden: Hidden,
    ignore_dtype: bool,
    names: Vec<u8>,
    records: Vec<Record>,
    /// Hidden entries typed directory by `d_type`.
    hidden_dirs: u64,
    /// Names of hidden entries of unknown type, NUL-terminated.
    hidden_unknown: Vec<u8>,
    /// What to stat each entry for, right after it is read; `None`: no
    /// stat here (the listing's own stats do it).
    stat: Option<StatNeeds>,
    /// The slice this sink reads: its records' arena in the listing.
    arena: u16,
    /// Symlink targets read, indexed by the records' `target`: shared by
    /// the sinks of one read, so the indices hold in the joined listing.
    targets: Option<SharedTargets>,
    /// Failed stats and readlinks, to be reported when the read is done:
    /// the name, what failed and why.
    failures: Vec<(Vec<u8>, &'static str, std::io::Error)>,
}

impl GatherSink {
    /// An empty sink that skips what `hidden` hides (and treats every type
    /// as unknown with `ignore_dtype`).
    pub fn new(hidden: Hidden, ignore_dtype: bool) -> GatherSink {
        GatherSink {
            hidden,
            ignore_dtype,
            names: Vec::new(),
            records: Vec::new(),
            hidden_dirs: 0,
            hidden_unknown: Vec::new(),
            stat: None,
            arena: 0,
            targets: None,
            failures: Vec::new(),
        }
    }

    /// This sink stating every entry it keeps for `needs` as soon as it
    /// is read, on the reading thread: a sliced read's threads then stat
    /// their entries while the other slices are still being read, rather
    /// than all reads ending before the first stat.
    /// `targets` collects the symlinks' targets of all the read's sinks.
    pub fn stating(mut self, needs: StatNeeds, targets: &SharedTargets) -> GatherSink {
        if !needs.mask.is_empty() {
            self.stat = Some(needs);
            self.targets = Some(Arc::clone(targets));
        }
        self
    }

    /// This sink reading slice `slice` of a read (the listing's part and
    /// arena of that number hold its entries).
    pub fn for_slice(mut self, slice: usize) -> GatherSink {
        self.arena = slice as u16;
        self
    }
}

impl EntrySink for GatherSink {
    // Records are pushed in read order.
    fn entry(&mut self, dir: BorrowedFd<'_>, e: &RawEntry<'_>) {
        let name = e.name();
        let t = if self.ignore_dtype {
            FileType::UNKNOWN
        } else {
            e.file_type()
        };
        if self.hidden == Hidden::Hide && name.first() == Some(&b'.') {
            if t.is_dir() {
                self.hidden_dirs += 1;
            } else if t.is_unknown() {
                self.hidden_unknown
                    .extend_from_slice(e.name_cstr().to_bytes_with_nul());
            }
            return;
        }
        let mut r = push_into(&mut self.names, name, t, e.ino(), self.arena);
        if let Some(needs) = self.stat {
            let found = stat_record(&mut r, dir, e.name_cstr(), needs);
            if let (Some(t), Some(targets)) = (found.target, &self.targets) {
                let mut targets = targets.lock().unwrap_or_else(|p| p.into_inner());
                r.target = targets.len() as u32;
                targets.push(t);
            }
            if let Some((what, err)) = found.failure {
                self.failures.push((name.to_vec(), what, err));
            }
        }
        self.records.push(r);
    }
}
