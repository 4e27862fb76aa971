//! The modules of `src/` form the layers the crate docs list: each
//! module uses only modules of lower layers, so there is no import
//! circle (the reading: `dents_testfs::layers`).

use std::path::Path;

#[test]
fn modules_form_the_documented_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    dents_testfs::layers::check(&src, 20);
}
