//! `dents-mpi du`'s command: its arguments read, the job run over the
//! ranks (`du`), the grand total reduced over them, and the ncdu export
//! written by rank 0.

use std::io;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

use dents_du::engine::Dui;
use dents_du::ncdu::{self, Export};
use dents_du::time_style::NO_TIME;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::du::DuJob;
use crate::du_args;
use crate::du_order;
use crate::engine::Mailer;
use crate::msg;

/// `dents-mpi du ARGS`: GNU du's lines, each directory's total over all
/// ranks; the exit status, the worst over the ranks.
pub fn run(world: &SimpleCommunicator, mailer: &Arc<Mailer>, args: &[Vec<u8>]) -> i32 {
    let parsed = match du_args::parse(args) {
        Ok(p) => p,
        Err(m) => {
            if world.rank() == 0 {
                eprintln!("du: {m}\nTry 'du --help' for more information.");
            }
            return 1;
        }
    };
    let total = parsed.opts.total;
    let mut files = parsed.files;
    let mut refused = 0;
    // The list could not be read: GNU du stops there (no total).
    let mut unread = false;
    if let Some(from) = &parsed.files0_from {
        // Rank 0 alone reads the names (standard input is rank 0's) and
        // alone gives out the first items.
        if world.rank() == 0 {
            match du_args::files0(from) {
                Ok((names, messages)) => {
                    files = names;
                    for m in &messages {
                        eprintln!("du: {m}");
                    }
                    refused = messages.len().min(1) as i32;
                }
                Err(m) => {
                    eprintln!("du: {m}");
                    refused = 1;
                    unread = true;
                }
            }
        }
    }
    let job = DuJob::new(parsed.opts, parsed.time_format);
    if let Some(x) = &job.export {
        x.set_root_name(&ncdu::absolute(&files[0]));
    }
    let outcome = du_order::run(world, mailer, &job, &files);
    let mut status = outcome.status.max(refused);
    let mine = job.total();
    let mut sums = [0u64; 2];
    world.all_reduce_into(
        &[mine.size, mine.inodes][..],
        &mut sums[..],
        SystemOperation::sum(),
    );
    let mut tmax = NO_TIME;
    world.all_reduce_into(&mine.tmax, &mut tmax, SystemOperation::max());
    if total && world.rank() == 0 && !unread {
        let all = Dui {
            size: sums[0],
            inodes: sums[1],
            tmax,
        };
        mailer.write_merged(&job.total_line(&all));
    }
    if let (Some(path), Some(x), 0) = (&parsed.export, &job.export, world.rank()) {
        if let Err(m) = write_export(mailer, path, x) {
            eprintln!("du: {m}");
            status = status.max(1);
        }
    }
    // Rank 0's export failure is everyone's status.
    let mut worst = 0;
    world.all_reduce_into(&status, &mut worst, SystemOperation::max());
    worst
}

/// Writes the ncdu export (all of it on rank 0 by now) to `path` (`-`:
/// the command's standard output, after the lines).
fn write_export(mailer: &Mailer, path: &[u8], x: &Export) -> Result<(), String> {
    let now = dents_os::now().0;
    let r = if path == b"-" {
        let mut v = Vec::new();
        x.write_to(&mut v, now).map(|()| mailer.write_merged(&v))
    } else {
        std::fs::File::create(std::ffi::OsStr::from_bytes(path))
            .and_then(|f| x.write_to(&mut io::BufWriter::new(f), now))
    };
    r.map_err(|e| {
        format!(
            "{}: {}",
            String::from_utf8_lossy(&msg::quote(path)),
            msg::describe(&e)
        )
    })
}
