//! Names and type suffixes in listings.

use dents::FileType;

use super::args::Indicator;
use super::listing::Record;
use super::paint::{FileKind, LsColors};
use super::quoting::{Quoter, Style};

/// What painting `r` needs to know.
pub fn kind_of(r: &Record) -> FileKind {
    let m = r.meta();
    FileKind {
        mode: m.map_or(0, |m| m.mode()),
        dtype_mode: (r.file_type.as_dtype() as u32) << 12,
        nlink: m.map_or(1, |m| m.nlink as u64),
        link_ok: r.target_mode != 0,
        link_mode: r.target_mode as u32,
    }
}

/// How a name is written in one listing.
#[derive(Clone, Copy)]
pub struct NameStyle<'a> {
    /// The quoting.
    pub quoter: &'a Quoter,
    /// The colors, if painting.
    pub colors: Option<&'a LsColors>,
    /// Unquoted names get a leading space (GNU's alignment when some
    /// names of the listing are quoted).
    pub pad_unquoted: bool,
    /// The line width (for the clear-to-end-of-line after a painted name
    /// that may wrap; 0: none).
    pub line: usize,
}

/// A written name: its width on the screen, its length in bytes with the
/// padding space (GNU's `len`), and whether its color's end is owed.
pub struct Written {
    pub width: usize,
    pub len: usize,
    pub painted: bool,
}

impl NameStyle<'_> {
    /// Appends `name` (a symlink's `target` if so) quoted, padded and
    /// painted; with `defer_end`, the color's end is left to the caller.
    pub fn push(
        &self,
        out: &mut Vec<u8>,
        name: &[u8],
        kind: &FileKind,
        target: bool,
        start_col: usize,
        defer_end: bool,
    ) -> Written {
        // Most names are plain: written as they are, without the
        // quoting's copy.
        let quoted = (!self.quoter.is_plain(name)).then(|| self.quoter.quote(name));
        let (q_bytes, q_width, q_quoted) = match &quoted {
            Some(q) => (&q.bytes[..], q.width, q.quoted),
            None => (name, name.len(), false),
        };
        let pad = self.pad_unquoted && !q_quoted && !target;
        if pad {
            out.push(b' ');
        }
        let mut painted = false;
        if let Some(colors) = self.colors {
            let c = colors.color_of(name, kind, target);
            painted = colors.start(out, c);
        }
        out.extend_from_slice(q_bytes);
        let len = q_bytes.len() + usize::from(pad);
        if painted && !defer_end {
            let wraps = self.line != 0
                && len > 0
                && start_col / self.line != (start_col + len - 1) / self.line;
            self.colors.expect("painted").end(out, wraps);
        }
        Written {
            width: q_width + usize::from(pad),
            len,
            painted,
        }
    }
}

/// Appends `name` quoted as the run's style asks (raw bytes with the
/// `literal` style and no `-q`, the default off a terminal).
pub fn push_name(out: &mut Vec<u8>, name: &[u8], quoter: &Quoter) {
    if quoter.style == Style::Literal && !quoter.qmark_on() || quoter.is_plain(name) {
        out.extend_from_slice(name);
    } else {
        out.extend_from_slice(&quoter.quote(name).bytes);
    }
}

/// The suffix `-F` (`Classify`) or `--file-type` puts after a file of type
/// `t`; `exec` says whether a regular file is executable.
pub fn indicator(t: FileType, exec: bool, style: Indicator) -> Option<u8> {
    match style {
        Indicator::None => return None,
        Indicator::Slash => return t.is_dir().then_some(b'/'),
        _ => {}
    }
    match t {
        FileType::DIRECTORY => Some(b'/'),
        FileType::SYMLINK => Some(b'@'),
        FileType::FIFO => Some(b'|'),
        FileType::SOCKET => Some(b'='),
        FileType::REGULAR if exec && style == Indicator::Classify => Some(b'*'),
        _ => None,
    }
}
