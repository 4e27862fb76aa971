//! `-regex` and `-iregex`: GNU's regular expression dialects, on
//! Oniguruma, matched against the whole path as bytes.
//!
//! GNU find uses the GNU C library's matcher, which is POSIX
//! leftmost-longest; Oniguruma backtracks.  For a match that must span
//! the whole path the two agree: `ONIG_OPTION_MATCH_WHOLE_STRING` makes
//! Oniguruma backtrack until the match ends at the end of the path.
//! Matching is on bytes (every byte a character), as GNU find's in the C
//! locale.
//!
//! Each `-regextype` is the GNU C library's syntax bits for it (findutils'
//! table), mapped onto Oniguruma's syntax flags: which operators exist
//! (`+ ?` or `\+ \?`, `|` or `\|`, `{}` or `\{\}` or none, back
//! references), GNU's `\w \W \s \S \b \B \< \> \` \'` (not in the awk
//! dialects), whether `.` matches a newline (not in `emacs`), whether a
//! backslash escapes inside `[...]` (awk dialects), whether an unmatched
//! `)` or a bad interval is literal, whether `[z-a]` is an error.  A
//! newline in a `grep`/`egrep` pattern separates alternatives, done by
//! rewriting it as the dialect's `|` before compiling.
//!
//! Known differences, which Oniguruma cannot express:
//! - `^` and `$` in the middle of a POSIX basic expression (`a^b`) are
//!   literal for GNU, anchors for Oniguruma;
//! - in `egrep`, a leading `*` is ignored by GNU, taken literally here;
//! - a back reference to a group of another alternative (`(a)b|\1`) is
//!   an error for GNU, accepted (and never matching) here;
//! - error messages are GNU's only for the common errors (see
//!   [`compile`]); others are Oniguruma's words.

use onig::{
    EncodedBytes, Regex, RegexOptions, SearchOptions, Syntax, SyntaxBehavior, SyntaxOperator,
};

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

/// Oniguruma's `ONIG_SYN_ALLOW_EMPTY_RANGE_IN_CC` (the crate names no
/// constant for it).
const ALLOW_EMPTY_RANGE_IN_CC: u32 = 1 << 22;

/// Oniguruma's `ONIG_SYN_OP_ESC_PLUS_ONE_INF` (`\+`), unnamed by the crate.
const ESC_PLUS_ONE_INF: u64 = 1 << 5;
/// Oniguruma's `ONIG_SYN_OP_ESC_QMARK_ZERO_ONE` (`\?`).
const ESC_QMARK_ZERO_ONE: u64 = 1 << 7;
/// Oniguruma's `ONIG_SYN_BRE_ANCHOR_AT_EDGE_OF_SUBEXP`.
const BRE_ANCHOR_AT_EDGE_OF_SUBEXP: u32 = 1 << 14;

/// A regular expression dialect: GNU's syntaxes (aliases share one).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `findutils-default`: Emacs's, with `.` matching a newline.  (Not
    /// GNU find's default, surprisingly: without `-regextype` it uses
    /// plain Emacs syntax, where `.` does not match a newline.)
    FindutilsDefault,
    /// `emacs`: `\(`, `\|`, `+ ?` operators, no intervals, no `[:class:]`.
    Emacs,
    /// `posix-basic`, `ed`, `sed`: BRE with GNU's `\+ \? \|`.
    Basic,
    /// `posix-minimal-basic`: BRE without `\+ \? \|`.
    MinimalBasic,
    /// `grep`: BRE, newlines separate alternatives.
    Grep,
    /// `posix-extended`: ERE.
    Extended,
    /// `egrep`, `posix-egrep`: ERE, newlines separate alternatives, bad
    /// intervals literal.
    Egrep,
    /// `awk`: ERE without intervals, back references or GNU operators;
    /// backslash escapes in brackets.
    Awk,
    /// `gnu-awk`: ERE with backslash escapes in brackets.
    GnuAwk,
    /// `posix-awk`: ERE without GNU operators, backslash escapes in
    /// brackets.
    PosixAwk,
}

impl Dialect {
    /// The dialect named `name`.
    pub fn from_name(name: &[u8]) -> Option<Dialect> {
        Some(match name {
            b"findutils-default" => Dialect::FindutilsDefault,
            b"emacs" => Dialect::Emacs,
            b"posix-basic" | b"ed" | b"sed" => Dialect::Basic,
            b"posix-minimal-basic" => Dialect::MinimalBasic,
            b"grep" => Dialect::Grep,
            b"posix-extended" => Dialect::Extended,
            b"posix-egrep" | b"egrep" => Dialect::Egrep,
            b"awk" => Dialect::Awk,
            b"gnu-awk" => Dialect::GnuAwk,
            b"posix-awk" => Dialect::PosixAwk,
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

    /// Whether the dialect writes its operators `(`, `|`, `{` bare (ERE).
    fn extended(self) -> bool {
        matches!(
            self,
            Dialect::Extended | Dialect::Egrep | Dialect::Awk | Dialect::GnuAwk | Dialect::PosixAwk
        )
    }

    /// Oniguruma's syntax for the dialect, adjusted to the GNU C
    /// library's bits for it.
    fn syntax(self) -> Syntax {
        use SyntaxBehavior as B;
        use SyntaxOperator as O;
        let mut s = *match self {
            Dialect::FindutilsDefault | Dialect::Emacs => Syntax::emacs(),
            Dialect::Basic | Dialect::MinimalBasic | Dialect::Grep => Syntax::posix_basic(),
            _ => Syntax::posix_extended(),
        };
        let mut ops = s.operators();
        let mut beh = s.behavior();
        // No C escapes (`\n` is `n`), no `(?...)` groups in any of GNU's.
        ops.remove(O::SYNTAX_OPERATOR_ESC_CONTROL_CHARS | O::SYNTAX_OPERATOR_QMARK_GROUP_EFFECT);
        // GNU's operators, except where RE_NO_GNU_OPS.
        let gnu_ops = O::SYNTAX_OPERATOR_ESC_W_WORD
            | O::SYNTAX_OPERATOR_ESC_B_WORD_BOUND
            | O::SYNTAX_OPERATOR_ESC_LTGT_WORD_BEGIN_END
            | O::SYNTAX_OPERATOR_ESC_S_WHITE_SPACE
            | O::SYNTAX_OPERATOR_ESC_GNU_BUF_ANCHOR;
        if matches!(self, Dialect::Awk | Dialect::PosixAwk) {
            ops.remove(gnu_ops);
        } else {
            ops.insert(gnu_ops);
        }
        match self {
            // RE_SYNTAX_EMACS has no intervals.
            Dialect::FindutilsDefault | Dialect::Emacs => {
                ops.remove(O::SYNTAX_OPERATOR_ESC_BRACE_INTERVAL)
            }
            // POSIX basic with GNU's `\+ \? \|` (not RE_LIMITED_OPS).
            Dialect::Basic | Dialect::Grep => ops.insert(
                O::from_bits_retain(ESC_PLUS_ONE_INF | ESC_QMARK_ZERO_ONE)
                    | O::SYNTAX_OPERATOR_ESC_VBAR_ALT,
            ),
            // RE_SYNTAX_AWK: no intervals, `\1` is no back reference,
            // and repetition operators are literal where nothing
            // precedes them.
            Dialect::Awk => {
                ops.remove(O::SYNTAX_OPERATOR_BRACE_INTERVAL | O::SYNTAX_OPERATOR_DECIMAL_BACKREF);
                beh.remove(
                    B::SYNTAX_BEHAVIOR_CONTEXT_INDEP_REPEAT_OPS
                        | B::SYNTAX_BEHAVIOR_CONTEXT_INVALID_REPEAT_OPS,
                );
            }
            Dialect::GnuAwk => beh.remove(
                B::SYNTAX_BEHAVIOR_CONTEXT_INDEP_REPEAT_OPS
                    | B::SYNTAX_BEHAVIOR_CONTEXT_INVALID_REPEAT_OPS,
            ),
            // egrep: a leading repetition is not an error.
            Dialect::Egrep => beh.remove(B::SYNTAX_BEHAVIOR_CONTEXT_INVALID_REPEAT_OPS),
            _ => {}
        }
        // `{,n}` is `{0,n}` in the GNU C library.
        beh.insert(B::SYNTAX_BEHAVIOR_ALLOW_INTERVAL_LOW_ABBREV);
        // RE_INVALID_INTERVAL_ORD: `a{x` is literal.
        if matches!(self, Dialect::Egrep | Dialect::GnuAwk | Dialect::PosixAwk) {
            beh.insert(B::SYNTAX_BEHAVIOR_ALLOW_INVALID_INTERVAL);
        }
        // RE_BACKSLASH_ESCAPE_IN_LISTS.
        if matches!(self, Dialect::Awk | Dialect::GnuAwk | Dialect::PosixAwk) {
            beh.insert(B::SYNTAX_BEHAVIOR_BACKSLASH_ESCAPE_IN_CC);
        } else {
            beh.remove(B::SYNTAX_BEHAVIOR_BACKSLASH_ESCAPE_IN_CC);
        }
        // `[^a]` matches a newline in all of them (no
        // RE_HAT_LISTS_NOT_NEWLINE); `[z-a]` is an error but in Emacs's.
        beh.remove(B::SYNTAX_BEHAVIOR_NOT_NEWLINE_IN_NEGATIVE_CC);
        let mut bits = beh.bits();
        // `\(^a$\)`: anchors at the edges of a group, in BRE.
        if matches!(self, Dialect::Basic | Dialect::MinimalBasic | Dialect::Grep) {
            bits |= BRE_ANCHOR_AT_EDGE_OF_SUBEXP;
        }
        if matches!(self, Dialect::FindutilsDefault | Dialect::Emacs) {
            bits |= ALLOW_EMPTY_RANGE_IN_CC;
        } else {
            bits &= !ALLOW_EMPTY_RANGE_IN_CC;
        }
        s.set_operators(ops);
        s.set_behavior(B::from_bits_retain(bits));
        // `.` matches a newline (RE_DOT_NEWLINE) in all but `emacs`.
        let opts = if self == Dialect::Emacs {
            RegexOptions::REGEX_OPTION_NONE
        } else {
            RegexOptions::REGEX_OPTION_MULTILINE
        };
        s.set_options(opts);
        s
    }

    /// `pattern` rewritten where Oniguruma's reading of it would differ
    /// from GNU's: a newline outside brackets made the dialect's
    /// alternation (RE_NEWLINE_ALT, `grep` and `egrep`); in Emacs's
    /// syntax, a `^` or `$` that is not at an edge of the pattern, a group
    /// or an alternative escaped, as GNU takes it literally there.
    fn rewrite(self, pattern: &[u8]) -> Vec<u8> {
        let newline_alt = matches!(self, Dialect::Grep | Dialect::Egrep);
        let emacs = matches!(self, Dialect::FindutilsDefault | Dialect::Emacs);
        let awk = matches!(self, Dialect::Awk | Dialect::GnuAwk | Dialect::PosixAwk);
        if !(newline_alt && pattern.contains(&b'\n')
            || emacs && (pattern.contains(&b'^') || pattern.contains(&b'$'))
            || awk && pattern.contains(&b'['))
        {
            return pattern.to_vec();
        }
        let alt: &[u8] = if self.extended() { b"|" } else { b"\\|" };
        let mut out = Vec::with_capacity(pattern.len() + 4);
        let (mut i, mut in_bracket) = (0, false);
        while i < pattern.len() {
            let b = pattern[i];
            match b {
                // RE_BACKSLASH_ESCAPE_IN_LISTS quotes the next byte: `[\w]`
                // is `[w]`, where Oniguruma would see a class.
                b'\\' if in_bracket && awk && i + 1 < pattern.len() => {
                    let c = pattern[i + 1];
                    if !c.is_ascii_alphanumeric() {
                        out.push(b);
                    }
                    out.push(c);
                    i += 2;
                    continue;
                }
                b'\\' if !in_bracket && i + 1 < pattern.len() => {
                    out.extend_from_slice(&pattern[i..i + 2]);
                    i += 2;
                    continue;
                }
                b'[' if !in_bracket => {
                    in_bracket = true;
                    out.push(b);
                    // A `]` first in the list (after `^`) is a member.
                    for _ in 0..2 {
                        if let Some(&c @ (b'^' | b']')) = pattern.get(i + 1) {
                            out.push(c);
                            i += 1;
                            if c == b']' {
                                break;
                            }
                        }
                    }
                }
                b']' if in_bracket => {
                    in_bracket = false;
                    out.push(b);
                }
                b'\n' if newline_alt && !in_bracket => out.extend_from_slice(alt),
                b'^' if emacs && !in_bracket => {
                    let head = out.is_empty() || out.ends_with(b"\\(") || out.ends_with(b"\\|");
                    if !head {
                        out.push(b'\\');
                    }
                    out.push(b);
                }
                b'$' if emacs && !in_bracket => {
                    let rest = &pattern[i + 1..];
                    let tail =
                        rest.is_empty() || rest.starts_with(b"\\)") || rest.starts_with(b"\\|");
                    if !tail {
                        out.push(b'\\');
                    }
                    out.push(b);
                }
                _ => out.push(b),
            }
            i += 1;
        }
        out
    }
}

/// Whether `pattern` holds an interval whose bounds are reversed
/// (`a\{3,1\}`), which Oniguruma's POSIX basic syntax accepts (swapped)
/// and the GNU C library refuses.  Brackets are skipped roughly (a `]`
/// first in a list is taken as a member).
fn reversed_interval(pattern: &[u8], escaped_braces: bool) -> bool {
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'[' => {
                i += 1;
                if pattern.get(i) == Some(&b'^') {
                    i += 1;
                }
                if pattern.get(i) == Some(&b']') {
                    i += 1;
                }
                while i < pattern.len() && pattern[i] != b']' {
                    i += 1;
                }
            }
            b'\\' if !escaped_braces => i += 1,
            b'\\' | b'{' => {
                let open: &[u8] = if escaped_braces { b"\\{" } else { b"{" };
                if pattern[i..].starts_with(open) {
                    let rest = &pattern[i + open.len()..];
                    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
                    let n = digits(rest);
                    if n > 0 && rest.get(n) == Some(&b',') {
                        let m = digits(&rest[n + 1..]);
                        let num = |s: &[u8]| std::str::from_utf8(s).ok()?.parse::<u64>().ok();
                        if m > 0 && num(&rest[..n]) > num(&rest[n + 1..n + 1 + m]) {
                            return true;
                        }
                    }
                }
                if pattern[i] == b'\\' {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether a bracket expression opens (`[` or `[^`) at the very end of
/// `pattern`, where the GNU C library's message is not "Unmatched [".
fn bracket_opened_at_end(pattern: &[u8]) -> bool {
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'\\' => i += 2,
            b'[' => {
                let mut j = i + 1;
                if pattern.get(j) == Some(&b'^') {
                    j += 1;
                }
                if j == pattern.len() {
                    return true;
                }
                // A `]` first is a member; the bracket ends at the next.
                j += 1;
                while j < pattern.len() && pattern[j] != b']' {
                    if pattern[j] == b'[' && matches!(pattern.get(j + 1), Some(b':' | b'.' | b'='))
                    {
                        let close = pattern[j + 1];
                        j += 2;
                        while j + 1 < pattern.len()
                            && !(pattern[j] == close && pattern[j + 1] == b']')
                        {
                            j += 1;
                        }
                        j += 1;
                    }
                    j += 1;
                }
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    false
}

/// Compiles `pattern`; on failure, the GNU C library's words for it.
pub fn compile(pattern: &[u8], dialect: Dialect, icase: bool) -> Result<Regex, String> {
    let mut opts = RegexOptions::REGEX_OPTION_NONE;
    if icase {
        opts |= RegexOptions::REGEX_OPTION_IGNORECASE;
    }
    let syntax = dialect.syntax();
    let bre_intervals = matches!(
        dialect,
        Dialect::Basic | Dialect::MinimalBasic | Dialect::Grep
    );
    let ere_intervals = matches!(
        dialect,
        Dialect::Extended | Dialect::Egrep | Dialect::GnuAwk | Dialect::PosixAwk
    );
    if bre_intervals && reversed_interval(pattern, true)
        || ere_intervals && reversed_interval(pattern, false)
    {
        return Err("Invalid content of \\{\\}".to_string());
    }
    if bracket_opened_at_end(pattern) {
        return Err("Invalid regular expression".to_string());
    }
    let pattern = dialect.rewrite(pattern);
    Regex::with_options_and_encoding(EncodedBytes::ascii(&pattern), opts, &syntax).map_err(|e| {
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
            -123 => "Unmatched \\{".to_string(),
            -201 => "Regular expression too big".to_string(),
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
