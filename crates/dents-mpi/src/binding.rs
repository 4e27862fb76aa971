//! Whether mpirun's binding leaves this node's cores idle: a rank bound
//! to one CPU on a node with more CPUs than ranks runs its walker's
//! threads on that one core while the others wait.
//!
//! Open MPI binds each rank to a core by default when there are at most
//! two ranks; measured on the shape at `-np 1` on 2 cores, the walk phase
//! was markedly slower bound than with `--bind-to none`
//! (docs/distributed.md#session-6-where--np-1s-time-goes-and-the-size-stat-gone).
//! Where the ranks fill the node's cores (`-np 64` on 64 cores) one core
//! a rank is what the user asked for, and nothing is said.

use std::fs;

/// A warning for rank 0 to print if this process is bound to a single
/// CPU while its launcher (mpirun, its daemon, slurmstepd: the parent
/// process, unbound, whose CPUs are the job's on this node) has more CPUs
/// than there are ranks on the node; `None` otherwise, or when the
/// launcher does not say how many ranks share the node.
pub fn idle_cores_warning() -> Option<String> {
    let mine = cpu_count(&status_field("self", "Cpus_allowed_list:")?)?;
    let parent = std::os::unix::process::parent_id().to_string();
    let node = cpu_count(&status_field(&parent, "Cpus_allowed_list:")?)?;
    let here = local_ranks()?;
    (mine == 1 && node > here).then(|| {
        format!(
            "rank 0 is bound to 1 of the job's {node} CPUs on this node, with {here} rank(s) there: \
             its walker leaves CPUs idle (mpirun binds each rank to a core by default at -np 2 \
             or less); use mpirun --bind-to none, or --map-by slot:PE=N for N CPUs a rank"
        )
    })
}

/// The ranks on this node, as the launcher says (Open MPI, MPICH).
fn local_ranks() -> Option<usize> {
    ["OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"]
        .iter()
        .find_map(|k| std::env::var(k).ok()?.trim().parse().ok())
}

/// The value of a field of /proc/PID/status.
fn status_field(pid: &str, name: &str) -> Option<String> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(name))?;
    Some(line[name.len()..].trim().to_string())
}

/// The CPUs in a list such as `0-3,8,10-11` (the kernel's format).
fn cpu_count(list: &str) -> Option<usize> {
    let mut n = 0;
    for part in list.split(',').filter(|p| !p.is_empty()) {
        n += match part.split_once('-') {
            Some((a, b)) => b.parse::<usize>().ok()? + 1 - a.parse::<usize>().ok()?,
            None => part.parse::<usize>().map(|_| 1).ok()?,
        };
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::cpu_count;

    #[test]
    fn cpu_lists() {
        assert_eq!(cpu_count("0"), Some(1));
        assert_eq!(cpu_count("0-1"), Some(2));
        assert_eq!(cpu_count("0-3,8,10-11"), Some(7));
        assert_eq!(cpu_count("x"), None);
    }
}
