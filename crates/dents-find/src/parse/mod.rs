//! find's command line, read as GNU find reads it (not with clap: find's
//! grammar is its own).
//!
//! ```text
//! dents find [-H|-L|-P] [-D flags] [-Olevel] [-j N] [-S bfs|dfs] [PATH...] [EXPRESSION]
//! ```
//!
//! Global options come first; paths run until the first argument that
//! looks like an expression (`-x`, `(`, `!`); the expression follows.
//! Like GNU find, the expression is read in two passes, so that errors
//! come out in GNU's order with GNU's words:
//!
//! 1. each word becomes a token (a primary with its arguments, an
//!    operator, a parenthesis), `-a` put in where it is implied; the user's
//!    tokens are wrapped in `( ... ) -print` unless an action is among
//!    them;
//! 2. GNU's operator-precedence scan (`!` over `-a` over `-o` over `,`)
//!    builds the tree.
//!
//! Options that are written among the tests (`-maxdepth`, `-xdev`...)
//! leave a `-true` where they stand, as in GNU find; positional ones
//! (`-daystart`, `-regextype`, `-follow`) affect the tests after them.

use std::ffi::CString;
use std::io::IsTerminal;
use std::sync::Arc;

use dents::walk::{Follow, Order};
use dents::Metadata;
use dents::StatFields;

use super::exec::Exec;
use super::expr::{AccessKind, Cmp, Expr, NameOf, PermKind, Pred};
use super::lsfmt::Ls;
use super::outfiles::{Dest, Registry};
use super::printf::Format;
use super::regex::{self, Dialect};
use super::time::{self, TimeField, Timestamp};
use super::{debug, mode, msg, users};
use dents_tools::glob::Glob;

/// What the command line asks for.
#[derive(Debug)]
pub struct Options {
    /// The starting points (`.` if none).
    pub paths: Vec<Vec<u8>>,
    /// The line named no starting point: `paths` is the default `.`.
    pub default_paths: bool,
    /// The expression, `-print` added where GNU adds it.
    pub expr: Expr,
    /// `-P`, `-H`, `-L` (or `-follow`).
    pub follow: Follow,
    /// `-O`: 0 (none) to 3.
    pub opt_level: u8,
    /// `-D tree` or `-D opt`: show the optimised expression.
    pub debug_tree: bool,
    /// `-depth` (or implied by `-delete`).
    pub depth: bool,
    /// `-mindepth`
    pub min_depth: usize,
    /// `-maxdepth`
    pub max_depth: usize,
    /// `-xdev`, `-mount`
    pub xdev: bool,
    /// `-ignore_readdir_race`: files that vanish are not errors.
    pub ignore_race: bool,
    /// `-j N` (a dents extension): walker threads.
    pub threads: Option<usize>,
    /// `-S bfs|dfs` (as bfs spells it).
    pub order: Order,
    /// `-files0-from FILE`: the starting points are read from FILE (`-`:
    /// standard input) instead of the command line.
    pub files0_from: Option<Vec<u8>>,
    /// `-s` (bfs): each directory's entries in sorted order.
    pub sort: bool,
    /// `-color` (`Some(true)`), `-nocolor` (`Some(false)`); `None`: on a
    /// terminal.
    pub color: Option<bool>,
    /// `-status` (`Some(true)`), `-nostatus` (`Some(false)`); `None`: on a
    /// terminal, after a second.
    pub status: Option<bool>,
    /// `-exclude` and `-nohidden` (bfs), joined by `-o`: what is left out
    /// of the walk.
    pub exclude: Option<Expr>,
}

/// The outcome of reading the command line.
#[derive(Debug)]
pub enum Parsed {
    /// Walk.
    Run(Box<Options>),
    /// Leave at once with this status (`--help`, `-D help`).
    Exit(i32),
}

/// An error: GNU's text, without the program name.
pub type Error = Vec<u8>;

/// A command line find refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// GNU find's message, without the program name (``unknown predicate
    /// `-nmae'``).
    pub message: Vec<u8>,
    /// For a misspelt word, dents's guess as a line of its own (`did you
    /// mean '-name'?`), so that the message stays GNU's.
    pub hint: Option<Vec<u8>>,
}

/// Precedences, as in GNU find.
const NO_PREC: u8 = 0;
const COMMA_PREC: u8 = 1;
const OR_PREC: u8 = 2;
const AND_PREC: u8 = 3;
const NEGATE_PREC: u8 = 4;

/// A binary operator.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum BinOp {
    And,
    Or,
    Comma,
}

/// A token of the expression.
#[derive(Debug)]
enum TokKind {
    Prim(Expr),
    Not,
    /// `-exclude` (bfs): a prefix operator, like `!`.
    Exclude,
    Bin(BinOp),
    Open,
    Close,
}

/// A token and how it was written.
#[derive(Debug)]
struct Tok {
    kind: TokKind,
    /// The word (`-o`, `-and`, `(`), for messages.
    name: Vec<u8>,
    /// Put in by us (`( ... ) -print`, an implied `-a`), not the user.
    artificial: bool,
}

impl Tok {
    /// The token's precedence as an operator.
    fn prec(&self) -> u8 {
        match self.kind {
            TokKind::Bin(BinOp::And) => AND_PREC,
            TokKind::Bin(BinOp::Or) => OR_PREC,
            TokKind::Bin(BinOp::Comma) => COMMA_PREC,
            TokKind::Not => NEGATE_PREC,
            _ => NO_PREC,
        }
    }
}

/// Whether `arg` starts the expression: GNU's rule (`-x`, `(`, `!`; `)`
/// and `,` only after the first expression word).
fn looks_like_expression(arg: &[u8], leading: bool) -> bool {
    match arg {
        [b'-', _, ..] => true,
        [b'(' | b'!'] => true,
        [b')' | b','] => !leading,
        _ => false,
    }
}

/// Reads `argv` (the arguments after `find`).
#[cfg(test)]
pub fn parse(argv: &[Vec<u8>]) -> Result<Parsed, ParseError> {
    parse_ending(argv, b'\n')
}

/// [`parse`], the `-print` given to an expression without an action
/// ending its names with `implicit_end` (`\0`: as `-print0`).
pub fn parse_ending(argv: &[Vec<u8>], implicit_end: u8) -> Result<Parsed, ParseError> {
    let mut hint = None;
    read(argv, implicit_end, &mut hint).map_err(|message| ParseError { message, hint })
}

/// [`parse_ending`], the hint for an unknown word left in `hint`.
fn read(argv: &[Vec<u8>], implicit_end: u8, hint: &mut Option<Vec<u8>>) -> Result<Parsed, Error> {
    let utf8 = msg::utf8_locale();
    let mut p = Parser {
        args: argv,
        i: 0,
        toks: Vec::new(),
        opts: Options {
            paths: Vec::new(),
            default_paths: false,
            expr: Expr::prim(Pred::True, vec![]),
            follow: Follow::Never,
            opt_level: 1,
            debug_tree: false,
            depth: false,
            min_depth: 0,
            max_depth: usize::MAX,
            xdev: false,
            ignore_race: false,
            threads: None,
            order: Order::Hybrid,
            files0_from: None,
            sort: false,
            color: None,
            status: None,
            exclude: None,
        },
        dialect: Dialect::Emacs,
        daystart: false,
        follow_refs: false,
        warnings: std::io::stdin().is_terminal(),
        utf8,
        start: Timestamp::now(),
        explicit_depth: false,
        delete: false,
        prune: false,
        first_nonoption: None,
        uses_ok: false,
        outs: Registry::default(),
        hint: None,
    };
    if let Some(code) = p.global_options()? {
        return Ok(Parsed::Exit(code));
    }
    while p.i < argv.len() && !looks_like_expression(&argv[p.i], true) {
        p.opts.paths.push(argv[p.i].clone());
        p.i += 1;
    }
    let user_paths = p.opts.paths.first().cloned();
    if p.opts.paths.is_empty() {
        p.opts.paths.push(b".".to_vec());
        p.opts.default_paths = true;
    }
    p.follow_refs = p.opts.follow != Follow::Never;
    // The artificial `(` that makes a default -print cover it all.
    p.toks.push(Tok {
        kind: TokKind::Open,
        name: b"(".to_vec(),
        artificial: true,
    });
    while p.i < argv.len() {
        match p.word() {
            Ok(Some(code)) => return Ok(Parsed::Exit(code)),
            Ok(None) => {}
            Err(m) => {
                *hint = p.hint.take();
                return Err(m);
            }
        }
    }
    let user_tokens = p.toks.len() > 1;
    let has_action = p.toks.iter().any(|t| match &t.kind {
        TokKind::Prim(Expr::Prim(pr)) => pr.pred.is_output_action(),
        _ => false,
    });
    if !user_tokens {
        p.toks.clear();
        p.push_primary(Pred::Print(implicit_end), vec![b"-print".to_vec()], true);
    } else if has_action {
        p.toks.remove(0);
    } else {
        p.toks.push(Tok {
            kind: TokKind::Close,
            name: b")".to_vec(),
            artificial: true,
        });
        p.push_primary(Pred::Print(implicit_end), vec![b"-print".to_vec()], true);
    }
    let has_limit = p.toks.iter().any(|t| {
        matches!(&t.kind, TokKind::Prim(Expr::Prim(pr)) if matches!(pr.pred, Pred::Limit { .. }))
    });
    if has_limit && !has_action {
        return Err(
            b"-limit counts the evaluations of an action: give one explicitly, as in '-print -limit N'"
                .to_vec(),
        );
    }
    if p.delete && p.prune && !p.explicit_depth {
        return Err(
            b"The -delete action automatically turns on -depth, but -prune does \
nothing when -depth is in effect.  If you want to carry on anyway, just explicitly use \
the -depth option."
                .to_vec(),
        );
    }
    let toks = std::mem::take(&mut p.toks);
    let mut b = Builder {
        toks: toks.into_iter().map(Some).collect(),
        pos: 0,
        excluded: Vec::new(),
        excluding: false,
    };
    let expr = b.get_expr(NO_PREC, None)?;
    for e in std::mem::take(&mut b.excluded) {
        p.opts.exclude = Some(match p.opts.exclude.take() {
            Some(x) => Expr::Or(Box::new(x), Box::new(e)),
            None => e,
        });
    }
    if b.pos < b.toks.len() {
        let t = b.toks[b.pos].as_ref().expect("not taken");
        return Err(if matches!(t.kind, TokKind::Close) {
            b"you have too many ')'".to_vec()
        } else {
            let mut m = b"unexpected extra predicate '".to_vec();
            m.extend_from_slice(&t.name);
            m.push(b'\'');
            m
        });
    }
    p.opts.expr = expr;
    if debug::on(debug::TIME) {
        debug::say(&time::debug_origin(time::day_origin(p.start, p.daystart)));
    }
    if let Some(from) = &p.opts.files0_from {
        if let Some(first) = user_paths {
            let mut m = b"extra operand ".to_vec();
            m.extend_from_slice(&p.quote(&first));
            m.push(b'\n');
            crate::ctx::with(|c| m.extend_from_slice(c.program()));
            m.extend_from_slice(b": file operands cannot be combined with -files0-from");
            return Err(m);
        }
        if from == b"-" && p.uses_ok {
            // GNU's message ends with a blank line.
            return Err(
                b"option -files0-from reading from standard input cannot be combined \
with -ok, -okdir\n"
                    .to_vec(),
            );
        }
    }
    Ok(Parsed::Run(Box::new(p.opts)))
}

/// The state of the first pass.
struct Parser<'a> {
    args: &'a [Vec<u8>],
    i: usize,
    toks: Vec<Tok>,
    opts: Options,
    /// `-regextype` so far.
    dialect: Dialect,
    /// `-daystart` seen so far.
    daystart: bool,
    /// Reference files (`-newer`) are followed if symlinks (`-H`, `-L`,
    /// `-follow` before them).
    follow_refs: bool,
    /// GNU's warnings: on if stdin is a terminal, or `-warn`.
    warnings: bool,
    utf8: bool,
    /// The start of the run, for `-mtime` and the like.
    start: Timestamp,
    explicit_depth: bool,
    delete: bool,
    prune: bool,
    /// The first word that is neither an option nor a positional option,
    /// for GNU's warning about options after it.
    first_nonoption: Option<Vec<u8>>,
    /// `-ok` or `-okdir` seen (they read standard input).
    uses_ok: bool,
    /// The files `-fprint` and kin opened.
    outs: Registry,
    /// What a misspelt word was probably meant to be (see [`ParseError`]).
    hint: Option<Vec<u8>>,
}

/// The usage text of `--help`.
const HELP: &str = "\
Usage: dents find [-H] [-L] [-P] [-Olevel] [-D debugopts] [-j N] [-S bfs|dfs] [path...] [expression]
  or:  dents find --from SNAPSHOT [-H] [-L] [-P] [path...] [expression]

Default path is the current directory; default expression is -print.
Expression may consist of: operators, options, tests, and actions.

Operators (decreasing precedence; -and is implicit where no others are given):
      ( EXPR )   ! EXPR   -not EXPR   EXPR1 -a EXPR2   EXPR1 -and EXPR2
      EXPR1 -o EXPR2   EXPR1 -or EXPR2   EXPR1 , EXPR2

Positional options (always true):
      -daystart -follow -nowarn -regextype -warn

Normal options (always true, specified before other expressions):
      -depth -ignore_readdir_race -maxdepth LEVELS -mindepth LEVELS -mount
      -noignore_readdir_race -noleaf -xdev -files0-from FILE

Tests (N can be +N or -N or N):
      -amin N -anewer FILE -atime N -cmin N -cnewer FILE -ctime N -empty -false
      -gid N -group NAME -ilname PATTERN -iname PATTERN -inum N -ipath PATTERN
      -iregex PATTERN -iwholename PATTERN -links N -lname PATTERN -mmin N
      -mtime N -name PATTERN -newer FILE -newerXY REFERENCE -nogroup -nouser
      -path PATTERN -perm [-/]MODE -regex PATTERN -readable -writable
      -executable -wholename PATTERN -size N[bcwkMG] -true -type [bcdpfls]
      -uid N -used N -user NAME -xtype [bcdpfls] -samefile FILE -fstype TYPE
      -context CONTEXT (refused, as GNU find refuses it without SELinux)

Actions:
      -delete -print0 -print -prune -quit -exec COMMAND ; -exec COMMAND {} +
      -ok COMMAND ; -execdir COMMAND ; -execdir COMMAND {} + -okdir COMMAND ;
      -printf FORMAT -fprintf FILE FORMAT -ls -fls FILE -fprint FILE -fprint0 FILE

dents extensions: -j N (threads), -S bfs|dfs (breadth or depth first;
      default: every entry to depth 3 first, then depth first).
      --from SNAPSHOT (first): the entries SNAPSHOT stored ('dents scan'),
      not the live tree; paths default to its roots
bfs's: -s (sorted walk) -exclude EXPR -hidden -nohidden -limit N
      -color -nocolor -status -nostatus

Other common options:
      --help                   display this help and exit
      --version                output version information and exit

Valid arguments for -D:
exec, opt, rates, search, stat, time, tree, all, help
Use '-D help' for a description of the options, or see find(1)
";

/// `'word'` as GNU quotes a word in its messages.
fn backquoted(prefix: &str, word: &[u8], suffix: &str) -> Error {
    let mut m = prefix.as_bytes().to_vec();
    m.push(b'`');
    m.extend_from_slice(word);
    m.push(b'\'');
    m.extend_from_slice(suffix.as_bytes());
    m
}

/// GNU's message for a bad argument.
fn invalid_argument(arg: &[u8], name: &[u8]) -> Error {
    let mut m = backquoted("invalid argument ", arg, " to ");
    m.extend_from_slice(&backquoted("", name, ""));
    m
}

/// Reads an unsigned decimal as `strtoumax` does after GNU's comparison
/// prefix: leading blanks and one `+` allowed, digits only after them.
fn unsigned(s: &[u8]) -> Option<u64> {
    let t = s.trim_ascii_start();
    let t = t.strip_prefix(b"+").unwrap_or(t);
    if t.is_empty() || !t.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(t).ok()?.parse().ok()
}

/// `+N`, `-N` or `N`.
fn comparison(s: &[u8]) -> Option<Cmp> {
    match s.first() {
        Some(b'+') => unsigned(&s[1..]).map(Cmp::More),
        Some(b'-') => unsigned(&s[1..]).map(Cmp::Less),
        _ => unsigned(s).map(Cmp::Equal),
    }
}

/// What a word of the expression is.  The kind decides GNU's warning
/// about option order: a global option written after a test, an action
/// or an operator is warned about; positional options and bfs's words
/// neither warn nor count as that earlier word.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// `(`, `!`, `-o`...
    Operator,
    /// bfs's `-exclude`: a prefix operator GNU knows nothing of.
    BfsOperator,
    /// A test: true or false for each file.
    Test,
    /// An action: does something, usually output.
    Action,
    /// Applies to the whole walk wherever it is written (`-maxdepth`).
    GlobalOption,
    /// Affects only the words after it (`-daystart`, `-regextype`).
    PositionalOption,
    /// bfs's options (`-s`, `-color`): the whole walk, no warning.
    BfsOption,
    /// `--help`, `--version`: print and leave.
    Info,
}

/// How many arguments a word takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Arity {
    /// None.
    Zero,
    /// One, consumed (GNU's "missing argument" if there is none) and
    /// handed to the reader, which sees it as `arg`.
    One,
    /// The reader consumes its own (`-exec`'s command, `-fprintf`'s
    /// two), with its own messages.
    Own,
}

/// What reading a word gives.
enum Step {
    /// A primary: its predicate and the words it took beyond the name
    /// and an `Arity::One` argument (which are added for it).
    Push(Pred, Vec<Vec<u8>>),
    /// Nothing to add to the expression (`-daystart`, or an operator
    /// that pushed its own token).
    Nothing,
    /// Leave at once with this status (`--help`).
    Exit(i32),
}

/// A word's reader: the parser, the word, its argument (`Arity::One`;
/// empty otherwise).
type Reader = fn(&mut Parser<'_>, &[u8], &[u8]) -> Result<Step, Error>;

/// One word of find's language: its name, what it is, its arguments and
/// its reader.
struct Word {
    name: &'static [u8],
    kind: Kind,
    arity: Arity,
    read: Reader,
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
const WORDS: &[Word] = {
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

/// A primary with no words beyond its name and argument.
fn push(pred: Pred) -> Result<Step, Error> {
    Ok(Step::Push(pred, Vec::new()))
}

/// The word of the table named `name`.
fn word_named(name: &[u8]) -> Option<&'static Word> {
    WORDS.iter().find(|w| w.name == name)
}

/// The word of the table closest to a misspelt `name`, if one is close
/// enough to be what was meant: one edit (a transposition counting as
/// one) for names of up to six letters, two beyond (`-Dtree` is two
/// from `-true`, and meant `-D tree`).
fn closest_word(name: &[u8]) -> Option<&'static [u8]> {
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

/// The optimal-string-alignment distance between `a` and `b`: the
/// insertions, deletions, substitutions and swaps of two neighbours that
/// turn one into the other.
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

/// The `-version` text, in GNU's shape.
fn version_text(opt_level: u8) -> String {
    format!(
        "find (dents) {}
License: MIT OR Apache-2.0.
This is free software: you are free to change and redistribute it.
There is NO WARRANTY, to the extent permitted by law.

Written by the dents developers.
Features enabled: D_TYPE O_NOFOLLOW(enabled) LEAF_OPTIMISATION CBO(level={}) PARALLEL(threads={})
",
        env!("CARGO_PKG_VERSION"),
        opt_level,
        dents::walk::default_threads()
    )
}

impl Parser<'_> {
    /// GNU's warning for a global option written after a test, an
    /// action or an operator, and the bookkeeping for it; `kind` is
    /// `None` for a word find does not know.
    fn note_option_order(&mut self, name: &[u8], kind: Option<Kind>) {
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
    fn quote(&self, s: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        msg::quote(&mut v, s, self.utf8);
        v
    }

    /// Reads `-H -L -P -D -O -j -S --` before the paths; `Some(status)`
    /// to leave at once.
    fn global_options(&mut self) -> Result<Option<i32>, Error> {
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
    fn push_operand(&mut self, kind: TokKind, name: Vec<u8>, artificial: bool) {
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
    fn push_primary(&mut self, pred: Pred, words: Vec<Vec<u8>>, artificial: bool) {
        let name = words.first().cloned().unwrap_or_default();
        self.push_operand(TokKind::Prim(Expr::prim(pred, words)), name, artificial);
    }

    /// The argument of the primary `name`, consumed.
    fn arg(&mut self, name: &[u8]) -> Result<Vec<u8>, Error> {
        match self.args.get(self.i) {
            Some(a) => {
                self.i += 1;
                Ok(a.clone())
            }
            None => Err(backquoted("missing argument to ", name, "")),
        }
    }

    /// Pushes an operator token (`)`, `-a`, `-o`, `,`).
    fn operator(&mut self, kind: TokKind, word: &[u8]) -> Result<Step, Error> {
        self.toks.push(Tok {
            kind,
            name: word.to_vec(),
            artificial: false,
        });
        Ok(Step::Nothing)
    }

    /// Pushes a token that starts an operand (`(`, `!`, `-exclude`).
    fn operand(&mut self, kind: TokKind, word: &[u8]) -> Result<Step, Error> {
        self.push_operand(kind, word.to_vec(), false);
        Ok(Step::Nothing)
    }

    /// Reads one word of the expression (and its arguments) through its
    /// reader in [`WORDS`]; `Some` status to leave at once.
    fn word(&mut self) -> Result<Option<i32>, Error> {
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
    fn step(&mut self, name: Vec<u8>, args: Vec<Vec<u8>>, step: Step) -> Option<i32> {
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

    /// `-name`, `-iname`, `-path`, `-wholename`, `-ipath`, `-iwholename`,
    /// `-lname`, `-ilname`.
    fn name_test(&mut self, name: &[u8], pat: &[u8]) -> Result<Step, Error> {
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
    fn regex_test(&mut self, name: &[u8], pat: &[u8]) -> Result<Step, Error> {
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
    fn type_test(&mut self, name: &[u8], t: &[u8]) -> Result<Step, Error> {
        let types = file_types(t, name)?;
        push(Pred::Type {
            types,
            x: name[1] == b'x',
        })
    }

    /// `-size`.
    fn size_test(&mut self, _: &[u8], s: &[u8]) -> Result<Step, Error> {
        let (cmp, unit) = size(s)?;
        push(Pred::Size { cmp, unit })
    }

    /// `-mtime`, `-atime`, `-ctime`, `-mmin`, `-amin`, `-cmin`.
    fn age_test(&mut self, name: &[u8], s: &[u8]) -> Result<Step, Error> {
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
    fn used_test(&mut self, _: &[u8], s: &[u8]) -> Result<Step, Error> {
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
    fn newer_test(&mut self, name: &[u8], f: &[u8]) -> Result<Step, Error> {
        let st = self.stat_ref(f, TimeField::Modify.mask())?;
        let than = Timestamp::of(&st, TimeField::Modify).expect("mtime is always there");
        push(Pred::Newer {
            field: time_field(name[1]),
            than,
        })
    }

    /// `-newerXY`: the word is a pattern, read here with its argument.
    fn newer_xy(&mut self, name: &[u8]) -> Result<Step, Error> {
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
            super::datetime::parse(&r, self.start).ok_or_else(|| {
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
    fn perm_test(&mut self, _: &[u8], m: &[u8]) -> Result<Step, Error> {
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
    fn owner_test(&mut self, name: &[u8], n: &[u8]) -> Result<Step, Error> {
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
    fn number_test(&mut self, name: &[u8], s: &[u8]) -> Result<Step, Error> {
        let cmp = comparison(s).ok_or_else(|| invalid_argument(s, name))?;
        push(match name {
            b"-uid" => Pred::Uid(cmp),
            b"-gid" => Pred::Gid(cmp),
            b"-links" => Pred::Links(cmp),
            _ => Pred::Inum(cmp),
        })
    }

    /// `-samefile`.
    fn samefile_test(&mut self, _: &[u8], f: &[u8]) -> Result<Step, Error> {
        let st = self.stat_ref(f, StatFields::INO)?;
        push(Pred::SameFile {
            dev: (st.dev_major(), st.dev_minor()),
            ino: st.ino(),
        })
    }

    /// `-exec`, `-ok`, `-execdir`, `-okdir`: the command and its `;` or
    /// `+` are the primary's words.
    fn exec_action(&mut self, name: &[u8], _: &[u8]) -> Result<Step, Error> {
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
    fn printf_action(&mut self, _: &[u8], f: &[u8]) -> Result<Step, Error> {
        let fmt = Format::parse(f)?;
        push(Pred::Printf {
            dest: Dest::Stdout,
            fmt: Box::new(fmt),
        })
    }

    /// `-fprintf FILE FORMAT`; the file is opened here, as GNU opens it.
    fn fprintf_action(&mut self, name: &[u8], _: &[u8]) -> Result<Step, Error> {
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
    fn print_action(&mut self, name: &[u8], file: &[u8]) -> Result<Step, Error> {
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
    fn limit_action(&mut self, name: &[u8], s: &[u8]) -> Result<Step, Error> {
        let n = unsigned(s)
            .filter(|&n| n >= 1)
            .ok_or_else(|| invalid_argument(s, name))?;
        push(Pred::Limit {
            n,
            count: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// `-maxdepth`, `-mindepth`.
    fn depth_option(&mut self, name: &[u8], s: &[u8]) -> Result<Step, Error> {
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
    fn depth_first_option(&mut self, name: &[u8], _: &[u8]) -> Result<Step, Error> {
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
    fn stat_ref(&self, path: &[u8], mask: StatFields) -> Result<Metadata, Error> {
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
    fn exec(&mut self, name: &[u8]) -> Result<Exec, Error> {
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
            super::exec::check_path_for_execdir(name)?;
        }
        let argv = self.args[start..end].to_vec();
        self.i = end + 1;
        Ok(Exec::new(argv, batch, ok, in_dir))
    }
}

/// A number of decimal digits that GNU reads as a C `int` (user and group
/// ids, depths), or GNU's message: the value beyond `int`, with the cause
/// unless it is `LONG_MAX` itself (where `strtol` sets no error).
fn gnu_int(s: &[u8]) -> Result<u32, Error> {
    let v = std::str::from_utf8(s)
        .ok()
        .and_then(|t| t.parse::<u64>().ok());
    match v {
        Some(v) if v <= i32::MAX as u64 => Ok(v as u32),
        Some(v) if v == i64::MAX as u64 => Err(s.to_vec()),
        _ => {
            let mut m = s.to_vec();
            m.extend_from_slice(b": Numerical result out of range");
            Err(m)
        }
    }
}

/// The level of `-OLEVEL` (at most 3, what dents tells apart), or GNU's
/// message.
fn opt_level(rest: &[u8]) -> Result<u8, Error> {
    let text = String::from_utf8_lossy(rest);
    match rest.first() {
        None => {
            return Err(b"The -O option must be immediately followed by a decimal integer".to_vec())
        }
        Some(d) if !d.is_ascii_digit() => {
            return Err(b"Please specify a decimal number immediately after -O".to_vec())
        }
        _ => {}
    }
    if !rest.iter().all(u8::is_ascii_digit) {
        return Err(format!("Invalid optimisation level {text}").into_bytes());
    }
    let Ok(n) = text.parse::<u64>() else {
        return Err(
            format!("Invalid optimisation level {text}: Numerical result out of range")
                .into_bytes(),
        );
    };
    if n > 65535 {
        return Err(format!(
            "Optimisation level {n} is too high.  If you want to find files very quickly, consider using GNU locate."
        )
        .into_bytes());
    }
    Ok(n.min(3) as u8)
}

/// Writes a help or version text; returns the exit status: 1 and GNU's
/// message if it could not be written.
fn print_text(text: &str) -> i32 {
    match crate::output::write_stdout(text.as_bytes()) {
        Ok(()) => 0,
        Err(e) => {
            let mut m = b"write error: ".to_vec();
            m.extend_from_slice(crate::errors::describe(&e).as_bytes());
            super::msg::error(&m);
            super::msg::FAILURE
        }
    }
}

/// `ENOENT`, for a path with a NUL in it (no file can have that name).
fn libc_enoent() -> i32 {
    rustix::io::Errno::NOENT.raw_os_error()
}

/// Whether an argument holds `{}`.
fn contains_braces(a: &[u8]) -> bool {
    a.windows(2).any(|w| w == b"{}")
}

/// The field a primary's letter names (`-atime`, `-newerXm`).
fn time_field(c: u8) -> TimeField {
    match c {
        b'a' => TimeField::Access,
        b'B' => TimeField::Birth,
        b'c' => TimeField::Change,
        _ => TimeField::Modify,
    }
}

/// The set of types of `-type`/`-xtype` (`f`, `f,d,l`), as bits
/// `1 << d_type`, with GNU's messages.
fn file_types(s: &[u8], name: &[u8]) -> Result<u32, Error> {
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

/// `-size`'s argument: a comparison and a number of units (`c w b k M G`,
/// `b` if none).
fn size(s: &[u8]) -> Result<(Cmp, u64), Error> {
    let Some(&last) = s.last() else {
        return Err(b"invalid null argument to -size".to_vec());
    };
    let (unit, num) = match last {
        b'b' => (512, &s[..s.len() - 1]),
        b'c' => (1, &s[..s.len() - 1]),
        b'w' => (2, &s[..s.len() - 1]),
        b'k' => (1024, &s[..s.len() - 1]),
        b'M' => (1 << 20, &s[..s.len() - 1]),
        b'G' => (1 << 30, &s[..s.len() - 1]),
        b'0'..=b'9' => (512, s),
        other => return Err(format!("invalid -size type `{}'", other as char).into_bytes()),
    };
    let bad = || {
        let mut m = backquoted("Invalid argument ", s, " to -size");
        m.truncate(m.len());
        m
    };
    let cmp = comparison(num).ok_or_else(bad)?;
    Ok((cmp, unit))
}

/// The second pass: GNU's operator-precedence scan over the tokens.
struct Builder {
    toks: Vec<Option<Tok>>,
    pos: usize,
    /// The operands of `-exclude`, taken out of the expression.
    excluded: Vec<Expr>,
    /// Inside an `-exclude` operand.
    excluding: bool,
}

impl Builder {
    /// The token at the scan position.
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).and_then(|t| t.as_ref())
    }

    /// Takes the token at the scan position.
    fn take(&mut self) -> Tok {
        let t = self.toks[self.pos].take().expect("not taken twice");
        self.pos += 1;
        t
    }

    /// An expression whose operators bind tighter than `prev_prec`;
    /// `prev` is the operator or parenthesis before it (for messages).
    fn get_expr(&mut self, prev_prec: u8, prev: Option<(&[u8], bool)>) -> Result<Expr, Error> {
        let Some(t) = self.peek() else {
            return Err(b"invalid expression".to_vec());
        };
        let mut expr = match t.kind {
            TokKind::Bin(_) => {
                let mut m = b"invalid expression; you have used a binary operator '".to_vec();
                m.extend_from_slice(&t.name);
                m.extend_from_slice(b"' with nothing before it.");
                return Err(m);
            }
            TokKind::Close => {
                let mut m = Vec::new();
                match prev {
                    Some((p, true)) if !t.artificial => {
                        m.extend_from_slice(b"expected an expression between '");
                        m.extend_from_slice(p);
                        m.extend_from_slice(b"' and ')'");
                    }
                    Some((p, _)) if t.artificial => {
                        m.extend_from_slice(b"expected an expression after '");
                        m.extend_from_slice(p);
                        m.push(b'\'');
                    }
                    _ => m.extend_from_slice(b"invalid expression; you have too many ')'"),
                }
                return Err(m);
            }
            TokKind::Prim(_) => match self.take().kind {
                TokKind::Prim(e) => e,
                _ => unreachable!("peeked a primary"),
            },
            TokKind::Not => {
                let not = self.take();
                let e = self.get_expr(NEGATE_PREC, Some((&not.name, true)))?;
                Expr::Not(Box::new(e))
            }
            TokKind::Exclude => self.exclude()?,
            TokKind::Open => {
                let next_missing = self
                    .toks
                    .get(self.pos + 1)
                    .and_then(|t| t.as_ref())
                    .map_or(true, |t| t.artificial);
                if next_missing {
                    return Err(
                        b"invalid expression; expected to find a ')' but didn't see \
one. Perhaps you need an extra predicate after '('"
                            .to_vec(),
                    );
                }
                let open = self.take();
                if matches!(self.peek().map(|t| &t.kind), Some(TokKind::Close)) {
                    return Err(b"invalid expression; empty parentheses are not allowed.".to_vec());
                }
                let e = self.get_expr(NO_PREC, Some((&open.name, false)))?;
                if !matches!(self.peek().map(|t| &t.kind), Some(TokKind::Close)) {
                    return Err(
                        b"invalid expression; I was expecting to find a ')' somewhere \
but did not see one."
                            .to_vec(),
                    );
                }
                self.take();
                e
            }
        };
        if let Some(t) = self.peek() {
            if t.prec() > prev_prec {
                expr = self.scan_rest(expr, prev_prec)?;
            }
        }
        Ok(expr)
    }

    /// `-exclude EXPR` (bfs): its operand, which binds as `!`'s, joins the
    /// exclusions and leaves `-true` in its place.  Only tests may be
    /// excluded on.
    fn exclude(&mut self) -> Result<Expr, Error> {
        let ex = self.take();
        if self.excluding {
            return Err(b"-exclude cannot be used inside -exclude".to_vec());
        }
        self.excluding = true;
        let e = self.get_expr(NEGATE_PREC, Some((&ex.name, true)))?;
        self.excluding = false;
        let mut action = None;
        e.each(&mut |p| {
            if p.has_side_effects() && action.is_none() {
                action = Some(());
            }
        });
        if action.is_some() {
            return Err(b"-exclude takes tests only, not actions".to_vec());
        }
        self.excluded.push(e);
        Ok(Expr::prim(Pred::True, vec![ex.name]))
    }

    /// Extends `head` with the operators that bind tighter than
    /// `prev_prec`, up to a `)` or the end.
    fn scan_rest(&mut self, head: Expr, prev_prec: u8) -> Result<Expr, Error> {
        if matches!(self.peek().map(|t| &t.kind), None | Some(TokKind::Close)) {
            return Err(b"invalid expression".to_vec());
        }
        let mut tree = head;
        while let Some(t) = self.peek() {
            if t.prec() <= prev_prec {
                break;
            }
            match t.kind {
                TokKind::Bin(op) => {
                    let tok = self.take();
                    let prec = tok.prec();
                    let right = self.get_expr(prec, Some((&tok.name, true)))?;
                    let (l, r) = (Box::new(tree), Box::new(right));
                    tree = match op {
                        BinOp::And => Expr::And(l, r),
                        BinOp::Or => Expr::Or(l, r),
                        BinOp::Comma => Expr::Comma(l, r),
                    };
                }
                TokKind::Close => break,
                _ => return Err(b"invalid expression".to_vec()),
            }
        }
        Ok(tree)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Vec<u8>> {
        s.split(' ').map(|w| w.as_bytes().to_vec()).collect()
    }

    fn tree(s: &str) -> String {
        match parse(&words(s)) {
            Ok(Parsed::Run(o)) => {
                let mut t = String::new();
                o.expr.dump(&mut t);
                t
            }
            Ok(Parsed::Exit(_)) => "exit".into(),
            Err(e) => String::from_utf8_lossy(&e.message).into_owned(),
        }
    }

    #[test]
    fn precedence_and_default_print() {
        assert_eq!(
            tree("d -name a -o -name b"),
            "(-a (-o (-name a) (-name b)) (-print))"
        );
        assert_eq!(
            tree("d ! -name a -name b -print"),
            "(-a (-a (! (-name a)) (-name b)) (-print))"
        );
        assert_eq!(tree("d"), "(-print)");
    }

    #[test]
    fn gnu_messages() {
        assert_eq!(tree("d -name a -o"), "expected an expression after '-o'");
        assert_eq!(tree("d -print ,"), "invalid expression");
        assert_eq!(tree("d !"), "expected an expression after '!'");
        assert_eq!(tree("d -name a )"), "you have too many ')'");
        assert_eq!(tree("d -foo"), "unknown predicate `-foo'");
    }

    #[test]
    fn closest_words() {
        let guess =
            |w: &str| closest_word(w.as_bytes()).map(|n| String::from_utf8_lossy(n).into_owned());
        assert_eq!(guess("-nmae").as_deref(), Some("-name"));
        assert_eq!(guess("-prnt").as_deref(), Some("-print"));
        assert_eq!(guess("-exce").as_deref(), Some("-exec"));
        assert_eq!(guess("-maxdepht").as_deref(), Some("-maxdepth"));
        assert_eq!(guess("-mindept").as_deref(), Some("-mindepth"));
        assert_eq!(guess("--hepl").as_deref(), Some("--help"));
        assert_eq!(guess("-typ").as_deref(), Some("-type"));
        // Too far from every word, or too short to tell.
        assert_eq!(guess("-foo"), None);
        assert_eq!(guess("-x"), None);
        assert_eq!(guess("-bogus"), None);
        assert_eq!(guess("-frobnicate"), None);
        assert_eq!(guess("-Dtree"), None);
        assert_eq!(guess("-maxdpeth").as_deref(), Some("-maxdepth"));
        assert_eq!(guess("-exectuable").as_deref(), Some("-executable"));
    }

    #[test]
    fn hint_beside_gnu_message() {
        let e = match parse(&words("d -nmae x")) {
            Err(e) => e,
            Ok(_) => panic!("-nmae accepted"),
        };
        assert_eq!(e.message, b"unknown predicate `-nmae'");
        let hint = String::from_utf8(e.hint.expect("a hint")).unwrap();
        assert!(
            hint.starts_with("did you mean ") && hint.contains("-name"),
            "{hint}"
        );
        let e = match parse(&words("d -foo")) {
            Err(e) => e,
            Ok(_) => panic!("-foo accepted"),
        };
        assert_eq!(e.hint, None);
    }

    #[test]
    fn every_word_once_in_the_table() {
        for (i, w) in WORDS.iter().enumerate() {
            assert!(
                WORDS[i + 1..].iter().all(|o| o.name != w.name),
                "{} twice",
                String::from_utf8_lossy(w.name)
            );
        }
    }
}
