//! An iterator's state shared by the Python threads that call `next()` on
//! it: behind a mutex taken with the GIL released (pyo3's
//! `lock_py_attached`), so that a thread waiting for the lock never holds
//! the GIL the holder needs, and a re-entrant call from the holder's own
//! thread (an `onerror` that calls `next()`) raises as a generator's
//! would instead of deadlocking.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::MutexExt;

thread_local! {
    /// Its address tells this thread from the others (never 0).
    static ME: u8 = const { 0 };
}

fn me() -> usize {
    ME.with(|m| m as *const u8 as usize)
}

/// State that several threads may step, one at a time.
pub struct Locked<T> {
    state: Mutex<T>,
    /// The thread that holds `state` (0: none): only that thread can see
    /// its own mark, so reading it unlocked is enough to tell re-entry.
    owner: AtomicUsize,
}

/// `Locked`'s state while one thread holds it.
pub struct Guard<'a, T> {
    guard: MutexGuard<'a, T>,
    owner: &'a AtomicUsize,
}

impl<T> Locked<T> {
    /// `state`, not yet held by any thread.
    pub fn new(state: T) -> Locked<T> {
        Locked {
            state: Mutex::new(state),
            owner: AtomicUsize::new(0),
        }
    }

    /// Waits (GIL released) for the state; `ValueError` if this thread
    /// holds it already. A panic in an earlier holder does not poison it:
    /// the pyo3 `PanicException` has been raised already.
    pub fn lock(&self, py: Python<'_>) -> PyResult<Guard<'_, T>> {
        if self.owner.load(Ordering::Relaxed) == me() {
            return Err(PyValueError::new_err("iterator already executing"));
        }
        let guard = self
            .state
            .lock_py_attached(py)
            .unwrap_or_else(|e| e.into_inner());
        self.owner.store(me(), Ordering::Relaxed);
        Ok(Guard {
            guard,
            owner: &self.owner,
        })
    }

    /// The state, when no other thread can hold it (`Drop`).
    pub fn get_mut(&mut self) -> &mut T {
        self.state.get_mut().unwrap_or_else(|e| e.into_inner())
    }
}

impl<T> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        self.owner.store(0, Ordering::Relaxed);
    }
}

impl<T> Deref for Guard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}
