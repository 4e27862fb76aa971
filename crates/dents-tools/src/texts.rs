//! `--help` and `--version`: the text written whole to standard output,
//! or GNU's `write error` said when it cannot be (standard output closed
//! or full), as gnulib's `close_stdout` says it at exit.
//!
//! Each tool words the message with its own start (`dents: `, `du: `,
//! `dents-mpi: `) and leaves with its own status (find and du 1, ls 2):
//! both are the caller's.  Nothing here ends the process: the status is
//! returned.

use std::io;

use crate::output::write_stdout;
use crate::progress::write_stderr;

/// Writes `text` to standard output ([`write_stdout`]); the exit
/// status: 0, or `failure` after `PREFIX` `write error: CAUSE` on
/// standard error when it could not be written.  `prefix` is the
/// message's start, `PROGRAM: ` (find's may be coloured).
pub fn print_text(text: &str, prefix: &[u8], failure: i32) -> i32 {
    text_status(write_stdout(text.as_bytes()), prefix, failure, write_stderr)
}

/// [`print_text`]'s status and message for a text written elsewhere (a
/// library caller's writer): `written` is how its write ended, and
/// `say` is handed the whole message, newline included, if it failed.
pub fn text_status(
    written: io::Result<()>,
    prefix: &[u8],
    failure: i32,
    say: impl FnOnce(&[u8]),
) -> i32 {
    match written {
        Ok(()) => 0,
        Err(e) => {
            let mut m = prefix.to_vec();
            m.extend_from_slice(b"write error: ");
            m.extend_from_slice(dents::describe(&e).as_bytes());
            m.push(b'\n');
            say(&m);
            failure
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_is_said_with_the_callers_start_and_status() {
        let mut said = Vec::new();
        let full = io::Error::from_raw_os_error(28);
        let status = text_status(Err(full), b"du: ", 1, |m| said.extend_from_slice(m));
        assert_eq!(
            (status, &said[..]),
            (1, &b"du: write error: No space left on device\n"[..])
        );
    }

    #[test]
    fn a_written_text_says_nothing() {
        let status = text_status(Ok(()), b"dents: ", 2, |_| panic!("nothing to say"));
        assert_eq!(status, 0);
    }
}
