//! The expression tree: operators over primaries, as parsed and optimised.
//!
//! Every primary keeps the words it was written with, so that `-D tree`
//! shows the expression the way the user would write it.  Each primary
//! knows three things the optimiser needs: whether it has side effects
//! (it may not be moved, dropped or evaluated more or fewer times), what
//! it costs, and which stat fields it reads.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use dents::StatFields;

use super::debug;
use super::exec::Exec;
use super::lsfmt::Ls;
use super::outfiles::Dest;
use super::printf::Format;
use super::time::{Rel, TimeField, Timestamp};
use dents_tools::glob::Glob;

/// An expression.
#[derive(Debug)]
pub enum Expr {
    /// `! e`
    Not(Box<Expr>),
    /// `a -a b`: b only if a is true.
    And(Box<Expr>, Box<Expr>),
    /// `a -o b`: b only if a is false.
    Or(Box<Expr>, Box<Expr>),
    /// `a , b`: both, the value of b.
    Comma(Box<Expr>, Box<Expr>),
    /// A test or an action.
    Prim(Box<Primary>),
}

/// A primary and the words it was written with.
#[derive(Debug)]
pub struct Primary {
    /// What it does.
    pub pred: Pred,
    /// Its words on the command line (`-name`, `*.c`), for `-D tree`.
    pub words: Vec<Vec<u8>>,
}

/// How an integer argument compares: `-N`, `N`, `+N`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `-N`: less than N.
    Less(u64),
    /// `N`: exactly N.
    Equal(u64),
    /// `+N`: more than N.
    More(u64),
}

impl Cmp {
    /// Whether `x` satisfies the comparison.
    pub fn test(self, x: u64) -> bool {
        match self {
            Cmp::Less(n) => x < n,
            Cmp::Equal(n) => x == n,
            Cmp::More(n) => x > n,
        }
    }
}

/// How `-perm` compares the mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PermKind {
    /// `MODE`: exactly these bits.
    Exact,
    /// `-MODE`: at least all these bits.
    All,
    /// `/MODE`: any of these bits (every file, if none).
    Any,
}

/// Which `access(2)` check.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// `-readable`
    Read,
    /// `-writable`
    Write,
    /// `-executable`
    Exec,
}

/// What a name test matches against.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NameOf {
    /// The last component (`-name`).
    Base,
    /// The whole path (`-path`, `-wholename`).
    Path,
    /// A symlink's target (`-lname`).
    LinkTarget,
}

/// A test or action.
#[derive(Debug)]
pub enum Pred {
    /// `-true`, and options (`-maxdepth`...) where they stand.
    True,
    /// `-false`
    False,
    /// `-name`, `-path`, `-lname` and their `-i` forms.
    Name { of: NameOf, glob: Glob },
    /// `-regex`, `-iregex`: the whole path must match.
    Regex(Box<onig::Regex>),
    /// `-type` (`x: false`) or `-xtype` (`x: true`): a set of `d_type`s
    /// as bits `1 << d_type`.
    Type { types: u32, x: bool },
    /// `-size`: the size in `unit`-byte blocks, rounded up.
    Size { cmp: Cmp, unit: u64 },
    /// `-mtime`, `-mmin` and the like: the time compared with a window
    /// ending at `reference` (nanoseconds since the epoch).
    Age {
        field: TimeField,
        rel: Rel,
        reference: i128,
        window: i128,
    },
    /// `-used`: days from the last status change to the last access
    /// (the sign of `+N`/`-N`/`N` and N days in nanoseconds).
    Used { sign: i8, days: i128 },
    /// `-newer`, `-anewer`, `-cnewer`, `-newerXY`: strictly newer than
    /// a fixed time.
    Newer { field: TimeField, than: Timestamp },
    /// `-perm`: `modes[0]` for non-directories, `modes[1]` for directories
    /// (symbolic `X` differs).
    Perm { kind: PermKind, modes: [u32; 2] },
    /// `-uid`, `-user`.
    Uid(Cmp),
    /// `-gid`, `-group`.
    Gid(Cmp),
    /// `-nouser`
    NoUser,
    /// `-nogroup`
    NoGroup,
    /// `-links`
    Links(Cmp),
    /// `-inum`
    Inum(Cmp),
    /// `-samefile`: this device and inode.
    SameFile { dev: (u32, u32), ino: u64 },
    /// `-empty`
    Empty,
    /// `-readable`, `-writable`, `-executable`.
    Access(AccessKind),
    /// `-prune`
    Prune,
    /// `-quit`
    Quit,
    /// `-print` (`b'\n'`) and `-print0` (`0`).
    Print(u8),
    /// `-delete`
    Delete,
    /// `-exec`, `-ok`.
    Exec(Arc<Exec>),
    /// `-printf`, `-fprintf`.
    Printf { dest: Dest, fmt: Box<Format> },
    /// `-ls`, `-fls`.
    Ls { dest: Dest, ls: Ls },
    /// `-fprint` (`b'\n'`), `-fprint0` (`0`).
    FPrint { dest: Dest, end: u8 },
    /// `-fstype`: the type name of the file's filesystem.
    FsType(Vec<u8>),
    /// `-hidden` (bfs): the name starts with `.`.
    Hidden,
    /// `-limit N` (bfs): true; the walk stops once it has been evaluated
    /// `n` times.
    Limit {
        /// N, at least 1.
        n: u64,
        /// Evaluations so far.
        count: AtomicU64,
    },
}

impl Pred {
    /// Whether evaluating it does anything besides giving a value (output,
    /// deletion, commands, stopping the walk): such a primary is never
    /// moved, dropped or duplicated.
    pub fn has_side_effects(&self) -> bool {
        matches!(
            self,
            Pred::Prune
                | Pred::Quit
                | Pred::Print(_)
                | Pred::Delete
                | Pred::Exec(_)
                | Pred::Limit { .. }
        ) || self.is_file_output()
    }

    /// Whether it may change files: deletes them (`-delete`) or runs a
    /// command (`-exec`, `-ok`, `-execdir`...).  A walk with such a
    /// primary must read each entry as its visit finds it, and must go on
    /// when its output's reader is gone, as GNU's does.
    pub fn changes_files(&self) -> bool {
        matches!(self, Pred::Delete | Pred::Exec(_))
    }

    /// Whether it counts as an action that stops the implied `-print`.
    pub fn is_output_action(&self) -> bool {
        matches!(self, Pred::Print(_) | Pred::Delete | Pred::Exec(_)) || self.is_file_output()
    }

    /// Whether it is one of the actions that format files (`-printf`,
    /// `-ls`, `-fprint` and their kin).
    fn is_file_output(&self) -> bool {
        matches!(
            self,
            Pred::Printf { .. } | Pred::Ls { .. } | Pred::FPrint { .. }
        )
    }

    /// Where it writes, if it is `-printf`, `-ls`, `-fprint` or a kin.
    pub fn dest(&self) -> Option<&Dest> {
        match self {
            Pred::Printf { dest, .. } | Pred::Ls { dest, .. } | Pred::FPrint { dest, .. } => {
                Some(dest)
            }
            _ => None,
        }
    }

    /// The stat fields it reads; empty if it needs no stat at all (name
    /// tests, `-type` where the directory entry says).
    pub fn stat_mask(&self) -> StatFields {
        match self {
            Pred::Size { .. } => StatFields::SIZE,
            Pred::Age { field, .. } | Pred::Newer { field, .. } => field.mask(),
            Pred::Perm { .. } => StatFields::MODE,
            Pred::Used { .. } => StatFields::ATIME | StatFields::CTIME,
            Pred::Uid(_) | Pred::NoUser => StatFields::UID,
            Pred::Gid(_) | Pred::NoGroup => StatFields::GID,
            Pred::Links(_) => StatFields::NLINK,
            Pred::Inum(_) | Pred::SameFile { .. } => StatFields::INO,
            Pred::Empty => StatFields::SIZE,
            Pred::Printf { fmt, .. } => fmt.stat_mask(),
            Pred::Ls { .. } => super::lsfmt::MASK,
            // Any stat gives the device.
            Pred::FsType(_) => StatFields::TYPE,
            _ => StatFields::empty(),
        }
    }

    /// A rough cost: 1 for what the directory entry answers, more for what
    /// needs a system call; tests are ordered cheapest first.
    pub fn cost(&self) -> u32 {
        match self {
            Pred::True | Pred::False => 0,
            Pred::Name { of, .. } if *of != NameOf::LinkTarget => 1,
            Pred::Hidden => 1,
            Pred::Type { x: false, .. } => 2,
            Pred::Regex(_) => 4,
            Pred::Name { .. } => 40,
            Pred::Empty => 200,
            Pred::Access(_) => 50,
            Pred::NoUser | Pred::NoGroup => 60,
            Pred::Type { x: true, .. } => 40,
            _ if !self.stat_mask().is_empty() => 40,
            _ => 100,
        }
    }
}

impl Expr {
    /// A primary as an expression.
    pub fn prim(pred: Pred, words: Vec<Vec<u8>>) -> Expr {
        Expr::Prim(Box::new(Primary { pred, words }))
    }

    /// Whether evaluating it can have side effects anywhere inside.
    pub fn has_side_effects(&self) -> bool {
        match self {
            Expr::Not(e) => e.has_side_effects(),
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => {
                a.has_side_effects() || b.has_side_effects()
            }
            Expr::Prim(p) => p.pred.has_side_effects(),
        }
    }

    /// Calls `f` on every primary.
    pub fn each(&self, f: &mut dyn FnMut(&Pred)) {
        match self {
            Expr::Not(e) => e.each(f),
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => {
                a.each(f);
                b.each(f);
            }
            Expr::Prim(p) => f(&p.pred),
        }
    }

    /// The constant value of the expression, if it is `-true` or `-false`.
    pub fn constant(&self) -> Option<bool> {
        match self {
            Expr::Prim(p) => match p.pred {
                Pred::True => Some(true),
                Pred::False => Some(false),
                _ => None,
            },
            _ => None,
        }
    }

    /// The cost of evaluating the expression at worst (the sum).
    pub fn cost(&self) -> u32 {
        match self {
            Expr::Not(e) => e.cost(),
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => {
                a.cost().saturating_add(b.cost())
            }
            Expr::Prim(p) => p.pred.cost(),
        }
    }

    /// Appends the tree in a one-line, prefix form: `(-a (-name x) (-print))`.
    pub fn dump(&self, out: &mut String) {
        let bin = |op: &str, a: &Expr, b: &Expr, out: &mut String| {
            out.push('(');
            out.push_str(op);
            out.push(' ');
            a.dump(out);
            out.push(' ');
            b.dump(out);
            out.push(')');
        };
        match self {
            Expr::Not(e) => {
                out.push_str("(! ");
                e.dump(out);
                out.push(')');
            }
            Expr::And(a, b) => bin("-a", a, b, out),
            Expr::Or(a, b) => bin("-o", a, b, out),
            Expr::Comma(a, b) => bin(",", a, b, out),
            Expr::Prim(p) => {
                out.push('(');
                for (i, w) in p.words.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    out.push_str(&String::from_utf8_lossy(w));
                }
                out.push(')');
            }
        }
    }

    /// `-D rates`: the expression with how often each primary was
    /// evaluated and true, after the walk.
    pub fn report_rates(&self) {
        let mut out = b"Predicate success rates after completion:\n".to_vec();
        rates_of(self, &mut out);
        debug::say(&out);
    }
}

/// Appends `e` in infix form, each primary with its counts.
fn rates_of(e: &Expr, out: &mut Vec<u8>) {
    let bin = |op: &[u8], a: &Expr, b: &Expr, out: &mut Vec<u8>| {
        out.extend_from_slice(b"( ");
        rates_of(a, out);
        out.push(b' ');
        out.extend_from_slice(op);
        out.push(b' ');
        rates_of(b, out);
        out.extend_from_slice(b" )");
    };
    match e {
        Expr::Not(x) => {
            out.extend_from_slice(b"! ");
            rates_of(x, out);
        }
        Expr::And(a, b) => bin(b"-a", a, b, out),
        Expr::Or(a, b) => bin(b"-o", a, b, out),
        Expr::Comma(a, b) => bin(b",", a, b, out),
        Expr::Prim(p) => {
            out.extend_from_slice(&p.words.join(&b' '));
            let (n, ok) = debug::rate(&**p as *const _ as usize);
            let r = if n == 0 { 0.0 } else { ok as f64 / n as f64 };
            out.extend_from_slice(format!(" [real success rate {ok}/{n}={r:.2}]").as_bytes());
        }
    }
}
