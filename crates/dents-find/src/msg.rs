//! Messages as GNU find words them: `dents: 'PATH': CAUSE`, with paths
//! quoted in gnulib's `locale` style (ASCII quotes and C escapes in the C
//! locale, `‘’` in a UTF-8 one), and the exit status raised to 1.

use std::io;

use crate::errors;

/// find's status after any problem.
pub const FAILURE: i32 = 1;

/// Whether the locale's character set is UTF-8: that of the locale the
/// program adopted (`setlocale(LC_ALL, "")`, `dents_os::use_environment_locale`),
/// not the variables, so that a locale that is not installed (the C
/// locale stays) gets ASCII quotes, as GNU find's.
pub fn utf8_locale() -> bool {
    dents_os::locale_is_utf8()
}

/// The quotation marks of the locale's messages: `‘’` in a UTF-8 one,
/// ASCII quotes otherwise.
pub fn quote_marks(utf8: bool) -> (&'static str, &'static str) {
    if utf8 {
        ("\u{2018}", "\u{2019}")
    } else {
        ("'", "'")
    }
}

/// Appends `path` quoted for a message.
pub fn quote(out: &mut Vec<u8>, path: &[u8], utf8: bool) {
    let (open, close) = quote_marks(utf8);
    let (open, close) = (open.as_bytes(), close.as_bytes());
    out.extend_from_slice(open);
    let mut i = 0;
    while i < path.len() {
        let b = path[i];
        // A printable multibyte character stays itself in a UTF-8 locale.
        if b >= 0x80 && utf8 {
            let len = match b {
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf4 => 4,
                _ => 0,
            };
            if let Some(ch) = path
                .get(i..i + len)
                .and_then(|s| std::str::from_utf8(s).ok())
                .and_then(|s| s.chars().next())
            {
                if !ch.is_control() {
                    out.extend_from_slice(&path[i..i + len]);
                    i += len;
                    continue;
                }
            }
        }
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\'' if !utf8 => out.extend_from_slice(b"\\'"),
            0x07 => out.extend_from_slice(b"\\a"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x0b => out.extend_from_slice(b"\\v"),
            0x20..=0x7e => out.push(b),
            _ => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
        i += 1;
    }
    out.extend_from_slice(close);
}

/// Writes `dents: TEXT` and raises the command's status to 1.
pub fn error(text: &[u8]) {
    note(text);
    raise(FAILURE);
}

/// Raises the exit status of the command this thread works for.
pub fn raise(status: i32) {
    crate::ctx::with(|c| c.raise(status));
}

/// Writes `dents: TEXT`; the status is unchanged (what GNU says without
/// failing: a command that could not run, a link it could not read for
/// `-ls`).
pub fn note(text: &[u8]) {
    let mut m = Vec::with_capacity(text.len() + 8);
    crate::ctx::with(|c| c.prefix(&mut m, false));
    m.extend_from_slice(text);
    m.push(b'\n');
    errors::write_stderr(&m);
}

/// Writes `dents: warning: TEXT`; the status is unchanged.
pub fn warning(text: &str) {
    warning_bytes(text.as_bytes());
}

/// [`warning`] for a text that need not be UTF-8 (it quotes names).
pub fn warning_bytes(text: &[u8]) {
    let mut m = Vec::with_capacity(text.len() + 20);
    crate::ctx::with(|c| c.prefix(&mut m, true));
    m.extend_from_slice(text);
    m.push(b'\n');
    errors::write_stderr(&m);
}

/// The last quoted path of [`path_error`] that fitted GNU's buffer.
pub fn last_quoted() -> Option<Vec<u8>> {
    crate::ctx::with(|c| {
        c.last_quoted
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    })
}

/// Writes `dents: 'PATH': CAUSE` (or hands it to the caller's handler,
/// [`Command::on_path_error`](crate::Command::on_path_error)) and raises
/// the status to 1.
pub fn path_error(path: &[u8], e: &io::Error) {
    let handled = crate::ctx::with(|c| match c.path_error_handler() {
        Some(handler) => {
            handler(path, e);
            c.raise(FAILURE);
            true
        }
        None => false,
    });
    if handled {
        return;
    }
    let mut m = Vec::with_capacity(path.len() + 40);
    quote(&mut m, path, utf8_locale());
    if m.len() < 256 {
        // GNU quotes such paths into a fixed buffer of 256 bytes that a
        // later message about `-files0-from` reuses (see `files0`).
        crate::ctx::with(|c| {
            *c.last_quoted.lock().unwrap_or_else(|e| e.into_inner()) = Some(m.clone());
        });
    }
    m.extend_from_slice(b": ");
    m.extend_from_slice(errors::describe(e).as_bytes());
    error(&m);
}

/// The line [`path_error`] writes when no handler takes the error:
/// `dents: 'PATH': CAUSE` and a newline, in the current command's words
/// and colors (what a program taking errors as values may write itself).
pub fn path_error_line(path: &[u8], e: &io::Error) -> Vec<u8> {
    let mut m = Vec::with_capacity(path.len() + 48);
    crate::ctx::with(|c| c.prefix(&mut m, false));
    quote(&mut m, path, utf8_locale());
    m.extend_from_slice(b": ");
    m.extend_from_slice(errors::describe(e).as_bytes());
    m.push(b'\n');
    m
}

/// Writes `dents: WHAT 'PATH': CAUSE` (`cannot delete`) and raises the
/// status to 1.
pub fn action_error(what: &str, path: &[u8], e: &io::Error) {
    let mut m = Vec::with_capacity(path.len() + 40);
    m.extend_from_slice(what.as_bytes());
    m.push(b' ');
    quote(&mut m, path, utf8_locale());
    m.extend_from_slice(b": ");
    m.extend_from_slice(errors::describe(e).as_bytes());
    error(&m);
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn gnu_locale_quoting() {
        let mut v = Vec::new();
        quote(&mut v, b"a\nb\xff'q\\z\t\xc3\xa9", false);
        assert_eq!(v, b"'a\\nb\\377\\'q\\\\z\\t\\303\\251'");
        v.clear();
        quote(&mut v, "a'\u{e9}".as_bytes(), true);
        assert_eq!(v, "\u{2018}a'\u{e9}\u{2019}".as_bytes());
    }
}
