//! `dents-mpi du`'s command: its arguments read by `dents du`'s parser
//! ([`dents_du::args`]), the job run over the ranks (`du`), the grand
//! total reduced over them, and the ncdu export written by rank 0.
//! Messages about the command line are rank 0's alone (each rank parses
//! the same arguments; one message, not one a rank).

/// `--help`: du's options are `dents du`'s (see `dents du --help`).
const HELP: &str = "\
Usage: mpirun -np N dents-mpi du [OPTION]... [FILE]...
  or:  mpirun -np N dents-mpi du [OPTION]... --files0-from=F
Summarize device usage of the set of FILEs over MPI ranks: GNU du's
options, lines and exit status; the options are those of 'dents du'
(see 'dents du --help'), -j N the walker threads of each rank.
";

use std::io;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

use dents_du::args::{self, Env, Parsed};
use dents_du::engine::Dui;
use dents_du::files0::{self, Files0Name};
use dents_du::ncdu::{self, Export};
use dents_du::time_style::NO_TIME;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::du::DuJob;
use crate::du_order;
use crate::engine::Mailer;
use crate::msg;
use crate::parse_exit;
use crate::stdin_list;

/// `dents-mpi du ARGS`: GNU du's lines, each directory's total over all
/// ranks; the exit status, the worst over the ranks.
pub fn run(world: &SimpleCommunicator, mailer: &Arc<Mailer>, args: &[Vec<u8>]) -> i32 {
    let rank0 = world.rank() == 0;
    // `-X -`: the patterns are rank 0's standard input, and every rank
    // parses.
    if args::reads_standard_input(args) && !stdin_list::share_all(world) {
        return 1;
    }
    let env = Env::from_process();
    // Every rank parses (each needs the options); rank 0 alone speaks.
    let parsed = match args::parse(args, &env) {
        Ok(Parsed::Run(c)) => c,
        Ok(Parsed::Help) => return text_asked_for(world, HELP),
        Ok(Parsed::Version) => {
            let version = format!("dents-mpi du {}\n", env!("CARGO_PKG_VERSION"));
            return text_asked_for(world, &version);
        }
        Err(r) => {
            if rank0 {
                let mut m = Vec::new();
                for s in &r.said {
                    m.extend_from_slice(&said(s));
                }
                m.extend_from_slice(&r.plain);
                if r.try_help {
                    m.extend_from_slice(b"Try 'du --help' for more information.\n");
                }
                write_stderr(&m);
            }
            return 1;
        }
    };
    if rank0 {
        let m: Vec<u8> = parsed.warnings.iter().flat_map(|w| said(w)).collect();
        write_stderr(&m);
    }
    // The shared parser reads `--from SNAPSHOT` (dents du's), which
    // dents-mpi does not do yet: refused, rather than walk the live tree
    // the user asked not to walk.
    if parsed.from.is_some() {
        if rank0 {
            write_stderr(&said(
                b"--from: reading a snapshot is 'dents du --from'; dents-mpi du walks the tree",
            ));
        }
        return 1;
    }
    let total = parsed.opts.total;
    let mut files = parsed.files;
    let mut refused = 0;
    // The list could not be opened: GNU du stops there (no total).
    let mut unread = false;
    if let Some(from) = &parsed.files0_from {
        // Rank 0 alone reads the names (standard input is rank 0's),
        // alone says what it refuses, and alone gives out the first
        // items.
        if rank0 {
            match files0(from) {
                Ok((names, messages)) => {
                    files = names;
                    refused = i32::from(!messages.is_empty());
                    write_stderr(&messages);
                }
                Err((m, stop)) => {
                    write_stderr(&m);
                    refused = 1;
                    unread = stop;
                }
            }
        }
    }
    if rank0 {
        let (kept, messages) = reachable(files, parsed.files0_from.is_none(), &parsed.opts);
        files = kept;
        if !messages.is_empty() {
            write_stderr(&messages);
            refused = 1;
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
            String::from_utf8_lossy(&args::quote_always(path)),
            msg::describe(&e)
        )
    })
}

/// The arguments that can be walked, and GNU du's messages for the
/// others: `invalid zero-length file name` for an empty operand
/// (`operands`: named on the command line; `--files0-from`'s empty names
/// are refused with their number), `cannot access 'F': CAUSE` for one
/// that cannot be stat'ed, as
/// `dents du` words them (the walker would word a missing argument
/// `cannot read directory`).
fn reachable(
    files: Vec<Vec<u8>>,
    operands: bool,
    opts: &dents_du::Options,
) -> (Vec<Vec<u8>>, Vec<u8>) {
    let mut messages = Vec::new();
    let kept = files
        .into_iter()
        .filter(|f| {
            if f.is_empty() && operands {
                messages.extend(said(b"invalid zero-length file name"));
                return false;
            }
            // Excluded before anything is looked at, as GNU du does (a
            // missing argument excluded is not reported).
            if !opts.excludes.is_empty() && opts.excludes.matches(f) {
                return false;
            }
            let p = std::ffi::OsStr::from_bytes(f);
            // A dangling link followed is the walker's to word (`cannot
            // access 'F'`, no cause, as GNU's FTS_SLNONE).
            match std::fs::symlink_metadata(p) {
                Ok(_) => true,
                Err(e) => {
                    let cause = msg::describe(&e);
                    let m = [
                        &b"cannot access "[..],
                        &args::quote_always(f),
                        b": ",
                        cause.as_bytes(),
                    ];
                    messages.extend(said(&m.concat()));
                    false
                }
            }
        })
        .collect();
    (kept, messages)
}

/// Writes `--help`'s or `--version`'s text from rank 0; every rank's
/// exit status: 0, or 1 with GNU du's `write error` message when the
/// text could not be written (standard output closed or full: `print!`
/// would write to the `/dev/null` Rust's runtime puts on a descriptor
/// closed at start, and succeed).  Rank 0's status is every rank's
/// ([`parse_exit`]).
fn text_asked_for(world: &SimpleCommunicator, text: &str) -> i32 {
    let status = if world.rank() == 0 {
        dents_tools::texts::print_text(text, b"du: ", 1)
    } else {
        0
    };
    parse_exit::rank0_status(world, status)
}

/// `du: MESSAGE` and a newline.
fn said(m: &[u8]) -> Vec<u8> {
    [&b"du: "[..], m, b"\n"].concat()
}

/// Writes `m` on standard error in one call (nothing if empty).
fn write_stderr(m: &[u8]) {
    if !m.is_empty() {
        let _ = io::Write::write_all(&mut io::stderr().lock(), m);
    }
}

/// A list's names, and the messages for the names refused.
type Names = (Vec<Vec<u8>>, Vec<u8>);

/// The arguments named by `--files0-from=FROM` (`-`: standard input),
/// NUL-separated, with GNU du's message for each it refuses (an empty
/// name, `-` read from standard input) in one text; `Err` with the
/// message if FROM cannot be read, and whether du stops there (it could
/// not be opened; after a read error GNU du prints its total).
fn files0(from: &[u8]) -> Result<Names, (Vec<u8>, bool)> {
    let text = files0::read_list(from).map_err(|e| {
        let stop = matches!(e, files0::ListError::Open(_));
        (said(&e.message(from, &msg::describe)), stop)
    })?;
    let (mut files, mut refused) = (Vec::new(), Vec::new());
    for name in files0::names(&text, from) {
        match name {
            Files0Name::File(f) => files.push(f.to_vec()),
            Files0Name::Refused(r) => {
                refused.extend(said(&r.message(&args::quote_if_needed(from))))
            }
        }
    }
    Ok((files, refused))
}
