//! `dents-mpi scan` under `mpirun`: the union of its shards against
//! `dents scan`'s rows on the same tree (a huge directory read in slices
//! across ranks, hard links, symlinks, names with a newline and invalid
//! UTF-8, a directory nobody may read), `dents du --from DIR` against
//! `dents du` on the tree, and scans that fail leaving nothing.

mod common;

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::Path;
use std::process::Command;

use common::{as_nobody, dents, items_walked, mpi_cmd, sorted, Run};
use dents_snap::{Row, ScanRecord};
use dents_testfs::snapshot::read;
use dents_testfs::{FsKind, LoopFs};

/// `mpirun -np NP dents-mpi scan ARGS` in `dir`.
fn mpi_scan(np: usize, dir: &Path, args: &[&str]) -> Command {
    let mut c = mpi_cmd(np, dir);
    c.env("DENTS_MPI_STATS", "1").arg("scan").args(args);
    c
}

/// A loop ext4 holding `t`: a directory of `big` long names (past the
/// 1 MiB of `st_size` where dents-mpi reads it in slices), a tree with
/// hard links across directories, symlinks (one dangling), a name with a
/// newline and one of invalid UTF-8, and `t/closed`, which nobody may
/// read; `out`, where nobody may write.
fn scan_tree(big: usize) -> Option<LoopFs> {
    let fs = LoopFs::new_or_skip(FsKind::Ext4, 300)?;
    let t = fs.path().join("t");
    dents_testfs::fill_flat(&t.join("flat"), big, |i| {
        format!("a-name-long-enough-to-fill-the-block-{i:06}")
    });
    fs::create_dir_all(t.join("flat/sub/deeper")).unwrap();
    fs::write(t.join("flat/sub/deeper/f"), vec![b'z'; 9000]).unwrap();
    for a in 0..4 {
        for b in 0..(a * 2 + 1) {
            let d = t.join(format!("d{a}/sub {b}/deeper"));
            fs::create_dir_all(&d).unwrap();
            for f in 0..(b * 5 % 17) {
                fs::write(d.join(format!("f{f}")), vec![b'x'; f * 3000 + a]).unwrap();
            }
        }
    }
    fs::write(t.join("d1/linked"), vec![b'l'; 20000]).unwrap();
    fs::hard_link(t.join("d1/linked"), t.join("d3/also linked")).unwrap();
    fs::hard_link(t.join("d1/linked"), t.join("flat/sub/linked")).unwrap();
    fs::write(t.join("d2/new\nline"), b"n").unwrap();
    fs::write(
        t.join("d2")
            .join(std::ffi::OsStr::from_bytes(b"bad-\xff-utf8")),
        b"b",
    )
    .unwrap();
    symlink("d1", t.join("link-to-d1")).unwrap();
    symlink("nowhere", t.join("d0/dangling")).unwrap();
    fs::create_dir_all(t.join("closed/inside")).unwrap();
    fs::write(t.join("closed/f"), b"hidden").unwrap();
    fs::set_permissions(t.join("closed"), fs::Permissions::from_mode(0o000)).unwrap();
    let out = fs.path().join("out");
    fs::create_dir(&out).unwrap();
    fs::set_permissions(&out, fs::Permissions::from_mode(0o777)).unwrap();
    Some(fs)
}

/// Asserts the run's status, with its messages in the failure.
fn assert_status(r: &Run, want: i32, what: &str) {
    assert_eq!(r.status, want, "{what}: status {}: {}", r.status, r.stderr);
}

/// Scans `t` as nobody, warmed up first (the directories' access times,
/// which a first read may move, settled); `dents scan` after
/// `dents-mpi scan`.  The snapshots: `out/one.parquet`, `out/sharded`.
fn scan_both(base: &Path, np: usize, opts: &[&str]) -> (Run, Run) {
    let with = |o: &str| {
        let mut a: Vec<&str> = opts.to_vec();
        a.extend(["-o", o, "t"]);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let warm = with("out/warm.parquet");
    let warm: Vec<&str> = warm.iter().map(String::as_str).collect();
    let mut w = vec!["scan"];
    w.extend(&warm);
    as_nobody(dents(base, &w));
    let _ = fs::remove_file(base.join("out/warm.parquet"));
    let sharded = with("out/sharded");
    let sharded: Vec<&str> = sharded.iter().map(String::as_str).collect();
    let got = as_nobody(mpi_scan(np, base, &sharded));
    let one = with("out/one.parquet");
    let mut o = vec!["scan"];
    o.extend(one.iter().map(String::as_str));
    let want = as_nobody(dents(base, &o));
    (got, want)
}

/// The union of the shards is `dents scan`'s rows, field by field and
/// in its order; the record the same but for its times; one shard per
/// rank and nothing else in the directory; every rank walked a share.
fn check_rows((np, opts): (usize, &[&str])) {
    let Some(fs) = scan_tree(70_000) else { return };
    let base = fs.path();
    let (got, want) = scan_both(base, np, opts);
    assert_status(&want, 1, "dents scan");
    assert_status(&got, 1, "dents-mpi scan");
    let mut names: Vec<String> = fs::read_dir(base.join("out/sharded"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected: Vec<String> = (0..np).map(|i| format!("part-{i}.parquet")).collect();
    expected.sort();
    assert_eq!(names, expected, "files of the sharded snapshot");
    let left: Vec<_> = fs::read_dir(base.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with('.'))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    let (my_record, mine) = read(&base.join("out/sharded"));
    let (their_record, theirs) = read(&base.join("out/one.parquet"));
    assert_eq!(mine.len(), theirs.len(), "rows");
    for (a, b) in mine.iter().zip(&theirs) {
        assert_eq!(a, b, "row of {:?}", String::from_utf8_lossy(&b.path));
    }
    assert!(
        theirs.len() > 70_000 && theirs.iter().any(|r| r.path == b"t/d2/bad-\xff-utf8"),
        "the tree's entries"
    );
    let mut a = my_record.clone();
    let mut b = their_record.clone();
    a.errors.sort();
    b.errors.sort();
    (a.start, a.end, b.start, b.end) = Default::default();
    refresh_counts_aside(&mut a, &mut b);
    assert_eq!(a, b, "the record");
    assert_eq!(
        b.errors,
        [b"cannot read directory 't/closed': Permission denied".to_vec()]
    );
    let mut said: Vec<&str> = got
        .stderr
        .lines()
        .filter(|l| l.starts_with("dents-mpi: ") && !l.contains("rank"))
        .collect();
    said.sort();
    assert_eq!(
        said,
        ["dents-mpi: cannot read directory 't/closed': Permission denied"]
    );
    let walked = items_walked(&got.stderr);
    assert_eq!(walked.len(), np, "{}", got.stderr);
    if np > 1 {
        assert!(
            walked.iter().all(|&n| n > 0),
            "a rank walked nothing: {walked:?}"
        );
    }
}

dents_testfs::test_cases! {
    /// The shards' rows against `dents scan`'s at 1 to 3 ranks.
    mod rows_like_dents_scan: (usize, &[&str]) => check_rows;
    np1: (1, &[]),
    np2: (2, &[]),
    np3: (3, &[]),
    np2_names_only: (2, &["--names-only"]),
    np3_one_file_system: (3, &["-x"]),
}

/// `dents du --from DIR OPTS t` against `dents du OPTS t` on the tree
/// (sorted lines, messages, status: the lines' order is the snapshot's)
/// and against `dents du --from FILE` of `dents scan`'s snapshot (byte
/// for byte).
fn check_du_from((np, opts): (usize, &[&str])) {
    let Some(fs) = scan_tree(30_000) else { return };
    let base = fs.path();
    let (got, want) = scan_both(base, np, &[]);
    assert_status(&got, 1, "dents-mpi scan");
    assert_status(&want, 1, "dents scan");
    let args = |from: Option<&'static str>| {
        let mut a = vec!["du"];
        if let Some(f) = from {
            a.extend(["--from", f]);
        }
        a.extend(opts);
        a.push("t");
        a
    };
    let tree = as_nobody(dents(base, &args(None)));
    let sharded = as_nobody(dents(base, &args(Some("out/sharded"))));
    let single = as_nobody(dents(base, &args(Some("out/one.parquet"))));
    assert_eq!(sharded.status, tree.status, "{}", sharded.stderr);
    assert_eq!(sharded.stderr, tree.stderr, "messages");
    assert_eq!(
        sorted(&sharded.stdout, opts),
        sorted(&tree.stdout, opts),
        "lines of du {opts:?}"
    );
    assert_eq!(
        String::from_utf8_lossy(&sharded.stdout),
        String::from_utf8_lossy(&single.stdout),
        "against --from FILE"
    );
    assert_eq!(sharded.stderr, single.stderr);
}

dents_testfs::test_cases! {
    /// du's lines from a sharded snapshot, for a few option sets.
    mod du_from_sharded: (usize, &[&str]) => check_du_from;
    plain_np2: (2, &[]),
    all_np3: (3, &["-a"]),
    summary_bytes_np2: (2, &["-s", "-b"]),
    inodes_total_np3: (3, &["--inodes", "-c"]),
    human_depth_one_np2: (2, &["-h", "--max-depth=1"]),
}

/// Nothing named DIR, nor a temporary directory, after a scan that
/// failed; status 2 and why.
fn assert_nothing_left(dir: &Path, r: &Run, why: &str) {
    assert_status(r, 2, why);
    assert!(
        r.stderr.contains("dents-mpi: cannot write snapshot: "),
        "{why}: {}",
        r.stderr
    );
    if dir.is_dir() {
        let left: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(left.is_empty(), "{why}: left {left:?}");
    }
}

/// `-o` into a directory nobody may write: nothing made, status 2.
#[test]
fn unwritable_output_directory_leaves_nothing() {
    let Some(_) = common::mpirun() else { return };
    if !dents_testfs::needs_root("setpriv runs the scan as nobody") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::create_dir_all(tmp.path().join("t/a")).unwrap();
    fs::create_dir(tmp.path().join("ro")).unwrap();
    let r = as_nobody(mpi_scan(2, tmp.path(), &["-o", "ro/snap", "t"]));
    assert_nothing_left(&tmp.path().join("ro"), &r, "-o ro/snap");
    assert!(r.stderr.contains("Permission denied"), "{}", r.stderr);
}

/// `-o` below a directory that does not exist: status 2, nothing made.
#[test]
fn output_in_a_missing_directory_leaves_nothing() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("t/a")).unwrap();
    let r = common::run(&mut mpi_scan(3, tmp.path(), &["-o", "gone/snap", "t"]));
    assert_nothing_left(&tmp.path().join("gone"), &r, "-o gone/snap");
    let names: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["t"]);
}

/// A disk that fills while the shards are written: status 2, no DIR and
/// no temporary directory left.
#[test]
fn a_full_disk_leaves_nothing() {
    let Some(_) = common::mpirun() else { return };
    let Some(small) = LoopFs::new_or_skip(FsKind::Tmpfs, 16) else {
        return;
    };
    let filler = fs::File::create(small.path().join("filler")).unwrap();
    let free = rustix::fs::statvfs(small.path()).unwrap();
    let room = free.f_bavail * free.f_frsize;
    std::io::Write::write_all(&mut &filler, &vec![1u8; (room - (64 << 10)) as usize]).unwrap();
    drop(filler);
    let src = tempfile::tempdir().unwrap();
    dents_testfs::fill(src.path(), 20_000, |i| {
        format!("{i:08x}-{}", i * 7919 % 100_003)
    });
    let out = small.path().join("snap");
    let r = common::run(&mut mpi_scan(
        2,
        src.path(),
        &["-o", out.to_str().unwrap(), "."],
    ));
    assert_status(&r, 2, "a full disk");
    assert!(r.stderr.contains("No space left on device"), "{}", r.stderr);
    let names: Vec<_> = fs::read_dir(small.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["filler"], "left behind");
}

/// A root that does not exist is what `dents scan` makes of it: said,
/// recorded, status 1, the other roots scanned and the snapshot written.
#[test]
fn a_missing_root_is_recorded_as_dents_scan_records_it() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("t/a")).unwrap();
    fs::write(tmp.path().join("t/a/f"), b"f").unwrap();
    let r = common::run(&mut mpi_scan(
        2,
        tmp.path(),
        &["-o", "snap", "t", "missing"],
    ));
    assert_status(&r, 1, "a missing root");
    assert!(
        r.stderr
            .contains("dents-mpi: cannot access 'missing': No such file or directory\n"),
        "{}",
        r.stderr
    );
    let one = common::run(&mut dents(
        tmp.path(),
        &["scan", "-o", "one.parquet", "t", "missing"],
    ));
    assert_eq!(one.status, 1);
    let (mut a, mine) = read(&tmp.path().join("snap"));
    let (mut b, theirs) = read(&tmp.path().join("one.parquet"));
    let strip = |r: &[Row]| {
        r.iter()
            .map(|r| Row {
                atime: None,
                ..r.clone()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&mine), strip(&theirs));
    (a.start, a.end, b.start, b.end) = Default::default();
    refresh_counts_aside(&mut a, &mut b);
    assert_eq!(a, b);
}

/// The refresh's counts of directories read and reused: `dents-mpi
/// scan` counts, over all its ranks, what `dents scan` counts (each
/// directory opened whole once, read or, with `--since`, reused).
fn refresh_counts_aside(mpi: &mut ScanRecord, single: &mut ScanRecord) {
    assert_eq!(
        (mpi.dirs_read, mpi.dirs_reused),
        (single.dirs_read, single.dirs_reused),
        "dents-mpi scan counts"
    );
}

/// A second scan to the same DIR replaces the first whole.
#[test]
fn a_second_scan_replaces_the_first() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("t/a")).unwrap();
    let first = common::run(&mut mpi_scan(3, tmp.path(), &["-o", "snap", "t"]));
    assert_status(&first, 0, "first scan");
    fs::write(tmp.path().join("t/a/new"), b"new").unwrap();
    let second = common::run(&mut mpi_scan(2, tmp.path(), &["-o", "snap", "t"]));
    assert_status(&second, 0, "second scan");
    let (_, r) = read(&tmp.path().join("snap"));
    let paths: Vec<&[u8]> = r.iter().map(|r| r.path.as_slice()).collect();
    assert_eq!(paths, [&b"t"[..], b"t/a", b"t/a/new"]);
    let mut names: Vec<_> = fs::read_dir(tmp.path().join("snap"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["part-0.parquet", "part-1.parquet"]);
    let stray: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with('.'))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

/// A shard alone, or a sharded snapshot with a shard missing, is refused
/// rather than read as the whole.
#[test]
fn a_shard_alone_or_missing_is_refused() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("t/a/b")).unwrap();
    let r = common::run(&mut mpi_scan(2, tmp.path(), &["-o", "snap", "t"]));
    assert_status(&r, 0, "scan");
    let alone = common::run(&mut dents(
        tmp.path(),
        &["du", "--from", "snap/part-1.parquet"],
    ));
    assert_eq!(alone.status, 1);
    assert_eq!(
        alone.stderr,
        "dents: 'snap/part-1.parquet': one of the 2 shards of a sharded snapshot: open its directory\n"
    );
    fs::remove_file(tmp.path().join("snap/part-1.parquet")).unwrap();
    let missing = common::run(&mut dents(tmp.path(), &["du", "--from", "snap"]));
    assert_eq!(missing.status, 1);
    assert_eq!(missing.stderr, "dents: 'snap': 1 of its 2 shards missing\n");
}

/// `dents-mpi scan ARGS` on two ranks in an empty directory: a usage
/// error with `message` and its hint, said once (by rank 0), status 2,
/// nothing written.
fn check_usage((args, message): (&[&str], &str)) {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    // (Without `mpi_scan`'s DENTS_MPI_STATS, whose lines every rank says.)
    let mut c = common::mpi_cmd(2, tmp.path());
    let r = common::run(c.arg("scan").args(args));
    assert_status(&r, 2, &format!("{args:?}"));
    let said = format!("dents-mpi: {message}\nTry 'dents-mpi scan --help' for more information.\n");
    // (mpirun's own lines about the failed job follow.)
    assert!(r.stderr.starts_with(&said), "{args:?}: {}", r.stderr);
    assert_eq!(
        r.stderr.matches("dents-mpi:").count(),
        1,
        "{args:?}: {}",
        r.stderr
    );
    assert!(r.stdout.is_empty(), "{args:?}");
    assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 0, "{args:?}");
}

dents_testfs::test_cases! {
    /// The command line's usage errors, read by `dents scan`'s parser
    /// (dents-snap's `args`; dents-cli's tests/scan.rs has its table).
    mod usage: (&[&str], &str) => check_usage;
    j_without_a_value: (&["-o", "snap", "-j"], "option requires an argument -- 'j'"),
    threads_without_a_value: (&["-o", "snap", "--threads"], "option '--threads' requires an argument"),
    o_without_a_value: (&["-x", "-o"], "option requires an argument -- 'o'"),
    since_without_a_value: (&["-o", "snap", "--since"], "option '--since' requires an argument"),
    output_without_a_value: (&["--output"], "option '--output' requires an argument"),
    names_only_given_a_value: (&["-o", "snap", "--names-only=1"], "option '--names-only' doesn't allow an argument"),
    j_zero: (&["-j", "0", "-o", "snap"], "invalid number of threads: '0'"),
    j_glued_not_a_number: (&["-j2x", "-o", "snap"], "invalid number of threads: '2x'"),
    threads_glued_empty: (&["--threads=", "-o", "snap"], "invalid number of threads: ''"),
    unknown_long_option: (&["-o", "snap", "--bogus", "t"], "unrecognized option '--bogus'"),
    unknown_short_option: (&["-q", "--help"], "unrecognized option '-q'"),
    since_glued_without_output: (&["--since=old", "t"], "no snapshot named: give -o DIR"),
    output_empty: (&["-o", "", "t"], "no snapshot named: give -o DIR"),
    output_glued_empty: (&["--output=", "t"], "no snapshot named: give -o DIR"),
    output_after_the_end_of_options: (&["--", "-o", "snap"], "no snapshot named: give -o DIR"),
}

/// `-jN` and `-oDIR` glued, `--output=`, and `--` before a path that
/// looks like an option: the snapshot of that path, the options' words
/// in its record, as `dents scan` writes them.
#[test]
fn glued_values_and_the_end_of_options() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("-x/sub")).unwrap();
    for (args, out) in [
        (&["-j3", "-oa", "-H", "--", "-x"][..], "a"),
        (&["--output=b", "--threads=3", "-H", "--", "-x"][..], "b"),
    ] {
        let r = common::run(&mut mpi_scan(2, tmp.path(), args));
        assert_status(&r, 0, &format!("{args:?}"));
        let (record, rows) = read(&tmp.path().join(out));
        assert_eq!(record.options, "-j 3 -H", "{args:?}");
        assert_eq!(record.roots, [b"-x".to_vec()], "{args:?}");
        let paths: Vec<Vec<u8>> = rows.into_iter().map(|r| r.path).collect();
        assert_eq!(paths, [b"-x".to_vec(), b"-x/sub".to_vec()], "{args:?}");
    }
}
