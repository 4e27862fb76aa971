//! Helpers for tests that run programs (dents, GNU find, ls, du) and
//! compare what they print: running, running as another user, sorting
//! records, making standard error comparable, counting stat calls.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// What a program did: its output, its messages and its exit status.
#[derive(Debug)]
pub struct Run {
    /// Standard output, as bytes (names are bytes).
    pub stdout: Vec<u8>,
    /// Standard error, made text (invalid UTF-8 replaced): messages are
    /// compared and shown in failures.
    pub stderr: String,
    /// The exit status; -1 when a signal ended it.
    pub status: i32,
}

/// Runs `cmd` to its end and keeps what it did; panics (naming the
/// program) only if it cannot be started.
pub fn run(cmd: &mut Command) -> Run {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{:?}: {e}", cmd.get_program()));
    Run {
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code().unwrap_or(-1),
    }
}

/// `program ARGS` in `dir`, in the C locale and UTC, without the caller's
/// variables that change what find or du print (`POSIXLY_CORRECT`, the
/// block sizes, `TIME_STYLE`): the same output wherever the tests run.
pub fn c_locale_command(program: impl AsRef<OsStr>, dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(program);
    c.args(args).current_dir(dir);
    c.env("LC_ALL", "C").env("TZ", "UTC");
    for v in [
        "BLOCK_SIZE",
        "DU_BLOCK_SIZE",
        "BLOCKSIZE",
        "POSIXLY_CORRECT",
        "TIME_STYLE",
    ] {
        c.env_remove(v);
    }
    c
}

/// Runs a command that must succeed.
pub fn run_ok(cmd: &mut Command) {
    let st = cmd.status().unwrap();
    assert!(st.success(), "{cmd:?} failed");
}

/// `touch -h ARGS p`: sets the times of `p`, not following a symlink
/// (`args` as touch takes them: `["-d", "3 days ago"]`, `["-a", "-t", ...]`).
pub fn touch(p: &Path, args: &[&str]) {
    run_ok(Command::new("touch").arg("-h").args(args).arg(p));
}

/// Whether `prog ARG` runs and succeeds (`arg` is a harmless flag such as
/// `--version`): whether a tool a test needs is installed.
pub fn have_program(prog: &str, arg: &str) -> bool {
    Command::new(prog)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `cmd` run as the unprivileged user `nobody` (65534, no groups) through
/// `setpriv`, with the environment and working directory set on `cmd` so
/// far.  Needs root (see [`needs_root`](crate::needs_root)).
pub fn as_nobody(cmd: Command) -> Command {
    let mut wrapped = Command::new("setpriv");
    wrapped
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => wrapped.env(k, v),
            None => wrapped.env_remove(k),
        };
    }
    if let Some(d) = cmd.get_current_dir() {
        wrapped.current_dir(d);
    }
    wrapped
}

/// The info object (`{"name":NAME,...`, up to its `}`) of the entry
/// `name` in an ncdu export, as `dents du -o` writes it; panics if absent.
pub fn export_info<'a>(json: &'a str, name: &str) -> &'a str {
    let start = json
        .find(&format!(r#"{{"name":"{name}","#))
        .unwrap_or_else(|| panic!("{name} not in the export"));
    let len = json[start..].find('}').expect("a closed object");
    &json[start..start + len]
}

/// `bytes` cut into records each ending with `sep` (the last one as it
/// is, terminated or not), sorted: separators are compared too.  For the
/// output of a parallel walk, whose order is not fixed.
pub fn sorted_records(bytes: &[u8], sep: u8) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = bytes
        .split_inclusive(|&b| b == sep)
        .map(<[u8]>::to_vec)
        .collect();
    v.sort();
    v
}

/// Standard error's lines (with their newlines), `prog` at the start of a
/// line made `PROG`, sorted: two programs' messages made comparable
/// (`dents:` and `find:` both become `PROG:` when given with the colon).
pub fn stderr_lines(bytes: &[u8], prog: impl AsRef<[u8]>) -> Vec<Vec<u8>> {
    let prog = prog.as_ref();
    let mut v: Vec<Vec<u8>> = bytes
        .split_inclusive(|&b| b == b'\n')
        .map(|l| match l.strip_prefix(prog) {
            Some(rest) => [&b"PROG"[..], rest].concat(),
            None => l.to_vec(),
        })
        .collect();
    v.sort();
    v
}

/// The names of every entry under `root` (not `root` itself), and their
/// paths as given on a command line run in `cwd` (`root` is relative to
/// `cwd`).
pub fn entry_names_and_paths(cwd: &Path, root: &str) -> (BTreeSet<Vec<u8>>, BTreeSet<Vec<u8>>) {
    fn rec(cwd: &Path, rel: &Path, names: &mut BTreeSet<Vec<u8>>, paths: &mut BTreeSet<Vec<u8>>) {
        for e in fs::read_dir(cwd.join(rel)).unwrap() {
            let e = e.unwrap();
            let p = rel.join(e.file_name());
            names.insert(e.file_name().as_bytes().to_vec());
            paths.insert(p.as_os_str().as_bytes().to_vec());
            if e.file_type().unwrap().is_dir() {
                rec(cwd, &p, names, paths);
            }
        }
    }
    let (mut names, mut paths) = (BTreeSet::new(), BTreeSet::new());
    rec(cwd, Path::new(root), &mut names, &mut paths);
    (names, paths)
}

/// A string as `strace -xx` shows it: every byte `\xNN`, in quotes.
pub fn strace_quoted(s: &[u8]) -> String {
    let mut q = String::from("\"");
    for b in s {
        q.push_str(&format!("\\x{b:02x}"));
    }
    q.push('"');
    q
}

/// The stat calls (any of the stat family) that `program ARGS`, run in
/// `cwd` under strace, makes on the entries under its starting point
/// `tree`: calls whose path argument is one of their names (relative to a
/// directory's descriptor) or paths.  The starting point itself, the
/// program's own start-up (locale, time zone, /proc) and `AT_EMPTY_PATH`
/// calls on descriptors are not counted.  `LS_COLORS` is removed; `env`
/// is added.  Needs strace (see [`have_program`]).
pub fn entry_stat_calls<A: AsRef<OsStr>>(
    program: &[&str],
    args: &[A],
    cwd: &Path,
    tree: &str,
    env: &[(&str, &str)],
) -> usize {
    let (names, paths) = entry_names_and_paths(cwd, tree);
    let wanted: BTreeSet<String> = names
        .iter()
        .chain(&paths)
        .map(|n| strace_quoted(n))
        .collect();
    let log = cwd.join("strace.out");
    let mut cmd = Command::new("strace");
    cmd.args([
        "-f",
        "-qq",
        "-xx",
        "-s",
        "4096",
        "-e",
        "trace=statx,newfstatat,fstatat64,stat,lstat,stat64,lstat64",
        "-o",
    ])
    .arg(&log)
    .args(program)
    .args(args)
    .current_dir(cwd)
    .env_remove("LS_COLORS")
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let st = cmd.status().expect("strace is needed");
    assert!(st.success(), "{cmd:?}: {st}");
    let text = fs::read_to_string(&log).unwrap();
    fs::remove_file(&log).unwrap();
    text.lines()
        .filter(|l| {
            // The first quoted argument: the path.
            l.split_once('"').is_some_and(|(_, rest)| {
                let end = rest.find('"').unwrap_or(rest.len());
                wanted.contains(&format!("\"{}\"", &rest[..end]))
            })
        })
        .count()
}

/// `cmd` with a clean environment for comparing `dents ls` with GNU ls:
/// locale `lc`, UTC, `TERM=xterm`, and nothing from the caller's
/// environment that changes ls's output (colors, quoting, width, time
/// style, block size, POSIX mode); standard input empty.
pub fn clean_ls_env(cmd: &mut Command, lc: &str) {
    cmd.env("LC_ALL", lc)
        .env("TZ", "UTC")
        .env("TERM", "xterm")
        .env_remove("TIME_STYLE")
        .env_remove("LS_COLORS")
        .env_remove("COLUMNS")
        .env_remove("QUOTING_STYLE")
        .env_remove("TABSIZE")
        .env_remove("COLORTERM")
        .env_remove("BLOCK_SIZE")
        .env_remove("LS_BLOCK_SIZE")
        .env_remove("POSIXLY_CORRECT")
        .stdin(Stdio::null());
}
