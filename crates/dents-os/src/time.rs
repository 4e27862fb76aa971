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

/// `format` with GNU's `%N` (the nine-digit nanoseconds, which the C
/// library's `strftime` lacks) replaced by `nsec`, for [`strftime`];
/// every other `%` sequence (`%%N` too) is kept for `strftime`.
pub fn expand_nanos(format: &[u8], nsec: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(format.len() + 8);
    let mut i = 0;
    while i < format.len() {
        if format[i] == b'%' && i + 1 < format.len() {
            if format[i + 1] == b'N' {
                out.extend_from_slice(format!("{nsec:09}").as_bytes());
            } else {
                out.extend_from_slice(&format[i..i + 2]);
            }
            i += 2;
        } else {
            out.push(format[i]);
            i += 1;
        }
    }
    out
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

    #[test]
    fn nanos_expand_but_escaped_percent_stays() {
        assert_eq!(expand_nanos(b"%S.%N %%N", 5), b"%S.000000005 %%N");
        assert_eq!(expand_nanos(b"%s.%N%%N", 42), b"%s.000000042%%N");
        assert_eq!(expand_nanos(b"%N%", 7), b"000000007%");
    }

    #[test]
    fn broken_down_fields_agree_with_strftime() {
        // Whatever the zone, the fields and strftime's text describe the
        // same moment.
        let t = local_time(1_700_000_000).expect("a representable time");
        let mut text = Vec::new();
        strftime(&mut text, c"%Y-%m-%d %H:%M:%S %w %j", &t);
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
