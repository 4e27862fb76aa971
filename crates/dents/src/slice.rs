//! One directory on many threads: its offset space cut into slices.
//!
//! A directory's `d_off` cookies are positions in an ordered space: on ext4
//! with hashed (htree) directories the name hash, `[0, 2^63)`; on XFS and on
//! unindexed ext4 a byte offset below about the directory's size.  Seeking
//! a fresh file description to a position makes the next `getdents64` start
//! at the first entry at or after it.  So N threads, each with its own
//! descriptor seeked to the start of its slice, read the directory at once.
//!
//! ```text
//!   position 0                                                     end
//!   |------ slice 0 ------|------ slice 1 ------|------ slice 2 ------>
//!    e e e e e e e e e e e|?e e e e e e e e e e |?e e e e e e e e e ...
//!                          ^ first entry after a seek: position unknown
//! ```
//!
//! **Exactness.**  An entry's own position is not in its record: `d_off` is
//! the position of the *next* entry.  A slice therefore knows the position
//! of every entry it reads except the first one after its seek.  Entries of
//! known position are kept when they fall inside the slice and end the
//! slice when they fall past it.  The first entry is *held*: it belongs to
//! this slice if the slice's second entry still lies inside (positions only
//! grow); otherwise (a slice holding at most one entry) a short probe from
//! the slice's end decides: if the held entry shows up at or after the end,
//! a later slice owns it.  Every entry present for the whole read is thus
//! reported exactly once, whatever else is added or removed meanwhile.
//!
//! **Errors.**  A slice whose read fails part way (a bad block) reports
//! every entry it read before the failure, its first included, and the
//! error: an entry whose position is bounded by its successor's is passed
//! on as soon as it is read, never held back behind a read that may fail.
//!
//! **When.**  Only where the seek semantics above were verified (ext4 and
//! XFS, see the filesystem tests) and the directory is large enough for
//! threads to pay ([`ReadOptions::min_sliced_size`]).  btrfs slices exactly but
//! gains nothing (its readdir walks one b-tree under a lock); tmpfs does
//! not honour arbitrary seeks.  Both read serially.

use std::io;
use std::os::fd::{AsFd, BorrowedFd};

use crate::dir::{DirReader, OwnedEntry, RawEntry, DEFAULT_BUFFER_SIZE};
use crate::sys;

/// The most threads one directory is read with, whatever the machine.
pub const MAX_SLICES: usize = 64;

/// Directories smaller than this (bytes of `st_size`) are read by one
/// thread: below it the extra opens and thread starts cost more than they
/// save.  Measured on ext4 (docs/history/benchmarks.md#slicing-threshold):
/// at 124 KiB (3000 entries) slicing gained nothing, at 364 KiB (10,000)
/// it already saved time hot and cold, and more the larger the directory.
pub const DEFAULT_MIN_SLICED_SIZE: u64 = 256 * 1024;

/// The shape of a directory's offset space, where slicing is exact.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OffsetSpace {
    /// ext4 htree: 63-bit hash cookies, spread evenly over `[0, 2^63)`.
    Hashed,
    /// Linear positions in `[0, end)`: XFS (byte offset / 8) and
    /// unindexed ext4 (byte offset).
    Linear {
        /// One past the largest position an entry can have.
        end: u64,
    },
}

/// How one directory will be read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadPlan {
    /// One thread, front to back.
    Serial,
    /// `slices` threads, each over its part of `space`.
    Sliced {
        /// The offset space being cut.
        space: OffsetSpace,
        /// How many slices (and threads).
        slices: usize,
    },
}

/// Options for reading one directory, built from [`ReadOptions::new`]
/// through its setters and read back through its `get_*` methods; the
/// fields are private and the struct `#[non_exhaustive]` so that an option
/// can be added without breaking a caller.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Threads (and slices) for a sliced read; 1 means always serial.
    pub(crate) threads: usize,
    /// Directories smaller than this many bytes are read serially.
    pub(crate) min_sliced_size: u64,
    /// The `getdents64` buffer size of each reader.
    pub(crate) buffer_size: usize,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            threads: default_slices(),
            min_sliced_size: DEFAULT_MIN_SLICED_SIZE,
            buffer_size: DEFAULT_BUFFER_SIZE,
        }
    }
}

impl ReadOptions {
    /// The defaults: [`default_slices`] slices at most, directories of
    /// [`DEFAULT_MIN_SLICED_SIZE`] bytes or more sliced,
    /// [`DEFAULT_BUFFER_SIZE`] bytes of buffer per reader.
    pub fn new() -> ReadOptions {
        ReadOptions::default()
    }

    /// Threads (and slices) for a sliced read; 1 means always serial.
    pub fn threads(mut self, n: usize) -> ReadOptions {
        self.threads = n;
        self
    }

    /// Directories smaller than this many bytes are read serially.
    pub fn min_sliced_size(mut self, bytes: u64) -> ReadOptions {
        self.min_sliced_size = bytes;
        self
    }

    /// The `getdents64` buffer size of each reader: each slice's, and
    /// each walk worker's (a smaller one saves memory per worker: du's
    /// many workers).
    pub fn buffer_size(mut self, bytes: usize) -> ReadOptions {
        self.buffer_size = bytes;
        self
    }

    /// Threads (and slices) for a sliced read.
    pub fn get_threads(&self) -> usize {
        self.threads
    }

    /// The size below which directories are read serially.
    pub fn get_min_sliced_size(&self) -> u64 {
        self.min_sliced_size
    }

    /// The `getdents64` buffer size of each reader.
    pub fn get_buffer_size(&self) -> usize {
        self.buffer_size
    }
}

/// The default number of slices (and threads) for one directory: the
/// available parallelism, but at least 4 and at most [`MAX_SLICES`].
/// (Not the walk's [`crate::walk::default_threads`], its workers: four
/// per core.)
///
/// More slices than cores pays on a cold cache: while one thread waits for
/// the disk another parses.  Measured on 2 cores, 1M entries on ext4
/// (docs/history/benchmarks.md#slicing-threshold): cold, 4 threads were
/// clearly faster than 2; hot, both alike; 8 threads no better than 4.
pub fn default_slices() -> usize {
    let cores = sys::cores();
    cores.clamp(4, MAX_SLICES)
}

/// The offset space of the open directory `dir` of `size` bytes, if slicing
/// it is known to be exact.
pub fn offset_space(dir: BorrowedFd<'_>, size: u64) -> io::Result<Option<OffsetSpace>> {
    Ok(match sys::fs_magic(dir)? {
        sys::EXT4_SUPER_MAGIC => {
            if sys::ext4_dir_is_indexed(dir).unwrap_or(false) {
                Some(OffsetSpace::Hashed)
            } else {
                Some(OffsetSpace::Linear { end: size })
            }
        }
        // XFS cookies are byte offsets in the data space divided by 8.
        sys::XFS_SUPER_MAGIC => Some(OffsetSpace::Linear {
            end: size.div_ceil(8),
        }),
        _ => None,
    })
}

/// Decides how to read the open directory `dir`.
pub fn plan(dir: BorrowedFd<'_>, opts: &ReadOptions) -> io::Result<ReadPlan> {
    let threads = opts.threads.min(MAX_SLICES);
    if threads < 2 {
        return Ok(ReadPlan::Serial);
    }
    plan_sized(dir, sys::fstat(dir)?.st_size as u64, opts)
}

/// [`plan`] for the open directory `dir` of `size` bytes (its `st_size`,
/// which the caller knows already).
pub(crate) fn plan_sized(
    dir: BorrowedFd<'_>,
    size: u64,
    opts: &ReadOptions,
) -> io::Result<ReadPlan> {
    let threads = opts.threads.min(MAX_SLICES);
    if threads < 2 {
        return Ok(ReadPlan::Serial);
    }
    if size < opts.min_sliced_size {
        return Ok(ReadPlan::Serial);
    }
    Ok(match offset_space(dir, size)? {
        Some(space) => ReadPlan::Sliced {
            space,
            slices: threads,
        },
        None => ReadPlan::Serial,
    })
}

/// The start position of each of `slices` slices of `space`; slice `i`
/// ends where slice `i + 1` starts and the last one never ends.
pub fn slice_starts(space: OffsetSpace, slices: usize) -> Vec<u64> {
    slice_starts_from(space, 0, slices)
}

/// The start positions of slices from `from` on ([`crate::unstable::slice_starts_from`]).
pub(crate) fn slice_starts_from(space: OffsetSpace, from: u64, slices: usize) -> Vec<u64> {
    let end = match space {
        OffsetSpace::Hashed => 1u64 << 63,
        OffsetSpace::Linear { end } => end,
    };
    if from >= end {
        return vec![from];
    }
    let (from, len, n) = (from as u128, (end - from) as u128, slices.max(1) as u128);
    (0..n).map(|i| (from + len * i / n) as u64).collect()
}

/// Receives the entries of one slice (or of a whole serial read).
pub trait EntrySink: Send {
    /// Called once for every entry other than `.` and `..`. `dir` is the
    /// directory, for `*at` calls relative to it.
    fn entry(&mut self, dir: BorrowedFd<'_>, entry: &RawEntry<'_>);

    /// Whether the sink wants no more entries (its consumer has gone):
    /// asked after each entry, it ends the read of its slice (or of the
    /// whole directory, serially) there.  Never, by default.
    fn stopped(&self) -> bool {
        false
    }
}

/// What a read of one directory did.
#[derive(Debug)]
pub struct ReadOutcome<S> {
    /// The sinks, one per slice, in slice order (one for a serial read).
    pub sinks: Vec<S>,
    /// The plan that was carried out.
    pub plan: ReadPlan,
    /// Errors met, with the slice that met them; the other slices went on.
    pub errors: Vec<io::Error>,
    /// How many slices needed a probe to place their first entry.
    pub probes: usize,
}

/// Reads every entry of the open directory `dir` once, serially or in
/// slices as [`plan`] decides, feeding sinks made by `make_sink(slice)`.
///
/// `dir` itself is only used as the base of the reads (a serial read uses a
/// duplicate of it, which shares its offset), so the caller can go on using
/// it for `*at` calls.
pub fn read_dir<S, F>(dir: BorrowedFd<'_>, opts: &ReadOptions, make_sink: F) -> ReadOutcome<S>
where
    S: EntrySink,
    F: Fn(usize) -> S + Sync,
{
    let plan = match plan(dir, opts) {
        Ok(p) => p,
        Err(e) => {
            return ReadOutcome {
                sinks: vec![make_sink(0)],
                plan: ReadPlan::Serial,
                errors: vec![e],
                probes: 0,
            }
        }
    };
    read_dir_with_plan(dir, plan, opts.buffer_size, make_sink)
}

/// Like [`read_dir`] with the plan given by the caller (tests force plans
/// with it; a sliced plan must only be given where slicing is exact).
pub fn read_dir_with_plan<S, F>(
    dir: BorrowedFd<'_>,
    plan: ReadPlan,
    buffer_size: usize,
    make_sink: F,
) -> ReadOutcome<S>
where
    S: EntrySink,
    F: Fn(usize) -> S + Sync,
{
    match plan {
        ReadPlan::Serial => {
            let mut sink = make_sink(0);
            // Through the caller's descriptor: no copy of it is needed
            // (a copy would share its offset anyway), so a read at a
            // descriptor limit reached needs none free.
            let mut reader = DirReader::with_buffer_size(dir, buffer_size);
            let errors = read_serial(&mut reader, &mut sink)
                .err()
                .into_iter()
                .collect();
            ReadOutcome {
                sinks: vec![sink],
                plan,
                errors,
                probes: 0,
            }
        }
        ReadPlan::Sliced { space, slices } => read_sliced(
            dir,
            plan,
            slice_starts(space, slices),
            buffer_size,
            make_sink,
        ),
    }
}

/// Reads the rest of `dir` from `from` on ([`crate::unstable::read_dir_from`]).
pub(crate) fn read_dir_from<S, F>(
    dir: BorrowedFd<'_>,
    space: OffsetSpace,
    from: u64,
    slices: usize,
    buffer_size: usize,
    make_sink: F,
) -> ReadOutcome<S>
where
    S: EntrySink,
    F: Fn(usize) -> S + Sync,
{
    let starts = slice_starts_from(space, from, slices);
    let plan = ReadPlan::Sliced {
        space,
        slices: starts.len(),
    };
    read_sliced(dir, plan, starts, buffer_size, make_sink)
}

/// Reads the slices starting at `starts` (the last to the end), each on a
/// thread and a descriptor of its own.
fn read_sliced<S, F>(
    dir: BorrowedFd<'_>,
    plan: ReadPlan,
    starts: Vec<u64>,
    buffer_size: usize,
    make_sink: F,
) -> ReadOutcome<S>
where
    S: EntrySink,
    F: Fn(usize) -> S + Sync,
{
    // Slice `i`'s start and end (`None`: the directory's end).
    let bounds = |i: usize| (starts[i], starts.get(i + 1).copied());
    let read = |i: usize, sink: &mut S| {
        let (lo, hi) = bounds(i);
        read_slice(dir, lo, hi, buffer_size, sink)
    };
    let mut results: Vec<Option<(S, io::Result<bool>)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..starts.len())
            .map(|i| {
                let (make_sink, read) = (&make_sink, &read);
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || {
                        let mut sink = make_sink(i);
                        let r = read(i, &mut sink);
                        (sink, r)
                    })
                    .ok()
            })
            .collect();
        // A panic of a sink (the walk's visitor, on a slice's thread)
        // goes on on this thread with its own payload, once every slice
        // has ended: the caller's code may be what panicked.
        let mut first = None;
        let done = handles
            .into_iter()
            .map(|h| {
                h.and_then(|h| match h.join() {
                    Ok(r) => Some(r),
                    Err(p) => {
                        first.get_or_insert(p);
                        None
                    }
                })
            })
            .collect();
        if let Some(p) = first {
            std::panic::resume_unwind(p);
        }
        done
    });
    // A slice whose thread could not start, or whose descriptor could not
    // be opened for want of descriptors (nothing of it was read), is read
    // now, here, through the caller's own descriptor (the slices' threads
    // have ended): it needs no descriptor free, however low the limit.
    for (i, r) in results.iter_mut().enumerate() {
        let redo = match r {
            None => true,
            Some((_, Err(e))) => crate::descriptors::out_of_descriptors(e),
            Some(_) => false,
        };
        if redo {
            let mut sink = match r.take() {
                Some((sink, _)) => sink,
                None => make_sink(i),
            };
            let (lo, hi) = bounds(i);
            let reader = DirReader::with_buffer_size(dir, buffer_size);
            let res = read_slice_with(reader, dir, lo, hi, &mut sink);
            *r = Some((sink, res));
        }
    }
    let results = results.into_iter().flatten();
    let mut outcome = ReadOutcome {
        sinks: Vec::with_capacity(starts.len()),
        plan,
        errors: Vec::new(),
        probes: 0,
    };
    for (sink, r) in results {
        outcome.sinks.push(sink);
        match r {
            Ok(probed) => outcome.probes += probed as usize,
            Err(e) => outcome.errors.push(e),
        }
    }
    outcome
}

/// Feeds every entry of `reader` but `.` and `..` to `sink`.
pub fn read_serial<F: AsFd, S: EntrySink + ?Sized>(
    reader: &mut DirReader<F>,
    sink: &mut S,
) -> io::Result<()> {
    while let Some((fd, e)) = reader.next_with_fd()? {
        sink.entry(fd, &e);
        if sink.stopped() {
            break;
        }
    }
    Ok(())
}

/// Reads the slice `[lo, hi)` (`hi` = `None`: to the end) of `dir` on a
/// descriptor of its own.  Returns whether a probe was needed.
pub(crate) fn read_slice<S: EntrySink>(
    dir: BorrowedFd<'_>,
    lo: u64,
    hi: Option<u64>,
    buffer_size: usize,
    sink: &mut S,
) -> io::Result<bool> {
    let reader = DirReader::with_buffer_size(sys::reopen_dir(dir)?, buffer_size);
    read_slice_with(reader, dir, lo, hi, sink)
}

/// [`read_slice`] with `reader` over `dir` (its own descriptor, or
/// `dir`'s own, whose offset it moves).
fn read_slice_with<F: AsFd, S: EntrySink>(
    mut reader: DirReader<F>,
    dir: BorrowedFd<'_>,
    lo: u64,
    hi: Option<u64>,
    sink: &mut S,
) -> io::Result<bool> {
    // (Always: a borrowed descriptor may be anywhere.)
    reader.seek(lo)?;
    let hi = hi.unwrap_or(u64::MAX);
    // The first entry's position is only known to be >= lo, and <= its
    // `next_offset` (equal where names' hashes collide).  When that is
    // below `hi` the entry is this slice's, and it is passed on at once:
    // a read that fails right after it (a bad block next) must not lose
    // an entry it did read.
    let Some(first) = reader.next_raw()? else {
        return Ok(false);
    };
    if sink.stopped() {
        return Ok(false);
    }
    // `pos` is always the position of the entry about to be read.
    let mut pos = first.next_offset();
    let mut held = if pos < hi {
        emit(dir, sink, &first);
        None
    } else {
        Some(OwnedEntry::new(&first))
    };
    let mut stopped_at = None;
    loop {
        let e = match reader.next_raw() {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(err) => {
                // A held entry lies at or before `pos`, which is at or
                // past `hi`, and before what failed.  The next slice owns
                // it only if it lies at or past `hi`, and then a probe
                // from `hi` reads it before it meets the failure too
                // (getdents returns what it has read before an error):
                // unless the probe finds it, it is this slice's.  (On
                // ext4 the entry read last before a failure has its own
                // position as its `next_offset`, so one held here lies
                // at or past `hi` and the probe finds it.)
                if let Some(h) = held.take() {
                    let later = hi != u64::MAX
                        && matches!(found_at_or_after(&mut reader, &h, hi, Some(pos)), Ok(true));
                    if !later {
                        emit(dir, sink, &h.as_entry());
                    }
                }
                return Err(err);
            }
        };
        if sink.stopped() {
            return Ok(false);
        }
        if pos >= hi {
            stopped_at = Some(pos);
            break;
        }
        emit(dir, sink, &e);
        pos = e.next_offset();
    }
    let Some(h) = held else {
        return Ok(false);
    };
    if hi == u64::MAX {
        emit(dir, sink, &h.as_entry());
        return Ok(false);
    }
    if !found_at_or_after(&mut reader, &h, hi, stopped_at)? {
        emit(dir, sink, &h.as_entry());
    }
    Ok(true)
}

/// Whether `held` is among the entries from position `hi` on, looking no
/// further than position `until` (the entry after `held` in the slice's own
/// read, so `held` lies at or before it).
fn found_at_or_after<F: AsFd>(
    reader: &mut DirReader<F>,
    held: &OwnedEntry,
    hi: u64,
    until: Option<u64>,
) -> io::Result<bool> {
    reader.seek(hi)?;
    let Some(first) = reader.next_raw()? else {
        return Ok(false);
    };
    if held.is_same(&first) {
        return Ok(true);
    }
    let mut pos = first.next_offset();
    while let Some(e) = reader.next_raw()? {
        if until.is_some_and(|u| pos > u) {
            return Ok(false);
        }
        if held.is_same(&e) {
            return Ok(true);
        }
        pos = e.next_offset();
    }
    Ok(false)
}

/// Passes `e` to `sink` unless it is `.` or `..`.
fn emit<S: EntrySink>(dir: BorrowedFd<'_>, sink: &mut S, e: &RawEntry<'_>) {
    if !e.is_dot_or_dotdot() {
        sink.entry(dir, e);
    }
}

/// A sink that collects names: handy for tests and small tools.
#[derive(Debug, Default)]
pub struct NameCollector {
    /// The names received, as bytes.
    pub names: Vec<Vec<u8>>,
}

impl EntrySink for NameCollector {
    fn entry(&mut self, _dir: BorrowedFd<'_>, entry: &RawEntry<'_>) {
        self.names.push(entry.name().to_vec());
    }
}
