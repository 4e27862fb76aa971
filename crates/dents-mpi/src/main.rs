//! `dents-mpi`: `dents find` and `dents du` across many nodes on MPI.
//!
//! ```text
//! mpirun -np N dents-mpi [--per-rank-output=PREFIX | --output=FILE] du [OPTION]... [FILE]...
//! mpirun -np N dents-mpi [--per-rank-output=PREFIX | --output=FILE] find [STARTING-POINT]... [EXPRESSION]
//! mpirun -np N dents-mpi scan [OPTION]... -o DIR [PATH]...
//! ```
//!
//! Its modules in layers: each uses only modules of lower layers, so there
//! is no import circle (`tests/layers.rs` keeps it so).
//!
//! | layer | module | concern |
//! |-------|--------|---------|
//! | 0 | `wire`   | message tags and the encoding of work items |
//! | 0 | `msg`    | GNU's quoting and error descriptions |
//! | 0 | `binding` | a warning when mpirun's binding leaves the node's cores idle |
//! | 0 | `dev`    | the device a path lies on |
//! | 0 | `gather` | every rank's values, of any length, gathered to every rank |
//! | 0 | `parse_exit` | an exit decided while parsing: rank 0's status made every rank's |
//! | 1 | `engine` | work items on every rank, stealing, Safra's termination, output through rank 0 |
//! | 1 | `slices` | huge directories spread over the ranks as slices of their offset space, for du and find alike |
//! | 1 | `stdin_list` | `find -files0-from -`, `du -X -`: rank 0's standard input given to every rank |
//! | 2 | `du`     | du's sums across ranks: directories completed by messages, hard links owned by hash |
//! | 2 | `find`   | find's evaluator on the engine: directories spilled, `-quit` to every rank |
//! | 3 | `du_order` | du's arguments walked one after another, what each counted known to the next |
//! | 3 | `scan_cmd` | `scan`: a sharded snapshot, each rank's entries to its own shard, the record gathered |
//! | 4 | `du_cmd` | du's command: arguments (`dents du`'s parser, `dents_du::args`), the job over the ranks, the grand total, the export written |
//!
//! The design is written down in docs/distributed.md.

#![deny(unsafe_code)]

mod binding;
mod dev;
mod du;
mod du_cmd;
mod du_order;
mod engine;
mod find;
mod gather;
mod msg;
mod parse_exit;
mod scan_cmd;
mod slices;
mod stdin_list;
mod wire;

use std::os::unix::ffi::OsStringExt;
use std::sync::Arc;

use mpi::environment::Threading;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

const USAGE: &str = "usage: mpirun -np N dents-mpi [--per-rank-output=PREFIX | --output=FILE] du [OPTION]... [FILE]...
   or: mpirun -np N dents-mpi [--per-rank-output=PREFIX | --output=FILE] find [STARTING-POINT]... [EXPRESSION]
   or: mpirun -np N dents-mpi scan [-j N] [-x] [-H | -L] [--names-only] [--since=OLD] -o DIR [PATH]...
";

fn main() {
    let args: Vec<Vec<u8>> = std::env::args_os()
        .skip(1)
        .map(|a| a.into_encoded_bytes())
        .collect();
    let mut setup = engine::Setup {
        per_rank_output: None,
        output: None,
    };
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if let Some(p) = a.strip_prefix(b"--per-rank-output=") {
            setup.per_rank_output = Some(String::from_utf8_lossy(p).into_owned());
        } else if let Some(p) = a.strip_prefix(b"--output=") {
            setup.output = Some(String::from_utf8_lossy(p).into_owned());
        } else {
            break;
        }
        i += 1;
    }
    let Some((cmd, rest)) = args[i..].split_first() else {
        eprint!("{USAGE}");
        std::process::exit(2);
    };
    set_up_before_threads(cmd == b"du");
    let init_started = std::time::Instant::now();
    let Some((universe, threading)) = mpi::initialize_with_threading(Threading::Multiple) else {
        eprintln!("dents-mpi: MPI was initialized already");
        std::process::exit(2);
    };
    let init_ms = init_started.elapsed().as_millis();
    // The launcher's connection, which MPI_Finalize's last messages take:
    // without this each rank waited 40 ms for a delayed acknowledgement.
    dents_os::no_delay_on_loopback_tcp();
    let world = universe.world();
    let rank = world.rank();
    let status = if threading != Threading::Multiple {
        if world.rank() == 0 {
            eprintln!("dents-mpi: this MPI library does not support MPI_THREAD_MULTIPLE");
        }
        2
    } else {
        if rank == 0 {
            if let Some(w) = binding::idle_cores_warning() {
                eprintln!("dents-mpi: warning: {w}");
            }
        }
        let started = engine::Mailer::start(&world, &setup);
        // Rank 0 alone opens `--output`: a rank that failed to start must
        // end every rank, not leave them waiting for it in the walk.
        let mut failed = 0i32;
        world.all_reduce_into(
            &(started.is_err() as i32),
            &mut failed,
            mpi::collective::SystemOperation::max(),
        );
        match started {
            Err(m) => {
                eprintln!("dents-mpi: {m}");
                2
            }
            Ok((mailer, sender)) if failed != 0 => {
                mailer.close(sender);
                2
            }
            Ok((mailer, sender)) => {
                let status = match cmd.as_slice() {
                    b"du" => du_cmd::run(&world, &mailer, rest),
                    b"find" => run_find(&world, &mailer, rest),
                    b"scan" => scan_cmd::run(&world, &mailer, rest),
                    _ => {
                        if world.rank() == 0 {
                            eprint!("{USAGE}");
                        }
                        2
                    }
                };
                mailer.close(sender);
                status
            }
        }
    };
    // MPI is finalized when the universe goes, which exit would skip.
    let finalize_started = std::time::Instant::now();
    drop(universe);
    if std::env::var_os("DENTS_MPI_STATS").is_some() {
        // One write, so that the ranks' lines never mix.
        let line = format!(
            "dents-mpi: rank {rank}: MPI_Init {init_ms} ms, MPI_Finalize {} ms, {} ms from main to the end\n",
            finalize_started.elapsed().as_millis(),
            init_started.elapsed().as_millis(),
        );
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
    }
    std::process::exit(status);
}

/// `find`: GNU find's lines (those of `dents find`), from every rank.
fn run_find(world: &SimpleCommunicator, mailer: &Arc<engine::Mailer>, args: &[Vec<u8>]) -> i32 {
    if stdin_list::wanted(args) && !stdin_list::share_all(world) {
        return 2;
    }
    let args: Vec<std::ffi::OsString> = args
        .iter()
        .map(|a| std::ffi::OsString::from_vec(a.clone()))
        .collect();
    let command = match dents_find::Command::parse(&args) {
        Ok(c) => c,
        Err(e) => {
            if world.rank() == 0 {
                e.report();
            }
            return 1;
        }
    };
    let mut walker = find::MpiWalk {
        world,
        mailer: mailer.clone(),
        quit: false,
        status: 0,
    };
    let status = command.run_to_with(find::MailerSink(mailer.clone()), &mut walker);
    let mut worst = 0i32;
    world.all_reduce_into(
        &status.code().max(walker.status),
        &mut worst,
        mpi::collective::SystemOperation::max(),
    );
    worst
}

/// The time zone and month names for find's `-printf` and `-ls`, and for
/// du one malloc arena (as `dents du` has: its walker's threads otherwise
/// each keep an arena's worth of freed memory, a higher peak for no
/// speed:
/// docs/history/benchmarks.md#memory-output-buffers-reused-one-malloc-arena-for-du);
/// called from `main` before MPI starts its threads and before any walker.
#[allow(unsafe_code)]
fn set_up_before_threads(du: bool) {
    // SAFETY: MPI is not initialised yet and no walker has started: this
    // is still the only thread, so nothing reads the time zone or the
    // locale while they change, and nothing allocates while mallopt runs.
    unsafe {
        dents_os::tzset();
        dents_os::use_time_locale();
        if du {
            dents_os::limit_malloc_arenas(1);
        }
    }
}
