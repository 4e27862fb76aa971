//! A command's own context: what GNU find keeps in globals, kept per
//! command (as bfs's `bfs_ctx`), so that several commands can run in one
//! process at once, each with its own exit status, `-ls` columns, `-D`
//! flags, message prefix and colors.
//!
//! A [`Command`](crate::Command) makes one when its line is read; every
//! thread that works for the command has it as its *current* context:
//! the thread that reads the line or runs the command enters it for that
//! time ([`enter`]), and each worker of its walks adopts it when the walk
//! makes the worker's state ([`adopt`], from the evaluator's
//! `Visitor::state`).  The message functions, the `-ls` formatter and
//! the `-D` checks take the current context, so none of them needs it as
//! a parameter.  A thread that has none (code run outside any command)
//! gets a context of its own, dropped with the thread: nothing is shared
//! between threads but through a command.

use std::cell::RefCell;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Device (major, minor) to filesystem type name (`-fstype`, `%F`).
pub type FsTable = HashMap<(u32, u32), Box<[u8]>>;

/// A caller's handler of the errors that name a path
/// ([`Command::on_path_error`](crate::Command::on_path_error)).
pub type PathErrorHandler = Box<dyn Fn(&[u8], &std::io::Error) + Send + Sync>;

/// The `-ls` columns, in the order of a line.
pub const LS_COLUMNS: usize = 8;

/// GNU's first widths of the `-ls` columns: inode, blocks, links, owner,
/// group, major, minor, size.
const LS_MIN_WIDTHS: [usize; LS_COLUMNS] = [9, 6, 3, 8, 8, 3, 3, 8];

/// One command's context.
pub struct Ctx {
    /// The exit status so far: 0, or the worst problem reported.
    status: AtomicI32,
    /// The `-D` flags that are on.
    debug: AtomicU32,
    /// The start of a message and of a warning (`dents: `, colored or
    /// not), set when the command's colors are known.
    prefixes: Mutex<(Vec<u8>, Vec<u8>)>,
    /// The program name messages start with.
    program: Vec<u8>,
    /// The `-ls` column widths so far (they only grow, as GNU's).
    pub ls_widths: [AtomicUsize; LS_COLUMNS],
    /// The last path quoted by a path error, if it fitted GNU's buffer
    /// of 256 bytes (`-files0-from`'s messages reuse it).
    pub last_quoted: Mutex<Option<Vec<u8>>>,
    /// The mount table, read on first use; `None`: it could not be.
    pub fs_table: OnceLock<Option<FsTable>>,
    /// A fatal error (GNU exits at once): the walk stops as at `-quit`.
    fatal: AtomicBool,
    /// `-D rates`: evaluations and successes of each primary, by its
    /// address.
    pub rates: Mutex<HashMap<usize, (u64, u64)>>,
    /// Where errors that name a path go instead of standard error.
    path_errors: OnceLock<PathErrorHandler>,
}

impl std::fmt::Debug for Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("status", &self.status)
            .field("program", &String::from_utf8_lossy(&self.program))
            .finish_non_exhaustive()
    }
}

impl Ctx {
    /// A context for a command of the program `program` (its messages
    /// start `PROGRAM: `).
    pub fn new(program: &[u8]) -> Arc<Ctx> {
        let mut plain = program.to_vec();
        plain.extend_from_slice(b": ");
        let mut warning = plain.clone();
        warning.extend_from_slice(b"warning: ");
        Arc::new(Ctx {
            status: AtomicI32::new(0),
            debug: AtomicU32::new(0),
            prefixes: Mutex::new((plain, warning)),
            program: program.to_vec(),
            ls_widths: LS_MIN_WIDTHS.map(AtomicUsize::new),
            last_quoted: Mutex::new(None),
            fs_table: OnceLock::new(),
            fatal: AtomicBool::new(false),
            rates: Mutex::new(HashMap::new()),
            path_errors: OnceLock::new(),
        })
    }

    /// Raises the exit status to at least `status`.
    pub fn raise(&self, status: i32) {
        self.status.fetch_max(status, Ordering::Relaxed);
    }

    /// The exit status so far.
    pub fn status(&self) -> i32 {
        self.status.load(Ordering::Relaxed)
    }

    /// Turns the `-D` flags `flags` on.
    pub fn enable_debug(&self, flags: u32) {
        self.debug.fetch_or(flags, Ordering::Relaxed);
    }

    /// Whether any of the `-D` flags `flags` is on.
    pub fn debug_on(&self, flags: u32) -> bool {
        self.debug.load(Ordering::Relaxed) & flags != 0
    }

    /// The program name messages start with.
    pub fn program(&self) -> &[u8] {
        &self.program
    }

    /// Sets the starts of messages and of warnings (colored ones).
    pub fn set_prefixes(&self, plain: Vec<u8>, warning: Vec<u8>) {
        *self.prefixes.lock().unwrap_or_else(PoisonError::into_inner) = (plain, warning);
    }

    /// Appends the start of a message (`PROGRAM: `, and `warning: `).
    pub fn prefix(&self, out: &mut Vec<u8>, warning: bool) {
        let p = self.prefixes.lock().unwrap_or_else(PoisonError::into_inner);
        out.extend_from_slice(if warning { &p.1 } else { &p.0 });
    }

    /// Hands the errors that name a path to `handler` rather than to
    /// standard error (set once).
    pub fn set_path_error_handler(&self, handler: PathErrorHandler) {
        let _ = self.path_errors.set(handler);
    }

    /// The caller's handler of errors that name a path, if any.
    pub fn path_error_handler(&self) -> Option<&PathErrorHandler> {
        self.path_errors.get()
    }

    /// Records a fatal error: the command stops as soon as it can.
    pub fn set_fatal(&self) {
        self.fatal.store(true, Ordering::Relaxed);
    }

    /// Whether a fatal error stopped the command.
    pub fn is_fatal(&self) -> bool {
        self.fatal.load(Ordering::Relaxed)
    }
}

thread_local! {
    /// This thread's current context.
    static CURRENT: RefCell<Option<Arc<Ctx>>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's current context (a fresh one, the
/// thread's own, if it has none).
pub fn with<R>(f: impl FnOnce(&Ctx) -> R) -> R {
    let ctx = CURRENT.with(|c| {
        c.borrow_mut()
            .get_or_insert_with(|| Ctx::new(b"dents"))
            .clone()
    });
    f(&ctx)
}

/// Whether any of the `-D` `flags` is on for this thread's current
/// context.  Asked for every entry and every test: it reads the flags in
/// place, where [`with`] takes a reference to the context (an atomic
/// count shared by every worker: 2% of a sorted `find`'s samples).
pub fn debug_on(flags: u32) -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(|ctx| ctx.debug_on(flags)))
}

/// Makes `ctx` this thread's current context for as long as the guard
/// lives; the one before comes back after.
pub fn enter(ctx: &Arc<Ctx>) -> Entered {
    let before = CURRENT.with(|c| c.borrow_mut().replace(Arc::clone(ctx)));
    Entered {
        before,
        _not_send: PhantomData,
    }
}

/// Makes `ctx` this thread's current context from now on (a walk's
/// worker, which works for one command until it ends).
pub fn adopt(ctx: &Arc<Ctx>) {
    let same = CURRENT.with(|c| c.borrow().as_ref().is_some_and(|c| Arc::ptr_eq(c, ctx)));
    if !same {
        CURRENT.with(|c| *c.borrow_mut() = Some(Arc::clone(ctx)));
    }
}

/// The guard of [`enter`]: restores the thread's context before.
#[must_use]
pub struct Entered {
    before: Option<Arc<Ctx>>,
    /// A thread's context is restored on that thread.
    _not_send: PhantomData<*const ()>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let before = self.before.take();
        CURRENT.with(|c| *c.borrow_mut() = before);
    }
}
