//! Random changes to a tree for the refresh tests (`dents scan --since`
//! in dents-cli, `dents-mpi scan --since` in dents-mpi): the same seed
//! makes the same tree and the same changes, so that both test the
//! refresh against the same histories.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A small deterministic generator (xorshift64*): the same seed, the
/// same changes.
pub struct Rng(pub u64);

impl Rng {
    /// The generator of a test's seed (any `u64`; never the state 0,
    /// which xorshift cannot leave).
    pub fn seeded(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// Every directory under `root` (itself included) and every file, as
/// paths, sorted; directories that cannot be read are listed, not
/// entered.
pub fn inventory(root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut dirs = vec![root.to_path_buf()];
    let mut files = Vec::new();
    let mut i = 0;
    while i < dirs.len() {
        let d = dirs[i].clone();
        i += 1;
        let Ok(rd) = fs::read_dir(&d) else { continue };
        let mut names: Vec<_> = rd.map(|e| e.unwrap().path()).collect();
        names.sort();
        for p in names {
            if fs::symlink_metadata(&p).unwrap().is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    (dirs, files)
}

/// The first tree: `dirs` directories in a random shape, files in each
/// (some with content), a few symlinks.
pub fn build(root: &Path, rng: &mut Rng) {
    fs::create_dir(root).unwrap();
    let mut dirs = vec![root.to_path_buf()];
    for i in 0..40 {
        let parent = dirs[rng.below(dirs.len())].clone();
        let d = parent.join(format!("d{i}"));
        fs::create_dir(&d).unwrap();
        dirs.push(d);
    }
    for (i, d) in dirs.iter().enumerate() {
        for j in 0..rng.below(8) {
            fs::write(d.join(format!("f{i}_{j}")), vec![b'x'; rng.below(3000)]).unwrap();
        }
        if rng.below(4) == 0 {
            std::os::unix::fs::symlink(format!("f{i}_0"), d.join(format!("l{i}"))).unwrap();
        }
    }
    // A directory nobody may search but may list: a full scan lists it
    // and cannot stat its entries, so OLD's listing of it lacks them
    // (it must not stand for reading it, though it stays unchanged).
    let d = &dirs[1 + rng.below(dirs.len() - 1)];
    fs::write(d.join("unstatable"), b"u").unwrap();
    fs::set_permissions(d, fs::Permissions::from_mode(0o444)).unwrap();
}

/// One random change; the directories and files are re-inventoried
/// each time, so that the changes compose.
pub fn change(root: &Path, rng: &mut Rng, n: usize) {
    let (dirs, files) = inventory(root);
    // Directories nobody can read stay as they are (but for the change
    // that opens them again): their contents are not what is tested.
    let open: Vec<&PathBuf> = dirs
        .iter()
        .filter(|d| fs::metadata(d).unwrap().permissions().mode() & 0o777 != 0)
        .collect();
    let pick_dir = |rng: &mut Rng| open[rng.below(open.len())].clone();
    match rng.below(10) {
        // Add a file, or a subtree.
        0 => {
            let d = pick_dir(rng);
            fs::write(d.join(format!("new{n}")), b"added").unwrap();
        }
        1 => {
            let d = pick_dir(rng).join(format!("sub{n}"));
            fs::create_dir_all(d.join("inner")).unwrap();
            fs::write(d.join("inner/leaf"), b"leaf").unwrap();
        }
        // Remove a file, or a subtree (not the root).
        2 if !files.is_empty() => {
            let _ = fs::remove_file(&files[rng.below(files.len())]);
        }
        3 if open.len() > 1 => {
            let d = open[1 + rng.below(open.len() - 1)];
            let _ = fs::remove_dir_all(d);
        }
        // Rename a file across directories.
        4 if !files.is_empty() => {
            let f = &files[rng.below(files.len())];
            let to = pick_dir(rng).join(format!("moved{n}"));
            let _ = fs::rename(f, to);
        }
        // Move a subtree: its descendants keep their times.
        5 if open.len() > 1 => {
            let from = open[1 + rng.below(open.len() - 1)].clone();
            let to = pick_dir(rng);
            if !to.starts_with(&from) {
                let _ = fs::rename(&from, to.join(format!("tree{n}")));
            }
        }
        // A file added, then the directory's mtime set back: only its
        // ctime tells.
        6 => {
            let d = pick_dir(rng);
            let before = fs::metadata(&d).unwrap().modified().unwrap();
            fs::write(d.join(format!("hidden{n}")), b"h").unwrap();
            fs::File::open(&d).unwrap().set_modified(before).unwrap();
        }
        // A file grown in place: its directory does not change.
        7 if !files.is_empty() => {
            let f = &files[rng.below(files.len())];
            if fs::symlink_metadata(f).unwrap().is_file() {
                use std::io::Write;
                let mut w = fs::OpenOptions::new().append(true).open(f).unwrap();
                w.write_all(&[b'g'; 5000]).unwrap();
            }
        }
        // A directory made unreadable, or one opened again.
        8 if open.len() > 1 => {
            let d = open[1 + rng.below(open.len() - 1)];
            fs::set_permissions(d, fs::Permissions::from_mode(0o000)).unwrap();
        }
        _ => {
            if let Some(d) = dirs
                .iter()
                .find(|d| fs::metadata(d).unwrap().permissions().mode() & 0o777 == 0)
            {
                fs::set_permissions(d, fs::Permissions::from_mode(0o755)).unwrap();
            } else {
                let d = pick_dir(rng);
                fs::write(d.join(format!("other{n}")), b"o").unwrap();
            }
        }
    }
}

/// The name of the full OLD that [`history`] writes, in `base`.
pub const OLD: &str = "old";

/// The name of the names-only OLD that [`history`] writes, in `base`.
pub const OLD_NAMES: &str = "oldn";

/// One seed's history, the scenario of every randomized refresh test:
/// the tree `base/t`, left past the guard window (so that something can
/// be reused), 3 changes (inside the window: read again), OLD full and
/// names-only ([`OLD`], [`OLD_NAMES`] in `base`) written by `scan`, then
/// 12 more changes.  `scan` gets the arguments after `scan` (run in
/// `base`); the tests differ only in the program they run.
pub fn history(base: &Path, seed: u64, mut scan: impl FnMut(&[&str])) {
    let mut rng = Rng::seeded(seed);
    let t = base.join("t");
    build(&t, &mut rng);
    // Older than the guard: only then can anything be reused.
    std::thread::sleep(std::time::Duration::from_millis(2200));
    // Changes just before OLD: inside the guard window, read again.
    for n in 0..3 {
        change(&t, &mut rng, n);
    }
    scan(&["-o", OLD, "t"]);
    scan(&["--names-only", "-o", OLD_NAMES, "t"]);
    for n in 3..3 + 12 {
        change(&t, &mut rng, n);
    }
}

/// Changes a refresh by identity could get wrong, each made once after
/// OLD by [`edge_history`].
#[derive(Clone, Copy, Debug)]
pub enum Edge {
    /// A subtree moved from one directory to another, both parents'
    /// mtimes set back: only their ctimes (and the moved one's) tell.
    MovedBetweenParentsTimesSetBack,
    /// A directory removed and another made at its path (a new inode),
    /// the parent's mtime set back.
    ReplacedAtTheSamePath,
    /// The root renamed and a symlink to it left at its name: walked
    /// as a symlink (not followed).
    RootBecameASymlink,
    /// The same, with `-H`: followed, the directory found by identity.
    RootBecameASymlinkFollowed,
    /// Directories made unreadable after OLD read them: only their
    /// ctimes change, and the refresh must say it cannot read them, as
    /// a scan.  One with a subdirectory (`c`), one of files only
    /// (`keep/deeper`): a refresh that took the latter's listing from
    /// OLD would not even open it (no entry of it to stat in a
    /// names-only refresh), so only its time can tell.
    UnreadableAfterOld,
    /// A directory whose time lies inside the guard window (its mtime
    /// set an hour ahead before OLD), given a file after OLD and its
    /// mtime set to the same hour again: its time is the one OLD
    /// recorded, and only the guard has it read again.
    InsideTheGuardWindow,
    /// `t/a` given as a root beside `t`, so that OLD meets its
    /// directories twice, a level apart; a file added to `b` after OLD.
    /// Each meeting is a listing of the same directory, unchanged since
    /// before OLD: every one but `b` is reused, at either depth.
    ReachedFromTwoRoots,
}

impl Edge {
    /// The arguments before `-o` of every scan of this edge's history
    /// (OLD, NEW and the full scans it is compared with): options, and
    /// roots besides `t` (which comes last).
    pub fn options(self) -> &'static [&'static str] {
        match self {
            Edge::RootBecameASymlinkFollowed => &["-H"],
            Edge::ReachedFromTwoRoots => &["t/a"],
            _ => &[],
        }
    }
}

/// Sets `dir`'s mtime to `to`.
fn set_mtime(dir: &Path, to: std::time::SystemTime) {
    fs::File::open(dir).unwrap().set_modified(to).unwrap();
}

/// One [`Edge`]'s history, the scenario of every refresh edge test: the
/// tree `base/t` (9 directories), left past the guard window, OLD full
/// and names-only ([`OLD`], [`OLD_NAMES`] in `base`, with
/// [`Edge::options`]) written by `scan` (given the arguments after
/// `scan`, run in `base`), then the change.  The directories a refresh
/// reuses afterwards, at least and at most.
pub fn edge_history(
    base: &Path,
    what: Edge,
    mut scan: impl FnMut(&[&str]),
) -> std::ops::RangeInclusive<u64> {
    let t = base.join("t");
    for d in ["a/x/y", "b", "c/inner", "keep/deeper"] {
        fs::create_dir_all(t.join(d)).unwrap();
    }
    for f in [
        "a/x/f",
        "a/x/y/g",
        "c/old",
        "c/inner/h",
        "keep/k",
        "keep/deeper/z",
    ] {
        fs::write(t.join(f), f.as_bytes()).unwrap();
    }
    let mtime = |p: &Path| fs::metadata(p).unwrap().modified().unwrap();
    let ahead = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    if let Edge::InsideTheGuardWindow = what {
        set_mtime(&t.join("b"), ahead);
    }
    // Older than the guard: only then can anything be reused.
    std::thread::sleep(std::time::Duration::from_millis(2200));
    let opts = what.options();
    let args =
        |more: &[&'static str]| -> Vec<&'static str> { opts.iter().chain(more).copied().collect() };
    scan(&args(&["-o", OLD, "t"]));
    scan(&args(&["--names-only", "-o", OLD_NAMES, "t"]));
    match what {
        Edge::MovedBetweenParentsTimesSetBack => {
            let (a, b) = (mtime(&t.join("a")), mtime(&t.join("b")));
            fs::rename(t.join("a/x"), t.join("b/x")).unwrap();
            set_mtime(&t.join("a"), a);
            set_mtime(&t.join("b"), b);
            // t, c, c/inner, keep, keep/deeper, b/x/y.
            6..=6
        }
        Edge::ReplacedAtTheSamePath => {
            let before = mtime(&t);
            fs::remove_dir_all(t.join("c")).unwrap();
            fs::create_dir_all(t.join("c/other")).unwrap();
            fs::write(t.join("c/new"), b"new").unwrap();
            set_mtime(&t, before);
            // a, a/x, a/x/y, b, keep, keep/deeper.
            6..=6
        }
        Edge::RootBecameASymlink => {
            fs::rename(&t, base.join("t0")).unwrap();
            std::os::unix::fs::symlink("t0", &t).unwrap();
            // A symlink is not a directory: nothing opened.
            0..=0
        }
        Edge::RootBecameASymlinkFollowed => {
            fs::rename(&t, base.join("t0")).unwrap();
            std::os::unix::fs::symlink("t0", &t).unwrap();
            // All but perhaps the root: a rename need not change the
            // renamed directory's ctime (ext4 on Linux 6.18 does not);
            // its entries are the same either way.
            7..=8
        }
        Edge::UnreadableAfterOld => {
            fs::set_permissions(t.join("c"), fs::Permissions::from_mode(0o000)).unwrap();
            fs::set_permissions(t.join("keep/deeper"), fs::Permissions::from_mode(0o000)).unwrap();
            // All but c and keep/deeper (unreadable) and c/inner (not
            // reached).
            6..=6
        }
        Edge::InsideTheGuardWindow => {
            fs::write(t.join("b/late"), b"late").unwrap();
            set_mtime(&t.join("b"), ahead);
            // All but b.
            8..=8
        }
        Edge::ReachedFromTwoRoots => {
            fs::write(t.join("b/late"), b"late").unwrap();
            // Twelve directories opened: t/a, t/a/x, t/a/x/y from the
            // root t/a, and t's nine; all but b.
            11..=11
        }
    }
}
