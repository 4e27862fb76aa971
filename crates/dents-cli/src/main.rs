//! The `dents` command: ls and find for huge directories and trees.
//!
//! | module   | concern |
//! |----------|---------|
//! | `ls`     | `dents ls`: list huge directories, streamed or gathered |
//! | `find`   | `dents find`: GNU find's language on the parallel walker (its own module map) |
//! | `du`     | `dents du`: GNU du's command line on the dents-du engine |
//! | `output` | large per-thread buffers, written whole; SIGPIPE ends us quietly |
//! | `errors` | messages in the style of the tool replaced, and the exit status |
//! | `filemode` | mode strings (`drwxr-xr-x`) for ls and find |
//! | `numfmt` | decimal numbers written straight into output buffers |
//! | `quote`  | names raw off a terminal, shell-escaped on one and in messages |
//! | `progress` | the status line on standard error while a walk runs |

mod du;
mod errors;
mod filemode;
mod find;
mod ls;
mod numfmt;
mod output;
mod progress;
mod quote;

use std::ffi::OsString;

const USAGE: &str = "\
Usage: dents COMMAND [OPTION]... [ARG]...

Fast, exact directory scanning for Linux.

Commands:
  ls     list directories as fast as the kernel hands them out
         (unsorted and streamed unless asked; huge directories read on all cores)
  find   search trees with find's expressions, breadth first on all cores
  du     disk usage as GNU du prints it, on all cores, hard links once

Run 'dents COMMAND --help' for a command's options.
";

fn main() {
    dents::sys::default_sigpipe();
    let argv: Vec<OsString> = std::env::args_os().collect();
    let code = match argv.get(1).and_then(|a| a.to_str()) {
        Some("ls") => ls::main(&argv[1..]),
        Some("find") => find::main(&argv[1..]),
        Some("du") => du::main(&argv[1..]),
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
