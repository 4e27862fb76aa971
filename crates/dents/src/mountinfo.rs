//! The mount table as the kernel writes it in `/proc/self/mountinfo`:
//! one parser for the walker (where a loop through a bind mount could
//! start) and for find (`-fstype`, `%F`: a device's filesystem type).
//!
//! A line is
//! `ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER`
//! (the optional fields end at a lone dash), fields
//! split by single spaces; the kernel writes a space, tab, newline or
//! backslash inside a field as an octal escape (`\040`, `\011`, `\012`,
//! `\134`), which [`parse`] undoes, so a mount point's name is its bytes.

use std::io;

/// The mount table's file.
const PATH: &str = "/proc/self/mountinfo";

/// One mount of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    /// The device (`MAJOR:MINOR`) the mount's files have.
    pub device: (u32, u32),
    /// Where it is mounted, escapes undone.
    pub point: Vec<u8>,
    /// Its filesystem type (`ext4`, `fuse.sshfs`), escapes undone.
    pub fs_type: Vec<u8>,
}

/// The mounts of `/proc/self/mountinfo`, in its order.
///
/// # Errors
///
/// The error of reading the file.
pub fn read() -> io::Result<Vec<Mount>> {
    Ok(parse(&std::fs::read(PATH)?))
}

/// The mounts of a mountinfo text, in its order; a line without a
/// device, a mount point or a type after the `-` is skipped.
///
/// ```
/// let m = dents::mountinfo::parse(b"24 22 0:40 / /a\\040b rw shared:3 - fuse.my\\040fs x rw\n");
/// assert_eq!(m[0].device, (0, 40));
/// assert_eq!(m[0].point, b"/a b");
/// assert_eq!(m[0].fs_type, b"fuse.my fs");
/// ```
pub fn parse(text: &[u8]) -> Vec<Mount> {
    text.split(|&b| b == b'\n').filter_map(line).collect()
}

/// One line's mount.
fn line(line: &[u8]) -> Option<Mount> {
    let fields: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
    // The optional fields (from the 7th) end at a lone `-`.
    let dash = fields.iter().skip(6).position(|f| *f == b"-")?;
    let fs_type = fields.get(6 + dash + 1)?;
    Some(Mount {
        device: device(fields[2])?,
        point: unescape(fields[4]),
        fs_type: unescape(fs_type),
    })
}

/// `MAJOR:MINOR`.
fn device(s: &[u8]) -> Option<(u32, u32)> {
    let s = std::str::from_utf8(s).ok()?;
    let (a, b) = s.split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// A field with its `\ooo` escapes undone.
fn unescape(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        let oct = field
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match (field[i], oct) {
            (b'\\', Some(d)) => {
                let v = d.iter().fold(0u32, |n, c| n * 8 + u32::from(c - b'0'));
                out.push(v as u8);
                i += 4;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_with_optional_fields_and_escapes() {
        let t = parse(
            b"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n\
              23 22 0:5 / /dev rw - devtmpfs udev rw\n\
              24 22 0:40 / /a\\040b rw master:2 shared:3 - fuse.my\\040fs x rw\n\
              25 22 0:41 / /new\\012line\\011tab\\134 rw - tmpfs t rw\n\
              26 22 0:42 / /not\\08octal\\ rw - tmpfs t rw\n\
              no device here\n\
              27 22 x:y / /bad rw - tmpfs t rw\n\
              28 22 0:43 / /no-dash rw\n",
        );
        let got: Vec<(_, &[u8], &[u8])> = t
            .iter()
            .map(|m| (m.device, &m.point[..], &m.fs_type[..]))
            .collect();
        assert_eq!(
            got,
            [
                ((8, 1), &b"/"[..], &b"ext4"[..]),
                ((0, 5), b"/dev", b"devtmpfs"),
                ((0, 40), b"/a b", b"fuse.my fs"),
                ((0, 41), b"/new\nline\ttab\\", b"tmpfs"),
                ((0, 42), b"/not\\08octal\\", b"tmpfs"),
            ]
        );
    }
}
