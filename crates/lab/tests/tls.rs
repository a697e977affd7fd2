//! The lab over TLS at tiny scale: a Quiver whose Bolt port takes plain and TLS clients, under a
//! certificate made here; the count workload over `bolt+s` (verified against a CA) and over plain
//! Bolt against the same server, and the handshake rate over `bolt+ssc` with the server's own
//! TLS counters read from `/stats`.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use quiver_lab::LabArgs;
use quiver_lab::client::Dialer;
use quiver_lab::inproc::{InProcess, InProcessSpec};
use quiver_lab::run::{run_load, social_of};
use quiver_lab::seed::load_into;
use quiver_lab::target::{parse_url, remote};
use quiver_lab::tls::handshakes::{self, HandshakeSpec};
use quiver_lab::tls::{TlsClient, Trust};
use quiver_storage::Storage;
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};

/// A CA and a server certificate for `localhost` and 127.0.0.1 signed by it, written to `dir`:
/// (ca, cert, key).
fn certificates(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_key = KeyPair::generate().unwrap();
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let params =
        CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = params.signed_by(&key, &issuer).unwrap();
    let put = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    (
        put("ca.pem", ca.pem()),
        put("server.pem", cert.pem()),
        put("server.key", key.serialize_pem()),
    )
}

fn args(flags: &[&str]) -> LabArgs {
    let a = LabArgs::parse_from(flags.iter().copied()).expect("flags parse");
    a.validate().expect("valid flags");
    a
}

/// A server with TLS `optional` on Bolt over the lab's default graph at `nodes` people.
fn server(cert: &Path, key: &Path, nodes: &str) -> InProcess {
    let social = social_of(&args(&["--nodes", nodes]));
    let storage = Storage::new();
    load_into(&storage, &social).unwrap();
    let (server, _) = InProcess::start_with_tls(
        storage,
        InProcessSpec {
            max_connections: 64,
            threads: 2,
            handshake_timeout_ms: 10_000,
            fds: false,
            http_api: false,
        },
        Some((cert, key)),
    )
    .unwrap();
    server
}

#[test]
fn the_count_workload_runs_over_bolt_s_beside_plain_bolt() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = certificates(dir.path());
    let server = server(&cert, &key, "200");
    let port = server.bolt_addr().port();
    let http = server.http_addr.to_string();
    let ca = ca.display().to_string();
    let mut handshakes_seen = Vec::new();
    for url in [
        format!("bolt://127.0.0.1:{port}"),
        format!("bolt+s://localhost:{port}"),
    ] {
        let record = run_load(&args(&[
            "--nodes",
            "200",
            "--target",
            &url,
            "--tls-ca",
            &ca,
            "--target-http",
            &http,
            "--connections",
            "4",
            "--queries",
            "200",
        ]))
        .unwrap_or_else(|e| panic!("{url}: {e}"));
        assert!(record.passed, "{url}: {:#?}", record.effect[0].verdict);
        let w = &record.effect[0];
        assert_eq!(w.counters.expect("counters from /stats").accepted, 4);
        handshakes_seen.push(server.tls_handshakes());
    }
    // The plain run made no TLS handshake; the bolt+s run one per connection at least (the
    // lab reads the counter total over a connection of its own between windows).
    assert_eq!(handshakes_seen[0], 0);
    assert!(handshakes_seen[1] >= 4, "{handshakes_seen:?}");
    // A CA that did not sign the server's certificate is refused at the TLS handshake.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let (other_ca, _, _) = certificates(&other);
    let tls = TlsClient::new(&Trust::Ca(other_ca), "localhost", false).unwrap();
    let dialer = Dialer::new(server.bolt_addr(), 1, Duration::from_secs(10)).with_tls(Some(tls));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    assert!(runtime.block_on(dialer.open_stream()).is_err());
    drop(runtime);
    server.stop();
}

#[test]
fn the_handshake_rate_reads_the_servers_tls_counters() {
    let dir = tempfile::tempdir().unwrap();
    let (_, cert, key) = certificates(dir.path());
    let server = server(&cert, &key, "10");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = parse_url(&format!(
        "bolt+ssc://127.0.0.1:{}",
        server.bolt_addr().port()
    ))
    .unwrap();
    let target = remote(&url, Some(server.http_addr), None, false);
    let dialer = Arc::new(
        Dialer::new(url.addr, 1, Duration::from_secs(10))
            .with_tls(url.tls_client(None, false).unwrap()),
    );
    let spec = HandshakeSpec {
        clients: 3,
        duration: Duration::from_millis(500),
        connect_timeout: Duration::from_secs(10),
        manifest: false,
        resumed: false,
    };
    let report = runtime.block_on(handshakes::run(&target, &dialer, &spec));
    assert!(report.tls);
    assert_eq!(report.failed, 0, "{:?}", report.errors);
    assert!(report.opened >= 3, "{report:?}");
    assert!(report.per_s > 0.0);
    let server_side = report.server_tls.expect("the server's TLS counters");
    assert_eq!(server_side.failures, 0);
    assert!(server_side.handshakes >= report.opened, "{report:?}");
    let text = report.lines().join("\n");
    assert!(text.contains("# handshakes.per_s="), "{text}");
    assert!(text.contains("# server.tls_handshakes="), "{text}");
    drop(runtime);
    server.stop();
}
