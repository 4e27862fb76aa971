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

/// The fixture: `t/` inside a temporary directory (the working directory
/// of both tools), with reference files beside it.
struct Fixture {
    tmp: tempfile::TempDir,
}

/// Runs a command that must succeed.
fn run_ok(cmd: &mut Command) {
    let st = cmd.status().unwrap();
    assert!(st.success(), "{cmd:?} failed");
}

/// Sets the times of `p` (not following a symlink) with touch's date syntax.
fn touch(p: &Path, date: &str) {
    run_ok(Command::new("touch").args(["-h", "-d", date]).arg(p));
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
        touch(&t.join("one"), "2001-02-03 04:05:06");
        touch(&t.join("two"), "3 days ago");
        touch(&t.join("x"), "2 hours ago");
        touch(&t.join("s1"), "90 minutes ago");
        touch(&t.join("UPPER.TXT"), "2099-01-01 00:00:00");
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
        touch(&t.join("link-one"), "1999-12-31 23:59:59");
        touch(&t.join("sub/a.c"), "10 days ago");
        // Reference files beside the tree.
        let refs = tmp.path();
        fs::write(refs.join("ref-old"), b"").unwrap();
        touch(&refs.join("ref-old"), "2005-06-07 08:09:10");
        fs::write(refs.join("ref-day"), b"").unwrap();
        touch(&refs.join("ref-day"), "1 day ago");
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

/// `bytes` cut into records each ending with `sep` (the last one as it
/// is, terminated or not), sorted: separators are compared too.
fn sorted(bytes: &[u8], sep: u8) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = bytes
        .split_inclusive(|&b| b == sep)
        .map(<[u8]>::to_vec)
        .collect();
    v.sort();
    v
}

/// Stderr lines as bytes with the program name at their start made the
/// same, sorted.
fn stderr_lines(bytes: &[u8], prog: &str) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = bytes
        .split_inclusive(|&b| b == b'\n')
        .map(|l| match l.strip_prefix(prog.as_bytes()) {
            Some(rest) => [&b"PROG:"[..], rest].concat(),
            None => l.to_vec(),
        })
        .collect();
    v.sort();
    v
}

/// Compares one case; returns a description of the differences.
fn compare(case: &str, args: &[Vec<u8>], d: &Output, g: &Output) -> Option<String> {
    let sep = if case.contains("-print0") { 0 } else { b'\n' };
    let mut problems = Vec::new();
    if sorted(&d.stdout, sep) != sorted(&g.stdout, sep) {
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

/// The expressions compared as root.
const CASES: &[&str] = &[
    // Starting points.
    "t",
    "t/",
    "./t",
    "t t",
    "t/one",
    "t/link-sub",
    "t/link-broken",
    "nope",
    "nope t",
    "''",
    "t/one/x",
    "-",
    // Names and paths.
    "t -name one",
    "t -name '*'",
    "t -name '.*'",
    "t -name '*.txt'",
    "t -iname '*.TXT'",
    "t -iname 'upper*'",
    "t -name '[a-c]*'",
    "t -name '[!a-z]*'",
    "t -name '[^a-z]*'",
    "t -name '?'",
    "t -name '???'",
    "t -name 'star\\*'",
    "t -name '*\\?*'",
    "t -name '*[[]*'",
    "t -name '[[:upper:]]*'",
    "t -name '[[:digit:]]*'",
    "t -name '*[[:space:]]*'",
    "t -name '*[[:punct:]]*'",
    "t -name 'new?line'",
    "t -name 'bad?utf8'",
    "t -name 'bad*'",
    "t -name 'caf*'",
    "t -name 'caf?'",
    "t -name 'with space'",
    "t -name t",
    "t/ -name t",
    "t -name ''",
    "t -name '[]'",
    "t -name 's[0-9]*[13]'",
    "t -name 's1*' -name '*3'",
    "t -path 't/sub/*'",
    "t -path '*deep*'",
    "t -path 't/*/b*'",
    "t -ipath 'T/SUB*'",
    "t -wholename 't/s?'",
    "t -iwholename '*/A.C'",
    "./t -path './t/o*'",
    "t -lname 'o*'",
    "t -lname '*'",
    "t -ilname 'NO*'",
    "t -lname '/dev/*'",
    // Regular expressions.
    "t -regex '.*/one'",
    "t -regex 't/s.*'",
    "t -regex 't/s[0-9]+'",
    "t -regex 't/s[0-9]\\{3\\}'",
    "t -regex '.*\\(one\\|two\\)'",
    "t -iregex '.*/upper.*'",
    "t -regex 't'",
    "t -regex 'one'",
    "t -regex '.*new.line'",
    "t -regex '.*bad.utf8'",
    "t -regextype posix-extended -regex '.*/(one|two)'",
    "t -regextype posix-extended -regex 't/s[0-9]{3}'",
    "t -regextype posix-basic -regex '.*/o\\(n\\)e'",
    "t -regextype posix-basic -regex 't/s[0-9]\\{4\\}'",
    "t -regextype egrep -regex '.*[0-9]+'",
    "t -regextype grep -regex '.*new.line'",
    "t -regextype sed -regex '.*/s5.*'",
    "t -regextype awk -regex '.*(a|b)\\.[ch]'",
    // Types.
    "t -type f",
    "t -type d",
    "t -type l",
    "t -type p",
    "t -type s",
    "t -type c",
    "t -type b",
    "t -type f,d",
    "t -type l,p,s",
    "t -xtype l",
    "t -xtype d",
    "t -xtype f",
    "t -xtype c",
    "-L t -type l",
    "-L t -xtype l",
    "-L t -type d",
    "-H t/link-sub",
    "-H t/link-sub -type l",
    // A starting point that is a loop of links: an error under -H and -L,
    // itself under -P; a broken one is itself.
    "-L t/loop-a",
    "-H t/loop-a -maxdepth 0",
    "t/loop-a",
    "-L t/link-broken",
    "-L t/link-sub -maxdepth 1",
    "t -follow -type l",
    // Sizes.
    "t -size 0",
    "t -size -1",
    "t -size 1",
    "t -size +1",
    "t -size 2",
    "t -size 3",
    "t -size -2k",
    "t -size 1k",
    "t -size +1k",
    "t -size 511c",
    "t -size +512c",
    "t -size -513c",
    "t -size 1025c",
    "t -size 2w",
    "t -size +255w",
    "t -size +1M",
    "t -size 2M",
    "t -size -1M",
    "t -size 1G",
    "t -size -1G",
    "t -type f -size +0",
    // Times.
    "t -mtime +1000",
    "t -mtime -1",
    "t -mtime 0",
    "t -mtime 3",
    "t -mtime +2",
    "t -mtime -4",
    "t -mtime 10",
    "t -mtime -0.5",
    "t -mtime +9.5",
    "t -mmin -100",
    "t -mmin +100",
    "t -mmin -200",
    "t -mmin -130 -mmin +80",
    "t -mmin -1",
    "t -cmin -60",
    "t -ctime 0",
    "t -amin +1",
    "t -atime +100",
    "t -daystart -mtime 3",
    "t -daystart -mtime +5",
    "t -daystart -mmin -2000",
    "t -newer ref-old",
    "t -newer ref-day",
    "t -newer t/x",
    "t ! -newer ref-old",
    "-H t -newer ref-link",
    "t -newer ref-link",
    "t -anewer ref-old",
    "t -cnewer ref-old",
    "t -newermt 2010-01-01",
    "t -newermt '2098-12-31 23:59:59'",
    "t ! -newermt '2001-02-03 04:05:06'",
    "t ! -newermt '2001-02-03 04:05:05'",
    "t -newermt @1000000000",
    "t -newermm ref-day",
    "t -newercm ref-old",
    "t -neweram ref-old",
    "t -newerat 2000-01-01",
    "t -used 0",
    "t -used -1",
    "t -used +0",
    "t -used +8000",
    "t -used 1",
    "t -used -0.5",
    "t -used x",
    // Permissions.
    "t -perm 644",
    "t -perm 0644",
    "t -perm -4000",
    "t -perm -2000",
    "t -perm /6000",
    "t -perm -1000",
    "t -perm /u+s,g+s",
    "t -perm -u=rwx",
    "t -perm /o+w",
    "t -perm 0",
    "t -perm -0",
    "t -perm /0",
    "t -perm u=rwx,go=rx",
    "t -perm -g+x,u+x",
    "t -perm /a+x",
    "t -perm -a+X",
    "t -perm +w",
    "t -perm g=u",
    "t -perm 777",
    "t -perm -o=w",
    "t -perm 1777",
    // Owners.
    "t -uid 4242",
    "t -uid +4000",
    "t -uid -1",
    "t -gid 4343",
    "t -user root",
    "t -user 4242",
    "t -user nobody",
    "t -group root",
    "t -group 4343",
    "t -nouser",
    "t -nogroup",
    "t ! -user root",
    // Links, inodes, same file, emptiness, access.
    "t -links 3",
    "t -links +2",
    "t -type d -links 2",
    "t -inum {INO}",
    "t -samefile t/hard1",
    "t -samefile t/link-one",
    "-L t -samefile t/one",
    "t -empty",
    "t -type d -empty",
    "t ! -empty -type f",
    "t -readable",
    "t -writable",
    "t -executable",
    "t -executable -type f",
    // Operators.
    "t ! -type d",
    "t -not -name '*a*'",
    "t ( -name one -o -name two ) -print",
    "t -name one -o -name two -print",
    "t -name one -a -name one",
    "t -name one -and -type f",
    "t -name one -or -name two",
    "t -name one -print , -name two -print",
    "t -name one , -name two",
    "t -true",
    "t -false",
    "t -false -o -print",
    "t ! ( -type d -o -type f )",
    "t ! ! -type d",
    "t -type d ( -name sub -o -name deep )",
    "t ( ( -name one ) )",
    "t -print -print",
    "t -name '*e*' -print0",
    "t -print0",
    "t -maxdepth 1 -print -o -print",
    // Depth, pruning, stopping.
    "t -maxdepth 0",
    "t -maxdepth 1",
    "t -mindepth 2",
    "t -mindepth 1 -maxdepth 2",
    "t -mindepth 7",
    "t -depth",
    "t -depth -name sub",
    "t -d -type d",
    "t -maxdepth 1 -depth",
    "t -name sub -prune",
    "t -name sub -prune -o -print",
    "t -path t/sub -prune -o -name '*e*' -print",
    "t -depth -name sub -prune",
    "t -type d -prune",
    "t -quit",
    "t -print -quit",
    "t -name one -print -quit",
    "t -name nothing -quit -o -name one",
    "t -maxdepth 1 -xdev",
    "t -mount -name one",
    "t -noleaf -name one",
    "t -ignore_readdir_race -name one",
    "t -noignore_readdir_race -name one",
    "t -warn -name one",
    "t -nowarn -name one",
    "t -maxdepth 0 -o -print",
    "t -name x -maxdepth 0 -o -print",
    "t -maxdepth 0 -print -maxdepth 1",
    "t -daystart -name one",
    "-P t -name one",
    "-H -L -P t -maxdepth 1",
    "-- t -maxdepth 0",
    "-O0 t -name one",
    "-O3 t -size +1 -name 's*'",
    "-D foo t -name one",
    "-L t",
    "-L t -name up",
    "-L t/sub/deep",
    "-L t -maxdepth 3",
    "-L t -maxdepth 2 -type d",
    // Commands.
    "t -name one -exec echo {} ;",
    "t -exec printf '<%s>\\n' {} +",
    "t -type f -exec echo x{}y {}{} ;",
    "t -name one -exec cat {} ;",
    "t -exec false ; -print",
    "t -exec test -d {} ; -print",
    "t -name one -exec nosuchcmd {} ;",
    "t -name one -exec nosuchcmd {} +",
    "t -name one -exec false {} +",
    "t -name 's1*' -exec sh -c 'echo $# \"$@\"' sh {} +",
    "t -name one -exec sh -c 'exit 3' ; -o -print",
    "t -maxdepth 1 -name one -exec echo + ;",
    "t -maxdepth 1 -name one -exec echo {} + ;",
    "t -maxdepth 0 -exec echo a{}b {} +",
    "t -name 's1*' -execdir echo {} ;",
    "t/ -maxdepth 0 -execdir pwd ;",
    "t/sub/ -execdir echo {} ;",
    "t/one -execdir echo {} ;",
    "t -execdir sh -c 'for a; do echo \"$PWD|$a\"; done' sh {} +",
    "t -name 's*' -execdir echo x{}y ;",
    "t -maxdepth 1 -name 's1*' -execdir nosuchcmd {} +",
    "t -execdir echo {}x +",
    "t -execdir echo {} {} +",
    "t -okdir echo {} +",
    "t -execdir",
    // Errors.
    "t -foo",
    "t -name",
    "t ( -name a",
    "t -name a )",
    "t )",
    "t ( )",
    "t !",
    "t ! !",
    "t -not",
    "t -a",
    "t -name a -o",
    "t -name a -a -o -name b",
    "t ! -o -name b",
    "t ( -a",
    "t -name a ,",
    "t -print ,",
    "t -print , )",
    "t ! )",
    "t -print )",
    "t (",
    "t ( -print",
    "t ,",
    "t x",
    "t -name a x",
    "t -mtime x",
    "t -mtime 1x",
    "t -mtime ''",
    "t -size 1x",
    "t -size x",
    "t -size 1kk",
    "t -size ''",
    "t -size +1.5k",
    "t -perm 999",
    "t -perm u+q",
    "t -perm +222",
    "t -perm -",
    "t -user nosuch",
    "t -group nosuch",
    "t -user ''",
    "t -group ''",
    "t -uid x",
    "t -uid '1 '",
    "t -links -x",
    "t -inum 1.5",
    "t -newer nope",
    "t -newer",
    "t -type q",
    "t -type f,q",
    "t -type ff",
    "t -type ''",
    "t -type f,",
    "t -type ,f",
    "t -type f,f",
    "t -type D",
    "t -xtype q",
    "t -xtype",
    "t -regextype foo",
    "t -regextype",
    "t -maxdepth x",
    "t -maxdepth -1",
    "t -maxdepth +1",
    "t -exec echo",
    "t -exec ;",
    "t -exec echo {} {} +",
    "t -exec echo {}x +",
    "t -ok echo {} +",
    "t -prune -delete",
    "t -newerXY x",
    "t -newerqt x",
    "t -newermt",
    "t -newermt garbage",
    "t -samefile nope",
    "t -regex '\\('",
    "t -regex 'a\\{'",
    "t -regextype posix-extended -regex '('",
    "t -regextype posix-extended -regex 'a)'",
    "-Ox t",
    "t -depth 1",
    "t -empty x",
];

#[test]
fn expressions_match_gnu_find() {
    let fx = Fixture::new();
    assert!(CASES.len() >= 150, "{} cases", CASES.len());
    check_all(&fx, CASES, &|c| c);
}

/// Runs a command as the unprivileged user `nobody`.
fn as_nobody(cmd: Command) -> Command {
    let mut wrapped = Command::new("setpriv");
    wrapped
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(cmd.get_program())
        .args(cmd.get_args());
    wrapped
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    fs::metadata("/proc/self").unwrap().uid() == 0
}

#[test]
fn unprivileged_runs_match_gnu_find() {
    if !is_root() {
        panic!("these tests need root (to chown, mknod and switch users)");
    }
    let fx = Fixture::new();
    let cases = [
        "t",
        "t -name hidden-inside",
        "t -readable",
        "t ! -readable",
        "t -writable",
        "t -executable",
        "t -empty",
        "t -type d -empty",
        "t/locked",
        "t/locked/hidden-inside",
        "t/noread",
        "t/noread/known",
        "t/noread -size 0",
        "-L t",
        "t -depth",
        "t -delete",
    ];
    check_all(&fx, &cases, &as_nobody);
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

#[test]
fn delete_removes_what_gnu_removes() {
    let cases = [
        "t -name '*.tmp' -delete",
        "t -delete",
        "t -type f -delete -print",
        "t -name sub -delete",
        "t -path t/keep -prune -o -delete",
        "t -depth -path t/keep -prune -o -delete",
        "t -empty -delete",
        "t -mindepth 1 -delete",
        "-L t -name d -delete",
    ];
    let mut failures = Vec::new();
    for case in cases {
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
        let (d, g) = (&outcome[0], &outcome[1]);
        if let Some(f) = compare(case, &args, &d.0, &g.0) {
            failures.push(f);
        }
        if d.1 != g.1 {
            failures.push(format!("{case}: trees differ: {:?} vs {:?}", d.1, g.1));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn exec_children_see_exact_argument_lists() {
    let fx = Fixture::new();
    // A script that records its whole argv, one call per line group.
    let script = fx.path("argv.sh");
    fs::write(
        &script,
        "#!/bin/sh\nfor a in \"$0\" \"$@\"; do printf '[%s]' \"$a\"; done; printf '\\n'\n",
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let cases = [
        "t -name 's*' -exec ./argv.sh {} ;",
        "t -name 's*' -exec ./argv.sh pre {} post ;",
        "t -name 'one' -exec ./argv.sh {}{} x{}y {} ;",
        "t -name 'one' -exec ./argv.sh '' {} ;",
        "t -name 'with*' -exec ./argv.sh {} ;",
        "t -name 'new*' -exec ./argv.sh {} ;",
    ];
    check_all(&fx, &cases, &|c| c);
    // With `+`, one call gets all the paths: compare the sets of
    // arguments and the fixed ones.
    for case in [
        "t -name 's*' -exec ./argv.sh {} +",
        "t -name 's*' -exec ./argv.sh first second {} +",
    ] {
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
}

/// How many of the recorded arguments are paths of the tree.
fn fx_count(parts: &[String]) -> usize {
    parts.iter().filter(|p| p.starts_with("t/")).count()
}

#[test]
fn execdir_refuses_a_relative_path_in_path_like_gnu() {
    let fx = Fixture::new();
    for path in [
        "/usr/bin:.:/bin",
        "/usr/bin::/bin",
        ":/bin",
        "/bin:rel",
        "/usr/bin:/bin",
    ] {
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
}

#[test]
fn ok_prompts_and_reads_answers_like_gnu() {
    let fx = Fixture::new();
    for (case, input) in [
        ("t/one -ok echo hi {} ;", &b"y\n"[..]),
        ("t/one -ok echo hi {} ;", b"n\n"),
        ("t/one -ok echo hi {} ;", b"yes please\n"),
        ("t/one -ok echo hi {} ;", b""),
        ("t/one t/two -ok echo {} ;", b"Y\nn\n"),
        ("t/one -okdir echo hi {} ;", b"y\n"),
        ("t/sub/ -maxdepth 0 -okdir pwd ;", b"y\n"),
        // GNU documents the command's stdin as /dev/null (4.9 leaves it
        // closed, a bug); a command that does not read it sees no difference.
        ("t/one -ok sh -c 'echo ran $0' {} ;", b"y\nleft over\n"),
    ] {
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
}

/// The names of every entry under `root` (not `root` itself), and their
/// paths as given on the command line (`root` is relative to `cwd`).
fn entry_names(cwd: &Path, root: &str) -> (BTreeSet<Vec<u8>>, BTreeSet<Vec<u8>>) {
    fn rec(cwd: &Path, rel: &Path, names: &mut BTreeSet<Vec<u8>>, paths: &mut BTreeSet<Vec<u8>>) {
        for e in fs::read_dir(cwd.join(rel)).unwrap() {
            let e = e.unwrap();
            let p = rel.join(e.file_name());
            names.insert(e.file_name().as_bytes().to_vec());
            paths.insert(p.as_os_str().as_bytes().to_vec());
            if e.file_type().unwrap().is_dir() {
                rec(cwd, &p, names, paths);
            }
        }
    }
    let (mut names, mut paths) = (BTreeSet::new(), BTreeSet::new());
    rec(cwd, Path::new(root), &mut names, &mut paths);
    (names, paths)
}

/// A string as `strace -xx` shows it: every byte `\xNN`, in quotes.
fn strace_quoted(s: &[u8]) -> String {
    let mut q = String::from("\"");
    for b in s {
        q.push_str(&format!("\\x{b:02x}"));
    }
    q.push('"');
    q
}

/// The stat calls (any of the stat family) that `dents find ARGS` makes on
/// the entries under its starting point `tree`: calls whose path argument
/// is one of their names (relative to a directory's descriptor) or paths.
/// The starting point itself, the program's own start-up (locale, time
/// zone, /proc) and `AT_EMPTY_PATH` calls on descriptors are not counted.
fn entry_stats(cwd: &Path, tree: &str, args: &[Vec<u8>], env: &[(&str, &str)]) -> usize {
    let (names, paths) = entry_names(cwd, tree);
    let wanted: BTreeSet<String> = names
        .iter()
        .chain(&paths)
        .map(|n| strace_quoted(n))
        .collect();
    let log = cwd.join("strace.out");
    let mut cmd = Command::new("strace");
    cmd.args([
        "-f",
        "-qq",
        "-xx",
        "-s",
        "4096",
        "-e",
        "trace=statx,newfstatat,fstatat64,stat,lstat,stat64,lstat64",
        "-o",
    ])
    .arg(&log)
    .arg(env!("CARGO_BIN_EXE_dents"))
    .arg("find")
    .args(args.iter().map(|a| OsStr::from_bytes(a)))
    .current_dir(cwd)
    .env_remove("LS_COLORS")
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let st = cmd.status().expect("strace is needed");
    assert!(st.success(), "{cmd:?}: {st}");
    let text = fs::read_to_string(&log).unwrap();
    fs::remove_file(&log).unwrap();
    text.lines()
        .filter(|l| {
            // The first quoted argument: the path.
            l.split_once('"').is_some_and(|(_, rest)| {
                let end = rest.find('"').unwrap_or(rest.len());
                wanted.contains(&format!("\"{}\"", &rest[..end]))
            })
        })
        .count()
}

/// Whether strace runs; if not, the test is skipped (a failure under CI).
fn have_strace(what: &str) -> bool {
    let ok = Command::new("strace").arg("-V").output().is_ok();
    if !ok {
        dents_testfs::skip(&format!("strace not installed; {what} did not run"));
    }
    ok
}

#[test]
fn name_and_type_tests_do_not_stat() {
    if !have_strace("the no-stat check") {
        return;
    }
    let fx = Fixture::new();
    let entries = entry_names(fx.root(), "t/sub").1.len();
    assert_eq!(entries, 11, "t/sub changed: update the counts below");
    let stats = |case: &str| entry_stats(fx.root(), "t/sub", &words(case), &[]);
    // The test's filesystem gives every entry's type: no test below needs
    // a stat, and the walk itself needs none.
    for case in [
        "-j1 t/sub -false",
        "-j1 t/sub",
        "-j1 t/sub -name '*.c'",
        "-j1 t/sub -type f",
        "-j1 t/sub -path '*deep*' -o -type d",
        "-j1 t/sub -regex '.*x'",
        "t/sub -type d -name 'd*'",
    ] {
        assert_eq!(stats(case), 0, "{case}");
    }
    // -size needs one stat of each entry, no more.
    for case in [
        "-j1 t/sub -size +1",
        "t/sub -size -1k -print",
        "-S dfs t/sub -size +0",
    ] {
        assert_eq!(stats(case), entries, "{case}");
    }
}

#[test]
fn threads_and_order_change_nothing_but_order() {
    let fx = Fixture::new();
    for case in ["t", "t -name '*e*'", "t -depth -type d", "-L t -type l"] {
        let args = words(case);
        let g = run(gnu(), fx.root(), &args, None);
        for extra in [
            "-j1",
            "-j 3",
            "-S dfs",
            "-S bfs -j2",
            "-O0",
            "-O3",
            "-D tree",
        ] {
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
    }
}

#[test]
fn print_on_a_terminal_shows_unprintables_as_question_marks() {
    if Command::new("script").arg("-V").output().is_err() {
        return dents_testfs::skip("script(1) not installed; the terminal check did not run");
    }
    let fx = Fixture::new();
    for (locale, expr) in [
        ("C", "t -name 'new*' -o -name 'bad*' -o -name 'caf*'"),
        ("C", "t -name 'new*' -print0"),
        ("C.UTF-8", "t -name 'new*' -o -name 'bad*' -o -name 'caf*'"),
    ] {
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
            sorted(&out.stdout, b'\n')
        };
        let dents = format!("{} find", env!("CARGO_BIN_EXE_dents"));
        let (d, g) = (on_tty(&dents), on_tty("find"));
        assert!(g.concat().len() > 10, "{locale}: {expr}: {g:?}");
        assert_eq!(d, g, "{locale}: {expr}");
    }
}

// ---------------------------------------------------------------------
// GNU's remaining options (-files0-from, -warn, -context, -D, every
// -regextype, -daystart's position) and acting through directory
// descriptors (-execdir, -delete), with GNU's batch sizes for `{} +`.
// ---------------------------------------------------------------------

/// Expressions compared as root, beside lists for `-files0-from` that
/// `gnu_options_match_gnu_find` writes next to the tree.
const GNU_OPTION_CASES: &[&str] = &[
    // -files0-from: names, errors, and what it cannot be combined with.
    "-files0-from list",
    "-files0-from list -name one",
    "-files0-from list -maxdepth 0",
    "-files0-from slashes -maxdepth 1 -printf '%H|%P|%p\\x5cn'",
    "-files0-from list -depth -maxdepth 1",
    "-files0-from with-empty",
    "-files0-from just-nul",
    "-files0-from no-final-nul",
    "-files0-from nothing",
    "-files0-from with-missing",
    "-files0-from missing-then-empty",
    "-files0-from nosuch",
    "-files0-from t",
    "-files0-from",
    "-name one -files0-from list",
    "-files0-from nosuch -files0-from list",
    "-files0-from list -files0-from with-missing",
    "t -files0-from list",
    "t t/sub -name x -files0-from list",
    "-files0-from nosuch -foo",
    "-files0-from list -quit",
    "-files0-from list -name 's1*' -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} +",
    "-files0-from list -files0-from - -okdir echo {} ;",
    "-files0-from - -files0-from one -okdir echo {} ;",
    // -context without SELinux.
    "t -context x",
    "t -context",
    "t -foo -context x",
    "t -context x -foo",
    // Warnings: off without a terminal, on with -warn, positional.
    "t -name one -maxdepth 1",
    "t -warn -name one -maxdepth 1",
    "t -warn -name one -mindepth 1 -depth -xdev -noleaf",
    "t -warn -type f -mount -ignore_readdir_race -noignore_readdir_race",
    "t -warn ! -maxdepth 1",
    "t -warn ( -maxdepth 1 )",
    "t -warn -print -maxdepth 0",
    "t -warn -true -maxdepth 0",
    "t -warn -a -maxdepth 0",
    "t -warn -name one -o -maxdepth 0",
    "t -warn -daystart -follow -regextype emacs -nowarn -warn -maxdepth 0",
    "t -warn -name x -files0-from list",
    "t -name one -maxdepth 1 -warn",
    "t -warn -maxdepth 0 -name one -maxdepth 0",
    "t -warn -d",
    "t -warn -name one -d",
    "t -d",
    "t -warn -name a/b",
    "t -warn -name /",
    "t -warn -iname a/b",
    "t -name a/b",
    "t -warn -name a/ -nowarn -name c/d",
    "t -nowarn -name a/ -warn",
    "t -path a/",
    "t -nowarn -wholename 't/'",
    "t -warn -ipath a//",
    "t -iwholename /",
    "t -warn -lname a/b",
    // -noleaf, -noignore_readdir_race: accepted, no effect.
    "t -noleaf -type d",
    "t -ignore_readdir_race -noignore_readdir_race -name 's*'",
    // -daystart: affects the tests after it only; twice is once.
    "t -mtime 0 -daystart",
    "t -mtime -4 -daystart -mtime -4",
    "t -daystart -daystart -mtime 3",
    "t -mmin -100 -daystart -mmin -2000",
    "t -daystart -mmin +1000",
    "t -daystart -amin -3000 -ctime 0",
    "t -daystart -newermt 2010-01-01 -mtime +100",
    // -D: flags GNU knows, warnings for the others, help.
    "-D help",
    "-D tree,help t",
    "-D foo,bar t -maxdepth 0",
    "-Dtree t",
    // Every -regextype GNU lists, each with its own dialect.
    "t -regextype help",
    "t -regextype findutils-default -regex '.*new.line'",
    "t -regextype emacs -regex '.*new.line'",
    "t -regextype emacs -regex 't/s\\(1\\|5\\)[0-9]+'",
    "t -regextype emacs -regex 't/s1{3}'",
    "t -regextype emacs -regex 't/s[z-a]*'",
    "t -regextype emacs -regex '.*e^x.*'",
    "t -regextype ed -regex 't/s\\(1\\|5\\)1\\+[0-9]*'",
    "t -regextype sed -regex 't/s5\\{1,\\}1\\?[0-9]'",
    "t -regextype posix-basic -regex '.*/\\(one\\|two\\)'",
    "t -regextype posix-basic -regex 't/s1\\{,2\\}'",
    "t -regextype posix-basic -regex 't/s1\\{3,1\\}'",
    // Reversed intervals in every dialect (refused where `{` is an interval).
    "t -regextype findutils-default -regex '.*s{3,1}'",
    "t -regextype ed -regex '.*s{3,1}'",
    "t -regextype emacs -regex '.*s{3,1}'",
    "t -regextype gnu-awk -regex '.*s{3,1}'",
    "t -regextype grep -regex '.*s{3,1}'",
    "t -regextype posix-awk -regex '.*s{3,1}'",
    "t -regextype awk -regex '.*s{3,1}'",
    "t -regextype posix-basic -regex '.*s{3,1}'",
    "t -regextype posix-egrep -regex '.*s{3,1}'",
    "t -regextype egrep -regex '.*s{3,1}'",
    "t -regextype posix-extended -regex '.*s{3,1}'",
    "t -regextype posix-minimal-basic -regex '.*s{3,1}'",
    "t -regextype sed -regex '.*s{3,1}'",
    "t -regextype posix-basic -regex 't/s[z-a]'",
    "t -regextype posix-minimal-basic -regex '.*/\\(one\\|two\\)'",
    "t -regextype posix-minimal-basic -regex 't/s51\\+'",
    "t -regextype posix-minimal-basic -regex 't/s1*'",
    "t -regextype grep -regex 't/one\nt/two'",
    "t -regextype grep -regex 't/s1\\{4\\}'",
    "t -regextype egrep -regex 't/one\nt/two'",
    "t -regextype egrep -regex 't/s1{x'",
    "t -regextype posix-egrep -regex '.*/\\w+'",
    "t -regextype posix-extended -regex 't/s1{x'",
    "t -regextype posix-extended -regex 't/s1{,2}'",
    "t -regextype posix-extended -regex '*x'",
    "t -regextype posix-extended -regex '.*/(o)ne\\1*'",
    "t -regextype awk -regex '.*/\\w+'",
    "t -regextype awk -regex 't/s1{2}'",
    "t -regextype awk -regex 't/s[\\]0-9]+'",
    "t -regextype awk -regex '.*(x)\\1'",
    "t -regextype gnu-awk -regex '.*/\\w+'",
    "t -regextype gnu-awk -regex 't/s1{2,}'",
    "t -regextype gnu-awk -regex 't/s1{x'",
    "t -regextype posix-awk -regex '.*/\\w+'",
    "t -regextype posix-awk -regex '.*/[\\w]+'",
    "t -regextype posix-awk -regex 't/s1{1,2}'",
    "t -regextype posix-extended -iregex 'T/S1{1,2}'",
    // Commands: argv and working directory, GNU's words for a signal.
    "t -name one -exec sh -c 'kill -TERM $$' ; -print",
    "t -name one -exec sh -c 'kill -TERM $$' {} +",
    "t -name 's1*' -execdir sh -c 'for a; do echo \"$PWD\" \"$a\"; done' sh {} +",
    "t/sub// -maxdepth 0 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} ;",
    "t// -maxdepth 0 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} +",
    "./t/ -maxdepth 0 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} ;",
    ". -maxdepth 0 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} ;",
    ".. -maxdepth 0 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} ;",
    "/ -maxdepth 0 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} ;",
    "t/sub/deep -maxdepth 1 -execdir sh -c 'echo \"$PWD\" \"$@\"' sh {} +",
];

/// Writes the lists `GNU_OPTION_CASES` read with `-files0-from`.
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

#[test]
fn gnu_options_match_gnu_find() {
    let fx = Fixture::new();
    write_lists(&fx);
    check_all(&fx, GNU_OPTION_CASES, &|c| c);
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

#[test]
fn debug_option_errors_match_gnu() {
    let fx = Fixture::new();
    for case in [
        "-D",
        "-D ,",
        "-D ''",
        "-D ,, t",
        "-D exec, t -maxdepth 0",
        "-D ,stat t -maxdepth 0",
        "-D foo,quux,x t -maxdepth 0",
    ] {
        let args = words(case);
        let d = run(dents(), fx.root(), &args, None);
        let g = run(gnu(), fx.root(), &args, None);
        same_but_program_name(&d, &g, case);
    }
}

#[test]
fn debug_options_write_diagnostics_to_stderr() {
    let fx = Fixture::new();
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

#[test]
fn version_and_help_have_gnu_shape() {
    let fx = Fixture::new();
    for (args, first, has) in [
        ("-version", "find (dents) ", "Features enabled: "),
        ("--version", "find (dents) ", "NO WARRANTY"),
        (
            "t -name x -version -foo",
            "find (dents) ",
            "Features enabled: ",
        ),
        ("-help", "Usage: dents find ", "-files0-from FILE"),
        ("t --help", "Usage: dents find ", "Valid arguments for -D:"),
    ] {
        let o = run(dents(), fx.root(), &words(args), None);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.starts_with(first), "{args}: {out}");
        assert!(out.contains(has), "{args}: {out}");
        assert_eq!(o.status.code(), Some(0), "{args}");
        assert!(o.stderr.is_empty(), "{args}");
    }
}

#[test]
fn files0_from_standard_input_matches_gnu() {
    let fx = Fixture::new();
    for (case, input) in [
        ("-files0-from -", &b"t/one\0t/sub\0"[..]),
        ("-files0-from - -name 'b*'", b"t/sub\0t\0"),
        ("-files0-from -", b"\0"),
        ("-files0-from -", b"t/one\0\0t/two"),
        ("-files0-from -", b"nope\0\0t/one\0"),
        ("-files0-from -", b""),
        // Refused before reading: no input (writing any could meet a
        // closed pipe).
        ("-files0-from - -ok echo {} ;", b""),
        ("-files0-from - -okdir echo {} ;", b""),
        ("-files0-from - -exec echo {} +", b"t/one\0t/two\0"),
    ] {
        let args = words(case);
        let d = run(dents(), fx.root(), &args, Some(input));
        let g = run(gnu(), fx.root(), &args, Some(input));
        if let Some(f) = compare(case, &args, &d, &g) {
            panic!("{f}");
        }
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

#[test]
fn execdir_and_delete_act_in_the_directory_walked_even_if_swapped_for_a_symlink() {
    for (case, batch, j) in [
        // Each command records where it ran (`pwd -P`) and removes its
        // file by the name it was given.
        (
            "t/a -type f -exec ./swap.sh ; -execdir sh -c 'pwd -P >> ../../ran; rm -- \"$1\"' sh {} ;",
            false,
        ),
        // The batch waits until the end, long after the swap.
        (
            "t/a -type f -exec ./swap.sh ; -execdir sh -c 'pwd -P >> ../../ran; rm -- \"$@\"' sh {} +",
            true,
        ),
        ("t/a -type f -exec ./swap.sh ; -delete", false),
    ]
    .into_iter()
    .flat_map(|(case, batch)| ["-j1", "-j2", "-j8"].map(|j| (case, batch, j)))
    {
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
            assert!(lines.iter().all(|l| *l == orig.to_string_lossy()), "{case}: {ran}");
        }
    }
}

#[test]
fn delete_of_awkward_starting_points_matches_gnu() {
    // Run inside `t`, on copies, and compare messages, statuses and what
    // is left.
    let cases = [
        ". -delete",
        ". -maxdepth 0 -delete",
        "./x -delete",
        "e/ -delete",
        "e// -delete",
        ".. -maxdepth 0 -delete",
        "/ -maxdepth 0 -delete",
        "./x/ -name y -delete",
    ];
    let mut failures = Vec::new();
    for case in cases {
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
        let (d, g) = (&outcome[0], &outcome[1]);
        if let Some(f) = compare(case, &args, &d.0, &g.0) {
            failures.push(f);
        }
        if d.1 != g.1 {
            failures.push(format!("{case}: trees differ: {:?} vs {:?}", d.1, g.1));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
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

/// `-printf`, `-ls`, `-fstype` compared as root on the fixture.
const PRINTF_CASES: &[&str] = &[
    // Names and places.
    "t -printf '%p|%f|%h|%H|%P|%d\\x5cn'",
    "t/ -printf '%p|%f|%h|%H|%P|%d\\x5cn'",
    "./t -maxdepth 2 -printf '%p|%f|%h|%H|%P\\x5cn'",
    "t// -maxdepth 1 -printf '%p|%f|%h|%H|%P\\x5cn'",
    "t/sub t/sub/deep t -maxdepth 2 -printf '%H|%P|%d\\x5cn'",
    "t/one t/sub/ -printf '%p|%f|%h|%H|%P\\x5cn'",
    "-L t -printf '%p|%f|%h|%H|%P|%d\\x5cn'",
    // Widths and precisions beyond C's int: printf fails, nothing printed
    // for the directive, an error per file, status 1.
    "t -maxdepth 1 -printf 'a%99999999999999999999db\\x5cn'",
    "t -maxdepth 0 -printf 'a%.2147483648sb%pc\\x5cn'",
    // The same tree from two starting points that differ in a slash:
    // each entry names the one it was reached from.
    "t/ t -maxdepth 2 -printf '%H|%P|%p\\x5cn'",
    // Numbers and types.
    "t -printf '%s %k %b %n %i %D\\x5cn'",
    "t -printf '%m %M %#m %y %Y %p\\x5cn'",
    "t -printf '%l|%Y|%y|%p\\x5cn'",
    "-L t -printf '%y %Y %l|%p\\x5cn'",
    "t -printf '%u %U %g %G %p\\x5cn'",
    "t -printf '%S %10.3S %#S %-8S| %+S % S %010S %.2S %p\\x5cn'",
    "t -printf '%F %p\\x5cn'",
    "t -printf '%Z|%p\\x5cn'",
    "t -maxdepth 1 -printf '%a|%c|%t %p\\x5cn'",
    // Flags, widths, precisions, on every kind of value.
    "t -printf '[%10p][%-10f][%.3p][%5.2f][%-+ #010.5h]\\x5cn'",
    "t -printf '[%+d][% d][%05d][%-5d][%.0d][%#d][%08.3d][%-+5d]\\x5cn'",
    "t -printf '[%o][%5m][%-6m][%05m][%.5m][%#m][%#.0m][%+m][% m]\\x5cn'",
    "t -printf '[%020s][%-20s][%+s][%#s][% s][%.2s][%08k][%.1b][%3n][%-12i]\\x5cn'",
    "t -printf '[%10u][%-10U][%.2g][%+5G][%12M][%-3y][%3Y][%.0l][%9F]\\x5cn'",
    "t -printf '[%30a][%-40t][%.3c][%20TY][%-5Td][%.2TB][%25T+][%.5T@]\\x5cn'",
    "t -printf '[%0-5d][%5%][%-%][%%][%5.3q]\\x5cn'",
    // Escapes.
    "t -maxdepth 0 -printf 'a\\x5ca\\x5cb\\x5cf\\x5cn\\x5cr\\x5ct\\x5cv|\\x5c0|\\x5c\\x5c|\\x5c101\\x5c1012\\x5c400\\x5c7\\x5c08|'",
    "t -maxdepth 0 -printf '\\x5cq\\x5c8\\x5c%p|'",
    "t -maxdepth 0 -printf 'before\\x5ccafter %p %'",
    "t -maxdepth 0 -printf 'x\\x5c'",
    // GNU's warnings and errors.
    "t -maxdepth 0 -printf '%A'",
    "t -maxdepth 0 -printf '%q%5.1k%-E|%0-5d'",
    "t -printf",
    "t -printf '%'",
    "t -printf 'ab%'",
    "t -printf '%{'",
    "t -printf '%['",
    "t -printf '%(x'",
    "t -printf '%5'",
    "t -printf '%-'",
    "t -printf '%x' -name",
    // Actions: no default -print, evaluation order, empty output.
    "t -name 's*' -printf '%f\\x5cn'",
    "t -printf ''",
    "t -printf '%f ' -printf '%s\\x5cn'",
    "t ( -name one -printf 'one:%p\\x5cn' ) -o -print",
    "t -type d -printf '%p\\x5cn' -prune",
    "t -maxdepth 0 -printf '%p\\x5cn' -quit",
    "t -size +1000 -printf '%p %s\\x5cn'",
    // -ls (the owner without a name widens GNU's column for the lines
    // after it, so it is listed alone; see ls_whole_tree_matches_gnu).
    "t ! -name orphan -ls",
    "t -name orphan -ls",
    "t -type l -ls",
    "-L t ! -name orphan -ls",
    "t/chardev t/blockdev -ls",
    "t -name one -ls -ls",
    "t -maxdepth 1 -name 'new*' -ls -o -name 'bad*' -ls -o -name 'with*' -ls",
    // -fstype, %F.
    "t -fstype ext4",
    "t -fstype tmpfs",
    "t ! -fstype ext4 -o -fstype tmpfs -name one",
    "t -fstype",
    "/proc/sys /sys /dev /dev/shm / -maxdepth 0 -printf '%F|%p\\x5cn'",
    "/ -maxdepth 1 ( -fstype proc -o -fstype sysfs -o -fstype devtmpfs -o -fstype tmpfs )",
    "/proc/sys -maxdepth 1 -printf '%F %f\\x5cn'",
    "/dev -maxdepth 1 -fstype devpts",
    // A birth time the filesystem does not give.
    "/proc/sys -maxdepth 0 -printf '%B@|%B+|%10Bk|%-3BY|%Bq|\\x5cn'",
];

/// Reads every directory and symlink of the tree once, so that the
/// access times (which `%A` and `%a` print) are settled before the tools
/// are compared (relatime updates an access time once, after a change).
fn settle_access_times(fx: &Fixture) {
    for args in ["t -printf %l", "-L t -printf %l"] {
        run(gnu(), fx.root(), &words(args), None);
    }
}

#[test]
fn printf_ls_fstype_match_gnu() {
    let fx = Fixture::new();
    settle_access_times(&fx);
    let times: Vec<String> = ['A', 'C', 'T'].iter().map(|&k| time_case(k)).collect();
    let mut cases: Vec<&str> = PRINTF_CASES.to_vec();
    cases.extend(times.iter().map(String::as_str));
    let before = run(gnu(), fx.root(), &words(&time_case('A')), None);
    check_all(&fx, &cases, &|c| c);
    // If access times moved while we compared, the %A cases proved
    // nothing: say so rather than pass.
    let after = run(gnu(), fx.root(), &words(&time_case('A')), None);
    assert_eq!(
        before.stdout, after.stdout,
        "access times changed during the comparison (strictatime?)"
    );
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

#[test]
fn ls_whole_tree_matches_gnu_but_for_column_widths() {
    let fx = Fixture::new();
    for case in ["t -ls", "-L t -ls", "t -fls /dev/stdout"] {
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
}

/// `-fprint`, `-fprint0`, `-fprintf`, `-fls`: `{OUT}` is a directory of
/// each tool's own beside the tree, holding `link -> a`.
const FILE_CASES: &[&str] = &[
    "t -fprint {OUT}/a",
    "t -fprint0 {OUT}/a",
    "t -fprintf {OUT}/a '%p %s %m\\x5cn'",
    "t ! -name orphan -fls {OUT}/a",
    "t -fprint {OUT}/a -fprint {OUT}/a",
    "t -fprint {OUT}/a -fprintf {OUT}/./a '[%f]\\x5cn'",
    "t -fprint {OUT}/a -fprint {OUT}/link",
    "t -name 's*' -fprint {OUT}/a -o -fprint0 {OUT}/b",
    "t -fprint {OUT}/a -print",
    "t -maxdepth 1 -fprint /dev/stdout -print",
    "t -maxdepth 1 -fprint /dev/stderr",
    "t -maxdepth 1 -fprintf /dev/stderr '%f\\x5cn' -fls /dev/stdout -fprint0 /dev/stdout",
    "t -maxdepth 1 -name 'new*' -fprint {OUT}/a -fprint0 {OUT}/b -fprintf {OUT}/c '%p|%f\\x5cn'",
    "t -fprint {OUT}/nodir/x",
    "t -maxdepth 0 -fprintf {OUT}/a 'a%2147483648pb\\x5cn'",
    // A file that cannot be written: reported, the others still written.
    "t -fprint /dev/full -fprint {OUT}/a",
    "t -maxdepth 1 -fprintf /dev/full '%p\\x5cn' -print",
    "t -fprint {OUT}",
    "t -fprint {OUT}/a -foo",
    "t -foo -fprint {OUT}/a",
    "t -fprintf {OUT}/a",
    "t -fprintf {OUT}/a '%'",
    "t -fprint {OUT}/a -fprintf {OUT}/b 'x%'",
    "t -false -fprint {OUT}/a",
    "t -fprint",
    "t -fprint0",
    "t -fls",
];

#[test]
fn a_full_standard_output_is_reported_as_gnu_reports_it() {
    let fx = Fixture::new();
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
            sorted(&side, b'\n'),
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
                sorted(&body, if body.contains(&0) { 0 } else { b'\n' })
            };
            (name, body)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn output_files_match_gnu() {
    let fx = Fixture::new();
    let mut failures = Vec::new();
    for case in FILE_CASES {
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
        if case == &FILE_CASES[0] {
            let a = g.2.iter().find(|(n, _)| n == "a").expect("GNU wrote out/a");
            assert!(a.1.len() > 40, "{case}: {} lines", a.1.len());
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_shared_output_file_keeps_each_files_lines_together() {
    let fx = Fixture::new();
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
    let fx = Fixture::new();
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

#[test]
fn printf_stats_only_what_its_directives_read() {
    if !have_strace("the stat-mask check") {
        return;
    }
    let fx = Fixture::new();
    for case in [
        "-j1 t/sub -printf '%p|%f|%h|%d|%y|%l\\x5cn'",
        "t/sub -printf '%P %H %y\\x5cn'",
        "-j1 t/sub -fprint out-x",
    ] {
        let n = entry_stats(fx.root(), "t/sub", &words(case), &[]);
        assert_eq!(n, 0, "{case}: {n} stats of entries");
    }
    let n_entries = entry_names(fx.root(), "t/sub").1.len();
    for case in [
        "-j1 t/sub -printf '%s\\x5cn'",
        "t/sub -printf '%p %m %u\\x5cn'",
    ] {
        let n = entry_stats(fx.root(), "t/sub", &words(case), &[]);
        assert_eq!(n, n_entries, "{case}: {n} stats of {n_entries} entries");
    }
    // %s asks for the size alone.
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
    for (args, mask) in [
        (
            "-j1 t/sub -printf '%p %s\\x5cn'",
            "STATX_TYPE|STATX_MODE|STATX_SIZE,",
        ),
        (
            "-j1 t/sub -printf '%TY %u\\x5cn'",
            "STATX_TYPE|STATX_MODE|STATX_UID|STATX_MTIME,",
        ),
    ] {
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
}

#[test]
fn printf_on_a_terminal_shows_unprintables_as_question_marks() {
    if Command::new("script").arg("-V").output().is_err() {
        return dents_testfs::skip("script(1) not installed; the terminal check did not run");
    }
    let fx = Fixture::new();
    let names = "-name 'new*' -o -name 'bad*' -o -name 'caf*' -o -name 'link-one'";
    for (locale, expr) in [
        (
            "C",
            format!("t \\( {names} \\) -printf '%p|%f|%h|%P|%H|%l|%u|%10f|%-12p|\\n'"),
        ),
        (
            "C.UTF-8",
            format!("t \\( {names} \\) -printf '%p|%f|%.4f|%F|\\n'"),
        ),
        ("C", format!("t \\( {names} \\) -ls")),
        (
            "C",
            format!("t \\( {names} \\) -fprint /dev/stdout -fprint0 /dev/stdout"),
        ),
    ] {
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
            sorted(&out.stdout, b'\n')
        };
        let dents = format!("{} find", env!("CARGO_BIN_EXE_dents"));
        let (d, g) = (on_tty(&dents), on_tty("find"));
        assert!(g.concat().len() > 10, "{locale}: {expr}: {g:?}");
        assert_eq!(d, g, "{locale}: {expr}");
    }
}

#[test]
fn ls_counts_512_byte_blocks_when_posixly_correct() {
    let fx = Fixture::new();
    for case in ["t ! -name orphan -ls", "t -printf '%k %b %p\\x5cn'"] {
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
}

#[test]
fn a_closed_pipe_ends_find_at_once_and_quietly_like_gnu() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    dents_testfs::fill_flat(&tmp.path().join("d"), 20_000, |i| format!("f{i:06}"));
    // 2,000 starting points of 20,000 entries each: 40 million lines, tens
    // of seconds to walk and write in full (about 2 s per 4 million on the
    // project's machines), far beyond the bound.
    let bound = std::time::Duration::from_secs(2);
    let starts = vec!["d"; 2000];
    for expr in [
        &[][..],
        &["-printf", "%p %y\\n"],
        &["-type", "f", "-print0"],
    ] {
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
}
