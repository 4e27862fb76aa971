//! The modes of `-perm`: octal, or symbolic as chmod takes them
//! (`u+w,g-x,a=r`, `go=u`, `+X`), applied to an empty mode with no umask,
//! once for files and once for directories (`X` differs), as GNU find
//! does with gnulib's mode functions.

const S_ISUID: u32 = 0o4000;
const S_ISGID: u32 = 0o2000;
const S_ISVTX: u32 = 0o1000;
const ALL: u32 = 0o7777;
const R: u32 = 0o444;
const W: u32 = 0o222;
const X: u32 = 0o111;

/// One action of a symbolic mode (`u+w`).
#[derive(Debug, Clone, Copy)]
struct Change {
    op: u8,
    /// The bits the `ugoa` letters name; 0 for none (all).
    who: u32,
    value: u32,
    how: How,
}

/// Where an action's bits come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    /// The letters given (`rwst`).
    Plain,
    /// Also `x` everywhere if a directory or already executable (`X`).
    XIfAnyX,
    /// Copied from a class of the mode being built (`g=u`).
    Copy,
}

/// The mode bits for a file (`[0]`) and a directory (`[1]`), or `None`
/// if `s` is not a mode.
pub fn parse(s: &[u8]) -> Option<[u32; 2]> {
    if s.is_empty() {
        return None;
    }
    if s.iter().all(|c| (b'0'..=b'7').contains(c)) {
        let v = s.iter().try_fold(0u32, |acc, &c| {
            acc.checked_mul(8)?.checked_add((c - b'0') as u32)
        })?;
        return (v <= ALL).then_some([v, v]);
    }
    if s[0].is_ascii_digit() {
        return None;
    }
    let changes = symbolic(s)?;
    Some([apply(&changes, false), apply(&changes, true)])
}

/// Parses `[ugoa]*([-+=]([rwxXst]*|[ugo]))+` clauses separated by commas.
fn symbolic(s: &[u8]) -> Option<Vec<Change>> {
    let mut changes = Vec::new();
    let mut i = 0;
    loop {
        let mut who = 0;
        while let Some(&c) = s.get(i) {
            who |= match c {
                b'u' => S_ISUID | 0o700,
                b'g' => S_ISGID | 0o070,
                b'o' => S_ISVTX | 0o007,
                b'a' => ALL,
                _ => break,
            };
            i += 1;
        }
        let mut any_op = false;
        while let Some(&op) = s.get(i).filter(|c| matches!(c, b'=' | b'+' | b'-')) {
            any_op = true;
            i += 1;
            let copy = match s.get(i) {
                Some(b'u') => Some(0o700),
                Some(b'g') => Some(0o070),
                Some(b'o') => Some(0o007),
                _ => None,
            };
            if let Some(value) = copy {
                i += 1;
                changes.push(Change {
                    op,
                    who,
                    value,
                    how: How::Copy,
                });
                continue;
            }
            let mut value = 0;
            let mut how = How::Plain;
            while let Some(&c) = s.get(i) {
                match c {
                    b'r' => value |= R,
                    b'w' => value |= W,
                    b'x' => value |= X,
                    b'X' => how = How::XIfAnyX,
                    b's' => value |= S_ISUID | S_ISGID,
                    b't' => value |= S_ISVTX,
                    _ => break,
                }
                i += 1;
            }
            changes.push(Change {
                op,
                who,
                value,
                how,
            });
        }
        if !any_op {
            return None;
        }
        match s.get(i) {
            None => return Some(changes),
            Some(b',') if i + 1 < s.len() => i += 1,
            _ => return None,
        }
    }
}

/// Applies the changes to an empty mode, for a directory or not.
fn apply(changes: &[Change], dir: bool) -> u32 {
    let mut mode = 0u32;
    for c in changes {
        let mut value = c.value;
        match c.how {
            How::Plain => {}
            How::XIfAnyX => {
                if mode & X != 0 || dir {
                    value |= X;
                }
            }
            How::Copy => {
                value &= mode;
                let spread = |bits: u32| if value & bits != 0 { bits } else { 0 };
                value |= spread(R) | spread(W) | spread(X);
            }
        }
        let affected = if c.who == 0 { ALL } else { c.who };
        value &= affected;
        match c.op {
            b'=' => mode = (mode & !affected & ALL) | value,
            b'+' => mode |= value,
            _ => mode &= !value,
        }
    }
    mode
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn modes() {
        assert_eq!(parse(b"644"), Some([0o644; 2]));
        assert_eq!(parse(b"u+w,g-x,a=r"), Some([0o444; 2]));
        assert_eq!(parse(b"u=rwx,g=u"), Some([0o770; 2]));
        assert_eq!(parse(b"+X"), Some([0, 0o111]));
        assert_eq!(parse(b"u+s"), Some([0o4000; 2]));
        assert_eq!(parse(b"+w"), Some([0o222; 2]));
        assert_eq!(parse(b"999"), None);
        assert_eq!(parse(b"u+q"), None);
        assert_eq!(parse(b"u"), None);
        assert_eq!(parse(b"u+w,"), None);
        assert_eq!(parse(b"+222"), None);
    }
}
