//! `dents ls` command-line options, with ls's letters and meanings.
//!
//! Where options conflict (`-t` then `-S`, `-l` then `-1`), the one given
//! last wins, as in GNU ls: clap gives each match its position, and the
//! positions are compared.

use std::ffi::OsString;
use std::os::fd::AsFd;

use clap::{Arg, ArgAction, ArgMatches, Command};

use super::quoting::quote_word;
use super::timefmt::TimeStyle;

/// How entries are ordered.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SortKey {
    /// As the directory hands them out (the default off a terminal:
    /// streamed).
    None,
    /// By name, in the locale's collation (the default on a terminal).
    Name,
    /// By modification time, newest first, then by name.
    Time,
    /// By size, largest first, then by name.
    Size,
    /// By version (`-v`): GNU's `filevercmp`, then bytes.
    Version,
    /// By extension (`-X`), then by name.
    Extension,
    /// By the width of the name on the screen, then by name.
    Width,
}

/// How a listing is laid out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// One per line (`-1`; the default off a terminal).
    OnePerLine,
    /// Columns, down then across (`-C`; the default on a terminal).
    Vertical,
    /// Columns, across then down (`-x`).
    Horizontal,
    /// Separated by commas (`-m`).
    Commas,
    /// The long format (`-l`).
    Long,
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
    /// The layout.
    pub format: Format,
    /// The line width for columns (0: no limit).
    pub width: usize,
    /// Tab stops for the padding of columns (0: spaces only).
    pub tabsize: usize,
    /// Paint names from `LS_COLORS` (`--color`).
    pub color: bool,
    /// How names are quoted.
    pub quoting: super::quoting::Style,
    /// Unprintable characters as `?` (`-q`) where the style leaves them.
    pub qmark: bool,
    /// List subdirectories recursively (`-R`).
    pub recursive: bool,
    /// Directories before other files (`--group-directories-first`).
    pub dirs_first: bool,
}

/// A usage error, in GNU ls's words, and its exit status.
#[derive(Debug)]
pub struct Usage {
    /// The message, without the program's name.
    pub text: String,
    /// Whether "Try 'ls --help'" follows.
    pub try_help: bool,
    /// The exit status.
    pub status: i32,
}

impl Usage {
    fn new(text: String, try_help: bool, status: i32) -> Usage {
        Usage {
            text,
            try_help,
            status,
        }
    }
}

/// The words of an option taking one, grouped by meaning as GNU lists
/// them.
type Words = &'static [&'static [&'static str]];

const SORT_WORDS: Words = &[
    &["none"],
    &["time"],
    &["size"],
    &["extension"],
    &["version"],
    &["width"],
];
const FORMAT_WORDS: Words = &[
    &["verbose", "long"],
    &["commas"],
    &["horizontal", "across"],
    &["vertical"],
    &["single-column"],
];
const WHEN_WORDS: Words = &[
    &["always", "yes", "force"],
    &["never", "no", "none"],
    &["auto", "tty", "if-tty"],
];
const INDICATOR_WORDS: Words = &[&["none"], &["slash"], &["file-type"], &["classify"]];
const QUOTING_WORDS: Words = &[
    &["literal"],
    &["shell"],
    &["shell-always"],
    &["shell-escape"],
    &["shell-escape-always"],
    &["c"],
    &["c-maybe"],
    &["escape"],
    &["locale"],
    &["clocale"],
];

/// GNU's `argmatch`: `word` exactly, or an abbreviation of words that
/// all mean the same; the first word of the group that matched.
fn argmatch(option: &str, word: &str, words: Words) -> Result<&'static str, Usage> {
    if let Some(g) = words.iter().find(|g| g.contains(&word)) {
        return Ok(g[0]);
    }
    let groups: Vec<&[&str]> = words
        .iter()
        .copied()
        .filter(|g| g.iter().any(|w| w.starts_with(word)))
        .collect();
    let problem = match groups.len() {
        1 if !word.is_empty() => return Ok(groups[0][0]),
        0 => "invalid",
        _ => "ambiguous",
    };
    let mut text = format!(
        "{problem} argument {} for {}\nValid arguments are:",
        quote_word(word),
        quote_word(option)
    );
    for g in words {
        let list: Vec<String> = g.iter().map(|w| quote_word(w)).collect();
        text.push_str(&format!("\n  - {}", list.join(", ")));
    }
    Err(Usage::new(text, true, 1))
}

/// The `dents ls` command's definition.
pub fn command() -> Command {
    let flag = |id: &'static str| Arg::new(id).action(ArgAction::SetTrue);
    Command::new("ls")
        .infer_long_args(true)
        .args_override_self(true)
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
            flag("version")
                .long("version")
                .help("Print version information"),
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
                // As getopt: the next argument is the value, dash or not.
                .allow_hyphen_values(true)
                .long("indicator-style")
                .value_name("WORD")
                .help(
                    "Append indicators of style WORD: none, slash (-p), file-type, classify (-F)",
                ),
        )
        .arg(flag("columns").short('C').help("List entries by columns"))
        .arg(flag("across").short('x').help("List entries by lines instead of by columns"))
        .arg(flag("commas").short('m').help("Fill width with a comma separated list"))
        .arg(
            Arg::new("format")
                .allow_hyphen_values(true)
                .long("format")
                .value_name("WORD")
                .help("across -x, commas -m, horizontal -x, long -l, single-column -1, verbose -l, vertical -C"),
        )
        .arg(
            Arg::new("width")
                .allow_hyphen_values(true)
                .short('w')
                .long("width")
                .value_name("COLS")
                .help("Set output width to COLS; 0 means no limit"),
        )
        .arg(
            Arg::new("tabsize")
                .allow_hyphen_values(true)
                .short('T')
                .long("tabsize")
                .value_name("COLS")
                .help("Assume tab stops at each COLS instead of 8"),
        )
        .arg(
            Arg::new("color")
                .long("color")
                .alias("colour")
                .num_args(0..=1)
                .require_equals(true)
                .value_name("WHEN")
                .default_missing_value("always")
                .help("Color the names from LS_COLORS: always, auto, never (the default)"),
        )
        .arg(flag("literal").short('N').long("literal").help("Print entry names without quoting"))
        .arg(flag("escape").short('b').long("escape").help("Print C-style escapes for nongraphic characters"))
        .arg(flag("quote-name").short('Q').long("quote-name").help("Enclose entry names in double quotes"))
        .arg(
            Arg::new("quoting-style")
                .allow_hyphen_values(true)
                .long("quoting-style")
                .value_name("WORD")
                .help("Quote names in style WORD: literal, locale, shell, shell-always, shell-escape, shell-escape-always, c, escape"),
        )
        .arg(flag("hide-control-chars").short('q').long("hide-control-chars").help("Print ? instead of nongraphic characters"))
        .arg(flag("show-control-chars").long("show-control-chars").help("Show nongraphic characters as-is"))
        .arg(flag("recursive").short('R').long("recursive").help("List subdirectories recursively"))
        .arg(flag("group-directories-first").long("group-directories-first").help("Group directories before files"))
        .arg(flag("version-sort").short('v').help("Natural sort of (version) numbers within text"))
        .arg(flag("extension-sort").short('X').help("Sort alphabetically by entry extension"))
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
                .allow_hyphen_values(true)
                .long("sort")
                .value_name("WORD")
                .help("Sort by WORD: none (-U), name, time (-t), size (-S), extension (-X), version (-v), width"),
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
                .allow_hyphen_values(true)
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
                .allow_hyphen_values(true)
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

/// GNU's reading of a number for `-w` and `-T` (`xstrtoumax`, base 0);
/// too large is "no limit" (0) for `-w`.
fn parse_count(s: &str) -> Option<u64> {
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    Some(u64::from_str_radix(digits, radix).unwrap_or(u64::MAX))
}

/// Turns parsed arguments into options, or a usage error.  `terminal`:
/// standard output is a terminal (GNU's defaults for people).
pub fn options(m: &ArgMatches, terminal: bool) -> Result<LsOptions, Usage> {
    let given = |id: &str| last_index(m, id);
    let word = |id: &str| m.get_one::<String>(id).map(String::as_str);

    let hidden = match (given("all").or(given("f")), given("almost-all")) {
        (Some(a), Some(aa)) if aa > a => Hidden::AlmostAll,
        (Some(_), _) => Hidden::All,
        (None, Some(_)) => Hidden::AlmostAll,
        (None, None) => Hidden::Hide,
    };

    let sort_word = match word("sort") {
        // `name`: dents's word for GNU's default order (GNU 9.1 has none).
        Some("name") => Some(SortKey::Name),
        Some(w) => Some(match argmatch("--sort", w, SORT_WORDS)? {
            "none" => SortKey::None,
            "time" => SortKey::Time,
            "size" => SortKey::Size,
            "extension" => SortKey::Extension,
            "version" => SortKey::Version,
            _ => SortKey::Width,
        }),
        None => None,
    };
    let sort_choices = [
        (given("unsorted").max(given("f")), SortKey::None),
        (given("time"), SortKey::Time),
        (given("size"), SortKey::Size),
        (given("version-sort"), SortKey::Version),
        (given("extension-sort"), SortKey::Extension),
        (given("sort"), sort_word.unwrap_or(SortKey::None)),
    ];
    // GNU sorts by name unless told otherwise; dents only on a terminal
    // (off one, the listing streams as read).
    let default_sort = if terminal {
        SortKey::Name
    } else {
        SortKey::None
    };
    let sort = sort_choices
        .iter()
        .filter_map(|&(i, k)| i.map(|i| (i, k)))
        .max_by_key(|&(i, _)| i)
        .map_or(default_sort, |(_, k)| k);

    let format_word = match word("format") {
        Some(w) => Some(match argmatch("--format", w, FORMAT_WORDS)? {
            "verbose" => Format::Long,
            "commas" => Format::Commas,
            "horizontal" => Format::Horizontal,
            "vertical" => Format::Vertical,
            _ => Format::OnePerLine,
        }),
        None => None,
    };
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
    // The options applied in their order, as GNU's; the last of each
    // kind is enough: what -1 and -f do depends only on the format the
    // options before them left, which the last of the others decides.
    enum Step {
        Set(Format),
        /// -1: no effect after -l (`--format=single-column` has one).
        One,
        /// -f: undoes an -l given before it.
        F,
    }
    let mut steps: Vec<(usize, Step)> = [
        (long_at, Step::Set(Format::Long)),
        (given("one"), Step::One),
        (given("columns"), Step::Set(Format::Vertical)),
        (given("across"), Step::Set(Format::Horizontal)),
        (given("commas"), Step::Set(Format::Commas)),
        (
            given("format"),
            Step::Set(format_word.unwrap_or(Format::OnePerLine)),
        ),
        (given("f"), Step::F),
    ]
    .into_iter()
    .filter_map(|(i, k)| i.map(|i| (i, k)))
    .collect();
    steps.sort_unstable_by_key(|&(i, _)| i);
    let mut format = None;
    for (_, step) in steps {
        let long = format == Some(Format::Long);
        format = match step {
            Step::Set(f) => Some(f),
            Step::One if long => format,
            Step::One => Some(Format::OnePerLine),
            Step::F if long => None,
            Step::F => format,
        };
    }
    let format = format.unwrap_or(if terminal {
        Format::Vertical
    } else {
        Format::OnePerLine
    });
    let long = format == Format::Long;

    let when = |id: &str, opt: &str| -> Result<Option<bool>, Usage> {
        match word(id) {
            None => Ok(None),
            Some(w) => Ok(Some(match argmatch(opt, w, WHEN_WORDS)? {
                "always" => true,
                "never" => false,
                _ => terminal,
            })),
        }
    };
    let classify = when("classify", "--classify")?.unwrap_or(false);
    let mut color = when("color", "--color")?.unwrap_or(false);
    if given("f").is_some_and(|f| given("color").map_or(true, |c| c < f)) {
        color = false;
    }
    let style_word = match word("indicator-style") {
        Some(w) => Some(match argmatch("--indicator-style", w, INDICATOR_WORDS)? {
            "slash" => Indicator::Slash,
            "file-type" => Indicator::FileType,
            "classify" => Indicator::Classify,
            _ => Indicator::None,
        }),
        None => None,
    };
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

    use super::quoting::Style;
    let quoting_word = match word("quoting-style") {
        Some(w) => Some(
            Style::from_word(argmatch("--quoting-style", w, QUOTING_WORDS)?)
                .expect("listed words are styles"),
        ),
        None => None,
    };
    let quoting = [
        (given("literal"), Style::Literal),
        (given("escape"), Style::Escape),
        (given("quote-name"), Style::C),
        (
            given("quoting-style"),
            quoting_word.unwrap_or(Style::Literal),
        ),
    ]
    .into_iter()
    .filter_map(|(i, k)| i.map(|i| (i, k)))
    .max_by_key(|&(i, _)| i)
    .map(|(_, k)| k);
    let quoting = quoting
        .or_else(|| {
            let v = std::env::var("QUOTING_STYLE").ok()?;
            let s = QUOTING_WORDS
                .iter()
                .find(|g| g[0] == v)
                .and_then(|g| Style::from_word(g[0]));
            if s.is_none() {
                crate::errors::write_stderr(
                    format!(
                        "dents: ignoring invalid value of environment variable QUOTING_STYLE: {}\n",
                        quote_word(&v)
                    )
                    .as_bytes(),
                );
            }
            s
        })
        .unwrap_or(if terminal {
            Style::ShellEscape
        } else {
            Style::Literal
        });
    let qmark = match (given("hide-control-chars"), given("show-control-chars")) {
        (Some(h), Some(s)) => h > s,
        (Some(_), None) => true,
        (None, Some(_)) => false,
        (None, None) => terminal,
    };

    let columns = matches!(
        format,
        Format::Vertical | Format::Horizontal | Format::Commas
    );
    let width = match word("width") {
        Some(w) => match parse_count(w) {
            Some(n) => n.min(i64::MAX as u64) as usize,
            None => {
                return Err(Usage::new(
                    format!("invalid line width: {}", quote_word(w)),
                    false,
                    2,
                ))
            }
        },
        None if columns || color => {
            let tty = terminal
                .then(|| dents_os::terminal_width(std::io::stdout().as_fd()))
                .flatten()
                .filter(|&w| w > 0);
            match tty {
                Some(w) => w,
                None => match std::env::var("COLUMNS") {
                    Ok(v) if !v.is_empty() => match parse_count(&v) {
                        Some(n) => n.min(i64::MAX as u64) as usize,
                        None => {
                            crate::errors::write_stderr(
                                format!(
                                    "dents: ignoring invalid width in environment variable COLUMNS: {}\n",
                                    quote_word(&v)
                                )
                                .as_bytes(),
                            );
                            80
                        }
                    },
                    _ => 80,
                },
            }
        }
        None => 80,
    };
    let mut tabsize = 8;
    if let Some(t) = word("tabsize") {
        match parse_count(t) {
            Some(n) => tabsize = n.min(i64::MAX as u64) as usize,
            None => {
                return Err(Usage::new(
                    format!("invalid tab size: {}", quote_word(t)),
                    false,
                    2,
                ))
            }
        }
    } else if let Ok(v) = std::env::var("TABSIZE") {
        match parse_count(&v) {
            Some(n) => tabsize = n.min(i64::MAX as u64) as usize,
            None => crate::errors::write_stderr(
                format!(
                    "dents: ignoring invalid tab size in environment variable TABSIZE: {}\n",
                    quote_word(&v)
                )
                .as_bytes(),
            ),
        }
    }
    if color {
        // GNU: no tabs with colors (some terminals mishandle the pair).
        tabsize = 0;
    }

    // The last of --full-time and --time-style wins; TIME_STYLE without
    // either.  GNU reads the style (and rejects a bad one) only for the
    // long format.
    let style_arg = match (given("full-time"), given("time-style")) {
        (Some(f), Some(t)) if t > f => word("time-style").map(str::to_string),
        (Some(_), _) => Some("full-iso".to_string()),
        (None, Some(_)) => word("time-style").map(str::to_string),
        (None, None) => std::env::var("TIME_STYLE").ok(),
    };
    let time_style = if long {
        TimeStyle::parse(style_arg.as_deref()).map_err(|t| Usage::new(t, true, 2))?
    } else {
        TimeStyle::parse(None).expect("the default style")
    };

    let threads = m.get_one::<usize>("threads").copied();
    if threads == Some(0) {
        return Err(Usage::new("invalid thread count: '0'".into(), true, 2));
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
        format,
        width,
        tabsize,
        color,
        quoting,
        qmark,
        recursive: m.get_flag("recursive"),
        dirs_first: m.get_flag("group-directories-first"),
    })
}

/// A clap error in GNU ls's words.
pub fn clap_usage(e: &clap::Error) -> Usage {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let arg = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.clone(),
        _ => String::new(),
    };
    // "--sort <WORD>" -> "--sort"; "-w <COLS>" -> "-w".
    let opt = arg.split([' ', '=']).next().unwrap_or("").to_string();
    let text = match e.kind() {
        ErrorKind::UnknownArgument => {
            if let Some(short) = opt.strip_prefix('-').filter(|o| !o.starts_with('-')) {
                format!(
                    "invalid option -- '{}'",
                    short.chars().next().unwrap_or('?')
                )
            } else {
                format!("unrecognized option '{opt}'")
            }
        }
        ErrorKind::InvalidValue | ErrorKind::NoEquals if opt.starts_with("--") => {
            format!("option '{opt}' requires an argument")
        }
        ErrorKind::InvalidValue | ErrorKind::NoEquals => format!(
            "option requires an argument -- '{}'",
            opt.trim_start_matches('-')
        ),
        _ => {
            let s = e.to_string();
            s.lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("error: ")
                .to_string()
        }
    };
    Usage::new(text, true, 2)
}
