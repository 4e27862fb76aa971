//! Colors from `LS_COLORS` as GNU ls 9.1 paints names (`--color`).
//!
//! The table is read as GNU ls reads it (the reader and key set find
//! shares, [`dents_tools::dircolors`]); an unknown key or
//! an unfinished value makes the whole value unusable ("unparsable
//! value", no colors).  A name's color: `mi` for a missing symlink target,
//! else by the mode: `su`, `sg`, `ex`, `mh` or an extension (the last
//! given that matches, case-insensitively), else `fi` for a regular file;
//! `tw`, `ow`, `st`, else `di` for a directory; `ln` (`or` for a broken
//! link where `or` is set, or with `ln=target`); `pi so bd cd do`.  A
//! painted name is `lc` color `rc`, the name, then `ec` (or `lc rs rc`);
//! the first paint of the run is preceded by that same reset, as GNU's.
//! Capabilities (`ca`) are not looked up: `ca` is not colored by default.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

use dents_tools::dircolors::{entries, Entry, Key};
use dents_tools::glob::Glob;

/// The parsed table.
#[derive(Debug)]
pub struct LsColors {
    ind: Vec<Option<Vec<u8>>>,
    /// Extensions, the last given first.
    exts: Vec<(Vec<u8>, Vec<u8>)>,
    /// `ln=target`.
    pub link_as_target: bool,
    /// Something was painted already.
    used: AtomicBool,
}

/// What painting a name needs to know of its file.
#[derive(Copy, Clone, Debug, Default)]
pub struct FileKind {
    /// `st_mode` if the file was stat'ed (0 if not or if it failed).
    pub mode: u32,
    /// Its type from `d_type` when not stat'ed (`S_IFMT` bits; 0 unknown).
    pub dtype_mode: u32,
    /// Hard links.
    pub nlink: u64,
    /// For a symlink: whether its target exists, and the target's mode.
    pub link_ok: bool,
    /// The target's mode (0: not known).
    pub link_mode: u32,
}

const S_IFMT: u32 = 0o170000;

impl LsColors {
    /// The table from `LS_COLORS`, or `None` when colors are off (an
    /// unparsable value, reported; or no value and a terminal type GNU
    /// does not know to color).
    pub fn from_env() -> Option<LsColors> {
        let defaults: [Option<&str>; 24] = [
            Some("\x1b["),
            Some("m"),
            None,
            Some("0"),
            None,
            None,
            Some("01;34"),
            Some("01;36"),
            Some("33"),
            Some("01;35"),
            Some("01;33"),
            Some("01;33"),
            None,
            None,
            Some("01;32"),
            Some("01;35"),
            Some("37;41"),
            Some("30;43"),
            Some("37;44"),
            Some("34;42"),
            Some("30;42"),
            None,
            None,
            Some("\x1b[K"),
        ];
        let mut c = LsColors {
            ind: defaults
                .iter()
                .map(|d| d.map(|s| s.as_bytes().to_vec()))
                .collect(),
            exts: Vec::new(),
            link_as_target: false,
            used: AtomicBool::new(false),
        };
        let v = std::env::var_os("LS_COLORS").unwrap_or_default();
        let v = std::os::unix::ffi::OsStrExt::as_bytes(v.as_os_str()).to_vec();
        if v.is_empty() {
            let colorterm = std::env::var_os("COLORTERM").is_some_and(|c| !c.is_empty());
            return (colorterm || known_term()).then_some(c);
        }
        if !c.parse(&v) {
            crate::errors::write_stderr(
                b"dents: unparsable value for LS_COLORS environment variable\n",
            );
            return None;
        }
        c.link_as_target = c.ind[Key::Link as usize].as_deref() == Some(b"target");
        Some(c)
    }

    /// Reads `LS_COLORS` as GNU ls does; false if it cannot be read
    /// whole (a malformed entry, a key GNU does not know: said for a
    /// two-letter one, as GNU's "unrecognized prefix").
    fn parse(&mut self, v: &[u8]) -> bool {
        for entry in entries(v) {
            match entry {
                Err(_) => return false,
                Ok(Entry::Ext(ext, seq)) => self.exts.insert(0, (ext, seq)),
                // bfs's three-letter keys: GNU finds no `=` after two.
                Ok(Entry::Key(k, _)) if !k.is_gnu() => return false,
                Ok(Entry::Key(k, seq)) => self.ind[k as usize] = Some(seq),
                Ok(Entry::Unknown(label)) => {
                    let q = super::quoting::Quoter::new(super::quoting::Style::Locale, false);
                    let mut msg = b"dents: unrecognized prefix: ".to_vec();
                    msg.extend_from_slice(&q.quote(&label).bytes);
                    msg.push(b'\n');
                    crate::errors::write_stderr(&msg);
                    return false;
                }
            }
        }
        true
    }

    fn get(&self, k: Key) -> Option<&[u8]> {
        self.ind[k as usize].as_deref()
    }

    /// GNU's `is_colored`: set, and not empty, `0` or `00`.
    pub fn is_colored(&self, k: Key) -> bool {
        !matches!(self.get(k), None | Some(b"" | b"0" | b"00"))
    }

    /// Whether GNU checks symlinks' targets (for `or`, `mi`, `ln=target`
    /// with `ex`), given the format.
    pub fn check_links(&self, long: bool) -> bool {
        self.is_colored(Key::Orphan)
            || (self.is_colored(Key::Exec) && self.link_as_target)
            || (self.is_colored(Key::Missing) && long)
    }

    /// The color of a file (`target`: the symlink target in `-l`).
    pub fn color_of(&self, name: &[u8], f: &FileKind, target: bool) -> Option<&[u8]> {
        let (mode, link_ok) = if target {
            (f.link_mode, if f.link_ok { 0 } else { -1 })
        } else {
            let m = if self.link_as_target && f.link_ok {
                f.link_mode
            } else {
                f.mode
            };
            (m, i32::from(f.link_ok))
        };
        let stat_ok = f.mode != 0;
        let mut k = if link_ok == -1 && self.is_colored(Key::Missing) {
            Key::Missing
        } else if !stat_ok && !target {
            match f.dtype_mode & S_IFMT {
                0o010000 => Key::Pipe,
                0o020000 => Key::Char,
                0o040000 => Key::Dir,
                0o060000 => Key::Block,
                0o100000 => Key::File,
                0o120000 => Key::Link,
                0o140000 => Key::Socket,
                _ => Key::Orphan,
            }
        } else {
            match mode & S_IFMT {
                0o100000 => {
                    if mode & 0o4000 != 0 && self.is_colored(Key::Setuid) {
                        Key::Setuid
                    } else if mode & 0o2000 != 0 && self.is_colored(Key::Setgid) {
                        Key::Setgid
                    } else if mode & 0o111 != 0 && self.is_colored(Key::Exec) {
                        Key::Exec
                    } else if f.nlink > 1 && self.is_colored(Key::MultiHard) && !target {
                        Key::MultiHard
                    } else {
                        Key::File
                    }
                }
                0o040000 => {
                    if mode & 0o1000 != 0
                        && mode & 0o002 != 0
                        && self.is_colored(Key::StickyOtherWritable)
                    {
                        Key::StickyOtherWritable
                    } else if mode & 0o002 != 0 && self.is_colored(Key::OtherWritable) {
                        Key::OtherWritable
                    } else if mode & 0o1000 != 0 && self.is_colored(Key::Sticky) {
                        Key::Sticky
                    } else {
                        Key::Dir
                    }
                }
                0o120000 => Key::Link,
                0o010000 => Key::Pipe,
                0o140000 => Key::Socket,
                0o060000 => Key::Block,
                0o020000 => Key::Char,
                _ => Key::Orphan,
            }
        };
        if k == Key::File {
            // Compared in place, without lowercased copies (one per
            // extension of the table for every file, before).
            let ends_with = |e: &[u8]| {
                name.len() >= e.len() && name[name.len() - e.len()..].eq_ignore_ascii_case(e)
            };
            if let Some((_, seq)) = self.exts.iter().find(|(e, _)| ends_with(e)) {
                return Some(seq);
            }
        }
        if k == Key::Link && link_ok == 0 && (self.link_as_target || self.is_colored(Key::Orphan)) {
            k = Key::Orphan;
        }
        self.get(k)
    }

    /// Writes an indicator, preceded by the reset on the run's first
    /// (unless this thread defers it: [`deferring_reset`]).
    fn put(&self, out: &mut Vec<u8>, s: &[u8]) {
        if DEFERRING.get() {
            PAINTED.set(true);
            if FIRST_AT.get().is_none() {
                FIRST_AT.set(Some(out.len()));
            }
        } else if !self.used.swap(true, Ordering::Relaxed) {
            self.reset(out);
        }
        out.extend_from_slice(s);
    }

    /// The run's first reset, if it is still to come, before a cell
    /// formatted by [`first_paint_at`] that painted: where that cell's
    /// first paint was.
    pub fn first_reset(&self, out: &mut Vec<u8>) {
        if DEFERRING.get() {
            PAINTED.set(true);
        } else if !self.used.swap(true, Ordering::Relaxed) {
            self.reset(out);
        }
    }

    /// Whether something was painted already (the run's reset is out).
    pub fn used(&self) -> bool {
        self.used.load(Ordering::Relaxed)
    }

    /// GNU's `prep_non_filename_text`: `ec`, or `lc rs rc`.
    fn reset(&self, out: &mut Vec<u8>) {
        match self.get(Key::End) {
            Some(ec) => out.extend_from_slice(ec),
            None => {
                for k in [Key::Left, Key::Reset, Key::Right] {
                    out.extend_from_slice(self.get(k).unwrap_or_default());
                }
            }
        }
    }

    /// GNU's `set_normal_color`, before each name of a short listing.
    pub fn normal(&self, out: &mut Vec<u8>) {
        if self.is_colored(Key::Normal) {
            for k in [Key::Left, Key::Normal, Key::Right] {
                self.put(out, self.get(k).unwrap_or_default());
            }
        }
    }

    /// Writes the start of a name of color `c`; whether the end must
    /// follow it.
    pub fn start(&self, out: &mut Vec<u8>, c: Option<&[u8]>) -> bool {
        if let Some(c) = c {
            if self.is_colored(Key::Normal) {
                self.put(out, self.get(Key::Left).unwrap_or_default());
                self.put(out, self.get(Key::Right).unwrap_or_default());
            }
            self.put(out, self.get(Key::Left).unwrap_or_default());
            self.put(out, c);
            self.put(out, self.get(Key::Right).unwrap_or_default());
        }
        c.is_some() || self.is_colored(Key::Normal)
    }

    /// Writes the end of a painted name; `wraps`: the name may run over
    /// the end of the line (GNU then clears to its end).
    pub fn end(&self, out: &mut Vec<u8>, wraps: bool) {
        let mut tmp = Vec::new();
        match self.get(Key::End) {
            Some(ec) => tmp.extend_from_slice(ec),
            None => {
                for k in [Key::Left, Key::Reset, Key::Right] {
                    tmp.extend_from_slice(self.get(k).unwrap_or_default());
                }
            }
        }
        self.put(out, &tmp);
        if wraps {
            self.put(out, self.get(Key::ClearLine).unwrap_or_default());
        }
    }

    /// What GNU writes at the very end when colors were used and `lc`/`rc`
    /// are not the usual ones.
    pub fn finish(&self, out: &mut Vec<u8>) {
        if self.used.load(Ordering::Relaxed)
            && !(self.get(Key::Left) == Some(b"\x1b[") && self.get(Key::Right) == Some(b"m"))
        {
            self.put(out, self.get(Key::Left).unwrap_or_default());
            self.put(out, self.get(Key::Right).unwrap_or_default());
        }
    }
}

thread_local! {
    /// This thread formats ahead of the output (`-R`'s workers): paints
    /// without the run's first reset, whose place is not known yet.
    static DEFERRING: Cell<bool> = const { Cell::new(false) };
    /// Something was painted while deferring.
    static PAINTED: Cell<bool> = const { Cell::new(false) };
    /// Where the first paint went while deferring in [`first_paint_at`]
    /// (the length of the buffer painted into, then).
    static FIRST_AT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Runs `f`, which formats one cell of a short listing into a buffer,
/// without the run's first reset; returns where in that buffer its first
/// paint is, if it painted.  Columns (`-C`) print cells out of the
/// order they are formatted in: GNU's reset goes before the first paint
/// printed, which [`LsColors::first_reset`] puts there.  Inside
/// [`deferring_reset`] (a block of `-R` formatted ahead), painting counts
/// as painting there.
pub fn first_paint_at<R>(f: impl FnOnce() -> R) -> (R, Option<usize>) {
    let outer = (DEFERRING.get(), PAINTED.get(), FIRST_AT.get());
    DEFERRING.set(true);
    FIRST_AT.set(None);
    let r = f();
    let at = FIRST_AT.get();
    DEFERRING.set(outer.0);
    PAINTED.set(outer.1 || (outer.0 && at.is_some()));
    FIRST_AT.set(outer.2);
    (r, at)
}

/// Runs `f`, whose painting on this thread leaves out the run's first
/// reset; returns whether it painted anything.  The one output that
/// painted first must then be formatted again without deferring, so that
/// its first paint carries the reset (as GNU's first paint does).
pub fn deferring_reset<R>(f: impl FnOnce() -> R) -> (R, bool) {
    /// Stops deferring when `f` ends, by a panic too (a caller that
    /// catches it may paint again on this thread).
    struct Stop;
    impl Drop for Stop {
        fn drop(&mut self) {
            DEFERRING.set(false);
        }
    }
    DEFERRING.set(true);
    PAINTED.set(false);
    let stop = Stop;
    let r = f();
    drop(stop);
    (r, PAINTED.get())
}

/// Whether `TERM` is one the dircolors database of GNU coreutils 9.1
/// lists (GNU colors by default only there, without `LS_COLORS`).
fn known_term() -> bool {
    let Some(term) = std::env::var_os("TERM") else {
        return false;
    };
    let term = std::os::unix::ffi::OsStrExt::as_bytes(term.as_os_str()).to_vec();
    const GLOBS: &[&str] = &[
        "Eterm",
        "ansi",
        "*color*",
        "con[0-9]*x[0-9]*",
        "cons25",
        "console",
        "cygwin",
        "*direct*",
        "dtterm",
        "gnome",
        "hurd",
        "jfbterm",
        "konsole",
        "kterm",
        "linux",
        "linux-c",
        "mlterm",
        "putty",
        "rxvt*",
        "screen*",
        "st",
        "terminator",
        "tmux*",
        "vt100",
        "xterm*",
    ];
    // The globs are ASCII: matched as bytes, whatever the locale.
    GLOBS
        .iter()
        .any(|g| Glob::new(g.as_bytes(), false, false).matches(&term))
}
