//! `dents ls -R` against GNU ls -R: directories are listed on several
//! workers, and the output must still be GNU's, byte for byte, whatever
//! the number of threads: sorted (GNU's depth-first order), colored (the
//! run's first reset where GNU puts it), with unreadable directories
//! (messages and exit status in GNU's order), loops through bind mounts,
//! odd names; unsorted (`-U`), the same blocks in another order.
//!
//! dents is given `--sort=name` (GNU's default order, which dents applies
//! off a terminal only when asked) and `--threads N`; GNU ls gets neither.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use dents_testfs::cli::clean_ls_env;

/// Thread counts the comparisons run with (1: the main thread and one
/// worker; 8: more workers than cores).
const THREADS: [&str; 4] = ["1", "2", "3", "8"];

/// `dents ls --sort=name --threads THREADS ARGS` (without `--sort=name`
/// when `sorted` is false).
fn dents(cwd: &Path, lc: &str, threads: &str, sorted: bool, args: &[&[u8]]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dents"));
    clean_ls_env(&mut c, lc);
    c.current_dir(cwd).arg("ls").args(["--threads", threads]);
    if sorted {
        c.arg("--sort=name");
    }
    c.args(args.iter().map(|a| OsStr::from_bytes(a)));
    c
}

/// GNU `ls ARGS`.
fn gnu(cwd: &Path, lc: &str, args: &[&[u8]]) -> Command {
    let mut c = Command::new("ls");
    clean_ls_env(&mut c, lc);
    c.current_dir(cwd)
        .args(args.iter().map(|a| OsStr::from_bytes(a)));
    c
}

fn run(mut c: Command) -> Output {
    c.output().unwrap()
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).escape_debug().to_string()
}

/// GNU's stderr in dents's words (the program's name).
fn as_dents(stderr: &[u8]) -> String {
    let s = String::from_utf8_lossy(stderr);
    s.replace("\nls: ", "\ndents: ")
        .replacen("ls: ", "dents: ", usize::from(s.starts_with("ls: ")))
}

/// Asserts equal stdout, stderr (in order) and exit status.
#[track_caller]
fn assert_same(what: &str, d: &Output, g: &Output) {
    assert_eq!(show(&d.stdout), show(&g.stdout), "stdout of {what}");
    assert_eq!(
        String::from_utf8_lossy(&d.stderr),
        as_dents(&g.stderr),
        "stderr of {what}"
    );
    assert_eq!(d.status.code(), g.status.code(), "status of {what}");
}

/// Compares `dents ls -R`-like `args` with GNU's at every thread count.
#[track_caller]
fn same_at_all_threads(cwd: &Path, lc: &str, env: &[(&str, &str)], args: &[&[u8]]) {
    let mut g = gnu(cwd, lc, args);
    g.envs(env.iter().copied());
    let g = run(g);
    for t in THREADS {
        let mut d = dents(cwd, lc, t, true, args);
        d.envs(env.iter().copied());
        let d = run(d);
        let shown: Vec<String> = args.iter().map(|a| show(a)).collect();
        assert_same(&format!("{shown:?} {env:?} in {lc}, {t} threads"), &d, &g);
    }
}

/// The locales compared: byte order, and a collation unlike it when the
/// system has en_US.UTF-8 (required under CI).
fn locales() -> Vec<&'static str> {
    let out = Command::new("locale").arg("-a").output().unwrap();
    let have = String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.eq_ignore_ascii_case("en_US.utf8"));
    if have {
        vec!["C", "C.UTF-8", "en_US.UTF-8"]
    } else {
        dents_testfs::skip("no en_US.UTF-8 locale: strcoll is not exercised (partly)");
        vec!["C", "C.UTF-8"]
    }
}

fn touch(p: &Path) {
    fs::File::create(p).unwrap();
}

fn mkdir(p: &Path) {
    fs::create_dir_all(p).unwrap();
}

/// A tree whose directories finish out of order on several workers: a
/// big directory early in the order, many small ones after it, a deep
/// chain, names whose order differs between byte order and strcoll,
/// empty directories, symlinks to directories (not followed), an
/// executable and a fifo.
fn mixed_tree(root: &Path) {
    let t = root.join("tree");
    mkdir(&t);
    let big = t.join("Alpha");
    mkdir(&big);
    for i in 0..3000 {
        touch(&big.join(format!("entry-{i:05}")));
    }
    mkdir(&big.join("inner"));
    touch(&big.join("inner/x"));
    for i in 0..60 {
        let d = t.join(format!("{}{i}", ["b", "B", "_c", "c"][i % 4]));
        mkdir(&d);
        for j in 0..(i % 7) {
            touch(&d.join(format!("f{j}.{}", ["txt", "gz", "rs"][j % 3])));
        }
        if i % 5 == 0 {
            mkdir(&d.join("sub").join("subsub"));
            touch(&d.join("sub/subsub/leaf"));
        }
        if i % 9 == 0 {
            mkdir(&d.join("empty"));
        }
    }
    let mut deep = t.join("deep");
    for i in 0..40 {
        deep = deep.join(format!("level{i}"));
    }
    mkdir(&deep);
    touch(&deep.join("bottom"));
    let exe = t.join("b4/run");
    touch(&exe);
    fs::set_permissions(&exe, fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("Alpha", t.join("to-alpha")).unwrap();
    std::os::unix::fs::symlink("nowhere", t.join("B1/broken")).unwrap();
    let st = Command::new("mkfifo")
        .arg(t.join("c3/fifo"))
        .status()
        .unwrap();
    assert!(st.success());
}

#[test]
fn sorted_recursive_listings_are_gnus_at_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    mixed_tree(tmp.path());
    let sets: &[&[&str]] = &[
        &["-R"],
        &["-R", "-a"],
        &["-R", "-A", "-r"],
        &["-R", "-C", "-w", "100"],
        &["-R", "-x"],
        &["-R", "-m"],
        &["-lR"],
        &["-R", "-F"],
        &["-R", "-p"],
        &["-R", "--indicator-style=file-type"],
        &["-R", "-i"],
        &["-R", "--group-directories-first"],
        &["-R", "-S"],
        &["-R", "-X"],
    ];
    for lc in locales() {
        for set in sets {
            let mut args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
            args.push(b"tree");
            same_at_all_threads(tmp.path(), lc, &[], &args);
        }
    }
    // Several operands: each tree in turn, files first.
    touch(&tmp.path().join("file-operand"));
    same_at_all_threads(
        tmp.path(),
        "C",
        &[],
        &[
            b"-R",
            b"tree/c3",
            b"file-operand",
            b"tree/b8",
            b"tree/Alpha",
        ],
    );
}

#[test]
fn colored_recursive_listings_put_the_first_reset_where_gnu_does() {
    let tmp = tempfile::tempdir().unwrap();
    mixed_tree(tmp.path());
    // An operand with nothing to paint before the tree: the first paint,
    // and so the run's reset, is in a later block.
    let plain = tmp.path().join("plain");
    mkdir(&plain);
    for n in ["one", "two"] {
        touch(&plain.join(n));
    }
    let exe = tmp.path().join("exe");
    touch(&exe);
    fs::set_permissions(&exe, fs::Permissions::from_mode(0o755)).unwrap();
    let tables = [
        None,
        Some("di=01;34:ln=01;36:ex=01;32:*.gz=01;31:or=40;31;01:mi=05;37;41"),
        Some("no=33:fi=00:*.RS=35"),
        Some("ln=target:di=4"),
        Some("lc=<:rc=>:di=1"),
        Some("ec=\\e[0m:lc=\\e[:rc=m:di=1"),
    ];
    for table in tables {
        let env: Vec<(&str, &str)> = table.map(|t| ("LS_COLORS", t)).into_iter().collect();
        for set in [&["-C"][..], &["-1"], &["-l"], &["-x", "-F"]] {
            for operands in [&["tree"][..], &["plain", "tree"], &["exe", "plain", "tree"]] {
                let mut args: Vec<&[u8]> = vec![b"-R", b"--color=always"];
                args.extend(set.iter().map(|s| s.as_bytes()));
                args.extend(operands.iter().map(|s| s.as_bytes()));
                same_at_all_threads(tmp.path(), "C.UTF-8", &env, &args);
            }
        }
    }
}

/// The blocks of a `-R` listing (separated by blank lines), each with its
/// lines sorted, sorted: what an unsorted listing must have in common
/// with GNU's.  Names in the tree hold no newline.
fn blocks_as_set(out: &[u8]) -> Vec<Vec<String>> {
    let text = String::from_utf8_lossy(out);
    let mut blocks: Vec<Vec<String>> = text
        .split("\n\n")
        .map(|b| {
            let mut lines: Vec<String> = b.lines().map(str::to_string).collect();
            // The heading stays first.
            lines[1..].sort();
            lines
        })
        .collect();
    blocks.sort();
    blocks
}

#[test]
fn unsorted_recursive_listings_hold_gnus_blocks() {
    let tmp = tempfile::tempdir().unwrap();
    mixed_tree(tmp.path());
    for set in [&["-U", "-R"][..], &["-U", "-R", "-a"], &["-f", "-R"]] {
        let mut args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
        args.push(b"tree");
        let g = run(gnu(tmp.path(), "C", &args));
        for t in THREADS {
            let d = run(dents(tmp.path(), "C", t, false, &args));
            let what = format!("{set:?}, {t} threads");
            assert_eq!(blocks_as_set(&d.stdout), blocks_as_set(&g.stdout), "{what}");
            assert_eq!(d.stdout.len(), g.stdout.len(), "{what}");
            assert_eq!(d.stderr, g.stderr, "stderr of {what}");
            assert_eq!(d.status.code(), g.status.code(), "status of {what}");
        }
        // The default off a terminal (no -U given) is the same listing.
        let d = run(dents(tmp.path(), "C", "4", false, &args[1..]));
        if !set.contains(&"-f") && !set.contains(&"-a") {
            assert_eq!(blocks_as_set(&d.stdout), blocks_as_set(&g.stdout));
        }
    }
}

/// Runs a command as the unprivileged user `nobody`, standard input empty.
fn as_nobody(cmd: Command) -> Command {
    let mut wrapped = dents_testfs::cli::as_nobody(cmd);
    wrapped.stdin(Stdio::null());
    wrapped
}

#[test]
fn unreadable_subdirectories_are_reported_in_gnus_order_and_status() {
    if !dents_testfs::is_root() {
        return dents_testfs::skip("not root: cannot switch to another user");
    }
    let tmp = tempfile::tempdir().unwrap();
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    mixed_tree(tmp.path());
    let t = tmp.path().join("tree");
    // Unreadable directories in several subtrees (their messages must come
    // in GNU's order), one that can be read but not searched (its entries
    // cannot be stat'ed: -l, -F, colors), and an unreadable operand.
    let locked = ["B5/sub", "c7", "deep/level0/level1", "B9"];
    for l in locked {
        fs::set_permissions(t.join(l), fs::Permissions::from_mode(0o000)).unwrap();
    }
    fs::set_permissions(t.join("_c6"), fs::Permissions::from_mode(0o644)).unwrap();
    for set in [
        &["-R"][..],
        &["-lR"],
        &["-R", "-F"],
        &["-R", "--color=always", "-C"],
        &["-R", "-p"],
    ] {
        for operands in [&["tree"][..], &["tree/c7", "tree/b12", "tree/_c6"]] {
            let mut args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
            args.extend(operands.iter().map(|s| s.as_bytes()));
            let g = run(as_nobody(gnu(tmp.path(), "C", &args)));
            assert!(!g.stderr.is_empty());
            for th in THREADS {
                let d = run(as_nobody(dents(tmp.path(), "C", th, true, &args)));
                assert_same(
                    &format!("{set:?} {operands:?} as nobody, {th} threads"),
                    &d,
                    &g,
                );
            }
        }
    }
    for l in locked {
        fs::set_permissions(t.join(l), fs::Permissions::from_mode(0o755)).unwrap();
    }
    fs::set_permissions(t.join("_c6"), fs::Permissions::from_mode(0o755)).unwrap();
}

/// Unmounts a bind mount when dropped (also when the test fails).
struct Bind(std::path::PathBuf);

impl Drop for Bind {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_loop_through_a_bind_mount_is_not_listed_again_as_gnu() {
    if !dents_testfs::is_root() {
        return dents_testfs::skip("not root: cannot bind-mount");
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("top");
    mkdir(&t.join("a/b/loop"));
    mkdir(&t.join("a/c"));
    touch(&t.join("a/b/file"));
    mkdir(&t.join("z/deeper"));
    // top/a/b/loop shows top again: -R must stop there, with GNU's words
    // and status, and go on with the rest.
    let st = Command::new("mount")
        .arg("--bind")
        .arg(&t)
        .arg(t.join("a/b/loop"))
        .status();
    if !st.is_ok_and(|s| s.success()) {
        return dents_testfs::skip("mount --bind failed");
    }
    let _bind = Bind(t.join("a/b/loop"));
    for set in [&["-R"][..], &["-lR"], &["-R", "-a"]] {
        for operand in ["top", "top/a"] {
            let mut args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
            args.push(operand.as_bytes());
            same_at_all_threads(tmp.path(), "C", &[], &args);
        }
    }
}

#[test]
fn odd_names_in_headings_and_listings_are_gnus() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("odd");
    mkdir(&t);
    for (i, n) in dents_testfs::awkward_names().into_iter().enumerate() {
        if n.len() > 200 || n == b"-" || n == b"..." {
            // Long names fill paths, dashes read as options: as files.
            touch(&t.join(OsStr::from_bytes(&n)));
            continue;
        }
        let d = t.join(OsStr::from_bytes(&n));
        mkdir(&d);
        touch(&d.join(format!("f{i}")));
        // A name with a colon or newline in a heading's nested path too.
        mkdir(&d.join("x:y\nz"));
        touch(&d.join("x:y\nz").join(OsStr::from_bytes(&n)));
    }
    for lc in ["C", "C.UTF-8"] {
        for set in [
            &["-R"][..],
            &["-R", "-a"],
            &["-R", "-b"],
            &["-R", "-Q"],
            &["-R", "-q"],
            &["-R", "--quoting-style=shell-escape"],
            &["-R", "--quoting-style=c"],
            &["-R", "-C", "--color=always"],
            &["-lR", "-N"],
        ] {
            let mut args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
            args.push(b"odd");
            same_at_all_threads(tmp.path(), lc, &[], &args);
        }
    }
}

#[test]
fn many_blocks_done_ahead_of_a_slow_one_come_out_in_order() {
    // The first subdirectory is large (its block takes longest); the many
    // small ones after it are listed meanwhile and held, past the bound
    // on what is held: the output must still be GNU's.
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("wide");
    mkdir(&t);
    let big = t.join("a-big");
    mkdir(&big);
    for i in 0..20_000 {
        touch(&big.join(format!("name-with-some-length-{i:06}")));
    }
    for i in 0..1500 {
        let d = t.join(format!("s{i:04}"));
        mkdir(&d);
        for j in 0..12 {
            touch(&d.join(format!("a-file-name-long-enough-{j:03}")));
        }
    }
    for set in [&["-R"][..], &["-R", "--color=always", "-C"]] {
        let mut args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
        args.push(b"wide");
        same_at_all_threads(tmp.path(), "C", &[], &args);
    }
}

/// A filesystem of `kind` holding the issue's tree (`small`: `a/b/f`,
/// `top`) and the mixed one (`tree`, with a hidden subdirectory: hidden
/// directories count in the link count that spares stats; symlinks to
/// directories are not followed), or `None` (skipped loudly).  It is
/// returned once the directories are more than a second old: the link
/// count of a directory changed in the last second is not trusted (all
/// its unknown entries are stat'ed), and the trusted path is the one to
/// test.
fn unknown_types_fs(kind: dents_testfs::FsKind) -> Option<dents_testfs::LoopFs> {
    let lfs = dents_testfs::LoopFs::new_or_skip(kind, 64)?;
    let root = lfs.path();
    mkdir(&root.join("small/a/b"));
    touch(&root.join("small/a/b/f"));
    touch(&root.join("small/top"));
    mixed_tree(root);
    mkdir(&root.join("tree/b1/.hidden/inside"));
    touch(&root.join("tree/b1/.hidden/inside/f"));
    std::thread::sleep(std::time::Duration::from_millis(2100));
    Some(lfs)
}

/// Issue 30.5: on a filesystem whose directory entries carry no type
/// (ext4 `-O ^filetype`: every `d_type` is unknown), `-R` must find the
/// subdirectories all the same (it listed the top directory alone); XFS
/// beside it.  Each comparison runs at several thread counts, three
/// times (the workers' order varies).
fn recursion_through_unknown_types_on(kind: dents_testfs::FsKind) {
    let Some(lfs) = unknown_types_fs(kind) else {
        return;
    };
    let root = lfs.path();
    for operand in ["small", "tree"] {
        for set in [
            &["-R"][..],
            &["-aR"],
            &["-R", "-C"],
            &["-RF"],
            &["-Ri"],
            &["-lR"],
            &["-R", "-p"],
        ] {
            let mut args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
            args.push(operand.as_bytes());
            for _ in 0..3 {
                same_at_all_threads(root, "C", &[], &args);
            }
        }
        // Unsorted: GNU's blocks, in another order.
        for set in [&["-UR"][..], &["-UR", "-a"], &["-R"]] {
            let mut args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
            args.push(operand.as_bytes());
            let g = run(gnu(root, "C", &args));
            for t in ["1", "2", "8"] {
                for _ in 0..3 {
                    let d = run(dents(root, "C", t, false, &args));
                    let what = format!("{set:?} in {operand} on {kind:?}, {t} threads");
                    assert_eq!(blocks_as_set(&d.stdout), blocks_as_set(&g.stdout), "{what}");
                    assert_eq!(d.stdout.len(), g.stdout.len(), "{what}");
                    assert_eq!(show(&d.stderr), show(&g.stderr), "stderr of {what}");
                    assert_eq!(d.status.code(), g.status.code(), "status of {what}");
                }
            }
        }
    }
}

#[test]
fn recursion_through_unknown_types_on_ext4_without_filetype() {
    recursion_through_unknown_types_on(dents_testfs::FsKind::Ext4NoFiletype);
}

#[test]
fn recursion_through_unknown_types_on_xfs() {
    recursion_through_unknown_types_on(dents_testfs::FsKind::Xfs);
}

/// `-a`'s `.` and `..` are not subdirectories: counted as such in the
/// link count that spares stats, they left two subdirectories of unknown
/// type taken for files (`-p` without their `/`, `-R` not entering them).
#[test]
fn dot_entries_do_not_count_as_subdirectories_on_ext4_without_filetype() {
    let Some(lfs) = unknown_types_fs(dents_testfs::FsKind::Ext4NoFiletype) else {
        return;
    };
    for operand in ["small", "tree", "small/a"] {
        same_at_all_threads(lfs.path(), "C", &[], &[b"-pa", operand.as_bytes()]);
        same_at_all_threads(lfs.path(), "C", &[], &[b"-a", b"-R", operand.as_bytes()]);
    }
}

/// Issue 24.14: below the operand `.` (or none), GNU names subdirectories
/// `./dir` (headings and messages), and joins an operand's trailing
/// slashes into one.
#[test]
fn subdirectories_of_the_current_directory_are_named_as_gnu() {
    let tmp = tempfile::tempdir().unwrap();
    mixed_tree(tmp.path());
    let tree = tmp.path().join("tree");
    for operands in [&[][..], &["."], &["./"], &[".//"], &["b4", "."], &["./b5/"]] {
        for set in [&["-R"][..], &["-lR"], &["-R", "-a"]] {
            let mut args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
            args.extend(operands.iter().map(|s| s.as_bytes()));
            same_at_all_threads(&tree, "C", &[], &args);
        }
    }
    for operands in [&["tree//"][..], &["tree/./"], &["tree/b5//", "tree/c3///"]] {
        let mut args: Vec<&[u8]> = vec![b"-R"];
        args.extend(operands.iter().map(|s| s.as_bytes()));
        same_at_all_threads(tmp.path(), "C", &[], &args);
    }
}

/// Issue 24.14, messages: an unreadable subdirectory below `.` is
/// `'./dir'` in GNU's message.
#[test]
fn messages_below_the_current_directory_are_gnus() {
    if !dents_testfs::is_root() {
        return dents_testfs::skip("not root: cannot switch to another user");
    }
    let tmp = tempfile::tempdir().unwrap();
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    mixed_tree(tmp.path());
    let t = tmp.path().join("tree");
    fs::set_permissions(t.join("c7"), fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(t.join("_c6"), fs::Permissions::from_mode(0o644)).unwrap();
    for set in [&["-R"][..], &["-lR"], &["-R", "."], &["-R", "./"]] {
        let args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
        let g = run(as_nobody(gnu(&t, "C", &args)));
        assert!(!g.stderr.is_empty());
        for th in THREADS {
            let d = run(as_nobody(dents(&t, "C", th, true, &args)));
            assert_same(&format!("{set:?} as nobody, {th} threads"), &d, &g);
        }
    }
    fs::set_permissions(t.join("c7"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(t.join("_c6"), fs::Permissions::from_mode(0o755)).unwrap();
}
