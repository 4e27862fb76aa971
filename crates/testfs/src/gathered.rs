//! A writer that keeps what is written to it, for the tests that hand an
//! engine (`dents_find::Command::run_to`, `dents_du::main_to`) its own
//! output and read it back afterwards, from any thread.

use std::io::{self, Write};
use std::sync::{Arc, Mutex, PoisonError};

/// Everything written to it (or to any of its clones), in order; cloned
/// to keep a handle while the engine owns the writer.
#[derive(Clone, Default)]
pub struct Gathered(Arc<Mutex<Vec<u8>>>);

impl Gathered {
    /// A copy of the bytes written so far.
    pub fn bytes(&self) -> Vec<u8> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Write for Gathered {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
