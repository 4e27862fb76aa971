//! The ncdu export's JSON kept in bounded memory: a directory's gathered
//! JSON is a list of [`Part`]s, bytes in memory or segments of one
//! unlinked temporary file; once a directory holds more than a threshold
//! (1 MiB) in memory, its memory parts are written to the file and only
//! their places are kept.  The export is the parts read back in order.
//!
//! Why spill rather than write as subtrees finish: the format nests a
//! directory's items inside it in pre-order, but the parallel walk
//! finishes subtrees in any order, so nothing can be written to the
//! output before the top directory is done.  The temporary file is
//! [`dents::spill`]'s (an unlinked file in `$TMPDIR`, shared with the
//! sorted walk's queue).

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use dents::spill::SpillError;
use dents::spill::SpillFile;

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

/// The temporary file shared by one export's directories
/// ([`dents::spill`]), and the threshold past which they spill.
#[derive(Debug)]
pub(super) struct Spill {
    threshold: AtomicUsize,
    file: SpillFile,
}

impl Default for Spill {
    fn default() -> Spill {
        Spill {
            threshold: AtomicUsize::new(DEFAULT_THRESHOLD),
            file: SpillFile::default(),
        }
    }
}

impl Spill {
    pub(super) fn set_threshold(&self, bytes: usize) {
        self.threshold.store(bytes, Ordering::Relaxed);
    }

    pub(super) fn set_dir(&self, dir: &Path) {
        self.file.set_dir(dir);
    }

    fn fail(&self, error: io::Error, create: bool) {
        self.file.fail(error, create);
    }

    fn failed(&self) -> bool {
        self.file.failed()
    }

    /// The first failure, taken out.
    pub(super) fn take_error(&self) -> Option<SpillError> {
        self.file.take_error()
    }

    /// Writes `bytes` as a new segment: its offset.
    fn write(&self, bytes: &[u8]) -> Option<u64> {
        self.file.write(bytes)
    }

    /// Copies the segment at `at` of `len` bytes to `w`.
    fn copy_to(&self, at: u64, len: u64, w: &mut dyn Write, buf: &mut Vec<u8>) -> io::Result<()> {
        self.file.copy_to(at, len, w, buf)
    }
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
        assert!(!spill.file.is_made(), "no temporary file made");
    }
}
