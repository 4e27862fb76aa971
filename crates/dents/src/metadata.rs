//! dents's own metadata type: what a stat of an entry said, in plain
//! numbers, and which of its fields were asked for.
//!
//! [`Metadata`] is converted from the kernel's `statx` result inside the
//! library; no type of a dependency (rustix, libc) appears here, so a
//! program that uses dents is not tied to their versions.  [`StatFields`]
//! says which fields a stat fetches: the kernel may skip work for the
//! ones not asked for (a network filesystem's sizes and times, say), and
//! the walk never stats at all when nothing asks.
//!
//! ```
//! use dents::{StatFields, Walker};
//! # fn main() -> Result<(), dents::Error> {
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a"), b"hello").unwrap();
//! let walker = Walker::new(dir.path()).stat_fields(StatFields::SIZE | StatFields::MTIME);
//! for entry in walker {
//!     let entry = entry?;
//!     let meta = entry.metadata().expect("stat fields were asked for");
//!     if meta.is_file() {
//!         assert_eq!(meta.len(), 5);
//!         assert!(meta.modified().is_some());
//!     }
//! }
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::ops::{BitAnd, BitOr, BitOrAssign};
use std::time::{Duration, SystemTime};

use crate::file_type::FileType;
use crate::sys::{self, Statx};

/// Which fields of an entry's metadata a stat fetches: a set of flags,
/// combined with `|`.
///
/// The file type and mode are always fetched.  The values are those of
/// Linux's `STATX_*` mask bits, so [`StatFields::bits`] can be logged or
/// compared with `strace` output.
///
/// ```
/// use dents::StatFields;
/// let f = StatFields::SIZE | StatFields::MTIME;
/// assert!(f.contains(StatFields::SIZE));
/// assert!(!f.contains(StatFields::UID));
/// assert!(StatFields::BASIC.contains(f));
/// assert!(StatFields::empty().is_empty());
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct StatFields(u32);

impl StatFields {
    /// The file type (in the mode's `S_IFMT` bits).
    pub const TYPE: StatFields = StatFields(0x1);
    /// The permission bits of the mode.
    pub const MODE: StatFields = StatFields(0x2);
    /// The number of hard links.
    pub const NLINK: StatFields = StatFields(0x4);
    /// The owner's user id.
    pub const UID: StatFields = StatFields(0x8);
    /// The group id.
    pub const GID: StatFields = StatFields(0x10);
    /// The time of last access.
    pub const ATIME: StatFields = StatFields(0x20);
    /// The time of last modification of the contents.
    pub const MTIME: StatFields = StatFields(0x40);
    /// The time of last status change.
    pub const CTIME: StatFields = StatFields(0x80);
    /// The inode number.
    pub const INO: StatFields = StatFields(0x100);
    /// The size in bytes.
    pub const SIZE: StatFields = StatFields(0x200);
    /// The space allocated, in 512-byte blocks.
    pub const BLOCKS: StatFields = StatFields(0x400);
    /// Everything `stat(2)` gives: all the above.
    pub const BASIC: StatFields = StatFields(0x7ff);
    /// The creation ("birth") time, where the filesystem keeps one.
    pub const BTIME: StatFields = StatFields(0x800);
    /// Every field dents knows: [`StatFields::BASIC`] and
    /// [`StatFields::BTIME`].
    pub const ALL: StatFields = StatFields(0xfff);

    /// No field: a stat then fetches only the type and mode.
    pub const fn empty() -> StatFields {
        StatFields(0)
    }

    /// Whether no field is in the set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every field of `other` is in the set.
    pub const fn contains(self, other: StatFields) -> bool {
        self.0 & other.0 == other.0
    }

    /// The fields of both sets.
    pub const fn union(self, other: StatFields) -> StatFields {
        StatFields(self.0 | other.0)
    }

    /// The fields in both sets.
    pub const fn intersection(self, other: StatFields) -> StatFields {
        StatFields(self.0 & other.0)
    }

    /// The raw mask (`STATX_*` bits).
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The set with the given `STATX_*` bits; bits dents does not know
    /// are dropped.
    pub const fn from_bits_truncate(bits: u32) -> StatFields {
        StatFields(bits & Self::ALL.0)
    }

    /// The mask as the system call wants it.
    pub(crate) fn to_statx(self) -> rustix::fs::StatxFlags {
        rustix::fs::StatxFlags::from_bits_retain(self.0)
    }

    /// The `statx` mask of this field set, with the type and mode, which
    /// every stat of dents fetches.  (`StatFields` has `STATX_*`'s values.)
    pub(crate) fn statx_mask(self) -> rustix::fs::StatxFlags {
        self.to_statx() | rustix::fs::StatxFlags::TYPE | rustix::fs::StatxFlags::MODE
    }
}

impl BitOr for StatFields {
    type Output = StatFields;
    fn bitor(self, rhs: StatFields) -> StatFields {
        self.union(rhs)
    }
}

impl BitOrAssign for StatFields {
    fn bitor_assign(&mut self, rhs: StatFields) {
        *self = self.union(rhs);
    }
}

impl BitAnd for StatFields {
    type Output = StatFields;
    fn bitand(self, rhs: StatFields) -> StatFields {
        self.intersection(rhs)
    }
}

impl fmt::Debug for StatFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [(StatFields, &str); 12] = [
            (StatFields::TYPE, "TYPE"),
            (StatFields::MODE, "MODE"),
            (StatFields::NLINK, "NLINK"),
            (StatFields::UID, "UID"),
            (StatFields::GID, "GID"),
            (StatFields::ATIME, "ATIME"),
            (StatFields::MTIME, "MTIME"),
            (StatFields::CTIME, "CTIME"),
            (StatFields::INO, "INO"),
            (StatFields::SIZE, "SIZE"),
            (StatFields::BLOCKS, "BLOCKS"),
            (StatFields::BTIME, "BTIME"),
        ];
        let mut first = true;
        f.write_str("StatFields(")?;
        for (flag, name) in NAMES {
            if self.contains(flag) {
                if !first {
                    f.write_str(" | ")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        f.write_str(")")
    }
}

/// A point in time as the kernel gives it: seconds since the Unix epoch
/// (negative before it) and nanoseconds within that second.
///
/// ```
/// use dents::Timestamp;
/// let t = Timestamp { secs: -1, nsecs: 500_000_000 };
/// let back = std::time::UNIX_EPOCH - std::time::Duration::from_millis(500);
/// assert_eq!(t.to_system_time(), back);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Timestamp {
    /// Whole seconds since 1970-01-01 00:00:00 UTC.
    pub secs: i64,
    /// Nanoseconds past `secs`, below 1 000 000 000.
    pub nsecs: u32,
}

impl Timestamp {
    /// The same instant as a [`SystemTime`].
    pub fn to_system_time(self) -> SystemTime {
        let base = if self.secs >= 0 {
            SystemTime::UNIX_EPOCH + Duration::from_secs(self.secs as u64)
        } else {
            SystemTime::UNIX_EPOCH - Duration::from_secs(self.secs.unsigned_abs())
        };
        base + Duration::from_nanos(u64::from(self.nsecs))
    }
}

impl From<Timestamp> for SystemTime {
    fn from(t: Timestamp) -> SystemTime {
        t.to_system_time()
    }
}

/// An entry's metadata: the result of one `statx`, in dents's own types.
///
/// Only the fields the kernel returned are meaningful: see
/// [`Metadata::fields`].  Numbers not returned read as 0, times not
/// returned as `None` (a filesystem without birth times gives no
/// [`Metadata::created`] even when asked).
///
/// ```
/// use dents::{StatFields, Walker};
/// let dir = tempfile::tempdir().unwrap();
/// Walker::new(dir.path()).for_each(|entry| {
///     let entry = entry.expect("readable");
///     let meta = entry.metadata().expect("stat");
///     assert!(meta.is_dir());
///     assert!(meta.fields().contains(StatFields::BASIC));
///     assert_eq!(meta.ino(), entry.ino());
///     dents::Flow::Continue
/// });
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metadata {
    fields: StatFields,
    mode: u32,
    nlink: u64,
    uid: u32,
    gid: u32,
    ino: u64,
    len: u64,
    blocks: u64,
    blksize: u32,
    dev: u64,
    rdev: u64,
    atime: Timestamp,
    mtime: Timestamp,
    ctime: Timestamp,
    btime: Timestamp,
}

impl Metadata {
    /// Converts the kernel's answer; `stx_mask` says which fields it filled.
    pub(crate) fn from_statx(st: &Statx) -> Metadata {
        let ts = |t: &rustix::fs::StatxTimestamp| Timestamp {
            secs: t.tv_sec,
            nsecs: t.tv_nsec,
        };
        Metadata {
            fields: StatFields::from_bits_truncate(st.stx_mask),
            mode: u32::from(st.stx_mode),
            nlink: u64::from(st.stx_nlink),
            uid: st.stx_uid,
            gid: st.stx_gid,
            ino: st.stx_ino,
            len: st.stx_size,
            blocks: st.stx_blocks,
            blksize: st.stx_blksize,
            dev: sys::makedev(st.stx_dev_major, st.stx_dev_minor),
            rdev: sys::makedev(st.stx_rdev_major, st.stx_rdev_minor),
            atime: ts(&st.stx_atime),
            mtime: ts(&st.stx_mtime),
            ctime: ts(&st.stx_ctime),
            btime: ts(&st.stx_btime),
        }
    }

    /// The fields the kernel filled in (at least those asked for, where
    /// the filesystem has them; sometimes more).
    pub fn fields(&self) -> StatFields {
        self.fields
    }

    fn has(&self, f: StatFields) -> bool {
        self.fields.contains(f)
    }

    /// The file type (from the mode).
    pub fn file_type(&self) -> FileType {
        FileType::from_mode(self.mode)
    }

    /// Whether this is a directory.
    pub fn is_dir(&self) -> bool {
        self.file_type().is_dir()
    }

    /// Whether this is a regular file.
    pub fn is_file(&self) -> bool {
        self.file_type().is_file()
    }

    /// Whether this is a symbolic link (only possible when the link was
    /// not followed).
    pub fn is_symlink(&self) -> bool {
        self.file_type().is_symlink()
    }

    /// The whole `st_mode`: type bits and permission bits (`0o7777`).
    pub fn mode(&self) -> u32 {
        self.mode
    }

    /// The permission bits alone (`mode() & 0o7777`).
    pub fn permissions(&self) -> u32 {
        self.mode & 0o7777
    }

    /// The number of hard links ([`StatFields::NLINK`]).
    pub fn nlink(&self) -> u64 {
        self.nlink
    }

    /// The owner's user id ([`StatFields::UID`]).
    pub fn uid(&self) -> u32 {
        self.uid
    }

    /// The group id ([`StatFields::GID`]).
    pub fn gid(&self) -> u32 {
        self.gid
    }

    /// The inode number ([`StatFields::INO`]).
    pub fn ino(&self) -> u64 {
        self.ino
    }

    /// The size in bytes ([`StatFields::SIZE`]).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the size is 0.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The space allocated, in 512-byte units ([`StatFields::BLOCKS`]).
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The filesystem's preferred I/O size (always filled).
    pub fn blksize(&self) -> u32 {
        self.blksize
    }

    /// The device holding the file, encoded as `st_dev` is (always filled).
    pub fn dev(&self) -> u64 {
        self.dev
    }

    /// The device a device file stands for, encoded as `st_rdev` is
    /// (always filled; 0 for other files).
    pub fn rdev(&self) -> u64 {
        self.rdev
    }

    /// The major number of [`Metadata::dev`].
    pub fn dev_major(&self) -> u32 {
        rustix::fs::major(self.dev)
    }

    /// The minor number of [`Metadata::dev`].
    pub fn dev_minor(&self) -> u32 {
        rustix::fs::minor(self.dev)
    }

    /// The major number of [`Metadata::rdev`] (`ls -l`'s `8, 1`).
    pub fn rdev_major(&self) -> u32 {
        rustix::fs::major(self.rdev)
    }

    /// The minor number of [`Metadata::rdev`].
    pub fn rdev_minor(&self) -> u32 {
        rustix::fs::minor(self.rdev)
    }

    fn time(&self, f: StatFields, t: Timestamp) -> Option<Timestamp> {
        self.has(f).then_some(t)
    }

    /// The time of last access, if fetched ([`StatFields::ATIME`]).
    pub fn atime(&self) -> Option<Timestamp> {
        self.time(StatFields::ATIME, self.atime)
    }

    /// The time of last modification, if fetched ([`StatFields::MTIME`]).
    pub fn mtime(&self) -> Option<Timestamp> {
        self.time(StatFields::MTIME, self.mtime)
    }

    /// The time of last status change, if fetched ([`StatFields::CTIME`]).
    pub fn ctime(&self) -> Option<Timestamp> {
        self.time(StatFields::CTIME, self.ctime)
    }

    /// The creation time, if fetched and kept by the filesystem
    /// ([`StatFields::BTIME`]).
    pub fn btime(&self) -> Option<Timestamp> {
        self.time(StatFields::BTIME, self.btime)
    }

    /// [`Metadata::atime`] as a [`SystemTime`].
    pub fn accessed(&self) -> Option<SystemTime> {
        self.atime().map(Timestamp::to_system_time)
    }

    /// [`Metadata::mtime`] as a [`SystemTime`].
    pub fn modified(&self) -> Option<SystemTime> {
        self.mtime().map(Timestamp::to_system_time)
    }

    /// [`Metadata::ctime`] as a [`SystemTime`].
    pub fn changed(&self) -> Option<SystemTime> {
        self.ctime().map(Timestamp::to_system_time)
    }

    /// [`Metadata::btime`] as a [`SystemTime`].
    pub fn created(&self) -> Option<SystemTime> {
        self.btime().map(Timestamp::to_system_time)
    }
}

/// Questions about a type beyond those of [`crate::dir`] (which keeps the
/// reader's own: [`FileType::is_dir`], [`FileType::is_unknown`]).
impl FileType {
    /// Whether this is a regular file.
    ///
    /// ```
    /// use dents::FileType;
    /// assert!(FileType::REGULAR.is_file());
    /// assert!(!FileType::DIRECTORY.is_file());
    /// ```
    pub const fn is_file(self) -> bool {
        self.as_dtype() == FileType::REGULAR.as_dtype()
    }

    /// Whether this is a symbolic link.
    pub const fn is_symlink(self) -> bool {
        self.as_dtype() == FileType::SYMLINK.as_dtype()
    }

    /// Whether this is a block or character device.
    pub const fn is_device(self) -> bool {
        let t = self.as_dtype();
        t == FileType::BLOCK_DEVICE.as_dtype() || t == FileType::CHAR_DEVICE.as_dtype()
    }

    /// Whether this is a named pipe.
    pub const fn is_fifo(self) -> bool {
        self.as_dtype() == FileType::FIFO.as_dtype()
    }

    /// Whether this is a socket.
    pub const fn is_socket(self) -> bool {
        self.as_dtype() == FileType::SOCKET.as_dtype()
    }
}

/// An entry's status as recorded elsewhere (a snapshot's row written by
/// an earlier walk), to be read back as [`Metadata`] by code that takes
/// a stat: a recorded entry is a stat already fetched.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RecordedStat {
    /// The fields that were recorded (the others read as 0 or `None`).
    pub fields: StatFields,
    /// `st_mode`: type and permission bits.
    pub mode: u32,
    /// Hard links.
    pub nlink: u64,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
    /// Inode number.
    pub ino: u64,
    /// `st_size`.
    pub len: u64,
    /// `st_blocks` (512-byte units).
    pub blocks: u64,
    /// Device, as `st_dev` (`makedev(major, minor)`).
    pub dev: u64,
    /// Device a device file stands for, as `st_rdev`.
    pub rdev: u64,
    /// Last access.
    pub atime: Timestamp,
    /// Last modification.
    pub mtime: Timestamp,
    /// Last status change.
    pub ctime: Timestamp,
}

impl From<RecordedStat> for Metadata {
    /// The recorded fields as a stat would give them; no birth time.
    fn from(r: RecordedStat) -> Metadata {
        Metadata {
            fields: StatFields::from_bits_truncate(r.fields.bits() & !StatFields::BTIME.bits()),
            mode: r.mode,
            nlink: r.nlink,
            uid: r.uid,
            gid: r.gid,
            ino: r.ino,
            len: r.len,
            blocks: r.blocks,
            // Not recorded: what `st_blksize` says on most filesystems.
            blksize: 4096,
            dev: r.dev,
            rdev: r.rdev,
            atime: r.atime,
            mtime: r.mtime,
            ctime: r.ctime,
            btime: Timestamp { secs: 0, nsecs: 0 },
        }
    }
}
