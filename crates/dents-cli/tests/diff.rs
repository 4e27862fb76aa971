//! `dents diff`: two scans of a real tree with adds, removes,
//! modifications, renames of files and of a directory, against the lines
//! the changes must give; `--growth` against du totals computed from an
//! lstat walk of both trees.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use dents_testfs::snapshot;

fn dents(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dents"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("dents runs")
}

/// `dents scan -j 3 -o OUT t` in `dir`, which must succeed and say
/// nothing.
fn scan(dir: &Path, out: &str) {
    let o = snapshot::scan_to(env!("CARGO_BIN_EXE_dents"), dir, out, &["-j", "3"], &["t"]);
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
}

/// The old tree, every time set in the past so that any change after the
/// scan shows whatever the clock's granularity.
fn old_tree(dir: &Path) {
    let t = dir.join("t");
    fs::create_dir_all(t.join("d1")).unwrap();
    fs::create_dir_all(t.join("d2/sub")).unwrap();
    fs::create_dir_all(t.join("keep")).unwrap();
    fs::create_dir_all(t.join("mod")).unwrap();
    for f in [
        "d1/f1",
        "d1/f2",
        "d2/sub/x",
        "d2/sub/y",
        "keep/k",
        "keep/p -> q",
        "mod/m",
    ] {
        fs::write(t.join(f), f.as_bytes()).unwrap();
    }
    let s = Command::new("sh")
        .current_dir(dir)
        .args(["-c", "find t -exec touch -h -d @1600000000 {} +"])
        .status()
        .unwrap();
    assert!(s.success());
}

fn change(dir: &Path) {
    let t = dir.join("t");
    fs::write(t.join("keep/new\nfile"), b"n").unwrap();
    fs::remove_file(t.join("d1/f2")).unwrap();
    std::io::Write::write_all(
        &mut fs::OpenOptions::new()
            .append(true)
            .open(t.join("mod/m"))
            .unwrap(),
        b"more",
    )
    .unwrap();
    fs::rename(t.join("d1/f1"), t.join("keep/f1-moved")).unwrap();
    fs::rename(t.join("d2"), t.join("d2-renamed")).unwrap();
    std::io::Write::write_all(
        &mut fs::OpenOptions::new()
            .append(true)
            .open(t.join("d2-renamed/sub/x"))
            .unwrap(),
        b"grown",
    )
    .unwrap();
    fs::set_permissions(t.join("keep/k"), fs::Permissions::from_mode(0o600)).unwrap();
    fs::rename(t.join("keep/p -> q"), t.join("keep/r")).unwrap();
}

#[test]
fn adds_removes_modifications_and_renames() {
    let dir = tempfile::tempdir().unwrap();
    old_tree(dir.path());
    scan(dir.path(), "old.parquet");
    change(dir.path());
    scan(dir.path(), "new.parquet");
    let o = dents(dir.path(), &["diff", "old.parquet", "new.parquet"]);
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "M t\n\
         M t/d1\n\
         M t/keep\n\
         M t/keep/k\n\
         M t/mod/m\n\
         R t/d2 -> t/d2-renamed\n\
         R t/d1/f1 -> t/keep/f1-moved\n\
         R t/keep/p\\040->\\040q -> t/keep/r\n\
         M t/d2-renamed/sub/x\n\
         - t/d1/f2\n\
         + t/keep/new\\012file\n"
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn the_same_tree_has_no_difference() {
    let dir = tempfile::tempdir().unwrap();
    old_tree(dir.path());
    scan(dir.path(), "a.parquet");
    scan(dir.path(), "b.parquet");
    let o = dents(dir.path(), &["diff", "a.parquet", "b.parquet"]);
    assert_eq!(
        (o.stdout.len(), o.stderr.len(), o.status.code()),
        (0, 0, Some(0))
    );
}

/// Every directory's disk usage (blocks × 512 of all below it, each name
/// counted), by an lstat walk: du's totals without the hard-link rule.
fn usage(dir: &Path, rel: &str, out: &mut BTreeMap<String, i64>) -> i64 {
    let m = fs::symlink_metadata(dir.join(rel)).unwrap();
    let mut total = m.blocks() as i64 * 512;
    if m.is_dir() {
        for e in fs::read_dir(dir.join(rel)).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            total += usage(dir, &format!("{rel}/{name}"), out);
        }
        out.insert(rel.to_string(), total);
    }
    total
}

#[test]
fn growth_ranks_directories_as_du_totals_do() {
    let dir = tempfile::tempdir().unwrap();
    old_tree(dir.path());
    fs::write(dir.path().join("t/d1/f1"), vec![1u8; 300_000]).unwrap();
    let mut before = BTreeMap::new();
    usage(dir.path(), "t", &mut before);
    scan(dir.path(), "old.parquet");
    change(dir.path());
    fs::write(dir.path().join("t/mod/big"), vec![1u8; 1_000_000]).unwrap();
    let mut after = BTreeMap::new();
    usage(dir.path(), "t", &mut after);
    scan(dir.path(), "new.parquet");
    let mut want: Vec<(i64, String)> = Vec::new();
    for k in before
        .keys()
        .chain(after.keys())
        .collect::<std::collections::BTreeSet<_>>()
    {
        let d = after.get(k).copied().unwrap_or(0) - before.get(k).copied().unwrap_or(0);
        if d != 0 {
            want.push((-d, k.clone()));
        }
    }
    want.sort();
    let want: String = want
        .iter()
        .map(|(d, k)| format!("{:+} {k}\n", -d))
        .collect();
    let o = dents(
        dir.path(),
        &["diff", "--growth", "old.parquet", "new.parquet"],
    );
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
    assert!(want.starts_with("+10"), "{want}");
}

#[test]
fn closed_stdout_is_a_write_error() {
    let dir = tempfile::tempdir().unwrap();
    old_tree(dir.path());
    scan(dir.path(), "old.parquet");
    change(dir.path());
    scan(dir.path(), "new.parquet");
    let o = Command::new("sh")
        .current_dir(dir.path())
        .args([
            "-c",
            "exec \"$0\" diff old.parquet new.parquet >&-",
            env!("CARGO_BIN_EXE_dents"),
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "dents: write error: Bad file descriptor\n"
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_file_that_is_not_a_snapshot_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    old_tree(dir.path());
    scan(dir.path(), "old.parquet");
    let bytes = fs::read(dir.path().join("old.parquet")).unwrap();
    fs::write(dir.path().join("cut.parquet"), &bytes[..bytes.len() - 10]).unwrap();
    let o = dents(dir.path(), &["diff", "old.parquet", "cut.parquet"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("dents: 'cut.parquet': not a snapshot: not a Parquet file, or cut short ("),
        "{err}"
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
}

/// `dents diff OLD NEW | head -1` where the changes are only at the start
/// and at the end of 200,000 rows: once its reader is gone the diff ends
/// by SIGPIPE, quietly, without reading on to the end (where its next
/// write would be): it reads less than half of what the whole diff
/// reads (`rchar`, counted by the kernel, not a time).
#[test]
fn a_reader_gone_between_lines_ends_the_diff() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    // The start: 2,000 files at depth 1, whose M lines (130 KB) fill the
    // diff's 64 KiB buffer, so that the reader gets a first line.
    let first = |i| format!("a{i:04}-a-name-long-enough-to-fill-the-output-buffer-soon");
    dents_testfs::fill_flat(&t, 2000, first);
    // The middle, unchanged: 20 directories of 10,000 files at depth 3.
    for d in 0..20 {
        dents_testfs::fill_flat(&t.join(format!("m/d{d:02}")), 10_000, |i| format!("f{i}"));
    }
    // The end: a file deeper than the rest, which comes last.
    fs::create_dir_all(t.join("z/1/2/3")).unwrap();
    fs::write(t.join("z/1/2/3/last"), b"").unwrap();
    scan(dir.path(), "old.parquet");
    let s = Command::new("sh")
        .current_dir(dir.path())
        .args(["-c", "touch -d @1600000000 t/a* t/z/1/2/3/last"])
        .status()
        .unwrap();
    assert!(s.success());
    scan(dir.path(), "new.parquet");
    let diff = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_dents"));
        c.current_dir(dir.path())
            .args(["diff", "old.parquet", "new.parquet"]);
        c
    };
    let (status, whole) = dents_testfs::bytes_read_by(diff());
    assert_eq!(status.code(), Some(1), "the snapshots differ");
    let (line, status, err, took, read) =
        dents_testfs::first_line_then_close_reads(diff(), b'\n', Duration::from_secs(120));
    assert!(
        line.starts_with(b"M t/a0"),
        "{:?}",
        String::from_utf8_lossy(&line)
    );
    assert_eq!(
        status.and_then(|s| s.signal()),
        Some(13),
        "{status:?} {took:?} after the pipe was closed"
    );
    assert_eq!(String::from_utf8_lossy(&err), "");
    let read = read.unwrap();
    assert!(
        read < whole / 2,
        "read {read} bytes after its reader was gone; the whole diff reads {whole}"
    );
}
