//! A temporary file that bytes are spilled to and read back from, by
//! segments, so that what a program must hold for later stays bounded in
//! memory: the ncdu export's finished subtrees (dents-du), a sorted
//! walk's queue of directories ([`crate::walk`], "Sorted walks") and an
//! unsorted walk's deep list past its limit (read back as a stack,
//! the file cut where the segment read back began).
//!
//! The file is made on first use with `O_TMPFILE` in `$TMPDIR` (default
//! `/tmp`), as GNU sort makes its own: the output may be standard output,
//! a pipe or `/dev/null`, or in a directory where no other file may be
//! made; an unlinked file leaves nothing behind when the program is
//! killed.  Where `O_TMPFILE` is not supported a named file is made and
//! unlinked at once.  The first failure is kept, and nothing is written
//! after it: the caller keeps its bytes in memory instead, or says what
//! was lost.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// Bytes read back at a time by [`SpillFile::copy_to`].
const COPY_CHUNK: usize = 1 << 20;

/// The temporary file could not be made, written or read back.
#[derive(Debug)]
pub struct SpillError {
    /// The directory the temporary file is (or was to be) in.
    pub dir: PathBuf,
    /// Why.
    pub error: io::Error,
    /// It could not be made (else: written or read back).
    pub create: bool,
}

/// One unlinked temporary file, written by segments at its end.
#[derive(Debug, Default)]
pub struct SpillFile {
    dir: Mutex<Option<PathBuf>>,
    /// Made on first use (`None`: it could not be made).
    file: OnceLock<Option<File>>,
    /// Where the next segment goes.
    end: AtomicU64,
    /// The first failure; nothing is written after it.
    error: Mutex<Option<SpillError>>,
}

impl SpillFile {
    /// The directory to make the file in (before it is made; default
    /// `$TMPDIR`, else `/tmp`).
    pub fn set_dir(&self, dir: &Path) {
        *self.dir.lock().unwrap_or_else(|e| e.into_inner()) = Some(dir.to_path_buf());
    }

    pub(crate) fn dir(&self) -> PathBuf {
        self.dir
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .unwrap_or_else(std::env::temp_dir)
    }

    /// Records a failure (the first one is kept).
    pub fn fail(&self, error: io::Error, create: bool) {
        let mut e = self.error.lock().unwrap_or_else(|e| e.into_inner());
        if e.is_none() {
            *e = Some(SpillError {
                dir: self.dir(),
                error,
                create,
            });
        }
    }

    /// Whether a failure was met (and not yet taken out).
    pub fn failed(&self) -> bool {
        self.error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// The first failure, taken out.
    pub fn take_error(&self) -> Option<SpillError> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Whether the file was made (or tried).
    pub fn is_made(&self) -> bool {
        self.file.get().is_some()
    }

    fn file(&self) -> Option<&File> {
        self.file
            .get_or_init(|| match open_unlinked(&self.dir()) {
                Ok(f) => Some(f),
                Err(e) => {
                    self.fail(e, true);
                    None
                }
            })
            .as_ref()
    }

    /// Writes `bytes` as a new segment: its offset (`None`: failed, or
    /// an earlier failure; the bytes were not kept).
    pub fn write(&self, bytes: &[u8]) -> Option<u64> {
        if self.failed() {
            return None;
        }
        let f = self.file()?;
        let at = self.end.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        match f.write_all_at(bytes, at) {
            Ok(()) => Some(at),
            Err(e) => {
                self.fail(e, false);
                None
            }
        }
    }

    fn made(&self) -> io::Result<&File> {
        self.file
            .get()
            .and_then(Option::as_ref)
            .ok_or_else(|| io::Error::other("temporary file lost"))
    }

    /// Reads the segment at `at` into `buf` (its length).
    pub fn read_at(&self, at: u64, buf: &mut [u8]) -> io::Result<()> {
        self.made()?.read_exact_at(buf, at)
    }

    /// Copies the segment at `at` of `len` bytes to `w`, through `buf`.
    pub fn copy_to(
        &self,
        at: u64,
        len: u64,
        w: &mut dyn Write,
        buf: &mut Vec<u8>,
    ) -> io::Result<()> {
        let f = self.made()?;
        let (mut at, end) = (at, at + len);
        while at < end {
            let n = ((end - at) as usize).min(COPY_CHUNK);
            buf.resize(n, 0);
            f.read_exact_at(buf, at)?;
            w.write_all(buf)?;
            at += n as u64;
        }
        Ok(())
    }

    /// Gives back the disk (or, on tmpfs, memory) of a segment read back
    /// for the last time (a hole punched; where the filesystem cannot,
    /// it stays until the file is emptied).
    pub fn discard(&self, at: u64, len: u64) {
        use rustix::fs::FallocateFlags;
        if let Some(Some(f)) = self.file.get() {
            let flags = FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE;
            let _ = rustix::fs::fallocate(f, flags, at, len);
        }
    }

    /// Empties the file, once nothing in it will be read again: the next
    /// segment goes at its start.
    pub fn clear(&self) {
        self.truncate(0);
    }

    /// Cuts the file at `at`, once nothing from there on will be read
    /// again: the next segment goes there (segments used as a stack,
    /// the last written read back first).
    pub(crate) fn truncate(&self, at: u64) {
        if let Some(Some(f)) = self.file.get() {
            if f.set_len(at).is_ok() {
                self.end.store(at, Ordering::Relaxed);
            }
        }
    }
}

/// An unlinked file in `dir`, read and written by this process only.
fn open_unlinked(dir: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDWR | OFlags::TMPFILE | OFlags::CLOEXEC;
    match rustix::fs::open(dir, flags, Mode::from_raw_mode(0o600)) {
        Ok(fd) => return Ok(File::from(fd)),
        // The filesystem (or kernel) has no O_TMPFILE: a named file,
        // unlinked at once.
        Err(e) if e == rustix::io::Errno::OPNOTSUPP || e == rustix::io::Errno::ISDIR => {}
        Err(e) => return Err(e.into()),
    }
    use std::os::unix::fs::OpenOptionsExt;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mut last = None;
    for n in 0..100u32 {
        let p = dir.join(format!(".dents-spill.{}.{stamp:x}.{n}", std::process::id()));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&p)
        {
            Ok(f) => {
                std::fs::remove_file(&p)?;
                return Ok(f);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary file name")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Segments read back as written, and the file emptied starts again
    /// at offset 0.
    #[test]
    fn segments_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let f = SpillFile::default();
        f.set_dir(tmp.path());
        assert!(!f.is_made());
        let a = f.write(b"hello").unwrap();
        let b = f.write(b"world!").unwrap();
        assert_eq!((a, b), (0, 5));
        let mut buf = vec![0; 6];
        f.read_at(b, &mut buf).unwrap();
        assert_eq!(buf, b"world!");
        f.discard(a, 5);
        let mut out = Vec::new();
        f.copy_to(b, 6, &mut out, &mut Vec::new()).unwrap();
        assert_eq!(out, b"world!");
        f.clear();
        assert_eq!(f.write(b"again").unwrap(), 0);
        assert!(f.take_error().is_none());
        // No temporary file is left behind in the directory.
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }

    /// A directory where no file can be made: the failure is kept, and
    /// nothing is written after it.
    #[test]
    fn a_failure_is_kept() {
        let f = SpillFile::default();
        f.set_dir(Path::new("/nonexistent/dents-spill-test"));
        assert_eq!(f.write(b"x"), None);
        assert!(f.failed());
        let e = f.take_error().unwrap();
        assert!(e.create);
    }
}
