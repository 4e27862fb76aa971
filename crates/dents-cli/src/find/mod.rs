//! `dents find`: the find language (POSIX, and GNU's basics) on the
//! library's parallel walker, with GNU find's output and messages.
//!
//! | module   | concern |
//! |----------|---------|
//! | `parse`  | the command line: global options, paths, GNU's two-pass expression reading and its errors |
//! | `expr`   | the expression tree and what each primary costs, reads and does |
//! | `opt`    | the optimiser's passes, and what the walk must fetch (`stat_mask`) |
//! | `eval`   | the walker's visitor: each entry through the expression |
//! | `exec`   | `-exec`/`-ok`, one file or many per command; `-execdir` through the directory's descriptor |
//! | `files0` | `-files0-from`: starting points read from a file, and its errors |
//! | `debug`  | `-D` flags and the diagnostics they write |
//! | `glob`   | `fnmatch` patterns for `-name`, `-path`, `-lname` |
//! | `regex`  | `-regex` dialects on Oniguruma, whole-path matches |
//! | `time`   | `-mtime`/`-mmin` windows, `-daystart` |
//! | `datetime` | `-newerXt` date strings, as GNU's date parser reads them |
//! | `mode`   | `-perm` modes, octal and symbolic |
//! | `users`  | user and group names and ids |
//! | `msg`    | GNU's message style and quoting; the exit status |
//! | `printf` | `-printf` formats: GNU's directives, escapes, flags, widths |
//! | `datefmt` | file times for `-printf` and `-ls`, cached per hour and second |
//! | `lsfmt`  | `-ls` lines and GNU's growing columns |
//! | `outfiles` | the files of `-fprint`, `-fprintf`, `-fls`, opened once and shared |
//! | `fstype` | filesystem type names from the mount list (`-fstype`, `%F`) |
//! | `color`  | `LS_COLORS`: paths painted as GNU ls and bfs paint them; colored messages |
//!
//! bfs's additions: `-s` (sorted, deterministic walk: the walker's sort
//! mode), `-exclude`/`-nohidden` (the walker's `excluded` hook),
//! `-hidden`, `-limit`, `-color`/`-nocolor`, `-status`/`-nostatus` (the
//! status line, `crate::progress`, also shown unasked on a terminal once
//! a walk takes more than a second).
//!
//! Output order differs from GNU find's (the walk is breadth first and
//! parallel: a directory's entries are visited by the thread that read
//! it); the lines themselves are GNU's, byte for byte.

pub(crate) mod color;
mod datefmt;
mod datetime;
mod debug;
mod eval;
mod exec;
mod expr;
mod files0;
mod fstype;
mod glob;
mod lsfmt;
mod mode;
mod msg;
mod opt;
mod outfiles;
mod parse;
mod printf;
mod regex;
mod time;
mod users;

use std::ffi::OsString;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;

use dents::walk::{self, WalkOptions};

use crate::errors;
use crate::output::Output;
use crate::progress;
use parse::Parsed;

/// Walks the starting points of `-files0-from`: each run of names
/// between empty ones as one walk, each empty name reported after the
/// names before it, as GNU reads them one by one.
fn walk_list(items: &[files0::Item], from: &[u8], wopts: &WalkOptions, finder: &eval::Finder<'_>) {
    let mut run: Vec<Vec<u8>> = Vec::new();
    for item in items.iter().map(Some).chain([None]) {
        match item {
            Some(files0::Item::Path(p)) => run.push(p.clone()),
            _ => {
                if !run.is_empty() && !finder.quit_requested() {
                    finder.set_roots(&run);
                    walk::walk(&run, wopts, finder);
                }
                run.clear();
                if let Some(files0::Item::Empty(n)) = item {
                    files0::report_empty(from, *n);
                }
            }
        }
    }
}

/// Runs `dents find` with `argv` (starting with `find`); returns the exit
/// status: 0, or 1 after any problem, as GNU find.
pub fn main(argv: &[OsString]) -> i32 {
    // The time zone and the time locale were set by main's `startup`.
    let stdout_tty = dents_os::is_terminal(std::io::stdout().as_fd());
    let stderr_tty = dents_os::is_terminal(std::io::stderr().as_fd());
    let table = color::Colors::from_env();
    // Messages about the command line already in color, as bfs's.
    color::set_stderr(color::auto(stderr_tty).then_some(&table));
    let args: Vec<Vec<u8>> = argv[1..].iter().map(|a| a.as_bytes().to_vec()).collect();
    let opts = match parse::parse(&args) {
        Ok(Parsed::Run(o)) => *o,
        Ok(Parsed::Exit(code)) => return code,
        Err(m) => {
            msg::error(&m);
            return msg::FAILURE;
        }
    };
    let color_out = opts.color.unwrap_or_else(|| color::auto(stdout_tty));
    let color_err = opts.color.unwrap_or_else(|| color::auto(stderr_tty));
    color::set_stderr(color_err.then_some(&table));
    let colors = color_out.then_some(&table);
    let expr = opt::optimise(opts.expr, opts.opt_level);
    let exclude = opts.exclude.map(|e| opt::optimise(e, opts.opt_level));
    if opts.debug_tree {
        let mut t = String::from("dents: optimised expression: ");
        expr.dump(&mut t);
        t.push('\n');
        errors::write_stderr(t.as_bytes());
    }
    let mut needs = opt::analyse(&expr);
    if let Some(x) = &exclude {
        needs.stat_mask |= opt::analyse(x).stat_mask;
    }
    // Coloring reads modes (and link counts), but only when it is on.
    if let Some(c) = colors {
        needs.stat_mask |= c.stat_mask();
    }
    let defaults = WalkOptions::default();
    let wopts = WalkOptions {
        threads: opts.threads.unwrap_or(defaults.threads),
        order: opts.order,
        post_order: opts.depth,
        min_depth: opts.min_depth,
        max_depth: opts.max_depth,
        follow: opts.follow,
        same_fs: opts.xdev,
        sort: opts.sort,
        // Under -L, loops are found by inode.
        stat_mask: if opts.follow == walk::Follow::Always {
            needs.stat_mask | dents::StatFields::INO
        } else {
            needs.stat_mask
        },
        ..defaults
    };
    // The status line: asked for (-status), or unasked on a terminal once
    // the walk has taken a second; never with -nostatus or off a terminal.
    let when = match opts.status {
        Some(false) => None,
        Some(true) => Some(progress::When::Now),
        None => Some(progress::When::After(std::time::Duration::from_secs(1))),
    };
    let progress = when
        .filter(|_| stderr_tty)
        .map(|w| progress::Progress::new(w, msg::utf8_locale()));
    // A failed write to standard output: GNU's two messages, status 1.
    let out = Output::stdout().reporting_errors(|e| {
        msg::path_error(b"standard output", e);
        msg::error(b"write error");
    });
    let mut has_quit = false;
    expr.each(&mut |p| has_quit |= matches!(p, expr::Pred::Quit));
    let finder = eval::Finder::new(&expr, &out, needs.serial, opts.depth, opts.ignore_race)
        .with_ux(colors, progress.as_ref(), exclude.as_ref());
    std::thread::scope(|s| {
        if let Some(p) = &progress {
            s.spawn(|| p.run());
            p.wait_shown();
        }
        match &opts.files0_from {
            None if has_quit => {
                // GNU takes the starting points one after the other: after
                // `-quit`, the later ones are not even looked at.
                for root in &opts.paths {
                    if finder.quit_requested() {
                        break;
                    }
                    let one = std::slice::from_ref(root);
                    finder.set_roots(one);
                    walk::walk(one, &wopts, &finder);
                }
            }
            None => {
                finder.set_roots(&opts.paths);
                walk::walk(&opts.paths, &wopts, &finder);
            }
            Some(from) => match files0::read(from) {
                Ok(items) => walk_list(&items, from, &wopts, &finder),
                Err(m) => msg::error(&m),
            },
        }
        // The walk is over: no more status (batched commands may still run).
        if let Some(p) = &progress {
            p.stop();
        }
    });
    finder.finish_commands();
    if debug::on(debug::RATES) {
        debug::report_rates(&expr);
    }
    // Standard output was closed: GNU's last flush fails if output is
    // still pending, then closing it fails.  Its stdio flushes standard
    // output before each message: nothing is pending after a message
    // about the last starting point (the output before it was flushed).
    if crate::output::written_to_closed() {
        let e = crate::output::ebadf();
        if !finder.last_root_failed() {
            msg::path_error(b"standard output", &e);
        }
        let mut m = b"write error: ".to_vec();
        m.extend_from_slice(errors::describe(&e).as_bytes());
        msg::error(&m);
    }
    errors::status()
}
