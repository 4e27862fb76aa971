//! Output: large buffers, shared by threads, flushed whole.
//!
//! Each thread formats into its own [`ThreadBuf`] and hands full buffers to
//! the shared [`Output`], which writes them with one `write` each under a
//! lock, so lines from different threads never interleave mid-line.  A
//! closed pipe ends the process through SIGPIPE (restored to its default at
//! start), at once and quietly, as it ends `ls`.  Another failed write
//! is kept, the rest of the output dropped, and said when the command
//! closes its output ([`Output::close_status`], GNU's `close_stdout`:
//! "write error"), unless the output was given a reporter
//! ([`Output::reporting_errors`]): find reports the file at once and goes
//! on with the others.  Nothing here ends the process.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Bytes a thread gathers before it writes.
pub const FLUSH_AT: usize = 64 * 1024;

/// Reports a failed write in the words of the tool being replaced.
type Reporter = Box<dyn Fn(&io::Error) + Send + Sync>;

/// Where an [`Output`]'s buffers go.
type Sink = Box<dyn Write + Send>;

/// The process's standard output (or an output file, or a caller's
/// writer), shared by all threads.
pub struct Output {
    file: Mutex<Sink>,
    /// Bytes carried until enough are gathered to write ([`Output::carry`]);
    /// written before anything else is.
    carried: Mutex<Vec<u8>>,
    /// What a failed write does; `None`: keep it for
    /// [`Output::close_status`] (ls, du).
    on_error: Option<Reporter>,
    /// A write failed: the rest is dropped.
    failed: AtomicBool,
    /// The first failed write, when there is no reporter.
    error: Mutex<Option<io::Error>>,
    /// Output was written to a standard output closed at start.
    wrote_to_closed: AtomicBool,
    /// Output came since the last message ([`Output::flush_for_message`]).
    unflushed: AtomicBool,
    /// Standard output was closed when the process started (Rust's
    /// runtime put `/dev/null` there): every write fails as `EBADF`, as
    /// it fails for ls and find.
    closed: bool,
}

/// Descriptor 1, written to directly.
struct Fd1;

impl Write for Fd1 {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Ok(rustix::io::write(io::stdout().as_fd(), buf)?)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

impl Output {
    /// Standard output, written to unbuffered (Rust's `Stdout` buffers
    /// by lines) and without a descriptor of its own: under a descriptor
    /// limit that leaves one free, as `ls -R` under `ulimit -n 4`, that
    /// one is the directories' (an `Err` is never returned now; the
    /// `Result` is kept for the callers' sake).
    pub fn stdout() -> io::Result<Output> {
        Ok(Output {
            closed: dents_os::closed_at_start(1),
            ..Output::from_writer(Fd1)
        })
    }

    /// An open file (`find -fprint FILE` and the like).
    pub fn from_file(file: File) -> Output {
        Output::from_writer(file)
    }

    /// Any writer (a library caller's sink): each `write_all` it gets is
    /// one thread's buffer of whole records, never two at once.
    pub fn from_writer(writer: impl Write + Send + 'static) -> Output {
        Output {
            file: Mutex::new(Box::new(writer)),
            carried: Mutex::new(Vec::new()),
            on_error: None,
            failed: AtomicBool::new(false),
            error: Mutex::new(None),
            wrote_to_closed: AtomicBool::new(false),
            unflushed: AtomicBool::new(false),
            closed: false,
        }
    }

    /// The same output, whose first failed write is handed to `report`
    /// (which says so and sets the exit status) instead of keeping it for
    /// [`Output::close_status`]; what is written after it is dropped.
    pub fn reporting_errors(
        mut self,
        report: impl Fn(&io::Error) + Send + Sync + 'static,
    ) -> Output {
        self.on_error = Some(Box::new(report));
        self
    }

    /// Writes `bytes` whole (after what is carried).
    pub fn write(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.unflushed.store(true, Ordering::Relaxed);
        let mut carried = self.carried.lock().unwrap_or_else(|p| p.into_inner());
        if !carried.is_empty() {
            self.write_now(&carried);
            carried.clear();
        }
        self.write_now(bytes);
    }

    /// Keeps `bytes` to be written with what follows, once
    /// [`FLUSH_AT`] bytes are gathered: short listings of many small
    /// directories go out in large writes, as stdio's buffer sends them.
    pub fn carry(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.unflushed.store(true, Ordering::Relaxed);
        let mut carried = self.carried.lock().unwrap_or_else(|p| p.into_inner());
        carried.extend_from_slice(bytes);
        if carried.len() >= FLUSH_AT {
            self.write_now(&carried);
            carried.clear();
        }
    }

    /// Takes what is carried, for a caller that formats after it and
    /// hands back the rest ([`Output::carry`]).
    pub fn take_carried(&self) -> Vec<u8> {
        std::mem::take(&mut *self.carried.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Writes what is carried.
    pub fn flush(&self) {
        let mut carried = self.carried.lock().unwrap_or_else(|p| p.into_inner());
        if !carried.is_empty() {
            self.write_now(&carried);
            carried.clear();
        }
    }

    /// Flushes before a message is said, as GNU's `error()` flushes
    /// standard output: the message comes after the output before it
    /// (on a terminal, or with `2>&1`), and a write error kept for
    /// [`Output::close_status`] is said with its cause only if output
    /// came after the last message (GNU's last flush, in `close_stdout`,
    /// fails again and sets `errno`).
    pub fn flush_for_message(&self) {
        self.flush();
        self.unflushed.store(false, Ordering::Relaxed);
    }

    /// Writes `bytes` to the file, or keeps or reports the failure.
    fn write_now(&self, bytes: &[u8]) {
        if self.failed.load(Ordering::Relaxed) {
            return;
        }
        // With a status line on the same terminal, off its row (the line
        // first, then the file: the order every writer takes them in).
        crate::progress::suspended(|| {
            let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
            if self.closed {
                // Said at the end, as ls and find say it when they close
                // standard output.
                self.wrote_to_closed.store(true, Ordering::Relaxed);
                return;
            }
            if let Err(e) = file.write_all(bytes) {
                if self.failed.swap(true, Ordering::Relaxed) {
                    return;
                }
                match &self.on_error {
                    None => *self.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e),
                    Some(report) => report(&e),
                }
            }
        });
    }

    /// Whether output was written to a standard output closed at start
    /// (nothing was said yet: ls and find say it when they close it).
    pub fn wrote_to_closed(&self) -> bool {
        self.wrote_to_closed.load(Ordering::Relaxed)
    }

    /// The command's exit status once its output is closed, as GNU's
    /// `close_stdout` leaves it: `code`, or at least `failed` after
    /// saying `dents: write error` if a write failed (and had no
    /// reporter) or output went to a standard output closed at start.
    pub fn close_status(&self, code: i32, failed: i32) -> i32 {
        self.flush();
        let kept = self.error.lock().unwrap_or_else(|p| p.into_inner()).take();
        let msg = match kept {
            // Nothing left to flush at the end: GNU knows no cause.
            Some(_) if !self.unflushed.load(Ordering::Relaxed) => {
                "dents: write error\n".to_string()
            }
            Some(e) => format!("dents: write error: {}\n", dents::describe(&e)),
            // Closing a closed descriptor fails whatever was flushed.
            None if self.wrote_to_closed() => {
                format!("dents: write error: {}\n", dents::describe(&ebadf()))
            }
            None => return code,
        };
        crate::progress::write_stderr(msg.as_bytes());
        code.max(failed)
    }
}

/// Writes `bytes` to standard output at once (a help text): an error if
/// the write fails or standard output was closed when the process started.
pub fn write_stdout(bytes: &[u8]) -> io::Result<()> {
    if dents_os::closed_at_start(1) {
        return Err(io::Error::from_raw_os_error(libc_ebadf()));
    }
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}

/// `EBADF`: the error of a write to a closed descriptor.
pub fn ebadf() -> io::Error {
    io::Error::from_raw_os_error(libc_ebadf())
}

/// `EBADF`: the error of a write to a closed descriptor.
fn libc_ebadf() -> i32 {
    rustix::io::Errno::BADF.raw_os_error()
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
