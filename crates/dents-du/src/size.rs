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
        // No number: a suffix alone means 1 of it ("-BM"), as GNU reads it.
        if j < s.len() && letters.contains(&s[j]) {
            v = 1;
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

/// Parses a block-size spec as GNU's `human_options` does: `human-readable`,
/// `si`, a number with an optional suffix (`1K`, `1MB`), or a suffix
/// alone (`M`, `KiB`: the unit's letter is then written after each size);
/// a leading `'` groups thousands.
pub fn parse_block_size(spec: &[u8]) -> Result<Units, SizeError> {
    let (group, spec) = match spec.strip_prefix(b"'") {
        Some(rest) => (true, rest),
        None => (false, spec),
    };
    match spec {
        b"human-readable" => {
            return Ok(Units {
                group,
                ..Units::human()
            })
        }
        b"si" => {
            return Ok(Units {
                group,
                ..Units::si()
            })
        }
        _ => {}
    }
    let (v, digits_end) = strto(spec, false, b"eEgGkKmMpPtTyYzZ0")?;
    if v <= 0 {
        return Err(SizeError::Invalid);
    }
    let mut u = Units::blocks(v as u64);
    u.group = group;
    // A spec that starts with its suffix writes the unit's letter.
    if digits_end == 0 && !spec.is_empty() && !spec[0].is_ascii_digit() {
        u.si_letter = true;
        let last = spec[spec.len() - 1];
        u.b_suffix = last == b'B';
        u.base_1024 = last != b'B' || (spec.len() >= 2 && spec[spec.len() - 2] == b'i');
    }
    Ok(u)
}

/// Parses a `--threshold` value: a signed size with du's suffixes.
pub fn parse_threshold(s: &[u8]) -> Result<i64, SizeError> {
    let (v, _) = strto(s, true, b"kKmMGTPEZY0")?;
    if v > i64::MAX as i128 {
        return Err(SizeError::Overflow);
    }
    Ok(v as i64)
}

/// Parses a `--max-depth` value (base 0, as `strtoimax`); `None` if
/// invalid or negative.
pub fn parse_depth(s: &[u8]) -> Option<usize> {
    match strto(s, true, b"") {
        Ok((v, _)) if v >= 0 && v <= i64::MAX as i128 => Some(v as usize),
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
        assert_eq!(parse_threshold(b"-5K"), Ok(-5120));
        assert_eq!(parse_depth(b"0x1"), Some(1));
        assert_eq!(parse_depth(b"-1"), None);
    }
}
