//! `dents du`, `dents ls` and `dents find` against GNU's under locales:
//! numbers (`'` grouping, the decimal point of `-h`) from `LC_NUMERIC`,
//! dates from `LC_TIME`, gnulib's `strftime` extensions in
//! `--time-style=+FORMAT`, and the quotes of messages when the locale
//! named is not installed.  Each case runs both tools with a clean
//! environment (the case's variables only, `TZ=UTC` unless it says) on
//! the same real tree, and compares standard output (du's lines sorted),
//! standard error (program name normalised) and the exit status.
//!
//! The locales come from `scripts/install-test-deps` (en_US, de_DE,
//! fr_FR, UTF-8); a case whose locale is missing skips loudly (fails
//! under CI).
//!
//! One case: `cargo test --release -p dents-cli --test locale -- du::group_de --exact`.

use std::fs;
use std::path::Path;
use std::process::Command;

use dents_testfs::cli::touch;
use dents_testfs::{skip, test_cases};

/// One comparison: which tool, its environment, its arguments.
#[derive(Clone, Copy)]
struct Case {
    /// `du`, `ls` or `find`.
    tool: &'static str,
    /// Variables set for both runs (after `TZ=UTC`).
    env: &'static [(&'static str, &'static str)],
    args: &'static [&'static str],
}

const fn du(env: &'static [(&'static str, &'static str)], args: &'static [&'static str]) -> Case {
    Case {
        tool: "du",
        env,
        args,
    }
}

const fn ls(env: &'static [(&'static str, &'static str)], args: &'static [&'static str]) -> Case {
    Case {
        tool: "ls",
        env,
        args,
    }
}

const fn find(env: &'static [(&'static str, &'static str)], args: &'static [&'static str]) -> Case {
    Case {
        tool: "find",
        env,
        args,
    }
}

/// Whether `name` (`de_DE.UTF-8`) is installed, as `locale -a` spells it
/// (`de_DE.utf8`).
fn installed(name: &str) -> bool {
    let out = Command::new("locale").arg("-a").output();
    let Ok(out) = out else {
        return false;
    };
    let want = name.to_ascii_lowercase().replace("utf-8", "utf8");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.to_ascii_lowercase() == want)
}

/// The tree every case lists: a file of 1,234,567 bytes written (its
/// blocks counted too), a sparse one of 4,800,000 (`4.6M`, `4,6M`), one
/// of March 2020 with nanoseconds (old: `ls -l` writes its year), one of
/// two days ago (recent), and one in November 2019.
fn tree(root: &Path) {
    fs::create_dir(root.join("d")).unwrap();
    fs::write(root.join("d/big"), vec![7u8; 1_234_567]).unwrap();
    let sparse = fs::File::create(root.join("d/sparse")).unwrap();
    sparse.set_len(4_800_000).unwrap();
    fs::write(root.join("d/old"), b"x").unwrap();
    fs::write(root.join("d/nov"), b"").unwrap();
    touch(&root.join("d/old"), &["-d", "@1583402400.120000000"]);
    touch(&root.join("d/nov"), &["-d", "@1573000000.005000000"]);
    touch(&root.join("d/big"), &["-d", "2 days ago"]);
    touch(&root.join("d/sparse"), &["-d", "@1583402400"]);
    touch(&root.join("d"), &["-d", "@1583402400.000000000"]);
}

/// Stdout (du's lines sorted: siblings come in any order), stderr with
/// the program named `PROG`, status.
fn run(mut cmd: Command, case: &Case) -> (Vec<u8>, String, i32) {
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("TZ", "UTC");
    for (k, v) in case.env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("runs");
    let mut stdout = out.stdout;
    if case.tool == "du" {
        let mut lines: Vec<&[u8]> = stdout.split_inclusive(|&b| b == b'\n').collect();
        lines.sort();
        stdout = lines.concat();
    }
    let stderr = String::from_utf8_lossy(&out.stderr)
        .replace(
            &format!("Try 'dents {} --help'", case.tool),
            "Try 'PROG --help'",
        )
        .replace(&format!("Try '{} --help'", case.tool), "Try 'PROG --help'")
        .replace("dents: ", "PROG: ")
        .replace(&format!("{}: ", case.tool), "PROG: ");
    (stdout, stderr, out.status.code().unwrap_or(-1))
}

/// Runs `case` with GNU's tool and dents's on a fresh tree and compares.
fn check(case: Case) {
    for (k, v) in case.env {
        let names_locale = k.starts_with("LC_") || *k == "LANG";
        // xx_YY: a locale that is meant not to be installed.
        if names_locale && v.contains('_') && !v.starts_with("xx_") && !installed(v) {
            skip(&format!(
                "the locale {v} is not installed (scripts/install-test-deps)"
            ));
            return;
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    tree(tmp.path());
    // dents ls lists in the directory's order unless asked to sort (GNU
    // 9.1 has no `--sort=name`: it sorts by name by default).
    let sort: &[&str] = if case.tool == "ls" {
        &["--sort=name"]
    } else {
        &[]
    };
    let mut gnu = Command::new(case.tool);
    gnu.args(case.args).current_dir(tmp.path());
    let mut dents = Command::new(env!("CARGO_BIN_EXE_dents"));
    dents
        .arg(case.tool)
        .args(sort)
        .args(case.args)
        .current_dir(tmp.path());
    let (g_out, g_err, g_st) = run(gnu, &case);
    let (d_out, d_err, d_st) = run(dents, &case);
    let what = format!("{:?} {} {:?}", case.env, case.tool, case.args);
    assert_eq!(
        String::from_utf8_lossy(&d_out),
        String::from_utf8_lossy(&g_out),
        "stdout of {what}"
    );
    assert_eq!(d_err, g_err, "stderr of {what}");
    assert_eq!(d_st, g_st, "status of {what}");
    assert!(
        !g_out.is_empty() || !g_err.is_empty(),
        "GNU printed nothing for {what}"
    );
}

const KOLKATA: &[(&str, &str)] = &[("TZ", "Asia/Kolkata")];
const ST_JOHNS: &[(&str, &str)] = &[("TZ", "America/St_Johns")];

test_cases! {
    /// `--time-style=+FORMAT` with gnulib's `strftime` extensions.
    mod strftime: crate::Case => check;
    du_nanos_3: crate::du(&[], &["-a", "--time", "--time-style=+%3N", "d"]),
    du_nanos_minus: crate::du(&[], &["-a", "--time", "--time-style=+%-N|%-3N", "d"]),
    du_nanos_space_3: crate::du(&[], &["-a", "--time", "--time-style=+%_3N|%_N", "d"]),
    du_nanos_zero_3: crate::du(&[], &["-a", "--time", "--time-style=+%03N", "d"]),
    du_nanos_9_and_12: crate::du(&[], &["-a", "--time", "--time-style=+%9N|%12N|%1N", "d"]),
    du_zone_colons_kolkata: crate::du(crate::KOLKATA, &["-a", "--time", "--time-style=+%:z|%::z|%:::z", "d"]),
    du_zone_colons_st_johns: crate::du(crate::ST_JOHNS, &["-a", "--time", "--time-style=+%:z|%::z|%:::z|%-:z", "d"]),
    du_zone_colons_utc: crate::du(&[], &["-a", "--time", "--time-style=+%:z|%::z|%:::z|%_:::z", "d"]),
    du_zone_padded: crate::du(crate::ST_JOHNS, &["-a", "--time", "--time-style=+%_z|%-z|%7z|%_10:z", "d"]),
    du_quarter: crate::du(&[], &["-a", "--time", "--time-style=+%q|%_3q|%05q|%Oq|%EN", "d"]),
    ls_nanos_and_zone: crate::ls(crate::KOLKATA, &["-l", "--time-style=+%3N %-N %_3N %:z %::z %:::z %q", "d"]),
    ls_two_formats: crate::ls(crate::ST_JOHNS, &["-l", "--time-style=+%-6N %:::z\n%03N %:z", "d"]),
}

/// A locale that is not installed (`xx_YY.UTF-8`): setlocale fails and
/// the C locale stays, with ASCII quotes, whatever the variables say.
const MISSING: &[(&str, &str)] = &[("LANG", "xx_YY.UTF-8")];
/// One category not installed fails `setlocale(LC_ALL, "")` as a whole.
const ONE_MISSING: &[(&str, &str)] = &[("LANG", "en_US.UTF-8"), ("LC_TIME", "xx_YY.UTF-8")];
const LANG_EN: &[(&str, &str)] = &[("LANG", "en_US.UTF-8")];
const LANG_C_UTF8: &[(&str, &str)] = &[("LANG", "C.UTF-8")];

test_cases! {
    /// The quotes of messages: the locale's (`‘’` in UTF-8) if setlocale
    /// adopted it, else ASCII.
    mod quotes: crate::Case => check;
    du_missing_locale: crate::du(crate::MISSING, &["--time", "--time-style=xx", "d"]),
    du_one_category_missing: crate::du(crate::ONE_MISSING, &["--time", "--time-style=xx", "d"]),
    du_utf8_locale: crate::du(crate::LANG_EN, &["--time", "--time-style=xx", "d"]),
    du_c_utf8: crate::du(crate::LANG_C_UTF8, &["--time", "--time-style=xx", "d"]),
    find_missing_locale: crate::find(crate::MISSING, &["nonexistent"]),
    find_one_category_missing: crate::find(crate::ONE_MISSING, &["nonexistent"]),
    find_utf8_locale: crate::find(crate::LANG_EN, &["nonexistent"]),
    ls_missing_locale: crate::ls(crate::MISSING, &["-l", "--time-style=xx", "d"]),
    ls_utf8_locale: crate::ls(crate::LANG_EN, &["-l", "--time-style=xx", "d"]),
    ls_posix_style_missing_locale: crate::ls(crate::MISSING, &["-l", "--time-style=posix-xx", "d"]),
    ls_posix_style_utf8_locale: crate::ls(crate::LANG_EN, &["-l", "--time-style=posix-xx", "d"]),
}

const DE: &[(&str, &str)] = &[("LC_ALL", "de_DE.UTF-8")];
const EN: &[(&str, &str)] = &[("LC_ALL", "en_US.UTF-8")];
const FR: &[(&str, &str)] = &[("LC_ALL", "fr_FR.UTF-8")];
/// de_DE but for messages: GNU's are translated (`insgesamt` for
/// `total`), which dents does not do (docs/conformance.md).
const DE_MSG_C: &[(&str, &str)] = &[("LANG", "de_DE.UTF-8"), ("LC_MESSAGES", "C")];
const FR_MSG_C: &[(&str, &str)] = &[("LANG", "fr_FR.UTF-8"), ("LC_MESSAGES", "C")];
/// Numbers from LC_NUMERIC alone (LANG says C).
const NUMERIC_DE: &[(&str, &str)] = &[("LANG", "C"), ("LC_NUMERIC", "de_DE.UTF-8")];
/// LC_TIME alone says nothing of numbers.
const TIME_DE: &[(&str, &str)] = &[("LANG", "C"), ("LC_TIME", "de_DE.UTF-8")];
const BLOCK_SIZE_1: &[(&str, &str)] = &[("LC_ALL", "de_DE.UTF-8"), ("BLOCK_SIZE", "'1")];

test_cases! {
    /// Sizes in the locale's digits: the `'` flag groups them, `-h` and
    /// `--si` use its decimal point.
    mod numbers: crate::Case => check;
    du_group_en: crate::du(crate::EN, &["-a", "-B", "'1", "d"]),
    du_group_de: crate::du(crate::DE, &["-a", "-B", "'1", "d"]),
    du_group_fr: crate::du(crate::FR, &["-a", "-B", "'1", "d"]),
    du_group_apparent_de: crate::du(crate::DE, &["-a", "--apparent-size", "-B", "'1", "d"]),
    du_group_k_de: crate::du(crate::DE, &["-a", "--apparent-size", "-B", "'1K", "d"]),
    du_group_block_size_variable: crate::du(crate::BLOCK_SIZE_1, &["-a", "--apparent-size", "d"]),
    du_group_c: crate::du(&[], &["-a", "-B", "'1", "d"]),
    du_group_lc_numeric_only: crate::du(crate::NUMERIC_DE, &["-a", "--apparent-size", "-B", "'1", "d"]),
    du_group_lc_time_only: crate::du(crate::TIME_DE, &["-a", "--apparent-size", "-B", "'1", "d"]),
    du_human_de: crate::du(crate::DE, &["-a", "--apparent-size", "-h", "d"]),
    du_si_de: crate::du(crate::DE, &["-a", "--apparent-size", "--si", "d"]),
    du_human_fr: crate::du(crate::FR, &["-a", "-h", "d"]),
    du_human_lc_numeric_only: crate::du(crate::NUMERIC_DE, &["-a", "--apparent-size", "-h", "d"]),
    du_human_grouped_en: crate::du(crate::EN, &["-a", "--apparent-size", "-B", "'human-readable", "d"]),
    ls_human_de: crate::ls(crate::DE_MSG_C, &["-lh", "--time-style=long-iso", "d"]),
    ls_human_fr: crate::ls(crate::FR_MSG_C, &["-lh", "--time-style=long-iso", "d"]),
    ls_human_lc_numeric_only: crate::ls(crate::NUMERIC_DE, &["-lh", "d"]),
}

/// Dates in French, messages and numbers in C.
const TIME_FR: &[(&str, &str)] = &[("LANG", "C"), ("LC_TIME", "fr_FR.UTF-8")];
/// English month names in German formats: gettext's `LANGUAGE` picks the
/// catalog, LC_TIME the names.
const LANGUAGE_DE: &[(&str, &str)] = &[
    ("LANG", "en_US.UTF-8"),
    ("LANGUAGE", "de"),
    ("LC_MESSAGES", "C"),
];

test_cases! {
    /// Dates in the locale's words: `ls -l`'s formats from coreutils'
    /// catalog for LC_TIME, month names padded to one width, and `%b` in
    /// `+FORMAT` for ls and du.
    mod dates: crate::Case => check;
    ls_de: crate::ls(crate::DE_MSG_C, &["-l", "d"]),
    ls_fr: crate::ls(crate::FR_MSG_C, &["-l", "d"]),
    ls_en: crate::ls(crate::EN, &["-l", "d"]),
    ls_lc_time_fr_only: crate::ls(crate::TIME_FR, &["-l", "d"]),
    ls_lc_time_de_only: crate::ls(crate::TIME_DE, &["-l", "d"]),
    ls_language_variable: crate::ls(crate::LANGUAGE_DE, &["-l", "d"]),
    ls_fr_plus_format_month_padded: crate::ls(crate::FR_MSG_C, &["-l", "--time-style=+%b|%B|%b", "d"]),
    ls_fr_two_formats_padded: crate::ls(crate::FR_MSG_C, &["-l", "--time-style=+<%%b %b>\n[%b]", "d"]),
    ls_de_posix_locale: crate::ls(crate::DE_MSG_C, &["-l", "--time-style=posix-locale", "d"]),
    ls_fr_posix_iso: crate::ls(crate::FR_MSG_C, &["-l", "--time-style=posix-iso", "d"]),
    du_month_names_de: crate::du(crate::DE, &["-a", "--time", "--time-style=+%b %B %a", "d"]),
    du_month_names_lc_time_fr: crate::du(crate::TIME_FR, &["-a", "--time", "--time-style=+%b %B %a", "d"]),
}
