//! Wide trees: one directory holding many empty subdirectories, the shape
//! that queues the most directories at once in a walk (issue 29).

use std::path::Path;

use rustix::fs::Mode;

/// Creates `n` empty subdirectories in `dir` (created if missing), named
/// by `name(i)` for `i` in `0..n`: one `mkdirat` each, relative to the
/// open directory, so no path is resolved.
///
/// Panics on any error, including a name that already exists: a test
/// that thinks it made `n` directories has made exactly `n`.
pub fn fill_subdirs<N: AsRef<[u8]>>(dir: &Path, n: usize, name: impl Fn(usize) -> N) {
    crate::fill_each(dir, n, name, |dfd, c| {
        rustix::fs::mkdirat(dfd, c, Mode::from_raw_mode(0o755))
    })
}
