//! `-exec` and `-ok`: commands run for each file (`;`) or for many at
//! once (`+`), from find's own directory; `-execdir` and `-okdir`: the
//! same from the directory holding each file, which is named `./NAME`.
//!
//! With `;` every `{}` inside every argument becomes the path; with `+`
//! the lone `{}` before the `+` stands for as many paths as fit within a
//! conservative limit on the size of a command line (the real `ARG_MAX`
//! is larger; the kernel also counts the environment, which is deducted).
//! Our own buffered output is written before a command runs, as GNU
//! flushes its standard output, so that the command's output comes after
//! what was printed for the same file.  Evaluation is serialised while
//! the expression holds a command (see `eval`), so commands run one at a
//! time, as with GNU find.

use std::ffi::OsStr;
use std::io::{BufRead, Write};
use std::os::unix::ffi::OsStrExt;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use super::msg;
use crate::errors;
use crate::output::ThreadBuf;

/// Room kept free on a command line for what we do not count.
const HEADROOM: usize = 2048;
/// The command-line size we allow ourselves before the environment.
const ARG_LIMIT: usize = 128 * 1024;

/// One `-exec`/`-ok`.
#[derive(Debug)]
pub struct Exec {
    /// The command and its arguments as written, `{}` included.
    pub argv: Vec<Vec<u8>>,
    /// `+`: many paths per command.
    pub batch: bool,
    /// `-ok`: ask first.
    pub ok: bool,
    /// `-execdir`/`-okdir`: run in the file's directory.
    pub in_dir: bool,
    /// Paths waiting for a `+` command.
    pending: Mutex<Pending>,
    /// Bytes of a command line we may use.
    limit: usize,
}

/// Paths gathered for a `+` command.
#[derive(Debug, Default)]
struct Pending {
    paths: Vec<Vec<u8>>,
    bytes: usize,
    /// `-execdir`: the directory the paths are in.
    dir: Vec<u8>,
}

/// What one argument costs on a command line: its bytes, its NUL, its
/// pointer.
fn arg_cost(a: &[u8]) -> usize {
    a.len() + 1 + std::mem::size_of::<usize>()
}

impl Exec {
    /// A command from its words (`{}` included, terminator excluded).
    pub fn new(argv: Vec<Vec<u8>>, batch: bool, ok: bool, in_dir: bool) -> Exec {
        let env: usize = std::env::vars_os()
            .map(|(k, v)| arg_cost(k.as_bytes()) + v.len() + 1)
            .sum();
        let fixed: usize = argv.iter().map(|a| arg_cost(a)).sum();
        let limit = ARG_LIMIT.saturating_sub(env + fixed + HEADROOM).max(4096);
        Exec {
            argv,
            batch,
            ok,
            in_dir,
            pending: Mutex::new(Pending::default()),
            limit,
        }
    }

    /// Evaluates the primary for `path` (a starting point if `depth` is
    /// 0): runs (or, with `+`, queues) the command; true if it ran and
    /// exited with 0 (always true with `+`).
    pub fn eval(&self, path: &[u8], depth: usize, out: &mut ThreadBuf<'_>) -> bool {
        let (dir, arg) = if self.in_dir {
            in_dir(path, depth)
        } else {
            (Vec::new(), path.to_vec())
        };
        if self.batch {
            let full = {
                let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
                let cost = arg_cost(&arg);
                let full = !p.paths.is_empty() && (p.bytes + cost > self.limit || p.dir != dir);
                let taken = if full {
                    std::mem::take(&mut *p)
                } else {
                    Pending::default()
                };
                p.bytes += cost;
                p.paths.push(arg);
                p.dir = dir;
                taken
            };
            if !full.paths.is_empty() {
                self.run_batch(full, out);
            }
            return true;
        }
        let args: Vec<Vec<u8>> = self.argv.iter().map(|a| replace(a, &arg)).collect();
        if self.ok && !self.ask(path, out) {
            return false;
        }
        out.flush();
        run(&args, self.ok, &dir).is_some_and(|code| code == 0)
    }

    /// Runs the command for the paths still queued (at the end, or at
    /// `-quit`).
    pub fn finish(&self, out: &mut ThreadBuf<'_>) {
        let taken = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        if !taken.paths.is_empty() {
            self.run_batch(taken, out);
        }
    }

    /// Runs a `+` command with the queued paths in the place of its `{}`;
    /// a failure makes find's status 1.
    fn run_batch(&self, batch: Pending, out: &mut ThreadBuf<'_>) {
        let (last, fixed) = self.argv.split_last().expect("a command has words");
        debug_assert_eq!(last.as_slice(), b"{}");
        let mut args: Vec<Vec<u8>> = fixed.to_vec();
        args.extend(batch.paths);
        out.flush();
        if run(&args, false, &batch.dir) != Some(0) {
            errors::raise(msg::FAILURE);
        }
    }

    /// Asks on stderr whether to run the command for `path`; reads the
    /// answer from standard input (yes if it starts with `y` or `Y`).
    fn ask(&self, path: &[u8], out: &mut ThreadBuf<'_>) -> bool {
        out.flush();
        let mut prompt = b"< ".to_vec();
        prompt.extend_from_slice(&self.argv[0]);
        prompt.extend_from_slice(b" ... ");
        prompt.extend_from_slice(path);
        prompt.extend_from_slice(b" > ? ");
        {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(&prompt);
            let _ = err.flush();
        }
        let mut line = Vec::new();
        match std::io::stdin().lock().read_until(b'\n', &mut line) {
            Ok(n) if n > 0 => matches!(line[0], b'y' | b'Y'),
            _ => false,
        }
    }
}

/// For `-execdir`: the directory to run in and the file's name there
/// (`./NAME`), as GNU forms them: a starting point's trailing slashes
/// stay in its name, and `/` is run as `/` from `/`.
fn in_dir(path: &[u8], depth: usize) -> (Vec<u8>, Vec<u8>) {
    let end = if depth == 0 {
        match path.iter().rposition(|&b| b != b'/') {
            Some(i) => i + 1,
            None => return (b"/".to_vec(), b"/".to_vec()),
        }
    } else {
        path.len()
    };
    let (dir, name) = match path[..end].iter().rposition(|&b| b == b'/') {
        Some(0) => (&b"/"[..], &path[1..]),
        Some(i) => (&path[..i], &path[i + 1..]),
        None => (&b"."[..], path),
    };
    let mut arg = b"./".to_vec();
    arg.extend_from_slice(name);
    (dir.to_vec(), arg)
}

/// GNU's refusal of `-execdir`/`-okdir` with a relative directory in
/// `PATH` (a command could be picked up from the file's directory).
pub fn check_path_for_execdir(action: &[u8]) -> Result<(), Vec<u8>> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let action = String::from_utf8_lossy(action);
    for entry in path.as_bytes().split(|&b| b == b':') {
        if entry.is_empty() || entry == b"." {
            return Err(format!(
                "The current directory is included in the PATH environment variable, which is \
insecure in combination with the {action} action of find.  Please remove the current directory \
from your $PATH (that is, remove \".\", doubled colons, or leading or trailing colons)"
            )
            .into_bytes());
        }
        if entry[0] != b'/' {
            let mut m = b"The relative path ".to_vec();
            msg::quote(&mut m, entry, msg::utf8_locale());
            m.extend_from_slice(
                format!(
                    " is included in the PATH environment variable, which is insecure in \
combination with the {action} action of find.  Please remove that entry from $PATH"
                )
                .as_bytes(),
            );
            return Err(m);
        }
    }
    Ok(())
}

/// `arg` with every `{}` replaced by `path`.
fn replace(arg: &[u8], path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(arg.len() + path.len());
    let mut i = 0;
    while i < arg.len() {
        if arg[i..].starts_with(b"{}") {
            out.extend_from_slice(path);
            i += 2;
        } else {
            out.push(arg[i]);
            i += 1;
        }
    }
    out
}

/// Runs `args` (in `dir`, unless empty) and waits; its exit code, or `None` if it could not be run
/// (said on stderr, as the child of GNU find says it) or was killed.
fn run(args: &[Vec<u8>], null_stdin: bool, dir: &[u8]) -> Option<i32> {
    let mut cmd = Command::new(OsStr::from_bytes(&args[0]));
    cmd.args(args[1..].iter().map(|a| OsStr::from_bytes(a)));
    if !dir.is_empty() {
        cmd.current_dir(OsStr::from_bytes(dir));
    }
    if null_stdin {
        cmd.stdin(Stdio::null());
    }
    match cmd.status() {
        Ok(st) => st.code(),
        Err(e) => {
            // Not the status: GNU's child reports this and exits 1.
            let mut m = b"dents: ".to_vec();
            msg::quote(&mut m, &args[0], msg::utf8_locale());
            m.extend_from_slice(b": ");
            m.extend_from_slice(errors::describe(&e).as_bytes());
            m.push(b'\n');
            errors::write_stderr(&m);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::replace;

    #[test]
    fn execdir_names_as_gnu() {
        use super::in_dir;
        let s = |d: &[u8], a: &[u8]| (d.to_vec(), a.to_vec());
        assert_eq!(in_dir(b"d", 0), s(b".", b"./d"));
        assert_eq!(in_dir(b"d/sub/", 0), s(b"d", b"./sub/"));
        assert_eq!(in_dir(b"d/sub/b", 2), s(b"d/sub", b"./b"));
        assert_eq!(in_dir(b"/", 0), s(b"/", b"/"));
        assert_eq!(in_dir(b"/x", 1), s(b"/", b"./x"));
        assert_eq!(in_dir(b".", 0), s(b".", b"./."));
    }

    #[test]
    fn braces_are_replaced_everywhere() {
        assert_eq!(replace(b"a{}b{}", b"X"), b"aXbX");
        assert_eq!(replace(b"{", b"X"), b"{");
    }
}
