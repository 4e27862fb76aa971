//! The tokens of find's expression (a primary, an operator, a
//! parenthesis), their precedences as GNU find gives them, and GNU's rule
//! for where the expression starts.

use crate::expr::Expr;

/// Precedences, as in GNU find.
pub(super) const NO_PREC: u8 = 0;
pub(super) const COMMA_PREC: u8 = 1;
pub(super) const OR_PREC: u8 = 2;
pub(super) const AND_PREC: u8 = 3;
pub(super) const NEGATE_PREC: u8 = 4;

/// A binary operator.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum BinOp {
    And,
    Or,
    Comma,
}

/// A token of the expression.
#[derive(Debug)]
pub(super) enum TokKind {
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
pub(super) struct Tok {
    pub(super) kind: TokKind,
    /// The word (`-o`, `-and`, `(`), for messages.
    pub(super) name: Vec<u8>,
    /// Put in by us (`( ... ) -print`, an implied `-a`), not the user.
    pub(super) artificial: bool,
}

impl Tok {
    /// The token's precedence as an operator.
    pub(super) fn prec(&self) -> u8 {
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
pub(super) fn looks_like_expression(arg: &[u8], leading: bool) -> bool {
    match arg {
        [b'-', _, ..] => true,
        [b'(' | b'!'] => true,
        [b')' | b','] => !leading,
        _ => false,
    }
}
