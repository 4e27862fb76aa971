//! `--exclude` patterns, matched as GNU du matches them: `fnmatch` with
//! no flags (so `*` matches `/` too and a leading `.` is not special)
//! against the whole path, and against every tail of it that starts
//! after a `/` (the patterns are not anchored).

/// A list of patterns; a path matching any is excluded.
#[derive(Clone, Debug, Default)]
pub struct Excludes {
    patterns: Vec<Vec<u8>>,
}

impl Excludes {
    /// Adds one pattern.
    pub fn add(&mut self, pattern: &[u8]) {
        self.patterns.push(pattern.to_vec());
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
            fnmatch(p, path)
                || path.iter().enumerate().any(|(i, &c)| {
                    // The tail after a final `/` is "" too, as gnulib
                    // tries it (`--exclude=` excludes `t/`).
                    c == b'/' && path.get(i + 1) != Some(&b'/') && fnmatch(p, &path[i + 1..])
                })
        })
    }
}

/// `fnmatch(pattern, s, 0)` on bytes: `*`, `?`, bracket expressions
/// (`!` or `^` negates, ranges, `[:class:]`), `\` quotes the next byte.
pub fn fnmatch(p: &[u8], s: &[u8]) -> bool {
    // Iterative with one backtrack point for the last `*`: linear enough
    // for the patterns people write.
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if pi < p.len() {
            match p[pi] {
                b'*' => {
                    while pi < p.len() && p[pi] == b'*' {
                        pi += 1;
                    }
                    star = Some((pi, si));
                    continue;
                }
                b'?' if si < s.len() => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                b'[' if si < s.len() => {
                    if let Some((matched, next)) = bracket(p, pi, s[si]) {
                        if matched {
                            pi = next;
                            si += 1;
                            continue;
                        }
                    } else if s[si] == b'[' {
                        // No closing bracket: a literal '['.
                        pi += 1;
                        si += 1;
                        continue;
                    }
                }
                b'\\' if pi + 1 < p.len() && si < s.len() && s[si] == p[pi + 1] => {
                    pi += 2;
                    si += 1;
                    continue;
                }
                // An escaped byte that differs: a mismatch.
                b'\\' if pi + 1 < p.len() => {}
                c if c != b'?' && c != b'[' && si < s.len() && s[si] == c => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                _ => {}
            }
        } else if si == s.len() {
            return true;
        }
        // Mismatch: let the last star take one more byte.
        match star {
            Some((sp, ss)) if ss < s.len() => {
                star = Some((sp, ss + 1));
                pi = sp;
                si = ss + 1;
            }
            _ => return false,
        }
    }
}

/// Matches `c` against the bracket expression at `p[start]` (a `[`):
/// `(matched, index after the closing ])`, or `None` if unclosed.
fn bracket(p: &[u8], start: usize, c: u8) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = matches!(p.get(i), Some(b'!' | b'^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let &b = p.get(i)?;
        if b == b']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if b == b'[' && p.get(i + 1) == Some(&b':') {
            let rest = &p[i + 2..];
            if let Some(end) = rest.windows(2).position(|w| w == b":]") {
                let class = &rest[..end];
                matched |= in_class(class, c);
                i += 2 + end + 2;
                continue;
            }
        }
        let (lo, next) = if b == b'\\' && i + 1 < p.len() {
            (p[i + 1], i + 2)
        } else {
            (b, i + 1)
        };
        if p.get(next) == Some(&b'-') && p.get(next + 1).is_some_and(|&x| x != b']') {
            let (hi, after) = if p[next + 1] == b'\\' && next + 2 < p.len() {
                (p[next + 2], next + 3)
            } else {
                (p[next + 1], next + 2)
            };
            matched |= lo <= c && c <= hi;
            i = after;
        } else {
            matched |= lo == c;
            i = next;
        }
    }
}

/// `[:class:]` in the C locale.
fn in_class(class: &[u8], c: u8) -> bool {
    match class {
        b"alpha" => c.is_ascii_alphabetic(),
        b"digit" => c.is_ascii_digit(),
        b"alnum" => c.is_ascii_alphanumeric(),
        b"upper" => c.is_ascii_uppercase(),
        b"lower" => c.is_ascii_lowercase(),
        b"space" => matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'),
        b"blank" => c == b' ' || c == b'\t',
        b"punct" => c.is_ascii_punctuation(),
        b"print" => (0x20..0x7f).contains(&c),
        b"graph" => (0x21..0x7f).contains(&c),
        b"cntrl" => c < 0x20 || c == 0x7f,
        b"xdigit" => c.is_ascii_hexdigit(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(fnmatch(b"*f", b"gt/a/f"));
        assert!(fnmatch(b"a?c", b"abc"));
        assert!(fnmatch(b"[a-c]x", b"bx"));
        assert!(!fnmatch(b"[!a-c]x", b"bx"));
        assert!(fnmatch(b"\\*", b"*"));
        assert!(fnmatch(b"*.o", b".o"));
        assert!(!fnmatch(b"*.o", b"a.c"));
        let mut e = Excludes::default();
        e.add(b"a");
        assert!(e.matches(b"gt/a"));
        assert!(!e.matches(b"gt/ab"));
        e.add(b"gt/b*");
        assert!(e.matches(b"gt/bc/d"));
    }
}
