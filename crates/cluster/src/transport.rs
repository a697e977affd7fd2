//! Who may speak on the Raft listener, and the connection every RPC travels on.
//!
//! # Mutual TLS between members
//!
//! With cluster TLS on ([`PeerTls`]), both ends of every Raft connection present a certificate
//! from the cluster CA, and a member's certificate names its member id as the DNS name
//! `member-<id>.quiver-cluster` in its subject alternative names ([`member_name`]). The dialer
//! checks that the listener it reached holds the certificate of the member it meant to reach
//! (the name is the handshake's server name, checked like a host name). The listener checks
//! that the dialer's certificate chains to the cluster CA, and for every request that it names
//! the request's claimed sender (the vote's candidate or leader, an announcing member), which
//! must be in this member's membership (see `network::Connection`). Only TLS 1.3 is spoken:
//! both ends are Quiver.
//!
//! # Opening a connection
//!
//! ```text
//! plain:  "QRFT" 0x01, then frames
//! TLS:    ClientHello (first byte 0x16) ... handshake ..., then inside TLS "QRFT" 0x01, frames
//! ```
//!
//! The preamble's first byte (`Q`) is never a TLS record's, so a listener tells a plain dialer
//! from a TLS one by the first byte alone and names a mismatch (TLS on one side only) in its
//! log rather than reading a ClientHello as a frame length.
//!
//! # Frames
//!
//! ```text
//! 0   4   body length n, u32 LE (at most RPC_FRAME_BYTES_MAX)
//! 4   8   sequence number, u64 LE: 1 for a connection's first frame each way, then one more
//! 12  n   body: a request or a response, JSON
//! ```
//!
//! The sequence number makes a frame replayed (or dropped, or reordered) within a connection a
//! broken connection, not a second delivery; across connections TLS's own keys keep a recorded
//! frame from being played into another session.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::RwLock;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::server::WebPkiClientVerifier;
use rustls::{ClientConfig, RootCertStore, ServerConfig};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::{TlsAcceptor, TlsConnector};

use crate::network::{RPC_FRAME_BYTES_MAX, WireError};
use crate::types::NodeId;

/// The DNS name suffix member certificates carry their id under.
pub const MEMBER_NAME_SUFFIX: &str = ".quiver-cluster";

/// What every Raft connection opens with (after the TLS handshake, with TLS on).
pub const PREAMBLE: [u8; 5] = *b"QRFT\x01";

/// The first byte of a TLS handshake record: a ClientHello opens with it.
pub const TLS_HANDSHAKE_RECORD: u8 = 0x16;

const _: () = assert!(PREAMBLE[0] != TLS_HANDSHAKE_RECORD);

/// Bytes before a frame's body: its length and its sequence number.
const FRAME_HEADER_BYTES: usize = 4 + 8;

/// The name a member's certificate carries: `member-<id>.quiver-cluster`.
pub fn member_name(id: NodeId) -> String {
    format!("member-{id}{MEMBER_NAME_SUFFIX}")
}

/// Whether `cert` names member `id` (see [`member_name`]). It says nothing of who issued it:
/// the handshake checked the chain.
pub fn names_member(cert: &CertificateDer<'_>, id: NodeId) -> bool {
    let Ok(name) = ServerName::try_from(member_name(id)) else {
        return false;
    };
    webpki::EndEntityCert::try_from(cert)
        .is_ok_and(|end| end.verify_is_valid_for_subject_name(&name).is_ok())
}

/// Why cluster TLS could not be set up from the given certificates and key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PeerTlsError {
    #[error("cluster CA: {0}")]
    Ca(String),
    #[error("this member's certificate does not name it: expected the DNS name {expected}")]
    NotThisMember { expected: String },
    #[error("no certificate given")]
    NoCertificate,
    #[error("certificate and key: {0}")]
    Unusable(#[from] rustls::Error),
}

/// A member's side of cluster TLS: what it serves and dials with. Replaced whole on reload
/// (SIGHUP): a handshake takes the configuration current when it starts, so a reload never
/// disturbs a connection already open.
#[derive(Debug)]
pub struct PeerTls {
    id: NodeId,
    current: RwLock<(Arc<ServerConfig>, Arc<ClientConfig>)>,
}

impl PeerTls {
    /// Cluster TLS for member `id`: `ca` the cluster CA's certificates, `chain` this member's
    /// certificate (first, naming `id`) and intermediates, `key` its private key.
    pub fn new(
        id: NodeId,
        ca: Vec<CertificateDer<'static>>,
        chain: Vec<CertificateDer<'static>>,
        key: PrivateKeyDer<'static>,
    ) -> Result<PeerTls, PeerTlsError> {
        Ok(PeerTls {
            id,
            current: RwLock::new(configs(id, ca, chain, key)?),
        })
    }

    /// Puts new certificates in use for the handshakes from now on; on an error nothing changes.
    pub fn replace(
        &self,
        ca: Vec<CertificateDer<'static>>,
        chain: Vec<CertificateDer<'static>>,
        key: PrivateKeyDer<'static>,
    ) -> Result<(), PeerTlsError> {
        let fresh = configs(self.id, ca, chain, key)?;
        *self.current.write() = fresh;
        Ok(())
    }

    fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(Arc::clone(&self.current.read().0))
    }

    fn connector(&self) -> TlsConnector {
        TlsConnector::from(Arc::clone(&self.current.read().1))
    }
}

/// TLS 1.3 on ring, client certificates required and chained to `ca` both ways.
fn configs(
    id: NodeId,
    ca: Vec<CertificateDer<'static>>,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> Result<(Arc<ServerConfig>, Arc<ClientConfig>), PeerTlsError> {
    let own = chain.first().ok_or(PeerTlsError::NoCertificate)?;
    if !names_member(own, id) {
        return Err(PeerTlsError::NotThisMember {
            expected: member_name(id),
        });
    }
    let mut roots = RootCertStore::empty();
    for cert in ca {
        roots
            .add(cert)
            .map_err(|error| PeerTlsError::Ca(error.to_string()))?;
    }
    let roots = Arc::new(roots);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier =
        WebPkiClientVerifier::builder_with_provider(Arc::clone(&roots), provider.clone())
            .build()
            .map_err(|error| PeerTlsError::Ca(error.to_string()))?;
    let server = ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain.clone(), key.clone_key())?;
    let client = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_root_certificates(roots)
        .with_client_auth_cert(chain, key)?;
    Ok((Arc::new(server), Arc::new(client)))
}

/// A byte stream a Raft connection runs on: a socket, or a TLS session over one.
pub(crate) trait Io: AsyncRead + AsyncWrite + Unpin + Send + Sync {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send + Sync> Io for T {}

/// One end of an open Raft connection: it numbers the frames it writes and checks the numbers
/// of those it reads.
pub(crate) struct Link {
    io: Box<dyn Io>,
    /// The dialer's certificate, on a listener's end with TLS on.
    pub(crate) peer_cert: Option<CertificateDer<'static>>,
    sent: u64,
    received: u64,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("tls", &self.peer_cert.is_some())
            .field("sent", &self.sent)
            .field("received", &self.received)
            .finish_non_exhaustive()
    }
}

impl Link {
    fn new(io: Box<dyn Io>, peer_cert: Option<CertificateDer<'static>>) -> Link {
        Link {
            io,
            peer_cert,
            sent: 0,
            received: 0,
        }
    }

    /// Writes one frame, numbered after the last.
    pub(crate) async fn send(&mut self, body: &[u8]) -> Result<(), WireError> {
        if body.len() > RPC_FRAME_BYTES_MAX {
            return Err(WireError::FrameTooLarge(body.len()));
        }
        let seq = self.sent + 1;
        let mut out = Vec::with_capacity(FRAME_HEADER_BYTES + body.len());
        out.extend_from_slice(&u32::try_from(body.len()).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(&seq.to_le_bytes());
        out.extend_from_slice(body);
        self.io.write_all(&out).await?;
        self.io.flush().await?;
        self.sent = seq;
        Ok(())
    }

    /// Reads one frame; `Ok(None)` at a clean end of stream before its first byte. A frame
    /// whose number is not the one after the last read is refused (replayed, or out of order).
    pub(crate) async fn recv(&mut self) -> Result<Option<Vec<u8>>, WireError> {
        let mut header = [0u8; FRAME_HEADER_BYTES];
        match self.io.read_exact(&mut header).await {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e.into()),
        }
        let (len, seq) = header.split_at(4);
        let len = u32::from_le_bytes(len.try_into().unwrap_or_default()) as usize;
        let seq = u64::from_le_bytes(seq.try_into().unwrap_or_default());
        if len > RPC_FRAME_BYTES_MAX {
            return Err(WireError::FrameTooLarge(len));
        }
        let expected = self.received + 1;
        if seq != expected {
            return Err(WireError::OutOfSequence { seq, expected });
        }
        // Grow as the bytes arrive rather than trusting the length up front.
        let mut body = Vec::with_capacity(len.min(1 << 20));
        let got = (&mut self.io)
            .take(len as u64)
            .read_to_end(&mut body)
            .await?;
        if got < len {
            return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into());
        }
        self.received = seq;
        Ok(Some(body))
    }
}

/// Dials member `target` at `addr`: TCP within `timeout`, then (with TLS) the handshake, which
/// fails unless the listener's certificate names `target`; then the preamble.
pub(crate) async fn dial(
    tls: Option<&PeerTls>,
    target: NodeId,
    addr: &str,
    timeout: Duration,
) -> Result<Link, WireError> {
    let opening = async {
        let stream = TcpStream::connect(addr).await?;
        let _ = stream.set_nodelay(true);
        let mut link = match tls {
            None => Link::new(Box::new(stream), None),
            Some(tls) => {
                let name = ServerName::try_from(member_name(target))
                    .map_err(|e| WireError::Tls(e.to_string()))?;
                let session = tls
                    .connector()
                    .connect(name, stream)
                    .await
                    .map_err(|e| WireError::Tls(e.to_string()))?;
                Link::new(Box::new(session), None)
            }
        };
        link.io.write_all(&PREAMBLE).await?;
        Ok::<Link, WireError>(link)
    };
    tokio::time::timeout(timeout, opening)
        .await
        .map_err(|_| WireError::Timeout(timeout))?
}

/// Why an accepted connection was closed before its first frame.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Unopened {
    #[error(
        "a plain (not TLS) connection reached this member's Raft listener, which requires cluster TLS"
    )]
    PlainOnTls,
    #[error("a TLS ClientHello reached this member's Raft listener, which has cluster TLS off")]
    TlsOnPlain,
    #[error("TLS handshake refused: {0}")]
    Handshake(String),
    #[error("the connection did not open with the Raft preamble")]
    Preamble,
    #[error("the connection closed before it was open")]
    Closed,
    #[error("opening took longer than {0:?}")]
    Timeout(Duration),
}

/// Opens an accepted connection within `timeout`: the first byte tells TLS from plain, which
/// must match this listener's; a TLS dialer must present a certificate from the cluster CA;
/// then the preamble.
pub(crate) async fn accept(
    tls: Option<&PeerTls>,
    stream: TcpStream,
    timeout: Duration,
) -> Result<Link, Unopened> {
    let opening = async {
        let _ = stream.set_nodelay(true);
        let mut first = [0u8; 1];
        match stream.peek(&mut first).await {
            Ok(0) | Err(_) => return Err(Unopened::Closed),
            Ok(_) => {}
        }
        let mut link = match (tls, first[0] == TLS_HANDSHAKE_RECORD) {
            (Some(_), false) => return Err(Unopened::PlainOnTls),
            (None, true) => return Err(Unopened::TlsOnPlain),
            (None, false) => Link::new(Box::new(stream), None),
            (Some(tls), true) => {
                let session = tls
                    .acceptor()
                    .accept(stream)
                    .await
                    .map_err(|e| Unopened::Handshake(e.to_string()))?;
                let cert = session
                    .get_ref()
                    .1
                    .peer_certificates()
                    .and_then(|chain| chain.first())
                    .map(|cert| cert.clone().into_owned())
                    .ok_or_else(|| Unopened::Handshake("no client certificate".to_owned()))?;
                Link::new(Box::new(session), Some(cert))
            }
        };
        let mut preamble = [0u8; PREAMBLE.len()];
        link.io
            .read_exact(&mut preamble)
            .await
            .map_err(|_| Unopened::Closed)?;
        if preamble != PREAMBLE {
            return Err(Unopened::Preamble);
        }
        Ok(link)
    };
    tokio::time::timeout(timeout, opening)
        .await
        .map_err(|_| Unopened::Timeout(timeout))?
}
