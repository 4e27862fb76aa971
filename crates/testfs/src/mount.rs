//! Mounts made by a test (as root): undone when the test ends, passed or
//! failed, so that no mount outlives it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A mount at a path, unmounted when dropped.
pub struct Mounted(PathBuf);

impl Mounted {
    /// Where it is mounted.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Runs `mount ARGS... AT` (e.g. `-t tmpfs tmpfs`, or `--bind DIR`),
/// panicking if it fails.
pub fn mount(args: &[&OsStr], at: &Path) -> Mounted {
    let st = Command::new("mount").args(args).arg(at).status().unwrap();
    assert!(st.success(), "mount {args:?} {at:?}");
    Mounted(at.to_path_buf())
}
