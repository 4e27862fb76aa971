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

/// One case of `sorted_recursive`: `ls SET tree` on [`mixed_tree`], in
/// every locale compared, at every thread count.
fn check_sorted_recursive(set: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    mixed_tree(tmp.path());
    for lc in locales() {
        let mut args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
        args.push(b"tree");
        same_at_all_threads(tmp.path(), lc, &[], &args);
    }
}

dents_testfs::test_cases! {
/// Sorted recursive listings are GNU's at any thread count.
mod sorted_recursive: &[&str] => check_sorted_recursive;
    recursive: &["-R"],
    all: &["-R", "-a"],
    almost_all_reversed: &["-R", "-A", "-r"],
    columns_width_100: &["-R", "-C", "-w", "100"],
    across: &["-R", "-x"],
    commas: &["-R", "-m"],
    long: &["-lR"],
    classify: &["-R", "-F"],
    slash: &["-R", "-p"],
    indicator_file_type: &["-R", "--indicator-style=file-type"],
    inode: &["-R", "-i"],
    group_directories_first: &["-R", "--group-directories-first"],
    by_size: &["-R", "-S"],
    by_extension: &["-R", "-X"],
}

/// Several operands: each tree in turn, files first.
#[test]
fn sorted_recursive_listings_of_several_operands_are_gnus() {
    let tmp = tempfile::tempdir().unwrap();
    mixed_tree(tmp.path());
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

/// One case of `colored_recursive`: `ls -R --color=always` with one
/// `LS_COLORS` table (or none), in every layout, of operands with
/// nothing to paint before the tree: the first paint, and so the run's
/// reset, is in a later block.
fn check_colored_recursive(table: Option<&str>) {
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

dents_testfs::test_cases! {
/// Colored recursive listings put the first reset where GNU does: one
/// test per `LS_COLORS` table.
mod colored_recursive: Option<&str> => check_colored_recursive;
    no_table: None,
    types_extensions_orphans_missing: Some("di=01;34:ln=01;36:ex=01;32:*.gz=01;31:or=40;31;01:mi=05;37;41"),
    normal_file_and_uppercase_extension: Some("no=33:fi=00:*.RS=35"),
    links_as_their_targets: Some("ln=target:di=4"),
    odd_left_and_right_codes: Some("lc=<:rc=>:di=1"),
    end_and_indicator_codes: Some("ec=\\e[0m:lc=\\e[:rc=m:di=1"),
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

/// One case of `unsorted_recursive`: `ls SET tree` on [`mixed_tree`]
/// holds GNU's blocks, in another order, at every thread count.
fn check_unsorted_recursive(set: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    mixed_tree(tmp.path());
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

dents_testfs::test_cases! {
/// Unsorted recursive listings hold GNU's blocks.
mod unsorted_recursive: &[&str] => check_unsorted_recursive;
    unsorted: &["-U", "-R"],
    unsorted_all: &["-U", "-R", "-a"],
    f_option: &["-f", "-R"],
}

/// Runs a command as the unprivileged user `nobody`, standard input empty.
fn as_nobody(cmd: Command) -> Command {
    let mut wrapped = dents_testfs::cli::as_nobody(cmd);
    wrapped.stdin(Stdio::null());
    wrapped
}

/// One case of `unreadable_subdirectories`: `ls SET OPERANDS` as nobody
/// on [`mixed_tree`] with unreadable directories in several subtrees.
fn check_unreadable_subdirectories((set, operands): (&[&str], &[&str])) {
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
    for l in locked {
        fs::set_permissions(t.join(l), fs::Permissions::from_mode(0o755)).unwrap();
    }
    fs::set_permissions(t.join("_c6"), fs::Permissions::from_mode(0o755)).unwrap();
}

dents_testfs::test_cases! {
/// Unreadable subdirectories are reported in GNU's order, with its
/// status: (options, operands).
mod unreadable_subdirectories: (&[&str], &[&str]) => check_unreadable_subdirectories;
    recursive: (&["-R"], &["tree"]),
    recursive_operands: (&["-R"], &["tree/c7", "tree/b12", "tree/_c6"]),
    long: (&["-lR"], &["tree"]),
    long_operands: (&["-lR"], &["tree/c7", "tree/b12", "tree/_c6"]),
    classify: (&["-R", "-F"], &["tree"]),
    classify_operands: (&["-R", "-F"], &["tree/c7", "tree/b12", "tree/_c6"]),
    colored_columns: (&["-R", "--color=always", "-C"], &["tree"]),
    colored_columns_operands: (&["-R", "--color=always", "-C"], &["tree/c7", "tree/b12", "tree/_c6"]),
    slash: (&["-R", "-p"], &["tree"]),
    slash_operands: (&["-R", "-p"], &["tree/c7", "tree/b12", "tree/_c6"]),
}

/// Unmounts a bind mount when dropped (also when the test fails).
struct Bind(std::path::PathBuf);

impl Drop for Bind {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// One case of `bind_mount_loop`: `ls SET OPERAND` where `top/a/b/loop`
/// shows `top` again, through a bind mount.
fn check_bind_mount_loop((set, operand): (&[&str], &str)) {
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
    let mut args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
    args.push(operand.as_bytes());
    same_at_all_threads(tmp.path(), "C", &[], &args);
}

dents_testfs::test_cases! {
/// A loop through a bind mount is not listed again, as GNU's: (options,
/// operand).
mod bind_mount_loop: (&[&str], &str) => check_bind_mount_loop;
    recursive: (&["-R"], "top"),
    recursive_below: (&["-R"], "top/a"),
    long: (&["-lR"], "top"),
    long_below: (&["-lR"], "top/a"),
    all: (&["-R", "-a"], "top"),
    all_below: (&["-R", "-a"], "top/a"),
}

/// One case of `odd_names`: `ls SET odd` on directories of awkward
/// names, in C and C.UTF-8, at every thread count.
fn check_odd_names(set: &[&str]) {
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
        let mut args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
        args.push(b"odd");
        same_at_all_threads(tmp.path(), lc, &[], &args);
    }
}

dents_testfs::test_cases! {
/// Odd names in headings and listings are GNU's.
mod odd_names: &[&str] => check_odd_names;
    recursive: &["-R"],
    all: &["-R", "-a"],
    escape: &["-R", "-b"],
    quote_name: &["-R", "-Q"],
    hide_control_chars: &["-R", "-q"],
    quoting_shell_escape: &["-R", "--quoting-style=shell-escape"],
    quoting_c: &["-R", "--quoting-style=c"],
    colored_columns: &["-R", "-C", "--color=always"],
    long_literal: &["-lR", "-N"],
}

/// One case of `many_blocks_ahead`: `ls SET wide`, many small blocks
/// done ahead of a slow one.
fn check_many_blocks_ahead(set: &[&str]) {
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
    let mut args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
    args.push(b"wide");
    same_at_all_threads(tmp.path(), "C", &[], &args);
}

dents_testfs::test_cases! {
/// Many blocks done ahead of a slow one come out in order.
mod many_blocks_ahead: &[&str] => check_many_blocks_ahead;
    recursive: &["-R"],
    colored_columns: &["-R", "--color=always", "-C"],
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

/// One case of `current_directory`: `ls ARGS` in `DIR` (`tree`, or the
/// temporary directory holding it), at every thread count.
fn check_current_directory((dir, args): (&str, &[&str])) {
    let tmp = tempfile::tempdir().unwrap();
    mixed_tree(tmp.path());
    let args: Vec<&[u8]> = args.iter().map(|s| s.as_bytes()).collect();
    same_at_all_threads(&tmp.path().join(dir), "C", &[], &args);
}

dents_testfs::test_cases! {
/// Issue 24.14: below the operand `.` (or none), GNU names
/// subdirectories `./dir` (headings and messages), and joins an
/// operand's trailing slashes into one: (directory, arguments).
mod current_directory: (&str, &[&str]) => check_current_directory;
    none_recursive: ("tree", &["-R"]),
    none_long: ("tree", &["-lR"]),
    none_all: ("tree", &["-R", "-a"]),
    dot_recursive: ("tree", &["-R", "."]),
    dot_long: ("tree", &["-lR", "."]),
    dot_all: ("tree", &["-R", "-a", "."]),
    dot_slash_recursive: ("tree", &["-R", "./"]),
    dot_slash_long: ("tree", &["-lR", "./"]),
    dot_slash_all: ("tree", &["-R", "-a", "./"]),
    dot_slashes_recursive: ("tree", &["-R", ".//"]),
    dot_slashes_long: ("tree", &["-lR", ".//"]),
    dot_slashes_all: ("tree", &["-R", "-a", ".//"]),
    operand_then_dot_recursive: ("tree", &["-R", "b4", "."]),
    operand_then_dot_long: ("tree", &["-lR", "b4", "."]),
    operand_then_dot_all: ("tree", &["-R", "-a", "b4", "."]),
    dot_slash_subdirectory_recursive: ("tree", &["-R", "./b5/"]),
    dot_slash_subdirectory_long: ("tree", &["-lR", "./b5/"]),
    dot_slash_subdirectory_all: ("tree", &["-R", "-a", "./b5/"]),
    trailing_slashes: (".", &["-R", "tree//"]),
    trailing_dot_slash: (".", &["-R", "tree/./"]),
    several_with_slashes: (".", &["-R", "tree/b5//", "tree/c3///"]),
}

/// One case of `messages_below_current_directory`: `ls SET` as nobody in
/// `tree`, whose `c7` cannot be read and `_c6` searched.
fn check_messages_below_current_directory(set: &[&str]) {
    if !dents_testfs::is_root() {
        return dents_testfs::skip("not root: cannot switch to another user");
    }
    let tmp = tempfile::tempdir().unwrap();
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    mixed_tree(tmp.path());
    let t = tmp.path().join("tree");
    fs::set_permissions(t.join("c7"), fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(t.join("_c6"), fs::Permissions::from_mode(0o644)).unwrap();
    let args: Vec<&[u8]> = set.iter().map(|s| s.as_bytes()).collect();
    let g = run(as_nobody(gnu(&t, "C", &args)));
    assert!(!g.stderr.is_empty());
    for th in THREADS {
        let d = run(as_nobody(dents(&t, "C", th, true, &args)));
        assert_same(&format!("{set:?} as nobody, {th} threads"), &d, &g);
    }
    fs::set_permissions(t.join("c7"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(t.join("_c6"), fs::Permissions::from_mode(0o755)).unwrap();
}

dents_testfs::test_cases! {
/// Issue 24.14, messages: an unreadable subdirectory below `.` is
/// `'./dir'` in GNU's message.
mod messages_below_current_directory: &[&str] => check_messages_below_current_directory;
    recursive: &["-R"],
    long: &["-lR"],
    dot: &["-R", "."],
    dot_slash: &["-R", "./"],
}
