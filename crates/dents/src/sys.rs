//! The syscall layer: the only module with `unsafe`.
//!
//! Everything above this module works with safe types: [`OwnedFd`], byte
//! slices and plain structs.  Most calls go through [`rustix`], which is
//! already safe; what rustix does not expose (a raw `getdents64` into a
//! caller's buffer, and a record's name read without a second scan) is
//! wrapped here, each `unsafe` block with a `SAFETY:` comment.  What the command-line tools need from the OS beyond
//! directories (terminal, signals, locale, users, local time, extended
//! attributes) is the `dents-os` crate's.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

use rustix::fs::{AtFlags, Mode, OFlags, SeekFrom, StatxFlags};

pub use rustix::fs::Statx;

/// `statfs.f_type` of ext2, ext3 and ext4 (they share one magic number).
pub const EXT4_SUPER_MAGIC: u64 = 0xEF53;
/// `statfs.f_type` of XFS.
pub const XFS_SUPER_MAGIC: u64 = 0x5846_5342;
/// `statfs.f_type` of btrfs.
pub const BTRFS_SUPER_MAGIC: u64 = 0x9123_683E;

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
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    assert!(rec.len() > NAME, "a dirent record holds a name");
    // The last 8 bytes as one word (the record is at least 20 bytes), the
    // header's bytes among them made non-zero; its first zero byte is
    // found with a few arithmetic instructions instead of a byte loop
    // (the lowest byte flagged by `(x - 0x01..) & !x & 0x80..` is always
    // a zero byte: a borrow only flags bytes above one).
    let end = rec.len() - 8;
    let mut word = [0u8; 8];
    word.copy_from_slice(&rec[end..]);
    let header = NAME.saturating_sub(end);
    let x = u64::from_le_bytes(word) | ((1u64 << (8 * header)) - 1);
    let zeros = x.wrapping_sub(ONES) & !x & HIGHS;
    assert!(zeros != 0, "the kernel NUL-terminates every d_name");
    let nul = end + (zeros.trailing_zeros() / 8) as usize;
    let window = end.max(NAME);
    debug_assert!(!rec[NAME..window].contains(&0), "a NUL inside d_name");
    // SAFETY: `rec[NAME..=nul]` ends with the NUL at `nul`; the bytes
    // before it in the window are not NUL (`nul` is the first zero byte
    // of the window, header bytes masked),
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

/// Duplicates `fd` at `n - 1` or above and closes the copy, so that the
/// descriptor table holds descriptors numbered below `n`; nothing if the
/// limit forbids it (see [`crate::descriptors::grow_descriptor_table`]).
pub fn reserve_descriptors(fd: BorrowedFd<'_>, n: usize) {
    let Ok(min) = i32::try_from(n.saturating_sub(1)) else {
        return;
    };
    drop(rustix::io::fcntl_dupfd_cloexec(fd, min));
}

/// Opens a directory named by a path, following symlinks as command-line
/// arguments are followed.  A path the kernel refuses as too long (over
/// `PATH_MAX`: a work item deep in a tree, say) is opened in steps
/// ([`open_parent_in_steps`]).
pub fn open_dir_path(path: &CStr) -> io::Result<OwnedFd> {
    match rustix::fs::openat(rustix::fs::CWD, path, dir_flags(), Mode::empty()) {
        Err(rustix::io::Errno::NAMETOOLONG) => {
            let (parent, name) = open_parent_in_steps(path.to_bytes())?;
            open_dir_follow_at(parent.as_fd(), &name)
        }
        r => Ok(r?),
    }
}

/// Bytes of a path resolved by one `openat` of [`open_parent_in_steps`]:
/// well below `PATH_MAX` (4096).
const PATH_STEP: usize = 2048;

/// For a path too long for one system call: its parent directory, opened
/// `O_PATH` a few components at a time (each step relative to the last,
/// symlinks on the way followed as the kernel follows them in a whole
/// path), and its last component, to be stat'ed or opened relative to it.
pub fn open_parent_in_steps(path: &[u8]) -> io::Result<(OwnedFd, CString)> {
    let too_long = || io::Error::from_raw_os_error(libc::ENAMETOOLONG);
    let trimmed = match path.iter().rposition(|&c| c != b'/') {
        Some(end) => &path[..=end],
        None => return Err(too_long()),
    };
    let split = trimmed
        .iter()
        .rposition(|&c| c == b'/')
        .ok_or_else(too_long)?;
    let (parent, name) = (&trimmed[..split.max(1)], &trimmed[split + 1..]);
    let name = CString::new(name).map_err(|_| io::Error::from_raw_os_error(libc::ENOENT))?;
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut at: Option<OwnedFd> = None;
    let mut rest = parent;
    while !rest.is_empty() {
        // Cut after a component, as near PATH_STEP as the names allow.
        let cut = if rest.len() <= PATH_STEP {
            rest.len()
        } else {
            match rest[..PATH_STEP].iter().rposition(|&c| c == b'/') {
                Some(0) | None => rest
                    .iter()
                    .skip(1)
                    .position(|&c| c == b'/')
                    .map_or(rest.len(), |i| i + 1),
                Some(i) => i,
            }
        };
        let step =
            CString::new(&rest[..cut]).map_err(|_| io::Error::from_raw_os_error(libc::ENOENT))?;
        let from = at.as_ref().map_or(rustix::fs::CWD, |fd| fd.as_fd());
        at = Some(rustix::fs::openat(from, &step, flags, Mode::empty())?);
        rest = &rest[cut..];
        while let [b'/', tail @ ..] = rest {
            rest = tail;
        }
    }
    Ok((at.ok_or_else(too_long)?, name))
}

/// The canonical path of the directory `path` (symlinks resolved), as the
/// kernel names it once opened: one `readlink` of its `/proc/self/fd`
/// link, where `realpath` reads every component.  Fails where `/proc` is
/// not mounted, or the name is longer than `PATH_MAX`.
pub fn canonical_dir(path: &[u8]) -> io::Result<Vec<u8>> {
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let fd = match rustix::fs::openat(rustix::fs::CWD, path, flags, Mode::empty()) {
        Err(rustix::io::Errno::NAMETOOLONG) => {
            let (parent, name) = open_parent_in_steps(path)?;
            rustix::fs::openat(parent, &name, flags, Mode::empty())?
        }
        r => r?,
    };
    let link = format!("/proc/self/fd/{}", fd.as_raw_fd());
    Ok(rustix::fs::readlinkat(rustix::fs::CWD, link.as_str(), Vec::new())?.into_bytes())
}

/// Opens a second, independent open file description of the directory
/// `fd` (its own offset), as `openat(fd, ".")`.
///
/// `"."` is looked up inside the directory, which needs search
/// permission: a directory that may be read but not searched (mode `r--`
/// for the caller) refuses it, though its entries can be listed.  Then
/// the descriptor's `/proc/self/fd` link is opened instead, which checks
/// only the read permission the first open already passed.
pub fn reopen_dir(fd: BorrowedFd<'_>) -> io::Result<OwnedFd> {
    match rustix::fs::openat(fd, c".", dir_flags(), Mode::empty()) {
        Err(rustix::io::Errno::ACCESS) => {
            let link = format!("/proc/self/fd/{}", fd.as_raw_fd());
            Ok(
                rustix::fs::openat(rustix::fs::CWD, link.as_str(), dir_flags(), Mode::empty())
                    // Without /proc the first refusal is the one to report.
                    .map_err(|_| rustix::io::Errno::ACCESS)?,
            )
        }
        r => Ok(r?),
    }
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

/// `statx` of the open file `fd` itself (`AT_EMPTY_PATH`).
pub fn statx_fd(fd: BorrowedFd<'_>, mask: StatxFlags) -> io::Result<Statx> {
    Ok(rustix::fs::statx(fd, c"", AtFlags::EMPTY_PATH, mask)?)
}

/// The target of the symlink `name` relative to `dir`, as bytes.
pub fn readlink_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<Vec<u8>> {
    Ok(rustix::fs::readlinkat(dir, name, Vec::new())?.into_bytes())
}

/// The cores this process may run on, learnt once: asking costs about a
/// dozen system calls (the cgroup's CPU quota, the affinity mask), and
/// every [`WalkOptions::default`](crate::walk::WalkOptions::default) and
/// [`ReadOptions::default`](crate::slice::ReadOptions::default) asks.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The current time as seconds and nanoseconds since the Unix epoch.
pub fn now() -> (i64, u32) {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::Realtime);
    (ts.tv_sec, ts.tv_nsec as u32)
}

/// Blocks the calling thread has read from block devices so far
/// (`getrusage(RUSAGE_THREAD)`'s `ru_inblock`, in 512-byte units): what
/// tells a wait on the disk from a thread that was only kept off its core
/// (see `note_disk_wait` in `walk/open.rs`).  0 where it cannot be read.
pub fn blocks_read_by_thread() -> u64 {
    // SAFETY: an all-zero `rusage` is a valid value of the plain C
    // struct, and getrusage writes only into the one we pass, exclusively
    // borrowed for the call.
    let (rc, usage) = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        let rc = libc::getrusage(libc::RUSAGE_THREAD, &mut usage);
        (rc, usage)
    };
    if rc == 0 {
        usage.ru_inblock.max(0) as u64
    } else {
        0
    }
}

/// Whether the device number `dev` (`st_dev`) is anonymous (major 0): a
/// filesystem with no block device of its own (NFS, SMB, FUSE, btrfs,
/// tmpfs, overlayfs), whose reads [`blocks_read_by_thread`] does not
/// count.
pub fn is_anonymous_device(dev: u64) -> bool {
    rustix::fs::major(dev) == 0
}

/// The soft limit on the address space (`RLIMIT_AS`, `ulimit -v`) in
/// bytes, if there is one.
pub fn address_space_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::As).current
}

#[cfg(test)]
mod tests {
    use super::dirent_name;

    /// Records as `getdents64` lays them out, for every name length: the
    /// header with a zero `d_type` and a zero high byte of `d_reclen`
    /// (bytes the word search must not take for the terminator), the
    /// name, its NUL, and padding left non-zero (the kernel does not
    /// clear it).
    #[test]
    fn dirent_name_finds_the_terminator_for_every_length() {
        for len in 1..=255usize {
            let reclen = (19 + len + 1).div_ceil(8) * 8;
            let mut rec = vec![0xAAu8; reclen];
            rec[..16].fill(0);
            rec[16..18].copy_from_slice(&(reclen as u16).to_ne_bytes());
            rec[18] = 0;
            let name: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            rec[19..19 + len].copy_from_slice(&name);
            rec[19 + len] = 0;
            assert_eq!(dirent_name(&rec).to_bytes(), name, "name of {len} bytes");
        }
    }
}
