//! Real filesystems for tests: an image file, `mkfs`, `mount -o loop`.
//!
//! Each [`LoopFs`] is its own image in its own temporary directory, so
//! tests may run in parallel; dropping it unmounts and removes everything.
//! Making filesystems needs root and the `mkfs` tools: without them a test
//! says so loudly on stderr and returns, except under CI (`CI` set, or
//! `DENTS_REQUIRE_FS_TESTS=1`), where it fails: CI must run every test.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The kinds of filesystem the tests use.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FsKind {
    /// ext4 with hashed (htree) directories.
    Ext4,
    /// ext4 without `dir_index`: linear directories.
    Ext4NoDirIndex,
    /// ext4 without `filetype`: every `d_type` is unknown.
    Ext4NoFiletype,
    /// XFS.
    Xfs,
    /// btrfs (directory link count always 1).
    Btrfs,
    /// tmpfs (no image).
    Tmpfs,
}

impl FsKind {
    /// Every kind.
    pub const ALL: [FsKind; 6] = [
        FsKind::Ext4,
        FsKind::Ext4NoDirIndex,
        FsKind::Ext4NoFiletype,
        FsKind::Xfs,
        FsKind::Btrfs,
        FsKind::Tmpfs,
    ];

    /// The `mkfs` program this kind needs, if any.
    fn mkfs(self) -> Option<&'static str> {
        match self {
            FsKind::Ext4 | FsKind::Ext4NoDirIndex | FsKind::Ext4NoFiletype => Some("mkfs.ext4"),
            FsKind::Xfs => Some("mkfs.xfs"),
            FsKind::Btrfs => Some("mkfs.btrfs"),
            FsKind::Tmpfs => None,
        }
    }
}

/// A mounted test filesystem; unmounted and removed on drop.
#[derive(Debug)]
pub struct LoopFs {
    kind: FsKind,
    mount: PathBuf,
    _dir: tempfile::TempDir,
}

/// Whether a missing prerequisite must fail the test rather than skip it.
pub fn required() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
        || std::env::var_os("DENTS_REQUIRE_FS_TESTS").is_some_and(|v| v == "1")
}

/// Skips loudly, or fails under CI.
pub fn skip(why: &str) {
    if required() {
        panic!("required in CI, cannot run: {why}");
    }
    eprintln!("SKIPPED: {why}");
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Whether `prog` is on the PATH.
fn have(prog: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {prog}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

impl LoopFs {
    /// A new filesystem of `kind` and `size_mib`, or `None` (said loudly)
    /// where it cannot be made; under CI a failure instead.
    pub fn new_or_skip(kind: FsKind, size_mib: u64) -> Option<LoopFs> {
        if !is_root() {
            skip(&format!("{kind:?}: not root, cannot mount"));
            return None;
        }
        if let Some(mkfs) = kind.mkfs() {
            if !have(mkfs) {
                skip(&format!("{kind:?}: {mkfs} not found"));
                return None;
            }
        }
        match LoopFs::new(kind, size_mib) {
            Ok(fs) => Some(fs),
            Err(e) => {
                skip(&format!("{kind:?}: {e}"));
                None
            }
        }
    }

    /// Makes and mounts the filesystem.
    pub fn new(kind: FsKind, size_mib: u64) -> Result<LoopFs, String> {
        let dir = tempfile::Builder::new()
            .prefix("dents-fs-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let mount = dir.path().join("mnt");
        fs::create_dir(&mount).map_err(|e| e.to_string())?;
        if kind == FsKind::Tmpfs {
            run(Command::new("mount")
                .args([
                    "-t",
                    "tmpfs",
                    "-o",
                    &format!("size={size_mib}m,nr_inodes=0"),
                    "tmpfs",
                ])
                .arg(&mount))?;
            return Ok(LoopFs {
                kind,
                mount,
                _dir: dir,
            });
        }
        let image = dir.path().join("image");
        let f = fs::File::create(&image).map_err(|e| e.to_string())?;
        f.set_len(size_mib << 20).map_err(|e| e.to_string())?;
        drop(f);
        let mut mkfs = Command::new(kind.mkfs().expect("image kinds have mkfs"));
        match kind {
            FsKind::Ext4 | FsKind::Ext4NoDirIndex | FsKind::Ext4NoFiletype => {
                // Enough inodes for a million files in a few GiB.
                let inodes = (size_mib * 1024).clamp(16_384, 2_500_000);
                mkfs.args(["-q", "-F", "-N", &inodes.to_string()]);
                if kind == FsKind::Ext4NoDirIndex {
                    mkfs.args(["-O", "^dir_index"]);
                }
                if kind == FsKind::Ext4NoFiletype {
                    mkfs.args(["-O", "^filetype"]);
                }
            }
            FsKind::Xfs => {
                mkfs.args(["-q", "-f"]);
            }
            FsKind::Btrfs => {
                mkfs.args(["-q", "-f"]);
            }
            FsKind::Tmpfs => unreachable!(),
        }
        run(mkfs.arg(&image))?;
        run(Command::new("mount")
            .args(["-o", "loop"])
            .arg(&image)
            .arg(&mount))?;
        Ok(LoopFs {
            kind,
            mount,
            _dir: dir,
        })
    }

    /// The mount point.
    pub fn path(&self) -> &Path {
        &self.mount
    }

    /// The kind of filesystem.
    pub fn kind(&self) -> FsKind {
        self.kind
    }
}

impl Drop for LoopFs {
    fn drop(&mut self) {
        if Command::new("umount")
            .arg(&self.mount)
            .status()
            .map(|s| !s.success())
            .unwrap_or(true)
        {
            let _ = Command::new("umount").arg("-l").arg(&self.mount).status();
        }
    }
}

/// Creates `n` empty files in `dir` named by `name(i)`, quickly.
pub fn fill(dir: &Path, n: usize, name: impl Fn(usize) -> Vec<u8>) {
    fs::create_dir_all(dir).unwrap();
    for i in 0..n {
        fs::File::create(dir.join(OsStr::from_bytes(&name(i)))).unwrap();
    }
}

/// Names that break careless code: newline, space, invalid UTF-8, 255
/// bytes, leading dash and dot, non-ASCII.
pub fn awkward_names() -> Vec<Vec<u8>> {
    vec![
        b"new\nline".to_vec(),
        b"with space".to_vec(),
        b"bad\xff\xfeutf8".to_vec(),
        vec![b'x'; 255],
        b"-dash".to_vec(),
        b".hidden".to_vec(),
        "caf\u{e9}-\u{65e5}\u{672c}".as_bytes().to_vec(),
        b"tab\there".to_vec(),
    ]
}
