//! A command's matches handed to a program as values rather than printed:
//! [`Command::for_each_match`] (a callback on the walk's threads) and
//! [`Command::matches`] (an iterator, the walk on threads of its own).
//!
//! A match is a visit whose evaluation ran an action that writes to
//! standard output (`-print`, `-print0`, `-printf`, `-ls`, or the
//! `-print` GNU adds to an expression without actions): the entries
//! `find ... -print0` would name, each once however many such actions
//! ran for it.  What those actions would have written is not written;
//! the other actions still act (`-fprint` writes its file, `-exec` runs,
//! `-delete` deletes), and an expression whose only actions are such
//! (`-exec cmd {} ;`) matches nothing.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use dents::walk::{self, Visitor, WalkOptions};
use dents::Flow;
use dents::StatFields;

use crate::eval::OnMatch;
use crate::found::{FoundEntry, Match, PathError};
use crate::{msg, Command, Destination, ExitStatus, Terminals, Walk};

/// Messages that may wait for the consumer of [`Matches`].
const QUEUED: usize = 8;
/// Matches a walker thread gathers before it sends them.
const BATCH: usize = 256;

/// What the walk of [`Command::matches`] hands the iterator.
enum Message {
    /// Matches, in the order one worker found them.
    Found(Vec<FoundEntry>),
    /// An error that names a path.
    Error(PathError),
}

/// The walks of a command whose matches are values: [`walk::walk`], a
/// stat the expression makes fetching all of `stat(2)`'s fields, so that
/// the metadata a match carries is whole.  No entry is stat'ed for that:
/// the mask only widens the stats the expression makes.
struct WideWalk;

impl Walk for WideWalk {
    fn walk<V: Visitor>(&mut self, roots: &[Vec<u8>], opts: &WalkOptions, visitor: &V) {
        let wide = opts.get_stat_fields().union(StatFields::BASIC);
        let opts = opts.clone().stat_fields(wide);
        walk::walk(roots, &opts, visitor);
    }
}

/// The matches of [`Command::for_each_match`]: each to the callback.
struct Callback<F>(F);

impl<F: Fn(Match<'_>) -> Flow + Sync> OnMatch for Callback<F> {
    fn matched(&self, m: Match<'_>, _batch: &mut Vec<FoundEntry>) -> Flow {
        (self.0)(m)
    }

    fn flush(&self, _batch: &mut Vec<FoundEntry>) {}
}

/// The matches of [`Command::matches`]: gathered per worker, sent down the
/// channel in batches.
struct Channel {
    tx: SyncSender<Message>,
    /// Set once the iterator has gone: the walk stops.
    stop: Arc<AtomicBool>,
}

impl OnMatch for Channel {
    fn matched(&self, m: Match<'_>, batch: &mut Vec<FoundEntry>) -> Flow {
        batch.push(m.to_owned());
        if batch.len() >= BATCH {
            self.flush(batch);
        }
        Flow::Continue
    }

    fn flush(&self, batch: &mut Vec<FoundEntry>) {
        if !batch.is_empty() && self.tx.send(Message::Found(std::mem::take(batch))).is_err() {
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

/// The sender of the errors of [`Command::matches`], shared with the
/// command's error handler and taken away when the walk's thread ends
/// (even by a panic), so that the channel closes then although a worker
/// thread may still hold the command's context.
type ErrorSender = Arc<Mutex<Option<SyncSender<Message>>>>;

/// Takes the error sender away when dropped.
struct CloseErrors(ErrorSender);

impl Drop for CloseErrors {
    fn drop(&mut self) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take();
    }
}

/// The output is no terminal: names raw, no colors unless asked.
fn terminals() -> Terminals {
    Terminals {
        stdout: false,
        ..Terminals::of_process()
    }
}

impl Command {
    /// Runs the command, calling `f` with each match (see below) on the
    /// walk's thread that visits it, at once: `f` may read the entry's
    /// metadata ([`Match::metadata`]), and returns how the walk goes on
    /// ([`Flow::Prune`] does not enter a directory, [`Flow::Quit`] stops
    /// the walk as `-quit` does).  Returns GNU find's exit status.  Errors
    /// go to standard error, or to [`Command::on_path_error`]'s handler.
    /// A panic in `f` ends the walk and is raised again here.
    ///
    /// A match is an entry for which an action that writes to standard
    /// output ran (`-print`, `-print0`, `-printf`, `-ls`, or the implicit
    /// `-print` of an expression without actions): the entries `find ...
    /// -print0` would name, each visit once however many of those ran.
    /// Their output is not written; other actions (`-fprint`, `-exec`,
    /// `-delete`) act as usual, and an expression whose only actions are
    /// such matches nothing.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("a.log"), b"12345")?;
    /// std::fs::write(dir.path().join("b.log"), b"678")?;
    /// std::fs::write(dir.path().join("c.txt"), b"x")?;
    ///
    /// // -size stats each .log: its metadata comes with the match.
    /// let command = dents_find::Command::parse([dir.path().as_os_str(), "-name".as_ref(),
    ///     "*.log".as_ref(), "-size".as_ref(), "-2k".as_ref()])?;
    /// let bytes = AtomicU64::new(0);
    /// let status = command.for_each_match(|m| {
    ///     let size = m.cached_metadata().expect("-size stat'ed it").len();
    ///     bytes.fetch_add(size, Ordering::Relaxed);
    ///     dents::Flow::Continue
    /// });
    /// assert_eq!(bytes.into_inner(), 8);
    /// assert!(status.success());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn for_each_match<F>(self, f: F) -> ExitStatus
    where
        F: Fn(Match<'_>) -> Flow + Sync,
    {
        let callback = Callback(f);
        self.run_on(
            Destination::Matches(&callback),
            terminals(),
            &mut WideWalk,
            None,
        )
    }

    /// Runs the command on threads of its own and hands its matches over
    /// as an iterator (a match is what [`Command::for_each_match`] says),
    /// as the walk finds them (in no set order, as `dents find` prints
    /// them), with each error that names a path as an `Err` item in place
    /// of its message on standard error (unless a handler of
    /// [`Command::on_path_error`] takes it).  [`Matches::status`] gives
    /// GNU find's exit status once the iterator has ended.
    ///
    /// At most a few batches of matches wait for the caller: a slow
    /// caller holds the walk back rather than filling memory.  Dropping
    /// the iterator stops the walk (and waits for its threads).  A panic
    /// of the walk is raised again by the iterator's `next`.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// std::fs::create_dir(dir.path().join("src"))?;
    /// std::fs::write(dir.path().join("src/lib.rs"), b"")?;
    /// std::fs::write(dir.path().join("src/notes.txt"), b"")?;
    ///
    /// let missing = dir.path().join("missing");
    /// let command = dents_find::Command::parse([dir.path(), missing.as_path(),
    ///     "-name".as_ref(), "*.rs".as_ref()].map(|p| p.as_os_str()))?;
    /// let mut matches = command.matches();
    /// let (mut found, mut errors) = (Vec::new(), Vec::new());
    /// for item in matches.by_ref() {
    ///     match item {
    ///         Ok(entry) => found.push((entry.name().to_vec(), entry.file_type())),
    ///         Err(e) => errors.push((e.path().to_vec(), e.io_error().kind())),
    ///     }
    /// }
    /// assert_eq!(found, [(b"lib.rs".to_vec(), dents::FileType::REGULAR)]);
    /// let missing = missing.into_os_string().into_encoded_bytes();
    /// assert_eq!(errors, [(missing, std::io::ErrorKind::NotFound)]);
    /// // GNU find's status: 1, a starting point was missing.
    /// assert_eq!(matches.status().map(|s| s.code()), Some(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn matches(self) -> Matches {
        let (tx, rx) = mpsc::sync_channel(QUEUED);
        let stop = Arc::new(AtomicBool::new(false));
        let errors: ErrorSender = Arc::new(Mutex::new(Some(tx.clone())));
        let handler_errors = Arc::clone(&errors);
        let command = self.on_path_error(move |path, e| {
            let line = msg::path_error_line(path, e);
            let tx = handler_errors
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            if let Some(tx) = tx {
                // A closed iterator: nobody to tell.
                let _ = tx.send(Message::Error(PathError::new(path, e, line)));
            }
        });
        let channel = Channel {
            tx,
            stop: Arc::clone(&stop),
        };
        let flag = Arc::clone(&stop);
        let spawned = std::thread::Builder::new()
            .name("dents-find".into())
            .spawn(move || {
                let _close = CloseErrors(errors);
                command.run_on(
                    Destination::Matches(&channel),
                    terminals(),
                    &mut WideWalk,
                    Some(&flag),
                )
            });
        let (walk, status) = match spawned {
            Ok(h) => (Some(h), None),
            // No thread to walk on: nothing found, a failure.
            Err(e) => {
                let mut line = b"dents: ".to_vec();
                line.extend_from_slice(e.to_string().as_bytes());
                line.push(b'\n');
                dents_tools::errors::write_stderr(&line);
                (None, Some(ExitStatus(msg::FAILURE)))
            }
        };
        Matches {
            rx: walk.is_some().then_some(rx),
            ready: VecDeque::new(),
            walk,
            stop,
            status,
        }
    }
}

/// The iterator of [`Command::matches`]: each match as a [`FoundEntry`],
/// each error that names a path as a [`PathError`].
#[derive(Debug)]
pub struct Matches {
    /// The walk's messages; `None` once it ended or was stopped.
    rx: Option<Receiver<Message>>,
    /// Matches received, not yet handed out.
    ready: VecDeque<FoundEntry>,
    /// The walk's thread, giving the exit status.
    walk: Option<JoinHandle<ExitStatus>>,
    /// Set to stop the walk.
    stop: Arc<AtomicBool>,
    /// GNU find's exit status, once the walk is over.
    status: Option<ExitStatus>,
}

/// [`Matches::next_timeout`] waited its time and nothing came.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedOut;

impl Matches {
    /// GNU find's exit status (0, or 1 after a problem), once the
    /// iterator has ended or [`Matches::stop`] was called; `None` before.
    pub fn status(&self) -> Option<ExitStatus> {
        self.status
    }

    /// [`Iterator::next`], waiting at most `timeout` for the walk:
    /// `Err(TimedOut)` if nothing came by then (what a caller that must
    /// also hear of signals, a Python binding, waits with).
    pub fn next_timeout(
        &mut self,
        timeout: Duration,
    ) -> Result<Option<Result<FoundEntry, PathError>>, TimedOut> {
        loop {
            if let Some(found) = self.ready.pop_front() {
                return Ok(Some(Ok(found)));
            }
            let Some(rx) = &self.rx else {
                return Ok(None);
            };
            match rx.recv_timeout(timeout) {
                Ok(m) => {
                    if let Some(e) = self.take(m) {
                        return Ok(Some(Err(e)));
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(TimedOut),
                Err(RecvTimeoutError::Disconnected) => {
                    self.end();
                    return Ok(None);
                }
            }
        }
    }

    /// Stops the walk (if still running) and waits for its threads;
    /// returns the exit status of what ran (stopping is no problem).  A
    /// panic of the walk is raised again here.
    pub fn stop(&mut self) -> ExitStatus {
        self.stop.store(true, Ordering::Relaxed);
        // Closing the channel wakes the workers waiting to send.
        self.rx = None;
        self.ready.clear();
        self.end();
        self.status.unwrap_or(ExitStatus(msg::FAILURE))
    }

    /// Keeps the matches of `m`; an error is handed back.
    fn take(&mut self, m: Message) -> Option<PathError> {
        match m {
            Message::Found(batch) => {
                self.ready.extend(batch);
                None
            }
            Message::Error(e) => Some(e),
        }
    }

    /// The walk is over: waits for its thread and keeps its status.
    fn end(&mut self) {
        self.rx = None;
        if let Some(h) = self.walk.take() {
            match h.join() {
                Ok(status) => self.status = Some(status),
                Err(payload) => {
                    self.status = Some(ExitStatus(msg::FAILURE));
                    std::panic::resume_unwind(payload)
                }
            }
        }
    }
}

impl Iterator for Matches {
    type Item = Result<FoundEntry, PathError>;

    fn next(&mut self) -> Option<Result<FoundEntry, PathError>> {
        loop {
            if let Some(found) = self.ready.pop_front() {
                return Some(Ok(found));
            }
            let received = self.rx.as_ref()?.recv();
            match received {
                Ok(m) => {
                    if let Some(e) = self.take(m) {
                        return Some(Err(e));
                    }
                }
                Err(_) => {
                    // Every sender is gone: the walk is over.
                    self.end();
                    return None;
                }
            }
        }
    }
}

impl Drop for Matches {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.rx = None;
        if let Some(h) = self.walk.take() {
            // A panic of the walk has nowhere to go while dropping.
            let _ = h.join();
        }
    }
}
