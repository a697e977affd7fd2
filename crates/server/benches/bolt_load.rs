//! A lean Bolt load client: N connections each running one query in a closed loop (RUN and
//! PULL written together, the reply read whole), for a fixed time, at each rung of a ladder of
//! connection counts. Prints throughput and latency percentiles per rung.
//!
//! ```text
//! cargo bench -p quiver-server --bench bolt_load -- --addr 127.0.0.1:7687 \
//!     --query 'RETURN 1' --connections 1,8,64,256,1024 --seconds 10
//! ```
//!
//! `--hold N --server-pid PID` instead opens N authenticated connections, leaves them idle, and
//! reports how much the server's resident set grew per connection.
//!
//! `--tls-ca FILE` connects over TLS, trusting the CA in FILE (the server's name: `localhost`).
//!
//! `--seed-persons N` first creates N `:Person` nodes (and about 6.5 `:KNOWS` each), the graph
//! the published FalkorDB figures use. `--stall QUERY` keeps one extra connection running that
//! (heavy) query throughout, to measure what it costs the others.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use hdrhistogram::Histogram;
use quiver_bolt::chunk::Dechunker;
use quiver_bolt::handshake::{ServerReply, client_handshake, parse_server_reply};
use quiver_bolt::message::signature::{FAILURE, RECORD, SUCCESS};
use quiver_bolt::message::{Auth, HelloExtra, TxExtra, peek_signature};
use quiver_bolt::{Codec, Request, Version};
use quiver_value::{Map, Value};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

#[path = "../tests/common/resident.rs"]
mod resident;
use resident::resident_bytes;

/// A connection's stream, plain or TLS.
trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

struct Args {
    addr: SocketAddr,
    query: String,
    connections: Vec<usize>,
    seconds: u64,
    warmup: u64,
    seed_persons: Option<u64>,
    stall: Option<String>,
    user: Option<(String, String)>,
    hold: Option<usize>,
    server_pid: Option<u32>,
    tls: Option<TlsConnector>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        addr: "127.0.0.1:7687".parse().map_err(|e| format!("{e}"))?,
        query: "RETURN 1".to_owned(),
        connections: vec![1, 8, 64, 256, 1024],
        seconds: 10,
        warmup: 2,
        seed_persons: None,
        stall: None,
        user: None,
        hold: None,
        server_pid: None,
        tls: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--addr" => args.addr = value()?.parse().map_err(|e| format!("--addr: {e}"))?,
            "--query" => args.query = value()?,
            "--connections" => {
                args.connections = value()?
                    .split(',')
                    .map(|n| n.trim().parse().map_err(|e| format!("--connections: {e}")))
                    .collect::<Result<_, _>>()?;
            }
            "--seconds" => args.seconds = value()?.parse().map_err(|e| format!("{e}"))?,
            "--warmup" => args.warmup = value()?.parse().map_err(|e| format!("{e}"))?,
            "--seed-persons" => {
                args.seed_persons = Some(value()?.parse().map_err(|e| format!("{e}"))?);
            }
            "--stall" => args.stall = Some(value()?),
            "--hold" => args.hold = Some(value()?.parse().map_err(|e| format!("{e}"))?),
            "--server-pid" => {
                args.server_pid = Some(value()?.parse().map_err(|e| format!("{e}"))?);
            }
            "--user" => {
                let spec = value()?;
                let (user, password) = spec.split_once('/').ok_or("--user needs user/password")?;
                args.user = Some((user.to_owned(), password.to_owned()));
            }
            "--tls-ca" => args.tls = Some(tls_connector(&value()?)?),
            // Passed by `cargo bench`.
            "--bench" => {}
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

/// A TLS client trusting the CAs in the PEM file at `ca`.
fn tls_connector(ca: &str) -> Result<TlsConnector, String> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca).map_err(|e| format!("--tls-ca {ca}: {e}"))? {
        let cert = cert.map_err(|e| format!("--tls-ca {ca}: {e}"))?;
        roots.add(cert).map_err(|e| format!("--tls-ca {ca}: {e}"))?;
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| e.to_string())?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(TlsConnector::from(Arc::new(config)))
}

/// One authenticated connection with a reusable read buffer.
struct Conn {
    stream: Box<dyn Io>,
    inbox: BytesMut,
    dechunker: Dechunker,
}

impl Conn {
    async fn open(
        addr: SocketAddr,
        user: Option<&(String, String)>,
        tls: Option<&TlsConnector>,
    ) -> std::io::Result<Conn> {
        let socket = TcpStream::connect(addr).await?;
        socket.set_nodelay(true)?;
        let mut stream: Box<dyn Io> = match tls {
            Some(connector) => {
                let name = ServerName::try_from("localhost").map_err(std::io::Error::other)?;
                Box::new(connector.connect(name, socket).await?)
            }
            None => Box::new(socket),
        };
        stream
            .write_all(&client_handshake(&[Version::V5_4], false))
            .await?;
        let mut inbox = BytesMut::with_capacity(64 * 1024);
        let version = loop {
            if let Some((reply, used)) =
                parse_server_reply(&inbox).map_err(std::io::Error::other)?
            {
                let _ = inbox.split_to(used);
                match reply {
                    ServerReply::Version(v) => break v,
                    _ => return Err(std::io::Error::other("no common Bolt version")),
                }
            }
            if stream.read_buf(&mut inbox).await? == 0 {
                return Err(std::io::Error::other("closed during the handshake"));
            }
        };
        let codec = Codec::new(version);
        let auth = user.map_or_else(Auth::none, |(u, p)| Auth::basic(u, p));
        let mut out = Vec::new();
        for request in [
            Request::Hello {
                extra: HelloExtra {
                    user_agent: "quiver-bolt-load/1".to_owned(),
                    ..HelloExtra::default()
                },
            },
            Request::Logon { auth },
        ] {
            request
                .encode(&mut out, &codec)
                .map_err(std::io::Error::other)?;
        }
        stream.write_all(&out).await?;
        let mut conn = Conn {
            stream,
            inbox,
            dechunker: Dechunker::new(1 << 24),
        };
        for _ in 0..2 {
            if conn.next_signature().await? != SUCCESS {
                return Err(std::io::Error::other("authentication failed"));
            }
        }
        Ok(conn)
    }

    async fn next_signature(&mut self) -> std::io::Result<u8> {
        loop {
            if let Some(message) = self
                .dechunker
                .decode(&mut self.inbox)
                .map_err(std::io::Error::other)?
            {
                return peek_signature(&message)
                    .ok_or_else(|| std::io::Error::other("no signature"));
            }
            if self.inbox.capacity() - self.inbox.len() < 4096 {
                self.inbox.reserve(64 * 1024);
            }
            if self.stream.read_buf(&mut self.inbox).await? == 0 {
                return Err(std::io::Error::other("server closed"));
            }
        }
    }

    /// Sends one RUN+PULL and reads to the PULL's summary; returns the records seen.
    async fn query(&mut self, request: &[u8]) -> std::io::Result<u64> {
        self.stream.write_all(request).await?;
        let mut summaries = 0;
        let mut records = 0;
        while summaries < 2 {
            match self.next_signature().await? {
                RECORD => records += 1,
                SUCCESS => summaries += 1,
                FAILURE => return Err(std::io::Error::other("query failed")),
                _ => return Err(std::io::Error::other("unexpected reply")),
            }
        }
        Ok(records)
    }
}

fn encode_query(query: &str, params: Map) -> Vec<u8> {
    let codec = Codec::new(Version::V5_4);
    let mut out = Vec::new();
    for request in [
        Request::Run {
            query: query.to_owned(),
            params,
            extra: TxExtra::default(),
        },
        Request::Pull { n: -1, qid: -1 },
    ] {
        // Encoding a fixed request into a Vec cannot fail.
        let _ = request.encode(&mut out, &codec);
    }
    out
}

struct Rung {
    connections: usize,
    queries: u64,
    errors: u64,
    elapsed: Duration,
    latency: Histogram<u64>,
}

async fn run_rung(args: &Args, connections: usize) -> Result<Rung, String> {
    let request = Arc::new(encode_query(&args.query, Map::new()));
    let mut conns = Vec::with_capacity(connections);
    for _ in 0..connections {
        conns.push(
            Conn::open(args.addr, args.user.as_ref(), args.tls.as_ref())
                .await
                .map_err(|e| format!("connect: {e}"))?,
        );
    }
    let measuring = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::with_capacity(connections);
    for mut conn in conns {
        let request = Arc::clone(&request);
        let measuring = Arc::clone(&measuring);
        let stop = Arc::clone(&stop);
        tasks.push(tokio::spawn(async move {
            let mut latency =
                Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).map_err(|e| e.to_string())?;
            let mut queries = 0u64;
            let mut errors = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let started = Instant::now();
                let outcome = conn.query(&request).await;
                if measuring.load(Ordering::Relaxed) {
                    match outcome {
                        Ok(_) => {
                            queries += 1;
                            let micros =
                                u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
                            let _ = latency.record(micros.max(1));
                        }
                        Err(_) => errors += 1,
                    }
                } else if outcome.is_err() {
                    return Err("a query failed during warm-up".to_owned());
                }
            }
            Ok::<_, String>((queries, errors, latency))
        }));
    }
    tokio::time::sleep(Duration::from_secs(args.warmup)).await;
    measuring.store(true, Ordering::Relaxed);
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let elapsed = started.elapsed();
    let mut rung = Rung {
        connections,
        queries: 0,
        errors: 0,
        elapsed,
        latency: Histogram::new_with_bounds(1, 60_000_000, 3).map_err(|e| e.to_string())?,
    };
    for task in tasks {
        let (queries, errors, latency) = task.await.map_err(|e| e.to_string())??;
        rung.queries += queries;
        rung.errors += errors;
        rung.latency.add(latency).map_err(|e| e.to_string())?;
    }
    Ok(rung)
}

async fn seed(args: &Args, persons: u64) -> Result<(), String> {
    let mut conn = Conn::open(args.addr, args.user.as_ref(), args.tls.as_ref())
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let mut params = Map::new();
    params.insert(
        Arc::from("n"),
        Value::Int(i64::try_from(persons).unwrap_or(0)),
    );
    let create = encode_query(
        "UNWIND range(1, $n) AS i CREATE (:Person {id: i, name: 'p' + toString(i)})",
        params.clone(),
    );
    conn.query(&create)
        .await
        .map_err(|e| format!("seed: {e}"))?;
    let knows = encode_query(
        "MATCH (a:Person) UNWIND range(1, 6 + a.id % 2) AS k \
         MATCH (b:Person {id: (a.id * 31 + k * 97) % $n + 1}) CREATE (a)-[:KNOWS]->(b)",
        params,
    );
    conn.query(&knows).await.map_err(|e| format!("seed: {e}"))?;
    Ok(())
}

/// Opens `count` authenticated connections and reports the server's growth per connection.
async fn hold(args: &Args, count: usize, pid: u32) -> Result<(), String> {
    // Warm-up: the server's first connections grow its runtime and allocator pools.
    let mut warm = Vec::new();
    for _ in 0..200 {
        warm.push(
            Conn::open(args.addr, args.user.as_ref(), args.tls.as_ref())
                .await
                .map_err(|e| e.to_string())?,
        );
    }
    drop(warm);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let before = resident_bytes(&pid.to_string())?;
    let opening = Instant::now();
    let mut held = Vec::with_capacity(count);
    for _ in 0..count {
        let conn = Conn::open(args.addr, args.user.as_ref(), args.tls.as_ref())
            .await
            .map_err(|e| format!("connection {}: {e}", held.len()))?;
        // Keep the socket alone: the client's buffers are not the server's cost.
        held.push(conn.stream);
    }
    let opened = opening.elapsed();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = resident_bytes(&pid.to_string())?;
    let per = after.saturating_sub(before) / count as u64;
    println!(
        "{count} idle authenticated connections: server resident set {} -> {} KiB, {per} bytes each",
        before / 1024,
        after / 1024
    );
    println!(
        "opened one after another in {:.2} s: {:.0} connections/s (connect, TLS when asked, Bolt handshake, HELLO and LOGON)",
        opened.as_secs_f64(),
        count as f64 / opened.as_secs_f64()
    );
    drop(held);
    Ok(())
}

fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(error) => {
            eprintln!("bolt_load: {error}");
            std::process::exit(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("bolt_load: {error}");
            std::process::exit(1);
        }
    };
    let outcome = runtime.block_on(async {
        if let Some(count) = args.hold {
            let pid = args.server_pid.ok_or("--hold needs --server-pid")?;
            return hold(&args, count, pid).await;
        }
        if let Some(persons) = args.seed_persons {
            seed(&args, persons).await?;
        }
        let stall_stop = Arc::new(AtomicBool::new(false));
        let stall = match &args.stall {
            Some(query) => {
                let mut conn = Conn::open(args.addr, args.user.as_ref(), args.tls.as_ref())
                    .await
                    .map_err(|e| format!("connect: {e}"))?;
                let request = encode_query(query, Map::new());
                let stop = Arc::clone(&stall_stop);
                Some(tokio::spawn(async move {
                    let mut runs = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        if conn.query(&request).await.is_err() {
                            break;
                        }
                        runs += 1;
                    }
                    runs
                }))
            }
            None => None,
        };
        println!(
            "query: {}{}",
            args.query,
            args.stall.as_ref().map_or(String::new(), |s| format!(
                "  (beside a connection looping `{s}`)"
            ))
        );
        println!("connections  queries/s  p50_us  p90_us  p99_us  max_us  errors");
        for &connections in &args.connections {
            let rung = run_rung(&args, connections).await?;
            let secs = rung.elapsed.as_secs_f64();
            println!(
                "{:>11}  {:>9.0}  {:>6}  {:>6}  {:>6}  {:>6}  {}",
                rung.connections,
                rung.queries as f64 / secs,
                rung.latency.value_at_quantile(0.50),
                rung.latency.value_at_quantile(0.90),
                rung.latency.value_at_quantile(0.99),
                rung.latency.max(),
                rung.errors,
            );
        }
        stall_stop.store(true, Ordering::Relaxed);
        if let Some(stall) = stall {
            let runs = stall.await.map_err(|e| e.to_string())?;
            println!("heavy query completed {runs} times meanwhile");
        }
        Ok::<(), String>(())
    });
    if let Err(error) = outcome {
        eprintln!("bolt_load: {error}");
        std::process::exit(1);
    }
}
