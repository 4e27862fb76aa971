//! The library's modules, and the walker's files, form the layers their
//! module maps state (lib.rs, walk/mod.rs): each uses only those of lower
//! layers, so there is no import circle (the reading:
//! `dents_testfs::layers`).

use std::path::Path;

#[test]
fn modules_form_the_documented_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    dents_testfs::layers::check(&src, 12);
}

#[test]
fn the_walkers_files_form_the_documented_layers() {
    let walk = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/walk");
    dents_testfs::layers::check(&walk, 12);
}
