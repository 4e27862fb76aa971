//! The device a path lies on (`-x`, `-xdev` below work items).

use std::ffi::CString;

use dents::StatFields;

/// The device of the file at `path` (through a symlink if `follow`).
pub fn dev_of(path: &[u8], follow: bool) -> Option<u64> {
    let c = CString::new(path).ok()?;
    let st = if follow {
        dents::fs::stat_follow_at(rustix::fs::CWD, &c, StatFields::TYPE)
    } else {
        dents::fs::stat_at(rustix::fs::CWD, &c, StatFields::TYPE)
    }
    .ok()?;
    Some(st.dev())
}
