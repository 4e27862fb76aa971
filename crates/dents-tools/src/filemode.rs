//! File modes as GNU's tools write them: the type letter and the
//! ten-character mode string of `ls -l`, `find -ls` and `find -printf %M`.

use dents::FileType;

/// The type letter GNU uses for a `d_type` when the stat failed.
pub fn type_letter(t: FileType) -> u8 {
    match t {
        FileType::FIFO => b'p',
        FileType::CHAR_DEVICE => b'c',
        FileType::DIRECTORY => b'd',
        FileType::BLOCK_DEVICE => b'b',
        FileType::REGULAR => b'-',
        FileType::SYMLINK => b'l',
        FileType::SOCKET => b's',
        FileType::WHITEOUT => b'w',
        _ => b'?',
    }
}

/// Appends the ten-character mode string (`drwxr-xr-x`).
pub fn mode_string(out: &mut Vec<u8>, mode: u32) {
    out.push(type_letter(FileType::from_mode(mode)));
    let bit = |m: u32, c: u8| if mode & m != 0 { c } else { b'-' };
    let special = |x: u32, s: u32, set_x: u8, set_nox: u8| match (mode & x != 0, mode & s != 0) {
        (true, true) => set_x,
        (false, true) => set_nox,
        (true, false) => b'x',
        (false, false) => b'-',
    };
    out.extend_from_slice(&[
        bit(0o400, b'r'),
        bit(0o200, b'w'),
        special(0o100, 0o4000, b's', b'S'),
        bit(0o040, b'r'),
        bit(0o020, b'w'),
        special(0o010, 0o2000, b's', b'S'),
        bit(0o004, b'r'),
        bit(0o002, b'w'),
        special(0o001, 0o1000, b't', b'T'),
    ]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_strings() {
        let s = |m| {
            let mut v = Vec::new();
            mode_string(&mut v, m);
            String::from_utf8(v).unwrap()
        };
        assert_eq!(s(0o040755), "drwxr-xr-x");
        assert_eq!(s(0o104755), "-rwsr-xr-x");
        assert_eq!(s(0o041777), "drwxrwxrwt");
        assert_eq!(s(0o102644), "-rw-r-Sr--");
        assert_eq!(s(0o120777), "lrwxrwxrwx");
    }
}
