//! `--exclude` patterns, matched as GNU du matches them (gnulib's
//! `exclude_fnmatch`): `fnmatch` with no flags, in the current locale
//! (`dents_tools::glob`, find's matcher: so `*` matches `/` too, a
//! leading `.` is not special, and in a UTF-8 locale `?` and `[...]` take
//! whole characters), against the whole path and against every tail of
//! it that starts after a `/` (the patterns are not anchored).

use dents_tools::glob::Glob;

/// A list of patterns; a path matching any is excluded.
#[derive(Clone, Debug, Default)]
pub struct Excludes {
    patterns: Vec<Pattern>,
}

/// One pattern as gnulib's `add_exclude` keeps it.
#[derive(Clone, Debug)]
enum Pattern {
    /// With wildcards: matched by `fnmatch`.
    Glob(Glob),
    /// Without (no `?*[]`): a plain name, its backslashes undone, compared
    /// byte for byte (gnulib's hash table of names; so a trailing `\`
    /// stays and matches itself, where `fnmatch` would match nothing).
    Name(Vec<u8>),
}

impl Pattern {
    fn matches(&self, s: &[u8]) -> bool {
        match self {
            Pattern::Glob(g) => g.matches(s),
            Pattern::Name(n) => n == s,
        }
    }
}

/// gnulib's `fnmatch_pattern_has_wildcards` with du's options: `?*[]`,
/// outside a backslash's escape.
fn has_wildcards(p: &[u8]) -> bool {
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            b'\\' => i += 1,
            b'?' | b'*' | b'[' | b']' => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// gnulib's `unescape_pattern`: each backslash before another byte goes.
fn unescape(p: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        if p[i] == b'\\' && i + 1 < p.len() {
            i += 1;
        }
        out.push(p[i]);
        i += 1;
    }
    out
}

impl Excludes {
    /// Adds one pattern, read in the current locale (as GNU du's
    /// `fnmatch` reads it: characters in a UTF-8 one, bytes otherwise).
    pub fn add(&mut self, pattern: &[u8]) {
        self.patterns.push(if has_wildcards(pattern) {
            Pattern::Glob(Glob::new(pattern, false, dents_os::locale_is_utf8()))
        } else {
            Pattern::Name(unescape(pattern))
        });
    }

    /// Adds the patterns of an `-X` file: one a line, as gnulib's
    /// `add_exclude_file` reads them for GNU du.  A line's trailing
    /// whitespace (space, `\t`, `\r`, `\v`, `\f`) is not part of its
    /// pattern, so a file written with CRLF line ends works; a line of
    /// nothing but whitespace is skipped; leading whitespace is kept.  A
    /// pattern ends at a NUL byte (gnulib hands it on as a C string).
    pub fn add_lines(&mut self, text: &[u8]) {
        for line in text.split(|&c| c == b'\n') {
            let end = line
                .iter()
                .rposition(|&c| !matches!(c, b' ' | b'\t' | b'\r' | 0x0b | 0x0c))
                .map_or(0, |i| i + 1);
            let line = &line[..end];
            let pattern = match line.iter().position(|&c| c == 0) {
                Some(nul) => &line[..nul],
                None => line,
            };
            // A line of blanks is skipped; one cut to nothing by a NUL
            // is a pattern (the tail after a final `/` matches it).
            if !line.is_empty() {
                self.add(pattern);
            }
        }
    }

    /// Whether there is no pattern.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether `path` is excluded.
    pub fn matches(&self, path: &[u8]) -> bool {
        self.patterns.iter().any(|p| {
            p.matches(path)
                || path.iter().enumerate().any(|(i, &c)| {
                    // The tail after a final `/` is "" too, as gnulib
                    // tries it (`--exclude=` excludes `t/`).
                    c == b'/' && path.get(i + 1) != Some(&b'/') && p.matches(&path[i + 1..])
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let mut e = Excludes::default();
        e.add(b"a");
        assert!(e.matches(b"gt/a"));
        assert!(!e.matches(b"gt/ab"));
        e.add(b"gt/b*");
        assert!(e.matches(b"gt/bc/d"));
        // No wildcard: a name, backslashes undone but a trailing one.
        e.add(b"x\\y\\");
        assert!(e.matches(b"t/xy\\"));
        assert!(!e.matches(b"t/x\\y\\"));
    }
}
