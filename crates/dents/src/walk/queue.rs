//! The work queue and the workers: directories queued and taken under one
//! lock, idle workers woken only for work there is.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::dir::DEFAULT_BUFFER_SIZE;

use super::node::Node;
use super::{Order, Shared, Visitor};

/// The queue of directories and the workers' activity.
pub(super) struct Queue {
    pub(super) dirs: VecDeque<Arc<Node>>,
    /// Workers reading a directory (the walk ends when none is and the
    /// queue is empty).
    pub(super) active: usize,
    /// Workers waiting for a directory.
    pub(super) idle: usize,
    /// Directories taken so far: the next one's ticket (sorted walks).
    pub(super) taken: u64,
}

impl<V: Visitor> Shared<'_, V> {
    /// A worker: reads directories until none is left.
    pub(super) fn work(&self) {
        if self.opts.sort {
            return self.work_sorted();
        }
        let mut state = self.visitor.state();
        let mut buf = vec![0u8; self.opts.read.buffer_size.max(DEFAULT_BUFFER_SIZE)];
        let mut next = self.next(Vec::new(), None);
        while let Some((node, ticket)) = next {
            let children = if self.quit.load(Ordering::Relaxed) {
                Vec::new()
            } else {
                self.process(&mut state, &node, &mut buf)
            };
            next = self.next(children, Some(ticket));
        }
        self.visitor.finish(state);
    }

    /// Queues the subdirectories a worker found and takes its next
    /// directory and its ticket, under one lock (`finished`: the ticket of
    /// the directory the worker is done with); `None` when the walk is
    /// over.  Wakes as many idle workers as there is work left for.
    pub(super) fn next(
        &self,
        children: Vec<Arc<Node>>,
        finished: Option<u64>,
    ) -> Option<(Arc<Node>, u64)> {
        let mut q = self.queue.lock().expect("queue lock");
        match self.opts.order {
            Order::BreadthFirst => q.dirs.extend(children),
            // Reversed, so that the first child is read first.
            Order::DepthFirst => q.dirs.extend(children.into_iter().rev()),
        }
        if finished.is_some() {
            q.active -= 1;
        }
        loop {
            if self.quit.load(Ordering::Relaxed) {
                q.dirs.clear();
            }
            let next = match self.opts.order {
                Order::BreadthFirst => q.dirs.pop_front(),
                Order::DepthFirst => q.dirs.pop_back(),
            };
            if let Some(n) = next {
                q.active += 1;
                let ticket = q.taken;
                q.taken += 1;
                let wake = q.dirs.len().min(q.idle);
                drop(q);
                self.wake_idle(wake);
                return Some((n, ticket));
            }
            if q.active == 0 {
                self.wake.notify_all();
                return None;
            }
            q.idle += 1;
            q = self.wake.wait(q).expect("queue lock");
            q.idle -= 1;
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
