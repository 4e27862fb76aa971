//! Prints every path under the roots, one per line, with the library's
//! walker: a minimal `find ROOT...` built on `dents::walk`.
//!
//! usage: walkprint [-j N] [--dfs] [--depth] [--ignore-dtype] ROOT...

use std::io::Write;
use std::sync::Mutex;

use dents::walk::{walk, Order, Visit, Visitor, WalkOptions};
use dents::Error;
use dents::Flow;

struct Print(Mutex<std::io::Stdout>);

impl Visitor for Print {
    type State = Vec<u8>;
    fn state(&self) -> Vec<u8> {
        Vec::with_capacity(1 << 16)
    }
    fn visit(&self, buf: &mut Vec<u8>, v: &Visit<'_>) -> Flow {
        buf.extend_from_slice(v.path());
        buf.push(b'\n');
        if buf.len() > 60_000 {
            self.0.lock().unwrap().write_all(buf).unwrap();
            buf.clear();
        }
        Flow::Continue
    }
    fn error(&self, _: &mut Vec<u8>, e: Error) {
        eprintln!("walkprint: {e}");
    }
    fn finish(&self, buf: Vec<u8>) {
        self.0.lock().unwrap().write_all(&buf).unwrap();
    }
}

fn main() {
    let mut opts = WalkOptions::new();
    let mut roots = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "-j" => opts = opts.threads(args.next().unwrap().parse().unwrap()),
            "--dfs" => opts = opts.order(Order::DepthFirst),
            "--depth" => opts = opts.contents_first(true),
            "--ignore-dtype" => opts = opts.test_ignore_dtype(true),
            _ => roots.push(a.into_bytes()),
        }
    }
    let stats = walk(&roots, &opts, &Print(Mutex::new(std::io::stdout())));
    eprintln!("{stats:?}");
}
