//! What `-printf` and `-ls` look up once per thread and keep: user and
//! group names, formatted times, filesystem types, a scratch buffer.
//! Shared by [`printf`](crate::printf) and [`lsfmt`](crate::lsfmt),
//! below both.

use super::datefmt::Clock;
use super::fstype;
use super::users::IdNames;

/// One thread's caches for `-printf` formats and `-ls` lines.
#[derive(Debug, Default)]
pub struct Cache {
    /// User names.
    pub users: IdNames,
    /// Group names.
    pub groups: IdNames,
    /// Formatted times.
    pub clock: Clock,
    /// Filesystem types.
    pub fs: fstype::Cache,
    /// A directive's text before it is cut, padded or quoted.
    pub scratch: Vec<u8>,
}
