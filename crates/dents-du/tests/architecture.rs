//! ARCHITECTURE.md maps every option of du to the files where it acts:
//! each long option of the parser's table (`LONG` in `src/args.rs`) and
//! each letter of its short-option strings (`SHORT_ARG`, `SHORT_FLAG`) is
//! in a row of the du section's table, so that a newcomer finds any
//! option in one step.  The options are read from the parser's source, so
//! an option added there without a row fails here; and every file the
//! section links must exist, so that a file moved or renamed without its
//! row fails here too.

use std::fs;
use std::path::Path;

use dents_testfs::architecture::unmapped;

/// The text of `const NAME` up to the end of its statement.
fn constant<'a>(source: &'a str, name: &str) -> &'a str {
    let start = source
        .find(&format!("const {name}:"))
        .unwrap_or_else(|| panic!("no const {name} in args.rs"));
    let rest = &source[start..];
    &rest[..rest.find(";\n").expect("a const ends with ;")]
}

/// `--NAME` for each `("NAME", ...)` row of `LONG`, and `-C` for each
/// letter of `SHORT_ARG` and `SHORT_FLAG`.
fn options(args_rs: &str) -> Vec<String> {
    let long = constant(args_rs, "LONG");
    let mut all: Vec<String> = long
        .split("(\"")
        .skip(1)
        .filter_map(|row| row.split('"').next())
        .map(|name| format!("--{name}"))
        .collect();
    for table in ["SHORT_ARG", "SHORT_FLAG"] {
        let letters = constant(args_rs, table)
            .split('"')
            .nth(1)
            .unwrap_or_else(|| panic!("{table} is not a string"));
        all.extend(letters.chars().map(|c| format!("-{c}")));
    }
    all
}

#[test]
fn every_option_of_du_is_in_the_architecture_map() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args = fs::read_to_string(crate_dir.join("src/args.rs")).unwrap();
    let map = fs::read_to_string(crate_dir.join("../../ARCHITECTURE.md")).unwrap();
    let options = options(&args);
    assert!(
        options.len() > 40,
        "only {} options read: is the reader broken? {options:?}",
        options.len()
    );
    let missing = unmapped(&options, &map, "### du");
    assert!(
        missing.is_empty(),
        "options of du missing from ARCHITECTURE.md's du table: {missing:?}"
    );
}

/// The repository files that the links of the du section of
/// ARCHITECTURE.md name (`](crates/...)`, up to the next `## ` or `### `
/// heading), each without its `#anchor`.
fn linked_files(map: &str) -> Vec<String> {
    let start = map.find("\n### du\n").expect("a ### du section");
    let rest = &map[start + 1..];
    let end = rest[4..]
        .find("\n## ")
        .into_iter()
        .chain(rest[4..].find("\n### "))
        .min()
        .map_or(rest.len(), |i| i + 4);
    rest[..end]
        .split("](")
        .skip(1)
        .filter_map(|s| s.split(')').next())
        .map(|s| s.split('#').next().unwrap_or(s).to_string())
        .collect()
}

#[test]
fn every_file_the_du_section_links_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let map = fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let files = linked_files(&map);
    assert!(
        files.len() > 10,
        "only {} links read: is the reader broken? {files:?}",
        files.len()
    );
    let missing: Vec<&String> = files.iter().filter(|f| !root.join(f).exists()).collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's du section links files that do not exist: {missing:?}"
    );
}
