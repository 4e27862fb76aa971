//! The locale: adopting the user's, and what ls and find ask of it
//! (collation, the character set, printable characters and their widths).

use std::cmp::Ordering;
use std::ffi::CStr;

use crate::sys;

pub use crate::sys::{use_environment_locale, use_time_locale};

/// Whether the current locale's collation (`LC_COLLATE`) is plain byte
/// order: `C`, `POSIX`, or glibc's `C.UTF-8` (code point order, which is
/// byte order for UTF-8), so that `strcoll` can be skipped.
pub fn collation_is_bytewise() -> bool {
    let Some(name) = sys::locale_name(libc::LC_COLLATE) else {
        return true;
    };
    matches!(&name[..], b"C" | b"POSIX")
        || name.eq_ignore_ascii_case(b"C.UTF-8")
        || name.eq_ignore_ascii_case(b"C.utf8")
}

/// Whether the locale adopted for times (`LC_TIME`) is `C` or `POSIX`
/// (gnulib's `hard_locale` is false): ls's `posix-` time styles and its
/// default formats read it.
pub fn time_locale_is_c() -> bool {
    !sys::locale_name(libc::LC_TIME).is_some_and(|name| !matches!(&name[..], b"C" | b"POSIX"))
}

/// How the current locale writes numbers (its `LC_NUMERIC`, as
/// `localeconv` reports it): what GNU's `human_readable` reads for du's
/// and ls's sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumericConventions {
    /// The decimal point (`.`; `,` in de_DE).
    pub decimal_point: Vec<u8>,
    /// The thousands separator (empty in C; `,` in en_US, `.` in de_DE,
    /// U+202F in fr_FR).
    pub thousands_sep: Vec<u8>,
    /// The sizes of the digit groups from the right, as `localeconv`'s
    /// `grouping`: the last repeats, `CHAR_MAX` ends grouping, empty
    /// groups nothing.
    pub grouping: Vec<u8>,
}

/// The current locale's [`NumericConventions`] (`nl_langinfo`'s
/// `RADIXCHAR`, `THOUSEP`, `GROUPING`).
pub fn numeric_conventions() -> NumericConventions {
    NumericConventions {
        decimal_point: sys::langinfo(libc::RADIXCHAR),
        thousands_sep: sys::langinfo(libc::THOUSEP),
        grouping: sys::langinfo(sys::GROUPING),
    }
}

/// The current `LC_TIME`'s abbreviated month names (`nl_langinfo`'s
/// `ABMON_1`...), January first: what `%b` writes.
pub fn abbreviated_months() -> [Vec<u8>; 12] {
    std::array::from_fn(|i| sys::langinfo(libc::ABMON_1 + i as libc::nl_item))
}

/// Compares two strings in the current locale's collation (`strcoll`).
pub fn strcoll(a: &CStr, b: &CStr) -> Ordering {
    sys::strcoll(a, b).cmp(&0)
}

/// Whether the current locale's character set is UTF-8 (its
/// `nl_langinfo(CODESET)`).
pub fn locale_is_utf8() -> bool {
    sys::codeset().eq_ignore_ascii_case(b"UTF-8")
}

/// `iswprint` and `wcwidth` of a character in the current locale: whether
/// it is printable, and its width in columns (0 if not printable).
pub fn wide_char_info(c: char) -> (bool, usize) {
    let (printable, width) = sys::printable_and_width(c);
    (printable, width.max(0) as usize)
}
