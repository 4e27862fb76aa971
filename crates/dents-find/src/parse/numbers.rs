//! The number readers of primaries and options: GNU's comparisons
//! (`+N`, `-N`, `N`), C `int`s, `-O` levels, `-size` units.

use super::messages::backquoted;
use super::Error;
use crate::expr::Cmp;

/// Reads an unsigned decimal as `strtoumax` does after GNU's comparison
/// prefix: leading blanks and one `+` allowed, digits only after them.
pub(super) fn unsigned(s: &[u8]) -> Option<u64> {
    let t = s.trim_ascii_start();
    let t = t.strip_prefix(b"+").unwrap_or(t);
    if t.is_empty() || !t.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(t).ok()?.parse().ok()
}

/// `+N`, `-N` or `N`.
pub(super) fn comparison(s: &[u8]) -> Option<Cmp> {
    match s.first() {
        Some(b'+') => unsigned(&s[1..]).map(Cmp::More),
        Some(b'-') => unsigned(&s[1..]).map(Cmp::Less),
        _ => unsigned(s).map(Cmp::Equal),
    }
}

/// A number of decimal digits that GNU reads as a C `int` (user and group
/// ids, depths), or GNU's message: the value beyond `int`, with the cause
/// unless it is `LONG_MAX` itself (where `strtol` sets no error).
pub(super) fn gnu_int(s: &[u8]) -> Result<u32, Error> {
    let v = std::str::from_utf8(s)
        .ok()
        .and_then(|t| t.parse::<u64>().ok());
    match v {
        Some(v) if v <= i32::MAX as u64 => Ok(v as u32),
        Some(v) if v == i64::MAX as u64 => Err(s.to_vec()),
        _ => {
            let mut m = s.to_vec();
            m.extend_from_slice(b": Numerical result out of range");
            Err(m)
        }
    }
}

/// The level of `-OLEVEL` (at most 3, what dents tells apart), or GNU's
/// message.
pub(super) fn opt_level(rest: &[u8]) -> Result<u8, Error> {
    let text = String::from_utf8_lossy(rest);
    match rest.first() {
        None => {
            return Err(b"The -O option must be immediately followed by a decimal integer".to_vec())
        }
        Some(d) if !d.is_ascii_digit() => {
            return Err(b"Please specify a decimal number immediately after -O".to_vec())
        }
        _ => {}
    }
    if !rest.iter().all(u8::is_ascii_digit) {
        return Err(format!("Invalid optimisation level {text}").into_bytes());
    }
    let Ok(n) = text.parse::<u64>() else {
        return Err(
            format!("Invalid optimisation level {text}: Numerical result out of range")
                .into_bytes(),
        );
    };
    if n > 65535 {
        return Err(format!(
            "Optimisation level {n} is too high.  If you want to find files very quickly, consider using GNU locate."
        )
        .into_bytes());
    }
    Ok(n.min(3) as u8)
}

/// `-size`'s argument: a comparison and a number of units (`c w b k M G`,
/// `b` if none).
pub(super) fn size(s: &[u8]) -> Result<(Cmp, u64), Error> {
    let Some(&last) = s.last() else {
        return Err(b"invalid null argument to -size".to_vec());
    };
    let (unit, num) = match last {
        b'b' => (512, &s[..s.len() - 1]),
        b'c' => (1, &s[..s.len() - 1]),
        b'w' => (2, &s[..s.len() - 1]),
        b'k' => (1024, &s[..s.len() - 1]),
        b'M' => (1 << 20, &s[..s.len() - 1]),
        b'G' => (1 << 30, &s[..s.len() - 1]),
        b'0'..=b'9' => (512, s),
        other => return Err(format!("invalid -size type `{}'", other as char).into_bytes()),
    };
    let bad = || {
        let mut m = backquoted("Invalid argument ", s, " to -size");
        m.truncate(m.len());
        m
    };
    let cmp = comparison(num).ok_or_else(bad)?;
    Ok((cmp, unit))
}
