//! Message catalogs: a text's translation in GNU gettext's `.mo` files, as
//! `dcgettext(domain, msgid, LC_TIME)` finds it.  GNU ls takes its default
//! date formats from coreutils' catalog this way (`%e. %b %H:%M` in German),
//! so `dents ls` reads the same installed catalog to write the same dates.

use std::path::PathBuf;

use crate::sys;

/// Where the system's catalogs are (GNU coreutils' `LOCALEDIR` on Linux
/// distributions).
const LOCALE_DIR: &str = "/usr/share/locale";

/// The translation of `msgid` in `domain`'s catalog for the locale of
/// `LC_TIME`, as `dcgettext (domain, msgid, LC_TIME)` gives it; `None`
/// when no catalog has it (gettext then returns `msgid` itself).
///
/// The languages tried are gettext's: none in the C locale; else the
/// `LANGUAGE` list if set, else the locale's name; each from its most
/// specific form (`de_DE.UTF-8`, `de_DE.utf8`, `de_DE`, `de.UTF-8`,
/// `de.utf8`) to the language alone (`de`), up to a `C`.  The text is
/// not converted between character sets (catalogs and locales are UTF-8).
pub fn time_translation(domain: &str, msgid: &[u8]) -> Option<Vec<u8>> {
    let locale = sys::locale_name(libc::LC_TIME)?;
    if locale == b"C" || locale == b"POSIX" {
        return None;
    }
    let languages = std::env::var_os("LANGUAGE")
        .map(|v| v.into_encoded_bytes())
        .filter(|v| !v.is_empty())
        .unwrap_or(locale);
    for language in languages.split(|&b| b == b':').filter(|l| !l.is_empty()) {
        if language == b"C" || language == b"POSIX" {
            break;
        }
        for variant in variants(language) {
            let mut path = PathBuf::from(LOCALE_DIR);
            path.push(String::from_utf8_lossy(&variant).as_ref());
            path.push("LC_TIME");
            path.push(format!("{domain}.mo"));
            if let Ok(data) = std::fs::read(&path) {
                if let Some(t) = lookup(&data, msgid) {
                    return Some(t);
                }
            }
        }
    }
    None
}

/// The names gettext tries for a locale name `language[_territory][.codeset][@modifier]`,
/// most specific first; the codeset also normalised (`UTF-8` → `utf8`).
fn variants(name: &[u8]) -> Vec<Vec<u8>> {
    let (rest, modifier) = split_at_byte(name, b'@');
    let (rest, codeset) = split_at_byte(rest, b'.');
    let (language, territory) = split_at_byte(rest, b'_');
    let normalized = codeset.map(normalize_codeset);
    let mut out = Vec::new();
    // Bits: 8 modifier, 4 territory, 2 codeset, 1 normalised codeset,
    // from all of them down to none, never both codesets.
    for mask in (0..16u8).rev() {
        let codeset_part = match (mask & 2 != 0, mask & 1 != 0) {
            (true, true) => continue,
            (true, false) => match codeset {
                Some(c) => Some(c.to_vec()),
                None => continue,
            },
            (false, true) => match &normalized {
                Some(n) if Some(n.as_slice()) != codeset => Some(n.clone()),
                _ => continue,
            },
            (false, false) => None,
        };
        if (mask & 8 != 0 && modifier.is_none()) || (mask & 4 != 0 && territory.is_none()) {
            continue;
        }
        let mut v = language.to_vec();
        if mask & 4 != 0 {
            v.push(b'_');
            v.extend_from_slice(territory.unwrap_or_default());
        }
        if let Some(c) = codeset_part {
            v.push(b'.');
            v.extend_from_slice(&c);
        }
        if mask & 8 != 0 {
            v.push(b'@');
            v.extend_from_slice(modifier.unwrap_or_default());
        }
        out.push(v);
    }
    out
}

/// `s` cut at the first `sep`: what is before, and what is after if any.
fn split_at_byte(s: &[u8], sep: u8) -> (&[u8], Option<&[u8]>) {
    match s.iter().position(|&b| b == sep) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    }
}

/// gettext's normalised codeset: letters lowered, digits kept, the rest
/// dropped, `iso` before a codeset of digits only.
fn normalize_codeset(c: &[u8]) -> Vec<u8> {
    let kept: Vec<u8> = c
        .iter()
        .filter(|b| b.is_ascii_alphanumeric())
        .map(|b| b.to_ascii_lowercase())
        .collect();
    if kept.iter().all(u8::is_ascii_digit) {
        [b"iso".as_slice(), &kept].concat()
    } else {
        kept
    }
}

/// The translation of `msgid` in the `.mo` file `data` (either byte
/// order), if it has one that is not empty.
fn lookup(data: &[u8], msgid: &[u8]) -> Option<Vec<u8>> {
    let magic = u32::from_le_bytes(data.get(0..4)?.try_into().ok()?);
    let big = match magic {
        0x9504_12de => false,
        0xde12_0495 => true,
        _ => return None,
    };
    let word = |at: usize| -> Option<usize> {
        let b: [u8; 4] = data.get(at..at + 4)?.try_into().ok()?;
        Some(if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        } as usize)
    };
    let string = |table: usize, i: usize| -> Option<&[u8]> {
        let len = word(table + 8 * i)?;
        let at = word(table + 8 * i + 4)?;
        data.get(at..at.checked_add(len)?)
    };
    let (count, originals, translations) = (word(8)?, word(12)?, word(16)?);
    for i in 0..count {
        if string(originals, i)? == msgid {
            let t = string(translations, i)?;
            return (!t.is_empty()).then(|| t.to_vec());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_as_gettext_tries_them() {
        let v = |s: &str| -> Vec<String> {
            variants(s.as_bytes())
                .into_iter()
                .map(|v| String::from_utf8(v).unwrap())
                .collect()
        };
        assert_eq!(
            v("de_DE.UTF-8"),
            [
                "de_DE.UTF-8",
                "de_DE.utf8",
                "de_DE",
                "de.UTF-8",
                "de.utf8",
                "de"
            ]
        );
        assert_eq!(v("de_DE.utf8"), ["de_DE.utf8", "de_DE", "de.utf8", "de"]);
        assert_eq!(v("fr"), ["fr"]);
        assert_eq!(v("sr_RS@latin"), ["sr_RS@latin", "sr@latin", "sr_RS", "sr"]);
    }

    #[test]
    fn mo_lookup_in_both_byte_orders() {
        // A catalog of one entry, built as msgfmt lays it out.
        let build = |big: bool| {
            let w = |v: u32| {
                if big {
                    v.to_be_bytes()
                } else {
                    v.to_le_bytes()
                }
            };
            // magic, revision, 1 string, originals at 28, translations at
            // 36, no hash table; then ("ab" at 44) and ("xyz" at 47).
            let words = [0x9504_12de, 0, 1, 28, 36, 0, 0, 2, 44, 3, 47];
            let mut d: Vec<u8> = words.iter().flat_map(|&v| w(v)).collect();
            d.extend_from_slice(b"ab\0xyz\0");
            d
        };
        for big in [false, true] {
            let d = build(big);
            assert_eq!(lookup(&d, b"ab"), Some(b"xyz".to_vec()), "big: {big}");
            assert_eq!(lookup(&d, b"a"), None);
        }
    }
}
