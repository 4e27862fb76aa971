//! The scan: a sorted walk of the roots (on the dents walker), each entry
//! stat'ed for the columns asked and sent as a [`Row`] through a bounded
//! channel to the thread that writes the snapshot.
//!
//! The walk is sorted and breadth first ([`dents::Walker::sort_by_name`]):
//! the rows come in the schema's level order whatever the threads, which
//! is what lets `dents diff` merge two snapshots as streams.  Workers
//! still read and stat in parallel; only the visits are serial.  The
//! visits fill a row group's columns in place and hand it to the writer's
//! thread whole, taking back one it has written: at most [`GROUPS`] row
//! groups are filled or written at once, which keeps the walk at most a
//! row group ahead of the writer.  Memory: those row groups, and the
//! walk's own (a directory's names are held until visited).

use std::os::fd::BorrowedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Mutex};

use dents::unstable::Start;
use dents::walk::{Listing, Visit, Visitor};
use dents::FileType;
use dents::{Flow, Follow, Walker};

pub use crate::problem::Problem;
use crate::refresh::{Index, NotReused, Wanted};

use crate::record::{ScanRecord, Time};
use crate::row::{fill_row, stat_fields, Row};
use crate::writer::{Columns, SnapshotWriter};
use crate::Error;

/// Row groups being filled by the visits or written, at most: one
/// filled while the writer writes the other.  A row group at a time, not
/// a few hundred rows: the writer's thread, faster than the walk, slept
/// and was woken for every batch (the shape's scan: ~1,800 wake-ups and
/// a tenth of the writer thread's CPU in the scheduler; session 18).
pub const GROUPS: usize = 2;

/// Messages waiting for the writer's thread, at most (problems; row
/// groups are bounded by [`GROUPS`]).
const MESSAGES: usize = 64;

/// What to scan and how.
#[derive(Clone, Debug)]
pub struct ScanOptions {
    /// Worker threads (0: the walker's default).
    pub threads: usize,
    /// Do not descend into directories on other filesystems (`-x`).
    pub same_file_system: bool,
    /// Which symlinks are followed (`-H`: roots, `-L`: all).
    pub follow: Follow,
    /// Keep only names, types, inodes and directories' times.
    pub names_only: bool,
    /// The options as the user gave them, for the record.
    pub options_text: String,
    /// Refresh: a snapshot of the same trees taken before, whose
    /// listings stand for reading the directories unchanged since
    /// ([`crate::refresh`]); the new snapshot is the one a full scan
    /// would write.
    pub since: Option<PathBuf>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            threads: 0,
            same_file_system: false,
            follow: Follow::Never,
            names_only: false,
            options_text: String::new(),
            since: None,
        }
    }
}

/// What a scan did.
#[derive(Debug)]
pub struct Summary {
    /// Rows written.
    pub rows: u64,
    /// The record written in the snapshot (errors included).
    pub record: ScanRecord,
    /// With [`ScanOptions::since`]: why the old snapshot was not used at
    /// all (then every directory was read), or not past some point
    /// ([`NotReused::reused`]), for the message `cannot reuse 'FILE': `
    /// and [`NotReused::text`].
    pub not_reused: Option<NotReused>,
}

/// What the walk sends the writer's thread.
enum Message {
    /// A row group's columns, to be written and sent back to be refilled
    /// (no buffer is freed on another thread than the one that made it,
    /// and once the first groups are out an entry costs no allocation).
    Rows(Box<Columns>),
    /// A problem met, as it is met (the messages in walk order).
    Problem(Problem),
}

/// The visitor's side of the handoff: the row group being filled, the
/// channel to the writer, and the row groups it sent back to be refilled.
struct Handoff {
    /// The visited entry's row ([`fill_row`]), then copied into `cols`:
    /// one buffer, reused, that only the visits touch.
    row: Row,
    cols: Box<Columns>,
    /// Row groups' columns made so far (at most [`GROUPS`]).
    made: usize,
    /// Taken (dropped) when the walk ends.
    tx: Option<mpsc::SyncSender<Message>>,
    spare: mpsc::Receiver<Box<Columns>>,
}

/// Scans `roots` into a snapshot at `output`; `on_problem` hears each
/// problem as it is met (on the calling thread, in walk order).  Problems
/// do not fail the scan: they are recorded.  An `Err` (the snapshot
/// cannot be written) leaves no file at `output`.
pub fn scan(
    roots: &[Vec<u8>],
    opts: &ScanOptions,
    output: &Path,
    mut on_problem: impl FnMut(&Problem),
) -> Result<Summary, Error> {
    let mut writer = SnapshotWriter::create(output)?;
    let mut record = ScanRecord {
        start: Time::now(),
        options: opts.options_text.clone(),
        dents_version: env!("CARGO_PKG_VERSION").to_string(),
        ..ScanRecord::default()
    };
    let mut sorted_roots: Vec<Vec<u8>> = roots.to_vec();
    sorted_roots.sort();
    record.roots = sorted_roots.clone();
    let mut not_reused = None;
    let fields = stat_fields(opts.names_only);
    let walker = Walker::from_roots(
        sorted_roots
            .iter()
            .map(|r| std::ffi::OsStr::from_bytes_ext(r)),
    )
    .threads(opts.threads)
    .same_file_system(opts.same_file_system)
    .follow_links(opts.follow)
    .sort_by_name(true)
    .stat_fields(fields);
    let index = match &opts.since {
        Some(old) => match Index::open(
            old,
            Wanted {
                follow_all: opts.follow == Follow::Always,
                // The walk is sorted, and its visits say how deep they are.
                follows_walk: true,
            },
        ) {
            Ok(ix) => Some(ix),
            Err(why) => {
                not_reused = Some(why);
                None
            }
        },
        None => None,
    };
    // Rows go a row group at a time: one channel message (and at most
    // one wake-up of the writer) per row group; the written groups come
    // back to be refilled.
    let (tx, rx) = mpsc::sync_channel::<Message>(MESSAGES);
    let (back, spare) = mpsc::channel::<Box<Columns>>();
    let visitor = ScanVisitor {
        names_only: opts.names_only,
        follow_all: opts.follow == Follow::Always,
        index: index.as_ref(),
        // The visits of a sorted walk are serial (one worker at a
        // time): the lock is never contended, and keeps their order.
        handoff: Mutex::new(Handoff {
            row: Row::default(),
            cols: Box::default(),
            made: 1,
            tx: Some(tx),
            spare,
        }),
        quit: AtomicBool::new(false),
        reused: AtomicU64::new(0),
    };
    let result = std::thread::scope(|s| {
        let walk = s.spawn(|| {
            let stats = walker.visit(&visitor);
            let mut h = visitor.handoff.lock().unwrap_or_else(|p| p.into_inner());
            let rest = std::mem::take(&mut h.cols);
            if let Some(tx) = h.tx.take() {
                let _ = tx.send(Message::Rows(rest));
            }
            stats
        });
        let mut failed = None;
        for message in rx.iter() {
            match message {
                Message::Problem(p) => {
                    on_problem(&p);
                    record.add_error(p.message());
                }
                Message::Rows(mut cols) => {
                    if let Err(e) = writer.write_group(&mut cols) {
                        failed = Some(e);
                        break;
                    }
                    // The walk may be over: then the group is not wanted.
                    let _ = back.send(cols);
                }
            }
        }
        // Dropping the receiver makes the walk quit at its next entry,
        // and dropping `back` a visit waiting for a row group to fill.
        drop(rx);
        drop(back);
        // The directories read are the walk's count: a directory the
        // visitor declined before it was opened (`listing_stated`) may
        // then fail to open, and is not read.
        let read = walk.join().map_or(0, |st| st.dirs_read);
        failed.map_or(Ok(read), Err)
    });
    let read = result?;
    record.end = Time::now();
    let reused = visitor.reused.load(Ordering::Relaxed);
    if let Some(why) = index.as_ref().and_then(|ix| ix.stopped(reused)) {
        not_reused = Some(why);
    }
    record.since = opts
        .since
        .as_ref()
        .map(|p| p.as_os_str().as_encoded_bytes().to_vec());
    record.dirs_read = read;
    record.dirs_reused = reused;
    let rows = writer.rows();
    writer.finish(&record)?;
    Ok(Summary {
        rows,
        record,
        not_reused,
    })
}

/// The scan's visitor: each entry's row (or problem) batched to the
/// writer's thread; with an index of an old snapshot, the listings of
/// directories unchanged since it.
struct ScanVisitor<'a> {
    names_only: bool,
    /// `-L`: every symlink followed (a names-only row stats it).
    follow_all: bool,
    index: Option<&'a Index>,
    handoff: Mutex<Handoff>,
    /// The writer is gone (it failed): leave everything out.
    quit: AtomicBool,
    /// Directories taken from the old snapshot (those read are the
    /// walk's count).
    reused: AtomicU64,
}

impl ScanVisitor<'_> {
    /// Sends the row group to the writer once it is full, and takes one
    /// sent back (or a new one, or waits for one) to fill next;
    /// `Flow::Quit` once the writer is gone.
    fn sent_if_full(&self, h: &mut Handoff) -> Flow {
        if !h.cols.is_full() {
            return Flow::Continue;
        }
        let full = std::mem::take(&mut h.cols);
        let next = if !self.sent(h, Message::Rows(full)) {
            None
        } else if let Ok(c) = h.spare.try_recv() {
            Some(c)
        } else if h.made < GROUPS {
            h.made += 1;
            Some(Box::default())
        } else {
            h.spare.recv().ok()
        };
        match next {
            Some(c) => {
                h.cols = c;
                Flow::Continue
            }
            None => {
                self.quit.store(true, Ordering::Relaxed);
                Flow::Quit
            }
        }
    }

    /// Sends `m` to the writer; false if it is gone.
    fn sent(&self, h: &mut Handoff, m: Message) -> bool {
        h.tx.as_ref().is_some_and(|tx| tx.send(m).is_ok())
    }
}

impl Visitor for ScanVisitor<'_> {
    type State = ();

    fn state(&self) {}

    fn excluded(&self, _: &mut (), _: &Visit<'_>) -> bool {
        self.quit.load(Ordering::Relaxed)
    }

    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        if self.quit.load(Ordering::Relaxed) {
            return Flow::Quit;
        }
        if let Some(ix) = self.index {
            ix.walked_to(v.depth());
        }
        let mut h = self.handoff.lock().unwrap_or_else(|p| p.into_inner());
        let h = &mut *h;
        match fill_row(&mut h.row, v, self.names_only) {
            Ok(()) => {
                h.cols.push(&h.row);
                self.sent_if_full(h)
            }
            Err(p) => {
                if self.sent(h, Message::Problem(p)) {
                    return Flow::Continue;
                }
                self.quit.store(true, Ordering::Relaxed);
                Flow::Quit
            }
        }
    }

    /// Every row but a names-only one of known type (not a directory,
    /// not a followed link) stats its entry ([`fill_row`]): on the
    /// walk's workers, in parallel, rather than in the serial visits.
    fn stat_ahead(&self, known: Option<FileType>) -> bool {
        !self.names_only || self.follow_all || known.is_none_or(|t| t.is_dir())
    }

    /// The listing from OLD, from the stat the walk made of the
    /// directory when it visited it: no second stat, and no `open` of a
    /// directory of files.  Names-only refreshes only: a full refresh
    /// opens every directory with entries anyway (to stat them), and
    /// saving its `fstat` was not measured faster, hot or cold
    /// (docs/history/benchmarks.md, refresh, session 16), so it keeps
    /// the path that opens first ([`Visitor::listing`]).
    fn lists_by_stat(&self) -> bool {
        self.names_only && self.index.is_some()
    }

    fn listing_stated(
        &self,
        _: &mut (),
        dir: &Start<'_>,
        stat: &dents::Metadata,
    ) -> Option<Option<Listing>> {
        if !self.names_only {
            return None;
        }
        let l = self.index?.listing(stat, dir.depth);
        if l.is_some() {
            self.reused.fetch_add(1, Ordering::Relaxed);
        }
        Some(l)
    }

    /// A directory the walk has no stat of, or any directory of a full
    /// refresh: one `fstat` of it, opened.
    fn listing(&self, _: &mut (), dir: &Start<'_>, fd: BorrowedFd<'_>) -> Option<Listing> {
        let l = self.index.and_then(|ix| ix.listing_at(fd, dir.depth));
        if l.is_some() {
            self.reused.fetch_add(1, Ordering::Relaxed);
        }
        l
    }

    fn error(&self, _: &mut (), e: dents::Error) {
        let mut h = self.handoff.lock().unwrap_or_else(|p| p.into_inner());
        if !self.sent(
            &mut h,
            Message::Problem(Problem::of_walk(&e, e.depth() == 0)),
        ) {
            self.quit.store(true, Ordering::Relaxed);
        }
    }
}

/// `OsStr` from bytes, without naming the extension trait at each call.
trait FromBytes {
    fn from_bytes_ext(b: &[u8]) -> &std::ffi::OsStr;
}

impl FromBytes for std::ffi::OsStr {
    fn from_bytes_ext(b: &[u8]) -> &std::ffi::OsStr {
        std::os::unix::ffi::OsStrExt::from_bytes(b)
    }
}

/// The C library's text for an error (no " (os error N)"): the walker
/// library's rule.
pub use dents::describe;
