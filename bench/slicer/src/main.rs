//! The read side of `dents ls` at a forced number of slices.
//!
//! `dents ls -jN` only slices directories of at least
//! `DEFAULT_MIN_SLICED_SIZE` bytes; to find where slicing starts to pay,
//! this program reads DIR with the library's `read_dir` and that minimum
//! set to 0, so THREADS >= 2 slices any ext4 or XFS directory.  Each slice
//! counts its entries and name bytes; the totals are printed at the end.
//!
//! usage: dents-slicer DIR THREADS

use std::ffi::CString;
use std::os::fd::{AsFd, BorrowedFd};

use dents::dir::{DirReader, RawEntry};
use dents::slice::{read_dir, EntrySink, ReadOptions};

#[derive(Default)]
struct Count {
    entries: u64,
    name_bytes: u64,
}

impl EntrySink for Count {
    fn entry(&mut self, _dir: BorrowedFd<'_>, entry: &RawEntry<'_>) {
        self.entries += 1;
        self.name_bytes += entry.name().len() as u64;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: dents-slicer DIR THREADS");
        std::process::exit(2);
    }
    let threads: usize = args[2].parse().expect("THREADS");
    let path = CString::new(args[1].as_str()).expect("DIR");
    let dir = match DirReader::open(&path) {
        Ok(d) => d.into_fd(),
        Err(e) => {
            eprintln!("dents-slicer: {}: {e}", args[1]);
            std::process::exit(1);
        }
    };
    let opts = ReadOptions::new().threads(threads).min_sliced_size(0);
    let out = read_dir(dir.as_fd(), &opts, |_| Count::default());
    for e in &out.errors {
        eprintln!("dents-slicer: {}: {e}", args[1]);
    }
    let entries: u64 = out.sinks.iter().map(|s| s.entries).sum();
    let bytes: u64 = out.sinks.iter().map(|s| s.name_bytes).sum();
    println!("{entries} entries, {bytes} name bytes, plan {:?}", out.plan);
    if !out.errors.is_empty() {
        std::process::exit(1);
    }
}
