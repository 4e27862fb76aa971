//! Wide trees (issue 29): one directory of 20,000 subdirectories, a few
//! of them holding a file and a subdirectory of their own, on ext4 and
//! tmpfs: `dents find` against GNU find and `dents du`
//! against GNU du, in every walk form the queue serves (unsorted,
//! contents first, sorted, a low descriptor limit), one `#[test]` per
//! filesystem and form.
//!
//! Standard output is compared as sorted lines, each byte for byte
//! (dents's order is its own: find's, and du's among siblings, which come
//! in the order the workers finish them, docs/conformance.md), with the
//! order checked apart where one is promised: du and `find -depth` give a
//! directory after everything below it, `find -s` the sorted
//! breadth-first order (`dents_testfs::sorted_breadth_first`) exactly.
//!
//! Without root these tests print `SKIPPED` and pass; under CI they fail.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use dents_testfs::cli::{c_locale_command, run, sorted_records};
use dents_testfs::{fill_subdirs, FsKind, LoopFs};

const DENTS: &str = env!("CARGO_BIN_EXE_dents");

/// Subdirectories of `w`.
const WIDE: usize = 20_000;

/// Every this many subdirectories, one holds a file and a subdirectory.
const FULL_EVERY: usize = 997;

/// A walk form and the filesystem it runs on.
#[derive(Clone, Copy, Debug)]
struct Case {
    fs: FsKind,
    form: Form,
}

/// How the tree is walked, and what is compared.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// `find w`: the same records as GNU find.
    Find,
    /// `find w -depth`: the same records, each directory after its
    /// contents.
    FindDepth,
    /// `find -s w`: the sorted breadth-first order exactly.
    FindSorted,
    /// `du w`: GNU du's lines, each directory after its contents.
    Du,
    /// `du -a w`.
    DuAll,
    /// `du -s w`.
    DuSummary,
    /// `find w` and `du w` with 12 descriptors (`prlimit --nofile=12`):
    /// the same lines as GNU's.
    LowFd,
}

/// Builds `w` in `root` (see the module docs).
fn build(root: &Path) {
    let w = root.join("w");
    fill_subdirs(&w, WIDE, |i| format!("d{i:05}"));
    for i in (0..WIDE).step_by(FULL_EVERY) {
        let d = w.join(format!("d{i:05}"));
        fs::write(d.join("f"), vec![b'x'; 5000 + i]).unwrap();
        fs::create_dir(d.join("sub")).unwrap();
        fs::write(d.join("sub/g"), b"g").unwrap();
    }
}

fn gnu(program: &str, root: &Path, args: &[&str]) -> Vec<u8> {
    let r = run(&mut c_locale_command(program, root, args));
    assert_eq!((r.status, r.stderr.as_str()), (0, ""), "{program} {args:?}");
    r.stdout
}

fn dents(root: &Path, args: &[&str], nofile: Option<usize>) -> Vec<u8> {
    let mut c = match nofile {
        Some(n) => {
            let mut c = c_locale_command("prlimit", root, &[&format!("--nofile={n}"), "--", DENTS]);
            c.args(args);
            c
        }
        None => c_locale_command(DENTS, root, args),
    };
    let r = run(&mut c);
    assert_eq!((r.status, r.stderr.as_str()), (0, ""), "dents {args:?}");
    r.stdout
}

/// Each directory of a `-depth` listing (or of du's lines: `du` says
/// so) comes after every entry below it.
fn check_contents_first(out: &[u8], du: bool) {
    let lines: Vec<&[u8]> = out
        .split(|&c| c == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            if du {
                &l[l.iter().position(|&c| c == b'\t').expect("SIZE<tab>PATH") + 1..]
            } else {
                l
            }
        })
        .collect();
    let at: HashMap<&[u8], usize> = lines.iter().enumerate().map(|(i, l)| (*l, i)).collect();
    for (i, l) in lines.iter().enumerate() {
        if let Some(slash) = l.iter().rposition(|&c| c == b'/') {
            let parent = at[&l[..slash]];
            assert!(
                parent > i,
                "{} listed before its entry {}",
                String::from_utf8_lossy(&l[..slash]),
                String::from_utf8_lossy(l)
            );
        }
    }
}

fn check(case: Case) {
    let Some(fs) = LoopFs::new_or_skip(case.fs, 256) else {
        return;
    };
    let root = fs.path();
    build(root);
    let records = |b: &[u8]| sorted_records(b, b'\n');
    match case.form {
        Form::Find => assert_eq!(
            records(&dents(root, &["find", "w"], None)),
            records(&gnu("find", root, &["w"]))
        ),
        Form::FindDepth => {
            let out = dents(root, &["find", "w", "-depth"], None);
            assert_eq!(records(&out), records(&gnu("find", root, &["w", "-depth"])));
            check_contents_first(&out, false);
        }
        Form::FindSorted => {
            let out = dents(root, &["find", "-s", "w"], None);
            // The reference's paths start with the root's: `w` as given.
            let skip = root.as_os_str().len() + 1;
            let want: Vec<u8> = dents_testfs::sorted_breadth_first(&root.join("w"))
                .into_iter()
                .flat_map(|p| [&p[skip..], b"\n"].concat())
                .collect();
            assert!(
                out == want,
                "dents find -s w: not the sorted breadth-first order"
            );
        }
        Form::Du | Form::DuAll => {
            let args: &[&str] = match case.form {
                Form::DuAll => &["-a", "w"],
                _ => &["w"],
            };
            let out = dents(root, &[&["du"], args].concat(), None);
            assert_eq!(records(&out), records(&gnu("du", root, args)));
            check_contents_first(&out, true);
        }
        Form::DuSummary => assert_eq!(
            String::from_utf8_lossy(&dents(root, &["du", "-s", "w"], None)),
            String::from_utf8_lossy(&gnu("du", root, &["-s", "w"]))
        ),
        Form::LowFd => {
            assert_eq!(
                records(&dents(root, &["find", "w"], Some(12))),
                records(&gnu("find", root, &["w"]))
            );
            let out = dents(root, &["du", "w"], Some(12));
            assert_eq!(records(&out), records(&gnu("du", root, &["w"])));
            check_contents_first(&out, true);
        }
    }
}

dents_testfs::test_cases! { mod wide: super::Case => check;
    find_on_ext4: super::Case { fs: super::FsKind::Ext4, form: super::Form::Find },
    find_on_tmpfs: super::Case { fs: super::FsKind::Tmpfs, form: super::Form::Find },
    find_depth_on_ext4: super::Case { fs: super::FsKind::Ext4, form: super::Form::FindDepth },
    find_depth_on_tmpfs: super::Case { fs: super::FsKind::Tmpfs, form: super::Form::FindDepth },
    find_sorted_on_ext4: super::Case { fs: super::FsKind::Ext4, form: super::Form::FindSorted },
    find_sorted_on_tmpfs: super::Case { fs: super::FsKind::Tmpfs, form: super::Form::FindSorted },
    du_on_ext4: super::Case { fs: super::FsKind::Ext4, form: super::Form::Du },
    du_on_tmpfs: super::Case { fs: super::FsKind::Tmpfs, form: super::Form::Du },
    du_all_on_ext4: super::Case { fs: super::FsKind::Ext4, form: super::Form::DuAll },
    du_all_on_tmpfs: super::Case { fs: super::FsKind::Tmpfs, form: super::Form::DuAll },
    du_summary_on_ext4: super::Case { fs: super::FsKind::Ext4, form: super::Form::DuSummary },
    du_summary_on_tmpfs: super::Case { fs: super::FsKind::Tmpfs, form: super::Form::DuSummary },
    low_fd_on_ext4: super::Case { fs: super::FsKind::Ext4, form: super::Form::LowFd },
    low_fd_on_tmpfs: super::Case { fs: super::FsKind::Tmpfs, form: super::Form::LowFd },
}
