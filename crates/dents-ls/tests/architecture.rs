//! ARCHITECTURE.md maps every option of ls to the files where it acts:
//! each short and long option, and each alias, of the parser's definition
//! (`command()` in `src/args.rs`, its `.short('C')`, `.long("NAME")` and
//! `.alias("NAME")` calls) is in a row of the ls section's table, so that
//! a newcomer finds any option in one step.  The options are read from
//! the parser's source, so an option added there without a row fails here.

use std::fs;
use std::path::Path;

use dents_testfs::architecture::unmapped;

/// The quoted argument of each `.CALL(` in `source` (`'C'` or `"NAME"`).
fn arguments<'a>(source: &'a str, call: &str) -> Vec<&'a str> {
    source
        .split(&format!(".{call}("))
        .skip(1)
        .filter_map(|rest| {
            let quote = rest.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
            rest[1..].split(quote).next()
        })
        .collect()
}

/// `-C` for each short option and `--NAME` for each long option and alias
/// of the definition of ls's command line.
fn options(args_rs: &str) -> Vec<String> {
    let start = args_rs
        .find("pub fn command()")
        .expect("no `pub fn command()` in args.rs");
    let command = &args_rs[start..];
    let command = &command[..command.find("\n}\n").expect("command() ends")];
    let mut all: Vec<String> = arguments(command, "short")
        .into_iter()
        .map(|c| format!("-{c}"))
        .collect();
    for call in ["long", "alias"] {
        all.extend(
            arguments(command, call)
                .into_iter()
                .map(|n| format!("--{n}")),
        );
    }
    all
}

#[test]
fn every_option_of_ls_is_in_the_architecture_map() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args = fs::read_to_string(crate_dir.join("src/args.rs")).unwrap();
    let map = fs::read_to_string(crate_dir.join("../../ARCHITECTURE.md")).unwrap();
    let options = options(&args);
    assert!(
        options.len() > 50,
        "only {} options read: is the reader broken? {options:?}",
        options.len()
    );
    let missing = unmapped(&options, &map, "### ls");
    assert!(
        missing.is_empty(),
        "options of ls missing from ARCHITECTURE.md's ls table: {missing:?}"
    );
}
