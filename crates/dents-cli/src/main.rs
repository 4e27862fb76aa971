//! The `dents` command: ls and find for huge directories and trees.
//!
//! | module   | concern |
//! |----------|---------|
//! | `ls`     | `dents ls`: list huge directories, streamed or gathered |
//! | `find`   | `dents find`: GNU find's language on the parallel walker (its own module map) |
//! | `output` | large per-thread buffers, written whole; SIGPIPE ends us quietly |
//! | `errors` | messages in the style of the tool replaced, and the exit status |
//! | `filemode` | mode strings (`drwxr-xr-x`) for ls and find |
//! | `numfmt` | decimal numbers written straight into output buffers |
//! | `quote`  | names raw off a terminal, shell-escaped on one and in messages |
//! | `progress` | the status line on standard error while a walk runs |
//! | `threads` | threads that may not start: their work done on the caller's |

mod errors;
mod filemode;
mod find;
mod ls;
mod numfmt;
mod output;
mod progress;
mod quote;
mod threads;

use std::ffi::OsString;

const USAGE: &str = "\
Usage: dents COMMAND [OPTION]... [ARG]...

Fast, exact directory scanning for Linux.

Commands:
  ls     list directories as fast as the kernel hands them out
         (unsorted and streamed unless asked; huge directories read on all cores)
  find   search trees with find's expressions, breadth first on all cores

Run 'dents COMMAND --help' for a command's options.
";

/// Memory running out ends dents with GNU's message, not an abort.
#[global_allocator]
static ALLOC: dents::sys::ExitOnExhaustion = dents::sys::ExitOnExhaustion;

fn main() {
    dents::sys::default_sigpipe();
    // Under `ulimit -v`, one malloc arena: each thread's own would reserve
    // 64 MiB of the address space.
    if dents::sys::address_space_limit().is_some() {
        dents::sys::limit_malloc_arenas(1);
    }
    let argv: Vec<OsString> = std::env::args_os().collect();
    let code = match argv.get(1).and_then(|a| a.to_str()) {
        Some("ls") => ls::main(&argv[1..]),
        Some("find") => {
            // GNU find exits 1 when memory runs out (ls: 2).
            dents::sys::set_exhausted_status(1);
            find::main(&argv[1..])
        }
        Some("--help" | "-h" | "help") => {
            print!("{USAGE}");
            0
        }
        Some("--version" | "-V") => {
            println!("dents {}", env!("CARGO_PKG_VERSION"));
            0
        }
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
