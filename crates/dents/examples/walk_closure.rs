//! The closure form: the total size of the regular files under the
//! roots, and the largest of them, computed on the walk's worker threads
//! (the closure runs on all of them at once, so it adds to atomics and
//! takes a lock only for a new largest file).  Only regular files are
//! stat'ed, and only for their size.
//!
//! usage: walk_closure ROOT...

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use dents::{Flow, StatFields, Walker};

fn main() {
    let roots: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let total = AtomicU64::new(0);
    let files = AtomicU64::new(0);
    let largest = Mutex::new((0u64, PathBuf::new()));
    let stats = Walker::from_roots(if roots.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        roots
    })
    .stat_fields(StatFields::SIZE)
    .for_each(|entry| {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                eprintln!("walk_closure: {err}");
                return Flow::Continue;
            }
        };
        // The type comes from the directory entry: no stat for it.
        if !entry.file_type().is_file() {
            return Flow::Continue;
        }
        match entry.metadata() {
            Ok(meta) => {
                total.fetch_add(meta.len(), Ordering::Relaxed);
                files.fetch_add(1, Ordering::Relaxed);
                let mut big = largest.lock().unwrap();
                if meta.len() > big.0 {
                    *big = (meta.len(), entry.path().to_owned());
                }
            }
            Err(err) => eprintln!("walk_closure: {}: {err}", entry.path().display()),
        }
        Flow::Continue
    });
    let (size, path) = largest.into_inner().unwrap();
    println!(
        "{} files, {} bytes; largest: {} ({} bytes); {} directories read",
        files.into_inner(),
        total.into_inner(),
        path.display(),
        size,
        stats.dirs_read
    );
}
