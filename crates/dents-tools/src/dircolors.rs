//! `LS_COLORS` values as dircolors writes them: ls and find read the
//! same variable with one reader ([`entries`]) into one key set ([`Key`]),
//! and undo its escapes with [`unescape`].
//!
//! The grammar is GNU ls's (`parse_ls_color`): entries split by `:`,
//! each `*SUFFIX=COLOR` or a two-letter key `KK=COLOR`, plus bfs's
//! three-letter keys for messages (`bld`, `wrn`, `err`).  What each tool
//! makes of an entry is its own: ls refuses the whole value at an unknown
//! key or a malformed entry, as GNU ls; find keeps what it read before a
//! malformed entry and passes over unknown keys, as bfs.

/// A key of `LS_COLORS`: GNU ls's 24, in GNU's order (so a table of
/// them is indexed by `key as usize`), then bfs's three.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Key {
    /// `lc`: the left code, before a color.
    Left,
    /// `rc`: the right code, after a color.
    Right,
    /// `ec`: the end code, after a painted name.
    End,
    /// `rs`: reset.
    Reset,
    /// `no`: normal text, and files whose color is empty.
    Normal,
    /// `fi`: regular file.
    File,
    /// `di`: directory.
    Dir,
    /// `ln`: symbolic link.
    Link,
    /// `pi`: named pipe.
    Pipe,
    /// `so`: socket.
    Socket,
    /// `bd`: block device.
    Block,
    /// `cd`: character device.
    Char,
    /// `mi`: missing file (cannot be stat'ed).
    Missing,
    /// `or`: broken symbolic link.
    Orphan,
    /// `ex`: executable regular file.
    Exec,
    /// `do`: door.
    Door,
    /// `su`: setuid file.
    Setuid,
    /// `sg`: setgid file.
    Setgid,
    /// `st`: sticky directory, not other-writable.
    Sticky,
    /// `ow`: other-writable directory, not sticky.
    OtherWritable,
    /// `tw`: sticky and other-writable directory.
    StickyOtherWritable,
    /// `ca`: file with capabilities.
    Capable,
    /// `mh`: regular file with several hard links.
    MultiHard,
    /// `cl`: clear to the end of the line.
    ClearLine,
    /// `bld`: bold, for messages (bfs's key).
    Bold,
    /// `wrn`: warnings (bfs's key).
    Warning,
    /// `err`: errors (bfs's key).
    Error,
}

impl Key {
    /// Every key, in the order of their discriminants.
    pub const ALL: [Key; 27] = [
        Key::Left,
        Key::Right,
        Key::End,
        Key::Reset,
        Key::Normal,
        Key::File,
        Key::Dir,
        Key::Link,
        Key::Pipe,
        Key::Socket,
        Key::Block,
        Key::Char,
        Key::Missing,
        Key::Orphan,
        Key::Exec,
        Key::Door,
        Key::Setuid,
        Key::Setgid,
        Key::Sticky,
        Key::OtherWritable,
        Key::StickyOtherWritable,
        Key::Capable,
        Key::MultiHard,
        Key::ClearLine,
        Key::Bold,
        Key::Warning,
        Key::Error,
    ];

    /// How many of [`Key::ALL`] are GNU ls's (the first ones).
    pub const GNU: usize = 24;

    /// The key's name in `LS_COLORS`.
    pub fn name(self) -> &'static str {
        const NAMES: [&str; 27] = [
            "lc", "rc", "ec", "rs", "no", "fi", "di", "ln", "pi", "so", "bd", "cd", "mi", "or",
            "ex", "do", "su", "sg", "st", "ow", "tw", "ca", "mh", "cl", "bld", "wrn", "err",
        ];
        NAMES[self as usize]
    }

    /// The key named `name`.
    pub fn from_name(name: &[u8]) -> Option<Key> {
        Key::ALL.into_iter().find(|k| k.name().as_bytes() == name)
    }

    /// Whether GNU ls knows the key (bfs's three it does not).
    pub fn is_gnu(self) -> bool {
        (self as usize) < Key::GNU
    }
}

/// One entry of an `LS_COLORS` value, its escapes undone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// `*SUFFIX=COLOR`: files whose name ends in the suffix.
    Ext(Vec<u8>, Vec<u8>),
    /// `KK=COLOR` of a known key.
    Key(Key, Vec<u8>),
    /// `KK=COLOR` of two letters no key has: GNU ls's "unrecognized
    /// prefix".
    Unknown(Vec<u8>),
}

/// An entry that cannot be read (no `=` where GNU wants one, or a value
/// ending in a dangling `\` or `^`): the reading ends there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Malformed;

/// The entries of an `LS_COLORS` value, in order, up to the first
/// malformed one (given as `Err`, the last item).
pub fn entries(value: &[u8]) -> Entries<'_> {
    Entries { rest: Some(value) }
}

/// The iterator of [`entries`].
#[derive(Debug)]
pub struct Entries<'a> {
    rest: Option<&'a [u8]>,
}

impl Iterator for Entries<'_> {
    type Item = Result<Entry, Malformed>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut p = self.rest?;
        while p.first() == Some(&b':') {
            p = &p[1..];
        }
        if p.is_empty() {
            self.rest = None;
            return None;
        }
        let read = || -> Option<(Entry, Option<&[u8]>)> {
            if let Some(after) = p.strip_prefix(b"*") {
                let (suffix, rest) = unescape(after, b'=')?;
                let (color, rest) = unescape(rest?, b':')?;
                return Some((Entry::Ext(suffix, color), rest));
            }
            // bfs's three-letter keys; else GNU's two bytes, then `=`.
            let bfs = p
                .get(..4)
                .and_then(|l| Key::from_name(&l[..3]).filter(|_| l[3] == b'='));
            let (key, len) = match bfs {
                Some(k) => (Some(k), 3),
                None if p.len() < 3 || p[2] != b'=' => return None,
                None => (Key::from_name(&p[..2]), 2),
            };
            let (color, rest) = unescape(&p[len + 1..], b':')?;
            let entry = match key {
                Some(k) => Entry::Key(k, color),
                None => Entry::Unknown(p[..2].to_vec()),
            };
            Some((entry, rest))
        };
        match read() {
            Some((entry, rest)) => {
                self.rest = rest;
                Some(Ok(entry))
            }
            None => {
                self.rest = None;
                Some(Err(Malformed))
            }
        }
    }
}

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
    use super::*;

    #[test]
    fn entries_as_gnu_ls_reads_them() {
        let all: Vec<_> = entries(b"::di=01;34:*.tar=31:xx=1:bld=1:ln=target:").collect();
        assert_eq!(
            all,
            [
                Ok(Entry::Key(Key::Dir, b"01;34".to_vec())),
                Ok(Entry::Ext(b".tar".to_vec(), b"31".to_vec())),
                Ok(Entry::Unknown(b"xx".to_vec())),
                Ok(Entry::Key(Key::Bold, b"1".to_vec())),
                Ok(Entry::Key(Key::Link, b"target".to_vec())),
            ]
        );
        // Not two letters and `=`, a suffix without `=`, a dangling `\`.
        for bad in [&b"di=1:abc=2:fi=3"[..], b"di=1:*.x", b"di=1:fi=\\"] {
            let all: Vec<_> = entries(bad).collect();
            assert_eq!(all.len(), 2, "{bad:?}");
            assert_eq!(all[1], Err(Malformed), "{bad:?}");
        }
        for k in Key::ALL {
            assert_eq!(Key::from_name(k.name().as_bytes()), Some(k));
            assert_eq!(k.is_gnu(), k.name().len() == 2);
        }
    }

    #[test]
    fn escapes_as_dircolors() {
        let (v, rest) = unescape(br"\e[1;\x33\061^[\_\:x:y", b':').unwrap();
        assert_eq!(v, b"\x1b[1;31\x1b :x");
        assert_eq!(rest, Some(&b"y"[..]));
        assert!(unescape(b"ab\\", b':').is_none());
    }
}
