//! Learning the type of entries that `d_type` leaves unknown (and, with
//! `-L`, where links lead), with as few stats as possible.

use std::os::fd::BorrowedFd;
use std::sync::atomic::Ordering;

use rustix::fs::StatxFlags;

use crate::file_type::FileType;
use crate::scan::{DirState, Kind, ResolveOptions, Unknown, Want};
use crate::{scan, sys};

use super::read::Batch;
use super::{Follow, Shared, Visitor};

impl<V: Visitor> Shared<'_, V> {
    /// Learns which entries of `batches` are directories (and, with `-L`,
    /// which symlinks lead to one), with as few stats as possible.
    /// `known_dirs`: the directory's subdirectories that `d_type` named.
    pub(super) fn classify(
        &self,
        dir: BorrowedFd<'_>,
        batches: &mut [Batch],
        read_started: i64,
        known_dirs: u64,
    ) {
        let counters = &self.stats.types;
        if self.opts.follow == Follow::Always {
            for b in batches.iter_mut() {
                for i in 0..b.entries.len() {
                    if !matches!(
                        b.entries[i].kind,
                        Kind::Unknown | Kind::NotDir(FileType::SYMLINK)
                    ) {
                        continue;
                    }
                    let name = b.name(&b.entries[i]);
                    counters.stats.fetch_add(1, Ordering::Relaxed);
                    let t = sys::statx_follow_at(dir, name, StatxFlags::TYPE)
                        .or_else(|_| sys::statx_at(dir, name, StatxFlags::TYPE))
                        .map_or(FileType::UNKNOWN, |s| {
                            FileType::from_mode(s.stx_mode as u32)
                        });
                    // A link to a directory is walked; the visit still
                    // sees a link.
                    b.entries[i].kind = if t.is_dir() {
                        Kind::Dir
                    } else {
                        Kind::from_type(t)
                    };
                }
            }
            return;
        }
        let before = self.settled_state(dir, read_started);
        let mut known_dirs = known_dirs;
        if let Some(before) = &before {
            // First the likely directories alone: when they hold every
            // subdirectory, nothing is built for the others.
            if let Some(found) = self.classify_likely(dir, batches, before, known_dirs) {
                known_dirs += found;
            } else {
                return;
            }
        }
        let mut at = Vec::new();
        let mut unknown: Vec<Unknown<'_>> = Vec::new();
        for (bi, b) in batches.iter().enumerate() {
            for (ei, e) in b.entries.iter().enumerate() {
                if e.kind == Kind::Unknown {
                    at.push((bi, ei));
                    unknown.push(Unknown {
                        name: b.name(e),
                        ino: e.ino,
                        kind: Kind::Unknown,
                    });
                }
            }
        }
        let opts = ResolveOptions {
            want: Want::DirOrNot,
            in_flight: self.opts.threads,
        };
        match before {
            Some(before) => {
                scan::resolve_unknown(dir, &before, known_dirs, &mut unknown, opts, counters)
            }
            None => {
                // The directory changed around the read: no link count.
                counters.fallbacks.fetch_add(1, Ordering::Relaxed);
                let opts = ResolveOptions {
                    want: Want::FullType,
                    ..opts
                };
                let any = DirState::unusable();
                scan::resolve_unknown(dir, &any, known_dirs, &mut unknown, opts, counters);
            }
        }
        let kinds: Vec<Kind> = unknown.iter().map(|u| u.kind).collect();
        drop(unknown);
        for ((bi, ei), k) in at.into_iter().zip(kinds) {
            batches[bi].entries[ei].kind = k;
        }
    }

    /// The first step of [`Shared::classify`] ([`scan::resolve_likely`]):
    /// stats the likely directories until the link count is reached.
    /// `None` if every entry is classified; else how many directories the
    /// likely ones held (the others are still unknown).
    fn classify_likely(
        &self,
        dir: BorrowedFd<'_>,
        batches: &mut [Batch],
        before: &DirState,
        known_dirs: u64,
    ) -> Option<u64> {
        let counters = &self.stats.types;
        let mut at = Vec::new();
        let mut likely: Vec<Unknown<'_>> = Vec::new();
        let mut total = 0;
        for (bi, b) in batches.iter().enumerate() {
            total += b.entries.len();
            for (ei, e) in b.entries.iter().enumerate() {
                let name = b.name(e);
                if scan::is_likely_dir_name(name.to_bytes()) {
                    at.push((bi, ei));
                    likely.push(Unknown {
                        name,
                        ino: e.ino,
                        kind: Kind::Unknown,
                    });
                }
            }
        }
        if likely.len() == total {
            // Nothing to spare: the full resolve does the same work.
            return Some(0);
        }
        let outcome = scan::resolve_likely(
            dir,
            before,
            known_dirs,
            &mut likely,
            self.opts.threads,
            counters,
        );
        let kinds: Vec<Kind> = likely.iter().map(|u| u.kind).collect();
        drop(likely);
        for (&(bi, ei), k) in at.iter().zip(kinds) {
            batches[bi].entries[ei].kind = k;
        }
        match outcome {
            scan::Likely::AllFound => {
                let mut others = 0;
                for e in batches.iter_mut().flat_map(|b| b.entries.iter_mut()) {
                    if e.kind == Kind::Unknown {
                        e.kind = Kind::NotDir(FileType::UNKNOWN);
                        others += 1;
                    }
                }
                counters.by_nlink.fetch_add(others, Ordering::Relaxed);
                None
            }
            scan::Likely::Partial { found } => Some(found),
        }
    }

    /// The directory's state after its read, if nothing changed in it
    /// since before the read started (its times are older), so that it can
    /// stand for the state before the read.
    fn settled_state(&self, dir: BorrowedFd<'_>, read_started: i64) -> Option<DirState> {
        let st = sys::fstat(dir).ok()?;
        let dev = st.st_dev as u64;
        let magic = {
            let cache = self.fs_magic.lock().expect("magic lock");
            cache.iter().find(|(d, _)| *d == dev).map(|&(_, m)| m)
        };
        let magic = match magic {
            Some(m) => m,
            None => {
                let m = sys::fs_magic(dir).ok()?;
                self.fs_magic.lock().expect("magic lock").push((dev, m));
                m
            }
        };
        let state = DirState::from_stat(&st, magic);
        state.settled_before(read_started).then_some(state)
    }
}
