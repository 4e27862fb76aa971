//! Output: large buffers, shared by threads, flushed whole.
//!
//! Each thread formats into its own [`ThreadBuf`] and hands full buffers to
//! the shared [`Output`], which writes them with one `write` each under a
//! lock, so lines from different threads never interleave mid-line.  A
//! closed pipe ends the process through SIGPIPE (restored to its default at
//! start), at once and quietly, as it ends `ls`.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::sync::Mutex;

/// Bytes a thread gathers before it writes.
pub const FLUSH_AT: usize = 64 * 1024;

/// The process's standard output, shared by all threads.
#[derive(Debug)]
pub struct Output {
    file: Mutex<File>,
}

impl Output {
    /// Standard output, opened once more as a plain file (no line buffering).
    pub fn stdout() -> Output {
        let fd = io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .unwrap_or_else(|e| fatal_write_error(&e));
        Output {
            file: Mutex::new(File::from(fd)),
        }
    }

    /// An open file (`find -fprint FILE` and the like).
    pub fn from_file(file: File) -> Output {
        Output {
            file: Mutex::new(file),
        }
    }

    /// Writes `bytes` whole.
    pub fn write(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        // With a status line on the same terminal, off its row (the line
        // first, then the file: the order every writer takes them in).
        crate::progress::suspended(|| {
            let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
            if let Err(e) = file.write_all(bytes) {
                fatal_write_error(&e);
            }
        });
    }
}

/// Reports a failed write to standard output and exits with status 2, as
/// ls does ("write error").
pub fn fatal_write_error(e: &io::Error) -> ! {
    eprintln!("dents: write error: {}", crate::errors::describe(e));
    std::process::exit(2)
}

/// One thread's output buffer.
#[derive(Debug)]
pub struct ThreadBuf<'a> {
    out: &'a Output,
    /// The bytes not yet written.
    pub buf: Vec<u8>,
}

impl<'a> ThreadBuf<'a> {
    /// An empty buffer writing to `out`.
    pub fn new(out: &'a Output) -> ThreadBuf<'a> {
        ThreadBuf {
            out,
            buf: Vec::with_capacity(FLUSH_AT + 4096),
        }
    }

    /// The output this buffer writes to.
    pub fn output(&self) -> &'a Output {
        self.out
    }

    /// Writes the buffer if it is full enough.
    pub fn maybe_flush(&mut self) {
        if self.buf.len() >= FLUSH_AT {
            self.flush();
        }
    }

    /// Writes whatever is buffered.
    pub fn flush(&mut self) {
        self.out.write(&self.buf);
        self.buf.clear();
    }
}

impl Drop for ThreadBuf<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}
