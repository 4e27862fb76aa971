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
//!
//! # Files, in layers
//!
//! Each file uses only files of lower layers (`tests/layers.rs` checks this
//! table against the source):
//!
//! | layer | module | concern |
//! |---|----------|---------|
//! | 0 | `token` | the tokens (primary, operator, parenthesis), GNU's precedences, where the expression starts |
//! | 0 | `kind` | what a word is, takes and gives to the parser (`Kind`, `Arity`, `Step`) |
//! | 0 | `messages` | GNU's wording for a refused word or argument |
//! | 0 | `typo` | the edit distance behind "did you mean" |
//! | 0 | `help` | `--help` and `-version` |
//! | 1 | `numbers` | number readers: comparisons, C `int`s, `-O` levels, `-size` |
//! | 1 | `precedence` | the second pass: the operator-precedence scan into the tree |
//! | 2 | `parser` | the first pass's state and the reader of each word |
//! | 3 | `words` | the table of every word (`WORDS`) and the reading of one word through it |
//!
//! This file, above them, holds what the command line gives ([`Options`],
//! [`Parsed`], [`ParseError`]) and the two passes run in order.

mod help;
mod kind;
mod messages;
mod numbers;
mod parser;
mod precedence;
mod token;
mod typo;
mod words;

use std::io::IsTerminal;

use dents::walk::Order;
use dents::Follow;

use crate::expr::{Expr, Pred};
use crate::outfiles::Registry;
use crate::regex::Dialect;
use crate::time::{self, Timestamp};
use crate::{debug, msg};
use parser::Parser;
use precedence::Builder;
use token::{looks_like_expression, Tok, TokKind, NO_PREC};

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

#[cfg(test)]
mod tests {
    use super::words::{closest_word, WORDS};
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
