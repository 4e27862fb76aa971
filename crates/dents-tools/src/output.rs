//! Output: large buffers, shared by threads, flushed whole.
//!
//! Each thread formats into its own [`ThreadBuf`] and hands full buffers to
//! the shared [`Output`], which writes them with one `write` each under a
//! lock, so lines from different threads never interleave mid-line.  A
//! closed pipe ends the process through SIGPIPE (restored to its default at
//! start), at once and quietly, as it ends `ls`.  Another failed write
//! ends the process as ls does ("write error"), unless the output was
//! given a reporter ([`Output::reporting_errors`]): find reports the
//! file, drops the rest of its output and goes on with the others.

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
    /// What a failed write does; `None`: end the process (ls).
    on_error: Option<Reporter>,
    /// A write failed and was reported: the rest is dropped.
    failed: AtomicBool,
    /// Standard output was closed when the process started (Rust's
    /// runtime put `/dev/null` there): every write fails as `EBADF`, as
    /// it fails for ls and find.
    closed: bool,
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

impl Output {
    /// Standard output, opened once more as a plain file (no line buffering).
    pub fn stdout() -> Output {
        let fd = io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .unwrap_or_else(|e| fatal_write_error(&e));
        Output {
            closed: dents_os::closed_at_start(1),
            ..Output::from_file(File::from(fd))
        }
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
            on_error: None,
            failed: AtomicBool::new(false),
            closed: false,
        }
    }

    /// The same output, whose first failed write is handed to `report`
    /// (which says so and sets the exit status) instead of ending the
    /// process; what is written after it is dropped.
    pub fn reporting_errors(
        mut self,
        report: impl Fn(&io::Error) + Send + Sync + 'static,
    ) -> Output {
        self.on_error = Some(Box::new(report));
        self
    }

    /// Writes `bytes` whole.
    pub fn write(&self, bytes: &[u8]) {
        if bytes.is_empty() || self.failed.load(Ordering::Relaxed) {
            return;
        }
        // With a status line on the same terminal, off its row (the line
        // first, then the file: the order every writer takes them in).
        crate::progress::suspended(|| {
            let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
            if self.closed {
                // Said at the end, as ls and find say it when they close
                // standard output.
                WROTE_TO_CLOSED.store(true, Ordering::Relaxed);
                return;
            }
            if let Err(e) = file.write_all(bytes) {
                match &self.on_error {
                    None => fatal_write_error(&e),
                    Some(report) => {
                        if !self.failed.swap(true, Ordering::Relaxed) {
                            report(&e);
                        }
                    }
                }
            }
        });
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

/// Whether output was written to a standard output closed at start.
static WROTE_TO_CLOSED: AtomicBool = AtomicBool::new(false);

/// Whether output was written to a standard output closed at start
/// (nothing was said yet: ls and find say it when they close it).
pub fn written_to_closed() -> bool {
    WROTE_TO_CLOSED.load(Ordering::Relaxed)
}

/// `EBADF`: the error of a write to a closed descriptor.
pub fn ebadf() -> io::Error {
    io::Error::from_raw_os_error(libc_ebadf())
}

/// `EBADF`: the error of a write to a closed descriptor.
fn libc_ebadf() -> i32 {
    rustix::io::Errno::BADF.raw_os_error()
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
