//! The file format alone: rows round-trip exactly (bytes, nulls, several
//! row groups), and the reader refuses what is not a snapshot of this
//! version with a clear error.

use std::path::Path;

use dents_snap::reader::SnapshotReader;
use dents_snap::record::{ScanRecord, Time};
use dents_snap::writer::{SnapshotWriter, PLAIN_COLUMNS, ROW_GROUP_ROWS};
use dents_snap::{schema, Error, Row};
use dents_testfs::snapshot::{foreign_parquet, parquet_with};

fn row(i: u64) -> Row {
    Row {
        path: format!("root/d{}/\u{e9}\n{i}", i % 7).into_bytes(),
        name: vec![b'n', 0xff, (i % 250) as u8 + 1],
        depth: 2,
        kind: if i.is_multiple_of(3) { b'l' } else { b'f' },
        size: (!i.is_multiple_of(5)).then_some(i as i64 * 3),
        blocks: Some(i as i64),
        mode: Some(0o100644),
        uid: (i.is_multiple_of(2)).then_some(1000),
        gid: Some(u32::MAX),
        nlink: Some(1),
        ino: u64::MAX - i,
        dev: Some(1 << 40),
        mtime: Some(-1_000_000_007 + i as i64),
        ctime: None,
        atime: Some(i as i64),
        target: (i.is_multiple_of(3)).then(|| b"t\x00\xfe".to_vec()),
    }
}

fn record() -> ScanRecord {
    let mut r = ScanRecord {
        roots: vec![b"root".to_vec(), b"a\nb\xff".to_vec()],
        start: Time { secs: 5, nsecs: 7 },
        end: Time {
            secs: 6,
            nsecs: 999_999_999,
        },
        options: "-x -j 3".into(),
        dents_version: "0.1.0".into(),
        ..ScanRecord::default()
    };
    r.add_error(b"cannot read directory 'x\\y': Permission denied".to_vec());
    r
}

fn write(path: &Path, rows: u64) {
    let mut w = SnapshotWriter::create(path).unwrap();
    for i in 0..rows {
        w.push(row(i)).unwrap();
    }
    w.finish(&record()).unwrap();
}

#[test]
fn rows_and_record_round_trip_over_several_row_groups() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.parquet");
    let n = ROW_GROUP_ROWS as u64 * 2 + 17;
    write(&p, n);
    let r = SnapshotReader::open(&p).unwrap();
    assert_eq!(r.record(), &record());
    assert_eq!(r.num_rows(), n);
    let mut i = 0;
    for got in r.rows() {
        assert_eq!(got.unwrap(), row(i), "row {i}");
        i += 1;
    }
    assert_eq!(i, n);
    // Nothing but the snapshot is left in the directory.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["s.parquet"]);
}

/// The columns whose values rarely repeat are written without a
/// dictionary (it cost CPU and made the file larger); the others keep
/// theirs.  Every row group, as each is written on its own.
#[test]
fn only_columns_that_repeat_have_a_dictionary() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.parquet");
    write(&p, ROW_GROUP_ROWS as u64 + 5);
    let f = SerializedFileReader::new(std::fs::File::open(&p).unwrap()).unwrap();
    let groups = f.metadata().row_groups();
    assert_eq!(groups.len(), 2);
    for (g, rg) in groups.iter().enumerate() {
        for c in rg.columns() {
            let name = c.column_path().string();
            let dictionary = c.dictionary_page_offset().is_some();
            let expected = !PLAIN_COLUMNS.contains(&name.as_str())
                && !["path", "name", "target"].contains(&name.as_str());
            assert_eq!(dictionary, expected, "row group {g}, column {name}");
        }
    }
}

#[test]
fn a_writer_not_finished_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.parquet");
    let mut w = SnapshotWriter::create(&p).unwrap();
    for i in 0..(ROW_GROUP_ROWS as u64 + 5) {
        w.push(row(i)).unwrap();
    }
    drop(w);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// How much of a whole snapshot a truncated one keeps.
#[derive(Clone, Copy, Debug)]
enum Keep {
    /// The first bytes.
    First(usize),
    /// Half of the file.
    Half,
    /// All but its last byte.
    AllButOne,
}

/// One case of `truncated`: a snapshot of 1000 rows cut to `keep`:
/// refused as not Parquet, or cut short.
fn check_truncated(keep: Keep) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.parquet");
    write(&p, 1000);
    let bytes = std::fs::read(&p).unwrap();
    let keep = match keep {
        Keep::First(n) => n,
        Keep::Half => bytes.len() / 2,
        Keep::AllButOne => bytes.len() - 1,
    };
    std::fs::write(&p, &bytes[..keep]).unwrap();
    let e = SnapshotReader::open(&p).unwrap_err();
    assert!(matches!(e, Error::NotParquet(..)), "{keep} bytes: {e:?}");
    assert!(
        e.to_string().contains("not a Parquet file, or cut short"),
        "{e}"
    );
}

dents_testfs::test_cases! {
/// A truncated snapshot is refused, wherever it was cut.
mod truncated: super::Keep => check_truncated;
    empty: super::Keep::First(0),
    three_bytes: super::Keep::First(3),
    half: super::Keep::Half,
    all_but_the_last_byte: super::Keep::AllButOne,
}

#[test]
fn a_text_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.parquet");
    std::fs::write(&p, b"path,size\nx,1\n").unwrap();
    assert!(matches!(
        SnapshotReader::open(&p),
        Err(Error::NotParquet(..))
    ));
}

#[test]
fn a_foreign_parquet_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("other.parquet");
    foreign_parquet(&p);
    let e = SnapshotReader::open(&p).unwrap_err();
    assert!(matches!(e, Error::Foreign(..)), "{e:?}");
    assert_eq!(
        e.to_string(),
        "'{}': not a dents snapshot (a Parquet file without dents.snapshot.version)"
            .replace("{}", p.to_str().unwrap())
    );
}

#[test]
fn another_schema_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("v2.parquet");
    let mut pairs: Vec<(String, String)> = record().to_pairs();
    pairs[0].1 = "2".into();
    parquet_with(&p, schema::MESSAGE, &pairs);
    let e = SnapshotReader::open(&p).unwrap_err();
    assert!(matches!(e, Error::Version(..)), "{e:?}");
    assert!(
        e.to_string()
            .ends_with("snapshot schema version 2; this dents reads version 1"),
        "{e}"
    );
}

#[test]
fn a_version_1_file_with_other_columns_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("cols.parquet");
    let pairs = record().to_pairs();
    parquet_with(&p, "message m { required binary path; }", &pairs);
    assert!(matches!(SnapshotReader::open(&p), Err(Error::Schema(..))));
}
