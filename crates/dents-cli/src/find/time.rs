//! Times: the start of the run, `-daystart`, GNU's day and minute windows
//! for `-mtime` and `-mmin`, and the date strings of `-newerXt`.
//!
//! Times are nanoseconds since the epoch in an `i128`, so that GNU's
//! comparisons (made on `timespec`s) are exact.

use dents::sys::{self, Statx};

use super::expr::TimeField;

/// Seconds in a day.
const DAY: i64 = 86_400;
/// Nanoseconds in a second.
const NS: i128 = 1_000_000_000;

/// A point in time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Timestamp {
    /// Seconds since the epoch.
    pub sec: i64,
    /// Nanoseconds into the second.
    pub nsec: u32,
}

impl Timestamp {
    /// Now.
    pub fn now() -> Timestamp {
        let (sec, nsec) = sys::now();
        Timestamp { sec, nsec }
    }

    /// As nanoseconds since the epoch.
    pub fn nanos(self) -> i128 {
        self.sec as i128 * NS + self.nsec as i128
    }

    /// One of a file's times; `None` for a birth time the filesystem
    /// does not give.
    pub fn of(st: &Statx, field: TimeField) -> Option<Timestamp> {
        let t = match field {
            TimeField::Access => st.stx_atime,
            TimeField::Change => st.stx_ctime,
            TimeField::Modify => st.stx_mtime,
            TimeField::Birth => {
                if st.stx_mask & rustix::fs::StatxFlags::BTIME.bits() == 0 {
                    return None;
                }
                st.stx_btime
            }
        };
        Some(Timestamp {
            sec: t.tv_sec,
            nsec: t.tv_nsec,
        })
    }
}

/// How a file's time relates to a reference, GNU's comparison kinds after
/// it inverts them (`+N` days means "older than", so the time is less).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rel {
    /// The time is before the reference (`+N`).
    Before,
    /// The time is in the window ending at the reference (`N`).
    Within,
    /// The time is after the reference (`-N`).
    After,
}

impl Rel {
    /// Whether `t` (ns) relates to `reference` so, with a `window` (ns)
    /// for [`Rel::Within`]: GNU's `(reference, reference + window]`.
    pub fn test(self, t: i128, reference: i128, window: i128) -> bool {
        let delta = t - reference;
        match self {
            Rel::Before => delta < 0,
            Rel::After => delta > 0,
            Rel::Within => delta > 0 && delta <= window,
        }
    }
}

/// The origin of day-based tests: a day before the start of the run, or
/// with `-daystart` the start of today (local time), as GNU keeps it.
pub fn day_origin(start: Timestamp, daystart: bool) -> Timestamp {
    if !daystart {
        return Timestamp {
            sec: start.sec - DAY,
            nsec: start.nsec,
        };
    }
    let since_midnight = sys::local_time(start.sec).map_or(start.sec.rem_euclid(DAY), |tm| {
        tm.tm_sec as i64 + tm.tm_min as i64 * 60 + tm.tm_hour as i64 * 3600
    });
    // GNU moves only the seconds: the start's nanoseconds stay.
    Timestamp {
        sec: start.sec - since_midnight,
        nsec: start.nsec,
    }
}

/// `-D time`: the day origin, as GNU shows it (`cur_day_start = DATE`).
pub fn debug_origin(origin: Timestamp) -> Vec<u8> {
    let mut m = b"cur_day_start = ".to_vec();
    if let Some(tm) = sys::local_time(origin.sec) {
        sys::strftime(&mut m, c"%a %b %e %H:%M:%S %Y", &tm);
    }
    m
}

/// Reads the argument of `-mtime` (`minutes: false`) or `-mmin`: a sign
/// and a decimal number, possibly fractional.  Returns the comparison,
/// the reference (ns) and the window (ns); `None` if it is not a number.
pub fn age(arg: &[u8], minutes: bool, origin: Timestamp) -> Option<(Rel, i128, i128)> {
    let (unit, window) = if minutes { (60, 60) } else { (DAY, DAY) };
    // GNU: minutes count from the start of the run (a day after the day
    // origin); "less than N days" gets the last second of the day too.
    let mut origin = origin.nanos();
    if minutes {
        origin += DAY as i128 * NS;
    } else if arg.first() == Some(&b'-') {
        origin += (DAY - 1) as i128 * NS;
    }
    let (rel, reference) = relative(arg, unit, origin)?;
    Some((rel, reference, window as i128 * NS))
}

/// Reads the argument of `-used`: its sign (`+N` 1, `-N` -1, `N` 0) and
/// N days in nanoseconds.
pub fn used(arg: &[u8]) -> Option<(i8, i128)> {
    let (sign, rest) = match arg.first() {
        Some(b'+') => (1, &arg[1..]),
        Some(b'-') => (-1, &arg[1..]),
        _ => (0, arg),
    };
    let value = strtod(std::str::from_utf8(rest).ok()?)?;
    let ns = value * DAY as f64 * 1e9;
    (ns.is_finite() && ns.abs() < 1e35).then_some((sign, ns as i128))
}

/// Whether `delta` (ns from the status change to the access) satisfies
/// `-used`: more than N days, less, or in the day up to N days (GNU's
/// window, `[N-1, N)`).  A file accessed before its last change never
/// matches, whatever N (as GNU 4.9 behaves).
pub fn used_test(sign: i8, n: i128, delta: i128) -> bool {
    if delta < 0 {
        return false;
    }
    match sign {
        1 => delta > n,
        -1 => delta < n,
        _ => delta >= n - DAY as i128 * NS && delta < n,
    }
}

/// A signed number of `unit`-second units before `origin` (ns): the
/// comparison its sign asks for and the reference time.
fn relative(arg: &[u8], unit: i64, origin: i128) -> Option<(Rel, i128)> {
    let s = std::str::from_utf8(arg).ok()?;
    let (rel, rest) = match s.as_bytes().first() {
        Some(b'+') => (Rel::Before, &s[1..]),
        Some(b'-') => (Rel::After, &s[1..]),
        _ => (Rel::Within, s),
    };
    let value = strtod(rest)?;
    let offset = value * unit as f64;
    if !offset.is_finite() || offset.abs() > 1e17 {
        return None;
    }
    let secs = offset.trunc();
    let nanos = ((offset - secs) * 1e9) as i128;
    Some((rel, origin - (secs as i128 * NS + nanos)))
}

/// A decimal floating-point number as `strtod` reads it whole: leading
/// white space, a sign, digits with a point, an exponent.
fn strtod(s: &str) -> Option<f64> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let mantissa_end = body
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(body.len());
    let mantissa = &body[..mantissa_end];
    if !mantissa.bytes().any(|b| b.is_ascii_digit()) || mantissa.matches('.').count() > 1 {
        return None;
    }
    t.parse::<f64>().ok()
}

/// Parses the date of `-newerXt`: `@SECONDS[.FRACTION]`, or
/// `YYYY-MM-DD[( |T)HH:MM[:SS[.FRACTION]]]` in local time, optionally
/// followed by `Z`, `UTC` or a `+HH[:]MM` offset.
pub fn parse_date(arg: &[u8]) -> Option<Timestamp> {
    let s = std::str::from_utf8(arg).ok()?.trim();
    if let Some(num) = s.strip_prefix('@') {
        let (int, frac) = num.split_once('.').unwrap_or((num, ""));
        let sec: i64 = int.parse().ok()?;
        let nsec = fraction(frac)?;
        // "-1.5" is 1.5 s before the epoch.
        return Some(if sec < 0 || int.starts_with('-') && nsec > 0 {
            let total = sec as i128 * NS - nsec as i128;
            Timestamp {
                sec: total.div_euclid(NS) as i64,
                nsec: total.rem_euclid(NS) as u32,
            }
        } else {
            Timestamp { sec, nsec }
        });
    }
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let dash1 = s.find('-')?;
    let year = num(0..dash1)?;
    if b.get(dash1 + 3) != Some(&b'-') {
        return None;
    }
    let month = num(dash1 + 1..dash1 + 3)?;
    let day = num(dash1 + 4..dash1 + 6)?;
    let mut rest = s.get(dash1 + 6..)?;
    let (mut hour, mut min, mut sec, mut nsec) = (0, 0, 0, 0);
    if let Some(t) = rest.strip_prefix([' ', 'T']) {
        let t = t.trim_start();
        let tb = t.as_bytes();
        if tb.len() < 5 || tb[2] != b':' {
            return None;
        }
        hour = t[..2].parse().ok()?;
        min = t[3..5].parse().ok()?;
        rest = &t[5..];
        if let Some(r) = rest.strip_prefix(':') {
            let end = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            sec = r[..end].parse().ok()?;
            rest = &r[end..];
            if let Some(r) = rest.strip_prefix(['.', ',']) {
                let end = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
                nsec = fraction(&r[..end])?;
                rest = &r[end..];
            }
        }
    }
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || min > 59 || sec > 60 {
        return None;
    }
    let civil = days_from_civil(year, month, day) * DAY + hour * 3600 + min * 60 + sec;
    let rest = rest.trim();
    let sec = match rest {
        "" => local_to_utc(civil),
        "Z" | "UTC" | "GMT" => civil,
        zone => {
            let (sign, z) = match zone.as_bytes()[0] {
                b'+' => (1, &zone[1..]),
                b'-' => (-1, &zone[1..]),
                _ => return None,
            };
            let z = z.replace(':', "");
            if z.len() != 4 || !z.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let off = z[..2].parse::<i64>().ok()? * 3600 + z[2..].parse::<i64>().ok()? * 60;
            civil - sign * off
        }
    };
    Some(Timestamp { sec, nsec })
}

/// Nanoseconds from the digits after a decimal point.
fn fraction(digits: &str) -> Option<u32> {
    if !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut n = 0u32;
    for i in 0..9 {
        n = n * 10 + digits.as_bytes().get(i).map_or(0, |c| (c - b'0') as u32);
    }
    Some(n)
}

/// Days since 1970-01-01 of a date in the proleptic Gregorian calendar.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The epoch time of a wall-clock time in the local time zone (what
/// `mktime` does): the UTC offset is learnt from `localtime_r` near the
/// answer, twice, to land on the right side of a change of offset.
fn local_to_utc(civil: i64) -> i64 {
    let offset_at = |t: i64| sys::local_time(t).map_or(0, |tm| tm.tm_gmtoff);
    let guess = civil - offset_at(civil);
    let again = civil - offset_at(guess);
    if again == guess {
        guess
    } else {
        civil - offset_at(again)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn dates() {
        let t = parse_date(b"2020-01-02 03:04:05Z").unwrap();
        assert_eq!(t.sec, 1_577_934_245);
        assert_eq!(parse_date(b"@12.5").unwrap().nsec, 500_000_000);
        assert!(parse_date(b"garbage").is_none());
    }

    #[test]
    fn numbers() {
        assert_eq!(strtod(" 1.5"), Some(1.5));
        assert_eq!(strtod("-1"), Some(-1.0));
        assert_eq!(strtod("1x"), None);
        assert_eq!(strtod(""), None);
    }
}
