//! Differential tests: `dents find` against GNU find on a fixture tree.
//!
//! The tree holds every kind of file (directories, regular files of
//! awkward sizes, symlinks good, broken, to directories and in loops,
//! hard links, a fifo, a socket, devices), awkward names (spaces, a
//! newline, invalid UTF-8, glob characters), old, recent and future
//! times, unusual modes, an owner without a name, an unreadable
//! directory and a deep chain.  Each expression of the table runs under
//! both tools with `LC_ALL=C TZ=UTC` and no terminal on stdin; their
//! stdout (sorted: the walk is parallel and breadth first), exit status
//! and stderr (program name aside, sorted) must be equal.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use dents_testfs::cli::{
    as_nobody, entry_names_and_paths, entry_stat_calls, have_program, run_ok, sorted_records,
    stderr_lines, touch,
};
use dents_testfs::{needs_root, test_cases};

/// The fixture: `t/` inside a temporary directory (the working directory
/// of both tools), with reference files beside it.
struct Fixture {
    tmp: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = tempfile::Builder::new()
            .prefix("dents-find-")
            .tempdir()
            .unwrap();
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let t = tmp.path().join("t");
        fs::create_dir(&t).unwrap();
        let file = |rel: &[u8], len: u64, mode: u32| {
            let p = t.join(OsStr::from_bytes(rel));
            let f = fs::File::create(&p).unwrap();
            f.set_len(len).unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(mode)).unwrap();
            p
        };
        let dir = |rel: &str, mode: u32| {
            let p = t.join(rel);
            fs::create_dir_all(&p).unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(mode)).unwrap();
            p
        };
        dir("sub", 0o755);
        dir("sub/deep/er/still/deeper/bottom", 0o755);
        dir("emptydir", 0o755);
        dir("sticky", 0o1777);
        dir("private", 0o700);
        dir("open", 0o777);
        for (name, len) in [
            ("s0", 0),
            ("s1", 1),
            ("s511", 511),
            ("s512", 512),
            ("s513", 513),
            ("s1023", 1023),
            ("s1024", 1024),
            ("s1025", 1025),
        ] {
            file(name.as_bytes(), len, 0o644);
        }
        // Sparse: 1 MiB + 1 byte, a single block or so on disk.
        file(b"sparse", (1 << 20) + 1, 0o644);
        let one = file(b"one", 4, 0o644);
        fs::write(&one, b"one\n").unwrap();
        file(b"two", 4, 0o640);
        file(b"UPPER.TXT", 3, 0o644);
        file(b"lower.txt", 3, 0o644);
        file(b"with space", 3, 0o644);
        file(b"new\nline", 3, 0o644);
        file(b"bad\xffutf8", 3, 0o644);
        file(b"-dash", 3, 0o644);
        file(b".hidden", 3, 0o644);
        file(b"star*", 3, 0o644);
        file(b"q?mark", 3, 0o644);
        file(b"br[ack]et", 3, 0o644);
        file("caf\u{e9}".as_bytes(), 3, 0o644);
        file(b"x", 1, 0o644);
        file(b"noperm", 5, 0o000);
        file(b"all", 5, 0o777);
        file(b"setuid", 5, 0o4755);
        file(b"setgid", 5, 0o2711);
        file(b"exec", 5, 0o755);
        file(b"onlyx", 5, 0o111);
        file(b"sub/a.c", 10, 0o644);
        file(b"sub/b.h", 20, 0o644);
        file(b"sub/deep/er/still/deeper/bottom/leaf", 7, 0o600);
        file(b"sub/deep/x", 2, 0o644);
        file(b"sticky/inside", 0, 0o666);
        file(b"private/secret", 6, 0o600);
        let hard = file(b"hard1", 9, 0o644);
        fs::hard_link(&hard, t.join("hard2")).unwrap();
        fs::hard_link(&hard, t.join("sub/hard3")).unwrap();
        symlink("one", t.join("link-one")).unwrap();
        symlink("sub", t.join("link-sub")).unwrap();
        symlink("nowhere", t.join("link-broken")).unwrap();
        // Broken differently: a file where a directory should be on the way.
        symlink("one/x", t.join("link-notdir")).unwrap();
        symlink("loop-b", t.join("loop-a")).unwrap();
        symlink("loop-a", t.join("loop-b")).unwrap();
        symlink("../..", t.join("sub/deep/up")).unwrap();
        symlink("/dev/null", t.join("link-abs")).unwrap();
        run_ok(Command::new("mkfifo").arg(t.join("fifo")));
        let sock = std::os::unix::net::UnixListener::bind(t.join("sock")).unwrap();
        drop(sock);
        run_ok(
            Command::new("mknod")
                .arg(t.join("chardev"))
                .args(["c", "1", "3"]),
        );
        run_ok(
            Command::new("mknod")
                .arg(t.join("blockdev"))
                .args(["b", "7", "200"]),
        );
        // An owner and group without names.
        let orphan = file(b"orphan", 2, 0o644);
        std::os::unix::fs::chown(&orphan, Some(4242), Some(4343)).unwrap();
        std::os::unix::fs::chown(t.join("sub/b.h"), Some(65534), None).unwrap();
        // Times: long ago, hours ago, days ago, in the future.
        touch(&t.join("one"), &["-d", "2001-02-03 04:05:06"]);
        touch(&t.join("two"), &["-d", "3 days ago"]);
        touch(&t.join("x"), &["-d", "2 hours ago"]);
        touch(&t.join("s1"), &["-d", "90 minutes ago"]);
        touch(&t.join("UPPER.TXT"), &["-d", "2099-01-01 00:00:00"]);
        // Accessed hours and days after the last change (for -used).
        run_ok(
            Command::new("touch")
                .args(["-a", "-d", "+5 hours"])
                .arg(t.join("s1023")),
        );
        run_ok(
            Command::new("touch")
                .args(["-a", "-d", "+3 days"])
                .arg(t.join("s1024")),
        );
        touch(&t.join("link-one"), &["-d", "1999-12-31 23:59:59"]);
        touch(&t.join("sub/a.c"), &["-d", "10 days ago"]);
        // Reference files beside the tree.
        let refs = tmp.path();
        fs::write(refs.join("ref-old"), b"").unwrap();
        touch(&refs.join("ref-old"), &["-d", "2005-06-07 08:09:10"]);
        fs::write(refs.join("ref-day"), b"").unwrap();
        touch(&refs.join("ref-day"), &["-d", "1 day ago"]);
        symlink("ref-old", refs.join("ref-link")).unwrap();
        // An unreadable directory (it matters to unprivileged runs).
        let locked = dir("locked", 0o755);
        fs::File::create(locked.join("hidden-inside")).unwrap();
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
        // Search but no read.
        let noread = dir("noread", 0o755);
        fs::File::create(noread.join("known")).unwrap();
        fs::set_permissions(&noread, fs::Permissions::from_mode(0o311)).unwrap();
        Fixture { tmp }
    }

    /// The fixture, or `None` after saying why not: it holds devices
    /// (`mknod`) and files of other owners (`chown`), which need root.
    ///
    /// Its access times are settled (see [`settle_access_times`]): the
    /// first walk of a new tree moves them, and both tools must see the
    /// same ones (`-used`, `-amin`, `%A`), whichever runs first.
    fn new_or_skip() -> Option<Fixture> {
        let fx =
            needs_root("the find fixture holds devices (mknod) and files of other owners (chown)")
                .then(Fixture::new)?;
        settle_access_times(&fx);
        Some(fx)
    }

    fn root(&self) -> &Path {
        self.tmp.path()
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }
}

/// Splits a case into words: blanks separate, `'...'` quotes, `\n` in a
/// quoted word is a newline, `\xHH` a byte.
fn words(s: &str) -> Vec<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        if i == b.len() {
            break;
        }
        let mut w = Vec::new();
        while i < b.len() && b[i] != b' ' {
            if b[i] == b'\'' {
                i += 1;
                while b[i] != b'\'' {
                    if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
                        let hex = std::str::from_utf8(&b[i + 2..i + 4]).unwrap();
                        w.push(u8::from_str_radix(hex, 16).unwrap());
                        i += 4;
                    } else if b[i] == b'\\' && b.get(i + 1) == Some(&b'n') {
                        w.push(b'\n');
                        i += 2;
                    } else {
                        w.push(b[i]);
                        i += 1;
                    }
                }
                i += 1;
            } else {
                w.push(b[i]);
                i += 1;
            }
        }
        out.push(w);
    }
    out
}

fn dents() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dents"));
    c.arg("find");
    c
}

fn gnu() -> Command {
    Command::new("find")
}

/// Runs `cmd ARGS` in `cwd` with the test environment.
fn run(mut cmd: Command, cwd: &Path, args: &[Vec<u8>], stdin: Option<&[u8]>) -> Output {
    cmd.current_dir(cwd)
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env_remove("POSIXLY_CORRECT")
        .args(args.iter().map(|a| OsStr::from_bytes(a)))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match stdin {
        None => cmd.stdin(Stdio::null()).output().unwrap(),
        Some(input) => {
            use std::io::Write;
            let mut child = cmd.stdin(Stdio::piped()).spawn().unwrap();
            child.stdin.take().unwrap().write_all(input).unwrap();
            child.wait_with_output().unwrap()
        }
    }
}

/// Compares one case; returns a description of the differences.
fn compare(case: &str, args: &[Vec<u8>], d: &Output, g: &Output) -> Option<String> {
    let sep = if case.contains("-print0") { 0 } else { b'\n' };
    let mut problems = Vec::new();
    if sorted_records(&d.stdout, sep) != sorted_records(&g.stdout, sep) {
        problems.push(format!(
            "stdout differs\n--- dents\n{}\n--- find\n{}",
            String::from_utf8_lossy(&d.stdout),
            String::from_utf8_lossy(&g.stdout)
        ));
    }
    if d.status.code() != g.status.code() {
        problems.push(format!(
            "status: dents {:?}, find {:?}",
            d.status.code(),
            g.status.code()
        ));
    }
    let (de, ge) = (
        stderr_lines(&d.stderr, "dents:"),
        stderr_lines(&g.stderr, "find:"),
    );
    if de != ge {
        problems.push(format!(
            "stderr differs\n--- dents\n{}\n--- find\n{}",
            String::from_utf8_lossy(&de.concat()),
            String::from_utf8_lossy(&ge.concat())
        ));
    }
    (!problems.is_empty()).then(|| format!("== find {case}   {args:?}\n{}", problems.join("\n")))
}

/// Runs every case under both tools; panics listing all that differ.
fn check_all(fx: &Fixture, cases: &[&str], wrap: &dyn Fn(Command) -> Command) {
    let ino = {
        use std::os::unix::fs::MetadataExt;
        fs::metadata(fx.path("t/one")).unwrap().ino().to_string()
    };
    let mut failures = Vec::new();
    for case in cases {
        let case = case.replace("{INO}", &ino);
        let args = words(&case);
        let d = run(wrap(dents()), fx.root(), &args, None);
        let g = run(wrap(gnu()), fx.root(), &args, None);
        if let Some(f) = compare(&case, &args, &d, &g) {
            failures.push(f);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from GNU find:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

test_cases! {
/// The expressions compared as root.
mod expressions: &str => check_expression;
    // Starting points.
    t: "t",
    t_slash: "t/",
    dot_t: "./t",
    t_t: "t t",
    t_one: "t/one",
    t_link_sub: "t/link-sub",
    t_link_broken: "t/link-broken",
    nope: "nope",
    nope_t: "nope t",
    empty: "''",
    t_one_x: "t/one/x",
    dash: "-",
    // Names and paths.
    name_one: "t -name one",
    name_star: "t -name '*'",
    name_dot_star: "t -name '.*'",
    name_star_dot_txt: "t -name '*.txt'",
    iname_star_dot_txt: "t -iname '*.TXT'",
    iname_upper_star: "t -iname 'upper*'",
    name_lb_a_c_rb_star: "t -name '[a-c]*'",
    name_lb_not_a_z_rb_star: "t -name '[!a-z]*'",
    name_lb_caret_a_z_rb_star: "t -name '[^a-z]*'",
    name_qmark: "t -name '?'",
    name_qmark_qmark_qmark: "t -name '???'",
    name_star_bs_star: "t -name 'star\\*'",
    name_star_bs_qmark_star: "t -name '*\\?*'",
    name_star_lb_lb_rb_star: "t -name '*[[]*'",
    name_lb_lb_upper_rb_rb_star: "t -name '[[:upper:]]*'",
    name_lb_lb_digit_rb_rb_star: "t -name '[[:digit:]]*'",
    name_star_lb_lb_space_rb_rb_star: "t -name '*[[:space:]]*'",
    name_star_lb_lb_punct_rb_rb_star: "t -name '*[[:punct:]]*'",
    name_new_qmark_line: "t -name 'new?line'",
    name_bad_qmark_utf8: "t -name 'bad?utf8'",
    name_bad_star: "t -name 'bad*'",
    name_caf_star: "t -name 'caf*'",
    name_caf_qmark: "t -name 'caf?'",
    name_with_space: "t -name 'with space'",
    name_t: "t -name t",
    t_slash_name_t: "t/ -name t",
    name_empty: "t -name ''",
    name_lb_rb: "t -name '[]'",
    name_s_lb_0_9_rb_star_lb_13_rb: "t -name 's[0-9]*[13]'",
    name_s1_star_name_star_3: "t -name 's1*' -name '*3'",
    path_t_sub_star: "t -path 't/sub/*'",
    path_star_deep_star: "t -path '*deep*'",
    path_t_star_b_star: "t -path 't/*/b*'",
    ipath_t_sub_star: "t -ipath 'T/SUB*'",
    wholename_t_s_qmark: "t -wholename 't/s?'",
    iwholename_star_a_dot_c: "t -iwholename '*/A.C'",
    dot_t_path_dot_t_o_star: "./t -path './t/o*'",
    lname_o_star: "t -lname 'o*'",
    lname_star: "t -lname '*'",
    ilname_no_star: "t -ilname 'NO*'",
    lname_slash_dev_star: "t -lname '/dev/*'",
    // Regular expressions.
    regex_dot_star_one: "t -regex '.*/one'",
    regex_t_s_dot_star: "t -regex 't/s.*'",
    regex_t_s_lb_0_9_rb_plus: "t -regex 't/s[0-9]+'",
    regex_t_s_lb_0_9_rb_bs_3_bs: "t -regex 't/s[0-9]\\{3\\}'",
    regex_dot_star_bs_open_one_bs_two_bs_close: "t -regex '.*\\(one\\|two\\)'",
    iregex_dot_star_upper_dot_star: "t -iregex '.*/upper.*'",
    regex_t: "t -regex 't'",
    regex_one: "t -regex 'one'",
    regex_dot_star_new_dot_line: "t -regex '.*new.line'",
    regex_dot_star_bad_dot_utf8: "t -regex '.*bad.utf8'",
    regextype_posix_extended_regex_dot_star_open_one_two_close: "t -regextype posix-extended -regex '.*/(one|two)'",
    regextype_posix_extended_regex_t_s_lb_0_9_rb_3: "t -regextype posix-extended -regex 't/s[0-9]{3}'",
    regextype_posix_basic_regex_dot_star_o_bs_open_n_bs_close_e: "t -regextype posix-basic -regex '.*/o\\(n\\)e'",
    regextype_posix_basic_regex_t_s_lb_0_9_rb_bs_4_bs: "t -regextype posix-basic -regex 't/s[0-9]\\{4\\}'",
    regextype_egrep_regex_dot_star_lb_0_9_rb_plus: "t -regextype egrep -regex '.*[0-9]+'",
    regextype_grep_regex_dot_star_new_dot_line: "t -regextype grep -regex '.*new.line'",
    regextype_sed_regex_dot_star_s5_dot_star: "t -regextype sed -regex '.*/s5.*'",
    regextype_awk_regex_dot_star_open_a_b_close_bs_dot_lb_ch_rb: "t -regextype awk -regex '.*(a|b)\\.[ch]'",
    // Types.
    type_f: "t -type f",
    type_d: "t -type d",
    type_l: "t -type l",
    type_p: "t -type p",
    type_s: "t -type s",
    type_c: "t -type c",
    type_b: "t -type b",
    type_f_comma_d: "t -type f,d",
    type_l_comma_p_comma_s: "t -type l,p,s",
    xtype_l: "t -xtype l",
    xtype_d: "t -xtype d",
    xtype_f: "t -xtype f",
    xtype_c: "t -xtype c",
    l_t_type_l: "-L t -type l",
    l_t_xtype_l: "-L t -xtype l",
    l_t_type_d: "-L t -type d",
    h_t_link_sub: "-H t/link-sub",
    h_t_link_sub_type_l: "-H t/link-sub -type l",
    // A starting point that is a loop of links: an error under -H and -L,
    // itself under -P; a broken one is itself.
    l_t_loop_a: "-L t/loop-a",
    h_t_loop_a_maxdepth_0: "-H t/loop-a -maxdepth 0",
    t_loop_a: "t/loop-a",
    l_t_link_broken: "-L t/link-broken",
    l_t_link_sub_maxdepth_1: "-L t/link-sub -maxdepth 1",
    follow_type_l: "t -follow -type l",
    // Sizes.
    size_0: "t -size 0",
    size_minus_1: "t -size -1",
    size_1: "t -size 1",
    size_plus_1: "t -size +1",
    size_2: "t -size 2",
    size_3: "t -size 3",
    size_minus_2k: "t -size -2k",
    size_1k: "t -size 1k",
    size_plus_1k: "t -size +1k",
    size_511c: "t -size 511c",
    size_plus_512c: "t -size +512c",
    size_minus_513c: "t -size -513c",
    size_1025c: "t -size 1025c",
    size_2w: "t -size 2w",
    size_plus_255w: "t -size +255w",
    size_plus_1m: "t -size +1M",
    size_2m: "t -size 2M",
    size_minus_1m: "t -size -1M",
    size_1g: "t -size 1G",
    size_minus_1g: "t -size -1G",
    type_f_size_plus_0: "t -type f -size +0",
    // Times.
    mtime_plus_1000: "t -mtime +1000",
    mtime_minus_1: "t -mtime -1",
    mtime_0: "t -mtime 0",
    mtime_3: "t -mtime 3",
    mtime_plus_2: "t -mtime +2",
    mtime_minus_4: "t -mtime -4",
    mtime_10: "t -mtime 10",
    mtime_minus_0_dot_5: "t -mtime -0.5",
    mtime_plus_9_dot_5: "t -mtime +9.5",
    mmin_minus_100: "t -mmin -100",
    mmin_plus_100: "t -mmin +100",
    mmin_minus_200: "t -mmin -200",
    mmin_minus_130_mmin_plus_80: "t -mmin -130 -mmin +80",
    mmin_minus_1: "t -mmin -1",
    cmin_minus_60: "t -cmin -60",
    ctime_0: "t -ctime 0",
    amin_plus_1: "t -amin +1",
    atime_plus_100: "t -atime +100",
    daystart_mtime_3: "t -daystart -mtime 3",
    daystart_mtime_plus_5: "t -daystart -mtime +5",
    daystart_mmin_minus_2000: "t -daystart -mmin -2000",
    newer_ref_old: "t -newer ref-old",
    newer_ref_day: "t -newer ref-day",
    newer_t_x: "t -newer t/x",
    not_newer_ref_old: "t ! -newer ref-old",
    h_t_newer_ref_link: "-H t -newer ref-link",
    newer_ref_link: "t -newer ref-link",
    anewer_ref_old: "t -anewer ref-old",
    cnewer_ref_old: "t -cnewer ref-old",
    newermt_2010_01_01: "t -newermt 2010-01-01",
    newermt_2098_12_31_23_59_59: "t -newermt '2098-12-31 23:59:59'",
    not_newermt_2001_02_03_04_05_06: "t ! -newermt '2001-02-03 04:05:06'",
    not_newermt_2001_02_03_04_05_05: "t ! -newermt '2001-02-03 04:05:05'",
    newermt_at_1000000000: "t -newermt @1000000000",
    newermm_ref_day: "t -newermm ref-day",
    newercm_ref_old: "t -newercm ref-old",
    neweram_ref_old: "t -neweram ref-old",
    newerat_2000_01_01: "t -newerat 2000-01-01",
    used_0: "t -used 0",
    used_minus_1: "t -used -1",
    used_plus_0: "t -used +0",
    used_plus_8000: "t -used +8000",
    used_1: "t -used 1",
    used_minus_0_dot_5: "t -used -0.5",
    used_x: "t -used x",
    // Permissions.
    perm_644: "t -perm 644",
    perm_0644: "t -perm 0644",
    perm_minus_4000: "t -perm -4000",
    perm_minus_2000: "t -perm -2000",
    perm_slash_6000: "t -perm /6000",
    perm_minus_1000: "t -perm -1000",
    perm_slash_u_plus_s_comma_g_plus_s: "t -perm /u+s,g+s",
    perm_u_eq_rwx: "t -perm -u=rwx",
    perm_slash_o_plus_w: "t -perm /o+w",
    perm_0: "t -perm 0",
    perm_minus_0: "t -perm -0",
    perm_slash_0: "t -perm /0",
    perm_u_eq_rwx_comma_go_eq_rx: "t -perm u=rwx,go=rx",
    perm_g_plus_x_comma_u_plus_x: "t -perm -g+x,u+x",
    perm_slash_a_plus_x: "t -perm /a+x",
    perm_a_plus_x: "t -perm -a+X",
    perm_plus_w: "t -perm +w",
    perm_g_eq_u: "t -perm g=u",
    perm_777: "t -perm 777",
    perm_o_eq_w: "t -perm -o=w",
    perm_1777: "t -perm 1777",
    // Owners.
    uid_4242: "t -uid 4242",
    uid_plus_4000: "t -uid +4000",
    uid_minus_1: "t -uid -1",
    gid_4343: "t -gid 4343",
    user_root: "t -user root",
    user_4242: "t -user 4242",
    user_nobody: "t -user nobody",
    group_root: "t -group root",
    group_4343: "t -group 4343",
    nouser: "t -nouser",
    nogroup: "t -nogroup",
    not_user_root: "t ! -user root",
    // Links, inodes, same file, emptiness, access.
    links_3: "t -links 3",
    links_plus_2: "t -links +2",
    type_d_links_2: "t -type d -links 2",
    inum_ino: "t -inum {INO}",
    samefile_t_hard1: "t -samefile t/hard1",
    samefile_t_link_one: "t -samefile t/link-one",
    l_t_samefile_t_one: "-L t -samefile t/one",
    empty_2: "t -empty",
    type_d_empty: "t -type d -empty",
    not_empty_type_f: "t ! -empty -type f",
    readable: "t -readable",
    writable: "t -writable",
    executable: "t -executable",
    executable_type_f: "t -executable -type f",
    // Operators.
    not_type_d: "t ! -type d",
    not_name_star_a_star: "t -not -name '*a*'",
    open_name_one_o_name_two_close_print: "t ( -name one -o -name two ) -print",
    name_one_o_name_two_print: "t -name one -o -name two -print",
    name_one_a_name_one: "t -name one -a -name one",
    name_one_and_type_f: "t -name one -and -type f",
    name_one_or_name_two: "t -name one -or -name two",
    name_one_print_comma_name_two_print: "t -name one -print , -name two -print",
    name_one_comma_name_two: "t -name one , -name two",
    true_: "t -true",
    false_: "t -false",
    false_o_print: "t -false -o -print",
    not_open_type_d_o_type_f_close: "t ! ( -type d -o -type f )",
    not_not_type_d: "t ! ! -type d",
    type_d_open_name_sub_o_name_deep_close: "t -type d ( -name sub -o -name deep )",
    open_open_name_one_close_close: "t ( ( -name one ) )",
    print_print: "t -print -print",
    name_star_e_star_print0: "t -name '*e*' -print0",
    print0: "t -print0",
    maxdepth_1_print_o_print: "t -maxdepth 1 -print -o -print",
    // Depth, pruning, stopping.
    maxdepth_0: "t -maxdepth 0",
    maxdepth_1: "t -maxdepth 1",
    mindepth_2: "t -mindepth 2",
    mindepth_1_maxdepth_2: "t -mindepth 1 -maxdepth 2",
    mindepth_7: "t -mindepth 7",
    depth: "t -depth",
    depth_name_sub: "t -depth -name sub",
    d_type_d: "t -d -type d",
    maxdepth_1_depth: "t -maxdepth 1 -depth",
    name_sub_prune: "t -name sub -prune",
    name_sub_prune_o_print: "t -name sub -prune -o -print",
    path_t_sub_prune_o_name_star_e_star_print: "t -path t/sub -prune -o -name '*e*' -print",
    depth_name_sub_prune: "t -depth -name sub -prune",
    type_d_prune: "t -type d -prune",
    quit: "t -quit",
    print_quit: "t -print -quit",
    name_one_print_quit: "t -name one -print -quit",
    name_nothing_quit_o_name_one: "t -name nothing -quit -o -name one",
    maxdepth_1_xdev: "t -maxdepth 1 -xdev",
    mount_name_one: "t -mount -name one",
    noleaf_name_one: "t -noleaf -name one",
    ignore_readdir_race_name_one: "t -ignore_readdir_race -name one",
    noignore_readdir_race_name_one: "t -noignore_readdir_race -name one",
    warn_name_one: "t -warn -name one",
    nowarn_name_one: "t -nowarn -name one",
    maxdepth_0_o_print: "t -maxdepth 0 -o -print",
    name_x_maxdepth_0_o_print: "t -name x -maxdepth 0 -o -print",
    maxdepth_0_print_maxdepth_1: "t -maxdepth 0 -print -maxdepth 1",
    daystart_name_one: "t -daystart -name one",
    p_t_name_one: "-P t -name one",
    h_l_p_t_maxdepth_1: "-H -L -P t -maxdepth 1",
    dash_t_maxdepth_0: "-- t -maxdepth 0",
    o0_t_name_one: "-O0 t -name one",
    o3_t_size_plus_1_name_s_star: "-O3 t -size +1 -name 's*'",
    d_foo_t_name_one: "-D foo t -name one",
    l_t: "-L t",
    l_t_name_up: "-L t -name up",
    l_t_sub_deep: "-L t/sub/deep",
    l_t_maxdepth_3: "-L t -maxdepth 3",
    l_t_maxdepth_2_type_d: "-L t -maxdepth 2 -type d",
    // Commands.
    name_one_exec_echo_semi: "t -name one -exec echo {} ;",
    exec_printf_lt_s_gt_bs_n_plus: "t -exec printf '<%s>\\n' {} +",
    type_f_exec_echo_x_y_semi: "t -type f -exec echo x{}y {}{} ;",
    name_one_exec_cat_semi: "t -name one -exec cat {} ;",
    exec_false_semi_print: "t -exec false ; -print",
    exec_test_d_semi_print: "t -exec test -d {} ; -print",
    name_one_exec_nosuchcmd_semi: "t -name one -exec nosuchcmd {} ;",
    name_one_exec_nosuchcmd_plus: "t -name one -exec nosuchcmd {} +",
    name_one_exec_false_plus: "t -name one -exec false {} +",
    name_s1_star_exec_sh_c_echo_dollar_hash_dollar_at_sh_plus: "t -name 's1*' -exec sh -c 'echo $# \"$@\"' sh {} +",
    name_one_exec_sh_c_exit_3_semi_o_print: "t -name one -exec sh -c 'exit 3' ; -o -print",
    maxdepth_1_name_one_exec_echo_plus_semi: "t -maxdepth 1 -name one -exec echo + ;",
    maxdepth_1_name_one_exec_echo_plus_semi_2: "t -maxdepth 1 -name one -exec echo {} + ;",
    maxdepth_0_exec_echo_a_b_plus: "t -maxdepth 0 -exec echo a{}b {} +",
    name_s1_star_execdir_echo_semi: "t -name 's1*' -execdir echo {} ;",
    t_slash_maxdepth_0_execdir_pwd_semi: "t/ -maxdepth 0 -execdir pwd ;",
    t_sub_slash_execdir_echo_semi: "t/sub/ -execdir echo {} ;",
    t_one_execdir_echo_semi: "t/one -execdir echo {} ;",
    execdir_sh_c_for_a_semi_do_echo_dollar_pwd_dollar_a_semi_done_sh_plus: "t -execdir sh -c 'for a; do echo \"$PWD|$a\"; done' sh {} +",
    name_s_star_execdir_echo_x_y_semi: "t -name 's*' -execdir echo x{}y ;",
    maxdepth_1_name_s1_star_execdir_nosuchcmd_plus: "t -maxdepth 1 -name 's1*' -execdir nosuchcmd {} +",
    execdir_echo_x_plus: "t -execdir echo {}x +",
    execdir_echo_plus: "t -execdir echo {} {} +",
    okdir_echo_plus: "t -okdir echo {} +",
    execdir: "t -execdir",
    // Errors.
    foo: "t -foo",
    name: "t -name",
    open_name_a: "t ( -name a",
    name_a_close: "t -name a )",
    close: "t )",
    open_close: "t ( )",
    not: "t !",
    not_not: "t ! !",
    not_2: "t -not",
    a: "t -a",
    name_a_o: "t -name a -o",
    name_a_a_o_name_b: "t -name a -a -o -name b",
    not_o_name_b: "t ! -o -name b",
    open_a: "t ( -a",
    name_a_comma: "t -name a ,",
    print_comma: "t -print ,",
    print_comma_close: "t -print , )",
    not_close: "t ! )",
    print_close: "t -print )",
    open: "t (",
    open_print: "t ( -print",
    comma: "t ,",
    t_x: "t x",
    name_a_x: "t -name a x",
    mtime_x: "t -mtime x",
    mtime_1x: "t -mtime 1x",
    mtime_empty: "t -mtime ''",
    size_1x: "t -size 1x",
    size_x: "t -size x",
    size_1kk: "t -size 1kk",
    size_empty: "t -size ''",
    size_plus_1_dot_5k: "t -size +1.5k",
    perm_999: "t -perm 999",
    perm_u_plus_q: "t -perm u+q",
    perm_plus_222: "t -perm +222",
    perm_dash: "t -perm -",
    user_nosuch: "t -user nosuch",
    group_nosuch: "t -group nosuch",
    user_empty: "t -user ''",
    group_empty: "t -group ''",
    uid_x: "t -uid x",
    uid_1: "t -uid '1 '",
    links_x: "t -links -x",
    inum_1_dot_5: "t -inum 1.5",
    newer_nope: "t -newer nope",
    newer: "t -newer",
    type_q: "t -type q",
    type_f_comma_q: "t -type f,q",
    type_ff: "t -type ff",
    type_empty: "t -type ''",
    type_f_comma: "t -type f,",
    type_comma_f: "t -type ,f",
    type_f_comma_f: "t -type f,f",
    type_d_2: "t -type D",
    xtype_q: "t -xtype q",
    xtype: "t -xtype",
    regextype_foo: "t -regextype foo",
    regextype: "t -regextype",
    maxdepth_x: "t -maxdepth x",
    maxdepth_minus_1: "t -maxdepth -1",
    maxdepth_plus_1: "t -maxdepth +1",
    exec_echo: "t -exec echo",
    exec_semi: "t -exec ;",
    exec_echo_plus: "t -exec echo {} {} +",
    exec_echo_x_plus: "t -exec echo {}x +",
    ok_echo_plus: "t -ok echo {} +",
    prune_delete: "t -prune -delete",
    newerxy_x: "t -newerXY x",
    newerqt_x: "t -newerqt x",
    newermt: "t -newermt",
    newermt_garbage: "t -newermt garbage",
    samefile_nope: "t -samefile nope",
    regex_bs_open: "t -regex '\\('",
    regex_a_bs: "t -regex 'a\\{'",
    regextype_posix_extended_regex_open: "t -regextype posix-extended -regex '('",
    regextype_posix_extended_regex_a_close: "t -regextype posix-extended -regex 'a)'",
    ox_t: "-Ox t",
    depth_1: "t -depth 1",
    empty_x: "t -empty x",
}

/// One expression of `expressions`, compared as root.
fn check_expression(case: &str) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    check_all(&fx, &[case], &|c| c);
}

#[test]
fn the_expression_table_keeps_its_150_cases_or_more() {
    let n = expressions::ALL.len();
    assert!(n >= 150, "{n} cases");
}

/// One case of `unprivileged`: both tools run as `nobody` on the fixture
/// (made as root).
fn check_unprivileged(case: &str) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    check_all(&fx, &[case], &as_nobody);
}

test_cases! { mod unprivileged: &str => check_unprivileged;
    t: "t",
    name_hidden_inside: "t -name hidden-inside",
    readable: "t -readable",
    not_readable: "t ! -readable",
    writable: "t -writable",
    executable: "t -executable",
    empty: "t -empty",
    type_d_empty: "t -type d -empty",
    t_locked: "t/locked",
    t_locked_hidden_inside: "t/locked/hidden-inside",
    t_noread: "t/noread",
    t_noread_known: "t/noread/known",
    t_noread_size_0: "t/noread -size 0",
    l_t: "-L t",
    depth: "t -depth",
    delete: "t -delete",
}

/// Every path in the tree under `root`, relative to it.
fn tree(root: &Path) -> BTreeSet<Vec<u8>> {
    let out = Command::new("find")
        .arg(".")
        .current_dir(root)
        .output()
        .unwrap();
    out.stdout
        .split(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

/// Panics unless dents's and GNU's runs of `case` (`outcome`: each one's
/// output and the tree it left) are the same.
fn assert_same_outcome(case: &str, args: &[Vec<u8>], outcome: &[(Output, BTreeSet<Vec<u8>>)]) {
    let mut failures = Vec::new();
    let (d, g) = (&outcome[0], &outcome[1]);
    if let Some(f) = compare(case, args, &d.0, &g.0) {
        failures.push(f);
    }
    if d.1 != g.1 {
        failures.push(format!("{case}: trees differ: {:?} vs {:?}", d.1, g.1));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// One case of `deletions`: each tool deletes in a copy of the same small
/// tree; their outputs and what is left must be equal.
fn check_deletion(case: &str) {
    let args = words(case);
    let mut outcome = Vec::new();
    for tool in [dents(), gnu()] {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path().join("t");
        for d in ["sub/inner", "keep/k", "d"] {
            fs::create_dir_all(t.join(d)).unwrap();
        }
        for f in [
            "a.tmp",
            "b",
            "sub/c.tmp",
            "sub/inner/d",
            "keep/e.tmp",
            "keep/k/f",
        ] {
            fs::write(t.join(f), b"x").unwrap();
        }
        symlink("d", t.join("linkd")).unwrap();
        let out = run(tool, tmp.path(), &args, None);
        outcome.push((out, tree(tmp.path())));
    }
    assert_same_outcome(case, &args, &outcome);
}

test_cases! { mod deletions: &str => check_deletion;
    name_star_dot_tmp_delete: "t -name '*.tmp' -delete",
    delete: "t -delete",
    type_f_delete_print: "t -type f -delete -print",
    name_sub_delete: "t -name sub -delete",
    path_t_keep_prune_o_delete: "t -path t/keep -prune -o -delete",
    depth_path_t_keep_prune_o_delete: "t -depth -path t/keep -prune -o -delete",
    empty_delete: "t -empty -delete",
    mindepth_1_delete: "t -mindepth 1 -delete",
    l_t_name_d_delete: "-L t -name d -delete",
}

/// `argv.sh` beside the tree: a script that records its whole argv, one
/// call per line group.
fn argv_script(fx: &Fixture) {
    let script = fx.path("argv.sh");
    fs::write(
        &script,
        "#!/bin/sh\nfor a in \"$0\" \"$@\"; do printf '[%s]' \"$a\"; done; printf '\\n'\n",
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn exec_children_see_exact_argument_lists() {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    argv_script(&fx);
    let cases = [
        "t -name 's*' -exec ./argv.sh {} ;",
        "t -name 's*' -exec ./argv.sh pre {} post ;",
        "t -name 'one' -exec ./argv.sh {}{} x{}y {} ;",
        "t -name 'one' -exec ./argv.sh '' {} ;",
        "t -name 'with*' -exec ./argv.sh {} ;",
        "t -name 'new*' -exec ./argv.sh {} ;",
    ];
    check_all(&fx, &cases, &|c| c);
}

/// One case of `exec_plus`: with `+`, one call gets all the paths:
/// compare the sets of arguments and the fixed ones.
fn check_exec_plus(case: &str) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    argv_script(&fx);
    let args = words(case);
    let d = run(dents(), fx.root(), &args, None);
    let g = run(gnu(), fx.root(), &args, None);
    let norm = |o: &Output| {
        let s = String::from_utf8_lossy(&o.stdout).into_owned();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines.len(), 1, "one call for {case}: {s}");
        let mut parts: Vec<String> = lines[0]
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split("][")
            .map(str::to_string)
            .collect();
        let fixed = parts.len() - fx_count(&parts);
        let mut paths = parts.split_off(fixed);
        paths.sort();
        (parts, paths)
    };
    assert_eq!(norm(&d), norm(&g), "{case}");
    assert_eq!(d.status.code(), g.status.code(), "{case}");
}

test_cases! {
/// `-exec ... {} +`: the arguments of the one call, against GNU's.
mod exec_plus: &str => check_exec_plus;
    paths_only: "t -name 's*' -exec ./argv.sh {} +",
    fixed_words_then_paths: "t -name 's*' -exec ./argv.sh first second {} +",
}

/// How many of the recorded arguments are paths of the tree.
fn fx_count(parts: &[String]) -> usize {
    parts.iter().filter(|p| p.starts_with("t/")).count()
}

/// One case of `execdir_path`: `-execdir` with `PATH` set to `path`
/// (refused when it holds a relative directory), as GNU find.
fn check_execdir_path(path: &str) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let args = words("t -maxdepth 0 -execdir echo {} ;");
    let mut out = Vec::new();
    for mut tool in [dents(), gnu()] {
        tool.env("PATH", path);
        out.push(run(tool, fx.root(), &args, None));
    }
    if let Some(f) = compare(path, &args, &out[0], &out[1]) {
        panic!("{f}");
    }
}

test_cases! {
/// `-execdir` refuses a `PATH` with a relative directory, as GNU find.
mod execdir_path: &str => check_execdir_path;
    dot_inside: "/usr/bin:.:/bin",
    empty_inside: "/usr/bin::/bin",
    empty_first: ":/bin",
    relative_last: "/bin:rel",
    absolute_only: "/usr/bin:/bin",
}

/// `-ok`/`-okdir` with the answers on standard input, against GNU find:
/// standard output, standard error and status.
fn ok_prompts_like_gnu((case, input): (&str, &[u8])) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let args = words(case);
    let d = run(dents(), fx.root(), &args, Some(input));
    let g = run(gnu(), fx.root(), &args, Some(input));
    assert_eq!(
        String::from_utf8_lossy(&d.stdout),
        String::from_utf8_lossy(&g.stdout),
        "{case}"
    );
    assert_eq!(
        String::from_utf8_lossy(&d.stderr).replace("dents:", "find:"),
        String::from_utf8_lossy(&g.stderr),
        "{case}"
    );
    assert_eq!(d.status.code(), g.status.code(), "{case}");
}

dents_testfs::test_cases! {
    /// One test per command line and answers.
    mod ok_prompts: (&str, &[u8]) => ok_prompts_like_gnu;
    yes: ("t/one -ok echo hi {} ;", b"y\n"),
    no: ("t/one -ok echo hi {} ;", b"n\n"),
    yes_with_more_words: ("t/one -ok echo hi {} ;", b"yes please\n"),
    no_answer_at_all: ("t/one -ok echo hi {} ;", b""),
    two_files_yes_then_no: ("t/one t/two -ok echo {} ;", b"Y\nn\n"),
    okdir_yes: ("t/one -okdir echo hi {} ;", b"y\n"),
    okdir_on_a_starting_directory: ("t/sub/ -maxdepth 0 -okdir pwd ;", b"y\n"),
    // GNU documents the command's stdin as /dev/null (4.9 leaves it
    // closed, a bug); a command that does not read it sees no difference.
    answer_followed_by_more_input: ("t/one -ok sh -c 'echo ran $0' {} ;", b"y\nleft over\n"),
}

/// The stat calls (any of the stat family) that `dents find ARGS` makes on
/// the entries under its starting point `tree`: calls whose path argument
/// is one of their names (relative to a directory's descriptor) or paths.
/// The starting point itself, the program's own start-up (locale, time
/// zone, /proc) and `AT_EMPTY_PATH` calls on descriptors are not counted.
fn entry_stats(cwd: &Path, tree: &str, args: &[Vec<u8>], env: &[(&str, &str)]) -> usize {
    let args: Vec<&OsStr> = args.iter().map(|a| OsStr::from_bytes(a)).collect();
    entry_stat_calls(
        &[env!("CARGO_BIN_EXE_dents"), "find"],
        &args,
        cwd,
        tree,
        env,
    )
}

/// Whether strace runs; if not, the test is skipped (a failure under CI).
fn have_strace(what: &str) -> bool {
    let ok = have_program("strace", "-V");
    if !ok {
        dents_testfs::skip(&format!("strace not installed; {what} did not run"));
    }
    ok
}

/// The stat calls `dents find CASE` makes on the entries under `t/sub`,
/// and how many entries there are; `None` (the test skipped) without
/// strace (`check` names what is skipped).
fn sub_entry_stats(check: &str, case: &str) -> Option<(usize, usize)> {
    if !have_strace(check) {
        return None;
    }
    let fx = Fixture::new_or_skip()?;
    let entries = entry_names_and_paths(fx.root(), "t/sub").1.len();
    assert_eq!(entries, 11, "t/sub changed: update the counts below");
    Some((entry_stats(fx.root(), "t/sub", &words(case), &[]), entries))
}

/// One case of `no_stats`: no stat of any entry.
fn check_no_stats(case: &str) {
    if let Some((stats, _)) = sub_entry_stats("the no-stat check", case) {
        assert_eq!(stats, 0, "{case}");
    }
}

test_cases! {
/// The test's filesystem gives every entry's type: no test below needs
/// a stat, and the walk itself needs none.
mod no_stats: &str => check_no_stats;
    false_: "-j1 t/sub -false",
    print: "-j1 t/sub",
    name: "-j1 t/sub -name '*.c'",
    type_f: "-j1 t/sub -type f",
    path_or_type_d: "-j1 t/sub -path '*deep*' -o -type d",
    regex: "-j1 t/sub -regex '.*x'",
    type_d_name_parallel: "t/sub -type d -name 'd*'",
}

/// One case of `one_stat_each`: one stat of each entry, no more.
fn check_one_stat_each(case: &str) {
    if let Some((stats, entries)) = sub_entry_stats("the no-stat check", case) {
        assert_eq!(stats, entries, "{case}");
    }
}

test_cases! {
/// -size needs one stat of each entry, no more.
mod one_stat_each: &str => check_one_stat_each;
    size_over_1: "-j1 t/sub -size +1",
    size_under_1k_parallel: "t/sub -size -1k -print",
    size_over_0_dfs: "-S dfs t/sub -size +0",
}

/// One case of `threads_and_order`: `dents find EXTRA CASE` against GNU
/// `find CASE`: the threads, the search order, the optimisation level
/// and `-D tree` change nothing but the order.
fn check_threads_and_order((case, extra): (&str, &str)) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let args = words(case);
    let g = run(gnu(), fx.root(), &args, None);
    let mut with = words(extra);
    with.extend(args.iter().cloned());
    let d = run(dents(), fx.root(), &with, None);
    let mut d_err = d.stderr.clone();
    if extra == "-D tree" {
        // The tree is an extra line of ours.
        let s = String::from_utf8_lossy(&d.stderr).into_owned();
        assert!(s.contains("optimised expression: "), "{s}");
        d_err = s
            .lines()
            .filter(|l| !l.contains("optimised expression: "))
            .flat_map(|l| format!("{l}\n").into_bytes())
            .collect();
    }
    let d = Output { stderr: d_err, ..d };
    if let Some(f) = compare(case, &with, &d, &g) {
        panic!("with {extra}: {f}");
    }
}

test_cases! {
/// Each of four expressions with each option that must change nothing
/// but the order: `-j1`, `-j 3`, `-S dfs`, `-S bfs -j2`, `-O0`, `-O3`,
/// `-D tree`.
mod threads_and_order: (&str, &str) => check_threads_and_order;
    all_j1: ("t", "-j1"),
    all_j3: ("t", "-j 3"),
    all_dfs: ("t", "-S dfs"),
    all_bfs_j2: ("t", "-S bfs -j2"),
    all_o0: ("t", "-O0"),
    all_o3: ("t", "-O3"),
    all_debug_tree: ("t", "-D tree"),
    name_j1: ("t -name '*e*'", "-j1"),
    name_j3: ("t -name '*e*'", "-j 3"),
    name_dfs: ("t -name '*e*'", "-S dfs"),
    name_bfs_j2: ("t -name '*e*'", "-S bfs -j2"),
    name_o0: ("t -name '*e*'", "-O0"),
    name_o3: ("t -name '*e*'", "-O3"),
    name_debug_tree: ("t -name '*e*'", "-D tree"),
    depth_j1: ("t -depth -type d", "-j1"),
    depth_j3: ("t -depth -type d", "-j 3"),
    depth_dfs: ("t -depth -type d", "-S dfs"),
    depth_bfs_j2: ("t -depth -type d", "-S bfs -j2"),
    depth_o0: ("t -depth -type d", "-O0"),
    depth_o3: ("t -depth -type d", "-O3"),
    depth_debug_tree: ("t -depth -type d", "-D tree"),
    follow_j1: ("-L t -type l", "-j1"),
    follow_j3: ("-L t -type l", "-j 3"),
    follow_dfs: ("-L t -type l", "-S dfs"),
    follow_bfs_j2: ("-L t -type l", "-S bfs -j2"),
    follow_o0: ("-L t -type l", "-O0"),
    follow_o3: ("-L t -type l", "-O3"),
    follow_debug_tree: ("-L t -type l", "-D tree"),
}

/// One case of `print_on_a_terminal`: `-print` on a terminal shows
/// unprintable bytes as question marks, as GNU find, in `locale`.
fn check_print_on_a_terminal((locale, expr): (&str, &str)) {
    if Command::new("script").arg("-V").output().is_err() {
        return dents_testfs::skip("script(1) not installed; the terminal check did not run");
    }
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let on_tty = |prog: &str| {
        let out = Command::new("script")
            .args(["-qc", &format!("{prog} {expr}"), "/dev/null"])
            .current_dir(fx.root())
            .env("LC_ALL", locale)
            // dents colors paths on a terminal (as bfs); GNU does not.
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        sorted_records(&out.stdout, b'\n')
    };
    let dents = format!("{} find", env!("CARGO_BIN_EXE_dents"));
    let (d, g) = (on_tty(&dents), on_tty("find"));
    assert!(g.concat().len() > 10, "{locale}: {expr}: {g:?}");
    assert_eq!(d, g, "{locale}: {expr}");
}

test_cases! {
/// `-print` and `-print0` on a terminal, in the C and a UTF-8 locale.
mod print_on_a_terminal: (&str, &str) => check_print_on_a_terminal;
    c_print: ("C", "t -name 'new*' -o -name 'bad*' -o -name 'caf*'"),
    c_print0: ("C", "t -name 'new*' -print0"),
    utf8_print: ("C.UTF-8", "t -name 'new*' -o -name 'bad*' -o -name 'caf*'"),
}

// ---------------------------------------------------------------------
// GNU's remaining options (-files0-from, -warn, -context, -D, every
// -regextype, -daystart's position) and acting through directory
// descriptors (-execdir, -delete), with GNU's batch sizes for `{} +`.
// ---------------------------------------------------------------------

test_cases! {
/// Expressions compared as root, beside lists for `-files0-from` that
/// `check_gnu_option` writes next to the tree.
mod gnu_options: &str => check_gnu_option;
    // -files0-from: names, errors, and what it cannot be combined with.
    files0_from_list: "-files0-from list",
    files0_from_list_name_one: "-files0-from list -name one",
    files0_from_list_maxdepth_0: "-files0-from list -maxdepth 0",
    files0_from_slashes_maxdepth_1_printf_h_p_p_nl: "-files0-from slashes -maxdepth 1 -printf '%H|%P|%p\\x5cn'",
    files0_from_list_depth_maxdepth_1: "-files0-from list -depth -maxdepth 1",
    files0_from_with_empty: "-files0-from with-empty",
    files0_from_just_nul: "-files0-from just-nul",
    files0_from_no_final_nul: "-files0-from no-final-nul",
    files0_from_nothing: "-files0-from nothing",
    files0_from_with_missing: "-files0-from with-missing",
    files0_from_missing_then_empty: "-files0-from missing-then-empty",
    files0_from_nosuch: "-files0-from nosuch",
    files0_from_t: "-files0-from t",
    files0_from: "-files0-from",
    name_one_files0_from_list: "-name one -files0-from list",
    files0_from_nosuch_files0_from_list: "-files0-from nosuch -files0-from list",
    files0_from_list_files0_from_with_missing: "-files0-from list -files0-from with-missing",
    files0_from_list_2: "t -files0-from list",
    t_t_sub_name_x_files0_from_list: "t t/sub -name x -files0-from list",
    files0_from_nosuch_foo: "-files0-from nosuch -foo",
    files0_from_list_quit: "-files0-from list -quit",
    files0_from_list_name_s1_star_execdir_sh_c_echo_dollar_pwd_dollar_at_s: "-files0-from list -name 's1*' -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} +",
    files0_from_list_files0_from_dash_okdir_echo_semi: "-files0-from list -files0-from - -okdir echo {} ;",
    files0_from_dash_files0_from_one_okdir_echo_semi: "-files0-from - -files0-from one -okdir echo {} ;",
    // -context without SELinux.
    context_x: "t -context x",
    context: "t -context",
    foo_context_x: "t -foo -context x",
    context_x_foo: "t -context x -foo",
    // Warnings: off without a terminal, on with -warn, positional.
    name_one_maxdepth_1: "t -name one -maxdepth 1",
    warn_name_one_maxdepth_1: "t -warn -name one -maxdepth 1",
    warn_name_one_mindepth_1_depth_xdev_noleaf: "t -warn -name one -mindepth 1 -depth -xdev -noleaf",
    warn_type_f_mount_ignore_readdir_race_noignore_readdir_race: "t -warn -type f -mount -ignore_readdir_race -noignore_readdir_race",
    warn_not_maxdepth_1: "t -warn ! -maxdepth 1",
    warn_open_maxdepth_1_close: "t -warn ( -maxdepth 1 )",
    warn_print_maxdepth_0: "t -warn -print -maxdepth 0",
    warn_true_maxdepth_0: "t -warn -true -maxdepth 0",
    warn_a_maxdepth_0: "t -warn -a -maxdepth 0",
    warn_name_one_o_maxdepth_0: "t -warn -name one -o -maxdepth 0",
    warn_daystart_follow_regextype_emacs_nowarn_warn_maxdepth_0: "t -warn -daystart -follow -regextype emacs -nowarn -warn -maxdepth 0",
    warn_name_x_files0_from_list: "t -warn -name x -files0-from list",
    name_one_maxdepth_1_warn: "t -name one -maxdepth 1 -warn",
    warn_maxdepth_0_name_one_maxdepth_0: "t -warn -maxdepth 0 -name one -maxdepth 0",
    warn_d: "t -warn -d",
    warn_name_one_d: "t -warn -name one -d",
    d: "t -d",
    warn_name_a_b: "t -warn -name a/b",
    warn_name_slash: "t -warn -name /",
    warn_iname_a_b: "t -warn -iname a/b",
    name_a_b: "t -name a/b",
    warn_name_a_slash_nowarn_name_c_d: "t -warn -name a/ -nowarn -name c/d",
    nowarn_name_a_slash_warn: "t -nowarn -name a/ -warn",
    path_a_slash: "t -path a/",
    nowarn_wholename_t_slash: "t -nowarn -wholename 't/'",
    warn_ipath_a_slash_slash: "t -warn -ipath a//",
    iwholename_slash: "t -iwholename /",
    warn_lname_a_b: "t -warn -lname a/b",
    // -noleaf, -noignore_readdir_race: accepted, no effect.
    noleaf_type_d: "t -noleaf -type d",
    ignore_readdir_race_noignore_readdir_race_name_s_star: "t -ignore_readdir_race -noignore_readdir_race -name 's*'",
    // -daystart: affects the tests after it only; twice is once.
    mtime_0_daystart: "t -mtime 0 -daystart",
    mtime_minus_4_daystart_mtime_minus_4: "t -mtime -4 -daystart -mtime -4",
    daystart_daystart_mtime_3: "t -daystart -daystart -mtime 3",
    mmin_minus_100_daystart_mmin_minus_2000: "t -mmin -100 -daystart -mmin -2000",
    daystart_mmin_plus_1000: "t -daystart -mmin +1000",
    daystart_amin_minus_3000_ctime_0: "t -daystart -amin -3000 -ctime 0",
    daystart_newermt_2010_01_01_mtime_plus_100: "t -daystart -newermt 2010-01-01 -mtime +100",
    // -D: flags GNU knows, warnings for the others, help.
    d_help: "-D help",
    d_tree_comma_help_t: "-D tree,help t",
    d_foo_comma_bar_t_maxdepth_0: "-D foo,bar t -maxdepth 0",
    dtree_t: "-Dtree t",
    // Every -regextype GNU lists, each with its own dialect.
    regextype_help: "t -regextype help",
    regextype_findutils_default_regex_dot_star_new_dot_line: "t -regextype findutils-default -regex '.*new.line'",
    regextype_emacs_regex_dot_star_new_dot_line: "t -regextype emacs -regex '.*new.line'",
    regextype_emacs_regex_t_s_bs_open_1_bs_5_bs_close_lb_0_9_rb_plus: "t -regextype emacs -regex 't/s\\(1\\|5\\)[0-9]+'",
    regextype_emacs_regex_t_s1_3: "t -regextype emacs -regex 't/s1{3}'",
    regextype_emacs_regex_t_s_lb_z_a_rb_star: "t -regextype emacs -regex 't/s[z-a]*'",
    regextype_emacs_regex_dot_star_e_caret_x_dot_star: "t -regextype emacs -regex '.*e^x.*'",
    regextype_ed_regex_t_s_bs_open_1_bs_5_bs_close_1_bs_plus_lb_0_9_rb_sta: "t -regextype ed -regex 't/s\\(1\\|5\\)1\\+[0-9]*'",
    regextype_sed_regex_t_s5_bs_1_comma_bs_1_bs_qmark_lb_0_9_rb: "t -regextype sed -regex 't/s5\\{1,\\}1\\?[0-9]'",
    regextype_posix_basic_regex_dot_star_bs_open_one_bs_two_bs_close: "t -regextype posix-basic -regex '.*/\\(one\\|two\\)'",
    regextype_posix_basic_regex_t_s1_bs_comma_2_bs: "t -regextype posix-basic -regex 't/s1\\{,2\\}'",
    regextype_posix_basic_regex_t_s1_bs_3_comma_1_bs: "t -regextype posix-basic -regex 't/s1\\{3,1\\}'",
    // Reversed intervals in every dialect (refused where `{` is an interval).
    regextype_findutils_default_regex_dot_star_s_3_comma_1: "t -regextype findutils-default -regex '.*s{3,1}'",
    regextype_ed_regex_dot_star_s_3_comma_1: "t -regextype ed -regex '.*s{3,1}'",
    regextype_emacs_regex_dot_star_s_3_comma_1: "t -regextype emacs -regex '.*s{3,1}'",
    regextype_gnu_awk_regex_dot_star_s_3_comma_1: "t -regextype gnu-awk -regex '.*s{3,1}'",
    regextype_grep_regex_dot_star_s_3_comma_1: "t -regextype grep -regex '.*s{3,1}'",
    regextype_posix_awk_regex_dot_star_s_3_comma_1: "t -regextype posix-awk -regex '.*s{3,1}'",
    regextype_awk_regex_dot_star_s_3_comma_1: "t -regextype awk -regex '.*s{3,1}'",
    regextype_posix_basic_regex_dot_star_s_3_comma_1: "t -regextype posix-basic -regex '.*s{3,1}'",
    regextype_posix_egrep_regex_dot_star_s_3_comma_1: "t -regextype posix-egrep -regex '.*s{3,1}'",
    regextype_egrep_regex_dot_star_s_3_comma_1: "t -regextype egrep -regex '.*s{3,1}'",
    regextype_posix_extended_regex_dot_star_s_3_comma_1: "t -regextype posix-extended -regex '.*s{3,1}'",
    regextype_posix_minimal_basic_regex_dot_star_s_3_comma_1: "t -regextype posix-minimal-basic -regex '.*s{3,1}'",
    regextype_sed_regex_dot_star_s_3_comma_1: "t -regextype sed -regex '.*s{3,1}'",
    regextype_posix_basic_regex_t_s_lb_z_a_rb: "t -regextype posix-basic -regex 't/s[z-a]'",
    regextype_posix_minimal_basic_regex_dot_star_bs_open_one_bs_two_bs_clo: "t -regextype posix-minimal-basic -regex '.*/\\(one\\|two\\)'",
    regextype_posix_minimal_basic_regex_t_s51_bs_plus: "t -regextype posix-minimal-basic -regex 't/s51\\+'",
    regextype_posix_minimal_basic_regex_t_s1_star: "t -regextype posix-minimal-basic -regex 't/s1*'",
    regextype_grep_regex_t_one_t_two: "t -regextype grep -regex 't/one\nt/two'",
    regextype_grep_regex_t_s1_bs_4_bs: "t -regextype grep -regex 't/s1\\{4\\}'",
    regextype_egrep_regex_t_one_t_two: "t -regextype egrep -regex 't/one\nt/two'",
    regextype_egrep_regex_t_s1_x: "t -regextype egrep -regex 't/s1{x'",
    regextype_posix_egrep_regex_dot_star_bs_w_plus: "t -regextype posix-egrep -regex '.*/\\w+'",
    regextype_posix_extended_regex_t_s1_x: "t -regextype posix-extended -regex 't/s1{x'",
    regextype_posix_extended_regex_t_s1_comma_2: "t -regextype posix-extended -regex 't/s1{,2}'",
    regextype_posix_extended_regex_star_x: "t -regextype posix-extended -regex '*x'",
    regextype_posix_extended_regex_dot_star_open_o_close_ne_bs_1_star: "t -regextype posix-extended -regex '.*/(o)ne\\1*'",
    regextype_awk_regex_dot_star_bs_w_plus: "t -regextype awk -regex '.*/\\w+'",
    regextype_awk_regex_t_s1_2: "t -regextype awk -regex 't/s1{2}'",
    regextype_awk_regex_t_s_lb_bs_rb_0_9_rb_plus: "t -regextype awk -regex 't/s[\\]0-9]+'",
    regextype_awk_regex_dot_star_open_x_close_bs_1: "t -regextype awk -regex '.*(x)\\1'",
    regextype_gnu_awk_regex_dot_star_bs_w_plus: "t -regextype gnu-awk -regex '.*/\\w+'",
    regextype_gnu_awk_regex_t_s1_2_comma: "t -regextype gnu-awk -regex 't/s1{2,}'",
    regextype_gnu_awk_regex_t_s1_x: "t -regextype gnu-awk -regex 't/s1{x'",
    regextype_posix_awk_regex_dot_star_bs_w_plus: "t -regextype posix-awk -regex '.*/\\w+'",
    regextype_posix_awk_regex_dot_star_lb_bs_w_rb_plus: "t -regextype posix-awk -regex '.*/[\\w]+'",
    regextype_posix_awk_regex_t_s1_1_comma_2: "t -regextype posix-awk -regex 't/s1{1,2}'",
    regextype_posix_extended_iregex_t_s1_1_comma_2: "t -regextype posix-extended -iregex 'T/S1{1,2}'",
    // Commands: argv and working directory, GNU's words for a signal.
    name_one_exec_sh_c_kill_term_dollar_dollar_semi_print: "t -name one -exec sh -c 'kill -TERM $$' ; -print",
    name_one_exec_sh_c_kill_term_dollar_dollar_plus: "t -name one -exec sh -c 'kill -TERM $$' {} +",
    name_s1_star_execdir_sh_c_for_a_semi_do_echo_dollar_pwd_dollar_a_semi: "t -name 's1*' -execdir sh -c 'for a; do echo \"$PWD\" \"$a\"; done' sh {} +",
    t_sub_slash_slash_maxdepth_0_execdir_sh_c_echo_dollar_pwd_dollar_at_sh: "t/sub// -maxdepth 0 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} ;",
    t_slash_slash_maxdepth_0_execdir_sh_c_echo_dollar_pwd_dollar_at_sh_plu: "t// -maxdepth 0 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} +",
    dot_t_slash_maxdepth_0_execdir_sh_c_echo_dollar_pwd_dollar_at_sh_semi: "./t/ -maxdepth 0 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} ;",
    dot_maxdepth_0_execdir_sh_c_echo_dollar_pwd_dollar_at_sh_semi: ". -maxdepth 0 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} ;",
    dot_dot_maxdepth_0_execdir_sh_c_echo_dollar_pwd_dollar_at_sh_semi: ".. -maxdepth 0 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} ;",
    slash_maxdepth_0_execdir_sh_c_echo_dollar_pwd_dollar_at_sh_semi: "/ -maxdepth 0 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} ;",
    t_sub_deep_maxdepth_1_execdir_sh_c_echo_dollar_pwd_dollar_at_sh_plus: "t/sub/deep -maxdepth 1 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} +",
}

/// Writes the lists `gnu_options` read with `-files0-from`.
fn write_lists(fx: &Fixture) {
    for (name, data) in [
        ("list", &b"t/one\0t/sub\0t/s1\0"[..]),
        ("one", b"t/one\0"),
        ("with-empty", b"t/one\0\0t/sub\0\0"),
        ("just-nul", b"\0"),
        ("slashes", b"t/\0t\0t//sub\0"),
        ("no-final-nul", b"t/one\0t/two"),
        ("nothing", b""),
        ("with-missing", b"nope\0t/one\0"),
        ("missing-then-empty", b"t/one\0nope\0\0t/two\0"),
    ] {
        fs::write(fx.path(name), data).unwrap();
    }
}

/// One case of `gnu_options`, compared as root beside the lists.
fn check_gnu_option(case: &str) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    write_lists(&fx);
    check_all(&fx, &[case], &|c| c);
}

/// GNU's "Try 'find --help'" line names the program; the rest must be
/// equal.
fn same_but_program_name(d: &Output, g: &Output, case: &str) {
    let norm = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .replace("dents find", "find")
            .replace("dents:", "find:")
    };
    assert_eq!(norm(&d.stdout), norm(&g.stdout), "{case}: stdout");
    assert_eq!(norm(&d.stderr), norm(&g.stderr), "{case}: stderr");
    assert_eq!(d.status.code(), g.status.code(), "{case}: status");
}

/// One case of `debug_option_errors`: `-D` without or with bad words,
/// GNU's messages and status.
fn check_debug_option_error(case: &str) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let args = words(case);
    let d = run(dents(), fx.root(), &args, None);
    let g = run(gnu(), fx.root(), &args, None);
    same_but_program_name(&d, &g, case);
}

test_cases! {
/// `-D` errors match GNU's.
mod debug_option_errors: &str => check_debug_option_error;
    missing: "-D",
    comma: "-D ,",
    empty: "-D ''",
    two_commas: "-D ,, t",
    trailing_comma: "-D exec, t -maxdepth 0",
    leading_comma: "-D ,stat t -maxdepth 0",
    unknown_words: "-D foo,quux,x t -maxdepth 0",
}

#[test]
fn debug_options_write_diagnostics_to_stderr() {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let d = run(
        dents(),
        fx.root(),
        &words("-D exec t/one -exec echo {} ;"),
        None,
    );
    let g = run(
        gnu(),
        fx.root(),
        &words("-D exec t/one -exec echo {} ;"),
        None,
    );
    assert_eq!(d.stdout, g.stdout);
    // GNU's words, but for the process id.
    let pidless = |o: &Output| {
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .map(|l| match l.find("(PID=") {
                Some(i) => l[..i].to_string() + &l[l.find(')').unwrap()..],
                None => l.to_string(),
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(pidless(&d), pidless(&g));
    assert!(pidless(&d)[0].starts_with("DebugExec: launching process (argc=2): 'echo' 't/one'"));
    // In a UTF-8 locale, the locale's quotation marks, as GNU's.
    let utf8 = |mut c: Command| {
        c.current_dir(fx.root())
            .env("LC_ALL", "C.UTF-8")
            .args(["-D", "exec", "t/one", "-exec", "echo", "x y", "{}", ";"])
            .output()
            .unwrap()
    };
    let (du, gu) = (utf8(dents()), utf8(gnu()));
    assert_eq!(pidless(&du), pidless(&gu));
    assert!(
        pidless(&du)[0].contains("\u{2018}x y\u{2019}"),
        "{:?}",
        pidless(&du)
    );
    // The same marks in warnings.
    let warn = |mut c: Command, prog: &str| {
        let o = c
            .current_dir(fx.root())
            .env("LC_ALL", "C.UTF-8")
            .args(["t", "-warn", "-name", "a/b"])
            .output()
            .unwrap();
        stderr_lines(&o.stderr, prog)
    };
    let w = warn(dents(), "dents");
    assert_eq!(w, warn(gnu(), "find"));
    assert!(
        String::from_utf8_lossy(&w.concat()).contains("\u{2018}-name\u{2019}"),
        "{w:?}"
    );
    let err = |args: &str| {
        let o = run(dents(), fx.root(), &words(args), None);
        assert_eq!(o.status.code(), Some(0), "{args}");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    assert!(err("-D stat t/sub -maxdepth 1 -size 0").contains("debug_stat (a.c)"));
    let rates = err("-D rates t -name one -type f");
    assert!(rates.contains("-name one [real success rate 1/"), "{rates}");
    assert!(rates.contains("-type f [real success rate 1/1="), "{rates}");
    assert!(err("-D search t/sub -maxdepth 0").contains("'t/sub': depth=0"));
    assert!(err("-D time t -maxdepth 0").starts_with("cur_day_start = "));
    assert!(err("-D all t -maxdepth 0").contains("optimised expression"));
    assert_eq!(err("-D tree t -maxdepth 0").lines().count(), 1);
}

dents_testfs::test_cases! {
    /// `-version` and `--help`: each command line alone (what the output
    /// starts with, a line it holds).
    mod version_and_help: (&str, &str, &str) => version_and_help_have_gnu_shape;
    version: ("-version", "find (dents) ", "Features enabled: "),
    double_dash_version: ("--version", "find (dents) ", "NO WARRANTY"),
    version_before_a_bad_word: ("t -name x -version -foo", "find (dents) ", "Features enabled: "),
    help: ("-help", "Usage: dents find ", "-files0-from FILE"),
    double_dash_help_after_a_path: ("t --help", "Usage: dents find ", "Valid arguments for -D:"),
}

/// One case of `version_and_help`: GNU's shape, status 0, nothing on
/// standard error.
fn version_and_help_have_gnu_shape((args, first, has): (&str, &str, &str)) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let o = run(dents(), fx.root(), &words(args), None);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with(first), "{args}: {out}");
    assert!(out.contains(has), "{args}: {out}");
    assert_eq!(o.status.code(), Some(0), "{args}");
    assert!(o.stderr.is_empty(), "{args}");
}

dents_testfs::test_cases! {
    /// `-files0-from -`: one test per command line and standard input.
    mod files0_stdin: (&str, &[u8]) => files0_from_standard_input_matches_gnu;
    two_starts: ("-files0-from -", b"t/one\0t/sub\0"),
    with_a_test: ("-files0-from - -name 'b*'", b"t/sub\0t\0"),
    one_empty_name: ("-files0-from -", b"\0"),
    empty_name_between_and_no_last_nul: ("-files0-from -", b"t/one\0\0t/two"),
    missing_then_empty_then_one: ("-files0-from -", b"nope\0\0t/one\0"),
    no_input: ("-files0-from -", b""),
    // Refused before reading: no input (writing any could meet a closed
    // pipe).
    ok_refused: ("-files0-from - -ok echo {} ;", b""),
    okdir_refused: ("-files0-from - -okdir echo {} ;", b""),
    exec_batch: ("-files0-from - -exec echo {} +", b"t/one\0t/two\0"),
}

/// One case of `files0_stdin`: both tools read the same standard input.
fn files0_from_standard_input_matches_gnu((case, input): (&str, &[u8])) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let args = words(case);
    let d = run(dents(), fx.root(), &args, Some(input));
    let g = run(gnu(), fx.root(), &args, Some(input));
    if let Some(f) = compare(case, &args, &d, &g) {
        panic!("{f}");
    }
}

/// The sizes of the `{} +` batches a tool makes over `dir` (sorted).
fn batch_sizes(tool: Command, cwd: &Path) -> Vec<usize> {
    let o = run(
        tool,
        cwd,
        &words("d -type f -exec sh -c 'echo $#' sh {} +"),
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut v: Vec<usize> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn exec_plus_batches_are_gnus() {
    // Equal-length names: the batches depend on the limit only, not on
    // the order files are met.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d");
    fs::create_dir(&d).unwrap();
    for i in 0..12_000 {
        fs::File::create(d.join(format!("f{i:019}"))).unwrap();
    }
    let plain = batch_sizes(dents(), tmp.path());
    assert_eq!(plain, batch_sizes(gnu(), tmp.path()));
    // 128 KiB of "d/f...\0" (23 bytes) after the command's 17.
    assert_eq!(plain.iter().max(), Some(&((128 * 1024 - 17) / 23)));
    assert_eq!(plain.iter().sum::<usize>(), 12_000);
    // A large environment: GNU deducts it from ARG_MAX but not the
    // pointers, so its lines are then too long for the kernel; dents
    // fails the same way (not a better way).
    let big: Vec<(String, String)> = (0..15)
        .map(|i| (format!("DENTS_PAD{i}"), "x".repeat(127 * 1024)))
        .collect();
    let args = words("d -type f -exec sh -c 'echo $#' sh {} +");
    let with_env = |tool: Command| {
        let mut tool = tool;
        for (k, v) in &big {
            tool.env(k, v);
        }
        run(tool, tmp.path(), &args, None)
    };
    let (d, g) = (with_env(dents()), with_env(gnu()));
    if let Some(f) = compare("big environment", &args, &d, &g) {
        panic!("{f}");
    }
}

/// Builds `t/a/{f1..f6}` and `other/{f1..f6}` in `root`, and a script
/// `swap.sh` that, the first time it runs, renames `t/a` to `t/a.orig`
/// and puts a symlink `t/a -> ../other` in its place.
fn swap_fixture(root: &Path) {
    for d in ["t/a", "other"] {
        fs::create_dir_all(root.join(d)).unwrap();
        for i in 1..=6 {
            fs::write(root.join(d).join(format!("f{i}")), b"x").unwrap();
        }
    }
    let script = root.join("swap.sh");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\ncd {root}\nif [ ! -e swapped ]; then\n  touch swapped\n  \
             mv t/a t/a.orig\n  ln -s ../other t/a\nfi\n",
            root = root.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
}

/// The names left in `dir`.
fn names_in(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// One case of `swapped_for_a_symlink`: `-execdir` and `-delete` act in
/// the directory walked even when it is swapped for a symlink meanwhile,
/// on 1, 2 and 8 threads (`batch`: one `{} +` call at the end).
fn check_swapped_for_a_symlink((case, batch): (&str, bool)) {
    for j in ["-j1", "-j2", "-j8"] {
        let case = &format!("{j} {case}");
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        swap_fixture(&root);
        let mut args = words(j);
        args.extend(words(case.strip_prefix(j).unwrap()));
        let o = run(dents(), &root, &args, None);
        assert_eq!(o.status.code(), Some(0), "{case}: {o:?}");
        // The swap happened, and by path `t/a` now leads elsewhere: a
        // command sent there by path would have run in `other`.
        assert!(root.join("swapped").exists(), "{case}");
        let by_path = Command::new("sh")
            .args(["-c", "cd t/a && pwd -P"])
            .current_dir(&root)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&by_path.stdout).trim(),
            root.join("other").to_string_lossy(),
            "{case}"
        );
        // Every file was removed from the original directory, none from
        // the one the symlink leads to.
        assert!(names_in(&root.join("t/a.orig")).is_empty(), "{case}");
        assert_eq!(names_in(&root.join("other")).len(), 6, "{case}");
        if case.contains("-execdir") {
            let ran = fs::read_to_string(root.join("ran")).unwrap();
            let lines: Vec<&str> = ran.lines().collect();
            assert_eq!(lines.len(), if batch { 1 } else { 6 }, "{case}: {ran}");
            let orig = root.join("t/a.orig");
            assert!(
                lines.iter().all(|l| *l == orig.to_string_lossy()),
                "{case}: {ran}"
            );
        }
    }
}

test_cases! {
/// `-execdir` and `-delete` act in the directory walked even if it is
/// swapped for a symlink.
mod swapped_for_a_symlink: (&str, bool) => check_swapped_for_a_symlink;
    // Each command records where it ran (`pwd -P`) and removes its
    // file by the name it was given.
    execdir_one_at_a_time: (
        "t/a -type f -exec ./swap.sh ; -execdir sh -c 'pwd -P >> ../../ran; rm -- \"$1\"' sh {} ;",
        false,
    ),
    // The batch waits until the end, long after the swap.
    execdir_batch: (
        "t/a -type f -exec ./swap.sh ; -execdir sh -c 'pwd -P >> ../../ran; rm -- \"$@\"' sh {} +",
        true,
    ),
    delete: ("t/a -type f -exec ./swap.sh ; -delete", false),
}

/// One case of `awkward_deletions`: run inside `t`, on copies; messages,
/// statuses and what is left are compared.
fn check_awkward_deletion(case: &str) {
    let args = words(case);
    let mut outcome = Vec::new();
    for tool in [dents(), gnu()] {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path().join("t");
        fs::create_dir_all(t.join("x")).unwrap();
        fs::create_dir_all(t.join("e")).unwrap();
        fs::write(t.join("x/y"), b"y").unwrap();
        fs::write(t.join("z"), b"z").unwrap();
        let out = run(tool, &t, &args, None);
        outcome.push((out, tree(tmp.path())));
    }
    assert_same_outcome(case, &args, &outcome);
}

test_cases! { mod awkward_deletions: &str => check_awkward_deletion;
    dot_delete: ". -delete",
    dot_maxdepth_0_delete: ". -maxdepth 0 -delete",
    dot_x_delete: "./x -delete",
    e_slash_delete: "e/ -delete",
    e_slash_slash_delete: "e// -delete",
    dot_dot_maxdepth_0_delete: ".. -maxdepth 0 -delete",
    slash_maxdepth_0_delete: "/ -maxdepth 0 -delete",
    dot_x_slash_name_y_delete: "./x/ -name y -delete",
}

// ---------------------------------------------------------------------
// Output actions: -printf, -fprintf, -ls, -fls, -fprint, -fprint0, and
// the -fstype test.  Kept apart from the tables above.

/// Every strftime letter (and GNU's `+`, `@`), and a few it does not know.
const TIME_LETTERS: &str = "aAbBcCdDeFgGhHIjklmMnprRsStTuUVwWxXyYzZ+@%qEO:";

/// `-printf` with every time letter of field `k` (`A`, `C`, `T`).
fn time_case(k: char) -> String {
    let body: String = TIME_LETTERS
        .chars()
        .map(|c| format!("{c}=%{k}{c}|"))
        .collect();
    format!("t -printf '{body}\\x5cn'")
}

test_cases! {
/// `-printf`, `-ls`, `-fstype` compared as root on the fixture.
mod printf: &str => check_printf;
    // Names and places.
    printf_p_f_h_h_p_d_nl: "t -printf '%p|%f|%h|%H|%P|%d\\x5cn'",
    t_slash_printf_p_f_h_h_p_d_nl: "t/ -printf '%p|%f|%h|%H|%P|%d\\x5cn'",
    dot_t_maxdepth_2_printf_p_f_h_h_p_nl: "./t -maxdepth 2 -printf '%p|%f|%h|%H|%P\\x5cn'",
    t_slash_slash_maxdepth_1_printf_p_f_h_h_p_nl: "t// -maxdepth 1 -printf '%p|%f|%h|%H|%P\\x5cn'",
    t_sub_t_sub_deep_t_maxdepth_2_printf_h_p_d_nl: "t/sub t/sub/deep t -maxdepth 2 -printf '%H|%P|%d\\x5cn'",
    t_one_t_sub_slash_printf_p_f_h_h_p_nl: "t/one t/sub/ -printf '%p|%f|%h|%H|%P\\x5cn'",
    l_t_printf_p_f_h_h_p_d_nl: "-L t -printf '%p|%f|%h|%H|%P|%d\\x5cn'",
    // Widths and precisions beyond C's int: printf fails, nothing printed
    // for the directive, an error per file, status 1.
    maxdepth_1_printf_a_99999999999999999999db_nl: "t -maxdepth 1 -printf 'a%99999999999999999999db\\x5cn'",
    maxdepth_0_printf_a_dot_2147483648sb_pc_nl: "t -maxdepth 0 -printf 'a%.2147483648sb%pc\\x5cn'",
    // The same tree from two starting points that differ in a slash:
    // each entry names the one it was reached from.
    t_slash_t_maxdepth_2_printf_h_p_p_nl: "t/ t -maxdepth 2 -printf '%H|%P|%p\\x5cn'",
    // Numbers and types.
    printf_s_k_b_n_i_d_nl: "t -printf '%s %k %b %n %i %D\\x5cn'",
    printf_m_m_hash_m_y_y_p_nl: "t -printf '%m %M %#m %y %Y %p\\x5cn'",
    printf_l_y_y_p_nl: "t -printf '%l|%Y|%y|%p\\x5cn'",
    l_t_printf_y_y_l_p_nl: "-L t -printf '%y %Y %l|%p\\x5cn'",
    printf_u_u_g_g_p_nl: "t -printf '%u %U %g %G %p\\x5cn'",
    printf_s_10_dot_3s_hash_s_minus_8s_plus_s_s_010s_dot_2s_p_nl: "t -printf '%S %10.3S %#S %-8S| %+S % S %010S %.2S %p\\x5cn'",
    printf_f_p_nl: "t -printf '%F %p\\x5cn'",
    printf_z_p_nl: "t -printf '%Z|%p\\x5cn'",
    maxdepth_1_printf_a_c_t_p_nl: "t -maxdepth 1 -printf '%a|%c|%t %p\\x5cn'",
    // Flags, widths, precisions, on every kind of value.
    printf_lb_10p_rb_lb_minus_10f_rb_lb_dot_3p_rb_lb_5_dot_2f_rb_lb_plus_h: "t -printf '[%10p][%-10f][%.3p][%5.2f][%-+ #010.5h]\\x5cn'",
    printf_lb_plus_d_rb_lb_d_rb_lb_05d_rb_lb_minus_5d_rb_lb_dot_0d_rb_lb_h: "t -printf '[%+d][% d][%05d][%-5d][%.0d][%#d][%08.3d][%-+5d]\\x5cn'",
    printf_lb_o_rb_lb_5m_rb_lb_minus_6m_rb_lb_05m_rb_lb_dot_5m_rb_lb_hash: "t -printf '[%o][%5m][%-6m][%05m][%.5m][%#m][%#.0m][%+m][% m]\\x5cn'",
    printf_lb_020s_rb_lb_minus_20s_rb_lb_plus_s_rb_lb_hash_s_rb_lb_s_rb_lb: "t -printf '[%020s][%-20s][%+s][%#s][% s][%.2s][%08k][%.1b][%3n][%-12i]\\x5cn'",
    printf_lb_10u_rb_lb_minus_10u_rb_lb_dot_2g_rb_lb_plus_5g_rb_lb_12m_rb: "t -printf '[%10u][%-10U][%.2g][%+5G][%12M][%-3y][%3Y][%.0l][%9F]\\x5cn'",
    printf_lb_30a_rb_lb_minus_40t_rb_lb_dot_3c_rb_lb_20ty_rb_lb_minus_5td: "t -printf '[%30a][%-40t][%.3c][%20TY][%-5Td][%.2TB][%25T+][%.5T@]\\x5cn'",
    printf_lb_0_5d_rb_lb_5_rb_lb_rb_lb_rb_lb_5_dot_3q_rb_nl: "t -printf '[%0-5d][%5%][%-%][%%][%5.3q]\\x5cn'",
    // Escapes.
    maxdepth_0_printf_a_bs_a_bs_b_bs_f_nl_bs_r_bs_t_bs_v_bs_0_bs_bs_bs_101: "t -maxdepth 0 -printf 'a\\x5ca\\x5cb\\x5cf\\x5cn\\x5cr\\x5ct\\x5cv|\\x5c0|\\x5c\\x5c|\\x5c101\\x5c1012\\x5c400\\x5c7\\x5c08|'",
    maxdepth_0_printf_bs_q_bs_8_bs_p: "t -maxdepth 0 -printf '\\x5cq\\x5c8\\x5c%p|'",
    maxdepth_0_printf_before_bs_cafter_p: "t -maxdepth 0 -printf 'before\\x5ccafter %p %'",
    maxdepth_0_printf_x_bs: "t -maxdepth 0 -printf 'x\\x5c'",
    // GNU's warnings and errors.
    maxdepth_0_printf_a: "t -maxdepth 0 -printf '%A'",
    maxdepth_0_printf_q_5_dot_1k_e_0_5d: "t -maxdepth 0 -printf '%q%5.1k%-E|%0-5d'",
    printf: "t -printf",
    printf_2: "t -printf '%'",
    printf_ab: "t -printf 'ab%'",
    printf_3: "t -printf '%{'",
    printf_lb: "t -printf '%['",
    printf_open_x: "t -printf '%(x'",
    printf_5: "t -printf '%5'",
    printf_dash: "t -printf '%-'",
    printf_x_name: "t -printf '%x' -name",
    // Actions: no default -print, evaluation order, empty output.
    name_s_star_printf_f_nl: "t -name 's*' -printf '%f\\x5cn'",
    printf_empty: "t -printf ''",
    printf_f_printf_s_nl: "t -printf '%f ' -printf '%s\\x5cn'",
    open_name_one_printf_one_p_nl_close_o_print: "t ( -name one -printf 'one:%p\\x5cn' ) -o -print",
    type_d_printf_p_nl_prune: "t -type d -printf '%p\\x5cn' -prune",
    maxdepth_0_printf_p_nl_quit: "t -maxdepth 0 -printf '%p\\x5cn' -quit",
    size_plus_1000_printf_p_s_nl: "t -size +1000 -printf '%p %s\\x5cn'",
    // -ls (the owner without a name widens GNU's column for the lines
    // after it, so it is listed alone; see ls_whole_tree_matches_gnu).
    not_name_orphan_ls: "t ! -name orphan -ls",
    name_orphan_ls: "t -name orphan -ls",
    type_l_ls: "t -type l -ls",
    l_t_not_name_orphan_ls: "-L t ! -name orphan -ls",
    t_chardev_t_blockdev_ls: "t/chardev t/blockdev -ls",
    name_one_ls_ls: "t -name one -ls -ls",
    maxdepth_1_name_new_star_ls_o_name_bad_star_ls_o_name_with_star_ls: "t -maxdepth 1 -name 'new*' -ls -o -name 'bad*' -ls -o -name 'with*' -ls",
    // -fstype, %F.
    fstype_ext4: "t -fstype ext4",
    fstype_tmpfs: "t -fstype tmpfs",
    not_fstype_ext4_o_fstype_tmpfs_name_one: "t ! -fstype ext4 -o -fstype tmpfs -name one",
    fstype: "t -fstype",
    slash_proc_sys_slash_sys_slash_dev_slash_dev_shm_slash_maxdepth_0_prin: "/proc/sys /sys /dev /dev/shm / -maxdepth 0 -printf '%F|%p\\x5cn'",
    slash_maxdepth_1_open_fstype_proc_o_fstype_sysfs_o_fstype_devtmpfs_o_f: "/ -maxdepth 1 ( -fstype proc -o -fstype sysfs -o -fstype devtmpfs -o -fstype tmpfs )",
    slash_proc_sys_maxdepth_1_printf_f_f_nl: "/proc/sys -maxdepth 1 -printf '%F %f\\x5cn'",
    slash_dev_maxdepth_1_fstype_devpts: "/dev -maxdepth 1 -fstype devpts",
    // A birth time the filesystem does not give.
    slash_proc_sys_maxdepth_0_printf_b_at_b_plus_10bk_minus_3by_bq_nl: "/proc/sys -maxdepth 0 -printf '%B@|%B+|%10Bk|%-3BY|%Bq|\\x5cn'",
}

/// Reads every directory and symlink of the tree once, so that the
/// access times (which `%A` and `%a` print) are settled before the tools
/// are compared (relatime updates an access time once, after a change).
fn settle_access_times(fx: &Fixture) {
    for args in ["t -printf %l", "-L t -printf %l"] {
        run(gnu(), fx.root(), &words(args), None);
    }
}

/// One case of `printf` (or of the time letters), compared as root.
fn check_printf(case: &str) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let before = run(gnu(), fx.root(), &words(&time_case('A')), None);
    check_all(&fx, &[case], &|c| c);
    // If access times moved while we compared, the %A cases proved
    // nothing: say so rather than pass.
    let after = run(gnu(), fx.root(), &words(&time_case('A')), None);
    assert_eq!(
        before.stdout, after.stdout,
        "access times changed during the comparison (strictatime?)"
    );
}

#[test]
fn printf_every_access_time_letter() {
    check_printf(&time_case('A'));
}

#[test]
fn printf_every_change_time_letter() {
    check_printf(&time_case('C'));
}

#[test]
fn printf_every_modification_time_letter() {
    check_printf(&time_case('T'));
}

/// Collapses runs of blanks (GNU's -ls columns depend on the order).
fn squeeze(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = bytes
        .split(|&b| b == b'\n')
        .map(|l| {
            let mut out = Vec::new();
            for &b in l {
                if !(b == b' ' && out.last() == Some(&b' ')) {
                    out.push(b);
                }
            }
            out
        })
        .collect();
    v.sort();
    v
}

/// One case of `ls_whole_tree`: `-ls` lines as GNU's, runs of blanks
/// aside (the column widths).
fn check_ls_whole_tree(case: &str) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let args = words(case);
    let d = run(dents(), fx.root(), &args, None);
    let g = run(gnu(), fx.root(), &args, None);
    assert!(g.stdout.len() > 1000, "{case}");
    assert_eq!(squeeze(&d.stdout), squeeze(&g.stdout), "{case}");
    assert_eq!(d.status.code(), g.status.code(), "{case}");
    assert_eq!(
        stderr_lines(&d.stderr, "dents:"),
        stderr_lines(&g.stderr, "find:"),
        "{case}"
    );
}

test_cases! {
/// `-ls` and `-fls` on the whole tree match GNU but for column widths.
mod ls_whole_tree: &str => check_ls_whole_tree;
    ls: "t -ls",
    ls_following: "-L t -ls",
    fls_stdout: "t -fls /dev/stdout",
}

test_cases! {
/// `-fprint`, `-fprint0`, `-fprintf`, `-fls`: `{OUT}` is a directory of
/// each tool's own beside the tree, holding `link -> a`.
mod output_files: &str => check_output_file;
    fprint_out_a: "t -fprint {OUT}/a",
    fprint0_out_a: "t -fprint0 {OUT}/a",
    fprintf_out_a_p_s_m_nl: "t -fprintf {OUT}/a '%p %s %m\\x5cn'",
    not_name_orphan_fls_out_a: "t ! -name orphan -fls {OUT}/a",
    fprint_out_a_fprint_out_a: "t -fprint {OUT}/a -fprint {OUT}/a",
    fprint_out_a_fprintf_out_dot_a_lb_f_rb_nl: "t -fprint {OUT}/a -fprintf {OUT}/./a '[%f]\\x5cn'",
    fprint_out_a_fprint_out_link: "t -fprint {OUT}/a -fprint {OUT}/link",
    name_s_star_fprint_out_a_o_fprint0_out_b: "t -name 's*' -fprint {OUT}/a -o -fprint0 {OUT}/b",
    fprint_out_a_print: "t -fprint {OUT}/a -print",
    maxdepth_1_fprint_slash_dev_stdout_print: "t -maxdepth 1 -fprint /dev/stdout -print",
    maxdepth_1_fprint_slash_dev_stderr: "t -maxdepth 1 -fprint /dev/stderr",
    maxdepth_1_fprintf_slash_dev_stderr_f_nl_fls_slash_dev_stdout_fprint0: "t -maxdepth 1 -fprintf /dev/stderr '%f\\x5cn' -fls /dev/stdout -fprint0 /dev/stdout",
    maxdepth_1_name_new_star_fprint_out_a_fprint0_out_b_fprintf_out_c_p_f: "t -maxdepth 1 -name 'new*' -fprint {OUT}/a -fprint0 {OUT}/b -fprintf {OUT}/c '%p|%f\\x5cn'",
    fprint_out_nodir_x: "t -fprint {OUT}/nodir/x",
    maxdepth_0_fprintf_out_a_a_2147483648pb_nl: "t -maxdepth 0 -fprintf {OUT}/a 'a%2147483648pb\\x5cn'",
    // A file that cannot be written: reported, the others still written.
    fprint_slash_dev_full_fprint_out_a: "t -fprint /dev/full -fprint {OUT}/a",
    maxdepth_1_fprintf_slash_dev_full_p_nl_print: "t -maxdepth 1 -fprintf /dev/full '%p\\x5cn' -print",
    fprint_out: "t -fprint {OUT}",
    fprint_out_a_foo: "t -fprint {OUT}/a -foo",
    foo_fprint_out_a: "t -foo -fprint {OUT}/a",
    fprintf_out_a: "t -fprintf {OUT}/a",
    fprintf_out_a_2: "t -fprintf {OUT}/a '%'",
    fprint_out_a_fprintf_out_b_x: "t -fprint {OUT}/a -fprintf {OUT}/b 'x%'",
    false_fprint_out_a: "t -false -fprint {OUT}/a",
    fprint: "t -fprint",
    fprint0: "t -fprint0",
    fls: "t -fls",
}

#[test]
fn a_full_standard_output_is_reported_as_gnu_reports_it() {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let full = || {
        fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let mut outs = Vec::new();
    for (mut tool, prog) in [(dents(), "dents"), (gnu(), "find")] {
        let o = tool
            .current_dir(fx.root())
            .env("LC_ALL", "C")
            .args(["t", "-fprint", "side", "-print"])
            .stdout(full())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let side = fs::read(fx.path("side")).unwrap();
        fs::remove_file(fx.path("side")).unwrap();
        outs.push((
            o.status.code(),
            stderr_lines(&o.stderr, prog),
            sorted_records(&side, b'\n'),
        ));
    }
    let g = outs.pop().unwrap();
    let d = outs.pop().unwrap();
    assert_eq!(d, g);
    assert_eq!(d.0, Some(1));
}

/// The files in `dir` and their sorted records (NUL-separated if the
/// file holds a NUL, else lines).
fn written(dir: &Path) -> Vec<(String, Vec<Vec<u8>>)> {
    let mut v: Vec<(String, Vec<Vec<u8>>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let meta = fs::symlink_metadata(e.path()).unwrap();
            let body = if meta.file_type().is_symlink() {
                vec![b"(link)".to_vec()]
            } else {
                let body = fs::read(e.path()).unwrap();
                sorted_records(&body, if body.contains(&0) { 0 } else { b'\n' })
            };
            (name, body)
        })
        .collect();
    v.sort();
    v
}

/// One case of `output_files`: each tool writes into its own directory
/// beside the fixture; outputs and the files written must be equal.
fn check_output_file(case: &str) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let mut failures = Vec::new();
    let mut results = Vec::new();
    for (tool, dir) in [(dents(), "out-dents"), (gnu(), "out-gnu")] {
        let out = fx.path(dir);
        let _ = fs::remove_dir_all(&out);
        fs::create_dir(&out).unwrap();
        symlink("a", out.join("link")).unwrap();
        let args = words(&case.replace("{OUT}", dir));
        let mut o = run(tool, fx.root(), &args, None);
        o.stderr = String::from_utf8_lossy(&o.stderr)
            .replace(dir, "OUT")
            .into_bytes();
        results.push((args, o, written(&out)));
    }
    let (d, g) = (&results[0], &results[1]);
    if let Some(f) = compare(case, &d.0, &d.1, &g.1) {
        failures.push(f);
    }
    if d.2 != g.2 {
        failures.push(format!("{case}: files differ:\n{:?}\n{:?}", d.2, g.2));
    }
    if case == output_files::ALL[0] {
        let a = g.2.iter().find(|(n, _)| n == "a").expect("GNU wrote out/a");
        assert!(a.1.len() > 40, "{case}: {} lines", a.1.len());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_shared_output_file_keeps_each_files_lines_together() {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let out = fx.path("out");
    fs::create_dir(&out).unwrap();
    let args = words("t ! -name 'new*' -fprintf out/a 'X %p\\x5cn' -fprintf out/./a 'Y %p\\x5cn'");
    let d = run(dents(), fx.root(), &args, None);
    assert!(d.status.success());
    let text = fs::read(out.join("a")).unwrap();
    let lines: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert!(lines.len() > 40, "{}", lines.len());
    for pair in lines.chunks(2) {
        assert_eq!(pair.len(), 2);
        assert!(pair[0].starts_with(b"X ") && pair[1].starts_with(b"Y "));
        assert_eq!(pair[0][2..], pair[1][2..]);
    }
}

#[test]
fn birth_times_are_the_filesystems() {
    // GNU find 4.9 cannot read birth times on Linux (its -newerB refuses
    // to run); dents prints what statx gives, checked against stat(1).
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let args = words("t -maxdepth 1 -name 's*' -printf '%p|%Bs|%B+\\x5cn'");
    let d = run(dents(), fx.root(), &args, None);
    let text = String::from_utf8(d.stdout).unwrap();
    let mut checked = 0;
    // The fixture has s0, s1, s511... and sparse, sticky, setuid...
    assert!(text.lines().count() >= 8, "{text:?}");
    for line in text.lines() {
        let mut f = line.split('|');
        let (path, secs, plus) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
        let st = Command::new("stat")
            .args(["-c", "%W|%w"])
            .arg(path)
            .current_dir(fx.root())
            .env("TZ", "UTC")
            .output()
            .unwrap();
        let st = String::from_utf8(st.stdout).unwrap();
        let (w_secs, w_human) = st.trim_end().split_once('|').unwrap();
        if w_human == "-" {
            assert_eq!((secs, plus), ("", ""), "{line}");
            continue;
        }
        assert_eq!(secs, w_secs, "{line}");
        // stat: `2026-11-22 22:08:49.248749089 +0000`; GNU's %B+:
        // `2026-11-22+22:08:49.2487490890`.
        let expect = format!(
            "{}0",
            w_human.split(' ').take(2).collect::<Vec<_>>().join("+")
        );
        assert_eq!(plus, expect, "{line}");
        checked += 1;
    }
    eprintln!("{checked} birth times checked against stat(1)");
    // The fixture lives in a temporary directory; where that filesystem
    // keeps birth times (ext4, tmpfs, xfs, btrfs all do), each was checked.
    let fs_has_btime = Command::new("stat")
        .args(["-c", "%W"])
        .arg(fx.root())
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() != b"0");
    if fs_has_btime {
        assert_eq!(checked, text.lines().count(), "{text:?}");
    }
}

/// One case of `printf_no_stats`: directives that need no stat.
fn check_printf_no_stats(case: &str) {
    if let Some((n, _)) = sub_entry_stats("the stat-mask check", case) {
        assert_eq!(n, 0, "{case}: {n} stats of entries");
    }
}

test_cases! {
/// `-printf` stats only what its directives read: names, depths, types
/// and link targets need none, nor does `-fprint`.
mod printf_no_stats: &str => check_printf_no_stats;
    names_depth_type_link: "-j1 t/sub -printf '%p|%f|%h|%d|%y|%l\\x5cn'",
    relative_names_parallel: "t/sub -printf '%P %H %y\\x5cn'",
    fprint: "-j1 t/sub -fprint out-x",
}

/// One case of `printf_one_stat_each`: directives that need a stat, one
/// of each entry.
fn check_printf_one_stat_each(case: &str) {
    if let Some((n, n_entries)) = sub_entry_stats("the stat-mask check", case) {
        assert_eq!(n, n_entries, "{case}: {n} stats of {n_entries} entries");
    }
}

test_cases! {
/// Sizes, modes and owners need one stat of each entry.
mod printf_one_stat_each: &str => check_printf_one_stat_each;
    size: "-j1 t/sub -printf '%s\\x5cn'",
    mode_and_owner_parallel: "t/sub -printf '%p %m %u\\x5cn'",
}

/// One case of `printf_stat_masks`: the `statx` calls of `dents find
/// ARGS` on entries ask for `mask` alone.
fn check_printf_stat_mask((args, mask): (&str, &str)) {
    if !have_strace("the stat-mask check") {
        return;
    }
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let n_entries = entry_names_and_paths(fx.root(), "t/sub").1.len();
    let log = |args: &str| {
        let out = Command::new("strace")
            .args(["-f", "-qq", "-e", "trace=statx", "-o"])
            .arg(fx.path("strace.out"))
            .arg(env!("CARGO_BIN_EXE_dents"))
            .arg("find")
            .args(words(args).iter().map(|a| OsStr::from_bytes(a)))
            .current_dir(fx.root())
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(out.success());
        fs::read_to_string(fx.path("strace.out")).unwrap()
    };
    let text = log(args);
    let entries: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("statx(") && !l.contains("AT_FDCWD") && !l.contains("\"\""))
        .collect();
    assert_eq!(entries.len(), n_entries, "{args}: {text}");
    for l in entries {
        assert!(l.contains(mask), "{args}: {l}");
    }
}

test_cases! {
/// `%s` asks for the size alone; `%TY %u` for the time and owner.
mod printf_stat_masks: (&str, &str) => check_printf_stat_mask;
    size: (
        "-j1 t/sub -printf '%p %s\\x5cn'",
        "STATX_TYPE|STATX_MODE|STATX_SIZE,",
    ),
    mtime_and_owner: (
        "-j1 t/sub -printf '%TY %u\\x5cn'",
        "STATX_TYPE|STATX_MODE|STATX_UID|STATX_MTIME,",
    ),
}

/// One case of `printf_on_a_terminal`: `EXPR` (its `{NAMES}` the names
/// with unprintable bytes) on a terminal in `locale`: unprintables shown
/// as question marks, as GNU find.
fn check_printf_on_a_terminal((locale, expr): (&str, &str)) {
    if Command::new("script").arg("-V").output().is_err() {
        return dents_testfs::skip("script(1) not installed; the terminal check did not run");
    }
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let names = "-name 'new*' -o -name 'bad*' -o -name 'caf*' -o -name 'link-one'";
    let expr = expr.replace("{NAMES}", names);
    let on_tty = |prog: &str| {
        let out = Command::new("script")
            .args(["-qc", &format!("{prog} {expr}"), "/dev/null"])
            .current_dir(fx.root())
            .env("LC_ALL", locale)
            .env("TZ", "UTC")
            // GNU find never colors; dents does on a terminal.
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        sorted_records(&out.stdout, b'\n')
    };
    let dents = format!("{} find", env!("CARGO_BIN_EXE_dents"));
    let (d, g) = (on_tty(&dents), on_tty("find"));
    assert!(g.concat().len() > 10, "{locale}: {expr}: {g:?}");
    assert_eq!(d, g, "{locale}: {expr}");
}

test_cases! {
/// `-printf`'s directives, `-ls`, `-fprint` and `-fprint0` on a terminal.
mod printf_on_a_terminal: (&str, &str) => check_printf_on_a_terminal;
    c_printf: (
        "C",
        "t \\( {NAMES} \\) -printf '%p|%f|%h|%P|%H|%l|%u|%10f|%-12p|\\n'",
    ),
    utf8_printf: (
        "C.UTF-8",
        "t \\( {NAMES} \\) -printf '%p|%f|%.4f|%F|\\n'",
    ),
    c_ls: ("C", "t \\( {NAMES} \\) -ls"),
    c_fprint_fprint0: (
        "C",
        "t \\( {NAMES} \\) -fprint /dev/stdout -fprint0 /dev/stdout",
    ),
}

/// One case of `posixly_correct_blocks`: `-ls` and `%k` count 512-byte
/// blocks under `POSIXLY_CORRECT`, as GNU find.
fn check_posixly_correct_blocks(case: &str) {
    let Some(fx) = Fixture::new_or_skip() else {
        return;
    };
    let args = words(case);
    let mut out = Vec::new();
    for mut tool in [dents(), gnu()] {
        tool.env("POSIXLY_CORRECT", "1");
        let mut cmd = tool;
        cmd.current_dir(fx.root())
            .env("LC_ALL", "C")
            .env("TZ", "UTC")
            .args(args.iter().map(|a| OsStr::from_bytes(a)))
            .stdin(Stdio::null());
        out.push(cmd.output().unwrap());
    }
    assert!(out[1].stdout.len() > 500, "{case}");
    if let Some(f) = compare(case, &args, &out[0], &out[1]) {
        panic!("{f}");
    }
}

test_cases! {
/// 512-byte blocks when `POSIXLY_CORRECT` is set.
mod posixly_correct_blocks: &str => check_posixly_correct_blocks;
    ls: "t ! -name orphan -ls",
    printf_k_b: "t -printf '%k %b %p\\x5cn'",
}

/// One case of `closed_pipe`: `find d d ... EXPR` whose reader closes the
/// pipe after the first record ends at once and quietly, as GNU find.
fn check_closed_pipe(expr: &[&str]) {
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    dents_testfs::fill_flat(&tmp.path().join("d"), 20_000, |i| format!("f{i:06}"));
    // 2,000 starting points of 20,000 entries each: 40 million lines, tens
    // of seconds to walk and write in full (about 2 s per 4 million on the
    // project's machines), far beyond the bound.
    let bound = std::time::Duration::from_secs(2);
    let starts = vec!["d"; 2000];
    let mut results = Vec::new();
    for mut cmd in [dents(), gnu()] {
        cmd.current_dir(tmp.path())
            .env("LC_ALL", "C")
            .args(&starts)
            .args(expr);
        let sep = if expr.contains(&"-print0") { 0 } else { b'\n' };
        results.push(dents_testfs::first_line_then_close(cmd, sep, bound));
    }
    let (g_line, g_status, g_err, _) = results.pop().unwrap();
    let (d_line, d_status, d_err, took) = results.pop().unwrap();
    // GNU is killed by SIGPIPE at its next write, and says nothing.
    assert_eq!(g_status.and_then(|s| s.signal()), Some(13), "GNU {expr:?}");
    assert!(
        g_err.is_empty(),
        "GNU {expr:?}: {}",
        String::from_utf8_lossy(&g_err)
    );
    assert!(
        d_status.is_some(),
        "dents find {expr:?} still running {took:?} after its output was closed"
    );
    assert_eq!(
        d_status.and_then(|s| s.signal()),
        g_status.and_then(|s| s.signal()),
        "{expr:?}: {d_status:?}"
    );
    assert!(
        d_err.is_empty(),
        "{expr:?}: {}",
        String::from_utf8_lossy(&d_err)
    );
    // The first record is whole (which entry it is depends on the walk).
    let end: &[u8] = if expr.contains(&"-print0") {
        b"\0"
    } else {
        b"\n"
    };
    for line in [&d_line, &g_line] {
        assert!(
            line.starts_with(b"d") && line.ends_with(end),
            "{expr:?}: {:?}",
            String::from_utf8_lossy(line)
        );
    }
}

test_cases! {
/// A closed pipe ends find at once and quietly, as GNU's SIGPIPE.
mod closed_pipe: &[&str] => check_closed_pipe;
    print: &[],
    printf: &["-printf", "%p %y\\n"],
    print0: &["-type", "f", "-print0"],
}

/// `x/needle`, and `d` with 20,000 files.
fn needle_and_hay() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir(tmp.path().join("x")).unwrap();
    fs::write(tmp.path().join("x/needle"), b"").unwrap();
    dents_testfs::fill_flat(&tmp.path().join("d"), 20_000, |i| format!("f{i:06}"));
    tmp
}

/// A match (`x/needle`) and then 40 million entries that do not match:
/// `dents find ... | head -1` ends at once and quietly once head has
/// gone, not at the end of the walk (tens of seconds) where GNU's would,
/// never writing again.
#[test]
fn closed_pipe_ends_a_walk_that_writes_nothing() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = needle_and_hay();
    let mut cmd = dents();
    cmd.current_dir(tmp.path())
        .env("LC_ALL", "C")
        .arg("x")
        .args(vec!["d"; 2000])
        .args(["-name", "needle"]);
    let bound = std::time::Duration::from_secs(2);
    let (line, status, err, took) = dents_testfs::first_line_then_close(cmd, b'\n', bound);
    assert_eq!(String::from_utf8_lossy(&line), "x/needle\n");
    assert_eq!(
        status.and_then(|s| s.signal()),
        Some(13),
        "{status:?}: still running {took:?} after its output was closed"
    );
    assert_eq!(String::from_utf8_lossy(&err), "");
}

/// An expression that writes a file too (`-fprint`) goes on when
/// standard output's reader leaves, as GNU's does until it writes
/// there: the file is whole.
#[test]
fn closed_pipe_leaves_a_walk_with_other_effects_to_its_end() {
    let tmp = needle_and_hay();
    let mut cmd = dents();
    cmd.current_dir(tmp.path()).env("LC_ALL", "C").args([
        "x", "d", "-name", "needle", "-print", "-o", "-fprint", "all",
    ]);
    let bound = std::time::Duration::from_secs(60);
    let (line, status, err, took) = dents_testfs::first_line_then_close(cmd, b'\n', bound);
    assert_eq!(String::from_utf8_lossy(&line), "x/needle\n");
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "{status:?} {took:?}"
    );
    assert_eq!(String::from_utf8_lossy(&err), "");
    let all = fs::read(tmp.path().join("all")).unwrap();
    assert_eq!(
        all.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count(),
        20_002
    );
}
