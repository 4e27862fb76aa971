//! Sizes as GNU du reads and writes them: `--block-size` specs (`-B`,
//! `BLOCK_SIZE`, `DU_BLOCK_SIZE`), `--threshold` values, and numbers
//! scaled to a block size or to a power of 1024 or 1000 (`-h`, `--si`),
//! rounded up as GNU's `human_readable` rounds (`human_ceiling`).

use dents_tools::numfmt::{push_u64, Numbers};

/// How sizes are written: a block size, and the flags of GNU's
/// `human_options` that change the way they look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Units {
    /// Bytes per unit written (1 with autoscaling).
    pub block: u64,
    /// `-h`, `--si`: the number is scaled to the largest power that fits.
    pub autoscale: bool,
    /// A unit letter is written (`-h`, `--si`, `-BM`, `-BKB`).
    pub si_letter: bool,
    /// Powers of 1024 (else 1000).
    pub base_1024: bool,
    /// A `B` after the letter (`-BKB`, `-BKiB`).
    pub b_suffix: bool,
    /// `'` before the spec: digits grouped as the locale groups them
    /// (the C locale groups nothing).
    pub group: bool,
    /// The locale's decimal point and digit grouping (the C locale's
    /// unless the caller sets them: `Numbers::from_locale()`).
    pub numbers: Numbers,
}

impl Units {
    /// Plain units of `block` bytes (`-k`: 1024, `-m`: 1 MiB, `-b`: 1).
    pub fn blocks(block: u64) -> Units {
        Units {
            block,
            autoscale: false,
            si_letter: false,
            base_1024: false,
            b_suffix: false,
            group: false,
            numbers: Numbers::c(),
        }
    }

    /// `-h`: powers of 1024, one letter (`K`, `M`...).
    pub fn human() -> Units {
        Units {
            block: 1,
            autoscale: true,
            si_letter: true,
            base_1024: true,
            b_suffix: false,
            group: false,
            numbers: Numbers::c(),
        }
    }

    /// `--si`: powers of 1000, one letter (`k`, `M`...).
    pub fn si() -> Units {
        Units {
            base_1024: false,
            ..Units::human()
        }
    }

    /// The default when neither option nor environment says: 1024-byte
    /// blocks, or 512 with `POSIXLY_CORRECT` set.
    pub fn default_for(posixly_correct: bool) -> Units {
        Units::blocks(if posixly_correct { 512 } else { 1024 })
    }
}

/// Why a size argument was refused (GNU's `xstrtol` errors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeError {
    /// Not a number (`invalid -B argument 'x'`).
    Invalid,
    /// A number with a suffix not allowed (`invalid suffix in -B argument '1Q'`).
    InvalidSuffix,
    /// Larger than the type holds (`-B argument '...' too large`).
    Overflow,
}

/// The multiplier of a size suffix letter, in powers of `base`.
fn power_of(letter: u8) -> Option<u32> {
    Some(match letter {
        b'k' | b'K' => 1,
        b'm' | b'M' => 2,
        b'g' | b'G' => 3,
        b't' | b'T' => 4,
        b'p' | b'P' => 5,
        b'e' | b'E' => 6,
        b'z' | b'Z' => 7,
        b'y' | b'Y' => 8,
        _ => return None,
    })
}

/// GNU's `xstrtoumax`/`xstrtoimax` with the suffixes du allows
/// (`kKmMgGtTpPeEzZyY` and the `0` flag: an optional `B` (powers of 1000)
/// or `iB` (1024) after the letter).  Returns the value, where the
/// number's digits ended and where the suffix ended (the end of `s` when
/// all went well).  `signed`: a leading `-` is allowed.
fn strto(s: &[u8], signed: bool, letters: &[u8]) -> Result<(i128, usize), SizeError> {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r') {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    if neg && !signed {
        return Err(SizeError::Invalid);
    }
    // Base 0, as strtol: 0x hex, leading 0 octal.
    let (radix, start) = if s[i..].starts_with(b"0x") || s[i..].starts_with(b"0X") {
        if s.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit()) {
            (16, i + 2)
        } else {
            (10, i)
        }
    } else if s.get(i) == Some(&b'0') {
        (8, i)
    } else {
        (10, i)
    };
    let mut j = start;
    let mut v: i128 = 0;
    let mut overflow = false;
    while j < s.len() {
        let d = match (s[j] as char).to_digit(radix) {
            Some(d) => d as i128,
            None => break,
        };
        v = v * radix as i128 + d;
        if v > u64::MAX as i128 {
            overflow = true;
            v = u64::MAX as i128 + 1;
        }
        j += 1;
    }
    let digits = j > start || radix == 8;
    if !digits {
        // No number: a suffix alone means 1 of it ("-BM"), as GNU reads
        // it, where the string starts (`-K`, ` K` are invalid).
        if s.first().is_some_and(|c| letters.contains(c)) {
            v = 1;
            j = 0;
            neg = false;
        } else {
            return Err(SizeError::Invalid);
        }
    }
    if neg {
        v = -v;
    }
    if j == s.len() {
        return if overflow {
            Err(SizeError::Overflow)
        } else {
            Ok((v, j))
        };
    }
    // A suffix.
    let c = s[j];
    if !letters.contains(&c) {
        return Err(SizeError::InvalidSuffix);
    }
    let mut base: i128 = 1024;
    let mut len = 1;
    if s.len() > j + 1 {
        match s[j + 1] {
            b'i' if s.get(j + 2) == Some(&b'B') => len = 3,
            b'B' | b'D' => {
                base = 1000;
                len = 2;
            }
            _ => {}
        }
    }
    let mult: i128 = match c {
        b'b' => 512,
        b'B' => 1024,
        b'c' => 1,
        b'w' => 2,
        _ => base.pow(power_of(c).ok_or(SizeError::InvalidSuffix)?),
    };
    if j + len != s.len() {
        return Err(SizeError::InvalidSuffix);
    }
    let r = v.saturating_mul(mult);
    if overflow || r > u64::MAX as i128 || r < -(i64::MAX as i128) - 1 {
        return Err(SizeError::Overflow);
    }
    Ok((r, j))
}

/// What gnulib's `xstrtoumax` (base 0) makes of a string: the value it
/// stores, if it stores one, and its error.
///
/// It keeps what it could read: a number with junk after it is stored
/// (`2x`: 2; `3kx`: 3072, the suffix applied; `1.5K`: 1), and a value
/// too large for 64 bits is stored as 2^64 - 1, both with an error that
/// `-B` refuses and the environment variables ignore.
struct XStrtoumax {
    /// The value stored (`None`: `LONGINT_INVALID`, nothing stored).
    value: Option<u64>,
    /// The error (`None`: `LONGINT_OK`).
    error: Option<SizeError>,
}

/// C's `isspace` in the C locale.
fn c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// gnulib's `xstrtoumax(s, &end, 0, &value, valid)` (coreutils 9.1):
/// `strtoumax` in base 0 (leading blanks, `+`, `0x` hex, `0` octal; a
/// `-` refused), a suffix letter of `valid` alone meaning 1 of it, the
/// letters it scales (`kKmMgGtTpPEYZ` as powers of 1024, or of 1000
/// with `B` or `D` after; `iB` after: 1024) where `valid` has `0`; a
/// letter of `valid` it does not scale (`e`, `p`) is an invalid
/// suffix, the number kept as read.
fn xstrtoumax(s: &[u8], valid: &[u8]) -> XStrtoumax {
    let invalid = XStrtoumax {
        value: None,
        error: Some(SizeError::Invalid),
    };
    let mut i = 0;
    while i < s.len() && c_space(s[i]) {
        i += 1;
    }
    if s.get(i) == Some(&b'-') {
        return invalid;
    }
    if s.get(i) == Some(&b'+') {
        i += 1;
    }
    let (radix, start) = if (s[i..].starts_with(b"0x") || s[i..].starts_with(b"0X"))
        && s.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    {
        (16, i + 2)
    } else {
        (if s.get(i) == Some(&b'0') { 8 } else { 10 }, i)
    };
    let mut j = start;
    let mut v: u64 = 0;
    let mut overflow = false;
    while let Some(d) = s.get(j).and_then(|&c| (c as char).to_digit(radix)) {
        match v
            .checked_mul(radix as u64)
            .and_then(|x| x.checked_add(d as u64))
        {
            Some(x) => v = x,
            None => {
                overflow = true;
                v = u64::MAX;
            }
        }
        j += 1;
    }
    if j == start {
        // No number (`strtoumax` ends at the very start): a valid suffix
        // there is 1 of it.
        j = 0;
        if s.first().is_some_and(|c| valid.contains(c)) {
            v = 1;
        } else {
            return invalid;
        }
    }
    let mut error = overflow.then_some(SizeError::Overflow);
    if j == s.len() {
        return XStrtoumax {
            value: Some(v),
            error,
        };
    }
    let suffix_error = |v: u64| XStrtoumax {
        value: Some(v),
        error: Some(SizeError::InvalidSuffix),
    };
    let c = s[j];
    if !valid.contains(&c) {
        return suffix_error(v);
    }
    let mut base: u64 = 1024;
    let mut len = 1;
    if b"EGgkKMmPTtYZ".contains(&c) && valid.contains(&b'0') {
        match s.get(j + 1) {
            Some(b'i') if s.get(j + 2) == Some(&b'B') => len = 3,
            Some(b'B') | Some(b'D') => {
                base = 1000;
                len = 2;
            }
            _ => {}
        }
    }
    let (scale, power) = match c {
        b'b' => (512, 1),
        b'B' => (1024, 1),
        b'c' => (1, 1),
        b'w' => (2, 1),
        b'E' => (base, 6),
        b'G' | b'g' => (base, 3),
        b'k' | b'K' => (base, 1),
        b'M' | b'm' => (base, 2),
        b'P' => (base, 5),
        b'T' | b't' => (base, 4),
        b'Y' => (base, 8),
        b'Z' => (base, 7),
        _ => return suffix_error(v),
    };
    for _ in 0..power {
        v = v.checked_mul(scale).unwrap_or_else(|| {
            error = Some(SizeError::Overflow);
            u64::MAX
        });
    }
    if j + len != s.len() {
        // Junk after the suffix: the scaled value is kept.
        return suffix_error(v);
    }
    XStrtoumax {
        value: Some(v),
        error,
    }
}

/// gnulib's `humblock` and `human_options`: the units a block-size spec
/// gives, and the error `-B` refuses it with (`None`: accepted).
///
/// The units are those of the spec even when it is refused, as
/// `human_options` leaves them for the environment variables, which
/// GNU du reads without checking: the number read before any junk (the
/// suffix applied), 2^64 - 1 on overflow, plain blocks (no letter, no
/// grouping); the default when the spec gives no number or 0.
fn human_options(spec: &[u8], posixly_correct: bool) -> (Units, Option<SizeError>) {
    let (group, spec) = match spec.strip_prefix(b"'") {
        Some(rest) => (true, rest),
        None => (false, spec),
    };
    // argmatch: a name or an unambiguous prefix of one (`h`, `s`).
    for (name, units) in [
        (&b"human-readable"[..], Units::human()),
        (b"si", Units::si()),
    ] {
        if !spec.is_empty() && name.starts_with(spec) {
            return (Units { group, ..units }, None);
        }
    }
    let x = xstrtoumax(spec, b"eEgGkKmMpPtTYZ0");
    match x.value {
        Some(0) | None => (
            Units::default_for(posixly_correct),
            Some(SizeError::Invalid),
        ),
        Some(v) if x.error.is_some() => (Units::blocks(v), x.error),
        Some(v) => {
            let mut u = Units::blocks(v);
            u.group = group;
            // A spec without a digit (a suffix alone) writes the unit's
            // letter after each size.
            if !spec.iter().any(u8::is_ascii_digit) {
                u.si_letter = true;
                let last = spec[spec.len() - 1];
                u.b_suffix = last == b'B';
                u.base_1024 = last != b'B' || spec.ends_with(b"iB");
            }
            (u, None)
        }
    }
}

/// Parses a block-size spec as GNU du's `-B`/`--block-size` does
/// (`human_options`, refused on any error): `human-readable`, `si` (or a
/// prefix of either), a number with an optional suffix (`1K`, `1MB`,
/// `0x10`), or a suffix alone (`M`, `KiB`: the unit's letter is then
/// written after each size); a leading `'` groups thousands.
pub fn parse_block_size(spec: &[u8]) -> Result<Units, SizeError> {
    match human_options(spec, false) {
        (u, None) => Ok(u),
        (_, Some(e)) => Err(e),
    }
}

/// The units of a block-size environment variable (`DU_BLOCK_SIZE`,
/// `BLOCK_SIZE`, `BLOCKSIZE`), which GNU du never refuses: what
/// `human_options` leaves, errors and all (`2x`: 2-byte blocks, `1e3`:
/// 1-byte, `1Y`: 2^64 - 1 bytes; `0`, `x`, `-1` or nothing: the
/// default).
pub fn block_size_from_env(spec: &[u8], posixly_correct: bool) -> Units {
    human_options(spec, posixly_correct).0
}

/// Parses a `--threshold` value: a signed size with du's suffixes.
pub fn parse_threshold(s: &[u8]) -> Result<i64, SizeError> {
    let (v, _) = strto(s, true, b"kKmMGTPEZY0")?;
    if v > i64::MAX as i128 {
        return Err(SizeError::Overflow);
    }
    Ok(v as i64)
}

/// Parses a `--max-depth` value as GNU du 9.1 does (`xstrtoumax`, base
/// 0, no suffix, at most `SIZE_MAX`); `None` if invalid (a `-` sign,
/// `-0` too, or too large).
pub fn parse_depth(s: &[u8]) -> Option<usize> {
    match xstrtoumax(s, b"") {
        XStrtoumax {
            value: Some(v),
            error: None,
        } => usize::try_from(v).ok(),
        _ => None,
    }
}

/// Letters of the powers, from 1 (kilo) up.
const POWERS: &[u8] = b"KMGTPEZYRQ";

/// Appends `n` bytes written in `units`, as GNU's `human_readable` with
/// `human_ceiling` writes them.
pub fn push_size(out: &mut Vec<u8>, n: u64, u: &Units) {
    let base: u64 = if u.base_1024 { 1024 } else { 1000 };
    let (mut amount, mut tenths, mut rounding) = if u.block <= 1 {
        (n, 0u64, 0u64)
    } else {
        let d = u.block;
        let r10 = (n % d) as u128 * 10;
        let r2 = (r10 % d as u128) * 2;
        let tenths = (r10 / d as u128) as u64;
        let rounding = if r2 < d as u128 {
            (r2 > 0) as u64
        } else {
            2 + (r2 > d as u128) as u64
        };
        (n / d, tenths, rounding)
    };
    let mut exponent: i32 = -1;
    let mut point_tenth: Option<u64> = None;
    if u.autoscale {
        exponent = 0;
        if amount >= base {
            loop {
                let r10 = (amount % base) * 10 + tenths;
                let r2 = (r10 % base) * 2 + (rounding >> 1);
                amount /= base;
                tenths = r10 / base;
                rounding = if r2 < base {
                    (r2 != 0) as u64
                } else {
                    2 + (base < r2) as u64
                };
                exponent += 1;
                if amount < base || exponent as usize >= POWERS.len() {
                    break;
                }
            }
            if amount < 10 {
                if rounding > 0 {
                    tenths += 1;
                    rounding = 0;
                    if tenths == 10 {
                        amount += 1;
                        tenths = 0;
                    }
                }
                if amount < 10 {
                    point_tenth = Some(tenths);
                    tenths = 0;
                    rounding = 0;
                }
            }
        }
    }
    if tenths + rounding > 0 {
        amount += 1;
        if u.autoscale && amount == base && (exponent as usize) < POWERS.len() {
            exponent += 1;
            point_tenth = Some(0);
            amount = 1;
        }
    }
    if u.group {
        u.numbers.push_grouped(out, amount);
    } else {
        push_u64(out, amount);
    }
    if let Some(t) = point_tenth {
        out.extend_from_slice(u.numbers.decimal_point());
        out.push(b'0' + t as u8);
    }
    if u.si_letter {
        if exponent < 0 {
            exponent = 0;
            let mut power: u128 = 1;
            while power < u.block as u128 {
                power *= base as u128;
                exponent += 1;
                if exponent as usize == POWERS.len() {
                    break;
                }
            }
        }
        if exponent > 0 {
            out.push(if !u.base_1024 && exponent == 1 {
                b'k'
            } else {
                POWERS[exponent as usize - 1]
            });
        }
        if u.b_suffix {
            if u.base_1024 && exponent > 0 {
                out.push(b'i');
            }
            out.push(b'B');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(n: u64, u: &Units) -> String {
        let mut v = Vec::new();
        push_size(&mut v, n, u);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn human_rounds_up_as_gnu() {
        let h = Units::human();
        assert_eq!(show(0, &h), "0");
        assert_eq!(show(1023, &h), "1023");
        assert_eq!(show(1024, &h), "1.0K");
        assert_eq!(show(1025, &h), "1.1K");
        assert_eq!(show(4096, &h), "4.0K");
        assert_eq!(show(10 * 1024, &h), "10K");
        assert_eq!(show(10 * 1024 + 1, &h), "11K");
        assert_eq!(show(1024 * 1024 - 1, &h), "1.0M");
        assert_eq!(show(20480, &Units::si()), "21k");
    }

    #[test]
    fn blocks_round_up() {
        assert_eq!(show(1, &Units::blocks(1024)), "1");
        assert_eq!(show(4096, &Units::blocks(1024)), "4");
        assert_eq!(show(4097, &Units::blocks(1024)), "5");
        assert_eq!(show(0, &Units::blocks(1024)), "0");
    }

    #[test]
    fn block_size_specs() {
        let m = parse_block_size(b"M").unwrap();
        assert_eq!(show(4096, &m), "1M");
        assert_eq!(show(4096, &parse_block_size(b"1M").unwrap()), "1");
        assert_eq!(show(5 * 4096, &parse_block_size(b"KB").unwrap()), "21kB");
        assert_eq!(show(4096, &parse_block_size(b"KiB").unwrap()), "4KiB");
        assert_eq!(parse_block_size(b"b"), Err(SizeError::Invalid));
        assert_eq!(parse_block_size(b"X"), Err(SizeError::Invalid));
        assert_eq!(parse_block_size(b"0"), Err(SizeError::Invalid));
        assert_eq!(parse_block_size(b"1Q"), Err(SizeError::InvalidSuffix));
        assert_eq!(parse_block_size(b"0x"), Err(SizeError::Invalid));
        assert_eq!(parse_block_size(b"1Y"), Err(SizeError::Overflow));
        assert_eq!(parse_block_size(b"s"), Ok(Units::si()));
        assert_eq!(parse_threshold(b"-5K"), Ok(-5120));
        assert_eq!(parse_depth(b"0x1"), Some(1));
        assert_eq!(parse_depth(b"-1"), None);
        assert_eq!(parse_depth(b"-0"), None);
        assert_eq!(parse_depth(b"18446744073709551615"), Some(usize::MAX));
    }

    #[test]
    fn environment_keeps_what_it_read() {
        let env = |s: &[u8]| block_size_from_env(s, false).block;
        assert_eq!(env(b"2x"), 2);
        assert_eq!(env(b"3kx"), 3072);
        assert_eq!(env(b"1e3"), 1);
        assert_eq!(env(b"2Ki"), 2048);
        assert_eq!(env(b"99999999999999999999"), u64::MAX);
        assert_eq!(env(b"1Y"), u64::MAX);
        assert_eq!(env(b"0"), 1024);
        assert_eq!(env(b"-1"), 1024);
        assert_eq!(block_size_from_env(b"x", true).block, 512);
    }
}
