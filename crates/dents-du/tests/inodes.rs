//! The hard-link set's table ([`InodeMap`]) and its words ([`Met`])
//! against plain references (std's `HashMap`) over random sequences of
//! (device, inode, argument): answers, growth, parallel inserts, and the
//! step the walk takes at each link met.  The maps are made with the
//! default prefix tables and with tables of 0 to 3 prefixes a shard, so
//! that the packed keys, the wide tables and their mixture all answer.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use dents_du::inodes::InodeMap;
use dents_du::links::{Met, Step};
use proptest::prelude::*;

/// Keys from a small space (so that they repeat and probe sequences
/// collide, with the key (0, 0) the wide table keeps apart); inode
/// numbers of 2⁴⁸ and more, alike in their low 48 bits (which a packed
/// key holds) and apart in their high bits; many devices (more than a
/// shard scans for before indexing its prefixes); or any.
fn key() -> impl Strategy<Value = (u64, u64)> {
    let high = prop_oneof![0u64..3, Just(0x8000u64), Just(0xffff)];
    prop_oneof![
        3 => (0u64..3, 0u64..200),
        2 => (0u64..3, (high, 0u64..200).prop_map(|(h, l)| h << 48 | l)),
        1 => (0u64..40, 0u64..40),
        1 => (any::<u64>(), any::<u64>()),
        1 => (Just(0u64), any::<u64>()),
    ]
}

/// The prefixes a shard numbers: the default (`None`), or 0 to 3 (the
/// rest of the keys in the wide tables).
fn prefixes() -> impl Strategy<Value = Option<usize>> {
    prop_oneof![Just(None), (0usize..4).prop_map(Some)]
}

/// A map numbering `prefixes` prefixes a shard.
fn new_map(prefixes: Option<usize>) -> InodeMap {
    prefixes.map_or_else(InodeMap::default, InodeMap::test_with_prefixes)
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
    fn answers_as_a_hashmap(ops in prop::collection::vec(op(), 1..3000), limit in prefixes()) {
        let map = new_map(limit);
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
        limit in prefixes(),
    ) {
        let map = new_map(limit);
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
        ),
        limit in prefixes(),
    ) {
        let map = new_map(limit);
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
/// inodes (`high`: the inode numbers' bits above 48, as overlayfs's
/// `xino` sets them): each still there once, none in the wide tables,
/// and the tables between 54% and 81% full (16 bytes a slot).
fn a_million_inodes_in_runs(high: u64) {
    let map = InodeMap::default();
    for ino in 12..1_000_012u64 {
        assert!(map.insert(0xfd01, high | ino));
    }
    for ino in 12..1_000_012u64 {
        assert!(!map.insert(0xfd01, high | ino), "{ino} inserted twice");
    }
    assert!(!map.contains(0xfd01, high | 11));
    assert!(!map.contains(0xfd02, high | 12));
    assert!(!map.contains(0xfd01, (high ^ 1 << 48) | 12));
    assert_eq!(map.len(), 1_000_000);
    assert_eq!(map.wide_len(), 0);
    let per_key = map.table_bytes() as f64 / 1e6;
    assert!(
        (16.0 / 0.82..16.0 / 0.53).contains(&per_key),
        "{per_key} bytes a key"
    );
}

#[test]
fn a_million_inodes_in_runs_below_2_48() {
    a_million_inodes_in_runs(0);
}

#[test]
fn a_million_inodes_in_runs_above_2_63() {
    a_million_inodes_in_runs(1 << 63);
}

/// Inode numbers hashed over 64 bits, on 3 devices: more prefixes than
/// the shards number (4,096 each), so that the default map fills its
/// prefix tables and sends the rest of the keys to its wide tables;
/// every key still answers once, and keys alike in their low 48 bits
/// stay apart.
#[test]
fn hashed_inode_numbers_fill_the_prefix_tables() {
    let map = InodeMap::default();
    let mut reference = HashMap::new();
    let mut x = 0x243F_6A88_85A3_08D3u64;
    for i in 0..400_000u64 {
        // xorshift: inode numbers spread over 64 bits.
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let ino = if i % 5 == 0 { x & !LOW | 77 } else { x };
        let key = (i % 3, ino);
        let fresh = reference.insert(key, i).is_none();
        assert_eq!(map.update(key.0, key.1, |w, f| (*w = i, f).1), fresh);
    }
    assert!(map.wide_len() > 0, "no key reached the wide tables");
    assert_eq!(map.len(), reference.len());
    for (k, v) in &reference {
        assert_eq!(map.get(k.0, k.1), Some(*v), "{k:?}");
        assert!(!map.contains(k.0 + 3, k.1));
    }
}

/// The inode numbers' bits a packed key holds.
const LOW: u64 = (1 << 48) - 1;
