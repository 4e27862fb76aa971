//! Time: the clock, local time as the C library breaks it down, `strftime`
//! in the current locale, and the time zone.

use std::ffi::CStr;

use crate::sys;

pub use crate::sys::{tzset, with_time_zone};

/// A moment broken down in the local time zone (`localtime_r`), kept as
/// the C library's own structure so that [`strftime`] formats it exactly
/// as GNU's tools do (zone name, locale's month names) — without making
/// the C structure part of this crate's API.
#[derive(Clone, Copy)]
pub struct LocalTime {
    tm: libc::tm,
}

impl std::fmt::Debug for LocalTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02} {:+}s",
            self.year(),
            self.month(),
            self.day(),
            self.hour(),
            self.minute(),
            self.second(),
            self.utc_offset()
        )
    }
}

impl LocalTime {
    /// The year (e.g. 2024; negative before 1 BC as the C library counts).
    pub fn year(&self) -> i64 {
        self.tm.tm_year as i64 + 1900
    }

    /// The month, 1 to 12.
    pub fn month(&self) -> u32 {
        self.tm.tm_mon as u32 + 1
    }

    /// The day of the month, 1 to 31.
    pub fn day(&self) -> u32 {
        self.tm.tm_mday as u32
    }

    /// The hour, 0 to 23.
    pub fn hour(&self) -> u32 {
        self.tm.tm_hour as u32
    }

    /// The minute, 0 to 59.
    pub fn minute(&self) -> u32 {
        self.tm.tm_min as u32
    }

    /// The second, 0 to 60 (60 only in a leap second).
    pub fn second(&self) -> u32 {
        self.tm.tm_sec as u32
    }

    /// The day of the week, 0 (Sunday) to 6.
    pub fn weekday(&self) -> u32 {
        self.tm.tm_wday as u32
    }

    /// The day of the year, 0 (1 January) to 365.
    pub fn year_day(&self) -> u32 {
        self.tm.tm_yday as u32
    }

    /// Seconds east of UTC of the zone in force at that moment.
    pub fn utc_offset(&self) -> i64 {
        self.tm.tm_gmtoff
    }

    /// The same time with the second field replaced by `second` (not
    /// normalised: only for formatting, as find's `%T` with nanoseconds
    /// does to learn where the seconds are in a locale's text).
    pub fn with_second(&self, second: u32) -> LocalTime {
        let mut tm = self.tm;
        tm.tm_sec = second as libc::c_int;
        LocalTime { tm }
    }
}

/// Broken-down local time of a Unix timestamp, as `localtime_r` gives it;
/// `None` if the C library cannot represent it.
pub fn local_time(secs: i64) -> Option<LocalTime> {
    sys::localtime(secs).map(|tm| LocalTime { tm })
}

/// Formats `time` with the C library's `strftime` (the current `LC_TIME`)
/// and appends the bytes to `out` (nothing if the text would pass 512
/// bytes).
pub fn strftime(out: &mut Vec<u8>, format: &CStr, time: &LocalTime) {
    sys::strftime(out, format, &time.tm);
}

/// Formats `time`, `nsec` nanoseconds past its second, as GNU's tools
/// format `--time-style=+FORMAT` (gnulib's `nstrftime`) and appends the
/// text to `out`: the C library's `strftime` in the current `LC_TIME`,
/// plus what it lacks, with their flags (`_ - 0 +`) and widths: `%N`
/// (nanoseconds: `%3N` the first three digits, `%-3N` without trailing
/// zeros, `%_3N` space-padded), `%q` (the quarter), and `%z` in gnulib's
/// forms (`%:z` `+hh:mm`, `%::z` `+hh:mm:ss`, `%:::z` as short as exact;
/// and flags or a width on `%z`, which glibc pads differently).
pub fn strftime_gnu(out: &mut Vec<u8>, format: &[u8], time: &LocalTime, nsec: u32) {
    let mut c_format = Vec::with_capacity(format.len() + 16);
    let mut i = 0;
    while i < format.len() {
        if format[i] != b'%' {
            c_format.push(format[i]);
            i += 1;
            continue;
        }
        let spec = Spec::parse(&format[i + 1..]);
        let len = 1 + spec.len;
        match spec.extension() {
            Some(b'N') => nanos(&mut c_format, &spec, nsec),
            Some(b'q') => {
                let quarter = (time.month() - 1) / 3 + 1;
                number(&mut c_format, &spec, quarter.to_string().as_bytes(), 1)
            }
            Some(_) => zone_offset(&mut c_format, &spec, time.utc_offset()),
            None => c_format.extend_from_slice(&format[i..i + len]),
        }
        i += len;
    }
    // A NUL in a format ends it, as in C (argv cannot hold one).
    if let Some(nul) = c_format.iter().position(|&b| b == 0) {
        c_format.truncate(nul);
    }
    let c_format = std::ffi::CString::new(c_format).expect("NULs removed");
    sys::strftime(out, &c_format, &time.tm);
}

/// Whether `format`'s text depends on the nanoseconds (a `%N` in any of
/// its forms), so that a cache of formatted seconds must key on them too.
pub fn format_uses_nanos(format: &[u8]) -> bool {
    let mut i = 0;
    while i < format.len() {
        if format[i] == b'%' {
            let spec = Spec::parse(&format[i + 1..]);
            if spec.extension() == Some(b'N') {
                return true;
            }
            i += 1 + spec.len;
        } else {
            i += 1;
        }
    }
    false
}

/// One conversion after its `%`, as gnulib reads it: flags, a width, an
/// `E` or `O` modifier, colons (only before `z`), the conversion letter.
struct Spec {
    /// The last of the padding flags `_ - 0 +` (`^` and `#` change case,
    /// which numbers do not have).
    pad: Option<u8>,
    width: Option<usize>,
    modifier: Option<u8>,
    colons: usize,
    /// The conversion character (0 when the format ended first).
    conv: u8,
    /// Bytes of the conversion after the `%`.
    len: usize,
}

impl Spec {
    fn parse(f: &[u8]) -> Spec {
        let mut i = 0;
        let mut pad = None;
        while let Some(&c) = f.get(i) {
            match c {
                b'_' | b'-' | b'0' | b'+' => pad = Some(c),
                b'^' | b'#' => {}
                _ => break,
            }
            i += 1;
        }
        let mut width: Option<usize> = None;
        while let Some(&c) = f.get(i).filter(|c| c.is_ascii_digit()) {
            let w = width.unwrap_or(0);
            width = Some(w.saturating_mul(10).saturating_add((c - b'0') as usize));
            i += 1;
        }
        let modifier = f.get(i).copied().filter(|&c| c == b'E' || c == b'O');
        i += modifier.is_some() as usize;
        let mut colons = 0;
        while f.get(i) == Some(&b':') {
            colons += 1;
            i += 1;
        }
        let conv = f.get(i).copied().unwrap_or(0);
        Spec {
            pad,
            width,
            modifier,
            colons,
            conv,
            len: (i + 1).min(f.len()),
        }
    }

    /// The conversion if it is one of gnulib's that the C library lacks
    /// (or pads otherwise) and well formed; `None`: the C library's, or a
    /// bad one it writes as it is, as gnulib does.
    fn extension(&self) -> Option<u8> {
        match (self.conv, self.modifier, self.colons) {
            (b'N', None | Some(b'O'), 0) => Some(b'N'),
            (b'q', None | Some(b'E'), 0) => Some(b'q'),
            (b'z', _, 0..=3) => Some(b'z'),
            _ => None,
        }
    }
}

/// `%N`: the first `width` digits of the nine (all nine without a
/// width), trailing zeros dropped and the width filled again with the
/// padding: zeros (the default), spaces (`_`) or nothing (`-`).  (GNU
/// du and ls 9.1 write `%-N` as `%-9N`; GNU date keeps nine digits.)
fn nanos(out: &mut Vec<u8>, spec: &Spec, nsec: u32) {
    let nine = format!("{:09}", nsec.min(999_999_999));
    let (width, pad) = (spec.width.unwrap_or(9), spec.pad.unwrap_or(b'0'));
    let digits = nine[..width.min(9)].trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    out.extend_from_slice(digits.as_bytes());
    let fill = match pad {
        b'-' => 0,
        _ => width.saturating_sub(digits.len()),
    };
    let fill_byte = if pad == b'_' { b' ' } else { b'0' };
    out.resize(out.len() + fill, fill_byte);
}

/// A number of `default_width` digits as gnulib pads numbers: zeros on
/// the left to the width (the default), spaces (`_`), nothing (`-`).
fn number(out: &mut Vec<u8>, spec: &Spec, digits: &[u8], default_width: usize) {
    let width = spec.width.unwrap_or(default_width);
    let fill = width.saturating_sub(digits.len());
    match spec.pad {
        Some(b'-') => {}
        Some(b'_') => out.resize(out.len() + fill, b' '),
        _ => out.resize(out.len() + fill, b'0'),
    }
    out.extend_from_slice(digits);
}

/// `%z` and its colon forms: a sign, the hours without leading zeros and
/// the rest (`330`, `3:30`, `3:30:00`, `3`), padded to the width (5, 6, 9,
/// or that of the form `%:::z` chose) with zeros after the sign, spaces
/// before it (`_`), or not at all (`-`).
fn zone_offset(out: &mut Vec<u8>, spec: &Spec, offset: i64) {
    let sign = if offset < 0 { b'-' } else { b'+' };
    let abs = offset.unsigned_abs();
    let (h, m, s) = (abs / 3600, abs / 60 % 60, abs % 60);
    let colons = match spec.colons {
        3 if s != 0 => 2,
        3 if m != 0 => 1,
        c => c,
    };
    let (body, default_width) = match (spec.colons, colons) {
        (_, 0) => ((h * 100 + m).to_string(), 5),
        (_, 1) => (format!("{h}:{m:02}"), 6),
        (3, 3) => (h.to_string(), 3),
        _ => (format!("{h}:{m:02}:{s:02}"), 9),
    };
    let width = spec.width.unwrap_or(default_width);
    let fill = width.saturating_sub(1 + body.len());
    match spec.pad {
        Some(b'-') => out.push(sign),
        Some(b'_') => {
            out.resize(out.len() + fill, b' ');
            out.push(sign);
        }
        _ => {
            out.push(sign);
            out.resize(out.len() + fill, b'0');
        }
    }
    out.extend_from_slice(body.as_bytes());
}

/// The current time as seconds and nanoseconds since the Unix epoch.
pub fn now() -> (i64, u32) {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::Realtime);
    (ts.tv_sec, ts.tv_nsec as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    /// `spec` (what follows `%`) applied by `f`, as text.
    fn ext(spec: &str, f: impl Fn(&mut Vec<u8>, &Spec)) -> String {
        let spec = Spec::parse(spec.as_bytes());
        assert!(spec.extension().is_some());
        let mut out = Vec::new();
        f(&mut out, &spec);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn nanos_as_gnu_date_writes_them() {
        // Seen from GNU du and ls 9.1 (`du --time --time-style=+%_3N`...).
        let n = |spec: &str, ns| ext(spec, |o, s| nanos(o, s, ns));
        for (spec, a, b) in [
            ("N", "120000000", "005000000"),
            ("3N", "120", "005"),
            ("-3N", "12", "005"),
            ("_3N", "12 ", "005"),
            ("03N", "120", "005"),
            ("9N", "120000000", "005000000"),
            ("-N", "12", "005"),
            ("_N", "12       ", "005      "),
            ("-9N", "12", "005"),
            ("12N", "120000000000", "005000000000"),
            ("1N", "1", "0"),
            ("-_3N", "12 ", "005"),
            ("_-3N", "12", "005"),
            ("ON", "120000000", "005000000"),
        ] {
            assert_eq!(n(spec, 120_000_000), a, "%{spec}");
            assert_eq!(n(spec, 5_000_000), b, "%{spec}");
        }
        assert_eq!(n("-3N", 0), "0");
    }

    #[test]
    fn zone_offsets_as_gnu_date_writes_them() {
        // Seen from GNU date 9.1 in Asia/Kolkata, UTC, America/St_Johns.
        let z = |spec: &str, off| ext(spec, |o, s| zone_offset(o, s, off));
        let (ist, nst) = (5 * 3600 + 1800, -(3 * 3600 + 1800));
        for (spec, a, b, c) in [
            ("z", "+0530", "+0000", "-0330"),
            ("_z", " +530", "   +0", " -330"),
            ("-z", "+530", "+0", "-330"),
            ("7z", "+000530", "+000000", "-000330"),
            (":z", "+05:30", "+00:00", "-03:30"),
            ("::z", "+05:30:00", "+00:00:00", "-03:30:00"),
            (":::z", "+05:30", "+00", "-03:30"),
            ("10:z", "+000005:30", "+000000:00", "-000003:30"),
            ("_10:z", "     +5:30", "     +0:00", "     -3:30"),
            ("-:z", "+5:30", "+0:00", "-3:30"),
            ("_:::z", " +5:30", " +0", " -3:30"),
            ("7:::z", "+005:30", "+000000", "-003:30"),
            ("E:z", "+05:30", "+00:00", "-03:30"),
        ] {
            assert_eq!(z(spec, ist), a, "%{spec}");
            assert_eq!(z(spec, 0), b, "%{spec}");
            assert_eq!(z(spec, nst), c, "%{spec}");
        }
        assert_eq!(z(":::z", 3600 + 61), "+01:01:01");
    }

    #[test]
    fn bad_conversions_stay_for_the_c_library() {
        for spec in ["EN", ":N", "Oq", ":q", "::::z", ":Ez", ":Y", "%"] {
            assert!(
                Spec::parse(spec.as_bytes()).extension().is_none(),
                "%{spec}"
            );
        }
        let q = |spec: &str| ext(spec, |o, s| number(o, s, b"4", 1));
        assert_eq!(q("q"), "4");
        assert_eq!(q("_3q"), "  4");
        assert_eq!(q("05q"), "00004");
        assert_eq!(q("-q"), "4");
        assert_eq!(q("Eq"), "4");
    }

    #[test]
    fn nanos_uses_and_escaped_percent() {
        assert!(format_uses_nanos(b"%S.%3N"));
        assert!(format_uses_nanos(b"%-N"));
        assert!(format_uses_nanos(b"%ON"));
        assert!(!format_uses_nanos(b"%%N %EN %:N"));
    }

    #[test]
    fn broken_down_fields_agree_with_strftime() {
        // Whatever the zone, the fields and strftime's text describe the
        // same moment.
        let t = local_time(1_700_000_000).expect("a representable time");
        let mut text = Vec::new();
        strftime(&mut text, c"%Y-%m-%d %H:%M:%S %w %j", &t);
        let mut gnu = Vec::new();
        strftime_gnu(&mut gnu, b"%Y-%m-%d %H:%M:%S %w %j", &t, 0);
        assert_eq!(gnu, text);
        let want = format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02} {} {:03}",
            t.year(),
            t.month(),
            t.day(),
            t.hour(),
            t.minute(),
            t.second(),
            t.weekday(),
            t.year_day() + 1
        );
        assert_eq!(String::from_utf8(text).unwrap(), want);
        let shifted = t.with_second((t.second() + 11) % 60);
        let mut text = Vec::new();
        strftime(&mut text, c"%S", &shifted);
        assert_eq!(
            String::from_utf8(text).unwrap(),
            format!("{:02}", (t.second() + 11) % 60)
        );
    }

    #[test]
    fn time_zone_needs_one_thread() {
        // The test harness runs tests on threads of its own: more than one.
        let _other = std::thread::spawn(|| std::thread::sleep(std::time::Duration::from_secs(1)));
        assert!(with_time_zone(OsStr::new("UTC"), || ()).is_none());
    }
}
