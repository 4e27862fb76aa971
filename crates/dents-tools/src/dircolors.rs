//! `LS_COLORS` values as dircolors writes them: ls and find read the
//! same variable, and undo its escapes with [`unescape`].

/// Reads one chunk of `LS_COLORS` up to `end` (or the end), undoing
/// dircolors' escapes; returns the bytes and the rest after `end`, or
/// `None` at a dangling `\` or `^`.
pub fn unescape(s: &[u8], end: u8) -> Option<(Vec<u8>, Option<&[u8]>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() && s[i] != end {
        let c = s[i];
        match c {
            b'\\' => {
                i += 1;
                let e = *s.get(i)?;
                let v = match e {
                    b'a' => 0x07,
                    b'b' => 0x08,
                    b'e' => 0x1b,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 0x0b,
                    b'?' => 0x7f,
                    b'_' => b' ',
                    b'0'..=b'7' => {
                        let mut v: u8 = e - b'0';
                        while let Some(&d @ b'0'..=b'7') = s.get(i + 1) {
                            v = v.wrapping_shl(3) | (d - b'0');
                            i += 1;
                        }
                        v
                    }
                    b'x' | b'X' => {
                        let mut v: u8 = 0;
                        while let Some(d) = s.get(i + 1).and_then(|&d| (d as char).to_digit(16)) {
                            v = v.wrapping_shl(4) | d as u8;
                            i += 1;
                        }
                        v
                    }
                    other => other,
                };
                out.push(v);
            }
            b'^' => {
                i += 1;
                let e = *s.get(i)?;
                out.push(if e == b'?' { 0x7f } else { e & 0x1f });
            }
            _ => out.push(c),
        }
        i += 1;
    }
    let rest = (i < s.len()).then(|| &s[i + 1..]);
    Some((out, rest))
}

#[cfg(test)]
mod tests {
    use super::unescape;

    #[test]
    fn escapes_as_dircolors() {
        let (v, rest) = unescape(br"\e[1;\x33\061^[\_\:x:y", b':').unwrap();
        assert_eq!(v, b"\x1b[1;31\x1b :x");
        assert_eq!(rest, Some(&b"y"[..]));
        assert!(unescape(b"ab\\", b':').is_none());
    }
}
