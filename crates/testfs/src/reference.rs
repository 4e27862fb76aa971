//! Plain reference walks, built on `std::fs` alone, for the tests that
//! check a fast walk's order byte for byte.

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A sorted walk's paths: `root`, then breadth first each directory's
/// entries sorted by their bytes, subdirectories (not symlinks to them)
/// walked in that order.
pub fn sorted_breadth_first(root: &Path) -> Vec<Vec<u8>> {
    let mut out = vec![root.as_os_str().as_bytes().to_vec()];
    let mut queue = VecDeque::from([root.to_path_buf()]);
    while let Some(d) = queue.pop_front() {
        let mut names: Vec<Vec<u8>> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().as_bytes().to_vec())
            .collect();
        names.sort();
        for n in names {
            let p = d.join(OsStr::from_bytes(&n));
            out.push(p.as_os_str().as_bytes().to_vec());
            if fs::symlink_metadata(&p).unwrap().is_dir() {
                queue.push_back(p);
            }
        }
    }
    out
}
