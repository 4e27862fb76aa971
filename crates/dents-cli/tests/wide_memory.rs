//! The memory of a wide tree's walk (issue 29): one directory holding
//! hundreds of thousands of empty subdirectories.  What a subdirectory
//! costs is measured as the peak resident set's growth from 200,000
//! subdirectories to 400,000, so that what does not grow with them
//! (threads, buffers, the binary) cancels.  The walk hands them to its
//! queue as it reads them and reads some itself when the queue is long,
//! so nothing should grow with them.

use std::path::Path;
use std::process::Command;

/// Subdirectories of the smaller tree; the larger has twice as many.
const STEP: usize = 200_000;

fn dents(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dents"));
    c.args(args).current_dir(dir);
    c
}

/// Bytes a subdirectory for each command of `cmds`, from the peak
/// resident set on `STEP` and on `2 * STEP` subdirectories of `w` (in
/// `/dev/shm` where there is one: a disk would make the test slow, not
/// different); `None` if it cannot be measured (skipped loudly).
fn bytes_per_dir(cmds: &[&[&str]]) -> Option<Vec<u64>> {
    let tmp = dents_testfs::DeepTmp::new();
    let root = tmp.path();
    let name = |i: usize| format!("d{i:07}");
    dents_testfs::fill_subdirs(&root.join("w"), STEP, name);
    let mut small = Vec::new();
    for args in cmds {
        small.push(dents_testfs::peak_rss_kib(&dents(root, args))?);
    }
    dents_testfs::fill_subdirs(&root.join("w"), STEP, |i| name(STEP + i));
    let mut per_dir = Vec::new();
    for (args, small) in cmds.iter().zip(small) {
        let big = dents_testfs::peak_rss_kib(&dents(root, args))?;
        let bytes = big.saturating_sub(small) * 1024 / STEP as u64;
        eprintln!("{args:?}: peak RSS {small} KiB, then {big} KiB: {bytes} bytes a directory");
        per_dir.push(bytes);
    }
    Some(per_dir)
}

/// `find -false` and `find -name x` keep nothing per directory: what
/// they cost is the walk's queue.  256 to 258 bytes a directory measured
/// when a queued directory was a 208-byte allocation, its name a 32-byte
/// one, and its queue slot; 126 to 127 with the queued part in one
/// allocation of 96 bytes (short names inside it); 0 since the queue is
/// bounded (a directory's subdirectories handed over in chunks as it is
/// read, `walk/read.rs`).
#[test]
fn find_bytes_per_subdirectory() {
    let Some(per_dir) = bytes_per_dir(&[&["find", "w", "-false"], &["find", "w", "-name", "x"]])
    else {
        return;
    };
    for bytes in per_dir {
        assert!(bytes < 16, "{bytes} bytes a directory");
    }
}

/// `du -s` keeps, besides the queue, each directory's running sum until
/// the directory is done.  456 bytes a directory measured with the old
/// queued directory; 327 with the light one (the sums: about 200); 0 to
/// 2 with the bounded queue, which bounds the directories begun and not
/// done too.
#[test]
fn du_bytes_per_subdirectory() {
    let Some(per_dir) = bytes_per_dir(&[&["du", "-s", "w"]]) else {
        return;
    };
    assert!(per_dir[0] < 16, "{} bytes a directory", per_dir[0]);
}

/// `find -s` (the sorted walk, level by level) must hold each directory's
/// sorted listing to visit it in order (its names and 16 bytes an
/// entry), and its queue spills past a few thousand directories; a wide
/// directory's subdirectories are queued a chunk at a time as it is
/// visited.  149 bytes a directory measured when they were all made as
/// nodes before the queue spilled them (the listing and a node each);
/// 37 since.
#[test]
fn sorted_find_bytes_per_subdirectory() {
    let Some(per_dir) = bytes_per_dir(&[&["find", "-s", "w", "-false"]]) else {
        return;
    };
    assert!(per_dir[0] < 90, "{} bytes a directory", per_dir[0]);
}
