//! An exit decided while parsing the command line (`--help`, `--version`,
//! a text that could not be written): every rank parsed the same words
//! and so stops at the same point, but only rank 0 wrote, so only rank
//! 0 knows whether its write failed; its status becomes every rank's,
//! so that mpirun sees one (a collective call).

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// Rank 0's `status`, on every rank.
pub fn rank0_status(world: &SimpleCommunicator, mut status: i32) -> i32 {
    world.process_at_rank(0).broadcast_into(&mut status);
    status
}
