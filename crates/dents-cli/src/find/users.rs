//! User and group names for `-user`, `-group`, `-nouser`, `-nogroup`.
//!
//! Ids to names go through the C library (`dents::sys`), so every NSS
//! source counts.  Names to ids are read from `/etc/passwd` and
//! `/etc/group` here, with safe std calls only: `sys` has no `getpwnam`
//! wrapper yet, and only `sys` may hold `unsafe`.  (A name known only to
//! another NSS source, LDAP say, is taken for unknown; a number still
//! works.)

use std::collections::HashMap;

use dents::sys;

/// The id of the entry named `name` in a colon-separated database file
/// (`name:password:id:...`).
fn lookup(file: &str, name: &[u8]) -> Option<u32> {
    let data = std::fs::read(file).ok()?;
    data.split(|&b| b == b'\n').find_map(|line| {
        let mut fields = line.split(|&b| b == b':');
        if fields.next()? != name {
            return None;
        }
        let id = fields.nth(1)?;
        std::str::from_utf8(id).ok()?.parse().ok()
    })
}

/// The uid of the user `name`.
pub fn uid_of(name: &[u8]) -> Option<u32> {
    lookup("/etc/passwd", name)
}

/// The gid of the group `name`.
pub fn gid_of(name: &[u8]) -> Option<u32> {
    lookup("/etc/group", name)
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
