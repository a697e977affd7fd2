//! Opening a connection on a TLS listener: plain or TLS told by the first byte, then the TLS
//! handshake, all before the listener's opening deadline.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_rustls::TlsAcceptor;

use super::{ClientStream, ServerTls};
use crate::config::TlsMode;
use crate::deadline::{Interrupted, Until, opening_deadline, race};
use crate::metrics::TlsMetrics;
use crate::shutdown::ShutdownSignal;

/// The first byte of a TLS handshake record (content type 22). Neither protocol served here
/// opens with it: Bolt's preamble starts with 0x60 and an HTTP request with an ASCII letter.
pub const HANDSHAKE_RECORD: u8 = 0x16;

/// Longest a refusal of a plain connection (on a listener that requires TLS) may take to write.
const PLAIN_REFUSAL_WRITE_MAX: Duration = Duration::from_secs(1);

/// How one listener opens connections when TLS is on.
#[derive(Debug)]
pub struct TlsFront {
    pub tls: Arc<ServerTls>,
    /// `Required` or `Optional` (a listener with TLS off has no front).
    pub mode: TlsMode,
    /// The listener's opening deadline, from accept: the TLS handshake counts against it.
    pub opening_timeout: Duration,
    pub metrics: TlsMetrics,
    /// Written, in clear, to a plain client on a listener that requires TLS before closing
    /// (HTTP says why in a 400; Bolt has no way to say anything before its handshake).
    pub plain_refusal: &'static [u8],
}

/// Why a connection was not opened.
#[derive(Debug, thiserror::Error)]
pub enum Unopened {
    #[error("opening {0}")]
    Interrupted(#[from] Interrupted),
    #[error("client closed the connection before it was open")]
    Closed,
    #[error("plain connection to a listener that requires TLS")]
    PlainRefused,
    #[error("TLS handshake failed: {0}")]
    Handshake(#[source] io::Error),
}

impl TlsFront {
    /// Opens `socket`, accepted at `accepted_at`: the first byte says TLS or plain, a plain one is
    /// refused when TLS is required, and a TLS one is handshaken with the configuration current
    /// now. Every wait races the opening deadline and draining, like the Bolt handshake's, so a
    /// client that dribbles (or never finishes) its ClientHello is cut at the same moment a
    /// plain one would be. Outcomes are counted.
    pub async fn open(
        &self,
        socket: TcpStream,
        accepted_at: Instant,
        shutdown: &ShutdownSignal,
    ) -> Result<ClientStream, Unopened> {
        let deadline = opening_deadline(accepted_at, self.opening_timeout);
        let opened = self.open_by(socket, deadline, shutdown).await;
        let metrics = &self.metrics;
        match &opened {
            Ok(stream) if stream.is_tls() => metrics.handshakes.inc(),
            Ok(_) => metrics.plain.inc(),
            Err(Unopened::Interrupted(Interrupted::Deadline)) => metrics.failed_timed_out.inc(),
            Err(Unopened::Interrupted(_)) => metrics.failed_shutdown.inc(),
            Err(Unopened::Closed) => metrics.failed_closed.inc(),
            Err(Unopened::PlainRefused) => metrics.plain_refused.inc(),
            Err(Unopened::Handshake(error)) => match failure_kind(error) {
                Failure::Certificate => metrics.failed_certificate.inc(),
                Failure::Closed => metrics.failed_closed.inc(),
                Failure::Protocol => metrics.failed_protocol.inc(),
            },
        };
        opened
    }

    async fn open_by(
        &self,
        mut socket: TcpStream,
        deadline: Instant,
        shutdown: &ShutdownSignal,
    ) -> Result<ClientStream, Unopened> {
        let mut first = [0u8; 1];
        let peeked = race(socket.peek(&mut first), deadline, shutdown, Until::Drain)
            .await?
            .map_err(|_| Unopened::Closed)?;
        if peeked == 0 {
            return Err(Unopened::Closed);
        }
        if first[0] != HANDSHAKE_RECORD {
            if self.mode == TlsMode::Optional {
                return Ok(ClientStream::Plain(socket));
            }
            if !self.plain_refusal.is_empty() {
                let written = Instant::now() + PLAIN_REFUSAL_WRITE_MAX;
                let _ = race(
                    socket.write_all(self.plain_refusal),
                    written.min(deadline),
                    shutdown,
                    Until::Drain,
                )
                .await;
                let _ = socket.shutdown().await;
            }
            return Err(Unopened::PlainRefused);
        }
        let acceptor = TlsAcceptor::from(self.tls.current());
        let stream = race(acceptor.accept(socket), deadline, shutdown, Until::Drain)
            .await?
            .map_err(Unopened::Handshake)?;
        Ok(ClientStream::tls(stream))
    }
}

/// A failed handshake, by cause, for the failure counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    /// The client's certificate was missing, or did not chain to the client CA.
    Certificate,
    /// The client went away (often after rejecting the server's certificate with an alert).
    Closed,
    /// Anything else: not TLS after all, no common version or suite, a broken record.
    Protocol,
}

fn failure_kind(error: &io::Error) -> Failure {
    if let Some(tls) = error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
    {
        return match tls {
            rustls::Error::NoCertificatesPresented
            | rustls::Error::InvalidCertificate(_)
            | rustls::Error::AlertReceived(
                rustls::AlertDescription::BadCertificate
                | rustls::AlertDescription::UnknownCA
                | rustls::AlertDescription::CertificateUnknown,
            ) => Failure::Certificate,
            _ => Failure::Protocol,
        };
    }
    match error.kind() {
        io::ErrorKind::UnexpectedEof
        | io::ErrorKind::ConnectionReset
        | io::ErrorKind::ConnectionAborted
        | io::ErrorKind::BrokenPipe => Failure::Closed,
        _ => Failure::Protocol,
    }
}
