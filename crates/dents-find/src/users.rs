//! User and group names for `-user`, `-group`, `-nouser`, `-nogroup`.
//!
//! Both directions go through the C library (`dents_os`:
//! `getpwnam_r`, `getgrnam_r`, `getpwuid_r`, `getgrgid_r`), so every NSS
//! source counts, as with GNU find.

use std::collections::HashMap;
use std::ffi::CString;

/// The uid of the user `name` (a name with a NUL byte names no one).
pub fn uid_of(name: &[u8]) -> Option<u32> {
    dents_os::user_id(&CString::new(name).ok()?)
}

/// The gid of the group `name`.
pub fn gid_of(name: &[u8]) -> Option<u32> {
    dents_os::group_id(&CString::new(name).ok()?)
}

/// The names of ids, looked up once per thread (lookups are slow):
/// `-nouser`, `-nogroup`, `-printf`'s `%u %g`, `-ls`.
#[derive(Debug, Default)]
pub struct IdNames(HashMap<u32, Option<Box<[u8]>>>);

impl IdNames {
    /// The name of `id` (`None` if the database has none), `lookup`
    /// being [`dents_os::user_name`] or [`dents_os::group_name`].
    pub fn get(&mut self, id: u32, lookup: fn(u32) -> Option<Vec<u8>>) -> Option<&[u8]> {
        self.0
            .entry(id)
            .or_insert_with(|| lookup(id).map(Vec::into_boxed_slice))
            .as_deref()
    }
}
