//! `--files0-from=F`: the arguments named in a file (or standard input),
//! NUL-separated, and the names GNU du refuses there, for `dents du` and
//! `dents-mpi du` alike.  Each tool quotes the list's name its own way;
//! the words are GNU's.

use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;

/// One name of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Files0Name<'a> {
    /// An argument to walk.
    File(&'a [u8]),
    /// A name GNU du refuses (a message, status 1, the others go on).
    Refused(Refusal),
}

/// Why a name of the list is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `-` in a list read from standard input.
    DashFromStdin,
    /// An empty name: its number in the list (from 1).
    ZeroLength(usize),
}

impl Refusal {
    /// GNU du's message (without `du: `); `list` is the list's name as
    /// the tool quotes it.
    pub fn message(&self, list: &[u8]) -> Vec<u8> {
        match self {
            Refusal::DashFromStdin => {
                b"when reading file names from stdin, no file name of '-' allowed".to_vec()
            }
            Refusal::ZeroLength(n) => {
                let mut m = list.to_vec();
                m.extend_from_slice(format!(":{n}: invalid zero-length file name").as_bytes());
                m
            }
        }
    }
}

/// Why a list could not be read: GNU du words the two apart, and goes
/// on (its total printed) only after a read error.
#[derive(Debug)]
pub enum ListError {
    /// It could not be opened: `cannot open 'F' for reading: CAUSE`, and
    /// du stops there.
    Open(io::Error),
    /// It was opened but reading failed (a directory): `F: read error:
    /// CAUSE`; du goes on with no names.
    Read(io::Error),
}

impl ListError {
    /// GNU du's message (without `du: `) for the list `from`; `describe`
    /// gives an error's description.
    pub fn message(&self, from: &[u8], describe: &dyn Fn(&io::Error) -> String) -> Vec<u8> {
        match self {
            ListError::Open(e) => cannot_open(&crate::args::quote_always(from), &describe(e)),
            ListError::Read(e) => {
                let mut m = crate::args::quote_if_needed(from);
                m.extend_from_slice(b": read error: ");
                m.extend_from_slice(describe(e).as_bytes());
                m
            }
        }
    }
}

/// The whole list named `from` (`-`: standard input).
pub fn read_list(from: &[u8]) -> Result<Vec<u8>, ListError> {
    let mut v = Vec::new();
    if from == b"-" {
        io::stdin().read_to_end(&mut v).map_err(ListError::Read)?;
    } else {
        let mut f =
            std::fs::File::open(std::ffi::OsStr::from_bytes(from)).map_err(ListError::Open)?;
        f.read_to_end(&mut v).map_err(ListError::Read)?;
    }
    Ok(v)
}

/// GNU du's message (without `du: `) when the list cannot be read;
/// `list` is its name as the tool quotes it, `cause` the error's
/// description.
pub fn cannot_open(list: &[u8], cause: &str) -> Vec<u8> {
    let mut m = b"cannot open ".to_vec();
    m.extend_from_slice(list);
    m.extend_from_slice(b" for reading: ");
    m.extend_from_slice(cause.as_bytes());
    m
}

/// The names of `list` (read from `from`), in order: a final NUL ends
/// the last name rather than starting an empty one, and a last name
/// without a NUL still counts.
pub fn names<'a>(list: &'a [u8], from: &[u8]) -> Vec<Files0Name<'a>> {
    let mut items: Vec<&[u8]> = list.split(|&c| c == 0).collect();
    if items.last().is_some_and(|l| l.is_empty()) {
        items.pop();
    }
    items
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            if from == b"-" && name == b"-" {
                Files0Name::Refused(Refusal::DashFromStdin)
            } else if name.is_empty() {
                Files0Name::Refused(Refusal::ZeroLength(i + 1))
            } else {
                Files0Name::File(name)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_refusals_as_gnu_du() {
        use Files0Name::{File, Refused};
        assert_eq!(
            names(b"a\0\0-\0b", b"-"),
            [
                File(b"a"),
                Refused(Refusal::ZeroLength(2)),
                Refused(Refusal::DashFromStdin),
                File(b"b")
            ]
        );
        assert_eq!(names(b"-\0", b"list"), [File(b"-")]);
        assert_eq!(names(b"", b"list"), []);
        assert_eq!(names(b"\0", b"list"), [Refused(Refusal::ZeroLength(1))]);
        assert_eq!(
            Refusal::ZeroLength(3).message(b"l"),
            b"l:3: invalid zero-length file name"
        );
    }
}
