//! Every word of find's language in one table ([`WORDS`]: name, kind,
//! arity, reader), and the reading of one word through it, with a "did
//! you mean" hint for an unknown one.

use super::help::{print_text, version_text, HELP};
use super::kind::{Arity, Kind, Step};
use super::messages::backquoted;
use super::parser::Parser;
use super::token::{looks_like_expression, BinOp, TokKind};
use super::typo::edit_distance;
use super::Error;
use crate::expr::{AccessKind, Expr, Pred};
use crate::regex::Dialect;
use dents::Follow;

/// A word's reader: the parser, the word, its argument (`Arity::One`;
/// empty otherwise).
pub(super) type Reader = fn(&mut Parser<'_>, &[u8], &[u8]) -> Result<Step, Error>;

/// One word of find's language: its name, what it is, its arguments and
/// its reader.
pub(super) struct Word {
    pub(super) name: &'static [u8],
    pub(super) kind: Kind,
    pub(super) arity: Arity,
    pub(super) read: Reader,
}

/// A primary whose predicate is fixed.
macro_rules! fixed {
    ($pred:expr) => {
        |_, _, _| Ok(Step::Push($pred, Vec::new()))
    };
}

/// A word that sets an option and leaves `-true` where it stands.
macro_rules! option {
    (|$p:ident| $set:expr) => {
        |$p, _, _| {
            $set;
            Ok(Step::Push(Pred::True, Vec::new()))
        }
    };
}

/// Every word of the expression: operators, tests, actions and options
/// (the global options before the paths, `-H -L -P -D -O -j -S -s`, are
/// read by [`Parser::global_options`]).  `-newerXY` is the one word not
/// here, a pattern rather than a name ([`Parser::newer_xy`]).
#[rustfmt::skip]
pub(super) const WORDS: &[Word] = {
    use Arity::{One, Own, Zero};
    use Kind::*;
    const fn w(name: &'static [u8], kind: Kind, arity: Arity, read: Reader) -> Word {
        Word { name, kind, arity, read }
    }
    &[
        w(b"(", Operator, Zero, |p, a, _| p.operand(TokKind::Open, a)),
        w(b")", Operator, Zero, |p, a, _| p.operator(TokKind::Close, a)),
        w(b"!", Operator, Zero, |p, a, _| p.operand(TokKind::Not, a)),
        w(b"-not", Operator, Zero, |p, a, _| p.operand(TokKind::Not, a)),
        w(b"-a", Operator, Zero, |p, a, _| p.operator(TokKind::Bin(BinOp::And), a)),
        w(b"-and", Operator, Zero, |p, a, _| p.operator(TokKind::Bin(BinOp::And), a)),
        w(b"-o", Operator, Zero, |p, a, _| p.operator(TokKind::Bin(BinOp::Or), a)),
        w(b"-or", Operator, Zero, |p, a, _| p.operator(TokKind::Bin(BinOp::Or), a)),
        w(b",", Operator, Zero, |p, a, _| p.operator(TokKind::Bin(BinOp::Comma), a)),
        w(b"-exclude", BfsOperator, Zero, |p, a, _| p.operand(TokKind::Exclude, a)),

        w(b"-name", Test, One, |p, n, a| p.name_test(n, a)),
        w(b"-iname", Test, One, |p, n, a| p.name_test(n, a)),
        w(b"-path", Test, One, |p, n, a| p.name_test(n, a)),
        w(b"-wholename", Test, One, |p, n, a| p.name_test(n, a)),
        w(b"-ipath", Test, One, |p, n, a| p.name_test(n, a)),
        w(b"-iwholename", Test, One, |p, n, a| p.name_test(n, a)),
        w(b"-lname", Test, One, |p, n, a| p.name_test(n, a)),
        w(b"-ilname", Test, One, |p, n, a| p.name_test(n, a)),
        w(b"-regex", Test, One, |p, n, a| p.regex_test(n, a)),
        w(b"-iregex", Test, One, |p, n, a| p.regex_test(n, a)),
        w(b"-type", Test, One, |p, n, a| p.type_test(n, a)),
        w(b"-xtype", Test, One, |p, n, a| p.type_test(n, a)),
        w(b"-size", Test, One, |p, n, a| p.size_test(n, a)),
        w(b"-mtime", Test, One, |p, n, a| p.age_test(n, a)),
        w(b"-atime", Test, One, |p, n, a| p.age_test(n, a)),
        w(b"-ctime", Test, One, |p, n, a| p.age_test(n, a)),
        w(b"-mmin", Test, One, |p, n, a| p.age_test(n, a)),
        w(b"-amin", Test, One, |p, n, a| p.age_test(n, a)),
        w(b"-cmin", Test, One, |p, n, a| p.age_test(n, a)),
        w(b"-used", Test, One, |p, n, a| p.used_test(n, a)),
        w(b"-newer", Test, One, |p, n, a| p.newer_test(n, a)),
        w(b"-anewer", Test, One, |p, n, a| p.newer_test(n, a)),
        w(b"-cnewer", Test, One, |p, n, a| p.newer_test(n, a)),
        w(b"-perm", Test, One, |p, n, a| p.perm_test(n, a)),
        w(b"-user", Test, One, |p, n, a| p.owner_test(n, a)),
        w(b"-group", Test, One, |p, n, a| p.owner_test(n, a)),
        w(b"-uid", Test, One, |p, n, a| p.number_test(n, a)),
        w(b"-gid", Test, One, |p, n, a| p.number_test(n, a)),
        w(b"-links", Test, One, |p, n, a| p.number_test(n, a)),
        w(b"-inum", Test, One, |p, n, a| p.number_test(n, a)),
        w(b"-samefile", Test, One, |p, n, a| p.samefile_test(n, a)),
        w(b"-fstype", Test, One, |_, _, t| Ok(Step::Push(Pred::FsType(t.to_vec()), Vec::new()))),
        w(b"-context", Test, One, |_, _, _| {
            // Without SELinux (as here), GNU refuses the test itself.
            Err(b"invalid predicate -context: SELinux is not enabled.".to_vec())
        }),
        w(b"-nouser", Test, Zero, fixed!(Pred::NoUser)),
        w(b"-nogroup", Test, Zero, fixed!(Pred::NoGroup)),
        w(b"-empty", Test, Zero, fixed!(Pred::Empty)),
        w(b"-readable", Test, Zero, fixed!(Pred::Access(AccessKind::Read))),
        w(b"-writable", Test, Zero, fixed!(Pred::Access(AccessKind::Write))),
        w(b"-executable", Test, Zero, fixed!(Pred::Access(AccessKind::Exec))),
        w(b"-true", Test, Zero, fixed!(Pred::True)),
        w(b"-false", Test, Zero, fixed!(Pred::False)),
        w(b"-hidden", Test, Zero, fixed!(Pred::Hidden)),

        w(b"-print", Action, Zero, fixed!(Pred::Print(b'\n'))),
        w(b"-print0", Action, Zero, fixed!(Pred::Print(0))),
        w(b"-prune", Action, Zero, |p, _, _| {
            p.prune = true;
            Ok(Step::Push(Pred::Prune, Vec::new()))
        }),
        w(b"-quit", Action, Zero, fixed!(Pred::Quit)),
        w(b"-delete", Action, Zero, |p, _, _| {
            p.delete = true;
            p.opts.depth = true;
            Ok(Step::Push(Pred::Delete, Vec::new()))
        }),
        w(b"-exec", Action, Own, |p, n, a| p.exec_action(n, a)),
        w(b"-ok", Action, Own, |p, n, a| p.exec_action(n, a)),
        w(b"-execdir", Action, Own, |p, n, a| p.exec_action(n, a)),
        w(b"-okdir", Action, Own, |p, n, a| p.exec_action(n, a)),
        w(b"-printf", Action, One, |p, n, a| p.printf_action(n, a)),
        w(b"-fprintf", Action, Own, |p, n, a| p.fprintf_action(n, a)),
        w(b"-ls", Action, Zero, |p, n, a| p.print_action(n, a)),
        w(b"-fls", Action, One, |p, n, a| p.print_action(n, a)),
        w(b"-fprint", Action, One, |p, n, a| p.print_action(n, a)),
        w(b"-fprint0", Action, One, |p, n, a| p.print_action(n, a)),
        w(b"-limit", Action, One, |p, n, a| p.limit_action(n, a)),

        w(b"-maxdepth", GlobalOption, One, |p, n, a| p.depth_option(n, a)),
        w(b"-mindepth", GlobalOption, One, |p, n, a| p.depth_option(n, a)),
        w(b"-depth", GlobalOption, Zero, |p, n, a| p.depth_first_option(n, a)),
        w(b"-d", GlobalOption, Zero, |p, n, a| p.depth_first_option(n, a)),
        w(b"-xdev", GlobalOption, Zero, option!(|p| p.opts.xdev = true)),
        w(b"-mount", GlobalOption, Zero, option!(|p| p.opts.xdev = true)),
        w(b"-noleaf", GlobalOption, Zero, fixed!(Pred::True)),
        w(b"-ignore_readdir_race", GlobalOption, Zero, option!(|p| p.opts.ignore_race = true)),
        w(b"-noignore_readdir_race", GlobalOption, Zero, option!(|p| p.opts.ignore_race = false)),
        w(b"-files0-from", GlobalOption, One, |p, _, f| {
            p.opts.files0_from = Some(f.to_vec());
            Ok(Step::Push(Pred::True, Vec::new()))
        }),

        w(b"-daystart", PositionalOption, Zero, |p, _, _| {
            // GNU leaves nothing in the expression for this one.
            p.daystart = true;
            Ok(Step::Nothing)
        }),
        w(b"-follow", PositionalOption, Zero, option!(|p| {
            p.opts.follow = Follow::Always;
            p.follow_refs = true;
        })),
        w(b"-regextype", PositionalOption, One, |p, _, t| {
            p.dialect = Dialect::from_name(t)
                .ok_or_else(|| Dialect::unknown_message(t, &|s| p.quote(s)))?;
            Ok(Step::Push(Pred::True, Vec::new()))
        }),
        w(b"-warn", PositionalOption, Zero, option!(|p| p.warnings = true)),
        w(b"-nowarn", PositionalOption, Zero, option!(|p| p.warnings = false)),

        w(b"-s", BfsOption, Zero, option!(|p| p.opts.sort = true)),
        w(b"-color", BfsOption, Zero, option!(|p| p.opts.color = Some(true))),
        w(b"-nocolor", BfsOption, Zero, option!(|p| p.opts.color = Some(false))),
        w(b"-status", BfsOption, Zero, option!(|p| p.opts.status = Some(true))),
        w(b"-nostatus", BfsOption, Zero, option!(|p| p.opts.status = Some(false))),
        w(b"-nohidden", BfsOption, Zero, option!(|p| {
            let hidden = Expr::prim(Pred::Hidden, vec![b"-hidden".to_vec()]);
            p.opts.exclude = Some(match p.opts.exclude.take() {
                Some(x) => Expr::Or(Box::new(x), Box::new(hidden)),
                None => hidden,
            });
        })),

        w(b"-help", Info, Zero, |_, _, _| Ok(Step::Exit(print_text(HELP)))),
        w(b"--help", Info, Zero, |_, _, _| Ok(Step::Exit(print_text(HELP)))),
        w(b"-version", Info, Zero, |p, _, _| Ok(Step::Exit(print_text(&version_text(p.opts.opt_level))))),
        w(b"--version", Info, Zero, |p, _, _| Ok(Step::Exit(print_text(&version_text(p.opts.opt_level))))),
    ]
};

/// The word of the table named `name`.
pub(super) fn word_named(name: &[u8]) -> Option<&'static Word> {
    WORDS.iter().find(|w| w.name == name)
}

/// The word of the table closest to a misspelt `name`, if one is close
/// enough to be what was meant: one edit (a transposition counting as
/// one) for names of up to six letters, two beyond (`-Dtree` is two
/// from `-true`, and meant `-D tree`).
pub(super) fn closest_word(name: &[u8]) -> Option<&'static [u8]> {
    let most = if name.len() <= 7 { 1 } else { 2 };
    WORDS
        .iter()
        .filter(|w| w.name.starts_with(b"-"))
        .map(|w| (edit_distance(name, w.name), w.name))
        // A name of one letter is as far from any other: no guess.
        .filter(|&(d, _)| d <= most && d + 1 < name.len())
        .min_by_key(|&(d, _)| d)
        .map(|(_, n)| n)
}

impl Parser<'_> {
    /// Reads one word of the expression (and its arguments) through its
    /// reader in [`WORDS`]; `Some` status to leave at once.
    pub(super) fn word(&mut self) -> Result<Option<i32>, Error> {
        let name = self.args[self.i].clone();
        if !looks_like_expression(&name, false) {
            return Err(backquoted("paths must precede expression: ", &name, ""));
        }
        self.i += 1;
        let Some(word) = word_named(&name) else {
            self.note_option_order(&name, None);
            if name.len() == 8 && name.starts_with(b"-newer") {
                let step = self.newer_xy(&name)?;
                return Ok(self.step(name, Vec::new(), step));
            }
            self.hint = closest_word(&name).map(|w| {
                let mut m = b"did you mean ".to_vec();
                m.extend_from_slice(&self.quote(w));
                m.push(b'?');
                m
            });
            return Err(backquoted("unknown predicate ", &name, ""));
        };
        self.note_option_order(&name, Some(word.kind));
        let arg = match word.arity {
            Arity::One => self.arg(&name)?,
            Arity::Zero | Arity::Own => Vec::new(),
        };
        let step = (word.read)(self, &name, &arg)?;
        let args = match word.arity {
            Arity::One => vec![arg],
            Arity::Zero | Arity::Own => Vec::new(),
        };
        Ok(self.step(name, args, step))
    }

    /// Carries out what reading the word `name` gave: a primary is pushed
    /// with its words (`args`, then those the reader took).
    pub(super) fn step(&mut self, name: Vec<u8>, args: Vec<Vec<u8>>, step: Step) -> Option<i32> {
        match step {
            Step::Push(pred, more) => {
                let mut words = vec![name];
                words.extend(args);
                words.extend(more);
                self.push_primary(pred, words, false);
                None
            }
            Step::Nothing => None,
            Step::Exit(code) => Some(code),
        }
    }
}
