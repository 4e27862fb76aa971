//! The process: limits, and running a child in a directory held open.

use std::os::fd::OwnedFd;

use crate::sys;

pub use crate::sys::{limit_malloc_arenas, trim_malloc};

/// `sysconf(_SC_ARG_MAX)`: the bytes of arguments and environment a new
/// program may be given; `None` if the system sets no limit.
pub fn arg_max() -> Option<usize> {
    let v = sys::sysconf_arg_max();
    (v > 0).then_some(v as usize)
}

/// Makes `cmd`'s child change to the directory `dir` (`fchdir`) between
/// fork and exec, so that it runs in the very directory `dir` was opened
/// on, whatever has been renamed or replaced by a symlink along its path
/// since.  `cmd` owns `dir` from then on, so it is open whenever the child
/// is spawned (a close-on-exec descriptor stays open until the `exec`).
pub fn chdir_in_child(cmd: &mut std::process::Command, dir: OwnedFd) {
    sys::fchdir_before_exec(cmd, dir);
}

/// The soft limit on the address space (`RLIMIT_AS`, `ulimit -v`) in
/// bytes, if there is one.
pub fn address_space_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::As).current
}
