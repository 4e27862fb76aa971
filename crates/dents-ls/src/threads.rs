//! Threads that may not start: where the system refuses one (a small
//! `ulimit -v`, a process limit), its work runs on the calling thread.
//! Under `ulimit -v` only one extra thread per 32 MiB of the limit is
//! started at a time (each stack takes 2 MiB of the address space, which
//! the heap then lacks).
//!
//! The count of running threads is the one process-wide value of this
//! crate, on purpose: the limit it guards (`RLIMIT_AS`) is the process's,
//! so two listings run at once in one process must share it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::{Builder, Scope};

/// Extra threads running now.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// How many extra threads may run at once.
fn most() -> usize {
    static MOST: OnceLock<usize> = OnceLock::new();
    *MOST.get_or_init(|| dents_os::address_space_limit().map_or(usize::MAX, |l| (l >> 25) as usize))
}

/// Runs `f` on a new thread of `scope`, or here and now if no thread can
/// (or may) be started.
pub fn spawn_or_run<'scope, 'env, F>(scope: &'scope Scope<'scope, 'env>, f: F)
where
    F: FnOnce() + Send + 'scope,
{
    if RUNNING.fetch_add(1, Ordering::AcqRel) >= most() {
        RUNNING.fetch_sub(1, Ordering::AcqRel);
        return f();
    }
    let cell = Arc::new(Mutex::new(Some(f)));
    let theirs = Arc::clone(&cell);
    let started = Builder::new().spawn_scoped(scope, move || {
        /// Counts the thread out when it ends, by a panic too.
        struct Leave;
        impl Drop for Leave {
            fn drop(&mut self) {
                RUNNING.fetch_sub(1, Ordering::AcqRel);
            }
        }
        let _leave = Leave;
        let f = theirs.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(f) = f {
            f();
        }
    });
    if started.is_err() {
        RUNNING.fetch_sub(1, Ordering::AcqRel);
        let f = cell.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(f) = f {
            f();
        }
    }
}
