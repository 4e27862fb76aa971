//! `dents du -o FILE` (ncdu export) in bounded memory: a directory's JSON
//! past a threshold goes to an unlinked temporary file.  The export must
//! be the same bytes whatever the threshold: tiny thresholds (everything
//! spilled) are compared with none (everything in memory, the reference
//! path), on real trees of ext4 and XFS, at -j 1, 2 and 8; a spilled
//! export is read back by ncdu; a temporary file that cannot be made or
//! written is said, and leaves no export behind.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output};

use dents_testfs::{test_cases, FsKind, LoopFs};

/// `dents du ARGS` in `dir`, as nobody, spilling past `spill` bytes
/// (`None`: never).
fn dents(dir: &Path, args: &[&str], spill: Option<usize>) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dents"));
    c.arg("du").args(args).current_dir(dir).env("LC_ALL", "C");
    c.env(
        "DENTS_DU_EXPORT_SPILL",
        spill.unwrap_or(usize::MAX).to_string(),
    );
    c
}

/// The export without its first line (the header: its timestamp differs
/// from run to run).
fn body(json: &[u8]) -> &[u8] {
    let nl = json
        .iter()
        .position(|&c| c == b'\n')
        .expect("a header line");
    &json[nl + 1..]
}

/// The end of the JSON value (an object or an array of values) at `i`.
fn value_end(s: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    let mut in_str = false;
    while i < s.len() {
        let c = s[i];
        if in_str {
            match c {
                b'\\' => i += 1,
                b'"' => in_str = false,
                _ => {}
            }
        } else {
            match c {
                b'"' => in_str = true,
                b'[' | b'{' => depth += 1,
                b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    panic!("unterminated JSON value");
}

/// A directory's array with its items (after its info) sorted, at every
/// level: the walk at -j > 1 finishes a directory's items in any order,
/// run to run, spilled or not.  Bytes otherwise untouched.
fn canonical(s: &[u8]) -> Vec<u8> {
    if s[0] != b'[' {
        return s.to_vec();
    }
    let mut items = Vec::new();
    let mut i = 1;
    while s[i] != b']' {
        let end = value_end(s, i);
        items.push(canonical(&s[i..end]));
        i = end;
        if s[i] == b',' {
            i += 1;
        }
    }
    items[1..].sort();
    let mut out = vec![b'['];
    out.extend(items.join(&b","[..]));
    out.push(b']');
    out
}

/// The tree: directories wide and deep, hard links across directories,
/// awkward names (newlines, invalid UTF-8), a symlink, a fifo, what
/// `--exclude` leaves out, a directory nobody may read and one nobody
/// may search.
fn build(root: &Path) {
    fs::set_permissions(root, fs::Permissions::from_mode(0o755)).unwrap();
    let t = root.join("t");
    for (d, n) in [("a/x", 300), ("a/y/z", 120), ("b", 500), ("c/d/e/f", 40)] {
        let dir = t.join(d);
        fs::create_dir_all(&dir).unwrap();
        dents_testfs::fill_flat(&dir, n, |i| format!("file-{i}"));
    }
    let odd = t.join("odd");
    fs::create_dir(&odd).unwrap();
    for name in dents_testfs::awkward_names() {
        let p = odd.join(std::ffi::OsStr::from_bytes(&name));
        fs::write(&p, &name).unwrap();
        let sub = odd.join(std::ffi::OsStr::from_bytes(
            &[&b"d-"[..], &name[..name.len().min(200)]].concat(),
        ));
        fs::create_dir(&sub).unwrap();
        fs::write(sub.join("in"), b"x").unwrap();
    }
    for i in 0..30 {
        fs::hard_link(t.join(format!("b/file-{i}")), t.join(format!("a/link-{i}"))).unwrap();
        fs::hard_link(
            t.join(format!("b/file-{i}")),
            t.join(format!("c/d/link-{i}")),
        )
        .unwrap();
    }
    symlink("a/x", t.join("sym")).unwrap();
    dents_testfs::cli::run_ok(Command::new("mkfifo").arg(t.join("fifo")));
    fs::create_dir_all(t.join("skipped/deep")).unwrap();
    fs::write(t.join("b/skipped.o"), b"o").unwrap();
    for (d, mode) in [("locked", 0o000), ("unsearchable", 0o644)] {
        fs::create_dir_all(t.join(d).join("inner")).unwrap();
        fs::write(t.join(d).join("inner-file"), b"x").unwrap();
        fs::set_permissions(t.join(d), fs::Permissions::from_mode(mode)).unwrap();
    }
}

/// One table case: a filesystem and -j.
#[derive(Clone, Copy, Debug)]
struct Case {
    kind: FsKind,
    jobs: u32,
}

fn same_bytes_whatever_the_threshold(c: Case) {
    let Some(fs_) = LoopFs::new_or_skip(c.kind, 300) else {
        return;
    };
    let root = fs_.path();
    build(root);
    let out = root.join("out");
    fs::create_dir(&out).unwrap();
    fs::set_permissions(&out, fs::Permissions::from_mode(0o777)).unwrap();
    let export = |spill: Option<usize>| -> Vec<u8> {
        // Relative: nobody may not search the directories above the mount.
        let name = format!("out/x-{spill:?}.json");
        let j = format!("-j{}", c.jobs);
        let args = [&j, "--exclude=*.o", "--exclude=skipped", "-o", &name, "t"];
        let o = dents_testfs::cli::as_nobody(dents(root, &args, spill))
            .output()
            .unwrap();
        // The unreadable directories: said, status 1.
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        fs::read(out.join(&name[4..])).unwrap()
    };
    let reference = export(None);
    assert!(
        reference.windows(17).any(|w| w == b"\"read_error\":true"),
        "read errors in the tree"
    );
    for spill in [1, 100, 4096] {
        let spilled = export(Some(spill));
        if c.jobs == 1 {
            assert!(
                body(&spilled) == body(&reference),
                "spilled past {spill} bytes vs in memory, -j1: not the same bytes"
            );
        } else {
            assert_eq!(spilled.len(), reference.len(), "spilled past {spill}");
            let (s, r) = (body(&spilled), body(&reference));
            let (s, r) = (
                canonical(&s[..value_end(s, 0)]),
                canonical(&r[..value_end(r, 0)]),
            );
            assert!(
                s == r,
                "spilled past {spill} bytes vs in memory, -j{}: not the same items",
                c.jobs
            );
        }
    }
    drop(fs_);
}

test_cases! {
    /// The export spilled (past 1, 100 and 4096 bytes) is the export kept
    /// in memory: byte for byte at -j1, the same items at -j2 and -j8
    /// (whose order within a directory varies run to run, spilled or not).
    mod spilled_export: super::Case => same_bytes_whatever_the_threshold;
    ext4_j1: super::Case { kind: super::FsKind::Ext4, jobs: 1 },
    ext4_j2: super::Case { kind: super::FsKind::Ext4, jobs: 2 },
    ext4_j8: super::Case { kind: super::FsKind::Ext4, jobs: 8 },
    xfs_j1: super::Case { kind: super::FsKind::Xfs, jobs: 1 },
    xfs_j2: super::Case { kind: super::FsKind::Xfs, jobs: 2 },
    xfs_j8: super::Case { kind: super::FsKind::Xfs, jobs: 8 },
}

/// ncdu takes a spilled export: it reads it (`-f`) and writes it back
/// (`-o -`) with every entry.
#[test]
fn ncdu_reads_a_spilled_export() {
    if !dents_testfs::cli::have_program("ncdu", "-v") {
        return dents_testfs::skip("ncdu missing (apt-get install ncdu)");
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let t = root.join("t");
    for d in ["a/b", "c"] {
        fs::create_dir_all(t.join(d)).unwrap();
        dents_testfs::fill_flat(&t.join(d), 200, |i| format!("f{i}"));
    }
    let file = root.join("x.json");
    let o = dents(root, &["-s", "-o", file.to_str().unwrap(), "t"], Some(64))
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let o = Command::new("ncdu")
        .args(["--ignore-config", "-f"])
        .arg(&file)
        .args(["-o", "-"])
        .env("HOME", root)
        .output()
        .unwrap();
    assert!(o.status.success(), "ncdu -f: {o:?}");
    let names = |s: &[u8]| s.windows(8).filter(|w| w == b"{\"name\":").count();
    assert_eq!(names(&o.stdout), 4 + 400, "ncdu's re-export");
    assert_eq!(names(&fs::read(&file).unwrap()), 4 + 400, "ours");
}

/// What the temporary file's failure does: said as GNU sort says its own,
/// status 1, the du lines still written, no export file made.
fn failed_temporary_file(tmpdir: &Path, root: &Path, words: &str) -> Output {
    let t = root.join("t");
    for d in ["a", "b"] {
        fs::create_dir_all(t.join(d)).unwrap();
        dents_testfs::fill_flat(&t.join(d), 300, |i| format!("f{i}"));
    }
    let file = root.join("x.json");
    let o = dents(root, &["-s", "-o", file.to_str().unwrap(), "t"], Some(1000))
        .env("TMPDIR", tmpdir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    let want = format!("dents: {words} '{}': ", tmpdir.display());
    assert!(err.starts_with(&want), "{err:?} vs {want:?}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(o.stdout.ends_with(b"\tt\n"), "{o:?}");
    assert!(!file.exists(), "no export file after the failure");
    o
}

/// A full filesystem under `$TMPDIR` (a small tmpfs, filled).
#[test]
fn full_temporary_filesystem_is_said_and_leaves_no_export() {
    let Some(small) = LoopFs::new_or_skip(FsKind::Tmpfs, 1) else {
        return;
    };
    let mut fill = fs::File::create(small.path().join("filler")).unwrap();
    let chunk = vec![7u8; 64 << 10];
    while std::io::Write::write_all(&mut fill, &chunk).is_ok() {}
    drop(fill);
    let tmp = tempfile::tempdir().unwrap();
    let o = failed_temporary_file(small.path(), tmp.path(), "write failed: temporary file in");
    assert!(
        String::from_utf8_lossy(&o.stderr).ends_with("No space left on device\n"),
        "{o:?}"
    );
}

/// `$TMPDIR` that does not exist.
#[test]
fn missing_temporary_directory_is_said_and_leaves_no_export() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no-such-dir");
    let o = failed_temporary_file(&missing, tmp.path(), "cannot create temporary file in");
    assert!(
        String::from_utf8_lossy(&o.stderr).ends_with("No such file or directory\n"),
        "{o:?}"
    );
}

/// The export's memory is bounded: of 100,000 entries (about 6 MB of
/// JSON), the spilled export adds to `du -s`'s peak memory less than half
/// of what the export kept in memory adds.
#[test]
fn spilled_export_memory_is_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for d in 0..100 {
        let dir = root.join(format!("t/d{d}"));
        fs::create_dir_all(&dir).unwrap();
        dents_testfs::fill_flat(&dir, 1000, |i| format!("some-file-name-{i}"));
    }
    // The default threshold, or none (everything in memory).
    let rss = |args: &[&str], in_memory: bool| {
        let mut c = dents(root, args, None);
        if !in_memory {
            c.env_remove("DENTS_DU_EXPORT_SPILL");
        }
        dents_testfs::peak_rss_kib(&c)
    };
    let Some(plain) = rss(&["-s", "-j2", "t"], false) else {
        return;
    };
    let default = rss(&["-s", "-j2", "-o", "/dev/null", "t"], false).unwrap();
    let in_memory = rss(&["-s", "-j2", "-o", "/dev/null", "t"], true).unwrap();
    eprintln!("peak RSS KiB: du -s {plain}, spilled export {default}, in memory {in_memory}");
    assert!(
        in_memory > plain + 4096,
        "the export in memory costs memory: {in_memory} vs {plain} KiB"
    );
    assert!(
        default.saturating_sub(plain) < (in_memory - plain) / 2,
        "spilled: {default} KiB, in memory: {in_memory} KiB, without export: {plain} KiB"
    );
}
