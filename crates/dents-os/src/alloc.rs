//! The global allocator of the tools: the system's, but running out of
//! memory ends the process with GNU's message and status instead of an
//! abort.

use std::sync::atomic::{AtomicI32, Ordering};

/// A global allocator that is the system's, except that when memory runs
/// out it says `dents: memory exhausted` on stderr and exits with the
/// status set by [`set_exhausted_status`] (2 unless set), as GNU's tools
/// do, instead of aborting.  (Its `GlobalAlloc` impl is in the crate's
/// `unsafe` module.)
///
/// ```ignore
/// #[global_allocator]
/// static ALLOC: dents_os::ExitOnExhaustion = dents_os::ExitOnExhaustion;
/// ```
pub struct ExitOnExhaustion;

/// The exit status after "memory exhausted" (read by the allocator in
/// the crate's `unsafe` module, which sits above this one).
pub(crate) static EXHAUSTED_STATUS: AtomicI32 = AtomicI32::new(2);

/// Sets the exit status used when memory runs out.
pub fn set_exhausted_status(status: i32) {
    EXHAUSTED_STATUS.store(status, Ordering::Relaxed);
}
