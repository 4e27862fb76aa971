//! `dents-mpi find`: find's evaluator (`dents-find`) on work items spread
//! over the ranks.
//!
//! Every rank parses the same command line and runs the same
//! [`dents_find::Command`]; its walks go through [`MpiWalk`], which runs
//! the distributed engine with find's evaluator wrapped in [`Spill`]:
//! while the rank's queue is short, directories met are handed to the
//! queue (as items other ranks may steal) instead of walked here, and an
//! item is walked with `walk_from` (a slice of a huge directory with
//! `walk_slice`), so that each entry is visited with the path, name, root
//! and depth it has in the whole walk.  A huge directory is found by the
//! walker itself, which offers it once its first read comes back full
//! (`WalkOptions::offer_big_dirs`, [`Spill::take_rest`]): the rest of its
//! offset space goes to the queue as slices, so no directory is stat'ed
//! to learn its size.  Output
//! records go through the engine to rank 0's standard output (or the
//! rank's own file).

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::sync::Arc;

use dents::FileType;

use dents::unstable::{self, BigDir};
use dents::walk::{Listing, Visit, Visitor, WalkOptions};
use dents::{Error, ErrorKind, Operation};
use dents::{Flow, Follow};
use mpi::topology::SimpleCommunicator;

use crate::dev::dev_of;
use crate::engine::{self, Ctx, Job, Mailer};
use crate::slices;
use crate::wire::Item;

/// No result goes back anywhere (find's items report nothing).
const NO_REPLY: (u32, u64) = (u32::MAX, 0);

/// find's output records, to the engine (rank 0's standard output).
pub struct MailerSink(pub Arc<Mailer>);

impl Write for MailerSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.0.write_out(buf) {
            Ok(buf.len())
        } else {
            Err(io::Error::other("per-rank output file"))
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The walks of a find command, over all ranks.
pub struct MpiWalk<'w> {
    /// The ranks.
    pub world: &'w SimpleCommunicator,
    /// This rank's messages.
    pub mailer: Arc<Mailer>,
    /// A `-quit` was met on some rank: later walks do nothing (on every
    /// rank alike, so that all take part in the same runs).
    pub quit: bool,
    /// The worst status the runs ended with.
    pub status: i32,
}

impl dents_find::Walk for MpiWalk<'_> {
    fn walk<V: Visitor>(&mut self, roots: &[Vec<u8>], opts: &WalkOptions, visitor: &V) {
        if self.quit {
            return;
        }
        let follow_roots = opts.get_follow() != Follow::Never;
        let root_devs: Vec<u64> = roots
            .iter()
            .map(|r| dev_of(r, follow_roots).unwrap_or(0))
            .collect();
        let initial = roots
            .iter()
            .enumerate()
            .map(|(i, r)| Item {
                path: r.clone(),
                depth: 0,
                root: i as u32,
                root_dev: root_devs[i],
                reply: NO_REPLY,
                slice: None,
            })
            .collect();
        let job = FindJob {
            roots,
            root_devs: &root_devs,
            opts,
            inner: visitor,
        };
        let outcome = engine::run(self.world, &self.mailer, &job, initial);
        self.quit |= outcome.quit;
        self.status = self.status.max(outcome.status);
    }
}

/// One walk of the command, as the engine's job.
struct FindJob<'a, V> {
    roots: &'a [Vec<u8>],
    /// The starting points' devices (`-xdev`), by index.
    root_devs: &'a [u64],
    opts: &'a WalkOptions,
    inner: &'a V,
}

impl<'a, V: Visitor> FindJob<'a, V> {
    /// find's evaluator for a walk from `starts` (whose own visits are
    /// never spilled), spilling through `ctx`.
    fn spill<'s>(&'s self, starts: HashSet<&'s [u8]>, ctx: &'s Ctx) -> Spill<'s, V> {
        Spill {
            inner: self.inner,
            ctx,
            opts: self.opts,
            starts,
            roots: self
                .roots
                .iter()
                .enumerate()
                .map(|(i, r)| (r.as_slice(), i))
                .collect(),
            root_devs: self.root_devs,
        }
    }

    /// The walker's options: on two ranks or more, huge directories are
    /// offered to [`Spill::take_rest`] as the walker meets them (a huge
    /// starting point or item too, as its read begins).
    fn walk_options(&self, ctx: &Ctx) -> WalkOptions {
        let offer = ctx.size() > 1 && self.opts.get_follow() != Follow::Always;
        self.opts
            .clone()
            .offer_big_dirs(offer.then_some(slices::HUGE_DIR))
    }

    /// Walks `items` (whole directories).
    fn walk(&self, items: &[Item], ctx: &Ctx) {
        let starts: Vec<unstable::Start<'_>> = items
            .iter()
            .map(|i| unstable::Start {
                path: &i.path,
                root_len: self.roots[i.root as usize].len(),
                depth: i.depth as usize,
            })
            .collect();
        let spill = self.spill(items.iter().map(|i| i.path.as_slice()).collect(), ctx);
        unstable::walk_from(&starts, &self.walk_options(ctx), &spill);
    }

    /// Walks the slice `item` of a huge directory: its entries visited
    /// with what the read gave (a stat only if the expression needs one),
    /// the trees of its subdirectories walked (or spilled) as in a whole
    /// walk.
    fn run_slice(&self, item: &Item, ctx: &Ctx) {
        let spill = self.spill(HashSet::new(), ctx);
        let fd = match slices::open(item) {
            Ok(fd) => fd,
            Err(e) => {
                // Said once for the directory, by its first slice.
                if item.slice.is_some_and(|(lo, _)| lo == 0) {
                    let (path, depth) = (item.path.clone(), item.depth as usize);
                    let e = Error::new(path, depth, Operation::Open, ErrorKind::Io(e));
                    let mut state = spill.state();
                    spill.error(&mut state, e);
                    spill.finish(state);
                } else {
                    ctx.fail(1);
                }
                return;
            }
        };
        let dir = unstable::Start {
            path: &item.path,
            root_len: self.roots[item.root as usize].len(),
            depth: item.depth as usize,
        };
        unstable::walk_slice(
            &dir,
            fd,
            slices::range(item),
            &self.walk_options(ctx),
            &spill,
        );
    }
}

impl<V: Visitor> Job for FindJob<'_, V> {
    fn run(&self, items: Vec<Item>, ctx: &Ctx) {
        let (parts, whole): (Vec<Item>, Vec<Item>) =
            items.into_iter().partition(|i| i.slice.is_some());
        if !whole.is_empty() {
            self.walk(&whole, ctx);
        }
        for item in &parts {
            self.run_slice(item, ctx);
        }
    }

    fn message(&self, _body: &[u8], _ctx: &Ctx) {}

    fn flush(&self, _ctx: &Ctx) {}

    fn walker_threads(&self) -> usize {
        self.opts.get_threads()
    }
}

/// find's evaluator, with directories handed to the queue while it is
/// short, and `-quit` told to every rank.
struct Spill<'a, V> {
    inner: &'a V,
    ctx: &'a Ctx,
    opts: &'a WalkOptions,
    /// The paths of this walk's items (their visits are not spilled).
    starts: HashSet<&'a [u8]>,
    /// The starting points, by path.
    roots: HashMap<&'a [u8], usize>,
    /// The starting points' devices (`-xdev`), by index.
    root_devs: &'a [u64],
}

impl<V: Visitor> Spill<'_, V> {
    /// Whether the directory `v` goes to the queue; queued if so.
    fn spilled(&self, v: &Visit<'_>) -> bool {
        // -L finds loops through a directory's ancestors, which an item
        // does not carry: nothing is spilled.
        if self.opts.get_follow() == Follow::Always
            || v.known_type() != Some(FileType::DIRECTORY)
            || v.depth() >= self.opts.get_max_depth()
            || self.starts.contains(v.path())
            || !slices::spillable(v)
            || self.ctx.size() < 2
            || self.ctx.quitting()
        {
            return false;
        }
        let Some(&root) = self.roots.get(v.root()) else {
            return false;
        };
        let root_dev = self.root_devs[root];
        if self.opts.get_same_file_system() {
            // A mount point is visited but not walked: the walker's own
            // check, which an item would skip.
            match v.metadata() {
                Ok(st) if st.dev() == root_dev => {}
                _ => return false,
            }
        }
        // A huge directory is not told apart here (that would take a stat
        // of every directory): the walker offers it once its read shows
        // it big ([`Spill::take_rest`]).
        if !self.ctx.wants_spill() {
            return false;
        }
        // An item starts by resolving its path, and visits nothing if
        // that fails: a directory this walk cannot open (one in a
        // directory readable but not searchable, mode 666) is left to
        // the walker here, which visits it and then says why it cannot
        // enter it, as GNU find does.  One open per spilled directory.
        if dents::fs::open_dir_at(v.parent_fd(), v.at_name()).is_err() {
            return false;
        }
        self.ctx.spill(Item {
            path: v.path().to_vec(),
            depth: v.depth() as u32,
            root: root as u32,
            root_dev,
            reply: NO_REPLY,
            slice: None,
        });
        true
    }
}

impl<V: Visitor> Visitor for Spill<'_, V> {
    type State = V::State;

    fn state(&self) -> V::State {
        self.inner.state()
    }

    fn excluded(&self, state: &mut V::State, v: &Visit<'_>) -> bool {
        self.inner.excluded(state, v) || self.spilled(v)
    }

    fn visit(&self, state: &mut V::State, v: &Visit<'_>) -> Flow {
        if self.ctx.quitting() {
            return Flow::Quit;
        }
        let flow = self.inner.visit(state, v);
        if flow == Flow::Quit {
            self.ctx.quit();
        }
        flow
    }

    /// A huge directory, offered by the walker once it read its first
    /// entries (its own visit done, so not `-prune`d, and within
    /// `-maxdepth`): the rest of its offset space is queued as slices,
    /// which any rank may steal, however full the queue.
    fn take_rest(&self, _state: &mut V::State, dir: &BigDir<'_>) -> bool {
        if self.ctx.size() < 2 || self.ctx.quitting() {
            return false;
        }
        let Some(&root) = self.roots.get(dir.root()) else {
            return false;
        };
        let item = Item {
            path: dir.path().to_vec(),
            depth: dir.depth() as u32,
            root: root as u32,
            root_dev: self.root_devs[root],
            reply: NO_REPLY,
            slice: None,
        };
        for slice in slices::slice_items_from(&item, dir.space(), dir.from(), self.ctx.size()) {
            self.ctx.spill(slice);
        }
        true
    }

    /// The inner visitor's listing (a refresh's: `scan --since`).
    fn listing(
        &self,
        state: &mut V::State,
        dir: &unstable::Start<'_>,
        fd: std::os::fd::BorrowedFd<'_>,
    ) -> Option<Listing> {
        self.inner.listing(state, dir, fd)
    }

    fn turn_done(&self, state: &mut V::State) {
        self.inner.turn_done(state);
    }

    fn error(&self, state: &mut V::State, e: Error) {
        self.inner.error(state, e);
    }

    fn finish(&self, state: V::State) {
        self.inner.finish(state);
    }
}
