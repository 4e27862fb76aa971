//! The scan primitive against a naive reference: lstat every entry.
//!
//! These run on the temporary directory's filesystem with every `d_type`
//! ignored (the forced mode), so that the no-type paths are exercised on
//! any machine; `scan_fs.rs` runs the same checks on a real
//! `mkfs.ext4 -O ^filetype` filesystem and on btrfs.

use std::collections::HashMap;
use std::ffi::CString;
use std::fs;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use dents::dir::{DirReader, FileType};
use dents::scan::{resolve_unknown, Counters, DirState, Kind, ResolveOptions, Unknown, Want};

/// Every entry of `dir` with its kind, the naive way: lstat each one.
fn reference(dir: &Path) -> HashMap<Vec<u8>, bool> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let is_dir = fs::symlink_metadata(e.path()).unwrap().is_dir();
            (e.file_name().as_bytes().to_vec(), is_dir)
        })
        .collect()
}

/// Scans `dir` with every type treated as unknown; returns name → kind.
fn scan_forced(
    dir: &Path,
    want: Want,
    in_flight: usize,
    counters: &Counters,
) -> HashMap<Vec<u8>, Kind> {
    let c = CString::new(dir.as_os_str().as_bytes()).unwrap();
    let mut reader = DirReader::open(&c).unwrap();
    let before = DirState::of(reader.fd()).unwrap();
    let mut names = Vec::new();
    while let Some(e) = reader.next_entry().unwrap() {
        names.push((e.name_cstr().to_owned(), e.ino()));
    }
    let mut unknown: Vec<Unknown<'_>> = names
        .iter()
        .map(|(n, ino)| Unknown {
            name: n,
            ino: *ino,
            kind: Kind::Unknown,
        })
        .collect();
    let fd = reader.fd();
    let opts = ResolveOptions { want, in_flight };
    resolve_unknown(fd.as_fd(), &before, 0, &mut unknown, opts, counters);
    unknown
        .iter()
        .map(|u| (u.name.to_bytes().to_vec(), u.kind))
        .collect()
}

/// A directory of every kind of entry.
fn mixed(root: &Path, files: usize) -> std::path::PathBuf {
    let d = root.join("mixed");
    fs::create_dir(&d).unwrap();
    for i in 0..files {
        fs::File::create(d.join(format!("f{i:06}.dat"))).unwrap();
    }
    for n in ["a", ".hid", "with.dot", "plain", "x"] {
        fs::create_dir(d.join(n)).unwrap();
    }
    fs::File::create(d.join("nodot")).unwrap();
    fs::File::create(d.join(".dotfile")).unwrap();
    symlink("a", d.join("link-to-dir")).unwrap();
    symlink("missing", d.join("dangling")).unwrap();
    let fifo = CString::new(d.join("fifo").as_os_str().as_bytes()).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let _sock = std::os::unix::net::UnixListener::bind(d.join("sock")).unwrap();
    d
}

/// Asserts that `got` classifies every entry as the reference does.
fn assert_matches(got: &HashMap<Vec<u8>, Kind>, want: &HashMap<Vec<u8>, bool>) {
    assert_eq!(got.len(), want.len());
    for (name, &is_dir) in want {
        let kind = got[name];
        assert_eq!(
            kind == Kind::Dir,
            is_dir,
            "{:?}: {kind:?}",
            String::from_utf8_lossy(name)
        );
        assert_ne!(
            kind,
            Kind::Unknown,
            "{:?} left unresolved",
            String::from_utf8_lossy(name)
        );
    }
}

#[test]
fn mixed_directory_matches_lstat_reference_through_the_link_count() {
    let tmp = tempfile::tempdir().unwrap();
    let d = mixed(tmp.path(), 3000);
    // Timestamps within the last second would force the fallback.
    std::thread::sleep(Duration::from_millis(2100));
    let want = reference(&d);
    for in_flight in [1, 4] {
        let counters = Counters::default();
        let got = scan_forced(&d, Want::DirOrNot, in_flight, &counters);
        assert_matches(&got, &want);
        let g = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
        assert_eq!(g(&counters.fallbacks), 0);
        // ".hid", then the dot-free names shortest first: "a", "x", then
        // "fifo", "sock", "nodot", "plain" ... ; "with.dot" is among the
        // 3000 dotted names: found in inode order, after all of them (it
        // was made after them), so nearly everything is stat'ed.  What
        // matters here is exactness; the spared stats are asserted below.
        assert_eq!(
            g(&counters.stats) + g(&counters.by_nlink),
            want.len() as u64
        );
    }
}

#[test]
fn link_count_spares_stats_when_the_subdirectories_look_like_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("photos");
    fs::create_dir(&d).unwrap();
    for i in 0..20_000 {
        fs::File::create(d.join(format!("IMG_{i:07}.JPG"))).unwrap();
    }
    fs::create_dir(d.join("thumbnails")).unwrap();
    std::thread::sleep(Duration::from_millis(2100));
    let counters = Counters::default();
    let got = scan_forced(&d, Want::DirOrNot, 4, &counters);
    assert_matches(&got, &reference(&d));
    assert_eq!(
        counters.stats.load(Ordering::Relaxed),
        1,
        "{}",
        counters.summary()
    );
    assert_eq!(counters.by_nlink.load(Ordering::Relaxed), 20_000);
}

#[test]
fn full_types_stat_every_unknown_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let d = mixed(tmp.path(), 500);
    let counters = Counters::default();
    let got = scan_forced(&d, Want::FullType, 4, &counters);
    assert_matches(&got, &reference(&d));
    assert_eq!(counters.stats.load(Ordering::Relaxed), got.len() as u64);
    assert_eq!(got[&b"fifo"[..]], Kind::NotDir(FileType::FIFO));
    assert_eq!(got[&b"sock"[..]], Kind::NotDir(FileType::SOCKET));
    assert_eq!(got[&b"link-to-dir"[..]], Kind::NotDir(FileType::SYMLINK));
}

#[test]
fn a_recently_changed_directory_is_fully_stated() {
    let tmp = tempfile::tempdir().unwrap();
    let d = mixed(tmp.path(), 100);
    // Just made: its mtime falls within the last second.
    let counters = Counters::default();
    let got = scan_forced(&d, Want::DirOrNot, 1, &counters);
    assert_matches(&got, &reference(&d));
    assert_eq!(counters.fallbacks.load(Ordering::Relaxed), 1);
    assert_eq!(counters.by_nlink.load(Ordering::Relaxed), 0);
}

#[test]
fn subdirectories_made_and_removed_during_scans_never_hide_a_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("busy");
    fs::create_dir(&d).unwrap();
    let stable_dirs: Vec<String> = (0..30).map(|i| format!("dir{i}")).collect();
    for n in &stable_dirs {
        fs::create_dir(d.join(n)).unwrap();
    }
    for i in 0..5000 {
        fs::File::create(d.join(format!("file{i}.txt"))).unwrap();
    }
    std::thread::sleep(Duration::from_millis(2100));
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let p = d.join(format!("churn{}", i % 50));
                let _ = fs::create_dir(&p);
                let _ = fs::remove_dir(d.join(format!("churn{}", (i + 25) % 50)));
                i += 1;
            }
        });
        let mut fallbacks = 0;
        for round in 0..40 {
            let counters = Counters::default();
            let got = scan_forced(&d, Want::DirOrNot, 1 + round % 4, &counters);
            for n in &stable_dirs {
                assert_eq!(
                    got.get(n.as_bytes()),
                    Some(&Kind::Dir),
                    "round {round}: {n}"
                );
            }
            for (name, kind) in &got {
                if name.starts_with(b"file") {
                    assert!(
                        matches!(kind, Kind::NotDir(_)),
                        "round {round}: {name:?} {kind:?}"
                    );
                }
            }
            fallbacks += counters.fallbacks.load(Ordering::Relaxed);
        }
        stop.store(true, Ordering::Relaxed);
        // The churn keeps the directory's times recent: the check must
        // have refused the link count.
        assert!(fallbacks > 0);
    });
}
