//! Reads one directory serially and in slices, times both and compares
//! the names: a quick check of the slicing on any mounted filesystem.
//!
//! usage: slicecheck DIR [SLICES]

use std::ffi::CString;
use std::os::fd::AsFd;
use std::time::Instant;

use dents::slice::{self, NameCollector, ReadPlan};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let path = CString::new(args[1].as_str()).unwrap();
    let slices: usize = args.get(2).map_or(4, |s| s.parse().unwrap());
    let dir = dents::fs::open_dir(&path)?;
    let size = dents::fs::fstat(dir.as_fd())?.len();
    let space = slice::offset_space(dir.as_fd(), size)?;
    println!("size {size} space {space:?}");
    let t = Instant::now();
    let serial = slice::read_dir_with_plan(dir.as_fd(), ReadPlan::Serial, 65536, |_| {
        NameCollector::default()
    });
    println!("serial {:?}", t.elapsed());
    let Some(space) = space else { return Ok(()) };
    let t = Instant::now();
    let sliced = slice::read_dir_with_plan(
        dir.as_fd(),
        ReadPlan::Sliced { space, slices },
        65536,
        |_| NameCollector::default(),
    );
    println!(
        "sliced {:?} probes {} errors {:?}",
        t.elapsed(),
        sliced.probes,
        sliced.errors
    );
    for (i, s) in sliced.sinks.iter().enumerate() {
        println!("slice {i}: {}", s.names.len());
    }
    let mut a: Vec<_> = serial.sinks.into_iter().flat_map(|s| s.names).collect();
    let mut b: Vec<_> = sliced.sinks.into_iter().flat_map(|s| s.names).collect();
    a.sort_unstable();
    b.sort_unstable();
    println!("serial {} sliced {} identical {}", a.len(), b.len(), a == b);
    Ok(())
}
