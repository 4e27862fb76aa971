//! Skipping loudly: a test whose prerequisite is missing (root, a tool)
//! says so on stderr and passes, except under CI, where it fails.
//!
//! A developer without root can run the suite and see, test by test, what
//! did not run and why (`SKIPPED (needs root): <test>: <why>`); CI (`CI`
//! set to anything non-empty, or `DENTS_REQUIRE_FS_TESTS=1`) must run
//! every test, so there the same call panics.

use std::io::Write;

/// Whether a missing prerequisite must fail the test rather than skip it:
/// `CI` set to a non-empty value, or `DENTS_REQUIRE_FS_TESTS=1`.
pub fn required() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
        || std::env::var_os("DENTS_REQUIRE_FS_TESTS").is_some_and(|v| v == "1")
}

/// The running test's name: libtest names each test's thread after it.
fn test_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or("<unnamed test>")
        .to_owned()
}

/// Says loudly on stderr that the running test is skipped and why; under CI
/// (see [`required`]) panics instead, since CI must run every test.
pub fn skip(why: &str) {
    skip_with("SKIPPED", why);
}

/// [`skip`] with its own first word (`SKIPPED`, `SKIPPED (needs root):`).
fn skip_with(label: &str, why: &str) {
    let test = test_name();
    if required() {
        panic!("{test} cannot run, and CI requires it: {why}");
    }
    // Straight to the process's stderr: libtest captures `eprintln!` of
    // passing tests, and a skip must not pass unseen.
    let _ = writeln!(std::io::stderr(), "{label} {test}: {why}");
}

/// Whether this process runs as root (needed for `mount`, `mknod`,
/// `chown` and `setpriv`).
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Whether the running test may go on: true as root; otherwise it prints
/// `SKIPPED (needs root): <test>: <why>` on stderr and returns false (the
/// test then returns, and passes), or under CI (see [`required`]) panics.
///
/// ```no_run
/// if !dents_testfs::needs_root("mknod makes the fixture's devices") {
///     return;
/// }
/// ```
pub fn needs_root(why: &str) -> bool {
    if is_root() {
        return true;
    }
    skip_with("SKIPPED (needs root):", why);
    false
}
