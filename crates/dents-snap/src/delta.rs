//! A required byte-array column written `DELTA_BYTE_ARRAY` (the
//! snapshot's paths and names) decoded into one buffer.
//!
//! The `parquet` crate's decoder builds each value of such a column in
//! a vector of its own (the prefix it shares with the value before,
//! then its suffix) and hands it out behind a reference count: one
//! allocation, one free and two count changes a value.  Decoding the
//! paths of a refresh's old snapshot that way was two fifths of the
//! time its index took (docs/history/benchmarks.md, "Issue 28: the
//! index built as the walk goes").  Here the values go one after
//! another into one buffer, each a copy of the prefix from the value
//! before it and its suffix from the page.
//!
//! The format (Parquet's `Encodings.md`): a data page holds the prefix
//! lengths, then the suffix lengths, each `DELTA_BINARY_PACKED`, then
//! the suffixes' bytes.  `DELTA_BINARY_PACKED`: a header (values a
//! block, miniblocks a block, the count of values, the first value, as
//! ULEB128 varints, the first zigzag), then blocks of the deltas after
//! the first value: the block's least delta (zigzag), a bit width for
//! each miniblock, and the miniblocks, their deltas less the least,
//! bit-packed from the lowest bit.  The last miniblock holding values
//! is padded whole; miniblocks after it have a width but no bytes.
//!
//! Pages of any other kind (a dictionary, another encoding), or a
//! column with definition or repetition levels, are not decoded here:
//! [`read`] answers `None` and the caller uses the crate's decoder.
//! Every test of this module compares with that decoder.

use parquet::basic::Encoding;
use parquet::column::page::Page;
use parquet::file::reader::RowGroupReader;

use crate::Error;

/// A column's values, one after another.
#[derive(Debug, Default)]
pub struct Packed {
    bytes: Vec<u8>,
    /// Where each value ends in `bytes` (a row group's values are far
    /// below 4 GiB: a page is at most 2 GiB).
    ends: Vec<u32>,
}

impl Packed {
    /// Values held.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no value is held.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Value `i`.
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }
}

/// Column `i` of `g` (`n` rows) into `out` (emptied first, its buffers
/// kept: one row group after another reuse them), if it is a required
/// column whose every data page is `DELTA_BYTE_ARRAY`; `false`
/// otherwise (what `out` holds then is not the column: the caller reads
/// it again with the crate's decoder).
pub fn read(g: &dyn RowGroupReader, i: usize, n: usize, out: &mut Packed) -> Result<bool, Error> {
    out.bytes.clear();
    out.ends.clear();
    let descr = g.metadata().column(i).column_descr();
    if descr.max_def_level() != 0 || descr.max_rep_level() != 0 {
        return Ok(false);
    }
    let mut pages = g.get_column_page_reader(i)?;
    out.ends.reserve(n);
    while let Some(page) = pages.get_next_page()? {
        let (buf, count, levels) = match page {
            Page::DataPage {
                buf,
                num_values,
                encoding: Encoding::DELTA_BYTE_ARRAY,
                ..
            } => (buf, num_values, 0),
            Page::DataPageV2 {
                buf,
                num_values,
                encoding: Encoding::DELTA_BYTE_ARRAY,
                def_levels_byte_len,
                rep_levels_byte_len,
                ..
            } => (buf, num_values, def_levels_byte_len + rep_levels_byte_len),
            _ => return Ok(false),
        };
        let values = buf.get(levels as usize..).ok_or_else(|| short("page"))?;
        decode_page(values, count as usize, out)?;
    }
    if out.len() != n {
        return Err(Error::Corrupt(format!(
            "a column holds {} values in a row group of {n} rows",
            out.len()
        )));
    }
    Ok(true)
}

fn short(what: &str) -> Error {
    Error::Corrupt(format!("a delta-encoded {what} ends early"))
}

/// One page's `count` values, appended to `out`.
fn decode_page(data: &[u8], count: usize, out: &mut Packed) -> Result<(), Error> {
    let mut at = 0;
    let prefixes = deltas(data, &mut at, count)?;
    let lengths = deltas(data, &mut at, count)?;
    // The value before, in `out.bytes` (none before a page's first).
    let (mut prev, mut prev_len) = (out.bytes.len(), 0usize);
    for (&p, &l) in prefixes.iter().zip(&lengths) {
        let (p, l) = (usize::try_from(p), usize::try_from(l));
        let (Ok(p), Ok(l)) = (p, l) else {
            return Err(Error::Corrupt(
                "a negative length in a delta-encoded page".into(),
            ));
        };
        if p > prev_len {
            return Err(Error::Corrupt(
                "a prefix longer than the value before it".into(),
            ));
        }
        let suffix = data
            .get(at..at.saturating_add(l))
            .ok_or_else(|| short("page"))?;
        at += l;
        let start = out.bytes.len();
        out.bytes.extend_from_within(prev..prev + p);
        out.bytes.extend_from_slice(suffix);
        let end = u32::try_from(out.bytes.len())
            .map_err(|_| Error::Corrupt("a row group's values past 4 GiB".into()))?;
        out.ends.push(end);
        (prev, prev_len) = (start, p + l);
    }
    Ok(())
}

/// A `DELTA_BINARY_PACKED` run of exactly `count` values from
/// `data[*at..]`; `*at` is left after it.
pub(crate) fn deltas(data: &[u8], at: &mut usize, count: usize) -> Result<Vec<i64>, Error> {
    let block = varint(data, at)?;
    let minis = varint(data, at)?;
    let total = varint(data, at)?;
    let first = zigzag(varint(data, at)?);
    if total != count as u64 {
        return Err(Error::Corrupt(format!(
            "a delta-encoded run of {total} values in a page of {count}"
        )));
    }
    let per_mini = block.checked_div(minis).unwrap_or(0);
    // Writers use blocks of 128 or 256 values; a bound keeps a damaged
    // header from asking for more than a page holds.
    let odd = minis == 0 || per_mini == 0 || block % minis != 0 || per_mini % 8 != 0;
    if count > 1 && (odd || block > 1 << 16) {
        return Err(Error::Corrupt(format!(
            "a delta-encoded block of {block} values in {minis} miniblocks"
        )));
    }
    let (minis, per_mini) = (minis as usize, per_mini as usize);
    // Grown past a million as the values come: a damaged page may claim
    // any count.
    let mut values = Vec::with_capacity(count.min(1 << 20));
    if count == 0 {
        return Ok(values);
    }
    values.push(first);
    let mut last = first;
    while values.len() < count {
        let least = zigzag(varint(data, at)?);
        let widths = data.get(*at..*at + minis).ok_or_else(|| short("block"))?;
        *at += minis;
        for &w in widths {
            if values.len() == count {
                // Miniblocks past the values have a width, no bytes.
                break;
            }
            let w = w as usize;
            if w > 64 {
                return Err(Error::Corrupt(format!("a miniblock {w} bits wide")));
            }
            let len = per_mini * w / 8;
            let body = data.get(*at..*at + len).ok_or_else(|| short("miniblock"))?;
            *at += len;
            for j in 0..per_mini.min(count - values.len()) {
                last = last
                    .wrapping_add(least)
                    .wrapping_add(unpack(body, j, w) as i64);
                values.push(last);
            }
        }
    }
    Ok(values)
}

/// Value `j` of a miniblock of `w`-bit values, packed from the lowest
/// bit of the first byte.
fn unpack(body: &[u8], j: usize, w: usize) -> u64 {
    if w == 0 {
        return 0;
    }
    let bit = j * w;
    let (byte, shift) = (bit / 8, bit % 8);
    let mut word: u128 = 0;
    for (k, &b) in body[byte..]
        .iter()
        .take((shift + w).div_ceil(8))
        .enumerate()
    {
        word |= u128::from(b) << (8 * k);
    }
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    (word >> shift) as u64 & mask
}

/// An unsigned LEB128 varint at `data[*at..]`.
fn varint(data: &[u8], at: &mut usize) -> Result<u64, Error> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *data.get(*at).ok_or_else(|| short("header"))?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(Error::Corrupt("a varint of more than 64 bits".into()))
}

fn zigzag(u: u64) -> i64 {
    (u >> 1) as i64 ^ -((u & 1) as i64)
}

/// The tests' rows and snapshots, shared with [`crate::chunk`]'s tests.
#[cfg(test)]
pub(crate) use tests::{row, tree_rows, written};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Row, SnapshotReader, SnapshotWriter};
    use dents_testfs::refresh::Rng;
    use parquet::data_type::ByteArrayType;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    /// A row with `path` (its last name as `name`).
    pub(crate) fn row(path: Vec<u8>) -> Row {
        let name = path.rsplit(|&c| c == b'/').next().unwrap_or(&[]).to_vec();
        Row {
            path,
            name,
            kind: b'f',
            ..Row::default()
        }
    }

    /// A snapshot of `rows` in a temporary directory (gone with it).
    pub(crate) fn written(rows: &[Row]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.parquet");
        let mut w = SnapshotWriter::create(&file).unwrap();
        for r in rows {
            w.push_ref(r).unwrap();
        }
        w.finish(&crate::ScanRecord::default()).unwrap();
        (dir, file)
    }

    /// The paths and names of a snapshot of `rows`, decoded here and by
    /// the crate, row group by row group: the same bytes.
    fn both_decoders_agree(rows: Vec<Row>) {
        let (_dir, file) = written(&rows);
        // The snapshot reads back (its checks pass) before its columns.
        SnapshotReader::open(&file).unwrap();
        let reader = SerializedFileReader::new(std::fs::File::open(&file).unwrap()).unwrap();
        let mut seen = 0;
        for gi in 0..reader.num_row_groups() {
            let g = reader.get_row_group(gi).unwrap();
            let n = g.metadata().num_rows() as usize;
            for col in [0, 1] {
                let mut ours = Packed::default();
                assert!(read(&*g, col, n, &mut ours).unwrap(), "delta-encoded");
                let (theirs, _) = crate::reader::read_column::<ByteArrayType>(&*g, col, n).unwrap();
                assert_eq!(ours.len(), theirs.len());
                for (i, t) in theirs.iter().enumerate() {
                    assert_eq!(ours.get(i), t.data(), "group {gi} column {col} value {i}");
                }
            }
            // `target` is optional (definition levels): not decoded here.
            assert!(!read(&*g, 15, n, &mut Packed::default()).unwrap());
            seen += n;
        }
        assert_eq!(seen, rows.len());
    }

    /// The sorted paths of a tree of 40 directories of 1,000 files.
    pub(crate) fn tree_rows() -> Vec<Row> {
        let mut rows = Vec::new();
        for a in 0..40u32 {
            for b in 0..1_000u32 {
                rows.push(row(
                    format!("/srv/data/dir-{a:03}/file-{b:05}.txt").into_bytes()
                ));
            }
        }
        rows
    }

    #[test]
    fn sorted_paths_of_a_tree() {
        let rows = tree_rows();
        both_decoders_agree(rows);
    }

    #[test]
    fn random_bytes_of_every_length() {
        let mut rng = Rng::seeded(1);
        let mut next = |n: u64| rng.below(n as usize) as u64;
        let mut rows = Vec::new();
        let mut prev: Vec<u8> = Vec::new();
        for i in 0..70_000 {
            // Shared prefixes of any length, suffixes from empty to
            // 5,000 bytes (wide bit widths), bytes of every value.
            let keep = next(prev.len() as u64 + 1) as usize;
            let mut p = prev[..keep].to_vec();
            let len = if i % 997 == 0 {
                5_000
            } else {
                next(40) as usize
            };
            for _ in 0..len {
                p.push(next(256) as u8);
            }
            prev = p.clone();
            rows.push(row(p));
        }
        both_decoders_agree(rows);
    }

    /// Values past a page's size: the row group's column in several
    /// pages, each decoded from an empty value before its first.
    #[test]
    fn values_across_pages() {
        let mut rows = Vec::new();
        for i in 0..30_000u32 {
            let mut p = format!("/a/{:08}/", i / 3).into_bytes();
            p.extend((0..120u32).map(|k| (i.wrapping_mul(2_654_435_761) >> (k % 24)) as u8));
            rows.push(row(p));
        }
        let (_dir, file) = written(&rows);
        let reader = SerializedFileReader::new(std::fs::File::open(&file).unwrap()).unwrap();
        let g = reader.get_row_group(0).unwrap();
        let mut pages = g.get_column_page_reader(0).unwrap();
        let mut n = 0;
        while pages.get_next_page().unwrap().is_some() {
            n += 1;
        }
        assert!(n > 1, "one page: the test no longer spans pages");
        both_decoders_agree(rows);
    }

    #[test]
    fn groups_of_a_few_rows() {
        for n in [1, 2, 3, 8, 9, 33, 129] {
            let rows = (0..n)
                .map(|i| row(format!("r/{}", "x".repeat(i % 7)).into_bytes()))
                .collect();
            both_decoders_agree(rows);
        }
    }

    #[test]
    fn empty_and_identical_values() {
        let mut rows: Vec<Row> = (0..300).map(|_| row(Vec::new())).collect();
        rows.extend((0..300).map(|_| row(b"same/path".to_vec())));
        both_decoders_agree(rows);
    }

    #[test]
    fn unpacks_every_width() {
        for w in 0..=64usize {
            let values: Vec<u64> = (0..32u64)
                .map(|j| {
                    let v = j.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                    if w == 64 {
                        v
                    } else {
                        v & ((1u64 << w) - 1)
                    }
                })
                .collect();
            // Packed by hand, bit by bit from the lowest.
            let mut body = vec![0u8; 32 * w / 8 + 1];
            for (j, v) in values.iter().enumerate() {
                for b in 0..w {
                    if v >> b & 1 == 1 {
                        let bit = j * w + b;
                        body[bit / 8] |= 1 << (bit % 8);
                    }
                }
            }
            for (j, v) in values.iter().enumerate() {
                assert_eq!(unpack(&body, j, w), *v, "width {w} value {j}");
            }
        }
    }

    /// A real page with bytes changed or cut anywhere: an error or some
    /// values, never a panic (snapshots are files anyone may hand us).
    #[test]
    fn damaged_pages_never_panic() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.parquet");
        let mut w = SnapshotWriter::create(&file).unwrap();
        for i in 0..3_000u32 {
            w.push(row(format!("t/{}/{i}", i / 40).into_bytes()))
                .unwrap();
        }
        w.finish(&crate::ScanRecord::default()).unwrap();
        let reader = SerializedFileReader::new(std::fs::File::open(&file).unwrap()).unwrap();
        let g = reader.get_row_group(0).unwrap();
        let Some(Page::DataPage {
            buf, num_values, ..
        }) = g
            .get_column_page_reader(0)
            .unwrap()
            .get_next_page()
            .unwrap()
        else {
            panic!("a data page first");
        };
        let page = buf.to_vec();
        let mut rng = Rng::seeded(2);
        let mut next = |n: usize| rng.below(n);
        for round in 0..20_000 {
            let mut bad = page.clone();
            if round % 3 == 0 {
                bad.truncate(next(page.len()));
            } else {
                for _ in 0..1 + next(3) {
                    let at = next(bad.len());
                    bad[at] = next(256) as u8;
                }
            }
            let count = if round % 5 == 0 {
                next(5_000)
            } else {
                num_values as usize
            };
            let _ = decode_page(&bad, count, &mut Packed::default());
        }
    }

    #[test]
    fn damaged_runs_are_errors() {
        // A header cut short, a count that is not the page's, a prefix
        // longer than the value before it.
        let mut at = 0;
        assert!(deltas(&[0x80], &mut at, 1).is_err());
        let mut at = 0;
        assert!(deltas(&[128, 1, 4, 1, 2, 0], &mut at, 2).is_err());
        let mut out = Packed::default();
        // Prefix lengths: one value, 3 (zigzag 6); suffix lengths: 0.
        let page = [128, 1, 4, 1, 6, 128, 1, 4, 1, 0];
        assert!(decode_page(&page, 1, &mut out).is_err());
    }
}
