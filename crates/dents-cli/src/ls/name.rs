//! Names and type suffixes in listings.

use dents::dir::FileType;

use super::args::Indicator;
use crate::quote;

/// Appends `name`: raw bytes, or quoted for a terminal.
pub fn push_name(out: &mut Vec<u8>, name: &[u8], terminal: bool) {
    if terminal {
        quote::for_terminal(out, name);
    } else {
        out.extend_from_slice(name);
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
