//! dents's shared test helpers, and real filesystems for tests: an image
//! file, `mkfs`, `mount -o loop`.
//!
//! Beside [`LoopFs`]: [`needs_root`] and [`skip`] (a test that cannot run
//! says so loudly, and fails under CI), [`test_cases!`] (one `#[test]` per
//! row of a table of cases), [`cli`] (running programs and comparing
//! their output), [`fill_flat`], [`awkward_names`] and [`deep_chain`]
//! (trees to walk; [`peak_rss_kib`], a program's peak memory),
//! [`layers`] (a crate's modules kept in the layers its module map states),
//! [`architecture`] (ARCHITECTURE.md's option tables),
//! [`snapshot`] (scans, bad snapshots and rows read back, for the
//! snapshot tests), [`sorted_breadth_first`] (a sorted walk's order by
//! `std::fs`), [`Gathered`] (a writer to hand an engine and read
//! back), [`at_once`] (commands run on threads at once, a few rounds).
//!
//! Directory reading depends on the filesystem (ext4 hashes names, XFS and
//! unindexed ext4 hand out byte offsets, btrfs and tmpfs do neither), so
//! the tests run on the real thing rather than on whatever `/tmp` is.
//!
//! Each [`LoopFs`] is its own sparse image in its own temporary directory,
//! mounted on a directory beside it, so tests may run in parallel; dropping
//! it unmounts and removes everything.  Making filesystems needs root and
//! the `mkfs` tools: without them [`LoopFs::new_or_skip`] says so loudly on
//! stderr (`SKIPPED (needs root): <test>: ...` without root, `SKIPPED
//! <test>: ...` without a tool) and the test returns early, except under
//! CI (`CI` set to anything non-empty, or `DENTS_REQUIRE_FS_TESTS=1`),
//! where it panics instead: CI must run every filesystem test.
//! `scripts/install-test-deps` installs the tools.
//!
//! Images go to `/dev/shm` when it has room (see `DENTS_TESTFS_DIR`).

use std::ffi::{CStr, CString, OsStr};
use std::fs;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rustix::fs::{Mode, OFlags};

pub mod architecture;
mod at_once;
mod cases;
pub mod cli;
mod deep;
mod gathered;
pub mod layers;
mod mount;
mod reference;
pub mod refresh;
mod skip;
pub mod snapshot;
mod wide;

pub use at_once::at_once;
pub use deep::{deep_chain, peak_rss_kib, DeepTmp};
pub use gathered::Gathered;
pub use mount::{mount, Mounted};
pub use reference::sorted_breadth_first;
pub use skip::{is_root, needs_root, required, skip};
pub use wide::fill_subdirs;

/// The kinds of filesystem the tests use.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FsKind {
    /// ext4 with `dir_index`: directories of more than one block are hashed
    /// (htree) and their offsets are name hashes.
    Ext4,
    /// ext4 without `dir_index` (`-O ^dir_index`): linear directories whose
    /// offsets are byte positions.
    Ext4NoDirIndex,
    /// ext4 without `filetype` (`-O ^filetype`): every `d_type` is unknown.
    Ext4NoFiletype,
    /// XFS: offsets are byte positions in the directory's data space / 8.
    Xfs,
    /// btrfs: offsets are sequence numbers; a directory's link count is 1.
    Btrfs,
    /// tmpfs (no image): offsets do not survive arbitrary seeks.
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
    pub fn mkfs(self) -> Option<&'static str> {
        match self {
            FsKind::Ext4 | FsKind::Ext4NoDirIndex | FsKind::Ext4NoFiletype => Some("mkfs.ext4"),
            FsKind::Xfs => Some("mkfs.xfs"),
            FsKind::Btrfs => Some("mkfs.btrfs"),
            FsKind::Tmpfs => None,
        }
    }

    /// The smallest image `mkfs` accepts for this kind, in MiB.
    ///
    /// xfsprogs 5.19 and later refuse filesystems under 300 MiB; btrfs
    /// needs about 110 MiB for its default duplicated metadata.
    pub fn min_size_mib(self) -> u64 {
        match self {
            FsKind::Xfs => 300,
            FsKind::Btrfs => 128,
            _ => 16,
        }
    }
}

/// A mounted test filesystem; unmounted and removed on drop.
#[derive(Debug)]
pub struct LoopFs {
    kind: FsKind,
    mount: PathBuf,
    /// Holds the image and the mount point; `None` once deliberately leaked
    /// (see `Drop`).
    dir: Option<tempfile::TempDir>,
}

/// Whether `prog` is on the `PATH` (or in an sbin directory, which a
/// non-login root shell may lack on its `PATH`).
fn find_program(prog: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin"].map(PathBuf::from))
        .map(|d| d.join(prog))
        .find(|p| p.is_file())
}

/// Runs `cmd`, turning a failure into a message with its stderr.
fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The inode count for an ext4 image of `size_mib`: enough for about 1.6M
/// files (a million-entry test plus company) where the image can afford
/// it, else a quarter of the image in 256-byte inodes.  mke2fs's default
/// (one inode per 16 KiB) would cap a 3 GiB image at ~200k files.
fn ext4_inodes(size_mib: u64) -> u64 {
    (size_mib * 1024).clamp(16_384, 1_600_000)
}

impl LoopFs {
    /// A new filesystem of `kind` and `size_mib` (raised to the kind's
    /// [minimum](FsKind::min_size_mib)), or `None` after saying loudly why
    /// not (not root, `mkfs` missing, `mkfs` or `mount` failing); under CI
    /// (see [`required`]) a panic instead.
    pub fn new_or_skip(kind: FsKind, size_mib: u64) -> Option<LoopFs> {
        if !needs_root(&format!("{kind:?} needs root to mount")) {
            return None;
        }
        if let Some(mkfs) = kind.mkfs() {
            if find_program(mkfs).is_none() {
                skip(&format!("{mkfs} not found (run scripts/install-test-deps)"));
                return None;
            }
        }
        match LoopFs::try_new(kind, size_mib) {
            Ok(fs) => Some(fs),
            Err(e) => {
                skip(&format!("{kind:?}: {e}"));
                None
            }
        }
    }

    /// Makes and mounts the filesystem; panics where that fails (use
    /// [`LoopFs::new_or_skip`] in tests that may run without root).
    pub fn new(kind: FsKind, size_mib: u64) -> LoopFs {
        LoopFs::try_new(kind, size_mib)
            .unwrap_or_else(|e| panic!("cannot make a {kind:?} test filesystem: {e}"))
    }

    /// Makes and mounts the filesystem, or says why it could not.
    pub fn try_new(kind: FsKind, size_mib: u64) -> Result<LoopFs, String> {
        let size_mib = size_mib.max(kind.min_size_mib());
        let parent = image_parent(size_mib);
        let dir = tempfile::Builder::new()
            .prefix("dents-testfs-")
            .tempdir_in(&parent)
            .map_err(|e| format!("temporary directory in {}: {e}", parent.display()))?;
        let mount = dir.path().join("mnt");
        fs::create_dir(&mount).map_err(|e| format!("{}: {e}", mount.display()))?;
        // From here on, a failure drops `fs`, which unmounts if need be.
        let fs = LoopFs {
            kind,
            mount,
            dir: Some(dir),
        };
        if kind == FsKind::Tmpfs {
            // nr_inodes=0: no inode limit, like the images' generous -N.
            run(Command::new("mount")
                .args(["-t", "tmpfs", "-o"])
                .arg(format!("size={size_mib}m,nr_inodes=0"))
                .arg("dents-testfs")
                .arg(&fs.mount))?;
            return Ok(fs);
        }
        let image = fs.image();
        // Sparse: only what mkfs and the test write takes disk space.
        let f = fs::File::create(&image).map_err(|e| format!("{}: {e}", image.display()))?;
        f.set_len(size_mib << 20)
            .map_err(|e| format!("{}: {e}", image.display()))?;
        drop(f);
        let mkfs = kind.mkfs().expect("image kinds have a mkfs");
        let mut cmd = Command::new(find_program(mkfs).ok_or(format!("{mkfs} not found"))?);
        match kind {
            FsKind::Ext4 | FsKind::Ext4NoDirIndex | FsKind::Ext4NoFiletype => {
                cmd.args(["-q", "-F", "-N", &ext4_inodes(size_mib).to_string()]);
                match kind {
                    FsKind::Ext4NoDirIndex => cmd.args(["-O", "^dir_index"]),
                    FsKind::Ext4NoFiletype => cmd.args(["-O", "^filetype"]),
                    _ => &mut cmd,
                };
            }
            FsKind::Xfs | FsKind::Btrfs => {
                cmd.args(["-q", "-f"]);
            }
            FsKind::Tmpfs => unreachable!("tmpfs has no image"),
        }
        run(cmd.arg(&image))?;
        mount_loop(&image, &fs.mount)?;
        Ok(fs)
    }

    /// Unmounts the image and mounts it again: its files stay, nothing of
    /// it stays in the page cache, so the next reads go to the (loop)
    /// device, as on a disk just after boot.  Not for tmpfs (no image).
    pub fn remount(&self) -> Result<(), String> {
        if self.kind == FsKind::Tmpfs {
            return Err("tmpfs has no image to mount again".into());
        }
        run(Command::new("umount").arg(&self.mount))?;
        mount_loop(&self.image(), &self.mount)
    }

    /// The image file of a filesystem that has one (not tmpfs).
    fn image(&self) -> PathBuf {
        self.dir.as_ref().expect("not leaked").path().join("image")
    }

    /// The mount point: the root directory of the filesystem.
    pub fn path(&self) -> &Path {
        &self.mount
    }

    /// The kind of filesystem.
    pub fn kind(&self) -> FsKind {
        self.kind
    }

    /// Damages the hashed (htree) ext4 directory `dir` (a path inside the
    /// filesystem, such as `/big`) as a failing disk would: unmounts, fills
    /// with zeros the leaf block that holds the middle of its hash order
    /// (`debugfs`'s `htree` dump lists leaves in that order), and mounts
    /// again.  Reading the directory then fails part way with `EBADMSG`
    /// (the block's checksum) after the entries before that block in hash
    /// order, as GNU's tools meet it on a corrupt directory; the entries
    /// after it can still be read by seeking past it.  Returns the zeroed
    /// leaf's number within the directory.
    pub fn zero_middle_dir_leaf(&self, dir: &str) -> Result<u64, String> {
        if !matches!(self.kind, FsKind::Ext4 | FsKind::Ext4NoFiletype) {
            return Err(format!("{:?} has no htree directories", self.kind));
        }
        let image = self.image();
        run(Command::new("umount").arg(&self.mount))?;
        let debugfs = find_program("debugfs").ok_or("debugfs not found")?;
        let dump = Command::new(&debugfs)
            .arg("-R")
            .arg(format!("htree {dir}"))
            .arg(&image)
            .output()
            .map_err(|e| format!("debugfs: {e}"))?;
        // "Reading directory block N, phys P": one line per leaf.
        let leaves: Vec<(u64, u64)> = String::from_utf8_lossy(&dump.stdout)
            .lines()
            .filter_map(|l| {
                let rest = l.strip_prefix("Reading directory block ")?;
                let (n, p) = rest.split_once(", phys ")?;
                Some((n.trim().parse().ok()?, p.trim().parse().ok()?))
            })
            .collect();
        let &(leaf, phys) = leaves
            .get(leaves.len() / 2)
            .filter(|_| leaves.len() >= 3)
            .ok_or_else(|| format!("{dir}: not a hashed directory of several leaves"))?;
        let dumpe2fs = find_program("dumpe2fs").ok_or("dumpe2fs not found")?;
        let header = Command::new(dumpe2fs)
            .arg("-h")
            .arg(&image)
            .output()
            .map_err(|e| format!("dumpe2fs: {e}"))?;
        let block_size: u64 = String::from_utf8_lossy(&header.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("Block size:")?.trim().parse().ok())
            .ok_or("dumpe2fs: no block size")?;
        let f = fs::OpenOptions::new()
            .write(true)
            .open(&image)
            .map_err(|e| format!("{}: {e}", image.display()))?;
        std::os::unix::fs::FileExt::write_all_at(
            &f,
            &vec![0; block_size as usize],
            phys * block_size,
        )
        .and_then(|()| f.sync_all())
        .map_err(|e| format!("{}: {e}", image.display()))?;
        drop(f);
        mount_loop(&image, &self.mount)?;
        Ok(leaf)
    }

    /// The tree of the corrupt-directory tests, at the root: `big`, 40,000
    /// empty files with long names (over 1 MiB of directory: read in
    /// slices, split over ranks) with its middle leaf zeroed
    /// ([`LoopFs::zero_middle_dir_leaf`]), and `small/f`, a healthy
    /// neighbour.  Panics where the filesystem cannot be damaged so.
    pub fn build_corrupt_dir_tree(&self) {
        let root = self.path();
        fill_flat(&root.join("big"), 40_000, |i| {
            format!("entry-with-a-long-name-{i:06}")
        });
        assert!(
            fs::metadata(root.join("big")).unwrap().len() >= 1 << 20,
            "big is not huge"
        );
        fs::create_dir(root.join("small")).unwrap();
        fs::write(root.join("small/f"), b"x").unwrap();
        self.zero_middle_dir_leaf("/big").expect("a corrupt leaf");
    }
}

/// Where images are made: `$DENTS_TESTFS_DIR` if set; else `/dev/shm` if
/// it is a tmpfs with room for the whole image, so that image I/O stays in
/// memory (a million files write hundreds of MB of metadata: from memory
/// that is faster, and no disk writeback stalls the machine);
/// else the temporary directory.  Images are sparse, so "room" is generous.
fn image_parent(size_mib: u64) -> PathBuf {
    if let Some(d) = std::env::var_os("DENTS_TESTFS_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let shm = Path::new("/dev/shm");
    let roomy_tmpfs = rustix::fs::statfs(shm).is_ok_and(|s| s.f_type as u64 == TMPFS_MAGIC)
        && rustix::fs::statvfs(shm)
            .is_ok_and(|s| s.f_bavail.saturating_mul(s.f_frsize) >= size_mib << 20);
    if roomy_tmpfs {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

/// `statfs.f_type` of tmpfs.
const TMPFS_MAGIC: u64 = 0x0102_1994;

/// `mount -o loop image mount`, retried a few times: mounts racing for a
/// free loop device (tests run in parallel) can lose to each other.
fn mount_loop(image: &Path, mount: &Path) -> Result<(), String> {
    let mut last = String::new();
    for attempt in 0..5 {
        if attempt > 0 {
            std::thread::sleep(Duration::from_millis(100 << attempt));
        }
        match run(Command::new("mount")
            .args(["-o", "loop"])
            .arg(image)
            .arg(mount))
        {
            Ok(()) => return Ok(()),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Whether `path` is a mount point now: its device differs from its
/// parent's.  (After a lazy unmount the path is a plain directory again.)
fn is_mounted(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let dev = |p: &Path| fs::symlink_metadata(p).map(|m| m.dev());
    match (dev(path), path.parent().map(dev)) {
        (Ok(d), Some(Ok(parent))) => d != parent,
        // Cannot tell: assume mounted, so that nothing is deleted inside.
        _ => true,
    }
}

impl Drop for LoopFs {
    fn drop(&mut self) {
        if is_mounted(&self.mount) {
            // A descriptor closing on another thread can keep the mount
            // busy for a moment: retry, then detach it lazily.
            for attempt in 0..3 {
                if attempt > 0 {
                    std::thread::sleep(Duration::from_millis(200));
                }
                if run(Command::new("umount").arg(&self.mount)).is_ok() {
                    break;
                }
            }
            if is_mounted(&self.mount) {
                let _ = run(Command::new("umount").arg("-l").arg(&self.mount));
            }
        }
        if is_mounted(&self.mount) {
            // Removing the temporary directory now would descend into the
            // live filesystem and delete its files: leave it all in place.
            let dir = self.dir.take().map(tempfile::TempDir::keep);
            eprintln!(
                "warning: could not unmount {}; leaving {:?}",
                self.mount.display(),
                dir
            );
        }
        // Otherwise `dir` drops after this, removing the image (the loop
        // device was set up with autoclear and detaches on unmount).
    }
}

/// Creates `n` empty files in `dir` (created if missing), named by
/// `name(i)` for `i` in `0..n`, as fast as a test can: one `openat` +
/// `close` each, relative to the open directory, so no path is resolved.
///
/// Panics on any error, including a name that already exists (`O_EXCL`):
/// a test that thinks it made `n` files has made exactly `n`.
pub fn fill_flat<N: AsRef<[u8]>>(dir: &Path, n: usize, name: impl Fn(usize) -> N) {
    fill_each(dir, n, name, |dfd, c| {
        rustix::fs::openat(
            dfd,
            c,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        )
        .map(drop)
    })
}

/// Makes `n` entries in `dir` (created if missing), named by `name(i)`,
/// each by `make(dir's descriptor, name)`: the open-once loop of
/// [`fill_flat`] and [`fill_subdirs`].  Panics on any error.
pub(crate) fn fill_each<N: AsRef<[u8]>>(
    dir: &Path,
    n: usize,
    name: impl Fn(usize) -> N,
    make: impl Fn(BorrowedFd<'_>, &CStr) -> rustix::io::Result<()>,
) {
    fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let dfd = rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for i in 0..n {
        let name = name(i);
        let c = CString::new(name.as_ref()).expect("a file name has no NUL byte");
        if let Err(e) = make(dfd.as_fd(), &c) {
            panic!(
                "creating {:?} in {}: {e}",
                OsStr::from_bytes(name.as_ref()),
                dir.display()
            );
        }
    }
}

/// The same as [`fill_flat`] (its first name).
pub fn fill<N: AsRef<[u8]>>(dir: &Path, n: usize, name: impl Fn(usize) -> N) {
    fill_flat(dir, n, name)
}

/// Names that break careless code: control characters (newline, tab,
/// carriage return, escape), spaces, invalid UTF-8, 255 bytes (the
/// limit, in ASCII and in three-byte characters), a leading `-` or `.`,
/// names made of dots, shell and glob characters, a backslash, non-ASCII.
pub fn awkward_names() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = [
        &b"new\nline"[..],
        b"\n",
        b"trailing newline\n",
        b"tab\there",
        b"carriage\rreturn",
        b"esc\x1b[31mred",
        b"with space",
        b" leading space",
        b"trailing space ",
        b"bad\xff\xfeutf8",
        b"\x80",
        b"\xc3\x28 bad two-byte sequence",
        b"-dash",
        b"--double-dash",
        b"-",
        b".hidden",
        b"...",
        b"..a",
        b".a.",
        b"star*?[glob]",
        b"back\\slash",
        b"quote'and\"double",
        b"$(dollar)`tick`;|&",
        "caf\u{e9}-\u{65e5}\u{672c}-\u{1f600}".as_bytes(),
        // U+00E9 precomposed above; here e + combining acute: another name.
        "cafe\u{301}".as_bytes(),
    ]
    .iter()
    .map(|n| n.to_vec())
    .collect();
    v.push(vec![b'x'; 255]);
    // 85 three-byte characters: 255 bytes, the limit in bytes, not chars.
    v.push("\u{65e5}".repeat(85).into_bytes());
    v
}

/// Runs `cmd` with its standard output on a pipe, reads the first record
/// (up to `sep`), closes the pipe and waits at most `bound` for the process
/// to end (it is killed after that): how a program meets `| head -1`.
/// Returns the first record, how it ended (`None`: it was still running at
/// the bound), its standard error and how long it took to end after the
/// pipe was closed.
pub fn first_line_then_close(
    cmd: Command,
    sep: u8,
    bound: Duration,
) -> (Vec<u8>, Option<std::process::ExitStatus>, Vec<u8>, Duration) {
    let (line, status, err, took, _) = first_line_then_close_reads(cmd, sep, bound);
    (line, status, err, took)
}

/// [`first_line_then_close`], and the bytes the process read in all
/// (`rchar` of `/proc/PID/io`, learnt when it has ended and before it is
/// reaped; `None` if it had to be killed): how far it got in its input
/// before it noticed that its reader was gone.
pub fn first_line_then_close_reads(
    mut cmd: Command,
    sep: u8,
    bound: Duration,
) -> (
    Vec<u8>,
    Option<std::process::ExitStatus>,
    Vec<u8>,
    Duration,
    Option<u64>,
) {
    use std::io::{BufRead, Read};
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = Vec::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_until(sep, &mut line)
        .unwrap();
    // The reader is dropped here: the pipe has no reader any more.
    let closed = std::time::Instant::now();
    let (status, read) = wait_counting_reads(&mut child, bound);
    let took = closed.elapsed();
    let mut err = Vec::new();
    child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
    (line, status, err, took, read)
}

/// Runs `cmd` (its standard output on `/dev/null`) to its end; how it
/// ended and the bytes it read in all (see
/// [`first_line_then_close_reads`]).
pub fn bytes_read_by(mut cmd: Command) -> (std::process::ExitStatus, u64) {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (status, read) = wait_counting_reads(&mut child, Duration::from_secs(600));
    (
        status.expect("the command ends"),
        read.expect("the command ends"),
    )
}

/// Waits at most `bound` for `child` to end (killing it after that: `None`,
/// `None`); how it ended and its `rchar` (the bytes it read), read while
/// it is a zombie: after `waitid(WNOWAIT)`, before the `wait` that reaps
/// it.
pub fn wait_counting_reads(
    child: &mut std::process::Child,
    bound: Duration,
) -> (Option<std::process::ExitStatus>, Option<u64>) {
    use rustix::process::{waitid, Pid, WaitId, WaitIdOptions};
    let pid = Pid::from_child(child);
    let start = std::time::Instant::now();
    loop {
        let ended = waitid(
            WaitId::Pid(pid),
            WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
        )
        .unwrap();
        if ended.is_some() {
            let io = fs::read_to_string(format!("/proc/{}/io", child.id()))
                .unwrap_or_else(|e| panic!("/proc/{}/io: {e}", child.id()));
            let rchar = io
                .lines()
                .find_map(|l| l.strip_prefix("rchar: "))
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no rchar in /proc/PID/io: {io}"));
            return (Some(child.wait().unwrap()), Some(rchar));
        }
        if start.elapsed() > bound {
            child.kill().unwrap();
            child.wait().unwrap();
            return (None, None);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn awkward_names_are_distinct_valid_file_names() {
        let names = awkward_names();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        for n in &names {
            assert!(!n.is_empty() && n.len() <= 255, "{n:?}");
            assert!(!n.contains(&0) && !n.contains(&b'/'), "{n:?}");
            assert!(n != b"." && n != b"..");
        }
        assert!(names.iter().any(|n| std::str::from_utf8(n).is_err()));
        assert!(names.iter().any(|n| n.len() == 255));
    }

    #[test]
    fn fill_flat_makes_exactly_the_names() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("d");
        let names = awkward_names();
        fill_flat(&d, names.len(), |i| names[i].clone());
        let mut got: Vec<Vec<u8>> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().as_bytes().to_vec())
            .collect();
        got.sort();
        let mut want = names;
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    #[should_panic(expected = "creating")]
    fn fill_flat_refuses_a_name_twice() {
        let tmp = tempfile::tempdir().unwrap();
        fill_flat(tmp.path(), 2, |_| "same");
    }
}
