//! Error messages and exit statuses in the style of the tool being replaced.
//!
//! Messages name the path (quoted as GNU quotes it in messages) and the
//! cause in the C library's words; the exit status is the worst seen,
//! kept by each command in its own [`Status`] (two commands run in one
//! process do not see each other's problems).

use std::io;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

use crate::output::Output;
use crate::quote;

/// A minor problem: ls's exit status 1 (an entry that could not be stat'ed).
pub const MINOR: i32 = 1;
/// A serious problem: ls's exit status 2 (a command-line argument that
/// cannot be accessed, a directory that cannot be read).
pub const SERIOUS: i32 = 2;

/// The OS's text for an error, without Rust's " (os error N)" suffix:
/// the walker library's rule, so that its errors and the tools' read alike.
pub use dents::describe;

/// One command's exit status so far: 0, or the worst problem reported.
/// Shared by the command's threads.
#[derive(Debug, Default)]
pub struct Status {
    level: AtomicI32,
    /// The command's standard output, flushed before each message.
    out: Option<Arc<Output>>,
}

impl Status {
    /// A status with nothing reported yet (0).
    pub fn new() -> Status {
        Status::default()
    }

    /// A status whose messages flush `out` first, as GNU's `error()`
    /// flushes standard output ([`Output::flush_for_message`]).
    pub fn flushing(out: Arc<Output>) -> Status {
        Status {
            level: AtomicI32::new(0),
            out: Some(out),
        }
    }

    /// Raises the status to at least `level`.
    pub fn raise(&self, level: i32) {
        self.level.fetch_max(level, Ordering::Relaxed);
    }

    /// The exit status to leave with.
    pub fn get(&self) -> i32 {
        self.level.load(Ordering::Relaxed)
    }

    /// Writes a message worded already to stderr and raises the status
    /// to at least `level`.
    pub fn say(&self, level: i32, bytes: &[u8]) {
        if let Some(out) = &self.out {
            out.flush_for_message();
        }
        write_stderr(bytes);
        self.raise(level);
    }
}

/// Prints `dents: WHAT 'PATH': CAUSE` on stderr and raises `status` to at
/// least `level`.
pub fn report(status: &Status, level: i32, what: &str, path: &[u8], e: &io::Error) {
    let mut msg = Vec::with_capacity(64 + path.len());
    msg.extend_from_slice(b"dents: ");
    msg.extend_from_slice(what.as_bytes());
    msg.push(b' ');
    quote::for_message(&mut msg, path);
    msg.extend_from_slice(b": ");
    msg.extend_from_slice(describe(e).as_bytes());
    msg.push(b'\n');
    status.say(level, &msg);
}

/// Writes `bytes` to stderr in one call, ignoring failure (nowhere to
/// say it), off the status line's row.
pub use crate::progress::write_stderr;

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
