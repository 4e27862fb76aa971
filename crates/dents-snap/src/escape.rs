//! Bytes as one printable token: what `dents diff` prints and how the
//! scan's record stores roots and messages in text metadata.
//!
//! As `zfs diff` does: every byte that is not printable ASCII, the space
//! and the backslash become `\ooo` (three octal digits).  So a name with
//! a newline cannot forge a line, a name with ` -> ` cannot forge a
//! rename, and any bytes (UTF-8 or not) come back exactly ([`unescape`]).

/// Appends `bytes` to `out`, escaped.
pub fn escape_into(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        if b.is_ascii_graphic() && b != b'\\' {
            out.push(b);
        } else {
            out.extend_from_slice(&[
                b'\\',
                b'0' + (b >> 6),
                b'0' + ((b >> 3) & 7),
                b'0' + (b & 7),
            ]);
        }
    }
}

/// `bytes` escaped, as a new string (always ASCII).
pub fn escape(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len());
    escape_into(&mut out, bytes);
    // Only ASCII was pushed.
    String::from_utf8(out).unwrap_or_default()
}

/// The bytes `text` escapes; `None` if it is not [`escape`]'s output.
pub fn unescape(text: &str) -> Option<Vec<u8>> {
    let s = text.as_bytes();
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\\' {
            let d = s.get(i + 1..i + 4)?;
            if !d.iter().all(|c| (b'0'..=b'7').contains(c)) || d[0] > b'3' {
                return None;
            }
            out.push(((d[0] - b'0') << 6) | ((d[1] - b'0') << 3) | (d[2] - b'0'));
            i += 4;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_bytes_round_trip_and_stay_one_token() {
        let all: Vec<u8> = (0..=255).collect();
        let e = escape(&all);
        assert!(!e.contains([' ', '\n', '\t']));
        assert_eq!(unescape(&e).unwrap(), all);
        assert_eq!(escape(b"a b\nc\\\xff"), "a\\040b\\012c\\134\\377");
    }
}
