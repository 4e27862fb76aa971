//! The device a path lies on (`-x`, `-xdev` below work items).

use std::ffi::CString;

use dents::sys;
use rustix::fs::StatxFlags;

/// The device of the file at `path` (through a symlink if `follow`).
pub fn dev_of(path: &[u8], follow: bool) -> Option<u64> {
    let c = CString::new(path).ok()?;
    let st = if follow {
        sys::statx_follow_at(rustix::fs::CWD, &c, StatxFlags::TYPE)
    } else {
        sys::statx_at(rustix::fs::CWD, &c, StatxFlags::TYPE)
    }
    .ok()?;
    Some(sys::makedev(st.stx_dev_major, st.stx_dev_minor))
}
