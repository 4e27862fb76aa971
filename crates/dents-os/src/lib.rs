//! dents-os: what the dents tools (`ls`, `find`, `du`) need from the
//! operating system beyond reading directories.
//!
//! The directory library, `dents`, needs none of this; it lives here so
//! that the library's API stays about directories, and so that the
//! command-line tools' C-library glue has one home.
//!
//! # Module map
//!
//! Each module uses only modules of lower layers (`tests/layers.rs`).
//!
//! | layer | module      | concern |
//! |---|-------------|---------|
//! | 2 | `terminal`  | whether a descriptor is a terminal, its width |
//! | 2 | `signals`   | SIGPIPE's default action, a pipe's reader gone, erasing a status line on a fatal signal, standard descriptors closed at start |
//! | 2 | `locale`    | adopting the user's locale; collation, UTF-8, printable characters and widths, numbers' conventions |
//! | 2 | `catalog`   | a text's translation in an installed gettext catalog (ls's date formats) |
//! | 2 | `users`     | user and group names and ids (NSS) |
//! | 2 | `time`      | the clock, [`LocalTime`], `strftime` (and gnulib's extensions), the time zone |
//! | 2 | `xattr`     | the ACL marker of `ls -l`, SELinux contexts |
//! | 2 | `net`       | Nagle off on the MPI launcher's loopback connection (dents-mpi) |
//! | 2 | `process`   | `ARG_MAX`, `RLIMIT_AS`, `RLIMIT_NOFILE` raised, malloc arenas, a child started in a held directory |
//! | 1 | `sys`       | the only `unsafe` code, each block with a `SAFETY:` comment (the allocator's `GlobalAlloc` among it) |
//! | 0 | `alloc`     | [`ExitOnExhaustion`], the allocator that ends with GNU's message, and its exit status |
//!
//! Everything is re-exported at the crate root (`dents_os::user_name`).
//!
//! # Thread safety
//!
//! [`use_environment_locale`], [`use_time_locale`], [`tzset`] and
//! [`limit_malloc_arenas`] are `unsafe fn`s: the C library's `setlocale`,
//! `tzset` and `mallopt` are sound only while the process has one thread.
//! Call them first thing in `main`.  [`with_time_zone`] changes `TZ` safely
//! by checking that the process has one thread.

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod alloc;
mod catalog;
mod locale;
mod net;
mod process;
mod signals;
#[allow(unsafe_code)]
mod sys;
mod terminal;
mod time;
mod users;
mod xattr;

pub use alloc::{set_exhausted_status, ExitOnExhaustion};
pub use catalog::time_translation;
pub use locale::{
    abbreviated_months, collation_is_bytewise, locale_is_utf8, numeric_conventions, strcoll,
    time_locale_is_c, use_environment_locale, use_time_locale, wide_char_info, NumericConventions,
};
pub use net::no_delay_on_loopback_tcp;
pub use process::{
    address_space_limit, arg_max, chdir_in_child, limit_malloc_arenas, raise_descriptor_limit,
    trim_malloc,
};
pub use signals::{
    clear_line_on_fatal_signals, closed_at_start, default_sigpipe, end_if_reader_gone,
    end_when_reader_gone,
};
pub use terminal::{is_terminal, terminal_width};
pub use time::{
    format_uses_nanos, local_time, now, strftime, strftime_gnu, tzset, with_time_zone, LocalTime,
};
pub use users::{group_id, group_name, user_id, user_name};
pub use xattr::{acl_marker_at, security_context_at};
