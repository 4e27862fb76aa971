//! A fuzz test of `dents find`'s command line against GNU find: random
//! argument lists (options, starting points, primaries with good, bad and
//! missing arguments, operators and parentheses in any order) on a small
//! tree, from a fixed seed so that CI runs the same cases every time
//! (`DENTS_FUZZ_SEED` and `DENTS_FUZZ_CASES` to explore further).
//!
//! A case fails on a crash (a signal, a panic), a hang (10 s), a
//! different exit status, or, where the output does not depend on the
//! order of the walk, different standard output (sorted lines).  Cases
//! that touch a documented difference (docs/conformance.md, "Differences
//! that stay") are skipped; see [`documented_difference`].  Nothing here
//! changes the tree: no `-delete`, `-exec` runs only `echo` and `true`,
//! output files are `/dev/null` and `/dev/stdout`.

mod common;

use std::path::Path;
use std::time::Instant;

use common::fuzz::{run, run_cases, seed_and_count, shown, sorted_lines, tree, Rng};

const PATHS: &[&str] = &[
    "t", "t/a.c", "t/d", "t/ld", "t/broken", "nosuch", "t/a.c/x", "t/", ".",
];

/// Arguments of each kind, good and bad.
const NUMS: &[&str] = &[
    "0",
    "1",
    "2",
    "+1",
    "-1",
    "-2",
    "+0",
    "10",
    "x",
    "",
    "1.5",
    "-",
    "+",
    "007",
    "99999999999",
];
const SIZES: &[&str] = &[
    "0", "1", "-1k", "+1k", "10c", "2b", "1w", "1M", "1G", "-3", "1x", "", "+", "k", "1kk",
];
const TIMES: &[&str] = &[
    "0", "1", "-1", "+1", "400", "+400", "-400", "1.5", "-0.5", "x", "", "0x10", "+-1", "1e3",
];
const NAMES: &[&str] = &[
    "a.c", "*.c", "*", "?", "[a-d]*", "\\*", "[", "d", "", "*/*", "t", "A*", "[!a]*", "x*",
];
const PATTERNS: &[&str] = &[
    "t/d.*",
    ".*",
    "t/\\(a\\|x\\).*",
    "[",
    "*",
    "t/.*\\.c",
    "\\",
    "a\\{1",
    "(",
    "t/[a-z]*",
];
const REGEXTYPES: &[&str] = &[
    "emacs",
    "posix-extended",
    "posix-basic",
    "findutils-default",
    "egrep",
    "sed",
    "awk",
    "bogus",
];
const TYPES: &[&str] = &[
    "f", "d", "l", "p", "s", "b", "c", "f,d", "x", "", "f,", "fd", "D",
];
const PERMS: &[&str] = &[
    "644",
    "-644",
    "/644",
    "u+x",
    "-u=r",
    "/o+w",
    "g-w",
    "999",
    "",
    "a+rwx",
    "u=rwx,g=rx",
    "+",
    "-",
    "0",
];
const FORMATS: &[&str] = &[
    "%p\\n",
    "%f %s %m\\n",
    "%y%Y %d %P\\n",
    "%h/%f\\0",
    "%TY-%Tm-%Td %TH:%TM\\n",
    "%k %b %n\\n",
    "%u %g %U %G\\n",
    "%l|\\n",
    "%10p|%-5s|\\n",
    "%",
    "%z\\n",
    "\\c%p\\n",
    "%Tz\\n",
    "%.3p\\n",
    "%H %M\\n",
];
const REFS: &[&str] = &[
    "t/a.c", "t/x", "t/broken", "nosuch", "t/ld", "t/d", "t/a.c/x",
];
const DATES: &[&str] = &[
    "2020-02-03",
    "2020-02-03 04:05:07",
    "@0",
    "yesterday",
    "garbage",
    "2021-01-01T00:00Z",
    "",
    "1 year ago",
];
const USERS: &[&str] = &["root", "0", "nobody", "4294967295", "nosuchuser", "", "-1"];

/// Appends a primary (with its argument, maybe bad or missing).
fn primary(r: &mut Rng, out: &mut Vec<String>) {
    let with = |out: &mut Vec<String>, name: &str, arg: &str| {
        out.push(name.to_string());
        out.push(arg.to_string());
    };
    match r.below(40) {
        0 => with(
            out,
            r.pick(&["-name", "-iname", "-lname", "-ilname"]),
            r.pick(NAMES),
        ),
        1 => with(
            out,
            r.pick(&["-path", "-ipath", "-wholename", "-iwholename"]),
            r.pick(&["t/d/*", "*a*", "t", "T/D*", "[", ""]),
        ),
        2 => with(out, r.pick(&["-regex", "-iregex"]), r.pick(PATTERNS)),
        3 => with(out, r.pick(&["-type", "-xtype"]), r.pick(TYPES)),
        4 => with(out, "-size", r.pick(SIZES)),
        5 => with(
            out,
            r.pick(&[
                "-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin", "-used",
            ]),
            r.pick(TIMES),
        ),
        6 => with(
            out,
            r.pick(&["-newer", "-anewer", "-cnewer", "-samefile"]),
            r.pick(REFS),
        ),
        7 => {
            let xy = format!(
                "-newer{}{}",
                r.pick(&["m", "a", "c", "B", "t", "q"]),
                r.pick(&["m", "a", "c", "t", "B"])
            );
            let arg = if xy.ends_with('t') {
                r.pick(DATES)
            } else {
                r.pick(REFS)
            };
            with(out, &xy, arg)
        }
        8 => with(out, "-perm", r.pick(PERMS)),
        9 => with(out, r.pick(&["-user", "-group"]), r.pick(USERS)),
        10 => with(
            out,
            r.pick(&["-uid", "-gid", "-links", "-inum"]),
            r.pick(NUMS),
        ),
        11 => out.push(
            r.pick(&[
                "-empty",
                "-true",
                "-false",
                "-readable",
                "-writable",
                "-executable",
                "-nouser",
                "-nogroup",
            ])
            .into(),
        ),
        12 => out.push(r.pick(&["-print", "-print0", "-prune", "-ls"]).into()),
        13 => with(out, "-printf", r.pick(FORMATS)),
        14 => {
            out.push(r.pick(&["-fprint", "-fprint0", "-fls"]).into());
            out.push(r.pick(&["/dev/null", "/dev/stdout"]).into());
        }
        15 => {
            out.push("-fprintf".into());
            out.push(r.pick(&["/dev/null", "/dev/stdout"]).into());
            out.push(r.pick(FORMATS).into());
        }
        16 => {
            out.push(r.pick(&["-exec", "-execdir"]).into());
            let words: &[&[&str]] = &[
                &["echo", "{}", ";"],
                &["true", ";"],
                &["echo", "x{}y", ";"],
                &["echo", "{}", "+"],
                &["true", "{}", "+"],
                &["echo", "{}x", "+"],
                &["echo", "{}", "{}", "+"],
                &[";"],
                &["echo"],
                &["echo", "+"],
            ];
            out.extend(words[r.below(words.len())].iter().map(|s| s.to_string()));
        }
        17 => with(out, r.pick(&["-maxdepth", "-mindepth"]), r.pick(NUMS)),
        18 => out.push(
            r.pick(&[
                "-depth",
                "-d",
                "-xdev",
                "-mount",
                "-noleaf",
                "-ignore_readdir_race",
                "-noignore_readdir_race",
                "-daystart",
                "-follow",
                "-warn",
                "-nowarn",
            ])
            .into(),
        ),
        19 => with(out, "-regextype", r.pick(REGEXTYPES)),
        20 => with(out, "-fstype", r.pick(&["ext4", "tmpfs", "nosuchfs", ""])),
        21 => out.push("-quit".into()),
        22 => out.push(r.pick(&["-bogus", "-", "--", "-name=x", "-O", "-H"]).into()),
        // A primary at the end, missing its argument.
        23 => out.push(
            r.pick(&["-name", "-size", "-newer", "-printf", "-exec", "-perm"])
                .into(),
        ),
        _ => with(out, "-name", r.pick(NAMES)),
    }
}

/// A random argument list.
fn case(r: &mut Rng) -> Vec<String> {
    let mut out = Vec::new();
    while r.chance(20) {
        out.push(
            r.pick(&["-H", "-L", "-P", "-O0", "-O3", "-O", "-Dtree", "-Dbogus"])
                .into(),
        );
    }
    for _ in 0..r.below(3) {
        out.push(r.pick(PATHS).into());
    }
    let n = r.below(6);
    let mut depth = 0;
    for i in 0..n {
        if i > 0 && r.chance(35) {
            out.push(
                r.pick(&["-a", "-o", ",", "-and", "-or", "-not", "!"])
                    .into(),
            );
        }
        if r.chance(15) {
            out.push("(".into());
            depth += 1;
        }
        if r.chance(10) {
            out.push(r.pick(&["!", "-not"]).into());
        }
        primary(r, &mut out);
        if depth > 0 && r.chance(40) {
            out.push(")".into());
            depth -= 1;
        }
    }
    // Mostly balanced; now and then not.
    if !r.chance(10) {
        out.extend(std::iter::repeat(")".to_string()).take(depth));
    }
    if r.chance(5) {
        out.push(r.pick(&["(", ")", "!", "-o"]).into());
    }
    out
}

/// Why a case is not compared, if it touches a difference that stays
/// (docs/conformance.md, "Differences that stay").
fn documented_difference(args: &[String]) -> Option<&'static str> {
    let has = |w: &str| args.iter().any(|a| a == w);
    let starts = |p: &str| args.iter().any(|a| a.starts_with(p));
    if starts("-D") {
        return Some("-D prints dents's own diagnostics");
    }
    if has("-help") || has("--help") || has("-version") || has("--version") {
        return Some("dents's own help and version texts");
    }
    if has("-newerBt") || has("-newerBm") || has("-newerBa") || has("-newerBc") || has("-newerBB") {
        return Some("birth times: dents reads them, GNU 4.9 cannot");
    }
    if args
        .windows(2)
        .any(|w| w[0].starts_with("-newer") && w[0].ends_with('B'))
    {
        return Some("birth times: dents reads them, GNU 4.9 cannot");
    }
    None
}

/// Whether standard output may be compared: it does not depend on the
/// order of the walk (beyond the order of lines), nor on GNU's optimiser
/// moving name tests ahead of others across `,` and `-prune` (a
/// difference that stays, see docs/conformance.md).
fn output_comparable(args: &[String]) -> bool {
    let order_dependent = [
        "-quit", "-ls", "-fls", "+", "-print0", "-fprint0", ",", "-prune",
    ];
    !args.iter().any(|a| {
        order_dependent.contains(&a.as_str())
            || a.contains("\\0")
            || a.contains("\\c")
            || a.contains("%A")
            || a.contains("%a")
    })
}

/// Compares one case; the problem found, if any.
fn check(cwd: &Path, args: &[String]) -> Option<String> {
    let dents = env!("CARGO_BIN_EXE_dents");
    let (d, g) = std::thread::scope(|s| {
        let d = s.spawn(|| run(&[dents, "find"], cwd, args));
        let g = run(&["find"], cwd, args);
        (d.join().unwrap(), g)
    });
    let shown = || shown(args);
    let err = String::from_utf8_lossy(&d.stderr);
    if d.hung && !g.hung {
        return Some(format!("hang: find {}", shown()));
    }
    if d.signal.is_some() || err.contains("panicked") {
        return Some(format!("crash ({:?}): find {}\n{err}", d.signal, shown()));
    }
    if g.signal.is_some() || g.hung {
        // GNU itself crashed (an assertion) or hung: nothing to compare.
        return None;
    }
    if d.status != g.status {
        return Some(format!(
            "status dents {:?}, GNU {:?}: find {}\n--- dents stderr\n{err}--- GNU stderr\n{}",
            d.status,
            g.status,
            shown(),
            String::from_utf8_lossy(&g.stderr)
        ));
    }
    if output_comparable(args) && sorted_lines(&d.stdout) != sorted_lines(&g.stdout) {
        return Some(format!(
            "stdout: find {}\n--- dents\n{}--- GNU\n{}",
            shown(),
            String::from_utf8_lossy(&d.stdout),
            String::from_utf8_lossy(&g.stdout)
        ));
    }
    None
}

#[test]
fn find_command_lines_against_gnu() {
    let (seed, count) = seed_and_count(0x5eed_d3e7_5f1d, 2000);
    let tmp = tree();
    let mut r = Rng(seed | 1);
    let cases: Vec<Vec<String>> = (0..count).map(|_| case(&mut r)).collect();
    let started = Instant::now();
    let (failures, skipped) = run_cases(&cases, documented_difference, &|args| {
        check(tmp.path(), args)
    });
    eprintln!(
        "fuzz: {count} cases (seed {seed:#x}), {} skipped as documented differences, {:.1?}",
        skipped,
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} of {count} cases differ from GNU find (seed {seed:#x}):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
