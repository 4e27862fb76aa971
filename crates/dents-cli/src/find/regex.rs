//! `-regex` and `-iregex`: GNU's regular expression dialects, on
//! Oniguruma, matched against the whole path as bytes.
//!
//! GNU find uses the GNU C library's matcher, which is POSIX
//! leftmost-longest; Oniguruma backtracks.  For a match that must span
//! the whole path the two agree: `ONIG_OPTION_MATCH_WHOLE_STRING` makes
//! Oniguruma backtrack until the match ends at the end of the path.
//! Matching is on bytes (every byte a character), as GNU find's in the C
//! locale.

use onig::{EncodedBytes, Regex, RegexOptions, SearchOptions, Syntax, SyntaxOperator};

/// The `-regextype` names GNU find knows, in the order of its message.
const TYPES: [&str; 13] = [
    "findutils-default",
    "ed",
    "emacs",
    "gnu-awk",
    "grep",
    "posix-awk",
    "awk",
    "posix-basic",
    "posix-egrep",
    "egrep",
    "posix-extended",
    "posix-minimal-basic",
    "sed",
];

/// A regular expression dialect.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `findutils-default` and `emacs`: `\(`, `\|`, literal `{`.
    Emacs,
    /// `posix-basic`, `ed`, `sed`, `posix-minimal-basic`.
    Basic,
    /// `posix-extended`, `egrep`, `awk` and their kin.
    Extended,
    /// `grep`.
    Grep,
}

impl Dialect {
    /// The dialect named `name`.
    pub fn from_name(name: &[u8]) -> Option<Dialect> {
        Some(match name {
            b"findutils-default" | b"emacs" => Dialect::Emacs,
            b"posix-basic" | b"ed" | b"sed" | b"posix-minimal-basic" => Dialect::Basic,
            b"posix-extended" | b"posix-egrep" | b"egrep" | b"awk" | b"gnu-awk" | b"posix-awk" => {
                Dialect::Extended
            }
            b"grep" => Dialect::Grep,
            _ => return None,
        })
    }

    /// GNU's message for an unknown `-regextype`.
    pub fn unknown_message(name: &[u8], quote: &dyn Fn(&[u8]) -> Vec<u8>) -> Vec<u8> {
        let mut m = b"Unknown regular expression type ".to_vec();
        m.extend_from_slice(&quote(name));
        m.extend_from_slice(b"; valid types are ");
        for (i, t) in TYPES.iter().enumerate() {
            if i > 0 {
                m.extend_from_slice(b", ");
            }
            m.extend_from_slice(&quote(t.as_bytes()));
        }
        m.push(b'.');
        m
    }

    /// Oniguruma's syntax for the dialect, adjusted to the GNU C
    /// library's: its GNU operators (`\w \W \s \S \b \B \< \>`) in every
    /// dialect, no C escapes (`\n` is `n`), no intervals in Emacs's, and
    /// `.` matching a newline in all but Emacs's.
    fn syntax(self) -> Syntax {
        let mut s = *match self {
            Dialect::Emacs => Syntax::emacs(),
            Dialect::Basic => Syntax::posix_basic(),
            Dialect::Extended => Syntax::posix_extended(),
            Dialect::Grep => Syntax::grep(),
        };
        let mut ops = s.operators()
            | SyntaxOperator::SYNTAX_OPERATOR_ESC_W_WORD
            | SyntaxOperator::SYNTAX_OPERATOR_ESC_B_WORD_BOUND
            | SyntaxOperator::SYNTAX_OPERATOR_ESC_LTGT_WORD_BEGIN_END
            | SyntaxOperator::SYNTAX_OPERATOR_ESC_S_WHITE_SPACE
            | SyntaxOperator::SYNTAX_OPERATOR_ESC_GNU_BUF_ANCHOR;
        ops.remove(SyntaxOperator::SYNTAX_OPERATOR_ESC_CONTROL_CHARS);
        if self == Dialect::Emacs {
            ops.remove(SyntaxOperator::SYNTAX_OPERATOR_ESC_BRACE_INTERVAL);
        } else {
            s.set_options(s.options() | RegexOptions::REGEX_OPTION_MULTILINE);
        }
        s.set_operators(ops);
        s
    }
}

/// Compiles `pattern`; on failure, the GNU C library's words for it.
pub fn compile(pattern: &[u8], dialect: Dialect, icase: bool) -> Result<Regex, String> {
    let mut opts = RegexOptions::REGEX_OPTION_NONE;
    if icase {
        opts |= RegexOptions::REGEX_OPTION_IGNORECASE;
    }
    let syntax = dialect.syntax();
    Regex::with_options_and_encoding(EncodedBytes::ascii(pattern), opts, &syntax).map_err(|e| {
        match e.code() {
            -117 => "Unmatched ( or \\(".to_string(),
            -116 => "Unmatched ) or \\)".to_string(),
            -103 | -102 => "Unmatched [, [^, [:, [., or [=".to_string(),
            -104 => "Trailing backslash".to_string(),
            -113 | -114 => "Invalid preceding regular expression".to_string(),
            -203 => "Invalid range end".to_string(),
            -208 => "Invalid back reference".to_string(),
            -121 => "Invalid character class name".to_string(),
            -202 => "Invalid content of \\{\\}".to_string(),
            _ => e.description().to_string(),
        }
    })
}

/// Whether the whole of `path` matches.
pub fn matches(re: &Regex, path: &[u8]) -> bool {
    re.match_with_encoding(
        EncodedBytes::ascii(path),
        0,
        SearchOptions::SEARCH_OPTION_WHOLE_STRING,
        None,
    )
    .is_some()
}
