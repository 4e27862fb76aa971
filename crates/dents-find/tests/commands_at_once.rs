//! Several find commands in one process, at once or one after another:
//! each has its own exit status and its own `-ls` columns (what GNU find
//! keeps in globals is each command's own here), and each one's output
//! is GNU find's.

use std::process;

use dents_find::Command;
use dents_testfs::{at_once, Gathered};

/// Small files only: no `-ls` column grows past GNU's minimum widths.
fn narrow_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for d in 0..6 {
        let sub = dir.path().join(format!("d{d}/e{}", d % 2));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..15 {
            let ext = if f % 3 == 0 { "h" } else { "c" };
            std::fs::write(sub.join(format!("f{f}.{ext}")), vec![b'x'; f + d]).unwrap();
        }
    }
    dir
}

/// A tree with a (sparse) file of 10 GB: its `-ls` line widens the size
/// column past GNU's minimum of 8.
fn wide_tree() -> tempfile::TempDir {
    let dir = narrow_tree();
    let big = std::fs::File::create(dir.path().join("d0/big")).unwrap();
    big.set_len(10_000_000_000).unwrap();
    dir
}

/// The records of `out`, split at newlines, sorted.
fn records(out: &[u8]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = out
        .split(|&b| b == b'\n')
        .filter(|r| !r.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    v.sort();
    v
}

/// GNU find's records with `args`, sorted.
fn gnu(args: &[String]) -> Vec<Vec<u8>> {
    let o = process::Command::new("find").args(args).output().unwrap();
    records(&o.stdout)
}

/// Runs `args` to a sink: its records and exit status.
fn run(args: &[String]) -> (Vec<Vec<u8>>, i32) {
    let sink = Gathered::default();
    let status = Command::parse(args).unwrap().run_to(sink.clone());
    let out = sink.bytes();
    (records(&out), status.code())
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// A second `-ls` starts from GNU's widths, not from where a first one
/// in the same process left them.
#[test]
fn a_second_ls_starts_with_gnus_widths() {
    let wide = wide_tree();
    let narrow = narrow_tree();
    let wide_args = strings(&[wide.path().to_str().unwrap(), "-ls"]);
    let (lines, status) = run(&wide_args);
    assert_eq!(status, 0);
    assert!(lines.iter().any(|l| l.ends_with(b"/d0/big")));
    let narrow_args = strings(&[narrow.path().to_str().unwrap(), "-ls"]);
    let (lines, status) = run(&narrow_args);
    assert_eq!(status, 0);
    assert_eq!(lines, gnu(&narrow_args), "the second -ls's columns");
}

/// Eight commands on eight threads, each run a few times with the others
/// under way: each gets its own output (GNU's) and its own status (1
/// where a starting point is missing, 0 elsewhere, whatever the others
/// met), and an `-ls` beside one that widens its columns keeps GNU's.
#[test]
fn eight_commands_on_eight_threads() {
    let wide = wide_tree();
    let narrow = narrow_tree();
    let w = wide.path().to_str().unwrap().to_string();
    let n = narrow.path().to_str().unwrap().to_string();
    let missing = format!("{n}/missing");
    let commands: Vec<(Vec<String>, i32)> = vec![
        (strings(&[&n, "-name", "*.h"]), 0),
        (strings(&[&missing, &n, "-name", "*.c", "-size", "-10c"]), 1),
        (strings(&[&n, "-ls"]), 0),
        (strings(&[&w, "-ls"]), 0),
        (strings(&[&n, &missing, "-type", "d"]), 1),
        (strings(&[&n, "-printf", "%p %s\\n"]), 0),
        (strings(&[&missing]), 1),
        (strings(&[&n, "-maxdepth", "2", "-ls"]), 0),
    ];
    let want: Vec<Option<Vec<Vec<u8>>>> = commands
        .iter()
        .map(|(args, _)| (!args.contains(&w)).then(|| gnu(args)))
        .collect();
    let commands: Vec<_> = commands
        .iter()
        .zip(&want)
        .map(|((args, status), want)| {
            move || {
                let mut failures = Vec::new();
                let (got, got_status) = run(args);
                if got_status != *status {
                    failures.push(format!("{args:?}: status {got_status}, not {status}"));
                }
                if want.as_ref().is_some_and(|w| *w != got) {
                    failures.push(format!("{args:?}: not GNU's output"));
                }
                failures
            }
        })
        .collect();
    at_once(5, &commands);
}
