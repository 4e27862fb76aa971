//! The crate's only `unsafe` code: thin wrappers over the C library and the
//! few system calls rustix does not offer, each block with a `SAFETY:`
//! comment.  The modules above give these a safe, documented surface;
//! nothing here is public outside the crate except through them.
//!
//! The public `unsafe fn`s are defined here too (an `unsafe fn` is unsafe
//! code), and re-exported by the modules of their concern: they are sound
//! only while the process has one thread ([`use_environment_locale`],
//! [`use_time_locale`], [`tzset`], [`limit_malloc_arenas`]: the C library
//! documents `setlocale`, `tzset` and `mallopt` as unsafe beside other
//! threads).  [`with_time_zone`] is here because it calls `tzset`, after
//! checking that the process has one thread.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, Ordering};

// ---------------------------------------------------------------------
// Standard descriptors closed at start

/// The standard descriptors (bit `n` for descriptor `n`, 0 to 2) that were
/// closed when the process started.  Rust's runtime opens `/dev/null` on
/// a closed one before `main`, where a closed standard output can no
/// longer be told from one redirected there; this is learnt before that.
static CLOSED_AT_START: AtomicU8 = AtomicU8::new(0);

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
    CLOSED_AT_START.store(closed, Ordering::Relaxed);
}

/// Run by the C runtime before `main` (and so before Rust's runtime
/// fills closed standard descriptors).
// SAFETY: an `.init_array` entry must be a function taking no arguments
// it relies on and safe to run before `main`: this one makes one system
// call per descriptor and stores an atomic, needing nothing initialised.
#[used]
#[link_section = ".init_array"]
static NOTE_CLOSED_STD_FDS: extern "C" fn() = note_closed_std_fds;

/// The bit set noted before `main` (bit `n`: descriptor `n` was closed).
pub(crate) fn closed_std_fds() -> u8 {
    CLOSED_AT_START.load(Ordering::Relaxed)
}

// ---------------------------------------------------------------------
// Signals

/// Sets the disposition of SIGPIPE to the default (end the process).
pub(crate) fn default_sigpipe() {
    // SAFETY: setting the disposition of SIGPIPE to SIG_DFL is always
    // valid; no handler code is involved.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Sends SIGPIPE to the calling thread, as the kernel does when it
/// writes to a pipe without a reader: with the default action the process
/// ends before this returns; it returns if the signal is ignored or
/// blocked, or once a handler has run.
pub(crate) fn raise_sigpipe() {
    // SAFETY: raise(3) only sends a signal to the calling thread; it
    // touches no memory of ours.
    unsafe {
        libc::raise(libc::SIGPIPE);
    }
}

/// Whether SIGPIPE is ignored (or blocked) in this thread: raising it
/// would not end the process.
pub(crate) fn sigpipe_ignored() -> bool {
    // SAFETY: sigaction and pthread_sigmask only fill the zero-initialised
    // structures given; a null new action or mask changes nothing.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        let mut mask: libc::sigset_t = std::mem::zeroed();
        libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut old) != 0
            || old.sa_sigaction == libc::SIG_IGN
            || libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut mask) != 0
            || libc::sigismember(&mask, libc::SIGPIPE) == 1
    }
}

/// The flag [`clear_line_on_signals`] reads: a line to erase is on
/// standard error.
static CLEAR_LINE_FLAG: AtomicPtr<AtomicBool> = AtomicPtr::new(std::ptr::null_mut());

/// The handler of [`clear_line_on_signals`]: erases the line if the flag
/// says one is drawn, then dies of the signal as if unhandled.
extern "C" fn clear_line_and_die(sig: libc::c_int) {
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

/// Installs [`clear_line_and_die`] for `signals` whose action is the
/// default, reading `drawn` from the handler.  Calling again only changes
/// the flag.
pub(crate) fn clear_line_on_signals(drawn: &'static AtomicBool, signals: &[libc::c_int]) {
    let ptr = drawn as *const AtomicBool as *mut AtomicBool;
    if !CLEAR_LINE_FLAG.swap(ptr, Ordering::AcqRel).is_null() {
        return;
    }
    for &sig in signals {
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

// ---------------------------------------------------------------------
// Locale

/// `setlocale(category, "")`: adopts the environment's locale for
/// `category`.
///
/// # Safety
///
/// The process must have one thread: `setlocale` changes state every
/// locale-dependent C function reads, with no lock.
unsafe fn set_locale_from_environment(category: libc::c_int) {
    // SAFETY: a valid NUL-terminated string; the caller guarantees no
    // other thread runs (see above).
    unsafe {
        libc::setlocale(category, c"".as_ptr());
    }
}

/// Adopts the user's locale for every category (`setlocale(LC_ALL, "")`),
/// as `ls` does: collation, character set, time names, messages.
///
/// # Safety
///
/// Call it while the process has one thread (at the start of `main`): the
/// C library changes the locale without a lock, under every
/// locale-dependent function another thread might be running.
pub unsafe fn use_environment_locale() {
    // SAFETY: the caller guarantees one thread.
    unsafe { set_locale_from_environment(libc::LC_ALL) }
}

/// Adopts the user's locale for time formatting only (`LC_TIME`), so that
/// `strftime` names months as GNU find's do, while messages stay as they
/// are.
///
/// # Safety
///
/// As [`use_environment_locale`]: only while the process has one thread.
pub unsafe fn use_time_locale() {
    // SAFETY: the caller guarantees one thread.
    unsafe { set_locale_from_environment(libc::LC_TIME) }
}

/// The name of the current locale for `category`, if the C library
/// reports one.
pub(crate) fn locale_name(category: libc::c_int) -> Option<Vec<u8>> {
    // SAFETY: a NULL locale argument only queries; the returned string is
    // owned by the C library and copied before any other locale call.
    unsafe {
        let p = libc::setlocale(category, std::ptr::null());
        (!p.is_null()).then(|| CStr::from_ptr(p).to_bytes().to_vec())
    }
}

/// `strcoll(a, b)`.
pub(crate) fn strcoll(a: &CStr, b: &CStr) -> libc::c_int {
    // SAFETY: both pointers are valid NUL-terminated strings for the call;
    // strcoll only reads them.
    unsafe { libc::strcoll(a.as_ptr(), b.as_ptr()) }
}

/// `nl_langinfo(CODESET)`, copied.
pub(crate) fn codeset() -> Vec<u8> {
    // SAFETY: nl_langinfo returns a pointer to a static NUL-terminated
    // string (never NULL in glibc), copied at once.
    unsafe {
        let p = libc::nl_langinfo(libc::CODESET);
        if p.is_null() {
            Vec::new()
        } else {
            CStr::from_ptr(p).to_bytes().to_vec()
        }
    }
}

/// `nl_langinfo(item)`, copied (empty if the C library has nothing).
pub(crate) fn langinfo(item: libc::nl_item) -> Vec<u8> {
    // SAFETY: nl_langinfo returns a pointer to a NUL-terminated string
    // owned by the C library (never NULL in glibc, checked anyway),
    // copied at once, before any call that could change it.
    unsafe {
        let p = libc::nl_langinfo(item);
        if p.is_null() {
            Vec::new()
        } else {
            CStr::from_ptr(p).to_bytes().to_vec()
        }
    }
}

/// glibc's `GROUPING` (`_NL_ITEM (LC_NUMERIC, 2)`), which the libc crate
/// lacks: the sizes of the digit groups, as `localeconv`'s `grouping`.
pub(crate) const GROUPING: libc::nl_item = (libc::LC_NUMERIC << 16) | 2;

// Not in the libc crate for Linux; glibc's.
extern "C" {
    fn iswprint(c: libc::c_uint) -> libc::c_int;
    fn wcwidth(c: libc::wchar_t) -> libc::c_int;
}

/// `iswprint(c) != 0` and `wcwidth(c)`.
pub(crate) fn printable_and_width(c: char) -> (bool, libc::c_int) {
    // SAFETY: plain calls on a value; no pointers involved.
    unsafe {
        let w = c as libc::wchar_t;
        (iswprint(w as libc::c_uint) != 0, wcwidth(w))
    }
}

// ---------------------------------------------------------------------
// Users and groups

/// One reentrant lookup's outcome: the call's status, and what it found.
pub(crate) type NssAnswer<T> = (libc::c_int, Option<T>);

/// `getpwuid_r`: the user name of `uid`, with `buf` as scratch.
pub(crate) fn getpwuid_name(uid: u32, buf: &mut [u8]) -> NssAnswer<Vec<u8>> {
    // SAFETY: `passwd` is plain data that getpwuid_r fills; `buf` is a
    // live buffer of the length passed; `result` is a valid out pointer.
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: as above.
    let rc = unsafe {
        libc::getpwuid_r(
            uid,
            &mut pwd,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut result,
        )
    };
    // SAFETY: when a record was found, pw_name points to a NUL-terminated
    // string inside `buf`, which is still alive.
    let name = (rc == 0 && !result.is_null())
        .then(|| unsafe { CStr::from_ptr(pwd.pw_name) }.to_bytes().to_vec());
    (rc, name)
}

/// `getgrgid_r`: the group name of `gid`, with `buf` as scratch.
pub(crate) fn getgrgid_name(gid: u32, buf: &mut [u8]) -> NssAnswer<Vec<u8>> {
    // SAFETY: as in `getpwuid_name`, for the group database.
    let mut grp: libc::group = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::group = std::ptr::null_mut();
    // SAFETY: as in `getpwuid_name`.
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
}

/// `getpwnam_r`: the uid of the user `name`, with `buf` as scratch.
pub(crate) fn getpwnam_uid(name: &CStr, buf: &mut [u8]) -> NssAnswer<u32> {
    // SAFETY: `passwd` is plain data that getpwnam_r fills.
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: `name` is a NUL-terminated string; `buf` is a live buffer of
    // the length passed; `pwd` and `result` are valid out pointers.
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
}

/// `getgrnam_r`: the gid of the group `name`, with `buf` as scratch.
pub(crate) fn getgrnam_gid(name: &CStr, buf: &mut [u8]) -> NssAnswer<u32> {
    // SAFETY: `group` is plain data that getgrnam_r fills.
    let mut grp: libc::group = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::group = std::ptr::null_mut();
    // SAFETY: as in `getpwnam_uid`, for the group database.
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
}

// ---------------------------------------------------------------------
// Local time

/// `localtime_r(secs)`.
pub(crate) fn localtime(secs: i64) -> Option<libc::tm> {
    let t: libc::time_t = secs;
    // SAFETY: `tm` is plain data filled by localtime_r.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the duration of the call.
    let r = unsafe { libc::localtime_r(&t, &mut tm) };
    (!r.is_null()).then_some(tm)
}

/// `strftime(format, tm)` appended to `out` (nothing if the text would
/// exceed 512 bytes, as the C function returns 0 then).
pub(crate) fn strftime(out: &mut Vec<u8>, format: &CStr, tm: &libc::tm) {
    let mut buf = [0u8; 512];
    // SAFETY: `buf` is writable for its full length, `format` is
    // NUL-terminated and `tm` is a valid broken-down time (its `tm_zone`
    // from localtime_r, pointing to the C library's static zone names).
    let n = unsafe { libc::strftime(buf.as_mut_ptr().cast(), buf.len(), format.as_ptr(), tm) };
    out.extend_from_slice(&buf[..n]);
}

/// Calls `tzset` so that `localtime_r` sees the `TZ` variable as it is now.
///
/// # Safety
///
/// Call it while the process has one thread (at the start of `main`): it
/// rewrites the zone state under `localtime_r` and `strftime` on other
/// threads, and reads the environment, which another thread might change.
pub unsafe fn tzset() {
    extern "C" {
        fn tzset();
    }
    // SAFETY: tzset takes no arguments; the caller guarantees no other
    // thread runs.
    unsafe { tzset() }
}

/// Runs `f` with the local time zone set to `zone` (as `TZ=zone`), then
/// restores `TZ` as it was: find's dates of the form `TZ="ZONE" …`.
///
/// Changing the environment and the C library's zone is sound only while
/// no other thread runs, so this checks that the process has one thread
/// (from `/proc/self/task`; no thread can start beside the only one while
/// it runs this) and returns `None` without calling `f` if not, or if it
/// cannot tell.
pub fn with_time_zone<R>(zone: &std::ffi::OsStr, f: impl FnOnce() -> R) -> Option<R> {
    if !process_is_single_threaded() {
        return None;
    }
    let saved = std::env::var_os("TZ");
    std::env::set_var("TZ", zone);
    // SAFETY: one thread (checked above; this thread starts none).
    unsafe { tzset() };
    let r = f();
    match saved {
        Some(v) => std::env::set_var("TZ", v),
        None => std::env::remove_var("TZ"),
    }
    // SAFETY: as above.
    unsafe { tzset() };
    Some(r)
}

/// Whether this process has exactly one thread (the caller's).
fn process_is_single_threaded() -> bool {
    std::fs::read_dir("/proc/self/task").is_ok_and(|tasks| tasks.take(2).count() == 1)
}

// ---------------------------------------------------------------------
// Processes

/// `sysconf(_SC_ARG_MAX)`.
pub(crate) fn sysconf_arg_max() -> libc::c_long {
    // SAFETY: sysconf only reads its integer argument.
    unsafe { libc::sysconf(libc::_SC_ARG_MAX) }
}

/// Makes `cmd`'s child `fchdir` to `dir` between fork and exec; `cmd`
/// owns `dir` from then on.
pub(crate) fn fchdir_before_exec(cmd: &mut std::process::Command, dir: OwnedFd) {
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

/// Gives the C library's `malloc` memory that its arenas hold free back
/// to the system (glibc's `malloc_trim`): each thread's arena keeps what
/// it once held, so after threads each allocated and freed a lot at
/// different times the process's resident memory is the sum of their
/// peaks.  Costs a walk over the arenas' free lists: for after a large
/// allocation was freed, not for every free.  Does nothing where the C
/// library is not glibc.
pub fn trim_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes the arenas' own locks; it is safe to call
    // from any thread at any time, and 0 asks to keep no padding.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Lets the C library's `malloc` use at most `arenas` arenas (glibc's
/// `M_ARENA_MAX`).  glibc gives threads arenas of their own (up to eight
/// per core): each reserves 64 MiB of address space up front, which a
/// `ulimit -v` of a few tens of MiB cannot hold (allocations then fail
/// however little is in use), and keeps the memory it once held (for a
/// walk whose workers allocate little, such as du's, one arena keeps the
/// peak smaller at no measured cost).  Does nothing where the C library
/// is not glibc.
///
/// # Safety
///
/// Call it while the process has one thread: glibc documents `mallopt`
/// as unsafe beside other threads (it changes tunables that allocating
/// threads read).
pub unsafe fn limit_malloc_arenas(arenas: u32) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a malloc tunable; M_ARENA_MAX takes any
    // positive count; the caller guarantees no other thread runs.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, arenas.max(1) as libc::c_int);
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = arenas;
}

// ---------------------------------------------------------------------
// Extended attributes

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

/// `listxattrat(dir, name, AT_SYMLINK_NOFOLLOW, buf)`; `ENOSYS` where the
/// kernel or the architecture's table lacks it.
pub(crate) fn listxattrat(dir: BorrowedFd<'_>, name: &CStr, buf: &mut [u8]) -> io::Result<usize> {
    let Some(nr) = SYS_LISTXATTRAT else {
        return Err(io::Error::from_raw_os_error(libc::ENOSYS));
    };
    // SAFETY: listxattrat reads the NUL-terminated `name` and writes at
    // most `buf.len()` bytes into `buf`, both live for the call; `dir` is
    // a borrowed, open descriptor.
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
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

// ---------------------------------------------------------------------
// Memory exhaustion

/// Says "memory exhausted" and ends the process, allocating nothing.
fn exhausted() -> ! {
    let msg = b"dents: memory exhausted\n";
    // SAFETY: write(2) of a static buffer, then _exit: neither allocates
    // nor runs destructors that might.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), msg.len());
        libc::_exit(crate::alloc::EXHAUSTED_STATUS.load(Ordering::Relaxed))
    }
}

// SAFETY: every call is passed to the system allocator unchanged; only a
// null result (no memory) is turned into an exit.
unsafe impl std::alloc::GlobalAlloc for crate::alloc::ExitOnExhaustion {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on unchanged.
        let p = unsafe { std::alloc::System.alloc(layout) };
        if p.is_null() {
            exhausted();
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on unchanged.
        let p = unsafe { std::alloc::System.alloc_zeroed(layout) };
        if p.is_null() {
            exhausted();
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is passed on unchanged.
        let p = unsafe { std::alloc::System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            exhausted();
        }
        p
    }
}

// ---------------------------------------------------------------------
// Sockets

/// Calls `f` with each descriptor open in this process that is a socket
/// (listed in `/proc/self/fd`); `Err` if that directory cannot be read.
pub(crate) fn for_each_socket(mut f: impl FnMut(BorrowedFd<'_>)) -> std::io::Result<()> {
    for entry in std::fs::read_dir("/proc/self/fd")? {
        let Some(raw) = entry?
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<std::os::fd::RawFd>().ok())
        else {
            continue;
        };
        // SAFETY: `raw` was open when the directory was read.  Another
        // thread may close it (and the number be reused) before `f` is
        // done; the borrow is only handed to system calls, which then
        // fail with EBADF or act on the descriptor that took the number:
        // `f` checks what it is given before changing it.
        let fd = unsafe { BorrowedFd::borrow_raw(raw) };
        if rustix::fs::fstat(fd).is_ok_and(|st| {
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Socket
        }) {
            f(fd);
        }
    }
    Ok(())
}
