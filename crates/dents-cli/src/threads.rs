//! Threads that may not start: where the system refuses one (a small
//! `ulimit -v`, a process limit), its work runs on the calling thread.

use std::sync::{Arc, Mutex};
use std::thread::{Builder, Scope};

/// Runs `f` on a new thread of `scope`, or here and now if no thread can
/// be started.
pub fn spawn_or_run<'scope, 'env, F>(scope: &'scope Scope<'scope, 'env>, f: F)
where
    F: FnOnce() + Send + 'scope,
{
    let cell = Arc::new(Mutex::new(Some(f)));
    let theirs = Arc::clone(&cell);
    let started = Builder::new().spawn_scoped(scope, move || {
        let f = theirs.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(f) = f {
            f();
        }
    });
    if started.is_err() {
        let f = cell.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(f) = f {
            f();
        }
    }
}
