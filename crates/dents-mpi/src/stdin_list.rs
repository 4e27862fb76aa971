//! `find -files0-from -` over the ranks: mpirun gives its standard input
//! to rank 0 only, so rank 0 alone read names and walked them while the
//! other ranks, reading an empty input, walked nothing and waited at
//! the end for walks that never came (the job never ended at `-np 2`
//! and more).  Rank 0 now reads its standard input whole and every rank
//! gets the same bytes as its standard input, so every rank runs the
//! same walks.  `du -X -` likewise: every rank parses the command line
//! and needs the same patterns.

use std::io::{self, Read, Seek, Write};

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use rustix::fs::{memfd_create, MemfdFlags};

/// Whether find's arguments read the starting points from standard input.
pub fn wanted(args: &[Vec<u8>]) -> bool {
    args.windows(2)
        .any(|w| w[0] == b"-files0-from" && w[1] == b"-")
}

/// Gives every rank rank 0's standard input (a collective call); an
/// error message if this rank could not replace its own.
pub fn share(world: &SimpleCommunicator) -> Result<(), String> {
    let root = world.process_at_rank(0);
    let mut bytes = Vec::new();
    let mut failed = 0i32;
    if world.rank() == 0 {
        if let Err(e) = io::stdin().lock().read_to_end(&mut bytes) {
            // Said once, here; every rank ends alike.
            eprintln!("dents-mpi: standard input: {}", crate::msg::describe(&e));
            failed = 1;
        }
    }
    root.broadcast_into(&mut failed);
    if failed != 0 {
        return Err(String::new());
    }
    let mut len = bytes.len() as u64;
    root.broadcast_into(&mut len);
    bytes.resize(len as usize, 0);
    root.broadcast_into(&mut bytes[..]);
    replace_stdin(&bytes).map_err(|e| format!("standard input: {}", crate::msg::describe(&e)))
}

/// [`share`], and whether every rank succeeded (a collective call): a
/// rank that failed says why.
pub fn share_all(world: &SimpleCommunicator) -> bool {
    let shared = share(world);
    let mut failed = 0i32;
    world.all_reduce_into(
        &(shared.is_err() as i32),
        &mut failed,
        mpi::collective::SystemOperation::max(),
    );
    if let Err(m) = &shared {
        if !m.is_empty() {
            eprintln!("dents-mpi: {m}");
        }
    }
    failed == 0
}

/// Makes `bytes` this process's standard input (an anonymous file).
fn replace_stdin(bytes: &[u8]) -> io::Result<()> {
    let fd = memfd_create("dents-mpi-files0", MemfdFlags::CLOEXEC)?;
    let mut f = std::fs::File::from(fd);
    f.write_all(bytes)?;
    f.rewind()?;
    rustix::stdio::dup2_stdin(&f)?;
    Ok(())
}
