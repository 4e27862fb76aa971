//! User and group names for `-user`, `-group`, `-nouser`, `-nogroup`.
//!
//! Both directions go through the C library (`dents::sys`:
//! `getpwnam_r`, `getgrnam_r`, `getpwuid_r`, `getgrgid_r`), so every NSS
//! source counts, as with GNU find.

use std::collections::HashMap;
use std::ffi::CString;

use dents::sys;

/// The uid of the user `name` (a name with a NUL byte names no one).
pub fn uid_of(name: &[u8]) -> Option<u32> {
    sys::user_id(&CString::new(name).ok()?)
}

/// The gid of the group `name`.
pub fn gid_of(name: &[u8]) -> Option<u32> {
    sys::group_id(&CString::new(name).ok()?)
}

/// Remembers which ids have names, per thread (lookups are slow).
#[derive(Debug, Default)]
pub struct NameCache {
    users: HashMap<u32, bool>,
    groups: HashMap<u32, bool>,
}

impl NameCache {
    /// Whether the uid has a user name.
    pub fn user_known(&mut self, uid: u32) -> bool {
        *self
            .users
            .entry(uid)
            .or_insert_with(|| sys::user_name(uid).is_some())
    }

    /// Whether the gid has a group name.
    pub fn group_known(&mut self, gid: u32) -> bool {
        *self
            .groups
            .entry(gid)
            .or_insert_with(|| sys::group_name(gid).is_some())
    }
}
