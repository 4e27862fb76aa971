//! `-L`: a directory reached by several paths (through symlinks) is
//! charged to the first of them in GNU du's order, whatever the timing.
//!
//! GNU du follows links with fts (`FTS_LOGICAL`) and remembers every
//! directory: the first path of a directory that fts visits (readdir
//! order, depth first) counts it, the later ones are skipped whole.  The
//! parallel walk meets the paths in another order, so under `-L` it walks
//! each directory once (the first path it meets) and records, instead of
//! printing lines:
//!
//! - each directory walked: its sum without its subdirectories (its own
//!   size and its files'), its name and its parent;
//! - each path that met a directory already walked (an alias): its name,
//!   its parent and the directory's (device, inode);
//! - with `-a`, each file's line;
//! - each file met (its first visit's directory and name hash), and
//!   every later visit of a file met again (through a symlink to it, or
//!   a hard link): the walk counts the first visit it makes, the replay
//!   moves the charge to the first in GNU's order.
//!
//! After the walk, [`settle`] replays GNU's walk on that graph: depth
//! first from the argument, each directory's children in fts's order,
//! a directory charged where it is first reached (its subtree, as walked,
//! hung there), later paths skipped.  Only the directories whose order
//! can change an answer (an alias below them, or a directory that has
//! one) are read again for fts's order (names and inode numbers, no
//! stat); the others' children come in any order, as the lines' order
//! among siblings is free (post-order kept).
//!
//! Memory: a record per directory of the argument (its name and a few
//! numbers), per alias, per file (its inode, its first visit's directory
//! id, name hash and time: 40 bytes and the table's slack), per later
//! visit of a file met again (its name), and with `-a` per file line,
//! held until the walk's end (GNU du itself remembers every inode under
//! `-L`); the lines are written after the walk.

use std::collections::{HashMap, HashSet};
use std::ffi::CString;
use std::os::fd::AsFd;

use crate::dui::Dui;
use crate::links::LogicalFiles;
use crate::order::{Places, UNKNOWN};

/// A directory walked under `-L`.
#[derive(Debug)]
pub(crate) struct DirRec {
    /// Its sum's id in the walk.
    pub id: usize,
    /// Its parent's id; `None` for the argument.
    pub parent: Option<usize>,
    /// Its name (the argument's path for the argument).
    pub name: Vec<u8>,
    /// (device, inode).
    pub dev_ino: (u64, u64),
    /// Its own size and its files': its subdirectories left out.
    pub flat: Dui,
}

/// A path that met a directory walked at another path.
#[derive(Debug)]
pub(crate) struct Alias {
    /// Its parent's id.
    pub parent: usize,
    /// Its name in the parent.
    pub name: Vec<u8>,
    /// The directory it leads to.
    pub dev_ino: (u64, u64),
}

/// A file's line (`-a`), placed by its directory.
#[derive(Debug)]
pub(crate) struct FileLine {
    /// Its directory's id.
    pub parent: usize,
    /// Its name.
    pub name: Vec<u8>,
    /// What it counts.
    pub own: Dui,
    /// (device, inode).
    pub dev_ino: (u64, u64),
}

/// What the walk of one argument recorded under `-L`.
#[derive(Debug, Default)]
pub(crate) struct Graph {
    /// Directories, in the order the walk finished them (post-order).
    pub dirs: Vec<DirRec>,
    /// Paths that met a directory walked elsewhere.
    pub aliases: Vec<Alias>,
    /// Files' lines (`-a`).
    pub files: Vec<FileLine>,
}

/// A child of a directory in the replay.
#[derive(Clone, Copy)]
enum Child {
    /// A subdirectory walked there (index in `dirs`).
    Walked(usize),
    /// An alias (index in `aliases`).
    Alias(usize),
    /// A visit of a file met more than once: the file (index in the
    /// contested files) and the visit (0: the walk's first).
    File(usize, usize),
}

/// A file met more than once, charged to its first visit in the replay.
struct Contested<'g> {
    own: Dui,
    /// The first visit's name hash, then the later visits' names.
    first_hash: u64,
    later: Vec<(usize, Box<[u8]>)>,
    /// The first visit's name, if its line was kept (`-a`).
    first_name: Option<&'g [u8]>,
}

/// `dir` joined with `name`, as the walker joins them.
fn push_name(path: &mut Vec<u8>, name: &[u8]) {
    if !path.is_empty() && !path.ends_with(b"/") {
        path.push(b'/');
    }
    path.extend_from_slice(name);
}

/// A step of the replay: a directory whose children are being charged.
struct Frame {
    /// The path's length before this directory's name was pushed.
    path_len: usize,
    depth: usize,
    kids: Vec<Child>,
    next: usize,
    sum: Dui,
}

/// What the replay needs of du's options.
pub(crate) struct Replay {
    /// `-d N` (`usize::MAX` without).
    pub max_depth: usize,
    /// `-S`: a directory's line without its subdirectories.
    pub separate_dirs: bool,
    /// `-a`: a line per file.
    pub all: bool,
}

/// Replays GNU's walk of the argument on `g` and hands each line
/// (sum and path, in a post-order) to `line`.
pub(crate) fn settle(g: &Graph, lf: &LogicalFiles, r: &Replay, mut line: impl FnMut(&Dui, &[u8])) {
    let Some(root) = g.dirs.iter().position(|d| d.parent.is_none()) else {
        return;
    };
    let by_id: HashMap<usize, usize> = g.dirs.iter().enumerate().map(|(i, d)| (d.id, i)).collect();
    let by_dev_ino: HashMap<(u64, u64), usize> = g
        .dirs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.dev_ino, i))
        .collect();
    let mut kids: HashMap<usize, Vec<Child>> = HashMap::new();
    for (i, d) in g.dirs.iter().enumerate() {
        if let Some(p) = d.parent {
            kids.entry(p).or_default().push(Child::Walked(i));
        }
    }
    let mut contested: HashSet<(u64, u64)> = HashSet::new();
    // Whether the order of a directory's children can change an answer.
    let mut needs_order: HashMap<usize, bool> = HashMap::new();
    for (i, a) in g.aliases.iter().enumerate() {
        kids.entry(a.parent).or_default().push(Child::Alias(i));
        contested.insert(a.dev_ino);
        needs_order.insert(a.parent, true);
    }
    // Each directory's sum without its subdirectories: the files the
    // walk counted first there, their times added now (a file met again
    // is taken out of the directory the walk met it in first, and
    // charged in the replay).
    let mut flat: Vec<Dui> = g.dirs.iter().map(|d| d.flat).collect();
    let mut files_again: Vec<Contested<'_>> = Vec::new();
    let mut again_index: HashMap<(u64, u64), usize> = HashMap::new();
    let first_names: HashMap<(usize, (u64, u64)), &[u8]> = g
        .files
        .iter()
        .map(|f| ((f.parent, f.dev_ino), f.name.as_slice()))
        .collect();
    lf.for_each(|dev_ino, f| {
        let Some(&d) = by_id.get(&f.parent) else {
            return;
        };
        let Some(again) = &f.again else {
            flat[d].tmax = flat[d].tmax.max(f.tmax);
            return;
        };
        flat[d].size -= again.own.size;
        flat[d].inodes -= again.own.inodes;
        let k = files_again.len();
        again_index.insert(dev_ino, k);
        kids.entry(f.parent).or_default().push(Child::File(k, 0));
        needs_order.insert(f.parent, true);
        for (j, (p, _)) in again.visits.iter().enumerate() {
            kids.entry(*p).or_default().push(Child::File(k, j + 1));
            needs_order.insert(*p, true);
        }
        files_again.push(Contested {
            own: again.own,
            first_hash: f.name_hash,
            later: again.visits.clone(),
            first_name: first_names.get(&(f.parent, dev_ino)).copied(),
        });
    });
    // Post-order: each directory's flag is final before its parent's.
    for d in &g.dirs {
        let up = contested.contains(&d.dev_ino) || needs_order.get(&d.id) == Some(&true);
        if let (Some(p), true) = (d.parent, up) {
            needs_order.insert(p, true);
        }
    }
    // Files' lines (`-a`), but those of files met more than once:
    // written where the replay charges them.
    let mut files: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, f) in g.files.iter().enumerate() {
        if !again_index.contains_key(&f.dev_ino) {
            files.entry(f.parent).or_default().push(i);
        }
    }
    let name_of = |c: Child| -> Option<&[u8]> {
        match c {
            Child::Walked(i) => Some(&g.dirs[i].name),
            Child::Alias(i) => Some(&g.aliases[i].name),
            Child::File(k, 0) => files_again[k].first_name,
            Child::File(k, j) => Some(&files_again[k].later[j - 1].1),
        }
    };
    // Each directory's children in fts's order where it matters.
    for (&id, list) in kids.iter_mut() {
        if list.len() < 2 || needs_order.get(&id) != Some(&true) {
            continue;
        }
        let Some(&i) = by_id.get(&id) else { continue };
        let path = walked_path(g, &by_id, i);
        // fts sorts a big directory by inode on every filesystem under
        // -L (no FTS_CWDFD to tell the filesystem by).
        let places = CString::new(path)
            .ok()
            .and_then(|c| dents::fs::open_dir(&c).ok())
            .map(|fd| Places::read(fd.as_fd(), true))
            .unwrap_or_default();
        let place = |c: Child| match (c, name_of(c)) {
            (_, Some(n)) => places.of(n),
            (Child::File(k, _), None) => places.of_hash(files_again[k].first_hash),
            _ => UNKNOWN,
        };
        list.sort_by(|&a, &b| {
            place(a)
                .cmp(&place(b))
                .then_with(|| name_of(a).cmp(&name_of(b)))
        });
    }
    let mut claimed = vec![false; g.dirs.len()];
    let mut file_claimed = vec![false; files_again.len()];
    let mut path: Vec<u8> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    // Enters a directory: its files' lines (`-a`), then its frame.
    let enter = |stack: &mut Vec<Frame>,
                 path: &mut Vec<u8>,
                 line: &mut dyn FnMut(&Dui, &[u8]),
                 dir: usize,
                 name: &[u8]| {
        let depth = stack.last().map_or(0, |f| f.depth + 1);
        let path_len = path.len();
        push_name(path, name);
        let d = &g.dirs[dir];
        if let Some(fs) = files.get(&d.id) {
            if depth < r.max_depth {
                let len = path.len();
                for &f in fs {
                    push_name(path, &g.files[f].name);
                    line(&g.files[f].own, path);
                    path.truncate(len);
                }
            }
        }
        stack.push(Frame {
            path_len,
            depth,
            kids: kids.get(&d.id).cloned().unwrap_or_default(),
            next: 0,
            sum: flat[dir],
        });
    };
    claimed[root] = true;
    enter(&mut stack, &mut path, &mut line, root, &g.dirs[root].name);
    while let Some(top) = stack.last_mut() {
        if top.next < top.kids.len() {
            let c = top.kids[top.next];
            top.next += 1;
            let target = match c {
                Child::Walked(i) => Some(i),
                Child::Alias(a) => by_dev_ino.get(&g.aliases[a].dev_ino).copied(),
                Child::File(k, _) => {
                    // A file met more than once: charged here if this is
                    // its first visit in the replay.
                    if !file_claimed[k] {
                        file_claimed[k] = true;
                        let own = files_again[k].own;
                        top.sum.add(&own);
                        if let (true, Some(n)) = (r.all && top.depth < r.max_depth, name_of(c)) {
                            let len = path.len();
                            push_name(&mut path, n);
                            line(&own, &path);
                            path.truncate(len);
                        }
                    }
                    None
                }
            };
            if let Some(t) = target.filter(|&t| !claimed[t]) {
                claimed[t] = true;
                enter(
                    &mut stack,
                    &mut path,
                    &mut line,
                    t,
                    name_of(c).unwrap_or_default(),
                );
            }
            continue;
        }
        let done = stack.pop().expect("a frame");
        if done.depth <= r.max_depth {
            line(&done.sum, &path);
        }
        path.truncate(done.path_len);
        if let Some(up) = stack.last_mut() {
            if !r.separate_dirs {
                up.sum.add(&done.sum);
            }
        }
    }
}

/// The path a directory was walked at: its ancestors' names joined.
fn walked_path(g: &Graph, by_id: &HashMap<usize, usize>, mut i: usize) -> Vec<u8> {
    let mut names = vec![g.dirs[i].name.as_slice()];
    while let Some(p) = g.dirs[i].parent.and_then(|p| by_id.get(&p)) {
        i = *p;
        names.push(&g.dirs[i].name);
    }
    let mut path = Vec::new();
    for n in names.iter().rev() {
        push_name(&mut path, n);
    }
    path
}
