//! Names as GNU ls writes them: its quoting styles (`--quoting-style`,
//! `-N`, `-b`, `-Q`, `QUOTING_STYLE`), `-q`'s question marks, and the
//! width a name takes on the screen (for columns).
//!
//! The styles behave as gnulib's `quotearg` does for ls (the behaviour
//! was learnt from its documentation and checked against GNU ls 9.1's
//! output; see `tests/ls_term.rs`):
//!
//! - `literal`: the bytes as they are.
//! - `shell`, `shell-always`: in single quotes when a shell would need
//!   them (`-always`: every time); a `'` becomes `'\''`.
//! - `shell-escape`, `shell-escape-always`: the same, and unprintable
//!   bytes as `$'\n'`, `$'\377'` outside the single quotes.
//! - `c`, `c-maybe`: C string syntax in double quotes (`-maybe`: only
//!   when needed); `escape`: the same without the quotes.
//! - `locale`, `clocale`: C escapes between the locale's quotation marks
//!   (`‘…’` in UTF-8; `'…'` and `"…"` in the C locale).
//!
//! With `-q` (the default on a terminal), GNU then replaces unprintable
//! characters by `?` after the `literal`, `shell` and `shell-always`
//! styles.

/// A quoting style, as `--quoting-style` names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Style {
    Literal,
    Shell,
    ShellAlways,
    ShellEscape,
    ShellEscapeAlways,
    C,
    CMaybe,
    Escape,
    Locale,
    CLocale,
}

/// The style words, in GNU's order (for its list of valid arguments).
pub const STYLE_WORDS: [(&str, Style); 10] = [
    ("literal", Style::Literal),
    ("shell", Style::Shell),
    ("shell-always", Style::ShellAlways),
    ("shell-escape", Style::ShellEscape),
    ("shell-escape-always", Style::ShellEscapeAlways),
    ("c", Style::C),
    ("c-maybe", Style::CMaybe),
    ("escape", Style::Escape),
    ("locale", Style::Locale),
    ("clocale", Style::CLocale),
];

impl Style {
    /// The style named `word`.
    pub fn from_word(word: &str) -> Option<Style> {
        STYLE_WORDS
            .iter()
            .find(|(w, _)| *w == word)
            .map(|&(_, s)| s)
    }
}

/// How names are written in one run.
#[derive(Clone, Debug)]
pub struct Quoter {
    /// The style.
    pub style: Style,
    /// Bytes quoted besides the style's own (ls's indicator characters
    /// with `-F`, `:` in directory headings, space with `-b`).
    extra: [bool; 256],
    /// Unprintable characters become `?` (`-q`), for the styles that do
    /// not escape them.
    qmark: bool,
    /// The locale's character set is UTF-8.
    utf8: bool,
}

/// One name, quoted: its bytes, its width on the screen, and whether the
/// quoting changed it (GNU's test: first byte or length differ).
#[derive(Debug, Default)]
pub struct Quoted {
    /// The bytes to write.
    pub bytes: Vec<u8>,
    /// Columns on the screen.
    pub width: usize,
    /// Quotes or escapes were added.
    pub quoted: bool,
}

impl Quoter {
    /// A quoter for `style`; `qmark`: `-q`.
    pub fn new(style: Style, qmark: bool) -> Quoter {
        Quoter {
            style,
            extra: [false; 256],
            qmark,
            utf8: dents_os::locale_is_utf8(),
        }
    }

    /// Whether `-q` changes names in this style.
    pub fn qmark_on(&self) -> bool {
        self.qmark
            && matches!(
                self.style,
                Style::Shell | Style::ShellAlways | Style::Literal
            )
    }

    /// Also quotes the bytes of `chars`.
    pub fn quote_too(&mut self, chars: &[u8]) {
        for &c in chars {
            self.extra[c as usize] = true;
        }
    }

    /// Whether `name` would be changed by quoting (GNU's `needs_quoting`).
    pub fn needs_quoting(&self, name: &[u8]) -> bool {
        if self.is_plain(name) {
            return false;
        }
        let q = restyled(name, self.style, false, Some(&self.extra), self.utf8);
        changed(name, &q)
    }

    /// `name` quoted, with `?` for unprintables where `-q` asks, and its
    /// width.
    pub fn quote(&self, name: &[u8]) -> Quoted {
        if self.is_plain(name) {
            return Quoted {
                bytes: name.to_vec(),
                width: name.len(),
                quoted: false,
            };
        }
        let mut bytes = if self.style == Style::Literal {
            name.to_vec()
        } else {
            restyled(name, self.style, false, Some(&self.extra), self.utf8)
        };
        let quoted = changed(name, &bytes);
        let further = self.qmark
            && matches!(
                self.style,
                Style::Shell | Style::ShellAlways | Style::Literal
            );
        let width = if further {
            let (q, w) = qmark(&bytes, self.utf8);
            bytes = q;
            w
        } else {
            width(&bytes, self.utf8)
        };
        Quoted {
            bytes,
            width,
            quoted,
        }
    }
}

impl Quoter {
    /// Whether `name` is written as it is, one column a byte: made only
    /// of bytes that no style quoting when needed changes, in such a
    /// style (most names; they skip the quoting's work).
    pub fn is_plain(&self, name: &[u8]) -> bool {
        matches!(
            self.style,
            Style::Literal | Style::Shell | Style::ShellEscape | Style::CMaybe | Style::Escape
        ) && !name.is_empty()
            && name
                .iter()
                .all(|&b| plain_byte(b) && !self.extra[b as usize])
    }
}

/// Letters, digits and `. _ - + ,`: printable ASCII that no style quotes
/// or escapes wherever it stands in a name.
fn plain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'+' | b',')
}

/// GNU's test for "quoted": the first byte or the length changed.
fn changed(name: &[u8], q: &[u8]) -> bool {
    name.first() != q.first() || name.len() != q.len()
}

/// The quotation marks of the `locale` and `clocale` styles.
fn locale_quotes(style: Style, utf8: bool) -> (&'static [u8], &'static [u8]) {
    if utf8 {
        ("\u{2018}".as_bytes(), "\u{2019}".as_bytes())
    } else if style == Style::CLocale {
        (b"\"", b"\"")
    } else {
        (b"'", b"'")
    }
}

/// Whether `c` is printable in the C locale.
fn c_isprint(c: u8) -> bool {
    (0x20..0x7f).contains(&c)
}

/// Quotes `arg` in `style` (gnulib's algorithm for ls: flags 0).
/// `elide`: leave out the outer quotes when nothing needs them.
fn restyled(
    arg: &[u8],
    style: Style,
    elide_in: bool,
    extra: Option<&[bool; 256]>,
    utf8: bool,
) -> Vec<u8> {
    restyled_pass(arg, style, elide_in, extra, utf8, false)
}

/// A pass of [`restyled`]; `again`: the second pass gnulib makes of a
/// name with a single quote in the shell styles, which starts inside a
/// `$'...'` when the first ended in one.
fn restyled_pass(
    arg: &[u8],
    style: Style,
    elide_in: bool,
    extra: Option<&[bool; 256]>,
    utf8: bool,
    again: bool,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(arg.len() + 2);
    let mut elide = elide_in;
    let mut backslash_escapes = false;
    let mut quote_string: &[u8] = b"";
    let mut shell_always = false;
    match style {
        Style::CMaybe | Style::C => {
            if style == Style::CMaybe {
                elide = true;
            }
            if !elide {
                out.push(b'"');
            }
            backslash_escapes = true;
            quote_string = b"\"";
        }
        Style::Escape => {
            backslash_escapes = true;
            elide = false;
        }
        Style::Locale | Style::CLocale => {
            let (l, r) = locale_quotes(style, utf8);
            if !elide {
                out.extend_from_slice(l);
            }
            backslash_escapes = true;
            quote_string = r;
        }
        Style::ShellEscape | Style::Shell | Style::ShellEscapeAlways | Style::ShellAlways => {
            if style == Style::ShellEscape {
                backslash_escapes = true;
            }
            if matches!(style, Style::ShellEscape | Style::Shell) {
                elide = true;
            }
            if style == Style::ShellEscapeAlways && !elide {
                backslash_escapes = true;
            }
            shell_always = true;
            if !elide {
                out.push(b'\'');
            }
            quote_string = b"'";
        }
        Style::Literal => {
            elide = false;
        }
    }
    let force = |arg: &[u8]| {
        let s = if shell_always && backslash_escapes {
            Style::ShellEscapeAlways
        } else if shell_always {
            Style::ShellAlways
        } else if style == Style::CMaybe {
            Style::C
        } else {
            style
        };
        restyled(arg, s, false, None, utf8)
    };
    let mut encountered_single_quote = false;
    let mut all_compat = true;
    let mut pending_end = again;
    let mut i = 0;
    while i < arg.len() {
        let mut is_right_quote = false;
        let mut escaping = false;
        let mut compat = false;
        if backslash_escapes
            && !shell_always
            && !quote_string.is_empty()
            && arg[i..].starts_with(quote_string)
        {
            if elide {
                return force(arg);
            }
            is_right_quote = true;
        }
        let mut c = arg[i];
        // What to do after the classification: 0 = the quote_these_too
        // check, 1 = store escaped, 2 = store as is.
        let mut action = 0;
        match c {
            b'?' => {
                if shell_always && elide {
                    return force(arg);
                }
            }
            0x07 | 0x08 | 0x0c | 0x0b | b'\n' | b'\r' | b'\t' | b'\\' => {
                let esc = match c {
                    0x07 => b'a',
                    0x08 => b'b',
                    0x0c => b'f',
                    0x0b => b'v',
                    b'\n' => b'n',
                    b'\r' => b'r',
                    b'\t' => b't',
                    _ => b'\\',
                };
                let shell_escaped = matches!(c, b'\n' | b'\r' | b'\t' | b'\\');
                if c == b'\\' && shell_always {
                    if elide {
                        return force(arg);
                    }
                    action = 2;
                } else if c == b'\\' && backslash_escapes && elide && !quote_string.is_empty() {
                    action = 2;
                } else {
                    if shell_escaped && shell_always && elide {
                        return force(arg);
                    }
                    if backslash_escapes {
                        c = esc;
                        action = 1;
                    }
                }
            }
            b'{' | b'}' | b'#' | b'~' | b' ' => {
                let special = match c {
                    b'{' | b'}' => arg.len() == 1,
                    b'#' | b'~' => i == 0,
                    _ => true,
                };
                if special {
                    compat = true;
                    if shell_always && elide {
                        return force(arg);
                    }
                }
            }
            b'!' | b'"' | b'$' | b'&' | b'(' | b')' | b'*' | b';' | b'<' | b'=' | b'>' | b'['
            | b'^' | b'`' | b'|' => {
                if shell_always && elide {
                    return force(arg);
                }
            }
            b'\'' => {
                encountered_single_quote = true;
                compat = true;
                if shell_always {
                    if elide {
                        return force(arg);
                    }
                    out.extend_from_slice(b"'\\'");
                    pending_end = false;
                }
            }
            b'%'
            | b'+'
            | b','
            | b'-'
            | b'.'
            | b'/'
            | b'0'..=b'9'
            | b':'
            | b'A'..=b'Z'
            | b']'
            | b'_'
            | b'a'..=b'z' => compat = true,
            _ => {
                // A character of one or more bytes.
                let (m, printable) = if !utf8 {
                    (1, c_isprint(c))
                } else {
                    match std::str::from_utf8(&arg[i..arg.len().min(i + 4)]) {
                        _ if c < 0x80 => (1, c_isprint(c)),
                        Ok(s) => char_info(s),
                        Err(e) if e.valid_up_to() > 0 => {
                            char_info(std::str::from_utf8(&arg[i..i + e.valid_up_to()]).unwrap())
                        }
                        Err(e) if e.error_len().is_none() && i + 4 >= arg.len() => {
                            // Incomplete at the end: the rest, unprintable.
                            (arg.len() - i, false)
                        }
                        Err(_) => (0, false),
                    }
                };
                compat = printable;
                if m > 1 || (backslash_escapes && !printable) {
                    let ilim = i + m;
                    loop {
                        if backslash_escapes && !printable {
                            if elide {
                                return force(arg);
                            }
                            escaping = true;
                            if shell_always && !pending_end {
                                out.extend_from_slice(b"'$'");
                                pending_end = true;
                            }
                            out.push(b'\\');
                            out.push(b'0' + (c >> 6));
                            out.push(b'0' + ((c >> 3) & 7));
                            c = b'0' + (c & 7);
                        } else if is_right_quote {
                            out.push(b'\\');
                            is_right_quote = false;
                        }
                        if ilim <= i + 1 {
                            break;
                        }
                        if pending_end && !escaping {
                            out.extend_from_slice(b"''");
                            pending_end = false;
                        }
                        out.push(c);
                        i += 1;
                        c = arg[i];
                    }
                    action = 2;
                }
            }
        }
        if action == 0 {
            let in_extra = extra.is_some_and(|e| e[c as usize]);
            let escapes = (backslash_escapes && !shell_always) || elide;
            action = if !(is_right_quote || escapes && in_extra) {
                2
            } else {
                1
            };
        }
        if action == 1 {
            if elide {
                return force(arg);
            }
            escaping = true;
            if shell_always && !pending_end {
                out.extend_from_slice(b"'$'");
                pending_end = true;
            }
            out.push(b'\\');
        }
        if pending_end && !escaping {
            out.extend_from_slice(b"''");
            pending_end = false;
        }
        out.push(c);
        if !compat {
            all_compat = false;
        }
        i += 1;
    }
    if out.is_empty() && shell_always && elide {
        return force(arg);
    }
    if shell_always && !elide && encountered_single_quote && all_compat {
        return restyled(arg, Style::C, false, extra, utf8);
    }
    // gnulib only measures from the first single quote on, then writes
    // the name again from the state the measuring ended in: inside a
    // `$'...'` when the name ends in an escape (GNU: `'''a'\'''$'\n'`).
    if shell_always && !elide && encountered_single_quote && pending_end && !again {
        return restyled_pass(arg, style, elide_in, extra, utf8, true);
    }
    if !quote_string.is_empty() && !elide {
        out.extend_from_slice(quote_string);
    }
    out
}

/// The length and printability of the first character of `s`.
fn char_info(s: &str) -> (usize, bool) {
    let ch = s.chars().next().expect("not empty");
    (ch.len_utf8(), dents_os::wide_char_info(ch).0)
}

/// `-q`: unprintable characters replaced by `?`; returns the bytes and
/// their width.
fn qmark(b: &[u8], utf8: bool) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(b.len());
    let mut width = 0;
    if !utf8 {
        for &c in b {
            out.push(if c_isprint(c) { c } else { b'?' });
        }
        return (out, b.len());
    }
    let mut rest = b;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                qmark_str(s, &mut out, &mut width);
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                qmark_str(std::str::from_utf8(good).unwrap(), &mut out, &mut width);
                out.push(b'?');
                width += 1;
                match e.error_len() {
                    // Incomplete at the end: one mark for all of it.
                    None => break,
                    Some(_) => rest = &bad[1..],
                }
            }
        }
    }
    (out, width)
}

fn qmark_str(s: &str, out: &mut Vec<u8>, width: &mut usize) {
    for ch in s.chars() {
        if (ch as u32) < 0x80 {
            let c = ch as u8;
            if c_isprint(c) {
                out.push(c);
                *width += 1;
            } else {
                out.push(b'?');
                *width += 1;
            }
            continue;
        }
        let (printable, w) = dents_os::wide_char_info(ch);
        if printable {
            let mut tmp = [0u8; 4];
            out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
            *width += w;
        } else {
            out.push(b'?');
            *width += 1;
        }
    }
}

/// The columns `b` takes on the screen (gnulib's `mbsnwidth` in UTF-8;
/// the printable bytes in the C locale).
pub fn width(b: &[u8], utf8: bool) -> usize {
    if !utf8 || b.is_ascii() {
        return b.iter().filter(|&&c| c_isprint(c)).count();
    }
    let mut w = 0;
    let mut rest = b;
    while !rest.is_empty() {
        let (good, next) = match std::str::from_utf8(rest) {
            Ok(s) => (s, None),
            Err(e) => {
                let (g, bad) = rest.split_at(e.valid_up_to());
                (
                    std::str::from_utf8(g).unwrap(),
                    Some(match e.error_len() {
                        None => &bad[bad.len()..],
                        Some(_) => &bad[1..],
                    }),
                )
            }
        };
        for ch in good.chars() {
            if (ch as u32) < 0x80 {
                w += c_isprint(ch as u8) as usize;
            } else {
                let (printable, cw) = dents_os::wide_char_info(ch);
                w += if printable {
                    cw
                } else {
                    // gnulib counts an unprintable non-control character as 1.
                    usize::from(!((0x80..0xa0).contains(&(ch as u32))))
                };
            }
        }
        match next {
            Some(n) => {
                // An invalid byte, or an incomplete character at the end.
                w += 1;
                rest = n;
            }
            None => break,
        }
    }
    w
}

/// `word` quoted as GNU's `quote` quotes in messages: the locale's
/// quotation marks.
pub(super) fn quote_word(word: &str) -> String {
    let q = Quoter::new(Style::Locale, false);
    String::from_utf8_lossy(&q.quote(word.as_bytes()).bytes).into_owned()
}
