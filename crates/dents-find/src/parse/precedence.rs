//! The second pass: GNU find's operator-precedence scan (`!` over `-a`
//! over `-o` over `,`) turns the tokens into the expression tree, with
//! GNU's messages for a malformed one.

use super::token::{BinOp, Tok, TokKind, NEGATE_PREC, NO_PREC};
use super::Error;
use crate::expr::{Expr, Pred};

/// The second pass: GNU's operator-precedence scan over the tokens.
pub(super) struct Builder {
    pub(super) toks: Vec<Option<Tok>>,
    pub(super) pos: usize,
    /// The operands of `-exclude`, taken out of the expression.
    pub(super) excluded: Vec<Expr>,
    /// Inside an `-exclude` operand.
    pub(super) excluding: bool,
}

impl Builder {
    /// The token at the scan position.
    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).and_then(|t| t.as_ref())
    }

    /// Takes the token at the scan position.
    pub(super) fn take(&mut self) -> Tok {
        let t = self.toks[self.pos].take().expect("not taken twice");
        self.pos += 1;
        t
    }

    /// An expression whose operators bind tighter than `prev_prec`;
    /// `prev` is the operator or parenthesis before it (for messages).
    pub(super) fn get_expr(
        &mut self,
        prev_prec: u8,
        prev: Option<(&[u8], bool)>,
    ) -> Result<Expr, Error> {
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
    pub(super) fn exclude(&mut self) -> Result<Expr, Error> {
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
    pub(super) fn scan_rest(&mut self, head: Expr, prev_prec: u8) -> Result<Expr, Error> {
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
