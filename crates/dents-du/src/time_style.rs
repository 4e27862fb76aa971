//! `--time[=WORD]` and `--time-style=STYLE` as GNU du reads them, and
//! times written in the chosen style, so that `dents du` and `dents-mpi
//! du` share one copy.
//!
//! A time travels packed in one `i64` ([`pack_time`]): ordered as the
//! times themselves, so a directory's latest time is a `max`, in an
//! atomic or over ranks.  Styles are GNU's: `full-iso`, `long-iso` (the
//! default), `iso` and `+FORMAT` (`strftime` with gnulib's extensions:
//! `%N`, `%:z`, `%q`...), else the `TIME_STYLE` environment variable;
//! times are local (`TZ`) and use the locale's names (`LC_TIME`): the
//! caller sets both up before any thread (`dents_os::tzset`,
//! `dents_os::use_time_locale`).

use std::sync::Mutex;

use dents::{Metadata, StatFields};

use crate::TimeKind;

/// No time yet: below every packed time.
pub const NO_TIME: i64 = i64::MIN;

/// Packs a time as `sec << 30 | nsec`, seconds clamped to ±2³² (ordered
/// as the times, and a `max` of packed times is the latest).
pub fn pack_time(sec: i64, nsec: u32) -> i64 {
    sec.clamp(-(1 << 32), 1 << 32) * (1 << 30) + nsec as i64
}

/// The (seconds, nanoseconds) of a packed time.
pub fn unpack_time(t: i64) -> (i64, u32) {
    (t.div_euclid(1 << 30), t.rem_euclid(1 << 30) as u32)
}

/// The stat field `--time` reads for `kind` (none without `--time`).
pub fn stat_field(kind: Option<TimeKind>) -> StatFields {
    match kind {
        Some(TimeKind::Access) => StatFields::ATIME,
        Some(TimeKind::Change) => StatFields::CTIME,
        Some(TimeKind::Modification) => StatFields::MTIME,
        None => StatFields::empty(),
    }
}

/// The packed time `kind` of `st` ([`NO_TIME`] without `--time`).
pub fn entry_time(kind: Option<TimeKind>, st: &Metadata) -> i64 {
    let Some(kind) = kind else {
        return NO_TIME;
    };
    let ts = match kind {
        TimeKind::Modification => st.mtime(),
        TimeKind::Access => st.atime(),
        TimeKind::Change => st.ctime(),
    };
    // A time the kernel did not fill in reads as 0, as the raw `statx`
    // field did.
    ts.map_or(pack_time(0, 0), |t| pack_time(t.secs, t.nsecs))
}

/// An argument that names none of an option's words (GNU's `argmatch`
/// failure): what the tools print before their usage hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadArgument {
    /// The argument as given.
    pub arg: Vec<u8>,
    /// What it was for: `--time` or `time style`.
    pub what: &'static str,
    /// It is a prefix of several words (else of none).
    pub ambiguous: bool,
    /// The valid words, those meaning the same value grouped.
    pub valid: &'static [&'static [&'static str]],
}

impl BadArgument {
    /// `invalid argument 'ARG' for 'WHAT'` (or `ambiguous`), names quoted
    /// by `quote` (GNU's `quote`: the locale's quotes).
    pub fn message(&self, quote: &dyn Fn(&[u8]) -> Vec<u8>) -> Vec<u8> {
        let mut m = Vec::new();
        m.extend_from_slice(if self.ambiguous {
            b"ambiguous argument ".as_slice()
        } else {
            b"invalid argument ".as_slice()
        });
        m.extend_from_slice(&quote(&self.arg));
        m.extend_from_slice(b" for ");
        m.extend_from_slice(&quote(self.what.as_bytes()));
        m
    }

    /// `Valid arguments are:` and one line per group of words (each line
    /// ends with a newline).
    pub fn valid_arguments(&self, quote: &dyn Fn(&[u8]) -> Vec<u8>) -> Vec<u8> {
        let mut v = b"Valid arguments are:\n".to_vec();
        for group in self.valid {
            v.extend_from_slice(b"  - ");
            for (i, name) in group.iter().enumerate() {
                if i > 0 {
                    v.extend_from_slice(b", ");
                }
                v.extend_from_slice(&quote(name.as_bytes()));
            }
            v.push(b'\n');
        }
        v
    }
}

/// argmatch: an exact name or an unambiguous prefix (names that mean the
/// same value are no ambiguity); `Err(ambiguous)` otherwise.
fn argmatch<T: Copy + PartialEq>(arg: &[u8], table: &[(&str, T)]) -> Result<T, bool> {
    if let Some(&(_, v)) = table.iter().find(|(n, _)| n.as_bytes() == arg) {
        return Ok(v);
    }
    let mut found: Option<T> = None;
    for &(n, v) in table {
        // An empty word is a prefix of every name: ambiguous (GNU's
        // `--time=` and `TIME_STYLE=`).
        if n.as_bytes().starts_with(arg) {
            match found {
                Some(f) if f != v => return Err(true),
                _ => found = Some(v),
            }
        }
    }
    found.ok_or(false)
}

/// `--time=WORD`: `atime`, `access`, `use`, `ctime`, `status` (or an
/// unambiguous prefix).
pub fn time_kind(word: &[u8]) -> Result<TimeKind, BadArgument> {
    let table = [
        ("atime", TimeKind::Access),
        ("access", TimeKind::Access),
        ("use", TimeKind::Access),
        ("ctime", TimeKind::Change),
        ("status", TimeKind::Change),
    ];
    argmatch(word, &table).map_err(|ambiguous| BadArgument {
        arg: word.to_vec(),
        what: "--time",
        ambiguous,
        valid: &[&["atime", "access", "use"], &["ctime", "status"]],
    })
}

/// How `--time` writes times: a `strftime` format and the last time
/// written (a directory's entries often share one).
#[derive(Debug)]
pub struct TimeFormat {
    format: Vec<u8>,
    uses_nanos: bool,
    last: Mutex<Option<(i64, u32, Vec<u8>)>>,
}

impl TimeFormat {
    /// The format of `--time-style=STYLE` (`None`: `TIME_STYLE`, else
    /// `long-iso`), as GNU du reads them.
    pub fn new(style: Option<&[u8]>) -> Result<TimeFormat, BadArgument> {
        let style: Vec<u8> = match style {
            Some(s) => s.to_vec(),
            None => style_from_env(std::env::var_os("TIME_STYLE").map(|s| s.into_encoded_bytes())),
        };
        let format = match style.strip_prefix(b"+") {
            Some(f) => f.to_vec(),
            None => {
                let table = [("full-iso", 0u8), ("long-iso", 1), ("iso", 2)];
                match argmatch(&style, &table) {
                    Ok(0) => b"%Y-%m-%d %H:%M:%S.%N %z".to_vec(),
                    Ok(1) => b"%Y-%m-%d %H:%M".to_vec(),
                    Ok(_) => b"%Y-%m-%d".to_vec(),
                    Err(ambiguous) => {
                        return Err(BadArgument {
                            arg: style,
                            what: "time style",
                            ambiguous,
                            valid: &[&["full-iso"], &["long-iso"], &["iso"]],
                        })
                    }
                }
            }
        };
        Ok(TimeFormat {
            uses_nanos: dents_os::format_uses_nanos(&format),
            format,
            last: Mutex::new(None),
        })
    }

    /// Appends the time `sec`.`nsec` (local time; the seconds as a number
    /// when the C library cannot break them down).
    pub fn push(&self, out: &mut Vec<u8>, sec: i64, nsec: u32) {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((s, n, text)) = &*last {
            if *s == sec && (*n == nsec || !self.uses_nanos) {
                out.extend_from_slice(text);
                return;
            }
        }
        let mut text = Vec::new();
        match dents_os::local_time(sec) {
            Some(tm) => dents_os::strftime_gnu(&mut text, &self.format, &tm, nsec),
            None => text.extend_from_slice(sec.to_string().as_bytes()),
        }
        out.extend_from_slice(&text);
        *last = Some((sec, nsec, text));
    }

    /// Appends a packed time ([`pack_time`]).
    pub fn push_packed(&self, out: &mut Vec<u8>, t: i64) {
        let (sec, nsec) = unpack_time(t);
        self.push(out, sec, nsec);
    }
}

/// The style `TIME_STYLE` names, as GNU du reads it: `locale` is
/// `long-iso`, a `+FORMAT` ends at its first newline, `posix-` prefixes
/// are dropped.
fn style_from_env(var: Option<Vec<u8>>) -> Vec<u8> {
    match var {
        None => b"long-iso".to_vec(),
        Some(s) if s == b"locale" => b"long-iso".to_vec(),
        Some(s) if s.starts_with(b"+") => {
            let end = s.iter().position(|&c| c == b'\n').unwrap_or(s.len());
            s[..end].to_vec()
        }
        Some(mut s) => {
            while let Some(rest) = s.strip_prefix(b"posix-") {
                s = rest.to_vec();
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_times_order_as_times() {
        let times = [
            (-5, 999_999_999),
            (0, 0),
            (0, 1),
            (1, 0),
            (1_700_000_000, 5),
        ];
        for w in times.windows(2) {
            assert!(pack_time(w[0].0, w[0].1) < pack_time(w[1].0, w[1].1));
        }
        for (s, n) in times {
            assert_eq!(unpack_time(pack_time(s, n)), (s, n));
        }
        assert!(NO_TIME < pack_time(-(1 << 40), 0));
    }

    #[test]
    fn words_and_styles_as_argmatch_reads_them() {
        assert_eq!(time_kind(b"use"), Ok(TimeKind::Access));
        assert_eq!(time_kind(b"a"), Ok(TimeKind::Access));
        assert_eq!(time_kind(b"st"), Ok(TimeKind::Change));
        let q = |s: &[u8]| [b"'", s, b"'"].concat();
        let e = time_kind(b"x").unwrap_err();
        assert_eq!(e.message(&q), b"invalid argument 'x' for '--time'");
        assert_eq!(
            e.valid_arguments(&q),
            b"Valid arguments are:\n  - 'atime', 'access', 'use'\n  - 'ctime', 'status'\n"
        );
        let e = TimeFormat::new(Some(b"fu")).unwrap();
        assert!(e.uses_nanos);
        // An empty word is a prefix of every style: ambiguous, as GNU's.
        let e = TimeFormat::new(Some(b"")).unwrap_err();
        assert!(e.ambiguous);
        assert_eq!(e.message(&q), b"ambiguous argument '' for 'time style'");
        assert_eq!(TimeFormat::new(Some(b"+%s")).unwrap().format, b"%s");
    }

    #[test]
    fn time_style_variable_as_gnu_reads_it() {
        assert_eq!(style_from_env(None), b"long-iso");
        assert_eq!(style_from_env(Some(b"locale".to_vec())), b"long-iso");
        assert_eq!(style_from_env(Some(b"posix-iso".to_vec())), b"iso");
        assert_eq!(style_from_env(Some(b"+%Y\n%m".to_vec())), b"+%Y");
    }
}
