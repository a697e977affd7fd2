//! One client connection: handshake, authentication, and units of pre-encoded work.

use std::io;

use bytes::{Bytes, BytesMut};
use quiver_bolt::chunk::Dechunker;
use quiver_bolt::handshake::{
    ServerReply, client_handshake, client_manifest_choice, parse_server_reply,
};
use quiver_bolt::message::{Auth, BoltAgent, HelloExtra, Request, peek_signature, signature};
use quiver_bolt::{Codec, Response, Version};
use quiver_value::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::tls::LabStream;

use crate::classify::{ErrorClass, Stage, classify_failure, classify_io};
use crate::workload::{Reply, Unit, encode};

/// Versions offered, most preferred first: every version Quiver speaks (6.0, Bolt 5, then 4.4–4.1).
pub const OFFERED: [Version; Version::SUPPORTED.len()] = Version::SUPPORTED;
/// Largest message accepted from a server (a `records` reply is many small messages).
pub const MESSAGE_BYTES_MAX: usize = 16 << 20;
/// Read-buffer growth step.
const READ_BYTES: usize = 16 * 1024;
/// Bytes of a manifest reply read before giving up on it.
const HANDSHAKE_REPLY_BYTES_MAX: usize = 1024;
pub const USER_AGENT: &str = concat!("quiver-lab/", env!("CARGO_PKG_VERSION"));

/// Basic-auth credentials; without them the client authenticates with scheme `none`.
#[derive(Clone)]
pub struct Credentials {
    pub principal: String,
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("principal", &self.principal)
            .finish_non_exhaustive()
    }
}

/// Why a connection could not go on. Each names the stage it happened at, so it can be
/// classified by which side ran out.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("{stage:?}: {source}")]
    Io {
        stage: Stage,
        #[source]
        source: io::Error,
    },
    #[error("{stage:?}: the server closed the connection")]
    Closed { stage: Stage },
    #[error("{stage:?}: no answer in time")]
    Timeout { stage: Stage },
    #[error("{stage:?}: FAILURE {code}: {message}")]
    Failure {
        stage: Stage,
        code: String,
        message: String,
    },
    #[error("{stage:?}: protocol: {detail}")]
    Protocol { stage: Stage, detail: String },
}

impl ClientError {
    pub fn class(&self) -> ErrorClass {
        match self {
            ClientError::Io { stage, source } => classify_io(*stage, source),
            ClientError::Closed { .. } => ErrorClass::ServerClosed,
            ClientError::Timeout { .. } => ErrorClass::ServerTimeout,
            ClientError::Failure { stage, code, .. } => classify_failure(*stage, code),
            ClientError::Protocol { .. } => ErrorClass::Protocol,
        }
    }

    fn protocol(stage: Stage, detail: impl std::fmt::Display) -> ClientError {
        ClientError::Protocol {
            stage,
            detail: detail.to_string(),
        }
    }
}

/// How one unit went. A FAILURE does not end the connection (it is reset and goes on); a
/// socket error does, and is returned as an error instead.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnitOutcome {
    /// RECORDs that passed their check.
    pub rows_ok: u64,
    /// RECORDs that failed their check, plus streams whose row count was not the one owed.
    pub rows_bad: u64,
    /// The first FAILURE's code.
    pub failure: Option<String>,
}

impl UnitOutcome {
    pub fn is_ok(&self) -> bool {
        self.failure.is_none() && self.rows_bad == 0
    }
}

/// What a [`Connection::request`] was answered with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replies {
    pub records: u64,
    pub summaries: Vec<Summary>,
}

/// What [`Connection::exchange`] read: the records, and one summary per request.
#[derive(Debug, Default)]
pub struct Exchanged {
    pub records: Vec<Vec<Value>>,
    pub summaries: Vec<Result<quiver_value::Map, ClientError>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Summary {
    Success { has_more: bool },
    Failure { code: String },
    Ignored,
}

/// An authenticated Bolt connection.
#[derive(Debug)]
pub struct Connection {
    stream: LabStream,
    version: Version,
    inbox: BytesMut,
    dechunker: Dechunker,
    server_agent: String,
}

impl Connection {
    /// Handshakes (legacy slots, or manifest v1 when `manifest`) and authenticates.
    pub async fn open(
        stream: impl Into<LabStream>,
        credentials: Option<&Credentials>,
        manifest: bool,
    ) -> Result<Connection, ClientError> {
        let mut stream = stream.into();
        let hs = Stage::Handshake;
        let io = |stage| move |source| ClientError::Io { stage, source };
        stream
            .write_all(&client_handshake(&OFFERED, manifest))
            .await
            .map_err(io(hs))?;
        let mut inbox = BytesMut::with_capacity(READ_BYTES);
        let (reply, used) = loop {
            if let Some(parsed) =
                parse_server_reply(&inbox).map_err(|e| ClientError::protocol(hs, e))?
            {
                break parsed;
            }
            if inbox.len() > HANDSHAKE_REPLY_BYTES_MAX {
                return Err(ClientError::protocol(hs, "handshake reply too long"));
            }
            if stream.read_buf(&mut inbox).await.map_err(io(hs))? == 0 {
                return Err(ClientError::Closed { stage: hs });
            }
        };
        let _ = inbox.split_to(used);
        let mut out = Vec::with_capacity(256);
        let version = match reply {
            ServerReply::Version(v) if OFFERED.contains(&v) => v,
            ServerReply::Version(v) => {
                return Err(ClientError::protocol(
                    hs,
                    format!("server chose {v}, never offered"),
                ));
            }
            ServerReply::Refused => {
                return Err(ClientError::protocol(hs, "no protocol version in common"));
            }
            ServerReply::Manifest { offered, .. } => {
                let (chosen, bytes) = client_manifest_choice(&offered, &OFFERED);
                out.extend_from_slice(&bytes);
                chosen
                    .ok_or_else(|| ClientError::protocol(hs, "manifest offers nothing we speak"))?
            }
        };
        let auth = credentials.map_or_else(Auth::none, |c| Auth::basic(&c.principal, &c.password));
        let hello = HelloExtra {
            user_agent: USER_AGENT.to_owned(),
            bolt_agent: Some(BoltAgent {
                product: USER_AGENT.to_owned(),
                platform: None,
                language: Some("Rust".to_owned()),
                language_details: None,
            }),
            auth: (!version.has_logon()).then(|| auth.clone()),
            ..HelloExtra::default()
        };
        let mut requests = vec![Request::Hello { extra: hello }];
        if version.has_logon() {
            requests.push(Request::Logon { auth });
        }
        out.extend_from_slice(&encode(version, &requests));
        let mut conn = Connection {
            stream,
            version,
            inbox,
            dechunker: Dechunker::new(MESSAGE_BYTES_MAX),
            server_agent: String::new(),
        };
        conn.write(Stage::Auth, &out).await?;
        for i in 0..requests.len() {
            let message = conn.read_message(Stage::Auth).await?;
            match peek_signature(&message) {
                Some(signature::SUCCESS) if i == 0 => {
                    conn.server_agent = conn.success_string(&message, "server").unwrap_or_default();
                }
                Some(signature::SUCCESS) => {}
                Some(signature::FAILURE) => return Err(conn.failure(Stage::Auth, &message)),
                _ => {
                    return Err(ClientError::protocol(
                        Stage::Auth,
                        "unexpected reply to HELLO",
                    ));
                }
            }
        }
        Ok(conn)
    }

    pub fn version(&self) -> Version {
        self.version
    }

    /// The `server` the HELLO reply announced (`Neo4j/…`).
    pub fn server_agent(&self) -> &str {
        &self.server_agent
    }

    /// The socket alone, for experiments that only hold connections open (no buffers kept;
    /// over TLS the client's session state goes too, while the server keeps its own).
    pub fn into_stream(self) -> TcpStream {
        self.stream.into_tcp()
    }

    /// Whether the connection runs over TLS.
    pub fn is_tls(&self) -> bool {
        self.stream.is_tls()
    }

    async fn write(&mut self, stage: Stage, bytes: &[u8]) -> Result<(), ClientError> {
        self.stream
            .write_all(bytes)
            .await
            .map_err(|source| ClientError::Io { stage, source })
    }

    /// The next whole message, read into the connection's one buffer.
    async fn read_message(&mut self, stage: Stage) -> Result<Bytes, ClientError> {
        loop {
            match self.dechunker.decode(&mut self.inbox) {
                Ok(Some(message)) => return Ok(message),
                Ok(None) => {}
                Err(e) => return Err(ClientError::protocol(stage, e)),
            }
            self.inbox.reserve(READ_BYTES);
            let read = self
                .stream
                .read_buf(&mut self.inbox)
                .await
                .map_err(|source| ClientError::Io { stage, source })?;
            if read == 0 {
                return Err(ClientError::Closed { stage });
            }
        }
    }

    fn decode(&self, message: &[u8]) -> Option<Response> {
        Response::decode(message, &Codec::new(self.version)).ok()
    }

    fn success_string(&self, message: &[u8], key: &str) -> Option<String> {
        match self.decode(message)? {
            Response::Success(meta) => match meta.get(key) {
                Some(Value::String(s)) => Some(s.to_string()),
                _ => None,
            },
            _ => None,
        }
    }

    /// A FAILURE's code and message (`neo4j_code` from 5.7 on, `code` before).
    fn failure(&self, stage: Stage, message: &[u8]) -> ClientError {
        let text = |meta: &quiver_value::Map, key: &str| match meta.get(key) {
            Some(Value::String(s)) => Some(s.to_string()),
            _ => None,
        };
        match self.decode(message) {
            Some(Response::Failure(meta)) => ClientError::Failure {
                stage,
                code: text(&meta, "neo4j_code")
                    .or_else(|| text(&meta, "code"))
                    .unwrap_or_default(),
                message: text(&meta, "message").unwrap_or_default(),
            },
            _ => ClientError::protocol(stage, "undecodable FAILURE"),
        }
    }

    /// Runs one unit: each exchange is written in one go and its replies read and checked.
    /// After a FAILURE the remaining exchanges are skipped and the connection is RESET, as a
    /// driver would before reusing it.
    pub async fn run_unit(&mut self, unit: &Unit) -> Result<UnitOutcome, ClientError> {
        let q = Stage::Query;
        let mut outcome = UnitOutcome::default();
        for exchange in &unit.exchanges {
            self.write(q, &exchange.bytes).await?;
            for reply in &exchange.replies {
                let mut rows = 0u64;
                loop {
                    let message = self.read_message(q).await?;
                    match peek_signature(&message) {
                        Some(signature::RECORD) => match reply {
                            Reply::Stream { check, .. } => {
                                rows += 1;
                                if check.check(&message) {
                                    outcome.rows_ok += 1;
                                } else {
                                    outcome.rows_bad += 1;
                                }
                            }
                            Reply::Summary => {
                                return Err(ClientError::protocol(q, "RECORD where none is owed"));
                            }
                        },
                        Some(signature::SUCCESS) => {
                            if let Reply::Stream { rows: owed, .. } = reply
                                && rows != *owed
                            {
                                outcome.rows_bad += 1;
                            }
                            break;
                        }
                        Some(signature::FAILURE) => {
                            if outcome.failure.is_none() {
                                let code = match self.failure(q, &message) {
                                    ClientError::Failure { code, .. } => code,
                                    other => other.to_string(),
                                };
                                outcome.failure = Some(code);
                            }
                            break;
                        }
                        Some(signature::IGNORED) => break,
                        _ => return Err(ClientError::protocol(q, "unknown reply message")),
                    }
                }
            }
            if outcome.failure.is_some() {
                self.reset().await?;
                break;
            }
        }
        Ok(outcome)
    }

    /// RESET: what a driver sends when a session hands its connection back, and the way out of
    /// FAILED.
    pub async fn reset(&mut self) -> Result<(), ClientError> {
        let bytes = encode(self.version, &[Request::Reset]);
        self.write(Stage::Query, &bytes).await?;
        loop {
            let message = self.read_message(Stage::Query).await?;
            match peek_signature(&message) {
                Some(signature::SUCCESS) => return Ok(()),
                Some(signature::FAILURE) => return Err(self.failure(Stage::Query, &message)),
                // Replies still in flight from before the RESET.
                Some(signature::RECORD | signature::IGNORED) => {}
                _ => return Err(ClientError::protocol(Stage::Query, "bad reply to RESET")),
            }
        }
    }

    /// Runs a query outside the measured path and returns its first row's first column (for
    /// read-backs between windows and for seeding).
    pub async fn query_scalar(
        &mut self,
        query: &str,
        params: quiver_value::Map,
    ) -> Result<Option<Value>, ClientError> {
        let q = Stage::Query;
        let bytes = encode(
            self.version,
            &[
                Request::Run {
                    query: query.to_owned(),
                    params,
                    extra: quiver_bolt::message::TxExtra::default(),
                },
                Request::Pull { n: -1, qid: -1 },
            ],
        );
        self.write(q, &bytes).await?;
        let mut first = None;
        let mut failure = None;
        let mut summaries = 0;
        while summaries < 2 {
            let message = self.read_message(q).await?;
            match peek_signature(&message) {
                Some(signature::RECORD) => {
                    if first.is_none()
                        && let Some(Response::Record(values)) = self.decode(&message)
                    {
                        first = Some(values.into_iter().next().unwrap_or(Value::Null));
                    }
                }
                Some(signature::FAILURE) => {
                    failure.get_or_insert_with(|| self.failure(q, &message));
                    summaries += 1;
                }
                Some(signature::SUCCESS | signature::IGNORED) => summaries += 1,
                _ => return Err(ClientError::protocol(q, "unknown reply message")),
            }
        }
        if let Some(error) = failure {
            self.reset().await?;
            return Err(error);
        }
        Ok(first)
    }

    /// Sends `requests` in one write and reads one summary per request, counting RECORDs.
    /// For experiments that hold streams open (the measured path uses [`Connection::run_unit`]).
    pub async fn request(&mut self, requests: &[Request]) -> Result<Replies, ClientError> {
        let q = Stage::Query;
        self.write(q, &encode(self.version, requests)).await?;
        let mut replies = Replies::default();
        while replies.summaries.len() < requests.len() {
            let message = self.read_message(q).await?;
            match peek_signature(&message) {
                Some(signature::RECORD) => replies.records += 1,
                Some(signature::SUCCESS) => {
                    let has_more = matches!(
                        self.decode(&message),
                        Some(Response::Success(meta)) if meta.get("has_more") == Some(&Value::Bool(true))
                    );
                    replies.summaries.push(Summary::Success { has_more });
                }
                Some(signature::FAILURE) => {
                    let code = match self.failure(q, &message) {
                        ClientError::Failure { code, .. } => code,
                        other => other.to_string(),
                    };
                    replies.summaries.push(Summary::Failure { code });
                }
                Some(signature::IGNORED) => replies.summaries.push(Summary::Ignored),
                _ => return Err(ClientError::protocol(q, "unknown reply message")),
            }
        }
        Ok(replies)
    }

    /// Sends `requests` in one write and returns what came back: every record, and each
    /// summary as its SUCCESS metadata or its FAILURE (for checks that read what the server
    /// said: bookmarks, routing tables). A FAILURE is followed by a RESET, as a driver does.
    pub async fn exchange(&mut self, requests: &[Request]) -> Result<Exchanged, ClientError> {
        let q = Stage::Query;
        self.write(q, &encode(self.version, requests)).await?;
        let mut out = Exchanged::default();
        let mut failed = false;
        while out.summaries.len() < requests.len() {
            let message = self.read_message(q).await?;
            match peek_signature(&message) {
                Some(signature::RECORD) => {
                    if let Some(Response::Record(values)) = self.decode(&message) {
                        out.records.push(values);
                    }
                }
                Some(signature::SUCCESS) => match self.decode(&message) {
                    Some(Response::Success(meta)) => out.summaries.push(Ok(meta)),
                    _ => return Err(ClientError::protocol(q, "undecodable SUCCESS")),
                },
                Some(signature::FAILURE) => {
                    failed = true;
                    out.summaries.push(Err(self.failure(q, &message)));
                }
                Some(signature::IGNORED) => out.summaries.push(Err(ClientError::protocol(
                    q,
                    "ignored after an earlier failure",
                ))),
                _ => return Err(ClientError::protocol(q, "unknown reply message")),
            }
        }
        if failed {
            self.reset().await?;
        }
        Ok(out)
    }

    /// One auto-commit query (RUN, then PULL of every record): its records, and its RUN's
    /// and PULL's summaries, as [`Connection::exchange`] returns them.
    pub async fn query(
        &mut self,
        query: &str,
        params: quiver_value::Map,
    ) -> Result<Exchanged, ClientError> {
        self.exchange(&[
            Request::Run {
                query: query.to_owned(),
                params,
                extra: quiver_bolt::message::TxExtra::default(),
            },
            Request::Pull { n: -1, qid: -1 },
        ])
        .await
    }

    /// GOODBYE, then close: the polite end a driver gives a connection.
    pub async fn close(mut self) {
        let bytes = encode(self.version, &[Request::Goodbye]);
        let _ = self.stream.write_all(&bytes).await;
        let _ = self.stream.shutdown().await;
    }
}
