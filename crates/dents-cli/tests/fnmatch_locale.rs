//! Shell patterns in a UTF-8 locale and in the C locale, against GNU:
//! `du --exclude`/`-X` and `find -name`/`-path`, which GNU's tools both
//! match with glibc's `fnmatch` in the current locale (dents's one
//! matcher, `dents_tools::glob`).  In a UTF-8 locale a name matches by
//! characters (`?` is one character however many bytes, a bracket holds
//! characters: `[é]`, `[!a]`, `[[:alpha:]]` of non-ASCII letters) or,
//! failing that, by bytes; a name or pattern that is not UTF-8 by bytes
//! alone; in the C locale every byte is a character.  Each case runs
//! GNU's tool and dents's on the same tree of non-ASCII names and
//! compares the lines (sorted), the messages and the exit status.
//!
//! One case: `cargo test --release -p dents-cli --test fnmatch_locale -- du_utf8::question_one_char --exact`.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

use dents_testfs::{skip, test_cases};

/// One comparison: the locale, du's options or find's expression, and
/// the bytes of the `-X` file `pats` (which du's options may name).  The
/// tree is `0-root`, a name no pattern of a single character matches.
type Case = (&'static str, &'static [&'static str], &'static [u8]);

/// Names below `0-root/`: non-ASCII letters of two and three bytes, a name
/// that is not UTF-8, and one ending in a backslash.
const NAMES: &[&[u8]] = &[
    "é".as_bytes(),
    "ée".as_bytes(),
    b"e",
    b"ab",
    "aéb".as_bytes(),
    b"a\xffb",
    b"a\xff",
    "Ä".as_bytes(),
    "日本".as_bytes(),
    "x.é".as_bytes(),
    "ß".as_bytes(),
    b"ab\\",
    b"zz",
    b"z\\z",
];

/// Whether `name` (`C.UTF-8`) is installed, as `locale -a` spells it.
fn installed(name: &str) -> bool {
    let Ok(out) = Command::new("locale").arg("-a").output() else {
        return false;
    };
    let want = name.to_ascii_lowercase().replace("utf-8", "utf8");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.to_ascii_lowercase() == want)
}

/// Sorted stdout lines, sorted stderr lines (program name as `du`),
/// status.
fn run(mut cmd: Command, locale: &str) -> (Vec<Vec<u8>>, Vec<String>, i32) {
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("LC_ALL", locale);
    let out = cmd.output().expect("runs");
    let mut lines: Vec<Vec<u8>> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    lines.sort();
    let stderr = String::from_utf8_lossy(&out.stderr)
        .replace("Try 'dents du --help'", "Try 'du --help'")
        .replace("dents: ", "du: ");
    let mut errs: Vec<String> = stderr.lines().map(str::to_string).collect();
    errs.sort();
    (lines, errs, out.status.code().unwrap_or(-1))
}

/// Makes the tree `0-root` under `root`, and the `-X` file `pats`.
fn tree(root: &Path, pats: &[u8]) {
    let t = root.join("0-root");
    fs::create_dir(&t).unwrap();
    for name in NAMES {
        fs::write(t.join(OsStr::from_bytes(name)), b"x").unwrap();
    }
    fs::write(root.join("pats"), pats).unwrap();
}

/// Whether the case's locale is installed; if not, says so (skipped).
fn have_locale(locale: &str) -> bool {
    let have = installed(locale);
    if !have {
        skip(&format!(
            "the locale {locale} is not installed (scripts/install-test-deps)"
        ));
    }
    have
}

/// Runs GNU's `tool` and dents's with `LC_ALL=locale` in `root`, the
/// arguments made by `args`, and compares.
fn compare(root: &Path, tool: &str, locale: &str, args: &[&str], what: &str) {
    let cmd = |prog: &Path, pre: &[&str]| {
        let mut c = Command::new(prog);
        c.args(pre).args(args).current_dir(root);
        c
    };
    let g = run(cmd(Path::new(tool), &[]), locale);
    let d = run(cmd(Path::new(env!("CARGO_BIN_EXE_dents")), &[tool]), locale);
    let show = |v: &[Vec<u8>]| {
        v.iter()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(show(&d.0), show(&g.0), "lines of LC_ALL={locale} {what}");
    assert_eq!(d.1, g.1, "messages of LC_ALL={locale} {what}");
    assert_eq!(d.2, g.2, "status of LC_ALL={locale} {what}");
}

/// GNU du and dents du, `-a` in bytes with the case's options, on the
/// tree.
fn check_du((locale, opts, pats): Case) {
    if !have_locale(locale) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    tree(tmp.path(), pats);
    let mut args = vec!["-a", "--apparent-size", "-b"];
    args.extend_from_slice(opts);
    args.push("0-root");
    let what = format!("du {opts:?} (-X {pats:?})");
    compare(tmp.path(), "du", locale, &args, &what);
}

/// GNU find and dents find, the case's expression, on the tree.
fn check_find((locale, expr, _): Case) {
    if !have_locale(locale) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    tree(tmp.path(), b"");
    let mut args = vec!["0-root"];
    args.extend_from_slice(expr);
    compare(tmp.path(), "find", locale, &args, &format!("find {expr:?}"));
}

test_cases! {
/// In a UTF-8 locale a pattern's `?`, `[...]` and classes take whole
/// characters; a name or pattern that is not UTF-8 falls back to bytes.
mod du_utf8: crate::Case => check_du;
    question_one_char: ("C.UTF-8", &["--exclude=a?b"], b""),
    two_questions_two_chars: ("C.UTF-8", &["--exclude=??"], b""),
    three_questions: ("C.UTF-8", &["--exclude=???"], b""),
    bracket_of_a_letter: ("C.UTF-8", &["--exclude=[é]"], b""),
    bracket_then_more: ("C.UTF-8", &["--exclude=[éx]e"], b""),
    negated_bracket: ("C.UTF-8", &["--exclude=[!a]"], b""),
    negated_bracket_caret: ("C.UTF-8", &["--exclude=[^ez]"], b""),
    class_alpha: ("C.UTF-8", &["--exclude=[[:alpha:]]"], b""),
    class_upper: ("C.UTF-8", &["--exclude=[[:upper:]]"], b""),
    class_lower_star: ("C.UTF-8", &["--exclude=[[:lower:]]*"], b""),
    range_of_letters: ("C.UTF-8", &["--exclude=[à-ê]*"], b""),
    star_then_letter: ("C.UTF-8", &["--exclude=*é"], b""),
    not_utf8_name: ("C.UTF-8", &["--exclude=a?"], b""),
    trailing_backslash: ("C.UTF-8", &["--exclude=ab\\"], b""),
    escaped_name: ("C.UTF-8", &["--exclude=z\\z", "--exclude=\\é"], b""),
    unknown_class: ("C.UTF-8", &["--exclude=[[:nosuch:]a]b"], b""),
    file_of_patterns: ("C.UTF-8", &["-X", "pats"], "?\n[é]e\n".as_bytes()),
    file_pattern_not_utf8: ("C.UTF-8", &["-X", "pats"], b"a\xff?\n?\xff*\n"),
    file_with_path: ("C.UTF-8", &["-X", "pats"], "0-root/?\n".as_bytes()),
    en_us_class_alpha: ("en_US.UTF-8", &["--exclude=[[:alpha:]]"], b""),
    en_us_question: ("en_US.UTF-8", &["--exclude=a?b"], b""),
}

test_cases! {
/// In the C locale every byte is a character: the same patterns match
/// bytes.
mod du_c: crate::Case => check_du;
    question_one_char: ("C", &["--exclude=a?b"], b""),
    two_questions_two_chars: ("C", &["--exclude=??"], b""),
    three_questions: ("C", &["--exclude=???"], b""),
    bracket_of_a_letter: ("C", &["--exclude=[é]"], b""),
    bracket_then_more: ("C", &["--exclude=[éx]e"], b""),
    negated_bracket: ("C", &["--exclude=[!a]"], b""),
    class_alpha: ("C", &["--exclude=[[:alpha:]]"], b""),
    range_of_letters: ("C", &["--exclude=[à-ê]*"], b""),
    star_then_letter: ("C", &["--exclude=*é"], b""),
    trailing_backslash: ("C", &["--exclude=ab\\"], b""),
    escaped_name: ("C", &["--exclude=z\\z", "--exclude=\\é"], b""),
    unknown_class: ("C", &["--exclude=[[:nosuch:]a]b"], b""),
    file_of_patterns: ("C", &["-X", "pats"], "?\n[é]e\n".as_bytes()),
    file_pattern_not_utf8: ("C", &["-X", "pats"], b"a\xff?\n?\xff*\n"),
}

test_cases! {
/// `-name`, `-iname` and `-path` by the same rule as du's patterns.
mod find_utf8: crate::Case => check_find;
    name_two_questions: ("C.UTF-8", &["-name", "??"], b""),
    name_three_questions: ("C.UTF-8", &["-name", "???"], b""),
    name_one_question: ("C.UTF-8", &["-name", "?"], b""),
    name_range_of_letters: ("C.UTF-8", &["-name", "[à-ê]*"], b""),
    name_negated_twice: ("C.UTF-8", &["-name", "[!x][!x]"], b""),
    iname_letter: ("C.UTF-8", &["-iname", "ä"], b""),
    path_question: ("C.UTF-8", &["-path", "0-root/??"], b""),
    name_c_locale: ("C", &["-name", "??"], b""),
}
