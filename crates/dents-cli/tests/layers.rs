//! The modules of `src/` form the layers main.rs's module map lists:
//! each module uses only modules of lower layers, so there is no import
//! circle, and each module is in the map (the reading:
//! `dents_testfs::layers`).

use std::path::Path;

#[test]
fn modules_form_the_documented_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    dents_testfs::layers::check(&src, 1);
}
