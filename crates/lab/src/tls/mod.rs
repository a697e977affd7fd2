//! The lab over TLS: `bolt+s://` (the server's certificate must chain to a CA file given with
//! `--tls-ca`) and `bolt+ssc://` (any certificate, as Neo4j's drivers take a self-signed one),
//! with rustls on the ring provider as the server uses.
//!
//! A TLS connection is the plain one with rustls between the socket and the Bolt client: the
//! same pre-encoded requests, the same reads into one buffer. The client's own TLS cost is in
//! its CPU time (`cpu.client`), like the rest of its work. [`handshakes`] measures what opening
//! costs: TCP, TLS, the Bolt handshake and HELLO, then close, as fast as N clients can.

pub mod handshakes;

use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use crate::error::LabError;

/// Largest CA file read, so a wrong path cannot exhaust memory.
const CA_FILE_BYTES_MAX: u64 = 1 << 20;

/// Which server certificates the lab accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trust {
    /// `bolt+s://`: one that chains to a certificate in this PEM file.
    Ca(PathBuf),
    /// `bolt+ssc://`: any certificate (the connection is encrypted, the server not verified).
    Any,
}

/// The TLS side of a URL: whether the scheme asks for TLS, and how the server is trusted.
/// `bolt+s` needs `--tls-ca`: the lab carries no system roots.
pub fn trust_of(scheme: &str, ca: Option<&Path>) -> Result<Option<Trust>, LabError> {
    match scheme {
        "bolt" | "neo4j" => Ok(None),
        "bolt+ssc" | "neo4j+ssc" => Ok(Some(Trust::Any)),
        "bolt+s" | "neo4j+s" => match ca {
            Some(path) => Ok(Some(Trust::Ca(path.to_owned()))),
            None => Err(LabError::Usage(format!(
                "{scheme}:// verifies the server: give --tls-ca FILE (or use {scheme}sc:// to \
                 accept any certificate)"
            ))),
        },
        other => Err(LabError::Usage(format!("unknown scheme {other}://"))),
    }
}

/// The TLS client `--target`'s scheme asks for, trusting `--tls-ca`; `None` for plain Bolt
/// and for the in-process server (which speaks no TLS).
pub fn client_for(args: &crate::LabArgs) -> Result<Option<TlsClient>, LabError> {
    match &args.target {
        Some(url) => {
            crate::target::parse_url(url)?.tls_client(args.tls_ca.as_deref(), args.tls_resume)
        }
        None => Ok(None),
    }
}

/// `quiver serve`'s TLS flags for the ladder's `--peer-serve` child: Bolt TLS `optional`, so
/// one server answers the plain target and the TLS one on the same port.
pub fn serve_flags(args: &crate::LabArgs) -> Vec<String> {
    match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => vec![
            "--tls-cert".into(),
            cert.display().to_string(),
            "--tls-key".into(),
            key.display().to_string(),
            "--bolt-tls".into(),
            "optional".into(),
            "--http-tls".into(),
            "off".into(),
        ],
        _ => Vec::new(),
    }
}

/// The URL of the `--peer-serve` child's Bolt listener over TLS (`bolt+s` when `--tls-ca` says
/// whom to trust, `bolt+ssc` otherwise); `None` when it serves no TLS.
pub fn serve_url(args: &crate::LabArgs, bolt: &str) -> Option<String> {
    args.tls_cert.as_ref()?;
    let scheme = if args.tls_ca.is_some() {
        "bolt+s"
    } else {
        "bolt+ssc"
    };
    Some(format!("{scheme}://{bolt}"))
}

/// The client's TLS flags every rung's child gets.
pub fn child_flags(args: &crate::LabArgs) -> Vec<String> {
    let mut flags = Vec::new();
    if let Some(ca) = &args.tls_ca {
        flags.extend(["--tls-ca".into(), ca.display().to_string()]);
    }
    if args.tls_resume {
        flags.push("--tls-resume".into());
    }
    flags
}

/// What a dialler needs to open TLS: the configuration (shared by every connection, so
/// session tickets are shared too when resumption is on) and the name the certificate must carry.
#[derive(Clone)]
pub struct TlsClient {
    connector: TlsConnector,
    server_name: ServerName<'static>,
}

impl std::fmt::Debug for TlsClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsClient")
            .field("server_name", &self.server_name)
            .finish_non_exhaustive()
    }
}

impl TlsClient {
    /// A client for `host` (a DNS name or an IP address, as the URL names it). With `resume`,
    /// connections resume earlier sessions (tickets or ids, as the server offers); without it
    /// every handshake is a full one.
    pub fn new(trust: &Trust, host: &str, resume: bool) -> Result<TlsClient, LabError> {
        let usage = |detail: String| LabError::Usage(detail);
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
            .map_err(|e| usage(format!("TLS: {e}")))?;
        let mut config = match trust {
            Trust::Ca(path) => builder
                .with_root_certificates(roots_from(path)?)
                .with_no_client_auth(),
            Trust::Any => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
                .with_no_client_auth(),
        };
        if !resume {
            config.resumption = rustls::client::Resumption::disabled();
        }
        let server_name = ServerName::try_from(host.trim_start_matches('[').trim_end_matches(']'))
            .map_err(|e| usage(format!("TLS server name {host}: {e}")))?
            .to_owned();
        Ok(TlsClient {
            connector: TlsConnector::from(Arc::new(config)),
            server_name,
        })
    }

    /// Runs the TLS handshake over a connected socket.
    pub async fn connect(&self, stream: TcpStream) -> io::Result<LabStream> {
        let tls = self
            .connector
            .connect(self.server_name.clone(), stream)
            .await?;
        Ok(LabStream::Tls(Box::new(tls)))
    }
}

/// The certificates of a PEM file as trust roots.
fn roots_from(path: &Path) -> Result<RootCertStore, LabError> {
    use std::io::Read as _;
    let fail = |detail: String| LabError::Usage(format!("--tls-ca {}: {detail}", path.display()));
    let mut pem = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(CA_FILE_BYTES_MAX + 1).read_to_end(&mut pem))
        .map_err(|e| fail(e.to_string()))?;
    if pem.len() as u64 > CA_FILE_BYTES_MAX {
        return Err(fail(format!("larger than {CA_FILE_BYTES_MAX} bytes")));
    }
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        let cert = cert.map_err(|e| fail(e.to_string()))?;
        roots.add(cert).map_err(|e| fail(e.to_string()))?;
    }
    if roots.is_empty() {
        return Err(fail("no certificate in it (PEM expected)".to_owned()));
    }
    Ok(roots)
}

/// `bolt+ssc`: accepts whatever certificate the server shows, but still checks that the
/// handshake was signed by its key, so the session is what it claims to be.
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// A client connection's byte stream, plain or TLS behind the same calls.
#[derive(Debug)]
pub enum LabStream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl From<TcpStream> for LabStream {
    fn from(stream: TcpStream) -> LabStream {
        LabStream::Plain(stream)
    }
}

impl LabStream {
    /// The socket under it. Over TLS the client's session state is dropped while the server
    /// keeps its own: what experiments that only hold connections open need, since they
    /// measure the server's cost of a connection, not the client's.
    pub fn into_tcp(self) -> TcpStream {
        match self {
            LabStream::Plain(stream) => stream,
            LabStream::Tls(tls) => tls.into_inner().0,
        }
    }

    pub fn is_tls(&self) -> bool {
        matches!(self, LabStream::Tls(_))
    }
}

impl AsyncRead for LabStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            LabStream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            LabStream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for LabStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            LabStream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            LabStream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            LabStream::Plain(s) => Pin::new(s).poll_flush(cx),
            LabStream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            LabStream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            LabStream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_say_whether_and_how_to_trust() {
        assert_eq!(trust_of("bolt", None).unwrap(), None);
        assert_eq!(trust_of("bolt+ssc", None).unwrap(), Some(Trust::Any));
        assert!(trust_of("bolt+s", None).is_err());
        assert_eq!(
            trust_of("neo4j+s", Some(Path::new("ca.pem"))).unwrap(),
            Some(Trust::Ca(PathBuf::from("ca.pem")))
        );
        assert!(trust_of("https", None).is_err());
    }

    #[test]
    fn server_names_may_be_addresses() {
        for host in ["localhost", "127.0.0.1", "[::1]"] {
            TlsClient::new(&Trust::Any, host, false).unwrap();
        }
    }
}
