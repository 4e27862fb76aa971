//! GNU find's wording for a word or an argument it refuses.

use super::Error;

/// `'word'` as GNU quotes a word in its messages.
pub(super) fn backquoted(prefix: &str, word: &[u8], suffix: &str) -> Error {
    let mut m = prefix.as_bytes().to_vec();
    m.push(b'`');
    m.extend_from_slice(word);
    m.push(b'\'');
    m.extend_from_slice(suffix.as_bytes());
    m
}

/// GNU's message for a bad argument.
pub(super) fn invalid_argument(arg: &[u8], name: &[u8]) -> Error {
    let mut m = backquoted("invalid argument ", arg, " to ");
    m.extend_from_slice(&backquoted("", name, ""));
    m
}
