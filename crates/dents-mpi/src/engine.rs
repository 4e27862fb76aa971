//! The distributed engine: work items on every rank, idle ranks stealing,
//! termination by waves of an all-reduce, output and messages through rank 0.
//!
//! Each rank runs three threads of its own:
//!
//! - the *worker* takes a batch of items from the rank's queue and hands
//!   it to the [`Job`], which walks it on the library's multi-threaded
//!   walker (whose threads the walk starts); while walking, the job
//!   *spills* directories it meets into the queue instead of walking them
//!   ([`Ctx::wants_spill`]), so that the queue holds work to give away;
//! - the *sender* sends what the other threads queue for other ranks, with
//!   blocking sends: a big send waits for its receiver, whose main thread
//!   is always receiving, so no two ranks ever wait on each other;
//! - the *main* thread receives and answers: steal requests (half the
//!   queue, or "no work"), stolen items, output for rank 0, the job's
//!   messages; when the rank is idle it asks a random rank for work (as
//!   libcircle does) and takes part in the termination waves.
//!
//! Termination (Safra's counting, EWD998, gathered by waves of a
//! non-blocking all-reduce instead of a token ring): every rank counts the
//! *basic* messages it sent minus those it received (work, output, the
//! job's messages, `-quit`) and turns black on receiving one.  A passive
//! rank adds its count and its colour to the current wave and turns
//! white; once every rank's part is in, every rank learns the sums at
//! once, in O(log R) steps of MPI's own all-reduce where a token ring
//! takes R hops: no black and a zero count mean that no rank works and no
//! message is under way (the argument is at [`main_loop`]).  Requests and
//! "no work" answers and acknowledgements are control messages outside
//! the count: an idle rank asking for work does not keep the others from
//! terminating.  Every control message still under way at the end is
//! awaited by the rank it concerns before the closing non-blocking
//! barrier, which every rank keeps answering requests through: nothing is
//! left unreceived when MPI is finalized.
//!
//! A panic of the job (a bug, on the worker or in a message's handling on
//! the main thread) cannot end one rank alone: the others would wait
//! forever for its part of the termination waves.  It is caught, said
//! with the rank's number, and ends the whole job through `MPI_Abort` with
//! status [`PANIC_STATUS`] (see [`abort_on_panic`]).

use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::msg;
use crate::wire::{self, Item};

/// Items a rank keeps ready to give away while it walks, per rank of the
/// run, up to [`RESERVE`].  Fewer leaves thieves empty-handed: in the
/// simulation (docs/distributed.md) a reserve of 8 whatever the ranks
/// made work stop spreading past 4 ranks.  More costs each item its own
/// start (an open and a stat of its path) and a walk per batch.
const RESERVE_PER_RANK: usize = 4;

/// The most items kept ready while no thief went away empty-handed.
const RESERVE: usize = 64;

/// Items kept ready once a thief went away empty-handed, per rank, up to
/// [`HUNGRY_RESERVE`].
const HUNGRY_RESERVE_PER_RANK: usize = 16;

/// The most items kept ready once a thief went away empty-handed.
const HUNGRY_RESERVE: usize = 256;

/// After "no work", the wait before asking again: short and fixed.  A
/// pause that doubled up to 10 ms kept work from spreading past a few
/// ranks in the simulation, and a short fixed one spread it
/// (docs/distributed.md#what-the-simulation-says-about-the-engine); none
/// at all has a starving rank wake every 20 µs.
const ASK_PAUSE: Duration = Duration::from_micros(100);

/// Items the worker takes for one walk, at most.
const BATCH: usize = 16;

/// With other ranks, items the worker takes for one walk per walker
/// thread, at most: items taken are no longer anyone else's to steal.  In
/// the simulation at a parallel file system's costs, 16 items a batch at
/// one thread a rank left one of 1024 ranks busy for the whole walk
/// (287k entries/s; 640k with 2 per thread).
const BATCH_PER_THREAD: usize = 2;

/// Output batches a rank may have on their way to rank 0 unacknowledged:
/// the bound on every rank's output memory, with [`FLUSH_AT`].
const WINDOW: usize = 4;

/// Bytes of lines gathered before they go out as one batch.
pub const FLUSH_AT: usize = 64 * 1024;

/// The exit status of a job ended by a panic on some rank: Rust's own for
/// a panic, so that it is told apart from the commands' statuses (0 to 2).
pub const PANIC_STATUS: i32 = 101;

/// Ends the whole job after a panic with `payload` on this rank: says so
/// on standard error (after the panic hook's own message) and aborts every
/// rank through `MPI_Abort`, which `mpirun` ends with [`PANIC_STATUS`].
fn abort_on_panic(rank: u32, payload: Box<dyn std::any::Any + Send>) -> ! {
    let what = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("a panic");
    let line = format!("dents-mpi: rank {rank}: internal error: {what}; ending the job\n");
    write_whole(&mut std::io::stderr().lock(), line.as_bytes());
    SimpleCommunicator::world().abort(PANIC_STATUS)
}

/// A rank's part of a distributed command: walks items, answers its own
/// messages.
pub trait Job: Sync {
    /// Walks `items` (on this rank's walker), spilling through `ctx`.
    fn run(&self, items: Vec<Item>, ctx: &Ctx);
    /// Handles a [`wire::JOB`] message from another rank.
    fn message(&self, body: &[u8], ctx: &Ctx);
    /// Writes what the job holds back (lines of directories completed by
    /// messages): the rank is about to count as idle.
    fn flush(&self, ctx: &Ctx);
    /// The threads of this rank's walker.
    fn walker_threads(&self) -> usize;
}

/// A message for the sender thread.
struct Outgoing {
    dest: i32,
    tag: i32,
    body: Vec<u8>,
}

/// The rank's queue of items and whether its worker is walking.
struct Queue {
    items: VecDeque<Item>,
    busy: bool,
    shutdown: bool,
}

/// Where this rank's output lines go.
enum Sink {
    /// Rank 0 (or a single rank): straight to standard output.
    Stdout,
    /// To rank 0, in batches.
    Forward,
    /// Each rank to a file of its own.
    File(Mutex<File>),
    /// Rank 0, every rank's lines to one file (`--output`).
    Merged(Mutex<File>),
}

/// What a job sees of the engine: the queue, messages, output, status.
pub struct Ctx {
    rank: u32,
    size: u32,
    queue: Mutex<Queue>,
    wake: Condvar,
    quit: AtomicBool,
    /// Safra's color: a basic message was received since the token passed.
    black: AtomicBool,
    /// A thief went away empty-handed: spill more.
    hungry: AtomicBool,
    mailer: Arc<Mailer>,
    status: AtomicI32,
    /// Items walked and stolen here (reported with `DENTS_MPI_STATS`).
    items_walked: AtomicU64,
    items_stolen: AtomicU64,
}

impl Ctx {
    /// This rank's number.
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// How many ranks run.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// Whether the job should hand the directory it meets to the queue
    /// rather than walk it: only with other ranks to share with, and only
    /// while the queue holds less than a thief could take.
    pub fn wants_spill(&self) -> bool {
        if self.size < 2 || self.quitting() {
            return false;
        }
        let ranks = self.size as usize;
        let want = if self.hungry.load(Ordering::Relaxed) {
            (HUNGRY_RESERVE_PER_RANK * ranks).min(HUNGRY_RESERVE)
        } else {
            (RESERVE_PER_RANK * ranks).min(RESERVE)
        };
        let q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        let have = q.items.len();
        if have >= want {
            self.hungry.store(false, Ordering::Relaxed);
        }
        have < want
    }

    /// Queues an item here (a directory the job spilled).
    pub fn spill(&self, item: Item) {
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        q.items.push_back(item);
        self.wake.notify_one();
    }

    /// Sends a job message to another rank (counted for termination).
    pub fn send_job(&self, dest: u32, body: Vec<u8>) {
        debug_assert_ne!(dest, self.rank);
        self.mailer.send_basic(dest as i32, wire::JOB, body);
    }

    fn send_basic(&self, dest: i32, tag: i32, body: Vec<u8>) {
        self.mailer.send_basic(dest, tag, body);
    }

    fn send_control(&self, dest: i32, tag: i32, body: Vec<u8>) {
        self.mailer.send_control(dest, tag, body);
    }

    /// Writes whole lines to the command's standard output (rank 0's),
    /// waiting while this rank has too many batches under way.
    pub fn write_out(&self, lines: &[u8]) {
        if !self.mailer.write_out(lines) {
            self.fail(1);
        }
    }

    /// Writes whole messages to the command's standard error (rank 0's).
    pub fn write_err(&self, msg: Vec<u8>) {
        self.mailer.write_err(msg);
    }

    /// Records an exit status (the worst one wins).
    pub fn fail(&self, status: i32) {
        self.status.fetch_max(status, Ordering::Relaxed);
    }

    /// The exit status so far on this rank.
    pub fn status(&self) -> i32 {
        self.status.load(Ordering::Relaxed)
    }

    /// Stops every rank's walk (`-quit`).
    pub fn quit(&self) {
        if self.quit.swap(true, Ordering::SeqCst) {
            return;
        }
        self.clear_queue();
        for r in (0..self.size).filter(|&r| r != self.rank) {
            self.send_basic(r as i32, wire::QUIT, Vec::new());
        }
    }

    /// Whether a `-quit` was met on some rank.
    pub fn quitting(&self) -> bool {
        self.quit.load(Ordering::Relaxed)
    }

    fn clear_queue(&self) {
        self.queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .items
            .clear();
    }

    /// Idle: nothing queued, the worker not walking.
    fn is_passive(&self) -> bool {
        let q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        q.items.is_empty() && !q.busy
    }

    /// The front half of the queue (rounded up), for a thief.
    fn give_away(&self) -> Vec<Item> {
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        let n = q.items.len().div_ceil(2);
        q.items.drain(..n).collect()
    }

    fn received_basic(&self) {
        self.mailer.count.fetch_sub(1, Ordering::SeqCst);
        self.black.store(true, Ordering::SeqCst);
    }

    /// The worker: walks batches until the engine shuts down.
    fn work<J: Job>(&self, job: &J) {
        loop {
            let batch: Vec<Item> = {
                let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
                q.busy = false;
                while q.items.is_empty() && !q.shutdown {
                    q = self.wake.wait(q).unwrap_or_else(|e| e.into_inner());
                }
                if q.shutdown {
                    return;
                }
                q.busy = true;
                // With other ranks, half the queue at most: the rest is
                // there for thieves (a huge directory's slices, say).
                let n = if self.size > 1 {
                    let most = (BATCH_PER_THREAD * job.walker_threads()).clamp(1, BATCH);
                    q.items.len().div_ceil(2).min(most)
                } else {
                    q.items.len().min(BATCH)
                };
                q.items.drain(..n).collect()
            };
            self.items_walked
                .fetch_add(batch.len() as u64, Ordering::Relaxed);
            let walked =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.run(batch, self)));
            if let Err(payload) = walked {
                abort_on_panic(self.rank, payload);
            }
        }
    }
}

thread_local! {
    /// Set on the thread running the main loop.
    static ON_MAIN_LOOP: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Writes `bytes` with as few writes as it takes, ignoring a closed pipe
/// (the status says so elsewhere).
fn write_whole(w: &mut dyn Write, bytes: &[u8]) {
    let _ = w.write_all(bytes);
    let _ = w.flush();
}

/// How a process is set up.
pub struct Setup {
    /// Each rank writes its output lines to `PREFIX.RANK` instead of
    /// sending them to rank 0.
    pub per_rank_output: Option<String>,
    /// Rank 0 writes every rank's lines to this file instead of its
    /// standard output (which under mpirun is a pipe to mpirun, copied
    /// on in small reads: printing every path costs several times the
    /// walk that way).
    pub output: Option<String>,
}

/// What a run ended with.
pub struct Outcome {
    /// The worst exit status over all ranks.
    pub status: i32,
    /// Whether some rank met a `-quit`.
    pub quit: bool,
}

/// What outlives one run in a process: the sender thread, Safra's
/// counter (cumulative: it sums to zero over the ranks whenever no run
/// is under way), the output window and where output goes.  A job's
/// output sink may hold it beyond a run (find's writer is `'static`).
pub struct Mailer {
    rank: u32,
    /// Taken away at the end, which ends the sender thread.
    sender: Mutex<Option<mpsc::Sender<Outgoing>>>,
    /// Safra's counter: basic messages sent minus received.
    count: AtomicI64,
    /// Output batches under way to rank 0.
    window: Mutex<usize>,
    window_cv: Condvar,
    /// Buffers of output batches already sent, for the next ones: a
    /// rank forwarding every path reuses at most `WINDOW + 1` buffers
    /// instead of allocating one a batch (which, freed by the sender
    /// thread, left the walker threads' malloc arenas fragmented and
    /// raised each rank's peak RSS when printing every path:
    /// docs/history/benchmarks.md#memory-output-buffers-reused-one-malloc-arena-for-du).
    spare: Arc<Mutex<Vec<Vec<u8>>>>,
    out: Sink,
}

impl Mailer {
    /// Starts the sender thread; `Err` with a message if the per-rank
    /// output file cannot be made.
    pub fn start(
        world: &SimpleCommunicator,
        setup: &Setup,
    ) -> Result<(Arc<Mailer>, std::thread::JoinHandle<()>), String> {
        let rank = world.rank() as u32;
        let out = match &setup.per_rank_output {
            Some(prefix) => match File::create(format!("{prefix}.{rank}")) {
                Ok(f) => Sink::File(Mutex::new(f)),
                Err(e) => return Err(format!("{prefix}.{rank}: {}", msg::describe(&e))),
            },
            None if rank != 0 => Sink::Forward,
            None => match &setup.output {
                Some(path) => match File::create(path) {
                    Ok(f) => Sink::Merged(Mutex::new(f)),
                    Err(e) => return Err(format!("{path}: {}", msg::describe(&e))),
                },
                None => Sink::Stdout,
            },
        };
        let (tx, rx) = mpsc::channel::<Outgoing>();
        let spare = Arc::new(Mutex::new(Vec::new()));
        let recycled = Arc::clone(&spare);
        let thread = std::thread::spawn(move || {
            let world = SimpleCommunicator::world();
            for mut m in rx {
                send_politely(&world, &m);
                if m.tag == wire::STDOUT {
                    let mut spare = recycled.lock().unwrap_or_else(|e| e.into_inner());
                    if spare.len() <= WINDOW {
                        m.body.clear();
                        spare.push(m.body);
                    }
                }
            }
        });
        let mailer = Mailer {
            rank,
            sender: Mutex::new(Some(tx)),
            count: AtomicI64::new(0),
            window: Mutex::new(0),
            window_cv: Condvar::new(),
            spare,
            out,
        };
        Ok((Arc::new(mailer), thread))
    }

    /// Ends the sender thread once it has sent what is queued.
    pub fn close(&self, thread: std::thread::JoinHandle<()>) {
        self.sender.lock().unwrap_or_else(|e| e.into_inner()).take();
        let _ = thread.join();
    }

    fn send_basic(&self, dest: i32, tag: i32, body: Vec<u8>) {
        self.count.fetch_add(1, Ordering::SeqCst);
        self.send_control(dest, tag, body);
    }

    fn send_control(&self, dest: i32, tag: i32, body: Vec<u8>) {
        let sender = self.sender.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = sender.as_ref() {
            let _ = s.send(Outgoing { dest, tag, body });
        }
    }

    /// Writes whole lines to the command's standard output (see
    /// [`Ctx::write_out`]); `false` if a per-rank file failed.
    pub fn write_out(&self, lines: &[u8]) -> bool {
        if lines.is_empty() {
            return true;
        }
        match &self.out {
            Sink::Stdout => write_whole(&mut std::io::stdout().lock(), lines),
            Sink::File(f) | Sink::Merged(f) => {
                let mut f = f.lock().unwrap_or_else(|e| e.into_inner());
                return f.write_all(lines).is_ok();
            }
            Sink::Forward => {
                let spare = self.spare.lock().unwrap_or_else(|e| e.into_inner()).pop();
                let mut batch = spare.unwrap_or_default();
                batch.extend_from_slice(lines);
                self.forward(wire::STDOUT, batch);
            }
        }
        true
    }

    /// Writes lines to rank 0's merged output (standard output, or the
    /// `--output` file): lines another rank forwarded, du's grand total.
    pub fn write_merged(&self, lines: &[u8]) {
        match &self.out {
            Sink::Merged(f) => {
                let mut f = f.lock().unwrap_or_else(|e| e.into_inner());
                let _ = f.write_all(lines);
            }
            _ => write_whole(&mut std::io::stdout().lock(), lines),
        }
    }

    /// Writes a whole message to the command's standard error.
    pub fn write_err(&self, msg: Vec<u8>) {
        if self.rank == 0 || matches!(self.out, Sink::File(_)) {
            write_whole(&mut std::io::stderr().lock(), &msg);
        } else {
            self.forward(wire::STDERR, msg);
        }
    }

    fn forward(&self, tag: i32, bytes: Vec<u8>) {
        let mut w = self.window.lock().unwrap_or_else(|e| e.into_inner());
        // The main thread receives the acknowledgements: it never waits
        // for one (what it writes, du's lines of directories completed by
        // a message, is bounded by the message).
        while *w >= WINDOW && !ON_MAIN_LOOP.with(|m| m.get()) {
            w = self.window_cv.wait(w).unwrap_or_else(|e| e.into_inner());
        }
        *w += 1;
        drop(w);
        self.send_basic(0, tag, bytes);
    }

    /// An output batch reached rank 0: one more may go.
    fn ack(&self) {
        let mut w = self.window.lock().unwrap_or_else(|e| e.into_inner());
        *w = w.saturating_sub(1);
        self.window_cv.notify_all();
    }

    fn settled(&self) -> bool {
        *self.window.lock().unwrap_or_else(|e| e.into_inner()) == 0
    }
}

/// Runs `job` on every rank of `world`, starting from `initial` (given on
/// rank 0; the others start idle and steal).
pub fn run<J: Job>(
    world: &SimpleCommunicator,
    mailer: &Arc<Mailer>,
    job: &J,
    initial: Vec<Item>,
) -> Outcome {
    let rank = world.rank() as u32;
    let size = world.size() as u32;
    let started = std::time::Instant::now();
    let ctx = Ctx {
        rank,
        size,
        queue: Mutex::new(Queue {
            items: if rank == 0 {
                initial.into()
            } else {
                VecDeque::new()
            },
            busy: false,
            shutdown: false,
        }),
        wake: Condvar::new(),
        quit: AtomicBool::new(false),
        black: AtomicBool::new(false),
        hungry: AtomicBool::new(false),
        mailer: mailer.clone(),
        status: AtomicI32::new(0),
        items_walked: AtomicU64::new(0),
        items_stolen: AtomicU64::new(0),
    };
    std::thread::scope(|s| {
        let worker = s.spawn(|| ctx.work(job));
        ON_MAIN_LOOP.with(|m| m.set(true));
        let asking =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| main_loop(world, &ctx, job)))
                .unwrap_or_else(|payload| abort_on_panic(rank, payload));
        {
            let mut q = ctx.queue.lock().unwrap_or_else(|e| e.into_inner());
            q.shutdown = true;
            ctx.wake.notify_all();
        }
        let _ = worker.join();
        wind_down(world, &ctx, asking);
        ON_MAIN_LOOP.with(|m| m.set(false));
    });
    if std::env::var_os("DENTS_MPI_STATS").is_some() {
        // One write, so that the ranks' lines never mix.
        let line = format!(
            "dents-mpi: rank {rank}: {} items walked, {} received by stealing, peak RSS {} KiB, {} ms from start to termination\n",
            ctx.items_walked.load(Ordering::Relaxed),
            ctx.items_stolen.load(Ordering::Relaxed),
            peak_rss_kib().map_or("?".to_string(), |k| k.to_string()),
            started.elapsed().as_millis(),
        );
        write_whole(&mut std::io::stderr().lock(), line.as_bytes());
    }
    let mut worst = [0i32; 2];
    world.all_reduce_into(
        &[ctx.status(), ctx.quitting() as i32][..],
        &mut worst[..],
        mpi::collective::SystemOperation::max(),
    );
    Outcome {
        status: worst[0],
        quit: worst[1] != 0,
    }
}

/// Sends one message, polling for its completion with sleeps in between:
/// a blocking send of a big message would spin on a core (rendezvous with
/// a receiver that polls too) that the walkers need.
fn send_politely(world: &SimpleCommunicator, m: &Outgoing) {
    mpi::request::scope(|scope| {
        let mut req =
            world
                .process_at_rank(m.dest)
                .immediate_send_with_tag(scope, &m.body[..], m.tag);
        let mut nap = 1u64;
        loop {
            match req.test() {
                Ok(_) => return,
                Err(r) => req = r,
            }
            std::thread::sleep(Duration::from_micros(nap));
            nap = (nap * 2).min(500);
        }
    });
}

/// This process's peak resident set (`VmHWM`), in KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The main thread's state between its turns: its steal requests and
/// its sleeps.
struct MainLoop {
    rng: u64,
    /// A request for work is out, unanswered.
    asking: bool,
    /// When the next request may go (a short pause after "no work").
    next_ask: std::time::Instant,
    /// Turns in a row that received nothing (the sleep doubles with each).
    idle_rounds: u32,
}

impl MainLoop {
    fn new(rank: u32) -> MainLoop {
        MainLoop {
            rng: (rank as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            asking: false,
            next_ask: std::time::Instant::now(),
            idle_rounds: 0,
        }
    }

    /// One turn: receives and answers everything that arrived, flushes
    /// the job's held-back lines once the rank is idle, and asks a random
    /// rank for work if idle.  Returns whether anything arrived.
    fn turn<J: Job>(&mut self, world: &SimpleCommunicator, ctx: &Ctx, job: &J) -> bool {
        let mut progress = false;
        while let Some(probed) = world.any_process().immediate_matched_probe() {
            progress = true;
            let (body, status) = probed.matched_receive_vec::<u8>();
            let src = status.source_rank();
            match status.tag() {
                wire::REQUEST => {
                    let items = ctx.give_away();
                    if items.is_empty() {
                        ctx.hungry.store(true, Ordering::Relaxed);
                        ctx.send_control(src, wire::NO_WORK, Vec::new());
                    } else {
                        ctx.send_basic(src, wire::WORK, wire::encode_items(&items));
                    }
                }
                wire::WORK => {
                    ctx.received_basic();
                    self.asking = false;
                    let items = wire::decode_items(&body);
                    ctx.items_stolen
                        .fetch_add(items.len() as u64, Ordering::Relaxed);
                    if !ctx.quitting() {
                        let mut q = ctx.queue.lock().unwrap_or_else(|e| e.into_inner());
                        q.items.extend(items);
                        ctx.wake.notify_one();
                    }
                }
                wire::NO_WORK => {
                    self.asking = false;
                    self.next_ask = std::time::Instant::now() + ASK_PAUSE;
                }
                wire::QUIT => {
                    ctx.received_basic();
                    ctx.quit.store(true, Ordering::SeqCst);
                    ctx.clear_queue();
                }
                wire::STDOUT => {
                    ctx.received_basic();
                    ctx.mailer.write_merged(&body);
                    ctx.send_control(src, wire::ACK, Vec::new());
                }
                wire::STDERR => {
                    ctx.received_basic();
                    write_whole(&mut std::io::stderr().lock(), &body);
                    ctx.send_control(src, wire::ACK, Vec::new());
                }
                wire::ACK => ack(ctx),
                wire::JOB => {
                    ctx.received_basic();
                    job.message(&body, ctx);
                }
                _ => {}
            }
        }
        if ctx.is_passive() {
            job.flush(ctx);
            if ctx.size > 1
                && !self.asking
                && !ctx.quitting()
                && std::time::Instant::now() >= self.next_ask
            {
                self.rng ^= self.rng << 13;
                self.rng ^= self.rng >> 7;
                self.rng ^= self.rng << 17;
                let others = ctx.size as u64 - 1;
                let victim = (ctx.rank as u64 + 1 + self.rng % others) % ctx.size as u64;
                ctx.send_control(victim as i32, wire::REQUEST, Vec::new());
                self.asking = true;
            }
        }
        progress
    }

    /// Sleeps after a turn that received nothing, longer each time: up to
    /// 160 µs with other ranks (a steal request or the termination wave
    /// waits for this rank's next turn), up to 1.28 ms alone.  (Polling
    /// every 20 µs while walking, as before session 5, woke the main
    /// thread constantly and made `-np 1 find -false` markedly slower than
    /// one process: docs/history/benchmarks.md#session-5-dents-mpi-issue-16.)
    fn rest(&mut self, ctx: &Ctx, progress: bool) {
        if progress {
            self.idle_rounds = 0;
            return;
        }
        let cap = if ctx.size > 1 { 4 } else { 7 };
        self.idle_rounds = (self.idle_rounds + 1).min(cap);
        std::thread::sleep(Duration::from_micros(10 << self.idle_rounds));
    }
}

/// Receives and answers until termination is detected; returns whether
/// a request for work is still unanswered.
///
/// Termination by waves: once passive, a rank adds its part (Safra's
/// count of basic messages sent minus received, and its colour: whether
/// it received one since its last part) to a non-blocking all-reduce and
/// turns white, going on receiving, answering and stealing meanwhile.
/// When every rank's part is in, each learns the sums at once: no colour
/// and a zero count mean that no rank works and no message is under way
/// (each rank was passive when it added its part, received nothing since
/// its part of the wave before, which every rank had finished, and the
/// counts say no message was sent that is not yet received); otherwise
/// each rank adds its next part when next passive.  The all-reduce costs
/// O(log R) steps where a token ring costs R hops.
fn main_loop<J: Job>(world: &SimpleCommunicator, ctx: &Ctx, job: &J) -> bool {
    let mut main = MainLoop::new(ctx.rank);
    loop {
        // Until passive (and the job's held-back lines flushed).
        loop {
            let progress = main.turn(world, ctx, job);
            if ctx.is_passive() {
                break;
            }
            main.rest(ctx, progress);
        }
        let part = [
            ctx.mailer.count.load(Ordering::SeqCst),
            ctx.black.swap(false, Ordering::SeqCst) as i64,
        ];
        let mut sums = [0i64; 2];
        mpi::request::scope(|scope| {
            let mut wave = world.immediate_all_reduce_into(
                scope,
                &part[..],
                &mut sums[..],
                mpi::collective::SystemOperation::sum(),
            );
            loop {
                match wave.test() {
                    Ok(_) => return,
                    Err(w) => wave = w,
                }
                let progress = main.turn(world, ctx, job);
                main.rest(ctx, progress);
            }
        });
        if sums == [0, 0] {
            return main.asking;
        }
    }
}

/// An output batch reached rank 0: one more may go.
fn ack(ctx: &Ctx) {
    ctx.mailer.ack();
}

/// After termination: awaits the control messages still under way to
/// this rank (the answer to its last request, its acknowledgements),
/// then a non-blocking barrier, answering requests meanwhile.
fn wind_down(world: &SimpleCommunicator, ctx: &Ctx, mut asking: bool) {
    let mut barrier = None;
    loop {
        while let Some(probed) = world.any_process().immediate_matched_probe() {
            let (_, status) = probed.matched_receive_vec::<u8>();
            match status.tag() {
                wire::REQUEST => ctx.send_control(status.source_rank(), wire::NO_WORK, Vec::new()),
                wire::ACK => ack(ctx),
                wire::NO_WORK => asking = false,
                _ => {}
            }
        }
        match barrier.take() {
            None => {
                let settled = !asking && ctx.mailer.settled();
                if settled {
                    barrier = Some(world.immediate_barrier());
                }
            }
            Some(b) => match b.test() {
                Ok(_) => return,
                Err(b) => barrier = Some(b),
            },
        }
        std::thread::sleep(Duration::from_micros(50));
    }
}
