//! Signals and the standard descriptors: how the tools die of a closed
//! pipe or an interrupt, and whether a standard descriptor was closed
//! before the process started.

use std::sync::atomic::AtomicBool;

use crate::sys;

/// Whether standard descriptor `fd` (0, 1 or 2) was closed when the
/// process started (it is now open on `/dev/null`, which Rust's runtime
/// opened there before `main`; this was noted before that).
pub fn closed_at_start(fd: u8) -> bool {
    fd < 3 && sys::closed_std_fds() & (1 << fd) != 0
}

/// Restores the default SIGPIPE action, so that writing to a closed pipe
/// ends the process at once and quietly, as it ends `ls` and `find`
/// (Rust's runtime ignores SIGPIPE before `main`).
pub fn default_sigpipe() {
    sys::default_sigpipe();
}

/// On `SIGINT`, `SIGTERM`, `SIGHUP`, `SIGQUIT` and `SIGPIPE`, first
/// erases the current line of standard error if `drawn` is set (a status
/// line is on the screen), then dies of the signal as before.  Signals
/// that are ignored (a `nohup`, a background job) stay ignored; calling
/// again only changes the flag.
pub fn clear_line_on_fatal_signals(drawn: &'static AtomicBool) {
    sys::clear_line_on_signals(
        drawn,
        &[
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGQUIT,
            libc::SIGPIPE,
        ],
    );
}
