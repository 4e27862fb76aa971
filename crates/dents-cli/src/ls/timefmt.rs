//! Times in the long format, as GNU ls writes them.
//!
//! A time within the last six months (and not in the future) is "recent"
//! and gets the recent format (`Nov 22 11:47`); others get the old one
//! (`Sep 20  2022`).  `--time-style` picks other formats as GNU's does.
//! Formatting goes through the C library's `strftime` (so `%b` follows
//! the locale, as in ls); `%N` (nanoseconds, a GNU extension) is expanded
//! first.  The last result is cached: entries of one directory often share
//! their second.

use std::collections::HashMap;
use std::ffi::CString;

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
        let locale = || TimeStyle::both("%b %e  %Y", "%b %e %H:%M");
        let Some(mut s) = style else {
            return Ok(locale());
        };
        if let Some(rest) = s.strip_prefix("posix-") {
            if c_time_locale() {
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
                    super::args::quote_word(s),
                    super::args::quote_word("time style"),
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

/// Whether the time locale is C or POSIX (for `posix-` styles).
fn c_time_locale() -> bool {
    let var = ["LC_ALL", "LC_TIME", "LANG"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()));
    matches!(var.as_deref(), None | Some("C" | "POSIX"))
}

/// Formats times for one listing; remembers what it formatted.
///
/// Entries arrive in hash order, so their times jump around; a map of the
/// formatted seconds (rather than the last one only) keeps `localtime_r`,
/// which takes a process-wide lock, off the hot path.
#[derive(Debug)]
pub struct TimeFormatter {
    style: TimeStyle,
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
            uses_nanos: style.old.contains("%N") || style.recent.contains("%N"),
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
        let fmt = if recent {
            &self.style.recent
        } else {
            &self.style.old
        };
        match dents_os::local_time(secs) {
            Some(tm) => {
                let fmt = CString::new(dents_os::expand_nanos(fmt.as_bytes(), nanos))
                    .unwrap_or_else(|_| CString::from(c"?"));
                dents_os::strftime(&mut text, &fmt, &tm);
            }
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
