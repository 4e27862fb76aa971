//! The process's descriptors: how many more it may open, whether an
//! error says none is free, and an open that waits its turn when none is
//! (`EMFILE`), for every module that holds descriptors on several threads
//! (the walker; the slice reader, which reads a slice that found none
//! through its caller's descriptor; `ls -R` through [`crate::fs`], where
//! they are public).

use std::io;
use std::os::fd::BorrowedFd;

use crate::sys;

/// How many more descriptors the process may open now: the soft
/// `RLIMIT_NOFILE` (at most 2^20) less those open.  For sizing the
/// threads that each hold some at once (the walker's plan, `ls -R`'s
/// workers).
pub fn descriptors_free() -> usize {
    let limit = sys::nofile_limit().min(1 << 20) as usize;
    limit.saturating_sub(open_fds(limit))
}

/// Grows the process's descriptor table now, to hold descriptors
/// numbered below `n` (at most the soft `RLIMIT_NOFILE`), by duplicating
/// `fd` there and closing the copy; best effort.  The kernel grows the
/// table by doubling as descriptors are opened, and once threads share
/// it each doubling waits for an RCU grace period (`synchronize_rcu` in
/// `expand_fdtable`, ~10 ms) while every open of every thread waits for
/// it; while one thread runs, a growth waits for nothing.  The walker
/// calls it once it keeps many open; a program that knows it will keep
/// thousands (`dents scan`) calls it before its threads start.  The
/// table never shrinks.
pub fn grow_descriptor_table(fd: BorrowedFd<'_>, n: usize) {
    let limit = usize::try_from(sys::nofile_limit()).unwrap_or(usize::MAX);
    sys::reserve_descriptors(fd, n.min(limit));
}

/// How many descriptors the process has open (those listed in
/// `/proc/self/fd` but the one listing them); all of `limit` if not even
/// that one can be opened, 3 if the list cannot be read otherwise.
fn open_fds(limit: usize) -> usize {
    // (std's reader, once per walk: the module is below `dir`'s layer.)
    match std::fs::read_dir("/proc/self/fd") {
        Ok(list) => list.count().saturating_sub(1),
        Err(e) if out_of_descriptors(&e) => limit,
        Err(_) => 3,
    }
}

/// Whether `e` says the process (`EMFILE`) or the system (`ENFILE`) has
/// no descriptor free: an open to try again once others are closed, not
/// a failure of the file opened.
pub fn out_of_descriptors(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// Runs `open` again while it fails for want of descriptors (`EMFILE`,
/// `ENFILE`), up to about a second (then its error stands): for threads
/// that each hold a few descriptors for a moment, so that under a low
/// `RLIMIT_NOFILE` they take turns instead of losing directories (the
/// walker's workers, `ls -R`'s).  Anything else `open` returns is
/// returned at once.
pub fn retry_emfile<T>(mut open: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    let mut waited = 0;
    loop {
        match open() {
            Err(e) if out_of_descriptors(&e) && waited < 1000 => {
                std::thread::sleep(std::time::Duration::from_millis(1));
                waited += 1;
            }
            r => return r,
        }
    }
}
