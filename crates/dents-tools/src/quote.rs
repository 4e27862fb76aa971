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
/// a name whose only trouble is a single quote goes in double quotes
/// (gnulib's `shell-escape-always` style, as GNU's messages quote).
fn quoted(out: &mut Vec<u8>, name: &[u8]) {
    let units = units(name);
    let quote = name.contains(&b'\'');
    let compat = units.iter().all(|u| match *u {
        Unit::Char(c, at) => double_quote_compat(c, at, name.len()),
        Unit::Escape(_) => false,
    });
    if quote && compat {
        out.push(b'"');
        out.extend_from_slice(name);
        out.push(b'"');
        return;
    }
    let mut first = Vec::with_capacity(name.len() + 2);
    let pending = single_quoted(&mut first, &units, false);
    if quote && pending {
        // gnulib writes such a name twice (its first pass only measures,
        // from the first quote on), and the second pass starts in the
        // state the first ended in: inside `$'...'`.  GNU's messages
        // show that: `'''a'\'''$'\n'` for a quote then a newline.
        single_quoted(out, &units, true);
    } else {
        out.extend_from_slice(&first);
    }
}

/// A piece of a name: a character shown as it is (its bytes, and where
/// in the name it starts), or a byte written as an ANSI-C escape.
#[derive(Clone, Copy)]
enum Unit<'a> {
    Char(&'a [u8], usize),
    Escape(u8),
}

/// `name` cut into characters and escaped bytes (control characters and
/// bytes that are not UTF-8).
fn units(name: &[u8]) -> Vec<Unit<'_>> {
    let mut v = Vec::with_capacity(name.len());
    let mut i = 0;
    while i < name.len() {
        let (valid, bad) = match std::str::from_utf8(&name[i..]) {
            Ok(s) => (s.len(), 0),
            Err(e) => (
                e.valid_up_to(),
                e.error_len().unwrap_or(name.len() - i - e.valid_up_to()),
            ),
        };
        let text = std::str::from_utf8(&name[i..i + valid]).expect("checked prefix");
        for (at, ch) in text.char_indices() {
            if (ch as u32) < 0x20 || ch as u32 == 0x7f {
                v.push(Unit::Escape(ch as u8));
            } else {
                v.push(Unit::Char(&name[i + at..i + at + ch.len_utf8()], i + at));
            }
        }
        v.extend(
            name[i + valid..i + valid + bad]
                .iter()
                .map(|&b| Unit::Escape(b)),
        );
        i += valid + bad;
    }
    v
}

/// Whether gnulib keeps a name (of `len` bytes) in double quotes with the
/// character `c` at `at` in it: not the shell's specials; `#` and `~`
/// only at the start (where they made the name need quotes), braces only
/// alone.
fn double_quote_compat(c: &[u8], at: usize, len: usize) -> bool {
    match c {
        [b'#' | b'~'] => at == 0,
        [b'{' | b'}'] => len == 1,
        [b'!' | b'"' | b'$' | b'&' | b'(' | b')' | b'*' | b';' | b'<' | b'=' | b'>' | b'['
        | b'^' | b'`' | b'|' | b'?' | b'\\'] => false,
        _ => true,
    }
}

/// Appends the name cut into `units` in single quotes, each run of
/// escapes in one `$'...'`; `pending`: start as if inside one already.
/// Returns whether it ended inside one (the closing quote then ends it,
/// without the `''` that reopens a plain quote).
fn single_quoted(out: &mut Vec<u8>, units: &[Unit<'_>], mut pending: bool) -> bool {
    out.push(b'\'');
    for u in units {
        match *u {
            Unit::Escape(b) => {
                if !pending {
                    out.extend_from_slice(b"'$'");
                    pending = true;
                }
                escape_byte(out, b);
            }
            Unit::Char(b"'", _) => {
                out.extend_from_slice(b"'\\''");
                pending = false;
            }
            Unit::Char(c, _) => {
                if pending {
                    out.extend_from_slice(b"''");
                    pending = false;
                }
                out.extend_from_slice(c);
            }
        }
    }
    out.push(b'\'');
    pending
}

/// Appends the ANSI-C escape of `b` (inside `$'...'`).
fn escape_byte(out: &mut Vec<u8>, b: u8) {
    out.push(b'\\');
    match b {
        0x07 => out.push(b'a'),
        0x08 => out.push(b'b'),
        0x0c => out.push(b'f'),
        0x0b => out.push(b'v'),
        b'\n' => out.push(b'n'),
        b'\t' => out.push(b't'),
        b'\r' => out.push(b'r'),
        _ => out.extend_from_slice(format!("{b:03o}").as_bytes()),
    }
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
