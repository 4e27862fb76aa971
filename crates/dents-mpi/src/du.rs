//! `dents-mpi du`: du's sums over work items spread across ranks.
//!
//! Each directory's running sum is an [`Acc`] that lives from the
//! directory's stat (in the walker's `excluded` hook, before it is read)
//! until it is *complete*: its own walk has visited it in post-order and
//! every part of its tree walked elsewhere has reported.  `pending`
//! counts those: one for its own walk, one per subdirectory spilled as a
//! work item (which may be walked on another rank), one per
//! subdirectory complete in this walk only later, and one per hard link
//! asked about on the rank that owns it.  Whoever brings `pending` to
//! zero completes the directory: its line is written (at most
//! `--max-depth` deep), its total added to its parent's sum, locally or
//! by a message to the rank holding the parent (the item's `reply`).
//!
//! Hard links: the (device, inode) of a file with more than one link is
//! owned by one rank (a hash of the pair); the owner's set says whether
//! it was counted before, so each is counted once over all ranks.  A
//! file owned here is decided at once; otherwise the owner is asked and
//! answers with the size to add (zero when counted before).
//!
//! Several arguments (or `-L`): GNU du counts every file and directory
//! once over the whole command, in the arguments' order (its hash of
//! every (device, inode) met).  The arguments are walked one after
//! another over all ranks (`du_order`); the directories counted, and
//! the files given as arguments, go to a set every rank holds whole
//! ([`DuJob::share_seen`] after each argument), so that a later
//! argument skips a directory counted before (`du T T/A`: `T/A` is
//! skipped; `du T/A T`: `T/A` is skipped in `T`) with no message.
//! Within one argument a directory is met once (one parent), except
//! under `-L`, whose walk stays on one rank (nothing is spilled) and
//! claims each directory in the same set as it meets it.  Files with
//! one link under `-L` are hard links in all but name: they go to
//! their owner as hard links do.
//!
//! A sum is GNU's `duinfo` ([`Dui`]): bytes, inodes and, for `--time`,
//! the latest time below (packed, so a `max`); all three travel in the
//! `ADD` message, and the `-c` total is reduced over the ranks (sums, and
//! the `max` of times).  Times are written by `dents_du::time_style`, the
//! code `dents du` uses.
//!
//! `--export`: each sum also gathers its directory's items in ncdu's
//! JSON (`dents_du::ncdu`); a complete directory appends itself to its
//! parent's items, here or by `EXPORT_PART` messages (1 MiB pieces, sent
//! before its `ADD`); a slice sends its entries' JSON the same way; the
//! argument's tree goes to rank 0 (`EXPORT_ROOT`), which writes the file.
//! What `--exclude` and `-x` leave out is exported by name, marked
//! `"excluded"` as ncdu marks it, where it is met (a walk or a slice).
//!
//! Memory: sums of the directories being walked and of those waiting for
//! a spilled part of their tree (at most the items in flight times their
//! depth), and the hard-link set's share of this rank; never a record
//! per file — except under `--export`, whose JSON is the tree's size
//! (rank 0 holds all of it at the end, as one process does).

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;

use dents::dir::{RawEntry, DEFAULT_BUFFER_SIZE};
use dents::slice::{self, EntrySink};
use dents::unstable;
use dents::walk::{Visit, Visitor};
use dents::FileType;
use dents::Flow;
use dents::Metadata;
use dents::StatFields;
use dents::{Error, ErrorKind, Operation};
use dents_du::engine::{AtomicDui, Dui};
use dents_du::links::LinkSet;
use dents_du::ncdu::{self, Excluded, Export, ExportDir};
use dents_du::time_style::TimeFormat;
use dents_du::{Follow, Options};

use mpi::topology::SimpleCommunicator;

use crate::dev::dev_of;
use crate::engine::{Ctx, Job, FLUSH_AT};
use crate::gather;
use crate::msg;
use crate::slices;
use crate::wire::{self, Item, Reader};

/// No parent to report to (an argument).
const NO_RANK: u32 = u32::MAX;

/// A job message: add to a waiting sum (id, size, inodes, latest time,
/// whether it is a subdirectory's total).
const ADD: u64 = 1;
/// A job message: was this hard link counted? (dev, ino, size, inodes,
/// time, reply rank, reply id, the line to print if not: depth, path).
const LINK: u64 = 2;
/// A [`LINK`]'s depth when the asker prints the line itself (a file
/// argument).
const NO_LINE: u64 = u64::MAX;
/// A job message: a part of the ncdu export for a waiting sum's directory
/// (id, JSON items), before the [`ADD`] of the part's total.
const EXPORT_PART: u64 = 3;
/// (id): a slice of the waiting directory `id` failed part way; its
/// export is marked `read_error` (sent before the slice's [`ADD`]).
const READ_ERROR: u64 = 5;
/// A job message to rank 0: a piece of the top directory's export JSON
/// (pieces in order).
const EXPORT_ROOT: u64 = 4;

/// The most JSON of the export sent in one message: a subtree's export
/// goes back in pieces of this size.
const EXPORT_CHUNK: usize = 1 << 20;

/// Where a completed directory's total goes.
enum Parent {
    /// Its parent's sum, on this rank.
    Local(Arc<Acc>),
    /// A sum on some rank, by its id there.
    Remote(u32, u64),
    /// An argument: nowhere.
    None,
}

/// A directory's running sum.
struct Acc {
    /// Bytes, inodes and the latest time below.
    sum: AtomicDui,
    pending: AtomicUsize,
    path: Vec<u8>,
    depth: usize,
    /// Whether it gets a line (a slice's sum does not: its directory does).
    line: bool,
    /// A file argument asked of its hard link's owner: its line only if
    /// the owner counted it (the answer's inode count is 1, not 0).
    if_counted: bool,
    parent: Parent,
    /// Its id in the table of sums that other ranks (or later walks) add to.
    remote_id: OnceLock<u64>,
    /// With `--export`: its items' JSON and its own stat.
    export: Option<Box<AccExport>>,
}

/// What the ncdu export keeps of a directory (or a slice of one) until
/// it is complete.
struct AccExport {
    /// The items gathered here (and sent here by other ranks).
    items: ExportDir,
    /// The directory's stat (`None` for a slice: its directory has it).
    st: Option<Metadata>,
}

impl Acc {
    /// A sum starting at `d` (a directory's own size and time), reporting
    /// to `parent` once `pending` parts are done.
    fn new(d: Dui, pending: usize, path: Vec<u8>, depth: usize, line: bool, parent: Parent) -> Acc {
        Acc {
            sum: AtomicDui::new(d),
            pending: AtomicUsize::new(pending),
            path,
            depth,
            line,
            if_counted: false,
            parent,
            remote_id: OnceLock::new(),
            export: None,
        }
    }

    /// The same, gathering its export's items (`st`: its own stat; `None`
    /// for a slice) if `on`.
    fn exporting(mut self, on: bool, st: Option<&Metadata>) -> Acc {
        if on {
            self.export = Some(Box::new(AccExport {
                items: ExportDir::default(),
                st: st.cloned(),
            }));
        }
        self
    }

    fn export_items(&self) -> Option<&ExportDir> {
        self.export.as_deref().map(|x| &x.items)
    }

    fn add(&self, d: &Dui) {
        self.sum.add(d);
    }

    fn get(&self) -> Dui {
        self.sum.get()
    }
}

/// du's engine on one rank.
pub struct DuJob {
    opts: Options,
    /// Sums by directory path (with a trailing `/`) while it is walked.
    walking: Mutex<HashMap<Vec<u8>, Arc<Acc>>>,
    /// Sums waiting for parts of their tree walked elsewhere, by id.
    waiting: Mutex<HashMap<u64, Arc<Acc>>>,
    next_id: AtomicU64,
    links: LinkSet,
    total: Mutex<Dui>,
    out: Mutex<Vec<u8>>,
    /// `--time`'s style (`None` without `--time`).
    time_format: Option<TimeFormat>,
    /// `--export`: the top directory's JSON (complete on rank 0 at the end).
    pub export: Option<Export>,
    /// With several arguments or `-L`: the directories counted, by
    /// (device, inode); every rank's after each argument.
    seen_dirs: LinkSet,
    /// The same for files given as arguments.
    seen_files: LinkSet,
    /// What this rank added to the two sets since they were last shared:
    /// (device, inode) pairs, flattened.
    new_dirs: Mutex<Vec<u64>>,
    new_files: Mutex<Vec<u64>>,
    /// Whether `seen_files` holds anything (a file is looked up only then).
    files_given: AtomicBool,
}

impl DuJob {
    /// A job with du's options (and `--time`'s style with `--time`).
    pub fn new(opts: Options, time_format: Option<TimeFormat>) -> DuJob {
        let opts_export = opts.export;
        DuJob {
            opts,
            walking: Mutex::new(HashMap::new()),
            waiting: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(0),
            links: LinkSet::default(),
            total: Mutex::new(Dui::ZERO),
            out: Mutex::new(Vec::new()),
            time_format,
            export: opts_export.then(Export::new),
            seen_dirs: LinkSet::default(),
            seen_files: LinkSet::default(),
            new_dirs: Mutex::new(Vec::new()),
            new_files: Mutex::new(Vec::new()),
            files_given: AtomicBool::new(false),
        }
    }

    /// Whether every file and directory counts once over the command
    /// (GNU's `hash_all`: several arguments, `--files0-from`, `-L`; not
    /// with `-l`).
    fn hash_all(&self) -> bool {
        (self.opts.hash_all || self.opts.follow == Follow::Always) && !self.opts.count_links
    }

    /// Claims the directory (dev, ino) for counting: `false` if it was
    /// counted before (by an earlier argument, or under `-L` by another
    /// path of this one).
    fn claim_dir(&self, dev: u64, ino: u64) -> bool {
        if !self.hash_all() {
            return true;
        }
        let first = self.seen_dirs.insert(dev, ino);
        if first {
            lock(&self.new_dirs).extend([dev, ino]);
        }
        first
    }

    /// Gives every rank the directories and file arguments the others
    /// counted since the last call: a collective call, between two
    /// arguments.
    pub fn share_seen(&self, world: &SimpleCommunicator) {
        for (mine, set) in [
            (&self.new_dirs, &self.seen_dirs),
            (&self.new_files, &self.seen_files),
        ] {
            let mine = std::mem::take(&mut *lock(mine));
            for pair in gather::all_gather(world, &mine).0.chunks_exact(2) {
                set.insert(pair[0], pair[1]);
            }
        }
        if !self.seen_files.is_empty() {
            self.files_given.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the directory holding the argument `path` was counted.
    fn parent_seen(&self, path: &[u8]) -> bool {
        let parent = match path.iter().rposition(|&c| c == b'/') {
            Some(0) => &b"/"[..],
            Some(i) => &path[..i],
            None => &b"."[..],
        };
        match std::fs::metadata(std::ffi::OsStr::from_bytes(parent)) {
            Ok(st) => self.seen_dirs.contains(st.dev(), st.ino()),
            Err(_) => false,
        }
    }

    /// The work item of the argument `root`, the `index`th.
    pub fn item(root: &[u8], index: usize) -> Item {
        Item {
            path: trim_slashes(root).to_vec(),
            depth: 0,
            root: index as u32,
            root_dev: 0,
            reply: (NO_RANK, 0),
            slice: None,
        }
    }

    /// This rank's share of the grand total.
    pub fn total(&self) -> Dui {
        *lock(&self.total)
    }

    /// The grand total's line (`-c`).
    pub fn total_line(&self, total: &Dui) -> Vec<u8> {
        let mut out = Vec::new();
        // GNU's grand total starts at time 0 (a static duinfo), as
        // `dents du`'s.
        let total = &Dui {
            tmax: total.tmax.max(0),
            ..*total
        };
        // Always, whatever the threshold, as GNU du.
        let v = self.opts.value(total.size, total.inodes);
        self.push_value_line(&mut out, v, total, b"total");
        out
    }

    fn mask(&self) -> StatFields {
        self.opts.stat_mask()
    }

    /// Size, inode and time of one entry.
    fn own(&self, st: &Metadata) -> Dui {
        self.opts.entry_dui(st)
    }

    fn push_line(&self, out: &mut Vec<u8>, d: &Dui, path: &[u8]) {
        if let Some(v) = self.opts.shown_value(d.size, d.inodes) {
            self.push_value_line(out, v, d, path);
        }
    }

    /// Appends a line showing `v` for `d` (its time with `--time`).
    fn push_value_line(&self, out: &mut Vec<u8>, v: u64, d: &Dui, path: &[u8]) {
        dents_du::size::push_size(out, v, &self.opts.units);
        if let Some(f) = &self.time_format {
            out.push(b'\t');
            f.push_packed(out, d.tmax);
        }
        out.push(b'\t');
        out.extend_from_slice(path);
        out.push(if self.opts.nul { 0 } else { b'\n' });
    }

    fn line(&self, ctx: &Ctx, d: &Dui, path: &[u8]) {
        let mut out = lock(&self.out);
        self.push_line(&mut out, d, path);
        if out.len() >= FLUSH_AT {
            let batch = std::mem::take(&mut *out);
            drop(out);
            ctx.write_out(&batch);
        }
    }

    fn count_total(&self, d: &Dui) {
        lock(&self.total).add(d);
    }

    /// The id other ranks add to `acc` by, registering it on first use.
    fn remote_id(&self, acc: &Arc<Acc>) -> u64 {
        *acc.remote_id.get_or_init(|| {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            lock(&self.waiting).insert(id, acc.clone());
            id
        })
    }

    /// One of `acc`'s pending parts is done.
    fn settle(&self, ctx: &Ctx, acc: &Arc<Acc>) {
        if acc.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.complete(ctx, acc);
        }
    }

    /// Everything below `acc` is counted: its line, and its total to its
    /// parent.
    fn complete(&self, ctx: &Ctx, acc: &Arc<Acc>) {
        if let Some(id) = acc.remote_id.get() {
            lock(&self.waiting).remove(id);
        }
        let d = acc.get();
        if acc.line && acc.depth <= self.opts.max_depth && !(acc.if_counted && d.inodes == 0) {
            self.line(ctx, &d, &acc.path);
        }
        let part = acc
            .export
            .as_deref()
            .and_then(|x| self.export_part(ctx, acc, x));
        match &acc.parent {
            Parent::Local(p) => {
                if let (Some(part), Some(items)) = (&part, p.export_items()) {
                    items.push_items(part);
                }
                if !self.opts.separate_dirs {
                    p.add(&d);
                }
                self.settle(ctx, p);
            }
            Parent::Remote(rank, id) => {
                if let Some(part) = &part {
                    self.send_part(ctx, *rank, *id, part);
                }
                // A slice's entries are its directory's own (counted under
                // -S); a directory's total is a subdirectory's (not added
                // under -S).
                self.add_to(ctx, *rank, *id, &d, acc.line)
            }
            Parent::None => {}
        }
    }

    /// What the complete `acc` adds to its parent's export: a slice's
    /// items, or the directory with its items; `None` for an argument (its
    /// tree is the export's top, sent to rank 0).
    fn export_part(&self, ctx: &Ctx, acc: &Acc, x: &AccExport) -> Option<Vec<u8>> {
        let Some(st) = &x.st else {
            return Some(x.items.take());
        };
        if let Parent::None = acc.parent {
            if let Some(top) = &self.export {
                top.root_dir(&acc.path, st, Some(&x.items));
                self.send_root(ctx, top);
            }
            return None;
        }
        Some(ncdu::dir_item(name_of(&acc.path), st, Some(&x.items)))
    }

    /// Sends the export's top directory to rank 0, in pieces, if it was
    /// finished on another rank.
    fn send_root(&self, ctx: &Ctx, top: &Export) {
        if ctx.rank() == 0 {
            return;
        }
        for piece in top.take_root_json().chunks(EXPORT_CHUNK) {
            let mut b = Vec::with_capacity(16 + piece.len());
            wire::put_u64(&mut b, EXPORT_ROOT);
            wire::put_bytes(&mut b, piece);
            ctx.send_job(0, b);
        }
    }

    /// Adds `part` to the export of the waiting sum `id` on `rank` (in
    /// pieces: they arrive in order, before the total's [`ADD`]).
    fn send_part(&self, ctx: &Ctx, rank: u32, id: u64, part: &[u8]) {
        if rank == ctx.rank() {
            return self.part_added(id, part);
        }
        for piece in part.chunks(EXPORT_CHUNK) {
            let mut b = Vec::with_capacity(24 + piece.len());
            wire::put_u64(&mut b, EXPORT_PART);
            wire::put_u64(&mut b, id);
            wire::put_bytes(&mut b, piece);
            ctx.send_job(rank, b);
        }
    }

    /// Marks the export of the waiting sum `id` on `rank` as not read
    /// whole (ncdu's `read_error`): one of its slices failed.
    fn mark_read_error(&self, ctx: &Ctx, rank: u32, id: u64) {
        if !self.opts.export {
            return;
        }
        if rank == ctx.rank() {
            return self.read_error_of(id);
        }
        let mut b = Vec::with_capacity(16);
        wire::put_u64(&mut b, READ_ERROR);
        wire::put_u64(&mut b, id);
        ctx.send_job(rank, b);
    }

    fn read_error_of(&self, id: u64) {
        let acc = lock(&self.waiting).get(&id).cloned();
        if let Some(items) = acc.as_deref().and_then(Acc::export_items) {
            items.mark_read_error();
        }
    }

    fn part_added(&self, id: u64, part: &[u8]) {
        let acc = lock(&self.waiting).get(&id).cloned();
        if let Some(items) = acc.as_deref().and_then(Acc::export_items) {
            items.push_items(part);
        }
    }

    /// Adds to the waiting sum `id` on `rank`, and settles one of its parts.
    fn add_to(&self, ctx: &Ctx, rank: u32, id: u64, d: &Dui, dir: bool) {
        if rank == ctx.rank() {
            self.added(ctx, id, d, dir);
        } else {
            let mut b = Vec::with_capacity(56);
            for n in [ADD, id, d.size, d.inodes, d.tmax as u64, dir as u64] {
                wire::put_u64(&mut b, n);
            }
            ctx.send_job(rank, b);
        }
    }

    fn added(&self, ctx: &Ctx, id: u64, d: &Dui, dir: bool) {
        let Some(acc) = lock(&self.waiting).get(&id).cloned() else {
            return;
        };
        if !(dir && self.opts.separate_dirs) {
            acc.add(d);
        }
        self.settle(ctx, &acc);
    }

    /// Counts a hard link owned here; `true` if it was not counted before.
    fn first_link(&self, dev: u64, ino: u64) -> bool {
        self.links.insert(dev, ino)
    }

    /// `du: WHAT 'PATH'[: CAUSE]`.
    fn problem(&self, ctx: &Ctx, what: &str, path: &[u8], e: Option<&io::Error>) {
        let mut m = b"du: ".to_vec();
        m.extend_from_slice(what.as_bytes());
        m.push(b' ');
        m.extend_from_slice(&msg::quote(path));
        say(ctx, m, e);
    }

    /// `du: PATH: CAUSE`, GNU's words for a directory whose read failed
    /// part way (fts's `FTS_ERR`; the path quoted only if it must be).
    fn read_cut(&self, ctx: &Ctx, path: &[u8], e: &io::Error) {
        let mut m = b"du: ".to_vec();
        dents_tools::quote::for_terminal(&mut m, path);
        say(ctx, m, Some(e));
    }
}

impl Job for DuJob {
    fn run(&self, mut items: Vec<Item>, ctx: &Ctx) {
        for i in items.iter_mut().filter(|i| i.depth == 0) {
            // An argument's device, for -x below it (the walker checks its
            // own walks; spilled items carry it).
            i.root_dev = dev_of(&i.path, self.opts.follow != Follow::Never).unwrap_or(0);
        }
        let (slices, items): (Vec<Item>, Vec<Item>) =
            items.into_iter().partition(|i| i.slice.is_some());
        std::thread::scope(|s| {
            for item in &slices {
                s.spawn(move || self.run_slice(item, ctx));
            }
        });
        if items.is_empty() {
            self.flush(ctx);
            return;
        }
        let by_root: HashMap<&[u8], &Item> = items.iter().map(|i| (i.path.as_slice(), i)).collect();
        // du's walk, as dents-du's engine makes it; no post-order visit
        // here needs its parent's descriptor.
        let wopts = self.opts.walk_options().post_order_parent_fd(false);
        let v = DuVisitor {
            du: self,
            ctx,
            by_root,
            // Under -L the walker finds loops from its ancestors' inodes,
            // which a spilled item would not carry: no spilling.
            may_spill: self.opts.follow != Follow::Always,
            quit: AtomicBool::new(false),
        };
        let starts: Vec<unstable::Start<'_>> = items
            .iter()
            .map(|i| unstable::Start {
                path: &i.path,
                root_len: i.path.len(),
                depth: i.depth as usize,
            })
            .collect();
        unstable::walk_from(&starts, &wopts, &v);
        self.flush(ctx);
    }

    fn flush(&self, ctx: &Ctx) {
        let out = std::mem::take(&mut *lock(&self.out));
        ctx.write_out(&out);
    }

    fn walker_threads(&self) -> usize {
        self.opts.threads.max(1)
    }

    fn message(&self, body: &[u8], ctx: &Ctx) {
        let mut r = Reader(body);
        match r.u64() {
            ADD => {
                let id = r.u64();
                let d = read_dui(&mut r);
                let dir = r.u64() != 0;
                self.added(ctx, id, &d, dir);
            }
            LINK => {
                let (dev, ino) = (r.u64(), r.u64());
                let d = read_dui(&mut r);
                let (rank, id, depth) = (r.u64() as u32, r.u64(), r.u64());
                let path = r.bytes();
                let first = self.first_link(dev, ino);
                if first {
                    self.count_total(&d);
                    if self.opts.all && depth != NO_LINE && depth as usize <= self.opts.max_depth {
                        self.line(ctx, &d, path);
                    }
                }
                let d = if first { d } else { Dui::ZERO };
                self.add_to(ctx, rank, id, &d, false);
            }
            EXPORT_PART => {
                let id = r.u64();
                self.part_added(id, r.bytes());
            }
            READ_ERROR => self.read_error_of(r.u64()),
            EXPORT_ROOT => {
                if let Some(top) = &self.export {
                    top.extend_root_json(r.bytes());
                }
            }
            _ => {}
        }
    }
}

/// The visitor of one batch's walk.
struct DuVisitor<'a> {
    du: &'a DuJob,
    ctx: &'a Ctx,
    by_root: HashMap<&'a [u8], &'a Item>,
    may_spill: bool,
    quit: AtomicBool,
}

impl DuVisitor<'_> {
    fn item(&self, v: &Visit<'_>) -> &Item {
        self.by_root[v.root()]
    }

    fn stat<'v>(&self, v: &'v Visit<'_>) -> Option<&'v Metadata> {
        match v.metadata() {
            Ok(st) => {
                if v.follows_links()
                    && st.file_type() == FileType::SYMLINK
                    && (!is_start(v) || self.du.opts.follow != Follow::Never)
                {
                    self.du.problem(self.ctx, "cannot access", v.path(), None);
                    return None;
                }
                Some(st)
            }
            Err(e) => {
                self.du
                    .problem(self.ctx, "cannot access", v.path(), Some(&e));
                None
            }
        }
    }

    /// The sum of the directory holding `v` (walked here).
    fn parent_acc(&self, v: &Visit<'_>) -> Option<Arc<Acc>> {
        let path = v.path();
        let key = &path[..path.len() - v.name().len()];
        lock(&self.du.walking).get(key).cloned()
    }

    /// Writes an entry the walk leaves out (`--exclude`, `-x`) into its
    /// directory's export, marked as ncdu marks it, as `dents du` does.
    fn export_excluded(&self, v: &Visit<'_>, why: Excluded<'_>) {
        if !self.du.opts.export || is_start(v) {
            return;
        }
        if let Some(x) = self.parent_acc(v).as_deref().and_then(Acc::export_items) {
            x.push_excluded(v.name(), why);
        }
    }
}

impl DuVisitor<'_> {
    /// The directory `v`, met in a walk of `item`, as an item whose total
    /// goes to the sum `id` here.
    fn item_below(&self, v: &Visit<'_>, item: &Item, id: u64) -> Item {
        Item {
            path: v.path().to_vec(),
            depth: v.depth() as u32,
            root: item.root,
            root_dev: item.root_dev,
            reply: (self.ctx.rank(), id),
            slice: None,
        }
    }

    /// The sum of the directory `v` (its own size counted, in the grand
    /// total too), waiting for `pending` parts.
    fn dir_acc(
        &self,
        v: &Visit<'_>,
        st: &Metadata,
        item: &Item,
        depth: usize,
        parent: Option<Arc<Acc>>,
        pending: usize,
    ) -> Arc<Acc> {
        let du = self.du;
        let own = du.own(st);
        du.count_total(&own);
        let acc = Acc::new(
            own,
            pending,
            v.path().to_vec(),
            depth,
            true,
            parent_link(parent, item),
        );
        Arc::new(acc.exporting(du.opts.export, Some(st)))
    }

    /// Hands the huge directory `v` out as slices of its offset space, a
    /// few per rank: its sum waits for each slice's total.
    fn split(
        &self,
        v: &Visit<'_>,
        st: &Metadata,
        item: &Item,
        depth: usize,
        parent: Option<Arc<Acc>>,
        space: slice::OffsetSpace,
    ) {
        let du = self.du;
        let acc = self.dir_acc(v, st, item, depth, parent, 0);
        let id = du.remote_id(&acc);
        let dir = self.item_below(v, item, id);
        let items = slices::slice_items(&dir, space, self.ctx.size());
        acc.pending.store(items.len(), Ordering::Release);
        for i in items {
            self.ctx.spill(i);
        }
    }
}

/// One slice of a huge directory: its entries counted into the slice's
/// sum, its subdirectories queued as items reporting to that sum.
struct SliceSink<'a> {
    du: &'a DuJob,
    ctx: &'a Ctx,
    item: &'a Item,
    acc: Arc<Acc>,
    id: u64,
    path: Vec<u8>,
    /// Entries read so far (a failed read's message depends on it).
    entries: usize,
}

impl EntrySink for SliceSink<'_> {
    fn entry(&mut self, dir: BorrowedFd<'_>, e: &RawEntry<'_>) {
        self.entries += 1;
        let du = self.du;
        let base = self.item.path.len() + 1;
        self.path.truncate(base);
        self.path.extend_from_slice(e.name());
        if !du.opts.excludes.is_empty() && du.opts.excludes.matches(&self.path) {
            if let Some(x) = self.acc.export_items() {
                x.push_excluded(e.name(), Excluded::Pattern);
            }
            return;
        }
        let st = match dents::fs::stat_at(dir, e.name_cstr(), du.mask()) {
            Ok(st) => st,
            Err(err) => return du.problem(self.ctx, "cannot access", &self.path, Some(&err)),
        };
        let dev = st.dev();
        if du.opts.one_file_system && dev != self.item.root_dev {
            if let Some(x) = self.acc.export_items() {
                x.push_excluded(e.name(), Excluded::OtherFs(&st));
            }
            return;
        }
        let depth = self.item.depth as usize + 1;
        if st.file_type().is_dir() {
            self.acc.pending.fetch_add(1, Ordering::AcqRel);
            self.ctx.spill(Item {
                path: self.path.clone(),
                depth: depth as u32,
                root: self.item.root,
                root_dev: self.item.root_dev,
                reply: (self.ctx.rank(), self.id),
                slice: None,
            });
            return;
        }
        du.file(self.ctx, &st, dev, depth, &self.path, Some(&self.acc));
    }
}

impl DuJob {
    /// Counts one file (anything not walked into) below `parent`: hard
    /// links through their owner, the `-a` line.
    fn file(
        &self,
        ctx: &Ctx,
        st: &Metadata,
        dev: u64,
        depth: usize,
        path: &[u8],
        parent: Option<&Arc<Acc>>,
    ) {
        let own = self.own(st);
        let is_dir = st.file_type().is_dir();
        let hashed = self.hash_all() && !is_dir;
        if hashed && depth == 0 {
            // `du T T/f` (T/f counted in T's walk), `du f f`: no line.
            if self.parent_seen(path) || !self.seen_files.insert(dev, st.ino()) {
                return;
            }
            self.files_given.store(true, Ordering::Relaxed);
            lock(&self.new_files).extend([dev, st.ino()]);
        }
        // Every name is exported, a hard link counted before too (the
        // export's readers count links once themselves).
        match parent.and_then(|p| p.export_items()) {
            Some(items) => items.push_file(name_of(path), st),
            None if depth == 0 => {
                if let Some(top) = &self.export {
                    top.root_file(path, st);
                    self.send_root(ctx, top);
                }
            }
            None => {}
        }
        // `du T/f T`: T/f was counted as an argument.
        if hashed
            && depth > 0
            && self.files_given.load(Ordering::Relaxed)
            && self.seen_files.contains(dev, st.ino())
        {
            return;
        }
        // Under -L a file with one link may be met by several paths too.
        let linked = st.nlink() > 1 || hashed && self.opts.follow == Follow::Always;
        if linked && !is_dir && !self.opts.count_links {
            let owner = link_owner(dev, st.ino(), ctx.size());
            if owner != ctx.rank() {
                // An argument waits for the owner's answer in a sum of
                // its own, whose line is printed only if the owner
                // counted it (`du a/f b/f`, f and b/f one file).
                let holder;
                let (p, line_depth) = match parent {
                    Some(p) => (Some(p), depth as u64),
                    None if self.hash_all() => {
                        let mut acc = Acc::new(Dui::ZERO, 0, path.to_vec(), 0, true, Parent::None);
                        acc.if_counted = true;
                        holder = Arc::new(acc);
                        (Some(&holder), NO_LINE)
                    }
                    None => (None, 0),
                };
                if let Some(p) = p {
                    let depth = line_depth;
                    let id = self.remote_id(p);
                    p.pending.fetch_add(1, Ordering::AcqRel);
                    let mut b = Vec::with_capacity(88 + path.len());
                    for n in [LINK, dev, st.ino(), own.size, own.inodes, own.tmax as u64] {
                        wire::put_u64(&mut b, n);
                    }
                    for n in [ctx.rank() as u64, id, depth] {
                        wire::put_u64(&mut b, n);
                    }
                    wire::put_bytes(&mut b, path);
                    ctx.send_job(owner, b);
                    return;
                }
                // An argument that is a hard link: asked of no one (its
                // line is printed whatever), counted here.
            } else if !self.first_link(dev, st.ino()) {
                return;
            }
        }
        self.count_total(&own);
        if let Some(p) = parent {
            p.add(&own);
        }
        if depth == 0 || self.opts.all && depth <= self.opts.max_depth {
            self.line(ctx, &own, path);
        }
    }

    /// Reads one slice of a huge directory (an item from `split`).
    fn run_slice(&self, item: &Item, ctx: &Ctx) {
        let (lo, _) = item.slice.expect("a slice item");
        let acc = Arc::new(
            Acc::new(
                Dui::ZERO,
                1,
                item.path.clone(),
                item.depth as usize,
                false,
                Parent::Remote(item.reply.0, item.reply.1),
            )
            .exporting(self.opts.export, None),
        );
        let id = self.remote_id(&acc);
        let mut path = item.path.clone();
        path.push(b'/');
        let mut sink = SliceSink {
            du: self,
            ctx,
            item,
            acc: acc.clone(),
            id,
            path,
            entries: 0,
        };
        match slices::open(item) {
            // Every slice fails to open alike (a directory made
            // unreadable): one message, from the first slice.
            Err(e) if lo == 0 => {
                self.problem(ctx, "cannot read directory", &item.path, Some(&e));
                self.mark_read_error(ctx, item.reply.0, item.reply.1);
            }
            Err(_) => ctx.fail(1),
            // A read that fails within the slice (a corrupt block) is this
            // slice's own loss: said by this slice, in GNU's words for a
            // directory that gave nothing (`cannot read directory`) or
            // some of its entries first.
            Ok(fd) => {
                let (lo, hi) = slices::range(item);
                let read =
                    unstable::read_slice_range(fd.as_fd(), lo, hi, DEFAULT_BUFFER_SIZE, &mut sink);
                if let Err(e) = read {
                    if lo == 0 && sink.entries == 0 {
                        self.problem(ctx, "cannot read directory", &item.path, Some(&e));
                    } else {
                        self.read_cut(ctx, &item.path, &e);
                    }
                    self.mark_read_error(ctx, item.reply.0, item.reply.1);
                }
            }
        }
        self.settle(ctx, &acc);
    }
}

impl Visitor for DuVisitor<'_> {
    type State = ();

    fn state(&self) {}

    fn excluded(&self, _: &mut (), v: &Visit<'_>) -> bool {
        let du = self.du;
        if !du.opts.excludes.is_empty() && du.opts.excludes.matches(v.path()) {
            self.export_excluded(v, Excluded::Pattern);
            return true;
        }
        if !v.file_type().is_dir() {
            return false;
        }
        let Some(st) = self.stat(v) else {
            return true;
        };
        let item = self.item(v);
        let depth = v.depth();
        let dev = st.dev();
        if du.opts.one_file_system && depth > 0 && dev != item.root_dev {
            self.export_excluded(v, Excluded::OtherFs(st));
            return true;
        }
        // Counted before (an earlier argument; under -L, another path):
        // skipped whole, as GNU's hash skips it.
        if du.hash_all() && du.seen_dirs.contains(dev, st.ino()) {
            return true;
        }
        let parent = if is_start(v) {
            None
        } else {
            match self.parent_acc(v) {
                Some(p) => Some(p),
                // The parent failed its stat (reported): nothing to add to.
                None => return true,
            }
        };
        if self.may_spill && self.ctx.size() > 1 && st.len() >= slices::HUGE_DIR {
            if let Some(space) = slices::sliceable(v) {
                if !du.claim_dir(dev, st.ino()) {
                    return true;
                }
                self.split(v, st, item, depth, parent, space);
                return true;
            }
        }
        if let Some(p) = &parent {
            if self.may_spill && slices::spillable(v) && self.ctx.wants_spill() {
                let id = du.remote_id(p);
                p.pending.fetch_add(1, Ordering::AcqRel);
                self.ctx.spill(self.item_below(v, item, id));
                return true;
            }
        }
        // A spilled directory is claimed where its item is walked.
        if !du.claim_dir(dev, st.ino()) {
            return true;
        }
        let acc = self.dir_acc(v, st, item, depth, parent, 1);
        lock(&du.walking).insert(dir_key(v.path()), acc);
        false
    }

    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        if self.ctx.quitting() {
            self.quit.store(true, Ordering::Relaxed);
            return Flow::Quit;
        }
        let du = self.du;
        if v.is_post_order() {
            if let Some(acc) = lock(&du.walking).remove(&dir_key(v.path())) {
                du.settle(self.ctx, &acc);
            }
            return Flow::Continue;
        }
        let Some(st) = self.stat(v) else {
            return Flow::Continue;
        };
        let item = self.item(v);
        let depth = v.depth();
        let dev = st.dev();
        if du.opts.one_file_system && depth > 0 && dev != item.root_dev {
            self.export_excluded(v, Excluded::OtherFs(st));
            return Flow::Continue;
        }
        let parent = if !is_start(v) {
            match self.parent_acc(v) {
                Some(p) => Some(p),
                None => return Flow::Continue,
            }
        } else {
            None
        };
        du.file(self.ctx, st, dev, depth, v.path(), parent.as_ref());
        Flow::Continue
    }

    fn error(&self, _: &mut (), e: Error) {
        let path = e.path_bytes();
        match e.kind() {
            ErrorKind::Io(err) if e.operation() == Operation::ReadCut => {
                self.du.read_cut(self.ctx, path, err)
            }
            ErrorKind::Io(err) => {
                self.du
                    .problem(self.ctx, "cannot read directory", path, Some(err));
            }
            ErrorKind::Loop { .. } => return,
        }
        // The export marks the directory, as ncdu does.
        let acc = lock(&self.du.walking).get(&dir_key(path)).cloned();
        if let Some(items) = acc.as_deref().and_then(Acc::export_items) {
            items.mark_read_error();
        }
    }
}

/// Ends the message `m` with `: CAUSE` (if any) and a newline, writes it
/// to rank 0's standard error whole, and sets the status to 1.
fn say(ctx: &Ctx, mut m: Vec<u8>, e: Option<&io::Error>) {
    if let Some(e) = e {
        m.extend_from_slice(b": ");
        m.extend_from_slice(msg::describe(e).as_bytes());
    }
    m.push(b'\n');
    ctx.write_err(m);
    ctx.fail(1);
}

/// The last part of `path` (its name in its directory).
fn name_of(path: &[u8]) -> &[u8] {
    match path.iter().rposition(|&c| c == b'/') {
        Some(i) => &path[i + 1..],
        None => path,
    }
}

/// A size, inode count and time as `add_to` and `file` write them.
fn read_dui(r: &mut Reader<'_>) -> Dui {
    Dui {
        size: r.u64(),
        inodes: r.u64(),
        tmax: r.u64() as i64,
    }
}

/// Where a directory's total goes: its parent's sum here (which then
/// completes only after it), or back where its item came from.
fn parent_link(parent: Option<Arc<Acc>>, item: &Item) -> Parent {
    match parent {
        Some(p) => {
            p.pending.fetch_add(1, Ordering::AcqRel);
            Parent::Local(p)
        }
        None if item.reply.0 == NO_RANK => Parent::None,
        None => Parent::Remote(item.reply.0, item.reply.1),
    }
}

/// Whether `v` is one of the walk's starts (an item), not an entry below.
fn is_start(v: &Visit<'_>) -> bool {
    v.path().len() == v.root().len()
}

/// The rank that owns (dev, ino) in the hard-link set.
fn link_owner(dev: u64, ino: u64, ranks: u32) -> u32 {
    let h = (ino ^ dev.rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((h >> 32) % ranks as u64) as u32
}

/// The key of a directory's sum: its path and a `/`.
fn dir_key(path: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(path.len() + 1);
    key.extend_from_slice(path);
    if !key.ends_with(b"/") {
        key.push(b'/');
    }
    key
}

/// Several trailing slashes count as one, as du's fts trims them.
fn trim_slashes(root: &[u8]) -> &[u8] {
    let mut len = root.len();
    if len > 2 && root[len - 1] == b'/' {
        while len > 1 && root[len - 2] == b'/' {
            len -= 1;
        }
    }
    &root[..len]
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
