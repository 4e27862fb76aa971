//! `dents du` against GNU du: the same arguments on the same trees must
//! give the same lines (compared sorted: siblings may come in another
//! order), the same messages (program name normalised) and the same exit
//! status; and dents's lines must be in post-order.
//!
//! Run one case alone, or one table (its module's name, `bad_input::`):
//! `cargo test --release -p dents-cli --test du -- bad_input::nonexistent --exact`.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::Path;
use std::process::Command;

use dents_testfs::{test_cases, FsKind, LoopFs};

/// One run's output: lines (sorted copy kept apart), stderr, status.
#[derive(Debug)]
struct Run {
    lines: Vec<Vec<u8>>,
    stderr: String,
    status: i32,
}

fn run(cmd: Command, nul: bool) -> Run {
    run_env(cmd, nul, None)
}

/// [`run`], with one variable of those it removes set.
fn run_env(mut cmd: Command, nul: bool, var: Option<(&str, &[u8])>) -> Run {
    cmd.env("LC_ALL", "C")
        .env_remove("BLOCK_SIZE")
        .env_remove("DU_BLOCK_SIZE");
    cmd.env_remove("BLOCKSIZE")
        .env_remove("POSIXLY_CORRECT")
        .env_remove("TIME_STYLE");
    cmd.env("TZ", "UTC");
    if let Some((k, v)) = var {
        cmd.env(k, std::ffi::OsStr::from_bytes(v));
    }
    let out = cmd.output().expect("runs");
    let sep = if nul { 0 } else { b'\n' };
    let mut lines: Vec<Vec<u8>> = out
        .stdout
        .split(|&c| c == sep)
        .map(|l| l.to_vec())
        .collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let stderr = String::from_utf8_lossy(&out.stderr)
        .replace("dents: ", "du: ")
        .replace("Try 'dents du --help'", "Try 'du --help'");
    let mut err_lines: Vec<&str> = stderr.lines().collect();
    err_lines.sort();
    Run {
        lines,
        stderr: err_lines.join("\n"),
        status: out.status.code().unwrap_or(-1),
    }
}

fn dents(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dents"));
    c.arg("du").args(args).current_dir(dir);
    c
}

fn gnu(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("du");
    c.args(args).current_dir(dir);
    c
}

/// The path of a du line (after the size, and the time with `--time`).
fn path_of(line: &[u8], time: bool) -> &[u8] {
    let mut parts = line.splitn(if time { 3 } else { 2 }, |&c| c == b'\t');
    parts.nth(if time { 2 } else { 1 }).unwrap_or(b"")
}

/// Every directory's line after all lines below it.
fn assert_post_order(lines: &[Vec<u8>], time: bool) {
    for (i, l) in lines.iter().enumerate() {
        let p = path_of(l, time);
        let mut prefix = p.to_vec();
        if !prefix.ends_with(b"/") {
            prefix.push(b'/');
        }
        for later in &lines[i + 1..] {
            let q = path_of(later, time);
            assert!(
                !q.starts_with(&prefix) || p == b"total",
                "{:?} comes after its directory {:?}",
                String::from_utf8_lossy(q),
                String::from_utf8_lossy(p)
            );
        }
    }
}

/// Runs both with `args` in `dir` and compares.
fn same(dir: &Path, args: &[&str]) {
    let nul = args.iter().any(|a| ["-0", "-a0", "--null"].contains(a));
    let time = args
        .iter()
        .any(|a| a.starts_with("--time") && !a.starts_with("--time-style"));
    let g = run(gnu(dir, args), nul);
    let d = run(dents(dir, args), nul);
    same_runs(&g, &d, args, time);
}

/// GNU's run and dents's of `du ARGS` give the same lines (sorted),
/// messages and status, dents's lines in post-order.
fn same_runs(g: &Run, d: &Run, args: &[&str], time: bool) {
    assert_post_order(&d.lines, time);
    let mut gl = g.lines.clone();
    let mut dl = d.lines.clone();
    gl.sort();
    dl.sort();
    let show = |v: &[Vec<u8>]| {
        v.iter()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(show(&dl), show(&gl), "lines of du {args:?}");
    assert_eq!(d.stderr, g.stderr, "messages of du {args:?}");
    assert_eq!(d.status, g.status, "status of du {args:?}");
}

/// A tree with a bit of everything but hard links: nested directories,
/// files of several sizes, a sparse file, empty directories, symlinks
/// (to a file, to a directory, dangling), awkward names.
fn build_tree(root: &Path) {
    let d = |p: &str| fs::create_dir_all(root.join(p)).unwrap();
    let f = |p: &str, n: usize| fs::write(root.join(p), vec![b'x'; n]).unwrap();
    d("t/a/b/c/d");
    d("t/a/empty");
    d("t/e/f");
    d("t/with space/sub");
    f("t/top", 10);
    f("t/a/one", 1);
    f("t/a/b/four_k", 4096);
    f("t/a/b/c/big", 300_000);
    f("t/a/b/c/d/deep", 5000);
    f("t/e/f/g", 70_000);
    f("t/with space/sub/x y", 123);
    f("t/e/.hidden", 2000);
    for i in 0..50 {
        f(&format!("t/e/many{i:02}"), i * 100);
    }
    // Sparse: 64 MiB apparent, one block written.
    let sparse = fs::File::create(root.join("t/a/sparse")).unwrap();
    sparse.set_len(64 << 20).unwrap();
    std::os::unix::fs::FileExt::write_at(&sparse, b"data", 1 << 20).unwrap();
    symlink("top", root.join("t/link_to_file")).unwrap();
    symlink("e", root.join("t/link_to_dir")).unwrap();
    symlink("nowhere", root.join("t/dangling")).unwrap();
}

/// One case of `option_sets`: `du ARGS t` on a fresh tree.
fn check_options(args: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    build_tree(tmp.path());
    // The first walk of a new tree moves its directories' access times
    // (relatime); walk it once, as the old single loop's first cases did,
    // so that `--time=atime` compares settled times.
    run(gnu(tmp.path(), &["-a", "t"]), false);
    let mut a: Vec<&str> = args.to_vec();
    a.push("t");
    same(tmp.path(), &a);
}

test_cases! {
/// Each option alone and the combinations people use.
mod option_sets: &[&str] => check_options;
    no_options: &[],
    all: &["-a"],
    summarize: &["-s"],
    total: &["-c"],
    max_depth_0_apart: &["-d", "0"],
    max_depth_1_joined: &["-d1"],
    max_depth_2_long: &["--max-depth=2"],
    human: &["-h"],
    si: &["--si"],
    kibibytes: &["-k"],
    mebibytes: &["-m"],
    bytes: &["-b"],
    apparent_size: &["--apparent-size"],
    block_size_m_joined: &["-BM"],
    block_size_1k_apart: &["-B", "1K"],
    block_size_kb_long: &["--block-size=KB"],
    block_size_kib: &["-BKiB"],
    block_size_human_readable: &["--block-size=human-readable"],
    inodes: &["--inodes"],
    count_links: &["-l"],
    dereference: &["-L"],
    no_dereference: &["-P"],
    dereference_args_h: &["-H"],
    dereference_args_d: &["-D"],
    one_file_system: &["-x"],
    separate_dirs: &["-S"],
    separate_dirs_long_all: &["--separate-dirs", "-a"],
    threshold_5k: &["-t", "5k"],
    threshold_minus_5000_all: &["-t", "-5000", "-a"],
    threshold_100k_long: &["--threshold=100K"],
    time: &["--time"],
    time_atime: &["--time=atime"],
    time_status_full_iso: &["--time=status", "--time-style=full-iso"],
    time_style_iso: &["--time", "--time-style=iso"],
    time_style_format: &["--time", "--time-style=+%s.%N"],
    null: &["-0"],
    exclude_glob: &["--exclude=*.hidden"],
    exclude_name_all: &["--exclude=b", "-a"],
    summarize_human: &["-sh"],
    all_human_max_depth_2: &["-ahd2"],
    summarize_one_file_system_total: &["-sxc"],
    apparent_size_bytes: &["--apparent-size", "-b"],
    inodes_summarize: &["--inodes", "-s"],
    all_null: &["-a0"],
    summarize_kibibytes_apparent_size: &["-sk", "--apparent-size"],
    total_human_summarize: &["-chs"],
    // The grand total is printed whatever the threshold, as GNU's.
    total_threshold_above_everything: &["-c", "-t", "1G"],
    total_negative_threshold: &["-c", "-t", "-1"],
    total_inodes_threshold: &["-c", "--inodes", "-t", "100000"],
    all_separate_dirs_human_max_depth_1: &["-aSh", "-d1"],
}

/// One case of `several_arguments`: `du ARGS` run in `DIR` (the
/// temporary directory, or `t` in it) on a fresh tree.
fn check_several_arguments(case: (&str, &[&str])) {
    let (dir, args) = case;
    let tmp = tempfile::tempdir().unwrap();
    build_tree(tmp.path());
    same(&tmp.path().join(dir), args);
}

test_cases! {
/// Several arguments (nested, repeated, files and directories, links,
/// slashes), and none: `.`.
mod several_arguments: (&str, &[&str]) => check_several_arguments;
    directories_then_their_parent: (".", &["t/a", "t/e", "t"]),
    parent_then_its_directory: (".", &["t", "t/a"]),
    summarized_twice: (".", &["-s", "t", "t"]),
    files_then_their_directory_total: (".", &["-c", "t/top", "t/a/one", "t"]),
    file_then_its_directory_all: (".", &["-a", "t/e/many01", "t/e"]),
    summarized_file_then_directory: (".", &["-s", "t/a/b/c/big", "t/a/b"]),
    summarized_total: (".", &["-sc", "t/e", "t/a"]),
    link_to_directory_then_dereference_args: (".", &["t/link_to_dir", "-H"]),
    trailing_slashes_all: (".", &["-a", "t//", "t/a/"]),
    dot_slash_and_slashes_summarized: (".", &["-s", "./t/", "t/e///"]),
    link_to_directory: (".", &["t/link_to_dir"]),
    link_to_directory_dereferenced: (".", &["-L", "t/link_to_dir", "t/e"]),
    no_argument: ("t", &[]),
    no_argument_all: ("t", &["-a"]),
}

/// One case of `bad_input`: `du ARGS` on a fresh tree, refused or
/// complained about as GNU du does.
fn check_bad_input(args: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    build_tree(tmp.path());
    same(tmp.path(), args);
}

test_cases! {
/// Bad arguments and options: GNU's messages and status.
mod bad_input: &[&str] => check_bad_input;
    nonexistent: &["nonexistent"],
    nonexistent_then_existing: &["nonexistent", "t/a"],
    empty_name: &[""],
    max_depth_negative: &["-d", "-1", "t"],
    max_depth_not_a_number: &["-d", "x", "t"],
    summarize_and_max_depth_1: &["-s", "-d1", "t"],
    summarize_and_max_depth_0: &["-s", "-d0", "t"],
    summarize_and_all: &["-sa", "t"],
    block_size_letter_x: &["-BX", "t"],
    block_size_zero: &["-B0", "t"],
    block_size_suffix_q: &["-B", "1Q", "t"],
    threshold_suffix_q: &["-t", "1Q", "t"],
    threshold_minus_zero: &["-t", "-0", "t"],
    threshold_overflow: &["-t", "99999999999999999999", "t"],
    block_size_overflow: &["--block-size=99999999999999999999", "t"],
    unknown_short_option: &["-q", "t"],
    unknown_long_option: &["--bogus", "t"],
    ambiguous_long_option: &["--s", "t"],
    value_given_to_a_flag: &["--all=x", "t"],
    max_depth_without_value: &["-d"],
    max_depth_long_without_value: &["--max-depth"],
    time_word_unknown: &["--time=bogus", "t"],
    time_style_unknown: &["--time", "--time-style=bogus", "t"],
    inodes_and_bytes: &["--inodes", "-b", "t"],
    files0_from_missing: &["--files0-from=nonexistent"],
    files0_from_and_an_argument: &["--files0-from=list", "t"],
    exclude_from_missing: &["-X", "nonexistent", "t"],
    dereference_dangling_link: &["-L", "t"],
    // Ambiguous (an empty word is a prefix of all), not invalid.
    time_word_empty: &["--time=", "t"],
    time_style_empty: &["--time", "--time-style=", "t"],
    // A list that opens but cannot be read: a read error, and the
    // total all the same.
    files0_from_a_directory: &["--files0-from=t"],
    files0_from_a_directory_total: &["-c", "--files0-from=t"],
    // Nothing counted: the total's time is GNU's time 0.
    files0_from_a_directory_total_time: &["-c", "--time", "--files0-from=t"],
    // getopt goes on after a bad option, and du says every error
    // before it stops.
    two_ambiguous_options: &["--b", "--s", "t"],
    every_error_before_stopping: &["-qa", "--bogus", "-d", "x", "--all=x", "-X", "nosuch", "t"],
    max_depth_bad_then_without_value: &["-d", "x", "--max-depth"],
    // GNU du 9.1 has no -A.
    short_a_unknown: &["-A", "t"],
    // No number: a suffix counts only where the value starts.
    threshold_suffixes_without_number: &["-t", "-kxBK", "t"],
    threshold_letter_y: &["-t", "-Y", "t"],
    threshold_letter_p: &["-t", "-P", "t"],
}

/// GNU's words for an empty `TIME_STYLE` (ambiguous) and for a full
/// standard output (`write error` alone: GNU du flushes each line).
#[test]
fn empty_time_style_and_full_output() {
    let tmp = tempfile::tempdir().unwrap();
    build_tree(tmp.path());
    let both = |f: &dyn Fn(&mut Command)| {
        let mut g = gnu(tmp.path(), &["--time", "t"]);
        let mut d = dents(tmp.path(), &["--time", "t"]);
        f(&mut g);
        f(&mut d);
        (run(g, false), run(d, false))
    };
    // run() removes TIME_STYLE: set it through a shell.
    let sh = |prog: &str| {
        let mut c = Command::new("sh");
        c.args(["-c", &format!("TIME_STYLE= exec {prog} --time t")]);
        c.current_dir(tmp.path());
        run(c, false)
    };
    let dents_du = format!("{} du", env!("CARGO_BIN_EXE_dents"));
    let (g, d) = (sh("du"), sh(&dents_du));
    assert_eq!((d.stderr, d.status), (g.stderr, g.status), "TIME_STYLE=");
    let (g, d) = both(&|c: &mut Command| {
        c.stdout(fs::File::create("/dev/full").unwrap());
    });
    assert_eq!((d.stderr, d.status), (g.stderr, g.status), ">/dev/full");
}

/// One case of `files0_and_exclude_from`: `du ARGS` on a fresh tree
/// beside `list` (names for `--files0-from`) and `pats` (for `-X`).
fn check_files0_and_exclude_from(args: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    build_tree(tmp.path());
    fs::write(tmp.path().join("list"), b"t/a\0\0t/e\0t/a\0").unwrap();
    fs::write(tmp.path().join("pats"), b"*.hidden\nmany1*\n").unwrap();
    same(tmp.path(), args);
}

test_cases! {
/// `--files0-from`, `-X`, `--exclude-from` and `--exclude`.
mod files0_and_exclude_from: &[&str] => check_files0_and_exclude_from;
    files0_from_joined: &["--files0-from=list"],
    files0_from_apart_summarized: &["-s", "--files0-from", "list"],
    exclude_from_short: &["-a", "-X", "pats", "t"],
    exclude_from_long_and_exclude: &["-a", "--exclude-from=pats", "--exclude=d", "t"],
    // An excluded argument is skipped before its stat: no message for a
    // missing one, nor for one under a file.
    excluded_missing_argument: &["--exclude=*", "--", "nosuch", "t"],
    excluded_argument_under_a_file: &["--exclude=a*", "t/a/one/x", "t/e", ""],
    // An empty pattern matches the tail after a final `/`.
    empty_pattern_after_final_slash: &["--exclude=", "t/", "t/a", "t/e/"],
}

/// One case of `exclude_files`: an `-X` file's bytes (in `pats`, and
/// given as standard input), and du's arguments, on a tree with names
/// that start or end with a blank.
fn check_exclude_file(case: (&[u8], &[&str])) {
    let (text, args) = case;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    build_tree(root);
    for name in ["e/ lead", "e/trail ", "e/ ", "e/tab\t"] {
        fs::write(root.join("t").join(name), b"blank").unwrap();
    }
    fs::write(root.join("pats"), text).unwrap();
    let with_input = |mut c: Command| {
        c.stdin(fs::File::open(root.join("pats")).unwrap());
        c
    };
    let g = run(with_input(gnu(root, args)), false);
    let d = run(with_input(dents(root, args)), false);
    same_runs(&g, &d, args, false);
}

test_cases! {
/// `-X FILE` read as GNU du reads it (gnulib's `add_exclude_file`):
/// trailing whitespace and CR dropped, blank lines skipped, a NUL ends
/// a pattern, `-` is standard input.
mod exclude_files: (&[u8], &[&str]) => check_exclude_file;
    crlf: (b"*.hidden\r\nmany1*\r\n", &["-a", "-X", "pats", "t"]),
    trailing_blanks: (b"many1* \t\nb\x0b\x0c\ntrail \n", &["-a", "-X", "pats", "t"]),
    blank_lines_skipped: (b"\n\n \n\t\nmany2*\n\r\n", &["-a", "-X", "pats", "t"]),
    leading_blank_kept: (b" lead\n", &["-a", "-X", "pats", "t"]),
    tab_in_name_not_matched: (b"tab\t\n", &["-a", "-X", "pats", "t"]),
    nul_ends_pattern: (b"many3*\0junk\nb\0\n", &["-a", "-X", "pats", "t"]),
    no_final_newline: (b"*.hidden\nmany4*", &["-a", "-X", "pats", "t"]),
    standard_input: (b"many1*\r\n*.hidden\n", &["-a", "-X", "-", "t"]),
    standard_input_long: (b"many1*\n", &["-a", "--exclude-from=-", "t"]),
    standard_input_twice: (b"many1*\n", &["-a", "-X", "-", "-X", "-", "t"]),
    standard_input_and_files0_from: (b"t\0", &["-X", "-", "--files0-from=-"]),
    a_directory: (b"", &["-X", "t", "t"]),
}

/// One case of `block_sizes`: the value given to GNU du and dents du in
/// each of `DU_BLOCK_SIZE`, `BLOCK_SIZE`, `BLOCKSIZE` (which du never
/// refuses: it keeps what it could read), with `POSIXLY_CORRECT` too,
/// and as `-B` and `--block-size=` (refused as GNU refuses them).
fn check_block_size(value: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    build_tree(root);
    let v = value.as_bytes();
    for var in ["DU_BLOCK_SIZE", "BLOCK_SIZE", "BLOCKSIZE"] {
        let what = format!("{var}={value:?}");
        let g = run_env(gnu(root, &["-c", "t"]), false, Some((var, v)));
        let d = run_env(dents(root, &["-c", "t"]), false, Some((var, v)));
        same_runs(&g, &d, &[&what], false);
    }
    let posix = |mut c: Command| {
        c.env("POSIXLY_CORRECT", "1");
        c
    };
    let g = run_env(posix(gnu(root, &["t"])), false, Some(("BLOCK_SIZE", v)));
    let d = run_env(posix(dents(root, &["t"])), false, Some(("BLOCK_SIZE", v)));
    same_runs(
        &g,
        &d,
        &["POSIXLY_CORRECT=1", &format!("BLOCK_SIZE={value:?}")],
        false,
    );
    let long = format!("--block-size={value}");
    for args in [&["-B", value, "t"][..], &[&long, "t"]] {
        same(root, args);
    }
}

test_cases! {
/// Block sizes as GNU du 9.1 reads them (gnulib's `human_options`): a
/// number with junk after it is kept, suffix and all; an overflow is
/// 2^64 - 1; no number, or 0, is the default.  `-B` refuses all but the
/// clean ones, each with its message.
mod block_sizes: &str => check_block_size;
    junk_after_number: "2x",
    junk_after_suffix: "3kx",
    unknown_letter: "3q",
    overflow: "99999999999999999999",
    overflow_by_suffix: "1Y",
    overflow_then_junk: "99999999999999999999x",
    largest: "18446744073709551615",
    largest_times_k: "18446744073709551615K",
    decimal_point: "1.5K",
    lowercase_e: "1e3",
    lowercase_p: "1p",
    suffix_q: "1Q",
    suffix_r: "1R",
    suffix_b_not_allowed: "1b",
    exbi: "1E",
    exa: "1EB",
    zero: "0",
    zero_zero: "00",
    minus_one: "-1",
    minus_zero: "-0",
    letter_x: "x",
    empty: "",
    blank: " ",
    leading_blank: " 5",
    trailing_blank: "1 ",
    plus: "+5",
    hex: "0x10",
    hex_prefix_alone: "0x",
    octal: "010",
    octal_bad_digit: "08",
    kibi_incomplete: "2Ki",
    kibi_then_junk: "2KiBx",
    kilo_b: "2kB",
    kilo_d: "2KD",
    letter_alone: "K",
    letter_kb_alone: "KB",
    letter_kib_alone: "KiB",
    letter_then_junk: "kx",
    human_readable: "human-readable",
    human_prefix: "human",
    human_h: "h",
    si: "si",
    si_s: "s",
    quote_one: "'1",
    quote_alone: "'",
    quote_human: "'h",
    quote_junk: "'2x",
}

/// One case of `max_depths`: `du -d VALUE t` and `--max-depth=VALUE`.
fn check_max_depth(value: &str) {
    let tmp = tempfile::tempdir().unwrap();
    build_tree(tmp.path());
    let long = format!("--max-depth={value}");
    for args in [
        &["-d", value, "t"][..],
        &[&long, "t"],
        &["-s", "-d", value, "t"],
    ] {
        same(tmp.path(), args);
    }
}

test_cases! {
/// `--max-depth` as GNU du 9.1 reads it (`xstrtoumax`, base 0, up to
/// `SIZE_MAX`; a `-` refused, `-0` too).
mod max_depths: &str => check_max_depth;
    zero: "0",
    minus_zero: "-0",
    minus_one: "-1",
    plus_one: "+1",
    blank_one: " 1",
    hex: "0x1",
    octal: "010",
    octal_bad_digit: "08",
    above_i64: "9223372036854775808",
    largest: "18446744073709551615",
    too_large: "18446744073709551616",
    suffix: "1k",
    trailing_blank: "1 ",
    empty: "",
}

/// One case of `environment_block_sizes`: `du t` with one variable set,
/// the lines (sorted) as GNU's.
fn check_environment_block_size(case: (&str, &str)) {
    let (var, val) = case;
    let tmp = tempfile::tempdir().unwrap();
    build_tree(tmp.path());
    let mut g = gnu(tmp.path(), &["t"]);
    let mut d = dents(tmp.path(), &["t"]);
    let gr = {
        g.env(var, val);
        let mut c = g;
        c.env("LC_ALL", "C");
        c.output().unwrap()
    };
    let dr = {
        d.env(var, val);
        d.env("LC_ALL", "C");
        d.output().unwrap()
    };
    let sorted = |o: &[u8]| {
        let mut v: Vec<&[u8]> = o.split(|&c| c == b'\n').collect();
        v.sort();
        v.concat()
    };
    assert_eq!(sorted(&dr.stdout), sorted(&gr.stdout), "{var}={val}");
}

test_cases! {
/// The block size from the environment.
mod environment_block_sizes: (&str, &str) => check_environment_block_size;
    block_size_human_readable: ("BLOCK_SIZE", "human-readable"),
    block_size_1m: ("BLOCK_SIZE", "1M"),
    du_block_size_si: ("DU_BLOCK_SIZE", "si"),
    blocksize_512: ("BLOCKSIZE", "512"),
    posixly_correct: ("POSIXLY_CORRECT", "1"),
    block_size_thousands_separators: ("BLOCK_SIZE", "'1"),
}

/// `h/d`: a 50 KB file with six links, and a file with one.
fn build_links_in_one_directory(root: &Path) {
    let t = root.join("h");
    fs::create_dir_all(t.join("d")).unwrap();
    fs::write(t.join("d/orig"), vec![1u8; 50_000]).unwrap();
    for i in 0..5 {
        fs::hard_link(t.join("d/orig"), t.join(format!("d/link{i}"))).unwrap();
    }
    fs::write(t.join("d/single"), vec![1u8; 9000]).unwrap();
}

/// One case of `links_in_one_directory`: `du ARGS` on
/// [`build_links_in_one_directory`]'s tree.
fn check_links_in_one_directory(args: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    build_links_in_one_directory(tmp.path());
    same(tmp.path(), args);
}

test_cases! {
/// Hard links: counted once, by (dev, ino), only for link counts above
/// 1.  Without -a the lines do not depend on which link is seen first.
mod links_in_one_directory: &[&str] => check_links_in_one_directory;
    plain: &["h"],
    summarize: &["-s", "h"],
    count_links: &["-l", "h"],
    count_links_all: &["-la", "h"],
    inodes: &["--inodes", "h"],
    bytes: &["-b", "h"],
}

/// With -a exactly one of a file's links is listed (GNU: the first seen).
#[test]
fn hard_links_inside_one_directory() {
    let tmp = tempfile::tempdir().unwrap();
    build_links_in_one_directory(tmp.path());
    let d = run(dents(tmp.path(), &["-a", "h"]), false);
    let links = d.lines.iter().filter(|l| {
        let p = path_of(l, false);
        p.starts_with(b"h/d/orig") || p.starts_with(b"h/d/link")
    });
    assert_eq!(links.count(), 1, "{:?}", d.lines);
}

/// `backup.1` and `backup.2`, sharing most of their files by hard
/// links, as rsnapshot's copies do, and a link of one in `backup.2/y`.
fn build_shared_backups(root: &Path) {
    for d in ["backup.1/x", "backup.2/x", "backup.2/y"] {
        fs::create_dir_all(root.join(d)).unwrap();
    }
    for i in 0..30 {
        let a = root.join(format!("backup.1/x/f{i}"));
        fs::write(&a, vec![7u8; 1000 * (i + 1)]).unwrap();
        // backup.2 shares most files with backup.1, as rsnapshot does.
        if i % 3 != 0 {
            fs::hard_link(&a, root.join(format!("backup.2/x/f{i}"))).unwrap();
        } else {
            fs::write(root.join(format!("backup.2/x/f{i}")), vec![8u8; 500]).unwrap();
        }
    }
    fs::hard_link(root.join("backup.1/x/f1"), root.join("backup.2/y/again")).unwrap();
}

/// One case of `links_across_arguments`: `du ARGS` on
/// [`build_shared_backups`]'s tree.
fn check_links_across_arguments(args: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    build_shared_backups(tmp.path());
    same(tmp.path(), args);
}

test_cases! {
/// Arguments are walked one after the other: exact lines.
mod links_across_arguments: &[&str] => check_links_across_arguments;
    summarize: &["-s", "backup.1", "backup.2"],
    summarize_reversed: &["-s", "backup.2", "backup.1"],
    plain: &["backup.1", "backup.2"],
    total: &["-c", "backup.1", "backup.2"],
    summarize_count_links: &["-sl", "backup.1", "backup.2"],
    summarize_inodes: &["-s", "--inodes", "backup.1", "backup.2"],
    time_all: &["--time", "--time-style=full-iso", "-a", "backup.1", "backup.2"],
    // One argument: each shared inode charged to its first link in
    // GNU's order, met once or twice (provisional charges moved).
    one_argument_all: &["-a", "."],
    one_argument_separate_dirs: &["-S", "."],
    one_argument_time_all: &["-a", "--time", "--time-style=full-iso", "."],
}

#[test]
fn hard_links_across_directories_and_arguments() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    build_shared_backups(root);
    // Inside one argument, which directory holds a shared inode depends on
    // the walk's order; the argument's total must not.
    same(root, &["-s", "."]);
    same(root, &["-sc", "."]);
    let d = run(dents(root, &["-a", "-b", "backup.2"]), false);
    let listed: usize = d
        .lines
        .iter()
        .filter(|l| {
            path_of(l, false).starts_with(b"backup.2/")
                && !l.ends_with(b"/x")
                && !l.ends_with(b"/y")
        })
        .count();
    // 30 files in x plus `again`, which shares f1's inode: 30 lines.
    assert_eq!(listed, 30, "{:?}", d.lines);
}

/// One case of `symlink_loops`: `du ARGS` on a tree whose symlinks
/// lead back up it, and one to itself.
fn check_symlink_loops(args: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::create_dir_all(root.join("l/a/b")).unwrap();
    fs::write(root.join("l/a/file"), b"abc").unwrap();
    symlink("..", root.join("l/a/b/up")).unwrap();
    symlink("../..", root.join("l/a/b/upup")).unwrap();
    symlink("self", root.join("l/self")).unwrap();
    same(root, args);
}

test_cases! {
/// Symlink loops, followed under `-L`.
mod symlink_loops: &[&str] => check_symlink_loops;
    plain: &["l"],
    dereference: &["-L", "l"],
    dereference_all: &["-La", "l"],
    dereference_summarize: &["-Ls", "l"],
    dereference_count_links: &["-L", "-l", "l"],
    all_dereference_bytes: &["-aL", "-b", "l"],
}

/// A dangling link named as an argument under `-D`, `-H` or `-L` after a
/// directory whose walk counted the link itself: GNU says it cannot
/// access it each time it is named (status 1); dents skipped it as
/// already counted, silently, with status 0 (found by the du fuzz test,
/// seed 7).
fn check_dangling_argument(args: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::create_dir_all(root.join("t/sub")).unwrap();
    fs::write(root.join("t/f"), b"abc").unwrap();
    symlink("nowhere", root.join("t/broken")).unwrap();
    same(root, args);
}

dents_testfs::test_cases! {
    /// One test per command line.
    mod dangling_arguments: &[&str] => check_dangling_argument;
    after_its_directory: &["-D", "t", "t/broken"],
    after_its_directory_dereferenced: &["-L", "t", "t/broken"],
    named_twice: &["-D", "t", "t/broken", "t/broken"],
    summarized: &["-sL", "t", "t/broken"],
    alone: &["-H", "t/broken"],
    before_its_directory: &["-H", "t/broken", "t"],
}

/// One case of `unreadable_directories`: `du ARGS` as nobody on a tree
/// with unreadable directories: message, status 1, sizes of the rest (and the
/// directory's own) still counted.  As an unprivileged user (root reads
/// everything).
fn check_unreadable_directories(args: &[&str]) {
    if !dents_testfs::needs_root("cannot switch to another user with setpriv") {
        return;
    }
    if Command::new("setpriv").arg("--version").output().is_err() {
        return dents_testfs::skip("setpriv not found");
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::set_permissions(root, fs::Permissions::from_mode(0o755)).unwrap();
    build_tree(root);
    fs::create_dir_all(root.join("t/locked/inner")).unwrap();
    fs::write(root.join("t/locked/inner/x"), b"x").unwrap();
    fs::set_permissions(root.join("t/locked"), fs::Permissions::from_mode(0o000)).unwrap();
    fs::create_dir_all(root.join("t/noexec")).unwrap();
    fs::write(root.join("t/noexec/y"), b"y").unwrap();
    fs::set_permissions(root.join("t/noexec"), fs::Permissions::from_mode(0o644)).unwrap();
    let as_nobody = |mut c: Command| {
        let mut w = Command::new("setpriv");
        w.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
        w.arg(c.get_program()).args(c.get_args());
        if let Some(d) = c.get_current_dir() {
            w.current_dir(d);
        }
        let _ = &mut c;
        w
    };
    let g = run(as_nobody(gnu(root, args)), false);
    let d = run(as_nobody(dents(root, args)), false);
    let mut gl = g.lines.clone();
    let mut dl = d.lines.clone();
    gl.sort();
    dl.sort();
    assert_post_order(&d.lines, false);
    assert_eq!(dl, gl, "lines of du {args:?}");
    assert_eq!(d.stderr, g.stderr, "messages of du {args:?}");
    assert_eq!(d.status, g.status, "status of du {args:?}");
    assert_eq!(d.status, 1);
}

test_cases! {
/// Unreadable directories, as nobody.
mod unreadable_directories: &[&str] => check_unreadable_directories;
    plain: &["t"],
    summarize: &["-s", "t"],
    summarize_total_two_arguments: &["-sc", "t", "t/e"],
    all: &["-a", "t"],
    the_locked_directory_itself: &["t/locked"],
}

/// The same differential on real filesystems of each kind.
#[test]
fn loop_filesystems() {
    for kind in [
        FsKind::Ext4,
        FsKind::Ext4NoFiletype,
        FsKind::Xfs,
        FsKind::Btrfs,
        FsKind::Tmpfs,
    ] {
        let Some(fs_) = LoopFs::new_or_skip(kind, 300) else {
            continue;
        };
        let root = fs_.path();
        build_tree(root);
        // A directory big enough to be read in slices.
        let big = root.join("t/big");
        fs::create_dir(&big).unwrap();
        dents_testfs::fill_flat(&big, 30_000, |i| format!("f{i:06}"));
        fs::write(big.join("f000007"), vec![3u8; 10_000]).unwrap();
        for args in [
            &["t"][..],
            &["-a", "t"],
            &["-sh", "t"],
            &["-b", "t"],
            &["--inodes", "t"],
            &["-sxc", "t"],
            &["-ahd2", "t"],
        ] {
            same(root, args);
        }
        drop(fs_);
    }
}

/// An ncdu export flattened to its entries' (path, asize, dsize, hlnkc,
/// read_error, excluded), sorted, one a line (Python's json): exports of one tree
/// compare equal whatever their order and the fields each tool adds.
fn flat_export(p: &Path) -> String {
    const FLATTEN: &str = r#"
import json, sys
def excluded_dev(info):
    return info.get("dev") if "excluded" in info else None
def walk(d, pre, out):
    info = d[0]
    p = pre + "/" + info["name"] if pre is not None else ""
    out.append((p, info.get("asize", 0), info.get("dsize", 0), info.get("hlnkc", False), info.get("read_error", False), info.get("excluded"), excluded_dev(info)))
    for item in d[1:]:
        if isinstance(item, list):
            walk(item, p, out)
        else:
            out.append((p + "/" + item["name"], item.get("asize", 0), item.get("dsize", 0), item.get("hlnkc", False), False, item.get("excluded"), excluded_dev(item)))
out = []
walk(json.load(open(sys.argv[1], encoding="utf-8", errors="surrogateescape"))[3], None, out)
for o in sorted(out): print(o)
"#;
    let o = Command::new("python3")
        .arg("-c")
        .arg(FLATTEN)
        .arg(p)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// Directories that cannot be read, in the export: `"read_error":true`
/// and no items, as in ncdu's own export of the tree (both run as
/// nobody); the rest of the tree the same.
#[test]
fn export_marks_unreadable_directories_as_ncdu_does() {
    if !dents_testfs::cli::have_program("ncdu", "-v")
        || !dents_testfs::cli::have_program("python3", "-V")
    {
        return dents_testfs::skip("ncdu or python3 missing (apt-get install ncdu)");
    }
    if !dents_testfs::is_root() {
        return dents_testfs::skip("not root: cannot switch to nobody with setpriv");
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::set_permissions(root, fs::Permissions::from_mode(0o777)).unwrap();
    build_tree(root);
    for d in ["t/locked", "t/a/also-locked"] {
        fs::create_dir_all(root.join(d).join("inner")).unwrap();
        fs::write(root.join(d).join("inner/x"), b"x").unwrap();
        fs::set_permissions(root.join(d), fs::Permissions::from_mode(0o000)).unwrap();
    }
    let ours = root.join("dents.json");
    let theirs = root.join("ncdu.json");
    let st = dents_testfs::cli::as_nobody(dents(root, &["-s", "-o", ours.to_str().unwrap(), "t"]))
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(1), "{st:?}");
    let mut ncdu = Command::new("ncdu");
    ncdu.args(["--ignore-config", "-o"])
        .arg(&theirs)
        .arg(root.join("t"))
        .env("HOME", root);
    let st = dents_testfs::cli::as_nobody(ncdu).output().unwrap();
    assert!(st.status.success(), "ncdu -o: {st:?}");
    let (d, n) = (flat_export(&ours), flat_export(&theirs));
    assert_eq!(
        d.lines()
            .filter(|l| l.ends_with("True, None, None)"))
            .count(),
        2,
        "{d}"
    );
    assert_eq!(d, n, "dents's export vs ncdu's, as nobody");
}

/// `ncdu -o FILE` of `root/arg` (HOME in `root`), as nobody if asked.
fn ncdu_export(root: &Path, file: &Path, args: &[&str], arg: &str, nobody: bool) {
    let mut ncdu = Command::new("ncdu");
    ncdu.arg("--ignore-config")
        .args(args)
        .arg("-o")
        .arg(file)
        .arg(root.join(arg))
        .env("HOME", root);
    let st = if nobody {
        dents_testfs::cli::as_nobody(ncdu).output().unwrap()
    } else {
        ncdu.output().unwrap()
    };
    assert!(st.status.success(), "ncdu -o: {st:?}");
}

/// A directory that can be read but not searched (mode 666): its names
/// are read, none can be stat'ed; ncdu (which changes into it) marks it
/// `"read_error":true`, and so does the export (both run as nobody).
#[test]
fn export_marks_unsearchable_directories_as_ncdu_does() {
    if !dents_testfs::cli::have_program("ncdu", "-v")
        || !dents_testfs::cli::have_program("python3", "-V")
    {
        return dents_testfs::skip("ncdu or python3 missing (apt-get install ncdu)");
    }
    if !dents_testfs::needs_root("setpriv switches to nobody") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::set_permissions(root, fs::Permissions::from_mode(0o777)).unwrap();
    build_tree(root);
    let d = root.join("t/a/unsearchable");
    fs::create_dir_all(d.join("sub")).unwrap();
    fs::write(d.join("f"), b"x").unwrap();
    fs::set_permissions(&d, fs::Permissions::from_mode(0o666)).unwrap();
    let ours = root.join("dents.json");
    let theirs = root.join("ncdu.json");
    let st = dents_testfs::cli::as_nobody(dents(root, &["-s", "-o", ours.to_str().unwrap(), "t"]))
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(1), "{st:?}");
    ncdu_export(root, &theirs, &[], "t", true);
    let (d, n) = (flat_export(&ours), flat_export(&theirs));
    assert!(
        d.contains("'/a/unsearchable', 4096, 4096, False, True, None, None)"),
        "{d}"
    );
    assert_eq!(d, n, "dents's export vs ncdu's, as nobody");
}

/// What `--exclude` and `-x` leave out is in the export, marked as ncdu
/// marks it (`"excluded":"pattern"`, `"excluded":"othfs"`), and ncdu
/// imports it.
#[test]
fn export_lists_excluded_entries_as_ncdu_does() {
    if !dents_testfs::cli::have_program("ncdu", "-v")
        || !dents_testfs::cli::have_program("python3", "-V")
    {
        return dents_testfs::skip("ncdu or python3 missing (apt-get install ncdu)");
    }
    if !dents_testfs::needs_root("a tmpfs is mounted in the tree for -x") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    build_tree(root);
    fs::create_dir_all(root.join("t/a/skipme/deep")).unwrap();
    fs::write(root.join("t/a/skipme/deep/f"), b"x").unwrap();
    fs::write(root.join("t/e/x.log"), b"log").unwrap();
    let mnt = root.join("t/mnt");
    fs::create_dir(&mnt).unwrap();
    /// Unmounts the tmpfs however the test ends.
    struct Mounted<'a>(&'a Path);
    impl Drop for Mounted<'_> {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(self.0).status();
        }
    }
    let st = Command::new("mount")
        .args(["-t", "tmpfs", "none"])
        .arg(&mnt)
        .status()
        .unwrap();
    assert!(st.success(), "mount -t tmpfs");
    let _m = Mounted(&mnt);
    fs::create_dir(mnt.join("in")).unwrap();
    fs::write(mnt.join("in/f"), b"x").unwrap();
    let args = ["-x", "--exclude", "skipme", "--exclude", "*.log"];
    let ours = root.join("dents.json");
    let theirs = root.join("ncdu.json");
    let mut a = args.to_vec();
    a.extend(["-s", "-o", ours.to_str().unwrap(), "t"]);
    let st = dents(root, &a).output().unwrap();
    assert!(st.status.success(), "{st:?}");
    ncdu_export(root, &theirs, &args, "t", false);
    let (d, n) = (flat_export(&ours), flat_export(&theirs));
    for want in [
        "'/a/skipme', 0, 0, False, False, 'pattern', 0)",
        "'/e/x.log', 0, 0, False, False, 'pattern', 0)",
        "'/mnt', 0, 0, False, False, 'othfs', ",
    ] {
        assert!(d.contains(want), "{want} in {d}");
    }
    assert_eq!(d, n, "dents's export vs ncdu's");
    // ncdu takes the file and writes back what it writes back of its
    // own (ncdu 1.18 re-exports "othfs" as "pattern").
    let reexport = |from: &Path, to: &Path| {
        let st = Command::new("ncdu")
            .arg("-f")
            .arg(from)
            .arg("-o")
            .arg(to)
            .output()
            .unwrap();
        assert!(st.status.success(), "ncdu -f: {st:?}");
        flat_export(to)
    };
    assert_eq!(
        reexport(&ours, &root.join("back.json")),
        reexport(&theirs, &root.join("back-ncdu.json")),
        "ncdu's re-export of dents's export vs of its own"
    );
}

/// An argument that cannot be stat'ed: GNU's message and status, and the
/// export file left as ncdu leaves it (empty), never a half document.
#[test]
fn export_of_a_missing_argument() {
    if !dents_testfs::cli::have_program("ncdu", "-v") {
        return dents_testfs::skip("ncdu missing (apt-get install ncdu)");
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let ours = root.join("dents.json");
    let theirs = root.join("ncdu.json");
    let d = run(
        dents(root, &["-o", ours.to_str().unwrap(), "missing"]),
        false,
    );
    let g = run(gnu(root, &["missing"]), false);
    assert_eq!((d.stderr, d.status), (g.stderr, g.status));
    let st = Command::new("ncdu")
        .arg("--ignore-config")
        .arg("-o")
        .arg(&theirs)
        .arg(root.join("missing"))
        .env("HOME", root)
        .output()
        .unwrap();
    let (o, t) = (fs::read(&ours).unwrap(), fs::read(&theirs).unwrap());
    assert_eq!(
        String::from_utf8_lossy(&o),
        String::from_utf8_lossy(&t),
        "dents's export vs ncdu's ({st:?})"
    );
}

/// ncdu and gdu import the export: ncdu re-exports it as it exports the
/// tree itself; gdu shows the same top-level sizes.
#[test]
fn ncdu_and_gdu_import_the_export() {
    let have = |p: &str| {
        Command::new(p).arg("--version").output().is_ok()
            || Command::new(p).arg("-v").output().is_ok()
    };
    if !have("ncdu") || !have("gdu") || !have("python3") {
        return dents_testfs::skip("ncdu, gdu or python3 missing (apt-get install ncdu gdu)");
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    build_tree(root);
    fs::hard_link(root.join("t/e/many03"), root.join("t/e/hl")).unwrap();
    fs::write(root.join("t/a/q\"uo\\te\n"), b"1").unwrap();
    let ours = root.join("dents.json");
    let st = dents(root, &["-s", "-o", ours.to_str().unwrap(), "t"])
        .output()
        .unwrap();
    assert!(st.status.success(), "{st:?}");
    // ncdu reads ours and writes it back; ncdu scans the tree itself.
    let back = root.join("back.json");
    let st = Command::new("ncdu")
        .arg("-f")
        .arg(&ours)
        .arg("-o")
        .arg(&back)
        .output()
        .unwrap();
    assert!(st.status.success(), "ncdu -f: {st:?}");
    let theirs = root.join("ncdu.json");
    let st = Command::new("ncdu")
        .arg("-o")
        .arg(&theirs)
        .arg(root.join("t"))
        .output()
        .unwrap();
    assert!(st.status.success(), "ncdu -o: {st:?}");
    let (b, t) = (flat_export(&back), flat_export(&theirs));
    assert!(b.lines().count() > 60, "{b}");
    assert_eq!(b, t, "ncdu's re-export of dents's export vs ncdu's own");
    // gdu: the same listing from the export as from its own scan.
    let g1 = Command::new("gdu")
        .args(["-n", "-p", "-f"])
        .arg(&ours)
        .output()
        .unwrap();
    let g2 = Command::new("gdu")
        .args(["-n", "-p"])
        .arg(root.join("t"))
        .output()
        .unwrap();
    assert!(g1.status.success(), "gdu -f: {g1:?}");
    let sorted = |o: &[u8]| {
        let mut v: Vec<String> = String::from_utf8_lossy(o)
            .lines()
            .map(str::to_owned)
            .collect();
        v.sort();
        v
    };
    assert!(!g1.stdout.is_empty());
    assert_eq!(
        sorted(&g1.stdout),
        sorted(&g2.stdout),
        "gdu -f vs gdu's own scan"
    );
}

/// Entries created and removed during the walk: no crash, no line twice,
/// the untouched subtree's lines exact.
#[test]
fn concurrent_mutation() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    build_tree(&root);
    fs::create_dir(root.join("t/churn")).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let churn = {
        let stop = stop.clone();
        let dir = root.join("t/churn");
        std::thread::spawn(move || {
            let mut i = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let d = dir.join(format!("d{}", i % 20));
                let _ = fs::create_dir_all(d.join("sub"));
                let _ = fs::write(d.join(format!("f{i}")), b"data");
                if i % 3 == 0 {
                    let _ = fs::remove_dir_all(dir.join(format!("d{}", (i + 7) % 20)));
                }
                i += 1;
            }
        })
    };
    let expected = run(gnu(&root, &["-a", "t/a", "t/e"]), false);
    for _ in 0..20 {
        let d = run(dents(&root, &["-a", "t"]), false);
        assert!(d.status == 0 || d.status == 1, "{d:?}");
        for l in d.stderr.lines() {
            assert!(
                l.starts_with("du: cannot access") || l.starts_with("du: cannot read directory"),
                "{l}"
            );
        }
        assert_post_order(&d.lines, false);
        let mut paths: Vec<&[u8]> = d.lines.iter().map(|l| path_of(l, false)).collect();
        paths.sort();
        let n = paths.len();
        paths.dedup();
        assert_eq!(paths.len(), n, "a path printed twice");
        for l in &expected.lines {
            assert!(
                d.lines.contains(l),
                "{:?} missing",
                String::from_utf8_lossy(l)
            );
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    churn.join().unwrap();
}

/// The status line on a terminal (stderr a pseudo-terminal from
/// `script`): entries, directories and the bytes summed so far, on
/// stderr only, once the scan has run a second; never in the lines.
#[test]
fn status_line_counts_entries_and_bytes() {
    if Command::new("script").arg("--version").output().is_err() {
        dents_testfs::skip("util-linux script is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("t");
    fs::create_dir(&t).unwrap();
    for d in 0..10 {
        let dir = t.join(format!("d{d}"));
        fs::create_dir(&dir).unwrap();
        for f in 0..800 {
            fs::write(dir.join(format!("file-with-a-longish-name-{f:04}")), b"x").unwrap();
        }
    }
    // About 400 KiB of lines into a pipe read only after 1.5 s: the scan
    // waits on the full pipe, so it outlasts the status line's delay.
    let log = tmp.path().join("typescript");
    let status = Command::new("script")
        .args(["-q", "-e", "-c"])
        .arg("\"$DENTS\" du -a -j1 t | (sleep 1.5; cat > out)")
        .arg(&log)
        .current_dir(tmp.path())
        .env("DENTS", env!("CARGO_BIN_EXE_dents"))
        .env("TERM", "xterm")
        .env("LC_ALL", "C")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let tty = String::from_utf8_lossy(&fs::read(&log).unwrap()).into_owned();
    // "N entries, N dirs, SIZE" with SIZE as indicatif's HumanBytes
    // writes it ("12 B", "1.50 MiB").
    let shown = tty.split(" dirs, ").skip(1).any(|rest| {
        let size: String = rest.chars().take_while(|&c| c != ',' && c != ' ').collect();
        let unit: String = rest[size.len()..].chars().skip(1).take(3).collect();
        size.parse::<f64>().is_ok() && (unit.starts_with("B") || unit.ends_with("iB"))
    });
    assert!(
        tty.contains(" entries, ") && shown,
        "no status line with bytes in:\n{tty:?}"
    );
    let out = fs::read(tmp.path().join("out")).unwrap();
    assert!(!out.windows(8).any(|w| w == b" entries"));
    let plain = run(dents(tmp.path(), &["-a", "t"]), false);
    let mut got: Vec<&[u8]> = out
        .split(|&c| c == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    got.sort();
    let mut want: Vec<&[u8]> = plain.lines.iter().map(|l| l.as_slice()).collect();
    want.sort();
    assert_eq!(got, want);
}

/// A directory with a corrupt block (a zeroed leaf in the middle of its
/// hash order, on ext4: reading it fails part way with `EBADMSG`), as a
/// failing disk leaves one.  GNU du reads up to the bad block and says
/// `du: DIR: Bad message` (a directory read part way; "cannot read
/// directory" is for one that gave nothing); dents du says the same, with
/// the same status, prints every line GNU prints (its slices read past
/// the bad block too, so it may print more: nothing GNU saw is lost) and
/// none twice, and its export marks the directory `read_error`.  GNU find
/// and `dents find` alike.
#[test]
fn a_directory_with_a_corrupt_block() {
    let Some(fs) = LoopFs::new_or_skip(FsKind::Ext4, 200) else {
        return;
    };
    let root = fs.path();
    fs.build_corrupt_dir_tree();
    let once = |lines: &[Vec<u8>]| {
        let mut l = lines.to_vec();
        l.sort();
        let n = l.len();
        l.dedup();
        assert_eq!(l.len(), n, "a line printed twice");
        l
    };
    let g = run(gnu(root, &["-a", "."]), false);
    assert_eq!(g.stderr, "du: ./big: Bad message", "GNU du's own words");
    assert_eq!(g.status, 1);
    let gnu_lines = once(&g.lines);
    assert!(
        gnu_lines.len() > 3 && gnu_lines.len() < 40_000,
        "GNU read part of it"
    );
    let d = run(dents(root, &["-a", "."]), false);
    assert_eq!(d.status, 1, "{}", d.stderr);
    assert_eq!(d.stderr, g.stderr, "one message, GNU's");
    let ours = once(&d.lines);
    let lost: Vec<_> = gnu_lines
        .iter()
        .filter(|l| ours.binary_search(l).is_err())
        .collect();
    assert!(
        lost.is_empty(),
        "{} of GNU's lines missing: {:?}",
        lost.len(),
        &lost[..lost.len().min(3)]
    );
    let export = tempfile::tempdir().unwrap();
    let file = export.path().join("export.json");
    let st = dents(root, &["-s", "-o", file.to_str().unwrap(), "."])
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(1));
    let json = fs::read_to_string(&file).unwrap();
    let info = dents_testfs::cli::export_info(&json, "big");
    assert!(info.contains(r#""read_error":true"#), "{info}");
    // find: GNU's message (its own, whether read part way or not), status.
    let find = |prog: &str, sub: Option<&str>| {
        let mut c = Command::new(prog);
        c.args(sub).arg(".").current_dir(root).env("LC_ALL", "C");
        c.output().unwrap()
    };
    let (gf, df) = (
        find("find", None),
        find(env!("CARGO_BIN_EXE_dents"), Some("find")),
    );
    assert_eq!(
        String::from_utf8_lossy(&gf.stderr),
        "find: './big': Bad message\n"
    );
    assert_eq!(gf.status.code(), Some(1));
    assert_eq!(df.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&df.stderr),
        "dents: './big': Bad message\n"
    );
    let gnu_paths = once(
        &gf.stdout
            .split(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect::<Vec<_>>(),
    );
    let our_paths = once(
        &df.stdout
            .split(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect::<Vec<_>>(),
    );
    assert!(
        gnu_paths.iter().all(|p| our_paths.binary_search(p).is_ok()),
        "find lost paths GNU printed"
    );
}

/// Snapshots made as backup tools make them: `daily.0` with 4 × 1,500
/// files, then five `cp -al daily.0 daily.N` each adding a file; and a
/// directory above fts's inode-sort threshold (10,500 entries) holding
/// 30 subdirectories that each link the same 10 files, so that which
/// subdirectory is charged depends on fts's order there (sorted by inode
/// number on ext4 and XFS, not the order `readdir` gives).
fn build_backups(root: &Path) {
    let d0 = root.join("b/daily.0");
    for d in 0..4 {
        let dir = d0.join(format!("d{d}"));
        dents_testfs::fill_flat(&dir, 1_500, |i| format!("f{i:04}"));
        for i in (0..1_500).step_by(3) {
            fs::write(dir.join(format!("f{i:04}")), vec![b'x'; 100 + i]).unwrap();
        }
    }
    for n in 1..=5 {
        dents_testfs::cli::run_ok(
            Command::new("cp")
                .arg("-al")
                .arg(&d0)
                .arg(root.join(format!("b/daily.{n}"))),
        );
        fs::write(root.join(format!("b/daily.{n}/new{n}")), format!("x{n}\n")).unwrap();
    }
    let big = root.join("b/big");
    dents_testfs::fill_flat(&big, 10_500, |i| format!("e{i:05}"));
    for i in 0..10 {
        fs::write(big.join(format!("orig{i}")), vec![b'y'; 5000]).unwrap();
    }
    for s in 0..30 {
        let sub = big.join(format!("sub{s:02}"));
        fs::create_dir(&sub).unwrap();
        for i in 0..10 {
            fs::hard_link(big.join(format!("orig{i}")), sub.join(format!("l{i}"))).unwrap();
        }
    }
}

/// Each shared inode charged to its first link in GNU du's order, on
/// every run and at any number of workers: the snapshots' lines (`-d 1`,
/// `-a`, `-S -d 2`, `--inodes -a`) are GNU's, twenty runs each at -j 1,
/// 2 and 8; and the export is ncdu's.
fn check_backups(kind: FsKind) {
    let Some(fs_) = LoopFs::new_or_skip(kind, 400) else {
        return;
    };
    let root = fs_.path();
    build_backups(root);
    for args in [
        &["-d", "1", "b"][..],
        &["-a", "b"],
        &["-S", "-d", "2", "b"],
        &["--inodes", "-a", "b"],
    ] {
        let mut g = run(gnu(root, args), false);
        assert_eq!(g.status, 0, "GNU du {args:?}: {}", g.stderr);
        g.lines.sort();
        for j in ["1", "2", "8"] {
            for round in 0..20 {
                let mut a = vec!["-j", j];
                a.extend_from_slice(args);
                let d = run(dents(root, &a), false);
                assert_post_order(&d.lines, false);
                let mut dl = d.lines;
                dl.sort();
                if dl != g.lines {
                    let show = |v: &[Vec<u8>]| {
                        v.iter()
                            .map(|l| String::from_utf8_lossy(l).into_owned())
                            .filter(|l| !l.contains("/d") && !l.contains("/e"))
                            .collect::<Vec<_>>()
                            .join("\n")
                    };
                    assert_eq!(
                        show(&dl),
                        show(&g.lines),
                        "du {a:?} on {kind:?}, round {round} (file lines under d*/ and e* left out)"
                    );
                    panic!("du {a:?} on {kind:?}, round {round}: lines differ from GNU's");
                }
            }
        }
    }
    if dents_testfs::cli::have_program("ncdu", "-v")
        && dents_testfs::cli::have_program("python3", "-V")
    {
        let ours = root.join("dents.json");
        let theirs = root.join("ncdu.json");
        let st = dents(root, &["-s", "-o", ours.to_str().unwrap(), "b"])
            .output()
            .unwrap();
        assert!(st.status.success(), "{st:?}");
        ncdu_export(root, &theirs, &[], "b", false);
        assert_eq!(flat_export(&ours), flat_export(&theirs), "export vs ncdu's");
    } else {
        dents_testfs::skip("ncdu or python3 missing: the export part not run");
    }
}

test_cases! {
/// Hard-linked snapshots, on filesystems whose orders differ: ext4
/// (hashed), XFS, ext4 without file types.
mod backup_snapshots: dents_testfs::FsKind => check_backups;
    ext4: dents_testfs::FsKind::Ext4,
    xfs: dents_testfs::FsKind::Xfs,
    ext4_without_file_types: dents_testfs::FsKind::Ext4NoFiletype,
}

/// A file with two links in two directories at the bottom of a chain
/// deeper than `PATH_MAX` (`deep/a/.../a/X/f` and `.../a/Y/g`, 2,100
/// levels: 4,200 bytes of path), `X` the name that comes first in
/// `readdir`'s order though it sorts after `Y` by its bytes.  Built at a
/// short path and pushed down a level at a time by renames.
fn build_deep_pair(root: &Path) -> (String, String) {
    let w = root.join("w");
    fs::create_dir(&w).unwrap();
    // Made in a scrambled order, so that readdir's order (creation,
    // its reverse or a hash) is not the names' order.
    for i in [3, 7, 1, 9, 0, 5, 2, 8, 4, 6] {
        fs::create_dir(w.join(format!("n{i}"))).unwrap();
    }
    let order: Vec<String> = fs::read_dir(&w)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let (x, y) = (0..order.len())
        .flat_map(|i| (i + 1..order.len()).map(move |j| (i, j)))
        .map(|(i, j)| (order[i].clone(), order[j].clone()))
        .find(|(a, b)| a > b)
        .expect("readdir's order is not the names' order");
    fs::write(w.join(&x).join("f"), vec![b'q'; 20_000]).unwrap();
    fs::hard_link(w.join(&x).join("f"), w.join(&y).join("g")).unwrap();
    let tmp = root.join("t");
    for _ in 0..2_100 {
        fs::create_dir(&tmp).unwrap();
        fs::rename(&w, tmp.join("a")).unwrap();
        fs::rename(&tmp, &w).unwrap();
    }
    fs::rename(&w, root.join("deep")).unwrap();
    (x, y)
}

/// A hard-linked pair deeper than `PATH_MAX` is charged as GNU charges
/// it (to the link first in readdir's order), on every run at -j 1, 2
/// and 8: every line, and `-a`.  (Placing links by reopening their
/// directories by path failed there, and fell back to the names' order.)
fn check_deep_pair(kind: FsKind) {
    let Some(fs_) = LoopFs::new_or_skip(kind, 100) else {
        return;
    };
    let root = fs_.path();
    let (x, y) = build_deep_pair(root);
    for args in [&["deep"][..], &["-a", "deep"]] {
        let mut g = run(gnu(root, args), false);
        assert_eq!(g.status, 0, "GNU du {args:?}: {}", g.stderr);
        g.lines.sort();
        for j in ["1", "2", "8"] {
            for round in 0..10 {
                let mut a = vec!["-j", j];
                a.extend_from_slice(args);
                let d = run(dents(root, &a), false);
                assert_eq!(d.status, 0, "du {a:?}: {}", d.stderr);
                let mut dl = d.lines;
                dl.sort();
                if dl != g.lines {
                    // The bottom's lines, the chain's left out.
                    let show = |v: &[Vec<u8>]| {
                        v.iter()
                            .map(|l| String::from_utf8_lossy(l).into_owned())
                            .filter(|l| l.contains("/n"))
                            .map(|l| {
                                let (size, path) = l.split_once('\t').unwrap();
                                let tail = path.rsplit("/a/").next().unwrap();
                                format!("{size}\t.../{tail}")
                            })
                            .collect::<Vec<_>>()
                            .join("\n")
                    };
                    assert_eq!(
                        show(&dl),
                        show(&g.lines),
                        "du {a:?} on {kind:?}, round {round} ({x} before {y} in readdir's order)"
                    );
                    panic!("du {a:?} on {kind:?}, round {round}: lines differ from GNU's");
                }
            }
        }
    }
}

test_cases! {
/// Links deeper than `PATH_MAX`, on ext4 (hashed order) and XFS.
mod deep_hard_links: dents_testfs::FsKind => check_deep_pair;
    ext4: dents_testfs::FsKind::Ext4,
    xfs: dents_testfs::FsKind::Xfs,
}

/// Issue 30's tree for `-L`: `T/REAL/s150/s/t/tgt` holding five 5 KB
/// files, `T/B/l` and `T/C/l2` symlinks to it, 300 other directories
/// under `T/REAL` (so that the walk reaches the links before the real
/// path).  `REAL` is the name that comes first (`real_first`) or last
/// among `T`'s entries in `readdir`'s order, so that GNU charges the
/// directory at its real path, or at a link; `B` and `C` stand for the
/// two names in the middle of that order.  `to_files`: the symlinks go
/// to the file `tgt/f0` instead, and `T/B/h` is a hard link of `tgt/f1`
/// (files reached twice).  Returns REAL's name.
fn build_reached_twice(root: &Path, real_first: bool, to_files: bool) -> Vec<u8> {
    // All three names are chosen from the order `readdir` gives a
    // hundred candidates: XFS keeps a small directory in creation order,
    // but ext4 orders it by a hash of the name seeded at mkfs time, so
    // that fixed names (as this tree once had) land at an end of the
    // order in about one image in a hundred, and the tree could not be
    // built.  Removing the other candidates leaves the order of the rest
    // as it was on both.
    for c in 'D'..='W' {
        for i in 0..5 {
            fs::create_dir(root.join(format!("{c}{i}"))).unwrap();
        }
    }
    let order: Vec<String> = fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let real = if real_first {
        order[0].clone()
    } else {
        order[order.len() - 1].clone()
    };
    let (b, c) = (&order[order.len() / 2], &order[order.len() / 2 + 1]);
    for n in order.iter().filter(|n| ![&real, b, c].contains(n)) {
        fs::remove_dir(root.join(n)).unwrap();
    }
    let tgt = root.join(&real).join("s150/s/t/tgt");
    fs::create_dir_all(&tgt).unwrap();
    for i in 0..5 {
        fs::write(tgt.join(format!("f{i}")), vec![b'z'; 5000]).unwrap();
    }
    for i in 0..300 {
        fs::create_dir(root.join(&real).join(format!("x{i:03}"))).unwrap();
    }
    let link = format!("../{real}/s150/s/t/tgt");
    let (b, c) = (root.join(b), root.join(c));
    if to_files {
        symlink(format!("{link}/f0"), b.join("l")).unwrap();
        symlink(format!("{link}/f0"), c.join("l2")).unwrap();
        fs::hard_link(tgt.join("f1"), b.join("h")).unwrap();
    } else {
        symlink(&link, b.join("l")).unwrap();
        symlink(&link, c.join("l2")).unwrap();
    }
    real.into_bytes()
}

/// `du -L`: a directory reached through two symlinks and its real path
/// is charged to the first of them in GNU's order (fts's, readdir order
/// depth first), on every run at -j 1, 2 and 8: `-a`, `-d 1`, `-s`, and
/// plain, twenty runs each, GNU's lines every time.
fn check_reached_twice(kind: FsKind) {
    check_reached_twice_of(kind, false);
}

/// `du -L`: a file reached through two symlinks and its real path (and
/// one through a hard link too) is charged to the first of them in GNU's
/// order, on every run at -j 1, 2 and 8, as a directory is.
fn check_file_reached_twice(kind: FsKind) {
    check_reached_twice_of(kind, true);
}

/// [`check_reached_twice`] with links to a directory, or to files.
fn check_reached_twice_of(kind: FsKind, to_files: bool) {
    let Some(fs_) = LoopFs::new_or_skip(kind, 100) else {
        return;
    };
    for real_first in [true, false] {
        let top = if real_first { "first" } else { "last" };
        let root = fs_.path().join(top);
        fs::create_dir(&root).unwrap();
        let real = build_reached_twice(&root, real_first, to_files);
        for args in [
            &["-L", "-a"][..],
            &["-L", "-d", "1"],
            &["-L", "-s"],
            &["-L"],
        ] {
            let mut a: Vec<&str> = args.to_vec();
            a.push(".");
            let mut g = run(gnu(&root, &a), false);
            assert_eq!(g.status, 0, "GNU du {a:?}: {}", g.stderr);
            g.lines.sort();
            for j in ["1", "2", "8"] {
                for round in 0..20 {
                    let mut d_args = vec!["-j", j];
                    d_args.extend_from_slice(&a);
                    let d = run(dents(&root, &d_args), false);
                    assert_eq!(d.status, 0, "du {d_args:?}: {}", d.stderr);
                    assert_post_order(&d.lines, false);
                    let mut dl = d.lines;
                    dl.sort();
                    let show = |v: &[Vec<u8>]| {
                        v.iter()
                            .map(|l| String::from_utf8_lossy(l).into_owned())
                            .filter(|l| !l.contains("/x"))
                            .collect::<Vec<_>>()
                            .join("\n")
                    };
                    assert_eq!(
                        show(&dl),
                        show(&g.lines),
                        "du {d_args:?} on {kind:?} ({} {top}), round {round} \
                         (lines of the 300 x* directories left out)",
                        String::from_utf8_lossy(&real)
                    );
                    assert_eq!(dl, g.lines, "du {d_args:?} on {kind:?}, round {round}");
                }
            }
        }
    }
}

test_cases! {
/// A directory reached twice through symlinks under `-L`, on ext4
/// (hashed order) and XFS.
mod reached_twice_under_dereference: dents_testfs::FsKind => check_reached_twice;
    ext4: dents_testfs::FsKind::Ext4,
    xfs: dents_testfs::FsKind::Xfs,
    ext4_without_file_types: dents_testfs::FsKind::Ext4NoFiletype,
}

test_cases! {
/// A file reached twice (symlinks to it, a hard link) under `-L`, on
/// ext4 (hashed order) and XFS.
mod file_reached_twice_under_dereference: dents_testfs::FsKind => check_file_reached_twice;
    ext4: dents_testfs::FsKind::Ext4,
    xfs: dents_testfs::FsKind::Xfs,
}

/// A run's lines summed up without holding them (a 20,000-level chain's
/// `du` prints 400 MB): their number and an order-free hash.
fn line_digest(mut cmd: Command) -> (u64, u64) {
    use std::hash::{DefaultHasher, Hash, Hasher};
    use std::io::{BufRead, BufReader};
    cmd.env("LC_ALL", "C")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit());
    let mut child = cmd.spawn().unwrap();
    let mut r = BufReader::new(child.stdout.take().unwrap());
    let (mut n, mut sum) = (0u64, 0u64);
    let mut line = Vec::new();
    while r.read_until(b'\n', &mut line).unwrap() > 0 {
        let mut h = DefaultHasher::new();
        line.hash(&mut h);
        sum = sum.wrapping_add(h.finish());
        n += 1;
        line.clear();
    }
    assert!(child.wait().unwrap().success(), "{cmd:?}");
    (n, sum)
}

/// Issue 24 item 10: memory linear in the depth, not quadratic.  The
/// peak RSS of `dents du ARGS deep` on a 20,000-level chain stays under
/// 2.5 times that on a 10,000-level one (a sum keyed by its whole path
/// made it 3.9 times: 427 MB against 110), and the lines are GNU's.
fn check_deep_memory(args: &[&str]) {
    let small = dents_testfs::DeepTmp::new();
    let big = dents_testfs::DeepTmp::new();
    dents_testfs::deep_chain(small.path(), 10_000);
    dents_testfs::deep_chain(big.path(), 20_000);
    let with_out = |tmp: &Path| -> Vec<String> {
        args.iter()
            .map(|a| {
                if *a == "OUT" {
                    tmp.join("export.json").to_str().unwrap().to_owned()
                } else {
                    a.to_string()
                }
            })
            .chain(["deep".to_owned()])
            .collect()
    };
    let mut peaks = Vec::new();
    for tmp in [&small, &big] {
        let a = with_out(tmp.path());
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let Some(kib) = dents_testfs::peak_rss_kib(&dents(tmp.path(), &a)) else {
            return;
        };
        peaks.push(kib);
        if !args.contains(&"OUT") {
            assert_eq!(
                line_digest(dents(tmp.path(), &a)),
                line_digest(gnu(tmp.path(), &a)),
                "du {a:?}: lines differ from GNU's"
            );
        } else {
            // Every level, and the bottom file.
            let json = fs::read(tmp.path().join("export.json")).unwrap();
            let count = |pat: &[u8]| json.windows(pat.len()).filter(|w| *w == pat).count();
            let levels = if std::ptr::eq(tmp, &small) {
                10_000
            } else {
                20_000
            };
            assert_eq!(
                (count(b"{\"name\":\"a\","), count(b"{\"name\":\"f\",")),
                (levels, 1),
                "du {a:?}: the export's levels"
            );
        }
    }
    assert!(
        peaks[1] * 10 <= peaks[0] * 25,
        "du {args:?}: peak RSS {} KiB at 20,000 levels, {} KiB at 10,000: \
         more than 2.5 times",
        peaks[1],
        peaks[0]
    );
}

test_cases! {
/// Peak memory on chains of 10,000 and 20,000 levels (deeper than
/// `PATH_MAX`): `-s`, every line, the export (`OUT` is its file).
mod deep_memory: &'static [&'static str] => check_deep_memory;
    summary: &["-s"],
    all_lines: &[],
    export: &["-s", "-o", "OUT"],
}

/// `dents du -sl d d ...` (1,000 starting points of 20,000 files each:
/// tens of seconds of walking, its lines gathered until the end) into a
/// pipe whose reader leaves at once, as `| true`: du ends at once and
/// quietly, as its first write would end it, not at the end of the walk.
#[test]
fn closed_pipe_ends_du_before_it_writes() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    dents_testfs::fill_flat(&tmp.path().join("d"), 20_000, |i| format!("f{i:06}"));
    let mut args = vec!["-sl"];
    args.extend(vec!["d"; 1000]);
    let mut child = dents(tmp.path(), &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let bound = std::time::Duration::from_secs(2);
    let (status, _) = dents_testfs::wait_counting_reads(&mut child, bound);
    assert_eq!(
        status.and_then(|s| s.signal()),
        Some(13),
        "{status:?}: still running {bound:?} after its output was closed"
    );
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(err, "");
}
