//! The work queue and the workers: directories queued and taken under one
//! lock, idle workers woken only for work there is, workers started as
//! the queue grows.
//!
//! One queue serves the three orders.  It holds two lists: the *shallow*
//! directories (those whose entries are at most [`Queue::levels`] deep),
//! taken first-in first-out, and the *deep* ones, taken last-in first-out
//! (depth first, a directory's first subdirectory first).  A deep
//! directory is taken only when no shallow one is waiting or being read,
//! so every shallow entry is visited before any deeper one, at any number
//! of workers.  Breadth first is the queue with every directory shallow,
//! depth first with none, [`Order::Hybrid`] with the top
//! [`HYBRID_LEVELS`] levels shallow.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::Scope;

use super::node::Node;
use super::{Order, Shared, Visitor};

/// Entries down to this depth come in level order, before any deeper
/// one, in [`Order::Hybrid`] (see the guarantee there).
///
/// Reading a directory in breadth-first order costs more than in depth
/// first (its descriptor, its kernel readdir state and its node are cold
/// by the time its turn or its children's comes: docs/walk-order.md), but
/// only the few directories of the top levels pay it (34 of 32,585 above
/// depth 3 on the benchmarks' shape of /usr): a shallow match comes first
/// at depth-first cost.  2 and 4 measured the same as 3.
pub(super) const HYBRID_LEVELS: usize = 3;

/// The queue of directories and the workers' activity.
pub(super) struct Queue {
    /// Directories whose entries are at most `levels` deep: first in,
    /// first out.
    pub(super) shallow: VecDeque<Arc<Node>>,
    /// The others: last in, first out.
    pub(super) deep: VecDeque<Arc<Node>>,
    /// Directories of depth below this are shallow: `usize::MAX` breadth
    /// first, 0 depth first.
    pub(super) levels: usize,
    /// Shallow directories being read (deep ones wait until none is).
    pub(super) shallow_active: usize,
    /// Workers reading a directory (the walk ends when none is and the
    /// queue is empty).
    pub(super) active: usize,
    /// Workers waiting for a directory.
    pub(super) idle: usize,
    /// Directories taken so far: the next one's ticket (sorted walks).
    pub(super) taken: u64,
    /// Workers started so far (the calling thread included).
    pub(super) started: usize,
    /// Workers the walk may run.
    pub(super) workers: usize,
    /// A worker panicked: nothing more is taken, whatever is still being
    /// read (the panicking worker's directory is never counted done).
    pub(super) closed: bool,
}

/// A directory a worker takes from the queue.
pub(super) struct Taken {
    pub(super) node: Arc<Node>,
    /// Its rank in the queue's order (sorted walks).
    pub(super) ticket: u64,
    /// Whether the worker taking it is to start another worker: there is
    /// more waiting than the idle workers can take.
    pub(super) start_worker: bool,
}

impl Queue {
    /// An empty queue for a walk in `order` on up to `workers` workers.
    pub(super) fn new(order: Order, workers: usize) -> Queue {
        Queue {
            shallow: VecDeque::new(),
            deep: VecDeque::new(),
            levels: match order {
                Order::BreadthFirst => usize::MAX,
                Order::Hybrid => HYBRID_LEVELS,
                Order::DepthFirst => 0,
            },
            shallow_active: 0,
            active: 0,
            idle: 0,
            taken: 0,
            started: 1,
            workers,
            closed: false,
        }
    }

    fn is_shallow(&self, node: &Node) -> bool {
        node.depth < self.levels
    }

    /// Queues the subdirectories of one directory (or the roots).
    pub(super) fn push(&mut self, dirs: Vec<Arc<Node>>) {
        // The children of one directory are all at the same depth.
        match dirs.first() {
            Some(d) if self.is_shallow(d) => self.shallow.extend(dirs),
            // Reversed, so that the first child is read first.
            Some(_) => self.deep.extend(dirs.into_iter().rev()),
            None => {}
        }
    }

    /// Counts the directory `node` done with.
    pub(super) fn done(&mut self, node: &Node) {
        self.active -= 1;
        if self.is_shallow(node) {
            self.shallow_active -= 1;
        }
    }

    /// How many directories can be taken now.
    pub(super) fn available(&self) -> usize {
        if self.shallow_active == 0 {
            self.shallow.len() + self.deep.len()
        } else {
            self.shallow.len()
        }
    }

    /// Takes the next directory: a shallow one, else, once no shallow one
    /// is being read, the last deep one queued.
    fn pop(&mut self) -> Option<Arc<Node>> {
        if let Some(n) = self.shallow.pop_front() {
            self.shallow_active += 1;
            return Some(n);
        }
        if self.shallow_active == 0 {
            return self.deep.pop_back();
        }
        None
    }

    pub(super) fn clear(&mut self) {
        self.shallow.clear();
        self.deep.clear();
    }
}

impl<V: Visitor> Shared<'_, V> {
    /// A worker: reads directories until none is left, starting more
    /// workers (in `scope`) while there is more to read than workers.
    pub(super) fn work<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>) {
        if self.opts.sort {
            return self.work_sorted(scope);
        }
        let mut state = self.visitor.state();
        let mut buf = vec![0u8; self.opts.read.buffer_size];
        let mut next = self.next(Vec::new(), None);
        while let Some(t) = next {
            if t.start_worker {
                self.start_worker(scope);
            }
            let children = if self.quit.load(Ordering::Relaxed) {
                Vec::new()
            } else {
                self.process(&mut state, &t.node, &mut buf)
            };
            if self.holds_level_order(&t.node) {
                // The guarantee is about what the visitor writes too: a
                // top level's lines go out before the barrier can let
                // another worker visit deeper entries.
                self.visitor.turn_done(&mut state);
            }
            next =
                self.next_or_handoff(children, Some(&t.node), || self.visitor.handoff(&mut state));
        }
        self.visitor.finish(state);
    }

    /// Whether finishing `node` must let the visitor write what it holds
    /// back: `node` is a top level of [`Order::Hybrid`] on several
    /// workers, whose visits must all be out before any deeper one.  (One
    /// worker's buffer keeps its visits' order by itself; breadth first on
    /// several workers promises no order.)
    fn holds_level_order(&self, node: &Node) -> bool {
        self.opts.order == Order::Hybrid && node.depth < HYBRID_LEVELS && self.opts.threads > 1
    }

    /// Starts one more worker.  Workers start as the walk finds work for
    /// them rather than all at once: a walk with nothing to read (`find
    /// -maxdepth 0`, a root that is a file) starts none, a small one few.
    /// Where no thread can be started (a process limit), the walk goes on
    /// with those it has.
    pub(super) fn start_worker<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>) {
        let started = std::thread::Builder::new().spawn_scoped(scope, move || self.worker(scope));
        if started.is_err() {
            let mut q = self.queue.lock().expect("queue lock");
            q.workers = q.started;
        }
    }

    /// Queues the subdirectories a worker found and takes its next
    /// directory, under one lock (`finished`: the directory the worker is
    /// done with); `None` when the walk is over.  Wakes as many idle
    /// workers as there is work left for.
    pub(super) fn next(&self, children: Vec<Arc<Node>>, finished: Option<&Node>) -> Option<Taken> {
        self.next_or_handoff(children, finished, || {})
    }

    /// [`Shared::next`], calling `handoff` (out of the lock) once before
    /// the worker would wait for a directory: what the visitor holds back
    /// can go on while others work ([`Visitor::handoff`]).
    pub(super) fn next_or_handoff(
        &self,
        children: Vec<Arc<Node>>,
        finished: Option<&Node>,
        mut handoff: impl FnMut(),
    ) -> Option<Taken> {
        let mut q = self.queue.lock().expect("queue lock");
        q.push(children);
        if let Some(node) = finished {
            q.done(node);
        }
        let mut handed = false;
        loop {
            if q.closed {
                return None;
            }
            if self.quit.load(Ordering::Relaxed) {
                q.clear();
            }
            if let Some(node) = q.pop() {
                q.active += 1;
                let ticket = q.taken;
                q.taken += 1;
                let available = q.available();
                let wake = available.min(q.idle);
                let start_worker = available > q.idle && q.started < q.workers;
                if start_worker {
                    q.started += 1;
                }
                drop(q);
                self.wake_idle(wake);
                return Some(Taken {
                    node,
                    ticket,
                    start_worker,
                });
            }
            if q.active == 0 {
                self.wake.notify_all();
                return None;
            }
            if !handed {
                // The queue may change meanwhile: look again after.
                handed = true;
                drop(q);
                handoff();
                q = self.queue.lock().expect("queue lock");
                continue;
            }
            q.idle += 1;
            q = self.wake.wait(q).expect("queue lock");
            q.idle -= 1;
        }
    }

    /// Sorted walks: takes up to `max` more directories for a worker that
    /// has just taken one with [`Shared::next`], when the queue holds at
    /// least that many for each worker (a short queue is left to the
    /// others, to be read in parallel).  Their tickets follow in the
    /// queue's order, as if taken one by one: breadth first, the n-th
    /// directory taken is the n-th queued whoever takes it.
    ///
    /// A worker of a sorted walk far ahead of the visits is held back
    /// before each directory it prepares ([`Shared::hold_back`]); taking
    /// one at a time, each one it took was the newest ticket and it was
    /// held (a futex wait, a wake and the lock taken again) once a
    /// directory: 128k futex calls for the real-tree shape's 38k
    /// directories on 8 workers.  Taken several at a time, it is held
    /// once for all of them.
    pub(super) fn take_more(&self, max: usize, into: &mut VecDeque<Taken>) {
        let mut q = self.queue.lock().expect("queue lock");
        // Depth first (LIFO, a sorted walk on one worker, the walker's
        // depth-first order) a directory's children come before its
        // siblings: taking a sibling now would give it their ticket.
        if q.closed || self.quit.load(Ordering::Relaxed) || q.levels != usize::MAX {
            return;
        }
        let n = max.min(q.available() / q.workers.max(1));
        for _ in 0..n {
            let Some(node) = q.pop() else { break };
            q.active += 1;
            let ticket = q.taken;
            q.taken += 1;
            into.push_back(Taken {
                node,
                ticket,
                start_worker: false,
            });
        }
    }

    /// Wakes `n` idle workers for the directories waiting for them: one
    /// by name, several all at once (a notify per worker would cost a
    /// futex call each).
    pub(super) fn wake_idle(&self, n: usize) {
        if n == 1 {
            self.wake.notify_one();
        } else if n > 1 {
            self.wake.notify_all();
        }
    }
}
