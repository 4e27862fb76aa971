//! Commands run at once in one process, for the tests that show each
//! command keeps its own output, messages and exit status whatever the
//! others meet at the same time (what GNU's tools keep in globals).

use std::panic::{self, AssertUnwindSafe};
use std::sync::Barrier;

/// Runs each of `commands` on a thread of its own, `rounds` times, every
/// thread starting each round with the others (a barrier), and panics
/// with every failure reported, each named by its round.
///
/// A command returns what went wrong in one run (empty: nothing), in
/// words that name the command.  Failures are gathered rather than
/// asserted on the threads, and a command that panics counts as a
/// failure of its round: a thread that ended early would leave the
/// others waiting at the barrier.
pub fn at_once<F>(rounds: usize, commands: &[F])
where
    F: Fn() -> Vec<String> + Sync,
{
    let barrier = Barrier::new(commands.len());
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = commands
            .iter()
            .map(|command| {
                let barrier = &barrier;
                s.spawn(move || {
                    let mut failures = Vec::new();
                    for round in 0..rounds {
                        barrier.wait();
                        let said = panic::catch_unwind(AssertUnwindSafe(command))
                            .unwrap_or_else(|_| vec!["panicked".to_string()]);
                        failures.extend(said.into_iter().map(|f| format!("round {round}: {f}")));
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_command_runs_every_round() {
        let runs = AtomicUsize::new(0);
        let command = || {
            runs.fetch_add(1, Ordering::Relaxed);
            Vec::new()
        };
        at_once(3, &[&command, &command, &command]);
        assert_eq!(runs.load(Ordering::Relaxed), 9);
    }

    #[test]
    fn failures_and_panics_are_reported_with_their_round() {
        let fails = || vec!["wrong".to_string()];
        let panics = || -> Vec<String> { panic!("a command's bug") };
        let commands: [&(dyn Fn() -> Vec<String> + Sync); 2] = [&fails, &panics];
        let report = panic::catch_unwind(AssertUnwindSafe(|| at_once(2, &commands))).unwrap_err();
        let report = report.downcast_ref::<String>().unwrap();
        assert_eq!(
            report,
            "round 0: wrong\nround 1: wrong\nround 0: panicked\nround 1: panicked"
        );
    }
}
