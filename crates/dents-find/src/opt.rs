//! The optimiser: explicit passes over the expression, in bfs's spirit,
//! then what the walk needs to know about the result.
//!
//! | pass       | level | what it does |
//! |------------|-------|--------------|
//! | `fold`     | 1     | `! ! e` is `e`; `-true`/`-false` absorbed by `-a`, `-o`, `,` and `!`; a side without effects dropped where its value does not count |
//! | `reorder`  | 1     | in a chain of `-a` (or of `-o`), runs of operands without side effects are sorted cheapest first: names and `d_type` before stats, stats before `access(2)` and reading directories |
//! | `analyse`  | -     | the stat fields any test reads (the walker's `stat_mask`), and whether evaluation must be serialised |
//!
//! Operands with side effects (`-print`, `-exec`, `-prune`, `-quit`,
//! `-delete`) are never moved, dropped or duplicated, and nothing moves
//! across them, so the actions see exactly the files they would have seen
//! unoptimised; only which failing stats are reported can differ, as with
//! GNU find's own reordering at its default level.

use dents::StatFields;

use super::expr::{Expr, Pred};

/// Runs the passes of `level` (0: none).
pub fn optimise(e: Expr, level: u8) -> Expr {
    if level == 0 {
        return e;
    }
    let e = fold(e);
    reorder(e)
}

/// A constant as an expression.
fn constant(v: bool) -> Expr {
    if v {
        Expr::prim(Pred::True, vec![b"-true".to_vec()])
    } else {
        Expr::prim(Pred::False, vec![b"-false".to_vec()])
    }
}

/// Constant folding and double negation, bottom up.
fn fold(e: Expr) -> Expr {
    match e {
        Expr::Not(x) => match fold(*x) {
            Expr::Not(y) => *y,
            x => match x.constant() {
                Some(v) => constant(!v),
                None => Expr::Not(Box::new(x)),
            },
        },
        Expr::And(a, b) => {
            let (a, b) = (fold(*a), fold(*b));
            match (a.constant(), b.constant()) {
                (Some(true), _) => b,
                (Some(false), _) => a,
                (_, Some(true)) => a,
                (_, Some(false)) if !a.has_side_effects() => b,
                _ => Expr::And(Box::new(a), Box::new(b)),
            }
        }
        Expr::Or(a, b) => {
            let (a, b) = (fold(*a), fold(*b));
            match (a.constant(), b.constant()) {
                (Some(false), _) => b,
                (Some(true), _) => a,
                (_, Some(false)) => a,
                (_, Some(true)) if !a.has_side_effects() => b,
                _ => Expr::Or(Box::new(a), Box::new(b)),
            }
        }
        Expr::Comma(a, b) => {
            let (a, b) = (fold(*a), fold(*b));
            if a.has_side_effects() {
                Expr::Comma(Box::new(a), Box::new(b))
            } else {
                b
            }
        }
        p @ Expr::Prim(_) => p,
    }
}

/// Which chain an expression heads.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Chain {
    And,
    Or,
}

/// The operands of a left-leaning chain of one operator, in order.
fn flatten(e: Expr, kind: Chain, out: &mut Vec<Expr>) {
    match (e, kind) {
        (Expr::And(a, b), Chain::And) | (Expr::Or(a, b), Chain::Or) => {
            flatten(*a, kind, out);
            flatten(*b, kind, out);
        }
        (e, _) => out.push(e),
    }
}

/// Cheapest-first ordering of side-effect-free runs in `-a`/`-o` chains.
fn reorder(e: Expr) -> Expr {
    let kind = match e {
        Expr::And(..) => Chain::And,
        Expr::Or(..) => Chain::Or,
        Expr::Not(x) => return Expr::Not(Box::new(reorder(*x))),
        Expr::Comma(a, b) => return Expr::Comma(Box::new(reorder(*a)), Box::new(reorder(*b))),
        p @ Expr::Prim(_) => return p,
    };
    let mut ops = Vec::new();
    flatten(e, kind, &mut ops);
    let mut ops: Vec<Expr> = ops.into_iter().map(reorder).collect();
    // Sort each maximal run of operands without side effects; a stable
    // sort keeps the user's order among equals.
    let mut start = 0;
    while start < ops.len() {
        let mut end = start;
        while end < ops.len() && !ops[end].has_side_effects() {
            end += 1;
        }
        ops[start..end].sort_by_key(|o| o.cost());
        start = end + 1;
    }
    let mut it = ops.into_iter();
    let first = it.next().expect("a chain has operands");
    it.fold(first, |acc, o| match kind {
        Chain::And => Expr::And(Box::new(acc), Box::new(o)),
        Chain::Or => Expr::Or(Box::new(acc), Box::new(o)),
    })
}

/// What the walk needs to know about an expression.
#[derive(Debug, Clone, Copy)]
pub struct Needs {
    /// The statx fields tests read; empty if no test needs a stat.
    pub stat_mask: StatFields,
    /// Evaluate one file at a time (commands run, prompts, `-quit` that
    /// must stop at exactly one file).
    pub serial: bool,
}

/// Works out the [`Needs`] of `e`.
pub fn analyse(e: &Expr) -> Needs {
    let mut mask = StatFields::empty();
    let mut serial = false;
    e.each(&mut |p| {
        mask |= p.stat_mask();
        serial |= matches!(p, Pred::Exec(_) | Pred::Quit | Pred::Limit { .. });
    });
    Needs {
        stat_mask: mask,
        serial,
    }
}

/// Whether a sorted walk may stat every entry ahead of its visit
/// ([`dents::walk::Visitor::stat_ahead`]) for `e`: the first test it
/// evaluates on every entry reads the metadata, so each entry is stat'ed
/// anyway (on the workers, in parallel, rather than in the serial
/// visits), and nothing it runs changes the files (`-exec`, `-ok`,
/// `-delete`: their later entries' metadata must be read at their
/// visits, as GNU's).  An expression that stats only some entries
/// (`-name '*.c' -size +1M`) is left to stat them at their visits.
pub fn stats_every_entry(e: &Expr) -> bool {
    fn first_stats(e: &Expr) -> bool {
        match e {
            Expr::Prim(p) => !p.pred.stat_mask().is_empty(),
            Expr::And(a, _) | Expr::Or(a, _) => first_stats(a),
            Expr::Not(x) => first_stats(x),
            Expr::Comma(a, b) => first_stats(a) || first_stats(b),
        }
    }
    let mut changes = false;
    e.each(&mut |p| changes |= p.changes_files());
    !changes && first_stats(e)
}

#[cfg(test)]
mod tests {
    use super::super::parse::{parse, Parsed};
    use super::*;

    fn opt(s: &str) -> (String, Needs) {
        let words: Vec<Vec<u8>> = s.split(' ').map(|w| w.as_bytes().to_vec()).collect();
        let Ok(Parsed::Run(o)) = parse(&words) else {
            panic!("parse failed");
        };
        let e = optimise(o.expr, 1);
        let mut t = String::new();
        e.dump(&mut t);
        (t, analyse(&e))
    }

    #[test]
    fn folding() {
        assert_eq!(opt("d ! ! -name a").0, "(-a (-name a) (-print))");
        assert_eq!(opt("d -true -o -name a").0, "(-print)");
        assert_eq!(opt("d -false -a -print").0, "(-false)");
        assert_eq!(opt("d -name a -o -false").0, "(-a (-name a) (-print))");
        assert_eq!(opt("d -maxdepth 1 -name a").0, "(-a (-name a) (-print))");
        assert_eq!(opt("d -print -o -true").0, "(-o (-print) (-true))");
    }

    #[test]
    fn cheap_tests_first_but_not_across_actions() {
        assert_eq!(
            opt("d -size +1 -name a").0,
            "(-a (-a (-name a) (-size +1)) (-print))"
        );
        assert_eq!(
            opt("d -size +1 -print -name a").0,
            "(-a (-a (-size +1) (-print)) (-name a))"
        );
    }

    #[test]
    fn stats_ahead_only_where_every_entry_is_stat_ed() {
        let ahead = |s: &str| {
            let words: Vec<Vec<u8>> = s.split(' ').map(|w| w.as_bytes().to_vec()).collect();
            let Ok(Parsed::Run(o)) = parse(&words) else {
                panic!("parse failed");
            };
            stats_every_entry(&optimise(o.expr, 1))
        };
        assert!(ahead("d -size +1"));
        assert!(ahead("d -mtime -1 -print"));
        assert!(
            !ahead("d -mtime -1 -o -name a"),
            "-name first once reordered: the a's are not stat'ed"
        );
        assert!(ahead("d -ls"));
        assert!(ahead("d -name a , -size +1"));
        assert!(!ahead("d -name a -size +1"), "only the a's are stat'ed");
        assert!(!ahead("d -type f"));
        assert!(!ahead("d"));
        assert!(!ahead("d -size +1 -delete"));
        assert!(!ahead("d -size +1 -exec true ;"));
    }

    #[test]
    fn stat_mask_only_what_is_read() {
        assert!(opt("d -name a -type f").1.stat_mask.is_empty());
        assert_eq!(opt("d -size +1").1.stat_mask, StatFields::SIZE);
        assert!(opt("d -exec true ;").1.serial);
    }
}
