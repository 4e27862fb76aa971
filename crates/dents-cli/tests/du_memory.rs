//! The memory of du's hard-link set (issue 29): what `dents du -s`
//! keeps for every inode with several links, measured as the peak
//! resident set against `dents du -sl` on the same tree (`-l` counts
//! every link and keeps no set).

use std::fs;
use std::path::Path;
use std::process::Command;

fn dents(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dents"));
    c.arg("du").args(args).current_dir(dir);
    c
}

/// 100,000 files with a second link each outside the tree walked: every
/// one is in the set, met once.  32 to 36 bytes an inode measured (a
/// 16-byte slot, the tables 76% full, and the nodes and places of the
/// directories); 46 to 55 with 24-byte slots, 84 when every such inode
/// had a 48-byte owner record during the walk, 114 when the records were
/// 64 bytes.
#[test]
fn hard_link_set_bytes_per_inode() {
    const DIRS: usize = 100;
    const FILES: usize = 1000;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for d in 0..DIRS {
        let (dir, shadow) = (root.join(format!("t/d{d}")), root.join(format!("s/d{d}")));
        fs::create_dir_all(&dir).unwrap();
        fs::create_dir_all(&shadow).unwrap();
        for i in 0..FILES {
            let f = dir.join(format!("f{i}"));
            fs::write(&f, b"").unwrap();
            fs::hard_link(&f, shadow.join(format!("f{i}"))).unwrap();
        }
    }
    let Some(with_set) = dents_testfs::peak_rss_kib(&dents(root, &["-s", "t"])) else {
        return;
    };
    let without = dents_testfs::peak_rss_kib(&dents(root, &["-sl", "t"])).unwrap();
    let per_inode = with_set.saturating_sub(without) * 1024 / (DIRS * FILES) as u64;
    eprintln!("peak RSS KiB: du -s {with_set}, du -sl {without}: {per_inode} bytes an inode");
    assert!(
        per_inode < 42,
        "{per_inode} bytes an inode in the hard-link set (du -s {with_set} KiB, du -sl {without} KiB)"
    );
}
