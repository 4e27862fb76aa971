//! Date strings of `-newerXt`, read as GNU's date parser (gnulib's
//! `parse_datetime`, shared with `date -d` and `touch -d`) reads the
//! forms people write: ISO 8601 dates and times with zones and offsets,
//! `@SECONDS`, month names (`Dec 13 1991`, `13 December 1991`),
//! `MM/DD/YYYY`, `YYYYMMDD`, times with `am`/`pm`, day names, relative
//! items (`yesterday`, `2 days ago`, `next week`, `-3 hours`, `now`,
//! `today`), zone names (`UTC`, `GMT`, `Z`, the US zones) and a leading
//! `TZ="ZONE"`.  Items come in any order, as GNU allows.
//!
//! Not read (refused as unreadable): military one-letter zones other
//! than `Z`, zone names beyond those above, ordinal words above `third`
//! other than GNU's `fourth`..`twelfth`, and the ISO week forms.

use super::time::{days_from_civil, local_to_utc, Timestamp};

/// What a string said, item by item.
#[derive(Default, Debug)]
struct Parts {
    /// Calendar date: year (if given), month, day.
    date: Option<(Option<i64>, i64, i64)>,
    /// Time of day: hours, minutes, seconds, nanoseconds.
    time: Option<(i64, i64, i64, u32)>,
    /// Offset east of UTC, in seconds, from a zone or a numeric offset.
    zone: Option<i64>,
    /// A day of the week (0 = Sunday) and its ordinal (`next friday`).
    weekday: Option<(i64, i64)>,
    /// Relative years, months, days, then seconds.
    rel: [i64; 4],
    /// Some relative item was given.
    rel_seen: bool,
    /// The last relative item (slot, amount), which `ago` turns back.
    last_rel: Option<(usize, i64)>,
}

/// A word token's meaning.
enum Word {
    Month(i64),
    Weekday(i64),
    /// Unit: index into `rel` and its size in that slot.
    Unit(usize, i64),
    /// `yesterday`, `today`, `tomorrow`, `now`: days.
    Days(i64),
    Ago,
    Ordinal(i64),
    Zone(i64),
    Meridian(bool),
}

/// What a (lower-case) word means, if anything.
fn word(w: &str) -> Option<Word> {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    const DAYS: [&str; 7] = [
        "sunday",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
    ];
    let w = w.trim_end_matches('.');
    for (i, m) in MONTHS.iter().enumerate() {
        if w == *m || w.len() == 3 && m.starts_with(w) || w == "sept" && i == 8 {
            return Some(Word::Month(i as i64 + 1));
        }
    }
    for (i, d) in DAYS.iter().enumerate() {
        if w == *d
            || w.len() == 3 && d.starts_with(w)
            || matches!((w, i), ("tues", 2) | ("wednes", 3) | ("thur" | "thurs", 4))
        {
            return Some(Word::Weekday(i as i64));
        }
    }
    let unit = |slot, n| Some(Word::Unit(slot, n));
    match w {
        "year" | "years" => unit(0, 1),
        "month" | "months" => unit(1, 1),
        "fortnight" | "fortnights" => unit(2, 14),
        "week" | "weeks" => unit(2, 7),
        "day" | "days" => unit(2, 1),
        "hour" | "hours" => unit(3, 3600),
        "minute" | "minutes" | "min" | "mins" => unit(3, 60),
        "second" | "seconds" | "sec" | "secs" => unit(3, 1),
        "yesterday" => Some(Word::Days(-1)),
        "today" | "now" => Some(Word::Days(0)),
        "tomorrow" => Some(Word::Days(1)),
        "ago" => Some(Word::Ago),
        "last" => Some(Word::Ordinal(-1)),
        "this" => Some(Word::Ordinal(0)),
        "next" | "first" => Some(Word::Ordinal(1)),
        "third" => Some(Word::Ordinal(3)),
        "fourth" => Some(Word::Ordinal(4)),
        "fifth" => Some(Word::Ordinal(5)),
        "sixth" => Some(Word::Ordinal(6)),
        "seventh" => Some(Word::Ordinal(7)),
        "eighth" => Some(Word::Ordinal(8)),
        "ninth" => Some(Word::Ordinal(9)),
        "tenth" => Some(Word::Ordinal(10)),
        "eleventh" => Some(Word::Ordinal(11)),
        "twelfth" => Some(Word::Ordinal(12)),
        "utc" | "ut" | "gmt" | "z" | "wet" => Some(Word::Zone(0)),
        "bst" => Some(Word::Zone(3600)),
        "edt" => Some(Word::Zone(-4 * 3600)),
        "est" | "cdt" => Some(Word::Zone(-5 * 3600)),
        "cst" | "mdt" => Some(Word::Zone(-6 * 3600)),
        "mst" | "pdt" => Some(Word::Zone(-7 * 3600)),
        "pst" => Some(Word::Zone(-8 * 3600)),
        "cet" => Some(Word::Zone(3600)),
        "cest" | "eet" => Some(Word::Zone(2 * 3600)),
        "am" | "a.m" => Some(Word::Meridian(false)),
        "pm" | "p.m" => Some(Word::Meridian(true)),
        _ => None,
    }
}

/// A token of the string.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// Digits (their text kept for their count).
    Num(String),
    /// A sign directly before digits.
    Signed(i64, String),
    Word(String),
    Punct(char),
}

fn tokens(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let st = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push(Tok::Num(s[st..i].to_string()));
        } else if (c == b'+' || c == b'-' && !(i > 0 && b[i - 1].is_ascii_alphanumeric()))
            && b.get(i + 1).is_some_and(u8::is_ascii_digit)
        {
            // A sign; a `-` glued to what precedes it separates
            // (`1991-12-13`, `13-Dec-1991`).
            let st = i + 1;
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push(Tok::Signed(
                if c == b'-' { -1 } else { 1 },
                s[st..i].to_string(),
            ));
        } else if c.is_ascii_alphabetic() {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'.') {
                i += 1;
            }
            out.push(Tok::Word(s[st..i].to_ascii_lowercase()));
        } else if c == b'(' {
            // A comment, as GNU allows.
            let mut depth = 0;
            while i < b.len() {
                depth += match b[i] {
                    b'(' => 1,
                    b')' => -1,
                    _ => 0,
                };
                i += 1;
                if depth == 0 {
                    break;
                }
            }
        } else if c.is_ascii() {
            out.push(Tok::Punct(c as char));
            i += 1;
        } else {
            return None;
        }
    }
    Some(out)
}

fn num(t: Option<&Tok>) -> Option<(i64, usize)> {
    match t {
        Some(Tok::Num(d)) => Some((d.parse().ok()?, d.len())),
        _ => None,
    }
}

/// Nanoseconds from the digits after a decimal point.
fn fraction(digits: &str) -> u32 {
    let mut n = 0u32;
    for i in 0..9 {
        n = n * 10 + digits.as_bytes().get(i).map_or(0, |c| (c - b'0') as u32);
    }
    n
}

/// A two-digit year as GNU takes it: 69-99 in the 1900s, 0-68 in the 2000s.
fn full_year(y: i64, digits: usize) -> i64 {
    match (digits, y) {
        (1 | 2, 0..=68) => y + 2000,
        (1 | 2, 69..=99) => y + 1900,
        _ => y,
    }
}

/// Reads the items of `toks` into `p`.
fn items(toks: &[Tok], p: &mut Parts) -> Option<()> {
    let mut i = 0;
    let punct = |i: usize, c: char| toks.get(i) == Some(&Tok::Punct(c));
    while i < toks.len() {
        match &toks[i] {
            Tok::Num(d) => {
                let n: i64 = d.parse().ok()?;
                // YYYY-MM-DD
                if punct(i + 1, '-') && num(toks.get(i + 2)).is_some() && punct(i + 3, '-') {
                    let (m, _) = num(toks.get(i + 2))?;
                    let (day, _) = num(toks.get(i + 4))?;
                    set_date(p, Some(full_year(n, d.len())), m, day)?;
                    i += 5;
                    // `T` before a time of day.
                    if let Some(Tok::Word(w)) = toks.get(i) {
                        if w == "t" && num(toks.get(i + 1)).is_some() {
                            i += 1;
                        }
                    }
                    continue;
                }
                // YYYY-MM-DDTHH:MM with the T glued to the time's digits
                // is tokenised as above; `DD-Mon-YYYY`:
                if punct(i + 1, '-') {
                    if let Some(Tok::Word(w)) = toks.get(i + 2) {
                        if let Some(Word::Month(m)) = word(w) {
                            let y = if punct(i + 3, '-') {
                                let (y, yd) = num(toks.get(i + 4))?;
                                i += 5;
                                Some(full_year(y, yd))
                            } else {
                                i += 3;
                                None
                            };
                            set_date(p, y, m, n)?;
                            continue;
                        }
                    }
                }
                // MM/DD[/YYYY]
                if punct(i + 1, '/') {
                    let (day, _) = num(toks.get(i + 2))?;
                    if punct(i + 3, '/') {
                        let (y, yd) = num(toks.get(i + 4))?;
                        if d.len() >= 3 {
                            // YYYY/MM/DD
                            set_date(p, Some(n), day, y)?;
                        } else {
                            set_date(p, Some(full_year(y, yd)), n, day)?;
                        }
                        i += 5;
                    } else {
                        set_date(p, None, n, day)?;
                        i += 3;
                    }
                    continue;
                }
                // HH:MM[:SS[.frac]]
                if punct(i + 1, ':') {
                    let (min, _) = num(toks.get(i + 2))?;
                    let (mut sec, mut ns) = (0, 0);
                    i += 3;
                    if punct(i, ':') {
                        sec = num(toks.get(i + 1))?.0;
                        i += 2;
                        if (punct(i, '.') || punct(i, ',')) && num(toks.get(i + 1)).is_some() {
                            if let Some(Tok::Num(f)) = toks.get(i + 1) {
                                ns = fraction(f);
                            }
                            i += 2;
                        }
                    }
                    let mut hour = n;
                    if let Some(Tok::Word(w)) = toks.get(i) {
                        if let Some(Word::Meridian(pm)) = word(w) {
                            hour = meridian(hour, pm)?;
                            i += 1;
                        }
                    }
                    set_time(p, hour, min, sec, ns)?;
                    // A numeric offset right after the time.
                    let glued = match (toks.get(i), toks.get(i + 1)) {
                        (Some(Tok::Punct('-')), Some(Tok::Num(z))) => {
                            i += 1;
                            Some((-1, z))
                        }
                        (Some(Tok::Signed(s, z)), _) => Some((*s, z)),
                        _ => None,
                    };
                    if let Some((s, z)) = glued {
                        numeric_zone(toks, &mut i, p, s, z)?;
                    }
                    continue;
                }
                // A number then a word: `13 Dec [1991]`, `2 days`, `5 pm`.
                if let Some(Tok::Word(w)) = toks.get(i + 1) {
                    match word(w) {
                        Some(Word::Month(m)) => {
                            i += 2;
                            let y = match num(toks.get(i)) {
                                Some((y, yd)) if !punct(i + 1, ':') => {
                                    i += 1;
                                    Some(full_year(y, yd))
                                }
                                _ => None,
                            };
                            set_date(p, y, m, n)?;
                            continue;
                        }
                        Some(Word::Unit(slot, size)) => {
                            add_rel(p, slot, n * size);
                            i += 2;
                            continue;
                        }
                        Some(Word::Meridian(pm)) => {
                            set_time(p, meridian(n, pm)?, 0, 0, 0)?;
                            i += 2;
                            continue;
                        }
                        _ => {}
                    }
                }
                // A bare number: a year after a date, a date (YYYYMMDD),
                // or a time (HH, HHMM).
                if p.date.is_some_and(|(y, _, _)| y.is_none()) && (p.time.is_some() || d.len() > 2)
                {
                    let (_, m, day) = p.date?;
                    p.date = Some((Some(full_year(n, d.len())), m, day));
                } else if d.len() > 4 {
                    set_date(p, Some(n / 10000), n / 100 % 100, n % 100)?;
                } else if d.len() <= 2 {
                    set_time(p, n, 0, 0, 0)?;
                } else {
                    set_time(p, n / 100, n % 100, 0, 0)?;
                }
                i += 1;
            }
            Tok::Signed(s, d) => {
                let n: i64 = d.parse().ok()?;
                match toks.get(i + 1) {
                    Some(Tok::Word(w)) if matches!(word(w), Some(Word::Unit(..))) => {
                        let Some(Word::Unit(slot, size)) = word(w) else {
                            return None;
                        };
                        add_rel(p, slot, s * n * size);
                        i += 2;
                    }
                    _ => numeric_zone(toks, &mut i, p, *s, d)?,
                }
            }
            Tok::Word(w) => {
                match word(w)? {
                    Word::Month(m) => {
                        // Mon DD[,] [YYYY]
                        i += 1;
                        match num(toks.get(i)) {
                            Some((day, _)) if !punct(i + 1, ':') => {
                                i += 1;
                                if punct(i, ',') {
                                    i += 1;
                                }
                                let y = match num(toks.get(i)) {
                                    Some((y, yd)) if !punct(i + 1, ':') && yd > 2 => {
                                        i += 1;
                                        Some(full_year(y, yd))
                                    }
                                    _ => None,
                                };
                                set_date(p, y, m, day)?;
                            }
                            _ => set_date(p, None, m, 1)?,
                        }
                        continue;
                    }
                    Word::Weekday(d) => {
                        if p.weekday.is_some() {
                            return None;
                        }
                        p.weekday = Some((d, 0));
                        if punct(i + 1, ',') {
                            i += 1;
                        }
                    }
                    Word::Ordinal(n) => {
                        let w2 = match toks.get(i + 1) {
                            Some(Tok::Word(w2)) => word(w2)?,
                            _ => return None,
                        };
                        match w2 {
                            Word::Unit(slot, size) => add_rel(p, slot, n * size),
                            Word::Weekday(d) => {
                                if p.weekday.is_some() {
                                    return None;
                                }
                                p.weekday = Some((d, n));
                            }
                            _ => return None,
                        }
                        i += 1;
                    }
                    Word::Unit(slot, size) => add_rel(p, slot, size),
                    Word::Days(n) => add_rel(p, 2, n),
                    Word::Ago => {
                        // It turns back the item before it only.
                        let (slot, n) = p.last_rel.take()?;
                        p.rel[slot] -= 2 * n;
                    }
                    Word::Zone(z) => {
                        // `UTC+3`, `GMT-05:00`.
                        let mut z = z;
                        if let Some(Tok::Signed(s, d)) = toks.get(i + 1) {
                            let mut d = d.clone();
                            i += 1;
                            if punct(i + 1, ':') {
                                if let Some(Tok::Num(mm)) = toks.get(i + 2) {
                                    d.push_str(mm);
                                    i += 2;
                                }
                            }
                            z += s * offset(&d)?;
                        }
                        // A daylight zone: `... DST` is not read.
                        set_zone(p, z)?;
                    }
                    Word::Meridian(_) => return None,
                }
                i += 1;
            }
            Tok::Punct(c @ ('+' | '-')) => {
                // `+ 1 year`: a sign apart from its number.
                let sign = if *c == '-' { -1 } else { 1 };
                let (n, _) = num(toks.get(i + 1))?;
                let Some(Tok::Word(w)) = toks.get(i + 2) else {
                    return None;
                };
                let Some(Word::Unit(slot, size)) = word(w) else {
                    return None;
                };
                add_rel(p, slot, sign * n * size);
                i += 3;
            }
            Tok::Punct(',') => i += 1,
            Tok::Punct(_) => return None,
        }
    }
    Some(())
}

fn meridian(hour: i64, pm: bool) -> Option<i64> {
    if !(1..=12).contains(&hour) {
        return None;
    }
    Some(hour % 12 + if pm { 12 } else { 0 })
}

/// Reads the numeric zone whose digits `digits` (after the sign `sign`)
/// stand at `toks[*i]`: `+HH`, `+HHMM`, or `+HH:MM` with the minutes in the
/// tokens after it; leaves `*i` after the zone.
fn numeric_zone(toks: &[Tok], i: &mut usize, p: &mut Parts, sign: i64, digits: &str) -> Option<()> {
    let mut z = digits.to_string();
    *i += 1;
    if toks.get(*i) == Some(&Tok::Punct(':')) {
        if let Some(Tok::Num(mm)) = toks.get(*i + 1) {
            z.push_str(mm);
            *i += 2;
        }
    }
    set_zone(p, sign * offset(&z)?)
}

/// Seconds east of UTC of the digits of a numeric zone: `H`, `HH`,
/// `HMM`, `HHMM`.
fn offset(d: &str) -> Option<i64> {
    let n: i64 = d.parse().ok()?;
    let (h, m) = if d.len() <= 2 {
        (n, 0)
    } else {
        (n / 100, n % 100)
    };
    (h <= 24 && m < 60 && d.len() <= 4).then_some(h * 3600 + m * 60)
}

fn add_rel(p: &mut Parts, slot: usize, n: i64) {
    p.rel[slot] += n;
    p.rel_seen = true;
    p.last_rel = Some((slot, n));
}

fn set_date(p: &mut Parts, y: Option<i64>, m: i64, d: i64) -> Option<()> {
    if p.date.is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    p.date = Some((y, m, d));
    Some(())
}

fn set_time(p: &mut Parts, h: i64, m: i64, s: i64, ns: u32) -> Option<()> {
    if p.time.is_some() || h > 24 || m > 59 || s > 60 || h == 24 && (m, s, ns) != (0, 0, 0) {
        return None;
    }
    p.time = Some((h, m, s, ns));
    Some(())
}

fn set_zone(p: &mut Parts, z: i64) -> Option<()> {
    if p.zone.is_some() {
        return None;
    }
    p.zone = Some(z);
    Some(())
}

/// The broken-down local time of `t`: year, month, day, hours, minutes,
/// seconds, weekday.
fn broken_down(t: i64) -> (i64, i64, i64, i64, i64, i64, i64) {
    match dents_os::local_time(t) {
        Some(tm) => (
            tm.year(),
            tm.month() as i64,
            tm.day() as i64,
            tm.hour() as i64,
            tm.minute() as i64,
            tm.second() as i64,
            tm.weekday() as i64,
        ),
        None => (1970, 1, 1, 0, 0, 0, 4),
    }
}

/// Reads `arg` as GNU's date parser would with `now` as the present.
pub fn parse(arg: &[u8], now: Timestamp) -> Option<Timestamp> {
    let s = std::str::from_utf8(arg).ok()?.trim();
    // TZ="ZONE" first: the rest in that zone's local time.
    if let Some(rest) = s.strip_prefix("TZ=\"") {
        let end = rest.find('"')?;
        let (zone, rest) = (&rest[..end], &rest[end + 1..]);
        // The expression is parsed before any thread starts: if one had,
        // the zone could not be changed, and the date would be invalid.
        return dents_os::with_time_zone(std::ffi::OsStr::new(zone), || {
            parse_local(rest.trim(), now)
        })
        .flatten();
    }
    parse_local(s, now)
}

fn parse_local(s: &str, now: Timestamp) -> Option<Timestamp> {
    if let Some(num) = s.strip_prefix('@') {
        return epoch(num.trim());
    }
    let mut p = Parts::default();
    items(&tokens(s)?, &mut p)?;
    let (ny, nm, nd, nh, nmin, ns, nwday) = broken_down(now.sec);
    let (mut y, mut m, mut d) = match p.date {
        Some((y, m, d)) => (y.unwrap_or(ny), m, d),
        None => (ny, nm, nd),
    };
    // GNU: the time of day is now's unless a date, a time, a day of the
    // week or nothing at all was given.
    let empty = p.date.is_none() && p.time.is_none() && p.weekday.is_none() && !p.rel_seen;
    let (h, min, sec, nsec) = match p.time {
        Some(t) => t,
        None if p.date.is_some() || p.weekday.is_some() || empty => (0, 0, 0, 0),
        None => (nh, nmin, ns, now.nsec),
    };
    if let Some((wd, ord)) = p.weekday {
        if p.date.is_none() {
            // The day on or after today (or `ord` weeks on, GNU's way).
            let mut delta = (wd - nwday + 7) % 7;
            if ord > 0 && delta == 0 {
                delta = 7;
            }
            let extra = if ord > 1 { 7 * (ord - 1) } else { 0 };
            let back = if ord < 0 { (nwday - wd + 7) % 7 } else { 0 };
            d += if ord < 0 {
                -(if back == 0 { 7 } else { back })
            } else {
                delta + extra
            };
        }
    }
    // Relative years and months on the calendar, then days (mktime's
    // normalisation: Jan 31 + 1 month is Mar 3 or 2).
    y += p.rel[0];
    m += p.rel[1];
    y += (m - 1).div_euclid(12);
    m = (m - 1).rem_euclid(12) + 1;
    d += p.rel[2];
    let civil = (days_from_civil(y, m, 1) + d - 1) * 86_400 + h * 3600 + min * 60 + sec;
    // Without a date, a day or a time, the wall-clock time moved by
    // days keeps now's offset from UTC, as GNU keeps now's daylight
    // saving flag.
    let absolute = p.date.is_some() || p.weekday.is_some() || p.time.is_some();
    let t = match p.zone {
        Some(z) => civil - z,
        None if absolute || empty => local_to_utc(civil),
        None => civil - dents_os::local_time(now.sec).map_or(0, |tm| tm.utc_offset()),
    };
    Some(Timestamp {
        sec: t.checked_add(p.rel[3])?,
        nsec,
    })
}

/// `@SECONDS[.FRACTION]`.
fn epoch(num: &str) -> Option<Timestamp> {
    let (int, frac) = num.split_once(['.', ',']).unwrap_or((num, ""));
    let digits = int.strip_prefix(['+', '-']).unwrap_or(int);
    if digits.is_empty()
        || !digits.bytes().all(|c| c.is_ascii_digit())
        || !frac.bytes().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let sec: i64 = int.parse().ok()?;
    let nsec = fraction(frac);
    // "-1.5" is 1.5 s before the epoch.
    Some(if int.starts_with('-') && nsec > 0 {
        let total = sec as i128 * 1_000_000_000 - nsec as i128;
        Timestamp {
            sec: total.div_euclid(1_000_000_000) as i64,
            nsec: total.rem_euclid(1_000_000_000) as u32,
        }
    } else {
        Timestamp { sec, nsec }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Timestamp = Timestamp {
        sec: 1_700_000_000,
        nsec: 5,
    };

    /// Sets `TZ=UTC` once for every test here.
    #[allow(unsafe_code)]
    fn utc() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: test-only, and weaker than the shipped code's (main's
        // `startup`, `with_time_zone`): the harness runs tests on several
        // threads.  glibc's tzset and localtime_r share one lock; what is
        // left is this one setenv against a getenv of TZ in the C library
        // on another test's thread, and every test that sets TZ sets it
        // to the same "UTC".
        ONCE.call_once(|| unsafe {
            std::env::set_var("TZ", "UTC");
            dents_os::tzset();
        });
    }

    fn at(s: &str) -> i64 {
        utc();
        parse(s.as_bytes(), NOW)
            .unwrap_or_else(|| panic!("{s}"))
            .sec
    }

    #[test]
    fn forms() {
        assert_eq!(at("2020-01-02 03:04:05Z"), 1_577_934_245);
        assert_eq!(at("2020-01-02T03:04:05+01:00"), 1_577_930_645);
        assert_eq!(
            at("19911213 20:31:00-0330"),
            at("1991-12-13 20:31:00 -03:30")
        );
        assert_eq!(at("Dec 13 1991"), at("1991-12-13"));
        assert_eq!(at("13 December 1991"), at("1991-12-13"));
        assert_eq!(at("12/13/1991"), at("1991-12-13"));
        assert_eq!(at("@12"), 12);
        assert_eq!(at("yesterday"), NOW.sec - 86_400);
        assert_eq!(at("2 days ago"), NOW.sec - 2 * 86_400);
        assert_eq!(at("now"), NOW.sec);
        assert!(parse(b"garbage", NOW).is_none());
    }
}
