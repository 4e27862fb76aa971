//! The hard-link set's table ([`InodeMap`]) and its words ([`Met`])
//! against plain references (std's `HashMap`) over random sequences of
//! (device, inode, argument): answers, growth, parallel inserts, and the
//! step the walk takes at each link met.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use dents_du::inodes::InodeMap;
use dents_du::links::{Met, Step};
use proptest::prelude::*;

/// Keys from a small space (so that they repeat and probe sequences
/// collide, with the key (0, 0) the table keeps apart) or any.
fn key() -> impl Strategy<Value = (u64, u64)> {
    prop_oneof![
        3 => (0u64..3, 0u64..200),
        1 => (any::<u64>(), any::<u64>()),
        1 => (Just(0u64), any::<u64>()),
    ]
}

#[derive(Clone, Debug)]
enum Op {
    Insert((u64, u64)),
    Add((u64, u64), u64),
    Get((u64, u64)),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        key().prop_map(Op::Insert),
        (key(), 1u64..1000).prop_map(|(k, v)| Op::Add(k, v)),
        key().prop_map(Op::Get),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Every answer as a HashMap's, through many growths (a shard starts
    /// at 16 slots; 3,000 operations grow some several times).
    #[test]
    fn answers_as_a_hashmap(ops in prop::collection::vec(op(), 1..3000)) {
        let map = InodeMap::default();
        let mut reference: HashMap<(u64, u64), u64> = HashMap::new();
        for op in ops {
            match op {
                Op::Insert(k) => {
                    let fresh = !reference.contains_key(&k);
                    reference.entry(k).or_insert(0);
                    prop_assert_eq!(map.insert(k.0, k.1), fresh, "insert {:?}", k);
                }
                Op::Add(k, v) => {
                    let fresh = !reference.contains_key(&k);
                    *reference.entry(k).or_insert(0) += v;
                    let (was_fresh, word) = map.update(k.0, k.1, |w, f| {
                        *w += v;
                        (f, *w)
                    });
                    prop_assert_eq!(was_fresh, fresh, "update {:?}", k);
                    prop_assert_eq!(word, reference[&k]);
                }
                Op::Get(k) => {
                    prop_assert_eq!(map.get(k.0, k.1), reference.get(&k).copied(), "get {:?}", k);
                    prop_assert_eq!(map.contains(k.0, k.1), reference.contains_key(&k));
                }
            }
        }
        prop_assert_eq!(map.len(), reference.len());
        for (k, v) in &reference {
            prop_assert_eq!(map.get(k.0, k.1), Some(*v));
        }
    }

    /// Workers inserting at once: each key inserted by exactly one of
    /// them ("`true`: this caller counts it"), every update kept.
    #[test]
    fn parallel_inserts_count_each_key_once(
        keys in prop::collection::vec(key(), 1..4000),
        workers in 2usize..6,
    ) {
        let map = InodeMap::default();
        let firsts = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for w in 0..workers {
                let (map, firsts, keys) = (&map, &firsts, &keys);
                s.spawn(move || {
                    // Every worker meets every key (in its own order), as
                    // workers meet the links of one inode.
                    let n = keys.len();
                    for i in 0..n {
                        let k = keys[(i + w * n / workers) % n];
                        if map.insert(k.0, k.1) {
                            firsts.fetch_add(1, Ordering::Relaxed);
                        }
                        map.update(k.0, k.1, |c, _| *c += 1);
                    }
                });
            }
        });
        let mut reference: HashMap<(u64, u64), u64> = HashMap::new();
        for k in &keys {
            *reference.entry(*k).or_insert(0) += workers as u64;
        }
        prop_assert_eq!(firsts.load(Ordering::Relaxed), reference.len());
        prop_assert_eq!(map.len(), reference.len());
        for (k, v) in &reference {
            prop_assert_eq!(map.get(k.0, k.1), Some(*v), "key {:?}", k);
        }
    }

    /// The walk's steps over arguments, against a reference that
    /// remembers, for each inode, the argument that first met it, how
    /// often this argument met it, and where it first met it.
    #[test]
    fn steps_over_arguments(
        args in prop::collection::vec(
            prop::collection::vec((key(), 0u64..50, prop_oneof![
                8 => 0u64..100_000,
                1 => Just(u64::MAX),
                1 => (u32::MAX as u64 - 2)..(u32::MAX as u64 + 2),
            ], any::<bool>()), 0..300),
            1..5,
        )
    ) {
        let map = InodeMap::default();
        // Inode → (argument that first met it, meetings in the current
        // argument, the first meeting's word if it fitted).
        let mut reference: HashMap<(u64, u64), Seen> = HashMap::new();
        let mut base = 1u64;
        for (a, meets) in args.iter().enumerate() {
            for &(k, node, place, time) in meets {
                let node = base + node;
                let once = Met::once(node, place).filter(|_| !time);
                let step = map.update(k.0, k.1, |w, fresh| Met::step(w, fresh, base, node, once));
                let r = reference.entry(k).or_insert((a, 0, None));
                let want = if r.0 < a {
                    Step::Counted
                } else {
                    r.1 += 1;
                    match (r.1, r.2) {
                        (1, _) => {
                            r.2 = once.map(|_| (node, place));
                            if once.is_some() { Step::Once } else { Step::Record }
                        }
                        (2, Some((node, place))) => Step::Second { node, place },
                        _ => Step::Again,
                    }
                };
                prop_assert_eq!(step, want, "argument {}, key {:?}", a, k);
                let word = map.get(k.0, k.1).unwrap();
                let met = Met::of(word, base);
                match want {
                    Step::Counted => prop_assert_eq!(met, Met::Counted),
                    Step::Once => prop_assert_eq!(met, Met::Once { node, place }),
                    _ => prop_assert_eq!(met, Met::Again),
                }
            }
            // The next argument's nodes come after this one's.
            base += 50;
            for r in reference.values_mut() {
                r.1 = 0;
            }
        }
    }
}

/// The reference's record of an inode: the argument that first met it,
/// how often the current argument met it, and the (node, place) of its
/// first meeting there if the word held it.
type Seen = (usize, u32, Option<(u64, u64)>);

/// Growth over a million keys in runs, as a filesystem numbers its
/// inodes: each still there once, and the tables between 54% and 81%
/// full (24 bytes a slot).
#[test]
fn a_million_inodes_in_runs() {
    let map = InodeMap::default();
    for ino in 12..1_000_012u64 {
        assert!(map.insert(0xfd01, ino));
    }
    for ino in 12..1_000_012u64 {
        assert!(!map.insert(0xfd01, ino), "{ino} inserted twice");
    }
    assert!(!map.contains(0xfd01, 11));
    assert!(!map.contains(0xfd02, 12));
    assert_eq!(map.len(), 1_000_000);
    let per_key = map.table_bytes() as f64 / 1e6;
    assert!(
        (24.0 / 0.82..24.0 / 0.53).contains(&per_key),
        "{per_key} bytes a key"
    );
}
