//! `-R`: directories listed on all workers, printed in GNU's order.
//!
//! Each directory is a task: open it, check it against its ancestors
//! (a loop back to one of them is not listed, as GNU's "not listing
//! already-listed directory"), read it whole, stat, sort and format its
//! listing into a *block* (its `DIR:` heading, the messages it caused and
//! its lines), and name its subdirectories, which become tasks in turn.
//! Workers take tasks from one queue ordered by the tasks' place in GNU's
//! output; the main thread prints the blocks and works too.
//!
//! ```text
//!   pending tasks, by key            workers                 done blocks
//!   [0] [0,0] [0,0,3] [0,1] ...  --> open, read, stat,  -->  [0,0] [0,1] ...
//!        ^ smallest key first        sort, format            |
//!                                    (children queued)       v
//!                                              main thread: prints the next
//!                                              key in GNU's order when done
//! ```
//!
//! **Order.**  A task's key is the list of its positions: the `i`th
//! operand is `[i]`, the `j`th subdirectory (in listing order) of the
//! directory `k` is `k + [j]`.  Keys compared as sequences give GNU's
//! order, depth first: a directory, then each of its subdirectories'
//! trees in listing order.  When the listing is sorted, the main thread
//! prints exactly in that order: it keeps a stack of the keys still to
//! print (a printed block's children pushed on top) and waits for the top
//! one.  Unsorted (`-U`), GNU's order is the order the directories were
//! read in, which threads do not keep anyway: blocks are printed as they
//! are done, each whole.
//!
//! **Memory.**  Workers take the smallest pending key first, so they work
//! just ahead of the output, depth first like GNU.  Blocks done but not
//! yet printable (an earlier one is still being listed) are held; once
//! they hold [`HELD_MAX`] bytes no worker starts another task, except
//! the one the output waits for.  What is held is thus bounded by that
//! and by the tasks in flight (one directory per worker), not by the
//! tree.  Pending tasks are names of directories not yet listed, as
//! GNU's own list of pending directories.
//!
//! **Messages.**  A worker holds a directory's messages with its block
//! ([`super::notes`]); they are said when the block is printed, after its
//! heading, in GNU's order.
//!
//! **Colors.**  GNU puts a reset before the first color of the run.
//! Workers format without it ([`paint::deferring_reset`]); the first
//! block printed that painted anything is formatted again by the printing
//! thread, which puts the reset where GNU puts it.
//!
//! **Panics.**  A panic while a directory is listed or printed (a bug
//! of the listing code, on any thread) ends the run: it is caught where
//! it happens, every thread is told to stop (the others would otherwise
//! wait forever for the block that will never come), and once all have
//! left it is raised again on the caller's thread with its own payload.
//!
//! Why not the library's walker: its visitor sees entries, not the end of
//! a directory's read (which a block needs before it can be sorted and
//! laid out), and its sorted walk is breadth first, where ls prints depth
//! first: the blocks held until printable would grow with the tree.

use std::any::Any;
use std::collections::BTreeMap;
use std::ffi::CString;
use std::os::fd::AsFd;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use dents::dir::DirReader;
use dents::scan::DirState;
use dents::slice;

use super::args::SortKey;
use super::listing::Listing;
use super::notes::{self, Note};
use super::{name, paint, Lister};
use crate::errors;

/// Bytes of blocks done but not yet printable past which no worker
/// starts a task that the output does not wait for.
const HELD_MAX: usize = 256 << 10;

/// Entries of a listing past which its memory, once freed, is given back
/// to the system at once (see [`dents_os::trim_malloc`]).
const TRIM_AFTER: usize = 2048;

/// What a block costs beyond its bytes (its vectors and the map's node).
const BLOCK_OVERHEAD: usize = 256;

thread_local! {
    /// The `getdents64` buffer of this thread's reads of small directories.
    static READ_BUF: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// A task's place in GNU's order (see the module's doc).
type Key = Vec<u32>;

/// A directory to list.
struct Task {
    path: Vec<u8>,
    /// A command-line operand (its failures are serious).
    operand: bool,
    /// The directories above it in this tree, for the loop check.
    ancestors: Option<Arc<Ancestor>>,
}

/// (device, inode) of a directory being listed, and of its ancestors.
struct Ancestor {
    id: (u64, u64),
    up: Option<Arc<Ancestor>>,
}

impl Ancestor {
    /// Whether `id` is this directory's or one of its ancestors'.
    fn holds(this: &Option<Arc<Ancestor>>, id: (u64, u64)) -> bool {
        let mut a = this.as_deref();
        while let Some(x) = a {
            if x.id == id {
                return true;
            }
            a = x.up.as_deref();
        }
        false
    }
}

/// One directory's part of the output, formatted ahead of its turn.
struct Block {
    /// `DIR:` and a newline, if the directory was opened (and was not a
    /// loop); empty without headings.
    head: Vec<u8>,
    /// The directory was listed: a blank line goes before the next
    /// heading.
    listed: bool,
    /// Messages, said after the heading.
    notes: Vec<Note>,
    /// The listing's lines.
    body: Vec<u8>,
    /// Subdirectories queued as tasks (the keys `key + [0..subdirs]`).
    subdirs: u32,
    /// The lines painted something: if nothing before them did, they are
    /// formatted again, with the run's first reset.
    painted: bool,
    /// The listing, kept for that when it may be needed.
    retained: Option<Listing>,
}

impl Block {
    /// Bytes held for this block, about.
    fn held(&self) -> usize {
        self.head.len()
            + self.body.len()
            + BLOCK_OVERHEAD
            + self.retained.as_ref().map_or(0, |l| l.len() * 64)
    }
}

/// The queue and the blocks, under one lock.
struct State {
    pending: BTreeMap<Key, Task>,
    done: BTreeMap<Key, Block>,
    /// Tasks being listed now.
    running: usize,
    /// Bytes of `done`.
    held: usize,
    /// The key the output waits for (sorted listings).
    wanted: Option<Key>,
    /// Everything is printed: workers leave.
    stop: bool,
    /// Workers waiting for a task (woken only if some wait: a wake is a
    /// system call, and there is one chance per directory).
    idle: usize,
    /// The main thread waits for a block.
    main_waits: bool,
    /// The first panic of a thread: every thread stops, and the caller
    /// gets it once they have.
    panic: Option<Box<dyn Any + Send>>,
}

/// What the threads share.
struct Shared<'l> {
    lister: &'l Lister,
    headers: bool,
    /// The blocks are printed in GNU's order (the listing is sorted).
    ordered: bool,
    state: Mutex<State>,
    /// Workers wait here for tasks.
    work: Condvar,
    /// The main thread waits here for blocks.
    ready: Condvar,
}

/// Lists the trees below `roots` (directory operands, in listing order).
pub(super) fn list_trees(lister: &Lister, roots: Vec<Vec<u8>>, headers: bool) {
    let o = &lister.opts;
    let ordered = o.sort != SortKey::None || o.dirs_first;
    let mut pending = BTreeMap::new();
    for (i, path) in roots.into_iter().enumerate() {
        let task = Task {
            path,
            operand: true,
            ancestors: None,
        };
        pending.insert(vec![i as u32], task);
    }
    let mut next: Vec<Key> = pending.keys().rev().cloned().collect();
    let shared = Shared {
        lister,
        headers,
        ordered,
        state: Mutex::new(State {
            pending,
            done: BTreeMap::new(),
            running: 0,
            held: 0,
            wanted: None,
            stop: false,
            idle: 0,
            main_waits: false,
            panic: None,
        }),
        work: Condvar::new(),
        ready: Condvar::new(),
    };
    let main = std::thread::current().id();
    // No more workers than descriptors free beyond the main thread's
    // (a directory each, for a moment): under a low limit the workers
    // would only wait for one another's.
    let workers = lister
        .threads
        .min(dents::fs::descriptors_free().saturating_sub(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let shared = &shared;
            crate::threads::spawn_or_run(scope, move || {
                // Where no thread could start, this runs on the main
                // thread, which works in its own loop below.
                if std::thread::current().id() != main {
                    shared.work_loop();
                }
            });
        }
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| shared.main_loop(&mut next)))
        {
            // Printing panicked: the workers must leave for the scope to end.
            shared.abandon(&mut shared.lock(), payload);
        }
    });
    let panicked = shared
        .state
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .panic;
    if let Some(payload) = panicked {
        panic::resume_unwind(payload);
    }
}

impl Shared<'_> {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A worker: lists tasks until everything is printed.
    fn work_loop(&self) {
        let mut st = self.lock();
        loop {
            if st.stop {
                return;
            }
            if let Some(taken) = self.take(&mut st) {
                st = self.list_unlocked(st, taken);
                continue;
            }
            st.idle += 1;
            st = self.work.wait(st).unwrap_or_else(|p| p.into_inner());
            st.idle -= 1;
        }
    }

    /// The main thread: prints blocks in their turn, lists tasks while
    /// the next block is not done.  `next`: the keys still to print,
    /// the next on top (sorted listings).
    fn main_loop(&self, next: &mut Vec<Key>) {
        let mut st = self.lock();
        loop {
            if st.panic.is_some() {
                return;
            }
            let printable = if self.ordered {
                next.last().and_then(|k| st.done.remove(k))
            } else {
                st.done.pop_first().map(|(_, b)| b)
            };
            if let Some(block) = printable {
                let was_full = st.held >= HELD_MAX;
                st.held -= block.held();
                if was_full && st.idle > 0 {
                    self.work.notify_all();
                }
                drop(st);
                if self.ordered {
                    let key = next.pop().expect("the printed key");
                    for j in (0..block.subdirs).rev() {
                        let mut child = key.clone();
                        child.push(j);
                        next.push(child);
                    }
                }
                self.print(block);
                st = self.lock();
                continue;
            }
            let finished = if self.ordered {
                next.is_empty()
            } else {
                st.pending.is_empty() && st.running == 0
            };
            if finished {
                st.stop = true;
                self.work.notify_all();
                return;
            }
            if self.ordered && st.wanted.as_ref() != next.last() {
                st.wanted = next.last().cloned();
                // Workers held back by HELD_MAX may take the wanted task.
                if st.held >= HELD_MAX && st.idle > 0 {
                    self.work.notify_all();
                }
            }
            if let Some(taken) = self.take(&mut st) {
                st = self.list_unlocked(st, taken);
                continue;
            }
            st.main_waits = true;
            st = self.ready.wait(st).unwrap_or_else(|p| p.into_inner());
            st.main_waits = false;
        }
    }

    /// The next task to list, if one may be started now.
    fn take(&self, st: &mut State) -> Option<(Key, Task)> {
        let (key, _) = st.pending.first_key_value()?;
        if self.ordered && st.held >= HELD_MAX && st.wanted.as_ref() != Some(key) {
            return None;
        }
        st.running += 1;
        st.pending.pop_first()
    }

    /// Lists a taken task without the lock `st`, and files its block;
    /// returns the lock, taken again.
    fn list_unlocked<'s>(
        &'s self,
        st: MutexGuard<'s, State>,
        (key, task): (Key, Task),
    ) -> MutexGuard<'s, State> {
        drop(st);
        let done = panic::catch_unwind(AssertUnwindSafe(|| self.list(task)));
        let mut st = self.lock();
        match done {
            Ok(done) => self.complete(&mut st, key, done),
            Err(payload) => {
                st.running -= 1;
                self.abandon(&mut st, payload);
            }
        }
        st
    }

    /// A thread panicked with `payload`: keeps the first panic for the
    /// caller and stops every thread (the main thread too, which waits
    /// for blocks that will not come).
    fn abandon(&self, st: &mut State, payload: Box<dyn Any + Send>) {
        st.panic.get_or_insert(payload);
        st.stop = true;
        self.work.notify_all();
        self.ready.notify_all();
    }

    /// Files the block of the task `key` and queues its subdirectories.
    fn complete(&self, st: &mut State, key: Key, (block, children): (Block, Vec<Task>)) {
        st.running -= 1;
        let woken = children.len().min(st.idle);
        for (j, child) in children.into_iter().enumerate() {
            let mut k = key.clone();
            k.push(j as u32);
            st.pending.insert(k, child);
        }
        // The main thread waits for this block (sorted: the one it is to
        // print next), or for the end.
        let awaited = !self.ordered
            || st.wanted.as_ref() == Some(&key)
            || (st.pending.is_empty() && st.running == 0);
        st.held += block.held();
        st.done.insert(key, block);
        match woken {
            0 => {}
            1 => self.work.notify_one(),
            _ => self.work.notify_all(),
        }
        if st.main_waits && awaited {
            self.ready.notify_one();
        }
    }

    /// Lists one directory: its block, and its subdirectories as tasks.
    fn list(&self, task: Task) -> (Block, Vec<Task>) {
        let ((mut block, children), notes) = notes::holding(|| self.list_held(&task));
        block.notes = notes;
        (block, children)
    }

    /// [`Shared::list`] with the messages held.
    fn list_held(&self, task: &Task) -> (Block, Vec<Task>) {
        let l = self.lister;
        let mut block = Block {
            head: Vec::new(),
            listed: false,
            notes: Vec::new(),
            body: Vec::new(),
            subdirs: 0,
            painted: false,
            retained: None,
        };
        let level = if task.operand {
            errors::SERIOUS
        } else {
            errors::MINOR
        };
        let path = &task.path;
        let cpath = CString::new(path.clone()).expect("names hold no NUL");
        // Other workers hold a directory each: under a low descriptor
        // limit this one waits its turn, as GNU's one-at-a-time never has to.
        let dir = match dents::fs::retry_emfile(|| dents::fs::open_dir(&cpath)) {
            Ok(fd) => fd,
            Err(e) => {
                notes::report(&l.status, level, "cannot open directory", path, &e);
                return (block, Vec::new());
            }
        };
        let stat = dents::fs::fstat(dir.as_fd()).ok();
        let id = stat.as_ref().map(|st| (st.dev(), st.ino()));
        if let Some(id) = id {
            if Ancestor::holds(&task.ancestors, id) {
                let mut msg = b"dents: ".to_vec();
                msg.extend_from_slice(&l.quoter_for_messages(path));
                msg.extend_from_slice(b": not listing already-listed directory\n");
                notes::text(&l.status, errors::SERIOUS, msg);
                return (block, Vec::new());
            }
        }
        block.listed = true;
        if self.headers {
            name::push_name(&mut block.head, path, &l.dir_quoter);
            block.head.extend_from_slice(b":\n");
        }
        // Entries of unknown type (`d_type` absent: ext4 without
        // `filetype`, some network filesystems) are resolved before the
        // subdirectories are chosen: whole subtrees were missed otherwise.
        let before = DirState::of(dir.as_fd()).ok();
        // Most directories of a tree are small: read on this thread, with
        // its buffer of earlier reads (a fresh one is zeroed: that cost as
        // much as all the rest of a small directory's listing), without
        // the read's own look at the size.
        let small = stat
            .as_ref()
            .is_some_and(|st| st.len() < l.read_opts.get_min_sliced_size());
        let (dir, listing) = if small {
            let mut reader = DirReader::with_buffer(dir, READ_BUF.take());
            let mut sink = l.gather_sink();
            let errors = slice::read_serial(&mut reader, &mut sink).err();
            let (dir, buf) = reader.into_parts();
            READ_BUF.set(buf);
            let outcome = slice::ReadOutcome {
                sinks: vec![sink],
                plan: slice::ReadPlan::Serial,
                errors: errors.into_iter().collect(),
                probes: 0,
            };
            let listing = l.gathered(outcome, dir.as_fd(), path, level);
            (dir, listing)
        } else {
            let listing = l.gather(dir.as_fd(), path, level, &l.read_opts);
            (dir, listing)
        };
        let listing = l.prepare(listing, dir.as_fd(), path, before.as_ref(), l.threads);
        drop(dir);
        let (_, painted) = paint::deferring_reset(|| l.format_listing(&listing, &mut block.body));
        block.painted = painted;
        let up = id.map(|id| {
            Arc::new(Ancestor {
                id,
                up: task.ancestors.clone(),
            })
        });
        let mut children = Vec::new();
        for r in listing.iter() {
            let n = listing.name(r);
            if r.file_type.is_dir() && n != b"." && n != b".." {
                children.push(Task {
                    path: super::listing::subdir_path(path, n),
                    operand: false,
                    ancestors: up.clone().or_else(|| task.ancestors.clone()),
                });
            }
        }
        block.subdirs = children.len() as u32;
        // Kept to be formatted again with the run's first reset, which
        // only a block painted before any other was printed needs.
        let large = listing.len() >= TRIM_AFTER;
        if painted && l.colors.as_ref().is_some_and(|c| !c.used()) {
            block.retained = Some(listing);
        } else if large {
            // This thread's malloc arena would keep the large listing's
            // memory resident while other workers' arenas grow for theirs.
            drop(listing);
            dents_os::trim_malloc();
        }
        (block, children)
    }

    /// Prints a block in its turn.
    fn print(&self, block: Block) {
        let l = self.lister;
        if block.listed {
            if l.printed.load(AtomicOrdering::Relaxed) {
                l.emit(b"\n");
            }
            l.emit(&block.head);
        }
        if !block.notes.is_empty() {
            // Said after what is printed before them, as GNU's.
            l.flush_carry();
            notes::replay(&l.status, block.notes);
        }
        match &block.retained {
            Some(listing) if l.colors.as_ref().is_some_and(|c| !c.used()) => {
                let mut body = Vec::new();
                l.format_listing(listing, &mut body);
                l.emit(&body);
            }
            _ => l.emit(&block.body),
        }
        if block.listed {
            l.printed.store(true, AtomicOrdering::Relaxed);
        }
    }
}
