//! A required byte-array column (the snapshot's paths and names)
//! encoded `DELTA_BYTE_ARRAY` and compressed by dents, and handed to the
//! `parquet` crate's row group as a finished column chunk.
//!
//! The crate's encoder takes each value as a `ByteArray` behind a
//! reference count, and keeps a second one for its suffix until the page
//! is written: two count changes and two drops a value, with the
//! encoder's own work nearly half of what a names-only refresh spent
//! writing its rows (docs/history/benchmarks.md, "Issues 27 and 28:
//! the paths encoded by dents").  Here the values are read where the
//! row group's columns hold them (one buffer, and where each value
//! ends), each compared with the value before for the prefix they share.
//!
//! The format is the one [`crate::delta`] decodes: a data page (version
//! 1, no levels: the column is required) holds the prefix lengths, then
//! the suffix lengths, each `DELTA_BINARY_PACKED` (blocks of 128 values
//! in four miniblocks of 32), then the suffixes' bytes; its body is
//! compressed with zstd at the level of the file's other columns.  A page
//! is cut once its suffixes pass [`PAGE_BYTES`], the size the crate's
//! writer cuts its pages at.  The page headers and the column chunk's
//! metadata are the crate's, so that readers (the crate, DuckDB,
//! pyarrow) see a chunk like any other; every test here reads the chunks
//! back with the crate's own decoder, and compares a one-page chunk's
//! page with the crate's own encoder's, byte for byte.

use std::sync::Arc;

use bytes::Bytes;
use parquet::basic::{Compression, Encoding, PageType, ZstdLevel};
use parquet::column::page::{CompressedPage, Page, PageWriter};
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::ParquetError;
use parquet::file::metadata::{ColumnChunkMetaData, PageEncodingStats};
use parquet::file::writer::{SerializedPageWriter, SerializedRowGroupWriter, TrackedWrite};
use parquet::schema::types::ColumnDescriptor;

use crate::Error;

/// Suffix bytes past which a page is cut (the crate's default data page
/// size).
pub const PAGE_BYTES: usize = 1 << 20;

/// Values in a `DELTA_BINARY_PACKED` block, and its miniblocks.
const BLOCK: usize = 128;
const MINIBLOCKS: usize = 4;
const PER_MINIBLOCK: usize = BLOCK / MINIBLOCKS;

/// Encodes and compresses byte-array column chunks, its buffers and its
/// zstd context kept from one chunk to the next (the crate makes a
/// compressor, and a decompressor it never uses, for every chunk).
pub struct ChunkWriter {
    zstd: zstd::bulk::Compressor<'static>,
    level: ZstdLevel,
    /// A page's body, uncompressed.
    body: Vec<u8>,
    /// A page's prefix lengths, suffix lengths and suffixes, before they
    /// go into its body in that order.
    prefixes: Vec<i64>,
    lengths: Vec<i64>,
    suffixes: Vec<u8>,
    /// The chunk being written: pages with their headers.
    chunk: Vec<u8>,
}

impl ChunkWriter {
    /// A writer compressing with zstd at `level`.
    pub fn new(level: ZstdLevel) -> Result<ChunkWriter, Error> {
        let zstd = zstd::bulk::Compressor::new(level.compression_level()).map_err(zstd_error)?;
        Ok(ChunkWriter {
            zstd,
            level,
            body: Vec::new(),
            prefixes: Vec::new(),
            lengths: Vec::new(),
            suffixes: Vec::new(),
            chunk: Vec::new(),
        })
    }

    /// Appends to `rg` its next column, `descr`: the values of `bytes`,
    /// value `i` ending at `ends[i]` (and starting where the one before
    /// ends).
    pub fn append<W: std::io::Write + Send>(
        &mut self,
        rg: &mut SerializedRowGroupWriter<'_, W>,
        descr: Arc<ColumnDescriptor>,
        bytes: &[u8],
        ends: &[usize],
    ) -> Result<(), Error> {
        let mut out = TrackedWrite::new(std::mem::take(&mut self.chunk));
        let mut pages = 0;
        let mut uncompressed = 0;
        let mut from = 0;
        // A chunk of no values still has a page (of none).
        while from < ends.len() || pages == 0 {
            let to = self.encode_page(bytes, ends, from);
            let mut compressed =
                Vec::with_capacity(zstd::zstd_safe::compress_bound(self.body.len()));
            self.zstd
                .compress_to_buffer(&self.body, &mut compressed)
                .map_err(zstd_error)?;
            let page = Page::DataPage {
                buf: Bytes::from(compressed),
                num_values: u32::try_from(to - from).map_err(|_| too_many())?,
                encoding: Encoding::DELTA_BYTE_ARRAY,
                def_level_encoding: Encoding::RLE,
                rep_level_encoding: Encoding::RLE,
                statistics: None,
            };
            let spec = SerializedPageWriter::new(&mut out)
                .write_page(CompressedPage::new(page, self.body.len()))?;
            uncompressed += spec.uncompressed_size;
            pages += 1;
            from = to;
        }
        let chunk = out.into_inner()?;
        let n = ends.len() as i64;
        let metadata = ColumnChunkMetaData::builder(descr)
            .set_compression(Compression::ZSTD(self.level))
            .set_encodings(vec![Encoding::RLE, Encoding::DELTA_BYTE_ARRAY])
            .set_page_encoding_stats(vec![PageEncodingStats {
                page_type: PageType::DATA_PAGE,
                encoding: Encoding::DELTA_BYTE_ARRAY,
                count: pages,
            }])
            .set_num_values(n)
            .set_total_compressed_size(chunk.len() as i64)
            .set_total_uncompressed_size(uncompressed as i64)
            .set_data_page_offset(0)
            .build()?;
        let close = ColumnCloseResult {
            bytes_written: chunk.len() as u64,
            rows_written: n as u64,
            metadata,
            bloom_filter: None,
            column_index: None,
            offset_index: None,
        };
        let chunk = Bytes::from(chunk);
        rg.append_column(&chunk, close)?;
        // Nothing else holds it once appended: kept for the next chunk.
        self.chunk = chunk.try_into_mut().map(Vec::from).unwrap_or_default();
        self.chunk.clear();
        Ok(())
    }

    /// Encodes into `self.body` the page of the values from `from` on:
    /// up to the one whose suffix takes the page's suffixes past
    /// [`PAGE_BYTES`], or the last.  Returns the index after the page's
    /// last value.
    fn encode_page(&mut self, bytes: &[u8], ends: &[usize], from: usize) -> usize {
        self.prefixes.clear();
        self.lengths.clear();
        self.suffixes.clear();
        self.body.clear();
        // A page's first value shares nothing: the decoder starts afresh.
        let mut prev: &[u8] = &[];
        let mut to = from;
        while to < ends.len() && self.suffixes.len() < PAGE_BYTES {
            let v = &bytes[if to == 0 { 0 } else { ends[to - 1] }..ends[to]];
            let p = common_prefix(prev, v);
            self.prefixes.push(p as i64);
            self.lengths.push((v.len() - p) as i64);
            self.suffixes.extend_from_slice(&v[p..]);
            prev = v;
            to += 1;
        }
        put_deltas(&mut self.body, &self.prefixes);
        put_deltas(&mut self.body, &self.lengths);
        self.body.extend_from_slice(&self.suffixes);
        to
    }
}

/// zstd's failure, as the crate reports its codecs'.
fn zstd_error(e: std::io::Error) -> Error {
    Error::Parquet(ParquetError::General(format!("zstd: {e}")))
}

/// A page cannot say more values than 32 bits count (a row group holds
/// far fewer: this is never met).
fn too_many() -> Error {
    Error::Parquet(ParquetError::General(
        "a page of more than 4G values".into(),
    ))
}

/// The length of the prefix `a` and `b` share, compared eight bytes at
/// a time (sorted paths share tens of bytes).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().expect("8 bytes"));
        let y = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        if x != y {
            return i + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// `values` appended to `out` `DELTA_BINARY_PACKED`: the header (values
/// a block, miniblocks a block, the count, the first value), then blocks
/// of the deltas after the first value: the block's least delta, the
/// miniblocks' bit widths, and the miniblocks (the deltas less the least,
/// packed from the lowest bit; the last one holding values padded with
/// zeros, those after it a width and no bytes).
fn put_deltas(out: &mut Vec<u8>, values: &[i64]) {
    put_varint(out, BLOCK as u64);
    put_varint(out, MINIBLOCKS as u64);
    put_varint(out, values.len() as u64);
    put_varint(out, zigzag(values.first().copied().unwrap_or(0)));
    let mut deltas = [0i64; BLOCK];
    let mut at = 1;
    while at < values.len() {
        let end = (at + BLOCK).min(values.len());
        let deltas = &mut deltas[..end - at];
        for (k, d) in deltas.iter_mut().enumerate() {
            *d = values[at + k].wrapping_sub(values[at + k - 1]);
        }
        let least = deltas.iter().copied().min().unwrap_or(0);
        put_varint(out, zigzag(least));
        let widths_at = out.len();
        out.extend_from_slice(&[0; MINIBLOCKS]);
        for (m, mini) in deltas.chunks(PER_MINIBLOCK).enumerate() {
            let most = mini
                .iter()
                .map(|&d| d.wrapping_sub(least) as u64)
                .max()
                .unwrap_or(0);
            let width = 64 - most.leading_zeros() as usize;
            out[widths_at + m] = width as u8;
            pack(
                out,
                mini.iter().map(|&d| d.wrapping_sub(least) as u64),
                width,
            );
        }
        at = end;
    }
}

/// [`PER_MINIBLOCK`] values (`values`, then zeros) of `width` bits each,
/// packed from the lowest bit of the first byte.
fn pack(out: &mut Vec<u8>, mut values: impl Iterator<Item = u64>, width: usize) {
    if width == 0 {
        return;
    }
    let mut acc: u128 = 0;
    let mut bits = 0;
    for _ in 0..PER_MINIBLOCK {
        acc |= u128::from(values.next().unwrap_or(0)) << bits;
        bits += width;
        while bits >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            bits -= 8;
        }
    }
    // 32 values of any width end on a byte.
    debug_assert_eq!(bits, 0);
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delta::{row, tree_rows, written};
    use crate::{Row, SnapshotReader};
    use dents_testfs::refresh::Rng;
    use parquet::data_type::{ByteArray, ByteArrayType};
    use parquet::file::properties::{EnabledStatistics, WriterProperties};
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    /// The values the crate's own decoder reads from column `col` of
    /// `file`, every row group.
    fn read_back(file: &std::path::Path, col: usize) -> Vec<Vec<u8>> {
        let reader = SerializedFileReader::new(std::fs::File::open(file).unwrap()).unwrap();
        let mut all = Vec::new();
        for gi in 0..reader.num_row_groups() {
            let g = reader.get_row_group(gi).unwrap();
            let n = g.metadata().num_rows() as usize;
            let (values, _) = crate::reader::read_column::<ByteArrayType>(&*g, col, n).unwrap();
            all.extend(values.iter().map(|v| v.data().to_vec()));
        }
        all
    }

    /// The decompressed bodies of the pages of column `col`, row group
    /// `gi`, of `file`.
    fn page_bodies(file: &std::path::Path, gi: usize, col: usize) -> Vec<Vec<u8>> {
        let reader = SerializedFileReader::new(std::fs::File::open(file).unwrap()).unwrap();
        let g = reader.get_row_group(gi).unwrap();
        let mut pages = g.get_column_page_reader(col).unwrap();
        let mut bodies = Vec::new();
        while let Some(p) = pages.get_next_page().unwrap() {
            bodies.push(p.buffer().to_vec());
        }
        bodies
    }

    /// `values` written by the crate's own encoder, `DELTA_BYTE_ARRAY`
    /// as the snapshot's paths were before [`ChunkWriter`]: the
    /// reference, one row group.
    fn by_the_crate(dir: &std::path::Path, values: &[Vec<u8>]) -> std::path::PathBuf {
        let file = dir.join("crate.parquet");
        let schema = Arc::new(parse_message_type("message m { required binary path; }").unwrap());
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).unwrap()))
            .set_dictionary_enabled(false)
            .set_statistics_enabled(EnabledStatistics::None)
            .set_encoding(Encoding::DELTA_BYTE_ARRAY)
            .build();
        let mut w =
            SerializedFileWriter::new(std::fs::File::create(&file).unwrap(), schema, props.into())
                .unwrap();
        let mut rg = w.next_row_group().unwrap();
        let mut col = rg.next_column().unwrap().unwrap();
        let arrays: Vec<ByteArray> = values.iter().map(|v| ByteArray::from(v.clone())).collect();
        col.typed::<ByteArrayType>()
            .write_batch(&arrays, None, None)
            .unwrap();
        col.close().unwrap();
        rg.close().unwrap();
        w.close().unwrap();
        file
    }

    /// A snapshot of `rows` read back by the crate's decoder gives the
    /// same paths and names; where a row group fits one page, its page
    /// is byte for byte the crate's own encoder's.  The number of pages
    /// of the first row group's paths, returned.
    fn round_trip(rows: Vec<Row>) -> usize {
        let (dir, file) = written(&rows);
        SnapshotReader::open(&file).unwrap();
        let paths: Vec<Vec<u8>> = rows.iter().map(|r| r.path.clone()).collect();
        let names: Vec<Vec<u8>> = rows.iter().map(|r| r.name.clone()).collect();
        assert!(read_back(&file, 0) == paths, "paths read back");
        assert!(read_back(&file, 1) == names, "names read back");
        let group = paths.len().min(crate::writer::ROW_GROUP_ROWS);
        let ours = page_bodies(&file, 0, 0);
        if ours.len() == 1 {
            let theirs = page_bodies(&by_the_crate(dir.path(), &paths[..group]), 0, 0);
            assert!(ours == theirs, "the page differs from the crate's");
        }
        ours.len()
    }

    #[test]
    fn sorted_paths_of_a_tree() {
        let rows = tree_rows();
        assert_eq!(round_trip(rows), 1);
    }

    #[test]
    fn random_bytes_shared_prefixes_and_long_values() {
        let mut rng = Rng::seeded(3);
        let mut next = |n: usize| rng.below(n);
        let mut rows = Vec::new();
        let mut prev: Vec<u8> = Vec::new();
        for i in 0..40_000 {
            let keep = next(prev.len() + 1);
            let mut p = prev[..keep].to_vec();
            let len = if i % 991 == 0 { 6_000 } else { next(40) };
            p.extend((0..len).map(|_| next(256) as u8));
            prev = p.clone();
            rows.push(row(p));
        }
        round_trip(rows);
    }

    #[test]
    fn values_across_pages() {
        let rows = (0..20_000u32)
            .map(|i| {
                let mut p = format!("/a/{:08}/", i / 3).into_bytes();
                p.extend((0..120u32).map(|k| (i.wrapping_mul(2_654_435_761) >> (k % 24)) as u8));
                row(p)
            })
            .collect();
        assert!(
            round_trip(rows) > 1,
            "one page: the test no longer spans pages"
        );
    }

    #[test]
    fn groups_of_a_few_rows() {
        for n in [1, 2, 3, 31, 32, 33, 127, 128, 129, 130, 257] {
            let rows = (0..n)
                .map(|i| row(format!("r/{}", "x".repeat(i % 7)).into_bytes()))
                .collect();
            assert_eq!(round_trip(rows), 1, "{n} rows");
        }
    }

    #[test]
    fn empty_and_identical_values() {
        let mut rows: Vec<Row> = (0..300).map(|_| row(Vec::new())).collect();
        rows.extend((0..300).map(|_| row(b"same/path".to_vec())));
        assert_eq!(round_trip(rows), 1);
    }

    /// Runs whose deltas need every width up to 62 bits read back by
    /// [`crate::delta`]'s decoder (the crate's reads widths up to the 32
    /// a length can need, above).
    #[test]
    fn deltas_of_every_width() {
        for w in 0..=62u32 {
            for n in [1, 2, 33, 128, 129, 300] {
                let values: Vec<i64> = (0..n as i64)
                    .map(|i| if i % 2 == 1 { (1i64 << w) - 1 } else { 0 })
                    .collect();
                let mut out = Vec::new();
                put_deltas(&mut out, &values);
                let mut at = 0;
                let back = crate::delta::deltas(&out, &mut at, values.len()).unwrap();
                assert_eq!(back, values, "width {w}, {n} values");
                assert_eq!(at, out.len(), "width {w}, {n} values: bytes left");
            }
        }
    }

    #[test]
    fn common_prefix_is_the_bytewise_one() {
        let mut rng = Rng::seeded(4);
        let mut next = |n: usize| rng.below(n);
        for _ in 0..20_000 {
            let a: Vec<u8> = (0..next(40)).map(|_| next(3) as u8).collect();
            let mut b = a[..next(a.len() + 1)].to_vec();
            b.extend((0..next(20)).map(|_| next(3) as u8));
            let slow = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            assert_eq!(common_prefix(&a, &b), slow, "{a:?} {b:?}");
        }
    }
}
