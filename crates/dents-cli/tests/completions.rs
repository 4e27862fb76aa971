//! The shell completions under completions/ offer every command of
//! `dents --help` and every option of each command's `--help`: bash's and
//! fish's are run (each shell completes each option as a user would type
//! it); zsh's, which needs a terminal to run its completion system, is
//! checked for its syntax and for a spec of each option in the command's
//! function.

mod help;

use std::process::Command;

use help::{help_commands, help_options, help_text, root, Program};

/// The words to complete for `cmd` (`dents` for the commands): the
/// options of its `--help`, patterns made real (`-newerXY` is offered as
/// its 20 words, `-Olevel` as `-O0` to `-O3`).
fn wanted(cmd: &str) -> Vec<String> {
    if cmd == "dents" {
        let text = help_text(Program::Dents).expect("dents runs");
        return help_commands(&text).into_iter().collect();
    }
    let text = help_text(Program::Sub(leak(cmd))).expect("dents runs");
    help_options(&text, cmd != "find")
        .into_iter()
        .map(|w| match w.as_str() {
            "-newerXY" => "-newermt".to_owned(),
            "-Olevel" => "-O1".to_owned(),
            _ => w,
        })
        .collect()
}

/// `Program::Sub` takes a static name; the table's names are static.
fn leak(cmd: &str) -> &'static str {
    ["ls", "find", "du", "scan", "diff"]
        .into_iter()
        .find(|c| *c == cmd)
        .expect("a command of dents")
}

/// Runs `shell` with `args` and the words to complete in `DENTS_WORDS`, one
/// a line (fish would read words such as `--all` as its own options), or
/// skips loudly (failing under CI) when the shell is not installed.
fn run(shell: &str, args: &[&str], words: &[String]) -> Option<String> {
    let out = match Command::new(shell)
        .args(args)
        .env("DENTS_WORDS", words.join("\n"))
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            dents_testfs::skip(&format!(
                "{shell} cannot run ({e}): scripts/install-test-deps installs it"
            ));
            return None;
        }
    };
    assert!(out.status.success(), "{shell} failed: {out:?}");
    assert!(out.stderr.is_empty(), "{shell} complained: {out:?}");
    Some(String::from_utf8(out.stdout).expect("UTF-8 candidates"))
}

/// Each word's candidates, from output where `== WORD` lines head them.
fn candidates(out: &str) -> Vec<(String, Vec<String>)> {
    let mut all: Vec<(String, Vec<String>)> = Vec::new();
    for line in out.lines() {
        if let Some(w) = line.strip_prefix("== ") {
            all.push((w.to_owned(), Vec::new()));
        } else if let Some((_, c)) = all.last_mut() {
            // fish writes "candidate<TAB>description".
            c.push(line.split('\t').next().unwrap_or_default().to_owned());
        }
    }
    all
}

/// Fails, naming them, on words whose candidates do not offer them (a long
/// option taking `=VALUE` may be offered with its `=`).
fn assert_offered(shell: &str, cmd: &str, wanted: &[String], out: &str) {
    let got = candidates(out);
    assert_eq!(
        got.len(),
        wanted.len(),
        "{shell}: one block per word: {out}"
    );
    let missing: Vec<_> = got
        .iter()
        .filter(|(w, c)| !c.iter().any(|c| c == w || *c == format!("{w}=")))
        .collect();
    assert!(
        missing.is_empty(),
        "{shell} does not offer, for dents {cmd}: {missing:?}"
    );
}

fn check_bash(cmd: &str) {
    let words = wanted(cmd);
    let file = root().join("completions/dents.bash");
    // As readline calls it: the words so far, the index of the current one.
    let script = format!(
        "source '{}'
        mapfile -t words <<< \"$DENTS_WORDS\"
        for w in \"${{words[@]}}\"; do
            echo \"== $w\"
            if [[ {cmd} == dents ]]; then COMP_WORDS=(dents \"$w\"); COMP_CWORD=1
            else COMP_WORDS=(dents {cmd} \"$w\"); COMP_CWORD=2; fi
            COMPREPLY=()
            _dents
            printf '%s\\n' \"${{COMPREPLY[@]}}\"
        done",
        file.display()
    );
    if let Some(out) = run("bash", &["--norc", "-c", &script], &words) {
        assert_offered("bash", cmd, &words, &out);
    }
}

fn check_fish(cmd: &str) {
    let words = wanted(cmd);
    let file = root().join("completions/dents.fish");
    let line = if cmd == "dents" { "dents " } else { cmd };
    // `complete -C` completes a command line as fish's reader would; the
    // commands are all offered at once, after "dents ".  A whole short
    // option (`-a`) is completed as fish's reader offers it, after "-":
    // typed whole, fish offers clusters (`-ab`, `-ac`...).
    let script = format!(
        "source '{}'
        for w in (string split \\n -- $DENTS_WORDS)
            echo \"== $w\"
            if test {cmd} = dents
                complete -C'dents '
            else if test {cmd} != find; and string match -qr '^-.$' -- $w
                complete -C'dents {line} -'
            else
                complete -C\"dents {line} $w\"
            end
        end",
        file.display()
    );
    if let Some(out) = run("fish", &["--no-config", "-c", &script], &words) {
        assert_offered("fish", cmd, &words, &out);
    }
}

fn check_zsh(cmd: &str) {
    let file = root().join("completions/_dents");
    if run("zsh", &["-n", &file.to_string_lossy()], &[]).is_none() {
        return;
    }
    let source = std::fs::read_to_string(&file).expect("_dents exists");
    let missing: Vec<_> = if cmd == "dents" {
        wanted(cmd)
            .into_iter()
            .filter(|c| !source.contains(&format!("'{c}:")))
            .collect()
    } else {
        // The command's function, up to its closing brace.
        let start = source
            .find(&format!("_dents_{cmd}() {{"))
            .unwrap_or_else(|| panic!("_dents has no _dents_{cmd}"));
        let body = &source[start..];
        let body = &body[..body.find("\n}\n").expect("the function ends")];
        // An _arguments spec ('-a[', '--width=[', '-B+[', '--time=-[') or,
        // for find, a word of the list ('-name').
        wanted(cmd)
            .into_iter()
            .filter(|w| {
                !["[", "=[", "+[", "=-[", "'"]
                    .iter()
                    .any(|end| body.contains(&format!("'{w}{end}")))
            })
            .collect()
    };
    assert!(
        missing.is_empty(),
        "zsh does not offer, for dents {cmd}: {missing:?}"
    );
}

fn check((shell, cmd): (&str, &str)) {
    match shell {
        "bash" => check_bash(cmd),
        "fish" => check_fish(cmd),
        "zsh" => check_zsh(cmd),
        _ => unreachable!("a shell of the table"),
    }
}

dents_testfs::test_cases! {
    /// One test per shell and command (`dents`: the commands themselves).
    mod offered: (&str, &str) => check;
    bash_commands: ("bash", "dents"),
    bash_ls: ("bash", "ls"),
    bash_find: ("bash", "find"),
    bash_du: ("bash", "du"),
    bash_scan: ("bash", "scan"),
    bash_diff: ("bash", "diff"),
    fish_commands: ("fish", "dents"),
    fish_ls: ("fish", "ls"),
    fish_find: ("fish", "find"),
    fish_du: ("fish", "du"),
    fish_scan: ("fish", "scan"),
    fish_diff: ("fish", "diff"),
    zsh_commands: ("zsh", "dents"),
    zsh_ls: ("zsh", "ls"),
    zsh_find: ("zsh", "find"),
    zsh_du: ("zsh", "du"),
    zsh_scan: ("zsh", "scan"),
    zsh_diff: ("zsh", "diff"),
}
