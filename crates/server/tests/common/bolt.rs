//! A minimal Bolt client over the bolt crate's client direction, for raw-socket tests.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use quiver_bolt::chunk::Dechunker;
use quiver_bolt::handshake::{
    ServerReply, client_handshake, client_manifest_choice, parse_server_reply,
};
use quiver_bolt::message::{Auth, HelloExtra, RouteExtra, TxExtra};
use quiver_bolt::{Codec, Request, Response, Version};
use quiver_value::{Map, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

pub struct BoltClient<S = TcpStream> {
    pub stream: S,
    pub version: Version,
    buffer: BytesMut,
    dechunker: Dechunker,
}

impl BoltClient<TcpStream> {
    /// Connects and negotiates, with the manifest handshake when `manifest`.
    pub async fn connect(addr: SocketAddr, versions: &[Version], manifest: bool) -> BoltClient {
        let stream = TcpStream::connect(addr).await.expect("connect");
        BoltClient::over(stream, versions, manifest).await
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> BoltClient<S> {
    /// Negotiates over an open stream (a TLS one, say).
    pub async fn over(mut stream: S, versions: &[Version], manifest: bool) -> BoltClient<S> {
        stream
            .write_all(&client_handshake(versions, manifest))
            .await
            .expect("write handshake");
        let mut buffer = BytesMut::with_capacity(1024);
        let (reply, used) = loop {
            if let Some(parsed) = parse_server_reply(&buffer).expect("valid reply") {
                break parsed;
            }
            let read = stream.read_buf(&mut buffer).await.expect("read reply");
            assert!(read > 0, "closed during the handshake");
        };
        let _ = buffer.split_to(used);
        let version = match reply {
            ServerReply::Version(version) => version,
            ServerReply::Manifest { offered, .. } => {
                let (chosen, answer) = client_manifest_choice(&offered, versions);
                stream.write_all(&answer).await.expect("write choice");
                chosen.expect("a common version")
            }
            ServerReply::Refused => panic!("server refused every version"),
        };
        BoltClient {
            stream,
            version,
            buffer,
            dechunker: Dechunker::new(1 << 24),
        }
    }

    pub async fn send(&mut self, requests: &[Request]) {
        let mut out = Vec::new();
        let codec = Codec::new(self.version);
        for request in requests {
            request.encode(&mut out, &codec).expect("encode request");
        }
        self.stream.write_all(&out).await.expect("write request");
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("write raw");
    }

    /// The next response, or `None` when the server closed the connection.
    pub async fn recv(&mut self) -> Option<Response> {
        loop {
            if let Some(message) = self.dechunker.decode(&mut self.buffer).expect("framing") {
                let codec = Codec::new(self.version);
                return Some(Response::decode(&message, &codec).expect("decodable response"));
            }
            let read = tokio::time::timeout(
                Duration::from_secs(10),
                self.stream.read_buf(&mut self.buffer),
            )
            .await
            .expect("a response within 10 s");
            match read {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
        }
    }

    pub async fn expect_success(&mut self) -> Map {
        match self.recv().await {
            Some(Response::Success(meta)) => meta,
            other => panic!("expected SUCCESS, got {other:?}"),
        }
    }

    /// A FAILURE's Neo4j code, whichever format the version uses.
    pub async fn expect_failure(&mut self) -> (String, String) {
        match self.recv().await {
            Some(Response::Failure(meta)) => {
                let code = text(&meta, "code").or_else(|| text(&meta, "neo4j_code"));
                (
                    code.expect("a code"),
                    text(&meta, "message").unwrap_or_default(),
                )
            }
            other => panic!("expected FAILURE, got {other:?}"),
        }
    }

    /// Logs in with `auth` and expects the refusal `code`, which ends the connection; its message.
    pub async fn expect_login_refused(&mut self, auth: Auth, code: &str) -> String {
        let (got, message) = self.login(auth).await.expect_err("login refused");
        assert_eq!(got, code, "{message}");
        self.expect_closed().await;
        message
    }

    /// A FAILURE with `code` that ends the connection; its message.
    pub async fn expect_fatal(&mut self, code: &str) -> String {
        let (got, message) = self.expect_failure().await;
        assert_eq!(got, code, "{message}");
        self.expect_closed().await;
        message
    }

    pub async fn expect_closed(&mut self) {
        if let Some(response) = self.recv().await {
            panic!("expected the connection to close, got {response:?}");
        }
    }

    /// HELLO (and LOGON from 5.1) with `auth`; returns HELLO's SUCCESS metadata, or the FAILURE.
    pub async fn login(&mut self, auth: Auth) -> Result<Map, (String, String)> {
        let logon = self.version >= Version::V5_1;
        let hello = Request::Hello {
            extra: HelloExtra {
                user_agent: "quiver-tests/1".to_owned(),
                auth: (!logon).then(|| auth.clone()),
                ..HelloExtra::default()
            },
        };
        if logon {
            self.send(&[hello, Request::Logon { auth }]).await;
        } else {
            self.send(&[hello]).await;
        }
        let meta = match self.recv().await {
            Some(Response::Success(meta)) => meta,
            Some(Response::Failure(meta)) => return Err(failure(&meta)),
            other => panic!("unexpected reply to HELLO: {other:?}"),
        };
        if logon {
            match self.recv().await {
                Some(Response::Success(_)) => {}
                Some(Response::Failure(meta)) => return Err(failure(&meta)),
                other => panic!("unexpected reply to LOGON: {other:?}"),
            }
        }
        Ok(meta)
    }
}

/// A login FAILURE's code (whichever format the version uses, empty if none) and message.
fn failure(meta: &Map) -> (String, String) {
    (
        text(meta, "code")
            .or_else(|| text(meta, "neo4j_code"))
            .unwrap_or_default(),
        text(meta, "message").unwrap_or_default(),
    )
}

pub fn text(map: &Map, key: &str) -> Option<String> {
    match map.get(key) {
        Some(Value::String(value)) => Some(value.to_string()),
        _ => None,
    }
}

pub fn run(query: &str) -> Request {
    Request::Run {
        query: query.to_owned(),
        params: Map::new(),
        extra: TxExtra::default(),
    }
}

pub fn route(address: &str) -> Request {
    let mut routing = Map::new();
    routing.insert(Arc::from("address"), Value::String(Arc::from(address)));
    Request::Route {
        routing,
        bookmarks: Vec::new(),
        extra: RouteExtra::default(),
    }
}

pub fn run_in(query: &str, params: Map, extra: TxExtra) -> Request {
    Request::Run {
        query: query.to_owned(),
        params,
        extra,
    }
}

pub fn begin(extra: TxExtra) -> Request {
    Request::Begin { extra }
}

pub fn pull(n: i64, qid: i64) -> Request {
    Request::Pull { n, qid }
}

impl BoltClient {
    /// Records until the next SUCCESS (returned with them); panics on anything else.
    pub async fn records(&mut self) -> (Vec<Vec<Value>>, Map) {
        let mut rows = Vec::new();
        loop {
            match self.recv().await {
                Some(Response::Record(values)) => rows.push(values),
                Some(Response::Success(meta)) => return (rows, meta),
                other => panic!("expected RECORD or SUCCESS, got {other:?}"),
            }
        }
    }

    /// Runs `query` in an auto-commit transaction and pulls everything: the RUN metadata, the
    /// records and the summary.
    pub async fn query(&mut self, query: &str) -> (Map, Vec<Vec<Value>>, Map) {
        self.send(&[run(query), pull(-1, -1)]).await;
        let head = self.expect_success().await;
        let (rows, summary) = self.records().await;
        (head, rows, summary)
    }

    pub async fn expect_ignored(&mut self) {
        match self.recv().await {
            Some(Response::Ignored) => {}
            other => panic!("expected IGNORED, got {other:?}"),
        }
    }
}

pub fn int(value: &Value) -> i64 {
    match value {
        Value::Int(i) => *i,
        other => panic!("expected an integer, got {other:?}"),
    }
}

/// A FAILURE's Neo4j code, in either version's form.
pub fn code(meta: &Map) -> Option<String> {
    text(meta, "code").or_else(|| text(meta, "neo4j_code"))
}
