//! The terminal: whether a descriptor is one, and how wide it is.

use std::os::fd::BorrowedFd;

/// Whether `fd` refers to a terminal.
pub fn is_terminal(fd: BorrowedFd<'_>) -> bool {
    rustix::termios::isatty(fd)
}

/// The terminal's width in columns, if `fd` is a terminal that reports one
/// (`ls`'s columns when neither `-w` nor `COLUMNS` says).
pub fn terminal_width(fd: BorrowedFd<'_>) -> Option<usize> {
    rustix::termios::tcgetwinsize(fd)
        .ok()
        .map(|w| w.ws_col as usize)
        .filter(|&w| w > 0)
}
