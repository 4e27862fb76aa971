//! What dents's command-line tools (ls, find, du) share.
//!
//! | module   | concern |
//! |----------|---------|
//! | `output` | large per-thread buffers, written whole; SIGPIPE ends us quietly |
//! | `errors` | messages in the style of the tool replaced, and the exit status |
//! | `filemode` | mode strings (`drwxr-xr-x`) for ls and find |
//! | `numfmt` | decimal numbers written straight into output buffers |
//! | `dircolors` | `LS_COLORS`: one reader and one key set for ls and find, dircolors' escapes undone |
//! | `glob`   | `fnmatch` patterns in the locale (find's `-name`, du's `--exclude`) |
//! | `quote`  | names raw off a terminal, shell-escaped on one and in messages |
//! | `progress` | the status line on standard error while a walk runs |

#![warn(missing_docs)]

pub mod dircolors;
pub mod errors;
pub mod filemode;
pub mod glob;
pub mod numfmt;
pub mod output;
pub mod progress;
pub mod quote;
