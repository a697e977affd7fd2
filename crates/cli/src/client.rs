//! The client side of the commands that talk to a running server over its HTTP listener
//! (`quiver backup`, `quiver cdc`): the address and its TLS, basic authorization, one request
//! at a time, and the server's error messages.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST};
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// Largest CA file read.
const CA_FILE_BYTES_MAX: u64 = 1 << 20;

/// The server to ask.
pub(crate) struct Target {
    pub(crate) host: String,
    pub(crate) port: u16,
    pub(crate) tls: Option<tokio_rustls::TlsConnector>,
}

impl Target {
    pub(crate) fn parse(address: &str, ca: Option<&Path>) -> Result<Target, String> {
        let (tls, rest) = if let Some(rest) = address.strip_prefix("https://") {
            (true, rest)
        } else if let Some(rest) = address.strip_prefix("http://") {
            (false, rest)
        } else {
            (false, address)
        };
        let rest = rest.trim_end_matches('/');
        let (host, port) = rest
            .rsplit_once(':')
            .ok_or_else(|| format!("--from `{address}` names no port (host:port)"))?;
        let port = port
            .parse::<u16>()
            .map_err(|_| format!("--from `{address}` has a bad port"))?;
        if host.is_empty() {
            return Err(format!("--from `{address}` names no host"));
        }
        let tls = match (tls, ca) {
            (false, None) => None,
            (false, Some(_)) => {
                return Err("--tls-ca is for an https:// address".to_string());
            }
            (true, None) => {
                return Err("an https:// address needs --tls-ca, the CA to trust".to_string());
            }
            (true, Some(ca)) => Some(connector(ca)?),
        };
        Ok(Target {
            host: host.to_string(),
            port,
            tls,
        })
    }
}

fn connector(ca: &Path) -> Result<tokio_rustls::TlsConnector, String> {
    let fail = |detail: String| format!("--tls-ca {}: {detail}", ca.display());
    let mut pem = Vec::new();
    std::fs::File::open(ca)
        .and_then(|f| f.take(CA_FILE_BYTES_MAX + 1).read_to_end(&mut pem))
        .map_err(|e| fail(e.to_string()))?;
    if pem.len() as u64 > CA_FILE_BYTES_MAX {
        return Err(fail(format!("larger than {CA_FILE_BYTES_MAX} bytes")));
    }
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        let cert = cert.map_err(|e| fail(e.to_string()))?;
        roots.add(cert).map_err(|e| fail(e.to_string()))?;
    }
    if roots.is_empty() {
        return Err(fail("no certificate in it (PEM expected)".to_string()));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(|e| fail(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

/// Asks a server for backup pieces.
pub(crate) struct Client {
    target: Target,
    database: String,
    authorization: Option<String>,
}

impl Client {
    /// A client of `target`'s `database`, as `user` with `password` (none: no
    /// authorization header).
    pub(crate) fn new(
        target: Target,
        database: &str,
        user: &str,
        password: Option<&str>,
    ) -> Client {
        Client {
            target,
            database: database.to_owned(),
            authorization: password.map(|password| {
                let pair = format!("{user}:{password}");
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(pair)
                )
            }),
        }
    }

    pub(crate) fn database(&self) -> &str {
        &self.database
    }

    /// Sends `method path` with `body` (JSON when there is one) and waits up to `timeout` for
    /// the answer's head: its status, headers and body.
    pub(crate) fn request(
        &self,
        runtime: &tokio::runtime::Runtime,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
        timeout: Duration,
    ) -> Result<(StatusCode, HeaderMap, Incoming), String> {
        let target = &self.target;
        let address = format!("{}:{}", target.host, target.port);
        let mut builder = Request::builder()
            .method(method)
            .uri(path)
            .header(HOST, address.as_str());
        if body.is_some() {
            builder = builder
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, "application/json");
        }
        let mut request = builder
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .map_err(|e| format!("cannot build the request: {e}"))?;
        if let Some(authorization) = &self.authorization {
            let value = authorization
                .parse()
                .map_err(|_| "the user name or password cannot be sent in a header".to_string())?;
            request.headers_mut().insert(AUTHORIZATION, value);
        }
        let answered = runtime.block_on(async {
            tokio::time::timeout(timeout, async {
                let tcp = TcpStream::connect(&address)
                    .await
                    .map_err(|e| format!("cannot connect to {address}: {e}"))?;
                match &target.tls {
                    None => send(tcp, request).await,
                    Some(connector) => {
                        let host = target.host.trim_start_matches('[').trim_end_matches(']');
                        let name = ServerName::try_from(host.to_string())
                            .map_err(|e| format!("TLS server name {host}: {e}"))?;
                        let tls = connector
                            .connect(name, tcp)
                            .await
                            .map_err(|e| format!("TLS with {address}: {e}"))?;
                        send(tls, request).await
                    }
                }
            })
            .await
            .map_err(|_| format!("{address} did not answer in time"))?
        })?;
        let (parts, body) = answered.into_parts();
        Ok((parts.status, parts.headers, body))
    }
}

async fn send<S>(
    stream: S,
    request: Request<Full<Bytes>>,
) -> Result<http::Response<Incoming>, String>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP: {e}"))?;
    tokio::spawn(connection);
    sender
        .send_request(request)
        .await
        .map_err(|e| format!("HTTP: {e}"))
}

/// The server's message and status code in a Neo4j-shaped error body, or the body as text.
pub(crate) fn error_message(runtime: &tokio::runtime::Runtime, body: Incoming) -> String {
    let collected = runtime
        .block_on(async { tokio::time::timeout(Duration::from_secs(30), body.collect()).await });
    let Ok(Ok(collected)) = collected else {
        return "the server's answer could not be read".to_string();
    };
    let bytes = collected.to_bytes();
    serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| {
            let error = &v["errors"][0];
            let message = error["message"].as_str()?;
            Some(match error["code"].as_str() {
                Some(code) => format!("{message} ({code})"),
                None => message.to_string(),
            })
        })
        .unwrap_or_else(|| String::from_utf8_lossy(&bytes).into_owned())
}
