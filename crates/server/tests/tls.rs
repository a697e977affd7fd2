//! TLS on both listeners, against a CA and certificates made in the test: Bolt and HTTP over TLS,
//! plain beside TLS where it is optional and refused where it is required, wrong certificates,
//! mutual TLS, reloading the certificate, and clients that dribble or garble their ClientHello.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use common::bolt::{BoltClient, pull, run};
use common::certs::{PkiFiles, TestPki};
use common::{Running, config, connect_sending, eventually, start};
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use quiver_bolt::message::Auth;
use quiver_bolt::{Response, Version};
use quiver_server::config::{Layer, TlsMode};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

const V58: &[Version] = &[Version::V5_8, Version::V5_4, Version::V5_0];

/// A server with TLS on, the certificates in `dir`, adjusted by `tweak`.
async fn tls_server(files: &PkiFiles, tweak: impl FnOnce(&mut Layer)) -> Running {
    let config = config(|layer| {
        layer.tls_cert = Some(files.server_cert.clone());
        layer.tls_key = Some(files.server_key.clone());
        tweak(layer);
    });
    start(config, None).await
}

fn pki(dir: &Path) -> PkiFiles {
    TestPki::generate().write(dir)
}

/// A client configuration offering the TLS `versions` and trusting the CA in `ca`, the client
/// certificate still to choose.
fn trusting(
    ca: &Path,
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> rustls::ConfigBuilder<rustls::ClientConfig, rustls::client::WantsClientCert> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca).expect("CA file") {
        roots.add(cert.expect("CA certificate")).expect("add CA");
    }
    rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_protocol_versions(versions)
        .expect("versions")
        .with_root_certificates(roots)
}

/// A client trusting the CA in `ca`, presenting `identity` (certificate, key) when given.
fn connector(ca: &Path, identity: Option<(&Path, &Path)>) -> TlsConnector {
    let builder = trusting(ca, rustls::DEFAULT_VERSIONS);
    let config = match identity {
        Some((cert, key)) => builder
            .with_client_auth_cert(
                CertificateDer::pem_file_iter(cert)
                    .expect("client certificate file")
                    .collect::<Result<Vec<_>, _>>()
                    .expect("client certificate"),
                PrivateKeyDer::from_pem_file(key).expect("client key"),
            )
            .expect("client identity"),
        None => builder.with_no_client_auth(),
    };
    TlsConnector::from(Arc::new(config))
}

async fn tls_connect(
    addr: std::net::SocketAddr,
    connector: &TlsConnector,
    host: &str,
) -> std::io::Result<TlsStream<TcpStream>> {
    let socket = TcpStream::connect(addr).await?;
    let name = ServerName::try_from(host.to_owned()).expect("server name");
    connector.connect(name, socket).await
}

/// A TLS handshake with `addr` as `localhost`, trusting the CA in `ca`.
async fn tls_localhost(addr: std::net::SocketAddr, ca: &Path) -> TlsStream<TcpStream> {
    tls_connect(addr, &connector(ca, None), "localhost")
        .await
        .expect("TLS handshake")
}

/// A Bolt session over TLS with the listener at `addr`, trusting the CA in `ca`.
async fn secure_bolt(addr: std::net::SocketAddr, ca: &Path) -> BoltClient<TlsStream<TcpStream>> {
    BoltClient::over(tls_localhost(addr, ca).await, V58, true).await
}

/// Logs in without credentials and runs `RETURN 1`: the whole session over the stream.
async fn query_one<S>(client: &mut BoltClient<S>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    client.login(Auth::none()).await.expect("logged in");
    return_one(client).await;
}

/// Runs `RETURN 1` in a logged-in session and reads its one record and both SUCCESSes.
async fn return_one<S>(client: &mut BoltClient<S>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    client.send(&[run("RETURN 1 AS one"), pull(-1, -1)]).await;
    client.expect_success().await;
    assert!(matches!(client.recv().await, Some(Response::Record(_))));
    client.expect_success().await;
}

/// The server closed the connection, with at most a TLS alert (7 bytes) said first.
async fn expect_dropped<S: tokio::io::AsyncRead + Unpin>(stream: &mut S) {
    let mut said = Vec::new();
    let mut chunk = [0u8; 64];
    loop {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .expect("closed within 10 s");
        match read {
            Ok(0) | Err(_) => break,
            Ok(n) => said.extend_from_slice(&chunk[..n]),
        }
    }
    assert!(
        said.is_empty() || (said.len() == 7 && said[0] == 0x15),
        "expected the connection closed, read {said:?}"
    );
}

#[tokio::test]
async fn bolt_over_tls_and_plain_share_an_optional_listener() {
    let dir = tempfile::tempdir().expect("dir");
    let files = pki(dir.path());
    let server = tls_server(&files, |_| {}).await;
    let mut secure = secure_bolt(server.bolt, &files.ca).await;
    query_one(&mut secure).await;
    let mut plain = BoltClient::connect(server.bolt, V58, true).await;
    query_one(&mut plain).await;
    // The IP address is in the certificate too.
    let by_ip = tls_connect(server.bolt, &connector(&files.ca, None), "127.0.0.1").await;
    assert!(by_ip.is_ok(), "{by_ip:?}");
    let tls = &server.metrics.bolt.tls;
    // The client's side of a TLS 1.3 handshake ends before the server's.
    assert!(eventually(|| tls.handshakes.get() == 2).await);
    assert_eq!(tls.plain.get(), 1);
    assert_eq!(tls.failures(), 0);
    let text = server.metrics.encode();
    assert!(
        text.contains("quiver_bolt_tls_handshakes_total 2"),
        "{text}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_listener_requiring_tls_closes_plain_clients_and_stays_up() {
    let dir = tempfile::tempdir().expect("dir");
    let files = pki(dir.path());
    let server = tls_server(&files, |layer| {
        layer.bolt_tls = Some(TlsMode::Required);
        layer.http_tls = Some(TlsMode::Required);
    })
    .await;
    let preamble = quiver_bolt::handshake::client_handshake(V58, true);
    let mut plain = connect_sending(server.bolt, &preamble).await;
    expect_dropped(&mut plain).await;
    // Plain HTTP is told why in a 400.
    let mut http =
        connect_sending(server.http, b"GET /health/live HTTP/1.1\r\nhost: x\r\n\r\n").await;
    let reply = common::read_reply(&mut http).await.expect("a reply");
    assert_eq!(reply.status, 400);
    assert!(reply.text().contains("requires TLS"), "{}", reply.text());
    // Garbage is not TLS either.
    let mut garbage = connect_sending(server.bolt, b"\x00\xffnot a hello").await;
    expect_dropped(&mut garbage).await;
    assert_eq!(server.metrics.bolt.tls.plain_refused.get(), 2);
    assert_eq!(server.metrics.http.tls.plain_refused.get(), 1);
    // The server is still there for TLS clients.
    let mut secure = secure_bolt(server.bolt, &files.ca).await;
    query_one(&mut secure).await;
    server.stop().await;
}

#[tokio::test]
async fn https_serves_the_http_listener() {
    let dir = tempfile::tempdir().expect("dir");
    let files = pki(dir.path());
    let server = tls_server(&files, |layer| layer.http_tls = Some(TlsMode::Required)).await;
    let tls = tls_localhost(server.http, &files.ca).await;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .expect("HTTP handshake");
    tokio::spawn(connection);
    // Open, and idle before its first request and between requests: the connection waits
    // without hyper's state, and each request is served all the same.
    let serving = &server.metrics.http_connections_serving;
    for path in ["/health/live", "/metrics", "/health/live"] {
        assert!(
            eventually(|| server.metrics.http.active.get() == 1 && serving.get() == 0).await,
            "an idle TLS connection kept hyper's state"
        );
        let request = http::Request::get(path)
            .header("host", "localhost")
            .body(Empty::<Bytes>::new())
            .expect("request");
        let response = sender.send_request(request).await.expect("response");
        assert_eq!(response.status(), 200, "{path}");
        let body = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        if path == "/metrics" {
            let text = String::from_utf8_lossy(&body);
            assert!(
                text.contains("quiver_http_tls_handshakes_total 1"),
                "{text}"
            );
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn a_wrong_certificate_is_refused_by_the_client() {
    let dir = tempfile::tempdir().expect("dir");
    let files = pki(dir.path());
    // The right CA, but a certificate for another host.
    let server = config(|layer| {
        layer.tls_cert = Some(files.wrong_host_cert.clone());
        layer.tls_key = Some(files.wrong_host_key.clone());
    });
    let server = start(server, None).await;
    let refused = tls_connect(server.bolt, &connector(&files.ca, None), "localhost").await;
    assert!(refused.is_err(), "a certificate for another host passed");
    server.stop().await;
    // The right host, but a CA the client does not trust.
    let server = tls_server(&files, |_| {}).await;
    let refused = tls_connect(server.bolt, &connector(&files.other_ca, None), "localhost").await;
    assert!(refused.is_err(), "a certificate from an unknown CA passed");
    let failed = &server.metrics.bolt.tls.failed_certificate;
    assert!(
        eventually(|| failed.get() == 1).await,
        "the failure counted"
    );
    server.stop().await;
}

#[tokio::test]
async fn mutual_tls_takes_only_clients_with_a_certificate_from_the_client_ca() {
    let dir = tempfile::tempdir().expect("dir");
    let files = pki(dir.path());
    let server = tls_server(&files, |layer| {
        layer.tls_client_ca = Some(files.ca.clone());
        layer.bolt_tls = Some(TlsMode::Required);
    })
    .await;
    // Without a certificate: TLS 1.3 clients learn of the refusal at their first read.
    let anonymous = tls_connect(server.bolt, &connector(&files.ca, None), "localhost").await;
    if let Ok(mut stream) = anonymous {
        let _ = stream
            .write_all(&quiver_bolt::handshake::client_handshake(V58, true))
            .await;
        expect_dropped(&mut stream).await;
    }
    let identity = (files.client_cert.as_path(), files.client_key.as_path());
    let tls = tls_connect(
        server.bolt,
        &connector(&files.ca, Some(identity)),
        "localhost",
    )
    .await
    .expect("TLS handshake with a client certificate");
    let mut client = BoltClient::over(tls, V58, true).await;
    query_one(&mut client).await;
    let failed = &server.metrics.bolt.tls.failed_certificate;
    assert!(
        eventually(|| failed.get() == 1).await,
        "the refusal counted"
    );
    assert_eq!(server.metrics.bolt.tls.handshakes.get(), 1);
    server.stop().await;
}

#[tokio::test]
async fn a_reload_serves_the_new_certificate_to_new_handshakes_and_keeps_open_sessions() {
    let dir = tempfile::tempdir().expect("dir");
    let files = pki(dir.path());
    let server = tls_server(&files, |_| {}).await;
    let mut before = secure_bolt(server.bolt, &files.ca).await;
    before.login(Auth::none()).await.expect("logged in");
    // Renewal: the files now hold a certificate from the other CA.
    std::fs::copy(&files.other_server_cert, &files.server_cert).expect("copy certificate");
    std::fs::copy(&files.other_server_key, &files.server_key).expect("copy key");
    server
        .tls
        .as_ref()
        .expect("TLS on")
        .reload()
        .expect("reload");
    let old_ca = tls_connect(server.bolt, &connector(&files.ca, None), "localhost").await;
    assert!(old_ca.is_err(), "the old certificate is still served");
    let mut after = secure_bolt(server.bolt, &files.other_ca).await;
    query_one(&mut after).await;
    // The session opened before the reload goes on.
    return_one(&mut before).await;
    // A broken file keeps the configuration in use.
    std::fs::write(&files.server_key, "not a key").expect("write");
    assert!(server.tls.as_ref().expect("TLS on").reload().is_err());
    let still = tls_connect(server.bolt, &connector(&files.other_ca, None), "localhost").await;
    assert!(still.is_ok(), "{still:?}");
    server.stop().await;
}

#[tokio::test]
async fn garbage_after_the_handshake_byte_is_a_protocol_failure() {
    let dir = tempfile::tempdir().expect("dir");
    let files = pki(dir.path());
    let server = tls_server(&files, |_| {}).await;
    for garbage in [
        &b"\x16\x03\x01\x00\x05hello"[..],
        &b"\x16\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"[..],
    ] {
        let mut socket = connect_sending(server.bolt, garbage).await;
        expect_dropped(&mut socket).await;
    }
    let failed = &server.metrics.bolt.tls.failed_protocol;
    assert!(eventually(|| failed.get() == 2).await, "both counted");
    server.stop().await;
}

#[tokio::test]
async fn a_slow_client_hello_is_reclaimed_at_the_opening_deadline() {
    let dir = tempfile::tempdir().expect("dir");
    let files = pki(dir.path());
    let server = tls_server(&files, |layer| {
        layer.handshake_timeout_ms = Some(300);
        layer.http_header_read_timeout_ms = Some(300);
    })
    .await;
    for addr in [server.bolt, server.http] {
        // Silent after the first bytes of a record header.
        let mut dribbling = connect_sending(addr, b"\x16\x03").await;
        // Silent from the start.
        let mut silent = TcpStream::connect(addr).await.expect("connect");
        let started = tokio::time::Instant::now();
        expect_dropped(&mut dribbling).await;
        expect_dropped(&mut silent).await;
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "reclaimed after {:?}",
            started.elapsed()
        );
    }
    let metrics = &server.metrics;
    assert!(
        eventually(|| {
            metrics.bolt.tls.failed_timed_out.get() == 2
                && metrics.http.tls.failed_timed_out.get() == 2
                && metrics.bolt.timed_out.get() == 2
        })
        .await,
        "every one counted"
    );
    server.stop().await;
}

#[tokio::test]
async fn tls_1_2_is_served_beside_1_3() {
    let dir = tempfile::tempdir().expect("dir");
    let files = pki(dir.path());
    let server = tls_server(&files, |_| {}).await;
    let config = trusting(&files.ca, &[&rustls::version::TLS12]).with_no_client_auth();
    let tls = tls_connect(
        server.bolt,
        &TlsConnector::from(Arc::new(config)),
        "localhost",
    )
    .await
    .expect("a TLS 1.2 handshake");
    assert_eq!(
        tls.get_ref().1.protocol_version(),
        Some(rustls::ProtocolVersion::TLSv1_2)
    );
    let mut client = BoltClient::over(tls, V58, true).await;
    query_one(&mut client).await;
    server.stop().await;
}

/// Random openings, some posing as a TLS record: each connection is closed by the opening
/// deadline at the latest, nothing panics, and the server goes on serving.
#[tokio::test]
async fn random_openings_are_all_closed_by_the_deadline() {
    use rand::{Rng, SeedableRng};
    let dir = tempfile::tempdir().expect("dir");
    let files = pki(dir.path());
    let server = tls_server(&files, |layer| {
        layer.bolt_tls = Some(TlsMode::Required);
        layer.handshake_timeout_ms = Some(500);
    })
    .await;
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x7157);
    let mut sockets = Vec::new();
    for round in 0..40 {
        let length = rng.random_range(1..300);
        let mut bytes: Vec<u8> = (0..length).map(|_| rng.random()).collect();
        if round % 2 == 0 {
            // A record header that claims to be a handshake, then noise.
            bytes[0] = 0x16;
            if bytes.len() > 2 {
                bytes[1] = 0x03;
                bytes[2] = rng.random_range(0..5);
            }
        }
        sockets.push(connect_sending(server.bolt, &bytes).await);
    }
    let started = tokio::time::Instant::now();
    for socket in &mut sockets {
        let mut sink = [0u8; 1024];
        let closed = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                match socket.read(&mut sink).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
        })
        .await;
        assert!(closed.is_ok(), "a connection outlived the deadline");
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(server.metrics.bolt.panics.get(), 0);
    let mut client = secure_bolt(server.bolt, &files.ca).await;
    query_one(&mut client).await;
    server.stop().await;
}

#[tokio::test]
async fn past_the_limit_a_tls_client_is_refused_inside_tls() {
    let dir = tempfile::tempdir().expect("dir");
    let files = pki(dir.path());
    let server = tls_server(&files, |layer| {
        layer.bolt_tls = Some(TlsMode::Required);
        layer.http_tls = Some(TlsMode::Required);
        layer.max_connections = Some(1);
        layer.admin_reserved_connections = Some(0);
        layer.http_max_connections = Some(1);
    })
    .await;
    let mut held = secure_bolt(server.bolt, &files.ca).await;
    held.login(Auth::none())
        .await
        .expect("the first is admitted");
    // The second completes its TLS handshake and reads Neo4j's refusal inside the session.
    let mut refused = secure_bolt(server.bolt, &files.ca).await;
    let (code, message) = match refused.login(Auth::none()).await {
        Err(failure) => failure,
        Ok(meta) => panic!("admitted past the limit: {meta:?}"),
    };
    assert_eq!(code, "Neo.TransientError.General.ServiceUnavailable");
    assert!(message.contains("limit of 1"), "{message}");
    refused.expect_closed().await;
    // HTTP: the second client's request is answered with the 503, inside TLS.
    let live = b"GET /health/live HTTP/1.1\r\nhost: localhost\r\n\r\n";
    let mut first = tls_localhost(server.http, &files.ca).await;
    first.write_all(live).await.expect("request");
    let mut head = [0u8; 12];
    first.read_exact(&mut head).await.expect("an answer");
    assert_eq!(&head, b"HTTP/1.1 200");
    // The refuser speaks TLS.
    let mut second = tls_localhost(server.http, &files.ca).await;
    second.write_all(live).await.expect("request");
    let mut reply = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), second.read_to_end(&mut reply))
        .await
        .expect("closed within 10 s");
    let text = String::from_utf8_lossy(&reply);
    assert!(text.starts_with("HTTP/1.1 503"), "{text}");
    assert_eq!(server.metrics.bolt.rejected.get(), 1);
    assert_eq!(server.metrics.http.rejected.get(), 1);
    // The held connections still work.
    held.send(&[run("RETURN 1 AS one"), pull(-1, -1)]).await;
    held.expect_success().await;
    drop(first);
    server.stop().await;
}
