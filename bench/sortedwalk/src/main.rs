//! One sorted walk of ROOT, every entry's path taken (its length summed,
//! so that nothing is optimised away), by the walker named:
//!
//! ```text
//! dents-sortedwalk dents|dents-visit|walkdir|jwalk ROOT
//! ```
//!
//! `dents`: the iterator of `Walker::sort_by_file_name` (walkdir's order);
//! `dents-visit`: the visitor form of `Walker::sort_by_name` (level order,
//! the order `dents scan` uses); `walkdir`: `WalkDir::sort_by_file_name`;
//! `jwalk`: `WalkDir::sort(true)` (its default threads).  Prints the
//! entries and the bytes of their paths.

use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicU64, Ordering};

use dents::walk::{Flow, Visit, Visitor, WalkError};

/// Counts visits and their paths' bytes.
#[derive(Default)]
struct Count {
    entries: AtomicU64,
    bytes: AtomicU64,
}

impl Visitor for Count {
    type State = (u64, u64);
    fn state(&self) -> (u64, u64) {
        (0, 0)
    }
    fn visit(&self, s: &mut (u64, u64), v: &Visit<'_>) -> Flow {
        s.0 += 1;
        s.1 += v.path().len() as u64;
        Flow::Continue
    }
    fn error(&self, _: &mut (u64, u64), e: &WalkError) {
        eprintln!("{e:?}");
    }
    fn finish(&self, s: (u64, u64)) {
        self.entries.fetch_add(s.0, Ordering::Relaxed);
        self.bytes.fetch_add(s.1, Ordering::Relaxed);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (mode, root) = match args.as_slice() {
        [_, m, r] => (m.as_str(), r.as_str()),
        _ => {
            eprintln!("usage: dents-sortedwalk dents|dents-visit|walkdir|jwalk ROOT");
            std::process::exit(2);
        }
    };
    let (mut n, mut bytes) = (0u64, 0u64);
    match mode {
        "dents" => {
            for e in dents::Walker::new(root).sort_by_file_name() {
                let e = e.expect("entry");
                n += 1;
                bytes += e.path_bytes().len() as u64;
            }
        }
        "dents-visit" => {
            let c = Count::default();
            dents::Walker::new(root).sort_by_name(true).visit(&c);
            n = c.entries.into_inner();
            bytes = c.bytes.into_inner();
        }
        "walkdir" => {
            for e in walkdir::WalkDir::new(root).sort_by_file_name() {
                let e = e.expect("entry");
                n += 1;
                bytes += e.path().as_os_str().as_bytes().len() as u64;
            }
        }
        "jwalk" => {
            for e in jwalk::WalkDir::new(root).sort(true) {
                let e = e.expect("entry");
                n += 1;
                bytes += e.path().as_os_str().as_bytes().len() as u64;
            }
        }
        _ => {
            eprintln!("dents-sortedwalk: unknown walker {mode}");
            std::process::exit(2);
        }
    }
    println!("{n} entries, {bytes} bytes of paths");
}
