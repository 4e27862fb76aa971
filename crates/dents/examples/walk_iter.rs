//! The iterator form: every path under the roots, one per line, from a
//! `for` loop on the main thread while the walk runs on background
//! threads; errors go to stderr in find's style and the walk goes on.
//!
//! usage: walk_iter [--sorted] [--max-depth N] ROOT...

use std::io::Write;
use std::os::unix::ffi::OsStrExt;

use dents::Walker;

fn main() -> std::io::Result<()> {
    let mut roots = Vec::new();
    let mut sorted = false;
    let mut max_depth = usize::MAX;
    let mut args = std::env::args_os().skip(1);
    while let Some(a) = args.next() {
        match a.as_bytes() {
            b"--sorted" => sorted = true,
            b"--max-depth" => {
                let n = args.next().expect("--max-depth N");
                max_depth = n.to_str().and_then(|s| s.parse().ok()).expect("a number");
            }
            _ => roots.push(a),
        }
    }
    if roots.is_empty() {
        roots.push(".".into());
    }
    let walker = Walker::from_roots(&roots)
        .sort_by_name(sorted)
        .max_depth(max_depth);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut status = 0;
    for entry in walker {
        match entry {
            Ok(entry) => {
                // Bytes as they are: names need not be UTF-8.
                out.write_all(entry.path_bytes())?;
                out.write_all(b"\n")?;
            }
            Err(err) => {
                eprintln!("walk_iter: {err}");
                status = 1;
            }
        }
    }
    out.flush()?;
    std::process::exit(status);
}
