//! Extended attributes ls and find show: the ACL marker after a mode
//! (`+` or `.`) and the SELinux security context.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::sys;

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
    // Learnt once: a kernel without listxattrat answers ENOSYS every time.
    static NO_LISTXATTRAT: AtomicBool = AtomicBool::new(false);
    if !NO_LISTXATTRAT.load(Ordering::Relaxed) {
        match sys::listxattrat(dir, name, buf) {
            Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => {
                NO_LISTXATTRAT.store(true, Ordering::Relaxed);
            }
            r => return r,
        }
    }
    let path = proc_self_fd_path(dir, name);
    Ok(rustix::fs::llistxattr(path.as_c_str(), buf)?)
}

/// `/proc/self/fd/N/name`: a path for the calls that have no `*at` form.
fn proc_self_fd_path(dir: BorrowedFd<'_>, name: &CStr) -> CString {
    let mut p = format!("/proc/self/fd/{}/", dir.as_raw_fd()).into_bytes();
    p.extend_from_slice(name.to_bytes());
    CString::new(p).expect("a file name has no NUL byte")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_from_names() {
        assert_eq!(acl_marker_from_names(b""), b' ');
        assert_eq!(acl_marker_from_names(b"user.x\0"), b' ');
        assert_eq!(acl_marker_from_names(b"security.selinux\0"), b'.');
        assert_eq!(
            acl_marker_from_names(b"security.selinux\0system.posix_acl_access\0"),
            b'+'
        );
    }
}
