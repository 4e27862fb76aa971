//! `dents ls` command-line options, with ls's letters and meanings.
//!
//! Where options conflict (`-t` then `-S`, `-l` then `-1`), the one given
//! last wins, as in GNU ls: clap gives each match its position, and the
//! positions are compared.

use std::ffi::OsString;
use std::os::fd::AsFd;

use clap::{Arg, ArgAction, ArgMatches, Command};

use super::timefmt::TimeStyle;

/// How entries are ordered.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SortKey {
    /// As the directory hands them out (the default: streamed).
    None,
    /// By name, byte order.
    Name,
    /// By modification time, newest first, then by name.
    Time,
    /// By size, largest first, then by name.
    Size,
}

/// Which entries are shown.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Hidden {
    /// Names starting with `.` are hidden (the default).
    Hide,
    /// Everything but `.` and `..` (`-A`).
    AlmostAll,
    /// Everything, `.` and `..` included (`-a`).
    All,
}

/// The suffix that tells the type (`-p`, `--file-type`, `-F`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Indicator {
    /// No suffix.
    None,
    /// `/` after directories only (`-p`): needs only "directory or not",
    /// which the link count often answers without a stat.
    Slash,
    /// `/`, `@`, `|`, `=` (`--file-type`): known from `d_type` alone.
    FileType,
    /// The same plus `*` for executables (`-F`): needs the mode.
    Classify,
}

/// Everything `dents ls` was asked to do.
#[derive(Clone, Debug)]
pub struct LsOptions {
    /// Directories (and files) to list; `.` when none.
    pub paths: Vec<OsString>,
    /// Which entries to show.
    pub hidden: Hidden,
    /// Print the inode number first (`-i`).
    pub inode: bool,
    /// The type suffix.
    pub indicator: Indicator,
    /// End names with NUL instead of newline (`-0`).
    pub zero: bool,
    /// Print only the number of entries (`--count`).
    pub count: bool,
    /// The order.
    pub sort: SortKey,
    /// Reverse the order (`-r`).
    pub reverse: bool,
    /// The long format (`-l`).
    pub long: bool,
    /// In the long format, show the owner.
    pub show_owner: bool,
    /// In the long format, show the group.
    pub show_group: bool,
    /// Numeric user and group ids (`-n`).
    pub numeric_ids: bool,
    /// Sizes like 1.5K (`-h`).
    pub human: bool,
    /// How times are written in the long format.
    pub time_style: TimeStyle,
    /// List directories themselves, not their contents (`-d`).
    pub directory: bool,
    /// Threads for reading one directory and for its stats.
    pub threads: Option<usize>,
    /// Print how each directory was read on stderr (`--debug`).
    pub debug: bool,
    /// Treat every `d_type` as unknown (hidden `--ignore-dtype`, for tests
    /// of the no-type paths on any filesystem).
    pub ignore_dtype: bool,
}

/// The `dents ls` command's definition.
pub fn command() -> Command {
    let flag = |id: &'static str| Arg::new(id).action(ArgAction::SetTrue);
    Command::new("ls")
        .about("List huge directories as fast as the kernel hands them out")
        .long_about(
            "List directory contents, unsorted and streamed as read unless a sort is \
             asked for. Huge directories on ext4 and XFS are read by several threads at \
             once. Options have GNU ls's meaning.",
        )
        .disable_help_flag(true)
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Print help"),
        )
        .arg(
            flag("all")
                .short('a')
                .long("all")
                .help("Show entries starting with ., and . and .."),
        )
        .arg(
            flag("almost-all")
                .short('A')
                .long("almost-all")
                .help("Show entries starting with ., but not . and .."),
        )
        .arg(flag("f").short('f').help("Same as -a -U"))
        .arg(
            flag("inode")
                .short('i')
                .long("inode")
                .help("Print each entry's inode number"),
        )
        .arg(
            Arg::new("classify")
                .short('F')
                .long("classify")
                .num_args(0..=1)
                .require_equals(true)
                .value_name("WHEN")
                .default_missing_value("always")
                .value_parser([
                    "always", "yes", "force", "auto", "tty", "if-tty", "never", "no", "none",
                ])
                .help("Append an indicator (one of */=@|) to entries"),
        )
        .arg(
            flag("file-type")
                .long("file-type")
                .help("Like -F, but without '*'"),
        )
        .arg(flag("slash").short('p').help("Append / to directories"))
        .arg(
            Arg::new("indicator-style")
                .long("indicator-style")
                .value_name("WORD")
                .value_parser(["none", "slash", "file-type", "classify"])
                .help(
                    "Append indicators of style WORD: none, slash (-p), file-type, classify (-F)",
                ),
        )
        .arg(flag("one").short('1').help("One entry per line"))
        .arg(
            flag("unsorted")
                .short('U')
                .help("Do not sort: directory order (the default)"),
        )
        .arg(
            flag("zero")
                .short('0')
                .long("zero")
                .help("End each entry with NUL, not newline"),
        )
        .arg(
            flag("count")
                .long("count")
                .help("Print only the number of entries"),
        )
        .arg(
            Arg::new("sort")
                .long("sort")
                .value_name("WORD")
                .value_parser(["none", "name", "time", "size"])
                .help("Sort by WORD: none (-U), name (byte order), time (-t), size (-S)"),
        )
        .arg(
            flag("time")
                .short('t')
                .help("Sort by modification time, newest first"),
        )
        .arg(flag("size").short('S').help("Sort by size, largest first"))
        .arg(
            flag("reverse")
                .short('r')
                .long("reverse")
                .help("Reverse the order"),
        )
        .arg(
            flag("long")
                .short('l')
                .help("Long listing format, as GNU ls -l"),
        )
        .arg(
            flag("no-owner")
                .short('g')
                .help("Like -l, without the owner"),
        )
        .arg(
            flag("no-group")
                .short('o')
                .help("Like -l, without the group"),
        )
        .arg(
            flag("numeric")
                .short('n')
                .long("numeric-uid-gid")
                .help("Like -l, with numeric user and group ids"),
        )
        .arg(
            flag("human")
                .short('h')
                .long("human-readable")
                .help("With -l, sizes like 1K 234M 2G"),
        )
        .arg(
            Arg::new("time-style")
                .long("time-style")
                .value_name("STYLE")
                .help("Time format with -l: full-iso, long-iso, iso, locale, +FORMAT"),
        )
        .arg(
            flag("full-time")
                .long("full-time")
                .help("Like -l --time-style=full-iso"),
        )
        .arg(
            flag("directory")
                .short('d')
                .long("directory")
                .help("List directories themselves, not their contents"),
        )
        .arg(
            Arg::new("threads")
                .short('j')
                .long("threads")
                .value_name("N")
                .value_parser(clap::value_parser!(usize))
                .help("Threads to read one directory and stat its entries"),
        )
        .arg(flag("debug").long("debug").hide(true))
        .arg(flag("ignore-dtype").long("ignore-dtype").hide(true))
        .arg(
            Arg::new("paths")
                .value_name("DIR")
                .num_args(0..)
                .value_parser(clap::value_parser!(OsString)),
        )
}

/// The position of the last occurrence of the flag `id`, if given.
fn last_index(m: &ArgMatches, id: &str) -> Option<usize> {
    if m.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
        return None;
    }
    m.indices_of(id).and_then(|i| i.max())
}

/// Turns parsed arguments into options, or a usage error message.
pub fn options(m: &ArgMatches) -> Result<LsOptions, String> {
    let given = |id: &str| last_index(m, id);

    let hidden = match (given("all").or(given("f")), given("almost-all")) {
        (Some(a), Some(aa)) if aa > a => Hidden::AlmostAll,
        (Some(_), _) => Hidden::All,
        (None, Some(_)) => Hidden::AlmostAll,
        (None, None) => Hidden::Hide,
    };

    let sort_choices = [
        (given("unsorted").max(given("f")), SortKey::None),
        (given("time"), SortKey::Time),
        (given("size"), SortKey::Size),
        (
            given("sort"),
            match m.get_one::<String>("sort").map(String::as_str) {
                Some("name") => SortKey::Name,
                Some("time") => SortKey::Time,
                Some("size") => SortKey::Size,
                _ => SortKey::None,
            },
        ),
    ];
    let sort = sort_choices
        .iter()
        .filter_map(|&(i, k)| i.map(|i| (i, k)))
        .max_by_key(|&(i, _)| i)
        .map_or(SortKey::None, |(_, k)| k);

    let long_at = [
        given("long"),
        given("no-owner"),
        given("no-group"),
        given("numeric"),
        given("full-time"),
    ]
    .into_iter()
    .flatten()
    .max();
    let long = match (long_at, given("one")) {
        (Some(l), Some(o)) => l > o,
        (Some(_), None) => true,
        _ => false,
    };

    let classify_when = m.get_one::<String>("classify").map(String::as_str);
    let classify = match classify_when {
        None | Some("never" | "no" | "none") => false,
        Some("auto" | "tty" | "if-tty") => dents::sys::is_terminal(std::io::stdout().as_fd()),
        Some(_) => true,
    };
    let style_word = m
        .get_one::<String>("indicator-style")
        .map(|w| match w.as_str() {
            "slash" => Indicator::Slash,
            "file-type" => Indicator::FileType,
            "classify" => Indicator::Classify,
            _ => Indicator::None,
        });
    let indicator = [
        (
            classify.then(|| given("classify")).flatten(),
            Indicator::Classify,
        ),
        (given("file-type"), Indicator::FileType),
        (given("slash"), Indicator::Slash),
        (
            given("indicator-style"),
            style_word.unwrap_or(Indicator::None),
        ),
    ]
    .into_iter()
    .filter_map(|(i, k)| i.map(|i| (i, k)))
    .max_by_key(|&(i, _)| i)
    .map_or(Indicator::None, |(_, k)| k);

    let style_arg = if m.get_flag("full-time") {
        Some("full-iso".to_string())
    } else {
        m.get_one::<String>("time-style")
            .cloned()
            .or_else(|| std::env::var("TIME_STYLE").ok())
    };
    let time_style = TimeStyle::parse(style_arg.as_deref())?;

    let threads = m.get_one::<usize>("threads").copied();
    if threads == Some(0) {
        return Err("invalid thread count: '0'".into());
    }

    Ok(LsOptions {
        paths: m
            .get_many::<OsString>("paths")
            .map(|v| v.cloned().collect())
            .unwrap_or_default(),
        hidden,
        inode: m.get_flag("inode"),
        indicator,
        zero: m.get_flag("zero"),
        count: m.get_flag("count"),
        sort,
        reverse: m.get_flag("reverse"),
        long,
        show_owner: !m.get_flag("no-owner"),
        show_group: !m.get_flag("no-group"),
        numeric_ids: m.get_flag("numeric"),
        human: m.get_flag("human"),
        time_style,
        directory: m.get_flag("directory"),
        threads,
        debug: m.get_flag("debug"),
        ignore_dtype: m.get_flag("ignore-dtype"),
    })
}
