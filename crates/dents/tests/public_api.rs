//! No dependency's type anywhere in the library's public API, and the
//! API itself kept as a listing (`tests/api-listing.txt`) so that a change
//! shows in review.  The reader of signatures is `signatures/mod.rs`.

mod signatures;

use std::fs;
use std::path::Path;

use signatures::{forbidden_in, public_signatures, public_sources, KNOB};

#[test]
fn the_checker_catches_dependency_types() {
    let bad = "use rustix::fs::{Mode, Stat as RawStat};\n\
               use crate::sys::{self, OwnedThing};\n\
               pub struct A;\n\
               impl From<&rustix::fs::Statx> for Metadata {\n}\n\
               pub fn stat(&self)\n    -> StatxFlags {\n}\n\
               pub(crate) fn fine(st: &Statx) {}\n\
               pub field: libc::tm,\n\
               pub use rustix::fs::Statx;\n\
               fn private(_: rustix::fs::Statx) {}\n\
               pub enum Kind {\n    /// doc\n    Io(std::io::Error),\n    Stat(libc::stat),\n}\n\
               struct Private { field: libc::stat }\n\
               pub fn mode(&self) -> Mode {\n}\n\
               pub fn raw(&self) -> &RawStat {\n}\n\
               pub fn thing() -> OwnedThing {\n}\n\
               pub fn modes(&self) -> Modes {\n}\n\
               pub fn errno() -> rustix::io::Errno;\n";
    let found = forbidden_in(bad);
    assert_eq!(found.len(), 9, "{found:#?}");
    assert!(!found.iter().any(|s| s.contains("Modes")), "{found:#?}");
    assert!(forbidden_in("pub fn ok(&self) -> Metadata {\n").is_empty());
    let knobs = public_signatures(&format!("{KNOB}\npub knob: bool,\npub other: bool,\n"));
    assert_eq!(knobs, ["[test-knobs] pub knob: bool,", "pub other: bool,"]);
}

#[test]
fn public_api_has_no_dependency_type() {
    let sources = public_sources();
    let names: Vec<&str> = sources.iter().map(|(n, _)| n.as_str()).collect();
    for must in [
        "lib.rs",
        "walker.rs",
        "metadata.rs",
        "error.rs",
        "fs.rs",
        "dir.rs",
        "scan.rs",
        "slice.rs",
    ] {
        assert!(names.contains(&must), "{must} not among {names:?}");
    }
    assert!(
        names.iter().any(|n| n.starts_with("walk")),
        "the walk module is checked: {names:?}"
    );
    assert!(
        !names.iter().any(|n| n.starts_with("sys")),
        "sys is public again: {names:?}"
    );
    let mut checked = 0;
    let mut bad = Vec::new();
    for (file, text) in &sources {
        checked += public_signatures(text).len();
        bad.extend(
            forbidden_in(text)
                .into_iter()
                .map(|s| format!("{file}: {s}")),
        );
    }
    assert!(checked > 150, "{checked} signatures: the checker is broken");
    assert!(
        bad.is_empty(),
        "the public API exposes a dependency's type:\n{bad:#?}"
    );
    eprintln!(
        "{checked} public signatures in {} files checked",
        sources.len()
    );
}

/// The library's public signatures, one a line, as kept in
/// `tests/api-listing.txt`: a change to the API shows as a diff of that
/// file in review.  `DENTS_BLESS=1` rewrites it.
#[test]
fn public_api_listing_is_up_to_date() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut listing = String::new();
    for (file, text) in public_sources() {
        listing.push_str(&format!("# src/{file}\n"));
        for sig in public_signatures(&text) {
            let sig = sig.trim_end_matches('{').trim_end();
            listing.push_str(sig);
            listing.push('\n');
        }
    }
    let kept = root.join("tests/api-listing.txt");
    if std::env::var_os("DENTS_BLESS").is_some() {
        fs::write(&kept, &listing).unwrap();
    }
    let old = fs::read_to_string(&kept).unwrap_or_default();
    assert!(
        old == listing,
        "the public API changed: review it and run with DENTS_BLESS=1 to keep the new listing\n\
         --- kept\n{old}\n+++ now\n{listing}"
    );
}

/// No public item or field exists only with a Cargo feature: a feature
/// must not change the shape of a public type (a crate built against one
/// shape breaks when feature unification turns the other on).  The test
/// knobs of `WalkOptions` are hidden setters, in every build.
#[test]
fn no_public_item_depends_on_a_feature() {
    let mut gated = Vec::new();
    for (file, text) in public_sources() {
        for sig in public_signatures(&text) {
            if sig.starts_with("[test-knobs]") {
                gated.push(format!("{file}: {sig}"));
            }
        }
    }
    assert!(
        gated.is_empty(),
        "public items that a Cargo feature adds:\n{gated:#?}"
    );
}

/// One public path per item: what the crate root re-exports comes from a
/// private module, so that `dents::Error` is not also `dents::error::Error`
/// (nor `dents::Flow` also `dents::walk::Flow`, nor `dents::FileType`
/// also `dents::dir::FileType`).
#[test]
fn root_reexports_have_one_path() {
    let lib = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let public: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod ")?.strip_suffix(';'))
        .collect();
    let mut second_paths = Vec::new();
    for line in lib.lines() {
        let Some(path) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let module = path.split("::").next().unwrap_or_default();
        if public.contains(&module) {
            second_paths.push(path.trim_end_matches(';').to_string());
        }
    }
    assert!(
        second_paths.is_empty(),
        "items the crate root re-exports from a public module (two paths each): {second_paths:?}"
    );
}
