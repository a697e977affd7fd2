//! A whole connection at the codec level: a client's pipelined bytes in, the server's replies
//! out, through the same pieces the server and the load client use. The "engine" answers every
//! query with three rows of one column.

use bytes::BytesMut;
use quiver_bolt::chunk::Dechunker;
use quiver_bolt::handshake::{self, ManifestChoice, Negotiation, ServerReply};
use quiver_bolt::message::{
    Auth, HelloExtra, TelemetryApi, TxExtra, encode_ignored, encode_record, peek_signature,
    signature,
};
use quiver_bolt::meta::{
    self, Completion, Failure, HelloSuccess, QueryType, RunSuccess, Stats, Summary,
};
use quiver_bolt::outbox::Outbox;
use quiver_bolt::state::{Admitted, Decision, Outcome, Session};
use quiver_bolt::{Codec, Request, Response, Version};
use quiver_status::Status;
use quiver_value::{Map, Value};

/// The server side of one connection: its session, its codec and the buffers between them
/// and the wire.
struct Connection {
    codec: Codec<'static>,
    session: Session,
    dechunker: Dechunker,
    outbox: Outbox,
}

impl Connection {
    fn new(version: Version) -> Self {
        Connection {
            codec: Codec::new(version),
            session: Session::new(version),
            dechunker: Dechunker::new(1 << 20),
            outbox: Outbox::new(64 * 1024),
        }
    }

    /// Answers every message buffered in `input`, appending all replies to the outbox;
    /// returns false once the connection must close.
    fn serve(&mut self, input: &mut BytesMut) -> bool {
        let Connection {
            codec,
            session,
            dechunker,
            outbox,
        } = self;
        let mut messages = Vec::new();
        while let Some(m) = dechunker.decode(input).unwrap() {
            messages.push(m);
        }
        // RESET jumps the queue: announce every one before answering anything.
        for m in &messages {
            if peek_signature(m) == Some(signature::RESET) {
                session.interrupt();
            }
        }
        let version = codec.version;
        for m in &messages {
            let request = match Request::decode(m, codec) {
                Ok(r) => r,
                Err(e) => match session.reject(&e) {
                    Decision::Ignore => {
                        encode_ignored(outbox.buffer());
                        continue;
                    }
                    Decision::Fail { code, message } => {
                        encode_failure(outbox.buffer(), code, &message, version);
                        continue;
                    }
                    Decision::Violation { code, message } => {
                        encode_failure(outbox.buffer(), code, &message, version);
                        return false;
                    }
                    _ => return false,
                },
            };
            let out = outbox.buffer();
            match session.admit(&request) {
                Decision::Process(admitted) => {
                    answer(admitted, out, codec);
                    session.complete(Outcome::Success);
                }
                Decision::Ignore => encode_ignored(out),
                Decision::Fail { code, message } | Decision::Violation { code, message } => {
                    encode_failure(out, code, &message, version);
                    if session.is_defunct() {
                        return false;
                    }
                }
                Decision::Close => return false,
            }
        }
        true
    }

    /// The replies written since the last call, decoded.
    fn replies(&mut self) -> Vec<Response> {
        responses(&self.outbox.take(), &self.codec)
    }
}

/// A FAILURE with no position in the query.
fn encode_failure(out: &mut BytesMut, code: Status, message: &str, version: Version) {
    Failure {
        code,
        message,
        position: None,
    }
    .encode(out, version)
    .unwrap();
}

/// The engine's answer to an admitted request: every query has one column `x` and three rows.
fn answer(admitted: Admitted, out: &mut BytesMut, codec: &Codec<'_>) {
    let version = codec.version;
    match admitted {
        Admitted::Hello => HelloSuccess {
            server: meta::SERVER_AGENT,
            connection_id: "bolt-1",
            recv_timeout_seconds: Some(60),
            telemetry_enabled: true,
            ssr_enabled: false,
            utc_patch: false,
        }
        .encode(out, version)
        .unwrap(),
        Admitted::Run { qid } => {
            RunSuccess {
                fields: &["x"],
                t_first_ms: 0,
                qid,
                db: None,
            }
            .encode(out, version)
            .unwrap();
        }
        Admitted::Pull { .. } => {
            for i in 0..3 {
                encode_record(out, &[Value::Int(i)], codec.dialect).unwrap();
            }
            Summary {
                bookmark: Some("quiver:1"),
                db: Some("neo4j"),
                t_last_ms: 0,
                query_type: QueryType::Read,
                stats: Stats::default(),
                notifications: &[],
                completion: Completion::Success,
                plan: None,
            }
            .encode(out, version)
            .unwrap();
        }
        _ => meta::encode_success_empty(out),
    }
}

fn responses(wire: &[u8], codec: &Codec<'_>) -> Vec<Response> {
    let mut input = BytesMut::from(wire);
    let mut d = Dechunker::new(1 << 20);
    let mut out = Vec::new();
    while let Some(m) = d.decode(&mut input).unwrap() {
        out.push(Response::decode(&m, codec).unwrap());
    }
    assert!(input.is_empty());
    out
}

/// The requests, encoded one after another as a client pipelines them.
fn encoded<const N: usize>(requests: [Request; N], codec: &Codec<'_>) -> BytesMut {
    let mut out = BytesMut::new();
    for request in requests {
        request.encode(&mut out, codec).unwrap();
    }
    out
}

/// HELLO from the lab's client.
fn hello() -> Request {
    Request::Hello {
        extra: HelloExtra {
            user_agent: "lab/1".into(),
            ..HelloExtra::default()
        },
    }
}

/// RUN of `query` with no parameters, outside any explicit transaction's settings.
fn run(query: &str) -> Request {
    Request::Run {
        query: query.into(),
        params: Map::new(),
        extra: TxExtra::default(),
    }
}

fn names(rs: &[Response]) -> Vec<&'static str> {
    rs.iter().map(Response::name).collect()
}

/// The manifest handshake: the client offers manifest v1, the server answers in one buffer,
/// a client of Bolt 5 picks 5.8 and pipelines HELLO + LOGON behind its choice. Returns the version and
/// the bytes the server reads after the choice.
fn manifest_handshake_then_log_on() -> (Version, BytesMut) {
    let hello20 = handshake::client_handshake(&Version::SUPPORTED, true);
    let Negotiation::Manifest { reply, offered } =
        handshake::negotiate(&hello20, &Version::SUPPORTED).unwrap()
    else {
        panic!("manifest expected")
    };
    let Some((ServerReply::Manifest { offered: seen, .. }, _)) =
        handshake::parse_server_reply(&reply).unwrap()
    else {
        panic!("client could not read the manifest")
    };
    // A client speaking everything Quiver does picks 6.1, one speaking up to 6.0 picks 6.0;
    // this one speaks up to 5.8.
    assert_eq!(
        handshake::client_manifest_choice(&seen, &Version::SUPPORTED).0,
        Some(Version::V6_1)
    );
    let bolt6_0_client: Vec<Version> = Version::SUPPORTED
        .iter()
        .copied()
        .filter(|v| *v <= Version::V6_0)
        .collect();
    assert_eq!(
        handshake::client_manifest_choice(&seen, &bolt6_0_client).0,
        Some(Version::V6_0)
    );
    let bolt5_client: Vec<Version> = Version::SUPPORTED
        .iter()
        .copied()
        .filter(|v| v.major < 6)
        .collect();
    let (chosen, choice) = handshake::client_manifest_choice(&seen, &bolt5_client);
    let version = chosen.unwrap();
    assert_eq!(version, Version::V5_8);
    let codec = Codec::new(version);
    let mut wire = BytesMut::from(&choice[..]);
    hello().encode(&mut wire, &codec).unwrap();
    Request::Logon {
        auth: Auth::basic("neo4j", "secret"),
    }
    .encode(&mut wire, &codec)
    .unwrap();
    let Some((ManifestChoice::Chosen { version: v, .. }, used)) =
        handshake::parse_manifest_choice(&wire, &offered).unwrap()
    else {
        panic!("server could not read the choice")
    };
    assert_eq!(v, version);
    (version, wire.split_off(used))
}

#[test]
fn pipelined_session_over_manifest_handshake() {
    let (version, mut input) = manifest_handshake_then_log_on();
    let mut conn = Connection::new(version);
    assert!(conn.serve(&mut input));
    assert_eq!(names(&conn.replies()), ["SUCCESS", "SUCCESS"]);

    // TELEMETRY + RUN + PULL, then BEGIN + RUN + PULL + COMMIT: each batch answered into one
    // buffer, i.e. one write.
    let mut input = encoded(
        [
            Request::Telemetry {
                api: TelemetryApi::ExecuteQuery,
            },
            run("RETURN 1"),
            Request::Pull { n: 1000, qid: -1 },
            Request::Begin {
                extra: TxExtra::default(),
            },
            run("RETURN 2"),
            Request::Pull { n: -1, qid: -1 },
            Request::Commit,
        ],
        &conn.codec,
    );
    assert!(conn.serve(&mut input));
    let rs = conn.replies();
    assert_eq!(
        names(&rs),
        [
            "SUCCESS", "SUCCESS", "RECORD", "RECORD", "RECORD", "SUCCESS", "SUCCESS", "SUCCESS",
            "RECORD", "RECORD", "RECORD", "SUCCESS", "SUCCESS"
        ]
    );
    let Response::Success(run_in_tx) = &rs[7] else {
        panic!()
    };
    assert_eq!(run_in_tx.get("qid").and_then(Value::as_int), Some(0));

    // A failing batch: PULL out of state closes the connection after a FAILURE.
    let mut input = encoded([Request::Pull { n: -1, qid: -1 }], &conn.codec);
    assert!(!conn.serve(&mut input));
    let rs = conn.replies();
    let Response::Failure(f) = &rs[0] else {
        panic!("{rs:?}")
    };
    assert_eq!(
        f.get("neo4j_code").and_then(Value::as_str),
        Some("Neo.ClientError.Request.Invalid")
    );
    assert_eq!(f.get("gql_status").and_then(Value::as_str), Some("08N11"));
}

#[test]
fn reset_behind_a_pipeline_ignores_what_came_before_it() {
    let mut conn = Connection::new(Version::V5_4);
    let mut input = encoded(
        [hello(), Request::Logon { auth: Auth::none() }],
        &conn.codec,
    );
    assert!(conn.serve(&mut input));
    conn.outbox.take();

    let mut input = encoded(
        [
            run("RETURN 1"),
            Request::Pull { n: -1, qid: -1 },
            Request::Reset,
            run("RETURN 2"),
        ],
        &conn.codec,
    );
    assert!(conn.serve(&mut input));
    assert_eq!(
        names(&conn.replies()),
        ["IGNORED", "IGNORED", "SUCCESS", "SUCCESS"]
    );

    // A malformed but well-framed message fails the request and the session recovers.
    let mut input = BytesMut::new();
    quiver_bolt::chunk::write_chunked(&mut input, &[0xB1, 0x3F, 0xA0]);
    Request::Reset.encode(&mut input, &conn.codec).unwrap();
    // The pipelined RESET is announced first, so the bad PULL is IGNORED, not failed.
    assert!(conn.serve(&mut input));
    assert_eq!(names(&conn.replies()), ["IGNORED", "SUCCESS"]);
    // The Bolt 5.4 failure form: code and message.
    let mut input = BytesMut::new();
    quiver_bolt::chunk::write_chunked(&mut input, &[0xB1, 0x3F, 0xA0]);
    assert!(conn.serve(&mut input));
    let rs = conn.replies();
    let Response::Failure(f) = &rs[0] else {
        panic!("{rs:?}")
    };
    assert_eq!(
        f.get("code").and_then(Value::as_str),
        Some("Neo.ClientError.Request.Invalid")
    );
    assert!(!f.contains_key("gql_status"));
}
