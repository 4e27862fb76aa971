//! Trees deeper than `PATH_MAX` (chains of directories made one level at
//! a time through descriptors), and the peak memory of a program run on
//! them.

use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::process::{Command, Stdio};

use rustix::fs::{Mode, OFlags};

/// A chain of `levels` directories `a` below `root/deep` (made here),
/// with a file `f` at the bottom: far deeper than `PATH_MAX` when
/// `levels` is in the thousands (each level made by `mkdirat` from the
/// one above, so no path is ever longer than a name).
pub fn deep_chain(root: &Path, levels: usize) {
    let top = root.join("deep");
    std::fs::create_dir(&top).unwrap();
    let mut fd: OwnedFd =
        rustix::fs::open(&top, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()).unwrap();
    for _ in 0..levels {
        rustix::fs::mkdirat(fd.as_fd(), "a", Mode::from_raw_mode(0o755)).unwrap();
        fd = rustix::fs::openat(
            fd.as_fd(),
            "a",
            OFlags::RDONLY | OFlags::DIRECTORY,
            Mode::empty(),
        )
        .unwrap();
    }
    drop(
        rustix::fs::openat(
            fd.as_fd(),
            "f",
            OFlags::CREATE | OFlags::WRONLY,
            Mode::from_raw_mode(0o644),
        )
        .unwrap(),
    );
}

/// A temporary directory for [`deep_chain`], in `/dev/shm` where there is
/// one (removing 20,000 levels from a disk mounted with `discard` takes a
/// minute); its chain is removed by `rm -rf` (the standard library's
/// removal recurses, one stack frame a level).
pub struct DeepTmp(tempfile::TempDir);

impl DeepTmp {
    /// An empty temporary directory.
    pub fn new() -> DeepTmp {
        let shm = Path::new("/dev/shm");
        let tmp = if shm.is_dir() {
            tempfile::tempdir_in(shm)
        } else {
            tempfile::tempdir()
        };
        DeepTmp(tmp.unwrap())
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Default for DeepTmp {
    fn default() -> DeepTmp {
        DeepTmp::new()
    }
}

impl Drop for DeepTmp {
    fn drop(&mut self) {
        let _ = Command::new("rm")
            .arg("-rf")
            .arg(self.0.path().join("deep"))
            .status();
    }
}

/// The peak resident set (KiB) of `cmd` run to its end, its output
/// discarded, as GNU time reports it (`wait4`'s `ru_maxrss`); `None`
/// (after a loud skip) without `/usr/bin/time`.  Panics if `cmd` fails.
pub fn peak_rss_kib(cmd: &Command) -> Option<u64> {
    let time = "/usr/bin/time";
    if !Path::new(time).exists() {
        crate::skip("/usr/bin/time (GNU time) missing: peak memory not measured");
        return None;
    }
    let out = tempfile::NamedTempFile::new().unwrap();
    let mut c = Command::new(time);
    c.arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(out.path())
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .stdout(Stdio::null());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    if let Some(d) = cmd.get_current_dir() {
        c.current_dir(d);
    }
    let st = c.status().unwrap();
    assert!(st.success(), "{cmd:?}: {st}");
    let text = std::fs::read_to_string(out.path()).unwrap();
    Some(
        text.lines()
            .last()
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or_else(|| panic!("GNU time said {text:?}")),
    )
}
