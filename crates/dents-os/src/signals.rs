//! Signals and the standard descriptors: how the tools die of a closed
//! pipe or an interrupt, and whether a standard descriptor was closed
//! before the process started.

use std::os::fd::AsFd;
use std::sync::atomic::AtomicBool;

use rustix::event::{poll, PollFd, PollFlags};

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

/// Ends the process as a write to standard output would if it is a pipe
/// whose reader is gone: by SIGPIPE, at once and quietly (its default
/// action, restored by [`default_sigpipe`]); `Ok` while the reader is
/// there, and where it is not a pipe.  One `poll` that does not wait (the
/// kernel reports `POLLERR` on the writing end of a pipe without a
/// reader): for a loop of one thread that can go long without writing (a
/// diff of sparse changes), to call every so many rows.  Where SIGPIPE is
/// ignored or blocked, returns the error that write would get (`EPIPE`).
///
/// A loop on many threads, or one in a library that offers no place to
/// call this, has [`end_when_reader_gone`]; it costs a thread, and a
/// process of one thread that allocates pays for a second one: the C
/// library's `malloc` then takes its locks (a 10M-row diff into a pipe
/// took 6% more CPU).
pub fn end_if_reader_gone() -> std::io::Result<()> {
    let out = std::io::stdout();
    let mut fds = [PollFd::new(&out, PollFlags::empty())];
    let zero = rustix::event::Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    if matches!(poll(&mut fds, Some(&zero)), Ok(1) if reader_gone(&fds[0])) {
        sys::raise_sigpipe();
        return Err(std::io::Error::from_raw_os_error(libc::EPIPE));
    }
    Ok(())
}

/// Whether `poll` said of a pipe's writing end that its reader is gone.
fn reader_gone(fd: &PollFd<'_>) -> bool {
    fd.revents().contains(PollFlags::ERR)
}

/// Ends the process by SIGPIPE as soon as standard output is a pipe
/// whose reader is gone, not at the next write: for a command that can
/// go long without writing (a diff of sparse changes, a find of a rare
/// name, `du -s`), which would otherwise learn it only there.  The end is
/// the one a write to the closed pipe would bring, at once and quietly
/// (SIGPIPE's default action, restored by [`default_sigpipe`]).
///
/// A thread of its own sleeps in `poll` on descriptor 1 asking for no
/// event: only `POLLERR`, which the kernel reports on the writing end of
/// a pipe once its last reader has closed it, wakes it, and it raises
/// SIGPIPE.  Nothing is started where standard output is not a pipe (a
/// file, a terminal, `/dev/null`), nor where SIGPIPE is ignored (the
/// next write fails with `EPIPE` as before).  Call it only from a
/// command whose sole output is standard output: one with other effects
/// (`find -delete`, `-exec`, `-fprint`) must go on while the reader is
/// gone, as GNU's do, until it writes.
pub fn end_when_reader_gone() {
    let is_pipe = rustix::fs::fstat(std::io::stdout().as_fd())
        .map(|st| rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Fifo)
        .unwrap_or(false);
    if !is_pipe || sys::sigpipe_ignored() {
        return;
    }
    // The thread is never joined: it ends the process or sleeps until
    // the process ends.
    let _ = std::thread::Builder::new()
        .name("reader-gone".into())
        .stack_size(64 * 1024)
        .spawn(|| {
            let out = std::io::stdout();
            let mut fds = [PollFd::from_borrowed_fd(out.as_fd(), PollFlags::empty())];
            loop {
                match poll(&mut fds, None) {
                    Ok(0) | Err(rustix::io::Errno::INTR) => continue,
                    Ok(_) if reader_gone(&fds[0]) => sys::raise_sigpipe(),
                    // Anything else (a descriptor closed under us):
                    // nothing more to watch.
                    _ => return,
                }
            }
        });
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
