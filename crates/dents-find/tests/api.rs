//! The library API: a command read with `Command::parse`, run to a
//! caller's sink, compared with GNU find on the same tree; parse errors
//! with GNU's message and dents's hint; the exit status of each run.

use std::io::{self, Write};
use std::process;
use std::sync::{Arc, Mutex};

use dents_find::{Command, ExitStatus};

/// Runs are one at a time per process (the exit status is the
/// process's): the tests take turns.
static TURN: Mutex<()> = Mutex::new(());

/// A sink gathering everything written to it.
#[derive(Clone, Default)]
struct Gathered(Arc<Mutex<Vec<u8>>>);

impl Write for Gathered {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

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
    let out = sink.0.lock().unwrap().clone();
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
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let t = tree();
    let root = t.path().to_str().unwrap();
    let newer = t.path().join("d3/e0/f4.h");
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
fn exit_status_of_each_run() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
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

#[test]
fn misspelt_primaries_get_a_hint_beside_gnus_message() {
    for (word, meant) in [
        ("-nmae", "-name"),
        ("-prnit", "-print"),
        ("-maxdepht", "-maxdepth"),
        ("-exectuable", "-executable"),
        ("-tpye", "-type"),
    ] {
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
    for word in ["-foo", "-x", "-Dtree", "-frobnicate"] {
        let e = Command::parse([".", word]).unwrap_err();
        assert_eq!(e.message, format!("unknown predicate `{word}'").as_bytes());
        assert_eq!(e.hint, None, "{word}");
    }
}

#[test]
fn gnu_messages_for_bad_lines() {
    let e = Command::parse([".", "-name"]).unwrap_err();
    assert_eq!(e.message, b"missing argument to `-name'");
    assert_eq!(e.hint, None);
    let e = Command::parse([".", "-name", "a", "-o"]).unwrap_err();
    assert_eq!(e.message, b"expected an expression after '-o'");
}
