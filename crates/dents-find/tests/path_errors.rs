//! `Command::on_path_error`: the errors that name a path go to the
//! caller's handler, with the path and the system's error, and the
//! command's status is find's all the same.

use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::sync::{Arc, Mutex};

/// A path and the error number the handler was given.
type Reported = (Vec<u8>, Option<i32>);

/// A writer whose bytes the test reads afterwards.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn missing_starting_points_go_to_the_handler_with_their_errors() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("here")).unwrap();
    std::fs::write(tmp.path().join("here/f"), b"x").unwrap();
    let missing = [tmp.path().join("gone1"), tmp.path().join("gone2")];
    let here = tmp.path().join("here");
    let seen: Arc<Mutex<Vec<Reported>>> = Arc::default();
    let record = Arc::clone(&seen);
    let command = dents_find::Command::parse([
        missing[0].as_os_str(),
        here.as_os_str(),
        missing[1].as_os_str(),
        "-name".as_ref(),
        "f".as_ref(),
    ])
    .unwrap()
    .on_path_error(move |path, e| {
        record
            .lock()
            .unwrap()
            .push((path.to_vec(), e.raw_os_error()));
    });
    let out = Shared::default();
    let status = command.run_to(out.clone());
    assert_eq!(status.code(), 1, "find's status after a missing start");
    let mut seen = seen.lock().unwrap().clone();
    seen.sort();
    let enoent = Some(2);
    assert_eq!(
        seen,
        vec![
            (missing[0].as_os_str().as_bytes().to_vec(), enoent),
            (missing[1].as_os_str().as_bytes().to_vec(), enoent),
        ]
    );
    let mut want = here.join("f").as_os_str().as_bytes().to_vec();
    want.push(b'\n');
    assert_eq!(*out.0.lock().unwrap(), want, "the rest is still found");
}

#[test]
fn without_a_handler_the_status_is_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("gone");
    let command = dents_find::Command::parse([missing.as_os_str()]).unwrap();
    assert_eq!(command.run_to(Shared::default()).code(), 1);
}

#[test]
fn errors_met_by_the_walkers_go_to_the_handler_too() {
    // Under -L, links that point at each other cannot be followed: GNU
    // find says `'PATH': Too many levels of symbolic links` for each,
    // met on whichever worker reads their directory.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d");
    for i in 0..8 {
        let sub = dir.join(format!("s{i}"));
        std::fs::create_dir_all(&sub).unwrap();
        std::os::unix::fs::symlink("b", sub.join("a")).unwrap();
        std::os::unix::fs::symlink("a", sub.join("b")).unwrap();
    }
    let seen: Arc<Mutex<Vec<Reported>>> = Arc::default();
    let record = Arc::clone(&seen);
    let command = dents_find::Command::parse(["-L".as_ref(), dir.as_os_str()])
        .unwrap()
        .on_path_error(move |path, e| {
            record
                .lock()
                .unwrap()
                .push((path.to_vec(), e.raw_os_error()));
        });
    assert_eq!(command.run_to(Shared::default()).code(), 1);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 16, "{seen:?}");
    let eloop = Some(40);
    assert!(seen.iter().all(|(_, e)| *e == eloop), "{seen:?}");
    let gnu = std::process::Command::new("find")
        .arg("-L")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&gnu.stderr).lines().count(),
        16,
        "GNU find says one message per link"
    );
}
