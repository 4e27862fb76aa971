//! The syscall layer: the only module with `unsafe`.
//!
//! Everything above this module works with safe types: [`OwnedFd`], byte
//! slices and plain structs.  Most calls go through [`rustix`], which is
//! already safe; the few things rustix does not expose (a raw `getdents64`
//! into a caller's buffer, the C library's user database and time
//! formatting, the SIGPIPE disposition) are wrapped here, each `unsafe`
//! block with a `SAFETY:` comment.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};

use rustix::fs::{AtFlags, Mode, OFlags, SeekFrom, StatxFlags};

pub use rustix::fs::Statx;

/// `statfs.f_type` of ext2, ext3 and ext4 (they share one magic number).
pub const EXT4_SUPER_MAGIC: u64 = 0xEF53;
/// `statfs.f_type` of XFS.
pub const XFS_SUPER_MAGIC: u64 = 0x5846_5342;
/// `statfs.f_type` of btrfs.
pub const BTRFS_SUPER_MAGIC: u64 = 0x9123_683E;
/// `statfs.f_type` of tmpfs.
pub const TMPFS_MAGIC: u64 = 0x0102_1994;

/// ext4's inode flag for a hash-indexed (htree) directory, `EXT4_INDEX_FL`.
const EXT4_INDEX_FL: u32 = 0x1000;

/// Reads directory entries of `fd` into `buf` with one `getdents64` call.
///
/// Returns the number of bytes the kernel wrote, 0 at the end of the
/// directory.  `EINVAL` means `buf` cannot hold the next entry.
pub fn getdents64(fd: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: getdents64 writes at most `buf.len()` bytes into `buf`, which
    // is a live, exclusively borrowed allocation of that length; the fd is
    // borrowed, so it stays open for the duration of the call.
    let n = unsafe {
        libc::syscall(
            libc::SYS_getdents64,
            fd.as_raw_fd(),
            buf.as_mut_ptr(),
            buf.len(),
        )
    };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// The name of the `linux_dirent64` record `rec` (exactly one record,
/// `d_reclen` bytes), found without scanning it whole.
///
/// The kernel writes `d_name` followed by one NUL and pads the record to a
/// multiple of 8 bytes, so the terminator lies in the record's last 8
/// bytes, and no name byte is NUL: the first NUL in that window ends the
/// name.  (`CStr::from_bytes_until_nul` would scan the name from its start,
/// once per entry of every directory.)
///
/// Panics if the record holds no NUL where one must be.  The record must
/// come from `getdents64` (see [`getdents64`]).
pub fn dirent_name(rec: &[u8]) -> &CStr {
    const NAME: usize = 19;
    let window = rec.len().saturating_sub(8).max(NAME);
    let nul = rec[window..]
        .iter()
        .position(|&b| b == 0)
        .map(|i| window + i)
        .expect("the kernel NUL-terminates every d_name");
    debug_assert!(!rec[NAME..window].contains(&0), "a NUL inside d_name");
    // SAFETY: `rec[NAME..=nul]` ends with the NUL at `nul`; the bytes
    // before it in the window are not NUL (`position` found the first),
    // and those before the window are name bytes, which the kernel never
    // makes NUL (a file name cannot hold one).  So it is one C string.
    unsafe { CStr::from_bytes_with_nul_unchecked(&rec[NAME..=nul]) }
}

/// Flags every directory open uses: read-only, must be a directory,
/// close-on-exec.
fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC
}

/// Opens the directory `name` relative to `parent` without following a
/// symlink in the last component (`O_NOFOLLOW`).
pub fn open_dir_at(parent: BorrowedFd<'_>, name: &CStr) -> io::Result<OwnedFd> {
    Ok(rustix::fs::openat(
        parent,
        name,
        dir_flags() | OFlags::NOFOLLOW,
        Mode::empty(),
    )?)
}

/// Opens the directory `name` relative to `parent`, following a symlink
/// in `name` (`find -L`).
pub fn open_dir_follow_at(parent: BorrowedFd<'_>, name: &CStr) -> io::Result<OwnedFd> {
    Ok(rustix::fs::openat(
        parent,
        name,
        dir_flags(),
        Mode::empty(),
    )?)
}

/// A device number from its major and minor parts, encoded as `st_dev`.
pub fn makedev(major: u32, minor: u32) -> u64 {
    rustix::fs::makedev(major, minor)
}

/// The soft limit on open descriptors (`RLIMIT_NOFILE`).
pub fn nofile_limit() -> u64 {
    rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .unwrap_or(1024)
}

/// Opens a directory named by a path, following symlinks as command-line
/// arguments are followed.
pub fn open_dir_path(path: &CStr) -> io::Result<OwnedFd> {
    Ok(rustix::fs::openat(
        rustix::fs::CWD,
        path,
        dir_flags(),
        Mode::empty(),
    )?)
}

/// Opens a second, independent open file description of the directory
/// `fd` (its own offset), as `openat(fd, ".")`.
pub fn reopen_dir(fd: BorrowedFd<'_>) -> io::Result<OwnedFd> {
    Ok(rustix::fs::openat(fd, c".", dir_flags(), Mode::empty())?)
}

/// Sets the directory offset of `fd` to the cookie `pos`.
pub fn seek_dir(fd: BorrowedFd<'_>, pos: u64) -> io::Result<()> {
    rustix::fs::seek(fd, SeekFrom::Start(pos))?;
    Ok(())
}

/// The filesystem type (`statfs.f_type`) of the filesystem holding `fd`.
pub fn fs_magic(fd: BorrowedFd<'_>) -> io::Result<u64> {
    Ok(rustix::fs::fstatfs(fd)?.f_type as u64)
}

/// Whether an ext2/3/4 directory is hash-indexed (its offsets are hash
/// cookies rather than byte positions).
pub fn ext4_dir_is_indexed(fd: BorrowedFd<'_>) -> io::Result<bool> {
    let flags = rustix::fs::ioctl_getflags(fd)?;
    Ok(flags.bits() & EXT4_INDEX_FL != 0)
}

/// `fstat` of an open file.
pub fn fstat(fd: BorrowedFd<'_>) -> io::Result<rustix::fs::Stat> {
    Ok(rustix::fs::fstat(fd)?)
}

/// `statx` of `name` relative to the directory `dir`, not following a
/// final symlink, asking only for `mask`.
pub fn statx_at(dir: BorrowedFd<'_>, name: &CStr, mask: StatxFlags) -> io::Result<Statx> {
    Ok(rustix::fs::statx(
        dir,
        name,
        AtFlags::SYMLINK_NOFOLLOW,
        mask,
    )?)
}

/// `statx` of `name` relative to `dir`, following symlinks.
pub fn statx_follow_at(dir: BorrowedFd<'_>, name: &CStr, mask: StatxFlags) -> io::Result<Statx> {
    Ok(rustix::fs::statx(dir, name, AtFlags::empty(), mask)?)
}

/// The target of the symlink `name` relative to `dir`, as bytes.
pub fn readlink_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<Vec<u8>> {
    Ok(rustix::fs::readlinkat(dir, name, Vec::new())?.into_bytes())
}

/// Whether the file `name` in `dir` carries extended attributes that make
/// GNU `ls -l` print `+` (a POSIX ACL) or `.` (a security context) after
/// the mode.
///
/// Returns `Ok(None)` when the filesystem has no extended attributes at all.
/// Uses `listxattrat` (Linux 6.13) relative to `dir`, one call per file;
/// on older kernels, `llistxattr` on a `/proc/self/fd` path.
pub fn acl_marker_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<Option<u8>> {
    // Most files have no attributes or a few short ones: try a stack
    // buffer first.
    let mut small = [0u8; 512];
    let mut big = Vec::new();
    let mut size = small.len();
    loop {
        let buf: &mut [u8] = if size == small.len() {
            &mut small
        } else {
            &mut big
        };
        match list_xattrs_at(dir, name, buf) {
            Ok(n) => return Ok(Some(acl_marker_from_names(&buf[..n]))),
            Err(e) if e.raw_os_error() == Some(libc::ENOTSUP) => return Ok(None),
            Err(e) if e.raw_os_error() == Some(libc::ERANGE) && size < 1 << 20 => {
                size *= 16;
                big.resize(size, 0);
            }
            Err(e) => return Err(e),
        }
    }
}

/// `listxattrat` where the kernel has it, else `llistxattr` through /proc.
fn list_xattrs_at(dir: BorrowedFd<'_>, name: &CStr, buf: &mut [u8]) -> io::Result<usize> {
    use std::sync::atomic::{AtomicBool, Ordering};
    static NO_LISTXATTRAT: AtomicBool = AtomicBool::new(false);
    if let (Some(nr), false) = (SYS_LISTXATTRAT, NO_LISTXATTRAT.load(Ordering::Relaxed)) {
        // SAFETY: listxattrat reads the NUL-terminated `name` and writes at
        // most `buf.len()` bytes into `buf`, both live for the call; `dir`
        // is a borrowed, open descriptor.
        let n = unsafe {
            libc::syscall(
                nr,
                dir.as_raw_fd(),
                name.as_ptr(),
                libc::AT_SYMLINK_NOFOLLOW as libc::c_uint,
                buf.as_mut_ptr(),
                buf.len(),
            )
        };
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::ENOSYS) {
            return Err(e);
        }
        NO_LISTXATTRAT.store(true, Ordering::Relaxed);
    }
    let path = proc_self_fd_path(dir, name);
    Ok(rustix::fs::llistxattr(path.as_c_str(), buf)?)
}

/// The `listxattrat` system call number (Linux 6.13, the unified table).
#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "loongarch64"
))]
const SYS_LISTXATTRAT: Option<libc::c_long> = Some(465);
#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "loongarch64"
)))]
const SYS_LISTXATTRAT: Option<libc::c_long> = None;

/// `/proc/self/fd/N/name`: a path for the calls that have no `*at` form.
fn proc_self_fd_path(dir: BorrowedFd<'_>, name: &CStr) -> std::ffi::CString {
    let mut p = format!("/proc/self/fd/{}/", dir.as_raw_fd()).into_bytes();
    p.extend_from_slice(name.to_bytes());
    std::ffi::CString::new(p).expect("a file name has no NUL byte")
}

/// Maps a NUL-separated list of xattr names to GNU ls's marker.
fn acl_marker_from_names(names: &[u8]) -> u8 {
    let mut marker = b' ';
    for n in names.split(|&b| b == 0) {
        match n {
            b"system.posix_acl_access" | b"system.posix_acl_default" => return b'+',
            b"security.selinux" => marker = b'.',
            _ => {}
        }
    }
    marker
}

/// Whether `fd` refers to a terminal.
pub fn is_terminal(fd: BorrowedFd<'_>) -> bool {
    rustix::termios::isatty(fd)
}

/// The terminal's width in columns, if `fd` is a terminal that reports one.
pub fn terminal_width(fd: BorrowedFd<'_>) -> Option<usize> {
    rustix::termios::tcgetwinsize(fd)
        .ok()
        .map(|w| w.ws_col as usize)
        .filter(|&w| w > 0)
}

/// The standard descriptors (bit `n` for descriptor `n`, 0 to 2) that were
/// closed when the process started.  Rust's runtime opens `/dev/null` on
/// a closed one before `main`, where a closed standard output can no
/// longer be told from one redirected there; this is learnt before that.
static CLOSED_AT_START: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Notes which standard descriptors are closed; runs before `main`.
extern "C" fn note_closed_std_fds() {
    let mut closed = 0u8;
    for fd in 0..3 {
        // SAFETY: F_GETFD only reads the descriptor's flags; it touches no
        // memory of ours and is valid for any descriptor number.
        let rc = unsafe { libc::fcntl(fd, libc::F_GETFD) };
        if rc == -1 && io::Error::last_os_error().raw_os_error() == Some(libc::EBADF) {
            closed |= 1 << fd;
        }
    }
    CLOSED_AT_START.store(closed, std::sync::atomic::Ordering::Relaxed);
}

/// Run by the C runtime before `main` (and so before Rust's runtime
/// fills closed standard descriptors).
// SAFETY: an `.init_array` entry must be a function taking no arguments
// it relies on and safe to run before `main`: this one makes one system
// call per descriptor and stores an atomic, needing nothing initialised.
#[used]
#[link_section = ".init_array"]
static NOTE_CLOSED_STD_FDS: extern "C" fn() = note_closed_std_fds;

/// Whether standard descriptor `fd` (0, 1 or 2) was closed when the
/// process started (it is now open on `/dev/null`).
pub fn closed_at_start(fd: u8) -> bool {
    fd < 3 && CLOSED_AT_START.load(std::sync::atomic::Ordering::Relaxed) & (1 << fd) != 0
}

/// Restores the default SIGPIPE action, so that writing to a closed pipe
/// ends the process at once and quietly, as it ends `ls` and `find`.
pub fn default_sigpipe() {
    // SAFETY: setting the disposition of SIGPIPE to SIG_DFL is always
    // valid; no handler code is involved.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The flag [`clear_line_on_fatal_signals`] reads: a line to erase is
/// on standard error.
static CLEAR_LINE_FLAG: std::sync::atomic::AtomicPtr<std::sync::atomic::AtomicBool> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

/// The handler of [`clear_line_on_fatal_signals`]: erases the line if the
/// flag says one is drawn, then dies of the signal as if unhandled.
extern "C" fn clear_line_and_die(sig: libc::c_int) {
    use std::sync::atomic::Ordering;
    let flag = CLEAR_LINE_FLAG.load(Ordering::Acquire);
    // SAFETY: the pointer is null or comes from a `&'static AtomicBool`.
    if !flag.is_null() && unsafe { &*flag }.load(Ordering::Relaxed) {
        let clear = b"\r\x1b[K";
        // SAFETY: write(2) is async-signal-safe; the buffer is valid for
        // its length.  A failed write cannot be reported from here.
        unsafe {
            libc::write(2, clear.as_ptr().cast(), clear.len());
        }
    }
    // SAFETY: signal(2) and raise(3) are async-signal-safe; with the
    // default action restored, the process ends as the signal demands.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// On `SIGINT`, `SIGTERM`, `SIGHUP`, `SIGQUIT` and `SIGPIPE`, first
/// erases the current line of standard error if `drawn` is set (a status
/// line is on the screen), then dies of the signal as before.  Signals
/// that are ignored (a `nohup`, a background job) stay ignored; calling
/// again only changes the flag.
pub fn clear_line_on_fatal_signals(drawn: &'static std::sync::atomic::AtomicBool) {
    use std::sync::atomic::Ordering;
    let ptr = drawn as *const std::sync::atomic::AtomicBool as *mut std::sync::atomic::AtomicBool;
    if !CLEAR_LINE_FLAG.swap(ptr, Ordering::AcqRel).is_null() {
        return;
    }
    for sig in [
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGPIPE,
    ] {
        // SAFETY: sigaction is given valid, zero-initialised structures;
        // the handler only calls async-signal-safe functions.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                || old.sa_sigaction != libc::SIG_DFL
            {
                continue;
            }
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = clear_line_and_die as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut act.sa_mask);
            act.sa_flags = libc::SA_RESTART;
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
}

/// Adopts the user's locale for time formatting (`LC_TIME`), as ls does.
pub fn use_environment_locale() {
    // SAFETY: called with a valid NUL-terminated string; setlocale is
    // called before any thread that formats times is started.
    unsafe {
        libc::setlocale(libc::LC_ALL, c"".as_ptr());
    }
}

/// Adopts the user's locale for time formatting only (`LC_TIME`), so that
/// `strftime` names months as GNU find's do, while messages stay as they
/// are.
pub fn use_time_locale() {
    // SAFETY: called with a valid NUL-terminated string, before any thread
    // that formats times is started.
    unsafe {
        libc::setlocale(libc::LC_TIME, c"".as_ptr());
    }
}

/// The SELinux security context of `name` in `dir` (the
/// `security.selinux` attribute, as `getfilecon` reads it), following a
/// final symlink if `follow`; without its terminating NUL.
pub fn security_context_at(dir: BorrowedFd<'_>, name: &CStr, follow: bool) -> io::Result<Vec<u8>> {
    let path = if dir.as_raw_fd() == libc::AT_FDCWD {
        name.to_owned()
    } else {
        proc_self_fd_path(dir, name)
    };
    let mut buf = vec![0u8; 256];
    loop {
        let r = if follow {
            rustix::fs::getxattr(path.as_c_str(), c"security.selinux", &mut buf[..])
        } else {
            rustix::fs::lgetxattr(path.as_c_str(), c"security.selinux", &mut buf[..])
        };
        match r {
            Ok(n) => {
                buf.truncate(n);
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                return Ok(buf);
            }
            Err(rustix::io::Errno::RANGE) if buf.len() < 1 << 16 => {
                let len = buf.len() * 4;
                buf.resize(len, 0);
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Runs one reentrant user or group database lookup (`get{pw,gr}*_r`)
/// with a scratch buffer, growing the buffer while the call answers
/// `ERANGE` (a record too large for it), up to 1 MiB.  `call` gets the
/// buffer and returns the call's status and what it found; a failure or
/// no such entry is `None`.
fn nss_lookup<T>(mut call: impl FnMut(&mut [u8]) -> (libc::c_int, Option<T>)) -> Option<T> {
    let mut buf = vec![0u8; 1024];
    loop {
        let (rc, found) = call(&mut buf);
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 4, 0);
            continue;
        }
        return if rc == 0 { found } else { None };
    }
}

/// The user name of `uid`, if the user database has one.
pub fn user_name(uid: u32) -> Option<Vec<u8>> {
    nss_lookup(|buf| {
        // SAFETY: `passwd` is plain data that getpwuid_r fills; `buf` is a
        // live buffer of the length passed; `result` is a valid out pointer.
        let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        let rc = unsafe {
            libc::getpwuid_r(
                uid,
                &mut pwd,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut result,
            )
        };
        // SAFETY: when a record was found, pw_name points to a
        // NUL-terminated string inside `buf`, which is still alive.
        let name = (rc == 0 && !result.is_null())
            .then(|| unsafe { CStr::from_ptr(pwd.pw_name) }.to_bytes().to_vec());
        (rc, name)
    })
}

/// The group name of `gid`, if the group database has one.
pub fn group_name(gid: u32) -> Option<Vec<u8>> {
    nss_lookup(|buf| {
        // SAFETY: as in `user_name`, for the group database.
        let mut grp: libc::group = unsafe { std::mem::zeroed() };
        let mut result: *mut libc::group = std::ptr::null_mut();
        let rc = unsafe {
            libc::getgrgid_r(
                gid,
                &mut grp,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut result,
            )
        };
        // SAFETY: when a record was found, gr_name points into `buf`, still
        // alive.
        let name = (rc == 0 && !result.is_null())
            .then(|| unsafe { CStr::from_ptr(grp.gr_name) }.to_bytes().to_vec());
        (rc, name)
    })
}

/// The uid of the user named `name`, if the user database (any NSS
/// source: files, LDAP, systemd...) knows one.
pub fn user_id(name: &CStr) -> Option<u32> {
    nss_lookup(|buf| {
        // SAFETY: `passwd` is plain data that getpwnam_r fills; `name` is a
        // NUL-terminated string; `buf` is a live buffer of the length
        // passed; `result` is a valid out pointer.
        let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        let rc = unsafe {
            libc::getpwnam_r(
                name.as_ptr(),
                &mut pwd,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut result,
            )
        };
        (rc, (!result.is_null()).then_some(pwd.pw_uid))
    })
}

/// The gid of the group named `name`, if the group database knows one.
pub fn group_id(name: &CStr) -> Option<u32> {
    nss_lookup(|buf| {
        // SAFETY: as in `user_id`, for the group database.
        let mut grp: libc::group = unsafe { std::mem::zeroed() };
        let mut result: *mut libc::group = std::ptr::null_mut();
        let rc = unsafe {
            libc::getgrnam_r(
                name.as_ptr(),
                &mut grp,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut result,
            )
        };
        (rc, (!result.is_null()).then_some(grp.gr_gid))
    })
}

/// `sysconf(_SC_ARG_MAX)`: the bytes of arguments and environment a new
/// program may be given; `None` if the system sets no limit.
pub fn arg_max() -> Option<usize> {
    // SAFETY: sysconf only reads its integer argument.
    let v = unsafe { libc::sysconf(libc::_SC_ARG_MAX) };
    (v > 0).then_some(v as usize)
}

/// Makes `cmd`'s child change to the directory `dir` (`fchdir`) between
/// fork and exec, so that it runs in the very directory `dir` was opened
/// on, whatever has been renamed or replaced by a symlink along its path
/// since.  `cmd` owns `dir` from then on, so it is open whenever the child
/// is spawned (a close-on-exec descriptor stays open until the `exec`).
pub fn chdir_in_child(cmd: &mut std::process::Command, dir: OwnedFd) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec; it only
    // calls fchdir, which is async-signal-safe, and allocates nothing on
    // success (an error is built from the errno, without allocating).
    // The descriptor is owned by the closure, which `cmd` keeps as long as
    // it can spawn, so the number is not reused for another file.
    unsafe {
        cmd.pre_exec(move || {
            if libc::fchdir(dir.as_raw_fd()) == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        });
    }
}

/// Broken-down local time of a Unix timestamp, as `localtime_r` gives it.
pub fn local_time(secs: i64) -> Option<libc::tm> {
    let t: libc::time_t = secs;
    // SAFETY: `tm` is plain data filled by localtime_r; both pointers are
    // valid for the duration of the call.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::localtime_r(&t, &mut tm) };
    if r.is_null() {
        None
    } else {
        Some(tm)
    }
}

/// Formats `tm` with the C library's `strftime` and appends the bytes to
/// `out`.
pub fn strftime(out: &mut Vec<u8>, format: &CStr, tm: &libc::tm) {
    let mut buf = [0u8; 512];
    // SAFETY: `buf` is writable for its full length, `format` is
    // NUL-terminated and `tm` is a valid broken-down time.
    let n = unsafe { libc::strftime(buf.as_mut_ptr().cast(), buf.len(), format.as_ptr(), tm) };
    out.extend_from_slice(&buf[..n]);
}

/// Calls `tzset` so that `localtime_r` sees the `TZ` variable.
pub fn tzset() {
    extern "C" {
        fn tzset();
    }
    // SAFETY: tzset takes no arguments and only reads the environment.
    unsafe { tzset() }
}

/// The current time as seconds and nanoseconds since the Unix epoch.
pub fn now() -> (i64, u32) {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::Realtime);
    (ts.tv_sec, ts.tv_nsec as u32)
}

/// Limits the C library's malloc to `n` arenas (glibc's `M_ARENA_MAX`),
/// before threads start.  glibc gives threads arenas of their own (up to
/// eight per core) and each keeps the memory it once held: for a walk
/// whose workers allocate little (du: a path and a sum per directory),
/// one arena keeps the peak smaller at no measured cost.  Does nothing
/// where the C library is not glibc.
pub fn limit_malloc_arenas(n: i32) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a malloc tunable; it is called before
    // the process starts other threads.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, n);
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = n;
}
