//! The library API: a command read with `Command::parse`, run to a
//! caller's sink, compared with GNU find on the same tree; parse errors
//! with GNU's message and dents's hint; the exit status of each run.
//! The tests run at once, as the harness likes: each command has its own
//! exit status (tests/commands_at_once.rs).

use std::io::{self, Write};
use std::process;
use std::sync::{Arc, Mutex};

use dents_find::{Command, ExitStatus};
use dents_testfs::Gathered;

/// A tree of a few hundred files and directories, some `.h`.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for d in 0..12 {
        let sub = dir.path().join(format!("d{d}/e{}", d % 3));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..20 {
            let ext = if f % 4 == 0 { "h" } else { "c" };
            std::fs::write(sub.join(format!("f{f}.{ext}")), vec![b'x'; f * d]).unwrap();
        }
    }
    dir
}

/// `dents_find` with `args`, its records (split at `sep`) sorted, and
/// its status.
fn dents(args: &[&str], sep: u8) -> (Vec<Vec<u8>>, ExitStatus) {
    let sink = Gathered::default();
    let status = Command::parse(args).unwrap().run_to(sink.clone());
    let out = sink.bytes();
    (records(&out, sep), status)
}

/// GNU find's records with `args`, sorted.
fn gnu(args: &[&str], sep: u8) -> Vec<Vec<u8>> {
    let o = process::Command::new("find").args(args).output().unwrap();
    records(&o.stdout, sep)
}

fn records(out: &[u8], sep: u8) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = out
        .split(|&b| b == sep)
        .filter(|r| !r.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    v.sort();
    v
}

#[test]
fn runs_to_a_sink_as_gnu_find_prints() {
    let t = tree();
    let root = t.path().to_str().unwrap();
    let newer = t.path().join("d3/e0/f4.h");
    // An hour back: files written in the same clock tick would not be
    // newer, and `-newer` would find nothing.
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&newer)
        .unwrap()
        .set_modified(past)
        .unwrap();
    let newer = newer.to_str().unwrap();
    let cases: &[(&[&str], u8)] = &[
        (&[root], b'\n'),
        (&[root, "-name", "*.h", "-print0"], 0),
        (&[root, "-printf", "%p %s\\n"], b'\n'),
        (&[root, "-name", "*.h", "-newer", newer], b'\n'),
        (&[root, "-type", "d", "-o", "-size", "+40c"], b'\n'),
        (&[root, "-maxdepth", "2", "-ls"], b'\n'),
    ];
    for (args, sep) in cases {
        let (found, status) = dents(args, *sep);
        assert!(status.success(), "{args:?}: {status:?}");
        assert!(!found.is_empty(), "{args:?}: nothing found");
        assert_eq!(found, gnu(args, *sep), "{args:?}");
    }
}

#[test]
fn an_evaluator_on_walks_of_the_callers_own() {
    let t = tree();
    let roots: Vec<String> = ["d1", "d7/e1", "d10"]
        .iter()
        .map(|r| t.path().join(r).to_str().unwrap().to_string())
        .collect();
    let sink = Gathered::default();
    let command = Command::parse(["-name", "*.h", "-size", "+30c", "-print0"]).unwrap();
    let search = command.search_to(sink.clone()).unwrap();
    let evaluator = search.evaluator();
    // One walk per root, as a caller with work items of its own walks.
    for root in &roots {
        let one = [root.as_bytes().to_vec()];
        evaluator.set_roots(&one);
        dents::walk::walk(&one, search.walk_options(), &evaluator);
    }
    let status = search.finish(&evaluator);
    drop(evaluator);
    drop(search);
    assert!(status.success());
    let found = records(&sink.bytes(), 0);
    let mut args: Vec<&str> = roots.iter().map(String::as_str).collect();
    args.extend(["-name", "*.h", "-size", "+30c", "-print0"]);
    assert!(!found.is_empty());
    assert_eq!(found, gnu(&args, 0));
}

#[test]
fn exit_status_of_each_run() {
    let t = tree();
    let missing = t.path().join("nope");
    let (found, status) = dents(&[missing.to_str().unwrap()], b'\n');
    assert!(found.is_empty());
    assert_eq!(status.code(), 1);
    assert!(!status.success());
    // The next command starts afresh.
    let (_, status) = dents(&[t.path().to_str().unwrap(), "-false"], b'\n');
    assert_eq!(status.code(), 0);
}

#[test]
fn starting_points() {
    let c = Command::parse(["a", "b", "-name", "x"]).unwrap();
    assert_eq!(c.paths(), [b"a".to_vec(), b"b".to_vec()]);
    let c = Command::parse(["-true"]).unwrap();
    assert_eq!(c.paths(), [b".".to_vec()]);
}

/// One case of `misspelt_primaries`: `WORD`, a misspelling of `MEANT`,
/// gets GNU's message and a hint naming `MEANT` on a line of its own.
fn check_misspelt_primary((word, meant): (&str, &str)) {
    let e = Command::parse([".", word, "x"]).unwrap_err();
    assert_eq!(e.message, format!("unknown predicate `{word}'").as_bytes());
    let hint = String::from_utf8(e.hint.clone().expect(word)).unwrap();
    assert!(
        hint.starts_with("did you mean ") && hint.contains(meant),
        "{word}: {hint}"
    );
    let shown = e.to_string();
    let mut lines = shown.lines();
    assert_eq!(
        lines.next(),
        Some(format!("unknown predicate `{word}'").as_str())
    );
    assert_eq!(lines.next(), Some(hint.as_str()));
}

dents_testfs::test_cases! {
/// Misspelt primaries get a hint beside GNU's message.
mod misspelt_primaries: (&str, &str) => check_misspelt_primary;
    nmae: ("-nmae", "-name"),
    prnit: ("-prnit", "-print"),
    maxdepht: ("-maxdepht", "-maxdepth"),
    exectuable: ("-exectuable", "-executable"),
    tpye: ("-tpye", "-type"),
}

/// One case of `unknown_primaries`: `WORD`, like no primary, gets GNU's
/// message and no hint.
fn check_unknown_primary(word: &str) {
    let e = Command::parse([".", word]).unwrap_err();
    assert_eq!(e.message, format!("unknown predicate `{word}'").as_bytes());
    assert_eq!(e.hint, None, "{word}");
}

dents_testfs::test_cases! {
/// Words far from every primary: no hint.
mod unknown_primaries: &str => check_unknown_primary;
    foo: "-foo",
    x: "-x",
    d_tree: "-Dtree",
    frobnicate: "-frobnicate",
}

#[test]
fn gnu_messages_for_bad_lines() {
    let e = Command::parse([".", "-name"]).unwrap_err();
    assert_eq!(e.message, b"missing argument to `-name'");
    assert_eq!(e.hint, None);
    let e = Command::parse([".", "-name", "a", "-o"]).unwrap_err();
    assert_eq!(e.message, b"expected an expression after '-o'");
}

/// One case of `parse_print0`: `Command::parse_print0` ends the
/// implicit `-print` with a NUL (an explicit `-print` keeps its newline),
/// as GNU find with `-print0` added.
fn check_parse_print0(expr: &[&str]) {
    let t = tree();
    let root = t.path().to_str().unwrap();
    std::fs::write(t.path().join("new\nline.h"), b"").unwrap();
    let args: Vec<&str> = [root].iter().copied().chain(expr.iter().copied()).collect();
    let sink = Gathered::default();
    let status = Command::parse_print0(&args).unwrap().run_to(sink.clone());
    assert!(status.success());
    let out = sink.bytes();
    // An explicit -print keeps its newline; the implicit one is -print0.
    let sep = if expr.contains(&"-print") {
        b'\n'
    } else {
        b'\0'
    };
    let mut gnu_args = args.clone();
    if sep == b'\0' {
        gnu_args.push("-print0");
    }
    assert_eq!(records(&out, sep), gnu(&gnu_args, sep), "{expr:?}");
}

dents_testfs::test_cases! {
/// `parse_print0` ends the implicit print with NUL.
mod parse_print0: &[&str] => check_parse_print0;
    name: &["-name", "*.h"],
    nothing: &[],
    name_and_explicit_print: &["-name", "*.h", "-print"],
}

/// A sink that takes `left` writes, then fails as a closed pipe does.
struct Leaving {
    left: usize,
    writes: Arc<Mutex<usize>>,
}

impl Write for Leaving {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        *self.writes.lock().unwrap() += 1;
        if self.left == 0 {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        self.left -= 1;
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn run_to_reader_stops_the_walk_when_the_reader_leaves() {
    // Enough entries for many 64 KiB buffers: 4000 names of 100 bytes.
    let dir = tempfile::tempdir().unwrap();
    for d in 0..40 {
        let sub = dir.path().join(format!("d{d:02}"));
        std::fs::create_dir(&sub).unwrap();
        for f in 0..100 {
            std::fs::write(sub.join(format!("{f:03}{}", "x".repeat(90))), b"").unwrap();
        }
    }
    let root = dir.path().to_str().unwrap();
    let seen = dir.path().join("seen");
    let seen_arg = seen.to_str().unwrap();
    // Each run: the writes the sink saw, the entries visited (each one
    // also goes to the file `seen`), and the status.
    let count = |left: usize, reader: bool| {
        let writes = Arc::new(Mutex::new(0));
        let sink = Leaving {
            left,
            writes: Arc::clone(&writes),
        };
        let args = [
            "-j", "1", root, "-name", "seen", "-prune", "-o", "-print", "-fprint", seen_arg,
        ];
        let command = Command::parse(args).unwrap();
        let status = if reader {
            command.run_to_reader(sink)
        } else {
            command.run_to(sink)
        };
        let n = *writes.lock().unwrap();
        let visited = std::fs::read(&seen)
            .unwrap()
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        (n, visited, status)
    };
    let (all, visited_all, status) = count(usize::MAX, true);
    assert!(status.success());
    assert!(all >= 5, "{all} writes: the tree is too small to tell");
    assert_eq!(visited_all, 4041);
    // The reader leaves after one buffer: the walk stops at the failed
    // write, quietly, the status unchanged.
    let (n, visited, status) = count(1, true);
    assert_eq!(n, 2);
    assert!(
        visited < visited_all / 2,
        "{visited} of {visited_all} visited"
    );
    assert!(status.success());
    // run_to reports the failure (status 1) and walks on, dropping output.
    let (n, visited, status) = count(1, false);
    assert_eq!(n, 2);
    assert_eq!(visited, visited_all);
    assert!(!status.success());
}

#[test]
fn run_to_reader_until_stops_when_told_though_nothing_is_written() {
    // A walk that prints nothing has no write to fail: only the flag
    // stops it (what a Python iterator closed early sets).
    let dir = tempfile::tempdir().unwrap();
    for d in 0..40 {
        let sub = dir.path().join(format!("d{d:02}"));
        std::fs::create_dir(&sub).unwrap();
        for f in 0..100 {
            std::fs::write(sub.join(format!("{f:03}")), b"").unwrap();
        }
    }
    let root = dir.path().to_str().unwrap();
    let seen = dir.path().join("seen");
    let seen_arg = seen.to_str().unwrap();
    // The entries visited (each written to `seen`) and the status.
    let run = |stopped: bool| {
        let args = [
            "-j", "1", root, "-name", "seen", "-prune", "-o", "-fprint", seen_arg, "-false",
        ];
        let command = Command::parse(args).unwrap();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(stopped));
        let status = command.run_to_reader_until(io::sink(), stop);
        let visited = std::fs::read(&seen)
            .unwrap()
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        (visited, status)
    };
    let (all, status) = run(false);
    assert!(status.success());
    assert_eq!(all, 4041);
    let (visited, status) = run(true);
    assert!(visited < 10, "{visited} of {all} visited");
    assert!(status.success(), "stopping is no problem");
}
