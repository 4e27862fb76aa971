//! The visitor form: counts entries by type with per-worker counters
//! (no shared state touched per entry), added up when each worker ends,
//! and leaves out any directory named `.git` before it is read.
//!
//! usage: walk_visitor ROOT...

use std::path::PathBuf;
use std::sync::Mutex;

use dents::walk::{Visit, Visitor};
use dents::Error;
use dents::{Entry, FileType, Flow, Walker};

/// Entries by `d_type` value (0..16), and errors.
type Counts = ([u64; 16], u64);

struct CountTypes {
    total: Mutex<Counts>,
}

impl Visitor for CountTypes {
    type State = Counts;

    fn state(&self) -> Counts {
        ([0; 16], 0)
    }

    fn excluded(&self, _: &mut Counts, v: &Visit<'_>) -> bool {
        v.name() == b".git"
    }

    fn visit(&self, counts: &mut Counts, v: &Visit<'_>) -> Flow {
        let entry = Entry::from(v);
        counts.0[usize::from(entry.file_type().as_dtype() & 15)] += 1;
        Flow::Continue
    }

    fn error(&self, counts: &mut Counts, e: Error) {
        eprintln!("walk_visitor: {e}");
        counts.1 += 1;
    }

    fn finish(&self, counts: Counts) {
        let mut total = self.total.lock().unwrap();
        for (t, n) in total.0.iter_mut().zip(counts.0) {
            *t += n;
        }
        total.1 += counts.1;
    }
}

fn main() {
    let mut roots: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if roots.is_empty() {
        roots.push(".".into());
    }
    let walker = Walker::from_roots(&roots);
    let visitor = CountTypes {
        total: Mutex::new(([0; 16], 0)),
    };
    let stats = walker.visit(&visitor);
    let (counts, errors) = visitor.total.into_inner().unwrap();
    for (name, t) in [
        ("directories", FileType::DIRECTORY),
        ("files", FileType::REGULAR),
        ("symlinks", FileType::SYMLINK),
        ("other", FileType::UNKNOWN),
    ] {
        let n = if t == FileType::UNKNOWN {
            counts.iter().sum::<u64>() - counts[4] - counts[8] - counts[10]
        } else {
            counts[usize::from(t.as_dtype())]
        };
        println!("{name}: {n}");
    }
    println!("errors: {errors}; {} directories read", stats.dirs_read);
}
