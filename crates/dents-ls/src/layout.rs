//! Short listings laid out as GNU ls lays them out: one per line, in
//! columns down then across (`-C`) or across then down (`-x`), or
//! separated by commas (`-m`), for a line of `-w` columns.
//!
//! The number of columns is GNU's: the most for which the columns' widths
//! (each the widest of its entries, plus two between columns) fit the
//! line; padding uses tabs at the tab stops where they fit (`-T`, 8 by
//! default; none with colors).

use super::args::Format;
use super::paint::LsColors;
use crate::output::ThreadBuf;

/// Where laid-out lines go: a buffer, written out when full enough or
/// kept whole (a block of `-R`, printed in its turn).
pub trait Sink {
    /// The buffer to append to.
    fn buf(&mut self) -> &mut Vec<u8>;
    /// Writes the buffer out if it is full enough (a kept block: never).
    fn maybe_flush(&mut self);
}

impl Sink for ThreadBuf<'_> {
    fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    fn maybe_flush(&mut self) {
        ThreadBuf::maybe_flush(self);
    }
}

impl Sink for Vec<u8> {
    fn buf(&mut self) -> &mut Vec<u8> {
        self
    }

    fn maybe_flush(&mut self) {}
}

/// The formatted entries of one listing.
#[derive(Debug, Default)]
pub struct Cells {
    bytes: Vec<u8>,
    cells: Vec<Cell>,
}

/// One entry: `bytes[start..mid]` up to the end of the name,
/// `bytes[mid..end]` after the color's end (the indicator).
#[derive(Debug, Clone, Copy)]
struct Cell {
    start: usize,
    mid: usize,
    end: usize,
    /// Columns on the screen.
    width: usize,
    /// Bytes of the name and its padding space (GNU's test for a name that
    /// may wrap, to clear to the end of the line).
    name_len: usize,
    /// The name was painted: the color's end follows it.
    painted: bool,
    /// Where in `bytes` the entry's first paint is, if it painted: the
    /// run's first reset goes there if no entry printed before it
    /// painted.
    first_paint: Option<usize>,
}

impl Cells {
    /// The buffer to format the next entry into.
    pub fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    /// Where the current entry's bytes start.
    pub fn mark(&self) -> usize {
        self.bytes.len()
    }

    /// Ends an entry begun at `start`, whose name ended at `mid`, and
    /// whose first paint (formatted by [`super::paint::first_paint_at`])
    /// is at `first_paint`.
    pub fn push(
        &mut self,
        start: usize,
        mid: usize,
        width: usize,
        name_len: usize,
        painted: bool,
        first_paint: Option<usize>,
    ) {
        self.cells.push(Cell {
            start,
            mid,
            end: self.bytes.len(),
            width,
            name_len,
            painted,
            first_paint,
        });
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Writes entry `i` starting at column `pos`.
    fn put(&self, out: &mut Vec<u8>, i: usize, pos: usize, line: usize, colors: Option<&LsColors>) {
        let c = &self.cells[i];
        match (c.first_paint, colors) {
            (Some(at), Some(colors)) => {
                out.extend_from_slice(&self.bytes[c.start..at]);
                colors.first_reset(out);
                out.extend_from_slice(&self.bytes[at..c.mid]);
            }
            _ => out.extend_from_slice(&self.bytes[c.start..c.mid]),
        }
        if c.painted {
            if let Some(colors) = colors {
                let wraps =
                    line != 0 && c.name_len > 0 && pos / line != (pos + c.name_len - 1) / line;
                colors.end(out, wraps);
            }
        }
        out.extend_from_slice(&self.bytes[c.mid..c.end]);
    }
}

/// Pads from column `from` to column `to` as GNU's `indent`.
fn indent(out: &mut Vec<u8>, mut from: usize, to: usize, tabsize: usize) {
    while from < to {
        if tabsize != 0 && to / tabsize > (from + 1) / tabsize {
            out.push(b'\t');
            from += tabsize - from % tabsize;
        } else {
            out.push(b' ');
            from += 1;
        }
    }
}

/// GNU's `calculate_columns`: the number of columns and their widths.
fn columns(cells: &Cells, by_columns: bool, line: usize) -> (usize, Vec<usize>) {
    let n = cells.len();
    let max_idx = if line == 0 {
        usize::MAX
    } else {
        line / 3 + usize::from(line % 3 != 0)
    };
    let max_cols = if 0 < max_idx && max_idx < n {
        max_idx
    } else {
        n
    };
    let mut valid = vec![true; max_cols];
    let mut line_len: Vec<usize> = (0..max_cols).map(|i| (i + 1) * 3).collect();
    let mut col_arr: Vec<Vec<usize>> = (0..max_cols).map(|i| vec![3; i + 1]).collect();
    for (f, c) in cells.cells.iter().enumerate() {
        for i in 0..max_cols {
            if !valid[i] {
                continue;
            }
            let idx = if by_columns {
                f / n.div_ceil(i + 1)
            } else {
                f % (i + 1)
            };
            let real = c.width + if idx == i { 0 } else { 2 };
            if col_arr[i][idx] < real {
                line_len[i] += real - col_arr[i][idx];
                col_arr[i][idx] = real;
                valid[i] = line == 0 || line_len[i] < line;
            }
        }
    }
    let mut cols = max_cols;
    while cols > 1 && !valid[cols - 1] {
        cols -= 1;
    }
    let widths = col_arr.into_iter().nth(cols.max(1) - 1).unwrap_or_default();
    (cols.max(1), widths)
}

/// Writes `cells` in `format`.
pub fn write(
    cells: &Cells,
    format: Format,
    line: usize,
    tabsize: usize,
    eol: u8,
    colors: Option<&LsColors>,
    buf: &mut impl Sink,
) {
    let n = cells.len();
    if n == 0 {
        return;
    }
    let format = match format {
        // No width limit: GNU separates by spaces.
        Format::Vertical | Format::Horizontal if line == 0 => None,
        f => Some(f),
    };
    match format {
        None | Some(Format::Commas) => {
            let sep = if format.is_none() { b' ' } else { b',' };
            let mut pos = 0;
            for f in 0..n {
                let len = if line != 0 { cells.cells[f].width } else { 0 };
                if f != 0 {
                    let after = if line == 0 || pos + len + 2 < line {
                        pos += 2;
                        b' '
                    } else {
                        pos = 0;
                        eol
                    };
                    buf.buf().push(sep);
                    buf.buf().push(after);
                }
                cells.put(buf.buf(), f, pos, line, colors);
                pos += len;
                buf.maybe_flush();
            }
            buf.buf().push(eol);
        }
        Some(Format::Vertical) => {
            let (cols, widths) = columns(cells, true, line);
            let rows = n.div_ceil(cols);
            for row in 0..rows {
                let (mut f, mut pos, mut col) = (row, 0, 0);
                loop {
                    cells.put(buf.buf(), f, pos, line, colors);
                    let w = cells.cells[f].width;
                    let max = widths[col];
                    col += 1;
                    f += rows;
                    if f >= n {
                        break;
                    }
                    indent(buf.buf(), pos + w, pos + max, tabsize);
                    pos += max;
                }
                buf.buf().push(eol);
                buf.maybe_flush();
            }
        }
        Some(Format::Horizontal) => {
            let (cols, widths) = columns(cells, false, line);
            let mut pos = 0;
            cells.put(buf.buf(), 0, 0, line, colors);
            let mut w = cells.cells[0].width;
            let mut max = widths[0];
            for f in 1..n {
                let col = f % cols;
                if col == 0 {
                    buf.buf().push(eol);
                    buf.maybe_flush();
                    pos = 0;
                } else {
                    indent(buf.buf(), pos + w, pos + max, tabsize);
                    pos += max;
                }
                cells.put(buf.buf(), f, pos, line, colors);
                w = cells.cells[f].width;
                max = widths[col];
            }
            buf.buf().push(eol);
        }
        Some(Format::OnePerLine | Format::Long) => {
            for f in 0..n {
                cells.put(buf.buf(), f, 0, line, colors);
                buf.buf().push(eol);
                buf.maybe_flush();
            }
        }
    }
}
