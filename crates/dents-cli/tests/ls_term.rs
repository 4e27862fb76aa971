//! `dents ls` for people: GNU ls's output where GNU sorts, lays out in
//! columns, paints and quotes, compared byte for byte with GNU ls's
//! stdout, stderr and exit status, into a pipe and on a pseudo-terminal
//! (util-linux `script`), in the C and UTF-8 locales.
//!
//! dents names itself `dents` in messages where GNU says `ls`; that is
//! the only normalisation.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn dents_bin() -> &'static str {
    env!("CARGO_BIN_EXE_dents")
}

/// A command with a clean environment for ls: locale `lc`, UTC, no
/// colors, quoting or width from the caller's environment.
fn clean(cmd: &mut Command, lc: &str) {
    cmd.env("LC_ALL", lc)
        .env("TZ", "UTC")
        .env("TERM", "xterm")
        .env_remove("TIME_STYLE")
        .env_remove("LS_COLORS")
        .env_remove("COLUMNS")
        .env_remove("QUOTING_STYLE")
        .env_remove("TABSIZE")
        .env_remove("COLORTERM")
        .env_remove("BLOCK_SIZE")
        .env_remove("LS_BLOCK_SIZE")
        .env_remove("POSIXLY_CORRECT")
        .stdin(Stdio::null());
}

/// Runs `dents ls ARGS` and `ls ARGS` in `cwd` with extra `env`.
/// `--sort=name` (dents's way to ask for GNU's default order off a
/// terminal; GNU 9.1 does not know the word) is given to dents only.
fn both(cwd: &Path, lc: &str, env: &[(&str, &str)], args: &[&[u8]]) -> (Output, Output) {
    let mut d = Command::new(dents_bin());
    clean(&mut d, lc);
    d.current_dir(cwd).arg("ls");
    let mut g = Command::new("ls");
    clean(&mut g, lc);
    g.current_dir(cwd);
    for a in args {
        d.arg(OsStr::from_bytes(a));
        if *a != b"--sort=name" {
            g.arg(OsStr::from_bytes(a));
        }
    }
    for (k, v) in env {
        d.env(k, v);
        g.env(k, v);
    }
    (d.output().unwrap(), g.output().unwrap())
}

/// GNU's stderr in dents's words: the program's name.
fn as_dents(stderr: &[u8]) -> Vec<u8> {
    let s = String::from_utf8_lossy(stderr);
    // Only the names change; invalid bytes in GNU messages would be
    // compared lossily on both sides.
    s.replace("\nls: ", "\ndents: ")
        .replacen("ls: ", "dents: ", usize::from(s.starts_with("ls: ")))
        .replace("Try 'ls --help'", "Try 'dents ls --help'")
        .into_bytes()
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).escape_debug().to_string()
}

/// Asserts that dents and GNU ls agree on stdout, stderr and status.
#[track_caller]
fn same(cwd: &Path, lc: &str, env: &[(&str, &str)], args: &[&[u8]]) {
    let (d, g) = both(cwd, lc, env, args);
    let shown: Vec<String> = args.iter().map(|a| show(a)).collect();
    assert_eq!(
        show(&d.stdout),
        show(&g.stdout),
        "stdout of {shown:?} in {lc} {env:?}"
    );
    assert_eq!(
        show(&String::from_utf8_lossy(&d.stderr).into_owned().into_bytes()),
        show(&as_dents(&g.stderr)),
        "stderr of {shown:?} in {lc} {env:?}"
    );
    assert_eq!(d.status.code(), g.status.code(), "status of {shown:?}");
}

/// `same` for string arguments.
#[track_caller]
fn same_s(cwd: &Path, lc: &str, env: &[(&str, &str)], args: &[&str]) {
    let a: Vec<&[u8]> = args.iter().map(|s| s.as_bytes()).collect();
    same(cwd, lc, env, &a);
}

fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("dents-ls-term-")
        .tempdir()
        .unwrap()
}

fn touch(p: &Path) {
    fs::File::create(p).unwrap();
}

// ---------------------------------------------------------------------
// Issue 10, defect 7: inode numbers.

#[test]
fn inode_numbers_are_the_stats_as_gnu() {
    let t = tmp();
    let d = t.path();
    touch(&d.join("f"));
    fs::create_dir(d.join("dir")).unwrap();
    touch(&d.join("dir/x"));
    for lc in ["C", "C.UTF-8"] {
        // File operands and -d: the stat's number, not 0.
        same_s(d, lc, &[], &["-i", "f"]);
        same_s(d, lc, &[], &["-id", "dir"]);
        same_s(d, lc, &[], &["-id", "--sort=name", "dir", "f", "."]);
        // `.` and `..` in a sorted listing.
        same_s(d, lc, &[], &["-ia", "--sort=name", "dir"]);
        // At a mount point: the mounted root's number (/proc is 1).
        same_s(d, lc, &[], &["-id", "--sort=name", "/proc", "/"]);
        same_s(d, lc, &[], &["-i", "--sort=name", "/"]);
        // Padded to the widest, as GNU pads in a gathered listing.
        same_s(d, lc, &[], &["-i", "--sort=name", "f", "/"]);
    }
    // Streamed (unsorted): GNU's `-U` streams too and pads nothing; only
    // the order of lines may differ.
    let (dn, g) = both(d, "C", &[], &[b"-i", b"/"]);
    let (_, gu) = both(d, "C", &[], &[b"-i", b"-U", b"/"]);
    let lines = |b: &[u8]| {
        let mut v: Vec<Vec<u8>> = b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
        v.sort();
        v
    };
    assert_eq!(lines(&dn.stdout), lines(&gu.stdout));
    assert!(g.status.success() && dn.status.success());
}

// ---------------------------------------------------------------------
// Issue 10, defect 13: ls's own descriptors in /proc/self/fd.

#[test]
fn proc_self_fd_lists_without_errors() {
    for args in [
        &["-l", "/proc/self/fd"][..],
        &["-l", "--sort=name", "/proc/self/fd/"],
    ] {
        let mut c = Command::new(dents_bin());
        clean(&mut c, "C");
        let o = c.arg("ls").args(args).output().unwrap();
        assert_eq!(show(&o.stderr), "", "{args:?}");
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(out.starts_with("total 0\n"), "{out}");
        // Every descriptor listed could be read: a link with its target.
        for line in out.lines().skip(1) {
            assert!(line.starts_with('l') && line.contains(" -> "), "{out}");
        }
    }
}

// ---------------------------------------------------------------------
// Issue 10, defect 14: widths of the files' listing count the
// directory operands.

#[test]
fn long_widths_count_directory_operands() {
    let t = tmp();
    let d = t.path();
    touch(&d.join("f"));
    fs::create_dir(d.join("big")).unwrap();
    for i in 0..12 {
        fs::create_dir(d.join(format!("big/s{i}"))).unwrap();
    }
    fs::write(d.join("big/large"), vec![0u8; 123_456]).unwrap();
    for lc in ["C", "C.UTF-8"] {
        same_s(d, lc, &[], &["-l", "--sort=name", "f", "big"]);
        same_s(d, lc, &[], &["-li", "--sort=name", "f", "big"]);
        same_s(d, lc, &[], &["-l", "-t", "big", "f"]);
    }
}
