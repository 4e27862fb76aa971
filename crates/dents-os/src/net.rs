//! Sockets a library opened behind the program's back: the distributed
//! mode's connection to its MPI launcher.

use std::net::SocketAddr;

use rustix::net::sockopt;

/// Turns Nagle's algorithm off on every TCP connection of this process
/// to a loopback address that has it on; returns how many it changed.
///
/// Why: Open MPI 4.1's PMIx 4.2 client talks to the launcher on the same
/// node (`mpirun`, `orted`) over TCP on 127.0.0.1 without `TCP_NODELAY`.
/// `MPI_Finalize` sends several small messages in a row; Nagle holds the
/// second until the first is acknowledged, and the server, which answers
/// only at the end, delays that acknowledgement by the kernel's 40 ms
/// (seen under strace:
/// docs/history/benchmarks.md#mpi_finalizes-40-ms-nagle-on-the-launchers-connection).
/// Every rank paid that at its end.  Nothing else changes: the same
/// bytes go, in smaller segments.  Connections to other hosts are left
/// alone (MPI's own TCP transport sets the option itself).
pub fn no_delay_on_loopback_tcp() -> usize {
    let mut changed = 0;
    let _ = crate::sys::for_each_socket(|fd| {
        if sockopt::socket_type(fd) != Ok(rustix::net::SocketType::STREAM) {
            return;
        }
        let loopback = rustix::net::getpeername(fd)
            .ok()
            .flatten()
            .and_then(|a| SocketAddr::try_from(a).ok())
            .is_some_and(|a| a.ip().is_loopback());
        if loopback
            && sockopt::tcp_nodelay(fd) == Ok(false)
            && sockopt::set_tcp_nodelay(fd, true).is_ok()
        {
            changed += 1;
        }
    });
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn loopback_connections_get_no_delay() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        assert!(!client.nodelay().unwrap());
        // Both ends are connections to 127.0.0.1 (the listener is not).
        assert!(no_delay_on_loopback_tcp() >= 2);
        assert!(client.nodelay().unwrap());
        assert!(server.nodelay().unwrap());
        // Tests run on threads beside this one and may open sockets of
        // their own, but not these two again.
        let again = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let _ = no_delay_on_loopback_tcp();
        assert!(again.nodelay().unwrap());
    }
}
