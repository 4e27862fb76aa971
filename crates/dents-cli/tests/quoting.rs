//! Names quoted as GNU's `shell-escape` style quotes them (issue 24.19):
//! in messages (`dents ls` and `dents du` on a missing operand, against
//! GNU ls and du) and in listings on a pseudo-terminal (`dents ls` against
//! GNU ls), one `#[test]` per name.  Runs of escapes share one `$'...'`,
//! a name ending in an escape is closed by one quote, and a name with a
//! single quote is quoted as gnulib's two passes leave it.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};

use dents_testfs::cli::clean_ls_env;

/// `prog ARGS` in `cwd` and the C.UTF-8 locale: stderr with the program's
/// name as `PROG`, and the exit status.
fn message(cwd: &Path, prog: &[&str], name: &[u8]) -> (String, Option<i32>) {
    let mut c = Command::new(prog[0]);
    clean_ls_env(&mut c, "C.UTF-8");
    c.current_dir(cwd)
        .args(&prog[1..])
        .arg("--")
        .arg(OsStr::from_bytes(name));
    let o = c.output().unwrap();
    let text = String::from_utf8_lossy(&o.stderr)
        .replacen("dents: ", "PROG: ", 1)
        .replacen("ls: ", "PROG: ", 1)
        .replacen("du: ", "PROG: ", 1);
    (text, o.status.code())
}

/// What reached a pseudo-terminal of 80 columns running `sh -c SCRIPT`
/// in `cwd` (util-linux `script`), or `None` without `script` (skipped
/// loudly; a failure under CI).
fn on_pty(cwd: &Path, script: &str) -> Option<Vec<u8>> {
    if !dents_testfs::cli::have_program("script", "--version") {
        dents_testfs::skip("util-linux script is not installed");
        return None;
    }
    let log = cwd.join("..").join("typescript");
    let mut c = Command::new("script");
    clean_ls_env(&mut c, "C.UTF-8");
    c.args(["-q", "-e", "-c", &format!("stty cols 80 rows 24; {script}")])
        .arg(&log)
        .current_dir(cwd)
        .env("DENTS", env!("CARGO_BIN_EXE_dents"))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    assert!(c.status().unwrap().success());
    let mut ts = fs::read(&log).unwrap();
    fs::remove_file(&log).unwrap();
    if let Some(i) = ts.iter().position(|&b| b == b'\n') {
        ts.drain(..=i);
    }
    if let Some(i) = ts.windows(12).rposition(|w| w == b"\nScript done") {
        ts.truncate(i);
    }
    Some(ts)
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).escape_debug().to_string()
}

/// One name: quoted in the messages of `dents ls` and `dents du` as GNU
/// ls and du quote it, and listed (`-1`, `-l`) on a terminal as GNU ls
/// lists it.
fn check_name(name: &[u8]) {
    let tmp = tempfile::tempdir().unwrap();
    let dents = env!("CARGO_BIN_EXE_dents");
    for (ours, gnus) in [(&[dents, "ls"][..], &["ls"][..]), (&[dents, "du"], &["du"])] {
        let d = message(tmp.path(), ours, name);
        let g = message(tmp.path(), gnus, name);
        assert_eq!(d, g, "message of {ours:?} for {:?}", show(name));
    }
    let dir = tmp.path().join("d");
    fs::create_dir(&dir).unwrap();
    fs::File::create(dir.join(OsStr::from_bytes(name))).unwrap();
    for opts in ["-1", "-l -o -g --time-style=+x", "-C"] {
        let Some(d) = on_pty(&dir, &format!("\"$DENTS\" ls --sort=name {opts}")) else {
            return;
        };
        let g = on_pty(&dir, &format!("ls {opts}")).unwrap();
        assert_eq!(show(&d), show(&g), "ls {opts} of {:?}", show(name));
    }
}

dents_testfs::test_cases! {
/// Names whose quoting has a catch.
mod names: &[u8] => check_name;
    newline_at_the_end: b"x\n",
    newline_first: b"\nb",
    two_newlines_inside: b"a\n\nb",
    escapes_at_the_end: b"a\x01\x02",
    invalid_byte_at_the_end: b"x\xff",
    invalid_byte_alone: b"\xff",
    escape_character: b"e\x1bx",
    bell_and_friends: b"\x07\x08\x0c\x0b",
    delete_character: b"d\x7f",
    quote_then_newline: b"a'\n",
    quote_letter_newline: b"a'b\n",
    quote_then_two_escapes: b"a'\xff\xfe",
    newline_quote_newline: b"\na'\n",
    quote_first_then_newline: b"'a\n",
    newline_then_quote: b"\n'",
    quote_newline_letter: b"x'\ty",
    quote_alone: b"'",
    quote_and_dollar: b"a'$",
    quote_and_parenthesis: b"it's (x)",
    quote_and_question_mark: b"a'?",
    quote_and_at: b"a'@",
    quote_and_backslash: b"a'\\",
    quote_and_hash_after: b"a'#",
    quote_and_hash_first: b"#a'",
    quote_and_tilde_after: b"a'~",
    quote_and_brace: b"a'{",
    quote_and_accent: "a'é".as_bytes(),
    quote_and_harmless_punctuation: b"a'%+,-.:]_",
}
