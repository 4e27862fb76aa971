//! A path's last component and directory as GNU find names them.
//!
//! Two different "base names": `-name` matches the last component with
//! every trailing slash dropped ([`last_component`]), while `-printf`'s
//! `%f` keeps one trailing slash, as gnulib's `base_name` does
//! ([`base_name`]); `%h` is [`dir_name`].

/// The last component as GNU's `-name` (and `-hidden`) sees it: trailing slashes
/// dropped, except for `/` itself.
pub fn last_component(path: &[u8]) -> &[u8] {
    let end = path.iter().rposition(|&b| b != b'/').map_or(0, |i| i + 1);
    if end == 0 {
        return if path.is_empty() { path } else { b"/" };
    }
    let trimmed = &path[..end];
    let start = trimmed
        .iter()
        .rposition(|&b| b == b'/')
        .map_or(0, |i| i + 1);
    &trimmed[start..]
}

/// `%f`: the last component, one trailing slash kept (gnulib's
/// `base_name`); `/` for a path of slashes.
pub fn base_name(path: &[u8]) -> &[u8] {
    let Some(last) = path.iter().rposition(|&b| b != b'/') else {
        return &path[..path.len().min(1)];
    };
    let start = path[..last]
        .iter()
        .rposition(|&b| b == b'/')
        .map_or(0, |i| i + 1);
    let end = (last + 2).min(path.len());
    &path[start..end]
}

/// `%h`: the path up to its last slash, after trailing slashes (but the
/// first character) are dropped; `.` if there is no slash.
pub fn dir_name(path: &[u8]) -> &[u8] {
    let mut p = path;
    if let Some(last) = path.iter().rposition(|&b| b != b'/') {
        if last > 0 && last + 1 < path.len() {
            p = &path[..last + 1];
        }
    }
    match p.iter().rposition(|&b| b == b'/') {
        Some(i) => &p[..i],
        None => b".",
    }
}

#[cfg(test)]
mod tests {
    use super::{base_name, dir_name, last_component};

    #[test]
    fn last_components_as_gnu() {
        assert_eq!(last_component(b"d/"), b"d");
        assert_eq!(last_component(b"/"), b"/");
        assert_eq!(last_component(b"//"), b"/");
        assert_eq!(last_component(b"a/b//"), b"b");
        assert_eq!(last_component(b"."), b".");
    }

    #[test]
    fn names_like_gnu() {
        assert_eq!(base_name(b"t//"), b"t/");
        assert_eq!(base_name(b"/"), b"/");
        assert_eq!(base_name(b"//"), b"/");
        assert_eq!(base_name(b"a/b"), b"b");
        assert_eq!(base_name(b"a/b/"), b"b/");
        assert_eq!(dir_name(b"t//"), b"t/");
        assert_eq!(dir_name(b"/"), b"");
        assert_eq!(dir_name(b"//"), b"/");
        assert_eq!(dir_name(b"t"), b".");
        assert_eq!(dir_name(b"t/one/"), b"t");
        assert_eq!(dir_name(b"t//one"), b"t/");
    }
}
