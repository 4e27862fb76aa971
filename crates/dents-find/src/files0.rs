//! `-files0-from FILE`: starting points read from a file (or standard
//! input, `-`), separated by NUL bytes, as GNU find reads them.
//!
//! GNU reads and walks one name at a time; an empty name is an error
//! (`'FILE':N: invalid zero-length file name`, N counting names from 1)
//! that does not stop the others, and a last name needs no terminating
//! NUL.  dents reads the whole list first and walks each run of names
//! between empty ones as one parallel walk, so that each message about
//! an empty name comes after everything about the names before it.
//!
//! GNU quotes the file's name for these messages once, at the start, in
//! the buffer its later messages about a starting point (`'nope': No such
//! file or directory`) are quoted in: after such a message the label
//! shows that path instead.  dents does the same ([`msg::last_quoted`]).

use std::io::Read;

use super::msg;

/// What the list holds, in order.
#[derive(Debug, PartialEq, Eq)]
pub enum Item {
    /// A starting point.
    Path(Vec<u8>),
    /// An empty name, the Nth of the list (from 1).
    Empty(usize),
}

/// Reads the list `from` names; on failure, GNU's message (the walk does
/// not start).
pub fn read(from: &[u8]) -> Result<Vec<Item>, Vec<u8>> {
    let utf8 = msg::utf8_locale();
    let mut data = Vec::new();
    let r = if from == b"-" {
        std::io::stdin().lock().read_to_end(&mut data)
    } else {
        use std::os::unix::ffi::OsStrExt;
        match std::fs::File::open(std::ffi::OsStr::from_bytes(from)) {
            Ok(mut f) => f.read_to_end(&mut data),
            Err(e) => {
                let mut m = b"cannot open ".to_vec();
                msg::quote(&mut m, from, utf8);
                m.extend_from_slice(b" for reading: ");
                m.extend_from_slice(crate::errors::describe(&e).as_bytes());
                return Err(m);
            }
        }
    };
    if let Err(e) = r {
        let mut m = Vec::new();
        msg::quote(&mut m, label_name(from), utf8);
        m.extend_from_slice(b": read error: ");
        m.extend_from_slice(crate::errors::describe(&e).as_bytes());
        return Err(m);
    }
    Ok(split(&data))
}

/// The names of a list: NUL-separated, the last one's NUL optional.
fn split(data: &[u8]) -> Vec<Item> {
    let body = data.strip_suffix(b"\0").unwrap_or(data);
    if data.is_empty() {
        return Vec::new();
    }
    body.split(|&b| b == 0)
        .enumerate()
        .map(|(i, n)| {
            if n.is_empty() {
                Item::Empty(i + 1)
            } else {
                Item::Path(n.to_vec())
            }
        })
        .collect()
}

/// The name GNU's messages give the list.
fn label_name(from: &[u8]) -> &[u8] {
    if from == b"-" {
        b"(standard input)"
    } else {
        from
    }
}

/// Reports the empty name `n` of the list `from`, as GNU words it.
pub fn report_empty(from: &[u8], n: usize) {
    let label = msg::last_quoted().unwrap_or_else(|| {
        let mut q = Vec::new();
        msg::quote(&mut q, label_name(from), msg::utf8_locale());
        q
    });
    let mut m = label;
    m.extend_from_slice(format!(":{n}: invalid zero-length file name").as_bytes());
    msg::error(&m);
}

#[cfg(test)]
mod tests {
    use super::{split, Item};

    #[test]
    fn names_as_gnu_splits_them() {
        let p = |s: &str| Item::Path(s.as_bytes().to_vec());
        assert_eq!(split(b""), vec![]);
        assert_eq!(split(b"\0"), vec![Item::Empty(1)]);
        assert_eq!(split(b"a\0b"), vec![p("a"), p("b")]);
        assert_eq!(split(b"a\0\0b\0"), vec![p("a"), Item::Empty(2), p("b")]);
        assert_eq!(split(b"a\0\0"), vec![p("a"), Item::Empty(2)]);
    }
}
