//! du's arguments charged in their order, as GNU du charges them: each
//! argument is walked over all ranks to its end before the next one
//! starts, and what it counted (hard links in their owners' sets,
//! directories and file arguments in every rank's seen set) is known to
//! the walks after it.  Walked together, two arguments that share hard
//! links or overlap raced for them: `du -s backup.1 backup.2` charged
//! the shared files to either, differently each run.
//!
//! The cost: one termination (a few waves of an all-reduce) and one
//! all-gather of the new directories per argument, and ranks idle at the
//! end of each argument's walk instead of once.

use std::sync::Arc;

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::du::DuJob;
use crate::engine::{self, Mailer, Outcome};

/// Walks `files` (rank 0's: with `--files0-from` the other ranks have
/// none) one after another over the ranks; the worst outcome.
pub fn run(
    world: &SimpleCommunicator,
    mailer: &Arc<Mailer>,
    job: &DuJob,
    files: &[Vec<u8>],
) -> Outcome {
    let mut n = files.len() as u64;
    world.process_at_rank(0).broadcast_into(&mut n);
    let mut outcome = Outcome {
        status: 0,
        quit: false,
    };
    for i in 0..n as usize {
        if i > 0 {
            job.share_seen(world);
        }
        let initial = match files.get(i) {
            Some(f) if world.rank() == 0 => vec![DuJob::item(f, i)],
            _ => Vec::new(),
        };
        let o = engine::run(world, mailer, job, initial);
        outcome.status = outcome.status.max(o.status);
        outcome.quit |= o.quit;
    }
    outcome
}
