//! Error messages and exit statuses in the style of the tool being replaced.
//!
//! Messages name the path (quoted as GNU quotes it in messages) and the
//! cause in the C library's words; the exit status is the worst seen.

use std::io;
use std::sync::atomic::{AtomicI32, Ordering};

use crate::quote;

/// The exit status so far: 0, or the worst problem reported.
static STATUS: AtomicI32 = AtomicI32::new(0);

/// A minor problem: ls's exit status 1 (an entry that could not be stat'ed).
pub const MINOR: i32 = 1;
/// A serious problem: ls's exit status 2 (a command-line argument that
/// cannot be accessed, a directory that cannot be read).
pub const SERIOUS: i32 = 2;

/// The OS's text for an error, without Rust's " (os error N)" suffix:
/// the walker library's rule, so that its errors and the tools' read alike.
pub use dents::error::describe;

/// Prints `dents: WHAT 'PATH': CAUSE` on stderr and raises the exit status
/// to at least `status`.
pub fn report(status: i32, what: &str, path: &[u8], e: &io::Error) {
    let mut msg = Vec::with_capacity(64 + path.len());
    msg.extend_from_slice(b"dents: ");
    msg.extend_from_slice(what.as_bytes());
    msg.push(b' ');
    quote::for_message(&mut msg, path);
    msg.extend_from_slice(b": ");
    msg.extend_from_slice(describe(e).as_bytes());
    msg.push(b'\n');
    write_stderr(&msg);
    raise(status);
}

/// Writes `bytes` to stderr in one call, ignoring failure (nowhere to say it).
pub fn write_stderr(bytes: &[u8]) {
    use std::io::Write;
    // Off the status line's row, or the two would garble each other.
    crate::progress::suspended(|| {
        let _ = io::stderr().lock().write_all(bytes);
    });
}

/// Raises the exit status to at least `status`.
pub fn raise(status: i32) {
    STATUS.fetch_max(status, Ordering::Relaxed);
}

/// Forgets the problems met so far: a library caller's next command
/// starts from status 0.
pub fn reset_status() {
    STATUS.store(0, Ordering::Relaxed);
}

/// The exit status to leave with.
pub fn status() -> i32 {
    STATUS.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_as_the_walker_library() {
        let os = io::Error::from_raw_os_error(2);
        assert_eq!(describe(&os), "No such file or directory");
        // Only an OS error's suffix is std's: a message of our own that
        // quotes one is kept whole, as dents's `Error` prints it.
        let own = io::Error::other("cannot read x (os error 5)");
        assert_eq!(describe(&own), "cannot read x (os error 5)");
    }
}
