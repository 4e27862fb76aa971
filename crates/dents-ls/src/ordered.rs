//! Text made on several threads and written in order, without rounds.
//!
//! A listing's lines are formatted block by block: each thread claims the
//! next block, formats it into a buffer of its own and hands it back; the
//! calling thread writes the finished blocks in order as soon as each is
//! ready, and formats blocks itself while the next one to write is not.
//! Nobody waits for a whole round to end (the slowest thread of a round
//! used to leave the other cores idle, and every write waited for its
//! round), and at most [`WINDOW_PER_THREAD`] blocks per thread are ahead
//! of the writing, so a slow reader of the output bounds the memory.
//!
//! A panic of the formatting (or of the writing) on any thread stops every
//! thread (the writer would otherwise wait forever for the block the
//! panicked thread held, the others for the writer) and is raised again on
//! the calling thread once they have all left.

use std::any::Any;
use std::collections::BTreeMap;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, MutexGuard};

/// Blocks a thread may be ahead of the writing.
const WINDOW_PER_THREAD: usize = 4;

/// What the threads share: which block is next to claim and to write,
/// the finished blocks not yet written, and emptied buffers for reuse.
struct Queue {
    next: usize,
    written: usize,
    done: BTreeMap<usize, Vec<u8>>,
    spare: Vec<Vec<u8>>,
    /// The first panic of a thread, for the caller.
    panic: Option<Box<dyn Any + Send>>,
}

/// The queue and the signal that it changed.
struct Shared {
    queue: Mutex<Queue>,
    changed: Condvar,
    blocks: usize,
    block_len: usize,
    window: usize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Claims the next block if it is within the window: its number and a
    /// buffer for it.
    fn claim(&self, q: &mut Queue) -> Option<(usize, Vec<u8>)> {
        if q.next >= self.blocks || q.next >= q.written + self.window {
            return None;
        }
        q.next += 1;
        Some((q.next - 1, q.spare.pop().unwrap_or_default()))
    }

    /// A thread panicked: no block is claimed any more, the writer stops,
    /// and every waiting thread is told.
    fn abandon(&self, payload: Box<dyn Any + Send>) {
        let mut q = self.lock();
        q.panic.get_or_insert(payload);
        q.next = self.blocks;
        self.changed.notify_all();
    }

    /// The items of block `k`.
    fn items(&self, k: usize, count: usize) -> Range<usize> {
        k * self.block_len..((k + 1) * self.block_len).min(count)
    }
}

/// Formats items `0..count` in blocks of `block_len` with `format` (given
/// the thread's own state made by `make_state`, the block's items and the
/// buffer to append to) on up to `threads` threads, and passes the
/// blocks' bytes to `out` in order, from the calling thread.
pub fn format_in_order<S, M, F>(
    count: usize,
    block_len: usize,
    threads: usize,
    make_state: M,
    format: F,
    out: &mut dyn FnMut(&[u8]),
) where
    M: Fn() -> S + Sync,
    F: Fn(&mut S, Range<usize>, &mut Vec<u8>) + Sync,
{
    let threads = threads.max(1);
    let shared = Shared {
        queue: Mutex::new(Queue {
            next: 0,
            written: 0,
            done: BTreeMap::new(),
            spare: Vec::new(),
            panic: None,
        }),
        changed: Condvar::new(),
        blocks: count.div_ceil(block_len.max(1)),
        block_len: block_len.max(1),
        window: threads * WINDOW_PER_THREAD,
    };
    let caller = std::thread::current().id();
    std::thread::scope(|scope| {
        for _ in 1..threads {
            let (shared, make_state, format) = (&shared, &make_state, &format);
            crate::threads::spawn_or_run(scope, move || {
                // Run here when no thread could start: then it must not
                // wait for the writing, which this very thread does.
                let inline = std::thread::current().id() == caller;
                let mut state = make_state();
                let mut q = shared.lock();
                loop {
                    let Some((k, mut buf)) = shared.claim(&mut q) else {
                        if q.next >= shared.blocks || inline {
                            return;
                        }
                        q = shared.changed.wait(q).unwrap_or_else(|p| p.into_inner());
                        continue;
                    };
                    drop(q);
                    let items = shared.items(k, count);
                    let formatted = panic::catch_unwind(AssertUnwindSafe(|| {
                        format(&mut state, items, &mut buf)
                    }));
                    if let Err(payload) = formatted {
                        shared.abandon(payload);
                        return;
                    }
                    q = shared.lock();
                    q.done.insert(k, buf);
                    shared.changed.notify_all();
                }
            });
        }
        // The calling thread writes, and formats while it has nothing to
        // write.
        let written = panic::catch_unwind(AssertUnwindSafe(|| {
            write_in_order(&shared, count, &make_state, &format, out)
        }));
        if let Err(payload) = written {
            shared.abandon(payload);
        }
    });
    let panicked = shared
        .queue
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .panic;
    if let Some(payload) = panicked {
        panic::resume_unwind(payload);
    }
}

/// The calling thread's part of [`format_in_order`]: writes the blocks in
/// order, formatting while the next is not done; returns at the end or
/// once a thread panicked.
fn write_in_order<S, M, F>(
    shared: &Shared,
    count: usize,
    make_state: &M,
    format: &F,
    out: &mut dyn FnMut(&[u8]),
) where
    M: Fn() -> S + Sync,
    F: Fn(&mut S, Range<usize>, &mut Vec<u8>) + Sync,
{
    let mut state = make_state();
    let mut q = shared.lock();
    while q.written < shared.blocks && q.panic.is_none() {
        let written = q.written;
        if let Some(mut buf) = q.done.remove(&written) {
            q.written += 1;
            shared.changed.notify_all();
            drop(q);
            out(&buf);
            buf.clear();
            q = shared.lock();
            q.spare.push(buf);
        } else if let Some((k, mut buf)) = shared.claim(&mut q) {
            drop(q);
            format(&mut state, shared.items(k, count), &mut buf);
            q = shared.lock();
            q.done.insert(k, buf);
        } else {
            q = shared.changed.wait(q).unwrap_or_else(|p| p.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items formatted as their numbers, one per line.
    fn numbers(count: usize, block_len: usize, threads: usize) -> Vec<u8> {
        let mut got = Vec::new();
        format_in_order(
            count,
            block_len,
            threads,
            || (),
            |_, items, buf| {
                for i in items {
                    buf.extend_from_slice(format!("{i}\n").as_bytes());
                }
            },
            &mut |b: &[u8]| got.extend_from_slice(b),
        );
        got
    }

    #[test]
    fn blocks_come_out_in_order_whatever_the_threads() {
        let want: Vec<u8> = (0..10_007)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        for threads in [1, 2, 3, 8] {
            for block_len in [1, 7, 1000, 20_000] {
                assert_eq!(
                    numbers(10_007, block_len, threads),
                    want,
                    "{threads} {block_len}"
                );
            }
        }
        assert!(numbers(0, 10, 4).is_empty());
    }

    /// A panic of the formatting of one block, on whichever thread formats
    /// it, comes back to the caller with its payload, within a time limit
    /// (the writer used to wait forever for the block).
    fn panic_reaches_the_caller(threads: usize) {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let r = panic::catch_unwind(|| {
                format_in_order(
                    10_000,
                    10,
                    threads,
                    || (),
                    |_, items, buf| {
                        if items.contains(&5_000) {
                            std::panic::panic_any(5_000usize);
                        }
                        buf.push(b'.');
                    },
                    &mut |_: &[u8]| {},
                )
            });
            let _ = tx.send(r.map_err(|p| p.downcast::<usize>().ok().map(|b| *b)));
        });
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("{threads} threads: no end within 20 s (deadlock)"));
        assert_eq!(got, Err(Some(5_000)), "{threads} threads");
    }

    #[test]
    fn a_panic_reaches_the_caller_at_1_thread() {
        panic_reaches_the_caller(1);
    }

    #[test]
    fn a_panic_reaches_the_caller_at_2_threads() {
        panic_reaches_the_caller(2);
    }

    #[test]
    fn a_panic_reaches_the_caller_at_8_threads() {
        panic_reaches_the_caller(8);
    }
}
