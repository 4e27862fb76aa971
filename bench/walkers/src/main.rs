//! Walks one tree with one walker and prints how many entries it saw:
//! dents's three forms (iterator, closure, visitor) against walkdir,
//! ignore and jwalk, for hyperfine, `perf stat` and `strace -c` to compare
//! (the small-tree and iterator rows of docs/benchmarks.md).
//!
//! ```text
//! dents-walkers WALKER TREE [THREADS]
//! ```
//!
//! WALKER: `dents-iter`, `dents-iter-stat` (with `stat_fields`),
//! `dents-foreach`, `dents-visit` (counts only), `dents-visit-owned`
//! (makes the iterator's owned entry of each visit, so that against
//! `dents-iter` only the hand-over differs), `walkdir`, `ignore`
//! (serial), `ignore-par`, `jwalk`; sorted walks: `dents-sorted`
//! (`Walker::sort_by_file_name`, walkdir's order), `dents-visit-sorted`
//! (the visitor of `Walker::sort_by_name`: level order, as `dents scan`
//! walks), `walkdir-sorted` (`sort_by_file_name`), `jwalk-sorted`
//! (`sort(true)`).  THREADS: the walk's workers for
//! dents, ignore-par and jwalk (0 or absent: each one's default).
//! Every walker sees every entry, the root included, hidden ones too, no
//! ignore file read, links not followed.

use std::sync::atomic::{AtomicU64, Ordering};

use dents::walk::{Visit, Visitor};
use dents::{Entry, Error, Flow, StatFields, Walker};

/// Counts visits, per worker, added up at the end.
struct Count {
    total: AtomicU64,
    owned: bool,
}

impl Visitor for Count {
    type State = u64;
    fn state(&self) -> u64 {
        0
    }
    fn visit(&self, n: &mut u64, v: &Visit<'_>) -> Flow {
        if self.owned {
            std::hint::black_box(Entry::from(v).to_dir_entry());
        }
        *n += 1;
        Flow::Continue
    }
    fn error(&self, n: &mut u64, _: Error) {
        *n += 1;
    }
    fn finish(&self, n: u64) {
        self.total.fetch_add(n, Ordering::Relaxed);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: dents-walkers WALKER TREE [THREADS]");
        std::process::exit(2);
    }
    let (which, root) = (args[1].as_str(), args[2].as_str());
    let threads: usize = args.get(3).map_or(0, |t| t.parse().expect("THREADS"));
    let walker = Walker::new(root).threads(threads);
    let n: u64 = match which {
        "dents-iter" => walker.into_iter().count() as u64,
        "dents-iter-stat" => walker.stat_fields(StatFields::BASIC).into_iter().count() as u64,
        "dents-foreach" => {
            let n = AtomicU64::new(0);
            walker.for_each(|_| {
                n.fetch_add(1, Ordering::Relaxed);
                Flow::Continue
            });
            n.into_inner()
        }
        "dents-visit" | "dents-visit-owned" => {
            let c = Count {
                total: AtomicU64::new(0),
                owned: which == "dents-visit-owned",
            };
            walker.visit(&c);
            c.total.into_inner()
        }
        // Sorted walks: walkdir's order by the iterator, level order (the
        // order `dents scan` uses) by the visitor.
        "dents-sorted" => walker.sort_by_file_name().into_iter().count() as u64,
        // The level-order iterator with every entry stat'ed.
        "dents-sorted-stat" => walker
            .sort_by_name(true)
            .stat_fields(StatFields::BASIC)
            .into_iter()
            .count() as u64,
        "dents-visit-sorted" => {
            let c = Count {
                total: AtomicU64::new(0),
                owned: false,
            };
            walker.sort_by_name(true).visit(&c);
            c.total.into_inner()
        }
        "walkdir-sorted" => walkdir::WalkDir::new(root)
            .sort_by_file_name()
            .into_iter()
            .count() as u64,
        "jwalk-sorted" => jwalk::WalkDir::new(root)
            .skip_hidden(false)
            .sort(true)
            .into_iter()
            .count() as u64,
        "walkdir" => walkdir::WalkDir::new(root).into_iter().count() as u64,
        "ignore" => ignore::WalkBuilder::new(root)
            .standard_filters(false)
            .build()
            .count() as u64,
        "ignore-par" => {
            let n = AtomicU64::new(0);
            ignore::WalkBuilder::new(root)
                .standard_filters(false)
                .threads(threads)
                .build_parallel()
                .run(|| {
                    Box::new(|_| {
                        n.fetch_add(1, Ordering::Relaxed);
                        ignore::WalkState::Continue
                    })
                });
            n.into_inner()
        }
        "jwalk" => {
            let par = match threads {
                0 => jwalk::Parallelism::RayonNewPool(0),
                t => jwalk::Parallelism::RayonNewPool(t),
            };
            jwalk::WalkDir::new(root)
                .skip_hidden(false)
                .parallelism(par)
                .into_iter()
                .count() as u64
        }
        _ => {
            eprintln!("dents-walkers: unknown walker '{which}'");
            std::process::exit(2);
        }
    };
    println!("{n}");
}
