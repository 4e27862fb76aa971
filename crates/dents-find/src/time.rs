//! Times: the start of the run, `-daystart`, GNU's day and minute windows
//! for `-mtime` and `-mmin` (the date strings of `-newerXt`: `datetime`).
//!
//! Times are nanoseconds since the epoch in an `i128`, so that GNU's
//! comparisons (made on `timespec`s) are exact.

use dents::Metadata;

use dents::StatFields;

/// Seconds in a day.
const DAY: i64 = 86_400;
/// Nanoseconds in a second.
const NS: i128 = 1_000_000_000;

/// Which of a file's times.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimeField {
    /// Last access (`a`).
    Access,
    /// Birth (`B`).
    Birth,
    /// Last status change (`c`).
    Change,
    /// Last modification (`m`).
    Modify,
}

impl TimeField {
    /// The statx field holding this time.
    pub fn mask(self) -> StatFields {
        match self {
            TimeField::Access => StatFields::ATIME,
            TimeField::Birth => StatFields::BTIME,
            TimeField::Change => StatFields::CTIME,
            TimeField::Modify => StatFields::MTIME,
        }
    }
}

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
        let (sec, nsec) = dents_os::now();
        Timestamp { sec, nsec }
    }

    /// As nanoseconds since the epoch.
    pub fn nanos(self) -> i128 {
        self.sec as i128 * NS + self.nsec as i128
    }

    /// One of a file's times; `None` for a birth time the filesystem
    /// does not give.
    pub fn of(st: &Metadata, field: TimeField) -> Option<Timestamp> {
        // A time the kernel did not fill in reads as 0, as the raw
        // `statx` field did; a birth time it did not give is `None`.
        let zero = dents::Timestamp { secs: 0, nsecs: 0 };
        let t = match field {
            TimeField::Access => st.atime().unwrap_or(zero),
            TimeField::Change => st.ctime().unwrap_or(zero),
            TimeField::Modify => st.mtime().unwrap_or(zero),
            TimeField::Birth => st.btime()?,
        };
        Some(Timestamp {
            sec: t.secs,
            nsec: t.nsecs,
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
    let since_midnight = dents_os::local_time(start.sec).map_or(start.sec.rem_euclid(DAY), |tm| {
        tm.second() as i64 + tm.minute() as i64 * 60 + tm.hour() as i64 * 3600
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
    if let Some(tm) = dents_os::local_time(origin.sec) {
        dents_os::strftime(&mut m, c"%a %b %e %H:%M:%S %Y", &tm);
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

/// GNU's message where the argument of `-mtime` (`minutes: false`),
/// `-mmin` or `-used` puts the reference after the last time a `time_t`
/// holds (a negative number of days: in the future).
pub fn age_overflow(arg: &[u8], minutes: bool, origin: Timestamp) -> Option<String> {
    let s = std::str::from_utf8(arg).ok()?;
    let rest = s.strip_prefix(['+', '-']).unwrap_or(s);
    let value = strtod(rest)?;
    let unit = if minutes { 60.0 } else { DAY as f64 };
    (origin.sec as f64 + 2.0 * DAY as f64 - value * unit >= i64::MAX as f64).then(|| {
        format!(
            "arithmetic overflow while converting {rest} {} to a number of seconds",
            if minutes { "minutes" } else { "days" }
        )
    })
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
    let ns = (value * DAY as f64 * 1e9).clamp(-1e35, 1e35);
    (!ns.is_nan()).then_some((sign, ns as i128))
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
    if offset.is_nan() {
        return None;
    }
    // Far beyond any file's time, a reference is as good as infinitely
    // far (GNU takes any number strtod takes).
    const FAR: f64 = 1e30;
    if offset.abs() >= FAR / 1e9 {
        let far = FAR as i128;
        return Some((
            rel,
            if offset > 0.0 {
                origin - far
            } else {
                origin + far
            },
        ));
    }
    let secs = offset.trunc();
    let nanos = ((offset - secs) * 1e9) as i128;
    Some((rel, origin - (secs as i128 * NS + nanos)))
}

/// A floating-point number as `strtod` reads it whole: leading white
/// space, a sign, then decimal digits with a point and an exponent,
/// hexadecimal ones (`0x1.8p3`), `inf`, `infinity` or `nan`.
fn strtod(s: &str) -> Option<f64> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let negative = t.starts_with('-');
    let lower = body.to_ascii_lowercase();
    if ["inf", "infinity", "nan"].contains(&lower.as_str()) {
        let v = if lower == "nan" {
            f64::NAN
        } else {
            f64::INFINITY
        };
        return Some(if negative { -v } else { v });
    }
    if let Some(hex) = lower.strip_prefix("0x") {
        let v = hex_float(hex)?;
        // Out of range (ERANGE): refused.
        return v.is_finite().then_some(if negative { -v } else { v });
    }
    let mantissa_end = body
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(body.len());
    let mantissa = &body[..mantissa_end];
    if !mantissa.bytes().any(|b| b.is_ascii_digit()) || mantissa.matches('.').count() > 1 {
        return None;
    }
    // Out of range (ERANGE, "1e400"): refused.
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The value of hexadecimal digits with an optional point and binary
/// exponent (`1.8p3`), all of `s`.
fn hex_float(s: &str) -> Option<f64> {
    let (mantissa, exp) = match s.split_once('p') {
        Some((m, e)) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            (
                m,
                e.parse::<i32>().unwrap_or(if e.starts_with('-') {
                    -100_000
                } else {
                    100_000
                }),
            )
        }
        None => (s, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty()
        || !int
            .bytes()
            .chain(frac.bytes())
            .all(|c| c.is_ascii_hexdigit())
    {
        return None;
    }
    let mut v = 0f64;
    for c in int.chars() {
        v = v * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    Some(v * 2f64.powi(exp))
}

/// Days since 1970-01-01 of a date in the proleptic Gregorian calendar.
pub(super) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
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
pub(super) fn local_to_utc(civil: i64) -> i64 {
    let offset_at = |t: i64| dents_os::local_time(t).map_or(0, |tm| tm.utc_offset());
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
    fn numbers() {
        assert_eq!(strtod(" 1.5"), Some(1.5));
        assert_eq!(strtod("-1"), Some(-1.0));
        assert_eq!(strtod("1x"), None);
        assert_eq!(strtod(""), None);
        assert_eq!(strtod("0x10"), Some(16.0));
        assert_eq!(strtod("0x1.8p1"), Some(3.0));
        assert_eq!(strtod("-Inf"), Some(f64::NEG_INFINITY));
    }
}
