//! The syscall floor of a directory walk: what the kernel costs alone.
//!
//! One thread, depth first, `openat` relative to the parent's descriptor,
//! `getdents64` into one buffer, `d_type` only, nothing printed but the
//! number of entries at the end.  Every scanner's time is compared with
//! this program's on the same tree.
//!
//! usage: dents-floor DIR [BUFFER_BYTES]

use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd};

use rustix::fs::{openat, FileType, Mode, OFlags, RawDir, CWD};

fn walk(dir: BorrowedFd<'_>, buf: &mut Vec<MaybeUninit<u8>>, count: &mut u64) {
    let mut subdirs = Vec::new();
    let mut entries = RawDir::new(dir, buf.as_mut_slice());
    while let Some(Ok(e)) = entries.next() {
        let name = e.file_name();
        if matches!(name.to_bytes(), b"." | b"..") {
            continue;
        }
        *count += 1;
        if e.file_type() == FileType::Directory {
            subdirs.push(name.to_owned());
        }
    }
    for name in subdirs {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        if let Ok(fd) = openat(dir, name.as_c_str(), flags, Mode::empty()) {
            walk(fd.as_fd(), buf, count);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let root = args.get(1).map_or(".", String::as_str);
    let size: usize = args
        .get(2)
        .map_or(64 * 1024, |s| s.parse().expect("buffer size"));
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let fd = match openat(CWD, root, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(e) => {
            eprintln!("dents-floor: {root}: {e}");
            std::process::exit(1);
        }
    };
    let mut buf = vec![MaybeUninit::uninit(); size];
    let mut count = 0;
    walk(fd.as_fd(), &mut buf, &mut count);
    println!("{count}");
}
