//! Decimal numbers written straight into output buffers, without the
//! allocation and formatting machinery of `format!`: `ls -l` and find's
//! `-printf` and `-ls` write several numbers for each of millions of
//! files.  [`Numbers`]: the locale's decimal point and digit grouping,
//! for du's and ls's sizes.

/// The number of decimal digits of `n` (1 for 0).
pub fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// Appends the decimal digits of `n`.
pub fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&tmp[i..]);
}

/// Bytes of one of a locale's number strings, kept inline so that
/// [`Numbers`] is `Copy` (GNU's `human.c` takes at most `MB_LEN_MAX`, 16,
/// of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Inline {
    bytes: [u8; 16],
    len: u8,
}

impl Inline {
    /// `s`, or `None` if it does not fit.
    fn new(s: &[u8]) -> Option<Inline> {
        let mut bytes = [0u8; 16];
        bytes.get_mut(..s.len())?.copy_from_slice(s);
        Some(Inline {
            bytes,
            len: s.len() as u8,
        })
    }

    fn get(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

/// How sizes' numbers are written in a locale (its `LC_NUMERIC`), as
/// GNU's `human_readable` writes them: the decimal point of `4.6M`
/// (`4,6M` in de_DE) and the digit grouping of the `'` flag of block
/// sizes (`5,001,216`; `5.001.216` in de_DE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Numbers {
    point: Inline,
    separator: Inline,
    grouping: Inline,
}

impl Numbers {
    /// The C locale's: `.`, no grouping.
    pub fn c() -> Numbers {
        Numbers {
            point: Inline::new(b".").expect("fits"),
            separator: Inline::new(b"").expect("fits"),
            grouping: Inline::new(b"").expect("fits"),
        }
    }

    /// The current locale's (the caller adopted it: `setlocale`), with
    /// `human.c`'s fallbacks: a decimal point that is empty or longer
    /// than 16 bytes is `.`, such a separator is none.
    pub fn from_locale() -> Numbers {
        let c = dents_os::numeric_conventions();
        let point = c.decimal_point;
        Numbers {
            point: Inline::new(&point)
                .filter(|p| p.len > 0)
                .unwrap_or(Numbers::c().point),
            separator: Inline::new(&c.thousands_sep).unwrap_or(Numbers::c().separator),
            grouping: Inline::new(&c.grouping[..c.grouping.len().min(16)]).expect("cut to fit"),
        }
    }

    /// The decimal point.
    pub fn decimal_point(&self) -> &[u8] {
        self.point.get()
    }

    /// Appends `n` with its digits grouped as the locale groups them
    /// (as the C locale: not at all, when it has no separator or groups).
    pub fn push_grouped(&self, out: &mut Vec<u8>, n: u64) {
        let start = out.len();
        push_u64(out, n);
        let sep = self.separator.get();
        let grouping = self.grouping.get();
        if sep.is_empty() || grouping.is_empty() {
            return;
        }
        let digits = out.split_off(start);
        // Group sizes from the right: each byte of `grouping` in turn,
        // the last one repeating; CHAR_MAX (or 0 at the start) ends the
        // grouping, the rest of the digits then in one group.
        let mut groups: Vec<usize> = Vec::new();
        let mut left = digits.len();
        let mut size = usize::MAX;
        let mut g = grouping.iter();
        while left > 0 {
            match g.next() {
                Some(&b) if b >= 0x7f => size = usize::MAX,
                Some(&0) | None => {}
                Some(&b) => size = b as usize,
            }
            let take = size.min(left);
            groups.push(take);
            left -= take;
        }
        let mut i = 0;
        for (k, take) in groups.iter().rev().enumerate() {
            if k > 0 {
                out.extend_from_slice(sep);
            }
            out.extend_from_slice(&digits[i..i + take]);
            i += take;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{digits, push_u64, Inline, Numbers};

    fn numbers(point: &str, sep: &str, grouping: &[u8]) -> Numbers {
        Numbers {
            point: Inline::new(point.as_bytes()).unwrap(),
            separator: Inline::new(sep.as_bytes()).unwrap(),
            grouping: Inline::new(grouping).unwrap(),
        }
    }

    fn grouped(n: &Numbers, v: u64) -> String {
        let mut out = b"x".to_vec();
        n.push_grouped(&mut out, v);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn digits_grouped_as_locales_group_them() {
        let en = numbers(".", ",", &[3, 3]);
        assert_eq!(grouped(&en, 5_001_216), "x5,001,216");
        assert_eq!(grouped(&en, 999), "x999");
        assert_eq!(grouped(&en, 1000), "x1,000");
        assert_eq!(grouped(&en, 0), "x0");
        assert_eq!(grouped(&numbers(",", ".", &[3]), 5_001_216), "x5.001.216");
        assert_eq!(grouped(&Numbers::c(), 5_001_216), "x5001216");
        // hi_IN's lakh grouping (3, then 2s), and a group that ends
        // grouping.
        assert_eq!(
            grouped(&numbers(".", ",", &[3, 2]), 123_456_789),
            "x12,34,56,789"
        );
        assert_eq!(
            grouped(&numbers(".", ",", &[3, 127]), 123_456_789),
            "x123456,789"
        );
    }

    #[test]
    fn digits_and_text_agree() {
        for n in [0, 9, 10, 99, 100, 12345, u64::MAX] {
            let mut v = Vec::new();
            push_u64(&mut v, n);
            assert_eq!(v, n.to_string().into_bytes());
            assert_eq!(digits(n), v.len());
        }
    }
}
