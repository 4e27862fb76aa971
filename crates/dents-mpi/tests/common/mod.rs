//! Running `dents-mpi` under `mpirun` and the tools it is compared with.

#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

use dents_testfs::{FsKind, LoopFs};
use rustix::fs::{mkdirat, openat, Mode, OFlags};

pub use dents_testfs::cli::{run, Run};

/// `mpirun`, or `None` after saying loudly why not (a failure under CI).
pub fn mpirun() -> Option<PathBuf> {
    match Command::new("mpirun").arg("--version").output() {
        Ok(o) if o.status.success() => Some(PathBuf::from("mpirun")),
        _ => {
            dents_testfs::skip("mpirun not found (apt-get install openmpi-bin)");
            None
        }
    }
}

/// `mpirun -np N dents-mpi` in `dir`, arguments to follow.
pub fn mpi_cmd(np: usize, dir: &Path) -> Command {
    let mut c = Command::new("mpirun");
    c.args([
        "--oversubscribe",
        "--allow-run-as-root",
        "--bind-to",
        "none",
        "-np",
    ])
    .arg(np.to_string())
    .arg(env!("CARGO_BIN_EXE_dents-mpi"))
    .current_dir(dir)
    // No interactive locale surprises in GNU's tools or ours.
    .env("LC_ALL", "C")
    // A session directory of its own: two mpiruns starting at once
    // raced to create /tmp/ompi.HOST.0 ("File exists", orte_init failed,
    // status 1), which failed a test now and then in CI.
    .env("OMPI_MCA_orte_tmpdir_base", session_base());
    c
}

/// A new directory for one mpirun's session files.
fn session_base() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let base = std::env::temp_dir().join(format!("dents-mpi-test-{}-{n}", std::process::id()));
    fs::create_dir_all(&base).unwrap();
    // Tests run some ranks as nobody, who must write there too.
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&base, fs::Permissions::from_mode(0o1777)).unwrap();
    base
}

/// `mpirun -np N dents-mpi du ARGS` in `dir`.
pub fn mpi_du_cmd(np: usize, dir: &Path, args: &[&str]) -> Command {
    let mut c = mpi_cmd(np, dir);
    c.arg("du").args(args);
    c
}

/// Runs `dents-mpi du` on `np` ranks.
pub fn mpi_du(np: usize, dir: &Path, args: &[&str]) -> Run {
    run(&mut mpi_du_cmd(np, dir, args))
}

/// Runs GNU du.
pub fn gnu_du(dir: &Path, args: &[&str]) -> Run {
    run(Command::new("du")
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C"))
}

/// Sets on `to` the environment `from` sets (mpi_cmd's `LC_ALL` and
/// session directory), for a command that wraps another (`timeout`,
/// `setpriv`): without the session directory of its own, two mpiruns
/// starting at once race for /tmp/ompi.HOST.0.
pub fn copy_env(from: &Command, to: &mut Command) {
    for (key, value) in from.get_envs() {
        if let Some(value) = value {
            to.env(key, value);
        }
    }
}

/// `cmd` run as nobody (through `setpriv`).
pub fn as_nobody(cmd: Command) -> Run {
    let mut w = Command::new("setpriv");
    w.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
    w.arg(cmd.get_program()).args(cmd.get_args());
    if let Some(d) = cmd.get_current_dir() {
        w.current_dir(d);
    }
    copy_env(&cmd, &mut w);
    // Open MPI keeps its session files under TMPDIR: one nobody may write.
    w.env("TMPDIR", "/tmp");
    run(&mut w)
}

/// Output lines (NUL-terminated with `-0`), sorted.
pub fn sorted(out: &[u8], args: &[&str]) -> Vec<Vec<u8>> {
    let sep = if args.contains(&"-0") { 0 } else { b'\n' };
    let mut lines: Vec<Vec<u8>> = out
        .split(|&c| c == sep)
        .filter(|l| !l.is_empty())
        .map(|l| l.to_vec())
        .collect();
    lines.sort();
    lines
}

/// A tree of a few thousand entries: nested directories of several
/// widths and depths, files of several sizes, a sparse file, symlinks,
/// empty directories, names with spaces and newlines.
pub fn build_tree(root: &Path) {
    for a in 0..6 {
        for b in 0..(a * 3 + 1) {
            let d = root.join(format!("d{a}/sub {b}/deeper/still"));
            fs::create_dir_all(&d).unwrap();
            for f in 0..(b * 7 % 40) {
                fs::write(d.join(format!("f{f}")), vec![b'x'; f * 1000 + a]).unwrap();
            }
            fs::write(root.join(format!("d{a}/sub {b}/top")), vec![b'y'; b * 5000]).unwrap();
        }
    }
    fs::create_dir_all(root.join("empty/dirs/only")).unwrap();
    fs::write(root.join("d1/new\nline"), b"n").unwrap();
    let sparse = fs::File::create(root.join("d2/sparse")).unwrap();
    sparse.set_len(50 << 20).unwrap();
    symlink("d1", root.join("link-to-d1")).unwrap();
    symlink("missing", root.join("d3/dangling")).unwrap();
}

/// A directory far larger than dents-mpi's slicing size (1 MiB of
/// `st_size`), named `flat1m` under `base`.
pub struct HugeDir {
    /// Where `flat1m` lies.
    pub base: PathBuf,
    /// Its entries and those of the trees below it.
    pub entries: usize,
    /// The loop filesystem holding it; `None`: the corpus's (a million
    /// empty files, `bench/corpus.sh`).
    pub fs: Option<LoopFs>,
}

/// The huge directories to split over ranks: the corpus's million-entry
/// directory where mounted, else 200,000 entries on a loop ext4 (a
/// million takes minutes to create on a loaded machine); and 50,000 long
/// names on XFS (linear offsets) with a small tree below one entry.
pub fn huge_dirs() -> Vec<HugeDir> {
    let mut dirs = Vec::new();
    let corpus = Path::new("/var/tmp/dents-bench/ext4");
    if corpus.join("flat1m").is_dir() {
        dirs.push(HugeDir {
            base: corpus.to_path_buf(),
            entries: 1_000_000,
            fs: None,
        });
    } else if let Some(fs) = LoopFs::new_or_skip(FsKind::Ext4, 400) {
        dents_testfs::fill_flat(&fs.path().join("flat1m"), 200_000, |i| {
            format!("entry-{i:07}")
        });
        dirs.push(HugeDir {
            base: fs.path().to_path_buf(),
            entries: 200_000,
            fs: Some(fs),
        });
    }
    if let Some(fs) = LoopFs::new_or_skip(FsKind::Xfs, 300) {
        // Long names: the directory passes 1 MiB, where it is sliced.
        dents_testfs::fill_flat(&fs.path().join("flat1m"), 50_000, |i| {
            format!("a-name-long-enough-to-fill-{i:06}")
        });
        fs::create_dir_all(fs.path().join("flat1m/sub/dir")).unwrap();
        fs::write(fs.path().join("flat1m/sub/dir/f"), b"x").unwrap();
        dirs.push(HugeDir {
            base: fs.path().to_path_buf(),
            entries: 50_003,
            fs: Some(fs),
        });
    }
    for d in &dirs {
        let size = fs::metadata(d.base.join("flat1m")).unwrap().len();
        assert!(
            size >= 1 << 20,
            "{:?}: {size} bytes is too small to be sliced",
            d.base
        );
    }
    dirs
}

/// A tree of real shape: the bench corpus's copy of real trees where it is
/// mounted (`bench/corpus.sh`), else the shape of `/usr/include` copied by
/// `bench/shape.py` into a temporary directory (names, fan-out, depths,
/// symlinks and sizes of a real tree; no data).  Never absent: a test on
/// it always runs.
pub struct ShapeTree {
    pub root: PathBuf,
    _tmp: Option<tempfile::TempDir>,
}

/// The tree of real shape to compare on (see [`ShapeTree`]).
pub fn shape_tree() -> ShapeTree {
    let corpus = Path::new("/var/tmp/dents-bench/tree/shape");
    if corpus.is_dir() {
        return ShapeTree {
            root: corpus.to_path_buf(),
            _tmp: None,
        };
    }
    let tmp = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/shape.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(tmp.path())
        .arg("/usr/include")
        .output()
        .unwrap_or_else(|e| panic!("python3 {script:?}: {e}"));
    assert!(
        out.status.success(),
        "{script:?} /usr/include: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let root = tmp.path().join("usr_include");
    assert!(
        fs::read_dir(&root).unwrap().count() > 10,
        "{root:?}: too small a copy of /usr/include to compare on"
    );
    ShapeTree {
        root,
        _tmp: Some(tmp),
    }
}

/// The items each rank walked, from the lines `DENTS_MPI_STATS=1` has
/// every rank write to standard error.
pub fn items_walked(stderr: &str) -> Vec<u64> {
    stderr
        .lines()
        .filter(|l| l.contains("items walked"))
        // "dents-mpi: rank R: N items walked, ..."
        .map(|l| {
            let n = l.split(": ").nth(2).and_then(|w| w.split(' ').next());
            n.and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no count of items in {l:?}"))
        })
        .collect()
}

/// `t/ddd/ddd/...`: `levels` levels, a file every 500, built one level at
/// a time relative to the last (a whole path that long is refused).
pub fn build_chain(dir: &Path, levels: usize) {
    let flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC;
    let mode = Mode::from_raw_mode(0o755);
    let mut fd = openat(rustix::fs::CWD, dir, flags, Mode::empty()).unwrap();
    mkdirat(&fd, "t", mode).unwrap();
    fd = openat(&fd, "t", flags, Mode::empty()).unwrap();
    for level in 1..=levels {
        mkdirat(&fd, "ddd", mode).unwrap();
        if level % 500 == 0 {
            let f = openat(
                &fd,
                "f",
                OFlags::CREATE | OFlags::WRONLY,
                Mode::from_raw_mode(0o644),
            );
            rustix::io::write(f.unwrap(), &[b'x'; 5000]).unwrap();
        }
        fd = openat(&fd, "ddd", flags, Mode::empty()).unwrap();
    }
}

/// The `dents` executable beside `dents-mpi` (`cargo build --release -p
/// dents-cli` builds it; the workspace's build does).
pub fn dents_bin() -> PathBuf {
    let p = Path::new(env!("CARGO_BIN_EXE_dents-mpi")).with_file_name("dents");
    assert!(
        p.is_file(),
        "{p:?} missing: build it with cargo build --release -p dents-cli"
    );
    p
}

/// `dents ARGS` in `dir`.
pub fn dents(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(dents_bin());
    c.args(args).current_dir(dir).env("LC_ALL", "C");
    c
}
