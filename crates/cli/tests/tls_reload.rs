//! `quiver serve` with TLS as a process: Neo4j's HTTP API over https, SIGHUP re-reading the
//! certificate and key without a restart, and settings that would be unsafe refusing to start,
//! saying how to fix them.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[allow(dead_code)]
#[path = "../../server/tests/common/certs.rs"]
mod certs;
mod common;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};

/// A TLS client trusting only the CA in `ca`.
fn client_config(ca: &Path) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca).expect("CA file") {
        roots.add(cert.expect("CA certificate")).expect("add CA");
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("versions")
    .with_root_certificates(roots)
    .with_no_client_auth();
    Arc::new(config)
}

/// Whether a TLS handshake with `addr` succeeds for a client trusting only the CA in `ca`.
fn handshake(addr: SocketAddr, ca: &Path) -> bool {
    let name = ServerName::try_from("localhost").expect("name");
    let mut connection = rustls::ClientConnection::new(client_config(ca), name).expect("client");
    let mut socket = TcpStream::connect(addr).expect("connect");
    socket
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    while connection.is_handshaking() {
        if connection.complete_io(&mut socket).is_err() {
            return false;
        }
    }
    // The Bolt preamble and one read: the session answers over the new TLS session.
    let mut stream = rustls::Stream::new(&mut connection, &mut socket);
    let mut preamble = vec![0x60, 0x60, 0xB0, 0x17];
    preamble.extend_from_slice(&[0, 0, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    if stream.write_all(&preamble).is_err() {
        return false;
    }
    let mut version = [0u8; 4];
    stream.read_exact(&mut version).is_ok() && version == [0, 0, 4, 5]
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
}

#[test]
fn the_http_api_answers_over_https() {
    let dir = tempfile::tempdir().expect("dir");
    let files = certs::TestPki::generate().write(dir.path());
    let cert = files.server_cert.to_str().expect("utf-8 path");
    let key = files.server_key.to_str().expect("utf-8 path");
    let (mut child, _, http) = common::start(&[
        "--tls-cert",
        cert,
        "--tls-key",
        key,
        "--http-tls",
        "required",
    ]);
    let name = ServerName::try_from("localhost").expect("name");
    let mut connection =
        rustls::ClientConnection::new(client_config(&files.ca), name).expect("client");
    let mut socket = TcpStream::connect(http).expect("connect");
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut stream = rustls::Stream::new(&mut connection, &mut socket);
    let body = r#"{"statements":[{"statement":"RETURN 1 AS one"}]}"#;
    write!(
        stream,
        "POST /db/neo4j/tx/commit HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("write request");
    let mut reply = Vec::new();
    // The server closes after the reply; a close without close_notify would be an error here.
    stream.read_to_end(&mut reply).expect("read reply");
    let reply = String::from_utf8_lossy(&reply);
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(
        reply.contains(r#""columns":["one"]"#) && reply.contains(r#""errors":[]"#),
        "{reply}"
    );
    signal(&child, "TERM");
    assert!(child.wait().expect("exit").success());
}

#[test]
fn sighup_reloads_the_certificate_and_the_server_goes_on() {
    let dir = tempfile::tempdir().expect("dir");
    let files = certs::TestPki::generate().write(dir.path());
    let cert = files.server_cert.to_str().expect("utf-8 path");
    let key = files.server_key.to_str().expect("utf-8 path");
    let (mut child, bolt, _) = common::start(&[
        "--tls-cert",
        cert,
        "--tls-key",
        key,
        "--bolt-tls",
        "required",
    ]);
    assert!(handshake(bolt, &files.ca), "the first certificate");
    std::fs::copy(&files.other_server_cert, &files.server_cert).expect("copy certificate");
    std::fs::copy(&files.other_server_key, &files.server_key).expect("copy key");
    signal(&child, "HUP");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !handshake(bolt, &files.other_ca) {
        assert!(
            Instant::now() < deadline,
            "the new certificate was not served"
        );
        assert!(
            child.try_wait().expect("wait").is_none(),
            "SIGHUP stopped the server"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !handshake(bolt, &files.ca),
        "the old certificate is still served"
    );
    signal(&child, "TERM");
    let status = child.wait().expect("exit");
    assert!(status.success(), "{status}");
}

#[test]
fn unsafe_settings_refuse_to_start_and_say_how() {
    let run = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_quiver"))
            .arg("serve")
            .args(["--in-memory", "--http-listen", "127.0.0.1:0"])
            .args(args)
            .env_remove("QUIVER_AUTH")
            .output()
            .expect("run quiver");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let short = run(&["--bolt-listen", "127.0.0.1:0", "--auth", "neo4j/a"]);
    assert!(
        short.contains("8 characters") && !short.contains("neo4j/a"),
        "{short}"
    );
    let open = run(&["--bolt-listen", "0.0.0.0:0"]);
    assert!(
        open.contains("authentication is off") && open.contains("--allow-unauthenticated-network"),
        "{open}"
    );
    let no_key = run(&["--bolt-listen", "127.0.0.1:0", "--tls-cert", "missing.pem"]);
    assert!(no_key.contains("tls_key"), "{no_key}");
    let unreadable = run(&[
        "--bolt-listen",
        "127.0.0.1:0",
        "--tls-cert",
        "missing.pem",
        "--tls-key",
        "missing.key",
    ]);
    assert!(unreadable.contains("missing.pem"), "{unreadable}");
}
