//! Filesystem type names for `-fstype` and `-printf %F`, as GNU find
//! finds them: the mount list (`/proc/self/mountinfo`) is searched for
//! the entries whose device is the file's, and the last one's type is
//! the answer (`/` is often listed twice); a device found nowhere is
//! `unknown`.
//!
//! The list is read once per command, on first use, into a map of the
//! command's context shared by its threads; each thread also remembers
//! the last device it asked about, since neighbouring files are almost
//! always on one filesystem.  A list that cannot be read is GNU's fatal
//! error: the message, status 1, and the command stops at once (as at
//! `-quit`; GNU exits, which a library cannot do to its host).

use super::msg;
use crate::ctx::{self, FsTable as Table};

/// The name GNU gives a device in no mount entry.
const UNKNOWN: &[u8] = b"unknown";

/// The type name of device `dev` from the command's mount table, read
/// from `/proc/self/mountinfo` on first use; GNU's fatal message if it
/// cannot be (and the command stops).
fn lookup(dev: (u32, u32)) -> Box<[u8]> {
    ctx::with(|c| {
        let table = c
            .fs_table
            .get_or_init(|| match std::fs::read("/proc/self/mountinfo") {
                Ok(text) => Some(parse(&text)),
                Err(_) => {
                    msg::error(b"Cannot read mounted file system list");
                    c.set_fatal();
                    None
                }
            });
        table
            .as_ref()
            .and_then(|t| t.get(&dev))
            .map_or_else(|| UNKNOWN.into(), |n| n.clone())
    })
}

/// The devices and types of a mountinfo text (`dents::mountinfo`'s
/// reading); a later line for a device replaces an earlier one.
fn parse(text: &[u8]) -> Table {
    dents::mountinfo::parse(text)
        .into_iter()
        .map(|m| (m.device, m.fs_type.into_boxed_slice()))
        .collect()
}

/// One thread's memory of the last device asked about.
#[derive(Debug, Default)]
pub struct Cache {
    last: Option<(Device, Box<[u8]>)>,
}

/// A device number: (major, minor).
type Device = (u32, u32);

impl Cache {
    /// The type name of the filesystem on device `dev`.
    pub fn name(&mut self, dev: (u32, u32)) -> &[u8] {
        if !self.last.as_ref().is_some_and(|(d, _)| *d == dev) {
            self.last = Some((dev, lookup(dev)));
        }
        self.last.as_ref().map_or(UNKNOWN, |(_, n)| n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_lines() {
        let t = parse(
            b"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n\
              23 22 0:5 / /dev rw - devtmpfs udev rw\n\
              24 22 0:40 / /a\\040b rw master:2 shared:3 - fuse.my\\040fs x rw\n\
              25 22 8:1 / /again rw - xfs /dev/sda1 rw\n",
        );
        assert_eq!(&*t[&(0, 5)], b"devtmpfs");
        assert_eq!(&*t[&(0, 40)], b"fuse.my fs");
        assert_eq!(&*t[&(8, 1)], b"xfs");
    }
}
