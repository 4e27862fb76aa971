//! Messages as GNU's tools word them: quoted names, error descriptions.

use std::io;

/// `'name'` as GNU quotes a file name in a message (shell quoting: a `'`
/// inside is written `'\''`).
pub fn quote(name: &[u8]) -> Vec<u8> {
    let mut q = Vec::with_capacity(name.len() + 2);
    q.push(b'\'');
    for &c in name {
        if c == b'\'' {
            q.extend_from_slice(b"'\\''");
        } else {
            q.push(c);
        }
    }
    q.push(b'\'');
    q
}

/// The system's description of an error, without Rust's `(os error N)`.
pub fn describe(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_and_descriptions() {
        assert_eq!(quote(b"a'b"), b"'a'\\''b'".to_vec());
        let e = io::Error::from_raw_os_error(13);
        assert_eq!(describe(&e), "Permission denied");
    }
}
