//! The files that `-fprint`, `-fprint0`, `-fprintf` and `-fls` write.
//!
//! As in GNU find, each file is opened (created, truncated) when its
//! primary is read from the command line, so an expression that names a
//! file that cannot be opened stops before the walk, and a later error in
//! the expression leaves the file created.  A file named twice, or under
//! two names (a link, `./x` and `x`), is opened once and shared: GNU
//! compares device and inode after opening.  `/dev/stdout` and
//! `/dev/stderr`, spelt so, are find's own streams, not opened again:
//! `/dev/stdout` shares standard output's buffer with `-print`, so lines
//! keep their order.
//!
//! Each thread writes into a buffer of its own per file (see
//! `crate::output`), flushed whole, so lines never interleave.

use std::fs::File;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

use super::msg;
use crate::output::Output;

/// Where an output primary writes.
#[derive(Debug, Clone)]
pub enum Dest {
    /// Standard output (`-printf`, `-ls`, or the name `/dev/stdout`).
    Stdout,
    /// Standard error (the name `/dev/stderr`): written at once, as GNU's
    /// unbuffered stream.
    Stderr(Arc<OutFile>),
    /// A file of our own.
    File(Arc<OutFile>),
}

/// An output file, opened once.
#[derive(Debug)]
pub struct OutFile {
    /// Its number among the run's output files (the index of each
    /// thread's buffer for it).
    pub id: usize,
    /// The shared, locked writer.
    pub output: Output,
    /// The name it was opened by, for messages.
    pub name: Vec<u8>,
    /// Whether it is a terminal (names are then shown with `?` for
    /// unprintable characters, as GNU does).
    pub tty: bool,
    /// Device and inode, to recognise the same file under another name.
    key: Option<(u64, u64)>,
}

/// The output files opened while reading the command line.
#[derive(Debug, Default)]
pub struct Registry {
    files: Vec<Arc<OutFile>>,
    stderr: Option<Arc<OutFile>>,
}

impl Registry {
    /// Opens `path` for writing as GNU's `-fprint` and the like do (or
    /// finds it open already); the error is GNU's message, fatal.
    pub fn open(&mut self, path: &[u8], utf8: bool) -> Result<Dest, Vec<u8>> {
        match path {
            b"/dev/stdout" => return Ok(Dest::Stdout),
            b"/dev/stderr" => {
                if let Some(f) = &self.stderr {
                    return Ok(Dest::Stderr(Arc::clone(f)));
                }
                let fd = std::io::stderr().as_fd().try_clone_to_owned();
                let file = fd.map_err(|e| open_failure(path, utf8, &e))?;
                let f = Arc::new(OutFile {
                    id: self.files.len(),
                    tty: dents_os::is_terminal(file.as_fd()),
                    // Reported as any other file's failed write.
                    output: Output::from_file(File::from(file))
                        .reporting_errors(|e| msg::path_error(b"/dev/stderr", e)),
                    name: path.to_vec(),
                    key: None,
                });
                self.files.push(Arc::clone(&f));
                self.stderr = Some(Arc::clone(&f));
                return Ok(Dest::Stderr(f));
            }
            _ => {}
        }
        let fail = |e: std::io::Error| open_failure(path, utf8, &e);
        // fopen(path, "w"): created 0666 less the umask, truncated,
        // close-on-exec.
        let file = File::create(std::ffi::OsStr::from_bytes(path)).map_err(fail)?;
        let st = dents::fs::fstat(file.as_fd()).map_err(fail)?;
        let key = Some((st.dev(), st.ino()));
        if let Some(f) = self.files.iter().find(|f| f.key == key) {
            return Ok(Dest::File(Arc::clone(f)));
        }
        let tty = dents_os::is_terminal(file.as_fd());
        // A failed write is reported, as GNU reports it when it closes the
        // file, and the walk goes on.
        let name = path.to_vec();
        let f = Arc::new(OutFile {
            id: self.files.len(),
            output: Output::from_file(file).reporting_errors(move |e| msg::path_error(&name, e)),
            name: path.to_vec(),
            tty,
            key,
        });
        self.files.push(Arc::clone(&f));
        Ok(Dest::File(f))
    }
}

/// GNU's message for a file that `-fprint` and the like cannot open:
/// `PATH: CAUSE`.
fn open_failure(path: &[u8], utf8: bool, e: &std::io::Error) -> Vec<u8> {
    let mut m = Vec::new();
    msg::quote(&mut m, path, utf8);
    m.extend_from_slice(b": ");
    m.extend_from_slice(crate::errors::describe(e).as_bytes());
    m
}
