//! Which side ran out: every client error is counted under a class that names the side whose
//! limit was hit, so a ceiling of the load generator is never reported as the server's.
//!
//! | symptom (Linux)                          | class                    | side   |
//! |------------------------------------------|--------------------------|--------|
//! | `EMFILE`/`ENFILE` creating a socket      | `client_fd_limit`        | client |
//! | `EADDRNOTAVAIL`/`EADDRINUSE` on connect  | `client_ephemeral_ports` | client |
//! | `ENOBUFS`/`ENOMEM`                       | `client_memory`          | client |
//! | Bolt FAILURE `…ServiceUnavailable` at auth, refused handshake | `server_refusal` | server |
//! | `ECONNREFUSED` (nothing listening, or the accept queue overflowed) | `server_not_accepting` | server |
//! | no answer before the client's deadline   | `server_timeout`         | server |
//! | connection reset or closed by the server | `server_closed`          | server |
//! | a Bolt FAILURE to a query                | `server_error`           | server |
//! | bytes that are not Bolt                  | `protocol`               | unknown |

use std::io;

use quiver_status::Status;
use serde::Serialize;

/// What the lab was doing when the error happened: the same errno means different things at
/// different stages (`EADDRNOTAVAIL` from `connect` is a port shortage; from `bind` it is a
/// source address the host does not have).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Creating or binding the client socket.
    Socket,
    Connect,
    Handshake,
    Auth,
    Query,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    ClientFdLimit,
    ClientEphemeralPorts,
    ClientMemory,
    /// A source address the host does not have (`--source-addrs` beyond what loopback routes).
    ClientSourceAddress,
    ServerRefusal,
    ServerNotAccepting,
    ServerTimeout,
    ServerClosed,
    ServerError,
    Protocol,
    Other,
}

/// Whose limit an error class points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Client,
    Server,
    Unknown,
}

/// The status Quiver (and Neo4j) refuse a connection past the limit with.
pub const REFUSAL: Status = Status::ServiceUnavailable;
/// [`REFUSAL`]'s code, as a FAILURE carries it.
pub const REFUSAL_CODE: &str = REFUSAL.code();

impl ErrorClass {
    pub const ALL: [ErrorClass; 11] = [
        ErrorClass::ClientFdLimit,
        ErrorClass::ClientEphemeralPorts,
        ErrorClass::ClientMemory,
        ErrorClass::ClientSourceAddress,
        ErrorClass::ServerRefusal,
        ErrorClass::ServerNotAccepting,
        ErrorClass::ServerTimeout,
        ErrorClass::ServerClosed,
        ErrorClass::ServerError,
        ErrorClass::Protocol,
        ErrorClass::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::ClientFdLimit => "client_fd_limit",
            ErrorClass::ClientEphemeralPorts => "client_ephemeral_ports",
            ErrorClass::ClientMemory => "client_memory",
            ErrorClass::ClientSourceAddress => "client_source_address",
            ErrorClass::ServerRefusal => "server_refusal",
            ErrorClass::ServerNotAccepting => "server_not_accepting",
            ErrorClass::ServerTimeout => "server_timeout",
            ErrorClass::ServerClosed => "server_closed",
            ErrorClass::ServerError => "server_error",
            ErrorClass::Protocol => "protocol",
            ErrorClass::Other => "other",
        }
    }

    pub fn side(self) -> Side {
        match self {
            ErrorClass::ClientFdLimit
            | ErrorClass::ClientEphemeralPorts
            | ErrorClass::ClientMemory
            | ErrorClass::ClientSourceAddress => Side::Client,
            ErrorClass::ServerRefusal
            | ErrorClass::ServerNotAccepting
            | ErrorClass::ServerTimeout
            | ErrorClass::ServerClosed
            | ErrorClass::ServerError => Side::Server,
            ErrorClass::Protocol | ErrorClass::Other => Side::Unknown,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Classifies a socket error by its errno and the stage it happened at.
pub fn classify_io(stage: Stage, error: &io::Error) -> ErrorClass {
    match error.raw_os_error() {
        Some(libc::EMFILE | libc::ENFILE) => ErrorClass::ClientFdLimit,
        Some(libc::ENOBUFS | libc::ENOMEM) => ErrorClass::ClientMemory,
        Some(libc::EADDRNOTAVAIL) if stage == Stage::Socket => ErrorClass::ClientSourceAddress,
        Some(libc::EADDRNOTAVAIL | libc::EADDRINUSE) => ErrorClass::ClientEphemeralPorts,
        Some(libc::ECONNREFUSED) => ErrorClass::ServerNotAccepting,
        Some(libc::ETIMEDOUT) => ErrorClass::ServerTimeout,
        Some(libc::ECONNRESET | libc::EPIPE | libc::ECONNABORTED) => ErrorClass::ServerClosed,
        _ => match error.kind() {
            io::ErrorKind::TimedOut => ErrorClass::ServerTimeout,
            io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::ConnectionAborted => ErrorClass::ServerClosed,
            io::ErrorKind::ConnectionRefused => ErrorClass::ServerNotAccepting,
            io::ErrorKind::OutOfMemory => ErrorClass::ClientMemory,
            io::ErrorKind::InvalidData => ErrorClass::Protocol,
            _ => ErrorClass::Other,
        },
    }
}

/// Classifies a Bolt FAILURE by its code (as read from the wire, from any server) and the stage
/// it answered.
pub fn classify_failure(stage: Stage, code: &str) -> ErrorClass {
    let refusal_stage = matches!(stage, Stage::Handshake | Stage::Auth);
    if refusal_stage && Status::from_code(code) == Some(REFUSAL) {
        ErrorClass::ServerRefusal
    } else {
        ErrorClass::ServerError
    }
}

/// Errors counted per class; cheap to keep per task and merge per window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ErrorCounts {
    counts: [u64; ErrorClass::ALL.len()],
}

impl ErrorCounts {
    pub fn add(&mut self, class: ErrorClass) {
        self.counts[class.index()] += 1;
    }

    pub fn merge(&mut self, other: &ErrorCounts) {
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
    }

    pub fn get(&self, class: ErrorClass) -> u64 {
        self.counts[class.index()]
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    pub fn by_side(&self, side: Side) -> u64 {
        ErrorClass::ALL
            .iter()
            .filter(|c| c.side() == side)
            .map(|c| self.get(*c))
            .sum()
    }

    /// Non-zero classes, by name, in a fixed order.
    pub fn nonzero(&self) -> Vec<(&'static str, u64)> {
        ErrorClass::ALL
            .iter()
            .filter(|c| self.get(**c) > 0)
            .map(|c| (c.name(), self.get(*c)))
            .collect()
    }

    /// `server_refusal=128 client_ephemeral_ports=3` or `none`.
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self
            .nonzero()
            .into_iter()
            .map(|(name, n)| format!("{name}={n}"))
            .collect();
        if parts.is_empty() {
            "none".to_owned()
        } else {
            parts.join(" ")
        }
    }
}

impl Serialize for ErrorCounts {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let nonzero = self.nonzero();
        let mut map = serializer.serialize_map(Some(nonzero.len()))?;
        for (name, n) in nonzero {
            map.serialize_entry(name, &n)?;
        }
        map.end()
    }
}

impl<'de> serde::Deserialize<'de> for ErrorCounts {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = std::collections::BTreeMap::<String, u64>::deserialize(deserializer)?;
        let mut counts = ErrorCounts::default();
        for (name, n) in map {
            if let Some(class) = ErrorClass::ALL.iter().find(|c| c.name() == name) {
                counts.counts[class.index()] += n;
            }
        }
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(errno: i32) -> io::Error {
        io::Error::from_raw_os_error(errno)
    }

    #[test]
    fn descriptor_and_port_exhaustion_are_the_clients() {
        assert_eq!(
            classify_io(Stage::Socket, &os(libc::EMFILE)),
            ErrorClass::ClientFdLimit
        );
        assert_eq!(
            classify_io(Stage::Connect, &os(libc::ENFILE)),
            ErrorClass::ClientFdLimit
        );
        assert_eq!(
            classify_io(Stage::Connect, &os(libc::EADDRNOTAVAIL)),
            ErrorClass::ClientEphemeralPorts
        );
        assert_eq!(
            classify_io(Stage::Connect, &os(libc::EADDRINUSE)),
            ErrorClass::ClientEphemeralPorts
        );
        assert_eq!(
            classify_io(Stage::Socket, &os(libc::EADDRNOTAVAIL)),
            ErrorClass::ClientSourceAddress
        );
        for class in [
            ErrorClass::ClientFdLimit,
            ErrorClass::ClientEphemeralPorts,
            ErrorClass::ClientSourceAddress,
        ] {
            assert_eq!(class.side(), Side::Client);
        }
    }

    #[test]
    fn refusals_resets_and_timeouts_are_the_servers() {
        assert_eq!(
            classify_io(Stage::Connect, &os(libc::ECONNREFUSED)),
            ErrorClass::ServerNotAccepting
        );
        assert_eq!(
            classify_io(Stage::Query, &os(libc::ECONNRESET)),
            ErrorClass::ServerClosed
        );
        assert_eq!(
            classify_io(Stage::Query, &os(libc::EPIPE)),
            ErrorClass::ServerClosed
        );
        assert_eq!(
            classify_io(
                Stage::Handshake,
                &io::Error::from(io::ErrorKind::UnexpectedEof)
            ),
            ErrorClass::ServerClosed
        );
        assert_eq!(
            classify_io(Stage::Connect, &io::Error::from(io::ErrorKind::TimedOut)),
            ErrorClass::ServerTimeout
        );
        assert_eq!(
            classify_failure(Stage::Auth, REFUSAL_CODE),
            ErrorClass::ServerRefusal
        );
        // The same code answering a query is an error of that query, not a refusal.
        assert_eq!(
            classify_failure(Stage::Query, REFUSAL_CODE),
            ErrorClass::ServerError
        );
        assert_eq!(
            classify_failure(Stage::Auth, Status::Unauthorized.code()),
            ErrorClass::ServerError
        );
        for class in [
            ErrorClass::ServerRefusal,
            ErrorClass::ServerNotAccepting,
            ErrorClass::ServerTimeout,
            ErrorClass::ServerClosed,
        ] {
            assert_eq!(class.side(), Side::Server);
        }
        assert_eq!(
            classify_io(Stage::Query, &io::Error::from(io::ErrorKind::InvalidData)).side(),
            Side::Unknown
        );
    }

    #[test]
    fn counts_merge_and_summarise() {
        let mut a = ErrorCounts::default();
        a.add(ErrorClass::ServerRefusal);
        a.add(ErrorClass::ServerRefusal);
        let mut b = ErrorCounts::default();
        b.add(ErrorClass::ClientEphemeralPorts);
        a.merge(&b);
        assert_eq!(a.total(), 3);
        assert_eq!(a.by_side(Side::Server), 2);
        assert_eq!(a.by_side(Side::Client), 1);
        assert_eq!(a.summary(), "client_ephemeral_ports=1 server_refusal=2");
        assert_eq!(ErrorCounts::default().summary(), "none");
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, r#"{"client_ephemeral_ports":1,"server_refusal":2}"#);
        let back: ErrorCounts = serde_json::from_str(&json).unwrap();
        assert_eq!(back, a);
    }
}
