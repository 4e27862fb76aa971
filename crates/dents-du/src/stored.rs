//! du over stored entries (`dents du --from SNAPSHOT`): the same lines
//! as [`crate::engine`] prints for a walk of the tree, computed from the
//! entries a snapshot recorded instead of from the live tree.
//!
//! The engine's walk is parallel and its sums atomic; here every entry of
//! an argument is at hand at once, in the snapshot's level order (a
//! directory before its entries, siblings together), so the same
//! decisions are made in plain passes over a vector: forward, what the
//! walk would reach and count (exclusions, `-x`, hard links, directories
//! met before); backward, each directory's sum; then the lines in
//! post-order, depth first.
//!
//! The decisions are the engine's, rule for rule ([`crate::engine::Du`]'s
//! `excluded` and `visit`): a hard-linked inode met more than once is
//! charged to its first link in GNU's walk order ([`GnuOrder`], which
//! reads the live directories on the links' way again, names only; if
//! the tree is gone, links are ordered by their paths' bytes).
//!
//! Memory: one [`StoredEntry`] and a few numbers per entry of the
//! argument, and the hard-link set.

use std::collections::{HashMap, HashSet};

use crate::engine::{Dui, Problem, Sink};
use crate::order::GnuOrder;
use crate::time_style::{pack_time, unpack_time, NO_TIME};
use crate::{Follow, Options, TimeKind};

/// One stored entry, as du needs it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredEntry {
    /// The path as du prints it (below the argument as given).
    pub path: Vec<u8>,
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

impl StoredEntry {
    fn is_dir(&self) -> bool {
        self.kind == b'd'
    }
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
}

/// What the forward pass decided for an entry.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Not reached (excluded, or below something not walked into).
    Gone,
    /// Reached, not counted (a link counted already).
    Seen,
    /// A link of an inode with several links, charged after the pass.
    Pending,
    /// Counted.
    Counted,
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
        }
    }

    fn hash_all(&self) -> bool {
        self.opts.hash_all || self.opts.follow == Follow::Always
    }

    fn dui(&self, e: &StoredEntry) -> Dui {
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

    /// Counts one argument: `entries` are its stored entries in level
    /// order, the argument first; `parent` is the (dev, ino) of the
    /// directory holding the argument, if the snapshot has it.
    pub fn add_root(&mut self, entries: &[StoredEntry], parent: Option<(u64, u64)>) {
        let Some(root) = entries.first() else {
            return;
        };
        let o = self.opts.clone();
        if self.hash_all() && !root.is_dir() && !o.count_links {
            if parent.is_some_and(|p| self.dirs.contains(&p)) {
                return;
            }
            self.root_files_hashed = true;
        }
        let n = entries.len();
        let mut fate = vec![Fate::Gone; n];
        let mut parent_of = vec![usize::MAX; n];
        let mut dir_at: HashMap<&[u8], usize> = HashMap::new();
        let mut pending: Vec<usize> = Vec::new();
        let root_dev = root.dev;
        for (i, e) in entries.iter().enumerate() {
            if i > 0 {
                match dir_at.get(parent_path(&e.path)) {
                    Some(&p) if fate[p] == Fate::Counted => parent_of[i] = p,
                    _ => continue,
                }
            }
            if !o.excludes.is_empty() && o.excludes.matches(&e.path) {
                continue;
            }
            // Following links, a link still a link is one whose target
            // is missing: GNU says it cannot access it.
            if e.kind == b'l' && (o.follow == Follow::Always || o.follow == Follow::Roots && i == 0)
            {
                self.fail(Problem::CannotAccess(&e.path, None));
                continue;
            }
            if o.one_file_system && e.depth > 0 && e.dev != root_dev {
                continue;
            }
            if e.is_dir() {
                if self.hash_all() && !o.count_links && !self.dirs.insert((e.dev, e.ino)) {
                    continue;
                }
                dir_at.insert(trim_slashes(&e.path), i);
                fate[i] = Fate::Counted;
                continue;
            }
            if !o.count_links {
                if e.nlink > 1
                    && e.depth > 0
                    && o.follow != Follow::Always
                    && !self.links.contains(&(e.dev, e.ino))
                {
                    fate[i] = Fate::Pending;
                    pending.push(i);
                    continue;
                }
                let seen = if e.nlink > 1
                    || self.hash_all() && (e.depth == 0 || o.follow == Follow::Always)
                {
                    !self.links.insert((e.dev, e.ino))
                } else {
                    self.hash_all()
                        && self.root_files_hashed
                        && self.links.contains(&(e.dev, e.ino))
                };
                if seen {
                    fate[i] = Fate::Seen;
                    continue;
                }
            }
            fate[i] = Fate::Counted;
        }
        self.settle(entries, &pending, &mut fate);
        // Sums, deepest first: entries come after their directory.
        let mut sums: Vec<Dui> = entries
            .iter()
            .zip(&fate)
            .map(|(e, f)| {
                if *f == Fate::Counted {
                    self.dui(e)
                } else {
                    Dui::ZERO
                }
            })
            .collect();
        for (s, f) in sums.iter().zip(&fate) {
            if *f == Fate::Counted {
                self.total.add(s);
            }
        }
        for i in (1..n).rev() {
            let p = parent_of[i];
            if fate[i] != Fate::Counted || p == usize::MAX {
                continue;
            }
            if entries[i].is_dir() && o.separate_dirs {
                continue;
            }
            let s = sums[i];
            sums[p].add(&s);
        }
        // Lines in post-order: a directory's entries (contiguous in level
        // order) before it.
        let mut children: Vec<(usize, usize)> = vec![(0, 0); n];
        for (i, &p) in parent_of.iter().enumerate().skip(1) {
            if p != usize::MAX && fate[i] == Fate::Counted {
                let c = &mut children[p];
                if c.1 == 0 {
                    c.0 = i;
                }
                c.1 = i + 1 - c.0;
            }
        }
        let mut stack: Vec<(usize, usize)> = Vec::new();
        if fate[0] == Fate::Counted {
            stack.push((0, children[0].0));
        }
        while let Some(&mut (i, ref mut next)) = stack.last_mut() {
            let (first, count) = children[i];
            if count > 0 && *next < first + count {
                let c = *next;
                *next += 1;
                if fate[c] == Fate::Counted && parent_of[c] == i {
                    stack.push((c, children[c].0));
                }
                continue;
            }
            stack.pop();
            let e = &entries[i];
            let shown = if e.is_dir() {
                e.depth <= o.max_depth
            } else {
                e.depth == 0 || o.all && e.depth <= o.max_depth
            };
            if shown {
                let s = sums[i];
                self.line(&s, &e.path, true);
            }
        }
    }

    /// Charges each inode met through several links to its first link in
    /// GNU's order (once over all arguments).
    fn settle(&mut self, entries: &[StoredEntry], pending: &[usize], fate: &mut [Fate]) {
        if pending.is_empty() {
            return;
        }
        let mut groups: HashMap<(u64, u64), Vec<usize>> = HashMap::new();
        for &i in pending {
            let e = &entries[i];
            groups.entry((e.dev, e.ino)).or_default().push(i);
        }
        let order = GnuOrder::of(
            &entries[0].path,
            groups
                .values()
                .filter(|g| g.len() > 1)
                .flatten()
                .map(|&i| entries[i].path.as_slice()),
            self.opts.follow == Follow::Always,
        );
        // The groups in the order of their first pending link, so that
        // the set fills in a fixed order.
        let mut keys: Vec<_> = groups.iter().map(|(k, g)| (g[0], *k)).collect();
        keys.sort_unstable();
        for (_, k) in keys {
            let g = &groups[&k];
            for &i in g {
                fate[i] = Fate::Seen;
            }
            if !self.links.insert(k) {
                continue;
            }
            let first = g
                .iter()
                .copied()
                .min_by_key(|&i| order.key(&entries[i].path))
                .expect("a group has a link");
            fate[first] = Fate::Counted;
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
