//! Reading a directory: its entries taken as read, visited at once when
//! their type is known, else gathered in batches; huge directories read on
//! in slices; a wide one's subdirectories handed to the queue as they are
//! found, its read stopped to help read them while the queue is long; the
//! visitor called for each entry.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use crate::metadata::{Metadata, StatFields};

use crate::dir::DirReader;
use crate::file_type::FileType;
use crate::scan::Kind;
use crate::slice::{EntrySink, ReadPlan};
use crate::{slice, sys};

use super::loops::dev_of;
use super::mounts::{MountScope, Mounts};
use super::node::{build_path, Node, StartAt};
use super::panics::join_all;
use super::queue::Lend;
use super::{BigDir, ErrorKind, Flow, Follow, Operation, Shared, Start, Visit, Visitor};

/// Entries read serially before a directory is considered for slicing, at
/// the latest.
const SLICE_CHECK_AFTER: usize = 4096;

/// Bytes asked for by a directory's first `getdents64` call when it might
/// be sliced: a directory that fills them is checked for slicing at once.
const FIRST_READ: usize = 8 * 1024;

/// Subdirectories an unsorted walk hands to the queue at a time while
/// their directory is still being read ([`Shared::hand_off`]).
///
/// A directory's subdirectories used to be queued once its whole read
/// was over: one directory of a million subdirectories was a million
/// queued nodes at once (130 MB for `find -false`, where GNU find's fts,
/// reading 100,000 entries at a time, holds 30 MB).  Handed over as they
/// are found, they are read by the other workers meanwhile, and the
/// reader can stop to read some itself when the queue is long.
pub(super) const HANDOFF_CHUNK: usize = 1024;

/// Queued directories (in memory) past which a worker reading a
/// directory stops, after handing over a chunk of its subdirectories, to
/// read queued directories itself until [`QUEUE_LOW`] are left: the
/// queue of an unsorted walk then stays near this whatever the width of
/// a directory (about 128 bytes a queued directory: 2 MiB).
const QUEUE_HIGH: usize = 16 * 1024;

/// Where a worker that stopped its read to help ([`QUEUE_HIGH`]) goes
/// back to it.
const QUEUE_LOW: usize = QUEUE_HIGH / 2;

/// Reads a worker may stop to help, one inside another (a directory it
/// reads while helping may itself be wide): each holds a read buffer and
/// a descriptor, so the chain is short; past it the queue grows instead.
const MAX_NESTED_HELP: usize = 4;

/// Entries classified together (no `d_type`) are visited on several
/// threads from this many on.
const PARALLEL_VISIT_MIN: usize = 16 * 1024;

/// Where the name of a start's visit begins: the whole path for a root
/// (as find shows it), the last component below one.
pub(super) fn start_name(start: &Start<'_>) -> usize {
    if start.depth == 0 {
        return 0;
    }
    let trimmed = start.path.len() - start.path.iter().rev().take_while(|&&c| c == b'/').count();
    start.path[..trimmed]
        .iter()
        .rposition(|&c| c == b'/')
        .map_or(0, |i| i + 1)
}

impl<V: Visitor> Shared<'_, V> {
    /// Whether directories keep their visit's stat in their node, for
    /// [`Visitor::listing_stated`]: only where it is asked.
    pub(super) fn keeps_stats(&self) -> bool {
        self.opts.sort
            && !self.opts.post_order
            && self.opts.follow != Follow::Always
            && self.visitor.lists_by_stat()
    }

    /// Visits a root (or a start below one) and queues it if it is a
    /// directory to read.
    pub(super) fn visit_root(&self, state: &mut V::State, start: &Start<'_>) {
        let (root, depth) = (start.path, start.depth);
        let Ok(name) = CString::new(root) else {
            let e = io::Error::from_raw_os_error(libc::ENOENT);
            return self.report(state, (root, depth), Operation::Stat, ErrorKind::Io(e));
        };
        let follow = if depth == 0 {
            self.opts.follow != Follow::Never
        } else {
            self.opts.follow == Follow::Always
        };
        // The root's stat is its visit's metadata: it holds the fields
        // the visitor asked for too (a birth time, say).
        let mask = (StatFields::BASIC | self.opts.stat_mask).statx_mask();
        let stat = |dir: BorrowedFd<'_>, name: &CStr| {
            if follow {
                // A broken link is taken for itself; a loop of links is
                // an error, as find reports it.
                match sys::statx_follow_at(dir, name, mask) {
                    Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
                        sys::statx_at(dir, name, mask)
                    }
                    r => r,
                }
            } else {
                sys::statx_at(dir, name, mask)
            }
        };
        // A start deeper than PATH_MAX (a work item of dents-mpi, say) is
        // stat'ed, and visited, relative to its parent opened in steps.
        let mut parent: Option<(OwnedFd, CString)> = None;
        let st = match stat(rustix::fs::CWD, &name) {
            Err(e) if e.raw_os_error() == Some(libc::ENAMETOOLONG) => {
                match sys::open_parent_in_steps(root) {
                    Ok((fd, last)) => {
                        let st = stat(fd.as_fd(), &last);
                        parent = Some((fd, last));
                        st
                    }
                    Err(e) => Err(e),
                }
            }
            r => r,
        };
        let st = match st {
            Ok(st) => st,
            Err(e) => return self.report(state, (root, depth), Operation::Stat, ErrorKind::Io(e)),
        };
        let (dir, at_name) = match &parent {
            Some((fd, last)) => (fd.as_fd(), last.as_c_str()),
            None => (rustix::fs::CWD, name.as_c_str()),
        };
        let t = FileType::from_mode(st.stx_mode as u32);
        let is_dir = t.is_dir();
        let descend = is_dir && self.opts.max_depth > depth;
        let mut flow = Flow::Continue;
        let v = Visit {
            path: root,
            name_start: start_name(start),
            root_len: start.root_len,
            depth,
            dir,
            at_name,
            known: Kind::from_type(t),
            ino: st.stx_ino,
            follow,
            post_order: false,
            mask: self.opts.stat_mask,
            given: Some(Ok(Metadata::from_statx(&st))),
            meta: OnceLock::new(),
        };
        if self.visitor.excluded(state, &v) {
            return;
        }
        if !(self.opts.post_order && descend) && self.opts.min_depth <= depth {
            flow = self.visitor.visit(state, &v);
        }
        if flow == Flow::Quit {
            self.quit.store(true, Ordering::Relaxed);
            return;
        }
        if descend && flow != Flow::Prune {
            let mut node = self.start_node(start, name, &st, true);
            if self.keeps_stats() {
                // Its visit's stat, for `Visitor::listing_stated`.
                if let Some(n) = Arc::get_mut(&mut node) {
                    n.keep_stat(Metadata::from_statx(&st));
                }
            }
            self.queue.lock().expect("queue lock").push(vec![node]);
        }
    }

    /// The node of a directory given as a start (a root, a start below
    /// one, or the directory of a slice), `st` its stat as opened;
    /// `visited`: whether its own visit is this walk's (its post-order
    /// visit then is too).
    fn start_node(
        &self,
        start: &Start<'_>,
        name: CString,
        st: &sys::Statx,
        visited: bool,
    ) -> Arc<Node> {
        let mounts = if self.opts.follow == Follow::Always {
            MountScope::None
        } else {
            Mounts::scope_of_start(self.mounts.as_ref(), start.path, start.depth)
        };
        Node::start(
            name,
            StartAt {
                depth: start.depth,
                id: (dev_of(st), st.stx_ino),
                mounts,
                root_dev: dev_of(st),
                root_len: start.root_len,
                is_root: start.depth == 0,
                visited,
            },
        )
    }

    /// Reads the slice `[lo, hi)` of the directory `start` (open as `fd`),
    /// visits its entries, and returns the subdirectories to walk; the
    /// directory itself is not visited.
    pub(super) fn walk_slice_of(
        &self,
        state: &mut V::State,
        start: &Start<'_>,
        fd: OwnedFd,
        lo: u64,
        hi: Option<u64>,
    ) -> Vec<Arc<Node>> {
        let path = start.path;
        let Ok(name) = CString::new(path) else {
            let e = io::Error::from_raw_os_error(libc::ENOENT);
            let at = (path, start.depth);
            self.report(state, at, Operation::Open, ErrorKind::Io(e));
            return Vec::new();
        };
        // Its children's loop checks and `-xdev` compare with the device
        // and inode as opened.
        let st = match sys::statx_fd(fd.as_fd(), StatFields::BASIC.statx_mask()) {
            Ok(st) => st,
            Err(e) => {
                let at = (path, start.depth);
                self.report(state, at, Operation::Stat, ErrorKind::Io(e));
                return Vec::new();
            }
        };
        let node = self.start_node(start, name, &st, false);
        self.stats.dirs_read.fetch_add(1, Ordering::Relaxed);
        let read_started = sys::now().0;
        let mut sink = SliceVisit {
            shared: self,
            state: Some(self.visitor.state()),
            dv: DirVisit::new(&node, path),
        };
        let read = slice::read_slice(fd.as_fd(), lo, hi, self.opts.read.buffer_size, &mut sink);
        if let Some(st) = sink.state.take() {
            self.visitor.finish(st);
        }
        let mut dv = sink.dv;
        if let Err(e) = read {
            let at = (path, start.depth);
            self.report(state, at, Operation::Read, ErrorKind::Io(e));
        }
        dv.unknown.retain(|b| !b.entries.is_empty());
        if !dv.unknown.is_empty() && !self.quit.load(Ordering::Relaxed) {
            let mut batches = std::mem::take(&mut dv.unknown);
            self.classify(fd.as_fd(), &mut batches, read_started, dv.known_dirs);
            self.visit_batches(state, &mut dv, fd.as_fd(), &batches);
        }
        self.adopt_children(state, &node, Some(fd), &mut dv)
    }

    /// Reads one directory, visits its entries and queues its subdirectories.
    ///
    /// Entries whose type the directory entry gives are visited as they are
    /// read, so that memory does not grow with the directory's size; those
    /// whose type must first be learnt (no `d_type`; links to follow) are
    /// gathered and classified together once the read is over, which the
    /// link-count trick needs.
    pub(super) fn process(
        &self,
        state: &mut V::State,
        node: &Arc<Node>,
        buf: &mut Vec<u8>,
        lend: Lend<'_>,
    ) -> Vec<Arc<Node>> {
        let path = build_path(node);
        let fd = match self.open_checked(node) {
            Ok(fd) => fd,
            Err(kind) => {
                if let Some(kind) = kind {
                    self.report(state, (&path, node.depth), Operation::Open, kind);
                }
                self.finish_one(state, node, None);
                return Vec::new();
            }
        };
        let read_started = sys::now().0;
        let mut dv = DirVisit::new(node, &path);
        dv.lend = Some(lend);
        let fd = self.list(state, fd, &path, buf, &mut dv, true);
        dv.unknown.retain(|b| !b.entries.is_empty());
        if !dv.unknown.is_empty() && !self.quit.load(Ordering::Relaxed) {
            let mut batches = std::mem::take(&mut dv.unknown);
            self.classify(fd.as_fd(), &mut batches, read_started, dv.known_dirs);
            self.visit_batches(state, &mut dv, fd.as_fd(), &batches);
        }
        self.adopt_children(state, node, Some(fd), &mut dv)
    }

    /// Takes the entries of the directory of `dv` (open as `fd`, at
    /// `path`) as [`Shared::take`] files them: from the listing the visitor
    /// supplies (a refresh's, per rank in dents-mpi) if it supplies one,
    /// else read, which alone counts in `dirs_read`.  One function for
    /// unsorted and sorted walks, so that a supplied listing is never
    /// taken differently from a read one.  `ask`: the visitor has not
    /// answered for this directory yet ([`Visitor::listing_stated`]).
    pub(super) fn list(
        &self,
        state: &mut V::State,
        fd: OwnedFd,
        path: &[u8],
        buf: &mut Vec<u8>,
        dv: &mut DirVisit<'_>,
        ask: bool,
    ) -> OwnedFd {
        let start = Start {
            path,
            root_len: dv.node.open().root_len,
            depth: dv.node.depth,
        };
        let given = if ask {
            self.visitor.listing(state, &start, fd.as_fd())
        } else {
            None
        };
        match given {
            Some(listing) => {
                for (name, t, ino) in listing.iter() {
                    self.take(state, dv, fd.as_fd(), name, ino, t);
                }
                fd
            }
            None => {
                self.stats.dirs_read.fetch_add(1, Ordering::Relaxed);
                self.read(state, fd, path, buf, dv)
            }
        }
    }

    /// Reads the whole directory, visiting entries of known type at once
    /// and gathering the others in `dv.unknown`.  A directory found huge
    /// after [`SLICE_CHECK_AFTER`] entries is offered to the visitor
    /// ([`Visitor::take_rest`]) if the walk offers big directories, and if
    /// not taken read on from there in slices, each visited on its slice's
    /// thread.
    pub(super) fn read(
        &self,
        state: &mut V::State,
        fd: OwnedFd,
        path: &[u8],
        buf: &mut Vec<u8>,
        dv: &mut DirVisit<'_>,
    ) -> OwnedFd {
        let may_slice = self.opts.read.threads > 1;
        let may_offer = self.opts.offer_big_dirs.is_some();
        let mut reader = DirReader::with_buffer(fd, std::mem::take(buf));
        if may_slice || may_offer {
            reader = reader.with_first_read(FIRST_READ);
        }
        let mut taken = 0;
        let mut checked = false;
        let mut prev_off = u64::MAX;
        let mut resume = None;
        let reading = self.disk_clock();
        loop {
            let next = reader.next_with_fd();
            if taken == 0 {
                let read = matches!(next, Ok(Some(_)));
                self.note_disk_wait(reading, read.then(|| dv.node.open().root_dev));
            }
            let off = match next {
                Ok(Some((dir, e))) => {
                    self.take(state, dv, dir, e.name_cstr(), e.ino(), e.file_type());
                    let off = e.next_offset();
                    self.hand_off_chunk(state, dv, dir);
                    off
                }
                Ok(None) => break,
                Err(e) => {
                    self.read_error(state, dv, path, e, taken > 0);
                    break;
                }
            };
            taken += 1;
            // A directory that filled the small first read is checked for
            // slicing before more of it is read one block after another
            // (cold, each block is a wait); only where the resume point is
            // exact (see `slice::read_dir_from`): offsets that differ.
            // The visitor is offered the rest first (`offer_big_dirs`):
            // taken, the read stops here.
            let big = reader.first_read_drained_full() || taken >= SLICE_CHECK_AFTER;
            if (may_slice || may_offer) && !checked && big && off != prev_off {
                checked = true;
                let st = sys::fstat(reader.fd());
                // A directory of many subdirectories is read serially, its
                // subdirectories handed over as they come (`hand_off`):
                // its slices would each gather theirs until the end.  Its
                // link count says so (ext4 counts 1 past 65,000).
                let wide = st.as_ref().is_ok_and(|st| {
                    dv.lend.is_some()
                        && (st.st_nlink == 1 || st.st_nlink as usize >= 2 + QUEUE_HIGH)
                });
                let size = st.map(|st| st.st_size as u64);
                if may_offer
                    && size
                        .as_ref()
                        .is_ok_and(|&size| self.offer_rest(state, reader.fd(), dv, path, size, off))
                {
                    break;
                }
                let plan = size
                    .ok()
                    .filter(|_| !wide)
                    .map(|size| slice::plan_sized(reader.fd(), size, &self.opts.read));
                if let Some(Ok(ReadPlan::Sliced { space, slices })) = plan {
                    // One descriptor a slice, from the walk's share: with
                    // fewer than two, the read goes on serially.
                    let slices = self.take_fds(slices);
                    if slices >= 2 {
                        resume = Some((space, slices, off));
                        break;
                    }
                    self.cached_fds.fetch_sub(slices, Ordering::AcqRel);
                }
            }
            prev_off = off;
            if self.quit.load(Ordering::Relaxed) {
                break;
            }
        }
        let (fd, b) = reader.into_parts();
        *buf = b;
        if let Some((space, slices, from)) = resume {
            self.stats.dirs_sliced.fetch_add(1, Ordering::Relaxed);
            // The slices' visits come after this worker's so far: what it
            // holds back goes out before theirs can.
            self.visitor.turn_done(state);
            let dv_ref = &*dv;
            let outcome = slice::read_dir_from(
                fd.as_fd(),
                space,
                from,
                slices,
                self.opts.read.buffer_size,
                |_| SliceVisit {
                    shared: self,
                    state: Some(self.visitor.state()),
                    dv: dv_ref.fork(),
                },
            );
            // Sliced only after a first read that came back full: the
            // directory gave entries before any slice failed.  One report
            // for the directory, as GNU's tools give (they stop at the
            // first failure); the other slices' entries are all visited.
            if let Some(e) = outcome.errors.into_iter().next() {
                self.read_error(state, dv, path, e, true);
            }
            for mut s in outcome.sinks {
                if let Some(st) = s.state.take() {
                    self.visitor.finish(st);
                }
                dv.join(s.dv);
            }
            self.cached_fds.fetch_sub(slices, Ordering::AcqRel);
        }
        fd
    }

    /// Takes the subdirectories found so far in the directory of `dv`
    /// (open as `dir`, its visits not over) to be queued now, counted in
    /// its pending work and children first; `None` after a quit.
    ///
    /// The first time, the directory's descriptor is duplicated for its
    /// children's `openat` (the visits keep their own), within the budget,
    /// and its `children_left` gets one more, for the visits: its children
    /// may all be opened before the visits are over, which must not give
    /// the descriptor back.  [`Shared::adopt_children`] takes the rest.
    pub(super) fn claim(
        &self,
        dv: &mut DirVisit<'_>,
        dir: BorrowedFd<'_>,
    ) -> Option<Vec<Arc<Node>>> {
        let chunk = std::mem::take(&mut dv.children);
        if self.quit.load(Ordering::Relaxed) {
            return None;
        }
        let o = dv.node.open();
        if !dv.handed {
            dv.handed = true;
            o.children_left.fetch_add(1, Ordering::AcqRel);
            if !dv.unopened && self.take_fds(1) == 1 {
                match dir.try_clone_to_owned() {
                    Ok(fd) => *o.fd.lock().expect("fd lock") = Some(Arc::new(fd)),
                    // Its children are opened by a path, as with no
                    // budget left.
                    Err(_) => {
                        self.cached_fds.fetch_sub(1, Ordering::AcqRel);
                    }
                }
            }
        }
        o.children_left.fetch_add(chunk.len(), Ordering::AcqRel);
        o.pending.fetch_add(chunk.len(), Ordering::AcqRel);
        Some(chunk)
    }

    /// [`Shared::hand_off`] once [`HANDOFF_CHUNK`] subdirectories are
    /// gathered: called after each entry taken while reading (or, without
    /// `d_type`, visiting) a directory.
    #[inline]
    fn hand_off_chunk(&self, state: &mut V::State, dv: &mut DirVisit<'_>, dir: BorrowedFd<'_>) {
        if dv.children.len() >= HANDOFF_CHUNK && dv.lend.is_some() {
            self.hand_off(state, dv, dir);
        }
    }

    /// Hands the subdirectories found so far in the directory of `dv`
    /// (open as `dir`, its read not over) to the queue ([`Shared::claim`]);
    /// then, if the queue is long, reads queued directories until it is
    /// short again ([`QUEUE_HIGH`]).
    fn hand_off(&self, state: &mut V::State, dv: &mut DirVisit<'_>, dir: BorrowedFd<'_>) {
        let Some(lend) = dv.lend else {
            return;
        };
        let Some(chunk) = self.claim(dv, dir) else {
            return;
        };
        let (wake, start, long) = {
            let mut q = self.queue.lock().expect("queue lock");
            q.push(chunk);
            let (wake, start) = q.workers_wanted(self.disk_waits());
            (wake, start, q.in_memory() > QUEUE_HIGH)
        };
        self.wake_idle(wake);
        if start {
            (lend.spawn)();
        }
        if long && lend.nested < MAX_NESTED_HELP {
            self.help(state, dv, lend);
        }
    }

    /// Reads queued directories on this worker, its own read stopped,
    /// until the queue is down to [`QUEUE_LOW`] or holds nothing it may
    /// take (the order's rules: see `Queue::pop`).
    fn help(&self, state: &mut V::State, dv: &mut DirVisit<'_>, lend: Lend<'_>) {
        let inner = Lend {
            spawn: lend.spawn,
            nested: lend.nested + 1,
        };
        loop {
            let node = {
                let mut q = self.queue.lock().expect("queue lock");
                if q.closed || self.quit.load(Ordering::Relaxed) || q.in_memory() <= QUEUE_LOW {
                    return;
                }
                match self.take_one(&mut q) {
                    Some((node, _)) => node,
                    None => return,
                }
            };
            if dv.help_buf.is_empty() {
                dv.help_buf = vec![0u8; self.opts.read.buffer_size];
            }
            let children = self.process(state, &node, &mut dv.help_buf, inner);
            if self.holds_level_order(&node) {
                self.visitor.turn_done(state);
            }
            let wake = {
                let mut q = self.queue.lock().expect("queue lock");
                q.push(children);
                q.done(&node);
                q.available().min(q.idle)
            };
            self.wake_idle(wake);
        }
    }

    /// Offers the rest of the directory being read (of `size` bytes, read
    /// up to position `from`) to the visitor if it is big enough for
    /// [`super::WalkOptions::offer_big_dirs`] and slicing it is exact;
    /// whether the visitor took it.
    fn offer_rest(
        &self,
        state: &mut V::State,
        dir: BorrowedFd<'_>,
        dv: &DirVisit<'_>,
        path: &[u8],
        size: u64,
        from: u64,
    ) -> bool {
        if !self.opts.offer_big_dirs.is_some_and(|min| size >= min) {
            return false;
        }
        let Ok(Some(space)) = slice::offset_space(dir, size) else {
            return false;
        };
        let offer = BigDir {
            start: Start {
                path,
                root_len: dv.node.open().root_len,
                depth: dv.node.depth,
            },
            size,
            space,
            from,
        };
        self.visitor.take_rest(state, &offer)
    }

    /// Reports a failed read, at once or (sorted walks) on the directory's
    /// turn; `cut`: entries were read before it ([`crate::Operation::ReadCut`]).
    fn read_error(
        &self,
        state: &mut V::State,
        dv: &mut DirVisit<'_>,
        path: &[u8],
        e: io::Error,
        cut: bool,
    ) {
        let (op, kind) = if cut {
            (Operation::ReadCut, ErrorKind::Io(e))
        } else {
            (Operation::Read, ErrorKind::Io(e))
        };
        if self.opts.sort {
            dv.deferred.push((op, kind));
        } else {
            self.report(state, (path, dv.node.depth), op, kind);
        }
    }

    /// Takes one entry just read: visits it if its type is known (or need
    /// not be), else keeps it for [`Shared::classify`]; in a sorted walk,
    /// keeps every entry.
    pub(super) fn take(
        &self,
        state: &mut V::State,
        dv: &mut DirVisit<'_>,
        dir: BorrowedFd<'_>,
        name: &CStr,
        ino: u64,
        t: FileType,
    ) {
        let t = if self.opts.ignores_dtype() {
            FileType::UNKNOWN
        } else {
            t
        };
        let kind = Kind::from_type(t);
        let unknown = match kind {
            Kind::Unknown => true,
            Kind::NotDir(FileType::SYMLINK) => self.opts.follow == Follow::Always,
            Kind::Dir => {
                dv.known_dirs += 1;
                false
            }
            Kind::NotDir(_) => false,
        };
        if !unknown {
            dv.by_dtype += 1;
        }
        // Types matter only to descend: at the depth limit, the visitor
        // stats what it needs itself.  Following links, every entry goes
        // through the batch, so that the directory's entries are visited
        // (and its subdirectories walked) in the order read, links among
        // them, as find visits them: `-L ... -delete` depends on it.
        let follow_all = self.opts.follow == Follow::Always;
        if self.opts.sort || (unknown || follow_all) && dv.depth < self.opts.max_depth {
            if dv.unknown.is_empty() {
                dv.unknown.push(if self.opts.sort {
                    Batch::for_listing()
                } else {
                    Batch::default()
                });
            }
            dv.unknown[0].push(name, ino, t);
        } else {
            self.visit_entry(state, dv, dir, name, ino, kind);
        }
    }

    /// Visits one entry of the directory of `dv` and, if it is to be
    /// walked, makes it a child.
    pub(super) fn visit_entry(
        &self,
        state: &mut V::State,
        dv: &mut DirVisit<'_>,
        dir: BorrowedFd<'_>,
        name: &CStr,
        ino: u64,
        kind: Kind,
    ) {
        // Taken first, so that it never stays for the next entry.
        let meta = dv.stat_ahead.take();
        if self.quit.load(Ordering::Relaxed) {
            return;
        }
        let depth = dv.depth;
        let descend = kind == Kind::Dir && depth < self.opts.max_depth;
        let mut flow = Flow::Continue;
        dv.path.truncate(dv.base);
        dv.path.extend_from_slice(name.to_bytes());
        // A directory not opened (its listing given, see
        // `Visitor::listing_stated`): its entries are reached by their
        // whole path from the working directory.
        let at_name = if dv.unopened {
            dv.at_path.clear();
            dv.at_path.extend_from_slice(&dv.path);
            dv.at_path.push(0);
            CStr::from_bytes_with_nul(&dv.at_path).expect("one NUL, at the end")
        } else {
            name
        };
        let v = Visit {
            path: &dv.path,
            name_start: dv.base,
            root_len: dv.node.open().root_len,
            depth,
            dir,
            at_name,
            known: kind,
            ino,
            follow: self.opts.follow == Follow::Always,
            post_order: false,
            mask: self.opts.stat_mask,
            // Stat'ed ahead by a sorted walk ([`Visitor::stat_ahead`]).
            given: meta,
            meta: OnceLock::new(),
        };
        if self.visitor.excluded(state, &v) {
            return;
        }
        // A link to a directory at the depth limit is not classified
        // (`-L`), yet find reports it if it closes a loop: its type is
        // the stat its visit needs anyway.
        let follow_all = self.opts.follow == Follow::Always;
        let is_dir = kind == Kind::Dir
            || follow_all
                && matches!(kind, Kind::Unknown | Kind::NotDir(FileType::SYMLINK))
                && v.file_type().is_dir();
        let reached = if is_dir {
            match self.closes_loop(dv.node, &v) {
                Ok(reached) => Some(reached),
                Err(ancestor) => {
                    // As find: the entry is not visited, the loop reported.
                    let path = dv.path.clone();
                    let kind = ErrorKind::Loop { ancestor };
                    return self.report(state, (&path, depth), Operation::Enter, kind);
                }
            }
        } else {
            None
        };
        if depth >= self.opts.min_depth && !(self.opts.post_order && descend) {
            flow = self.visitor.visit(state, &v);
        }
        if flow == Flow::Quit {
            self.quit.store(true, Ordering::Relaxed);
            return;
        }
        if let (true, Flow::Continue, Some(r)) = (descend, flow, reached) {
            debug_assert_eq!(depth, dv.node.depth + 1);
            let mut child = Node::child(dv.node, name, &dv.path, r.id, r.check_from, r.mounts);
            if self.keeps_stats() {
                if let (Some(n), Some(st)) = (Arc::get_mut(&mut child), v.cached_metadata()) {
                    n.keep_stat(st.clone());
                }
            }
            dv.children.push(child);
        }
    }

    /// Visits the classified entries of `batches` (one per slice of the
    /// read): big ones on all threads at once, each thread with a visitor
    /// state of its own.
    pub(super) fn visit_batches(
        &self,
        state: &mut V::State,
        dv: &mut DirVisit<'_>,
        dir: BorrowedFd<'_>,
        batches: &[Batch],
    ) {
        let total: usize = batches.iter().map(|b| b.entries.len()).sum();
        let threads = self.opts.read.threads.max(1);
        // A directory of many subdirectories is visited serially, its
        // subdirectories handed to the queue as they come, as its read
        // does where `d_type` names them: visited in parts, each part
        // would gather its share until every part is over (the whole
        // level queued at once).
        let wide = || {
            dv.lend.is_some()
                && batches
                    .iter()
                    .flat_map(|b| &b.entries)
                    .filter(|e| e.kind == Kind::Dir)
                    .count()
                    >= QUEUE_HIGH
        };
        if total < PARALLEL_VISIT_MIN || threads < 2 || self.opts.sort || wide() {
            for b in batches {
                for e in &b.entries {
                    self.visit_entry(state, dv, dir, b.name(e), e.ino, e.kind);
                    self.hand_off_chunk(state, dv, dir);
                }
            }
            return;
        }
        // Parts of about total / threads entries, never across batches.
        let per = total.div_ceil(threads);
        let parts: Vec<(&Batch, &[BatchEntry])> = batches
            .iter()
            .flat_map(|b| b.entries.chunks(per).map(move |c| (b, c)))
            .collect();
        // As for slices: this worker's visits so far go out first.
        self.visitor.turn_done(state);
        let dv_ref = &*dv;
        let visit_part = |b: &Batch, part: &[BatchEntry]| {
            let mut st = self.visitor.state();
            let mut mine = dv_ref.fork();
            for e in part {
                self.visit_entry(&mut st, &mut mine, dir, b.name(e), e.ino, e.kind);
            }
            self.visitor.finish(st);
            mine
        };
        let done: Vec<DirVisit<'_>> = std::thread::scope(|scope| {
            // A part whose thread cannot be started is visited here.
            let handles: Vec<_> = parts
                .into_iter()
                .map(|(b, part)| {
                    std::thread::Builder::new()
                        .spawn_scoped(scope, move || visit_part(b, part))
                        .map_err(|_| Box::new(visit_part(b, part)))
                })
                .collect();
            // A panic of the visitor on a part's thread goes on here, on
            // the worker's, once every part has ended.
            join_all(handles)
        });
        for p in done {
            dv.join(p);
        }
    }
}

/// One thread's share of visiting a directory's entries.
pub(super) struct DirVisit<'n> {
    /// The directory.
    pub(super) node: &'n Arc<Node>,
    /// The directory's path and a `/`, then the name of the entry visited.
    pub(super) path: Vec<u8>,
    /// Where the names start in `path`.
    pub(super) base: usize,
    /// The entries' depth.
    pub(super) depth: usize,
    /// Subdirectories to walk.
    pub(super) children: Vec<Arc<Node>>,
    /// Entries whose type is still to be learnt (one batch per slice).
    pub(super) unknown: Vec<Batch>,
    /// Subdirectories named by `d_type`.
    pub(super) known_dirs: u64,
    /// Entries whose type `d_type` gave, not yet added to the walk's
    /// statistics.
    pub(super) by_dtype: u64,
    /// Sorted walks: read errors, reported on the directory's turn.
    pub(super) deferred: Vec<(Operation, ErrorKind)>,
    /// Sorted walks: the metadata of the entry about to be visited, if
    /// stat'ed ahead ([`super::Visitor::stat_ahead`]); taken by its visit.
    pub(super) stat_ahead: Option<Result<Metadata, i32>>,
    /// The directory is not open: its entries are reached by their whole
    /// path (built in `at_path`, NUL-terminated).
    pub(super) unopened: bool,
    pub(super) at_path: Vec<u8>,
    /// An unsorted walk's worker reading the directory: what it lends
    /// the read to hand its subdirectories over before the read is over
    /// (`None`: they are queued once it is, by the caller).
    pub(super) lend: Option<Lend<'n>>,
    /// Some of the subdirectories were handed over already: the node's
    /// `children_left` holds one more, for the read, until it is over.
    pub(super) handed: bool,
    /// The buffer of the directories read while helping, kept for the
    /// next time.
    help_buf: Vec<u8>,
}

impl<'n> DirVisit<'n> {
    pub(super) fn new(node: &'n Arc<Node>, dir_path: &[u8]) -> DirVisit<'n> {
        let mut path = Vec::with_capacity(dir_path.len() + 64);
        path.extend_from_slice(dir_path);
        if !path.ends_with(b"/") {
            path.push(b'/');
        }
        DirVisit {
            node,
            base: path.len(),
            path,
            depth: node.depth + 1,
            children: Vec::new(),
            unknown: Vec::new(),
            known_dirs: 0,
            by_dtype: 0,
            deferred: Vec::new(),
            stat_ahead: None,
            unopened: false,
            at_path: Vec::new(),
            lend: None,
            handed: false,
            help_buf: Vec::new(),
        }
    }

    /// An empty share of the same directory, for another thread.
    fn fork(&self) -> DirVisit<'n> {
        DirVisit {
            node: self.node,
            path: self.path[..self.base].to_vec(),
            base: self.base,
            depth: self.depth,
            children: Vec::new(),
            unknown: Vec::new(),
            known_dirs: 0,
            by_dtype: 0,
            deferred: Vec::new(),
            stat_ahead: None,
            unopened: self.unopened,
            at_path: Vec::new(),
            lend: None,
            handed: false,
            help_buf: Vec::new(),
        }
    }

    /// Takes back what another thread's share found.
    fn join(&mut self, other: DirVisit<'n>) {
        self.children.extend(other.children);
        self.known_dirs += other.known_dirs;
        self.by_dtype += other.by_dtype;
        self.unknown.extend(other.unknown);
        self.deferred.extend(other.deferred);
    }
}

/// The sink of one slice of a huge directory: visits entries on the
/// slice's thread.
struct SliceVisit<'s, 'v, 'n, V: Visitor> {
    shared: &'s Shared<'v, V>,
    state: Option<V::State>,
    dv: DirVisit<'n>,
}

impl<V: Visitor> EntrySink for SliceVisit<'_, '_, '_, V> {
    fn entry(&mut self, dir: BorrowedFd<'_>, e: &crate::dir::RawEntry<'_>) {
        if let Some(state) = self.state.as_mut() {
            self.shared.take(
                state,
                &mut self.dv,
                dir,
                e.name_cstr(),
                e.ino(),
                e.file_type(),
            );
        }
    }
}

/// Bytes of names a sorted walk's batch starts with room for.
const LISTING_NAMES: usize = 512;

/// Entries a sorted walk's batch starts with room for.
const LISTING_ENTRIES: usize = 32;

/// One directory's entries: names in an arena, NUL-terminated.
#[derive(Debug, Default)]
pub(super) struct Batch {
    pub(super) names: Vec<u8>,
    pub(super) entries: Vec<BatchEntry>,
}

impl Batch {
    /// An empty batch with room for `entries` entries whose names take
    /// `name_bytes` bytes with their NULs: a listing known beforehand
    /// ([`super::Listing`]) is gathered without growing.
    pub(super) fn with_capacity(entries: usize, name_bytes: usize) -> Batch {
        Batch {
            names: Vec::with_capacity(name_bytes),
            entries: Vec::with_capacity(entries),
        }
    }

    /// An empty batch with room for a typical directory's listing, for
    /// a sorted walk, which gathers every entry in a batch: grown from
    /// nothing, a directory of 20 names cost a dozen reallocations.
    pub(super) fn for_listing() -> Batch {
        Batch {
            names: Vec::with_capacity(LISTING_NAMES),
            entries: Vec::with_capacity(LISTING_ENTRIES),
        }
    }

    pub(super) fn push(&mut self, name: &CStr, ino: u64, t: FileType) {
        self.push_kind(name, ino, Kind::from_type(t));
    }

    pub(super) fn push_kind(&mut self, name: &CStr, ino: u64, kind: Kind) {
        let bytes = name.to_bytes_with_nul();
        self.entries.push(BatchEntry {
            name_start: self.names.len() as u32,
            name_len: u16::try_from(bytes.len() - 1).unwrap_or(u16::MAX),
            ino,
            kind,
        });
        self.names.extend_from_slice(bytes);
    }

    /// The entry's name, NUL-terminated.
    pub(super) fn name(&self, e: &BatchEntry) -> &CStr {
        CStr::from_bytes_with_nul(name_with_nul(&self.names, e)).expect("NUL-terminated")
    }

    /// Appends every entry of `other` (renumbering its names), leaving it
    /// empty: its memory is freed as soon as it is copied.
    pub(super) fn append(&mut self, mut other: Batch) {
        let shift = self.names.len() as u32;
        self.names.extend_from_slice(&other.names);
        other.names = Vec::new();
        self.entries
            .extend(other.entries.iter().map(|&e| BatchEntry {
                name_start: e.name_start + shift,
                ..e
            }));
    }
}

/// The name of `e` in the arena `names`, as bytes without its NUL: what
/// sorted walks compare (a comparison then does not look for the
/// terminator).
pub(super) fn name_bytes<'a>(names: &'a [u8], e: &BatchEntry) -> &'a [u8] {
    let with_nul = name_with_nul(names, e);
    &with_nul[..with_nul.len() - 1]
}

/// The name of `e` and its NUL, by the stored length (no search for the
/// terminator) unless the name is too long to have it stored.
fn name_with_nul<'a>(names: &'a [u8], e: &BatchEntry) -> &'a [u8] {
    let from = e.name_start as usize;
    let len = if e.name_len < u16::MAX {
        e.name_len as usize
    } else {
        names[from..]
            .iter()
            .position(|&c| c == 0)
            .expect("NUL-terminated")
    };
    &names[from..from + len + 1]
}

/// One entry of a [`Batch`]: 16 bytes (the length fits what the
/// alignment of `ino` would otherwise pad), as sorted walks hold one for
/// every entry of a directory until it is visited.
#[derive(Debug, Clone, Copy)]
pub(super) struct BatchEntry {
    pub(super) name_start: u32,
    /// The name's length, or `u16::MAX` for a name that long or longer
    /// (no filesystem's, but a [`super::Listing`]'s may be).
    pub(super) name_len: u16,
    pub(super) kind: Kind,
    pub(super) ino: u64,
}

/// The size promised above: a larger entry would grow a huge sorted
/// directory's memory by as much per entry.
const _: () = assert!(std::mem::size_of::<BatchEntry>() == 16);
