//! The first pass: the parser's state, and the readers of find's words
//! (each turns a word and its arguments into a predicate, an option set,
//! or an operator token), with GNU's messages and warnings.

use std::ffi::CString;
use std::sync::Arc;

use dents::walk::Order;
use dents::Follow;
use dents::Metadata;
use dents::StatFields;
use dents_tools::glob::Glob;

use super::help::print_text;
use super::kind::{push, Kind, Step};
use super::messages::{backquoted, invalid_argument};
use super::numbers::{comparison, gnu_int, opt_level, size, unsigned};
use super::token::{BinOp, Tok, TokKind};
use super::{Error, Options};
use crate::exec::Exec;
use crate::expr::{Cmp, Expr, NameOf, PermKind, Pred};
use crate::lsfmt::Ls;
use crate::outfiles::{Dest, Registry};
use crate::printf::Format;
use crate::regex::{self, Dialect};
use crate::time::{self, TimeField, Timestamp};
use crate::{debug, mode, msg, users};

/// The state of the first pass.
pub(super) struct Parser<'a> {
    pub(super) args: &'a [Vec<u8>],
    pub(super) i: usize,
    pub(super) toks: Vec<Tok>,
    pub(super) opts: Options,
    /// `-regextype` so far.
    pub(super) dialect: Dialect,
    /// `-daystart` seen so far.
    pub(super) daystart: bool,
    /// Reference files (`-newer`) are followed if symlinks (`-H`, `-L`,
    /// `-follow` before them).
    pub(super) follow_refs: bool,
    /// GNU's warnings: on if stdin is a terminal, or `-warn`.
    pub(super) warnings: bool,
    pub(super) utf8: bool,
    /// The start of the run, for `-mtime` and the like.
    pub(super) start: Timestamp,
    pub(super) explicit_depth: bool,
    pub(super) delete: bool,
    pub(super) prune: bool,
    /// The first word that is neither an option nor a positional option,
    /// for GNU's warning about options after it.
    pub(super) first_nonoption: Option<Vec<u8>>,
    /// `-ok` or `-okdir` seen (they read standard input).
    pub(super) uses_ok: bool,
    /// The files `-fprint` and kin opened.
    pub(super) outs: Registry,
    /// What a misspelt word was probably meant to be (see [`ParseError`]).
    pub(super) hint: Option<Vec<u8>>,
}

impl Parser<'_> {
    /// GNU's warning for a global option written after a test, an
    /// action or an operator, and the bookkeeping for it; `kind` is
    /// `None` for a word find does not know.
    pub(super) fn note_option_order(&mut self, name: &[u8], kind: Option<Kind>) {
        match kind {
            Some(Kind::GlobalOption) => {
                if let (true, Some(first)) = (self.warnings, &self.first_nonoption) {
                    msg::warning(&format!(
                        "you have specified the global option {} after the argument {}, but global \
options are not positional, i.e., {} affects tests specified before it as well as those specified \
after it.  Please specify global options before other arguments.",
                        String::from_utf8_lossy(name),
                        String::from_utf8_lossy(first),
                        String::from_utf8_lossy(name)
                    ));
                }
            }
            Some(Kind::PositionalOption | Kind::BfsOption | Kind::BfsOperator) => {}
            _ => {
                self.first_nonoption.get_or_insert_with(|| name.to_vec());
            }
        }
    }

    /// GNU's quoting of a word in a message.
    pub(super) fn quote(&self, s: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        msg::quote(&mut v, s, self.utf8);
        v
    }

    /// Reads `-H -L -P -D -O -j -S --` before the paths; `Some(status)`
    /// to leave at once.
    pub(super) fn global_options(&mut self) -> Result<Option<i32>, Error> {
        while let Some(a) = self.args.get(self.i) {
            match a.as_slice() {
                b"-H" => self.opts.follow = Follow::Roots,
                b"-L" => self.opts.follow = Follow::Always,
                b"-P" => self.opts.follow = Follow::Never,
                b"--" => {
                    self.i += 1;
                    break;
                }
                b"-D" => {
                    let Some(flags) = self.args.get(self.i + 1) else {
                        return Err(b"Missing argument after the -D option.\n\
Try 'dents find --help' for more information."
                            .to_vec());
                    };
                    self.i += 1;
                    // GNU skips empty words (`tree,` is `tree`) but refuses
                    // a list of none, and names the first word of the list
                    // in each complaint (a quirk kept here).
                    let list: Vec<&[u8]> = flags
                        .split(|&b| b == b',')
                        .filter(|f| !f.is_empty())
                        .collect();
                    let Some(first) = list.first().copied() else {
                        return Err(b"Empty argument to the -D option.\n\
Try 'dents find --help' for more information."
                            .to_vec());
                    };
                    for flag in &list {
                        match *flag {
                            b"help" => {
                                return Ok(Some(print_text(debug::HELP)));
                            }
                            f if debug::flag(f).is_some() => {
                                let bits = debug::flag(f).unwrap_or_default();
                                debug::enable(bits);
                                self.opts.debug_tree |= bits & (debug::TREE | debug::OPT) != 0;
                            }
                            _ => {
                                let mut m = b"Ignoring unrecognised debug flag ".to_vec();
                                m.extend_from_slice(&self.quote(first));
                                msg::note(&m);
                            }
                        }
                    }
                }
                [b'-', b'O', rest @ ..] => self.opts.opt_level = opt_level(rest)?,
                [b'-', b'j', rest @ ..] => {
                    let n = if rest.is_empty() {
                        self.i += 1;
                        self.args.get(self.i).cloned().unwrap_or_default()
                    } else {
                        rest.to_vec()
                    };
                    match unsigned(&n) {
                        Some(t) if t > 0 && t <= 1024 => self.opts.threads = Some(t as usize),
                        _ => return Err(invalid_argument(&n, b"-j")),
                    }
                }
                b"-s" => self.opts.sort = true,
                b"-S" => {
                    self.i += 1;
                    let s = self.args.get(self.i).cloned().unwrap_or_default();
                    self.opts.order = match s.as_slice() {
                        b"bfs" => Order::BreadthFirst,
                        b"dfs" => Order::DepthFirst,
                        _ => return Err(invalid_argument(&s, b"-S")),
                    };
                }
                _ => break,
            }
            self.i += 1;
        }
        Ok(None)
    }

    /// Pushes a token that stands for an expression, putting in the
    /// implied `-a` after a primary or a `)`.
    pub(super) fn push_operand(&mut self, kind: TokKind, name: Vec<u8>, artificial: bool) {
        if matches!(
            self.toks.last().map(|t| &t.kind),
            Some(TokKind::Prim(_) | TokKind::Close)
        ) {
            self.toks.push(Tok {
                kind: TokKind::Bin(BinOp::And),
                name: b"-a".to_vec(),
                artificial: true,
            });
        }
        self.toks.push(Tok {
            kind,
            name,
            artificial,
        });
    }

    /// Pushes a primary.
    pub(super) fn push_primary(&mut self, pred: Pred, words: Vec<Vec<u8>>, artificial: bool) {
        let name = words.first().cloned().unwrap_or_default();
        self.push_operand(TokKind::Prim(Expr::prim(pred, words)), name, artificial);
    }

    /// The argument of the primary `name`, consumed.
    pub(super) fn arg(&mut self, name: &[u8]) -> Result<Vec<u8>, Error> {
        match self.args.get(self.i) {
            Some(a) => {
                self.i += 1;
                Ok(a.clone())
            }
            None => Err(backquoted("missing argument to ", name, "")),
        }
    }

    /// Pushes an operator token (`)`, `-a`, `-o`, `,`).
    pub(super) fn operator(&mut self, kind: TokKind, word: &[u8]) -> Result<Step, Error> {
        self.toks.push(Tok {
            kind,
            name: word.to_vec(),
            artificial: false,
        });
        Ok(Step::Nothing)
    }

    /// Pushes a token that starts an operand (`(`, `!`, `-exclude`).
    pub(super) fn operand(&mut self, kind: TokKind, word: &[u8]) -> Result<Step, Error> {
        self.push_operand(kind, word.to_vec(), false);
        Ok(Step::Nothing)
    }

    /// `-name`, `-iname`, `-path`, `-wholename`, `-ipath`, `-iwholename`,
    /// `-lname`, `-ilname`.
    pub(super) fn name_test(&mut self, name: &[u8], pat: &[u8]) -> Result<Step, Error> {
        let fold = name[1] == b'i';
        let of = match &name[if fold { 2 } else { 1 }..] {
            b"name" => NameOf::Base,
            b"lname" => NameOf::LinkTarget,
            _ => NameOf::Path,
        };
        if of == NameOf::Base && self.warnings && pat.contains(&b'/') {
            let (l, r) = msg::quote_marks(self.utf8);
            msg::warning(&format!(
                "{l}{}{r} matches against basenames only, but the given pattern contains \
a directory separator ({l}/{r}), thus the expression will evaluate to false all the time.  Did you \
mean {l}-{}wholename{r}?",
                String::from_utf8_lossy(name),
                if fold { "i" } else { "" }
            ));
        }
        // GNU gives this one whatever -warn/-nowarn say.
        if of == NameOf::Path && pat.ends_with(b"/") {
            msg::warning(&format!(
                "{} {} will not match anything because it ends with /.",
                String::from_utf8_lossy(name),
                String::from_utf8_lossy(pat)
            ));
        }
        let glob = Glob::new(pat, fold, self.utf8);
        push(Pred::Name { of, glob })
    }

    /// `-regex`, `-iregex`, in the dialect of the last `-regextype`.
    pub(super) fn regex_test(&mut self, name: &[u8], pat: &[u8]) -> Result<Step, Error> {
        let re = regex::compile(pat, self.dialect, name[1] == b'i').map_err(|e| {
            let mut m = b"failed to compile regular expression '".to_vec();
            m.extend_from_slice(pat);
            m.extend_from_slice(b"': ");
            m.extend_from_slice(e.as_bytes());
            m
        })?;
        push(Pred::Regex(Box::new(re)))
    }

    /// `-type`, `-xtype`.
    pub(super) fn type_test(&mut self, name: &[u8], t: &[u8]) -> Result<Step, Error> {
        let types = file_types(t, name)?;
        push(Pred::Type {
            types,
            x: name[1] == b'x',
        })
    }

    /// `-size`.
    pub(super) fn size_test(&mut self, _: &[u8], s: &[u8]) -> Result<Step, Error> {
        let (cmp, unit) = size(s)?;
        push(Pred::Size { cmp, unit })
    }

    /// `-mtime`, `-atime`, `-ctime`, `-mmin`, `-amin`, `-cmin`.
    pub(super) fn age_test(&mut self, name: &[u8], s: &[u8]) -> Result<Step, Error> {
        let field = time_field(name[1]);
        let minutes = name.ends_with(b"min");
        let origin = time::day_origin(self.start, self.daystart);
        if let Some(m) = time::age_overflow(s, minutes, origin) {
            return Err(m.into_bytes());
        }
        let (rel, reference, window) =
            time::age(s, minutes, origin).ok_or_else(|| invalid_argument(s, name))?;
        push(Pred::Age {
            field,
            rel,
            reference,
            window,
        })
    }

    /// `-used`.
    pub(super) fn used_test(&mut self, _: &[u8], s: &[u8]) -> Result<Step, Error> {
        if let Some(m) = time::age_overflow(s, false, self.start) {
            return Err(m.into_bytes());
        }
        let (sign, days) = time::used(s).ok_or_else(|| {
            let mut m = b"Invalid argument ".to_vec();
            m.extend_from_slice(s);
            m.extend_from_slice(b" to -used");
            m
        })?;
        push(Pred::Used { sign, days })
    }

    /// `-newer`, `-anewer`, `-cnewer`.
    pub(super) fn newer_test(&mut self, name: &[u8], f: &[u8]) -> Result<Step, Error> {
        let st = self.stat_ref(f, TimeField::Modify.mask())?;
        let than = Timestamp::of(&st, TimeField::Modify).expect("mtime is always there");
        push(Pred::Newer {
            field: time_field(name[1]),
            than,
        })
    }

    /// `-newerXY`: the word is a pattern, read here with its argument.
    pub(super) fn newer_xy(&mut self, name: &[u8]) -> Result<Step, Error> {
        let (x, y) = (name[6], name[7]);
        let valid = |c: u8, t_ok: bool| matches!(c, b'a' | b'B' | b'c' | b'm') || t_ok && c == b't';
        if !valid(x, false) || !valid(y, true) {
            return Err(backquoted("invalid predicate ", name, ""));
        }
        let Some(r) = self.args.get(self.i).cloned() else {
            let mut m = b"The ".to_vec();
            m.extend_from_slice(&self.quote(name));
            m.extend_from_slice(b" test needs an argument");
            return Err(m);
        };
        self.i += 1;
        let than = if y == b't' {
            crate::datetime::parse(&r, self.start).ok_or_else(|| {
                let mut m = b"I cannot figure out how to interpret ".to_vec();
                m.extend_from_slice(&self.quote(&r));
                m.extend_from_slice(b" as a date or time");
                m
            })?
        } else {
            let field = time_field(y);
            let st = self.stat_ref(&r, field.mask())?;
            Timestamp::of(&st, field).ok_or_else(|| {
                let mut m = b"Cannot obtain birth time of file ".to_vec();
                m.extend_from_slice(&self.quote(&r));
                m
            })?
        };
        let pred = Pred::Newer {
            field: time_field(x),
            than,
        };
        Ok(Step::Push(pred, vec![r]))
    }

    /// `-perm`: `MODE`, `-MODE`, `/MODE`.
    pub(super) fn perm_test(&mut self, _: &[u8], m: &[u8]) -> Result<Step, Error> {
        let (kind, rest) = match m.first() {
            Some(b'-') => (PermKind::All, &m[1..]),
            Some(b'/') => (PermKind::Any, &m[1..]),
            _ => (PermKind::Exact, m),
        };
        let modes = mode::parse(rest).ok_or_else(|| {
            let mut e = b"invalid mode ".to_vec();
            e.extend_from_slice(&self.quote(m));
            e
        })?;
        if kind == PermKind::Any && modes == [0, 0] {
            msg::warning(&format!(
                "you have specified a mode pattern {} (which is equivalent to /000). The \
meaning of -perm /000 has now been changed to be consistent with -perm -000; that is, while it \
used to match no files, it now matches all files.",
                String::from_utf8_lossy(m)
            ));
        }
        push(Pred::Perm { kind, modes })
    }

    /// `-user`, `-group`: a name, or an id in digits.
    pub(super) fn owner_test(&mut self, name: &[u8], n: &[u8]) -> Result<Step, Error> {
        let user = name == b"-user";
        let id = if user {
            users::uid_of(n)
        } else {
            users::gid_of(n)
        };
        let id = match id {
            Some(id) => id as u64,
            None if !n.is_empty() && n.iter().all(u8::is_ascii_digit) => gnu_int(n)? as u64,
            None if n.is_empty() => {
                return Err(if user {
                    b"The argument to -user should not be empty".to_vec()
                } else {
                    b"argument to -group is empty, but should be a group name".to_vec()
                })
            }
            None => {
                let mut m = self.quote(n);
                m.extend_from_slice(if user {
                    b" is not the name of a known user"
                } else {
                    b" is not the name of an existing group"
                });
                return Err(m);
            }
        };
        push(if user {
            Pred::Uid(Cmp::Equal(id))
        } else {
            Pred::Gid(Cmp::Equal(id))
        })
    }

    /// `-uid`, `-gid`, `-links`, `-inum`: `+N`, `-N` or `N`.
    pub(super) fn number_test(&mut self, name: &[u8], s: &[u8]) -> Result<Step, Error> {
        let cmp = comparison(s).ok_or_else(|| invalid_argument(s, name))?;
        push(match name {
            b"-uid" => Pred::Uid(cmp),
            b"-gid" => Pred::Gid(cmp),
            b"-links" => Pred::Links(cmp),
            _ => Pred::Inum(cmp),
        })
    }

    /// `-samefile`.
    pub(super) fn samefile_test(&mut self, _: &[u8], f: &[u8]) -> Result<Step, Error> {
        let st = self.stat_ref(f, StatFields::INO)?;
        push(Pred::SameFile {
            dev: (st.dev_major(), st.dev_minor()),
            ino: st.ino(),
        })
    }

    /// `-exec`, `-ok`, `-execdir`, `-okdir`: the command and its `;` or
    /// `+` are the primary's words.
    pub(super) fn exec_action(&mut self, name: &[u8], _: &[u8]) -> Result<Step, Error> {
        self.uses_ok |= name.starts_with(b"-ok");
        let exec = self.exec(name)?;
        let mut words = exec.argv.clone();
        words.push(if exec.batch {
            b"+".to_vec()
        } else {
            b";".to_vec()
        });
        Ok(Step::Push(Pred::Exec(Arc::new(exec)), words))
    }

    /// `-printf FORMAT`.
    pub(super) fn printf_action(&mut self, _: &[u8], f: &[u8]) -> Result<Step, Error> {
        let fmt = Format::parse(f)?;
        push(Pred::Printf {
            dest: Dest::Stdout,
            fmt: Box::new(fmt),
        })
    }

    /// `-fprintf FILE FORMAT`; the file is opened here, as GNU opens it.
    pub(super) fn fprintf_action(&mut self, name: &[u8], _: &[u8]) -> Result<Step, Error> {
        let file = self.arg(name)?;
        // GNU: without a format the file is not opened, and the
        // complaint is about it.
        let Some(f) = self.args.get(self.i).cloned() else {
            return Err(invalid_argument(&file, name));
        };
        let dest = self.outs.open(&file, self.utf8)?;
        self.i += 1;
        let fmt = Format::parse(&f)?;
        let pred = Pred::Printf {
            dest,
            fmt: Box::new(fmt),
        };
        Ok(Step::Push(pred, vec![file, f]))
    }

    /// `-ls`, `-fls FILE`, `-fprint FILE`, `-fprint0 FILE`; files are
    /// opened here, as GNU opens them.
    pub(super) fn print_action(&mut self, name: &[u8], file: &[u8]) -> Result<Step, Error> {
        let dest = if name == b"-ls" {
            Dest::Stdout
        } else {
            self.outs.open(file, self.utf8)?
        };
        push(if name.ends_with(b"ls") {
            let posix = std::env::var_os("POSIXLY_CORRECT").is_some();
            Pred::Ls {
                dest,
                ls: Ls {
                    start: self.start.sec,
                    block_size: if posix { 512 } else { 1024 },
                },
            }
        } else {
            Pred::FPrint {
                dest,
                end: if name == b"-fprint0" { 0 } else { b'\n' },
            }
        })
    }

    /// `-limit N` (bfs): the expression quits after N actions.
    pub(super) fn limit_action(&mut self, name: &[u8], s: &[u8]) -> Result<Step, Error> {
        let n = unsigned(s)
            .filter(|&n| n >= 1)
            .ok_or_else(|| invalid_argument(s, name))?;
        push(Pred::Limit {
            n,
            count: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// `-maxdepth`, `-mindepth`.
    pub(super) fn depth_option(&mut self, name: &[u8], s: &[u8]) -> Result<Step, Error> {
        let n = (!s.is_empty() && s.iter().all(u8::is_ascii_digit))
            .then(|| gnu_int(s))
            .transpose()?
            .map(|n| n as usize)
            .ok_or_else(|| {
                let mut m = format!(
                    "Expected a positive decimal integer argument to {}, but got ",
                    String::from_utf8_lossy(name)
                )
                .into_bytes();
                m.extend_from_slice(&self.quote(s));
                m
            })?;
        if name == b"-maxdepth" {
            self.opts.max_depth = n;
        } else {
            self.opts.min_depth = n;
        }
        push(Pred::True)
    }

    /// `-depth`, `-d`.
    pub(super) fn depth_first_option(&mut self, name: &[u8], _: &[u8]) -> Result<Step, Error> {
        if name == b"-d" && self.warnings {
            msg::warning(
                "the -d option is deprecated; please use -depth instead, because the \
latter is a POSIX-compliant feature.",
            );
        }
        self.opts.depth = true;
        self.explicit_depth = true;
        push(Pred::True)
    }

    /// Stats a reference file (`-newer`, `-samefile`), following a
    /// symlink under `-H`, `-L` and `-follow`.
    pub(super) fn stat_ref(&self, path: &[u8], mask: StatFields) -> Result<Metadata, Error> {
        let mask = mask | StatFields::TYPE | StatFields::MODE;
        let fail = |e: std::io::Error| {
            let mut m = self.quote(path);
            m.extend_from_slice(b": ");
            m.extend_from_slice(crate::errors::describe(&e).as_bytes());
            m
        };
        let c = CString::new(path.to_vec())
            .map_err(|_| fail(std::io::Error::from_raw_os_error(libc_enoent())))?;
        let r = if self.follow_refs {
            // As GNU: a link that cannot be followed (its target is
            // missing, or passes through a non-directory) is itself the
            // reference.
            dents::fs::stat_follow_at(rustix::fs::CWD, &c, mask).or_else(|e| {
                let unfollowable = [rustix::io::Errno::NOENT, rustix::io::Errno::NOTDIR]
                    .iter()
                    .any(|n| e.raw_os_error() == Some(n.raw_os_error()));
                if unfollowable {
                    dents::fs::stat_at(rustix::fs::CWD, &c, mask)
                } else {
                    Err(e)
                }
            })
        } else {
            dents::fs::stat_at(rustix::fs::CWD, &c, mask)
        };
        r.map_err(fail)
    }

    /// Reads the command of `-exec`/`-ok` up to its `;` or `{} +`.
    pub(super) fn exec(&mut self, name: &[u8]) -> Result<Exec, Error> {
        let ok = name == b"-ok" || name == b"-okdir";
        let in_dir = name.ends_with(b"dir");
        let start = self.i;
        let mut end = start;
        let mut batch = false;
        loop {
            let Some(a) = self.args.get(end) else {
                return Err(backquoted("missing argument to ", name, ""));
            };
            if a == b";" {
                break;
            }
            if !ok && a == b"+" && end > start && contains_braces(&self.args[end - 1]) {
                // GNU counts first.
                if self.args[start..end]
                    .iter()
                    .filter(|a| contains_braces(a))
                    .count()
                    > 1
                {
                    let mut m = b"Only one instance of {} is supported with -exec".to_vec();
                    if in_dir {
                        m.extend_from_slice(b"dir");
                    }
                    m.extend_from_slice(b" ... +");
                    return Err(m);
                }
                let prev = &self.args[end - 1];
                if prev != b"{}" {
                    let mut m = format!(
                        "In '{} ... {{}} +' the '{{}}' must appear by itself, but you specified ",
                        String::from_utf8_lossy(name)
                    )
                    .into_bytes();
                    m.extend_from_slice(&self.quote(prev));
                    return Err(m);
                }
                batch = true;
                break;
            }
            end += 1;
        }
        if end == start {
            return Err(invalid_argument(&self.args[end], name));
        }
        if in_dir {
            crate::exec::check_path_for_execdir(name)?;
        }
        let argv = self.args[start..end].to_vec();
        self.i = end + 1;
        Ok(Exec::new(argv, batch, ok, in_dir))
    }
}

/// `ENOENT`, for a path with a NUL in it (no file can have that name).
pub(super) fn libc_enoent() -> i32 {
    rustix::io::Errno::NOENT.raw_os_error()
}

/// Whether an argument holds `{}`.
pub(super) fn contains_braces(a: &[u8]) -> bool {
    a.windows(2).any(|w| w == b"{}")
}

/// The field a primary's letter names (`-atime`, `-newerXm`).
pub(super) fn time_field(c: u8) -> TimeField {
    match c {
        b'a' => TimeField::Access,
        b'B' => TimeField::Birth,
        b'c' => TimeField::Change,
        _ => TimeField::Modify,
    }
}

/// The set of types of `-type`/`-xtype` (`f`, `f,d,l`), as bits
/// `1 << d_type`, with GNU's messages.
pub(super) fn file_types(s: &[u8], name: &[u8]) -> Result<u32, Error> {
    let pname = String::from_utf8_lossy(name);
    if s.is_empty() {
        return Err(
            format!("Arguments to {pname} should contain at least one letter").into_bytes(),
        );
    }
    let mut types = 0u32;
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let t = match c {
            b'b' => 6,
            b'c' => 2,
            b'd' => 4,
            b'p' => 1,
            b'f' => 8,
            b'l' => 10,
            b's' => 12,
            b'D' => {
                return Err(format!(
                    "{pname} D is not supported because Solaris doors are not supported on \
the platform find was compiled on."
                )
                .into_bytes())
            }
            _ => {
                let mut m = format!("Unknown argument to {pname}: ").into_bytes();
                m.push(c);
                return Err(m);
            }
        };
        if types & (1 << t) != 0 {
            return Err(format!(
                "Duplicate file type '{}' in the argument list to {pname}.",
                c as char
            )
            .into_bytes());
        }
        types |= 1 << t;
        i += 1;
        if i < s.len() {
            if s[i] != b',' {
                return Err(
                    format!("Must separate multiple arguments to {pname} using: ','").into_bytes(),
                );
            }
            if i + 1 == s.len() {
                return Err(format!(
                    "Last file type in list argument to {pname} is missing, i.e., list is \
ending on: ','"
                )
                .into_bytes());
            }
            i += 1;
        }
    }
    Ok(types)
}
