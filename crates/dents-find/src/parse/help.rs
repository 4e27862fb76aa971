//! `--help` and `-version`: the texts, and writing them as GNU does.

/// The usage text of `--help`.
pub(super) const HELP: &str = "\
Usage: dents find [-H] [-L] [-P] [-Olevel] [-D debugopts] [-j N] [-S bfs|dfs] [path...] [expression]
  or:  dents find --from SNAPSHOT [-H] [-L] [-P] [path...] [expression]

Default path is the current directory; default expression is -print.
Expression may consist of: operators, options, tests, and actions.

Operators (decreasing precedence; -and is implicit where no others are given):
      ( EXPR )   ! EXPR   -not EXPR   EXPR1 -a EXPR2   EXPR1 -and EXPR2
      EXPR1 -o EXPR2   EXPR1 -or EXPR2   EXPR1 , EXPR2

Positional options (always true):
      -daystart -follow -nowarn -regextype -warn

Normal options (always true, specified before other expressions):
      -depth -ignore_readdir_race -maxdepth LEVELS -mindepth LEVELS -mount
      -noignore_readdir_race -noleaf -xdev -files0-from FILE

Tests (N can be +N or -N or N):
      -amin N -anewer FILE -atime N -cmin N -cnewer FILE -ctime N -empty -false
      -gid N -group NAME -ilname PATTERN -iname PATTERN -inum N -ipath PATTERN
      -iregex PATTERN -iwholename PATTERN -links N -lname PATTERN -mmin N
      -mtime N -name PATTERN -newer FILE -newerXY REFERENCE -nogroup -nouser
      -path PATTERN -perm [-/]MODE -regex PATTERN -readable -writable
      -executable -wholename PATTERN -size N[bcwkMG] -true -type [bcdpfls]
      -uid N -used N -user NAME -xtype [bcdpfls] -samefile FILE -fstype TYPE
      -context CONTEXT (refused, as GNU find refuses it without SELinux)

Actions:
      -delete -print0 -print -prune -quit -exec COMMAND ; -exec COMMAND {} +
      -ok COMMAND ; -execdir COMMAND ; -execdir COMMAND {} + -okdir COMMAND ;
      -printf FORMAT -fprintf FILE FORMAT -ls -fls FILE -fprint FILE -fprint0 FILE

dents extensions: -j N (threads), -S bfs|dfs (breadth or depth first;
      default: every entry to depth 3 first, then depth first).
      --from SNAPSHOT (first): the entries SNAPSHOT stored ('dents scan'),
      not the live tree; paths default to its roots
bfs's: -s (sorted walk) -exclude EXPR -hidden -nohidden -limit N
      -color -nocolor -status -nostatus

Other common options:
      --help                   display this help and exit
      --version                output version information and exit

Valid arguments for -D:
exec, opt, rates, search, stat, time, tree, all, help
Use '-D help' for a description of the options, or see find(1)
";

/// The `-version` text, in GNU's shape.
pub(super) fn version_text(opt_level: u8) -> String {
    format!(
        "find (dents) {}
License: MIT OR Apache-2.0.
This is free software: you are free to change and redistribute it.
There is NO WARRANTY, to the extent permitted by law.

Written by the dents developers.
Features enabled: D_TYPE O_NOFOLLOW(enabled) LEAF_OPTIMISATION CBO(level={}) PARALLEL(threads={})
",
        env!("CARGO_PKG_VERSION"),
        opt_level,
        dents::walk::default_threads()
    )
}

/// Writes a help or version text; returns the exit status: 1 and GNU's
/// message if it could not be written.
pub(super) fn print_text(text: &str) -> i32 {
    let mut prefix = Vec::new();
    crate::ctx::with(|c| c.prefix(&mut prefix, false));
    let status = dents_tools::texts::print_text(text, &prefix, crate::msg::FAILURE);
    // What `msg::error` does beside saying it: the command's status.
    crate::msg::raise(status);
    status
}
