//! Reading a crate's public API from its source, without compiling it:
//! the signatures of every `pub` item, field, variant and trait `impl`,
//! and which of them name a dependency's type.  A line-based reader, not
//! a Rust parser: what it does not see is said at [`public_signatures`].

use std::fs;
use std::path::{Path, PathBuf};

/// Words that name a dependency's type: rustix's and libc's paths, and
/// the rustix types the low-level modules use.  (Names a file imports
/// from a dependency are added per file: see [`imported_names`].)
pub const FORBIDDEN: [&str; 7] = [
    "rustix",
    "libc",
    "linux_raw_sys",
    "Statx",
    "StatxFlags",
    "StatxTimestamp",
    "Errno",
];

/// The attribute that puts an item behind the `test-knobs` feature: not
/// in the API a user gets, listed apart.
pub const KNOB: &str = "#[cfg(feature = \"test-knobs\")]";

/// The public signatures of a source file: every item, field or re-export
/// declared `pub` (not `pub(crate)`), every variant of a `pub enum`, and
/// every trait `impl` header (a public promise too, even for a private
/// type: harmless), each up to its `{` or `;`, comments left out; an item
/// behind the `test-knobs` feature is marked `[test-knobs]`.  What it
/// does not see: macros, and items of a private module re-exported
/// elsewhere (a `pub use` is listed, and checked by name).
/// Lines from a `#[cfg(test)]` module on are skipped.
pub fn public_signatures(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = src.lines();
    let mut knob = false;
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            break;
        }
        if t.starts_with(KNOB) {
            knob = true;
            continue;
        }
        if t.starts_with("///") || t.starts_with("#[") || t.starts_with("//") {
            continue;
        }
        let was_knob = std::mem::take(&mut knob);
        let public = t.starts_with("pub ") || (t.starts_with("impl") && t.contains(" for "));
        if !public || t.starts_with("pub(") {
            continue;
        }
        let mut sig = String::from(t);
        // A field ends at its comma; an item at its body or semicolon.
        let field = t.trim_end().ends_with(',');
        while !field && !sig.contains('{') && !sig.contains(';') {
            match lines.next() {
                Some(l) => {
                    sig.push(' ');
                    sig.push_str(l.trim());
                }
                None => break,
            }
        }
        let is_enum = sig.starts_with("pub enum");
        if was_knob {
            sig.insert_str(0, "[test-knobs] ");
        }
        out.push(sig);
        // A public enum's variants are public, with their payloads: one
        // line each, up to the enum's closing brace.
        if is_enum {
            for l in lines.by_ref() {
                let v = l.trim();
                if v == "}" {
                    break;
                }
                if !(v.is_empty() || v.starts_with("//") || v.starts_with("#[")) {
                    out.push(format!("  {v}"));
                }
            }
        }
    }
    out
}

/// The names a file imports from a dependency (`use rustix::fs::{A, B}`,
/// `use libc::c_int`) or from the crate's private syscall layer (which
/// re-exports rustix's types): a public signature naming one of them
/// exposes a dependency's type without spelling its path.
pub fn imported_names(src: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut text = String::new();
    let mut lines = src.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if !t.starts_with("use ") && !t.starts_with("pub use ") {
            continue;
        }
        text.clear();
        text.push_str(t);
        while !text.contains(';') {
            match lines.next() {
                Some(l) => text.push_str(l.trim()),
                None => break,
            }
        }
        let path = text.trim_start_matches("pub ").trim_start_matches("use ");
        if !["rustix::", "libc::", "crate::sys::", "linux_raw_sys::"]
            .iter()
            .any(|p| path.starts_with(p))
        {
            continue;
        }
        let tail = path.trim_end_matches(';');
        let list = match tail.find('{') {
            Some(i) => tail[i + 1..].trim_end_matches('}').to_string(),
            None => tail.rsplit("::").next().unwrap_or("").to_string(),
        };
        for item in list.split(',') {
            let item = item.trim();
            // `X as Y` imports the name Y; `self` the module, whose path
            // (`sys::…`) is not a type name.
            let name = item.rsplit(" as ").next().unwrap_or(item).trim();
            if !name.is_empty() && name != "self" && name != "*" {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// Whether `word` occurs in `s` as a whole identifier.
pub fn has_word(s: &str, word: &str) -> bool {
    s.match_indices(word).any(|(i, _)| {
        let before = s[..i].chars().next_back();
        let after = s[i + word.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}

pub fn forbidden_in(src: &str) -> Vec<String> {
    let imported = imported_names(src);
    public_signatures(src)
        .into_iter()
        .filter(|s| {
            FORBIDDEN.iter().any(|w| s.contains(w)) || imported.iter().any(|w| has_word(s, w))
        })
        .collect()
}

/// The library's public modules as source files: `lib.rs`, then for each
/// `pub mod NAME;` of it, and each private `mod NAME;` whose items it
/// re-exports (`pub use NAME::`), `NAME.rs`, or every file under `NAME/`
/// (a module split into a folder), sorted.  Paths relative to `src/`.
pub fn public_sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
    let mut out = vec![("lib.rs".to_string(), lib.clone())];
    for line in lib.lines() {
        let line = line.trim();
        // A public module, or a private one whose items the crate root
        // re-exports (their one public path is at the root).
        let name = match line.strip_prefix("pub mod ") {
            Some(r) => r.strip_suffix(';'),
            None => line
                .strip_prefix("mod ")
                .and_then(|r| r.strip_suffix(';'))
                .filter(|m| lib.contains(&format!("pub use {m}::"))),
        };
        let Some(name) = name else {
            continue;
        };
        let file = src.join(format!("{name}.rs"));
        if file.is_file() {
            out.push((format!("{name}.rs"), fs::read_to_string(file).unwrap()));
            continue;
        }
        let mut files: Vec<PathBuf> = fs::read_dir(src.join(name))
            .unwrap_or_else(|e| panic!("module {name}: neither {name}.rs nor {name}/: {e}"))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        files.sort();
        for f in files {
            let rel = f.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
            out.push((rel, fs::read_to_string(f).unwrap()));
        }
    }
    out
}
