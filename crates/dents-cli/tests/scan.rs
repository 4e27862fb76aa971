//! `dents scan`: the snapshot's rows against a plain reference (an
//! `lstat` walk with std::fs) on real filesystems, field by field; awkward
//! names as exact bytes; hard links one row per name; what cannot be
//! read, said and recorded; failures that leave no file.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dents_snap::{Row, SnapshotReader};
use dents_testfs::snapshot::rows;
use dents_testfs::{cli::as_nobody, FsKind, LoopFs};

fn dents(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dents"));
    c.current_dir(dir).args(args);
    c
}

fn run(mut c: Command) -> Output {
    c.output().expect("dents runs")
}

/// A tree with every kind of entry the scan must record: sizes, a sparse
/// file, hard links across directories, symlinks (one dangling, one with
/// an awkward target), a fifo, nested directories, awkward names.
fn build(root: &Path) {
    fs::create_dir_all(root.join("a/b/c")).unwrap();
    fs::create_dir(root.join("names")).unwrap();
    fs::write(root.join("a/small"), b"x").unwrap();
    fs::write(root.join("a/b/big"), vec![7u8; 100_000]).unwrap();
    let sparse = fs::File::create(root.join("a/sparse")).unwrap();
    sparse.set_len(10 << 20).unwrap();
    fs::hard_link(root.join("a/small"), root.join("a/b/c/link-to-small")).unwrap();
    fs::hard_link(root.join("a/small"), root.join("names/third name")).unwrap();
    std::os::unix::fs::symlink("small", root.join("a/sym")).unwrap();
    std::os::unix::fs::symlink("nowhere/\u{e9}", root.join("a/dangling")).unwrap();
    std::os::unix::fs::symlink(
        std::ffi::OsStr::from_bytes(b"t\nx\xff"),
        root.join("a/odd-target"),
    )
    .unwrap();
    let fifo = root.join("a/fifo");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    fs::set_permissions(root.join("a/small"), fs::Permissions::from_mode(0o4751)).unwrap();
    for n in dents_testfs::awkward_names() {
        fs::write(root.join("names").join(std::ffi::OsStr::from_bytes(&n)), &n).unwrap();
    }
    fs::create_dir(
        root.join("names")
            .join(std::ffi::OsStr::from_bytes(b"dir\nwith\xffbad")),
    )
    .unwrap();
}

/// The reference: every entry under `root` by `std::fs`, `lstat`'ed,
/// keyed by path bytes, as the row the snapshot must have.
fn reference(root: &Path, names_only: bool) -> BTreeMap<Vec<u8>, Row> {
    fn walk(p: PathBuf, depth: u32, names_only: bool, out: &mut BTreeMap<Vec<u8>, Row>) {
        let m = fs::symlink_metadata(&p).unwrap();
        let ft = m.file_type();
        use std::os::unix::fs::FileTypeExt;
        let kind = if ft.is_dir() {
            b'd'
        } else if ft.is_symlink() {
            b'l'
        } else if ft.is_fifo() {
            b'p'
        } else if ft.is_file() {
            b'f'
        } else {
            b'?'
        };
        let ns = |s: i64, n: i64| Some(s * 1_000_000_000 + n);
        let path = p.as_os_str().as_bytes().to_vec();
        let name = if depth == 0 {
            path.clone()
        } else {
            p.file_name().unwrap().as_bytes().to_vec()
        };
        let mut row = Row {
            path: path.clone(),
            name,
            depth,
            kind,
            ino: m.ino(),
            ..Row::default()
        };
        if !names_only || kind == b'd' {
            row.dev = Some(m.dev());
            row.mtime = ns(m.mtime(), m.mtime_nsec());
            row.ctime = ns(m.ctime(), m.ctime_nsec());
        }
        if !names_only {
            row.size = Some(m.size() as i64);
            row.blocks = Some(m.blocks() as i64);
            row.mode = Some(m.mode());
            row.uid = Some(m.uid());
            row.gid = Some(m.gid());
            row.nlink = Some(m.nlink() as i64);
            row.atime = ns(m.atime(), m.atime_nsec());
            if kind == b'l' {
                row.target = Some(fs::read_link(&p).unwrap().as_os_str().as_bytes().to_vec());
            }
        }
        out.insert(path, row);
        if kind == b'd' {
            for e in fs::read_dir(&p).unwrap() {
                walk(e.unwrap().path(), depth + 1, names_only, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root.to_owned(), 0, names_only, &mut out);
    out
}

/// Scans `tree` (a relative path under `cwd`) and checks every row
/// against the reference, and the row order.
fn scan_and_compare(cwd: &Path, tree: &str, out: &Path, extra: &[&str]) {
    let mut args = vec!["scan", "-j", "4", "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.push(tree);
    let o = run(dents(cwd, &args));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    assert!(o.status.success(), "{:?}", o.status);
    let names_only = extra.contains(&"--names-only");
    let mut want = reference(&cwd.join(tree), names_only);
    let got = rows(out);
    for w in got.windows(2) {
        assert_eq!(
            dents_snap::row::order(&w[0], &w[1]),
            std::cmp::Ordering::Less,
            "level order: {:?} then {:?}",
            String::from_utf8_lossy(&w[0].path),
            String::from_utf8_lossy(&w[1].path)
        );
    }
    let prefix = cwd.as_os_str().as_bytes().len() + 1;
    for mut g in got {
        let key = [cwd.as_os_str().as_bytes(), b"/", &g.path].concat();
        let mut w = want
            .remove(&key)
            .unwrap_or_else(|| panic!("extra row {:?}", String::from_utf8_lossy(&g.path)));
        w.path = w.path[prefix..].to_vec();
        if w.depth == 0 {
            w.name = w.path.clone();
        }
        // Reading a directory or a symlink (the scan's readlink) may move
        // its atime (relatime) between the scan and the reference: their
        // atimes are not compared.
        if g.kind == b'd' || g.kind == b'l' {
            g.atime = None;
            w.atime = None;
        }
        assert_eq!(g, w, "row of {:?}", String::from_utf8_lossy(&g.path));
    }
    assert!(
        want.is_empty(),
        "rows missing: {:?}",
        want.keys()
            .map(|k| String::from_utf8_lossy(k))
            .collect::<Vec<_>>()
    );
}

fn on(kind: FsKind) {
    let Some(fs) = LoopFs::new_or_skip(kind, 0) else {
        return;
    };
    build(&fs.path().join("tree"));
    let out = tempfile::tempdir().unwrap();
    scan_and_compare(fs.path(), "tree", &out.path().join("s.parquet"), &[]);
    scan_and_compare(
        fs.path(),
        "tree",
        &out.path().join("n.parquet"),
        &["--names-only"],
    );
    // Hard links: one row per name, the same device and inode.
    let links: Vec<Row> = rows(&out.path().join("s.parquet"))
        .into_iter()
        .filter(|r| r.kind == b'f' && r.nlink == Some(3))
        .collect();
    assert_eq!(links.len(), 3);
    assert!(links
        .iter()
        .all(|r| (r.dev, r.ino) == (links[0].dev, links[0].ino)));
}

dents_testfs::test_cases! {
    /// The rows against the reference on each filesystem.
    mod filesystems: dents_testfs::FsKind => on;
    ext4: dents_testfs::FsKind::Ext4,
    ext4_no_filetype: dents_testfs::FsKind::Ext4NoFiletype,
    xfs: dents_testfs::FsKind::Xfs,
    btrfs: dents_testfs::FsKind::Btrfs,
    tmpfs: dents_testfs::FsKind::Tmpfs,
}

/// A tree that nobody can read in part, and an output directory nobody
/// can write to.
fn nobody_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777)).unwrap();
    fs::create_dir_all(dir.path().join("t/closed/inside")).unwrap();
    fs::write(dir.path().join("t/f"), b"x").unwrap();
    fs::set_permissions(
        dir.path().join("t/closed"),
        fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    fs::create_dir(dir.path().join("out")).unwrap();
    fs::set_permissions(dir.path().join("out"), fs::Permissions::from_mode(0o777)).unwrap();
    fs::create_dir(dir.path().join("ro")).unwrap();
    dir
}

#[test]
fn an_unreadable_directory_is_said_recorded_and_status_1() {
    if !dents_testfs::needs_root("setpriv runs the scan as nobody") {
        return;
    }
    let dir = nobody_tree();
    let o = run(as_nobody(dents(
        dir.path(),
        &["scan", "-o", "out/s.parquet", "t", "missing"],
    )));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "dents: cannot access 'missing': No such file or directory\n\
         dents: cannot read directory 't/closed': Permission denied\n"
    );
    assert_eq!(o.status.code(), Some(1));
    let r = SnapshotReader::open(&dir.path().join("out/s.parquet")).unwrap();
    let rec = r.record();
    assert_eq!(rec.error_count, 2);
    assert_eq!(
        rec.errors,
        [
            b"cannot access 'missing': No such file or directory".to_vec(),
            b"cannot read directory 't/closed': Permission denied".to_vec()
        ]
    );
    assert_eq!(rec.roots, [b"missing".to_vec(), b"t".to_vec()]);
    let paths: Vec<Vec<u8>> = r.rows().map(|r| r.unwrap().path).collect();
    // The directory itself is there; what is inside it is not.
    assert_eq!(
        paths,
        [b"t".to_vec(), b"t/closed".to_vec(), b"t/f".to_vec()]
    );
}

#[test]
fn an_unwritable_output_directory_leaves_nothing_and_status_2() {
    if !dents_testfs::needs_root("setpriv runs the scan as nobody") {
        return;
    }
    let dir = nobody_tree();
    let o = run(as_nobody(dents(
        dir.path(),
        &["scan", "-o", "ro/s.parquet", "t"],
    )));
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("dents: cannot write snapshot: 'ro/.s.parquet."),
        "{err}"
    );
    assert!(err.ends_with(".tmp': Permission denied\n"), "{err}");
    assert_eq!(fs::read_dir(dir.path().join("ro")).unwrap().count(), 0);
}

#[test]
fn a_full_disk_leaves_nothing_and_status_2() {
    let Some(small) = LoopFs::new_or_skip(FsKind::Tmpfs, 16) else {
        return;
    };
    // All but 64 KiB taken: the snapshot of 50,000 entries does not fit.
    // More than two row groups: the walk, with both groups out, waits for
    // one back from the writer when the writer fails, and must end.
    let filler = fs::File::create(small.path().join("filler")).unwrap();
    let free = rustix::fs::statvfs(small.path()).unwrap();
    let room = free.f_bavail * free.f_frsize;
    std::io::Write::write_all(&mut &filler, &vec![1u8; (room - (64 << 10)) as usize]).unwrap();
    drop(filler);
    let src = tempfile::tempdir().unwrap();
    dents_testfs::fill(src.path(), 50_000, |i| {
        format!("{i:08x}-{}", i * 7919 % 100_003)
    });
    let out = small.path().join("s.parquet");
    let o = run(dents(
        src.path(),
        &["scan", "-o", out.to_str().unwrap(), "."],
    ));
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "dents: cannot write snapshot: No space left on device\n"
    );
    let left: Vec<_> = fs::read_dir(small.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["filler"]);
}

#[test]
fn closed_stdout_does_not_matter_to_a_scan() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("t")).unwrap();
    let o = Command::new("sh")
        .current_dir(dir.path())
        .args([
            "-c",
            "exec \"$0\" scan -o s.parquet t >&-",
            env!("CARGO_BIN_EXE_dents"),
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    assert!(o.status.success());
    assert_eq!(rows(&dir.path().join("s.parquet")).len(), 1);
}

#[test]
fn the_record_says_the_options_and_times() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("t")).unwrap();
    let o = run(dents(
        dir.path(),
        &[
            "scan",
            "-x",
            "-j",
            "2",
            "--names-only",
            "-o",
            "s.parquet",
            "t",
        ],
    ));
    assert!(o.status.success());
    let r = SnapshotReader::open(&dir.path().join("s.parquet")).unwrap();
    let rec = r.record();
    assert_eq!(rec.options, "-x -j 2 --names-only");
    assert_eq!(rec.dents_version, env!("CARGO_PKG_VERSION"));
    assert!(
        rec.start <= rec.end && rec.start.secs > 1_600_000_000,
        "{rec:?}"
    );
    assert_eq!(rec.error_count, 0);
}

#[test]
fn no_output_named_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(dents(dir.path(), &["scan", "."]));
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "dents: no snapshot named: give -o SNAPSHOT\nTry 'dents scan --help' for more information.\n"
    );
}

/// `dents scan ARGS` in an empty directory: a usage error with
/// `message` (getopt's words) and its hint, status 2, nothing written.
fn check_usage((args, message): (&[&str], &str)) {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec!["scan"];
    all.extend_from_slice(args);
    let o = run(dents(dir.path(), &all));
    assert_eq!(o.status.code(), Some(2), "{args:?}");
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!("dents: {message}\nTry 'dents scan --help' for more information.\n"),
        "{args:?}"
    );
    assert!(o.stdout.is_empty(), "{args:?}");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "{args:?}");
}

dents_testfs::test_cases! {
    /// The command line's usage errors (the parser is dents-snap's
    /// `args`, shared with `dents-mpi scan`: tests/scan.rs there).
    mod usage: (&[&str], &str) => check_usage;
    j_without_a_value: (&["-o", "s.parquet", "-j"], "option requires an argument -- 'j'"),
    threads_without_a_value: (&["-o", "s.parquet", "--threads"], "option '--threads' requires an argument"),
    o_without_a_value: (&["-x", "-o"], "option requires an argument -- 'o'"),
    output_without_a_value: (&["--output"], "option '--output' requires an argument"),
    names_only_given_a_value: (&["-o", "s.parquet", "--names-only=1"], "option '--names-only' doesn't allow an argument"),
    output_empty: (&["-o", "", "t"], "no snapshot named: give -o SNAPSHOT"),
    output_glued_empty: (&["--output=", "t"], "no snapshot named: give -o SNAPSHOT"),
    since_without_a_value: (&["-o", "s.parquet", "--since"], "option '--since' requires an argument"),
    j_zero: (&["-j", "0", "-o", "s.parquet"], "invalid number of threads: '0'"),
    j_glued_not_a_number: (&["-j2x", "-o", "s.parquet"], "invalid number of threads: '2x'"),
    threads_glued_empty: (&["--threads=", "-o", "s.parquet"], "invalid number of threads: ''"),
    unknown_long_option: (&["-o", "s.parquet", "--bogus", "t"], "unrecognized option '--bogus'"),
    unknown_short_option: (&["-q", "--help"], "unrecognized option '-q'"),
    since_glued_without_output: (&["--since=old.parquet", "t"], "no snapshot named: give -o SNAPSHOT"),
    output_after_the_end_of_options: (&["--", "-o", "s.parquet"], "no snapshot named: give -o SNAPSHOT"),
}

/// `-jN` and `-oFILE` glued, `--output=`, and `--` before a path that
/// looks like an option: the snapshot of that path, the options' words
/// in its record.
#[test]
fn glued_values_and_the_end_of_options() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("-x/sub")).unwrap();
    for (args, out) in [
        (&["-j3", "-oa.parquet", "-H", "--", "-x"][..], "a.parquet"),
        (
            &["--output=b.parquet", "--threads=3", "-H", "--", "-x"][..],
            "b.parquet",
        ),
    ] {
        let mut all = vec!["scan"];
        all.extend_from_slice(args);
        let o = run(dents(dir.path(), &all));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let r = SnapshotReader::open(&dir.path().join(out)).unwrap();
        assert_eq!(r.record().options, "-j 3 -H", "{args:?}");
        assert_eq!(r.record().roots, [b"-x".to_vec()], "{args:?}");
        let paths: Vec<Vec<u8>> = rows(&dir.path().join(out))
            .into_iter()
            .map(|r| r.path)
            .collect();
        assert_eq!(paths, [b"-x".to_vec(), b"-x/sub".to_vec()], "{args:?}");
    }
}

/// Under `-L` a followed symlink is its target in every field a row
/// keeps: names only (no stat of non-directories) gives the same type and
/// inode as the full scan, and both are the target's.
#[test]
fn followed_links_have_their_targets_inode_in_names_only_scans() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("t");
    fs::create_dir(&root).unwrap();
    fs::write(root.join("file"), b"x").unwrap();
    fs::create_dir(root.join("dir")).unwrap();
    std::os::unix::fs::symlink("file", root.join("to-file")).unwrap();
    std::os::unix::fs::symlink("dir", root.join("to-dir")).unwrap();
    std::os::unix::fs::symlink("nowhere", root.join("broken")).unwrap();
    let mut by_mode = Vec::new();
    for extra in [&[][..], &["--names-only"][..]] {
        let out = t.path().join(if extra.is_empty() {
            "full.parquet"
        } else {
            "names.parquet"
        });
        let mut args = vec!["scan", "-L"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["-o", out.to_str().unwrap(), "t"]);
        let o = run(dents(t.path(), &args));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let got: BTreeMap<Vec<u8>, (u8, u64)> = rows(&out)
            .into_iter()
            .map(|r| (r.path.clone(), (r.kind, r.ino)))
            .collect();
        by_mode.push(got);
    }
    let ino = |p: &str| fs::metadata(root.join(p)).unwrap().ino();
    let link_ino = |p: &str| fs::symlink_metadata(root.join(p)).unwrap().ino();
    for got in &by_mode {
        assert_eq!(got[&b"t/to-file".to_vec()], (b'f', ino("file")));
        assert_eq!(got[&b"t/to-dir".to_vec()], (b'd', ino("dir")));
        assert_eq!(got[&b"t/broken".to_vec()], (b'l', link_ino("broken")));
    }
    assert_eq!(by_mode[0], by_mode[1]);
}
