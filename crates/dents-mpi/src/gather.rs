//! Every rank's values, of any length, gathered to every rank: the one
//! variable-count all-gather that du's link owners and the scan's errors
//! both need (a collective call: every rank calls it at the same point).

use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// Every rank's `mine`, one after another in rank order, and where each
/// rank's part starts and how long it is (`(start, len)`, by rank).
pub fn all_gather<T>(world: &SimpleCommunicator, mine: &[T]) -> (Vec<T>, Vec<(usize, usize)>)
where
    T: Equivalence + Default + Clone,
{
    let ranks = world.size() as usize;
    let mut counts = vec![0i32; ranks];
    world.all_gather_into(&(mine.len() as i32), &mut counts[..]);
    let displs: Vec<i32> = counts
        .iter()
        .scan(0i32, |at, &n| {
            let d = *at;
            *at += n;
            Some(d)
        })
        .collect();
    let mut all = vec![T::default(); counts.iter().map(|&n| n as usize).sum()];
    let mut parts = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
    world.all_gather_varcount_into(mine, &mut parts);
    let spans = displs
        .iter()
        .zip(&counts)
        .map(|(&d, &n)| (d as usize, n as usize))
        .collect();
    (all, spans)
}
