//! TLS on the listeners, with rustls: the server's certificate and key (re-read on SIGHUP, while
//! open connections keep the configuration they were opened with), the opening of a connection
//! on a TLS listener ([`TlsFront`]), and the stream sessions read and write whether or not it
//! is encrypted ([`ClientStream`]). A cluster member's certificate, key and cluster CA are read
//! here too, the same way ([`ClusterTls`]), for the mutual TLS between members.

mod cluster;
mod front;
mod stream;

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use parking_lot::RwLock;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig};

pub use cluster::ClusterTls;
pub use front::{HANDSHAKE_RECORD, TlsFront, Unopened};
pub use stream::ClientStream;

use crate::config::TlsSettings;

/// Largest PEM file read, so a wrong path (a device, a log) cannot exhaust memory.
pub const PEM_FILE_BYTES_MAX: u64 = 1 << 20;

/// Why the certificate, key or client CA could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    #[error("TLS file {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("TLS file {path}: larger than {PEM_FILE_BYTES_MAX} bytes")]
    TooLarge { path: String },
    #[error("TLS file {path}: no {what} in it (PEM expected)")]
    Missing { path: String, what: &'static str },
    #[error("TLS file {path}: {message}")]
    Pem { path: String, message: String },
    #[error("TLS client CA {path}: {message}")]
    ClientCa { path: String, message: String },
    #[error("TLS certificate and key: {0}")]
    Unusable(#[source] rustls::Error),
    #[error("cluster TLS: {0}")]
    Cluster(#[source] quiver_cluster::PeerTlsError),
}

/// The server's TLS configuration, shared by both listeners and replaced whole on reload: a
/// handshake takes the configuration current when it starts, so a reload never disturbs one in
/// progress or a connection already open.
#[derive(Debug)]
pub struct ServerTls {
    settings: TlsSettings,
    current: RwLock<Arc<ServerConfig>>,
}

impl ServerTls {
    /// Reads the files `settings` names.
    pub fn load(settings: &TlsSettings) -> Result<ServerTls, TlsError> {
        Ok(ServerTls {
            settings: settings.clone(),
            current: RwLock::new(Arc::new(server_config(settings)?)),
        })
    }

    /// Reads the files again; on any error the configuration in use stays.
    pub fn reload(&self) -> Result<(), TlsError> {
        let fresh = Arc::new(server_config(&self.settings)?);
        *self.current.write() = fresh;
        Ok(())
    }

    /// The configuration new handshakes use.
    pub fn current(&self) -> Arc<ServerConfig> {
        Arc::clone(&self.current.read())
    }

    pub fn settings(&self) -> &TlsSettings {
        &self.settings
    }
}

/// TLS 1.3 and 1.2 only, with rustls' default suites (AEAD ciphers with forward secrecy), on the
/// ring provider; client certificates are demanded when a client CA is configured.
fn server_config(settings: &TlsSettings) -> Result<ServerConfig, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let certs = read_certificates(&settings.cert)?;
    let key = read_key(&settings.key)?;
    let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(TlsError::Unusable)?;
    let builder = match &settings.client_ca {
        Some(path) => {
            let client_ca = |message: String| TlsError::ClientCa {
                path: path.display().to_string(),
                message,
            };
            let mut roots = RootCertStore::empty();
            for cert in read_certificates(path)? {
                roots
                    .add(cert)
                    .map_err(|error| client_ca(error.to_string()))?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|error| client_ca(error.to_string()))?;
            builder.with_client_cert_verifier(verifier)
        }
        None => builder.with_no_client_auth(),
    };
    builder
        .with_single_cert(certs, key)
        .map_err(TlsError::Unusable)
}

fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    let key_pem = read_pem(path)?;
    PrivateKeyDer::from_pem_slice(&key_pem).map_err(|error| match error {
        rustls::pki_types::pem::Error::NoItemsFound => TlsError::Missing {
            path: path.display().to_string(),
            what: "private key",
        },
        other => TlsError::Pem {
            path: path.display().to_string(),
            message: other.to_string(),
        },
    })
}

fn read_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let pem = read_pem(path)?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| TlsError::Pem {
            path: path.display().to_string(),
            message: error.to_string(),
        })?;
    if certs.is_empty() {
        return Err(TlsError::Missing {
            path: path.display().to_string(),
            what: "certificate",
        });
    }
    Ok(certs)
}

fn read_pem(path: &Path) -> Result<Vec<u8>, TlsError> {
    let read_error = |source| TlsError::Read {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut bytes = Vec::new();
    file.take(PEM_FILE_BYTES_MAX + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > PEM_FILE_BYTES_MAX {
        return Err(TlsError::TooLarge {
            path: path.display().to_string(),
        });
    }
    Ok(bytes)
}
