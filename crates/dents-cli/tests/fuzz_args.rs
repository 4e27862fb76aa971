//! Fuzz tests of `dents du`'s and `dents ls`'s command lines against GNU
//! du and ls 9.1: random option lists (flags, clusters, options with good
//! and bad values, abbreviations, `--`, nonexistent paths) on the small
//! tree of `fuzz_find.rs`, from a fixed seed so that CI runs the same
//! cases every time (`DENTS_FUZZ_SEED` and `DENTS_FUZZ_CASES` to explore
//! further; the generator and runner are `common::fuzz`'s).
//!
//! A case fails on a crash (a signal, a panic), a hang (10 s), a
//! different exit status, different messages (standard error, lines
//! sorted, the program's name made GNU's), or different standard output:
//! du's lines sorted (dents walks in parallel: siblings come in the order
//! the workers finish them); ls's as they are where an order is asked,
//! sorted where dents legitimately lists unsorted (off a terminal without
//! an order: docs/conformance.md), not compared for unsorted columns.
//! Cases that touch a documented difference are skipped (see each
//! `*_documented` function).  Nothing here writes anything.

mod common;

use std::path::Path;
use std::time::Instant;

use common::fuzz::{run, run_cases, seed_and_count, shown, sorted_lines, tree, Rng};

/// Operands: files, directories, links, missing and empty names.
const PATHS: &[&str] = &[
    "t", "t/a.c", "t/d", "t/ld", "t/broken", "nosuch", "t/a.c/x", "t/", ".", "t/fifo", "", "t/l",
];

const DU_FLAGS: &[&str] = &[
    "-a",
    "-A",
    "-b",
    "-c",
    "-h",
    "-H",
    "-k",
    "-l",
    "-m",
    "-P",
    "-s",
    "-S",
    "-x",
    "-D",
    "-0",
    "--all",
    "--apparent-size",
    "--bytes",
    "--count-links",
    "--dereference-args",
    "--human-readable",
    "--inodes",
    "--si",
    "--null",
    "--no-dereference",
    "--one-file-system",
    "--separate-dirs",
    "--summarize",
    "--total",
    "--time",
    // Abbreviations.
    "--summ",
    "--app",
    "--hum",
    "--sep",
    "--one",
    "--no-d",
    "--ino",
    "--tot",
    "--coun",
    "--nu",
    "--b",
];
const DEPTHS: &[&str] = &[
    "0",
    "1",
    "2",
    "-1",
    "-0",
    "x",
    "",
    "0x1",
    "99999999999999999999",
    "18446744073709551615",
    "1k",
];
const THRESHOLDS: &[&str] = &[
    "0", "1k", "-1k", "5000", "-5000", "1Q", "x", "", "-0", "1M", "1KB", "1KiB", "2x",
];
const BLOCK_SIZES: &[&str] = &[
    "1K",
    "M",
    "KB",
    "1",
    "0",
    "x",
    "human-readable",
    "si",
    "2x",
    "h",
    "1MiB",
    "",
    "'1",
    "1e3",
];
const TIME_WORDS: &[&str] = &[
    "atime", "access", "use", "ctime", "status", "mtime", "bogus", "", "a", "s",
];
const DU_STYLES: &[&str] = &[
    "full-iso",
    "long-iso",
    "iso",
    "+%s",
    "+%Y-%m",
    "bogus",
    "",
    "locale",
    "posix-iso",
    "+%N",
];
const EXCLUDES: &[&str] = &["*.c", "d", "*", "", "x*", "[", "t/d", "a*", "?"];
const X_FILES: &[&str] = &["pats", "crlf-pats", "nosuch", "t", "-"];
const LISTS: &[&str] = &["list", "nosuch", "t", "-", "empty-list"];

/// An option with a value, in one of the ways getopt takes it.
fn with_value(r: &mut Rng, out: &mut Vec<String>, short: Option<&str>, long: &str, v: &str) {
    match (short, r.below(4)) {
        (Some(s), 0) => out.push(format!("{s}{v}")),
        (Some(s), 1) => {
            out.push(s.into());
            out.push(v.into());
        }
        (_, 2) => {
            out.push(long.into());
            out.push(v.into());
        }
        _ => out.push(format!("{long}={v}")),
    }
}

/// Appends one du option (maybe bad).
fn du_option(r: &mut Rng, out: &mut Vec<String>) {
    match r.below(20) {
        0..=5 => out.push(r.pick(DU_FLAGS).into()),
        6 => {
            // A cluster of short flags, maybe ending with one that takes
            // a value.
            let mut c = String::from("-");
            for _ in 0..2 + r.below(2) {
                c.push_str(r.pick(&["a", "c", "h", "k", "s", "S", "x", "b", "l", "0", "m"]));
            }
            if r.chance(30) {
                c.push_str(r.pick(&["d1", "d0", "t1k", "BK", "B1M"]));
            }
            out.push(c);
        }
        7 => {
            let v = r.pick(DEPTHS);
            let long = r.pick(&["--max-depth", "--max"]);
            with_value(r, out, Some("-d"), long, v);
        }
        8 => {
            let v = r.pick(THRESHOLDS);
            with_value(r, out, Some("-t"), "--threshold", v);
        }
        9 => {
            let v = r.pick(BLOCK_SIZES);
            with_value(r, out, Some("-B"), "--block-size", v);
        }
        10 => out.push(format!("--time={}", r.pick(TIME_WORDS))),
        11 => {
            let v = r.pick(DU_STYLES);
            with_value(r, out, None, "--time-style", v);
        }
        12 => {
            let v = r.pick(EXCLUDES);
            with_value(r, out, None, "--exclude", v);
        }
        13 => {
            let v = r.pick(X_FILES);
            with_value(r, out, Some("-X"), "--exclude-from", v);
        }
        14 => {
            let v = r.pick(LISTS);
            with_value(r, out, None, "--files0-from", v);
        }
        15 => out.push(
            r.pick(&[
                "-q",
                "--bogus",
                "--s",
                "--d",
                "--all=x",
                "--time-style",
                "-Y",
                "--si=1",
            ])
            .into(),
        ),
        16 => out.push(r.pick(&["--", "-"]).into()),
        // Missing its value, at the end or not.
        17 => out.push(
            r.pick(&["-d", "-t", "-B", "-X", "--max-depth", "--exclude"])
                .into(),
        ),
        _ => out.push(r.pick(PATHS).into()),
    }
}

/// A random du argument list.
fn du_case(r: &mut Rng) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..r.below(5) {
        du_option(r, &mut out);
    }
    for _ in 0..r.below(3) {
        out.push(r.pick(PATHS).into());
    }
    if r.chance(10) {
        du_option(r, &mut out);
    }
    out
}

/// Why a du case is not compared, if it touches a difference that stays.
fn du_documented(args: &[String]) -> Option<&'static str> {
    let has = |w: &str| args.iter().any(|a| a == w);
    if has("--help") || has("--version") {
        return Some("dents's own help and version texts");
    }
    None
}

/// The program's name in dents's messages made GNU's.
fn gnu_words(stderr: &[u8], tool: &str) -> Vec<String> {
    let text = String::from_utf8_lossy(stderr).replace(
        &format!("Try 'dents {tool} --help'"),
        &format!("Try '{tool} --help'"),
    );
    let mut lines: Vec<String> = text
        .lines()
        .map(|l| match l.strip_prefix("dents: ") {
            Some(rest) => format!("{tool}: {rest}"),
            None => l.to_string(),
        })
        .collect();
    lines.sort();
    lines
}

/// How standard output is compared.
#[derive(Clone, Copy, PartialEq)]
enum Compare {
    Exact,
    SortedLines,
    Not,
}

/// Compares one case of `tool` (`du` or `ls`); the problem found.
fn check(tool: &str, cwd: &Path, args: &[String], how: Compare) -> Option<String> {
    let dents = env!("CARGO_BIN_EXE_dents");
    let (d, g) = std::thread::scope(|s| {
        let d = s.spawn(|| run(&[dents, tool], cwd, args));
        let g = run(&[tool], cwd, args);
        (d.join().unwrap(), g)
    });
    let err = String::from_utf8_lossy(&d.stderr);
    let line = format!("{tool} {}", shown(args));
    if d.hung && g.hung {
        // Both wait (`-X FIFO` reads a fifo no one writes).
        return None;
    }
    if d.hung {
        return Some(format!("hang: {line}"));
    }
    if d.signal.is_some() || err.contains("panicked") {
        return Some(format!("crash ({:?}): {line}\n{err}", d.signal));
    }
    if g.signal.is_some() || g.hung {
        return None;
    }
    let (de, ge) = (gnu_words(&d.stderr, tool), gnu_words(&g.stderr, tool));
    if d.status != g.status || de != ge {
        return Some(format!(
            "status dents {:?}, GNU {:?}: {line}\n--- dents stderr\n{}\n--- GNU stderr\n{}",
            d.status,
            g.status,
            de.join("\n"),
            ge.join("\n")
        ));
    }
    let differs = match how {
        Compare::Exact => d.stdout != g.stdout,
        Compare::SortedLines => sorted_lines(&d.stdout) != sorted_lines(&g.stdout),
        Compare::Not => false,
    };
    if differs {
        return Some(format!(
            "stdout: {line}\n--- dents\n{}--- GNU\n{}",
            String::from_utf8_lossy(&d.stdout),
            String::from_utf8_lossy(&g.stdout)
        ));
    }
    None
}

/// Whether an argument is a short-option cluster holding `c`.
fn short_has(a: &str, c: char) -> bool {
    a.len() > 1 && a.starts_with('-') && !a.starts_with("--") && a.contains(c)
}

/// Writes the files the options name (`-X`, `--files0-from`) beside `t`.
fn inputs(root: &Path) {
    std::fs::write(root.join("pats"), b"*.h\nx\n\n").unwrap();
    std::fs::write(root.join("crlf-pats"), b"deeper\r\n  \r\nb.txt\r\n").unwrap();
    std::fs::write(root.join("list"), b"t/d\0t/x\0\0nosuch\0t\0").unwrap();
    std::fs::write(root.join("empty-list"), b"").unwrap();
}

/// Runs `count` cases of `make` through `check_case`, skipping those
/// `skip` names; fails with every difference found.
fn fuzz(
    tool: &str,
    default_seed: u64,
    make: fn(&mut Rng) -> Vec<String>,
    skip: fn(&[String]) -> Option<&'static str>,
    how: fn(&[String]) -> Compare,
) {
    let (seed, count) = seed_and_count(default_seed, 1500);
    let tmp = tree();
    inputs(tmp.path());
    let mut r = Rng(seed | 1);
    let cases: Vec<Vec<String>> = (0..count).map(|_| make(&mut r)).collect();
    let started = Instant::now();
    let (failures, skipped) = run_cases(&cases, skip, &|args| {
        check(tool, tmp.path(), args, how(args))
    });
    eprintln!(
        "fuzz {tool}: {count} cases (seed {seed:#x}), {skipped} skipped as documented \
         differences, {} differ, {:.1?}",
        failures.len(),
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} of {count} cases differ from GNU {tool} (seed {seed:#x}):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// du's lines sorted: the parallel walk's order of siblings is not
/// GNU's.  Not compared under `-L`: a directory reached twice through
/// symlinks (`t/ld` is `t/d`) is charged to whichever path reaches it
/// first (docs/conformance.md).
fn du_compare(args: &[String]) -> Compare {
    let operands_only = args.iter().position(|a| a == "--");
    let follows = args.iter().enumerate().any(|(i, a)| {
        !matches!(operands_only, Some(p) if i >= p) && (a == "--dereference" || short_has(a, 'L'))
    });
    if follows {
        Compare::Not
    } else {
        Compare::SortedLines
    }
}

#[test]
fn du_command_lines_against_gnu() {
    fuzz("du", 0xd0_5eed_0001, du_case, du_documented, du_compare);
}

const LS_FLAGS: &[&str] = &[
    "-a",
    "-A",
    "-f",
    "-i",
    "-F",
    "-p",
    "-C",
    "-x",
    "-m",
    "-N",
    "-b",
    "-Q",
    "-q",
    "-R",
    "-v",
    "-X",
    "-1",
    "-U",
    "-t",
    "-S",
    "-r",
    "-l",
    "-g",
    "-o",
    "-n",
    "-h",
    "-d",
    "--all",
    "--almost-all",
    "--inode",
    "--classify",
    "--file-type",
    "--literal",
    "--escape",
    "--quote-name",
    "--hide-control-chars",
    "--show-control-chars",
    "--recursive",
    "--group-directories-first",
    "--zero",
    "--reverse",
    "--numeric-uid-gid",
    "--human-readable",
    "--full-time",
    "--directory",
    "--color",
    // Abbreviations.
    "--alm",
    "--rev",
    "--rec",
    "--dir",
    "--hum",
    "--lit",
    "--esc",
    "--group-d",
    "--numeric",
    "--full",
];
const WHENS: &[&str] = &[
    "always", "never", "auto", "yes", "no", "bogus", "", "tty", "force", "if-tty", "none", "al",
];
const INDICATORS: &[&str] = &["none", "slash", "file-type", "classify", "bogus", "", "s"];
const FORMATS: &[&str] = &[
    "long",
    "verbose",
    "commas",
    "horizontal",
    "across",
    "vertical",
    "single-column",
    "bogus",
    "",
    "l",
];
const WIDTHS: &[&str] = &[
    "0",
    "1",
    "20",
    "80",
    "-1",
    "x",
    "",
    "99999999999",
    "0x10",
    "40",
];
const QUOTINGS: &[&str] = &[
    "literal",
    "shell",
    "shell-always",
    "shell-escape",
    "shell-escape-always",
    "c",
    "c-maybe",
    "escape",
    "locale",
    "clocale",
    "bogus",
    "",
    "sh",
];
const SORTS: &[&str] = &[
    "none",
    "time",
    "size",
    "extension",
    "version",
    "width",
    "bogus",
    "",
    "s",
    "t",
];
const LS_STYLES: &[&str] = &[
    "full-iso",
    "long-iso",
    "iso",
    "locale",
    "+%Y",
    "posix-iso",
    "posix-full-iso",
    "bogus",
    "",
    "+%s%n%H",
];

/// Appends one ls option (maybe bad).
fn ls_option(r: &mut Rng, out: &mut Vec<String>) {
    match r.below(20) {
        0..=6 => out.push(r.pick(LS_FLAGS).into()),
        7 => {
            let mut c = String::from("-");
            for _ in 0..2 + r.below(2) {
                c.push_str(r.pick(&["a", "l", "h", "r", "t", "S", "1", "F", "p", "i", "d", "A"]));
            }
            if r.chance(20) {
                c.push_str(r.pick(&["w20", "T4", "w0"]));
            }
            out.push(c);
        }
        8 => {
            let v = r.pick(WHENS);
            out.push(format!(
                "{}={v}",
                r.pick(&["--color", "--classify", "--colour"])
            ));
        }
        9 => {
            let v = r.pick(INDICATORS);
            with_value(r, out, None, "--indicator-style", v);
        }
        10 => {
            let v = r.pick(FORMATS);
            with_value(r, out, None, "--format", v);
        }
        11 => {
            let v = r.pick(WIDTHS);
            with_value(r, out, Some("-w"), "--width", v);
        }
        12 => {
            let v = r.pick(WIDTHS);
            with_value(r, out, Some("-T"), "--tabsize", v);
        }
        13 => {
            let v = r.pick(QUOTINGS);
            with_value(r, out, None, "--quoting-style", v);
        }
        14 => {
            let v = r.pick(SORTS);
            with_value(r, out, None, "--sort", v);
        }
        15 => {
            let v = r.pick(LS_STYLES);
            with_value(r, out, None, "--time-style", v);
        }
        16 => out.push(
            r.pick(&["-j", "--bogus", "--co", "--a", "--all=x", "-y", "--s"])
                .into(),
        ),
        17 => out.push(r.pick(&["--", "-"]).into()),
        18 => out.push(r.pick(&["-w", "-T", "--sort", "--format"]).into()),
        _ => out.push(r.pick(PATHS).into()),
    }
}

/// A random ls argument list.
fn ls_case(r: &mut Rng) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..r.below(5) {
        ls_option(r, &mut out);
    }
    for _ in 0..r.below(3) {
        out.push(r.pick(PATHS).into());
    }
    if r.chance(10) {
        ls_option(r, &mut out);
    }
    out
}

/// GNU ls 9.1's long options (those dents lacks too: abbreviations are
/// ambiguous among all of them).
const GNU_LS_LONG: &[&str] = &[
    "all",
    "almost-all",
    "author",
    "block-size",
    "escape",
    "directory",
    "dired",
    "classify",
    "file-type",
    "format",
    "full-time",
    "group-directories-first",
    "human-readable",
    "hide",
    "hide-control-chars",
    "hyperlink",
    "ignore",
    "ignore-backups",
    "indicator-style",
    "inode",
    "kibibytes",
    "literal",
    "numeric-uid-gid",
    "no-group",
    "dereference",
    "dereference-command-line",
    "dereference-command-line-symlink-to-dir",
    "quote-name",
    "quoting-style",
    "recursive",
    "reverse",
    "show-control-chars",
    "si",
    "size",
    "sort",
    "tabsize",
    "time",
    "time-style",
    "width",
    "color",
    "context",
    "zero",
    "help",
    "version",
];

/// GNU ls's long options that take no value.
const GNU_LS_FLAGS: &[&str] = &[
    "all",
    "almost-all",
    "escape",
    "directory",
    "file-type",
    "full-time",
    "group-directories-first",
    "human-readable",
    "hide-control-chars",
    "inode",
    "literal",
    "numeric-uid-gid",
    "quote-name",
    "recursive",
    "reverse",
    "show-control-chars",
    "zero",
];

/// Why an ls case is not compared, if it touches a difference that
/// stays (docs/conformance.md, `dents ls`: dents ls's command line is
/// read by clap, whose words for a usage error are not getopt's).
fn ls_documented(args: &[String]) -> Option<&'static str> {
    let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let opts = &args[..end];
    let has = |w: &str| opts.iter().any(|a| a == w);
    if has("--help") || has("--version") {
        return Some("dents's own help and version texts");
    }
    if opts.iter().any(|a| a.starts_with("--colour")) {
        return Some("--colour: dents ls takes the spelling GNU ls 9.1 refuses");
    }
    if opts.iter().any(|a| short_has(a, 'j')) {
        return Some("-j: dents ls's --threads");
    }
    for a in opts.iter().filter(|a| a.starts_with("--") && a.len() > 2) {
        let name = a[2..].split('=').next().unwrap_or("");
        let exact = GNU_LS_LONG.contains(&name);
        let matching: Vec<&&str> = GNU_LS_LONG.iter().filter(|n| n.starts_with(name)).collect();
        if !exact && matching.len() != 1 {
            return Some("an unknown or ambiguous abbreviation: clap's words");
        }
        let full = if exact { name } else { matching[0] };
        if a.contains('=') && GNU_LS_FLAGS.contains(&full) {
            return Some("a value given to a flag: clap's words");
        }
    }
    // Values are checked once the whole command line is read, the last
    // of an option's kept: GNU checks each in getopt's order and stops
    // at the first bad one (or a bad option letter).
    let valued = opts
        .iter()
        .filter(|a| {
            [
                "-w",
                "-T",
                "--width",
                "--tabsize",
                "--format",
                "--sort",
                "--indicator-style",
            ]
            .iter()
            .chain(&["--quoting-style", "--time-style", "--color=", "--classify="])
            .any(|o| a.starts_with(o))
                || short_has(a, 'w')
                || short_has(a, 'T')
                || short_has(a, 'y')
        })
        .count();
    if valued >= 2 {
        return Some("values checked after the command line, not in getopt's order");
    }
    let classify = opts
        .iter()
        .filter(|a| a.starts_with("--classify") || short_has(a, 'F'))
        .count();
    if classify >= 2 {
        return Some("--classify=never after -F: GNU 9.1 keeps -F");
    }
    let unsorted = opts
        .iter()
        .any(|a| short_has(a, 'U') || short_has(a, 'f') || a == "--sort=none");
    if has("--group-directories-first") && unsorted {
        return Some("--group-directories-first with -U: GNU 9.1 does not group");
    }
    let long = opts.iter().any(|a| {
        ["l", "g", "o", "n"]
            .iter()
            .any(|c| short_has(a, c.as_bytes()[0] as char))
            || a.starts_with("--format")
            || a == "--full-time"
            || a == "--numeric-uid-gid"
    });
    if has("--zero") && long {
        return Some("-l --zero: dents ends the total line with a newline");
    }
    let quoted = opts
        .iter()
        .any(|a| short_has(a, 'Q') || a.starts_with("--quot"));
    if has("--zero") && quoted {
        return Some("--zero -Q: GNU 9.1 writes names unquoted");
    }
    // An option missing its value (at the end, or before another
    // option): clap's words.
    let takes = ["-w", "-T", "--sort", "--format", "--width", "--tabsize"];
    let takes_more = ["--indicator-style", "--quoting-style", "--time-style"];
    for (i, a) in opts.iter().enumerate() {
        let needs = takes.contains(&a.as_str())
            || takes_more.contains(&a.as_str())
            || (short_has(a, 'w') || short_has(a, 'T')) && (a.ends_with('w') || a.ends_with('T'));
        if needs && !matches!(opts.get(i + 1), Some(n) if !n.starts_with('-')) {
            return Some("an option missing its value: clap's words");
        }
    }
    None
}

/// Whether the options ask for an order (else dents lists off a terminal
/// unsorted, as GNU's `-U`: docs/conformance.md).
fn ls_order_asked(args: &[String]) -> bool {
    let operands_only = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let args = &args[..operands_only];
    args.iter().enumerate().any(|(i, a)| {
        ["-t", "-S", "-v", "-X"]
            .iter()
            .any(|f| short_has(a, f.as_bytes()[1] as char))
            || a.starts_with("--sort=") && !a.ends_with("=none")
            || a == "--sort" && args.get(i + 1).is_some_and(|v| v != "none")
    })
}

/// ls's output as it is where an order is asked; sorted lines for an
/// unsorted listing one name a line; not compared for unsorted columns.
fn ls_compare(args: &[String]) -> Compare {
    if ls_order_asked(args) {
        return Compare::Exact;
    }
    // Colors unsorted: GNU's first reset goes before the first name
    // painted, which depends on the order.
    if args
        .iter()
        .any(|a| a == "--color" || a.starts_with("--color=") && !a.ends_with("never"))
    {
        return Compare::Not;
    }
    let columns = args.iter().any(|a| {
        short_has(a, 'C')
            || short_has(a, 'x')
            || short_has(a, 'm')
            || a.starts_with("--format")
            || a == "--format"
    });
    if columns {
        Compare::Not
    } else {
        Compare::SortedLines
    }
}

#[test]
fn ls_command_lines_against_gnu() {
    fuzz("ls", 0x15_5eed_0001, ls_case, ls_documented, ls_compare);
}
