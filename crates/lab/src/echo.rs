//! A bare TCP server answering the same bytes Quiver answers: the physical limit of a Bolt
//! request/response over loopback on this machine.
//!
//! It speaks just enough Bolt to be driven by the lab's own client: the handshake, then for
//! each whole request message (found by its chunk framing and signature) a canned reply —
//! recorded from a live Quiver answering the workload's query (the count query, or `RETURN 1`
//! under `--workload return1`), so the bytes on the wire, their
//! sizes and their framing are Quiver's own. It parses no PackStream and runs no query; replies
//! to a pipelined batch go out in one write, as Quiver's do. What separates its rate from
//! Quiver's at the same connection count is the server's real work.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use quiver_bolt::chunk::Dechunker;
use quiver_bolt::handshake::{
    HANDSHAKE_BYTES, ManifestChoice, Negotiation, negotiate, parse_manifest_choice,
};
use quiver_bolt::message::encode_record;
use quiver_bolt::message::{Request, TxExtra, peek_signature, signature as sig};
use quiver_bolt::meta::{self, HelloSuccess, QueryType, RunSuccess, Stats, Summary};
use quiver_bolt::{Codec, Version};
use quiver_value::{Map, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::client::Credentials;
use crate::error::LabError;
use crate::workload::encode;

/// Largest request the echo server buffers.
const MESSAGE_BYTES_MAX: usize = 1 << 20;
const READ_BYTES: usize = 16 * 1024;
/// Replies a recording waits for.
const RECORD_TIMEOUT: Duration = Duration::from_secs(10);

/// Canned replies, by request, for one protocol version.
#[derive(Clone, Debug)]
pub struct EchoScript {
    pub version: Version,
    pub hello: Vec<u8>,
    pub logon: Vec<u8>,
    /// RUN and PULL outside a transaction.
    pub run: Vec<u8>,
    pub pull: Vec<u8>,
    /// Inside BEGIN … COMMIT.
    pub begin: Vec<u8>,
    pub run_tx: Vec<u8>,
    pub pull_tx: Vec<u8>,
    pub commit: Vec<u8>,
    pub reset: Vec<u8>,
}

impl EchoScript {
    /// Replies built with Quiver's own encoders, for when no server is at hand to record:
    /// every query is answered with one row holding `answer`.
    pub fn synthetic(version: Version, answer: i64) -> EchoScript {
        let dialect = Codec::new(version).dialect;
        let mut hello = Vec::new();
        let _ = HelloSuccess {
            server: meta::SERVER_AGENT,
            connection_id: "bolt-1",
            recv_timeout_seconds: None,
            telemetry_enabled: false,
            ssr_enabled: false,
            utc_patch: false,
        }
        .encode(&mut hello, version);
        let empty = {
            let mut b = Vec::new();
            meta::encode_success_empty(&mut b);
            b
        };
        let run = |qid: Option<i64>| {
            let mut b = Vec::new();
            let _ = RunSuccess {
                fields: &["c"],
                t_first_ms: 0,
                qid,
                db: Some("neo4j"),
            }
            .encode(&mut b, version);
            b
        };
        let pull = |bookmark: Option<&str>| {
            let mut b = Vec::new();
            let _ = encode_record(&mut b, &[Value::Int(answer)], dialect);
            let _ = Summary {
                bookmark,
                db: Some("neo4j"),
                t_last_ms: 0,
                query_type: QueryType::Read,
                stats: Stats::default(),
                notifications: &[],
                completion: meta::Completion::Success,
                plan: None,
            }
            .encode(&mut b, version);
            b
        };
        let mut commit = Vec::new();
        let _ = meta::encode_commit_success(&mut commit, Some("FB:quiver-echo"));
        let mut begin = Vec::new();
        let _ = meta::encode_begin_success(&mut begin, Some("neo4j"), version);
        EchoScript {
            version,
            hello,
            logon: empty.clone(),
            run: run(None),
            pull: pull(Some("FB:quiver-echo")),
            begin,
            run_tx: run(Some(0)),
            pull_tx: pull(None),
            commit,
            reset: empty,
        }
    }

    /// Records a live server's replies to `query`, auto-commit and inside a transaction,
    /// over one connection.
    pub async fn record(
        addr: SocketAddr,
        credentials: Option<&Credentials>,
        query: &str,
    ) -> Result<EchoScript, LabError> {
        let fail = |detail: String| LabError::Target {
            target: addr.to_string(),
            detail: format!("recording the echo script: {detail}"),
        };
        tokio::time::timeout(RECORD_TIMEOUT, record_inner(addr, credentials, query))
            .await
            .map_err(|_| fail("timed out".into()))?
            .map_err(fail)
    }
}

async fn record_inner(
    addr: SocketAddr,
    credentials: Option<&Credentials>,
    query: &str,
) -> Result<EchoScript, String> {
    let mut stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let offered = [Version::V5_8];
    stream
        .write_all(&quiver_bolt::handshake::client_handshake(&offered, false))
        .await
        .map_err(|e| e.to_string())?;
    let mut reply = [0u8; 4];
    stream
        .read_exact(&mut reply)
        .await
        .map_err(|e| e.to_string())?;
    if reply != [0, 0, 8, 5] {
        return Err(format!("the server did not agree to Bolt 5.8: {reply:?}"));
    }
    let version = Version::V5_8;
    let auth = credentials.map_or_else(quiver_bolt::message::Auth::none, |c| {
        quiver_bolt::message::Auth::basic(&c.principal, &c.password)
    });
    let mut rec = Recorder {
        stream,
        inbox: BytesMut::new(),
        dechunker: Dechunker::new(MESSAGE_BYTES_MAX),
        version,
    };
    let hello = rec
        .exchange(&[Request::Hello {
            extra: quiver_bolt::message::HelloExtra {
                user_agent: crate::client::USER_AGENT.to_owned(),
                ..Default::default()
            },
        }])
        .await?;
    let logon = rec.exchange(&[Request::Logon { auth }]).await?;
    let run_request = || Request::Run {
        query: query.to_owned(),
        params: Map::new(),
        extra: TxExtra::default(),
    };
    let run = rec.exchange(&[run_request()]).await?;
    let pull = rec.exchange(&[Request::Pull { n: -1, qid: -1 }]).await?;
    let begin = rec
        .exchange(&[Request::Begin {
            extra: TxExtra::default(),
        }])
        .await?;
    let run_tx = rec.exchange(&[run_request()]).await?;
    let pull_tx = rec.exchange(&[Request::Pull { n: -1, qid: -1 }]).await?;
    let commit = rec.exchange(&[Request::Commit]).await?;
    let reset = rec.exchange(&[Request::Reset]).await?;
    for (name, bytes) in [
        ("HELLO", &hello),
        ("LOGON", &logon),
        ("RUN", &run),
        ("BEGIN", &begin),
    ] {
        if bytes.get(3) != Some(&sig::SUCCESS) {
            return Err(format!("{name} was not answered with SUCCESS"));
        }
    }
    let _ = rec
        .stream
        .write_all(&encode(version, &[Request::Goodbye]))
        .await;
    Ok(EchoScript {
        version,
        hello,
        logon,
        run,
        pull,
        begin,
        run_tx,
        pull_tx,
        commit,
        reset,
    })
}

struct Recorder {
    stream: TcpStream,
    inbox: BytesMut,
    dechunker: Dechunker,
    version: Version,
}

impl Recorder {
    /// Sends one request and returns its whole reply, re-chunked as one frame per message
    /// (RECORDs up to and including the summary).
    async fn exchange(&mut self, requests: &[Request]) -> Result<Vec<u8>, String> {
        self.stream
            .write_all(&encode(self.version, requests))
            .await
            .map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        loop {
            let message = loop {
                if let Some(m) = self
                    .dechunker
                    .decode(&mut self.inbox)
                    .map_err(|e| e.to_string())?
                {
                    break m;
                }
                self.inbox.reserve(READ_BYTES);
                if self
                    .stream
                    .read_buf(&mut self.inbox)
                    .await
                    .map_err(|e| e.to_string())?
                    == 0
                {
                    return Err("the server closed the connection".into());
                }
            };
            quiver_bolt::chunk::write_chunked(&mut out, &message);
            if peek_signature(&message) != Some(sig::RECORD) {
                return Ok(out);
            }
        }
    }
}

/// A running echo server; stops when dropped.
#[derive(Debug)]
pub struct EchoServer {
    pub addr: SocketAddr,
    stop: watch::Sender<bool>,
}

impl EchoServer {
    /// Binds `listen` and serves on the current tokio runtime until [`EchoServer::stop`].
    pub fn start(listen: SocketAddr, script: EchoScript) -> Result<EchoServer, LabError> {
        let socket = if listen.is_ipv4() {
            tokio::net::TcpSocket::new_v4()?
        } else {
            tokio::net::TcpSocket::new_v6()?
        };
        socket.set_reuseaddr(true)?;
        socket.bind(listen)?;
        let listener = socket.listen(4096)?;
        let addr = listener.local_addr()?;
        let (stop, watch) = watch::channel(false);
        tokio::spawn(accept_loop(listener, Arc::new(script), watch));
        Ok(EchoServer { addr, stop })
    }

    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

impl Drop for EchoServer {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn accept_loop(
    listener: TcpListener,
    script: Arc<EchoScript>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    let _ = stream.set_nodelay(true);
                    let script = Arc::clone(&script);
                    let stop = stop.clone();
                    tokio::spawn(async move {
                        let mut stop = stop;
                        tokio::select! {
                            _ = stop.changed() => {}
                            _ = serve(stream, &script) => {}
                        }
                    });
                }
            }
        }
    }
}

/// One connection: handshake, then canned replies until GOODBYE or close.
async fn serve(mut stream: TcpStream, script: &EchoScript) -> Option<()> {
    let mut preamble = [0u8; HANDSHAKE_BYTES];
    stream.read_exact(&mut preamble).await.ok()?;
    let mut inbox = BytesMut::with_capacity(READ_BYTES);
    match negotiate(&preamble, &[script.version]).ok()? {
        Negotiation::Agreed { reply, .. } => stream.write_all(&reply).await.ok()?,
        Negotiation::Refused { reply } => {
            let _ = stream.write_all(&reply).await;
            return None;
        }
        Negotiation::Manifest { reply, offered } => {
            stream.write_all(&reply).await.ok()?;
            loop {
                if let Some((choice, used)) = parse_manifest_choice(&inbox, &offered).ok()? {
                    let _ = inbox.split_to(used);
                    if matches!(choice, ManifestChoice::GaveUp) {
                        return None;
                    }
                    break;
                }
                if stream.read_buf(&mut inbox).await.ok()? == 0 {
                    return None;
                }
            }
        }
    }
    let mut dechunker = Dechunker::new(MESSAGE_BYTES_MAX);
    let mut outbox: Vec<u8> = Vec::with_capacity(READ_BYTES);
    let mut in_tx = false;
    loop {
        while let Some(message) = dechunker.decode(&mut inbox).ok()? {
            let reply: &[u8] = match (peek_signature(&message)?, in_tx) {
                (sig::HELLO, _) => &script.hello,
                (sig::LOGON | sig::LOGOFF | sig::TELEMETRY, _) => &script.logon,
                (sig::RUN, false) => &script.run,
                (sig::RUN, true) => &script.run_tx,
                (sig::PULL | sig::DISCARD, false) => &script.pull,
                (sig::PULL | sig::DISCARD, true) => &script.pull_tx,
                (sig::BEGIN, _) => {
                    in_tx = true;
                    &script.begin
                }
                (sig::COMMIT | sig::ROLLBACK, _) => {
                    in_tx = false;
                    &script.commit
                }
                (sig::RESET, _) => {
                    in_tx = false;
                    &script.reset
                }
                _ => {
                    // GOODBYE, or anything it does not know: write what is owed and close.
                    let _ = stream.write_all(&outbox).await;
                    return Some(());
                }
            };
            outbox.extend_from_slice(reply);
        }
        if !outbox.is_empty() {
            stream.write_all(&outbox).await.ok()?;
            outbox.clear();
        }
        inbox.reserve(READ_BYTES);
        if stream.read_buf(&mut inbox).await.ok()? == 0 {
            return Some(());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::client::Dialer;
    use crate::seed::SocialSpec;
    use crate::workload::{Plan, Role, Workload};

    #[tokio::test]
    async fn the_lab_client_drives_the_echo_server() {
        let server = EchoServer::start(
            "127.0.0.1:0".parse().unwrap(),
            EchoScript::synthetic(Version::V5_8, 2000),
        )
        .unwrap();
        let dialer = Dialer::new(server.addr, 1, Duration::from_secs(5));
        let stream = dialer.dial().await.unwrap();
        let mut conn = crate::client::Connection::open(stream, None, false)
            .await
            .unwrap();
        assert_eq!(conn.version(), Version::V5_8);
        assert!(conn.server_agent().starts_with("Neo4j/"));
        let social = Arc::new(
            SocialSpec {
                persons: 2000,
                knows_min: 1,
                knows_max: 1,
                seed: 1,
                write_slots: 1,
            }
            .generate(),
        );
        for workload in [Workload::Count, Workload::Txread] {
            let plan = Plan {
                workload,
                rows: 1,
                write_slots: 1,
                social: Arc::clone(&social),
            };
            let units = plan.units(Role::Uniform { index: 0 }, conn.version());
            for _ in 0..3 {
                let outcome = conn.run_unit(&units[0]).await.unwrap();
                assert!(outcome.is_ok(), "{workload:?}: {outcome:?}");
                assert_eq!(outcome.rows_ok, 1);
            }
        }
        conn.reset().await.unwrap();
        conn.close().await;
        server.stop();
    }
}
