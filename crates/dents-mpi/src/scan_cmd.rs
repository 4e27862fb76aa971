//! `dents-mpi scan`: a sharded snapshot, one shard per rank.
//!
//! Every rank walks its share of the trees on the engine (the walk of
//! `find`: directories spilled to idle ranks, huge directories read in
//! slices) and writes each entry it visits to its own shard,
//! `DIR/part-RANK.parquet` (`dents_snap::sharded::ShardWriter`: sorted
//! runs, merged at the end, so each shard is in the snapshot's level
//! order with bounded memory).  No rank waits for another's rows: there
//! is no sort across ranks; a reader merges the shards
//! (`dents_snap::SnapshotReader` opens DIR as one).
//!
//! The record: every rank's errors are gathered once the walk is over,
//! and shard 0's footer holds the whole (all errors, rank 0's start, the
//! end of the walk on every rank); the other shards' hold their own.
//! The shards are written in `.DIR.PID.tmp` beside DIR (rank 0's PID),
//! which rank 0 renames to DIR once every rank finished its shard: a
//! scan that fails leaves no DIR (and no temporary one unless killed).
//!
//! A refresh (`--since OLD`, OLD sharded or a single file): every rank
//! reads OLD itself into the index of `dents scan --since`
//! (`dents_snap::refresh::Index`) and takes a listing from it for each
//! directory it opens that is unchanged since, by the same rule.  Each
//! rank reads the whole of OLD because the rule is by identity, not by
//! path, and work stealing decides at run time which rank opens which
//! directory (a subtree moved since OLD may be anywhere): no share of
//! OLD smaller than the whole is known to suffice for a rank.  Rank 0
//! reading OLD and broadcasting it would send every rank the same
//! bytes one after another, in a format of its own, where reading OLD
//! (from a shared file system, as the trees are) takes the ranks the
//! time of one read, in parallel.  If any rank cannot use OLD (version,
//! `-L`, a record that lost errors, a file it cannot read), no rank
//! does: the scan reads everything, and the lowest such rank says why.
//! The record counts the directories read and reused (shard 0: all
//! ranks'; the others: their own).

use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Mutex};

use dents::unstable::Start;
use dents::walk::{Listing, Visit, Visitor, WalkOptions};
use dents::Error;
use dents::{Flow, Follow};
use dents_find::Walk;
use dents_snap::args::{Parsed, ScanArgs};
use dents_snap::record::Time;
use dents_snap::refresh::{Index, NotReused, Wanted};
use dents_snap::scan::Problem;
use dents_snap::schema::MAX_ERRORS;
use dents_snap::sharded::{self, ShardWriter};
use dents_snap::walk_row::{row_of_visit, stat_fields};
use dents_snap::{Row, ScanRecord};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::engine::Mailer;
use crate::find::MpiWalk;
use crate::gather;
use crate::parse_exit;

const HELP: &str = "\
Usage: mpirun -np N dents-mpi scan [OPTION]... -o DIR [PATH]...
Write a sharded snapshot of the trees under each PATH (the current
directory by default) to the directory DIR: one Parquet file per rank,
DIR/part-RANK.parquet, each with the rows of the entries that rank
visited, in the schema of 'dents scan' (docs/snapshot.md).  'dents du
--from DIR' reads them as one snapshot; DuckDB reads 'DIR/*.parquet'.

  -o, --output=DIR       the directory to write (replaced only once complete)
  -j, --threads=N        walk on N threads on each rank
  -x, --one-file-system  skip directories on other file systems
  -H                     follow symbolic links given as PATHs
  -L                     follow all symbolic links
      --names-only       keep names, types, inodes and directories' times
      --since=OLD        refresh: take from the snapshot OLD (sharded or a
                           single file) the entries of each directory
                           unchanged since (its device, inode and times),
                           reading only the others; the result is what a
                           full scan would write
      --help             display this help and exit

Exit status: 0 if every entry was read, 1 if some could not be (they are
listed in the snapshot's record), 2 if no snapshot was written.
";

/// The command line parsed as `dents scan` parses it
/// (`dents_snap::args`), the roots sorted; `Err(status)` after the help
/// or a usage error (said by rank 0).
fn parse(args: &[Vec<u8>], rank0: bool) -> Result<ScanArgs, i32> {
    let usage = |text: &str| {
        if rank0 {
            eprint!("dents-mpi: {text}\nTry 'dents-mpi scan --help' for more information.\n");
        }
        2
    };
    match dents_snap::args::parse(args.iter().map(Vec::as_slice)) {
        Ok(Parsed::Scan(mut a)) => {
            a.roots.sort();
            Ok(a)
        }
        Ok(Parsed::Help) => {
            // Standard output closed: said as GNU's close_stdout says
            // it, as `dents scan` does (print! would write to the
            // /dev/null Rust's runtime put there, and succeed).
            if rank0 {
                return Err(dents_tools::texts::print_text(HELP, b"dents-mpi: ", 2));
            }
            Err(0)
        }
        Err(e) => Err(usage(&e.message("DIR"))),
    }
}

/// `dents-mpi: TEXT` on this rank's standard error, in one write.
fn say(text: &[u8]) {
    let mut m = b"dents-mpi: ".to_vec();
    m.extend_from_slice(text);
    m.push(b'\n');
    let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), &m);
}

/// The errors this rank met: how many, and the first messages.
#[derive(Default)]
struct Met {
    count: u64,
    messages: Vec<Vec<u8>>,
}

/// The scan's visitor: each entry's row to the thread writing the
/// rank's shard, in batches.
struct ScanVisitor<'a> {
    rows: SyncSender<Vec<Row>>,
    /// Writing the shard failed: the walk stops.
    stop: &'a AtomicBool,
    met: &'a Mutex<Met>,
    roots: HashSet<&'a [u8]>,
    names_only: bool,
    /// `--since`: OLD's listings, if OLD is used.
    index: Option<&'a Index>,
    /// Directories this rank read, and took from OLD instead.
    read: &'a AtomicU64,
    reused: &'a AtomicU64,
}

/// Rows a worker holds before it sends them to the shard's writer.
const BATCH: usize = 1024;

/// Batches on their way to the shard's writer, at most (the walk waits
/// past that: memory stays bounded if the writer is slower).
const WRITER_BATCHES: usize = 16;

impl ScanVisitor<'_> {
    fn problem(&self, p: &Problem) {
        let m = p.message();
        say(&m);
        let mut met = self.met.lock().unwrap_or_else(|e| e.into_inner());
        met.count += 1;
        if met.messages.len() < MAX_ERRORS {
            met.messages.push(m);
        }
    }

    fn flush(&self, rows: &mut Vec<Row>) {
        if rows.is_empty() {
            return;
        }
        let full = std::mem::replace(rows, Vec::with_capacity(BATCH));
        if self.rows.send(full).is_err() {
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

impl Visitor for ScanVisitor<'_> {
    type State = Vec<Row>;

    fn state(&self) -> Vec<Row> {
        Vec::with_capacity(BATCH)
    }

    fn visit(&self, rows: &mut Vec<Row>, v: &Visit<'_>) -> Flow {
        if self.stop.load(Ordering::Relaxed) {
            return Flow::Quit;
        }
        match row_of_visit(v, self.names_only) {
            Ok(row) => {
                rows.push(row);
                if rows.len() >= BATCH {
                    self.flush(rows);
                }
            }
            Err(p) => self.problem(&p),
        }
        Flow::Continue
    }

    fn turn_done(&self, rows: &mut Vec<Row>) {
        self.flush(rows);
    }

    /// OLD's listing of a directory unchanged since, as `dents scan
    /// --since` takes it; every directory opened is counted either way.
    fn listing(
        &self,
        _rows: &mut Vec<Row>,
        dir: &Start<'_>,
        fd: BorrowedFd<'_>,
    ) -> Option<Listing> {
        let l = self.index.and_then(|ix| ix.listing_at(fd, dir.depth));
        let n = if l.is_some() { self.reused } else { self.read };
        n.fetch_add(1, Ordering::Relaxed);
        l
    }

    fn error(&self, _rows: &mut Vec<Row>, e: Error) {
        self.problem(&Problem::of_walk(&e, self.roots.contains(e.path_bytes())));
    }

    fn finish(&self, mut rows: Vec<Row>) {
        self.flush(&mut rows);
    }
}

/// Whether any rank says `mine` (a collective call).
fn any(world: &SimpleCommunicator, mine: bool) -> bool {
    let mut any = 0i32;
    world.all_reduce_into(&(mine as i32), &mut any, SystemOperation::max());
    any != 0
}

/// Every rank's errors, in the order of the ranks (a collective call).
fn gather_errors(world: &SimpleCommunicator, met: &Met) -> (u64, Vec<Vec<u8>>) {
    let mut mine = Vec::new();
    mine.extend_from_slice(&met.count.to_le_bytes());
    for m in &met.messages {
        mine.extend_from_slice(&(m.len() as u32).to_le_bytes());
        mine.extend_from_slice(m);
    }
    let (all, spans) = gather::all_gather(world, &mine[..]);
    let (mut total, mut messages) = (0u64, Vec::new());
    for &(start, len) in &spans {
        let part = &all[start..][..len];
        let (count, mut rest) = part.split_at(8);
        total += u64::from_le_bytes(count.try_into().expect("8 bytes"));
        while rest.len() >= 4 {
            let (len, tail) = rest.split_at(4);
            let len = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
            if messages.len() < MAX_ERRORS {
                messages.push(tail[..len].to_vec());
            }
            rest = &tail[len..];
        }
    }
    (total, messages)
}

/// `cannot reuse 'OLD': WHY; ` and what was read instead.
fn say_not_reused(why: &NotReused, old: &Path) {
    let mut m = b"cannot reuse ".to_vec();
    m.extend_from_slice(&crate::msg::quote(why.named(old.as_os_str().as_bytes())));
    m.extend_from_slice(format!(": {}", why.text()).as_bytes());
    say(&m);
}

/// The lowest rank for which `mine` holds, or the world's size if none
/// (a collective call): the one rank that speaks for all.
fn first_rank(world: &SimpleCommunicator, mine: bool) -> i32 {
    let me = if mine { world.rank() } else { world.size() };
    let mut first = 0i32;
    world.all_reduce_into(&me, &mut first, SystemOperation::min());
    first
}

/// Says, on the lowest rank whose index stopped part way (OLD damaged
/// past the levels it had indexed: [`Index::stopped`]), why, with the
/// directories all ranks reused before (a collective call).
fn say_stopped(world: &SimpleCommunicator, index: Option<&Index>, old: Option<&Path>, reused: u64) {
    let stopped = index.and_then(|ix| ix.stopped(reused));
    let first = first_rank(world, stopped.is_some());
    if let (Some(why), Some(old)) = (stopped, old) {
        if first == world.rank() {
            say_not_reused(&why, old);
        }
    }
}

/// OLD's index on every rank, or on none (a collective call): a rank
/// that cannot use OLD spoils it for all, and the lowest such rank says
/// why.
fn open_index(world: &SimpleCommunicator, a: &ScanArgs) -> Option<Index> {
    let old = a.options.since.as_deref()?;
    let opened = Index::open(
        old,
        Wanted {
            follow_all: a.options.follow == Follow::Always,
            // A rank's walk is not one level order: OLD is indexed whole.
            follows_walk: false,
        },
    );
    let first = first_rank(world, opened.is_err());
    match opened {
        Ok(ix) if first == world.size() => Some(ix),
        Ok(_) => None,
        Err(why) => {
            if first == world.rank() {
                say_not_reused(&why, old);
            }
            None
        }
    }
}

/// The sum over the ranks of `mine` (a collective call).
fn sum(world: &SimpleCommunicator, mine: u64) -> u64 {
    let mut all = 0u64;
    world.all_reduce_into(&mine, &mut all, SystemOperation::sum());
    all
}

/// Rank 0's temporary directory, made and named to every rank (a
/// collective call); `None` on every rank if it could not be made (said
/// by rank 0).
fn make_temp_dir(world: &SimpleCommunicator, output: &Path) -> Option<PathBuf> {
    let root = world.process_at_rank(0);
    let mut name = Vec::new();
    let mut ok = 1i32;
    if world.rank() == 0 {
        let tmp = sharded::temp_dir_name(output, std::process::id());
        match std::fs::create_dir(&tmp) {
            Ok(()) => name = tmp.as_os_str().as_bytes().to_vec(),
            Err(e) => {
                let mut m = b"cannot write snapshot: ".to_vec();
                m.extend_from_slice(&crate::msg::quote(tmp.as_os_str().as_bytes()));
                m.extend_from_slice(format!(": {}", crate::msg::describe(&e)).as_bytes());
                say(&m);
                ok = 0;
            }
        }
    }
    root.broadcast_into(&mut ok);
    if ok == 0 {
        return None;
    }
    let mut len = name.len() as u64;
    root.broadcast_into(&mut len);
    name.resize(len as usize, 0);
    root.broadcast_into(&mut name[..]);
    Some(PathBuf::from(OsStr::from_bytes(&name)))
}

/// Moves the finished `tmp` to `output`: a rename, or, over an earlier
/// sharded snapshot, an exchange and the old one removed.
fn put_in_place(tmp: &Path, output: &Path) -> std::io::Result<()> {
    match std::fs::rename(tmp, output) {
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(39 /* ENOTEMPTY */) | Some(17 /* EEXIST */)
            ) && output.join(sharded::shard_name(0)).is_file() =>
        {
            rustix::fs::renameat_with(
                rustix::fs::CWD,
                tmp,
                rustix::fs::CWD,
                output,
                rustix::fs::RenameFlags::EXCHANGE,
            )?;
            // The old snapshot is now at `tmp`.
            std::fs::remove_dir_all(tmp)
        }
        r => r,
    }
}

/// `scan`: the exit status, the same on every rank.
pub fn run(world: &SimpleCommunicator, mailer: &Arc<Mailer>, args: &[Vec<u8>]) -> i32 {
    let rank = world.rank() as u32;
    let a = match parse(args, rank == 0) {
        Ok(a) => a,
        // Rank 0 alone wrote (the help): its status is every rank's.
        Err(status) => return parse_exit::rank0_status(world, status),
    };
    let output = PathBuf::from(OsStr::from_bytes(&a.output));
    let start = Time::now();
    let index = open_index(world, &a);
    let Some(tmp) = make_temp_dir(world, &output) else {
        return 2;
    };
    let created = ShardWriter::create(&tmp, rank);
    if let Err(e) = &created {
        say(format!("cannot write snapshot: {e}").as_bytes());
    }
    // A rank that cannot write its shard ends the scan on every rank.
    let failed_to_start = any(world, created.is_err());
    let shard = match created {
        Ok(shard) if !failed_to_start => shard,
        other => {
            drop(other);
            return abandon(world, &tmp);
        }
    };
    let stop = AtomicBool::new(false);
    let met = Mutex::new(Met::default());
    let (read, reused) = (AtomicU64::new(0), AtomicU64::new(0));
    let opts = WalkOptions::new()
        .threads(if a.options.threads > 0 {
            a.options.threads
        } else {
            dents::walk::default_threads()
        })
        .follow_links(a.options.follow)
        .same_file_system(a.options.same_file_system)
        .stat_fields(stat_fields(a.options.names_only));
    let mut walker = MpiWalk {
        world,
        mailer: mailer.clone(),
        quit: false,
        status: 0,
    };
    // The shard is written on a thread of its own (runs sorted and
    // spilled there), so that no walker thread waits for a run's sort.
    let written = std::thread::scope(|s| {
        let (tx, rx) = mpsc::sync_channel::<Vec<Row>>(WRITER_BATCHES);
        let stop = &stop;
        let writing = s.spawn(move || {
            let mut shard = shard;
            for batch in rx {
                for r in batch {
                    if let Err(e) = shard.push(r) {
                        // The walk stops; its batches still coming are
                        // dropped with the receiver.
                        stop.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
            Ok(shard)
        });
        let visitor = ScanVisitor {
            rows: tx,
            stop,
            met: &met,
            roots: a.roots.iter().map(|r| r.as_slice()).collect(),
            names_only: a.options.names_only,
            index: index.as_ref(),
            read: &read,
            reused: &reused,
        };
        walker.walk(&a.roots, &opts, &visitor);
        drop(visitor);
        writing
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    });
    let met = met.into_inner().unwrap_or_else(|e| e.into_inner());
    let (error_count, errors) = gather_errors(world, &met);
    let (read, reused) = (read.into_inner(), reused.into_inner());
    let (all_read, all_reused) = (sum(world, read), sum(world, reused));
    say_stopped(
        world,
        index.as_ref(),
        a.options.since.as_deref(),
        all_reused,
    );
    let mut record = ScanRecord {
        roots: a.roots.clone(),
        start,
        end: Time::now(),
        options: a.options.options_text.clone(),
        dents_version: env!("CARGO_PKG_VERSION").to_string(),
        since: (a.options.since.as_deref()).map(|p| p.as_os_str().as_bytes().to_vec()),
        ..ScanRecord::default()
    };
    if rank == 0 {
        record.error_count = error_count;
        record.errors = errors;
        (record.dirs_read, record.dirs_reused) = (all_read, all_reused);
    } else {
        record.error_count = met.count;
        record.errors = met.messages;
        (record.dirs_read, record.dirs_reused) = (read, reused);
    }
    let written = written.and_then(|shard| shard.finish(&record, world.size() as u32));
    if let Err(e) = &written {
        say(format!("cannot write snapshot: {e}").as_bytes());
    }
    if any(world, written.is_err()) {
        return abandon(world, &tmp);
    }
    let mut placed = 1i32;
    if rank == 0 {
        if let Err(e) = put_in_place(&tmp, &output) {
            let mut m = b"cannot write snapshot: ".to_vec();
            m.extend_from_slice(&crate::msg::quote(&a.output));
            m.extend_from_slice(format!(": {}", crate::msg::describe(&e)).as_bytes());
            say(&m);
            let _ = std::fs::remove_dir_all(&tmp);
            placed = 0;
        }
    }
    world.process_at_rank(0).broadcast_into(&mut placed);
    if placed == 0 {
        return 2;
    }
    // The engine's status: a slice of a directory that could not be
    // opened again (said and recorded once, by its first slice).
    walker.status.max((error_count > 0) as i32)
}

/// Ends a scan that failed, its writer dropped (a collective call): once
/// no rank writes in `tmp`, rank 0 removes it.
fn abandon(world: &SimpleCommunicator, tmp: &Path) -> i32 {
    world.barrier();
    if world.rank() == 0 {
        let _ = std::fs::remove_dir_all(tmp);
    }
    world.barrier();
    2
}
