//! The user and group databases (any NSS source: files, LDAP, systemd…),
//! through the C library's reentrant lookups.

use std::ffi::CStr;

use crate::sys::{self, NssAnswer};

/// Runs one reentrant lookup with a scratch buffer, growing the buffer
/// while the call answers `ERANGE` (a record too large for it), up to
/// 1 MiB, and calling again while it finds no descriptor free to open the
/// database with (`EMFILE`, `ENFILE`: other threads, `ls -R`'s workers,
/// give theirs back soon), up to about a second, as the walker's opens
/// wait (`dents::fs::retry_emfile`).  A failure or no such entry is `None`.
fn nss_lookup<T>(mut call: impl FnMut(&mut [u8]) -> NssAnswer<T>) -> Option<T> {
    let mut buf = vec![0u8; 1024];
    let mut waited = 0;
    loop {
        let (rc, found) = call(&mut buf);
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 4, 0);
        } else if matches!(rc, libc::EMFILE | libc::ENFILE) && waited < 1000 {
            std::thread::sleep(std::time::Duration::from_millis(1));
            waited += 1;
        } else {
            return if rc == 0 { found } else { None };
        }
    }
}

/// The user name of `uid`, if the user database has one.
pub fn user_name(uid: u32) -> Option<Vec<u8>> {
    nss_lookup(|buf| sys::getpwuid_name(uid, buf))
}

/// The group name of `gid`, if the group database has one.
pub fn group_name(gid: u32) -> Option<Vec<u8>> {
    nss_lookup(|buf| sys::getgrgid_name(gid, buf))
}

/// The uid of the user named `name`, if the user database knows one.
pub fn user_id(name: &CStr) -> Option<u32> {
    nss_lookup(|buf| sys::getpwnam_uid(name, buf))
}

/// The gid of the group named `name`, if the group database knows one.
pub fn group_id(name: &CStr) -> Option<u32> {
    nss_lookup(|buf| sys::getgrnam_gid(name, buf))
}
