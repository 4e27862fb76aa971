//! The layers of the crates that have no Rust test of their own (the
//! Python package is tested from Python: a Rust test binary would need
//! libpython at link time).  Each module uses only modules of lower
//! layers and is in its crate's module map (`dents_testfs::layers`).

use std::path::Path;

#[test]
fn python_package_modules_form_the_documented_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../dents-py/src");
    dents_testfs::layers::check(&src, 6);
}
