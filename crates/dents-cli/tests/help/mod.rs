//! The options and commands that `--help` lists, read out of its text, for
//! the tests that keep the manual pages (man_pages.rs) and the shell
//! completions (completions.rs) true to it.

// Each test binary compiles this module and uses a part of it.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A program whose `--help` a page or a completion must match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Program {
    /// `dents` itself: its commands.
    Dents,
    /// `dents ls`, `dents find`, `dents du`.
    Sub(&'static str),
    /// `dents-mpi`, built apart (it needs MPI): its usage on stderr.
    Mpi,
}

/// The workspace's root, where man/ and completions/ are.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `dents-mpi` binary, beside `dents` when the workspace's tests (or
/// `cargo build --release -p dents-mpi`) built it.
pub fn mpi_binary() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_dents")).with_file_name("dents-mpi")
}

/// The text of `--help`, or `None` for `dents-mpi` when it is not built.
pub fn help_text(program: Program) -> Option<String> {
    let out = match program {
        Program::Dents => Command::new(env!("CARGO_BIN_EXE_dents"))
            .arg("--help")
            .output(),
        Program::Sub(cmd) => Command::new(env!("CARGO_BIN_EXE_dents"))
            .args([cmd, "--help"])
            .output(),
        Program::Mpi => {
            let bin = mpi_binary();
            if !bin.exists() {
                return None;
            }
            // Its usage is its help: printed on stderr, status 2.
            let out = Command::new(bin)
                .arg("--help")
                .output()
                .expect("dents-mpi runs");
            let text = String::from_utf8(out.stderr).expect("usage is UTF-8");
            // Only what follows the program's name: `mpirun -np` is not ours.
            return Some(
                text.lines()
                    .filter_map(|l| l.split_once("dents-mpi").map(|(_, r)| r))
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
        }
    }
    .expect("dents runs");
    assert!(out.status.success(), "--help failed: {out:?}");
    Some(String::from_utf8(out.stdout).expect("--help is UTF-8"))
}

/// The option words of a line (`-a`, `--all`, `-newerXY`, `-Olevel`): a
/// dash or two and a letter or digit after a blank, `[`, `(`, `'` or `,`,
/// up to the first character that is not a letter, digit, `_` or `-`
/// (so `--block-size=SIZE` gives `--block-size`).
pub fn option_words(line: &str) -> Vec<String> {
    let b = line.as_bytes();
    let mut words = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let boundary = i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'[' | b'(' | b'\'' | b',');
        if b[i] == b'-' && boundary {
            let mut j = i + 1;
            if j < b.len() && b[j] == b'-' {
                j += 1;
            }
            if j < b.len() && b[j].is_ascii_alphanumeric() {
                let mut k = j;
                while k < b.len() && (b[k].is_ascii_alphanumeric() || b[k] == b'_' || b[k] == b'-')
                {
                    k += 1;
                }
                words.push(line[i..k].to_owned());
                i = k;
                continue;
            }
        }
        i += 1;
    }
    words
}

/// Every option word of a `--help` text.
///
/// In a table of options (`columns`: du's and ls's help, one option a
/// line, then its description) only the option column counts: a
/// description may name another program's option (`ncdu -f FILE`).  In
/// find's help, options stand in running lists; there section headers
/// (unindented lines ending in `:`) are left out, since "Tests (N can be
/// +N or -N or N):" names no option.
pub fn help_options(text: &str, columns: bool) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| {
            let t = l.trim_start();
            if columns {
                // The column ends where two blanks start the description.
                t.starts_with('-')
                    .then(|| t.split("  ").next().unwrap_or(t))
            } else {
                let header = !l.starts_with(' ') && l.trim_end().ends_with(':');
                (!header).then_some(l)
            }
        })
        .flat_map(option_words)
        .collect()
}

/// The commands of `dents --help`: the first word of each indented line
/// under "Commands:".
pub fn help_commands(text: &str) -> BTreeSet<String> {
    text.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}
