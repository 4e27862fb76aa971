//! Workers held back, each woken by itself: a sorted walk's workers
//! too far ahead of the visits wait here until their turn comes, and a
//! panic lets them all go.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::Thread;

/// A worker of a sorted walk held back (`hold_back` in `sorted.rs`),
/// woken by itself when its turn comes: with one condition variable for all of
/// them, each turn that let one go on woke all (up to 7 on 8 workers),
/// and those still too far ahead took the ready lock again only to wait
/// again, all at once: 80% of a sorted walk's futex calls.
pub(super) struct Held {
    /// The turn from which it may go on.
    pub(super) at: u64,
    /// Its thread, to unpark.
    thread: Thread,
    /// Set when it may go on (a park may end for no reason).
    go: Arc<AtomicBool>,
}

/// Lets the workers `held` go on: called out of the ready lock, so that
/// they do not wake to wait for it.
pub(super) fn release(held: Vec<Held>) {
    for h in held {
        h.go.store(true, Ordering::Release);
        h.thread.unpark();
    }
}

impl Held {
    /// The calling thread, held until the turn `at`, `go` its flag.
    pub(super) fn me(at: u64, go: &Arc<AtomicBool>) -> Held {
        Held {
            at,
            thread: std::thread::current(),
            go: Arc::clone(go),
        }
    }
}
