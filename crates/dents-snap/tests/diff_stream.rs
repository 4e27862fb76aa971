//! `dents_snap::diff::diff` over snapshots of several row groups, the
//! merge comparing rows by where their roots end (found once a row):
//! every change found exactly, rows out of order refused wherever they
//! are (early, later in the first row group, in the third), and an
//! output that fails ending the diff at its first line.

use std::path::Path;

use dents_snap::diff::{diff, DiffCounts, DiffOptions};
use dents_snap::record::ScanRecord;
use dents_snap::writer::{SnapshotWriter, ROW_GROUP_ROWS};
use dents_snap::{Error, Row};

/// Directories under the root; each holds [`FILES`] files.
const DIRS: u64 = 40;
const FILES: u64 = 1_000;

/// The row of an entry at `path` (`depth` below the root).
fn row(path: String, depth: u32, kind: u8, ino: u64, size: i64) -> Row {
    let name = path.rsplit('/').next().unwrap().as_bytes().to_vec();
    Row {
        path: path.into_bytes(),
        name,
        depth,
        kind,
        size: Some(size),
        blocks: Some(8),
        mode: Some(0o100644),
        uid: Some(0),
        gid: Some(0),
        nlink: Some(1),
        ino,
        dev: Some(1),
        mtime: Some(1_600_000_000_000_000_000),
        ctime: None,
        atime: None,
        target: None,
    }
}

/// The tree's rows in level order: the root, its directories, then each
/// directory's files.  `change`: where `i` is a multiple of 97, file `i`
/// of every directory is grown, the next removed, and a file `N+` added
/// after it (the changes the diff must list).
fn rows(change: bool) -> Vec<Row> {
    let mut v = vec![row("r".into(), 0, b'd', 1, 0)];
    for d in 0..DIRS {
        v.push(row(format!("r/d{d:03}"), 1, b'd', 10 + d, 0));
    }
    for d in 0..DIRS {
        for f in 0..FILES {
            let ino = 1_000 + d * FILES + f;
            let path = format!("r/d{d:03}/f{f:05}");
            let hit = |i: u64| change && i.is_multiple_of(97);
            if hit(f) {
                v.push(row(path.clone(), 2, b'f', ino, 1));
                v.push(row(format!("{path}+"), 2, b'f', 1 << 40 | ino, 0));
            } else if f > 0 && hit(f - 1) {
                continue;
            } else {
                v.push(row(path, 2, b'f', ino, 0));
            }
        }
    }
    v
}

fn write(path: &Path, rows: &[Row]) {
    let mut w = SnapshotWriter::create(path).unwrap();
    for r in rows {
        w.push_ref(r).unwrap();
    }
    w.finish(&ScanRecord::default()).unwrap();
}

/// The lines and counts of a diff, or its error.
fn run(old: &Path, new: &Path) -> Result<(Vec<String>, DiffCounts), Error> {
    let (old, new) = (
        dents_snap::SnapshotReader::open(old).unwrap(),
        dents_snap::SnapshotReader::open(new).unwrap(),
    );
    let mut lines = Vec::new();
    let counts = diff(&old, &new, DiffOptions::default(), |l| {
        lines.push(String::from_utf8(l.to_vec()).unwrap());
        Ok(())
    })?;
    Ok((lines, counts))
}

#[test]
fn every_change_over_many_row_groups() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    let (a, b) = (rows(false), rows(true));
    assert!(a.len() > 2 * ROW_GROUP_ROWS, "{} rows", a.len());
    write(&old, &a);
    write(&new, &b);
    let (lines, counts) = run(&old, &new).unwrap();
    // Per directory: files 0, 97, … 970 (11) grown; the file after each
    // removed (11) and one added (11).
    let per_dir = (0..FILES).filter(|f| f.is_multiple_of(97)).count() as u64;
    let mut want = Vec::new();
    for tag in ["M", "-", "+"] {
        for d in 0..DIRS {
            for f in (0..FILES).filter(|f| f.is_multiple_of(97)) {
                want.push(match tag {
                    "M" => format!("M r/d{d:03}/f{f:05}\n"),
                    "-" => format!("- r/d{d:03}/f{:05}\n", f + 1),
                    _ => format!("+ r/d{d:03}/f{f:05}+\n"),
                });
            }
        }
    }
    assert_eq!(lines, want);
    assert_eq!(
        counts,
        DiffCounts {
            added: DIRS * per_dir,
            removed: DIRS * per_dir,
            modified: DIRS * per_dir,
            renamed: 0,
        }
    );
    // Both ways round, and each with itself.
    assert_eq!(run(&new, &old).unwrap().1.added, DIRS * per_dir);
    assert_eq!(run(&old, &old).unwrap().0, Vec::<String>::new());
}

#[test]
fn rows_out_of_order_are_refused_wherever_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good");
    write(&good, &rows(false));
    // A row swapped with the next: early, later in the first row group,
    // and in the third; in either snapshot.
    for at in [45, 5_000, 2 * ROW_GROUP_ROWS + 100] {
        let mut bad_rows = rows(false);
        bad_rows.swap(at, at + 1);
        let bad = dir.path().join(format!("bad{at}"));
        write(&bad, &bad_rows);
        let want = String::from_utf8(bad_rows[at + 1].path.clone()).unwrap();
        for (old, new) in [(&bad, &good), (&good, &bad)] {
            match run(old, new) {
                Err(Error::Corrupt(m)) => {
                    assert_eq!(m, format!("rows out of the snapshot order at {want}"))
                }
                other => panic!("swap at {at}: {:?}", other.map(|(_, c)| c)),
            }
        }
    }
}

#[test]
fn a_failing_output_ends_the_diff() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    write(&old, &rows(false));
    write(&new, &rows(true));
    let (old, new) = (
        dents_snap::SnapshotReader::open(&old).unwrap(),
        dents_snap::SnapshotReader::open(&new).unwrap(),
    );
    // The first line's write fails: the diff returns at once, having
    // written nothing more.
    let mut calls = 0;
    let r = diff(&old, &new, DiffOptions::default(), |_| {
        calls += 1;
        Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
    });
    assert!(matches!(r, Err(Error::Io(_, _))), "{r:?}");
    assert_eq!(calls, 1);
}
