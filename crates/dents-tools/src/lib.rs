//! What dents's command-line tools (ls, find, du) share.
//!
//! # Modules, in layers
//!
//! A module uses only modules of lower layers (`tests/layers.rs` checks
//! this table against the source), so there is no import circle:
//!
//! | layer | module | concern |
//! |---|----------|---------|
//! | 0 | `quote`  | names raw off a terminal, shell-escaped on one and in messages |
//! | 0 | `progress` | the status line on standard error while a walk runs; stderr written off its row |
//! | 0 | `filemode` | mode strings (`drwxr-xr-x`) for ls and find |
//! | 0 | `numfmt` | decimal numbers written straight into output buffers |
//! | 0 | `dircolors` | `LS_COLORS`: one reader and one key set for ls and find, dircolors' escapes undone |
//! | 0 | `glob`   | `fnmatch` patterns in the locale (find's `-name`, du's `--exclude`) |
//! | 1 | `output` | large per-thread buffers, written whole; SIGPIPE ends us quietly; a failed write said at the end |
//! | 2 | `errors` | messages in the style of the tool replaced, and each command's exit status (its messages flush its output first) |
//! | 2 | `texts`  | `--help` and `--version` written whole, or `write error` said and the tool's status returned |

#![warn(missing_docs)]

pub mod dircolors;
pub mod errors;
pub mod filemode;
pub mod glob;
pub mod numfmt;
pub mod output;
pub mod progress;
pub mod quote;
pub mod texts;
