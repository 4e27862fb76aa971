//! `find -files0-from -` over the ranks: mpirun gives its standard input
//! to rank 0 only, so rank 0 alone read names and walked them while the
//! other ranks, reading an empty input, walked nothing and waited at
//! the end for walks that never came (the job never ended at `-np 2`
//! and more).  Rank 0 now reads its standard input whole and every rank
//! gets the same bytes as its standard input, so every rank runs the
//! same walks.

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

/// Makes `bytes` this process's standard input (an anonymous file).
fn replace_stdin(bytes: &[u8]) -> io::Result<()> {
    let fd = memfd_create("dents-mpi-files0", MemfdFlags::CLOEXEC)?;
    let mut f = std::fs::File::from(fd);
    f.write_all(bytes)?;
    f.rewind()?;
    rustix::stdio::dup2_stdin(&f)?;
    Ok(())
}
