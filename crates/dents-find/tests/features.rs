//! The `progress` feature (on by default) is what brings indicatif in: a
//! program that embeds find and turns the default features off builds
//! without it.

use std::process::Command;

/// The crates dents-find builds with, by `cargo tree` (normal
/// dependencies only), with or without its default features.
fn dependencies(default_features: bool) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut c = Command::new(cargo);
    c.args([
        "tree",
        "--offline",
        "-p",
        "dents-find",
        "-e",
        "normal",
        "--prefix",
        "none",
    ])
    .current_dir(env!("CARGO_MANIFEST_DIR"));
    if !default_features {
        c.arg("--no-default-features");
    }
    let out = c.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn indicatif_only_with_the_progress_feature() {
    assert!(dependencies(true)
        .lines()
        .any(|l| l.starts_with("indicatif ")));
    let without = dependencies(false);
    assert!(
        !without.lines().any(|l| l.starts_with("indicatif ")),
        "indicatif without the default features:\n{without}"
    );
}
