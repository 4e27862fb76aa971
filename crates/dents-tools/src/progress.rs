//! The status line: a one-line progress report on standard error while a
//! walk runs (entries, directories, rate, the directory being read), drawn
//! with indicatif.
//!
//! The walk pays almost nothing for it: each worker counts in its own
//! [`Tally`] and adds to the shared relaxed atomics once per
//! [`TALLY_FLUSH`] entries or once per tick, whichever comes first; the
//! path shown is copied only when the ticker asks for one.  Per entry,
//! that is a local count; every 64th also reads two words the ticker
//! writes ten times a second.  A ticker thread
//! redraws at most [`HZ`] times a second.
//!
//! Nothing else may draw over it: every other write to the terminal
//! (output, messages, commands run by `-exec`) goes through
//! [`suspended`], which clears the line, writes, and draws it again.  It
//! is erased at the end, and by a fatal signal (`SIGINT`, `SIGPIPE`...)
//! before the process dies of it ([`dents_os::clear_line_on_fatal_signals`]).
//! Standard output never carries any of it.
//!
//! Without the crate's `progress` feature (on by default; dents-find's
//! own `progress` feature turns it on) nothing is ever drawn and indicatif
//! is not built: the counters still count, [`Progress::run`] only waits
//! for [`Progress::stop`], and [`suspended`] just runs its closure.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;
#[cfg(feature = "progress")]
use std::time::Instant;

#[cfg(feature = "progress")]
use indicatif::{HumanBytes, HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Redraws per second, at most.
pub const HZ: u8 = 10;

/// Entries a worker counts before adding them to the shared counters.
pub const TALLY_FLUSH: u64 = 1024;

/// The bar being shown, if any: what [`suspended`] clears around writes.
#[cfg(feature = "progress")]
static SHOWN: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Whether a status line is on the screen now (read by the signal
/// handler, which may not lock).  Set under [`GATE`], or under the bar's
/// own lock while [`suspended`] has it off the screen.
static DRAWN: AtomicBool = AtomicBool::new(false);

/// Whether a status line may appear in this run at all: if not,
/// [`suspended`] costs one relaxed load.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Held by a write (or command) while no line is drawn, and by the
/// ticker while it draws the first: so the line never appears in the
/// middle of a write that did not clear it.
static GATE: Mutex<()> = Mutex::new(());

thread_local! {
    /// This thread is inside [`suspended`] already (a command run by
    /// `-exec` flushing output, say): no second clear, and no deadlock
    /// on the bar's lock.
    static INSIDE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` (a write to the terminal, a command) with the status line
/// taken off the screen, and puts it back after.  Without a status line,
/// just runs `f`.
pub fn suspended<R>(f: impl FnOnce() -> R) -> R {
    if !ENABLED.load(Ordering::Relaxed) || INSIDE.with(|c| c.get()) {
        return f();
    }
    INSIDE.with(|c| c.set(true));
    let gate = GATE.lock().unwrap_or_else(|e| e.into_inner());
    let r = if DRAWN.load(Ordering::Relaxed) {
        drop(gate);
        off_screen(f)
    } else {
        // Not drawn, and it cannot be while the gate is held.
        let r = f();
        drop(gate);
        r
    };
    INSIDE.with(|c| c.set(false));
    r
}

/// Runs `f` with the line, drawn now, off the screen.
#[cfg(feature = "progress")]
fn off_screen<R>(f: impl FnOnce() -> R) -> R {
    let bar = SHOWN.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match bar {
        // Off the screen while `f` runs (an `-ok` prompt may wait for
        // an answer): a fatal signal meanwhile must not erase what `f`
        // wrote in its place.  The bar's own lock, held by `suspend`,
        // keeps the ticker from drawing or finishing it meanwhile.
        Some(bar) => bar.suspend(|| {
            DRAWN.store(false, Ordering::Relaxed);
            let r = f();
            DRAWN.store(true, Ordering::Relaxed);
            r
        }),
        None => f(),
    }
}

/// Runs `f`: without the `progress` feature no line is ever drawn.
#[cfg(not(feature = "progress"))]
fn off_screen<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// When the status line appears.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum When {
    /// At once (`-status`).
    Now,
    /// Once the walk has run this long (the default on a terminal).
    After(Duration),
}

/// A worker's own counts, added to the shared ones now and then.
#[derive(Debug, Default)]
pub struct Tally {
    entries: u64,
    dirs: u64,
    bytes: u64,
    /// The ticker's tick when this worker last added its counts.
    tick: u64,
}

/// The shared counters and the ticker's state.
#[derive(Debug)]
pub struct Progress {
    entries: AtomicU64,
    dirs: AtomicU64,
    /// Bytes summed so far (du), shown when `with_bytes`.
    bytes: AtomicU64,
    with_bytes: bool,
    /// The ticker wants a fresh path: the next entry seen leaves its own.
    want_path: AtomicBool,
    /// Ticks so far: a worker that has not added its counts since the
    /// last one does it at its next entry (slow walks stay up to date).
    ticks: AtomicU64,
    path: Mutex<Vec<u8>>,
    /// Set at the end, with `wake`, to stop the ticker.
    done: Mutex<bool>,
    wake: Condvar,
    /// The first line is drawn (or will never be): [`Progress::wait_shown`].
    shown: Mutex<bool>,
    shown_cv: Condvar,
    when: When,
    /// The locale is UTF-8 (how paths are shown).
    #[cfg_attr(not(feature = "progress"), allow(dead_code))]
    utf8: bool,
}

impl Progress {
    /// Counters for a walk whose status line appears `when` said;
    /// `utf8`: the locale's character set, for showing paths.
    pub fn new(when: When, utf8: bool) -> Progress {
        // Without the feature nothing is drawn: writes need no care.
        #[cfg(feature = "progress")]
        ENABLED.store(true, Ordering::Relaxed);
        Progress {
            entries: AtomicU64::new(0),
            dirs: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            with_bytes: false,
            want_path: AtomicBool::new(true),
            ticks: AtomicU64::new(0),
            path: Mutex::new(Vec::new()),
            done: Mutex::new(false),
            wake: Condvar::new(),
            shown: Mutex::new(false),
            shown_cv: Condvar::new(),
            when,
            utf8,
        }
    }

    /// Shows the bytes counted with [`Progress::counted`] too (du's
    /// "bytes so far").
    pub fn with_bytes(mut self) -> Progress {
        self.with_bytes = true;
        self
    }

    /// Counts `size` bytes summed by a worker (added to the shared count
    /// with the entries).
    #[inline]
    pub fn counted(&self, t: &mut Tally, size: u64) {
        t.bytes += size;
    }

    /// Counts one entry (`path`, a directory if `is_dir`) seen by a worker.
    #[inline]
    pub fn saw(&self, t: &mut Tally, path: &[u8], is_dir: bool) {
        t.entries += 1;
        t.dirs += is_dir as u64;
        // The shared words are looked at once every 64 entries only.
        if t.entries % 64 != 0 {
            return;
        }
        if t.entries >= TALLY_FLUSH || t.tick != self.ticks.load(Ordering::Relaxed) {
            self.flush(t);
        }
        if self.want_path.load(Ordering::Relaxed) && self.want_path.swap(false, Ordering::Relaxed) {
            let mut p = self.path.lock().unwrap_or_else(|e| e.into_inner());
            p.clear();
            p.extend_from_slice(path);
        }
    }

    /// Adds a worker's counts to the shared ones.
    pub fn flush(&self, t: &mut Tally) {
        self.entries.fetch_add(t.entries, Ordering::Relaxed);
        self.dirs.fetch_add(t.dirs, Ordering::Relaxed);
        self.bytes.fetch_add(t.bytes, Ordering::Relaxed);
        *t = Tally {
            tick: self.ticks.load(Ordering::Relaxed),
            ..Tally::default()
        };
    }

    /// The ticker, without the `progress` feature: draws nothing, waits
    /// for [`Progress::stop`].  Runs on its own thread.
    #[cfg(not(feature = "progress"))]
    pub fn run(&self) {
        self.set_shown();
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*done {
            done = self.wake.wait(done).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The ticker: draws the status line (after the delay, if any) until
    /// [`Progress::stop`], then erases it.  Runs on its own thread.
    #[cfg(feature = "progress")]
    pub fn run(&self) {
        let start = Instant::now();
        let tick = Duration::from_millis(1000 / HZ as u64);
        let mut bar: Option<ProgressBar> = None;
        // The rate over the last second or so, from a few samples.
        let mut samples: std::collections::VecDeque<(Instant, u64)> = Default::default();
        loop {
            let wait = if bar.is_none() && self.when == When::Now {
                Duration::ZERO
            } else {
                tick
            };
            {
                let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
                if !*done && !wait.is_zero() {
                    done = self
                        .wake
                        .wait_timeout(done, wait)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
                if *done {
                    break;
                }
            }
            let first = bar.is_none();
            if let When::After(d) = self.when {
                if start.elapsed() < d {
                    continue;
                }
            }
            let gate = first.then(|| GATE.lock().unwrap_or_else(|e| e.into_inner()));
            let b = bar.get_or_insert_with(show);
            let now = Instant::now();
            let entries = self.entries.load(Ordering::Relaxed);
            samples.push_back((now, entries));
            while samples.len() > 2 && now - samples[0].0 > Duration::from_secs(1) {
                samples.pop_front();
            }
            // The rate over the last second (over the whole walk at first);
            // none yet in the first fifth of a second.
            let (t0, n0) = samples.front().copied().unwrap_or((start, 0));
            let (t0, n0) = if now - t0 >= Duration::from_millis(200) {
                (t0, n0)
            } else {
                (start, 0)
            };
            let span = (now - t0).as_secs_f64();
            let rate = if span >= 0.2 {
                format!(", {}/s", HumanCount(((entries - n0) as f64 / span) as u64))
            } else {
                String::new()
            };
            let path = {
                let p = self.path.lock().unwrap_or_else(|e| e.into_inner());
                printable(&p, self.utf8)
            };
            self.want_path.store(true, Ordering::Relaxed);
            self.ticks.fetch_add(1, Ordering::Relaxed);
            // One update, one draw (under the bar's lock, so never between
            // a suspended write's clear and its redraw).
            let bytes = if self.with_bytes {
                format!(", {}", HumanBytes(self.bytes.load(Ordering::Relaxed)))
            } else {
                String::new()
            };
            b.set_message(format!(
                "{} entries, {} dirs{bytes}{rate}  {path}",
                HumanCount(entries),
                HumanCount(self.dirs.load(Ordering::Relaxed)),
            ));
            if first {
                b.force_draw();
                drop(gate);
                self.set_shown();
            }
        }
        self.set_shown();
        if let Some(b) = bar {
            let mut shown = SHOWN.lock().unwrap_or_else(|e| e.into_inner());
            // After the clear, which waits for a suspended write (that
            // sets DRAWN again when it is done) to end.
            b.finish_and_clear();
            DRAWN.store(false, Ordering::Relaxed);
            *shown = None;
        }
    }

    /// With [`When::Now`], waits until the ticker has drawn its first
    /// line, so that even a walk shorter than a tick shows one (as
    /// `bfs -status` does).
    pub fn wait_shown(&self) {
        if self.when != When::Now {
            return;
        }
        let mut shown = self.shown.lock().unwrap_or_else(|e| e.into_inner());
        while !*shown {
            shown = self.shown_cv.wait(shown).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn set_shown(&self) {
        *self.shown.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.shown_cv.notify_all();
    }

    /// Stops the ticker (which erases the line).
    pub fn stop(&self) {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.wake.notify_all();
    }
}

/// Makes the bar and registers it for [`suspended`] and the signal
/// handler.
#[cfg(feature = "progress")]
fn show() -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(HZ));
    let style = ProgressStyle::with_template("{wide_msg}").expect("a valid template");
    bar.set_style(style);
    *SHOWN.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
    dents_os::clear_line_on_fatal_signals(&DRAWN);
    // From now on every write to the terminal goes around the line.
    DRAWN.store(true, Ordering::Relaxed);
    bar
}

/// A path as the status line shows it: control characters (and bytes
/// that are no character, in a UTF-8 locale) as `?`, so that no name can
/// move the cursor or change the terminal's state.
#[cfg_attr(not(feature = "progress"), allow(dead_code))]
fn printable(path: &[u8], utf8: bool) -> String {
    let mut s = String::with_capacity(path.len());
    if utf8 {
        for chunk in path.utf8_chunks() {
            s.extend(
                chunk
                    .valid()
                    .chars()
                    .map(|c| if c.is_control() { '?' } else { c }),
            );
            if !chunk.invalid().is_empty() {
                s.push('?');
            }
        }
    } else {
        s.extend(path.iter().map(|&b| {
            if (0x20..0x7f).contains(&b) {
                b as char
            } else {
                '?'
            }
        }));
    }
    s
}

/// Writes `bytes` to stderr in one call, ignoring failure (nowhere to say
/// it): off the status line's row, or the two would garble each other.
pub fn write_stderr(bytes: &[u8]) {
    use std::io::Write;
    suspended(|| {
        let _ = std::io::stderr().lock().write_all(bytes);
    });
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn paths_cannot_drive_the_terminal() {
        assert_eq!(printable(b"a\x1b[2Jb\n", true), "a?[2Jb?");
        assert_eq!(printable(b"caf\xc3\xa9\xff", true), "caf\u{e9}?");
        assert_eq!(printable(b"caf\xc3\xa9", false), "caf??");
    }
}
