//! One directory's entries: a `getdents64` reader over a buffer it owns.
//!
//! glibc's `readdir` refills a 32 KiB buffer; on a directory of a million
//! entries that is a thousand system calls, each paying the filesystem's
//! per-call setup.  [`DirReader`] calls `getdents64` itself, into a buffer
//! whose size was chosen by measurement (see [`DEFAULT_BUFFER_SIZE`]), and
//! hands out [`RawEntry`] values that borrow the buffer: the name is never
//! copied on its way to the caller.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use crate::file_type::FileType;
use crate::sys;

/// The `getdents64` buffer size used unless the caller asks for another.
///
/// Measured with the syscall floor over one directory of 1M entries
/// (docs/history/benchmarks.md#buffer-size): on ext4 every size from
/// 32 KiB to 4 MiB took about the same time, hot and cold, and on xfs
/// hot; cold on xfs, 32 KiB was faster than this size and every larger
/// one slower (one run, not checked further).  Larger buffers buy no
/// speed, so the size is kept small (memory per reader thread) while
/// still holding a few hundred entries per call.
pub const DEFAULT_BUFFER_SIZE: usize = 64 * 1024;

/// The largest buffer the reader grows to when one entry does not fit.
const MAX_BUFFER_SIZE: usize = 1 << 20;

/// Size of the fixed part of a `linux_dirent64` record before the name.
const DIRENT_HEADER: usize = 19;

/// The largest `linux_dirent64` record: header, a 255-byte name, its NUL,
/// padding to 8 bytes.
const MAX_RECORD: usize = (DIRENT_HEADER + 255 + 1).div_ceil(8) * 8;

/// With the `test-knobs` feature only: reading an entry of this name
/// panics, so that the tests of every scheduler built on the reader (the
/// walker's, ls -R's, the Python read-ahead pool's, dents-mpi's) can make
/// a panic happen on one of their worker threads.  Never in a build a user
/// gets: the feature is turned on by dev-dependencies only.
#[cfg(feature = "test-knobs")]
const PANIC_AT: &[u8] = b"dents-test-panic";

/// One directory entry, borrowed from the reader's buffer: raw, as
/// `getdents64` gives it (name, inode, `d_type`, next offset), unlike the
/// walker's [`crate::Entry`] (a path, a depth, metadata on demand).
#[derive(Copy, Clone, Debug)]
pub struct RawEntry<'a> {
    name: &'a CStr,
    ino: u64,
    file_type: FileType,
    next_offset: u64,
}

impl<'a> RawEntry<'a> {
    /// The name as bytes, without the terminating NUL; never assumed UTF-8.
    pub fn name(&self) -> &'a [u8] {
        self.name.to_bytes()
    }

    /// The name as a C string, ready for `*at` system calls.
    pub fn name_cstr(&self) -> &'a CStr {
        self.name
    }

    /// The inode number (`d_ino`).
    pub fn ino(&self) -> u64 {
        self.ino
    }

    /// The type the filesystem reported (`d_type`), possibly unknown.
    pub fn file_type(&self) -> FileType {
        self.file_type
    }

    /// The offset cookie (`d_off`): the position of the entry after this one.
    pub fn next_offset(&self) -> u64 {
        self.next_offset
    }

    /// Whether this is the `.` or `..` entry.
    pub fn is_dot_or_dotdot(&self) -> bool {
        is_dot_or_dotdot(self.name())
    }
}

/// Whether `name` is `.` or `..`.
pub fn is_dot_or_dotdot(name: &[u8]) -> bool {
    matches!(name, b"." | b"..")
}

/// Reads the entries of one open directory with `getdents64`.
///
/// ```no_run
/// use dents::dir::DirReader;
/// # fn main() -> std::io::Result<()> {
/// let mut reader = DirReader::open(c"/usr/bin")?;
/// let mut count = 0;
/// while let Some(entry) = reader.next_entry()? {
///     count += 1;
///     let _ = entry.name();
/// }
/// println!("{count} entries");
/// # Ok(())
/// # }
/// ```
///
/// It owns its descriptor (`DirReader<OwnedFd>`, the default) or borrows
/// one (`DirReader<BorrowedFd>`: a directory its caller keeps, read where
/// no descriptor is free for a copy of it).
#[derive(Debug)]
pub struct DirReader<F = OwnedFd> {
    fd: F,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    at_end: bool,
    /// `getdents64` calls made so far.
    calls: u32,
    /// The most bytes the first call asks for (`usize::MAX`: the buffer).
    first_read: usize,
}

impl DirReader<OwnedFd> {
    /// Opens the directory at `path` (following symlinks) and reads it.
    pub fn open(path: &CStr) -> io::Result<DirReader> {
        Ok(DirReader::new(sys::open_dir_path(path)?))
    }

    /// Opens the directory `name` relative to `parent`, never following a
    /// symlink in `name`.
    pub fn open_at(parent: BorrowedFd<'_>, name: &CStr) -> io::Result<DirReader> {
        Ok(DirReader::new(sys::open_dir_at(parent, name)?))
    }
}

impl<F: AsFd> DirReader<F> {
    /// A reader over the open directory `fd`, with the default buffer size.
    pub fn new(fd: F) -> DirReader<F> {
        DirReader::with_buffer_size(fd, DEFAULT_BUFFER_SIZE)
    }

    /// A reader over `fd` with a buffer of `size` bytes (grown on demand if
    /// one entry does not fit).
    pub fn with_buffer_size(fd: F, size: usize) -> DirReader<F> {
        DirReader {
            fd,
            buf: vec![0; size.max(1)],
            pos: 0,
            len: 0,
            at_end: false,
            calls: 0,
            first_read: usize::MAX,
        }
    }

    /// A reader over `fd` that reuses `buf` (from [`DirReader::into_parts`]
    /// of an earlier reader): a walk reads many directories with one buffer.
    pub fn with_buffer(fd: F, mut buf: Vec<u8>) -> DirReader<F> {
        if buf.is_empty() {
            buf.resize(DEFAULT_BUFFER_SIZE, 0);
        }
        DirReader {
            fd,
            buf,
            pos: 0,
            len: 0,
            at_end: false,
            calls: 0,
            first_read: usize::MAX,
        }
    }

    /// Limits the first `getdents64` call to `bytes` (at least one
    /// entry's worth), so that a caller learns early, before many blocks
    /// of a huge directory are read one after another, that the directory
    /// is more than small ([`DirReader::first_read_drained_full`]).
    pub fn with_first_read(mut self, bytes: usize) -> DirReader<F> {
        self.first_read = bytes.max(MAX_RECORD);
        self
    }

    /// Whether every entry of the first `getdents64` call has been taken
    /// and that call stopped because its room ran out (so the directory
    /// holds more), before a second call is made.
    pub fn first_read_drained_full(&self) -> bool {
        self.calls == 1 && self.pos >= self.len && !self.at_end && {
            let asked = self.first_read.min(self.buf.len());
            self.len + MAX_RECORD > asked
        }
    }

    /// How many `getdents64` calls were made.
    pub fn calls(&self) -> u32 {
        self.calls
    }

    /// Gives back the descriptor and the buffer, for reuse.
    pub fn into_parts(self) -> (F, Vec<u8>) {
        (self.fd, self.buf)
    }

    /// The directory's file descriptor.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Gives back the file descriptor.
    pub fn into_fd(self) -> F {
        self.fd
    }

    /// The current buffer size in bytes.
    pub fn buffer_size(&self) -> usize {
        self.buf.len()
    }

    /// Moves to the offset cookie `cookie`, dropping buffered entries.
    pub fn seek(&mut self, cookie: u64) -> io::Result<()> {
        sys::seek_dir(self.fd.as_fd(), cookie)?;
        self.pos = 0;
        self.len = 0;
        self.at_end = false;
        Ok(())
    }

    /// The next entry, `.` and `..` included; `None` at the end.
    pub fn next_raw(&mut self) -> io::Result<Option<RawEntry<'_>>> {
        match self.next_record()? {
            Some(start) => Ok(Some(self.entry_at(start))),
            None => Ok(None),
        }
    }

    /// The next entry other than `.` and `..`; `None` at the end.
    pub fn next_entry(&mut self) -> io::Result<Option<RawEntry<'_>>> {
        loop {
            let Some(start) = self.next_record()? else {
                return Ok(None);
            };
            if !is_dot_or_dotdot(self.entry_at(start).name()) {
                return Ok(Some(self.entry_at(start)));
            }
        }
    }

    /// The next entry other than `.` and `..` together with the directory's
    /// descriptor, for `*at` calls on the entry while it is borrowed.
    pub fn next_with_fd(&mut self) -> io::Result<Option<(BorrowedFd<'_>, RawEntry<'_>)>> {
        loop {
            let Some(start) = self.next_record()? else {
                return Ok(None);
            };
            if !self.is_dot_record(start) {
                return Ok(Some((self.fd.as_fd(), self.entry_at(start))));
            }
        }
    }

    /// Whether the record at `start` (already validated) is `.` or `..`,
    /// from its first name bytes, without building the entry: this runs
    /// for every entry of every directory.
    fn is_dot_record(&self, start: usize) -> bool {
        matches!(
            &self.buf[start + DIRENT_HEADER..],
            [b'.', 0, ..] | [b'.', b'.', 0, ..]
        )
    }

    /// Advances past one record and returns where it starts in the buffer.
    fn next_record(&mut self) -> io::Result<Option<usize>> {
        if self.pos >= self.len && (self.at_end || !self.fill()?) {
            return Ok(None);
        }
        let start = self.pos;
        if start + DIRENT_HEADER >= self.len {
            return Err(malformed());
        }
        let reclen = u16::from_ne_bytes([self.buf[start + 16], self.buf[start + 17]]) as usize;
        if reclen <= DIRENT_HEADER || start + reclen > self.len {
            return Err(malformed());
        }
        self.pos += reclen;
        Ok(Some(start))
    }

    /// Builds the entry whose record starts at `start` (already validated).
    fn entry_at(&self, start: usize) -> RawEntry<'_> {
        let rec = &self.buf[start..];
        let reclen = u16::from_ne_bytes([rec[16], rec[17]]) as usize;
        let name = sys::dirent_name(&rec[..reclen]);
        #[cfg(feature = "test-knobs")]
        if name.to_bytes() == PANIC_AT {
            panic!("test knob: read an entry named dents-test-panic");
        }
        RawEntry {
            name,
            ino: u64::from_ne_bytes(rec[0..8].try_into().expect("8 bytes")),
            next_offset: u64::from_ne_bytes(rec[8..16].try_into().expect("8 bytes")),
            file_type: FileType::from_dtype(rec[18]),
        }
    }

    /// Refills the buffer; `false` at the end of the directory.  Grows the
    /// buffer when the kernel says the next entry does not fit (`EINVAL`).
    fn fill(&mut self) -> io::Result<bool> {
        loop {
            let limit = if self.calls == 0 {
                self.first_read.min(self.buf.len())
            } else {
                self.buf.len()
            };
            self.calls += 1;
            match sys::getdents64(self.fd.as_fd(), &mut self.buf[..limit]) {
                Ok(0) => {
                    self.at_end = true;
                    self.pos = 0;
                    self.len = 0;
                    return Ok(false);
                }
                Ok(n) => {
                    self.pos = 0;
                    self.len = n;
                    return Ok(true);
                }
                Err(e)
                    if e.raw_os_error() == Some(libc::EINVAL)
                        && self.buf.len() < MAX_BUFFER_SIZE =>
                {
                    let grown =
                        (self.buf.len() * 2).clamp(DIRENT_HEADER + 256 + 8, MAX_BUFFER_SIZE);
                    self.buf.resize(grown, 0);
                }
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                // The directory was removed while open (a deleted working
                // directory): no entries left, as glibc's readdir takes it.
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
                    self.at_end = true;
                    self.pos = 0;
                    self.len = 0;
                    return Ok(false);
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// The error for a record that breaks the `linux_dirent64` layout.
fn malformed() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "getdents64 returned a malformed record",
    )
}

/// An entry copied out of the reader's buffer, for the rare entry that must
/// outlive the next read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedEntry {
    name: std::ffi::CString,
    ino: u64,
    file_type: FileType,
    next_offset: u64,
}

impl OwnedEntry {
    /// Copies `entry`.
    pub fn new(entry: &RawEntry<'_>) -> OwnedEntry {
        OwnedEntry {
            name: entry.name.to_owned(),
            ino: entry.ino,
            file_type: entry.file_type,
            next_offset: entry.next_offset,
        }
    }

    /// The entry borrowed again.
    pub fn as_entry(&self) -> RawEntry<'_> {
        RawEntry {
            name: &self.name,
            ino: self.ino,
            file_type: self.file_type,
            next_offset: self.next_offset,
        }
    }

    /// Whether `entry` names the same file under the same name.
    pub fn is_same(&self, entry: &RawEntry<'_>) -> bool {
        self.ino == entry.ino && self.name.as_c_str() == entry.name
    }
}
