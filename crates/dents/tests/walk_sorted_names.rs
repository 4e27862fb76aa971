//! Sorted walks put a directory's entries in the order of their names'
//! bytes, whatever the names: compared, on a real ext4 directory, with
//! `std::fs`'s listing sorted by `Vec<u8>`'s order.  The names are those a
//! faster sort (by keys: the bytes after the prefix all names share, a
//! fixed number of them; tried and reverted for want of a measured gain)
//! could get wrong, kept for any such sort: a long shared prefix, names
//! equal for more bytes than a key holds, names that begin others, bytes
//! above 0x7f, one-byte names; and directories of 63 and 64 entries, where
//! that sort began.

use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

use dents::walk::{walk, Visit, Visitor, WalkOptions};
use dents::{Error, Flow};
use dents_testfs::{FsKind, LoopFs};
use std::sync::Mutex;

/// The names a visit of the top directory saw, in order.
struct Names(Mutex<Vec<Vec<u8>>>);

impl Visitor for Names {
    type State = ();
    fn state(&self) {}
    fn visit(&self, _: &mut (), v: &Visit<'_>) -> Flow {
        if v.depth() == 1 {
            self.0.lock().unwrap().push(v.name().to_vec());
        }
        Flow::Continue
    }
    fn error(&self, _: &mut (), e: Error) {
        panic!("walk error: {e:?}");
    }
}

/// A case: how many names, and the name of the `i`-th.
#[derive(Clone, Copy)]
struct Case {
    count: usize,
    name: fn(usize) -> Vec<u8>,
}

fn check(c: Case) {
    let Some(fs) = LoopFs::new_or_skip(FsKind::Ext4, 128) else {
        return;
    };
    let dir = fs.path().join("d");
    fs::create_dir(&dir).unwrap();
    for i in 0..c.count {
        let name = std::ffi::OsString::from_vec((c.name)(i));
        fs::write(dir.join(&name), b"").unwrap();
    }
    let mut want: Vec<Vec<u8>> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().as_bytes().to_vec())
        .collect();
    want.sort();
    assert_eq!(want.len(), c.count, "names made");
    for threads in [1, 4] {
        let v = Names(Mutex::new(Vec::new()));
        let opts = WalkOptions::new().threads(threads).sort_by_name(true);
        walk(&[path_bytes(&dir)], &opts, &v);
        let got = v.0.into_inner().unwrap();
        assert_eq!(got.len(), want.len(), "{threads} threads: entries");
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g,
                w,
                "{threads} threads: entry {k}: {:?} where {:?} sorts",
                String::from_utf8_lossy(g),
                String::from_utf8_lossy(w)
            );
        }
    }
}

fn path_bytes(p: &Path) -> Vec<u8> {
    p.as_os_str().as_bytes().to_vec()
}

/// Names equal for 40 bytes and more, beyond a key, differing at the
/// end; one name unlike the others, so that they share no prefix with
/// every name and their keys are all equal.
fn long_ties(i: usize) -> Vec<u8> {
    if i == 0 {
        return b"zz".to_vec();
    }
    format!(
        "shared-prefix-of-many-names_{:020}_{}",
        0,
        (i * 7919) % 3001
    )
    .into_bytes()
}

/// Names that begin others (`a`, `a0`, `a00`...), and names of bytes
/// above 0x7f and of one byte.
fn prefixes_and_high_bytes(i: usize) -> Vec<u8> {
    match i % 4 {
        0 => vec![b'a'; 1 + i / 4],
        1 => {
            let mut n = vec![b'a'; 1 + i / 4];
            n.push(b'0');
            n
        }
        2 => {
            let last = (i / 4) as u8 + 1;
            vec![
                0x80 + (i % 0x7f) as u8,
                b'x',
                if last == b'/' { 0xff } else { last },
            ]
        }
        // Below `a`, so as not to make a name of the first two kinds.
        _ => match (i / 4) as u8 {
            q if q < 40 => vec![b'0' + q],
            q => vec![b'0' + q % 40, b'0' + q / 40],
        },
    }
}

/// Names whose shared prefix is all but their last byte or two.
fn short_tails(i: usize) -> Vec<u8> {
    let mut n = b"p".repeat(40);
    n.extend_from_slice(format!("{i:x}").as_bytes());
    n
}

/// Names with nothing in common, numbers not zero-padded (`10` before
/// `9`).
fn unpadded(i: usize) -> Vec<u8> {
    format!("{}", (i * 104_729) % 100_000).into_bytes()
}

dents_testfs::test_cases! {
    /// Directories of 63 and 64 entries (where a keyed sort began).
    mod sorted_names: super::Case => check;
    long_ties: super::Case { count: 3001, name: super::long_ties },
    prefixes_and_high_bytes: super::Case { count: 1000, name: super::prefixes_and_high_bytes },
    short_tails: super::Case { count: 5000, name: super::short_tails },
    unpadded: super::Case { count: 4000, name: super::unpadded },
    just_below_keyed: super::Case { count: 63, name: super::unpadded },
    just_keyed: super::Case { count: 64, name: super::long_ties },
}
