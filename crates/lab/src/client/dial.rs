//! Opening client sockets, optionally from several loopback source addresses.
//!
//! Every connection to one server address and port needs its own source port, so one source
//! address caps a run at the ephemeral port range (`net.ipv4.ip_local_port_range`, about 28,000
//! here). Rotating the source over 127.0.0.1, 127.0.0.2, … (all of 127/8 is loopback on Linux)
//! multiplies that ceiling, so a large N measures the server rather than the port table.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::net::{TcpSocket, TcpStream};

use super::ClientError;
use crate::classify::Stage;
use crate::tls::{LabStream, TlsClient};

/// Most source addresses a run may rotate over (127.0.0.1 … 127.0.0.254).
pub const SOURCE_ADDRS_MAX: usize = 254;

#[derive(Debug)]
pub struct Dialer {
    target: SocketAddr,
    /// Empty: let the kernel choose (one address).
    sources: Vec<IpAddr>,
    next: AtomicUsize,
    connect_timeout: Duration,
    /// `Some`: Bolt connections open TLS over the socket before the Bolt handshake.
    tls: Option<TlsClient>,
}

impl Dialer {
    /// `source_addrs` > 1 binds connection `k` to `127.0.0.(1 + k mod source_addrs)`; only
    /// for loopback targets, where those addresses exist.
    pub fn new(target: SocketAddr, source_addrs: usize, connect_timeout: Duration) -> Dialer {
        let sources = if source_addrs > 1 && target.ip().is_loopback() && target.is_ipv4() {
            (1..=source_addrs.min(SOURCE_ADDRS_MAX))
                .map(|i| IpAddr::V4(Ipv4Addr::new(127, 0, 0, i as u8)))
                .collect()
        } else {
            Vec::new()
        };
        Dialer::from_sources(target, sources, connect_timeout)
    }

    /// Bolt connections ([`Dialer::open_stream`]) speak TLS with `tls`; raw sockets
    /// ([`Dialer::dial`]) stay plain.
    pub fn with_tls(mut self, tls: Option<TlsClient>) -> Dialer {
        self.tls = tls;
        self
    }

    pub fn is_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// A socket ready for the Bolt handshake: dialled, and with TLS opened over it when the
    /// dialler has TLS, both within the connect timeout.
    pub async fn open_stream(&self) -> Result<LabStream, ClientError> {
        let stream = self.dial().await?;
        let Some(tls) = &self.tls else {
            return Ok(LabStream::Plain(stream));
        };
        tokio::time::timeout(self.connect_timeout, tls.connect(stream))
            .await
            .map_err(|_| ClientError::Timeout {
                stage: Stage::Handshake,
            })?
            .map_err(|source| ClientError::Io {
                stage: Stage::Handshake,
                source,
            })
    }

    pub fn target(&self) -> SocketAddr {
        self.target
    }

    pub fn source_count(&self) -> usize {
        self.sources.len().max(1)
    }

    /// Like [`Dialer::new`], but always binds its sources, starting at `127.0.0.(first)`:
    /// connections that must not take an ephemeral port of 127.0.0.1, where servers that
    /// restart on fixed ports bind theirs again.
    pub fn from_loopback_sources(
        target: SocketAddr,
        first: u8,
        source_addrs: usize,
        connect_timeout: Duration,
    ) -> Dialer {
        let last = (usize::from(first) + source_addrs.max(1) - 1).min(SOURCE_ADDRS_MAX + 1);
        let sources = (usize::from(first)..=last)
            .filter_map(|i| u8::try_from(i).ok())
            .map(|i| IpAddr::V4(Ipv4Addr::new(127, 0, 0, i)))
            .collect();
        Dialer::from_sources(target, sources, connect_timeout)
    }

    /// A plain dialler to `target` that binds its connections to `sources` in turn (none: the
    /// system chooses).
    fn from_sources(target: SocketAddr, sources: Vec<IpAddr>, connect_timeout: Duration) -> Dialer {
        Dialer {
            target,
            sources,
            next: AtomicUsize::new(0),
            connect_timeout,
            tls: None,
        }
    }

    /// A connected socket with Nagle off (requests are written whole).
    pub async fn dial(&self) -> Result<TcpStream, ClientError> {
        let stream = tokio::time::timeout(self.connect_timeout, self.connect())
            .await
            .map_err(|_| ClientError::Timeout {
                stage: Stage::Connect,
            })??;
        stream.set_nodelay(true).map_err(|source| ClientError::Io {
            stage: Stage::Connect,
            source,
        })?;
        Ok(stream)
    }

    async fn connect(&self) -> Result<TcpStream, ClientError> {
        let socket_error = |source| ClientError::Io {
            stage: Stage::Socket,
            source,
        };
        let connect_error = |source| ClientError::Io {
            stage: Stage::Connect,
            source,
        };
        if self.sources.is_empty() {
            return TcpStream::connect(self.target).await.map_err(connect_error);
        }
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        let source = self.sources[k % self.sources.len()];
        let socket = TcpSocket::new_v4().map_err(socket_error)?;
        socket
            .bind(SocketAddr::new(source, 0))
            .map_err(|source| ClientError::Io {
                // A failed bind with port 0 means this address has no free port left.
                stage: if source.raw_os_error() == Some(libc::EADDRINUSE) {
                    Stage::Connect
                } else {
                    Stage::Socket
                },
                source,
            })?;
        socket.connect(self.target).await.map_err(connect_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn rotates_over_loopback_sources() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let dialer = Dialer::new(addr, 3, Duration::from_secs(5));
        assert_eq!(dialer.source_count(), 3);
        let mut seen = Vec::new();
        for _ in 0..3 {
            let _client = dialer.dial().await.unwrap();
            let (_server, peer) = listener.accept().await.unwrap();
            seen.push(peer.ip());
        }
        seen.sort();
        assert_eq!(
            seen,
            ["127.0.0.1", "127.0.0.2", "127.0.0.3"].map(|s| s.parse::<IpAddr>().unwrap())
        );
    }

    #[tokio::test]
    async fn loopback_sources_can_skip_127_0_0_1() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let dialer = Dialer::from_loopback_sources(addr, 2, 1, Duration::from_secs(5));
        let _client = dialer.dial().await.unwrap();
        let (_server, peer) = listener.accept().await.unwrap();
        assert_eq!(peer.ip(), "127.0.0.2".parse::<IpAddr>().unwrap());
    }

    #[tokio::test]
    async fn refused_connect_is_the_servers() {
        // Bind then drop: nothing listens on the port afterwards.
        let addr = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap()
        };
        let err = Dialer::new(addr, 1, Duration::from_secs(5))
            .dial()
            .await
            .unwrap_err();
        assert_eq!(err.class(), crate::classify::ErrorClass::ServerNotAccepting);
    }
}
