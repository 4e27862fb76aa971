//! Finishing a directory: its descriptor kept for its children or given
//! back, the pending work counted down, the post-order visits (`-depth`).

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use crate::scan::Kind;
use crate::sys;

use super::node::{build_path, Node};
use super::read::DirVisit;
use super::{ErrorKind, Flow, Follow, Operation, Shared, Visit, Visitor};

impl<V: Visitor> Shared<'_, V> {
    /// The end of a directory's walk: its subdirectories (none after a
    /// quit), its descriptor kept for their `openat` if the budget allows,
    /// its own read counted done.
    pub(super) fn adopt_children(
        &self,
        state: &mut V::State,
        node: &Arc<Node>,
        fd: Option<OwnedFd>,
        dv: &mut DirVisit<'_>,
    ) -> Vec<Arc<Node>> {
        // Counted once a directory (every way of reading one ends here): an
        // atomic shared by every worker, added to for each entry, would
        // move its cache line between cores at every entry.
        let by_dtype = std::mem::take(&mut dv.by_dtype);
        self.stats
            .types
            .by_dtype
            .fetch_add(by_dtype, Ordering::Relaxed);
        let mut children = std::mem::take(&mut dv.children);
        if self.quit.load(Ordering::Relaxed) {
            children.clear();
        }
        let mut own = fd;
        let o = node.open();
        if !children.is_empty() {
            // Added to, not set: some may have been handed over already
            // (`Shared::hand_off`).
            o.children_left.fetch_add(children.len(), Ordering::AcqRel);
            o.pending.fetch_add(children.len(), Ordering::AcqRel);
            // Keep this descriptor for the children's openat, budget
            // allowing (none: a directory not opened, whose children are
            // opened by path from an ancestor), unless a copy of it is
            // kept already.
            if own.is_some() && !dv.handed {
                if self.cached_fds.fetch_add(1, Ordering::AcqRel) < self.fd_budget {
                    *o.fd.lock().expect("fd lock") = own.take().map(Arc::new);
                } else {
                    self.cached_fds.fetch_sub(1, Ordering::AcqRel);
                }
            }
        }
        // The read's hold on the kept descriptor, taken when the first
        // children were handed over: the last of them may be opened.
        if dv.handed && o.children_left.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.give_back_fd(node);
        }
        self.finish_one(state, node, own);
        children
    }

    /// One piece of a directory's work is done (its read, or a subtree);
    /// at zero, the post-order visit, then the parent's turn, and so on up
    /// (a loop: a chain of tens of thousands of levels must not recurse).
    /// `own`: the directory's own descriptor, if the caller still has it.
    pub(super) fn finish_one(&self, state: &mut V::State, node: &Arc<Node>, own: Option<OwnedFd>) {
        let mut own = own.map(Arc::new);
        let mut cur: &Node = node;
        loop {
            if self.opts.post_order && self.opts.threads > 1 {
                // Once counted down, the post-order visit of `cur` or of
                // an ancestor may come on another worker: what this one
                // visited below it (a post-order visit just now too) goes
                // first.
                self.visitor.handoff(state);
            }
            if cur.open().pending.fetch_sub(1, Ordering::AcqRel) != 1 {
                return;
            }
            own = if self.opts.post_order
                && cur.open().visited
                && !self.quit.load(Ordering::Relaxed)
                && cur.depth >= self.opts.min_depth
            {
                self.visit_post_order(state, cur, own.take())
            } else {
                None
            };
            match &cur.parent {
                Some(p) => cur = p,
                None => return,
            }
        }
    }

    /// Unsorted walks: reports each part of the spilled deep list that
    /// could not be read back (`deep.rs`) as the walk's error, and counts
    /// its directories done with their parents, as a subdirectory that
    /// could not be opened is: the parents' kept descriptors given back
    /// once no child needs them, their post-order visits made once
    /// everything else below them is done.  (Those directories were
    /// visited as their parents' entries; in a contents-first walk their
    /// own visits, which come after their contents, are lost with them.)
    pub(super) fn settle_lost(&self, state: &mut V::State) {
        let (lost, dir) = {
            let mut q = self.queue.lock().expect("queue lock");
            let dir = q.deep_spilled.as_ref().map(|s| s.dir()).unwrap_or_default();
            (std::mem::take(&mut q.lost_deep), dir)
        };
        for l in lost {
            self.visitor.error(state, l.lost.into_error(&dir));
            for (parent, n) in l.parents {
                if parent.open().children_left.fetch_sub(n, Ordering::AcqRel) == n {
                    self.give_back_fd(&parent);
                }
                for _ in 0..n {
                    self.finish_one(state, &parent, None);
                }
            }
        }
    }

    /// Visits a directory after everything below it; returns the
    /// descriptor of its parent it used, for the parent's own visit.
    fn visit_post_order(
        &self,
        state: &mut V::State,
        node: &Node,
        own: Option<Arc<OwnedFd>>,
    ) -> Option<Arc<OwnedFd>> {
        let path = build_path(node);
        let by_path = !self.opts.post_order_parent_fd && node.parent.is_some();
        let parent_fd = match &node.parent {
            Some(_) if by_path => None,
            Some(p) => match self.parent_of(p, own) {
                Ok(fd) => Some(fd),
                Err(e) => {
                    let at = (path.as_slice(), node.depth);
                    self.report(state, at, Operation::Open, ErrorKind::Io(e));
                    return None;
                }
            },
            None => None,
        };
        let dir = parent_fd.as_ref().map_or(rustix::fs::CWD, |f| f.as_fd());
        let whole_path;
        let at_name: &CStr = if by_path {
            whole_path = CString::new(path.clone()).expect("names have no NUL");
            &whole_path
        } else {
            node.name()
        };
        let name_start = if node.parent.is_some() {
            path.len() - node.name().to_bytes().len()
        } else {
            super::read::start_name(&super::Start {
                path: &path,
                root_len: node.open().root_len,
                depth: node.depth,
            })
        };
        let v = Visit {
            path: &path,
            name_start,
            root_len: node.open().root_len,
            depth: node.depth,
            dir,
            at_name,
            known: Kind::Dir,
            ino: node.id.1,
            follow: node.open().is_root && self.opts.follow != Follow::Never
                || self.opts.follow == Follow::Always,
            post_order: true,
            mask: self.opts.stat_mask,
            given: None,
            meta: OnceLock::new(),
        };
        if self.visitor.visit(state, &v) == Flow::Quit {
            self.quit.store(true, Ordering::Relaxed);
        }
        parent_fd
    }

    /// Opens `parent` again for the post-order visit of its child, whose
    /// own descriptor is `child` if still open: by `..` from the child
    /// when that leads to the very directory opened before (in a deep
    /// tree whose ancestors' descriptors were given back, opening each by
    /// its path would be quadratic in the depth), else as
    /// [`Shared::reopen`] does.
    fn parent_of(&self, parent: &Node, child: Option<Arc<OwnedFd>>) -> io::Result<Arc<OwnedFd>> {
        let cached = parent.open().fd.lock().expect("fd lock").is_some();
        if let (false, Some(child), Some(&want)) = (cached, child, parent.open().opened.get()) {
            if let Ok(fd) = sys::open_dir_at(child.as_fd(), c"..") {
                if sys::fstat(fd.as_fd()).is_ok_and(|st| (st.st_dev, st.st_ino) == want) {
                    return Ok(Arc::new(fd));
                }
            }
        }
        self.reopen(parent).map(Arc::new)
    }
}
