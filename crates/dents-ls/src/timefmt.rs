//! Times in the long format, as GNU ls writes them.
//!
//! A time within the last six months (and not in the future) is "recent"
//! and gets the recent format (`Nov 22 11:47`); others get the old one
//! (`Sep 20  2022`).  In another locale both come from coreutils' catalog
//! (`26. Nov 19:23` and ` 5. Mär 2020 ` in German), and month names are
//! padded to one width, as GNU ls does.  `--time-style` picks other formats as GNU's does.
//! Formatting goes through the C library's `strftime` (so `%b` follows
//! the locale, as in ls), with gnulib's extensions (`%N`, `%:z`, `%q`...)
//! added by `dents_os::strftime_gnu`.  The last result is cached: entries
//! of one directory often share their second.

use std::collections::HashMap;

/// Half a Gregorian year in seconds: GNU's "six months".
const SIX_MONTHS: i64 = 31_556_952 / 2;

/// The two strftime formats of a time style.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeStyle {
    /// For times older than six months or in the future.
    old: String,
    /// For times within the last six months.
    recent: String,
}

impl TimeStyle {
    /// Parses a `--time-style` value (or `TIME_STYLE`), GNU's names and
    /// `+FORMAT`; `None` means the locale's default.
    pub fn parse(style: Option<&str>) -> Result<TimeStyle, String> {
        let locale = || {
            // GNU ls's `locale` style: its two formats through coreutils'
            // catalog for LC_TIME (`%e. %b %Y ` in German), unless the
            // time locale is C.
            let (old, recent) = ("%b %e  %Y", "%b %e %H:%M");
            let translated = |f: &str| {
                (!dents_os::time_locale_is_c())
                    .then(|| dents_os::time_translation("coreutils", f.as_bytes()))
                    .flatten()
                    .and_then(|t| String::from_utf8(t).ok())
                    .unwrap_or_else(|| f.to_string())
            };
            TimeStyle::both(&translated(old), &translated(recent))
        };
        let Some(mut s) = style else {
            return Ok(locale());
        };
        if let Some(rest) = s.strip_prefix("posix-") {
            // GNU's `hard_locale (LC_TIME)`: the locale adopted.
            if dents_os::time_locale_is_c() {
                return Ok(locale());
            }
            s = rest;
        }
        if let Some(fmt) = s.strip_prefix('+') {
            return Ok(match fmt.split_once('\n') {
                Some((old, recent)) => TimeStyle::both(old, recent),
                None => TimeStyle::both(fmt, fmt),
            });
        }
        // GNU's argmatch: the word, or an abbreviation of only one.
        const WORDS: [&str; 4] = ["full-iso", "long-iso", "iso", "locale"];
        let matching: Vec<&str> = WORDS.into_iter().filter(|w| w.starts_with(s)).collect();
        let word = match matching[..] {
            _ if WORDS.contains(&s) => s,
            [w] if !s.is_empty() => w,
            _ => {
                let problem = if matching.is_empty() {
                    "invalid"
                } else {
                    "ambiguous"
                };
                return Err(format!(
                    "{problem} argument {} for {}\n\
                     Valid arguments are:\n  \
                     - [posix-]full-iso\n  \
                     - [posix-]long-iso\n  \
                     - [posix-]iso\n  \
                     - [posix-]locale\n  \
                     - +FORMAT (e.g., +%H:%M) for a 'date'-style format",
                    super::quoting::quote_word(s),
                    super::quoting::quote_word("time style"),
                ));
            }
        };
        Ok(match word {
            "full-iso" => TimeStyle::both("%Y-%m-%d %H:%M:%S.%N %z", "%Y-%m-%d %H:%M:%S.%N %z"),
            "long-iso" => TimeStyle::both("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M"),
            "iso" => TimeStyle::both("%Y-%m-%d ", "%m-%d %H:%M"),
            _ => locale(),
        })
    }

    fn both(old: &str, recent: &str) -> TimeStyle {
        TimeStyle {
            old: old.to_string(),
            recent: recent.to_string(),
        }
    }
}

/// Formats times for one listing; remembers what it formatted.
///
/// Entries arrive in hash order, so their times jump around; a map of the
/// formatted seconds (rather than the last one only) keeps `localtime_r`,
/// which takes a process-wide lock, off the hot path.
#[derive(Debug)]
pub struct TimeFormatter {
    style: TimeStyle,
    /// The formats with their first `%b` replaced by each month's name,
    /// padded to the widest (`[old, recent]`, January first), as GNU ls
    /// aligns `mars ` with `févr.`; `None` when neither has a `%b` or a
    /// name cannot be padded.
    by_month: Option<[[String; 12]; 2]>,
    now: (i64, u32),
    cache: HashMap<(i64, u32, bool), Vec<u8>>,
    uses_nanos: bool,
}

/// Distinct times remembered before the map is emptied.
const CACHE_LIMIT: usize = 1 << 16;

impl TimeFormatter {
    /// A formatter for `style`, with "now" read from the clock.
    pub fn new(style: &TimeStyle) -> TimeFormatter {
        TimeFormatter {
            by_month: formats_by_month(style),
            uses_nanos: dents_os::format_uses_nanos(style.old.as_bytes())
                || dents_os::format_uses_nanos(style.recent.as_bytes()),
            style: style.clone(),
            now: dents_os::now(),
            cache: HashMap::new(),
        }
    }

    /// Appends the time `secs.nanos` to `out`.
    pub fn format(&mut self, out: &mut Vec<u8>, secs: i64, nanos: u32) {
        let t = (secs, nanos);
        let six_months_ago = (self.now.0 - SIX_MONTHS, self.now.1);
        let recent = six_months_ago < t && t < self.now;
        let key = (secs, if self.uses_nanos { nanos } else { 0 }, recent);
        if let Some(text) = self.cache.get(&key) {
            out.extend_from_slice(text);
            return;
        }
        let mut text = Vec::new();
        let mut fmt = if recent {
            &self.style.recent
        } else {
            &self.style.old
        };
        let tm = dents_os::local_time(secs);
        if let (Some(by_month), Some(tm)) = (&self.by_month, &tm) {
            fmt = &by_month[recent as usize][tm.month() as usize - 1];
        }
        match tm {
            Some(tm) => dents_os::strftime_gnu(&mut text, fmt.as_bytes(), &tm, nanos),
            // A time the C library cannot convert: GNU prints seconds.
            None => text.extend_from_slice(secs.to_string().as_bytes()),
        }
        out.extend_from_slice(&text);
        if self.cache.len() >= CACHE_LIMIT {
            self.cache.clear();
        }
        self.cache.insert(key, text);
    }
}

/// GNU ls's longest format with a month's name in it (`ABFORMAT_SIZE`,
/// the terminating NUL included).
const MONTH_FORMAT_MAX: usize = 128;

/// Where the first `%b` of `fmt` is (a `%%` is skipped).
fn first_percent_b(fmt: &str) -> Option<usize> {
    let b = fmt.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'%' {
            match b[i + 1] {
                b'b' => return Some(i),
                b'%' => i += 1,
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// The formats of `style` for each month, the first `%b` replaced by the
/// locale's abbreviated month name padded to the widest name's columns
/// (spaces after it, or before it if it starts with a digit), as GNU ls
/// does; `None` if no format has `%b`, a name has a `%` or is not UTF-8,
/// or a format grows too long.
fn formats_by_month(style: &TimeStyle) -> Option<[[String; 12]; 2]> {
    let formats = [&style.old, &style.recent];
    let at = formats.map(|f| first_percent_b(f));
    if at.iter().all(Option::is_none) {
        return None;
    }
    let names = dents_os::abbreviated_months();
    let utf8 = dents_os::locale_is_utf8();
    let mut texts = Vec::with_capacity(12);
    let mut widths = [0usize; 12];
    for (i, name) in names.iter().enumerate() {
        if name.len() >= MONTH_FORMAT_MAX || name.contains(&b'%') {
            return None;
        }
        let text = std::str::from_utf8(name).ok()?;
        // GNU 9.1's mbswidth without its reject flags: a byte that is no
        // character counts one column (every non-ASCII byte when the
        // character set is not UTF-8, so `févr.` is 6 wide there), a
        // control character none.
        widths[i] = text
            .chars()
            .map(|c| match c {
                c if c.is_control() => 0,
                c if utf8 => match dents_os::wide_char_info(c) {
                    (true, w) => w,
                    (false, _) => 1,
                },
                c => c.len_utf8(),
            })
            .sum();
        texts.push(text);
    }
    let widest = *widths.iter().max()?;
    let padded: Vec<String> = texts
        .iter()
        .zip(widths)
        .map(|(text, w)| {
            let fill = " ".repeat(widest - w);
            if text.starts_with(|c: char| c.is_ascii_digit()) {
                fill + text
            } else {
                format!("{text}{fill}")
            }
        })
        .collect();
    if padded.iter().any(|p| p.len() >= MONTH_FORMAT_MAX) {
        return None;
    }
    let mut out: [[String; 12]; 2] = Default::default();
    for (k, fmt) in formats.iter().enumerate() {
        for (m, name) in padded.iter().enumerate() {
            let f = match at[k] {
                Some(i) => format!("{}{name}{}", &fmt[..i], &fmt[i + 2..]),
                None => fmt.to_string(),
            };
            if f.len() >= MONTH_FORMAT_MAX {
                return None;
            }
            out[k][m] = f;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_parse_like_gnu() {
        assert_eq!(
            TimeStyle::parse(Some("+%s\n%H")).unwrap(),
            TimeStyle::both("%s", "%H")
        );
        assert!(TimeStyle::parse(Some("bogus")).is_err());
    }
}
