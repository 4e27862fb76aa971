//! How names are shown: raw bytes off a terminal, shell-escaped on one.
//!
//! Off a terminal a name is written as its bytes, whatever they are, so
//! that scripts get exactly what the filesystem holds.  On a terminal (and
//! in messages) names are quoted in the manner of GNU's `shell-escape`
//! style: a name that a shell would split or expand is put in single
//! quotes, and control characters and bytes that are not valid UTF-8 are
//! written as `$'\n'`-style escapes, so that no name can corrupt the screen.

/// Appends `name` as shown on a terminal (du's lines): quoted only if
/// needed.  (ls quotes through its own `ls::quoting`, which knows every
/// quoting style.)
pub fn for_terminal(out: &mut Vec<u8>, name: &[u8]) {
    if needs_quoting(name) {
        quoted(out, name);
    } else {
        out.extend_from_slice(name);
    }
}

/// Appends `path` as GNU tools show it in messages: always quoted.
pub fn for_message(out: &mut Vec<u8>, path: &[u8]) {
    quoted(out, path);
}

/// Whether a shell would need `name` quoted to read it back as one word.
fn needs_quoting(name: &[u8]) -> bool {
    if name.is_empty() {
        return true;
    }
    if matches!(name[0], b'#' | b'~') {
        return true;
    }
    if std::str::from_utf8(name).is_err() {
        return true;
    }
    name.iter().any(|&b| {
        b < 0x20
            || b == 0x7f
            || matches!(
                b,
                b' ' | b'!'
                    | b'"'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b';'
                    | b'<'
                    | b'='
                    | b'>'
                    | b'?'
                    | b'['
                    | b'\\'
                    | b']'
                    | b'^'
                    | b'`'
                    | b'{'
                    | b'|'
                    | b'}'
            )
    })
}

/// Appends `name` in single quotes, escaping what cannot stand inside them;
/// a name whose only trouble is a single quote goes in double quotes.
fn quoted(out: &mut Vec<u8>, name: &[u8]) {
    let double_quotable = name.contains(&b'\'')
        && std::str::from_utf8(name).is_ok()
        && !name
            .iter()
            .any(|&b| b < 0x20 || b == 0x7f || matches!(b, b'"' | b'$' | b'`' | b'\\' | b'!'));
    if double_quotable {
        out.push(b'"');
        out.extend_from_slice(name);
        out.push(b'"');
        return;
    }
    out.push(b'\'');
    let mut rest = name;
    while !rest.is_empty() {
        // Take the longest valid UTF-8 prefix; what follows it is a bad byte.
        let (valid, bad) = match std::str::from_utf8(rest) {
            Ok(s) => (s, None),
            Err(e) => {
                let good = &rest[..e.valid_up_to()];
                let bad_len = e.error_len().unwrap_or(rest.len() - e.valid_up_to());
                (
                    std::str::from_utf8(good).expect("checked prefix"),
                    Some(&rest[e.valid_up_to()..e.valid_up_to() + bad_len]),
                )
            }
        };
        for ch in valid.chars() {
            match ch {
                '\'' => out.extend_from_slice(b"'\\''"),
                c if (c as u32) < 0x20 || c as u32 == 0x7f => escape_byte(out, c as u8),
                c => {
                    let mut tmp = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
                }
            }
        }
        let consumed = valid.len();
        match bad {
            Some(bytes) => {
                for &b in bytes {
                    escape_byte(out, b);
                }
                rest = &rest[consumed + bytes.len()..];
            }
            None => rest = &rest[consumed..],
        }
    }
    out.push(b'\'');
}

/// Appends `'$'\X''`: closes the quote, writes an ANSI-C escape, reopens.
fn escape_byte(out: &mut Vec<u8>, b: u8) {
    out.extend_from_slice(b"'$'\\");
    match b {
        b'\n' => out.push(b'n'),
        b'\t' => out.push(b't'),
        b'\r' => out.push(b'r'),
        0x1b => out.push(b'E'),
        _ => out.extend_from_slice(format!("{b:03o}").as_bytes()),
    }
    // Close the `$'...'` and reopen the plain quote.
    out.extend_from_slice(b"''");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(name: &[u8]) -> String {
        let mut v = Vec::new();
        for_terminal(&mut v, name);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn plain_names_stay_plain() {
        assert_eq!(term(b"IMG_0001.JPG"), "IMG_0001.JPG");
        assert_eq!(term("café".as_bytes()), "café");
    }

    #[test]
    fn specials_are_quoted_like_gnu_shell_escape() {
        assert_eq!(term(b"a b"), "'a b'");
        assert_eq!(term(b"a\nb"), "'a'$'\\n''b'");
        assert_eq!(term(b"it's"), "\"it's\"");
        assert_eq!(term(b"it's $x"), "'it'\\''s $x'");
        assert_eq!(term(b"\xffx"), "''$'\\377''x'");
        assert_eq!(term(b"\nb"), "''$'\\n''b'");
        assert_eq!(term(b"tab\there"), "'tab'$'\\t''here'");
        assert_eq!(term(b"a=b"), "'a=b'");
        assert_eq!(term(b"x#"), "x#");
    }
}
