//! The modules of `src/` form the layers the crate docs list: each
//! module uses only modules of lower layers, so there is no import
//! circle.  The uses are read from the source (`crate::m`, `super::m`,
//! `super::{m, ..}`, and lib.rs's own `m::`), test modules left out.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// The layer of each module, from lib.rs's module map: the rows
/// `//! | N | `module` | ... |`.
fn layers(lib: &str) -> BTreeMap<String, usize> {
    let mut map = BTreeMap::new();
    for line in lib.lines() {
        let Some(row) = line.strip_prefix("//! |") else {
            continue;
        };
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        if let (Some(Ok(n)), Some(name)) = (cells.first().map(|c| c.parse()), cells.get(1)) {
            map.insert(name.trim_matches('`').to_string(), n);
        }
    }
    map
}

/// The source of a module without its comments and test module.
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
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
/// `super::`, or `""` for lib.rs's bare paths).
fn uses<'a>(code: &str, prefix: &str, names: &'a [String]) -> Vec<&'a str> {
    let mut found = Vec::new();
    for name in names {
        let plain = format!("{prefix}{name}::");
        let grouped = format!("{prefix}{{");
        let plain_hit = code
            .match_indices(&plain)
            .any(|(i, _)| !code[..i].ends_with(|c: char| ident(c) || c == ':'));
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

#[test]
fn modules_form_the_documented_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
    let layer = layers(&lib);
    let mut names: Vec<String> = fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|n| n != "lib")
        .collect();
    names.sort();
    for n in &names {
        assert!(
            layer.contains_key(n),
            "module {n} is missing from lib.rs's module map"
        );
    }
    let mut edges = 0;
    let mut wrong = Vec::new();
    for n in &names {
        let code = code(&src.join(format!("{n}.rs")));
        let mut used = uses(&code, "crate::", &names);
        used.extend(uses(&code, "super::", &names));
        used.sort();
        used.dedup();
        for u in used.into_iter().filter(|u| u != n) {
            edges += 1;
            if layer[u] >= layer[n] {
                wrong.push(format!(
                    "{n} (layer {}) uses {u} (layer {})",
                    layer[n], layer[u]
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "uses against the layers:\n{}",
        wrong.join("\n")
    );
    // lib.rs sits above every module.
    assert!(uses(&code(&src.join("lib.rs")), "", &names).len() > 3);
    // The reading found the uses (a broken reader would pass vacuously).
    assert!(edges > 30, "only {edges} uses found");
}
