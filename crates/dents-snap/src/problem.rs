//! A problem met during a scan, as the scan records it and the tools
//! word it.  Below the row (which fills itself from a visit and may meet
//! one) and the scan (which gathers them): neither imports the other for
//! it.

/// A problem met during the scan: the entry is missing from the
/// snapshot (or, for a directory, its contents are).
#[derive(Debug)]
pub struct Problem {
    /// The path concerned, bytes.
    pub path: Vec<u8>,
    /// What happened, in GNU's words: `cannot access`, `cannot read
    /// directory`, `cannot read symbolic link`, or a loop.
    pub what: &'static str,
    /// The cause, as the C library words it (or the loop's message).
    pub cause: String,
    /// The cause's error number, when a system call failed.
    pub errno: Option<i32>,
}

impl Problem {
    /// A walk's error in GNU's words: a root that does not exist
    /// (`is_root`: the path is one of the roots) is `cannot access`, a
    /// directory that cannot be read `cannot read directory`.  The words
    /// of `dents scan` and `dents-mpi scan` alike (the union of a sharded
    /// scan's records equals `dents scan`'s).
    pub fn of_walk(e: &dents::Error, is_root: bool) -> Problem {
        match e.kind() {
            dents::ErrorKind::Io(io) => Problem {
                path: e.path_bytes().to_vec(),
                what: if is_root && io.raw_os_error() == Some(2) {
                    "cannot access"
                } else {
                    "cannot read directory"
                },
                cause: dents::describe(io),
                errno: io.raw_os_error(),
            },
            dents::ErrorKind::Loop { .. } => Problem {
                path: e.path_bytes().to_vec(),
                what: "",
                cause: "File system loop detected".into(),
                errno: Some(40),
            },
        }
    }

    /// The message without the program's name: `WHAT 'PATH': CAUSE`,
    /// the path quoted as GNU quotes paths in messages.
    pub fn message(&self) -> Vec<u8> {
        let mut m = Vec::with_capacity(self.path.len() + 64);
        if !self.what.is_empty() {
            m.extend_from_slice(self.what.as_bytes());
            m.push(b' ');
        }
        dents_tools::quote::for_message(&mut m, &self.path);
        m.extend_from_slice(b": ");
        m.extend_from_slice(self.cause.as_bytes());
        m
    }
}
