//! du over stored entries (`dents du --from SNAPSHOT`): the same lines
//! as [`crate::engine`] prints for a walk of the tree, computed from the
//! entries a snapshot recorded instead of from the live tree.
//!
//! The entries of an argument come in the snapshot's level order (a
//! directory before its entries), streamed: each is decided as it comes
//! (what the walk would reach and count: exclusions, `-x`, hard links,
//! directories met before) and a file's size goes straight into its
//! directory's sum; at the argument's end, the directories' sums go up,
//! deepest first, and the lines are written in post-order, depth first.
//!
//! The decisions are the engine's, rule for rule ([`crate::engine::Du`]'s
//! `excluded` and `visit`): a hard-linked inode met more than once is
//! charged to its first link in GNU's walk order ([`GnuOrder`], which
//! reads the live directories on the links' way again, names only; if
//! the tree is gone, links are ordered by their paths' bytes).
//!
//! Memory: per directory of the argument, its path and sum; per file
//! with a line (`-a`) too; per link of an inode with several links; and
//! the hard-link set.  Never a record for every file.

use std::collections::{HashMap, HashSet};

use crate::dui::Dui;
use crate::engine::{Problem, Sink};
use crate::order::GnuOrder;
use crate::time_style::{pack_time, unpack_time, NO_TIME};
use crate::{Follow, Options, TimeKind};

/// One stored entry, as du needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoredEntry<'a> {
    /// The path as du prints it (below the argument as given).
    pub path: &'a [u8],
    /// Levels below the argument (0: the argument).
    pub depth: usize,
    /// find's `%y` letter of the entry's type (`d` a directory, `l` a
    /// symlink...).
    pub kind: u8,
    /// `st_size`.
    pub size: u64,
    /// `st_blocks` (512-byte units).
    pub blocks: u64,
    /// Hard links.
    pub nlink: u64,
    /// Device.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// Modification time (seconds, nanoseconds).
    pub mtime: (i64, u32),
    /// Access time.
    pub atime: (i64, u32),
    /// Status change time.
    pub ctime: (i64, u32),
}

impl StoredEntry<'_> {
    fn is_dir(&self) -> bool {
        self.kind == b'd'
    }
}

/// An entry kept until its argument's end: a directory, a file with a
/// line, or a link whose charge waits for GNU's order.
struct Node {
    path: Vec<u8>,
    is_dir: bool,
    /// The directory holding it (a node), `usize::MAX` for the argument.
    parent: usize,
    /// Its place in the argument's entries (the order of siblings).
    seq: u64,
    /// Its own size; for a directory, everything below added.
    sum: Dui,
    /// Shown: it has a line (a pending link gets one if charged).
    shown: bool,
    /// A link waiting for GNU's order: (dev, ino).
    pending: Option<(u64, u64)>,
}

/// The argument being counted.
struct Arg {
    nodes: Vec<Node>,
    /// A directory's node by its path without trailing slashes.
    dir_at: HashMap<Vec<u8>, usize>,
    root_dev: u64,
    seq: u64,
    /// The argument was met (its first entry came).
    begun: bool,
    /// Pending links' nodes.
    pending: Vec<usize>,
}

/// du over stored arguments, one after the other (as GNU: an argument's
/// hard links and directories count against the later ones).
pub struct StoredDu<'s, S: Sink> {
    opts: Options,
    sink: &'s S,
    links: HashSet<(u64, u64)>,
    dirs: HashSet<(u64, u64)>,
    root_files_hashed: bool,
    total: Dui,
    out: Vec<u8>,
    ok: bool,
    arg: Option<Arg>,
    parent: Option<(u64, u64)>,
}

impl<'s, S: Sink> StoredDu<'s, S> {
    /// An engine writing to `sink`.
    pub fn new(opts: Options, sink: &'s S) -> StoredDu<'s, S> {
        StoredDu {
            opts,
            sink,
            links: HashSet::new(),
            dirs: HashSet::new(),
            root_files_hashed: false,
            total: Dui::ZERO,
            out: Vec::with_capacity(64 * 1024),
            ok: true,
            arg: None,
            parent: None,
        }
    }

    fn hash_all(&self) -> bool {
        self.opts.hash_all || self.opts.follow == Follow::Always
    }

    fn dui(&self, e: &StoredEntry<'_>) -> Dui {
        let size = if self.opts.apparent {
            e.size
        } else {
            e.blocks.saturating_mul(512)
        };
        let tmax = match self.opts.time {
            None => NO_TIME,
            Some(k) => {
                let (s, n) = match k {
                    TimeKind::Modification => e.mtime,
                    TimeKind::Access => e.atime,
                    TimeKind::Change => e.ctime,
                };
                pack_time(s, n)
            }
        };
        Dui {
            size,
            inodes: 1,
            tmax,
        }
    }

    fn fail(&mut self, p: Problem<'_>) {
        self.ok = false;
        self.sink.problem(&p);
    }

    /// Starts an argument; `parent` is the (dev, ino) of the directory
    /// holding it, if the snapshot has it.  Its entries follow
    /// ([`StoredDu::push`]), then [`StoredDu::end`].
    pub fn begin(&mut self, parent: Option<(u64, u64)>) {
        self.parent = parent;
        self.arg = Some(Arg {
            nodes: Vec::new(),
            dir_at: HashMap::new(),
            root_dev: 0,
            seq: 0,
            begun: false,
            pending: Vec::new(),
        });
    }

    /// One entry of the argument, in level order (the argument first).
    pub fn push(&mut self, e: &StoredEntry<'_>) {
        let Some(mut arg) = self.arg.take() else {
            return;
        };
        self.decide(&mut arg, e);
        self.arg = Some(arg);
    }

    fn decide(&mut self, arg: &mut Arg, e: &StoredEntry<'_>) {
        let o = &self.opts;
        let (all, max_depth, count_links, follow) = (o.all, o.max_depth, o.count_links, o.follow);
        let seq = arg.seq;
        arg.seq += 1;
        let parent = if !arg.begun {
            arg.begun = true;
            arg.root_dev = e.dev;
            if self.hash_all() && !e.is_dir() && !count_links {
                // `du a a/f`: a/f was counted in a's walk.
                if self.parent.is_some_and(|p| self.dirs.contains(&p)) {
                    return;
                }
                self.root_files_hashed = true;
            }
            usize::MAX
        } else {
            match arg.dir_at.get(parent_path(e.path)) {
                Some(&p) => p,
                None => return,
            }
        };
        if !self.opts.excludes.is_empty() && self.opts.excludes.matches(e.path) {
            return;
        }
        // Following links, a link still a link is one whose target is
        // missing: GNU says it cannot access it.
        if e.kind == b'l' && (follow == Follow::Always || follow == Follow::Roots && e.depth == 0) {
            self.fail(Problem::CannotAccess(e.path, None));
            return;
        }
        if self.opts.one_file_system && e.depth > 0 && e.dev != arg.root_dev {
            return;
        }
        let own = self.dui(e);
        let node = |shown, pending| Node {
            path: e.path.to_vec(),
            is_dir: e.is_dir(),
            parent,
            seq,
            sum: own,
            shown,
            pending,
        };
        if e.is_dir() {
            if self.hash_all() && !count_links && !self.dirs.insert((e.dev, e.ino)) {
                return;
            }
            self.total.add(&own);
            arg.dir_at
                .insert(trim_slashes(e.path).to_vec(), arg.nodes.len());
            arg.nodes.push(node(e.depth <= max_depth, None));
            return;
        }
        if !count_links {
            if e.nlink > 1
                && e.depth > 0
                && follow != Follow::Always
                && !self.links.contains(&(e.dev, e.ino))
            {
                arg.pending.push(arg.nodes.len());
                arg.nodes
                    .push(node(all && e.depth <= max_depth, Some((e.dev, e.ino))));
                return;
            }
            let hash_all = self.hash_all();
            let seen = if e.nlink > 1 || hash_all && (e.depth == 0 || follow == Follow::Always) {
                !self.links.insert((e.dev, e.ino))
            } else {
                hash_all && self.root_files_hashed && self.links.contains(&(e.dev, e.ino))
            };
            if seen {
                return;
            }
        }
        self.total.add(&own);
        if parent != usize::MAX {
            arg.nodes[parent].sum.add(&own);
        }
        if e.depth == 0 || all && e.depth <= max_depth {
            arg.nodes.push(node(true, None));
        }
    }

    /// Ends the argument: links charged, sums gone up, lines written.
    /// `false` if it had no entry (not in the snapshot).
    pub fn end(&mut self) -> bool {
        let Some(mut arg) = self.arg.take() else {
            return false;
        };
        let begun = arg.begun;
        self.settle(&mut arg);
        let nodes = &mut arg.nodes;
        if !self.opts.separate_dirs {
            for i in (0..nodes.len()).rev() {
                let (p, is_dir, s) = (nodes[i].parent, nodes[i].is_dir, nodes[i].sum);
                if is_dir && p != usize::MAX {
                    nodes[p].sum.add(&s);
                }
            }
        }
        // Each node's children, in the argument's order.
        let mut kids: Vec<(usize, u64, usize)> = nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.parent != usize::MAX && n.pending.is_none())
            .map(|(i, n)| (n.parent, n.seq, i))
            .collect();
        kids.sort_unstable();
        let mut first = vec![usize::MAX; nodes.len()];
        for (k, &(p, _, _)) in kids.iter().enumerate().rev() {
            first[p] = k;
        }
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for (i, n) in nodes.iter().enumerate() {
            if n.parent == usize::MAX {
                stack.push((i, first[i]));
            }
        }
        stack.reverse();
        while let Some(&mut (i, ref mut next)) = stack.last_mut() {
            if *next < kids.len() && kids[*next].0 == i {
                let c = kids[*next].2;
                *next += 1;
                stack.push((c, first[c]));
                continue;
            }
            stack.pop();
            let n = &nodes[i];
            if n.shown {
                let (s, path) = (n.sum, std::mem::take(&mut nodes[i].path));
                self.line(&s, &path, true);
            }
        }
        begun
    }

    /// Charges each inode met through several links to its first link in
    /// GNU's order (once over all arguments): the link becomes a file
    /// like the others, and the rest are dropped.
    fn settle(&mut self, arg: &mut Arg) {
        if arg.pending.is_empty() {
            return;
        }
        let nodes = &mut arg.nodes;
        let mut groups: HashMap<(u64, u64), Vec<usize>> = HashMap::new();
        for &i in &arg.pending {
            groups
                .entry(nodes[i].pending.expect("a pending link"))
                .or_default()
                .push(i);
        }
        let root = nodes.first().map(|n| n.path.clone()).unwrap_or_default();
        let order = GnuOrder::of(
            &root,
            groups
                .values()
                .filter(|g| g.len() > 1)
                .flatten()
                .map(|&i| nodes[i].path.as_slice()),
            self.opts.follow == Follow::Always,
        );
        // The groups in the order of their first link, so that the set
        // fills in a fixed order.
        let mut keys: Vec<_> = groups.iter().map(|(k, g)| (g[0], *k)).collect();
        keys.sort_unstable();
        for (_, k) in keys {
            let g = &groups[&k];
            if !self.links.insert(k) {
                for &i in g {
                    nodes[i].shown = false;
                }
                continue;
            }
            let first = g
                .iter()
                .copied()
                .min_by_key(|&i| order.key(&nodes[i].path))
                .expect("a group has a link");
            for &i in g {
                if i != first {
                    nodes[i].shown = false;
                    continue;
                }
                let (own, p) = (nodes[i].sum, nodes[i].parent);
                self.total.add(&own);
                nodes[p].sum.add(&own);
                nodes[i].pending = None;
            }
        }
    }

    /// Appends one line (subject to the threshold).
    fn line(&mut self, d: &Dui, path: &[u8], quote: bool) {
        if let Some(v) = self.opts.shown_value(d.size, d.inodes) {
            self.write_line(v, d, path, quote);
        }
    }

    fn write_line(&mut self, v: u64, d: &Dui, path: &[u8], quote: bool) {
        let out = &mut self.out;
        crate::size::push_size(out, v, &self.opts.units);
        if self.opts.time.is_some() {
            out.push(b'\t');
            let (sec, nsec) = unpack_time(d.tmax);
            self.sink.push_time(out, sec, nsec);
        }
        out.push(b'\t');
        if quote {
            self.sink.push_name(out, path);
        } else {
            out.extend_from_slice(path);
        }
        out.push(if self.opts.nul { 0 } else { b'\n' });
        if out.len() >= 64 * 1024 {
            self.sink.write(out);
            out.clear();
        }
    }

    /// Ends the run: the grand total with `-c`, the output flushed.
    /// `true` if no problem was met.
    pub fn finish(mut self) -> bool {
        if self.opts.total {
            let t = self.total;
            let v = self.opts.value(t.size, t.inodes);
            self.write_line(v, &t, b"total", false);
        }
        self.sink.write(&self.out);
        self.ok
    }
}

/// `path` without its trailing slashes (`/` stays).
fn trim_slashes(path: &[u8]) -> &[u8] {
    let mut p = path;
    while p.len() > 1 && p.ends_with(b"/") {
        p = &p[..p.len() - 1];
    }
    p
}

/// The path of the directory holding `path` (an entry below an
/// argument, made by joining names with `/`), without trailing slashes.
fn parent_path(path: &[u8]) -> &[u8] {
    match path.iter().rposition(|&c| c == b'/') {
        Some(0) => b"/",
        Some(i) => trim_slashes(&path[..i]),
        None => b"",
    }
}
