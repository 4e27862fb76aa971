//! The `getdents64` reader on every test filesystem: `.` and `..` only
//! from `next_raw`, buffers too small for one entry grow, names come back
//! byte for byte, inode numbers and types agree with `lstat`, offsets can
//! be returned to.  The reference is glibc's `readdir` (`std::fs::read_dir`)
//! or the names the test made itself.
//!
//! Without root or the mkfs tools these tests print `SKIPPED` and pass;
//! under CI they fail (see `dents_testfs`).

use std::ffi::{CString, OsStr};
use std::fs;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use dents::dir::DirReader;
use dents::FileType;
use dents_testfs::{awkward_names, fill_flat, FsKind, LoopFs};

/// The largest `linux_dirent64` record: 19 header bytes, a 255-byte name
/// and its NUL, rounded up to 8.
const LARGEST_RECORD: usize = 280;

/// The reader's growth limit (dir.rs's `MAX_BUFFER_SIZE`).
const MAX_BUFFER: usize = 1 << 20;

fn open(dir: &Path) -> OwnedFd {
    dents::fs::open_dir(&CString::new(dir.as_os_str().as_bytes()).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// glibc's readdir (through std), names sorted as bytes.
fn reference(dir: &Path) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().as_bytes().to_vec())
        .collect();
    v.sort();
    v
}

/// Sorts `names` and asserts that none was reported twice.
fn sorted_unique(mut names: Vec<Vec<u8>>, what: &str) -> Vec<Vec<u8>> {
    names.sort();
    let before = names.len();
    names.dedup();
    assert_eq!(names.len(), before, "{what}: names reported twice");
    names
}

/// Runs `test` on a fresh filesystem of every kind (skipping, loudly, the
/// kinds this machine cannot make).
fn on_every_fs(test: impl Fn(&LoopFs)) {
    for kind in FsKind::ALL {
        if let Some(fs) = LoopFs::new_or_skip(kind, 64) {
            test(&fs);
        }
    }
}

/// Plain names for filler entries.
fn name(i: usize) -> String {
    format!("file{i:05}")
}

#[test]
fn dot_and_dotdot_come_only_from_next_raw() {
    on_every_fs(|fs| {
        let kind = fs.kind();
        // 300 entries outgrow one block: ext4 indexes the directory.
        for n in [0, 1, 300] {
            let d = fs.path().join(format!("d{n}"));
            fill_flat(&d, n, name);
            let what = format!("{kind:?}, {n} entries");

            let mut r = DirReader::new(open(&d));
            let mut raw = Vec::new();
            while let Some(e) = r.next_raw().unwrap() {
                raw.push((e.name().to_vec(), e.ino()));
            }
            let dots: Vec<_> = raw.iter().filter(|(n, _)| n == b".").collect();
            let dotdots: Vec<_> = raw.iter().filter(|(n, _)| n == b"..").collect();
            assert_eq!(dots.len(), 1, "{what}: {dots:?}");
            assert_eq!(dotdots.len(), 1, "{what}: {dotdots:?}");
            assert_eq!(dots[0].1, fs::metadata(&d).unwrap().ino(), "{what}: . ino");
            assert_eq!(
                dotdots[0].1,
                fs::metadata(fs.path()).unwrap().ino(),
                "{what}: .. ino"
            );
            assert_eq!(raw.len(), n + 2, "{what}");

            let mut r = DirReader::new(open(&d));
            let mut names = Vec::new();
            while let Some(e) = r.next_entry().unwrap() {
                assert!(
                    !e.is_dot_or_dotdot(),
                    "{what}: next_entry gave {:?}",
                    e.name()
                );
                names.push(e.name().to_vec());
            }
            assert_eq!(sorted_unique(names, &what), reference(&d), "{what}");

            let mut r = DirReader::new(open(&d));
            let mut names = Vec::new();
            while let Some((_, e)) = r.next_with_fd().unwrap() {
                assert!(
                    !e.is_dot_or_dotdot(),
                    "{what}: next_with_fd gave {:?}",
                    e.name()
                );
                names.push(e.name().to_vec());
            }
            assert_eq!(sorted_unique(names, &what), reference(&d), "{what}");
            // At the end it stays at the end.
            assert!(r.next_entry().unwrap().is_none());
            assert!(r.next_raw().unwrap().is_none());
        }
    });
}

#[test]
fn a_buffer_too_small_for_one_entry_grows_and_yields_every_entry() {
    on_every_fs(|fs| {
        let kind = fs.kind();
        let d = fs.path().join("mixed");
        let awkward = awkward_names();
        fill_flat(&d, awkward.len(), |i| awkward[i].clone());
        fill_flat(&d, 500, name);
        let want = reference(&d);
        assert_eq!(want.len(), awkward.len() + 500);
        // 1: nothing fits; 24: only the shortest records fit, so the
        // buffer grows in the middle of the directory, at a long name;
        // 279: one byte short of the largest record.
        for size in [1, 24, 100, LARGEST_RECORD - 1, LARGEST_RECORD, 4096] {
            let what = format!("{kind:?}, buffer of {size}");
            let mut r = DirReader::with_buffer_size(open(&d), size);
            let mut names = Vec::new();
            while let Some(e) = r.next_entry().unwrap() {
                names.push(e.name().to_vec());
            }
            assert_eq!(sorted_unique(names, &what), want, "{what}");
            // The 255-byte names had to fit, and growth stays bounded.
            assert!(
                r.buffer_size() >= LARGEST_RECORD,
                "{what}: {}",
                r.buffer_size()
            );
            assert!(r.buffer_size() <= MAX_BUFFER.max(size), "{what}");
            if size >= LARGEST_RECORD {
                assert_eq!(r.buffer_size(), size, "{what}: grew needlessly");
            }
        }
    });
}

#[test]
fn awkward_names_come_back_byte_exact() {
    on_every_fs(|fs| {
        let kind = fs.kind();
        let d = fs.path().join("awkward");
        let made = awkward_names();
        fill_flat(&d, made.len(), |i| made[i].clone());
        let mut r = DirReader::new(open(&d));
        let mut names = Vec::new();
        while let Some(e) = r.next_entry().unwrap() {
            assert_eq!(e.name_cstr().to_bytes(), e.name());
            // Each name works as a name again, relative to the directory.
            let m = fs::symlink_metadata(d.join(OsStr::from_bytes(e.name()))).unwrap();
            assert_eq!(m.ino(), e.ino(), "{kind:?} {:?}", e.name());
            names.push(e.name().to_vec());
        }
        let mut want = made.clone();
        want.sort();
        assert_eq!(sorted_unique(names, "awkward"), want, "{kind:?}");
        assert_eq!(reference(&d), want, "{kind:?}: reference");
    });
}

#[test]
fn inode_numbers_and_types_agree_with_lstat() {
    on_every_fs(|fs| {
        let kind = fs.kind();
        let d = fs.path().join("kinds");
        fs::create_dir(&d).unwrap();
        fs::write(d.join("file"), b"x").unwrap();
        fs::hard_link(d.join("file"), d.join("hardlink")).unwrap();
        fs::create_dir(d.join("subdir")).unwrap();
        std::os::unix::fs::symlink("file", d.join("symlink")).unwrap();
        std::os::unix::fs::symlink("nowhere", d.join("dangling")).unwrap();
        let fifo = CString::new(d.join("fifo").as_os_str().as_bytes()).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            fifo.as_c_str(),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        let _socket = std::os::unix::net::UnixListener::bind(d.join("socket")).unwrap();
        let mut r = DirReader::new(open(&d));
        let mut seen = 0;
        while let Some(e) = r.next_entry().unwrap() {
            let m = fs::symlink_metadata(d.join(OsStr::from_bytes(e.name()))).unwrap();
            let what = format!("{kind:?} {:?}", String::from_utf8_lossy(e.name()));
            assert_eq!(e.ino(), m.ino(), "{what}");
            if kind == FsKind::Ext4NoFiletype {
                // Without the filetype feature ext4 stores no types.
                assert!(e.file_type().is_unknown(), "{what}: {:?}", e.file_type());
            } else {
                assert_eq!(e.file_type(), FileType::from_mode(m.mode()), "{what}");
            }
            seen += 1;
        }
        assert_eq!(seen, 7, "{kind:?}");
    });
}

#[test]
fn seeking_to_a_returned_offset_resumes_after_that_entry() {
    on_every_fs(|fs| {
        let kind = fs.kind();
        let d = fs.path().join("seek");
        fill_flat(&d, 2000, name);
        // The whole directory, with each entry's offset cookie; a small
        // buffer, so that the walk below seeks into mid-buffer positions.
        let mut r = DirReader::with_buffer_size(open(&d), 1024);
        let mut all = Vec::new();
        while let Some(e) = r.next_raw().unwrap() {
            all.push((e.name().to_vec(), e.next_offset()));
        }
        assert_eq!(all.len(), 2002, "{kind:?}");
        // Back to the start: the same sequence again.
        r.seek(0).unwrap();
        let mut again = Vec::new();
        while let Some(e) = r.next_raw().unwrap() {
            again.push((e.name().to_vec(), e.next_offset()));
        }
        assert_eq!(again, all, "{kind:?}: after seek(0)");
        // Seeking to entry k's cookie resumes at entry k + 1, on every
        // filesystem (this is telldir/seekdir, not slicing).
        for k in (0..all.len() - 1).step_by(97) {
            r.seek(all[k].1).unwrap();
            let e = r.next_raw().unwrap().expect("an entry follows");
            assert_eq!(e.name(), &all[k + 1].0[..], "{kind:?}: after entry {k}");
        }
        // The last entry's cookie is the end.
        r.seek(all.last().unwrap().1).unwrap();
        assert!(r.next_raw().unwrap().is_none(), "{kind:?}: past the end");
    });
}

#[test]
fn a_buffer_is_reused_across_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    fill_flat(&a, 300, name);
    fill_flat(&b, 7, |i| format!("other{i}"));
    let mut r = DirReader::with_buffer(open(&a), Vec::new());
    assert_eq!(r.buffer_size(), dents::dir::DEFAULT_BUFFER_SIZE);
    let mut names = Vec::new();
    while let Some(e) = r.next_entry().unwrap() {
        names.push(e.name().to_vec());
    }
    assert_eq!(sorted_unique(names, "a"), reference(&a));
    let (_, buf) = r.into_parts();
    // Stale bytes from the first directory must not leak into the second.
    let mut r = DirReader::with_buffer(open(&b), buf);
    let mut names = Vec::new();
    while let Some(e) = r.next_entry().unwrap() {
        names.push(e.name().to_vec());
    }
    assert_eq!(sorted_unique(names, "b"), reference(&b));
}
