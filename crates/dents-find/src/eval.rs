//! Evaluation: the expression applied to each entry the walker visits.
//!
//! The [`Finder`] is the walker's visitor.  Each worker thread has its
//! own output buffer; tests read what the directory entry already says
//! (name, `d_type`) and stat only when they need more, through the
//! visit's lazy, cached `metadata()`, whose fields were chosen by the
//! optimiser.  A failed stat is reported once per file, as GNU does.
//!
//! When the expression runs commands or can `-quit`, evaluation is
//! serialised by a lock: commands run one at a time as with GNU find, and
//! after `-quit` no other file is evaluated.

use std::ffi::CStr;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use dents::dir::DirReader;
use dents::walk::{Visit, Visitor};
use dents::FileType;
use dents::Flow;
use dents::Metadata;
use dents::StatFields;
use dents::{Error, ErrorKind};
use rustix::fs::{Access, AtFlags};

use super::cache::Cache;
use super::color::{qmarks, Colors};
use super::ctx::{self, Ctx as CommandCtx};
use super::debug;
use super::expr::{AccessKind, Expr, NameOf, PermKind, Pred};
use super::found::{FoundEntry, Match};
use super::outfiles::{Dest, OutFile};
use super::printf::Subject;
use super::regex;
use super::time::{self, TimeField, Timestamp};
use super::{msg, names};
use crate::output::{Output, ThreadBuf};
use crate::progress::{Progress, Tally};

/// The visitor of `dents find`: each entry of a walk through the
/// expression (made by [`Search::evaluator`](crate::Search::evaluator)).
pub struct Finder<'a> {
    expr: &'a Expr,
    /// The command's context: each worker adopts it (messages, status,
    /// `-ls` widths, `-D` flags are the command's).
    ctx: &'a Arc<CommandCtx>,
    out: &'a Output,
    /// Held while evaluating, if evaluation is serialised.
    serial: Option<Mutex<()>>,
    /// Set by `-quit`.
    quit: AtomicBool,
    /// `-depth`: `-prune` does nothing.
    post_order: bool,
    /// `-ignore_readdir_race`: vanished files are not errors.
    ignore_race: bool,
    /// The starting points of the walk under way: a missing one is an
    /// error even with `-ignore_readdir_race`, as GNU's.
    roots: Mutex<Vec<Vec<u8>>>,
    /// A message was written about the last starting point itself.
    last_root_failed: AtomicBool,
    /// Standard output is a terminal: `Some(utf8 locale)`.
    terminal: Option<bool>,
    /// The output files (`-fprint` and kin), by number.
    outs: Vec<Option<&'a OutFile>>,
    /// Colors for `-print`, if on.
    colors: Option<&'a Colors>,
    /// The status line's counters, if it may be shown.
    progress: Option<&'a Progress>,
    /// `-exclude` (and `-nohidden`): what is left out of the walk.
    exclude: Option<&'a Expr>,
    /// Sorted walks: every entry is stat'ed ahead of its visit
    /// ([`Finder::stating_ahead`]).
    stats_ahead: bool,
    /// Set from outside when the caller's reader has gone: stop as
    /// `-quit` stops.
    stop: Option<&'a AtomicBool>,
    /// Where the matches go when a program takes them as values.
    on_match: Option<&'a dyn OnMatch>,
}

/// What a command that hands its matches to a program does with each
/// (`Command::matches`, `Command::for_each_match`).  A match is a visit
/// whose evaluation ran an action that writes to standard output
/// (`-print`, `-print0`, `-printf`, `-ls`, the implicit `-print`).
pub(crate) trait OnMatch: Sync {
    /// Takes a match, on the thread that visits it (`batch`: that
    /// worker's matches not yet handed on); says how the walk goes on.
    fn matched(&self, m: Match<'_>, batch: &mut Vec<FoundEntry>) -> Flow;
    /// Hands on the matches gathered: at the end of a worker's turn, so
    /// that none waits for the walk's end.
    fn flush(&self, batch: &mut Vec<FoundEntry>);
}

/// A worker's state: its output buffers and caches.
pub struct State<'a> {
    buf: ThreadBuf<'a>,
    /// Buffers for the output files, by number.
    outs: Vec<Option<ThreadBuf<'a>>>,
    /// Names, times and filesystem types for `-printf` and `-ls`.
    cache: Cache,
    /// Entries counted for the status line, not yet added to its total.
    tally: Tally,
    /// The last parent directory probed and whether it can be searched.
    searchable: Option<(Vec<u8>, bool)>,
    /// Matches not yet handed to the program ([`OnMatch`]).
    found: Vec<FoundEntry>,
}

impl<'a> Finder<'a> {
    /// A visitor evaluating `expr`, printing to `out`.
    pub(crate) fn new(
        expr: &'a Expr,
        out: &'a Output,
        serial: bool,
        post_order: bool,
        ignore_race: bool,
        ctx: &'a Arc<CommandCtx>,
    ) -> Finder<'a> {
        Finder {
            expr,
            ctx,
            out,
            serial: serial.then(|| Mutex::new(())),
            quit: AtomicBool::new(false),
            post_order,
            ignore_race,
            roots: Mutex::new(Vec::new()),
            last_root_failed: AtomicBool::new(false),
            terminal: dents_os::is_terminal(std::io::stdout().as_fd()).then(msg::utf8_locale),
            outs: output_files(expr),
            stats_ahead: false,
            colors: None,
            progress: None,
            exclude: None,
            stop: None,
            on_match: None,
        }
    }

    /// Has a sorted walk stat every entry ahead of its visit, on its
    /// workers (`yes`: the expression stats every entry anyway and runs
    /// nothing that changes the files, as `opt::stats_every_entry` says).
    pub(crate) fn stating_ahead(mut self, yes: bool) -> Finder<'a> {
        self.stats_ahead = yes;
        self
    }

    /// Hands each match to `on_match` rather than printing it.
    pub(crate) fn recording(mut self, on_match: &'a dyn OnMatch) -> Finder<'a> {
        self.on_match = Some(on_match);
        self
    }

    /// Stops the walk, as `-quit` does, once `stop` is set.
    pub fn stopped_by(mut self, stop: &'a AtomicBool) -> Finder<'a> {
        self.stop = Some(stop);
        self
    }

    /// Colors `-print` with `colors`, counts entries for the status line
    /// in `progress`, and leaves out of the walk what `exclude` matches.
    pub(crate) fn with_ux(
        mut self,
        colors: Option<&'a Colors>,
        progress: Option<&'a Progress>,
        exclude: Option<&'a Expr>,
    ) -> Finder<'a> {
        self.colors = colors;
        self.progress = progress;
        self.exclude = exclude;
        self
    }

    /// Names written raw, never with `?` for unprintable characters
    /// (the output is a caller's, not a terminal).
    pub(crate) fn raw_names(mut self) -> Finder<'a> {
        self.terminal = None;
        self
    }

    /// Runs the commands of `-exec ... +` still waiting for paths.
    pub(crate) fn finish_commands(&self) {
        let mut buf = ThreadBuf::new(self.out);
        self.expr.each(&mut |p| {
            if let Pred::Exec(x) = p {
                x.finish(&mut buf);
            }
        });
    }

    /// Whether `-quit` has run (no later walk may start).
    pub fn quit_requested(&self) -> bool {
        self.quit.load(Ordering::Relaxed)
            || self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
            || self.ctx.is_fatal()
    }

    /// Tells the starting points of the walk about to run.
    pub fn set_roots(&self, roots: &[Vec<u8>]) {
        *self.roots.lock().unwrap_or_else(|e| e.into_inner()) = roots.to_vec();
    }

    /// Whether an error for a file below a starting point that vanished is
    /// to be kept quiet.
    fn quiet(&self, e: &std::io::Error) -> bool {
        self.ignore_race && e.raw_os_error() == Some(rustix::io::Errno::NOENT.raw_os_error())
    }

    /// Whether `v` is in a directory that cannot be searched, where every
    /// stat fails: GNU's walk stats directories and entries whose type
    /// the directory entry does not give, and fails.  The parent's search
    /// permission is probed once per directory and thread.
    fn in_unsearchable(&self, st: &mut State<'a>, v: &Visit<'_>) -> bool {
        if v.depth() == 0 || v.follows_links() {
            return false;
        }
        let path = v.path();
        let parent = &path[..path.len() - v.name().len()];
        if let Some((p, ok)) = &st.searchable {
            if p.as_slice() == parent {
                return !ok;
            }
        }
        let ok =
            rustix::fs::accessat(v.parent_fd(), c".", Access::EXEC_OK, AtFlags::EACCESS).is_ok();
        st.searchable = Some((parent.to_vec(), ok));
        !ok
    }

    /// Whether the last message was about the last starting point.
    pub fn last_root_failed(&self) -> bool {
        self.last_root_failed.load(Ordering::Relaxed)
    }

    /// Whether `path` is a starting point of the walk under way.
    fn is_root(&self, path: &[u8]) -> bool {
        let roots = self.roots.lock().unwrap_or_else(|e| e.into_inner());
        roots.iter().any(|r| r.as_slice() == path)
    }
}

impl<'a> Visitor for Finder<'a> {
    type State = State<'a>;

    fn state(&self) -> State<'a> {
        // Whatever thread the walk makes this state on works for this
        // command from now on.
        ctx::adopt(self.ctx);
        State {
            buf: ThreadBuf::new(self.out),
            outs: self
                .outs
                .iter()
                .map(|f| f.map(|f| ThreadBuf::new(&f.output)))
                .collect(),
            cache: Cache::default(),
            tally: Tally::default(),
            searchable: None,
            found: Vec::new(),
        }
    }

    fn stat_ahead(&self, _known: Option<FileType>) -> bool {
        self.stats_ahead
    }

    fn excluded(&self, st: &mut State<'a>, v: &Visit<'_>) -> bool {
        let Some(x) = self.exclude else {
            return false;
        };
        eval(x, &mut Ctx::new(v, self, st))
    }

    fn visit(&self, st: &mut State<'a>, v: &Visit<'_>) -> Flow {
        let _serial = self
            .serial
            .as_ref()
            .map(|m| m.lock().unwrap_or_else(|e| e.into_inner()));
        if self.quit_requested() {
            return Flow::Quit;
        }
        if let Some(p) = self.progress {
            // The directory being read (the path itself, for a root).
            let path = v.path();
            let dir = &path[..path.len() - if v.depth() > 0 { v.name().len() } else { 0 }];
            let is_dir = v.known_type() == Some(FileType::DIRECTORY);
            p.saw(&mut st.tally, dir, is_dir);
        }
        // Following links, a link whose target cannot be reached (a loop
        // of links, say) is reported and not evaluated, as GNU does; a
        // broken one is taken for itself, and reported too where a file
        // stands for a directory on the way to its target (`ENOTDIR`:
        // GNU's walk cannot stat it, its fallback can).
        if v.follows_links() {
            match v.file_type() {
                FileType::UNKNOWN => {
                    if let Err(e) = v.metadata() {
                        if v.depth() == 0 || !self.quiet(&e) {
                            msg::path_error(v.path(), &e);
                        }
                        return Flow::Continue;
                    }
                }
                FileType::SYMLINK => {
                    let (dir, name) = (v.parent_fd(), v.at_name());
                    if let Err(e) = dents::fs::stat_follow_at(dir, name, StatFields::TYPE) {
                        let notdir = rustix::io::Errno::NOTDIR.raw_os_error();
                        if e.raw_os_error() == Some(notdir) {
                            msg::path_error(v.path(), &e);
                        }
                    }
                }
                _ => {}
            }
        }
        if debug::on(debug::SEARCH) {
            let mut m = self.ctx.program().to_vec();
            m.extend_from_slice(b": visiting ");
            msg::quote(&mut m, v.path(), msg::utf8_locale());
            m.extend_from_slice(
                format!(
                    ": depth={} type={:?} post_order={}",
                    v.depth(),
                    v.file_type(),
                    v.is_post_order()
                )
                .as_bytes(),
            );
            debug::say(&m);
        }
        // The search permission is probed (a system call per directory)
        // only for an entry that GNU's walk stats anyway, or for a test
        // that needs it (`Ctx::in_unsearchable`): not for a directory
        // none of whose entries needs it.
        let stats_anyway = matches!(v.known_type(), None | Some(FileType::DIRECTORY));
        let unstatable = stats_anyway && self.in_unsearchable(st, v);
        let mut cx = Ctx::new(v, self, st);
        if stats_anyway {
            cx.in_unsearchable = Some(unstatable);
        }
        if unstatable {
            // GNU's walk stats this entry, fails, says so, and evaluates
            // it knowing nothing (every test that needs a stat or the
            // type is false); a directory is not entered (its failed
            // open would be a second message).  After the walk's own
            // message (post-order), the failure is not repeated.
            cx.stat_reported = v.is_post_order();
            cx.type_unknown = true;
            if cx.meta().is_some() {
                cx.type_unknown = false;
            }
        }
        eval(self.expr, &mut cx);
        let (prune, quit, printed) = (cx.prune || cx.type_unknown, cx.quit, cx.printed);
        let mut program_flow = Flow::Continue;
        if let Some(r) = self.on_match {
            // The match replaces what was printed.
            st.buf.buf.clear();
            if printed {
                program_flow = r.matched(Match::new(v), &mut st.found);
            }
        }
        st.buf.maybe_flush();
        for b in st.outs.iter_mut().flatten() {
            b.maybe_flush();
        }
        if quit || matches!(program_flow, Flow::Quit) {
            // As `-quit`: no later starting point is walked either.
            self.quit.store(true, Ordering::Relaxed);
            return Flow::Quit;
        }
        if matches!(program_flow, Flow::Prune) && !v.is_post_order() {
            return Flow::Prune;
        }
        if prune && (!self.post_order || unstatable) {
            Flow::Prune
        } else {
            Flow::Continue
        }
    }

    fn error(&self, _st: &mut State<'a>, e: Error) {
        let path = e.path_bytes();
        match e.kind() {
            // find words a directory read part way (`Operation::ReadCut`)
            // as one never read.
            ErrorKind::Io(err) => {
                if !self.quiet(err) || self.is_root(path) {
                    msg::path_error(path, err);
                    let roots = self.roots.lock().unwrap_or_else(|e| e.into_inner());
                    if roots.last().is_some_and(|r| *r == path) {
                        self.last_root_failed.store(true, Ordering::Relaxed);
                    }
                }
            }
            ErrorKind::Loop { ancestor } => report_loop(path, ancestor),
        }
    }

    fn turn_done(&self, st: &mut State<'a>) {
        // Every buffer, the output files' too: another worker may write
        // the next turn's lines to the same file.
        for b in std::iter::once(&mut st.buf).chain(st.outs.iter_mut().flatten()) {
            if !b.buf.is_empty() {
                b.flush();
            }
        }
        if let Some(r) = self.on_match {
            r.flush(&mut st.found);
        }
    }

    fn handoff(&self, st: &mut State<'a>) {
        // Under -depth the walker hands off before counting a directory's
        // work done, after which the directory (or an ancestor) may be
        // visited and printed on another worker: this worker's lines from
        // below it must be out first, or a directory is printed before
        // some of its contents (GNU's -depth promise).  Without -depth
        // nothing printed here is owed to another worker's line.
        if self.post_order {
            self.turn_done(st);
        }
    }

    fn finish(&self, mut st: State<'a>) {
        if let Some(p) = self.progress {
            p.flush(&mut st.tally);
        }
        if let Some(r) = self.on_match {
            r.flush(&mut st.found);
        }
        drop(st);
    }
}

/// The output files an expression writes, by number.
fn output_files(e: &Expr) -> Vec<Option<&OutFile>> {
    fn walk<'e>(e: &'e Expr, outs: &mut Vec<Option<&'e OutFile>>) {
        match e {
            Expr::Not(x) => walk(x, outs),
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => {
                walk(a, outs);
                walk(b, outs);
            }
            Expr::Prim(p) => {
                if let Some(Dest::File(f) | Dest::Stderr(f)) = p.pred.dest() {
                    if outs.len() <= f.id {
                        outs.resize(f.id + 1, None);
                    }
                    outs[f.id] = Some(f);
                }
            }
        }
    }
    let mut outs = Vec::new();
    walk(e, &mut outs);
    outs
}

/// GNU's message for a loop found with `-L`.
fn report_loop(path: &[u8], ancestor: &[u8]) {
    let utf8 = msg::utf8_locale();
    let mut m = b"File system loop detected; ".to_vec();
    msg::quote(&mut m, path, utf8);
    m.extend_from_slice(b" is part of the same file system loop as ");
    msg::quote(&mut m, ancestor, utf8);
    m.push(b'.');
    msg::error(&m);
}

/// One evaluation: the entry and what the expression did.
struct Ctx<'c, 'v, 'a> {
    v: &'c Visit<'v>,
    finder: &'c Finder<'a>,
    st: &'c mut State<'a>,
    /// `-prune` was evaluated.
    prune: bool,
    /// `-quit` was evaluated: nothing more is done.
    quit: bool,
    /// A failed stat was reported already.
    stat_reported: bool,
    /// The entry could not be stat'ed where GNU learns its type by a
    /// stat: tests of the type are false.
    type_unknown: bool,
    /// Whether the entry's directory cannot be searched (a link's target
    /// cannot be stat'ed either), once probed: see [`Ctx::in_unsearchable`].
    in_unsearchable: Option<bool>,
    /// An action writing to standard output ran: the entry is a match
    /// ([`OnMatch`]).
    printed: bool,
}

impl<'c, 'v, 'a> Ctx<'c, 'v, 'a> {
    /// A fresh evaluation of `v`.
    fn new(v: &'c Visit<'v>, finder: &'c Finder<'a>, st: &'c mut State<'a>) -> Self {
        Ctx {
            v,
            finder,
            st,
            prune: false,
            quit: false,
            stat_reported: false,
            type_unknown: false,
            in_unsearchable: None,
            printed: false,
        }
    }

    /// Whether the entry's directory cannot be searched, probed on first
    /// use.
    fn in_unsearchable(&mut self) -> bool {
        match self.in_unsearchable {
            Some(u) => u,
            None => {
                let u = self.finder.in_unsearchable(self.st, self.v);
                self.in_unsearchable = Some(u);
                u
            }
        }
    }

    /// The entry's metadata; a failure is reported once and makes the
    /// test false.
    fn meta(&mut self) -> Option<&Metadata> {
        if debug::on(debug::STAT) && !self.stat_reported {
            let mut m = b"debug_stat (".to_vec();
            m.extend_from_slice(self.v.at_name().to_bytes());
            m.push(b')');
            debug::say(&m);
        }
        match self.v.metadata() {
            Ok(st) => Some(st),
            Err(e) => {
                if !self.stat_reported && !self.finder.quiet(&e) {
                    msg::path_error(self.v.path(), &e);
                }
                self.stat_reported = true;
                None
            }
        }
    }

    /// The directory holding the entry and its name there.
    fn at(&self) -> (BorrowedFd<'_>, &CStr) {
        (self.v.parent_fd(), self.v.at_name())
    }
}

/// Evaluates `e`; stops doing anything once `-quit` ran.
fn eval(e: &Expr, cx: &mut Ctx<'_, '_, '_>) -> bool {
    if cx.quit {
        return false;
    }
    match e {
        Expr::Not(x) => !eval(x, cx),
        Expr::And(a, b) => eval(a, cx) && eval(b, cx),
        Expr::Or(a, b) => eval(a, cx) || eval(b, cx),
        Expr::Comma(a, b) => {
            eval(a, cx);
            eval(b, cx)
        }
        Expr::Prim(p) => {
            let r = pred(&p.pred, cx);
            if debug::on(debug::RATES) {
                debug::count(&**p as *const _ as usize, r);
            }
            r
        }
    }
}

/// `-hidden`: the name starts with `.` (but is not `.` or `..`, so that
/// `find . -nohidden` still walks `.`).
fn is_hidden(v: &Visit<'_>) -> bool {
    let name = if v.depth() == 0 {
        names::last_component(v.path())
    } else {
        v.name()
    };
    name.first() == Some(&b'.') && name != b"." && name != b".."
}

/// The `d_type` bit of a file type, as `-type`'s set holds them.
fn type_bit(t: FileType) -> u32 {
    match t.as_dtype() {
        0 => 0,
        d => 1 << d,
    }
}

/// Evaluates one primary.
fn pred(p: &Pred, cx: &mut Ctx<'_, '_, '_>) -> bool {
    match p {
        Pred::True => true,
        Pred::False => false,
        Pred::Name { of, glob } => match of {
            NameOf::Base => {
                let name = if cx.v.depth() == 0 {
                    names::last_component(cx.v.path())
                } else {
                    cx.v.name()
                };
                glob.matches(name)
            }
            NameOf::Path => glob.matches(cx.v.path()),
            NameOf::LinkTarget => {
                if cx.v.file_type() != FileType::SYMLINK {
                    return false;
                }
                let (dir, name) = cx.at();
                match dents::fs::readlink_at(dir, name) {
                    Ok(target) => glob.matches(&target),
                    Err(e) => {
                        msg::path_error(cx.v.path(), &e);
                        false
                    }
                }
            }
        },
        Pred::Regex(re) => regex::matches(re, cx.v.path()),
        Pred::Type { .. } if cx.type_unknown => false,
        Pred::Type { x: true, .. } if cx.in_unsearchable() => {
            cx.meta();
            false
        }
        Pred::Type { types, x: false } => types & type_bit(cx.v.file_type()) != 0,
        Pred::Type { types, x: true } => types & type_bit(other_type(cx)) != 0,
        Pred::Size { cmp, unit } => cx
            .meta()
            .is_some_and(|st| cmp.test(st.len().div_ceil(*unit))),
        Pred::Age {
            field,
            rel,
            reference,
            window,
        } => cx
            .meta()
            .and_then(|st| Timestamp::of(st, *field))
            .is_some_and(|t| rel.test(t.nanos(), *reference, *window)),
        Pred::Used { sign, days } => cx.meta().is_some_and(|st| {
            let t = |f| Timestamp::of(st, f).map_or(0, Timestamp::nanos);
            let delta = t(TimeField::Access) - t(TimeField::Change);
            time::used_test(*sign, *days, delta)
        }),
        Pred::Newer { field, than } => cx
            .meta()
            .and_then(|st| Timestamp::of(st, *field))
            .is_some_and(|t| t.nanos() > than.nanos()),
        Pred::Perm { kind, modes } => cx.meta().is_some_and(|st| {
            let mode = st.mode();
            let want = modes[FileType::from_mode(mode).is_dir() as usize];
            let have = mode & 0o7777;
            match kind {
                PermKind::Exact => have == want,
                PermKind::All => have & want == want,
                PermKind::Any => want == 0 || have & want != 0,
            }
        }),
        Pred::Uid(cmp) => cx.meta().is_some_and(|st| cmp.test(st.uid() as u64)),
        Pred::Gid(cmp) => cx.meta().is_some_and(|st| cmp.test(st.gid() as u64)),
        Pred::NoUser => match cx.meta().map(|st| st.uid()) {
            Some(uid) => cx.st.cache.users.get(uid, dents_os::user_name).is_none(),
            None => false,
        },
        Pred::NoGroup => match cx.meta().map(|st| st.gid()) {
            Some(gid) => cx.st.cache.groups.get(gid, dents_os::group_name).is_none(),
            None => false,
        },
        Pred::Links(cmp) => cx.meta().is_some_and(|st| cmp.test(st.nlink())),
        Pred::Inum(cmp) => cx.meta().is_some_and(|st| cmp.test(st.ino())),
        Pred::SameFile { dev, ino } => cx
            .meta()
            .is_some_and(|st| st.ino() == *ino && (st.dev_major(), st.dev_minor()) == *dev),
        Pred::Empty => empty(cx),
        Pred::Access(kind) => {
            let mode = match kind {
                AccessKind::Read => Access::READ_OK,
                AccessKind::Write => Access::WRITE_OK,
                AccessKind::Exec => Access::EXEC_OK,
            };
            let (dir, name) = cx.at();
            rustix::fs::accessat(dir, name, mode, AtFlags::empty()).is_ok()
        }
        Pred::Prune => {
            cx.prune = true;
            true
        }
        Pred::Quit => {
            cx.quit = true;
            true
        }
        Pred::Print(b'\n') if cx.finder.colors.is_some() => {
            let colors = cx.finder.colors.expect("colors are on");
            let buf = &mut cx.st.buf.buf;
            colors.path(buf, cx.v, cx.finder.terminal);
            buf.push(b'\n');
            cx.printed = true;
            true
        }
        Pred::Print(end) => {
            let buf = &mut cx.st.buf.buf;
            match cx.finder.terminal {
                // GNU: on a terminal, -print shows unprintable characters
                // as `?` (-print0 never changes a name).
                Some(utf8) if *end == b'\n' => qmarks(buf, cx.v.path(), utf8),
                _ => buf.extend_from_slice(cx.v.path()),
            }
            buf.push(*end);
            cx.printed = true;
            true
        }
        Pred::Delete => delete(cx),
        // Commands (and -ok's prompt) get the terminal without the status line.
        Pred::Exec(x) => crate::progress::suspended(|| x.eval(cx.v, &mut cx.st.buf)),
        Pred::Printf { dest, fmt } => {
            if fmt.needs_stat() && cx.meta().is_none() {
                return false;
            }
            if fmt.needs_type() && cx.type_unknown {
                return false;
            }
            if fmt.needs_target_type() && cx.in_unsearchable() {
                cx.meta();
                return false;
            }
            let st = if fmt.needs_stat() {
                cx.v.metadata().ok()
            } else {
                None
            };
            let v = cx.v;
            let (buf, quote, cache) = target(cx.st, cx.finder.terminal, dest);
            let (colors, name) = match dest {
                Dest::Stdout => (cx.finder.colors, &b"standard output"[..]),
                Dest::File(f) | Dest::Stderr(f) => (None, &f.name[..]),
            };
            fmt.write(
                &Subject {
                    v,
                    st,
                    quote,
                    colors,
                    dest: name,
                },
                cache,
                buf,
            );
            flush_stderr(cx.st, dest);
            cx.printed |= matches!(dest, Dest::Stdout);
            true
        }
        Pred::Ls { dest, ls } => {
            if cx.meta().is_none() {
                return false;
            }
            let Ok(st) = cx.v.metadata() else {
                return false;
            };
            let v = cx.v;
            let (buf, _, cache) = target(cx.st, cx.finder.terminal, dest);
            ls.line(buf, v, st, cache);
            flush_stderr(cx.st, dest);
            cx.printed |= matches!(dest, Dest::Stdout);
            true
        }
        Pred::FPrint { dest, end } => {
            let path = cx.v.path();
            let (buf, quote, _) = target(cx.st, cx.finder.terminal, dest);
            match quote {
                // As -print: `?` for unprintables on a terminal, except
                // with -fprint0.
                Some(utf8) if *end == b'\n' => qmarks(buf, path, utf8),
                _ => buf.extend_from_slice(path),
            }
            buf.push(*end);
            flush_stderr(cx.st, dest);
            true
        }
        Pred::FsType(name) => {
            let dev = cx.meta().map(|st| (st.dev_major(), st.dev_minor()));
            dev.is_some_and(|dev| cx.st.cache.fs.name(dev) == name.as_slice())
        }
        Pred::Hidden => is_hidden(cx.v),
        Pred::Limit { n, count } => {
            // Serialised (opt::analyse), so the n-th evaluation is exact.
            if count.fetch_add(1, Ordering::Relaxed) + 1 >= *n {
                cx.quit = true;
            }
            true
        }
    }
}

/// The buffer an output primary writes to, whether names are to be shown
/// as on a terminal (`Some(utf8 locale)`), and the thread's caches.
fn target<'s>(
    st: &'s mut State<'_>,
    terminal: Option<bool>,
    dest: &Dest,
) -> (&'s mut Vec<u8>, Option<bool>, &'s mut Cache) {
    match dest {
        Dest::Stdout => (&mut st.buf.buf, terminal, &mut st.cache),
        Dest::File(f) | Dest::Stderr(f) => {
            let buf = st.outs[f.id]
                .as_mut()
                .expect("every output file of the expression has a buffer");
            (&mut buf.buf, f.tty.then(msg::utf8_locale), &mut st.cache)
        }
    }
}

/// Writes what was just formatted for standard error at once, as GNU's
/// unbuffered stream does.
fn flush_stderr(st: &mut State<'_>, dest: &Dest) {
    if let Dest::Stderr(f) = dest {
        if let Some(b) = st.outs[f.id].as_mut() {
            b.flush();
        }
    }
}

/// The type `-xtype` tests: the target's where the walk does not follow
/// the link (the link's own if it is broken), the link's own where it
/// does.
fn other_type(cx: &mut Ctx<'_, '_, '_>) -> FileType {
    let (dir, name) = cx.at();
    if cx.v.follows_links() {
        return cx
            .v
            .link_metadata()
            .map_or(FileType::UNKNOWN, |st| st.file_type());
    }
    let t = cx.v.file_type();
    if t != FileType::SYMLINK {
        return t;
    }
    match dents::fs::stat_follow_at(dir, name, StatFields::TYPE) {
        Ok(st) => st.file_type(),
        // A broken link (its target missing, or not a directory on the
        // way to it) is a link; another failure (a loop) is an error.
        Err(e)
            if [rustix::io::Errno::NOENT, rustix::io::Errno::NOTDIR]
                .iter()
                .any(|x| e.raw_os_error() == Some(x.raw_os_error())) =>
        {
            FileType::SYMLINK
        }
        Err(e) => {
            msg::path_error(cx.v.path(), &e);
            FileType::UNKNOWN
        }
    }
}

/// `-empty`: an empty regular file, or a directory with no entries.
fn empty(cx: &mut Ctx<'_, '_, '_>) -> bool {
    // GNU stats every candidate; where that fails, it says so.
    if cx.type_unknown || cx.in_unsearchable() {
        cx.meta();
        return false;
    }
    let t = cx.v.file_type();
    if t == FileType::REGULAR {
        return cx.meta().is_some_and(|st| st.is_empty());
    }
    if !t.is_dir() {
        return false;
    }
    // GNU learns the type by a stat, which later tests reuse: after a
    // `-delete`, `-size` must not fail on a directory gone.
    if cx.meta().is_none() {
        return false;
    }
    let (dir, name) = cx.at();
    let opened = if cx.v.follows_links() {
        dents::fs::open_dir_follow_at(dir, name)
    } else {
        dents::fs::open_dir_at(dir, name)
    };
    let fd = match opened {
        Ok(fd) => fd,
        Err(e) => {
            msg::path_error(cx.v.path(), &e);
            return false;
        }
    };
    let mut reader = DirReader::new(fd);
    match reader.next_entry() {
        Ok(e) => e.is_none(),
        Err(e) => {
            msg::path_error(cx.v.path(), &e);
            false
        }
    }
}

/// `-delete`: `unlinkat` relative to the parent, `AT_REMOVEDIR` for a
/// directory; `.` as a starting point is left alone, as GNU does.
fn delete(cx: &mut Ctx<'_, '_, '_>) -> bool {
    if cx.v.depth() == 0 && cx.v.path() == b"." {
        return true;
    }
    let is_dir = cx.v.file_type().is_dir();
    let (dir, name) = cx.at();
    let flags = if is_dir {
        AtFlags::REMOVEDIR
    } else {
        AtFlags::empty()
    };
    let mut r = rustix::fs::unlinkat(dir, name, flags);
    // The type may have been a guess; GNU retries a failed unlink of a
    // directory as a rmdir.
    if r == Err(rustix::io::Errno::ISDIR) && !is_dir {
        r = rustix::fs::unlinkat(dir.as_fd(), name, AtFlags::REMOVEDIR);
    }
    match r {
        Ok(()) => true,
        Err(e) => {
            msg::action_error("cannot delete", cx.v.path(), &e.into());
            false
        }
    }
}
