//! Shell patterns as glibc's `fnmatch(3)` matches them, for find's
//! `-name`, `-path`, `-lname` and du's `--exclude`/`-X` alike (GNU's tools
//! both call `fnmatch` in the current locale): no flags (so `*` and `?`
//! match `/` and a leading `.`), or `FNM_CASEFOLD` for `-iname`.
//!
//! A pattern is compiled once into tokens.  In the C locale every byte is
//! a character.  In a UTF-8 locale a name that is valid UTF-8 matches if
//! it matches character by character or, failing that, byte by byte (as
//! glibc 2.36's `fnmatch` answers: `??` matches `é`, two bytes, as `?`
//! does); one that is not UTF-8, or a pattern that is not, is matched by
//! bytes alone, as glibc does when it cannot convert to wide characters.

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Glob {
    /// The pattern over bytes.
    bytes: Vec<Tok>,
    /// The pattern over characters, in a UTF-8 locale for a valid pattern.
    chars: Option<Vec<Tok>>,
    /// The pattern is ASCII: on an ASCII name, bytes and characters are
    /// one and the same match.
    ascii: bool,
    /// The pattern itself when it has no special characters (and no case
    /// folding): a plain comparison.
    literal: Option<Vec<u8>>,
    fold: bool,
}

/// One element of a pattern.
#[derive(Debug, Clone)]
enum Tok {
    /// This character.
    Lit(u32),
    /// `?`
    One,
    /// `*`
    Star,
    /// `[...]`; `neg` for `[!...]`.
    Set { neg: bool, items: Vec<Item> },
    /// A trailing backslash: nothing matches.
    Never,
}

/// One element of a bracket expression.
#[derive(Debug, Clone)]
enum Item {
    /// A character.
    Char(u32),
    /// A range `a-z`.
    Range(u32, u32),
    /// A class `[:alpha:]`.
    Class(Class),
}

/// The POSIX character classes.
#[derive(Debug, Clone, Copy)]
enum Class {
    Alnum,
    Alpha,
    Blank,
    Cntrl,
    Digit,
    Graph,
    Lower,
    Print,
    Punct,
    Space,
    Upper,
    Xdigit,
}

impl Glob {
    /// Compiles `pat`; `fold` ignores case; `utf8` (the locale's
    /// character set is UTF-8: `dents_os::locale_is_utf8`) matches
    /// characters rather than bytes where the pattern and name allow.
    pub fn new(pat: &[u8], fold: bool, utf8: bool) -> Glob {
        let units: Vec<u32> = pat.iter().map(|&b| b as u32).collect();
        let bytes = compile(&units);
        let chars = if utf8 {
            std::str::from_utf8(pat)
                .ok()
                .map(|s| compile(&s.chars().map(|c| c as u32).collect::<Vec<_>>()))
        } else {
            None
        };
        let special = pat.iter().any(|b| matches!(b, b'*' | b'?' | b'[' | b'\\'));
        let literal = (!special && !fold).then(|| pat.to_vec());
        Glob {
            bytes,
            chars,
            ascii: pat.is_ascii(),
            literal,
            fold,
        }
    }

    /// Whether `name` matches.
    pub fn matches(&self, name: &[u8]) -> bool {
        if let Some(lit) = &self.literal {
            return lit == name;
        }
        // No allocation on the common path (du tries every tail of every
        // path): a name of up to 256 bytes has at most 256 characters.
        let mut buf = [0u32; 256];
        if let Some(chars) = &self.chars {
            if let Ok(s) = std::str::from_utf8(name) {
                let hit = if name.len() <= buf.len() {
                    let mut n = 0;
                    for (d, c) in buf.iter_mut().zip(s.chars()) {
                        *d = c as u32;
                        n += 1;
                    }
                    match_units(chars, &buf[..n], self.fold, true)
                } else {
                    let units: Vec<u32> = s.chars().map(|c| c as u32).collect();
                    match_units(chars, &units, self.fold, true)
                };
                if hit || (self.ascii && name.is_ascii()) {
                    return hit;
                }
            }
        }
        if name.len() <= buf.len() {
            for (d, &b) in buf.iter_mut().zip(name) {
                *d = b as u32;
            }
            return match_units(&self.bytes, &buf[..name.len()], self.fold, false);
        }
        let units: Vec<u32> = name.iter().map(|&b| b as u32).collect();
        match_units(&self.bytes, &units, self.fold, false)
    }
}

/// Turns a pattern's characters into tokens.
fn compile(p: &[u32]) -> Vec<Tok> {
    let mut toks = Vec::new();
    let mut i = 0;
    while i < p.len() {
        let c = p[i];
        i += 1;
        match char::from_u32(c) {
            Some('*') => {
                // Consecutive stars are one.
                if !matches!(toks.last(), Some(Tok::Star)) {
                    toks.push(Tok::Star);
                }
            }
            Some('?') => toks.push(Tok::One),
            Some('\\') => match p.get(i) {
                Some(&n) => {
                    toks.push(Tok::Lit(n));
                    i += 1;
                }
                None => toks.push(Tok::Never),
            },
            Some('[') => match bracket(p, i) {
                Some((tok, next)) => {
                    toks.push(tok);
                    i = next;
                }
                // No closing bracket: a plain `[`.
                None => toks.push(Tok::Lit(c)),
            },
            _ => toks.push(Tok::Lit(c)),
        }
    }
    toks
}

/// Parses a bracket expression whose `[` is just before `i`; returns the
/// token and the index after its `]`, or `None` if it is not closed.
fn bracket(p: &[u32], mut i: usize) -> Option<(Tok, usize)> {
    let ch = |k: usize| p.get(k).copied().and_then(char::from_u32);
    let neg = matches!(ch(i), Some('!' | '^'));
    if neg {
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let c = *p.get(i)?;
        if c == ']' as u32 && !first {
            return Some((Tok::Set { neg, items }, i + 1));
        }
        first = false;
        // A class `[:name:]`.
        if c == '[' as u32 && ch(i + 1) == Some(':') {
            if let Some(end) = (i + 2..p.len().saturating_sub(1))
                .find(|&k| p[k] == ':' as u32 && p[k + 1] == ']' as u32)
            {
                let name: String = p[i + 2..end]
                    .iter()
                    .filter_map(|&u| char::from_u32(u))
                    .collect();
                let class = match name.as_str() {
                    "alnum" => Class::Alnum,
                    "alpha" => Class::Alpha,
                    "blank" => Class::Blank,
                    "cntrl" => Class::Cntrl,
                    "digit" => Class::Digit,
                    "graph" => Class::Graph,
                    "lower" => Class::Lower,
                    "print" => Class::Print,
                    "punct" => Class::Punct,
                    "space" => Class::Space,
                    "upper" => Class::Upper,
                    "xdigit" => Class::Xdigit,
                    // An unknown class makes the whole pattern invalid for
                    // glibc, which then matches nothing.
                    _ => return Some((Tok::Never, end + 2)),
                };
                items.push(Item::Class(class));
                i = end + 2;
                continue;
            }
        }
        let (lo, next) = if c == '\\' as u32 {
            (*p.get(i + 1)?, i + 2)
        } else {
            (c, i + 1)
        };
        i = next;
        // A range, unless the `-` is last.
        if ch(i) == Some('-') && p.get(i + 1).is_some_and(|&u| u != ']' as u32) {
            let mut hi = p[i + 1];
            i += 2;
            if hi == '\\' as u32 {
                hi = *p.get(i)?;
                i += 1;
            }
            items.push(Item::Range(lo, hi));
        } else {
            items.push(Item::Char(lo));
        }
    }
}

/// The lower-case form of a character (ASCII only in byte mode).
fn lower(c: u32, chars: bool) -> u32 {
    if c < 128 {
        return (c as u8).to_ascii_lowercase() as u32;
    }
    if !chars {
        return c;
    }
    char::from_u32(c)
        .and_then(|ch| {
            let mut l = ch.to_lowercase();
            let first = l.next()?;
            l.next().is_none().then_some(first as u32)
        })
        .unwrap_or(c)
}

/// The upper-case form of a character (ASCII only in byte mode).
fn upper(c: u32, chars: bool) -> u32 {
    if c < 128 {
        return (c as u8).to_ascii_uppercase() as u32;
    }
    if !chars {
        return c;
    }
    char::from_u32(c)
        .and_then(|ch| {
            let mut u = ch.to_uppercase();
            let first = u.next()?;
            u.next().is_none().then_some(first as u32)
        })
        .unwrap_or(c)
}

/// Whether `c` is in the class (non-ASCII bytes are in none, as in the C
/// locale; non-ASCII characters by Unicode's properties).
fn in_class(class: Class, c: u32, chars: bool) -> bool {
    if c >= 128 {
        if !chars {
            return false;
        }
        let Some(ch) = char::from_u32(c) else {
            return false;
        };
        return match class {
            Class::Alnum => ch.is_alphanumeric(),
            Class::Alpha => ch.is_alphabetic(),
            Class::Lower => ch.is_lowercase(),
            Class::Upper => ch.is_uppercase(),
            Class::Space => ch.is_whitespace(),
            Class::Print | Class::Graph => !ch.is_control() && !ch.is_whitespace(),
            Class::Cntrl => ch.is_control(),
            _ => false,
        };
    }
    let b = c as u8;
    match class {
        Class::Alnum => b.is_ascii_alphanumeric(),
        Class::Alpha => b.is_ascii_alphabetic(),
        Class::Blank => b == b' ' || b == b'\t',
        Class::Cntrl => b.is_ascii_control(),
        Class::Digit => b.is_ascii_digit(),
        Class::Graph => b.is_ascii_graphic(),
        Class::Lower => b.is_ascii_lowercase(),
        Class::Print => b.is_ascii_graphic() || b == b' ',
        Class::Punct => b.is_ascii_punctuation(),
        Class::Space => matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'),
        Class::Upper => b.is_ascii_uppercase(),
        Class::Xdigit => b.is_ascii_hexdigit(),
    }
}

/// Whether one token (not a star) matches the character `c`.
fn one(tok: &Tok, c: u32, fold: bool, chars: bool) -> bool {
    match tok {
        Tok::Lit(l) => *l == c || fold && lower(*l, chars) == lower(c, chars),
        Tok::One => true,
        Tok::Star | Tok::Never => false,
        Tok::Set { neg, items } => {
            let variants = if fold {
                [c, lower(c, chars), upper(c, chars)]
            } else {
                [c; 3]
            };
            let hit = items.iter().any(|it| {
                variants.iter().any(|&v| match *it {
                    Item::Char(x) => x == v,
                    Item::Range(lo, hi) => lo <= v && v <= hi,
                    Item::Class(cl) => in_class(cl, v, chars),
                })
            });
            hit != *neg
        }
    }
}

/// Matches tokens against a whole string: the classic loop that remembers
/// the last star and retries from one character further on a mismatch
/// (enough, since a star may match anything, `/` included).
fn match_units(toks: &[Tok], s: &[u32], fold: bool, chars: bool) -> bool {
    let (mut t, mut i) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if t < toks.len() {
            match &toks[t] {
                Tok::Star => {
                    star = Some((t, i));
                    t += 1;
                    continue;
                }
                Tok::Never => return false,
                tok => {
                    if i < s.len() && one(tok, s[i], fold, chars) {
                        t += 1;
                        i += 1;
                        continue;
                    }
                }
            }
        } else if i == s.len() {
            return true;
        }
        // Mismatch: let the last star take one more character.
        match star {
            Some((st, si)) if si < s.len() => {
                star = Some((st, si + 1));
                t = st + 1;
                i = si + 1;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Glob;

    fn m(p: &str, s: &str) -> bool {
        Glob::new(p.as_bytes(), false, false).matches(s.as_bytes())
    }

    #[test]
    fn fnmatch_basics() {
        assert!(m("*.c", "a.c"));
        assert!(m("*", ".hidden"));
        assert!(m("a*b*c", "a/xbyc"));
        assert!(!m("a*b*c", "a/xbyd"));
        assert!(m("?", "x"));
        assert!(!m("?", ""));
        assert!(m("[a-c]x", "bx"));
        assert!(m("[!a-c]x", "dx"));
        assert!(m("[]]", "]"));
        assert!(m("[[:digit:]]*", "1abc"));
        assert!(m("[", "["));
        assert!(m("\\*", "*"));
        assert!(!m("a\\", "a\\"));
        assert!(Glob::new(b"*.C", true, false).matches(b"x.c"));
    }

    fn u(p: &str, s: &[u8]) -> bool {
        Glob::new(p.as_bytes(), false, true).matches(s)
    }

    #[test]
    fn utf8_characters_or_else_bytes() {
        // One character, or failing that its bytes, as glibc 2.36.
        assert!(u("?", "é".as_bytes()));
        assert!(u("??", "é".as_bytes()));
        assert!(u("[é]", "é".as_bytes()));
        assert!(u("[[:alpha:]]", "é".as_bytes()));
        assert!(!u("[[:alpha:]][[:alpha:]]", "é".as_bytes()));
        // Never a mixture of the two readings.
        assert!(!u("[é]??", "éé".as_bytes()));
        assert!(!u("[!é][!é]", "é".as_bytes()));
        // Not UTF-8: bytes only.
        assert!(u("?", b"\xff"));
        assert!(!u("??", b"\xc3\xa9\xff"));
    }
}
