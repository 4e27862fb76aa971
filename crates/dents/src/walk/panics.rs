//! A panic of the visitor (or of the walk itself) on any thread: the
//! walk stops, every thread ends, and the caller gets the panic.
//!
//! The visitor is the caller's code, and it runs on the workers.  A
//! worker that unwinds out of it leaves the queue counting it as reading
//! its directory, so the others would wait for it forever; and a scoped
//! thread's panic reaches the thread that joins it only as "a scoped
//! thread panicked".  So each worker runs under `catch_unwind`: the
//! first payload caught is kept, the walk is told to quit and its queue
//! closed (the workers waiting are woken and leave), and once every
//! worker has been joined [`Shared::rethrow`] resumes the original panic
//! on the thread that called the walk, as a one-thread walk would.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::PoisonError;
use std::thread::{Scope, ScopedJoinHandle};

use super::{Shared, Visitor};

/// A caught panic's payload, as `resume_unwind` takes it.
pub(super) type Payload = Box<dyn Any + Send + 'static>;

impl<V: Visitor> Shared<'_, V> {
    /// Runs one worker ([`Shared::work`]), catching its panic.
    pub(super) fn worker<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>) {
        if let Err(p) = panic::catch_unwind(AssertUnwindSafe(|| self.work(scope))) {
            self.caught(p);
        }
    }

    /// Keeps the first panic's payload and stops the walk: no more
    /// visits, every worker let go from the queue and from a sorted
    /// walk's wait for its turn.
    pub(super) fn caught(&self, p: Payload) {
        let mut first = self.panic.lock().unwrap_or_else(PoisonError::into_inner);
        if first.is_none() {
            *first = Some(p);
        }
        drop(first);
        self.quit.store(true, Ordering::Relaxed);
        self.panicked.store(true, Ordering::Relaxed);
        // Flags set under each lock its waiters check them under, so that
        // none checks, misses the wake-up, then waits forever.
        let mut q = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        q.closed = true;
        q.clear();
        drop(q);
        self.wake.notify_all();
        let mut r = self.ready.lock().unwrap_or_else(PoisonError::into_inner);
        let held = std::mem::take(&mut r.held);
        drop(r);
        super::held::release(held);
    }

    /// Once every worker has ended: resumes the panic caught, if any, on
    /// the calling thread.
    pub(super) fn rethrow(&self) {
        let p = self
            .panic
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(p) = p {
            panic::resume_unwind(p);
        }
    }
}

/// Joins every handle of threads that run the visitor (a directory's
/// slices, a big directory's parts), in order, and returns their results;
/// if any panicked, resumes the first panic once all are joined (its own
/// payload, not "a scoped thread panicked").
pub(super) fn join_all<T>(handles: Vec<Result<ScopedJoinHandle<'_, T>, Box<T>>>) -> Vec<T> {
    let mut first: Option<Payload> = None;
    let mut done = Vec::with_capacity(handles.len());
    for h in handles {
        match h {
            Ok(h) => match h.join() {
                Ok(t) => done.push(t),
                Err(p) => {
                    first.get_or_insert(p);
                }
            },
            // A part whose thread could not start, done by the caller.
            Err(t) => done.push(*t),
        }
    }
    if let Some(p) = first {
        panic::resume_unwind(p);
    }
    done
}
