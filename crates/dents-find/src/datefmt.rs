//! File times as `-printf` and `-ls` write them, byte for byte as GNU
//! find: `%Ak` (any strftime letter `k`, plus GNU's `@` and `+`), the
//! ctime-like `%a`, and `-ls`'s `Mon dd HH:MM` / `Mon dd  YYYY`.
//!
//! Speed: the broken-down local time is cached per UTC hour (one
//! `localtime_r` per hour of timestamps, when the zone's offset is the
//! same all through the hour), and the letters whose output does not
//! depend on the locale are formatted here from it.  The others (`%b`,
//! `%c`, `%p`, `%Z`...) go through the C library's `strftime`, as GNU's
//! do, and their text is cached per second.
//!
//! GNU appends the nanoseconds (`.NNNNNNNNN0`, with a trailing zero it
//! documents) to `S`, `T`, `X`, `+` and `@`: after the seconds digits,
//! which for a locale's `%X` it finds by formatting a second time with
//! the seconds changed; so do we.

use crate::numfmt::{digits, push_u64};
use std::collections::HashMap;
use std::ffi::CString;

/// The fields of a local time that the letters formatted here use.
#[derive(Clone, Copy, Debug)]
struct Civil {
    year: i64,
    mon: u32,
    mday: u32,
    hour: u32,
    min: u32,
    sec: u32,
    wday: u32,
    yday: u32,
    gmtoff: i64,
}

/// The local time of `secs` from the C library.
fn civil_of(secs: i64) -> Option<Civil> {
    let tm = dents_os::local_time(secs)?;
    Some(Civil {
        year: tm.year(),
        mon: tm.month(),
        mday: tm.day(),
        hour: tm.hour(),
        min: tm.minute(),
        sec: tm.second(),
        wday: tm.weekday(),
        yday: tm.year_day(),
        gmtoff: tm.utc_offset(),
    })
}

/// Entries kept in a cache before it is emptied.
const CACHE_LIMIT: usize = 1 << 14;

/// One thread's time formatter and its caches.
#[derive(Debug, Default)]
pub struct Clock {
    /// The last hour looked up (the directives of one format, and
    /// neighbouring files, mostly share it): no hashing then.
    last: Option<(i64, Option<Civil>)>,
    /// UTC hour to its local start, if the offset holds all the hour.
    hours: HashMap<i64, Option<Civil>>,
    /// (seconds, letter) to the C library's text, for locale letters.
    texts: HashMap<(i64, u8), Box<[u8]>>,
}

/// English names, as GNU's ctime-like format always uses.
const DAYS: [&[u8; 3]; 7] = [b"Sun", b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat"];
const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

/// Appends `n` in at least `width` digits, `pad` in front.
fn push_padded(out: &mut Vec<u8>, n: u64, width: usize, pad: u8) {
    out.resize(out.len() + width.saturating_sub(digits(n)), pad);
    push_u64(out, n);
}

/// Appends `n` with a `-` if negative.
pub fn push_signed(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    push_u64(out, n.unsigned_abs());
}

/// GNU's nanoseconds suffix: `.%09ld0` (C's rules for a negative value,
/// which an unknown birth time has).
fn push_nanos(out: &mut Vec<u8>, nsec: i64) {
    out.push(b'.');
    if nsec < 0 {
        out.push(b'-');
        push_padded(out, nsec.unsigned_abs(), 8, b'0');
    } else {
        push_padded(out, nsec as u64, 9, b'0');
    }
    out.push(b'0');
}

impl Clock {
    /// The local time of `secs`.
    fn civil(&mut self, secs: i64) -> Option<Civil> {
        let hour = secs.div_euclid(3600);
        let start = match self.last {
            Some((h, start)) if h == hour => start,
            _ => {
                let start = self.hour_start(hour);
                self.last = Some((hour, start));
                start
            }
        };
        match start {
            Some(mut c) => {
                let into = (secs - hour * 3600) as u32;
                c.min = into / 60;
                c.sec = into % 60;
                Some(c)
            }
            None => civil_of(secs),
        }
    }

    /// The local time at the start of the UTC `hour`, if the zone's
    /// offset is the same all through it (and a whole number of hours, so
    /// that the local hour does not change within it either).
    fn hour_start(&mut self, hour: i64) -> Option<Civil> {
        if self.hours.len() >= CACHE_LIMIT {
            self.hours.clear();
        }
        *self.hours.entry(hour).or_insert_with(|| {
            let a = civil_of(hour * 3600)?;
            let b = civil_of(hour * 3600 + 3599)?;
            (a.gmtoff == b.gmtoff && a.min == 0 && a.sec == 0).then_some(a)
        })
    }

    /// Appends the time `sec.nsec` as `%Kk` does (`k` is `letter`).
    pub fn directive(&mut self, out: &mut Vec<u8>, sec: i64, nsec: i64, letter: u8) {
        let ns = matches!(letter, b'S' | b'T' | b'X' | b'@' | b'+');
        if letter == b'@' {
            return at_seconds(out, sec, nsec, true);
        }
        let Some(c) = self.civil(sec) else {
            // A time the C library cannot convert: GNU prints seconds.
            return at_seconds(out, sec, nsec, ns);
        };
        if !self.native(out, &c, sec, letter) {
            self.library(out, sec, nsec, letter);
            return;
        }
        if ns {
            push_nanos(out, nsec);
        }
    }

    /// Formats the locale-independent letters from `c`; false for the
    /// others.
    fn native(&mut self, out: &mut Vec<u8>, c: &Civil, sec: i64, letter: u8) -> bool {
        let two = |out: &mut Vec<u8>, n: u32| push_padded(out, n as u64, 2, b'0');
        let four_digit_year = (1000..=9999).contains(&c.year);
        match letter {
            b'Y' if four_digit_year => push_u64(out, c.year as u64),
            b'C' if four_digit_year => two(out, (c.year / 100) as u32),
            b'y' if four_digit_year => two(out, (c.year % 100) as u32),
            b'm' => two(out, c.mon),
            b'd' => two(out, c.mday),
            b'e' => push_padded(out, c.mday as u64, 2, b' '),
            b'H' => two(out, c.hour),
            b'k' => push_padded(out, c.hour as u64, 2, b' '),
            b'I' => two(out, (c.hour + 11) % 12 + 1),
            b'l' => push_padded(out, ((c.hour + 11) % 12 + 1) as u64, 2, b' '),
            b'M' => two(out, c.min),
            b'S' => two(out, c.sec),
            b'j' => push_padded(out, c.yday as u64 + 1, 3, b'0'),
            b'u' => push_u64(out, if c.wday == 0 { 7 } else { c.wday as u64 }),
            b'w' => push_u64(out, c.wday as u64),
            b'U' => two(out, (c.yday + 7 - c.wday) / 7),
            b'W' => two(out, (c.yday + 7 - (c.wday + 6) % 7) / 7),
            b's' => push_signed(out, sec),
            b'z' => {
                out.push(if c.gmtoff < 0 { b'-' } else { b'+' });
                let off = c.gmtoff.unsigned_abs() / 60;
                two(out, (off / 60) as u32);
                two(out, (off % 60) as u32);
            }
            b'D' if four_digit_year => {
                self.native(out, c, sec, b'm');
                out.push(b'/');
                self.native(out, c, sec, b'd');
                out.push(b'/');
                self.native(out, c, sec, b'y');
            }
            b'F' if four_digit_year => {
                push_u64(out, c.year as u64);
                out.push(b'-');
                two(out, c.mon);
                out.push(b'-');
                two(out, c.mday);
            }
            b'T' | b'R' => {
                two(out, c.hour);
                out.push(b':');
                two(out, c.min);
                if letter == b'T' {
                    out.push(b':');
                    two(out, c.sec);
                }
            }
            b'+' if four_digit_year => {
                self.native(out, c, sec, b'F');
                out.push(b'+');
                self.native(out, c, sec, b'T');
            }
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'%' => out.push(b'%'),
            _ => return false,
        }
        true
    }

    /// A letter through the C library's `strftime` (cached per second),
    /// with GNU's nanoseconds after the seconds for `X` and `+`.
    fn library(&mut self, out: &mut Vec<u8>, sec: i64, nsec: i64, letter: u8) {
        let ns = matches!(letter, b'S' | b'T' | b'X' | b'+');
        if !ns {
            if let Some(t) = self.texts.get(&(sec, letter)) {
                out.extend_from_slice(t);
                return;
            }
        }
        let fmt: Vec<u8> = if letter == b'+' {
            b"%Y-%m-%d+%T".to_vec()
        } else {
            vec![b'%', letter]
        };
        let Ok(fmt) = CString::new(fmt) else {
            return;
        };
        let Some(tm) = dents_os::local_time(sec) else {
            return at_seconds(out, sec, nsec, ns);
        };
        let mut text = Vec::new();
        dents_os::strftime(&mut text, &fmt, &tm);
        if ns {
            // The seconds are the one run of two digits that changes
            // when the seconds do.
            let second = tm.second();
            let other = tm.with_second(if second >= 11 {
                second - 11
            } else {
                second + 11
            });
            let mut alt = Vec::new();
            dents_os::strftime(&mut alt, &fmt, &other);
            if let Some(end) = seconds_end(&text, &alt) {
                out.extend_from_slice(&text[..end]);
                push_nanos(out, nsec);
                out.extend_from_slice(&text[end..]);
                return;
            }
            out.extend_from_slice(&text);
            return;
        }
        out.extend_from_slice(&text);
        if self.texts.len() >= CACHE_LIMIT {
            self.texts.clear();
        }
        self.texts.insert((sec, letter), text.into_boxed_slice());
    }

    /// Appends GNU's ctime-like form for `%a`, `%c`, `%t`:
    /// `Sat Feb  3 04:05:06.1234567890 2001`.
    pub fn ctime(&mut self, out: &mut Vec<u8>, sec: i64, nsec: i64) {
        let Some(c) = self.civil(sec) else {
            return at_seconds(out, sec, nsec, false);
        };
        out.extend_from_slice(DAYS[c.wday as usize % 7]);
        out.push(b' ');
        out.extend_from_slice(MONTHS[(c.mon as usize + 11) % 12]);
        out.push(b' ');
        push_padded(out, c.mday as u64, 2, b' ');
        out.push(b' ');
        push_padded(out, c.hour as u64, 2, b'0');
        out.push(b':');
        push_padded(out, c.min as u64, 2, b'0');
        out.push(b':');
        push_padded(out, c.sec as u64, 2, b'0');
        push_nanos(out, nsec);
        out.push(b' ');
        if c.year < 0 {
            out.push(b'-');
            push_padded(out, c.year.unsigned_abs(), 3, b'0');
        } else {
            push_padded(out, c.year as u64, 4, b'0');
        }
    }

    /// Appends `-ls`'s date: `Mon dd HH:MM` if `recent`, else
    /// `Mon dd  YYYY` (through `strftime`, so the month is the locale's);
    /// the seconds if the C library cannot convert the time.
    pub fn ls_date(&mut self, out: &mut Vec<u8>, sec: i64, recent: bool) {
        let key = (sec, recent as u8);
        if let Some(t) = self.texts.get(&key) {
            out.extend_from_slice(t);
            return;
        }
        let Some(tm) = dents_os::local_time(sec) else {
            // GNU: the number right-aligned in 12 columns (a `-` in front
            // for a negative one, wherever the padding leaves it).
            let digits = sec
                .unsigned_abs()
                .checked_ilog10()
                .map_or(1, |d| d as usize + 1);
            if sec < 0 {
                out.resize(out.len() + 12usize.saturating_sub(digits + 1), b' ');
                out.push(b'-');
            } else {
                out.resize(out.len() + 12usize.saturating_sub(digits), b' ');
            }
            push_u64(out, sec.unsigned_abs());
            return;
        };
        let fmt = if recent { c"%b %e %H:%M" } else { c"%b %e  %Y" };
        let mut text = Vec::new();
        dents_os::strftime(&mut text, fmt, &tm);
        out.extend_from_slice(&text);
        if self.texts.len() >= CACHE_LIMIT {
            self.texts.clear();
        }
        self.texts.insert(key, text.into_boxed_slice());
    }
}

/// `%A@` (and what GNU falls back to): the seconds, then the nanoseconds
/// suffix if `ns`.
fn at_seconds(out: &mut Vec<u8>, sec: i64, nsec: i64, ns: bool) {
    push_signed(out, sec);
    if ns {
        push_nanos(out, nsec);
    }
}

/// Where the seconds end in `a`, when `b` (the same format with other
/// seconds) differs from it in exactly one run of two digits that no
/// digit follows.
fn seconds_end(a: &[u8], b: &[u8]) -> Option<usize> {
    if a.len() != b.len() {
        return None;
    }
    let mut run: Option<(usize, usize)> = None;
    for i in 0..a.len() {
        if a[i] == b[i] {
            continue;
        }
        if !a[i].is_ascii_digit() || !b[i].is_ascii_digit() {
            return None;
        }
        run = match run {
            None => Some((i, 1)),
            Some((s, n)) if s + n == i => Some((s, n + 1)),
            Some(_) => return None,
        };
    }
    let (s, n) = run?;
    (n == 2 && !a.get(s + n).is_some_and(u8::is_ascii_digit)).then_some(s + n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nanos_like_c() {
        let mut v = Vec::new();
        push_nanos(&mut v, 123);
        assert_eq!(v, b".0000001230");
        v.clear();
        push_nanos(&mut v, -1);
        assert_eq!(v, b".-000000010");
    }

    #[test]
    fn seconds_found_by_difference() {
        assert_eq!(seconds_end(b"04:05:06 AM", b"04:05:17 AM"), Some(8));
        assert_eq!(seconds_end(b"04:05:06", b"04:05:06"), None);
        assert_eq!(seconds_end(b"1:06", b"2:17"), None);
    }
}
