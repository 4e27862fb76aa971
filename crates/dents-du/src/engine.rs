//! The walk: each argument's tree on the library's parallel walker,
//! sizes summed into the directories still open, one line per directory
//! (and per file with `-a`) once everything below it is counted.
//!
//! # Sums without a record per file
//!
//! A directory's sum lives in an `Acc` (three atomics) from its first
//! contribution until its post-order visit, keyed by its parent's id and
//! its own name, never by its path: a key per directory of the paths
//! being walked, each the whole path, made memory grow with the square
//! of the depth.  Each worker keeps the sums
//! of the directories on its way down to the last one it added to (a
//! `Chain`), so the map is looked up once per directory and worker,
//! from the deepest directory the two paths share, not per entry.
//! The walker visits a directory after every entry and subdirectory
//! below it (its pending count reaches zero only then), so the sum is
//! complete when it is read; the directory then adds its total to its
//! parent's and its `Acc` goes.  Memory: one `Acc` and key (a name)
//! per directory whose subtree is being walked — depth first, about the
//! directories on the current paths and their waiting siblings — and
//! each worker's chain (a path and a pointer a level), all linear in the
//! depth; plus the hard-link set; never one record per file.
//!
//! # Order of the lines
//!
//! Lines go into one shared buffer under a lock, as they are made: an
//! entry's line is in the buffer before its directory is complete, so
//! every directory's line comes after all lines of its subtree
//! (post-order, as GNU's).  Siblings come in the order the workers finish
//! them.

use std::collections::HashMap;
use std::ffi::CString;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use dents::fs;
use dents::walk::{self, Visit, Visitor};
use dents::FileType;
use dents::Flow;
use dents::{Error, ErrorKind, Operation};
use dents::{Metadata, StatFields};

pub use crate::dui::{AtomicDui, Dui};
use crate::links::{LinkSet, LogicalFiles, Met, Owner, Owners, Step};
use crate::logical::{self, Alias, DirRec, FileLine, Graph, Replay};
use crate::ncdu::{Excluded, Export, ExportDir};
use crate::order::{Node, Places};
use crate::time_style::{unpack_time, NO_TIME};
use crate::{Follow, Options};

/// Output gathered before it is handed to the sink.
const FLUSH_AT: usize = 64 * 1024;

/// Directory-sum shards.
const SHARDS: usize = 64;

/// What the engine tells its caller: output, problems, progress.
pub trait Sink: Sync {
    /// A worker's own progress counts.
    type Tally: Send + Default;
    /// Writes output bytes (whole lines, in order).
    fn write(&self, bytes: &[u8]);
    /// Reports a problem (the caller words it and sets the exit status).
    fn problem(&self, p: &Problem<'_>);
    /// Appends a path as it is to appear in a line (quoted on a terminal).
    fn push_name(&self, out: &mut Vec<u8>, path: &[u8]) {
        out.extend_from_slice(path);
    }
    /// Appends a time for `--time` (seconds and nanoseconds since the epoch).
    fn push_time(&self, out: &mut Vec<u8>, sec: i64, nsec: u32);
    /// Counts an entry seen (for a status line).
    fn seen(&self, _tally: &mut Self::Tally, _path: &[u8], _is_dir: bool) {}
    /// Counts the size (in bytes, as summed) of an entry just counted in
    /// the totals (for a status line).
    fn counted(&self, _tally: &mut Self::Tally, _size: u64) {}
    /// Hands a worker's counts in at its end.
    fn flush_tally(&self, _tally: &mut Self::Tally) {}
}

/// A problem met, in GNU du's terms.
#[derive(Debug)]
pub enum Problem<'a> {
    /// `cannot access 'PATH'[: CAUSE]`: an argument or entry that could
    /// not be stat'ed (no cause for a dangling symlink under `-L`).
    CannotAccess(&'a [u8], Option<&'a io::Error>),
    /// `cannot read directory 'PATH': CAUSE`: its size still counts.
    CannotRead(&'a [u8], &'a io::Error),
    /// `PATH: CAUSE` (the path quoted only if it must be): a directory
    /// whose read failed part way, after some of its entries (GNU's
    /// `FTS_ERR`); what was read counts.
    ReadCut(&'a [u8], &'a io::Error),
}

/// A directory's running sum.  Kept small (one is live for every
/// directory queued or being walked): what only the export needs is
/// boxed apart.
#[derive(Debug)]
struct Acc {
    sum: AtomicDui,
    /// Something below waits for GNU's order to say whether it is
    /// charged here (a link of an inode met more than once): the
    /// directory's line is held back until the walk's end.
    pending: AtomicBool,
    /// The export's part, if exporting.
    export: Option<Box<AccExport>>,
    /// Its id in the walk (`-L`'s records name directories by it).
    id: usize,
    /// (device, inode), as stat'ed before the directory was read.
    dev_ino: (u64, u64),
    /// Its entries' places in fts's order, read again once a link of an
    /// inode with several links is met in it or below it (dropped with
    /// the sum, at its post-order visit).
    places: OnceLock<Box<Places>>,
    /// Its node in GNU's order, made with its places' reader.
    node: OnceLock<Arc<Node>>,
}

/// What the ncdu export keeps of a directory being walked.
#[derive(Debug, Default)]
struct AccExport {
    /// The export's record of the directory.
    dir: ExportDir,
    /// The directory's own stat.
    own_st: OnceLock<Metadata>,
}

impl Acc {
    fn new(export: Option<&Export>, id: usize) -> Acc {
        Acc {
            sum: AtomicDui::new(Dui::ZERO),
            pending: AtomicBool::new(false),
            export: export.map(|x| {
                Box::new(AccExport {
                    dir: x.new_dir(),
                    own_st: OnceLock::new(),
                })
            }),
            id,
            dev_ino: (0, 0),
            places: OnceLock::new(),
            node: OnceLock::new(),
        }
    }

    /// The export's record of the directory, if exporting.
    fn export(&self) -> Option<&ExportDir> {
        self.export.as_deref().map(|x| &x.dir)
    }

    /// The directory's own stat, if exporting (and it was stat'ed).
    fn own_st(&self) -> Option<&Metadata> {
        self.export.as_deref().and_then(|x| x.own_st.get())
    }

    fn add(&self, d: &Dui) {
        self.sum.add(d);
    }

    fn get(&self) -> Dui {
        self.sum.get()
    }
}

/// du over any number of arguments, one after the other (as GNU: an
/// argument's hard links and directories count against the later ones).
pub struct Du<'s, S: Sink> {
    opts: Options,
    sink: &'s S,
    links: LinkSet,
    /// Several arguments: every directory walked (`du a a/b` counts
    /// `a/b` once), as GNU's "hash all".
    dirs: LinkSet,
    /// The id the next argument's first directory node gets: ids grow
    /// over the whole run, so that a [`links`](crate::links) word made
    /// by an earlier argument reads as counted.
    next_node: AtomicU64,
    /// Some argument that is not a directory was hashed: later walks look
    /// single-link files up too.
    root_files_hashed: AtomicBool,
    total: Mutex<Dui>,
    out: Mutex<Vec<u8>>,
    ok: AtomicBool,
    export: Option<Export>,
}

impl<'s, S: Sink> Du<'s, S> {
    /// An engine writing to `sink`.
    pub fn new(opts: Options, sink: &'s S) -> Du<'s, S> {
        let export = opts.export.then(Export::new);
        Du {
            opts,
            sink,
            links: LinkSet::default(),
            dirs: LinkSet::default(),
            next_node: AtomicU64::new(1),
            root_files_hashed: AtomicBool::new(false),
            total: Mutex::new(Dui {
                tmax: NO_TIME,
                ..Dui::default()
            }),
            out: Mutex::new(Vec::with_capacity(FLUSH_AT * 2)),
            ok: AtomicBool::new(true),
            export,
        }
    }

    /// Whether directories are stat'ed before they are read (all but
    /// `-L -l`, where a directory closing a loop must not be counted and
    /// the walker tells of the loop only when it opens the directory).
    fn early_dirs(&self) -> bool {
        !(self.opts.follow == Follow::Always && self.opts.count_links)
    }

    /// `-L` (without `-l`): a directory reached by several paths is
    /// charged to the first in GNU's order, settled after the walk.
    fn logical(&self) -> bool {
        self.opts.follow == Follow::Always && !self.opts.count_links
    }

    /// Whether every entry hashes (several arguments, `--files0-from`, `-L`).
    fn hash_all(&self) -> bool {
        self.opts.hash_all || self.opts.follow == Follow::Always
    }

    fn mask(&self) -> StatFields {
        self.opts.stat_mask()
    }

    fn dui(&self, st: &Metadata) -> Dui {
        self.opts.entry_dui(st)
    }

    /// Walks one argument (as given), printing its lines.
    pub fn add_root(&self, root: &[u8]) {
        // Several trailing slashes count as one, as fts trims them
        // (`du a//` prints `a/` and `a/b`).
        let mut len = root.len();
        if len > 2 && root[len - 1] == b'/' {
            while len > 1 && root[len - 2] == b'/' {
                len -= 1;
            }
        }
        let root = &root[..len];
        // GNU du tests the patterns before it looks at the file: an
        // excluded argument is skipped even if it cannot be stat'ed.
        if !self.opts.excludes.is_empty() && self.opts.excludes.matches(root) {
            return;
        }
        let Ok(name) = CString::new(root) else {
            let e = io::Error::from_raw_os_error(libc_enoent());
            return self.fail(Problem::CannotAccess(root, Some(&e)));
        };
        let follow_root = self.opts.follow != Follow::Never;
        let st = if follow_root {
            match fs::stat_follow_at(rustix::fs::CWD, &name, self.mask()) {
                Err(e) if e.raw_os_error() == Some(libc_enoent()) => {
                    fs::stat_at(rustix::fs::CWD, &name, self.mask())
                }
                r => r,
            }
        } else {
            fs::stat_at(rustix::fs::CWD, &name, self.mask())
        };
        let st = match st {
            Ok(st) => st,
            Err(e) => return self.fail(Problem::CannotAccess(root, Some(&e))),
        };
        if follow_root && st.file_type() == FileType::SYMLINK {
            // A dangling link named with -H, -D or -L: GNU says it cannot
            // access it, every time it is named, even where an earlier
            // argument's walk already counted the link itself.
            return self.fail(Problem::CannotAccess(root, None));
        }
        let is_dir = st.file_type().is_dir();
        if self.hash_all() && !is_dir && !self.opts.count_links {
            // `du a a/f`: a/f was counted in a's walk (a directory walked
            // whole), though its single link was not hashed there.
            if let Some(parent) = parent_dir_id(root) {
                if self.dirs.contains(parent.0, parent.1) {
                    return;
                }
            }
            self.root_files_hashed.store(true, Ordering::Relaxed);
        }
        let wopts = self
            .opts
            .walk_options()
            .post_order_parent_fd(!self.early_dirs())
            .read_options(dents::slice::ReadOptions::new().buffer_size(16 * 1024));
        let v = WalkVisitor {
            du: self,
            root_dev: st.dev(),
            accs: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            root_key: dir_key(root),
            loops: Mutex::new(Vec::new()),
            any_loop: AtomicBool::new(false),
            owners: Owners::default(),
            held: Mutex::new(Vec::new()),
            root: root.to_vec(),
            graph: Mutex::new(Graph::default()),
            next_id: AtomicUsize::new(0),
            lfiles: LogicalFiles::default(),
            nodes: RwLock::new(Vec::new()),
            node_base: self.next_node.load(Ordering::Relaxed),
        };
        walk::walk(&[root.to_vec()], &wopts, &v);
        v.settle();
        let made = v.nodes.read().unwrap_or_else(|e| e.into_inner()).len() as u64;
        self.next_node.store(v.node_base + made, Ordering::Relaxed);
        if self.logical() {
            let g = std::mem::take(&mut *v.graph.lock().unwrap_or_else(|e| e.into_inner()));
            let r = Replay {
                max_depth: self.opts.max_depth,
                separate_dirs: self.opts.separate_dirs,
                all: self.opts.all,
            };
            logical::settle(&g, &v.lfiles, &r, |d, path| self.line(d, path, true));
            // Later arguments count these files no more.
            v.lfiles.for_each(|(dev, ino), _| {
                self.links.insert(dev, ino);
            });
        }
    }

    /// Reports a problem and remembers the run failed.
    fn fail(&self, p: Problem<'_>) {
        self.ok.store(false, Ordering::Relaxed);
        self.sink.problem(&p);
    }

    /// Appends one line (subject to the threshold) to the shared output.
    fn line(&self, d: &Dui, path: &[u8], quote: bool) {
        if let Some(v) = self.opts.shown_value(d.size, d.inodes) {
            self.write_line(v, d, path, quote);
        }
    }

    /// Appends one line showing `v` to the shared output.
    fn write_line(&self, v: u64, d: &Dui, path: &[u8], quote: bool) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        crate::size::push_size(&mut out, v, &self.opts.units);
        if self.opts.time.is_some() {
            out.push(b'\t');
            let (sec, nsec) = unpack_time(d.tmax);
            self.sink.push_time(&mut out, sec, nsec);
        }
        out.push(b'\t');
        if quote {
            self.sink.push_name(&mut out, path);
        } else {
            out.extend_from_slice(path);
        }
        out.push(if self.opts.nul { 0 } else { b'\n' });
        if out.len() >= FLUSH_AT {
            self.sink.write(&out);
            out.clear();
        }
    }

    /// Ends the run: the grand total with `-c`, the output flushed, the
    /// export written.  `true` if no problem was met.
    pub fn finish(self) -> io::Result<bool> {
        if self.opts.total {
            let mut t = *self.total.lock().unwrap_or_else(|e| e.into_inner());
            // GNU's grand total starts at time 0 (a static duinfo), not
            // at "no time": nothing counted prints 1970-01-01 00:00.
            t.tmax = t.tmax.max(0);
            // Always, whatever the threshold, as GNU du.
            let v = self.opts.value(t.size, t.inodes);
            self.write_line(v, &t, b"total", false);
        }
        let out = std::mem::take(&mut *self.out.lock().unwrap_or_else(|e| e.into_inner()));
        self.sink.write(&out);
        Ok(self.ok.load(Ordering::Relaxed))
    }

    /// What the arguments walked since the last call added up to (all
    /// of it: the grand total `-c` would print), reset to nothing: a
    /// caller that walks one argument at a time gets each one's sum
    /// ([`crate::summary`]), hard links still counted once over all.
    pub fn take_total(&self) -> Dui {
        let mut t = self.total.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::replace(&mut *t, Dui::ZERO)
    }

    /// The ncdu export being built, if any.
    pub fn export(&self) -> Option<&Export> {
        self.export.as_ref()
    }
}

/// `ENOENT`'s number (a name with a NUL byte cannot exist).
fn libc_enoent() -> i32 {
    rustix::io::Errno::NOENT.raw_os_error()
}

/// (dev, ino) of the directory holding `path`.
fn parent_dir_id(path: &[u8]) -> Option<(u64, u64)> {
    let trimmed = {
        let mut p = path;
        while p.len() > 1 && p.ends_with(b"/") {
            p = &p[..p.len() - 1];
        }
        p
    };
    let parent: &[u8] = match trimmed.iter().rposition(|&c| c == b'/') {
        Some(0) => b"/",
        Some(i) => &trimmed[..i],
        None => b".",
    };
    let c = CString::new(parent).ok()?;
    let st = fs::stat_follow_at(rustix::fs::CWD, &c, StatFields::INO).ok()?;
    Some((st.dev(), st.ino()))
}

/// The visitor of one argument's walk.
struct WalkVisitor<'d, 's, S: Sink> {
    du: &'d Du<'s, S>,
    root_dev: u64,
    /// The sums of the directories being walked, each keyed by its
    /// parent's id and its name (the argument's by [`ROOT_ID`]): a key
    /// never holds a whole path, so that memory stays linear in the depth.
    accs: Vec<Mutex<SumMap>>,
    /// The argument's key: its path and a `/` (the head of every key
    /// looked up).
    root_key: Vec<u8>,
    /// Directories that close a loop (`-L -l`): skipped, as GNU does.
    loops: Mutex<Vec<Vec<u8>>>,
    any_loop: AtomicBool,
    /// The inodes met through several links, each with its first link
    /// in GNU's order so far.
    owners: Owners,
    /// The lines held back until the owners are settled.
    held: Mutex<Vec<Held>>,
    /// The argument as walked (its node's name).
    root: Vec<u8>,
    /// `-L`: the directories, aliases and file lines, replayed after the
    /// walk in GNU's order.
    graph: Mutex<Graph>,
    /// The next directory sum's id.
    next_id: AtomicUsize,
    /// `-L`: every file met, and the visits of those met more than once.
    lfiles: LogicalFiles,
    /// The directory nodes made in this argument, by id less `node_base`
    /// (a link set word names its node by id).
    nodes: RwLock<Vec<Arc<Node>>>,
    /// The id of this argument's first node.
    node_base: u64,
}

/// A line held back until the links below it are settled, in the order
/// the walk made them (a post-order: each directory after what is below
/// it).
enum Held {
    /// A directory: its node and its sum without the links pending below.
    Dir(Arc<Node>, Dui),
    /// A link's line (`-a`): shown if the inode is charged to it.
    File {
        dir: Arc<Node>,
        place: u64,
        name: Box<[u8]>,
        dev_ino: (u64, u64),
        own: Dui,
    },
}

/// A shard of the directories' sums: map key (parent id, name) → sum.
type SumMap = HashMap<Box<[u8]>, Arc<Acc>>;

/// A worker's state.
struct State<T> {
    /// The directories on the way to the one last added to.
    cache: Chain,
    total: Dui,
    tally: T,
}

/// The parent id of the argument's key in the sums' map.
const ROOT_ID: usize = usize::MAX;

/// A worker's way down to the directory it last added to: the sums of
/// the directories on it, so that the next directory's sum is found
/// from the deepest one the two paths share (the entry's directory
/// itself, most often), one lookup per name below it.
#[derive(Default)]
struct Chain {
    /// The key last looked up (a path and a `/`).
    key: Vec<u8>,
    /// Each directory on it: the length of its key, and its sum.
    dirs: Vec<(usize, Arc<Acc>)>,
    /// A map key being made.
    scratch: Vec<u8>,
}

/// The map key of the directory `name` in the directory whose id is
/// `parent`, made in `out`.
fn map_key<'a>(out: &'a mut Vec<u8>, parent: usize, name: &[u8]) -> &'a [u8] {
    out.clear();
    out.extend_from_slice(&parent.to_le_bytes());
    out.extend_from_slice(name);
    out
}

/// The key of a directory's sum: its path and a `/` (the head of its
/// entries' paths).
fn dir_key(path: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(path.len() + 1);
    key.extend_from_slice(path);
    if !key.ends_with(b"/") {
        key.push(b'/');
    }
    key
}

fn shard_of(key: &[u8]) -> usize {
    // FNV-1a: the keys are short, and only cache misses hash.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in key {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    (h >> 32) as usize % SHARDS
}

impl<S: Sink> WalkVisitor<'_, '_, S> {
    /// A new directory sum, with an id of its own.
    fn new_acc(&self) -> Acc {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        Acc::new(self.du.export.as_ref(), id)
    }

    fn lock_graph(&self) -> std::sync::MutexGuard<'_, Graph> {
        self.graph.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The sum of the directory whose key is `key` (its path and a
    /// `/`), made on first use.
    fn acc<'a>(&self, chain: &'a mut Chain, key: &[u8]) -> &'a Acc {
        let hit = chain.dirs.last().is_some_and(|d| d.0 == key.len()) && chain.key == key;
        if !hit {
            self.follow_chain(chain, key);
        }
        &chain.dirs.last().expect("the argument's sum at least").1
    }

    /// Moves `chain` to `key`: up to the deepest directory both share,
    /// then down a name at a time.
    fn follow_chain(&self, chain: &mut Chain, key: &[u8]) {
        let same = chain
            .key
            .iter()
            .zip(key)
            .take_while(|(a, b)| a == b)
            .count();
        while chain.dirs.last().is_some_and(|d| d.0 > same) {
            chain.dirs.pop();
        }
        chain.key.clear();
        chain.key.extend_from_slice(key);
        if chain.dirs.is_empty() {
            let root = self.sum_at(map_key(&mut chain.scratch, ROOT_ID, b""));
            chain.dirs.push((self.root_key.len(), root));
        }
        let mut end = chain.dirs.last().expect("pushed").0;
        while end < key.len() {
            let slash = key[end..]
                .iter()
                .position(|&c| c == b'/')
                .map_or(key.len(), |i| end + i);
            let parent = chain.dirs.last().expect("pushed").1.id;
            let acc = self.sum_at(map_key(&mut chain.scratch, parent, &key[end..slash]));
            end = (slash + 1).min(key.len());
            chain.dirs.push((end, acc));
        }
    }

    /// The sum whose map key is `k`, made on first use.
    fn sum_at(&self, k: &[u8]) -> Arc<Acc> {
        let mut map = self.accs[shard_of(k)]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(a) = map.get(k) {
            return a.clone();
        }
        let a = Arc::new(self.new_acc());
        map.insert(k.into(), a.clone());
        a
    }

    /// The map key of the directory visited as `v`, made in the chain's
    /// scratch space.
    fn key_of<'c>(&self, chain: &'c mut Chain, v: &Visit<'_>) -> &'c [u8] {
        let parent = if v.depth() == 0 {
            ROOT_ID
        } else {
            let path = v.path();
            self.acc(chain, &path[..path.len() - v.name().len()]).id
        };
        let name: &[u8] = if v.depth() == 0 { b"" } else { v.name() };
        map_key(&mut chain.scratch, parent, name)
    }

    /// A directory's post-order visit when it was stat'ed before its read
    /// (in `excluded`): its sum holds its own size too.
    fn dir_done(&self, state: &mut State<S::Tally>, v: &Visit<'_>) -> Flow {
        let du = self.du;
        let path = v.path();
        let Some(acc) = self.take_acc(&mut state.cache, v) else {
            // Never stat'ed (it failed, and was reported): nothing to count.
            return Flow::Continue;
        };
        let shown = acc.get();
        let pending = acc.pending.load(Ordering::Relaxed);
        if du.logical() {
            return self.dir_done_logical(state, v, &acc);
        }
        if v.depth() <= du.opts.max_depth {
            match acc.node.get().filter(|_| pending) {
                Some(node) => self.lock_held().push(Held::Dir(node.clone(), shown)),
                None => du.line(&shown, path, true),
            }
        }
        let st = acc.own_st();
        if v.depth() > 0 {
            let parent = self.acc(&mut state.cache, &path[..path.len() - v.name().len()]);
            if pending {
                // Held back too: its line must follow this one's.
                parent.pending.store(true, Ordering::Relaxed);
            }
            if !du.opts.separate_dirs {
                parent.add(&shown);
            }
            if let (Some(x), Some(st)) = (parent.export(), st) {
                x.push_dir(v.name(), st, acc.export());
            }
        } else if let (Some(x), Some(st)) = (&du.export, st) {
            x.root_dir(path, st, acc.export());
        }
        Flow::Continue
    }

    /// A directory's post-order visit under `-L`: recorded (its sum
    /// without its subdirectories) for the replay in GNU's order.
    fn dir_done_logical(&self, state: &mut State<S::Tally>, v: &Visit<'_>, acc: &Acc) -> Flow {
        let path = v.path();
        let st = acc.own_st();
        let parent = if v.depth() > 0 {
            let parent = self.acc(&mut state.cache, &path[..path.len() - v.name().len()]);
            if let (Some(x), Some(st)) = (parent.export(), st) {
                x.push_dir(v.name(), st, acc.export());
            }
            Some(parent.id)
        } else {
            if let (Some(x), Some(st)) = (&self.du.export, st) {
                x.root_dir(path, st, acc.export());
            }
            None
        };
        self.lock_graph().dirs.push(DirRec {
            id: acc.id,
            parent,
            name: if parent.is_some() { v.name() } else { path }.to_vec(),
            dev_ino: acc.dev_ino,
            flat: acc.get(),
        });
        Flow::Continue
    }

    fn lock_held(&self) -> std::sync::MutexGuard<'_, Vec<Held>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The node of the directory `chain.dirs[i]` (open as `fd`, if it is),
    /// made on first use with the nodes above it: each parent's places
    /// are read through `..` from the directory below (checked to be the
    /// directory walked), never by path.  A directory that cannot be read
    /// again places its entries last.
    fn node_at(&self, chain: &Chain, i: usize, fd: Option<BorrowedFd<'_>>) -> Arc<Node> {
        let acc = &chain.dirs[i].1;
        if let Some(n) = acc.node.get() {
            return n.clone();
        }
        acc.node
            .get_or_init(|| {
                if i == 0 {
                    return self.register(|id| Node {
                        id,
                        parent: None,
                        place: 0,
                        depth: 0,
                        name: self.root.as_slice().into(),
                        extra: AtomicDui::new(Dui::ZERO),
                    });
                }
                let from = chain.dirs[i - 1].0;
                let name = &chain.key[from..chain.dirs[i].0 - 1];
                let up = &chain.dirs[i - 1].1;
                let need_up = up.node.get().is_none() || up.places.get().is_none();
                let up_fd = fd.filter(|_| need_up).and_then(|fd| {
                    let u = fs::open_dir_at(fd, c"..").ok()?;
                    let st = fs::fstat(u.as_fd()).ok()?;
                    ((st.dev(), st.ino()) == up.dev_ino).then_some(u)
                });
                let up_fd = up_fd.as_ref().map(|u| u.as_fd());
                let parent = self.node_at(chain, i - 1, up_fd);
                let place = match up_fd {
                    Some(u) => up
                        .places
                        .get_or_init(|| Box::new(Places::read(u, false)))
                        .of(name),
                    None => up
                        .places
                        .get()
                        .map_or(crate::order::UNKNOWN, |p| p.of(name)),
                };
                self.register(|id| Node {
                    id,
                    parent: Some(parent),
                    place,
                    depth: i,
                    name: name.into(),
                    extra: AtomicDui::new(Dui::ZERO),
                })
            })
            .clone()
    }

    /// A new node, with the next id.
    fn register(&self, make: impl FnOnce(u64) -> Node) -> Arc<Node> {
        let mut nodes = self.nodes.write().unwrap_or_else(|e| e.into_inner());
        let n = Arc::new(make(self.node_base + nodes.len() as u64));
        nodes.push(n.clone());
        n
    }

    /// The node whose id is `id` (made in this argument).
    fn node_by_id(&self, id: u64) -> Arc<Node> {
        self.nodes.read().unwrap_or_else(|e| e.into_inner())[(id - self.node_base) as usize].clone()
    }

    /// Takes back a link's provisional charge from its directory (and
    /// those above, but with `-S`): the inode was met again, and
    /// settling charges it to the first of its links in GNU's order.
    fn take_back(&self, dir: &Node, own: &Dui) {
        let mut n = Some(dir);
        while let Some(d) = n {
            d.extra.take_back(own);
            n = d.parent.as_deref().filter(|_| !self.du.opts.separate_dirs);
        }
    }

    /// A link of an inode with several links, below the argument: counted
    /// once over the run, charged to the first of its links in GNU's
    /// order.  The first link this argument meets is charged where it
    /// is, provisionally (its directory's line held back until the
    /// walk's end); a second one moves the inode to an [`Owner`] record
    /// that keeps the earlier link in GNU's order, settled after the walk.
    fn linked(&self, state: &mut State<S::Tally>, v: &Visit<'_>, st: &Metadata) -> Flow {
        let du = self.du;
        let (dev, ino) = (st.dev(), st.ino());
        let path = v.path();
        let key = &path[..path.len() - v.name().len()];
        let acc = self.acc(&mut state.cache, key);
        // Counted by an earlier argument: known before the directory is
        // placed, so that a directory whose links were all counted
        // before is not read again.
        let counted = |w: u64| Met::of(w, self.node_base) == Met::Counted;
        if acc.places.get().is_none() && du.links.get(dev, ino).is_some_and(counted) {
            if let Some(x) = acc.export() {
                x.push_file(v.name(), st);
            }
            return Flow::Continue;
        }
        let place = acc
            .places
            .get_or_init(|| Box::new(Places::read(v.parent_fd(), false)))
            .of(v.name());
        let chain = &state.cache;
        let dir = self.node_at(chain, chain.dirs.len() - 1, Some(v.parent_fd()));
        let own = du.dui(st);
        // With --time a provisional charge could not be taken back (its
        // time is in a maximum): every such inode gets its record.
        let once = Met::once(dir.id, place).filter(|_| du.opts.time.is_none());
        let step = du.links.update(dev, ino, |w, fresh| {
            let step = Met::step(w, fresh, self.node_base, dir.id, once);
            match step {
                Step::Counted | Step::Once => {}
                Step::Record | Step::Again => self.owners.offer(dev, ino, &dir, place, own),
                Step::Second { node, place: p } => {
                    let first = self.node_by_id(node);
                    self.take_back(&first, &own);
                    self.owners
                        .offer_second((dev, ino), (&first, p), &dir, place, own);
                }
            }
            step
        });
        let acc = self.acc(&mut state.cache, key);
        match step {
            Step::Counted => {}
            Step::Once => {
                acc.pending.store(true, Ordering::Relaxed);
                acc.add(&own);
                state.total.add(&own);
                du.sink.counted(&mut state.tally, own.size);
            }
            _ => acc.pending.store(true, Ordering::Relaxed),
        }
        if let Some(x) = acc.export() {
            x.push_file(v.name(), st);
        }
        if step != Step::Counted && du.opts.all && v.depth() <= du.opts.max_depth {
            self.lock_held().push(Held::File {
                dir,
                place,
                name: v.name().into(),
                dev_ino: (dev, ino),
                own,
            });
        }
        Flow::Continue
    }

    /// After the walk of the argument: each inode met through several
    /// links is charged to its first link in GNU's order (once over all
    /// arguments), and the held-back lines are written, in the order
    /// they were made.
    ///
    /// Memory: an [`crate::links::Owner`] per inode met through several
    /// links (its first link's directory node and place, and its size),
    /// a [`Node`] per directory on the way to such links, a held line
    /// per such directory within `-d` (and per link with `-a`); while
    /// the walk is in a directory holding such links, its entries'
    /// places (a hash and a place an entry).  Nothing for a tree without
    /// hard links.
    fn settle(&self) {
        let held = std::mem::take(&mut *self.lock_held());
        if held.is_empty() && self.owners.is_empty() {
            return;
        }
        let du = self.du;
        let mut total = Dui::ZERO;
        let mut tally = S::Tally::default();
        // Every record is charged: its inode was not counted before this
        // argument (its word said so when the record was made).
        let mut charge = |_, o: &mut Owner| {
            o.set_charged();
            let own = o.own();
            if !o.moved() {
                total.add(&own);
                du.sink.counted(&mut tally, own.size);
            }
            // Its directories: the one holding it and those above (with
            // -S only the one holding it).
            let mut n = Some(&*o.dir);
            while let Some(d) = n {
                d.extra.add(&own);
                n = d.parent.as_deref().filter(|_| !du.opts.separate_dirs);
            }
        };
        // The records are needed again only for the files' own lines
        // (-a); else each is dropped as it is charged, not kept beside the
        // link set growing.
        if held.iter().any(|h| matches!(h, Held::File { .. })) {
            self.owners.for_each(charge);
        } else {
            self.owners.drain(|k, mut o| charge(k, &mut o));
        }
        du.sink.flush_tally(&mut tally);
        self.du
            .total
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add(&total);
        for h in &held {
            match h {
                Held::Dir(node, sum) => {
                    let mut sum = *sum;
                    sum.add_wrapping(&node.extra.get());
                    du.line(&sum, &node.path(), true);
                }
                Held::File {
                    dir,
                    place,
                    name,
                    dev_ino,
                    own,
                } => {
                    let word = du.links.get(dev_ino.0, dev_ino.1).unwrap_or(0);
                    let own = match Met::of(word, self.node_base) {
                        Met::Once { node, place: p } => {
                            (node == dir.id && p == *place).then_some(*own)
                        }
                        Met::Again => self
                            .owners
                            .with(*dev_ino, |o| {
                                (o.charged() && Arc::ptr_eq(&o.dir, dir) && o.place == *place)
                                    .then_some(o.own())
                            })
                            .flatten(),
                        Met::Counted => None,
                    };
                    if let Some(own) = own {
                        let mut path = dir.path();
                        if !path.ends_with(b"/") {
                            path.push(b'/');
                        }
                        path.extend_from_slice(name);
                        du.line(&own, &path, true);
                    }
                }
            }
        }
    }

    /// Takes a completed directory's sum out of the map.
    fn take_acc(&self, chain: &mut Chain, v: &Visit<'_>) -> Option<Arc<Acc>> {
        let k = self.key_of(chain, v);
        self.accs[shard_of(k)]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(k)
    }

    /// The stat of an entry, or the problem reported; `None` to skip it.
    fn stat<'v>(&self, chain: &mut Chain, v: &'v Visit<'_>) -> Option<&'v Metadata> {
        match v.metadata() {
            Ok(st) => {
                // Following links, a link whose target is missing is
                // stat'ed as itself: GNU says it cannot access it.
                if v.follows_links()
                    && st.file_type() == FileType::SYMLINK
                    && (v.depth() > 0 || self.du.opts.follow != Follow::Never)
                {
                    self.du.fail(Problem::CannotAccess(v.path(), None));
                    return None;
                }
                Some(st)
            }
            Err(e) => {
                self.du.fail(Problem::CannotAccess(v.path(), Some(&e)));
                // Entries named but not stat'able for want of search
                // permission: the directory was not searchable, which
                // ncdu (it changes into each directory) marks as not read.
                if v.depth() > 0 && e.kind() == io::ErrorKind::PermissionDenied {
                    self.mark_read_error(chain, &v.path()[..v.path().len() - v.name().len()]);
                }
                None
            }
        }
    }

    /// Marks the directory whose key is `key` as not read in the export
    /// (ncdu's `read_error`).
    fn mark_read_error(&self, chain: &mut Chain, key: &[u8]) {
        if self.du.export.is_none() {
            return;
        }
        if let Some(x) = self.acc(chain, key).export() {
            x.mark_read_error();
        }
    }

    /// Writes an entry the walk leaves out into its directory's export,
    /// as ncdu lists it.
    fn export_excluded(&self, state: &mut State<S::Tally>, v: &Visit<'_>, why: Excluded<'_>) {
        if self.du.export.is_none() || v.depth() == 0 {
            return;
        }
        let key = &v.path()[..v.path().len() - v.name().len()];
        if let Some(x) = self.acc(&mut state.cache, key).export() {
            x.push_excluded(v.name(), why);
        }
    }
}

impl<S: Sink> Visitor for WalkVisitor<'_, '_, S> {
    type State = State<S::Tally>;

    fn state(&self) -> Self::State {
        State {
            cache: Chain::default(),
            total: Dui {
                tmax: NO_TIME,
                ..Dui::default()
            },
            tally: S::Tally::default(),
        }
    }

    fn excluded(&self, state: &mut Self::State, v: &Visit<'_>) -> bool {
        let du = self.du;
        if !du.opts.excludes.is_empty() && du.opts.excludes.matches(v.path()) {
            self.export_excluded(state, v, Excluded::Pattern);
            return true;
        }
        if !v.file_type().is_dir() {
            return false;
        }
        if !du.early_dirs() {
            // -L -l: the directory is stat'ed at its post-order visit.
            return false;
        }
        // A directory, before it is read: stat'ed now, through its open
        // parent, so that its post-order visit needs no system call.
        let Some(st) = self.stat(&mut state.cache, v) else {
            return true;
        };
        let dev = st.dev();
        if du.opts.one_file_system && v.depth() > 0 && dev != self.root_dev {
            self.export_excluded(state, v, Excluded::OtherFs(st));
            return true;
        }
        // Several arguments (or -L): a directory seen before is skipped
        // whole, before it is read.
        if du.hash_all() && !du.opts.count_links && !du.dirs.insert(dev, st.ino()) {
            if du.logical() && v.depth() > 0 {
                // Met at another path first: which one GNU charges is
                // settled after the walk.
                let path = v.path();
                let parent = self.acc(&mut state.cache, &path[..path.len() - v.name().len()]);
                let parent = parent.id;
                self.lock_graph().aliases.push(Alias {
                    parent,
                    name: v.name().to_vec(),
                    dev_ino: (dev, st.ino()),
                });
            }
            return true;
        }
        let own = du.dui(st);
        state.total.add(&own);
        du.sink.counted(&mut state.tally, own.size);
        let mut acc = self.new_acc();
        acc.dev_ino = (dev, st.ino());
        acc.add(&own);
        if let Some(x) = &acc.export {
            let _ = x.own_st.set(st.clone());
        }
        let k = self.key_of(&mut state.cache, v);
        self.accs[shard_of(k)]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(k.into(), Arc::new(acc));
        false
    }

    fn visit(&self, state: &mut Self::State, v: &Visit<'_>) -> Flow {
        let du = self.du;
        let opts = &du.opts;
        let post = v.is_post_order();
        let depth = v.depth();
        let path = v.path();
        du.sink.seen(&mut state.tally, path, post);
        if post && self.any_loop.load(Ordering::Relaxed) {
            let loops = self.loops.lock().unwrap_or_else(|e| e.into_inner());
            if loops.iter().any(|l| l.as_slice() == path) {
                return Flow::Continue;
            }
        }
        if post && du.early_dirs() {
            return self.dir_done(state, v);
        }
        let Some(st) = self.stat(&mut state.cache, v) else {
            return Flow::Continue;
        };
        let dev = st.dev();
        if opts.one_file_system && depth > 0 && dev != self.root_dev {
            self.export_excluded(state, v, Excluded::OtherFs(st));
            return Flow::Continue;
        }
        let is_dir = st.file_type().is_dir();
        let key_end = path.len() - v.name().len();
        if !is_dir && !opts.count_links {
            if st.nlink() > 1 && depth > 0 && opts.follow != Follow::Always {
                return self.linked(state, v, st);
            }
            if du.logical() && depth > 0 {
                // Met again (at another path, through a symlink or a
                // hard link): charged after the walk to the first visit
                // in GNU's order.  An earlier argument's: counted there.
                let acc = self.acc(&mut state.cache, &path[..key_end]);
                let again = du.links.contains(dev, st.ino())
                    || !self
                        .lfiles
                        .visit((dev, st.ino()), acc.id, v.name(), &du.dui(st));
                if again {
                    if let Some(x) = acc.export() {
                        x.push_file(v.name(), st);
                    }
                    return Flow::Continue;
                }
            }
            let seen = if du.logical() && depth > 0 {
                // Its first visit (above).
                false
            } else if st.nlink() > 1
                || du.hash_all() && (depth == 0 || opts.follow == Follow::Always)
            {
                !du.links.insert(dev, st.ino())
            } else {
                du.hash_all()
                    && du.root_files_hashed.load(Ordering::Relaxed)
                    && du.links.contains(dev, st.ino())
            };
            if seen {
                // Counted already; the export still lists every link
                // (its readers count hard links once themselves).
                if depth > 0 && du.export.is_some() {
                    let acc = self.acc(&mut state.cache, &path[..key_end]);
                    if let Some(x) = acc.export() {
                        x.push_file(v.name(), st);
                    }
                }
                return Flow::Continue;
            }
        }
        let own = self.du.dui(st);
        state.total.add(&own);
        du.sink.counted(&mut state.tally, own.size);
        if !post {
            // A file (or anything not walked into).
            if depth > 0 {
                let acc = self.acc(&mut state.cache, &path[..key_end]);
                if du.logical() {
                    // Its time goes to the directory it is charged to,
                    // after the walk.
                    acc.add(&Dui {
                        tmax: NO_TIME,
                        ..own
                    });
                } else {
                    acc.add(&own);
                }
                if let Some(x) = acc.export() {
                    x.push_file(v.name(), st);
                }
            } else if let Some(x) = &du.export {
                x.root_file(path, st);
            }
            if depth > 0 && opts.all && du.logical() {
                // Its directory may be charged at another path.
                let parent = self.acc(&mut state.cache, &path[..key_end]).id;
                self.lock_graph().files.push(FileLine {
                    parent,
                    name: v.name().to_vec(),
                    own,
                    dev_ino: (dev, st.ino()),
                });
            } else if depth == 0 || opts.all && depth <= opts.max_depth {
                du.line(&own, path, true);
            }
            return Flow::Continue;
        }
        // A directory, after everything below it (-L -l only).
        let below = self.take_acc(&mut state.cache, v);
        let mut shown = own;
        if let Some(b) = &below {
            shown.add(&b.get());
        }
        if depth <= opts.max_depth {
            du.line(&shown, path, true);
        }
        let export = below.as_ref().and_then(|b| b.export());
        if depth > 0 {
            let parent = self.acc(&mut state.cache, &path[..key_end]);
            if !opts.separate_dirs {
                parent.add(&shown);
            }
            if let Some(x) = parent.export() {
                x.push_dir(v.name(), st, export);
            }
        } else if let Some(x) = &du.export {
            x.root_dir(path, st, export);
        }
        Flow::Continue
    }

    fn error(&self, state: &mut Self::State, e: Error) {
        let problem = match e.kind() {
            ErrorKind::Io(err) if e.operation() == Operation::ReadCut => {
                Problem::ReadCut(e.path_bytes(), err)
            }
            ErrorKind::Io(err) => Problem::CannotRead(e.path_bytes(), err),
            // Only with -L -l (else the directory set skips loops before
            // they are read): GNU skips them silently.
            ErrorKind::Loop { .. } => {
                self.loops
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(e.path_bytes().to_vec());
                self.any_loop.store(true, Ordering::Relaxed);
                return;
            }
        };
        self.du.fail(problem);
        // The export marks the directory, as ncdu does.
        self.mark_read_error(&mut state.cache, &dir_key(e.path_bytes()));
    }

    fn finish(&self, mut state: Self::State) {
        self.du
            .total
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add(&state.total);
        self.du.sink.flush_tally(&mut state.tally);
    }
}
