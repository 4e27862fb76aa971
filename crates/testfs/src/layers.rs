//! A crate's modules form the layers its module map states: each module
//! uses only modules of lower layers, so there is no import circle.
//!
//! A module map is a table in the doc comment of `lib.rs` (`main.rs` in an
//! executable's crate, `mod.rs` in a directory module) whose rows start
//! with the layer number:
//!
//! ```text
//! //! | layer | module | concern |
//! //! |---|---|---|
//! //! | 0 | `sys` | ... |
//! //! | 1 | `dir` | ... |
//! ```
//!
//! [`check`] reads the uses from the source (`crate::m`, `super::m`,
//! `super::{m, ..}`, and the map file's own bare `m::`; `m` whole), leaving out
//! comments and the `#[cfg(test)] mod tests` at the end of a file.  A
//! module that is a directory (`walk/mod.rs` and its files) counts as one
//! module at its parent's level: its files' `crate::` uses are its uses.
//! Its own files are checked against its own map by a second [`check`]
//! on the directory, where `super::m` names a sibling file.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The layer of each module, from the map file's rows
/// `//! | N | `module` | ... |`.
fn layers(map: &str) -> BTreeMap<String, usize> {
    let mut layer = BTreeMap::new();
    for line in map.lines() {
        let Some(row) = line.strip_prefix("//! |") else {
            continue;
        };
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        if let (Some(Ok(n)), Some(name)) = (cells.first().map(|c| c.parse()), cells.get(1)) {
            let name = name.trim_matches('`');
            // `[`walk`]` and `[`slice`](mod@slice)` are rustdoc links.
            let name = name.trim_start_matches("[`");
            let name = name.split('`').next().unwrap_or(name);
            layer.insert(name.to_string(), n);
        }
    }
    layer
}

/// The source of a file without its comments and final test module.
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => &text,
    };
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `c` may be part of a Rust identifier.
fn ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The modules of `names` that `code` uses through `prefix` (`crate::`,
/// `super::`, or `""` for the map file's bare paths).
fn uses<'a>(code: &str, prefix: &str, names: &'a [String]) -> Vec<&'a str> {
    let mut found = Vec::new();
    for name in names {
        // `crate::m::x`, `use crate::m;`, `crate::m as n`: the name whole.
        let plain = format!("{prefix}{name}");
        let grouped = format!("{prefix}{{");
        let plain_hit = code.match_indices(&plain).any(|(i, _)| {
            !code[..i].ends_with(|c: char| ident(c) || c == ':')
                && !code[i + plain.len()..].starts_with(ident)
                && (!prefix.is_empty() || code[i + plain.len()..].starts_with("::"))
        });
        let group_hit = !prefix.is_empty()
            && code.match_indices(&grouped).any(|(i, _)| {
                let group = &code[i + grouped.len()..];
                let group = &group[..group.find('}').unwrap_or(group.len())];
                group.split(|c: char| !ident(c)).any(|w| w == name.as_str())
            });
        if plain_hit || group_hit {
            found.push(name.as_str());
        }
    }
    found
}

/// One module of a directory: its name and the files its code is in.
struct Module {
    name: String,
    files: Vec<PathBuf>,
}

/// The modules of `dir` other than its map file: each `m.rs` (with the
/// `.rs` files below `m/`, its submodules, if there are any), and each
/// subdirectory `m/` with a `mod.rs` and all the `.rs` files below it.
fn modules(dir: &Path, map_file: &str) -> Vec<Module> {
    let mut found = Vec::new();
    for e in fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir:?}: {e}")) {
        let path = e.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() && path.join("mod.rs").is_file() {
            let mut files = Vec::new();
            rs_files(&path, &mut files);
            found.push(Module { name: stem, files });
        } else if path.extension().is_some_and(|x| x == "rs") && stem != map_file {
            // `m.rs` with its submodules in `m/`: one module.
            let mut files = vec![path.clone()];
            let sub = dir.join(&stem);
            if sub.is_dir() {
                rs_files(&sub, &mut files);
            }
            found.push(Module { name: stem, files });
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

/// Every `.rs` file under `dir`.
fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            rs_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// Checks that the modules of `dir` (a crate's `src`, with its map in
/// `lib.rs` or `main.rs`, or a directory module, with its map in `mod.rs`) use only
/// modules of lower layers than their own, and that every module is in
/// the map.  `min_uses` is how many uses the reading must find at least,
/// so that a broken reader cannot pass by finding none.
///
/// In a crate's `src`, a use is `crate::m` or `super::m` in a top-level
/// file and `crate::m` in a directory module's files; in a directory
/// module, it is `super::m` (a sibling) in its files.
///
/// # Panics
///
/// With the list of every use against the layers, or the module missing
/// from the map.
pub fn check(dir: &Path, min_uses: usize) {
    let map_file = if dir.join("lib.rs").is_file() {
        "lib"
    } else if dir.join("main.rs").is_file() {
        "main"
    } else {
        "mod"
    };
    let is_crate = map_file != "mod";
    let layer = layers(&fs::read_to_string(dir.join(format!("{map_file}.rs"))).unwrap());
    let mods = modules(dir, map_file);
    let names: Vec<String> = mods.iter().map(|m| m.name.clone()).collect();
    for n in &names {
        assert!(
            layer.contains_key(n),
            "module {n} is missing from the layers of {dir:?}/{map_file}.rs's module map"
        );
    }
    let mut edges = 0;
    let mut wrong = Vec::new();
    for m in &mods {
        let mut used = Vec::new();
        for file in &m.files {
            let code = code(file);
            let top_level = file.parent() == Some(dir);
            if is_crate {
                used.extend(uses(&code, "crate::", &names));
                if top_level {
                    used.extend(uses(&code, "super::", &names));
                }
            } else if top_level {
                used.extend(uses(&code, "super::", &names));
            }
        }
        used.sort();
        used.dedup();
        for u in used.into_iter().filter(|u| *u != m.name) {
            edges += 1;
            if layer[u] >= layer[&m.name] {
                wrong.push(format!(
                    "{} (layer {}) uses {u} (layer {})",
                    m.name, layer[&m.name], layer[u]
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "uses against the layers of {dir:?}:\n{}",
        wrong.join("\n")
    );
    assert!(
        edges >= min_uses,
        "only {edges} uses found in {dir:?} (at least {min_uses} expected): is the reader broken?"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A circle is found, and a clean stack passes.
    #[test]
    fn finds_a_circle_and_passes_a_stack() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path();
        let map = "//! | layer | module | concern |\n//! |---|---|---|\n//! | 0 | `a` | x |\n//! | 1 | `b` | y |\n";
        fs::write(src.join("lib.rs"), format!("{map}mod a;\nmod b;\n")).unwrap();
        fs::write(src.join("a.rs"), "pub fn f() {}\n").unwrap();
        fs::write(src.join("b.rs"), "use crate::a::f;\n").unwrap();
        check(src, 1);
        fs::write(src.join("a.rs"), "use crate::b;\n").unwrap();
        assert!(std::panic::catch_unwind(|| check(src, 1)).is_err());
        fs::write(src.join("a.rs"), "use crate::b::g; // crate::c::\n").unwrap();
        let err = std::panic::catch_unwind(|| check(src, 1)).unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.contains("a (layer 0) uses b (layer 1)"), "{msg}");
    }
    /// An executable's map is its `main.rs`, and `m.rs`'s submodules in
    /// `m/` are part of `m`: their uses are `m`'s.
    #[test]
    fn reads_main_rs_and_submodule_directories() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path();
        let map = "//! | layer | module | concern |\n//! |---|---|---|\n//! | 0 | `a` | x |\n//! | 1 | `b` | y |\n";
        fs::write(src.join("main.rs"), format!("{map}mod a;\nmod b;\n")).unwrap();
        fs::write(src.join("a.rs"), "mod sub;\n").unwrap();
        fs::create_dir(src.join("a")).unwrap();
        fs::write(src.join("a/sub.rs"), "pub fn f() {}\n").unwrap();
        fs::write(src.join("b.rs"), "use crate::a::f;\n").unwrap();
        check(src, 1);
        fs::write(src.join("a/sub.rs"), "use crate::b::g;\n").unwrap();
        let err = std::panic::catch_unwind(|| check(src, 1)).unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.contains("a (layer 0) uses b (layer 1)"), "{msg}");
    }
}
