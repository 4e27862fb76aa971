//! Colors from `LS_COLORS`, as GNU ls reads them and bfs paints paths.
//!
//! A path is painted in two spans: its directory part (`t/sub/`) in the
//! directory color, then the name in the color of the file's kind: `su`,
//! `sg`, `ca`, `ex`, `mh`, then the extension (`*.tar=...`), then `fi`
//! for a regular file; `tw`, `ow`, `st`, then `di` for a directory; `or`
//! for a broken link, else `ln` (`ln=target`: the color of what the link
//! points to); `bd`, `cd`, `pi`, `so`; `mi` (or `or`) for a file that
//! cannot be stat'ed.  A name whose color is the directory color itself
//! joins the directory part in one span.  Each span is `lc` + color +
//! `rc`, the text, then `ec` (default `lc` `rs` `rc`); a kind without a
//! color is written plain; an empty color stands for `no`.  Values made
//! of zeros only (`00`) mean "no color of its own, fall back", except
//! for `rs`, `lc`, `rc`, `ec`.  Without `LS_COLORS`, GNU's default
//! colors apply.  The value is read with ls's reader
//! ([`dents_tools::dircolors::entries`], GNU ls's grammar, and its keys):
//! an unknown key is passed over, a malformed entry ends the reading
//! (what came before is kept).  Escapes in values are those of dircolors
//! (`\e`, `\033`, `\x1b`, `^[`, `\_`...).  Extensions are matched by longest suffix,
//! case-insensitively unless the same extension is given twice in two
//! cases with two colors ("smart case", as GNU ls 9 and bfs).
//!
//! Not the `lscolors` crate: it re-renders the colors through a style
//! type (`01;34` comes out as `1;34`, so output would not be GNU ls's
//! bytes), ignores `lc`/`rc`/`ec` and the escape syntax, matches
//! extensions only on UTF-8 names, and wants `std::fs::Metadata`, a
//! second stat of every file.
//!
//! Which kinds need a stat (`su sg ex mh st ow tw`: the mode or the link
//! count) is told by [`Colors::stat_mask`]; the walk fetches those fields
//! only when colors are on, and only regular files and directories are
//! stat'ed for them, as bfs does.
//!
//! For `-printf` (bfs colors `%p`, `%P`, `%f`, `%h`, `%H` when written
//! plainly, with no width or flags): [`Colors::path`], [`Colors::path_from`],
//! [`Colors::name`], [`Colors::dir`].

use std::collections::HashMap;
use std::os::unix::ffi::OsStrExt;

use dents::walk::Visit;
use dents::FileType;
use dents::StatFields;
use dents_tools::dircolors::Key;
use dents_tools::dircolors::{entries, Entry};
use rustix::fs::{Access, AtFlags};

/// The keys find paints with, and GNU's (and bfs's) default colors.
const TABLE: [(Key, Option<&str>); 23] = [
    (Key::Reset, Some("0")),
    (Key::Normal, None),
    (Key::File, Some("")),
    (Key::MultiHard, None),
    (Key::Exec, Some("01;32")),
    (Key::Capable, None),
    (Key::Setgid, Some("30;43")),
    (Key::Setuid, Some("37;41")),
    (Key::Dir, Some("01;34")),
    (Key::Sticky, Some("37;44")),
    (Key::OtherWritable, Some("34;42")),
    (Key::StickyOtherWritable, Some("30;42")),
    (Key::Link, Some("01;36")),
    (Key::Orphan, None),
    (Key::Missing, None),
    (Key::Block, Some("01;33")),
    (Key::Char, Some("01;33")),
    (Key::Door, Some("01;35")),
    (Key::Pipe, Some("33")),
    (Key::Socket, Some("01;35")),
    (Key::Bold, Some("01;39")),
    (Key::Warning, Some("01;33")),
    (Key::Error, Some("01;31")),
];

/// A colored extension (`*.tar=01;31`).
#[derive(Debug, Clone)]
struct Ext {
    /// The suffix, as written.
    key: Vec<u8>,
    /// Its color.
    seq: Vec<u8>,
    /// Case-sensitive ("smart case": given in two cases, two colors).
    sensitive: bool,
}

/// The parsed color table.
#[derive(Debug, Clone)]
pub struct Colors {
    seqs: Vec<Option<Vec<u8>>>,
    left: Vec<u8>,
    right: Vec<u8>,
    end: Vec<u8>,
    /// `ln=target`.
    link_as_target: bool,
    /// Extensions in the order given (later ones win ties).
    exts: Vec<Ext>,
    /// Exact suffix -> index in `exts`.
    exact: HashMap<Vec<u8>, usize>,
    /// Lower-cased suffix -> index, for the case-insensitive ones.
    folded: HashMap<Vec<u8>, usize>,
    /// The suffix lengths present, longest first.
    lens: Vec<usize>,
}

/// How the text of a span is written: raw, or (on a terminal) with
/// unprintable characters as `?` as GNU find prints them (`Some(utf8
/// locale)`).
pub type Tty = Option<bool>;

/// Appends `path` with each unprintable character (or byte that is no
/// character, in a UTF-8 locale) as `?`, as GNU find prints on a terminal.
pub fn qmarks(out: &mut Vec<u8>, path: &[u8], utf8: bool) {
    if !utf8 {
        out.extend(
            path.iter()
                .map(|&b| if (0x20..0x7f).contains(&b) { b } else { b'?' }),
        );
        return;
    }
    for chunk in path.utf8_chunks() {
        for ch in chunk.valid().chars() {
            if ch.is_control() {
                out.push(b'?');
            } else {
                let mut tmp = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
            }
        }
        out.extend(chunk.invalid().iter().map(|_| b'?'));
    }
}

impl Default for Colors {
    /// GNU's default colors.
    fn default() -> Colors {
        Colors::parse(b"")
    }
}

impl Colors {
    /// The table from `LS_COLORS` over GNU's defaults (the defaults alone
    /// if it is unset or empty).
    pub fn from_env() -> Colors {
        let v = std::env::var_os("LS_COLORS").unwrap_or_default();
        Colors::parse(v.as_bytes())
    }

    /// The table from an `LS_COLORS` value over GNU's defaults.  A value
    /// that ends in the middle of an escape ends the reading there.
    pub fn parse(ls_colors: &[u8]) -> Colors {
        let mut seqs: Vec<Option<Vec<u8>>> = vec![None; Key::ALL.len()];
        for (k, d) in TABLE {
            seqs[k as usize] = d.map(|s| s.as_bytes().to_vec());
        }
        let mut left = b"\x1b[".to_vec();
        let mut right = b"m".to_vec();
        let mut end: Option<Vec<u8>> = None;
        let mut link_as_target = false;
        let mut exts: Vec<Ext> = Vec::new();
        // A malformed entry ends the reading; what came before stays.
        for entry in entries(ls_colors).map_while(Result::ok) {
            let (key, value) = match entry {
                Entry::Ext(key, seq) => {
                    // A later `*.x` replaces every earlier `*.x` and `*.y.x`.
                    exts.retain(|e| !e.key.ends_with(&key));
                    exts.push(Ext {
                        key,
                        seq,
                        sensitive: false,
                    });
                    continue;
                }
                Entry::Unknown(_) => continue,
                Entry::Key(key, value) => (key, value),
            };
            let raw = matches!(key, Key::Reset | Key::Left | Key::Right | Key::End);
            let value = (raw || value.iter().any(|&b| b != b'0')).then_some(value);
            match key {
                Key::Left => left = value.unwrap_or_default(),
                Key::Right => right = value.unwrap_or_default(),
                Key::End => end = value,
                Key::Link if value.as_deref() == Some(b"target") => {
                    link_as_target = true;
                    seqs[Key::Link as usize] = Some(Vec::new());
                }
                // Not painted with: no line is cleared.
                Key::ClearLine => {}
                _ => {
                    if key == Key::Link {
                        link_as_target = false;
                    }
                    seqs[key as usize] = value;
                }
            }
        }
        // Smart case: an extension given again in another case with
        // another color makes both case-sensitive.
        let mut by_lower: HashMap<Vec<u8>, usize> = HashMap::new();
        for i in 0..exts.len() {
            let lower = exts[i].key.to_ascii_lowercase();
            if let Some(&j) = by_lower.get(&lower) {
                if exts[j].sensitive || exts[j].seq != exts[i].seq {
                    exts[i].sensitive = true;
                    exts[j].sensitive = true;
                }
            }
            by_lower.insert(lower, i);
        }
        let mut exact = HashMap::new();
        let mut folded: HashMap<Vec<u8>, usize> = HashMap::new();
        for (i, e) in exts.iter().enumerate() {
            exact.insert(e.key.clone(), i);
            if !e.sensitive {
                let lower = e.key.to_ascii_lowercase();
                folded.retain(|k, _| !k.ends_with(&lower));
                folded.insert(lower, i);
            }
        }
        let mut lens: Vec<usize> = exts.iter().map(|e| e.key.len()).collect();
        lens.sort_unstable_by(|a, b| b.cmp(a));
        lens.dedup();
        let end = end.unwrap_or_else(|| {
            let mut e = left.clone();
            e.extend_from_slice(seqs[Key::Reset as usize].as_deref().unwrap_or_default());
            e.extend_from_slice(&right);
            e
        });
        Colors {
            seqs,
            left,
            right,
            end,
            link_as_target,
            exts,
            exact,
            folded,
            lens,
        }
    }

    /// The color of `key`, if it has one.
    pub fn get(&self, key: Key) -> Option<&[u8]> {
        self.seqs[key as usize].as_deref()
    }

    fn has(&self, key: Key) -> bool {
        self.seqs[key as usize].is_some()
    }

    /// The stat fields coloring reads (the mode for `su sg ex st ow tw`,
    /// the link count for `mh`); empty if names and types suffice.
    pub fn stat_mask(&self) -> StatFields {
        let mut m = StatFields::empty();
        if [
            Key::Setuid,
            Key::Setgid,
            Key::Exec,
            Key::Sticky,
            Key::OtherWritable,
            Key::StickyOtherWritable,
        ]
        .iter()
        .any(|&k| self.has(k))
        {
            m |= StatFields::MODE;
        }
        if self.has(Key::MultiHard) {
            m |= StatFields::NLINK;
        }
        m
    }

    /// The color of a name by its extension, if any.
    fn ext(&self, name: &[u8]) -> Option<&[u8]> {
        if self.exts.is_empty() {
            return None;
        }
        let longest = self.lens.first().copied().unwrap_or(0).min(name.len());
        let lower = name[name.len() - longest..].to_ascii_lowercase();
        let mut exact = None;
        let mut folded = None;
        for &len in self.lens.iter().filter(|&&l| l <= name.len()) {
            if exact.is_none() {
                exact = self.exact.get(&name[name.len() - len..]).copied();
            }
            if folded.is_none() {
                folded = self.folded.get(&lower[lower.len() - len..]).copied();
            }
            if exact.is_some() && folded.is_some() {
                break;
            }
        }
        let i = match (exact, folded) {
            (Some(e), Some(f)) => e.max(f),
            (e, f) => e.or(f)?,
        };
        Some(&self.exts[i].seq)
    }

    /// The color of a regular file or directory by its mode, link count,
    /// name (and, for `ca`, its capabilities).
    fn by_mode(
        &self,
        t: FileType,
        st: Option<(u32, u64)>,
        name: &[u8],
        caps: &dyn Fn() -> bool,
    ) -> Paint<'_> {
        let mode = st.map_or(0, |s| s.0);
        let nlink = st.map_or(1, |s| s.1);
        if t.is_dir() {
            let key = if self.has(Key::StickyOtherWritable) && mode & 0o1002 == 0o1002 {
                Key::StickyOtherWritable
            } else if self.has(Key::OtherWritable) && mode & 0o0002 != 0 {
                Key::OtherWritable
            } else if self.has(Key::Sticky) && mode & 0o1000 != 0 {
                Key::Sticky
            } else {
                Key::Dir
            };
            return self.paint(key);
        }
        let key = if self.has(Key::Setuid) && mode & 0o4000 != 0 {
            Some(Key::Setuid)
        } else if self.has(Key::Setgid) && mode & 0o2000 != 0 {
            Some(Key::Setgid)
        } else if self.has(Key::Capable) && caps() {
            Some(Key::Capable)
        } else if self.has(Key::Exec) && mode & 0o111 != 0 {
            Some(Key::Exec)
        } else if self.has(Key::MultiHard) && nlink > 1 {
            Some(Key::MultiHard)
        } else {
            None
        };
        match key {
            Some(k) => self.paint(k),
            None => match self.ext(name) {
                Some([]) => self.paint(Key::Normal),
                Some(seq) => Paint::Seq(seq),
                None => self.paint(Key::File),
            },
        }
    }

    /// The paint of a key; an empty color stands for `no`.
    fn paint(&self, key: Key) -> Paint<'_> {
        match self.get(key) {
            None => Paint::None,
            Some([]) if key != Key::Normal => self.paint(Key::Normal),
            Some(seq) => Paint::Key(key, seq),
        }
    }

    /// The paint of a file that cannot be stat'ed.
    fn missing(&self) -> Paint<'_> {
        if self.has(Key::Missing) {
            self.paint(Key::Missing)
        } else {
            self.paint(Key::Orphan)
        }
    }

    /// The paint of the visited file's name (`name`: how it is written).
    fn file(&self, v: &Visit<'_>, name: &[u8]) -> Paint<'_> {
        let t = v.file_type();
        let mode_of = |st: &dents::Metadata| (st.mode(), st.nlink());
        let caps = || has_capabilities(v.path());
        match t {
            FileType::UNKNOWN => self.missing(),
            FileType::REGULAR | FileType::DIRECTORY => {
                let keys: &[Key] = if t.is_dir() {
                    &[Key::Sticky, Key::OtherWritable, Key::StickyOtherWritable]
                } else {
                    &[Key::Setuid, Key::Setgid, Key::Exec, Key::MultiHard]
                };
                let needs = keys.iter().any(|&k| self.has(k));
                let st = if needs {
                    match v.metadata() {
                        Ok(st) => Some(mode_of(st)),
                        Err(_) => return self.missing(),
                    }
                } else {
                    None
                };
                self.by_mode(t, st, name, &caps)
            }
            FileType::SYMLINK => {
                // A link seen while following links is one that leads
                // nowhere.
                let broken = || {
                    v.follows_links()
                        || rustix::fs::accessat(
                            v.parent_fd(),
                            v.at_name(),
                            Access::EXISTS,
                            AtFlags::empty(),
                        )
                        .is_err()
                };
                if self.link_as_target && !v.follows_links() {
                    let mask = self.stat_mask() | StatFields::TYPE | StatFields::MODE;
                    if let Ok(st) = dents::fs::stat_follow_at(v.parent_fd(), v.at_name(), mask) {
                        let tt = st.file_type();
                        return match tt {
                            FileType::REGULAR | FileType::DIRECTORY => {
                                self.by_mode(tt, Some(mode_of(&st)), name, &caps)
                            }
                            other => self.by_type(other),
                        };
                    }
                    if self.has(Key::Orphan) {
                        return self.paint(Key::Orphan);
                    }
                    return self.paint(Key::Link);
                }
                if self.has(Key::Orphan) && broken() {
                    self.paint(Key::Orphan)
                } else {
                    self.paint(Key::Link)
                }
            }
            other => self.by_type(other),
        }
    }

    /// The paint of the other kinds of files.
    fn by_type(&self, t: FileType) -> Paint<'_> {
        match t {
            FileType::BLOCK_DEVICE => self.paint(Key::Block),
            FileType::CHAR_DEVICE => self.paint(Key::Char),
            FileType::FIFO => self.paint(Key::Pipe),
            FileType::SOCKET => self.paint(Key::Socket),
            FileType::SYMLINK => self.paint(Key::Link),
            _ => Paint::None,
        }
    }

    /// Appends `text` in one span of `paint`.
    fn span(&self, out: &mut Vec<u8>, paint: Paint<'_>, text: &[u8], tty: Tty) {
        if text.is_empty() {
            return;
        }
        let seq = match paint {
            Paint::None => None,
            Paint::Key(_, s) | Paint::Seq(s) => Some(s),
        };
        if let Some(seq) = seq {
            out.extend_from_slice(&self.left);
            out.extend_from_slice(seq);
            out.extend_from_slice(&self.right);
        }
        put_text(out, text, tty);
        if seq.is_some() {
            out.extend_from_slice(&self.end);
        }
    }

    /// Appends `text` in the directory color (`%h`, `%H`).
    pub fn dir(&self, out: &mut Vec<u8>, text: &[u8], tty: Tty) {
        let di = self
            .get(Key::Dir)
            .map_or(Paint::None, |s| Paint::Key(Key::Dir, s));
        self.span(out, di, text, tty);
    }

    /// Appends the visited file's path colored: its directory part in the
    /// directory color, its name in its own (`-print`, `%p`).
    pub fn path(&self, out: &mut Vec<u8>, v: &Visit<'_>, tty: Tty) {
        self.path_from(out, v, 0, tty);
    }

    /// Appends the visited file's path from byte `start` on, colored as
    /// [`Colors::path`] colors it (`%P`: the path below the root).
    pub fn path_from(&self, out: &mut Vec<u8>, v: &Visit<'_>, start: usize, tty: Tty) {
        let path = v.path();
        let nameoff = name_offset(v);
        let name = &path[nameoff..];
        let paint = self.file(v, name);
        let start = start.min(path.len());
        if matches!(paint, Paint::Key(Key::Dir, _)) {
            self.span(out, paint, &path[start..], tty);
            return;
        }
        if start < nameoff {
            self.dir(out, &path[start..nameoff], tty);
        }
        self.span(out, paint, &path[nameoff.max(start)..], tty);
    }

    /// Appends the visited file's name in its color (`%f`).
    pub fn name(&self, out: &mut Vec<u8>, v: &Visit<'_>, tty: Tty) {
        let path = v.path();
        let name = &path[name_offset(v)..];
        let paint = self.file(v, name);
        self.span(out, paint, name, tty);
    }

    /// Appends the start of a message, `PROGRAM: ` (and `warning: `), in
    /// bfs's message colors.
    pub fn message_prefix(&self, out: &mut Vec<u8>, program: &[u8], warning: bool) {
        let paint = |k: Key| self.get(k).map_or(Paint::None, |s| Paint::Key(k, s));
        let mut head = program.to_vec();
        head.push(b':');
        self.span(out, paint(Key::Bold), &head, None);
        out.push(b' ');
        if warning {
            self.span(out, paint(Key::Warning), b"warning:", None);
            out.push(b' ');
        }
    }
}

/// What a span is painted with.
#[derive(Copy, Clone, Debug)]
enum Paint<'a> {
    /// Nothing: plain text.
    None,
    /// A color of the table.
    Key(Key, &'a [u8]),
    /// An extension's color.
    Seq(&'a [u8]),
}

/// Where the name starts in a visited path: after the last `/` of an
/// entry, and for a starting point as bfs cuts it (`t/sub/` is `t/` and
/// `sub/`; `/` and `.` are all name).
fn name_offset(v: &Visit<'_>) -> usize {
    let path = v.path();
    if v.depth() > 0 {
        return path.len() - v.name().len();
    }
    let mut i = path.len();
    while i > 0 && path[i - 1] == b'/' {
        i -= 1;
    }
    while i > 0 && path[i - 1] != b'/' {
        i -= 1;
    }
    while i + 1 < path.len() && path[i] == b'/' {
        i += 1;
    }
    i
}

/// Appends `text` raw, or with unprintable characters as `?` on a
/// terminal.
fn put_text(out: &mut Vec<u8>, text: &[u8], tty: Tty) {
    match tty {
        Some(utf8) => qmarks(out, text, utf8),
        None => out.extend_from_slice(text),
    }
}

/// Whether a file has capabilities (`security.capability`), for `ca`.
fn has_capabilities(path: &[u8]) -> bool {
    let Ok(c) = std::ffi::CString::new(path) else {
        return false;
    };
    let mut buf = [0u8; 64];
    rustix::fs::lgetxattr(c.as_c_str(), c"security.capability", &mut buf[..]).is_ok_and(|n| n > 0)
}

/// Whether colors are on by default: the stream is a terminal and
/// `NO_COLOR` is unset or empty (<https://no-color.org>).
pub fn auto(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").map_or(true, |v| v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_fallbacks() {
        let c = Colors::parse(b"di=01;35:fi=00:ex=:*.gz=31:*.GZ=32:*.Tar=33:ec=E");
        assert_eq!(c.get(Key::Dir), Some(&b"01;35"[..]));
        assert_eq!(c.get(Key::File), None);
        assert_eq!(c.get(Key::Exec), None);
        // Two cases, two colors: case-sensitive; one case: either.
        assert_eq!(c.ext(b"a.gz"), Some(&b"31"[..]));
        assert_eq!(c.ext(b"a.GZ"), Some(&b"32"[..]));
        assert_eq!(c.ext(b"a.Gz"), None);
        assert_eq!(c.ext(b"a.tAR"), Some(&b"33"[..]));
        assert_eq!(c.end, b"E");
        // A later *.x drops an earlier *.y.x; longest suffix wins.
        let c = Colors::parse(b"*.tar.gz=1:*.gz=2:*.x.y=3:*.y=4:*.b.y=5");
        assert_eq!(c.ext(b"a.tar.gz"), Some(&b"2"[..]));
        assert_eq!(c.ext(b"a.b.y"), Some(&b"5"[..]));
        assert_eq!(c.ext(b"a.x.y"), Some(&b"4"[..]));
        assert_eq!(Colors::default().end, b"\x1b[0m");
        assert_eq!(Colors::parse(b"rs=7:lc=<:rc=>").end, b"<7>");
    }

    #[test]
    fn read_with_gnu_ls_grammar() {
        // An empty entry is passed over, as GNU ls passes it (bfs read
        // `:ex` as a key of its own).
        let c = Colors::parse(b"di=1::ex=2:");
        assert_eq!(c.get(Key::Exec), Some(&b"2"[..]));
        // Unknown keys pass; bfs's own are read; a malformed entry ends
        // the reading, what came before kept.
        let c = Colors::parse(b"xx=9:bld=3:di=4:abc=5:fi=6");
        assert_eq!(c.get(Key::Bold), Some(&b"3"[..]));
        assert_eq!(c.get(Key::Dir), Some(&b"4"[..]));
        assert_eq!(c.get(Key::File), Some(&b""[..]));
    }
}
