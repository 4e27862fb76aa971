//! `-printf` and `-fprintf` formats, read and applied as GNU find 4.9
//! does, byte for byte.
//!
//! A format is read once, when the command line is: escapes (`\n`,
//! `\NNN`, `\c` which ends the format there) are resolved, unknown
//! escapes and directives are warned about and kept as they were written,
//! and each directive becomes a [`Directive`] with its C `printf` flags,
//! width and precision.  GNU hands every directive to `printf` as a
//! string (`%s`), except `%d` (an integer), `%m` (octal) and `%S` (a
//! `%g` float), so a precision cuts a number short and `0` or `+` pad or
//! sign only those three; [`Conv`] applies the same rules.
//!
//! Applying a format appends to the thread's output buffer; values are
//! formatted in place or through one scratch buffer per thread, user and
//! group names and times are cached per thread, so the common case
//! allocates nothing per file.

use dents::walk::Visit;
use dents::FileType;
use dents::Metadata;
use dents::StatFields;

use super::cache::Cache;
use super::color::Colors;
use super::time::TimeField;
use super::{msg, names};
use crate::errors;
use crate::numfmt::push_u64;

/// C `printf` flags, width and precision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conv {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
    /// The width or precision is beyond C's `int`: `printf` fails
    /// (`EOVERFLOW`) and the directive prints nothing, as with GNU.
    overflow: bool,
}

/// What a directive prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    /// `%p`
    Path,
    /// `%P`: the path below the starting point.
    Below,
    /// `%f`
    Base,
    /// `%h`
    Dir,
    /// `%H`: the starting point.
    Root,
    /// `%d`
    Depth,
    /// `%D`
    Dev,
    /// `%s`
    Size,
    /// `%k`
    Kilo,
    /// `%b`
    Blocks,
    /// `%m`
    Perm,
    /// `%M`
    ModeString,
    /// `%y`
    Type,
    /// `%Y`
    TargetType,
    /// `%l`
    Target,
    /// `%i`
    Ino,
    /// `%n`
    Links,
    /// `%u`
    User,
    /// `%U`
    Uid,
    /// `%g`
    Group,
    /// `%G`
    Gid,
    /// `%a`, `%c`, `%t`.
    CTime(TimeField),
    /// `%Ak`, `%Bk`, `%Ck`, `%Tk`.
    Time(TimeField, u8),
    /// `%S`
    Sparseness,
    /// `%F`
    FsType,
    /// `%Z`
    Context,
}

impl Field {
    /// The stat fields it reads; `None` if it needs no stat.
    fn mask(self) -> Option<StatFields> {
        Some(match self {
            Field::Path
            | Field::Below
            | Field::Base
            | Field::Dir
            | Field::Root
            | Field::Depth
            | Field::Type
            | Field::TargetType
            | Field::Target
            | Field::Context => return None,
            // Any stat gives the device.
            Field::Dev | Field::FsType => StatFields::TYPE,
            Field::Size => StatFields::SIZE,
            Field::Kilo | Field::Blocks => StatFields::BLOCKS,
            Field::Perm | Field::ModeString => StatFields::MODE,
            Field::Ino => StatFields::INO,
            Field::Links => StatFields::NLINK,
            Field::User | Field::Uid => StatFields::UID,
            Field::Group | Field::Gid => StatFields::GID,
            Field::CTime(f) | Field::Time(f, _) => f.mask(),
            Field::Sparseness => StatFields::SIZE | StatFields::BLOCKS,
        })
    }

    /// Whether GNU quotes it for a terminal (names it takes from the
    /// filesystem).
    fn quoted(self) -> bool {
        matches!(
            self,
            Field::Path | Field::Below | Field::Base | Field::Dir | Field::Target | Field::FsType
        )
    }
}

/// A directive and how it is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Directive {
    field: Field,
    conv: Conv,
}

/// A piece of a format.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seg {
    /// Text printed as it is.
    Lit(Vec<u8>),
    /// A directive.
    Dir(Directive),
}

/// A parsed `-printf` format.
#[derive(Debug)]
pub struct Format {
    segs: Vec<Seg>,
    mask: StatFields,
    needs_stat: bool,
    /// `%y` or `%Y`: the file type, which GNU may learn by a stat.
    needs_type: bool,
    /// `%Y`: a link's target's type, learnt by a stat.
    needs_target_type: bool,
}

impl Format {
    /// Reads `f` as GNU does, warning as it warns; `Err` holds GNU's
    /// fatal message.
    pub fn parse(f: &[u8]) -> Result<Format, Vec<u8>> {
        let mut segs = Vec::new();
        let mut lit = Vec::new();
        let mut i = 0;
        while i < f.len() {
            match f[i] {
                b'\\' => {
                    let Some(&c) = f.get(i + 1) else {
                        msg::warning_bytes(b"escape `\\' followed by nothing at all");
                        lit.push(b'\\');
                        i += 1;
                        continue;
                    };
                    if c == b'c' {
                        // Nothing after `\c` counts, not even errors.
                        break;
                    }
                    if (b'0'..=b'7').contains(&c) {
                        let digits = f[i + 1..]
                            .iter()
                            .take(3)
                            .take_while(|d| (b'0'..=b'7').contains(*d))
                            .count();
                        let v = f[i + 1..i + 1 + digits]
                            .iter()
                            .fold(0u32, |n, d| n * 8 + (d - b'0') as u32);
                        lit.push(v as u8);
                        i += 1 + digits;
                        continue;
                    }
                    let v = match c {
                        b'a' => 0x07,
                        b'b' => 0x08,
                        b'f' => 0x0c,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'v' => 0x0b,
                        b'\\' => b'\\',
                        _ => {
                            let mut m = b"unrecognized escape `\\".to_vec();
                            m.push(c);
                            m.push(b'\'');
                            msg::warning_bytes(&m);
                            lit.extend_from_slice(&f[i..i + 2]);
                            i += 2;
                            continue;
                        }
                    };
                    lit.push(v);
                    i += 2;
                }
                b'%' => {
                    i = directive(f, i, &mut lit, &mut segs)?;
                }
                c => {
                    lit.push(c);
                    i += 1;
                }
            }
        }
        if !lit.is_empty() {
            segs.push(Seg::Lit(lit));
        }
        let mut mask = StatFields::empty();
        let mut needs_stat = false;
        for s in &segs {
            if let Seg::Dir(d) = s {
                if let Some(m) = d.field.mask() {
                    mask |= m;
                    needs_stat = true;
                }
            }
        }
        let needs_type = segs.iter().any(|s| {
            matches!(
                s,
                Seg::Dir(Directive {
                    field: Field::Type | Field::TargetType,
                    ..
                })
            )
        });
        let needs_target_type = segs.iter().any(|s| {
            matches!(
                s,
                Seg::Dir(Directive {
                    field: Field::TargetType,
                    ..
                })
            )
        });
        Ok(Format {
            segs,
            mask,
            needs_stat,
            needs_type,
            needs_target_type,
        })
    }

    /// The stat fields the format reads.
    pub fn stat_mask(&self) -> StatFields {
        self.mask
    }

    /// Whether any directive needs a stat (the primary is then false for
    /// a file that cannot be stat'ed, as in GNU find).
    pub fn needs_stat(&self) -> bool {
        self.needs_stat
    }

    /// Whether a directive prints the file type (false where a stat GNU
    /// needs for it failed).
    pub fn needs_type(&self) -> bool {
        self.needs_type
    }

    /// Whether a directive prints a link's target's type (`%Y`).
    pub fn needs_target_type(&self) -> bool {
        self.needs_target_type
    }

    /// Appends the format applied to `f` to `out`.
    pub fn write(&self, f: &Subject<'_, '_>, cache: &mut Cache, out: &mut Vec<u8>) {
        for s in &self.segs {
            match s {
                Seg::Lit(text) => out.extend_from_slice(text),
                Seg::Dir(d) => self.directive(d, f, cache, out),
            }
        }
    }

    /// Appends one directive.
    fn directive(&self, d: &Directive, f: &Subject<'_, '_>, cache: &mut Cache, out: &mut Vec<u8>) {
        let conv = d.conv;
        if conv.overflow {
            let e = std::io::Error::from_raw_os_error(rustix::io::Errno::OVERFLOW.raw_os_error());
            return msg::path_error(f.dest, &e);
        }
        match d.field {
            Field::Depth => return conv.int(out, false, f.v.depth() as u64, 10),
            Field::Perm => {
                let mode = f.st.map_or(0, |st| st.mode() as u64 & 0o7777);
                return conv.int(out, false, mode, 8);
            }
            Field::Sparseness => return conv.float(out, f.st.map_or(1.0, sparseness)),
            _ => {}
        }
        if let Some(colors) = f.colors {
            // Paths and names in color, as bfs paints them; a padded or
            // cut field stays plain, so that escape sequences never count
            // towards its width.
            if conv.width == 0 && conv.prec.is_none() && paint(colors, d.field, f, out) {
                return;
            }
        }
        // A string: formatted straight into `out` when nothing pads,
        // cuts or quotes it, else through the scratch buffer.
        let plain =
            conv.width == 0 && conv.prec.is_none() && !(f.quote.is_some() && d.field.quoted());
        let mut scratch = std::mem::take(&mut cache.scratch);
        scratch.clear();
        let dst = if plain { &mut *out } else { &mut scratch };
        self.value(d.field, f, cache, dst);
        if !plain {
            match f.quote {
                Some(utf8) if d.field.quoted() => {
                    let mut q = Vec::with_capacity(scratch.len());
                    super::color::qmarks(&mut q, &scratch, utf8);
                    conv.string(out, &q);
                }
                _ => conv.string(out, &scratch),
            }
        }
        cache.scratch = scratch;
    }

    /// Appends the text of a string-valued field.
    fn value(&self, field: Field, f: &Subject<'_, '_>, cache: &mut Cache, out: &mut Vec<u8>) {
        let path = f.v.path();
        let st = f.st;
        let num = |out: &mut Vec<u8>, get: &dyn Fn(&Metadata) -> u64| {
            push_u64(out, st.map_or(0, get));
        };
        match field {
            Field::Path => out.extend_from_slice(path),
            Field::Base => out.extend_from_slice(names::base_name(path)),
            Field::Dir => out.extend_from_slice(names::dir_name(path)),
            Field::Root => out.extend_from_slice(f.v.root()),
            Field::Below => {
                // The path less its starting point and the `/` the walk
                // put after it (none if the starting point ends with one).
                let rest = &path[f.v.root().len()..];
                out.extend_from_slice(rest.strip_prefix(b"/").unwrap_or(rest));
            }
            Field::Dev => num(out, &|st| st.dev()),
            Field::Size => num(out, &|st| st.len()),
            Field::Kilo => num(out, &|st| st.blocks().div_ceil(2)),
            Field::Blocks => num(out, &|st| st.blocks()),
            Field::Ino => num(out, &|st| st.ino()),
            Field::Links => num(out, &|st| st.nlink()),
            Field::Uid => num(out, &|st| st.uid() as u64),
            Field::Gid => num(out, &|st| st.gid() as u64),
            Field::User => {
                let uid = st.map_or(0, |st| st.uid());
                match cache.users.get(uid, dents_os::user_name) {
                    Some(n) => out.extend_from_slice(n),
                    None => push_u64(out, uid as u64),
                }
            }
            Field::Group => {
                let gid = st.map_or(0, |st| st.gid());
                match cache.groups.get(gid, dents_os::group_name) {
                    Some(n) => out.extend_from_slice(n),
                    None => push_u64(out, gid as u64),
                }
            }
            Field::ModeString => crate::filemode::mode_string(out, st.map_or(0, |st| st.mode())),
            Field::Type => out.push(type_letter(f.v.file_type())),
            Field::TargetType => target_type(f, out),
            Field::Target => {
                if f.v.file_type() == FileType::SYMLINK {
                    match dents::fs::readlink_at(f.v.parent_fd(), f.v.at_name()) {
                        Ok(t) => out.extend_from_slice(&t),
                        Err(e) => msg::path_error(path, &e),
                    }
                }
            }
            Field::CTime(which) => {
                if let Some((sec, nsec)) = st.and_then(|st| time_of(st, which)) {
                    cache.clock.ctime(out, sec, nsec);
                }
            }
            Field::Time(which, letter) => match st.and_then(|st| time_of(st, which)) {
                Some((sec, nsec)) => cache.clock.directive(out, sec, nsec, letter),
                // GNU's birth time when there is none: nothing, but for
                // `@`, which it prints from the placeholder {-1, -1}.
                None if letter == b'@' => cache.clock.directive(out, -1, -1, b'@'),
                None => {}
            },
            Field::FsType => {
                let dev = st.map_or((0, 0), |st| (st.dev_major(), st.dev_minor()));
                out.extend_from_slice(cache.fs.name(dev));
            }
            Field::Context => {
                let (dir, name) = (f.v.parent_fd(), f.v.at_name());
                match dents_os::security_context_at(dir, name, f.v.follows_links()) {
                    Ok(c) => out.extend_from_slice(&c),
                    Err(e) => {
                        let mut m = b"getfilecon failed: ".to_vec();
                        msg::quote(&mut m, path, msg::utf8_locale());
                        m.extend_from_slice(b": ");
                        m.extend_from_slice(errors::describe(&e).as_bytes());
                        msg::error(&m);
                    }
                }
            }
            Field::Depth | Field::Perm | Field::Sparseness => {
                unreachable!("numbers are formatted by `directive`")
            }
        }
    }
}

/// Appends `field` of `f` in color, if it is a path or a name; false
/// for the other fields.
fn paint(colors: &Colors, field: Field, f: &Subject<'_, '_>, out: &mut Vec<u8>) -> bool {
    let path = f.v.path();
    match field {
        Field::Path => colors.path(out, f.v, f.quote),
        Field::Base => colors.name(out, f.v, f.quote),
        Field::Dir => colors.dir(out, names::dir_name(path), f.quote),
        // GNU does not quote the starting point on a terminal.
        Field::Root => colors.dir(out, f.v.root(), None),
        Field::Below => {
            let root = f.v.root().len();
            let skip = usize::from(path.get(root) == Some(&b'/'));
            colors.path_from(out, f.v, root + skip, f.quote);
        }
        _ => return false,
    }
    true
}

/// A file as a format sees it.
pub struct Subject<'a, 'v> {
    /// The walker's entry.
    pub v: &'a Visit<'v>,
    /// Its metadata, if the format needs it.
    pub st: Option<&'a Metadata>,
    /// `Some(utf8 locale)` if the output is a terminal: names are then
    /// shown with `?` for what cannot be printed.
    pub quote: Option<bool>,
    /// Colors for the names and paths it prints, if they are on (standard
    /// output only, as bfs colors it).
    pub colors: Option<&'a Colors>,
    /// The output's name, for messages (`standard output`, a file name).
    pub dest: &'a [u8],
}

/// A file's time as seconds and nanoseconds; `None` for a birth time the
/// filesystem does not give.
fn time_of(st: &Metadata, which: TimeField) -> Option<(i64, i64)> {
    super::time::Timestamp::of(st, which).map(|t| (t.sec, t.nsec as i64))
}

/// GNU's `%S`: allocated bytes over the size (1 for an empty file with
/// no blocks, infinite for one with some).
fn sparseness(st: &Metadata) -> f64 {
    if st.is_empty() {
        return if st.blocks() == 0 { 1.0 } else { f64::INFINITY };
    }
    512.0 * st.blocks() as f64 / st.len() as f64
}

/// `%y`'s letter for a type.
fn type_letter(t: FileType) -> u8 {
    match t {
        FileType::REGULAR => b'f',
        FileType::DIRECTORY => b'd',
        FileType::SYMLINK => b'l',
        FileType::SOCKET => b's',
        FileType::BLOCK_DEVICE => b'b',
        FileType::CHAR_DEVICE => b'c',
        FileType::FIFO => b'p',
        _ => b'U',
    }
}

/// `%Y`: a symlink's target's type (`N` if there is none, `L` for a
/// loop); any other file's own.
fn target_type(f: &Subject<'_, '_>, out: &mut Vec<u8>) {
    let t = f.v.file_type();
    if t != FileType::SYMLINK {
        return out.push(type_letter(t));
    }
    match dents::fs::stat_follow_at(f.v.parent_fd(), f.v.at_name(), StatFields::TYPE) {
        Ok(st) => out.push(type_letter(st.file_type())),
        Err(e) => match e.raw_os_error() {
            Some(libc_errno) if libc_errno == rustix::io::Errno::NOENT.raw_os_error() => {
                out.push(b'N')
            }
            Some(n) if n == rustix::io::Errno::NOTDIR.raw_os_error() => out.push(b'N'),
            Some(n) if n == rustix::io::Errno::LOOP.raw_os_error() => out.push(b'L'),
            _ => {
                // GNU says so but leaves the exit status alone.
                out.push(b'?');
                let mut m = Vec::new();
                msg::quote(&mut m, f.v.path(), msg::utf8_locale());
                m.extend_from_slice(b": ");
                m.extend_from_slice(errors::describe(&e).as_bytes());
                msg::note(&m);
            }
        },
    }
}

/// Reads the directive at `f[i]` (a `%`): appends literal text to `lit`,
/// or closes `lit` and pushes the directive; returns where to go on.
fn directive(f: &[u8], i: usize, lit: &mut Vec<u8>, segs: &mut Vec<Seg>) -> Result<usize, Vec<u8>> {
    if i + 1 == f.len() {
        return Err(b"error: % at end of format string".to_vec());
    }
    if f[i + 1] == b'%' {
        lit.push(b'%');
        return Ok(i + 2);
    }
    let mut conv = Conv::default();
    let mut j = i + 1;
    while let Some(&c) = f.get(j) {
        match c {
            b'-' => conv.left = true,
            b'+' => conv.plus = true,
            b' ' => conv.space = true,
            b'#' => conv.alt = true,
            _ => break,
        }
        j += 1;
    }
    // Leading zeros of the width are C's `0` flag.
    while f.get(j) == Some(&b'0') {
        conv.zero = true;
        j += 1;
    }
    let digits = |j: &mut usize, overflow: &mut bool| {
        let mut n = 0usize;
        while let Some(d) = f.get(*j).filter(|d| d.is_ascii_digit()) {
            n = n.saturating_mul(10).saturating_add((d - b'0') as usize);
            *j += 1;
        }
        *overflow |= n > i32::MAX as usize;
        n.min(i32::MAX as usize)
    };
    conv.width = digits(&mut j, &mut conv.overflow);
    if f.get(j) == Some(&b'.') {
        j += 1;
        conv.prec = Some(digits(&mut j, &mut conv.overflow));
    }
    let Some(&c) = f.get(j) else {
        // GNU reads the string's terminator as the directive.
        return Err(b"error: the format directive `%\0' is reserved for future use".to_vec());
    };
    let field = match c {
        b'%' => {
            // `%5%`: GNU writes what it read, less the last `%`.
            lit.extend_from_slice(&f[i..j]);
            return Ok(j + 1);
        }
        b'A' | b'B' | b'C' | b'T' => {
            let Some(&letter) = f.get(j + 1) else {
                let mut m = b"format directive `%".to_vec();
                m.push(c);
                m.extend_from_slice(b"' should be followed by another character");
                msg::warning_bytes(&m);
                lit.extend_from_slice(&f[i..=j]);
                return Ok(j + 1);
            };
            let which = match c {
                b'A' => TimeField::Access,
                b'B' => TimeField::Birth,
                b'C' => TimeField::Change,
                _ => TimeField::Modify,
            };
            if !lit.is_empty() {
                segs.push(Seg::Lit(std::mem::take(lit)));
            }
            segs.push(Seg::Dir(Directive {
                field: Field::Time(which, letter),
                conv,
            }));
            return Ok(j + 2);
        }
        b'a' => Field::CTime(TimeField::Access),
        b'c' => Field::CTime(TimeField::Change),
        b't' => Field::CTime(TimeField::Modify),
        b'b' => Field::Blocks,
        b'd' => Field::Depth,
        b'D' => Field::Dev,
        b'f' => Field::Base,
        b'F' => Field::FsType,
        b'g' => Field::Group,
        b'G' => Field::Gid,
        b'h' => Field::Dir,
        b'H' => Field::Root,
        b'i' => Field::Ino,
        b'k' => Field::Kilo,
        b'l' => Field::Target,
        b'm' => Field::Perm,
        b'M' => Field::ModeString,
        b'n' => Field::Links,
        b'p' => Field::Path,
        b'P' => Field::Below,
        b's' => Field::Size,
        b'S' => Field::Sparseness,
        b'u' => Field::User,
        b'U' => Field::Uid,
        b'y' => Field::Type,
        b'Y' => Field::TargetType,
        b'Z' => Field::Context,
        b'{' | b'[' | b'(' => {
            let mut m = b"error: the format directive `%".to_vec();
            m.push(c);
            m.extend_from_slice(b"' is reserved for future use");
            return Err(m);
        }
        _ => {
            let mut m = b"unrecognized format directive `%".to_vec();
            m.push(c);
            m.push(b'\'');
            msg::warning_bytes(&m);
            lit.extend_from_slice(&f[i..=j]);
            return Ok(j + 1);
        }
    };
    if !lit.is_empty() {
        segs.push(Seg::Lit(std::mem::take(lit)));
    }
    segs.push(Seg::Dir(Directive { field, conv }));
    Ok(j + 1)
}

impl Conv {
    /// Pads `body` (after `prefix`, a sign) to the width: blanks on the
    /// left or right, or zeros between sign and body if `zero`.
    fn pad(&self, out: &mut Vec<u8>, prefix: &[u8], body: &[u8], zero: bool) {
        let fill = self.width.saturating_sub(prefix.len() + body.len());
        if self.left {
            out.extend_from_slice(prefix);
            out.extend_from_slice(body);
            out.resize(out.len() + fill, b' ');
        } else if zero {
            out.extend_from_slice(prefix);
            out.resize(out.len() + fill, b'0');
            out.extend_from_slice(body);
        } else {
            out.resize(out.len() + fill, b' ');
            out.extend_from_slice(prefix);
            out.extend_from_slice(body);
        }
    }

    /// `%s`: the precision cuts, the width pads with blanks.
    fn string(&self, out: &mut Vec<u8>, s: &[u8]) {
        let s = match self.prec {
            Some(p) if p < s.len() => &s[..p],
            _ => s,
        };
        self.pad(out, b"", s, false);
    }

    /// `%d` (radix 10, signed) or `%o` (radix 8): C's rules for the
    /// precision (least digits; none for 0 at precision 0), `#`, the signs
    /// and `0`.
    fn int(&self, out: &mut Vec<u8>, negative: bool, n: u64, radix: u64) {
        let mut tmp = [0u8; 24];
        let mut i = tmp.len();
        let mut v = n;
        if !(n == 0 && self.prec == Some(0)) {
            loop {
                i -= 1;
                tmp[i] = b'0' + (v % radix) as u8;
                v /= radix;
                if v == 0 {
                    break;
                }
            }
        }
        let mut body: Vec<u8> = Vec::with_capacity(24);
        let digits = tmp.len() - i;
        let min = self.prec.unwrap_or(0);
        body.resize(min.saturating_sub(digits), b'0');
        body.extend_from_slice(&tmp[i..]);
        if radix == 8 && self.alt && body.first() != Some(&b'0') {
            body.insert(0, b'0');
        }
        let sign = if radix == 10 {
            self.sign(negative)
        } else {
            b""
        };
        self.pad(out, sign, &body, self.zero && self.prec.is_none());
    }

    /// The sign C writes before a signed conversion: `-`, or what the
    /// `+` and ` ` flags ask for.
    fn sign(&self, negative: bool) -> &'static [u8] {
        if negative {
            b"-"
        } else if self.plus {
            b"+"
        } else if self.space {
            b" "
        } else {
            b""
        }
    }

    /// `%g`, as C prints it.
    fn float(&self, out: &mut Vec<u8>, v: f64) {
        let sign = self.sign(v.is_sign_negative() && !v.is_nan());
        if !v.is_finite() {
            let body: &[u8] = if v.is_nan() { b"nan" } else { b"inf" };
            return self.pad(out, sign, body, false);
        }
        let body = format_g(v.abs(), self.prec.unwrap_or(6), self.alt);
        self.pad(out, sign, body.as_bytes(), self.zero);
    }
}

/// C's `%.{prec}g` of a finite, non-negative `v` (`alt`: the `#` flag).
fn format_g(v: f64, prec: usize, alt: bool) -> String {
    let p = prec.max(1);
    let sci = format!("{:.*e}", p - 1, v);
    let (mantissa, exp) = sci.split_once('e').expect("Rust's {:e} has an exponent");
    let x: i64 = exp.parse().expect("an integer exponent");
    let mut s = if x < p as i64 && x >= -4 {
        format!("{:.*}", (p as i64 - 1 - x) as usize, v)
    } else {
        mantissa.to_string()
    };
    if !alt && s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    } else if alt && !s.contains('.') {
        s.push('.');
    }
    if !(x < p as i64 && x >= -4) {
        s.push('e');
        s.push(if x < 0 { '-' } else { '+' });
        if x.abs() < 10 {
            s.push('0');
        }
        s.push_str(&x.abs().to_string());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(spec: &str) -> Conv {
        let f = format!("%{spec}d");
        let mut segs = Vec::new();
        let mut lit = Vec::new();
        directive(f.as_bytes(), 0, &mut lit, &mut segs).unwrap();
        match &segs[0] {
            Seg::Dir(d) => d.conv,
            _ => panic!("not a directive"),
        }
    }

    fn int(spec: &str, n: u64, radix: u64) -> String {
        let mut v = Vec::new();
        conv(spec).int(&mut v, false, n, radix);
        String::from_utf8(v).unwrap()
    }

    fn g(spec: &str, x: f64) -> String {
        let mut v = Vec::new();
        conv(spec).float(&mut v, x);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn integers_like_c() {
        assert_eq!(int("", 0, 10), "0");
        assert_eq!(int(".0", 0, 10), "");
        assert_eq!(int("-+ 08.3", 0, 10), "+000    ");
        assert_eq!(int("+5", 0, 10), "   +0");
        assert_eq!(int("05", 7, 10), "00007");
        assert_eq!(int("#", 0o755, 8), "0755");
        assert_eq!(int("#.0", 0o755, 8), "0755");
        assert_eq!(int("#", 0, 8), "0");
        assert_eq!(int("+.3", 0o755, 8), "755");
    }

    #[test]
    fn floats_like_c() {
        assert_eq!(g("", 1.0), "1");
        assert_eq!(g("", 4096.0 / 3.0), "1365.33");
        assert_eq!(g("10.3", 4096.0 / 3.0), "  1.37e+03");
        assert_eq!(g("#", 1.0), "1.00000");
        assert_eq!(g("010", 1.0), "0000000001");
        assert_eq!(g("-10", 1.0), "1         ");
        assert_eq!(g("", 0.0), "0");
        assert_eq!(g("", 1e-5), "1e-05");
        assert_eq!(g("", 0.0001), "0.0001");
        assert_eq!(g("", 123456789.0), "1.23457e+08");
        assert_eq!(g("05", f64::INFINITY), "  inf");
        assert_eq!(g("#.1", 1.0), "1.");
    }

    #[test]
    fn stat_fields_only_as_needed() {
        let f = |s: &str| Format::parse(s.as_bytes()).unwrap();
        assert!(!f("%p %f %h %d %y %l\\n").needs_stat());
        assert_eq!(f("%s").stat_mask(), StatFields::SIZE);
        assert_eq!(
            f("%p %s %TY-%Tm-%Td\\n").stat_mask(),
            StatFields::SIZE | StatFields::MTIME
        );
        assert_eq!(f("%u %G").stat_mask(), StatFields::UID | StatFields::GID);
    }

    #[test]
    fn literal_text_and_escapes() {
        let f = Format::parse(b"a\\tb\\101\\0%%%5%\\c%p").unwrap();
        assert_eq!(f.segs, vec![Seg::Lit(b"a\tbA\0%%5".to_vec())]);
        assert!(Format::parse(b"x%").is_err());
        assert!(Format::parse(b"%{").is_err());
        assert!(Format::parse(b"\\c%").is_ok());
    }
}
