//! Decimal numbers written straight into output buffers, without the
//! allocation and formatting machinery of `format!`: `ls -l` and find's
//! `-printf` and `-ls` write several numbers for each of millions of
//! files.

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

#[cfg(test)]
mod tests {
    use super::{digits, push_u64};

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
