//! Which symbolic links a walk follows: POSIX's three choices (find's
//! `-P`, `-H`, `-L`), for every form of walk and the tools.

/// Which symbolic links are followed (find's `-P`, `-H`, `-L`).
///
/// Not `#[non_exhaustive]`: the three are the whole of POSIX's choice
/// (a link is followed nowhere, at the starting points, or everywhere),
/// and a caller must match them exhaustively to be right (du's sizes,
/// a snapshot's refusal of a walk it cannot answer for).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Follow {
    /// Never (`-P`, the default).
    Never,
    /// Only the roots given (`-H`).
    Roots,
    /// Always (`-L`): links to directories are walked; loops are reported.
    Always,
}

impl From<bool> for Follow {
    /// walkdir's `follow_links(bool)`: `true` follows every link
    /// ([`Follow::Always`]), `false` none ([`Follow::Never`]).
    fn from(always: bool) -> Follow {
        if always {
            Follow::Always
        } else {
            Follow::Never
        }
    }
}
