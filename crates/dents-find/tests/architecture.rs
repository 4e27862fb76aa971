//! ARCHITECTURE.md maps every word of find to the files where it is read
//! and acts: each name of the table of words (`src/parse/words.rs`) is in
//! one of its table rows, so that a newcomer finds any word in one step.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// The names of find's table of words, as `w(b"NAME", ...)` spells them.
fn word_names(words_rs: &str) -> Vec<String> {
    words_rs
        .split("w(b\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

/// The words in backquotes in the table rows of a Markdown text.
fn mapped(markdown: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for row in markdown.lines().filter(|l| l.starts_with('|')) {
        for (i, span) in row.split('`').enumerate() {
            if i % 2 == 1 {
                found.extend(span.split_whitespace().map(str::to_string));
            }
        }
    }
    found
}

#[test]
fn every_word_of_find_is_in_the_architecture_map() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let words = fs::read_to_string(crate_dir.join("src/parse/words.rs")).unwrap();
    let map = fs::read_to_string(crate_dir.join("../../ARCHITECTURE.md")).unwrap();
    let names = word_names(&words);
    assert!(
        names.len() > 80,
        "only {} words read: is the reader broken?",
        names.len()
    );
    let mapped = mapped(&map);
    let missing: Vec<&String> = names.iter().filter(|n| !mapped.contains(*n)).collect();
    assert!(
        missing.is_empty(),
        "words of find missing from ARCHITECTURE.md's tables: {missing:?}"
    );
}
