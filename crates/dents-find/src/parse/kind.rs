//! What reading a word of the expression is ([`Kind`]), takes
//! ([`Arity`]) and gives ([`Step`]): the terms of the table of words and
//! of its readers.

use super::Error;
use crate::expr::Pred;

/// What a word of the expression is.  The kind decides GNU's warning
/// about option order: a global option written after a test, an action
/// or an operator is warned about; positional options and bfs's words
/// neither warn nor count as that earlier word.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Kind {
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
pub(super) enum Arity {
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
pub(super) enum Step {
    /// A primary: its predicate and the words it took beyond the name
    /// and an `Arity::One` argument (which are added for it).
    Push(Pred, Vec<Vec<u8>>),
    /// Nothing to add to the expression (`-daystart`, or an operator
    /// that pushed its own token).
    Nothing,
    /// Leave at once with this status (`--help`).
    Exit(i32),
}

/// A primary with no words beyond its name and argument.
pub(super) fn push(pred: Pred) -> Result<Step, Error> {
    Ok(Step::Push(pred, Vec::new()))
}
