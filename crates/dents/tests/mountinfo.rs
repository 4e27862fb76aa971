//! The mount table read back with odd mount points: names with a space,
//! a tab, a newline and a backslash, which the kernel writes as octal
//! escapes (`\040`, `\011`, `\012`, `\134`).  `dents::mountinfo` must
//! give each name's bytes, its device and type; and the walker, which
//! finds bind-mount loops by those names, must catch one below such a
//! name.  Real tmpfs and bind mounts, so as root.

use dents::{ErrorKind, Walker};
use dents_testfs::mount;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;

/// Names no mount table can hold unescaped.
const ODD: &[&[u8]] = &[
    b"a b",
    b"new\nline",
    b"tab\there",
    b"back\\slash",
    b" \\040 ",
];

#[test]
fn odd_mount_points_are_read_back_byte_for_byte() {
    if !dents_testfs::needs_root("mounts tmpfs") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let mut mounted = Vec::new();
    for name in ODD {
        let dir = base.join(OsStr::from_bytes(name));
        std::fs::create_dir(&dir).unwrap();
        let args = [OsStr::new("-t"), OsStr::new("tmpfs"), OsStr::new("none")];
        mounted.push(mount(&args, &dir));
    }
    let table = dents::mountinfo::read().unwrap();
    for u in &mounted {
        let dev = std::fs::metadata(u.path()).unwrap().dev();
        let want = (libc_major(dev), libc_minor(dev));
        let point = u.path().as_os_str().as_bytes();
        let found: Vec<_> = table.iter().filter(|m| m.point == point).collect();
        assert_eq!(found.len(), 1, "{:?} in the table once", u.path());
        assert_eq!(found[0].device, want, "{:?}", u.path());
        assert_eq!(found[0].fs_type, b"tmpfs", "{:?}", u.path());
    }
}

#[test]
fn a_bind_mount_loop_below_an_odd_name_is_caught() {
    if !dents_testfs::needs_root("bind-mounts") {
        return;
    }
    for name in ODD {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp
            .path()
            .canonicalize()
            .unwrap()
            .join(OsStr::from_bytes(name));
        std::fs::create_dir_all(a.join("b/c")).unwrap();
        std::fs::File::create(a.join("b/f")).unwrap();
        let c = a.join("b/c");
        let _u = mount(&[OsStr::new("--bind"), a.as_os_str()], &c);
        let mut loops = Vec::new();
        let mut entries = 0;
        for e in Walker::new(&a) {
            match e {
                Ok(_) => entries += 1,
                Err(e) => match e.kind() {
                    ErrorKind::Loop { ancestor } => {
                        loops.push((e.path_bytes().to_vec(), ancestor.clone()))
                    }
                    _ => panic!("{name:?}: {e}"),
                },
            }
        }
        // a, a/b, a/b/f; a/b/c is the loop, reported and not entered.
        assert_eq!(entries, 3, "{name:?}");
        let a = a.as_os_str().as_bytes().to_vec();
        let mut c_path = a.clone();
        c_path.extend_from_slice(b"/b/c");
        assert_eq!(loops, [(c_path, a)], "{name:?}");
    }
}

/// `major(3)` of a `st_dev`.
fn libc_major(dev: u64) -> u32 {
    (((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0x0000_0fff)) as u32
}

/// `minor(3)` of a `st_dev`.
fn libc_minor(dev: u64) -> u32 {
    (((dev >> 12) & 0xffff_ff00) | (dev & 0x0000_00ff)) as u32
}
