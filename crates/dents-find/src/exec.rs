//! `-exec` and `-ok`: commands run for each file (`;`) or for many at
//! once (`+`), from find's own directory; `-execdir` and `-okdir`: the
//! same from the directory holding each file, which is named `./NAME`.
//!
//! With `;` every `{}` inside every argument becomes the path; with `+`
//! the lone `{}` before the `+` stands for as many paths as fit within
//! GNU's limit on a command line (see [`Limits`]), so that as many
//! children are started as GNU find starts.
//!
//! `-execdir` runs the child in the file's directory through the
//! walker's descriptor of that directory: the child `fchdir`s to it
//! between fork and exec (`dents_os::chdir_in_child`), so a directory renamed,
//! or replaced by a symlink, while the walk is in it cannot send the
//! command elsewhere.  A `+` batch waiting for more paths keeps its own
//! duplicate of the descriptor.  A starting point's directory (`t` for
//! `t/one`) is opened by path when its command runs, as there is no
//! walker descriptor above a starting point.
//!
//! Our own buffered output is written before a command runs, as GNU
//! flushes its standard output, so that the command's output comes after
//! what was printed for the same file.  Evaluation is serialised while
//! the expression holds a command (see `eval`), so commands run one at a
//! time, as with GNU find.

use std::ffi::{CString, OsStr};
use std::io::{self, BufRead, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Mutex;

use dents::walk::Visit;

use super::{debug, msg};
use crate::errors;
use crate::output::ThreadBuf;

/// The room GNU find leaves free on a command line besides the
/// environment (POSIX asks for 2048 bytes).
const HEADROOM: usize = 2048;
/// The size of command line GNU find uses when the system allows more
/// (findutils' `bc_use_sensible_arg_max`).
const SENSIBLE_ARG_MAX: usize = 128 * 1024;
/// POSIX's least `ARG_MAX` (`_POSIX_ARG_MAX`), the floor of the limit.
const POSIX_ARG_MIN: usize = 4096;
/// `-execdir ... +` keeps a batch per directory (the walk visits several
/// directories at once); beyond this many, the oldest runs early.
const MAX_PENDING_DIRS: usize = 16;

/// How much a `+` command may carry, computed as GNU's buildcmd does.
///
/// `arg_max` bounds the bytes of all arguments, the command's own words
/// included, each counted with its NUL (pointers are not counted):
/// 128 KiB, unless `sysconf(_SC_ARG_MAX)` less the environment and
/// 2048 bytes of headroom is smaller.  `max_args` bounds their number by
/// the pointers that would fit in that space.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of arguments, NULs included.
    pub arg_max: usize,
    /// Arguments, the command's own included.
    pub max_args: usize,
}

impl Limits {
    /// The limits for a system `ARG_MAX` (`None`: unlimited) and an
    /// environment of `env` bytes (`NAME=value` and a NUL each).
    pub fn new(sys_arg_max: Option<usize>, env: usize) -> Limits {
        let posix_max = sys_arg_max
            .unwrap_or(i64::MAX as usize)
            .saturating_sub(env + HEADROOM)
            .max(POSIX_ARG_MIN);
        Limits {
            arg_max: SENSIBLE_ARG_MAX.clamp(POSIX_ARG_MIN, posix_max),
            max_args: (posix_max / std::mem::size_of::<usize>()).saturating_sub(2),
        }
    }

    /// The limits for this process.
    fn current() -> Limits {
        let env: usize = std::env::vars_os()
            .map(|(k, v)| k.len() + 1 + v.len() + 1)
            .sum();
        Limits::new(dents_os::arg_max(), env)
    }
}

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
    /// Batches waiting for more paths (`+`): one, or one per directory.
    pending: Mutex<Vec<Pending>>,
    /// What a command line may carry.
    limits: Limits,
    /// Bytes of the command's own words (the `{}` of `+` excluded).
    fixed_chars: usize,
}

/// Paths gathered for a `+` command.
#[derive(Debug)]
struct Pending {
    /// `-execdir`: the directory's path as the paths name it (to know
    /// which batch a file joins) and a descriptor of it of our own.
    dir: Option<(Vec<u8>, OwnedFd)>,
    paths: Vec<Vec<u8>>,
    /// Bytes so far, the command's own words included.
    chars: usize,
}

/// The directory a `-execdir` command runs in: the walker's descriptor,
/// or one opened for a starting point.
enum DirFd<'a> {
    Borrowed(BorrowedFd<'a>),
    Owned(OwnedFd),
}

impl DirFd<'_> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            DirFd::Borrowed(fd) => *fd,
            DirFd::Owned(fd) => fd.as_fd(),
        }
    }

    /// A descriptor of our own, to keep with a batch.
    fn to_owned_fd(&self) -> io::Result<OwnedFd> {
        self.as_fd().try_clone_to_owned()
    }
}

impl Exec {
    /// A command from its words (`{}` included, terminator excluded).
    pub fn new(argv: Vec<Vec<u8>>, batch: bool, ok: bool, in_dir: bool) -> Exec {
        let fixed_chars = argv[..argv.len() - batch as usize]
            .iter()
            .map(|a| a.len() + 1)
            .sum();
        Exec {
            argv,
            batch,
            ok,
            in_dir,
            pending: Mutex::new(Vec::new()),
            limits: Limits::current(),
            fixed_chars,
        }
    }

    /// Evaluates the primary for the visited file: runs (or, with `+`,
    /// queues) the command; true if it ran and exited with 0 (always
    /// true with `+`).
    pub fn eval(&self, v: &Visit<'_>, out: &mut ThreadBuf<'_>) -> bool {
        let path = v.path();
        let (dir, arg) = if self.in_dir {
            let (key, arg) = in_dir(path, v.depth());
            let fd = if v.depth() == 0 {
                // A starting point: its directory, by path.
                let opened = CString::new(key.clone())
                    .map_err(|_| io::Error::from_raw_os_error(libc_enoent()))
                    .and_then(|c| dents::fs::open_dir(&c));
                match opened {
                    Ok(fd) => DirFd::Owned(fd),
                    Err(e) => {
                        msg::path_error(&key, &e);
                        return false;
                    }
                }
            } else {
                DirFd::Borrowed(v.parent_fd())
            };
            (Some((key, fd)), arg)
        } else {
            (None, path.to_vec())
        };
        if self.batch {
            let ready = match self.queue(dir, arg) {
                Ok(ready) => ready,
                Err((key, e)) => {
                    msg::path_error(&key, &e);
                    return false;
                }
            };
            for b in ready {
                self.run_batch(b, out);
            }
            return true;
        }
        let args: Vec<Vec<u8>> = self.argv.iter().map(|a| replace(a, &arg)).collect();
        if self.ok && !self.ask(path, out) {
            return false;
        }
        out.flush();
        let fd = dir.as_ref().map(|(_, fd)| fd.as_fd());
        match spawn_wait(&args, self.ok, fd) {
            Ok(st) => {
                if let Some(sig) = st.signal() {
                    report_signal(&args[0], sig, false);
                }
                st.code() == Some(0)
            }
            Err(e) => {
                report_failure(&args[0], &e);
                false
            }
        }
    }

    /// Adds `arg` to its batch; returns the batches to run now (full,
    /// or pushed out by too many directories).
    fn queue(
        &self,
        dir: Option<(Vec<u8>, DirFd<'_>)>,
        arg: Vec<u8>,
    ) -> Result<Vec<Pending>, (Vec<u8>, io::Error)> {
        let mut list = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let key = dir.as_ref().map(|(k, _)| k.as_slice());
        let mut ready = Vec::new();
        // A new batch, with a descriptor of its own for `-execdir`.
        let fresh = || -> Result<Pending, (Vec<u8>, io::Error)> {
            let dir = match &dir {
                Some((k, fd)) => Some((k.clone(), fd.to_owned_fd().map_err(|e| (k.clone(), e))?)),
                None => None,
            };
            Ok(Pending {
                dir,
                paths: Vec::new(),
                chars: self.fixed_chars,
            })
        };
        let i = match list
            .iter()
            .position(|p| p.dir.as_ref().map(|(k, _)| k.as_slice()) == key)
        {
            Some(i) => i,
            None => {
                list.push(fresh()?);
                if list.len() > MAX_PENDING_DIRS {
                    ready.push(list.remove(0));
                }
                list.len() - 1
            }
        };
        // GNU's buildcmd: a path that would take the line past the limit
        // runs the batch first (a lone path too long goes alone).
        let cost = arg.len() + 1;
        if list[i].chars + cost > self.limits.arg_max && !list[i].paths.is_empty() {
            let next = fresh()?;
            ready.push(std::mem::replace(&mut list[i], next));
        }
        let p = &mut list[i];
        p.chars += cost;
        p.paths.push(arg);
        // The command's words and the paths (its `{}` aside) count.
        if p.paths.len() + self.argv.len() > self.limits.max_args {
            let next = fresh()?;
            ready.push(std::mem::replace(&mut list[i], next));
        }
        Ok(ready)
    }

    /// Runs the commands for the paths still queued (at the end, or at
    /// `-quit`).
    pub fn finish(&self, out: &mut ThreadBuf<'_>) {
        let taken = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        for b in taken {
            self.run_batch(b, out);
        }
    }

    /// Runs a `+` command with the queued paths in the place of its `{}`;
    /// a failure makes find's status 1.
    fn run_batch(&self, batch: Pending, out: &mut ThreadBuf<'_>) {
        if batch.paths.is_empty() {
            return;
        }
        let (last, fixed) = self.argv.split_last().expect("a command has words");
        debug_assert_eq!(last.as_slice(), b"{}");
        out.flush();
        let fd = batch.dir.as_ref().map(|(_, fd)| fd.as_fd());
        if !run_command(fixed, &batch.paths, fd) {
            msg::raise(msg::FAILURE);
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

/// Runs `fixed` with `paths` appended; true if it ran and exited with 0.
/// A line the kernel finds too long after all (`E2BIG`: GNU's limit does
/// not count the pointers, which matters only with a huge environment)
/// fails as it does for GNU find: reported, not retried.
fn run_command(fixed: &[Vec<u8>], paths: &[Vec<u8>], dir: Option<BorrowedFd<'_>>) -> bool {
    let mut args: Vec<Vec<u8>> = fixed.to_vec();
    args.extend(paths.iter().cloned());
    match spawn_wait(&args, false, dir) {
        Ok(st) => {
            if let Some(sig) = st.signal() {
                report_signal(&args[0], sig, true);
            }
            st.code() == Some(0)
        }
        Err(e) => {
            report_failure(&args[0], &e);
            false
        }
    }
}

/// For `-execdir`: the directory to run in and the file's name there
/// (`./NAME`), as GNU forms them: a starting point's trailing slashes
/// become one, and `/` is run as `/` from `/`.
fn in_dir(path: &[u8], depth: usize) -> (Vec<u8>, Vec<u8>) {
    let mut end = path.len();
    let mut slash = false;
    if depth == 0 {
        match path.iter().rposition(|&b| b != b'/') {
            Some(i) => {
                slash = i + 1 < end;
                end = i + 1;
            }
            None => return (b"/".to_vec(), b"/".to_vec()),
        }
    }
    let (dir, name) = match path[..end].iter().rposition(|&b| b == b'/') {
        Some(0) => (&b"/"[..], &path[1..end]),
        Some(i) => (&path[..i], &path[i + 1..end]),
        None => (&b"."[..], &path[..end]),
    };
    let mut arg = b"./".to_vec();
    arg.extend_from_slice(name);
    if slash {
        arg.push(b'/');
    }
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

/// Runs `args` (in the directory `dir`, if any; with standard input
/// from `/dev/null` for `-ok`) and waits for it.
fn spawn_wait(
    args: &[Vec<u8>],
    null_stdin: bool,
    dir: Option<BorrowedFd<'_>>,
) -> io::Result<ExitStatus> {
    let mut cmd = Command::new(OsStr::from_bytes(&args[0]));
    cmd.args(args[1..].iter().map(|a| OsStr::from_bytes(a)));
    if let Some(fd) = dir {
        dents_os::chdir_in_child(&mut cmd, fd.try_clone_to_owned()?);
    }
    if null_stdin {
        cmd.stdin(Stdio::null());
    }
    if !debug::on(debug::EXEC) {
        return cmd.status();
    }
    debug::launching(args);
    let mut child = cmd.spawn()?;
    let st = child.wait()?;
    debug::terminated(child.id(), &st);
    Ok(st)
}

/// Says that a command could not be run, as the child of GNU find says
/// it (find's status is unchanged for `;`: the test is false).
fn report_failure(cmd: &[u8], e: &io::Error) {
    let mut m = Vec::new();
    msg::quote(&mut m, cmd, msg::utf8_locale());
    m.extend_from_slice(b": ");
    m.extend_from_slice(errors::describe(e).as_bytes());
    msg::note(&m);
}

/// GNU's words for a command killed by a signal; find's status becomes
/// 1 for a `+` command (`fail`), while for `;` the test is just false.
fn report_signal(cmd: &[u8], sig: i32, fail: bool) {
    let mut m = Vec::new();
    msg::quote(&mut m, cmd, msg::utf8_locale());
    m.extend_from_slice(format!(" terminated by signal {sig}").as_bytes());
    if fail {
        msg::error(&m);
    } else {
        msg::note(&m);
    }
}

/// `ENOENT`, for a path with a NUL byte.
fn libc_enoent() -> i32 {
    rustix::io::Errno::NOENT.raw_os_error()
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
        assert_eq!(in_dir(b"t//", 0), s(b".", b"./t/"));
        assert_eq!(in_dir(b"t/sub///", 0), s(b"t", b"./sub/"));
        assert_eq!(in_dir(b"//", 0), s(b"/", b"/"));
    }

    #[test]
    fn limits_as_gnu_buildcmd() {
        use super::Limits;
        // 2 MiB ARG_MAX: GNU's 128 KiB, and the pointers that fit.
        let l = Limits::new(Some(2 << 20), 1303);
        assert_eq!(l.arg_max, 128 * 1024);
        assert_eq!(l.max_args, ((2 << 20) - 1303 - 2048) / 8 - 2);
        // A small ARG_MAX or a big environment lowers the byte limit.
        assert_eq!(Limits::new(Some(100_000), 1000).arg_max, 100_000 - 3048);
        assert_eq!(Limits::new(Some(8192), 100_000).arg_max, 4096);
    }

    #[test]
    fn braces_are_replaced_everywhere() {
        assert_eq!(replace(b"a{}b{}", b"X"), b"aXbX");
        assert_eq!(replace(b"{", b"X"), b"{");
    }
}
