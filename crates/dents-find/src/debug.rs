//! `-D` debug options: which are on, and the diagnostics they write to
//! standard error.
//!
//! The flags live in one process-wide word, set once while the command
//! line is read, so that the modules that report (`exec`, `eval`) need no
//! extra plumbing.  The texts follow GNU's where that is cheap (`exec`,
//! `stat`, `time`); `tree`/`opt`, `search` and `rates` say the same
//! things in dents's own words.

use crate::errors;

/// `-D exec`: each command before it runs and its status after.
pub const EXEC: u32 = 1;
/// `-D opt`: the expression after optimisation.
pub const OPT: u32 = 2;
/// `-D rates`: how often each primary was true, at the end.
pub const RATES: u32 = 4;
/// `-D search`: each file as the walk reaches it.
pub const SEARCH: u32 = 8;
/// `-D stat`: each stat of a file.
pub const STAT: u32 = 16;
/// `-D time`: the reference times of the time tests.
pub const TIME: u32 = 32;
/// `-D tree`: the expression tree.
pub const TREE: u32 = 64;

/// The `-D help` text (GNU's).
pub const HELP: &str = "\
Valid arguments for -D:
exec       Show diagnostic information relating to -exec, -execdir, -ok and -okdir
opt        Show diagnostic information relating to optimisation
rates      Indicate how often each predicate succeeded
search     Navigate the directory tree verbosely
stat       Trace calls to stat(2) and lstat(2)
time       Show diagnostic information relating to time-of-day and timestamp comparisons
tree       Display the expression tree
all        Set all of the debug flags (but help)
help       Explain the various -D options
";

/// The flag a `-D` word names (`all`: every one); `None` if unknown.
/// `help` is handled by the caller.
pub fn flag(name: &[u8]) -> Option<u32> {
    Some(match name {
        b"exec" => EXEC,
        b"opt" => OPT,
        b"rates" => RATES,
        b"search" => SEARCH,
        b"stat" => STAT,
        b"time" => TIME,
        b"tree" => TREE,
        b"all" => EXEC | OPT | RATES | SEARCH | STAT | TIME | TREE,
        _ => return None,
    })
}

/// Turns `flags` on, for the command this thread works for.
pub fn enable(flags: u32) {
    crate::ctx::with(|c| c.enable_debug(flags));
}

/// Whether any of `flags` is on for the command this thread works for.
pub fn on(flags: u32) -> bool {
    crate::ctx::debug_on(flags)
}

/// Writes one line of diagnostics.
pub fn say(line: &[u8]) {
    let mut m = Vec::with_capacity(line.len() + 1);
    m.extend_from_slice(line);
    m.push(b'\n');
    errors::write_stderr(&m);
}

/// An argument as GNU's `-D exec` shows it: quoted as in messages.
fn shell_word(out: &mut Vec<u8>, w: &[u8]) {
    super::msg::quote(out, w, super::msg::utf8_locale());
}

/// `-D exec`: a command about to be launched, in GNU's words.
pub fn launching(args: &[Vec<u8>]) {
    let mut m = format!("DebugExec: launching process (argc={}):", args.len()).into_bytes();
    for a in args {
        m.push(b' ');
        shell_word(&mut m, a);
    }
    say(&m);
}

/// `-D exec`: a command that ended, in GNU's words.
pub fn terminated(pid: u32, status: &std::process::ExitStatus) {
    use std::os::unix::process::ExitStatusExt;
    let line = match (status.code(), status.signal()) {
        (Some(c), _) => {
            format!("DebugExec: process (PID={pid}) terminated with exit status: {c}")
        }
        (None, Some(s)) => format!("DebugExec: process (PID={pid}) terminated by signal {s}"),
        _ => format!("DebugExec: process (PID={pid}) terminated"),
    };
    say(line.as_bytes());
}

/// `-D rates`: counts one evaluation of the primary at `key`.
pub fn count(key: usize, success: bool) {
    crate::ctx::with(|c| {
        let mut g = c.rates.lock().unwrap_or_else(|e| e.into_inner());
        let e = g.entry(key).or_default();
        e.0 += 1;
        e.1 += success as u64;
    });
}

/// `-D rates`: how often the primary at `key` ran and was true.
pub fn rate(key: usize) -> (u64, u64) {
    crate::ctx::with(|c| {
        let g = c.rates.lock().unwrap_or_else(|e| e.into_inner());
        g.get(&key).copied().unwrap_or_default()
    })
}
