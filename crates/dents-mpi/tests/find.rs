//! `dents-mpi find` under `mpirun` with 1 to 4 ranks, against GNU find
//! (whose lines `dents find` prints byte for byte), compared as sorted
//! lines; `-quit` on every rank; unreadable directories.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use common::{build_tree, run, sorted, Run};
use dents_testfs::{FsKind, LoopFs};

fn gnu_find(dir: &Path, args: &[&str]) -> Run {
    run(Command::new("find")
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .env("TZ", "UTC"))
}

fn mpi_find_cmd(np: usize, dir: &Path, args: &[&str]) -> Command {
    let mut c = common::mpi_cmd(np, dir);
    c.arg("find").args(args).env("TZ", "UTC");
    c
}

/// GNU find's lines for a set of expressions, each on a different number
/// of ranks, and the plainest on 1 to 4.
#[test]
fn like_gnu_find_on_a_built_tree() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    build_tree(tmp.path());
    let cases: &[&[&str]] = &[
        &["."],
        &[".", "-name", "f1*"],
        &[".", "-type", "d"],
        &[".", "-mindepth", "2", "-maxdepth", "3"],
        &[".", "-printf", "%d %p|%P|%H|%f %s\\n"],
        &[".", "-depth"],
        &["d2", "d4", "-size", "+5k", "-print0"],
        &[".", "-empty"],
        &[".", "-name", "deeper", "-prune", "-o", "-print"],
        &["-L", ".", "-type", "l"],
        &[".", "-xdev", "-path", "*sub 1*"],
        &[".", "-ls"],
    ];
    for (i, args) in cases.iter().enumerate() {
        let np = i % 4 + 1;
        let want = gnu_find(tmp.path(), args);
        let got = run(&mut mpi_find_cmd(np, tmp.path(), args));
        assert_eq!(
            got.status, want.status,
            "status of find {args:?} at -np {np}: {}",
            got.stderr
        );
        assert_eq!(
            sorted(
                &got.stdout,
                if args.contains(&"-print0") {
                    &["-0"]
                } else {
                    &[]
                }
            ),
            sorted(
                &want.stdout,
                if args.contains(&"-print0") {
                    &["-0"]
                } else {
                    &[]
                }
            ),
            "lines of find {args:?} at -np {np}"
        );
    }
    for np in 1..=4 {
        let want = gnu_find(tmp.path(), &["."]);
        let got = run(&mut mpi_find_cmd(np, tmp.path(), &["."]));
        assert_eq!(
            sorted(&got.stdout, &[]),
            sorted(&want.stdout, &[]),
            "-np {np}"
        );
    }
}

/// A tree of real shape (the corpus when mounted, else /usr/include's
/// shape): every path, at 2 and 3 ranks.
#[test]
fn like_gnu_find_on_a_real_tree_shape() {
    let tree = common::shape_tree();
    let shape = tree.root.as_path();
    let Some(_) = common::mpirun() else { return };
    let want = gnu_find(shape, &[".", "-name", "*.h", "-o", "-type", "d"]);
    for np in [2, 3] {
        let got = run(&mut mpi_find_cmd(
            np,
            shape,
            &[".", "-name", "*.h", "-o", "-type", "d"],
        ));
        assert_eq!(got.status, 0);
        assert_eq!(
            sorted(&got.stdout, &[]),
            sorted(&want.stdout, &[]),
            "-np {np}"
        );
    }
}

/// A directory far larger than the slicing size, split over 2 to 4
/// ranks: every entry printed exactly once (sorted, GNU find's lines), its
/// slices spread (more items walked than the one directory); `-prune` on
/// it keeps its entries unread; `-size` (a stat each) alike.
#[test]
fn huge_directory_split_over_ranks_every_entry_once() {
    let Some(_) = common::mpirun() else { return };
    for huge in common::huge_dirs() {
        let base = &huge.base;
        let want = gnu_find(base, &["flat1m"]);
        let want = sorted(&want.stdout, &[]);
        assert_eq!(want.len(), huge.entries + 1);
        for np in 1..=4 {
            let got = run(mpi_find_cmd(np, base, &["flat1m"]).env("DENTS_MPI_STATS", "1"));
            assert_eq!(got.status, 0, "{}", got.stderr);
            let lines = sorted(&got.stdout, &[]);
            assert!(
                lines.windows(2).all(|w| w[0] != w[1]),
                "an entry twice at -np {np} on {base:?}"
            );
            assert_eq!(lines.len(), want.len(), "-np {np} on {base:?}");
            assert!(lines == want, "the lines differ at -np {np} on {base:?}");
            let walked = common::items_walked(&got.stderr);
            assert_eq!(walked.len(), np, "{}", got.stderr);
            if np > 1 {
                // The directory and its 4 slices a rank at least.
                assert!(
                    walked.iter().sum::<u64>() > 4 * np as u64,
                    "not split at -np {np}: {}",
                    got.stderr
                );
                assert!(
                    walked.iter().filter(|&&n| n > 0).count() > 1,
                    "one rank read every slice: {}",
                    got.stderr
                );
            }
        }
        // -prune on the split directory, as a starting point and (on
        // the loop filesystems) below one: its entries are never read.
        let got = run(&mut mpi_find_cmd(
            3,
            base,
            &["flat1m", "-name", "flat1m", "-prune", "-o", "-print"],
        ));
        assert_eq!((got.status, got.stdout), (0, Vec::new()), "{}", got.stderr);
        if huge.fs.is_some() {
            let args = [".", "-name", "flat1m", "-prune", "-o", "-print"];
            let want = gnu_find(base, &args);
            let got = run(&mut mpi_find_cmd(3, base, &args));
            assert_eq!(got.status, 0, "{}", got.stderr);
            assert_eq!(sorted(&got.stdout, &[]), sorted(&want.stdout, &[]));
            let args = ["flat1m", "-size", "-1", "-name", "*7"];
            let want = gnu_find(base, &args);
            let got = run(&mut mpi_find_cmd(2, base, &args));
            assert_eq!(got.status, 0, "{}", got.stderr);
            assert_eq!(sorted(&got.stdout, &[]), sorted(&want.stdout, &[]));
        }
    }
}

/// `find -false` needs no stat of the directories it walks: at 2 ranks
/// (directories spilled to the queue, huge ones looked for) the stat
/// calls on the tree's entries are a few per work item (its start's own
/// stat), far fewer than its 3,000 directories (a stat each before huge
/// directories were offered by the walker).
#[test]
fn no_stat_per_directory_at_two_ranks() {
    let Some(_) = common::mpirun() else { return };
    if !dents_testfs::cli::have_program("strace", "-V") {
        return dents_testfs::skip("strace not found");
    }
    let tmp = tempfile::tempdir().unwrap();
    for a in 0..30 {
        for b in 0..100 {
            let d = tmp.path().join(format!("t/a{a}/b{b}"));
            fs::create_dir_all(&d).unwrap();
            fs::write(d.join("f"), b"").unwrap();
        }
    }
    let dirs = 30 * 100 + 30;
    let program = [
        "mpirun",
        "--oversubscribe",
        "--allow-run-as-root",
        "--bind-to",
        "none",
        "-np",
        "2",
        env!("CARGO_BIN_EXE_dents-mpi"),
        "find",
    ];
    let stats = dents_testfs::cli::entry_stat_calls(
        &program,
        &["t", "-false"],
        tmp.path(),
        "t",
        &[("LC_ALL", "C")],
    );
    assert!(
        stats < dirs / 10,
        "{stats} stat calls on the entries of a tree of {dirs} directories"
    );
}

/// Rank 0 bound to one CPU (mpirun's default at -np 1) on a node with
/// more: a warning that the walker leaves CPUs idle; unbound, none.
#[test]
fn warns_when_bound_to_one_cpu_of_several() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mpirun = |bind: &[&str], prog: &[&str]| {
        let mut c = Command::new("mpirun");
        c.args(["--oversubscribe", "--allow-run-as-root"])
            .args(bind)
            .args(["-np", "1"])
            .args(prog)
            .current_dir(tmp.path());
        run(&mut c)
    };
    // What mpirun's default binding gives a rank here, against the CPUs
    // of an unbound one.
    let allowed = |bind: &[&str]| {
        let probe = mpirun(bind, &["grep", "^Cpus_allowed_list:", "/proc/self/status"]);
        let list = String::from_utf8_lossy(&probe.stdout).into_owned();
        let list = list.split(':').nth(1).unwrap_or("").trim().to_string();
        assert!(!list.is_empty(), "{}", probe.stderr);
        list
    };
    let bound_to_one = !allowed(&[]).contains(['-', ',']);
    let more_unbound = allowed(&["--bind-to", "none"]) != allowed(&[]);
    let dents_mpi = env!("CARGO_BIN_EXE_dents-mpi");
    let warned = |r: &Run| r.stderr.contains("warning: rank 0 is bound to 1 of");
    let got = mpirun(&[], &[dents_mpi, "find", ".", "-false"]);
    assert_eq!(got.status, 0, "{}", got.stderr);
    assert_eq!(warned(&got), bound_to_one && more_unbound, "{}", got.stderr);
    let got = mpirun(&["--bind-to", "none"], &[dents_mpi, "find", ".", "-false"]);
    assert_eq!((got.status, warned(&got)), (0, false), "{}", got.stderr);
}

/// `-xdev` on a split directory with a mount point among its entries
/// (a tmpfs): visited, not walked, as GNU find has it.
#[test]
fn huge_directory_with_a_mount_point_under_xdev() {
    let Some(_) = common::mpirun() else { return };
    if !dents_testfs::is_root() {
        return dents_testfs::skip("not root: cannot mount a tmpfs");
    }
    let Some(fs) = LoopFs::new_or_skip(FsKind::Xfs, 300) else {
        return;
    };
    let base = fs.path();
    dents_testfs::fill_flat(&base.join("flat1m"), 50_000, |i| {
        format!("a-name-long-enough-to-fill-{i:06}")
    });
    let mnt = base.join("flat1m/mnt");
    fs::create_dir(&mnt).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "tmpfs"])
        .arg(&mnt)
        .status()
        .unwrap();
    assert!(mounted.success());
    fs::write(mnt.join("inside"), b"x").unwrap();
    let args = ["flat1m", "-xdev", "-name", "*mnt*", "-o", "-name", "inside"];
    let want = gnu_find(base, &args);
    let got = run(&mut mpi_find_cmd(3, base, &args));
    let _ = Command::new("umount").arg(&mnt).status();
    assert_eq!(want.stdout, b"flat1m/mnt\n");
    assert_eq!(got.status, 0, "{}", got.stderr);
    assert_eq!(sorted(&got.stdout, &[]), sorted(&want.stdout, &[]));
}

/// `--output=FILE`: rank 0 writes every rank's lines to FILE, none to
/// standard output; du's grand total goes there too.
#[test]
fn merged_output_file() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("t");
    build_tree(&root);
    let out = tmp.path().join("out");
    let opt = format!("--output={}", out.display());
    for np in [1, 3] {
        let mut c = common::mpi_cmd(np, &root);
        c.arg(&opt).args(["find", ".", "-name", "f1*"]);
        let got = run(&mut c);
        assert_eq!((got.status, got.stdout.len()), (0, 0), "{}", got.stderr);
        let want = gnu_find(&root, &[".", "-name", "f1*"]);
        assert!(!want.stdout.is_empty());
        let lines = sorted(&fs::read(&out).unwrap(), &[]);
        assert_eq!(lines, sorted(&want.stdout, &[]), "-np {np}");
        let mut c = common::mpi_cmd(np, &root);
        c.arg(&opt).args(["du", "-c", "d1", "d3"]);
        let got = run(&mut c);
        assert_eq!((got.status, got.stdout.len()), (0, 0), "{}", got.stderr);
        let want = common::gnu_du(&root, &["-c", "d1", "d3"]);
        let lines = sorted(&fs::read(&out).unwrap(), &[]);
        assert_eq!(lines, sorted(&want.stdout, &[]), "-np {np}");
    }
}

/// `-quit` on one rank stops every rank: the one match, status 0, and
/// far fewer items walked than the tree has directories.
#[test]
fn quit_stops_every_rank() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for i in 0..3000 {
        fs::create_dir_all(root.join(format!("t/a{}/b{}/c{i}", i % 10, i % 100))).unwrap();
    }
    fs::write(root.join("t/a3/needle"), b"").unwrap();
    let args = ["t", "-name", "needle", "-print", "-quit"];
    let got = run(mpi_find_cmd(4, root, &args).env("DENTS_MPI_STATS", "1"));
    assert_eq!(got.status, 0, "{}", got.stderr);
    assert_eq!(got.stdout, b"t/a3/needle\n");
    let walked = common::items_walked(&got.stderr);
    assert_eq!(walked.len(), 4, "{}", got.stderr);
    let walked: u64 = walked.iter().sum();
    assert!(
        walked < 1000,
        "{walked} items walked after -quit: {}",
        got.stderr
    );
}

/// Unreadable directories met on several ranks (as nobody): GNU's
/// messages, status 1, the rest found.
#[test]
fn unreadable_directories_on_some_ranks() {
    let Some(_) = common::mpirun() else { return };
    if !dents_testfs::is_root() {
        return dents_testfs::skip("not root: cannot switch to another user with setpriv");
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::set_permissions(root, fs::Permissions::from_mode(0o755)).unwrap();
    build_tree(root);
    for a in 0..6 {
        let d = root.join(format!("d{a}/locked"));
        fs::create_dir_all(d.join("inner")).unwrap();
        fs::set_permissions(&d, fs::Permissions::from_mode(0o000)).unwrap();
    }
    for np in [2, 4] {
        let mut g = Command::new("find");
        g.arg(".").current_dir(root).env("LC_ALL", "C");
        let want = common::as_nobody(g);
        let got = common::as_nobody(mpi_find_cmd(np, root, &["."]));
        assert_eq!(want.status, 1);
        assert_eq!(got.status, 1, "-np {np}: {}", got.stderr);
        assert_eq!(
            sorted(&got.stdout, &[]),
            sorted(&want.stdout, &[]),
            "-np {np}"
        );
        // dents find says `dents:` where GNU says `find:` (the rest is
        // GNU's); mpirun adds its own report of a non-zero status.
        let mut msgs: Vec<&str> = got
            .stderr
            .lines()
            .filter_map(|l| l.strip_prefix("dents: "))
            .collect();
        msgs.sort();
        let mut gnu_msgs: Vec<&str> = want
            .stderr
            .lines()
            .filter_map(|l| l.strip_prefix("find: "))
            .collect();
        gnu_msgs.sort();
        assert_eq!(msgs, gnu_msgs, "messages at -np {np}");
    }
}

/// Eight ranks on this small machine (oversubscribed, two walker threads
/// each): the termination waves end every run only once every entry is
/// printed (a wave that ended early would lose lines), runs after runs,
/// and the work reaches ranks beyond rank 0.
#[test]
fn eight_ranks_end_only_after_every_entry() {
    let Some(_) = common::mpirun() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for a in 0..20 {
        for b in 0..40 {
            let d = tmp.path().join(format!("t/a{a}/b{b}/c"));
            fs::create_dir_all(&d).unwrap();
            fs::write(d.join("f"), b"").unwrap();
        }
    }
    let want = gnu_find(tmp.path(), &["t"]);
    for round in 0..3 {
        let got = run(mpi_find_cmd(8, tmp.path(), &["-j", "2", "t"]).env("DENTS_MPI_STATS", "1"));
        assert_eq!(got.status, 0, "round {round}: {}", got.stderr);
        assert_eq!(
            sorted(&got.stdout, &[]),
            sorted(&want.stdout, &[]),
            "round {round}"
        );
        let walked = common::items_walked(&got.stderr);
        assert_eq!(walked.len(), 8, "round {round}: {}", got.stderr);
        assert!(
            walked.iter().filter(|&&n| n > 0).count() > 1,
            "round {round}: only one rank walked: {}",
            got.stderr
        );
    }
}
