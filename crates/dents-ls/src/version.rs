//! Version order for `-v`, as gnulib's `filevercmp` orders names: `.`
//! first, then `..`, then other names starting with `.`, then the rest;
//! suffixes (`.tar.gz`: runs of `.` + letter or `~`, then letters, digits,
//! `~`) compared only when the rest ties; digits compared as numbers, `~`
//! before everything, letters before other characters.

use std::cmp::Ordering;

/// The length of `s` without its file suffix.
fn prefix_len(s: &[u8]) -> usize {
    let n = s.len();
    let mut prefix = 0;
    let mut i = 0;
    loop {
        if i == n {
            return prefix;
        }
        i += 1;
        prefix = i;
        while i + 1 < n && s[i] == b'.' && (s[i + 1].is_ascii_alphabetic() || s[i + 1] == b'~') {
            i += 2;
            while i < n && (s[i].is_ascii_alphanumeric() || s[i] == b'~') {
                i += 1;
            }
        }
    }
}

/// The weight of the byte at `pos` (past the end: -1).
fn order(s: &[u8], pos: usize) -> i32 {
    let Some(&c) = s.get(pos) else {
        return -1;
    };
    if c.is_ascii_digit() {
        0
    } else if c.is_ascii_alphabetic() {
        c as i32
    } else if c == b'~' {
        -2
    } else {
        c as i32 + 256
    }
}

/// Debian's version comparison of two strings.
fn verrevcmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let mut first_diff = 0i32;
        while (i < a.len() && !a[i].is_ascii_digit()) || (j < b.len() && !b[j].is_ascii_digit()) {
            let (ac, bc) = (order(a, i), order(b, j));
            if ac != bc {
                return ac.cmp(&bc);
            }
            i += 1;
            j += 1;
        }
        while i < a.len() && a[i] == b'0' {
            i += 1;
        }
        while j < b.len() && b[j] == b'0' {
            j += 1;
        }
        while i < a.len() && j < b.len() && a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            if first_diff == 0 {
                first_diff = a[i] as i32 - b[j] as i32;
            }
            i += 1;
            j += 1;
        }
        if i < a.len() && a[i].is_ascii_digit() {
            return Ordering::Greater;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            return Ordering::Less;
        }
        if first_diff != 0 {
            return first_diff.cmp(&0);
        }
    }
    Ordering::Equal
}

/// Compares two file names in version order.
pub fn filevercmp(a: &[u8], b: &[u8]) -> Ordering {
    if a.is_empty() || b.is_empty() {
        return (!a.is_empty()).cmp(&!b.is_empty());
    }
    if a[0] == b'.' {
        if b[0] != b'.' {
            return Ordering::Less;
        }
        let (ad, bd) = (a.len() == 1, b.len() == 1);
        if ad || bd {
            return bd.cmp(&ad);
        }
        let (add, bdd) = (a == b"..", b == b"..");
        if add || bdd {
            return bdd.cmp(&add);
        }
    } else if b[0] == b'.' {
        return Ordering::Greater;
    }
    let (ap, bp) = (prefix_len(a), prefix_len(b));
    let one_pass = ap == a.len() && bp == b.len();
    let r = verrevcmp(&a[..ap], &b[..bp]);
    if r != Ordering::Equal || one_pass {
        r
    } else {
        verrevcmp(a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_as_gnu() {
        let mut v: Vec<&[u8]> = vec![
            b"a10",
            b"a2",
            b"a1",
            b".b",
            b".",
            b"..",
            b"a1.tar.gz",
            b"a1~",
            b"b",
        ];
        v.sort_by(|a, b| filevercmp(a, b).then(a.cmp(b)));
        let want: Vec<&[u8]> = vec![
            b".",
            b"..",
            b".b",
            b"a1~",
            b"a1",
            b"a1.tar.gz",
            b"a2",
            b"a10",
            b"b",
        ];
        assert_eq!(v, want);
    }
}
