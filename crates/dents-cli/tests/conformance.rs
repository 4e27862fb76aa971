//! Keeps `docs/conformance.md` true: the report of what `dents find`
//! does of GNU find's language.
//!
//! Two checks:
//!
//! 1. **Nothing is missing.**  Every primary and option that GNU find's
//!    `--help` names, and every primary, `-printf` directive, escape and
//!    time key that its manual page lists, has a row in the report.
//! 2. **Every row is what it says.**  Each row carries an example command
//!    line; the test runs it under GNU find and `dents find` on a small
//!    fixture tree (`LC_ALL=C TZ=UTC`, no terminal) and checks it against
//!    the row's status:
//!    - `done`: sorted standard output, exit status and sorted standard
//!      error (program name aside) are equal;
//!    - `partial`: dents runs it (exit status 0 unless GNU's is not) and does
//!      not call it unknown or unsupported; the row's note says what
//!      differs;
//!    - `no`: dents refuses it with a message and a non-zero exit status;
//!    - `extension`: dents's own; dents runs it with status 0.
//!
//! So a primary that starts working while the report says `no`, or one
//! that the report calls `done` while it differs from GNU, fails here.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use dents_testfs::cli::{run_ok, sorted_records, stderr_lines, touch};

/// One row of the report.
#[derive(Debug)]
struct Row {
    /// Line number in the report, for messages.
    line: usize,
    /// What the row is about, as written in its first cell (`-name`, `%p`).
    item: String,
    /// `done`, `partial`, `no` or `extension`.
    status: String,
    /// The example's words (the arguments after `find`).
    example: Vec<Vec<u8>>,
}

/// The report's path.
fn report_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/conformance.md")
}

/// The cells of a table row, split at unescaped `|`, `\|` unescaped.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            _ => out.last_mut().unwrap().push(c),
        }
    }
    out.iter().map(|s| s.trim().to_string()).collect()
}

/// The text inside the first pair of backticks of a cell (a cell may
/// use double backticks around text holding a backtick).
fn code(cell: &str) -> Option<&str> {
    let (open, close) = if cell.starts_with("`` ") {
        ("`` ", " ``")
    } else {
        ("`", "`")
    };
    let start = cell.find(open)? + open.len();
    let end = start + cell[start..].find(close)?;
    Some(&cell[start..end])
}

/// Splits an example into words as a POSIX shell would for the simple
/// syntax used in the report: blanks separate words, `'...'` and `"..."`
/// quote literally, a backslash outside quotes escapes one character.
fn words(s: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut cur: Option<Vec<u8>> = None;
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' => {
                if let Some(w) = cur.take() {
                    out.push(w);
                }
            }
            b'\'' | b'"' => {
                let end = i + 1 + b[i + 1..].iter().position(|&x| x == c).expect("quote");
                cur.get_or_insert_with(Vec::new)
                    .extend_from_slice(&b[i + 1..end]);
                i = end;
            }
            b'\\' if i + 1 < b.len() => {
                cur.get_or_insert_with(Vec::new).push(b[i + 1]);
                i += 1;
            }
            _ => cur.get_or_insert_with(Vec::new).push(c),
        }
        i += 1;
    }
    if let Some(w) = cur {
        out.push(w);
    }
    out
}

/// Every table row of the report with a status in its second cell.
fn rows() -> Vec<Row> {
    let text = fs::read_to_string(report_path()).expect("docs/conformance.md");
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if !line.starts_with('|') || line.starts_with("| ---") {
            continue;
        }
        let c = cells(line);
        if c.len() < 4 || c[0] == "item" {
            continue;
        }
        let item = code(&c[0])
            .unwrap_or_else(|| panic!("line {}: item not in backticks", n + 1))
            .to_string();
        let status = c[1].clone();
        assert!(
            ["done", "partial", "no", "extension"].contains(&status.as_str()),
            "line {}: unknown status {status:?}",
            n + 1
        );
        let example = code(&c[2]).unwrap_or_else(|| panic!("line {}: {item}: no example", n + 1));
        rows.push(Row {
            line: n + 1,
            item,
            status,
            example: words(example),
        });
    }
    rows
}

/// The fixture: `t/` in a temporary directory, and a NUL-separated list
/// of paths `list0` beside it for `-files0-from`.
///
/// Access times are set in the future (2030) so that reading the tree
/// (both tools read every directory) changes none of them under
/// `relatime`, which updates an access time only when it is older than
/// the modification or change time or a day old.
fn fixture() -> tempfile::TempDir {
    let tmp = tempfile::Builder::new()
        .prefix("dents-conformance-")
        .tempdir()
        .unwrap();
    let t = tmp.path().join("t");
    for d in ["t", "t/d", "t/d/deeper", "t/empty"] {
        fs::create_dir(tmp.path().join(d)).unwrap();
    }
    let file = |rel: &str, len: u64, mode: u32| {
        let p = tmp.path().join(rel);
        let f = fs::File::create(&p).unwrap();
        f.set_len(len).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(mode)).unwrap();
    };
    file("t/a.c", 10, 0o644);
    file("t/b.txt", 0, 0o600);
    file("t/x", 5000, 0o755);
    file("t/d/e.h", 2000, 0o640);
    file("t/d/deeper/f", 1, 0o644);
    file("t/.hidden", 3, 0o644);
    fs::hard_link(t.join("a.c"), t.join("d/a-link")).unwrap();
    symlink("a.c", t.join("l")).unwrap();
    symlink("nowhere", t.join("broken")).unwrap();
    symlink("d", t.join("ld")).unwrap();
    run_ok(Command::new("mkfifo").arg(t.join("fifo")));
    // An owner and a group without a name (for -nouser, -nogroup): only
    // root can give a file away.
    if dents_testfs::needs_root(
        "no file without an owner's name for -nouser/-nogroup, and none of root's \
         for the -uid/-gid/-user/-group rows: their examples may print nothing",
    ) {
        file("t/orphan", 2, 0o644);
        std::os::unix::fs::chown(t.join("orphan"), Some(4242), Some(4343)).unwrap();
    }
    fs::write(tmp.path().join("list0"), b"t/a.c\0t/d\0").unwrap();
    // Children before parents: setting a directory's times last.
    let mut paths: Vec<PathBuf> = Vec::new();
    collect(&t, &mut paths);
    paths.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
    for p in &paths {
        touch(p, &["-d", "2020-02-03 04:05:06.123456789"]);
        touch(p, &["-a", "-d", "2030-01-01 00:00:00"]);
    }
    touch(&t.join("x"), &["-m", "-d", "2021-06-07 08:09:10"]);
    tmp
}

/// Every path under `p`, `p` included, not following links.
fn collect(p: &Path, out: &mut Vec<PathBuf>) {
    out.push(p.to_path_buf());
    if fs::symlink_metadata(p).unwrap().is_dir() {
        for e in fs::read_dir(p).unwrap() {
            collect(&e.unwrap().path(), out);
        }
    }
}

/// Runs `program` with `args` in `cwd`, as the differential tests do.
fn run(program: &str, cwd: &Path, args: &[Vec<u8>]) -> Output {
    Command::new(program)
        .current_dir(cwd)
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env_remove("POSIXLY_CORRECT")
        .env_remove("LS_COLORS")
        .env("NO_COLOR", "1")
        .args(args.iter().map(|a| OsStr::from_bytes(a)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// The record separator of an example's output: NUL where it prints with
/// `-print0` or `-fprint0`, else newline.
fn separator(args: &[Vec<u8>]) -> u8 {
    if args.iter().any(|a| a == b"-print0" || a == b"-fprint0") {
        0
    } else {
        b'\n'
    }
}

/// Shows an example as a command line, for messages.
fn shown(args: &[Vec<u8>]) -> String {
    args.iter()
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The example's words with `{INO}` replaced by the inode number of
/// `t/a.c` in the fixture at `cwd`.
fn example_in(row: &Row, cwd: &Path) -> Vec<Vec<u8>> {
    use std::os::unix::fs::MetadataExt;
    let ino = fs::metadata(cwd.join("t/a.c")).unwrap().ino().to_string();
    row.example
        .iter()
        .map(|w| {
            String::from_utf8_lossy(w)
                .replace("{INO}", &ino)
                .into_bytes()
        })
        .collect()
}

/// Whether running the example changes the fixture: it then runs on a
/// fresh fixture for each tool.
fn destructive(row: &Row) -> bool {
    row.example.iter().any(|w| w == b"-delete")
}

/// Whether the fixture could give a file an owner and a group without a
/// name (only root can).
fn has_orphan(cwd: &Path) -> bool {
    cwd.join("t/orphan").exists()
}

/// Checks one row; returns what is wrong with it.  `shared` is the
/// fixture of the examples that change nothing.
fn check(row: &Row, shared: &Path) -> Option<String> {
    // Destructive examples run on fresh fixtures, one per tool.
    let fresh = destructive(row).then(|| (fixture(), fixture()));
    let (dcwd, gcwd) = match &fresh {
        Some((d, g)) => (d.path(), g.path()),
        None => (shared, shared),
    };
    let d = run(env!("CARGO_BIN_EXE_dents"), dcwd, &{
        let mut a = vec![b"find".to_vec()];
        a.extend(example_in(row, dcwd));
        a
    });
    let example = example_in(row, gcwd);
    let what = format!(
        "line {}: {} ({}): find {}",
        row.line,
        row.item,
        row.status,
        shown(&example)
    );
    let derr = String::from_utf8_lossy(&d.stderr);
    let gnu = || {
        let g = run("find", gcwd, &example);
        // An example that makes GNU find print nothing proves nothing.
        let says_something = !g.stdout.is_empty() || (!g.status.success() && !g.stderr.is_empty());
        let orphan_row = ["-nouser", "-nogroup"].contains(&row.item.as_str());
        // (Without root the fixture has no owner without a name, and its
        // files are not root's: see `fixture`.)
        let root_owner_row = ["-uid", "-gid", "-user", "-group"].contains(&row.item.as_str());
        let may_be_silent =
            (orphan_row && !has_orphan(gcwd)) || (root_owner_row && !dents_testfs::is_root());
        let silent = (!says_something && !may_be_silent).then(|| {
            format!(
                "GNU find prints nothing and exits {:?}: the example proves nothing",
                g.status.code()
            )
        });
        (g, silent)
    };
    match row.status.as_str() {
        "done" => {
            let (g, silent) = gnu();
            let mut diffs: Vec<String> = silent.into_iter().collect();
            if d.status.code() != g.status.code() {
                diffs.push(format!(
                    "exit status: dents {:?}, GNU {:?}",
                    d.status.code(),
                    g.status.code()
                ));
            }
            let sep = separator(&example);
            if sorted_records(&d.stdout, sep) != sorted_records(&g.stdout, sep) {
                diffs.push(format!(
                    "stdout:\n  dents: {:?}\n  GNU:   {:?}",
                    String::from_utf8_lossy(&d.stdout),
                    String::from_utf8_lossy(&g.stdout)
                ));
            }
            if stderr_lines(&d.stderr, "dents") != stderr_lines(&g.stderr, "find") {
                diffs.push(format!(
                    "stderr:\n  dents: {derr:?}\n  GNU:   {:?}",
                    String::from_utf8_lossy(&g.stderr)
                ));
            }
            if fresh.is_some() {
                let (left_d, left_g) = (tree(dcwd), tree(gcwd));
                if left_d != left_g {
                    diffs.push(format!(
                        "left after the run:\n  dents: {left_d:?}\n  GNU:   {left_g:?}"
                    ));
                }
            }
            (!diffs.is_empty()).then(|| format!("{what}\n  {}", diffs.join("\n  ")))
        }
        "partial" => {
            let (g, silent) = gnu();
            let refused = derr.contains("unknown predicate") || derr.contains("not supported");
            let status_ok = d.status.code() == Some(0) || d.status.code() == g.status.code();
            if let Some(s) = silent {
                return Some(format!("{what}\n  {s}"));
            }
            (refused || !status_ok).then(|| {
                format!(
                    "{what}\n  partial, but dents exits {:?} (GNU {:?}): {derr}",
                    d.status.code(),
                    g.status.code()
                )
            })
        }
        "no" => (d.status.success() || derr.is_empty()).then(|| {
            format!(
                "{what}\n  the report says not done, but dents accepted it (exit {:?}, stderr {derr:?})",
                d.status.code()
            )
        }),
        "extension" => (!d.status.success())
            .then(|| format!("{what}\n  dents exits {:?}: {derr}", d.status.code())),
        _ => unreachable!(),
    }
}

/// The paths under `cwd/t`, relative to `cwd`, sorted.
fn tree(cwd: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    collect(&cwd.join("t"), &mut paths);
    let mut rel: Vec<PathBuf> = paths
        .into_iter()
        .map(|p| p.strip_prefix(cwd).unwrap().to_path_buf())
        .collect();
    rel.sort();
    rel
}

#[test]
fn every_row_of_the_report_is_what_it_says() {
    let tmp = fixture();
    let rows = rows();
    assert!(rows.len() > 100, "only {} rows read", rows.len());
    let failures: Vec<String> = rows.iter().filter_map(|r| check(r, tmp.path())).collect();
    assert!(
        failures.is_empty(),
        "{} of {} rows of docs/conformance.md are wrong:\n\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n\n")
    );
}

/// The items GNU find names: in `find --help`, every word starting with
/// `-`; in its manual page (where installed), every primary, `-printf`
/// directive, escape and time key that heads a paragraph.
fn gnu_items() -> BTreeSet<String> {
    let help = Command::new("find").arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    // Parenthesised text is commentary ("N can be +N or -N or N").
    let mut plain = String::new();
    let mut depth = 0;
    for c in help.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let help = plain;
    let mut items = BTreeSet::new();
    for w in help.split(|c: char| c.is_whitespace() || c == '[' || c == ']') {
        let w = w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
        if w.len() > 1
            && w.starts_with('-')
            && w[1..].starts_with(|c: char| c.is_ascii_alphabetic())
        {
            items.insert(w.to_string());
        }
    }
    let man = Command::new("sh")
        .args(["-c", "zcat /usr/share/man/man1/find.1.gz"])
        .output()
        .unwrap();
    if !man.status.success() || man.stdout.is_empty() {
        dents_testfs::skip(
            "no manual page for find (/usr/share/man/man1/find.1.gz); \
             only `find --help` was checked against docs/conformance.md",
        );
        return items;
    }
    let man = String::from_utf8_lossy(&man.stdout).into_owned();
    // Inside the -printf section, time keys are `.IP X` lines between the
    // `%A` directive and the next directive.
    let mut in_time_keys = false;
    for line in man.lines() {
        let Some(rest) = line.strip_prefix(".IP ") else {
            continue;
        };
        // Italic heads are notation (`-n` for "less than n"), not items.
        if rest.starts_with("\\fI") {
            continue;
        }
        let head = rest
            .trim_matches('"')
            .split(|c: char| c.is_whitespace())
            .next()
            .unwrap_or("")
            .replace("\\fIk\\fP", "k")
            .replace("\\fI", "")
            .replace("\\fR", "")
            .replace("\\fP", "")
            .replace("\\-", "-");
        if let Some(p) = head.strip_prefix('-') {
            let p = p.trim_end_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_');
            if !p.is_empty() {
                items.insert(format!("-{p}"));
            }
        } else if head.starts_with('%') {
            in_time_keys = head == "%Ak";
            items.insert(head.replace("\\e", "\\"));
        } else if let Some(e) = head.strip_prefix("\\e") {
            items.insert(format!("\\{}", e.replace("\\e", "\\")));
        } else if in_time_keys && head.chars().count() == 1 {
            items.insert(format!("k={head}"));
        }
    }
    items
}

#[test]
fn the_report_names_everything_gnu_find_names() {
    let have: BTreeSet<String> = rows().into_iter().map(|r| r.item).collect();
    let missing: Vec<String> = gnu_items()
        .into_iter()
        .filter(|i| !have.contains(i))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/conformance.md has no row for: {}",
        missing.join(" ")
    );
}

#[test]
fn the_example_splitter_reads_shell_quotes() {
    assert_eq!(
        words(r#"t -name '*.c' -exec echo {} \; -printf "%p\n""#),
        vec![
            b"t".to_vec(),
            b"-name".to_vec(),
            b"*.c".to_vec(),
            b"-exec".to_vec(),
            b"echo".to_vec(),
            b"{}".to_vec(),
            b";".to_vec(),
            b"-printf".to_vec(),
            b"%p\\n".to_vec(),
        ]
    );
    assert_eq!(cells(r"| `a\|b` | done | x |"), vec!["`a|b`", "done", "x"]);
}

#[test]
fn outputs_compare_with_their_separators_and_stderr_as_bytes() {
    // A -print0 that printed newlines must not compare equal.
    let print0 = [b"t".to_vec(), b"-print0".to_vec()];
    assert_eq!(separator(&print0), 0);
    let sep = separator(&print0);
    assert_ne!(
        sorted_records(b"t\0t/a\0", sep),
        sorted_records(b"t\nt/a\n", sep)
    );
    assert_ne!(
        sorted_records(b"t\nt/a\n", b'\n'),
        sorted_records(b"t\nt/a", b'\n')
    );
    assert_eq!(
        sorted_records(b"t/b\nt/a\n", b'\n'),
        sorted_records(b"t/a\nt/b\n", b'\n')
    );
    // Invalid UTF-8 in a message is compared as it is.
    assert_ne!(
        stderr_lines(b"dents: '\xff': x\n", "dents"),
        stderr_lines(b"find: '\xfe': x\n", "find")
    );
    assert_eq!(
        stderr_lines(b"dents: '\xff': x\n", "dents"),
        stderr_lines(b"find: '\xff': x\n", "find")
    );
}
