//! The floor of a names-only refresh that walks OLD's directory list
//! instead of the tree (issue 28): what such a refresh cannot avoid when
//! no directory changed, timed phase by phase, so that the design is
//! judged before it is built.
//!
//! ```sh
//! cargo build --release -p dents-snap --example refresh_floor
//! target/release/examples/refresh_floor OLD NEW
//! ```
//!
//! OLD: a names-only snapshot of a tree, scanned from the directory this
//! runs in.  Each phase is a pass over OLD's rows, adding one cost:
//!
//! 1. `decode`: the rows read (every column of a names-only row);
//! 2. `statx`: and one `lstat` per directory row, by its path (the one
//!    system call the design keeps per unchanged directory);
//! 3. `encode`: and every row written to NEW (the directories' times from
//!    that `lstat`), as a refresh must write them.
//!
//! Phase 3 is a refresh in which every directory is unchanged, less the
//! identity check and the merge with what changed directories read: a
//! lower bound on the design's time.  CPU time (user + system) of each
//! phase on stdout.

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Instant;

use dents_snap::{SnapshotReader, SnapshotWriter};

/// User + system CPU time of this process so far, in milliseconds.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // Fields after the command's closing parenthesis: utime is the 12th,
    // stime the 13th (in clock ticks, 100 a second on Linux).
    let rest = &stat[stat.rfind(')').expect("comm") + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = f[11].parse::<f64>().expect("utime") + f[12].parse::<f64>().expect("stime");
    ticks * 10.0
}

/// One pass over OLD's rows: `stat` each directory, `write` each row to
/// NEW; the rows seen.
fn pass(old: &Path, new: &Path, stat: bool, write: bool) -> u64 {
    let reader = SnapshotReader::open(old).expect("OLD opens");
    let mut writer = write.then(|| SnapshotWriter::create(new).expect("NEW is made"));
    let mut n = 0;
    for row in reader.rows() {
        let mut row = row.expect("OLD reads");
        n += 1;
        if stat && row.kind == b'd' {
            let path = std::ffi::OsStr::from_bytes(&row.path);
            if let Ok(m) = std::fs::symlink_metadata(path) {
                row.mtime = Some(m.mtime() * 1_000_000_000 + m.mtime_nsec());
                row.ctime = Some(m.ctime() * 1_000_000_000 + m.ctime_nsec());
            }
        }
        if let Some(w) = writer.as_mut() {
            w.push_ref(&row).expect("NEW is written");
        }
    }
    if let Some(w) = writer {
        w.finish(reader.record()).expect("NEW is finished");
    }
    n
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, old, new] = &args[..] else {
        eprintln!("usage: refresh_floor OLD NEW");
        std::process::exit(2);
    };
    let (old, new) = (Path::new(old), Path::new(new));
    for (name, stat, write) in [
        ("decode", false, false),
        ("statx", true, false),
        ("encode", true, true),
    ] {
        let (c, t) = (cpu_ms(), Instant::now());
        let rows = pass(old, new, stat, write);
        println!(
            "{name:7} rows {rows}  cpu {:.0} ms  elapsed {:.0} ms",
            cpu_ms() - c,
            t.elapsed().as_secs_f64() * 1e3
        );
    }
}
