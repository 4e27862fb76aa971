//! walkdir's README and crate-doc examples, compiled twice: once against
//! walkdir, once against dents with only their `use` lines changed; both
//! run on the same real tree, and print the same.
//!
//! The examples walk `"foo"` relative to the working directory, so the
//! tree is built at `foo` in a directory of its own, which becomes the
//! working directory of this test binary (every test here wants the same
//! one).  walkdir's order is not dents's unless both sort: unsorted
//! outputs are compared as sorted lines, sorted ones byte for byte.

use std::cell::RefCell;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

thread_local! {
    /// What the examples print, for the test to compare.
    static OUT: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The examples' `println!`, writing to [`OUT`] instead of stdout.
macro_rules! println {
    ($($t:tt)*) => {
        {
            // Formatted here, so that a `?` in the arguments returns from
            // the example's function.
            let line = format!($($t)*);
            crate::OUT.with(|o| *o.borrow_mut() += &(line + "\n"))
        }
    };
}

/// One example, its body written once; `walkdir()` and `dents()` run it
/// with each crate's `use` lines and return what it printed.
macro_rules! example {
    ($name:ident,
     walkdir: { $($w:item)* },
     dents: { $($d:item)* },
     $body:block) => {
        mod $name {
            pub fn walkdir() -> String {
                $($w)*
                crate::capture(|| $body)
            }
            pub fn dents() -> String {
                $($d)*
                crate::capture(|| $body)
            }
        }
    };
}

/// Runs `f`, returning what it printed.
fn capture(f: impl FnOnce()) -> String {
    tree();
    OUT.with(|o| o.borrow_mut().clear());
    f();
    OUT.with(|o| o.take())
}

/// The tree, built once, its parent made the working directory: files,
/// directories three deep, hidden files and directories, links to a
/// directory and to a file, a name that is not UTF-8, an empty directory.
fn tree() -> &'static Path {
    static TREE: OnceLock<PathBuf> = OnceLock::new();
    TREE.get_or_init(|| {
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("walkdir_examples");
        let _ = fs::remove_dir_all(&base);
        let top = base.join("foo");
        for d in ["a/b/c", ".git/objects/ab", "src/.cache/x", "empty", "z"] {
            fs::create_dir_all(top.join(d)).unwrap();
        }
        for f in [
            "a/one",
            "a/b/two",
            "a/b/c/three",
            ".hidden",
            ".git/HEAD",
            ".git/objects/ab/cdef",
            "src/main.rs",
            "src/.cache/x/blob",
            "z/last",
        ] {
            fs::write(top.join(f), f.as_bytes()).unwrap();
        }
        fs::write(top.join(std::ffi::OsStr::from_bytes(b"caf\xe9")), b"").unwrap();
        symlink("a/b", top.join("link_to_dir")).unwrap();
        symlink("src/main.rs", top.join("link_to_file")).unwrap();
        std::env::set_current_dir(&base).unwrap();
        top
    })
}

/// The lines of `s`, sorted.
fn sorted(s: &str) -> Vec<&str> {
    let mut v: Vec<&str> = s.lines().collect();
    v.sort_unstable();
    v
}

/// Both outputs, checked not to be trivially equal.
fn outputs(walkdir: fn() -> String, dents: fn() -> String) -> (String, String) {
    let (w, d) = (walkdir(), dents());
    assert!(w.lines().count() > 5, "walkdir printed too little:\n{w}");
    (w, d)
}

// The README's first example, and the crate docs' (with `?`).
example!(readme_walk,
walkdir: { use walkdir::WalkDir; },
dents: { use dents::Walker as WalkDir; },
{
    for entry in WalkDir::new("foo") {
        let entry = entry.unwrap();
        println!("{}", entry.path().display());
    }
});

example!(docs_walk,
walkdir: { use walkdir::WalkDir; use walkdir::Error; },
dents: { use dents::Walker as WalkDir; use dents::Error; },
{
    fn try_main() -> Result<(), Error> {
        for entry in WalkDir::new("foo") {
            println!("{}", entry?.path().display());
        }
        Ok(())
    }
    try_main().unwrap();
});

// Errors skipped with `filter_map`.
example!(filter_map_ok,
walkdir: { use walkdir::WalkDir; },
dents: { use dents::Walker as WalkDir; },
{
    for entry in WalkDir::new("foo").into_iter().filter_map(|e| e.ok()) {
        println!("{}", entry.path().display());
    }
});

// Following symbolic links.
example!(readme_follow_links,
walkdir: { use walkdir::WalkDir; },
dents: { use dents::Walker as WalkDir; },
{
    for entry in WalkDir::new("foo").follow_links(true) {
        let entry = entry.unwrap();
        println!("{}", entry.path().display());
    }
});

example!(docs_follow_links,
walkdir: { use walkdir::WalkDir; use walkdir::Error; },
dents: { use dents::Walker as WalkDir; use dents::Error; },
{
    fn try_main() -> Result<(), Error> {
        for entry in WalkDir::new("foo").follow_links(true) {
            println!("{}", entry?.path().display());
        }
        Ok(())
    }
    try_main().unwrap();
});

// Hidden files and directories skipped, and not descended into.
example!(readme_skip_hidden,
walkdir: { use walkdir::{DirEntry, WalkDir}; },
dents: { use dents::{DirEntry, Walker as WalkDir}; },
{
    fn is_hidden(entry: &DirEntry) -> bool {
        entry.file_name()
             .to_str()
             .map(|s| s.starts_with("."))
             .unwrap_or(false)
    }

    let walker = WalkDir::new("foo").into_iter();
    for entry in walker.filter_entry(|e| !is_hidden(e)) {
        let entry = entry.unwrap();
        println!("{}", entry.path().display());
    }
});

example!(docs_skip_hidden,
walkdir: { use walkdir::{DirEntry, WalkDir}; use walkdir::Error; },
dents: { use dents::{DirEntry, Walker as WalkDir}; use dents::Error; },
{
    fn is_hidden(entry: &DirEntry) -> bool {
        entry.file_name()
             .to_str()
             .map(|s| s.starts_with("."))
             .unwrap_or(false)
    }

    fn try_main() -> Result<(), Error> {
        let walker = WalkDir::new("foo").into_iter();
        for entry in walker.filter_entry(|e| !is_hidden(e)) {
            println!("{}", entry?.path().display());
        }
        Ok(())
    }
    try_main().unwrap();
});

// Sorted walks print in the same order: by name, with depth limits,
// links followed and hidden entries pruned; by a comparison of one's
// own; links told apart with `path_is_symlink`, sizes from `metadata`.
example!(sorted_by_file_name,
walkdir: { use walkdir::{DirEntry, WalkDir}; },
dents: { use dents::{DirEntry, Walker as WalkDir}; },
{
    fn is_hidden(entry: &DirEntry) -> bool {
        entry.file_name().to_str().is_some_and(|s| s.starts_with('.'))
    }
    for entry in WalkDir::new("foo").sort_by_file_name() {
        let entry = entry.unwrap();
        println!("{} {}", entry.depth(), entry.path().display());
    }
    let walker = WalkDir::new("foo")
        .min_depth(1)
        .max_depth(2)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter();
    for entry in walker.filter_entry(|e| !is_hidden(e)) {
        let entry = entry.unwrap();
        let len = entry.metadata().unwrap().len();
        println!("{} {} {}", entry.path().display(), entry.path_is_symlink(), len);
    }
});

example!(sorted_by_comparison,
walkdir: { use walkdir::WalkDir; },
dents: { use dents::Walker as WalkDir; },
{
    // Directories first, then by name backwards.
    let walker = WalkDir::new("foo").sort_by(|a, b| {
        b.file_type().is_dir().cmp(&a.file_type().is_dir())
            .then(b.file_name().cmp(a.file_name()))
    });
    for entry in walker {
        let entry = entry.unwrap();
        println!("{} {}", entry.path().display(), entry.file_type().is_symlink());
    }
});

#[test]
fn readme_walk() {
    let (w, d) = outputs(readme_walk::walkdir, readme_walk::dents);
    assert_eq!(sorted(&d), sorted(&w));
}

#[test]
fn docs_walk() {
    let (w, d) = outputs(docs_walk::walkdir, docs_walk::dents);
    assert_eq!(sorted(&d), sorted(&w));
}

#[test]
fn filter_map_ok() {
    let (w, d) = outputs(filter_map_ok::walkdir, filter_map_ok::dents);
    assert_eq!(sorted(&d), sorted(&w));
}

#[test]
fn readme_follow_links() {
    let (w, d) = outputs(readme_follow_links::walkdir, readme_follow_links::dents);
    assert_eq!(sorted(&d), sorted(&w));
    assert!(w.contains("link_to_dir/c/three"), "a link was followed");
}

#[test]
fn docs_follow_links() {
    let (w, d) = outputs(docs_follow_links::walkdir, docs_follow_links::dents);
    assert_eq!(sorted(&d), sorted(&w));
}

#[test]
fn readme_skip_hidden() {
    let (w, d) = outputs(readme_skip_hidden::walkdir, readme_skip_hidden::dents);
    assert_eq!(sorted(&d), sorted(&w));
    assert!(!w.contains(".git"), "hidden entries were skipped");
}

#[test]
fn docs_skip_hidden() {
    let (w, d) = outputs(docs_skip_hidden::walkdir, docs_skip_hidden::dents);
    assert_eq!(sorted(&d), sorted(&w));
}

#[test]
fn sorted_by_file_name() {
    let (w, d) = outputs(sorted_by_file_name::walkdir, sorted_by_file_name::dents);
    assert_eq!(d, w);
}

#[test]
fn sorted_by_comparison() {
    let (w, d) = outputs(sorted_by_comparison::walkdir, sorted_by_comparison::dents);
    assert_eq!(d, w);
}

/// What `filter_entry` prunes is never opened: the walk's own count of
/// directories read leaves out the hidden ones and everything below.
#[test]
fn filter_entry_never_opens_a_pruned_directory() {
    let top = tree();
    let mut it = dents::Walker::new(top)
        .into_iter()
        .filter_entry(|e| !e.file_name().as_bytes().starts_with(b"."));
    let n = it.by_ref().map(Result::unwrap).count();
    // foo, a, a/b, a/b/c, src, empty, z: 7 directories, and 8 others.
    let stats = it.stats().expect("the walk is over");
    assert_eq!(stats.dirs_read, 7, "{stats:?}");
    assert_eq!(n, 15);
}
