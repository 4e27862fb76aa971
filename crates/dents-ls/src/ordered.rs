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

use std::collections::BTreeMap;
use std::ops::Range;
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
                    format(&mut state, shared.items(k, count), &mut buf);
                    q = shared.lock();
                    q.done.insert(k, buf);
                    shared.changed.notify_all();
                }
            });
        }
        // The calling thread writes, and formats while it has nothing to
        // write.
        let mut state = make_state();
        let mut q = shared.lock();
        while q.written < shared.blocks {
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
    });
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
}
