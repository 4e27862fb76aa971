//! What the fuzz tests of the command lines (`fuzz_find.rs`,
//! `fuzz_args.rs`) share: the random generator, the fixed small tree,
//! running a program with a time limit, the seed and count from the
//! environment (`DENTS_FUZZ_SEED`, `DENTS_FUZZ_CASES`), and the cases
//! run on a few threads.

use std::ffi::OsStr;
use std::fs;
use std::io::Read;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// xorshift64*: small, deterministic, good enough to pick words.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// One run: exit status (or signal), stdout, stderr, whether it hung.
pub struct Run {
    pub status: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub hung: bool,
}

pub fn run(prog: &[&str], cwd: &Path, args: &[String]) -> Run {
    let mut child = Command::new(prog[0])
        .args(&prog[1..])
        .args(args.iter().map(OsStr::new))
        .current_dir(cwd)
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env_remove("POSIXLY_CORRECT")
        .env_remove("LS_COLORS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let ereader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let mut hung = false;
    let st = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > Duration::from_secs(10) {
            hung = true;
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    Run {
        status: st.code(),
        signal: st.signal(),
        stdout: reader.join().unwrap(),
        stderr: ereader.join().unwrap(),
        hung,
    }
}

/// The lines of `b` sorted (split at newlines and NULs: `-0`, `--zero`).
pub fn sorted_lines(b: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = b.split(|&c| c == b'\n' || c == 0).collect();
    v.sort();
    v
}

/// The tree `t`: files, directories, links good and broken (hard and
/// symbolic), a fifo, with fixed times.
pub fn tree() -> tempfile::TempDir {
    let tmp = tempfile::Builder::new()
        .prefix("dents-fuzz-")
        .tempdir()
        .unwrap();
    let root = tmp.path();
    fs::set_permissions(root, fs::Permissions::from_mode(0o755)).unwrap();
    let t = root.join("t");
    fs::create_dir_all(t.join("d/deeper")).unwrap();
    fs::create_dir_all(t.join("empty")).unwrap();
    fs::write(t.join("a.c"), b"0123456789").unwrap();
    fs::write(t.join("b.txt"), b"").unwrap();
    fs::write(t.join("x"), vec![b'x'; 5000]).unwrap();
    fs::write(t.join("d/e.h"), b"e").unwrap();
    fs::write(t.join("d/deeper/f"), b"").unwrap();
    fs::set_permissions(t.join("x"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(t.join("b.txt"), fs::Permissions::from_mode(0o600)).unwrap();
    fs::hard_link(t.join("a.c"), t.join("d/a-link")).unwrap();
    symlink("a.c", t.join("l")).unwrap();
    symlink("d", t.join("ld")).unwrap();
    symlink("nowhere", t.join("broken")).unwrap();
    assert!(Command::new("mkfifo")
        .arg(t.join("fifo"))
        .status()
        .unwrap()
        .success());
    // Times far from now, so that the run's own time matters little.
    let touch = |args: &[&str]| {
        assert!(Command::new("touch")
            .args(args)
            .current_dir(root)
            .status()
            .unwrap()
            .success())
    };
    for p in [
        "t/a.c",
        "t/b.txt",
        "t/d/e.h",
        "t/d/deeper/f",
        "t/fifo",
        "t/d/deeper",
        "t/empty",
        "t/d",
        "t",
    ] {
        touch(&["-h", "-m", "-d", "2020-02-03 04:05:06", p]);
        touch(&["-h", "-a", "-d", "2030-01-01 00:00:00", p]);
    }
    touch(&["-h", "-m", "-d", "2021-01-01 00:00:00", "t/x"]);
    touch(&["-h", "-a", "-d", "2030-01-01 00:00:00", "t/x"]);
    for l in ["t/l", "t/ld", "t/broken"] {
        touch(&["-h", "-d", "2019-01-01 00:00:00", l]);
    }
    tmp
}

/// The seed and the number of cases: `DENTS_FUZZ_SEED` and
/// `DENTS_FUZZ_CASES`, else the test's own (what CI runs).
pub fn seed_and_count(seed: u64, count: usize) -> (u64, usize) {
    let seed = std::env::var("DENTS_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(seed);
    let count = std::env::var("DENTS_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(count);
    (seed, count)
}

/// Runs `check` on every case not skipped by `skip` (which says why),
/// on up to 4 threads; the problems found, and how many were skipped.
pub fn run_cases(
    cases: &[Vec<String>],
    skip: fn(&[String]) -> Option<&'static str>,
    check: &(dyn Fn(&[String]) -> Option<String> + Sync),
) -> (Vec<String>, usize) {
    let skipped = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    let failures = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let skipped = &skipped;
                s.spawn(move || {
                    let mut found = Vec::new();
                    for args in cases.iter().skip(w).step_by(workers) {
                        if skip(args).is_some() {
                            skipped.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            continue;
                        }
                        found.extend(check(args));
                    }
                    found
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    (failures, skipped.into_inner())
}

/// An argument list as a shell would take it back.
pub fn shown(args: &[String]) -> String {
    args.iter()
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ")
}
