//! The `dents` command: ls, find and du for huge directories and trees.
//!
//! `dents ls` is the `dents-ls` crate (`dents_ls::main`: listing, layout,
//! colours, recursion), `dents find` the `dents-find` crate
//! (`dents_find::main`: parser, optimiser, evaluator, output) and `dents
//! du` the `dents-du` crate (`dents_du::main_with_snapshots`: du's
//! command line, engine and lines): this executable hands them the
//! arguments and leaves with their status.  What ls, find and du share
//! (`output`, `errors`, `filemode`, `numfmt`, `quote`, `progress`,
//! `dircolors`) is the `dents-tools` crate; its modules are imported here
//! under their names, so that `crate::errors` and the like read as they
//! do in dents-ls.
//!
//! Its own modules are the snapshot commands: `dents scan`, `dents diff`,
//! and the `--from SNAPSHOT` of find and du.  They stay here, above the
//! engines, because reading and writing snapshots is Parquet (the
//! dents-snap crate): find's and du's engines must not depend on it, so
//! the glue that feeds a snapshot's rows to an engine is the
//! executable's.  find's `--from` is dispatched here by its first
//! argument (find's parser reads no `--from`); du's `--from` is read by
//! du's own parser with every other option and handed back to
//! `du_from` through dents-du's `FromSnapshot` hook.
//!
//! The modules in layers: each uses only modules of lower layers, so there
//! is no import circle (`tests/layers.rs` keeps it so).
//!
//! | layer | module | concern |
//! |-------|--------|---------|
//! | 0 | `scan` | `dents scan`: a snapshot in Parquet (the dents-snap crate) |
//! | 0 | `diff` | `dents diff`: two snapshots compared (the dents-snap crate) |
//! | 0 | `snapshot` | what `find --from` and `du --from` share: opening, rows, roots, refusals |
//! | 1 | `du_from` | `dents du --from`: du's lines over a snapshot's stored entries (dents-du's `stored`) |
//! | 1 | `find_from` | `dents find --from`: find's evaluator over a snapshot's stored entries |
//!
//! The OS glue (terminal, signals, locale, users, local time) is the
//! `dents-os` crate's.  This crate has no `unsafe` code but [`startup`]'s:
//! the C library settings that are sound only while one thread runs.

#![deny(unsafe_code)]

mod diff;
mod du_from;
mod find_from;
mod scan;
mod snapshot;

use dents_tools::{errors, output, quote};

use std::ffi::OsString;

const USAGE: &str = "\
Usage: dents COMMAND [OPTION]... [ARG]...

Fast, exact directory scanning for Linux.

Commands:
  ls     list directories as fast as the kernel hands them out
         (unsorted and streamed unless asked; huge directories read on all cores)
  find   search trees with find's expressions on all cores, top levels first
  du     disk usage as GNU du prints it, on all cores, hard links once
  scan   write a snapshot of trees to a Parquet file (-o SNAPSHOT)
  diff   what changed between two snapshots

Run 'dents COMMAND --help' for a command's options.
";

/// Memory running out ends dents with GNU's message, not an abort.
#[global_allocator]
static ALLOC: dents_os::ExitOnExhaustion = dents_os::ExitOnExhaustion;

fn main() {
    let argv: Vec<OsString> = std::env::args_os().collect();
    startup(argv.get(1).and_then(|a| a.to_str()));
    let code = match argv.get(1).and_then(|a| a.to_str()) {
        Some("ls") => dents_ls::main(&argv[1..]),
        Some("find") => {
            // GNU find exits 1 when memory runs out (ls: 2).
            dents_os::set_exhausted_status(1);
            // `--from SNAPSHOT` first: the snapshot's entries, not the tree.
            match argv.get(2).map(|a| a.as_encoded_bytes()) {
                Some(a) if a == b"--from" || a.starts_with(b"--from=") => {
                    find_from::main(&argv[1..])
                }
                _ => dents_find::main(&argv[1..]),
            }
        }
        Some("du") => {
            // GNU du exits 1 when memory runs out, as find.
            dents_os::set_exhausted_status(1);
            dents_du::main_with_snapshots(&argv[1..], du_from::run)
        }
        Some("scan") => scan::main(&argv[1..]),
        Some("diff") => diff::main(&argv[1..]),
        Some("--help" | "-h" | "help") => print_text(USAGE),
        Some("--version" | "-V") => print_text(&format!("dents {}\n", env!("CARGO_PKG_VERSION"))),
        Some(other) => {
            eprint!("dents: unknown command '{other}'\n\n{USAGE}");
            errors::SERIOUS
        }
        None => {
            eprint!("{USAGE}");
            errors::SERIOUS
        }
    };
    std::process::exit(code);
}

/// Sets up the C library for `command` before anything else runs: the
/// locale, the time zone and malloc's arenas, whose setters are sound only
/// while the process has one thread.
#[allow(unsafe_code)]
fn startup(command: Option<&str>) {
    dents_os::default_sigpipe();
    // SAFETY: called first thing in `main`, before any thread is started
    // (the walkers, the status line, `find -exec`'s batches all start
    // later, from the commands' own `main`s), so no other thread can read
    // the locale, the zone or malloc's tunables while they change.
    unsafe {
        // Under `ulimit -v`, one malloc arena: each thread's own would
        // reserve 64 MiB of the address space.  du: always one (its
        // workers allocate little, and an arena per worker keeps what it
        // once held: a higher peak RSS for no speed; docs/benchmarks.md#du).
        if command == Some("du") || dents_os::address_space_limit().is_some() {
            dents_os::limit_malloc_arenas(1);
        }
        if let Some("ls" | "find" | "du") = command {
            // The whole locale, as GNU's tools take it: it decides the
            // quotes of messages (and of ls's names), month names (ls -l,
            // du --time, find -printf's %Ab), the digits' grouping and
            // decimal point (du's and ls's sizes).  Its result, not the
            // variables, decides: a locale that is not installed leaves
            // every category C.
            dents_os::use_environment_locale();
            dents_os::tzset();
        }
    }
}

/// Writes a help or version text; 0, or 2 after saying why it could not.
fn print_text(text: &str) -> i32 {
    dents_tools::texts::print_text(text, b"dents: ", errors::SERIOUS)
}
