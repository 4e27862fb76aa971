//! Wide trees: one directory holding many empty subdirectories, the shape
//! that queues the most directories at once in a walk (issue 29).

use std::ffi::CString;
use std::fs;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

/// Creates `n` empty subdirectories in `dir` (created if missing), named
/// by `name(i)` for `i` in `0..n`: one `mkdirat` each, relative to the
/// open directory, so no path is resolved.
///
/// Panics on any error, including a name that already exists: a test
/// that thinks it made `n` directories has made exactly `n`.
pub fn fill_subdirs<N: AsRef<[u8]>>(dir: &Path, n: usize, name: impl Fn(usize) -> N) {
    fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let dfd = rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for i in 0..n {
        let name = name(i);
        let c = CString::new(name.as_ref()).expect("a file name has no NUL byte");
        if let Err(e) = rustix::fs::mkdirat(&dfd, &c, Mode::from_raw_mode(0o755)) {
            panic!(
                "creating {} in {}: {e}",
                String::from_utf8_lossy(name.as_ref()),
                dir.display()
            );
        }
    }
}
