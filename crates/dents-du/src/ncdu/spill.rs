//! The ncdu export's JSON kept in bounded memory: a directory's gathered
//! JSON is a list of [`Part`]s, bytes in memory or segments of one
//! unlinked temporary file; once a directory holds more than a threshold
//! (1 MiB) in memory, its memory parts are written to the file and only
//! their places are kept.  The export is the parts read back in order.
//!
//! Why spill rather than write as subtrees finish: the format nests a
//! directory's items inside it in pre-order, but the parallel walk
//! finishes subtrees in any order, so nothing can be written to the
//! output before the top directory is done.  The temporary file is made
//! with `O_TMPFILE` in `$TMPDIR` (default `/tmp`), as GNU sort makes its
//! own: the output may be standard output, a pipe or `/dev/null`, or in
//! a directory where no other file may be made; an unlinked file leaves
//! nothing behind when du is killed.  Where `O_TMPFILE` is not supported
//! a named file is made and unlinked at once.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Memory a directory's gathered JSON may hold before it is spilled.
pub(super) const DEFAULT_THRESHOLD: usize = 1 << 20;

/// A piece of a directory's gathered JSON.
#[derive(Debug)]
enum Part {
    /// Bytes in memory.
    Mem(Vec<u8>),
    /// A segment of the temporary file: offset, length.
    File(u64, u64),
}

/// A directory's gathered JSON, in order.
#[derive(Debug, Default)]
pub(super) struct Parts {
    parts: Vec<Part>,
    /// Bytes held in memory (the `Mem` parts).
    mem: usize,
}

/// The temporary file could not be made or written: the export is lost.
#[derive(Debug)]
pub struct SpillError {
    /// The directory the temporary file is (or was to be) in.
    pub dir: PathBuf,
    /// Why.
    pub error: io::Error,
    /// It could not be made (else: written or read back).
    pub create: bool,
}

/// The temporary file shared by one export's directories.
#[derive(Debug)]
pub(super) struct Spill {
    threshold: AtomicUsize,
    dir: Mutex<Option<PathBuf>>,
    /// Made on first use (`None`: it could not be made).
    file: OnceLock<Option<File>>,
    /// Where the next segment goes.
    end: AtomicU64,
    /// The first failure; nothing is spilled after it.
    error: Mutex<Option<SpillError>>,
}

impl Default for Spill {
    fn default() -> Spill {
        Spill {
            threshold: AtomicUsize::new(DEFAULT_THRESHOLD),
            dir: Mutex::new(None),
            file: OnceLock::new(),
            end: AtomicU64::new(0),
            error: Mutex::new(None),
        }
    }
}

impl Spill {
    pub(super) fn set_threshold(&self, bytes: usize) {
        self.threshold.store(bytes, Ordering::Relaxed);
    }

    pub(super) fn set_dir(&self, dir: &Path) {
        *self.dir.lock().unwrap_or_else(|e| e.into_inner()) = Some(dir.to_path_buf());
    }

    fn dir(&self) -> PathBuf {
        self.dir
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .unwrap_or_else(std::env::temp_dir)
    }

    fn fail(&self, error: io::Error, create: bool) {
        let mut e = self.error.lock().unwrap_or_else(|e| e.into_inner());
        if e.is_none() {
            *e = Some(SpillError {
                dir: self.dir(),
                error,
                create,
            });
        }
    }

    fn failed(&self) -> bool {
        self.error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// The first failure, taken out.
    pub(super) fn take_error(&self) -> Option<SpillError> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).take()
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

    /// Writes `bytes` as a new segment: its offset.
    fn write(&self, bytes: &[u8]) -> Option<u64> {
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

    /// Copies the segment at `at` of `len` bytes to `w`.
    fn copy_to(&self, at: u64, len: u64, w: &mut dyn Write, buf: &mut Vec<u8>) -> io::Result<()> {
        let f = self
            .file
            .get()
            .and_then(Option::as_ref)
            .ok_or_else(|| io::Error::other("temporary file lost"))?;
        let (mut at, end) = (at, at + len);
        while at < end {
            let n = ((end - at) as usize).min(DEFAULT_THRESHOLD);
            buf.resize(n, 0);
            f.read_exact_at(buf, at)?;
            w.write_all(buf)?;
            at += n as u64;
        }
        Ok(())
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
        let p = dir.join(format!(
            ".dents-du-export.{}.{stamp:x}.{n}",
            std::process::id()
        ));
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

impl Parts {
    /// Whether nothing was gathered.
    pub(super) fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Appends bytes, spilling when the memory held passes the threshold.
    pub(super) fn push(&mut self, bytes: &[u8], spill: Option<&Spill>) {
        if bytes.is_empty() {
            return;
        }
        match self.parts.last_mut() {
            Some(Part::Mem(m)) => m.extend_from_slice(bytes),
            _ => self.parts.push(Part::Mem(bytes.to_vec())),
        }
        self.mem += bytes.len();
        self.spill_if_over(spill);
    }

    /// Appends a copy of `other`'s parts (its segments by reference).
    pub(super) fn push_parts(&mut self, other: &Parts, spill: Option<&Spill>) {
        for p in &other.parts {
            match p {
                Part::Mem(m) => {
                    match self.parts.last_mut() {
                        Some(Part::Mem(mine)) => mine.extend_from_slice(m),
                        _ => self.parts.push(Part::Mem(m.clone())),
                    }
                    self.mem += m.len();
                }
                &Part::File(at, len) => self.push_segment(at, len),
            }
        }
        self.spill_if_over(spill);
    }

    fn push_segment(&mut self, at: u64, len: u64) {
        match self.parts.last_mut() {
            Some(Part::File(a, l)) if *a + *l == at => *l += len,
            _ => self.parts.push(Part::File(at, len)),
        }
    }

    fn spill_if_over(&mut self, spill: Option<&Spill>) {
        let Some(spill) = spill else { return };
        if self.mem < spill.threshold.load(Ordering::Relaxed) {
            return;
        }
        if spill.failed() {
            // The export is lost (the error is said when it is written):
            // what is gathered is dropped rather than kept without bound.
            self.parts.clear();
            self.mem = 0;
            return;
        }
        let old = std::mem::take(&mut self.parts);
        self.mem = 0;
        for p in old {
            match p {
                Part::Mem(m) => {
                    // Failed: dropped, as above.
                    if let Some(at) = spill.write(&m) {
                        self.push_segment(at, m.len() as u64);
                    }
                }
                Part::File(at, len) => self.push_segment(at, len),
            }
        }
    }

    /// Writes the parts in order.
    pub(super) fn write_to(&self, spill: Option<&Spill>, w: &mut dyn Write) -> io::Result<()> {
        let mut buf = Vec::new();
        for p in &self.parts {
            match p {
                Part::Mem(m) => w.write_all(m)?,
                &Part::File(at, len) => match spill {
                    Some(s) => s.copy_to(at, len, w, &mut buf)?,
                    None => return Err(io::Error::other("temporary file lost")),
                },
            }
        }
        Ok(())
    }

    /// The parts read back into memory.
    pub(super) fn to_vec(&self, spill: Option<&Spill>) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.mem);
        if let Err(e) = self.write_to(spill, &mut out) {
            if let Some(s) = spill {
                s.fail(e, false);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes past the threshold go to the file, in order with what stays
    /// in memory and with another directory's parts moved in.
    #[test]
    fn spilled_parts_read_back_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let spill = Spill::default();
        spill.set_dir(tmp.path());
        spill.set_threshold(8);
        let (mut child, mut parent) = (Parts::default(), Parts::default());
        let mut want = Vec::new();
        parent.push(b"head", Some(&spill));
        want.extend_from_slice(b"head");
        for i in 0..20 {
            child.push(format!("<{i}>").as_bytes(), Some(&spill));
        }
        assert!(child.parts.iter().any(|p| matches!(p, Part::File(..))));
        assert!(child.mem < 8, "memory bounded by the threshold");
        parent.push_parts(&child, Some(&spill));
        parent.push(b"tail", Some(&spill));
        for i in 0..20 {
            want.extend_from_slice(format!("<{i}>").as_bytes());
        }
        want.extend_from_slice(b"tail");
        assert_eq!(parent.to_vec(Some(&spill)), want);
        assert!(spill.take_error().is_none());
    }

    /// Never spilled: everything in memory, one part.
    #[test]
    fn no_threshold_keeps_one_memory_part() {
        let spill = Spill::default();
        spill.set_threshold(usize::MAX);
        let mut p = Parts::default();
        for _ in 0..1000 {
            p.push(b"0123456789", Some(&spill));
        }
        assert_eq!(p.parts.len(), 1);
        assert!(spill.file.get().is_none(), "no temporary file made");
    }
}
