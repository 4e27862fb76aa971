//! Messages held back while a directory of `-R` is listed on a worker, and
//! said when its block is printed.
//!
//! `-R` lists directories on several threads, ahead of the output, but
//! GNU ls says what went wrong with a directory (it could not be opened,
//! an entry could not be stat'ed) where that directory's turn comes: the
//! messages must come in GNU's order, and on a terminal between the
//! same lines of the listing.  So a worker holds them with its block.

use std::cell::RefCell;
use std::io;

use crate::errors::{self, Status};

/// One message held back.
#[derive(Debug)]
pub enum Note {
    /// `errors::report`'s message: `dents: WHAT 'PATH': CAUSE`.
    Report {
        /// The exit status it raises.
        level: i32,
        what: &'static str,
        path: Vec<u8>,
        error: io::Error,
    },
    /// A message already worded, and the exit status it raises.
    Text { level: i32, bytes: Vec<u8> },
}

thread_local! {
    /// The messages of the block being listed on this thread, if held.
    static HELD: RefCell<Option<Vec<Note>>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's messages held back; returns them too.
pub fn holding<R>(f: impl FnOnce() -> R) -> (R, Vec<Note>) {
    /// Stops holding when `f` ends, by a panic too: a caller that catches
    /// it and lists again on this thread must see its messages said.
    struct Release;
    impl Drop for Release {
        fn drop(&mut self) {
            HELD.with(|h| h.borrow_mut().take());
        }
    }
    HELD.with(|h| *h.borrow_mut() = Some(Vec::new()));
    let release = Release;
    let r = f();
    let notes = HELD.with(|h| h.borrow_mut().take()).unwrap_or_default();
    drop(release);
    (r, notes)
}

/// Says `note` now (raising `status`), or holds it if this thread holds
/// its messages.
fn say(status: &Status, note: Note) {
    let note = HELD.with(|h| match h.borrow_mut().as_mut() {
        Some(held) => {
            held.push(note);
            None
        }
        None => Some(note),
    });
    if let Some(note) = note {
        replay(status, vec![note]);
    }
}

/// As [`errors::report`], held back while this thread holds its messages.
pub fn report(status: &Status, level: i32, what: &'static str, path: &[u8], e: &io::Error) {
    // An `io::Error` cannot be cloned; the OS's errors are rebuilt from
    // their number, which is what the message shows.
    let error = match e.raw_os_error() {
        Some(n) => io::Error::from_raw_os_error(n),
        None => io::Error::new(e.kind(), e.to_string()),
    };
    say(
        status,
        Note::Report {
            level,
            what,
            path: path.to_vec(),
            error,
        },
    );
}

/// Writes `bytes` to stderr and raises `status` to `level`, held back
/// while this thread holds its messages.
pub fn text(status: &Status, level: i32, bytes: Vec<u8>) {
    say(status, Note::Text { level, bytes });
}

/// Says held messages, in the order they were held, raising `status`.
pub fn replay(status: &Status, notes: Vec<Note>) {
    for note in notes {
        match note {
            Note::Report {
                level,
                what,
                path,
                error,
            } => errors::report(status, level, what, &path, &error),
            Note::Text { level, bytes } => status.say(level, &bytes),
        }
    }
}
