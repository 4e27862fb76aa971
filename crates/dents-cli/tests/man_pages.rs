//! The manual pages under man/ are true to the programs: each page's
//! OPTIONS (and, for find, OPERATORS, TESTS and ACTIONS) tags name exactly
//! the options its `--help` lists, `dents(1)` names exactly the commands,
//! each page points to docs/conformance.md for what differs from GNU,
//! `dents-ls(1)` names as not implemented exactly the options that
//! docs/conformance.md marks **no**, and groff renders each without a
//! warning.

mod help;

use std::collections::BTreeSet;
use std::process::Command;

use help::{help_commands, help_options, help_text, option_words, root, Program};

/// A page and the program it documents: `dents`, a command of dents
/// (`ls`, `find`, `du`) or `dents-mpi`.
type Page = (&'static str, &'static str);

/// The program a page's second word names.
fn program(name: &'static str) -> Program {
    match name {
        "dents" => Program::Dents,
        "dents-mpi" => Program::Mpi,
        cmd => Program::Sub(cmd),
    }
}

/// The sections whose `.TP` tags are options.
const OPTION_SECTIONS: &[&str] = &["OPTIONS", "OPERATORS", "TESTS", "ACTIONS"];

/// The page's source with roff's escapes for fonts and dashes undone.
fn plain(roff: &str) -> String {
    roff.replace("\\fB", "")
        .replace("\\fI", "")
        .replace("\\fR", "")
        .replace("\\fP", "")
        .replace("\\-", "-")
}

/// The tags (the line after each `.TP`) of the sections whose names pass
/// `wanted`; a `.SS` stays in its `.SH`'s section.
fn tags(source: &str, wanted: impl Fn(&str) -> bool) -> Vec<String> {
    let mut section = String::new();
    let mut tags = Vec::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        if let Some(name) = line.strip_prefix(".SH ") {
            section = name.trim_matches('"').to_owned();
        } else if line.starts_with(".TP") && wanted(&section) {
            let tag = lines.next().unwrap_or_default();
            // `.B -x` or `.BR a ", " b`: the macro's arguments.
            let tag = match tag.split_once(' ') {
                Some((m, rest)) if m.starts_with('.') => rest.replace('"', ""),
                _ => tag.to_owned(),
            };
            tags.push(plain(&tag));
        }
    }
    tags
}

/// The option words the page's option sections tag.
fn page_options(source: &str) -> BTreeSet<String> {
    tags(source, |s| OPTION_SECTIONS.contains(&s))
        .iter()
        .flat_map(|t| option_words(t))
        .collect()
}

/// The first words of the COMMANDS section's tags.
fn page_commands(source: &str) -> BTreeSet<String> {
    tags(source, |s| s == "COMMANDS")
        .iter()
        .filter_map(|t| t.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// Fails, naming them, on words one side has and the other lacks.
/// `reference` names where `in_help` was read (`--help`, conformance.md).
fn assert_same(
    what: &str,
    page: &str,
    reference: &str,
    in_help: &BTreeSet<String>,
    in_page: &BTreeSet<String>,
) {
    let not_in_page: Vec<_> = in_help.difference(in_page).collect();
    let not_in_help: Vec<_> = in_page.difference(in_help).collect();
    assert!(
        not_in_page.is_empty() && not_in_help.is_empty(),
        "{page}: {what} in {reference} but not in the page: {not_in_page:?}; \
         in the page but not in {reference}: {not_in_help:?}"
    );
    assert!(
        !in_help.is_empty(),
        "{page}: no {what} read from {reference}"
    );
}

/// The options that docs/conformance.md's `dents ls` table marks **no**
/// (not implemented).
fn conformance_ls_missing() -> BTreeSet<String> {
    let doc = std::fs::read_to_string(root().join("docs/conformance.md")).expect("conformance.md");
    let table = &doc[doc
        .find("## `dents ls` and GNU ls")
        .expect("the ls section")..];
    table
        .lines()
        .filter(|l| {
            l.split('|')
                .nth(2)
                .is_some_and(|status| status.trim() == "no")
        })
        .flat_map(|l| option_words(&l.split('|').nth(1).unwrap_or_default().replace('`', "")))
        .collect()
}

/// The options that the page's "Not implemented" paragraph (in its
/// DIFFERENCES section, up to the next paragraph or section) names.
fn page_ls_missing(source: &str) -> BTreeSet<String> {
    let plain = plain(source);
    let from = plain
        .find("Not implemented")
        .expect("a Not implemented paragraph");
    plain[from..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with(".PP") && !l.starts_with(".SH"))
        .flat_map(|l| option_words(&l.replace(".BR ", "")))
        .collect()
}

/// groff's warnings (all of them, `-ww`) on rendering the page.
fn render_warnings(path: &std::path::Path) -> Option<String> {
    let out = match Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(path)
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            dents_testfs::skip(&format!(
                "groff cannot run ({e}): scripts/install-test-deps installs groff-base"
            ));
            return None;
        }
    };
    assert!(
        out.status.success(),
        "groff failed on {}: {out:?}",
        path.display()
    );
    Some(String::from_utf8_lossy(&out.stderr).into_owned())
}

fn check((file, name): Page) {
    let program = program(name);
    let path = root().join("man").join(file);
    let source = std::fs::read_to_string(&path).expect("the page exists");
    let Some(help) = help_text(program) else {
        dents_testfs::skip(&format!(
            "{} is not built (cargo build --release -p dents-mpi; it needs MPI)",
            help::mpi_binary().display()
        ));
        return;
    };
    match program {
        Program::Dents => assert_same(
            "commands",
            file,
            "--help",
            &help_commands(&help),
            &page_commands(&source),
        ),
        Program::Sub(cmd) => {
            let columns = cmd != "find";
            let in_help = help_options(&help, columns);
            assert_same("options", file, "--help", &in_help, &page_options(&source))
        }
        Program::Mpi => {
            let in_help = help_options(&help, false);
            assert_same("options", file, "--help", &in_help, &page_options(&source))
        }
    }
    if program == Program::Sub("ls") {
        // What the page says is missing is what the conformance report says.
        assert_same(
            "options not implemented",
            file,
            "docs/conformance.md",
            &conformance_ls_missing(),
            &page_ls_missing(&source),
        );
    }
    assert!(
        source.contains("docs/conformance.md"),
        "{}: no pointer to docs/conformance.md",
        file
    );
    if let Some(warnings) = render_warnings(&path) {
        assert!(warnings.is_empty(), "{}: groff warns:\n{warnings}", file);
    }
}

dents_testfs::test_cases! {
    /// One test per page.
    mod pages: (&str, &str) => check;
    dents: ("dents.1", "dents"),
    dents_ls: ("dents-ls.1", "ls"),
    dents_find: ("dents-find.1", "find"),
    dents_du: ("dents-du.1", "du"),
    dents_scan: ("dents-scan.1", "scan"),
    dents_diff: ("dents-diff.1", "diff"),
    dents_mpi: ("dents-mpi.1", "dents-mpi"),
}
