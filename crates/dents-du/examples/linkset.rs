//! The hard-link set alone, at scale: inserts of N (device, inode) keys
//! from T threads into [`InodeMap`] (`dense`) or into the 64 mutexed
//! `HashSet`s it replaced (`hashset`), keys as a tree of directories of
//! 1,000 consecutive inode numbers gives them, directories dealt to the
//! threads in turn.  Prints nanoseconds a key and the table's bytes a
//! key; run it under `/usr/bin/time -v` for CPU and peak RSS, and under
//! `strace -f -c -e trace=futex` to count the waits on a taken lock.
//!
//! usage: linkset {dense|hashset} KEYS THREADS

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Instant;

use dents_du::inodes::InodeMap;

/// The set before session 14, for comparison: 64 shards of std's
/// `HashSet` behind mutexes.
struct Old(Vec<Mutex<HashSet<(u64, u64)>>>);

impl Old {
    fn insert(&self, dev: u64, ino: u64) -> bool {
        let h = ino.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ dev;
        self.0[(h >> 58) as usize % 64]
            .lock()
            .unwrap()
            .insert((dev, ino))
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: linkset {dense|hashset} KEYS THREADS";
    let (Some(kind), Some(n), Some(t)) = (
        args.get(1),
        args.get(2).and_then(|a| a.parse::<u64>().ok()),
        args.get(3).and_then(|a| a.parse::<u64>().ok()),
    ) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let dense = InodeMap::default();
    let old = Old((0..64).map(|_| Mutex::new(HashSet::new())).collect());
    let dirs = n.div_ceil(1000);
    let start = Instant::now();
    std::thread::scope(|s| {
        for w in 0..t {
            let (dense, old) = (&dense, &old);
            s.spawn(move || {
                let mut d = w;
                while d < dirs {
                    for ino in d * 1000 + 12..((d + 1) * 1000).min(n) + 12 {
                        let fresh = match kind.as_str() {
                            "dense" => dense.insert(0xfd01, ino),
                            _ => old.insert(0xfd01, ino),
                        };
                        assert!(fresh);
                    }
                    d += t;
                }
            });
        }
    });
    let el = start.elapsed();
    let bytes = if kind == "dense" {
        format!("{:.1}", dense.table_bytes() as f64 / n as f64)
    } else {
        "-".into()
    };
    println!(
        "{kind} keys {n} threads {t}: {:.1} ns a key (elapsed), table {bytes} bytes a key",
        el.as_nanos() as f64 / n as f64
    );
}
