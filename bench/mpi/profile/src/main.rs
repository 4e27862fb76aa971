//! Records a tree's profile for the scale simulation (bench/mpi/simulate.py).
//!
//! Walks ROOT depth first on one thread, with the dents library's reader,
//! and writes one line per directory, in preorder:
//!
//! ```text
//! parent  entries  subdirs  bytes  read_ns  stat_ns
//! ```
//!
//! `parent` is the preorder number of the parent directory (-1 for ROOT),
//! `entries` the entries other than `.` and `..`, `subdirs` how many of
//! them are directories, `bytes` the directory's `st_size` (what decides
//! whether dents reads it in slices), `read_ns` the time to open it and
//! read all its entries, `stat_ns` the time to `statx` every entry (what
//! `find -size`, `du` and `dwalk` do).  Each directory is measured PASSES
//! times (default 3) and the least time kept: the machine is shared, and
//! being preempted only ever adds time, so the least is the closest to
//! the work's own cost.
//!
//! One thread, on purpose: the simulation wants the cost of the work
//! itself, not of the contention between threads on this machine's two
//! cores; the simulator adds its own model of threads.
//!
//! usage: dents-tree-profile ROOT [PASSES] > PROFILE

use std::ffi::{CStr, CString};
use std::io::{self, BufWriter, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::Instant;

use dents::dir::DirReader;
use dents::StatFields;

/// What one directory holds and costs.
struct Record {
    parent: i64,
    entries: u64,
    subdirs: u64,
    bytes: u64,
    read_ns: u64,
    stat_ns: u64,
}

/// One directory's entries: names, and whether each is a directory.
struct Listing {
    names: Vec<CString>,
    is_dir: Vec<bool>,
}

/// Opens `name` in `parent` and reads all of it; the time it took.
fn read_listing(parent: BorrowedFd<'_>, name: &CStr) -> io::Result<(OwnedFd, Listing, u64)> {
    let start = Instant::now();
    let mut reader = DirReader::open_at(parent, name)?;
    let mut listing = Listing {
        names: Vec::new(),
        is_dir: Vec::new(),
    };
    while let Some(e) = reader.next_entry()? {
        listing.names.push(e.name_cstr().to_owned());
        listing.is_dir.push(e.file_type().is_dir());
    }
    let ns = start.elapsed().as_nanos() as u64;
    Ok((reader.into_fd(), listing, ns))
}

/// `statx`es every entry of `listing` in `dir`; the time it took.  An entry
/// of unknown type (no `d_type`) learns it here.
fn stat_all(dir: BorrowedFd<'_>, listing: &mut Listing) -> u64 {
    let start = Instant::now();
    for (name, is_dir) in listing.names.iter().zip(listing.is_dir.iter_mut()) {
        if let Ok(st) = dents::fs::stat_at(dir, name, StatFields::BASIC) {
            *is_dir |= st.is_dir();
        }
    }
    start.elapsed().as_nanos() as u64
}

/// Measures the directory `name` in `parent` and, depth first, every
/// directory below it, appending their records.
fn profile(
    parent: BorrowedFd<'_>,
    name: &CStr,
    parent_no: i64,
    passes: usize,
    out: &mut Vec<Record>,
) {
    let mut reads = Vec::with_capacity(passes);
    let mut stats = Vec::with_capacity(passes);
    let mut last = None;
    for _ in 0..passes {
        let (fd, mut listing, read_ns) = match read_listing(parent, name) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("dents-tree-profile: {}: {e}", name.to_string_lossy());
                return;
            }
        };
        stats.push(stat_all(fd.as_fd(), &mut listing));
        reads.push(read_ns);
        last = Some((fd, listing));
    }
    let (fd, listing) = last.expect("at least one pass");
    let bytes = dents::fs::fstat(fd.as_fd()).map_or(0, |s| s.len());
    let me = out.len() as i64;
    out.push(Record {
        parent: parent_no,
        entries: listing.names.len() as u64,
        subdirs: listing.is_dir.iter().filter(|&&d| d).count() as u64,
        bytes,
        read_ns: reads.into_iter().min().unwrap_or(0),
        stat_ns: stats.into_iter().min().unwrap_or(0),
    });
    for (child, &is_dir) in listing.names.iter().zip(&listing.is_dir) {
        if is_dir {
            profile(fd.as_fd(), child, me, passes, out);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !(2..=3).contains(&args.len()) {
        eprintln!("usage: dents-tree-profile ROOT [PASSES] > PROFILE");
        std::process::exit(2);
    }
    let passes: usize = args.get(2).map_or(3, |p| p.parse().expect("PASSES"));
    let root = CString::new(args[1].as_str()).expect("ROOT");
    let cwd = rustix::fs::CWD;
    let mut records = Vec::new();
    profile(cwd, &root, -1, passes.max(1), &mut records);
    let stdout = io::stdout();
    let mut w = BufWriter::new(stdout.lock());
    writeln!(w, "# dents-tree-profile {} passes={passes}", args[1]).unwrap();
    writeln!(w, "# parent\tentries\tsubdirs\tbytes\tread_ns\tstat_ns").unwrap();
    for r in &records {
        writeln!(
            w,
            "{}\t{}\t{}\t{}\t{}\t{}",
            r.parent, r.entries, r.subdirs, r.bytes, r.read_ns, r.stat_ns
        )
        .unwrap();
    }
    w.flush().unwrap();
}
