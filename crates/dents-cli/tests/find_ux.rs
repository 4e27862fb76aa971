//! What a person at a terminal sees: colors (against GNU ls and by hand),
//! `-s` (against a sorted breadth-first reference), bfs's `-exclude`,
//! `-hidden`, `-nohidden`, `-limit` (against equivalent GNU find
//! expressions), and the status line (on a pseudo-terminal made by
//! `script`).

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use dents_testfs::cli::{entry_stat_calls, have_program};

const ESC: u8 = 0x1b;

fn dents_bin() -> &'static str {
    env!("CARGO_BIN_EXE_dents")
}

/// `dents find ARGS` in `cwd`, no terminal anywhere, no color variables
/// unless `env` sets them.
fn dents(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(dents_bin());
    c.arg("find")
        .args(args)
        .current_dir(cwd)
        .env("LC_ALL", "C")
        .env_remove("LS_COLORS")
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// GNU `find ARGS` in `cwd`.
fn gnu(cwd: &Path, args: &[&str]) -> Output {
    Command::new("find")
        .args(args)
        .current_dir(cwd)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn lines(b: &[u8]) -> Vec<Vec<u8>> {
    b.split(|&c| c == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

fn sorted_lines(b: &[u8]) -> Vec<Vec<u8>> {
    let mut v = lines(b);
    v.sort();
    v
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).replace('\x1b', "\\e")
}

fn tmp() -> tempfile::TempDir {
    let d = tempfile::Builder::new()
        .prefix("dents-ux-")
        .tempdir()
        .unwrap();
    fs::set_permissions(d.path(), fs::Permissions::from_mode(0o755)).unwrap();
    d
}

fn file(p: &Path, mode: u32) {
    fs::write(p, b"x").unwrap();
    fs::set_permissions(p, fs::Permissions::from_mode(mode)).unwrap();
}

fn dir(p: &Path, mode: u32) {
    fs::create_dir_all(p).unwrap();
    fs::set_permissions(p, fs::Permissions::from_mode(mode)).unwrap();
}

/// One file of every kind that has a color, by name.
fn kinds(root: &Path) -> Vec<String> {
    dir(&root.join("d"), 0o755);
    dir(&root.join("sticky"), 0o1755);
    dir(&root.join("ow"), 0o777);
    dir(&root.join("tw"), 0o1777);
    file(&root.join("f"), 0o644);
    file(&root.join("ex"), 0o755);
    file(&root.join("su"), 0o4755);
    file(&root.join("sg"), 0o2755);
    file(&root.join("x.tar.gz"), 0o644);
    file(&root.join("y.TAR.GZ"), 0o644);
    file(&root.join("README.md"), 0o644);
    file(&root.join("h1"), 0o644);
    fs::hard_link(root.join("h1"), root.join("h2")).unwrap();
    symlink("f", root.join("ln")).unwrap();
    symlink("d", root.join("ln-dir")).unwrap();
    symlink("ex", root.join("ln-ex")).unwrap();
    symlink("nowhere", root.join("broken")).unwrap();
    let _ = Command::new("mkfifo").arg(root.join("pipe")).status();
    drop(std::os::unix::net::UnixListener::bind(root.join("sock")).unwrap());
    // Devices need privileges; without them the test goes on without.
    let _ = Command::new("mknod")
        .arg(root.join("chr"))
        .args(["c", "1", "3"])
        .stderr(Stdio::null())
        .status();
    let _ = Command::new("mknod")
        .arg(root.join("blk"))
        .args(["b", "7", "200"])
        .stderr(Stdio::null())
        .status();
    let mut names: Vec<String> = fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// `LS_COLORS` values on which GNU ls (9.1 and later) and bfs agree: no
/// all-zero values (bfs, and dents, leave those plain where ls writes
/// `ESC[00m`), no `no`, no extension in two cases (ls 9.1 predates smart
/// case).
const SHARED_LS_COLORS: &[&str] = &[
    "",
    "di=01;35:ex=32:or=31;01:mh=44:*.gz=01;31:*.md=36",
    "rs=0:di=34:ln=target:*.tar.gz=33:su=41:sg=42:st=43:ow=44:tw=45:pi=46:so=47:bd=1:cd=2",
    "lc=\\e[:rc=m:ec=\\e[0m:di=01;34:*.md=\\x31;3\\0642:ex=^[[7m",
];

#[test]
fn colors_match_gnu_ls_name_by_name() {
    if !have_program("ls", "--version") {
        return dents_testfs::skip("no GNU ls");
    }
    let t = tmp();
    let names = kinds(t.path());
    let mut bad = Vec::new();
    let mut colored = 0;
    for lsc in SHARED_LS_COLORS {
        for n in &names {
            let mut ls = Command::new("ls");
            ls.args(["--color=always", "-d", n])
                .current_dir(t.path())
                .env("LS_COLORS", lsc);
            let mut want = ls.output().unwrap().stdout;
            // ls resets the terminal once before its first color.
            if want.starts_with(b"\x1b[0m") {
                want.drain(..4);
            }
            let got = dents(
                t.path(),
                &[n, "-maxdepth", "0", "-color"],
                &[("LS_COLORS", lsc)],
            )
            .stdout;
            colored += got.contains(&ESC) as usize;
            if got != want {
                bad.push(format!(
                    "LS_COLORS={lsc:?} {n}: ls {} dents {}",
                    show(&want),
                    show(&got)
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(
        colored > names.len() * 2,
        "too few colored names: {colored}"
    );
}

/// The hand-made tree of the painting tests, sorted as `-s` lists it.
fn paint_tree() -> tempfile::TempDir {
    let t = tmp();
    let r = t.path().join("t");
    dir(&r.join("sub"), 0o755);
    file(&r.join("sub/a.txt"), 0o644);
    file(&r.join("run"), 0o755);
    file(&r.join("plain"), 0o644);
    symlink("plain", r.join("l")).unwrap();
    symlink("nowhere", r.join("b")).unwrap();
    for n in ["x.gz", "y.GZ", "z.Gz", "w.MD"] {
        file(&r.join(n), 0o644);
    }
    t
}

#[test]
fn paths_are_painted_in_two_spans() {
    let t = paint_tree();
    let lsc = "di=01;34:ex=01;32:*.txt=35:ln=01;36:or=31:*.gz=31:*.GZ=32:*.md=36";
    let out = dents(t.path(), &["t", "-s", "-color"], &[("LS_COLORS", lsc)]);
    let d = "\x1b[01;34mt/\x1b[0m";
    let want = [
        "\x1b[01;34mt\x1b[0m".to_string(),
        format!("{d}\x1b[31mb\x1b[0m"),
        format!("{d}\x1b[01;36ml\x1b[0m"),
        format!("{d}plain"),
        format!("{d}\x1b[01;32mrun\x1b[0m"),
        // The whole path in one span: the name's color is di itself.
        "\x1b[01;34mt/sub\x1b[0m".to_string(),
        // Smart case: .MD has one color in any case; .gz and .GZ two.
        format!("{d}\x1b[36mw.MD\x1b[0m"),
        format!("{d}\x1b[31mx.gz\x1b[0m"),
        format!("{d}\x1b[32my.GZ\x1b[0m"),
        format!("{d}z.Gz"),
        "\x1b[01;34mt/sub/\x1b[0m\x1b[35ma.txt\x1b[0m".to_string(),
    ]
    .join("\n")
        + "\n";
    assert_eq!(show(&out.stdout), show(want.as_bytes()));
}

#[test]
fn printf_paints_paths_and_names_as_print_does() {
    let t = paint_tree();
    let lsc = "di=01;34:ex=01;32:*.txt=35:ln=01;36:or=31:*.gz=31:*.GZ=32:*.md=36";
    let env = [("LS_COLORS", lsc)];
    let run = |args: &[&str]| dents(t.path(), args, &env).stdout;
    // %p is -print's colored path, byte for byte.
    let print = run(&["t", "-s", "-color"]);
    assert!(print.contains(&0x1b), "{}", show(&print));
    assert_eq!(
        show(&run(&["t", "-s", "-color", "-printf", "%p\\n"])),
        show(&print)
    );
    // %f: the name alone in its color; %h and %H in the directory color;
    // %P: the path below the starting point, painted as %p paints it.
    let got = run(&[
        "t/sub",
        "-color",
        "-name",
        "a.txt",
        "-printf",
        "%f|%h|%H|%P\\n",
    ]);
    let want = "\x1b[35ma.txt\x1b[0m|\x1b[01;34mt/sub\x1b[0m|\x1b[01;34mt/sub\x1b[0m|\x1b[35ma.txt\x1b[0m\n";
    assert_eq!(show(&got), show(want.as_bytes()));
    // A padded field stays plain (escapes would count towards its width),
    // and so does everything without -color off a terminal.
    assert_eq!(
        show(&run(&[
            "t/sub", "-color", "-name", "a.txt", "-printf", "[%8f]\\n"
        ])),
        "[   a.txt]\n"
    );
    assert_eq!(
        show(&run(&["t/sub", "-name", "a.txt", "-printf", "%p\\n"])),
        "t/sub/a.txt\n"
    );
    // -fprintf to a file is never painted.
    run(&[
        "t/sub", "-color", "-name", "a.txt", "-fprintf", "out", "%p\\n",
    ]);
    assert_eq!(fs::read(t.path().join("out")).unwrap(), b"t/sub/a.txt\n");
}

#[test]
fn left_right_end_reset_and_normal_codes() {
    let t = paint_tree();
    // No ec: the end is lc rs rc.  fi is empty by default, so plain files
    // take no; ex=00 means no color of its own (falls back to fi).
    let out = dents(
        t.path(),
        &["t", "-maxdepth", "1", "-s", "-color", "-name", "[prt]*"],
        &[("LS_COLORS", "lc=<:rc=>:rs=R:di=D:no=N:ex=00")],
    );
    assert_eq!(
        show(&out.stdout),
        "<D>t<R>\n<D>t/<R><N>plain<R>\n<D>t/<R><N>run<R>\n"
    );
    // ec given: used as is; rs then unused.
    let out = dents(
        t.path(),
        &["t", "-maxdepth", "0", "-color"],
        &[("LS_COLORS", "lc=<:rc=>:rs=R:ec=E:di=D")],
    );
    assert_eq!(show(&out.stdout), "<D>tE\n");
    // Without LS_COLORS: GNU's defaults.
    let out = dents(
        t.path(),
        &["t/run", "t/sub", "-maxdepth", "0", "-color"],
        &[],
    );
    assert_eq!(
        show(&out.stdout),
        show(b"\x1b[01;34mt/\x1b[0m\x1b[01;32mrun\x1b[0m\n\x1b[01;34mt/sub\x1b[0m\n")
    );
}

#[test]
fn colors_only_where_asked_off_a_terminal() {
    let t = paint_tree();
    let lsc = [("LS_COLORS", "di=01;34")];
    let plain = dents(t.path(), &["t"], &lsc);
    assert!(!plain.stdout.is_empty() && !plain.stdout.contains(&ESC));
    let forced = dents(t.path(), &["t", "-color"], &lsc);
    assert!(forced.stdout.contains(&ESC));
    // -color wins over NO_COLOR; the last of -color/-nocolor counts.
    let forced = dents(t.path(), &["t", "-color"], &[lsc[0], ("NO_COLOR", "1")]);
    assert!(forced.stdout.contains(&ESC));
    let off = dents(t.path(), &["t", "-color", "-nocolor"], &lsc);
    assert!(!off.stdout.contains(&ESC));
    assert_eq!(sorted_lines(&off.stdout), sorted_lines(&plain.stdout));
    // -print0 is never painted.
    let zero = dents(t.path(), &["t", "-color", "-print0"], &lsc);
    assert!(!zero.stdout.contains(&ESC));
    // Messages stay plain off a terminal.
    let err = dents(t.path(), &["t/nothing"], &lsc);
    assert_eq!(
        String::from_utf8_lossy(&err.stderr),
        "dents: 't/nothing': No such file or directory\n"
    );
}

/// Runs `sh -c SCRIPT` on a pseudo-terminal (util-linux `script`) in
/// `cwd`; returns what reached the terminal.  `None` if `script` is
/// missing.
fn on_pty(cwd: &Path, script: &str, env: &[(&str, &str)]) -> Option<Vec<u8>> {
    if !have_program("script", "--version") {
        dents_testfs::skip("util-linux script is not installed");
        return None;
    }
    let log = cwd.join("typescript");
    let mut c = Command::new("script");
    c.args(["-q", "-e", "-c", script])
        .arg(&log)
        .current_dir(cwd)
        .env("DENTS", dents_bin())
        .env("TERM", "xterm")
        .env("LC_ALL", "C")
        .env_remove("LS_COLORS")
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    c.status().unwrap();
    let mut ts = fs::read(&log).unwrap();
    // The typescript's own first and last lines.
    if let Some(i) = ts.iter().position(|&b| b == b'\n') {
        ts.drain(..=i);
    }
    if let Some(i) = ts.windows(12).rposition(|w| w == b"\nScript done") {
        ts.truncate(i);
    }
    Some(ts)
}

#[test]
fn colors_by_default_on_a_terminal_unless_no_color() {
    let t = paint_tree();
    let lsc = ("LS_COLORS", "di=01;34");
    let cmd = "\"$DENTS\" find t -maxdepth 0; \"$DENTS\" find t/nothing";
    let Some(tty) = on_pty(t.path(), cmd, &[lsc]) else {
        return;
    };
    let painted = b"\x1b[01;34mt\x1b[0m\r\n";
    let bold = b"\x1b[01;39mdents:\x1b[0m 't/nothing': No such file or directory";
    assert!(
        tty.windows(painted.len()).any(|w| w == painted),
        "{}",
        show(&tty)
    );
    assert!(tty.windows(bold.len()).any(|w| w == bold), "{}", show(&tty));
    let tty = on_pty(t.path(), cmd, &[lsc, ("NO_COLOR", "1")]).unwrap();
    assert!(!tty.contains(&ESC), "{}", show(&tty));
    assert!(tty.starts_with(b"t\r\n"), "{}", show(&tty));
    let tty = on_pty(t.path(), "\"$DENTS\" find t -maxdepth 0 -nocolor", &[lsc]).unwrap();
    assert_eq!(tty, b"t\r\n");
    // Painted, a name is still shown as GNU find shows it on a terminal.
    fs::write(t.path().join("t/new\nline"), b"").unwrap();
    let tty = on_pty(t.path(), "\"$DENTS\" find t -name 'new*'", &[lsc]).unwrap();
    assert_eq!(show(&tty), show(b"\x1b[01;34mt/\x1b[0mnew?line\r\n"));
    // An empty NO_COLOR is no request.
    let tty = on_pty(t.path(), cmd, &[lsc, ("NO_COLOR", "")]).unwrap();
    assert!(
        tty.windows(painted.len()).any(|w| w == painted),
        "{}",
        show(&tty)
    );
}

/// Names for the sorting tests: bytes that sort differently as text,
/// case, dots, and no UTF-8.
const NAMES: &[&[u8]] = &[
    b"b",
    b"B",
    b"a",
    b".a",
    b"_",
    b"a.b",
    b"a-b",
    b"ab",
    b"\xff",
    b"\xc3\xa9",
    b"Z",
    b"10",
    b"9",
];

/// A tree with many directories (so that several workers read ahead)
/// under `t`.
fn sort_tree() -> tempfile::TempDir {
    let t = tmp();
    let r = t.path().join("t");
    fs::create_dir(&r).unwrap();
    for (i, a) in NAMES.iter().enumerate() {
        let d = r.join(OsStr::from_bytes(a));
        if i % 3 == 0 {
            fs::write(&d, b"").unwrap();
            continue;
        }
        fs::create_dir(&d).unwrap();
        for (j, b) in NAMES.iter().enumerate() {
            let p = d.join(OsStr::from_bytes(b));
            if (i + j) % 2 == 0 {
                fs::create_dir(&p).unwrap();
                for c in NAMES.iter().take(5) {
                    fs::write(p.join(OsStr::from_bytes(c)), b"").unwrap();
                }
            } else {
                fs::write(&p, b"").unwrap();
            }
        }
    }
    symlink("a", r.join("link")).unwrap();
    t
}

/// The reference ([`dents_testfs::sorted_breadth_first`]), its paths
/// spelt from `root` as the command is run in `cwd`.
fn sorted_bfs(cwd: &Path, root: &str) -> Vec<Vec<u8>> {
    let cwd_len = cwd.as_os_str().len() + 1;
    dents_testfs::sorted_breadth_first(&cwd.join(root))
        .into_iter()
        .map(|p| p[cwd_len..].to_vec())
        .collect()
}

#[test]
fn sorted_walk_is_breadth_first_with_sorted_directories() {
    let t = sort_tree();
    let want = sorted_bfs(t.path(), "t");
    assert!(want.len() > 300);
    for j in ["-j1", "-j2", "-j8"] {
        let out = dents(t.path(), &[j, "t", "-s"], &[]);
        assert!(out.status.success());
        let got = lines(&out.stdout);
        assert!(
            got == want,
            "{j}: -s order differs:\n{}",
            first_difference(&got, &want)
        );
    }
    // -s among the expression's words, and with a depth window.
    let out = dents(
        t.path(),
        &["-j8", "t", "-mindepth", "1", "-maxdepth", "2", "-s"],
        &[],
    );
    let depth = |p: &Vec<u8>| p.iter().filter(|&&b| b == b'/').count();
    let window: Vec<Vec<u8>> = want
        .iter()
        .filter(|p| (1..=2).contains(&depth(p)))
        .cloned()
        .collect();
    assert!(
        lines(&out.stdout) == window,
        "{}",
        first_difference(&lines(&out.stdout), &window)
    );
    // The starting points are sorted too.
    let out = dents(t.path(), &["t/b", "t/a", "-s", "-maxdepth", "0"], &[]);
    assert_eq!(out.stdout, b"t/a\nt/b\n");
}

/// One case of `sorted_walk_any_threads`: `-s` with `extra` gives the
/// same lines on 8 threads as on one (three times), and the same set as
/// without `-s`.
fn check_sorted_walk_any_threads(extra: &[&str]) {
    let t = sort_tree();
    let run = |j: &str| {
        let mut a: Vec<&str> = Vec::new();
        if extra[0] == "-L" || extra[0] == "-S" {
            a.extend_from_slice(extra);
            a.extend_from_slice(&[j, "t", "-s"]);
        } else {
            a.extend_from_slice(&[j, "t", "-s"]);
            a.extend_from_slice(extra);
        }
        dents(t.path(), &a, &[]).stdout
    };
    let one = run("-j1");
    assert!(lines(&one).len() > 50, "{extra:?}");
    for _ in 0..3 {
        let many = run("-j8");
        assert!(
            many == one,
            "{extra:?}: -j8 differs from -j1:\n{}",
            first_difference(&lines(&many), &lines(&one))
        );
    }
    // The same set of files as without -s.
    let mut a: Vec<&str> = extra.to_vec();
    if extra[0] != "-L" && extra[0] != "-S" {
        a.insert(0, "t");
    } else {
        a.insert(extra.len(), "t");
    }
    let unsorted = dents(t.path(), &a, &[]).stdout;
    assert_eq!(sorted_lines(&unsorted), sorted_lines(&one), "{extra:?}");
}

dents_testfs::test_cases! {
/// The sorted walk is the same on any number of threads.
mod sorted_walk_any_threads: &[&str] => check_sorted_walk_any_threads;
    depth: &["-depth"],
    follow: &["-L"],
    prune: &["-type", "d", "-o", "-name", "a*", "-prune"],
    depth_first: &["-S", "dfs"],
}

/// One case of `sorted_walk_output_files`: `ACTION out` under `-s` on
/// 8 threads writes the file in the order `-print` gives on one.
fn check_sorted_walk_output_file((action, args): (&str, &[&str])) {
    // Big enough that several workers take turns at visiting.
    let t = tmp();
    for d in 0..400 {
        fs::create_dir_all(t.path().join(format!("big/d{d:03}"))).unwrap();
        for f in 0..8 {
            file(&t.path().join(format!("big/d{d:03}/f{f}")), 0o644);
        }
    }
    let one = dents(t.path(), &["-j1", "big", "-s"], &[]).stdout;
    assert_eq!(lines(&one).len(), 1 + 400 + 3200);
    for _ in 0..3 {
        let mut a = vec!["-j8", "big", "-s"];
        a.extend_from_slice(args);
        let o = dents(t.path(), &a, &[]);
        assert!(o.status.success() && o.stdout.is_empty(), "{action}");
        let got = fs::read(t.path().join("out")).unwrap();
        assert!(
            got == one,
            "{action}: -j8 differs from -j1:\n{}",
            first_difference(&lines(&got), &lines(&one))
        );
    }
}

dents_testfs::test_cases! {
/// The sorted walk writes output files in the same order.
mod sorted_walk_output_files: (&str, &[&str]) => check_sorted_walk_output_file;
    fprint: ("-fprint", &["-fprint", "out"]),
    fprintf: ("-fprintf", &["-fprintf", "out", "%p\\n"]),
}

fn first_difference(got: &[Vec<u8>], want: &[Vec<u8>]) -> String {
    let i = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    format!(
        "at line {i}: got {:?}, want {:?} ({} vs {} lines)",
        got.get(i).map(|l| show(l)),
        want.get(i).map(|l| show(l)),
        got.len(),
        want.len()
    )
}

/// A tree for the filters: hidden files and directories, a `sub` at two
/// depths.
fn filter_tree() -> tempfile::TempDir {
    let t = tmp();
    let r = t.path().join("t");
    for d in ["sub/x", ".hid/sub", "a/sub/deeper", "a/.h2", "dd1", "dd2/e"] {
        fs::create_dir_all(r.join(d)).unwrap();
    }
    for f in [
        "f.c",
        ".f",
        "sub/g.c",
        "sub/x/h.c",
        ".hid/i.c",
        ".hid/sub/j",
        "a/sub/k.c",
        "a/sub/deeper/l",
        "a/.h2/m.c",
        "dd2/e/n",
        "a/..o",
    ] {
        fs::write(r.join(f), b"").unwrap();
    }
    t
}

#[test]
fn filters_match_gnu_find_equivalents() {
    let t = filter_tree();
    let cases: &[(&str, &str)] = &[
        ("t -exclude -name sub", "t -name sub -prune -o -print"),
        (
            "t -exclude ( -type d -name d* )",
            "t -type d -name d* -prune -o -print",
        ),
        // -exclude binds as tightly as !: to -type d alone here.
        ("t -exclude -type d -name d*", "t -prune -name d*"),
        (
            "t -name *.c -exclude -name sub",
            "t -name sub -prune -o -name *.c -print",
        ),
        (
            "t -exclude ( -name sub -o -name .hid ) -type f",
            "t ( -name sub -o -name .hid ) -prune -o -type f -print",
        ),
        // Excluded below -mindepth, and under -depth, where -prune fails.
        (
            "t -mindepth 2 -exclude -name a",
            "t -mindepth 2 ! -path t/a ! -path t/a/*",
        ),
        (
            "t -depth -exclude -name sub",
            "t -depth ! -path */sub ! -path */sub/*",
        ),
        ("t -exclude -name t", "t -name t -prune -o -print"),
        ("t -hidden", "t -name .*"),
        ("t -type f ! -hidden", "t -type f ! -name .*"),
        ("t -nohidden", "t -name .* -prune -o -print"),
        (
            "t -nohidden -name *.c",
            "t -name .* -prune -o -name *.c -print",
        ),
        (". -nohidden", ". -name .?* -prune -o -print"),
        ("t/. -hidden", "t/. -mindepth 1 -name .*"),
    ];
    let mut bad = Vec::new();
    for (ours, theirs) in cases {
        let cwd = t.path();
        let d = dents(cwd, &ours.split(' ').collect::<Vec<_>>(), &[]);
        let g = gnu(cwd, &theirs.split(' ').collect::<Vec<_>>());
        assert!(g.status.success(), "{theirs}");
        if !d.status.success() || sorted_lines(&d.stdout) != sorted_lines(&g.stdout) {
            bad.push(format!(
                "dents {ours}:\n{}{}\nfind {theirs}:\n{}",
                show(&d.stdout),
                show(&d.stderr),
                show(&g.stdout)
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

/// One case of `exclusions_take_tests_only`: `-exclude` before what is
/// not a test (or before nothing) is refused, status 1, and deletes
/// nothing.
fn check_exclusion_refused(bad: &[&str]) {
    let t = filter_tree();
    let out = dents(t.path(), bad, &[]);
    assert_eq!(out.status.code(), Some(1), "{bad:?}");
    assert!(out.stdout.is_empty(), "{bad:?}");
    assert!(out.stderr.starts_with(b"dents: "), "{bad:?}");
    assert!(t.path().join("t/a").exists());
}

dents_testfs::test_cases! {
/// `-exclude` takes tests only.
mod exclusions_take_tests_only: &[&str] => check_exclusion_refused;
    an_action: &["t", "-exclude", "-print"],
    another_exclude: &["t", "-exclude", "-exclude", "-name", "a"],
    a_group_with_an_action: &["t", "-exclude", "(", "-name", "a", "-delete", ")"],
    nothing: &["t", "-exclude"],
}

#[test]
fn limit_stops_after_n_evaluations() {
    let t = filter_tree();
    let all = dents(t.path(), &["t", "-s"], &[]).stdout;
    let first: Vec<Vec<u8>> = lines(&all).into_iter().take(3).collect();
    let out = dents(t.path(), &["t", "-s", "-print", "-limit", "3"], &[]);
    assert!(out.status.success());
    assert_eq!(lines(&out.stdout), first);
    // Counted where it stands: only the files that got to it.
    let files = sorted_lines(&gnu(t.path(), &["t", "-type", "f"]).stdout);
    for j in ["-j1", "-j8"] {
        let out = dents(
            t.path(),
            &[j, "t", "-type", "f", "-print", "-limit", "4"],
            &[],
        );
        let got = lines(&out.stdout);
        assert_eq!(got.len(), 4, "{j}: {}", show(&out.stdout));
        assert!(got.iter().all(|l| files.contains(l)), "{j}");
    }
    // More than there is: everything.
    let out = dents(t.path(), &["t", "-print", "-limit", "1000"], &[]);
    assert_eq!(sorted_lines(&out.stdout), sorted_lines(&all));
}

/// One case of `limit_refused`: `-limit` with no action to count, or no
/// count: status 1, nothing printed.
fn check_limit_refused(bad: &[&str]) {
    let t = filter_tree();
    let out = dents(t.path(), bad, &[]);
    assert_eq!(out.status.code(), Some(1), "{bad:?}");
    assert!(out.stdout.is_empty(), "{bad:?}");
}

dents_testfs::test_cases! {
/// `-limit` without an action to count, or without a count.
mod limit_refused: &[&str] => check_limit_refused;
    no_action: &["t", "-limit", "2"],
    zero: &["t", "-print", "-limit", "0"],
    not_a_number: &["t", "-print", "-limit", "x"],
}

/// Whether `tty` shows a status line.
fn has_status(tty: &[u8]) -> bool {
    tty.windows(8).any(|w| w == b" entries")
}

#[test]
fn status_line_on_stderr_never_on_stdout() {
    let t = sort_tree();
    let Some(tty) = on_pty(t.path(), "\"$DENTS\" find t -status > out", &[]) else {
        return;
    };
    assert!(has_status(&tty), "{}", show(&tty));
    let out = fs::read(t.path().join("out")).unwrap();
    assert!(!out.contains(&ESC) && !out.contains(&b'\r'));
    assert!(!out.windows(8).any(|w| w == b" entries"));
    let plain = dents(t.path(), &["t"], &[]).stdout;
    assert_eq!(sorted_lines(&out), sorted_lines(&plain));
    // Gone at the end: the last thing written is a line erase.
    let last = tty.iter().rposition(|&b| b == ESC).unwrap();
    assert!(
        tty[last..].starts_with(b"\x1b[2K") || tty[last..].starts_with(b"\x1b[K"),
        "{}",
        show(&tty[last.saturating_sub(80)..])
    );
    assert!(tty[last..].len() <= 4, "{}", show(&tty[last..]));
    // Off: asked, or no terminal.
    let tty = on_pty(t.path(), "\"$DENTS\" find t -status -nostatus > out", &[]).unwrap();
    assert_eq!(tty, b"");
    let quiet = dents(t.path(), &["t", "-status"], &[]);
    assert!(quiet.stderr.is_empty());
    // Unasked, a quick walk shows none.
    let tty = on_pty(t.path(), "\"$DENTS\" find t > out", &[]).unwrap();
    assert_eq!(tty, b"");
}

#[test]
fn status_line_unasked_after_a_second_and_cleared_around_messages() {
    let t = filter_tree();
    // Five commands of 0.4 s: the walk outlasts a second.
    let slow = "\"$DENTS\" find -j1 t -s -maxdepth 1 \\( -type f -o -name 'd*' \\) \
                -exec sh -c 'sleep 0.4; echo \"said $1\" >&2' sh {} \\; > out";
    let Some(tty) = on_pty(t.path(), slow, &[]) else {
        return;
    };
    assert!(has_status(&tty), "{}", show(&tty));
    let said: Vec<usize> = (0..tty.len())
        .filter(|&i| tty[i..].starts_with(b"said "))
        .collect();
    assert_eq!(said.len(), 4, "{}", show(&tty));
    for i in said {
        // Each message starts a line of its own: the status line was
        // erased before it.
        let before = &tty[..i];
        assert!(
            before.is_empty()
                || before.ends_with(b"\n")
                || before.ends_with(b"\r\x1b[2K")
                || before.ends_with(b"\x1b[2K\r"),
            "{}",
            show(&tty[i.saturating_sub(60)..i + 10])
        );
    }
    let out = fs::read(t.path().join("out")).unwrap();
    assert!(out.is_empty());
    let tty = on_pty(t.path(), &slow.replace("-s", "-s -nostatus"), &[]).unwrap();
    assert!(!has_status(&tty), "{}", show(&tty));
}

#[test]
fn status_line_cleared_before_our_own_messages() {
    let t = filter_tree();
    let r = t.path().join("t");
    symlink("loop-b", r.join("dd1/loop-a")).unwrap();
    symlink("loop-a", r.join("dd1/loop-b")).unwrap();
    // Slow files first, then the loop (-s: in that order).
    let cmd =
        "\"$DENTS\" find -L -j1 t -s -status -maxdepth 2 \\( -name '*.c' -exec sleep 0.3 \\; \\) \
               -o -name 'loop*' > out";
    let Some(tty) = on_pty(t.path(), cmd, &[]) else {
        return;
    };
    assert!(has_status(&tty), "{}", show(&tty));
    // Messages start with the program name, in bold on a terminal.
    let msgs: Vec<usize> = (0..tty.len())
        .filter(|&i| tty[i..].starts_with(b"\x1b[01;39mdents:\x1b[0m "))
        .collect();
    assert!(!msgs.is_empty(), "{}", show(&tty));
    for i in msgs {
        let before = &tty[..i];
        assert!(
            before.ends_with(b"\n") || before.ends_with(b"\r\x1b[2K"),
            "{}",
            show(&tty[i.saturating_sub(60)..i + 20])
        );
    }
}

/// The stat calls of `dents find ARGS` on the entries under its starting
/// point `tree` (see [`entry_stat_calls`]).
fn stat_calls(cwd: &Path, tree: &str, args: &[&str]) -> usize {
    entry_stat_calls(&[dents_bin(), "find"], args, cwd, tree, &[])
}

#[test]
fn colors_stat_only_when_on() {
    if !have_program("strace", "-V") {
        return dents_testfs::skip("strace not installed");
    }
    let t = sort_tree();
    let base = stat_calls(t.path(), "t", &["-j1", "t", "-false"]);
    let off = stat_calls(t.path(), "t", &["-j1", "t", "-name", "*a*"]);
    let hidden = stat_calls(
        t.path(),
        "t",
        &[
            "-j1",
            "t",
            "-s",
            "-nohidden",
            "-hidden",
            "-print",
            "-limit",
            "5",
        ],
    );
    let on = stat_calls(t.path(), "t", &["-j1", "t", "-name", "*a*", "-color"]);
    assert_eq!(base, 0, "the walk alone stats no entry");
    assert_eq!(off, 0, "without colors: {off} stats");
    assert_eq!(hidden, 0, "name-only bfs tests: {hidden} stats");
    // With colors, each entry printed is stat'ed once (ex, su, st... need
    // the mode), and no other.
    let printed = dents(t.path(), &["t", "-mindepth", "1", "-name", "*a*"], &[]);
    let printed = lines(&printed.stdout).len();
    assert_eq!(
        on, printed,
        "with colors: {on} stats, {printed} entries printed"
    );
}
