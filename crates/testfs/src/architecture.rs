//! ARCHITECTURE.md's option tables, read as the completeness tests of
//! find, du and ls read them: the words a section's table rows name, so
//! that a test can check each option its parser accepts has a row.

use std::collections::BTreeSet;

/// The words in backquotes in the table rows (lines starting with `|`)
/// of the section under `heading` (a whole heading line such as
/// `### du`), up to the next heading of the same or a higher level.
///
/// Only that section counts, so that one tool's row cannot stand for
/// another's option of the same spelling (find's `-a` is not du's).
/// Panics when the heading is absent, so that a renamed section fails
/// loudly rather than leaving every option "missing" for a wrong reason.
pub fn section_words(markdown: &str, heading: &str) -> BTreeSet<String> {
    let level = heading.chars().take_while(|&c| c == '#').count();
    let mut lines = markdown.lines();
    assert!(
        lines.by_ref().any(|l| l.trim_end() == heading),
        "no heading {heading:?} in the document"
    );
    let mut found = BTreeSet::new();
    for line in lines {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes > 0 && hashes <= level && line[hashes..].starts_with(' ') {
            break;
        }
        if !line.starts_with('|') {
            continue;
        }
        for (i, span) in line.split('`').enumerate() {
            if i % 2 == 1 {
                found.extend(span.split_whitespace().map(str::to_string));
            }
        }
    }
    found
}

/// The options of `options` that `section_words` of the document does
/// not name, in the order given.
pub fn unmapped<'a>(options: &'a [String], markdown: &str, heading: &str) -> Vec<&'a str> {
    let mapped = section_words(markdown, heading);
    options
        .iter()
        .filter(|o| !mapped.contains(*o))
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "\
## Tools
### find
| words | acts in |
| `-a -o` | here |
### du
text with `-x` outside a table
| options | acts in |
| `-s --summarize` | [engine.rs](x) |
#### du detail
| `-k` | size.rs |
### ls
| `-l` | long.rs |
";

    #[test]
    fn a_section_is_its_own_rows_down_to_the_next_heading_of_its_level() {
        let du = section_words(DOC, "### du");
        let want: BTreeSet<String> = ["-s", "--summarize", "-k"].map(String::from).into();
        assert_eq!(du, want);
    }

    #[test]
    fn unmapped_options_are_named_in_order() {
        let options = ["-l", "-a", "-s"].map(String::from);
        assert_eq!(unmapped(&options, DOC, "### du"), ["-l", "-a"]);
    }

    #[test]
    #[should_panic(expected = "no heading")]
    fn an_absent_heading_panics() {
        section_words(DOC, "### mpi");
    }
}
