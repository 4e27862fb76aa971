//! Messages as GNU's tools word them: quoted names, error descriptions.

/// A file name as GNU quotes it in a message (`quoteaf`): always
/// quoted, shell-escaped, control characters written as `$'\n'`; the
/// quoting `dents du` and `dents find` use, so the tools' messages agree.
pub fn quote(name: &[u8]) -> Vec<u8> {
    dents_du::args::quote_always(name)
}

/// The system's description of an error, without Rust's `(os error N)`:
/// the walker library's rule, as `dents du` and `dents find` word it.
pub use dents::describe;

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    #[test]
    fn quotes_and_descriptions() {
        // GNU's words: `du: cannot access "a'b"`.
        assert_eq!(quote(b"a'b"), b"\"a'b\"".to_vec());
        assert_eq!(quote(b"a\nb"), b"'a'$'\\n''b'".to_vec());
        let e = io::Error::from_raw_os_error(13);
        assert_eq!(describe(&e), "Permission denied");
    }
}
