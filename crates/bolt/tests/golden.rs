//! Golden bytes, checked by hand against the Bolt and PackStream specifications: each
//! message as a client sends it, each reply as Quiver writes it, and the handshake replies.

use std::sync::Arc;

use bytes::BytesMut;
use quiver_bolt::chunk::Dechunker;
use quiver_bolt::handshake::{Negotiation, negotiate};
use quiver_bolt::message::{Auth, HelloExtra, RouteExtra, TelemetryApi, TxExtra, encode_ignored};
use quiver_bolt::meta::{
    self, Completion, Failure, HelloSuccess, QueryType, Role, RoutingTable, RunSuccess, Stats,
    Summary,
};
use quiver_bolt::packstream::{Dialect, write_value};
use quiver_bolt::{Codec, Request, Response, Version};
use quiver_status::Status;
use quiver_value::{
    DateTime, Map, Node, NodeData, Path, Point, RelData, Relationship, TimeZone, Value,
};

/// `[len][body][00 00]`: one chunk.
fn framed(body: &[u8]) -> Vec<u8> {
    let mut out = (body.len() as u16).to_be_bytes().to_vec();
    out.extend_from_slice(body);
    out.extend_from_slice(&[0, 0]);
    out
}

/// A tiny string (under 16 bytes): `8<len>` then the bytes.
fn s(text: &str) -> Vec<u8> {
    assert!(text.len() < 16);
    let mut out = vec![0x80 | text.len() as u8];
    out.extend_from_slice(text.as_bytes());
    out
}

/// A string of 16..=255 bytes: `D0 <len>` then the bytes.
fn s8(text: &str) -> Vec<u8> {
    assert!((16..256).contains(&text.len()));
    let mut out = vec![0xD0, text.len() as u8];
    out.extend_from_slice(text.as_bytes());
    out
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// The dictionary entries of `Auth::basic("neo4j", "pw")`: scheme, principal, credentials.
fn basic_auth_entries() -> Vec<u8> {
    cat(&[
        &s("scheme"),
        &s("basic"),
        &s("principal"),
        &s("neo4j"),
        &s("credentials"),
        &s("pw"),
    ])
}

fn decode_request(body: &[u8], version: Version) -> Request {
    Request::decode(body, &Codec::new(version)).unwrap()
}

fn encode_request(r: &Request, version: Version) -> Vec<u8> {
    let mut out = Vec::new();
    r.encode(&mut out, &Codec::new(version)).unwrap();
    out
}

fn decode_response(wire: &[u8], version: Version) -> Response {
    let mut input = BytesMut::from(wire);
    let body = Dechunker::new(1 << 20).decode(&mut input).unwrap().unwrap();
    assert!(input.is_empty(), "one message expected");
    Response::decode(&body, &Codec::new(version)).unwrap()
}

fn meta_of(r: Response) -> Map {
    match r {
        Response::Success(m) | Response::Failure(m) => m,
        other => panic!("no metadata in {other:?}"),
    }
}

fn get<'m>(m: &'m Map, key: &str) -> &'m Value {
    m.get(key)
        .unwrap_or_else(|| panic!("missing {key} in {m:?}"))
}

#[test]
fn requests_without_fields() {
    for (sig, request) in [
        (0x0F, Request::Reset),
        (0x02, Request::Goodbye),
        (0x12, Request::Commit),
        (0x13, Request::Rollback),
        (0x6B, Request::Logoff),
    ] {
        let body = [0xB0, sig];
        assert_eq!(decode_request(&body, Version::V5_8).name(), request.name());
        assert_eq!(encode_request(&request, Version::V5_8), framed(&body));
    }
}

#[test]
fn pull_and_discard() {
    let pull_all = [0xB1, 0x3F, 0xA1, 0x81, b'n', 0xFF];
    assert!(matches!(
        decode_request(&pull_all, Version::V5_0),
        Request::Pull { n: -1, qid: -1 }
    ));
    assert_eq!(
        encode_request(&Request::Pull { n: -1, qid: -1 }, Version::V5_0),
        framed(&pull_all)
    );

    let pull_some = cat(&[
        &[0xB1, 0x3F, 0xA2],
        &s("n"),
        &[0xC9, 0x03, 0xE8],
        &s("qid"),
        &[0x03],
    ]);
    assert!(matches!(
        decode_request(&pull_some, Version::V5_4),
        Request::Pull { n: 1000, qid: 3 }
    ));
    assert_eq!(
        encode_request(&Request::Pull { n: 1000, qid: 3 }, Version::V5_4),
        framed(&pull_some)
    );

    let discard = [0xB1, 0x2F, 0xA1, 0x81, b'n', 0xFF];
    assert!(matches!(
        decode_request(&discard, Version::V4_4),
        Request::Discard { n: -1, qid: -1 }
    ));
}

#[test]
fn run_begin_telemetry() {
    let run = cat(&[&[0xB3, 0x10], &s("RETURN 1"), &[0xA0, 0xA0]]);
    let Request::Run {
        query,
        params,
        extra,
    } = decode_request(&run, Version::V5_8)
    else {
        panic!()
    };
    assert_eq!(query, "RETURN 1");
    assert!(params.is_empty() && extra.bookmarks.is_empty() && extra.db.is_none());
    let again = Request::Run {
        query,
        params,
        extra: TxExtra::default(),
    };
    assert_eq!(encode_request(&again, Version::V5_8), framed(&run));

    let run_params = cat(&[
        &[0xB3, 0x10],
        &s("RETURN $x"),
        &[0xA1],
        &s("x"),
        &[0x2A],
        &[0xA2],
        &s("db"),
        &s("neo4j"),
        &s("mode"),
        &s("r"),
    ]);
    let Request::Run { params, extra, .. } = decode_request(&run_params, Version::V5_8) else {
        panic!()
    };
    assert_eq!(params.get("x").and_then(Value::as_int), Some(42));
    assert_eq!(extra.db.as_deref(), Some("neo4j"));
    assert_eq!(extra.mode, quiver_bolt::message::AccessMode::Read);

    let begin = cat(&[&[0xB1, 0x11, 0xA1], &s("mode"), &s("r")]);
    let Request::Begin { extra } = decode_request(&begin, Version::V5_8) else {
        panic!()
    };
    assert_eq!(extra.mode, quiver_bolt::message::AccessMode::Read);
    assert_eq!(
        encode_request(&Request::Begin { extra }, Version::V5_8),
        framed(&begin)
    );

    let telemetry = [0xB1, 0x54, 0x02];
    assert!(matches!(
        decode_request(&telemetry, Version::V5_4),
        Request::Telemetry {
            api: TelemetryApi::ImplicitTransaction
        }
    ));
    assert_eq!(
        encode_request(
            &Request::Telemetry {
                api: TelemetryApi::ImplicitTransaction
            },
            Version::V5_4
        ),
        framed(&telemetry)
    );
}

#[test]
fn hello_and_logon_by_version() {
    // 5.1+: HELLO has no credentials; LOGON carries them.
    let hello = cat(&[&[0xB1, 0x01, 0xA1], &s("user_agent"), &s("x/1")]);
    let Request::Hello { extra } = decode_request(&hello, Version::V5_8) else {
        panic!()
    };
    assert_eq!(extra.user_agent, "x/1");
    assert!(extra.auth.is_none());
    let mut again = HelloExtra {
        user_agent: "x/1".into(),
        ..HelloExtra::default()
    };
    assert_eq!(
        encode_request(
            &Request::Hello {
                extra: again.clone()
            },
            Version::V5_8
        ),
        framed(&hello)
    );

    let logon = cat(&[&[0xB1, 0x6A, 0xA3], &basic_auth_entries()]);
    let Request::Logon { auth } = decode_request(&logon, Version::V5_1) else {
        panic!()
    };
    assert_eq!(
        (
            auth.scheme.as_str(),
            auth.principal.as_deref(),
            auth.credentials.as_deref()
        ),
        ("basic", Some("neo4j"), Some("pw"))
    );
    assert!(
        !format!("{auth:?}").contains("pw"),
        "credentials must not show in logs"
    );
    assert_eq!(
        encode_request(&Request::Logon { auth }, Version::V5_1),
        framed(&logon)
    );

    // 5.0: the same credentials ride in HELLO.
    let hello50 = cat(&[
        &[0xB1, 0x01, 0xA4],
        &s("user_agent"),
        &s("x/1"),
        &basic_auth_entries(),
    ]);
    let Request::Hello { extra } = decode_request(&hello50, Version::V5_0) else {
        panic!()
    };
    let auth = extra.auth.unwrap();
    assert_eq!(
        (auth.scheme.as_str(), auth.principal.as_deref()),
        ("basic", Some("neo4j"))
    );
    again.auth = Some(Auth::basic("neo4j", "pw"));
    assert_eq!(
        encode_request(&Request::Hello { extra: again }, Version::V5_0),
        framed(&hello50)
    );

    // LOGON does not exist before 5.1.
    assert!(Request::decode(&logon, &Codec::new(Version::V5_0)).is_err());
}

#[test]
fn route() {
    let route = cat(&[
        &[0xB3, 0x66, 0xA1],
        &s("address"),
        &s("h:1"),
        &[0x90, 0xA1],
        &s("db"),
        &s("neo4j"),
    ]);
    let Request::Route {
        routing,
        bookmarks,
        extra,
    } = decode_request(&route, Version::V5_8)
    else {
        panic!()
    };
    assert_eq!(routing.get("address").and_then(Value::as_str), Some("h:1"));
    assert!(bookmarks.is_empty());
    assert_eq!(extra.db.as_deref(), Some("neo4j"));
    assert_eq!(
        encode_request(
            &Request::Route {
                routing,
                bookmarks,
                extra
            },
            Version::V5_8
        ),
        framed(&route)
    );
    // The 4.3 shape (database name alone) is still understood.
    let route43 = cat(&[&[0xB3, 0x66, 0xA0, 0x90], &s("neo4j")]);
    let Request::Route { extra, .. } = decode_request(&route43, Version::V4_4) else {
        panic!()
    };
    assert_eq!(
        extra,
        RouteExtra {
            db: Some("neo4j".into()),
            imp_user: None
        }
    );
}

#[test]
fn simple_replies() {
    let mut out = Vec::new();
    encode_ignored(&mut out);
    assert_eq!(out, [0x00, 0x02, 0xB0, 0x7E, 0x00, 0x00]);
    out.clear();
    meta::encode_success_empty(&mut out);
    assert_eq!(out, [0x00, 0x03, 0xB1, 0x70, 0xA0, 0x00, 0x00]);
    out.clear();
    meta::encode_has_more(&mut out).unwrap();
    assert_eq!(
        out,
        framed(&cat(&[&[0xB1, 0x70, 0xA1], &s("has_more"), &[0xC3]]))
    );
    out.clear();
    let record = [Value::Int(1), Value::from("a"), Value::Null];
    quiver_bolt::message::encode_record(&mut out, &record, Dialect::BOLT5).unwrap();
    assert_eq!(out, framed(&[0xB1, 0x71, 0x93, 0x01, 0x81, b'a', 0xC0]));
}

#[test]
fn hello_success_by_version() {
    let hello = HelloSuccess {
        server: meta::SERVER_AGENT,
        connection_id: "bolt-7",
        recv_timeout_seconds: Some(120),
        telemetry_enabled: false,
        ssr_enabled: false,
        utc_patch: false,
    };
    let mut out = Vec::new();
    hello.encode(&mut out, Version::V5_4).unwrap();
    let expected = cat(&[
        &[0xB1, 0x70, 0xA3],
        &s("server"),
        &s8(meta::SERVER_AGENT),
        &s("connection_id"),
        &s("bolt-7"),
        &s("hints"),
        &[0xA2],
        &s8("connection.recv_timeout_seconds"),
        &[0x78],
        &s8("telemetry.enabled"),
        &[0xC2],
    ]);
    assert_eq!(out, framed(&expected));
    assert!(meta::SERVER_AGENT.starts_with("Neo4j/"));

    let m = reply_meta(Version::V5_8, |o, v| hello.encode(o, v));
    let hints = get(&m, "hints").as_map().unwrap();
    assert!(hints.contains_key("ssr.enabled") && hints.contains_key("telemetry.enabled"));
    let m = reply_meta(Version::V5_0, |o, v| hello.encode(o, v));
    let hints = get(&m, "hints").as_map().unwrap();
    assert_eq!(
        hints.len(),
        1,
        "5.0 knows neither telemetry nor ssr: {hints:?}"
    );
    assert!(
        get(&m, "connection_id").as_str().is_some(),
        "connection_id must be a string"
    );
}

/// The metadata of the reply `write` encodes for `version`, decoded as a client of that version
/// reads it.
fn reply_meta(
    version: Version,
    write: impl FnOnce(&mut Vec<u8>, Version) -> Result<(), quiver_bolt::Error>,
) -> Map {
    meta_of(decode_response(&encode(|o| write(o, version)), version))
}

fn encode(f: impl FnOnce(&mut Vec<u8>) -> Result<(), quiver_bolt::Error>) -> Vec<u8> {
    let mut out = Vec::new();
    f(&mut out).unwrap();
    out
}

#[test]
fn run_success_and_summaries() {
    let fields = ["n", "m"];
    let run = RunSuccess {
        fields: &fields,
        t_first_ms: 3,
        qid: Some(0),
        db: Some("neo4j"),
    };
    let wire = encode(|o| run.encode(o, Version::V5_4));
    let expected = cat(&[
        &[0xB1, 0x70, 0xA3],
        &s("fields"),
        &[0x92],
        &s("n"),
        &s("m"),
        &s("t_first"),
        &[0x03],
        &s("qid"),
        &[0x00],
    ]);
    assert_eq!(wire, framed(&expected), "db only from 5.8");
    let m = reply_meta(Version::V5_8, |o, v| run.encode(o, v));
    assert_eq!(get(&m, "db").as_str(), Some("neo4j"));

    let stats = Stats {
        nodes_created: 2,
        properties_set: 1,
        ..Stats::default()
    };
    let summary = Summary {
        bookmark: Some("quiver:1"),
        db: Some("neo4j"),
        t_last_ms: 1,
        query_type: QueryType::Write,
        stats,
        notifications: &[],
        completion: Completion::OmittedResult,
        plan: None,
    };
    let m = reply_meta(Version::V5_4, |o, v| summary.encode(o, v));
    assert_eq!(get(&m, "type").as_str(), Some("w"));
    assert_eq!(get(&m, "bookmark").as_str(), Some("quiver:1"));
    let st = get(&m, "stats").as_map().unwrap();
    assert_eq!(st.get("nodes-created").and_then(Value::as_int), Some(2));
    assert_eq!(st.get("properties-set").and_then(Value::as_int), Some(1));
    assert_eq!(
        st.get("contains-updates").and_then(Value::as_bool),
        Some(true)
    );
    assert!(
        !st.contains_key("nodes-deleted"),
        "zero counters are left out"
    );
    assert!(!m.contains_key("statuses"));

    let m = reply_meta(Version::V5_6, |o, v| summary.encode(o, v));
    let statuses = get(&m, "statuses").as_list().unwrap();
    let first = statuses[0].as_map().unwrap();
    assert_eq!(get(first, "gql_status").as_str(), Some("00001"));
    assert_eq!(
        get(first, "status_description").as_str(),
        Some("note: successful completion - omitted result")
    );
    assert!(!m.contains_key("notifications"));
}

#[test]
fn notifications_up_to_5_4_statuses_from_5_6() {
    let note = meta::Notification {
        code: "Neo.ClientNotification.Statement.CartesianProduct".into(),
        title: "This query builds a cartesian product".into(),
        description: "The pattern is disconnected".into(),
        severity: meta::Severity::Information,
        category: "PERFORMANCE".into(),
        gql_status: "03N90".into(),
        status_description: "info: cartesian product. The pattern is disconnected".into(),
        position: Some(meta::Position {
            offset: 0,
            line: 1,
            column: 1,
        }),
    };
    let notes = [note];
    let summary = Summary {
        bookmark: None,
        db: None,
        t_last_ms: 0,
        query_type: QueryType::Read,
        stats: Stats::default(),
        notifications: &notes,
        completion: Completion::Success,
        plan: None,
    };
    let m = reply_meta(Version::V5_4, |o, v| summary.encode(o, v));
    let n = get(&m, "notifications").as_list().unwrap()[0]
        .as_map()
        .unwrap()
        .clone();
    assert_eq!(get(&n, "severity").as_str(), Some("INFORMATION"));
    assert_eq!(get(&n, "category").as_str(), Some("PERFORMANCE"));
    let m = reply_meta(Version::V5_7, |o, v| summary.encode(o, v));
    let statuses = get(&m, "statuses").as_list().unwrap();
    assert_eq!(statuses.len(), 2);
    let n = statuses[1].as_map().unwrap();
    assert_eq!(get(n, "gql_status").as_str(), Some("03N90"));
    let diag = get(n, "diagnostic_record").as_map().unwrap();
    assert_eq!(get(diag, "_classification").as_str(), Some("PERFORMANCE"));
    assert_eq!(get(diag, "_severity").as_str(), Some("INFORMATION"));
}

#[test]
fn failure_form_follows_the_version() {
    let failure = Failure {
        code: Status::SyntaxError,
        message: "Invalid input",
        position: None,
    };
    let wire = encode(|o| failure.encode(o, Version::V5_6));
    let expected = cat(&[
        &[0xB1, 0x7F, 0xA2],
        &s("code"),
        &s8("Neo.ClientError.Statement.SyntaxError"),
        &s("message"),
        &s("Invalid input"),
    ]);
    assert_eq!(wire, framed(&expected));

    let m = reply_meta(Version::V5_7, |o, v| failure.encode(o, v));
    assert!(!m.contains_key("code"), "5.7 uses neo4j_code");
    assert_eq!(
        get(&m, "neo4j_code").as_str(),
        Some("Neo.ClientError.Statement.SyntaxError")
    );
    assert_eq!(get(&m, "message").as_str(), Some("Invalid input"));
    assert_eq!(get(&m, "gql_status").as_str(), Some("42001"));
    assert_eq!(
        get(&m, "description").as_str(),
        Some("error: syntax error or access rule violation - invalid syntax. Invalid input")
    );
    let diag = get(&m, "diagnostic_record").as_map().unwrap();
    assert_eq!(get(diag, "_classification").as_str(), Some("CLIENT_ERROR"));
    assert_eq!(get(diag, "_severity").as_str(), Some("ERROR"));
    assert_eq!(get(diag, "CURRENT_SCHEMA").as_str(), Some("/"));

    let unavailable = Failure {
        code: Status::DatabaseUnavailable,
        message: "shutting down",
        position: None,
    };
    let m = reply_meta(Version::V5_8, |o, v| unavailable.encode(o, v));
    assert_eq!(get(&m, "gql_status").as_str(), Some("08N09"));
    let diag = get(&m, "diagnostic_record").as_map().unwrap();
    assert_eq!(
        get(diag, "_classification").as_str(),
        Some("TRANSIENT_ERROR")
    );
}

#[test]
fn routing_table() {
    let me = ["127.0.0.1:7687".to_owned()];
    let servers = [
        (Role::Write, &me[..]),
        (Role::Read, &me[..]),
        (Role::Route, &me[..]),
    ];
    let table = RoutingTable {
        ttl_seconds: 300,
        db: "neo4j",
        servers: &servers,
    };
    let m = reply_meta(Version::V5_8, |o, _| table.encode(o));
    let rt = get(&m, "rt").as_map().unwrap();
    assert_eq!(get(rt, "ttl").as_int(), Some(300));
    assert_eq!(get(rt, "db").as_str(), Some("neo4j"));
    let roles: Vec<&str> = get(rt, "servers")
        .as_list()
        .unwrap()
        .iter()
        .map(|s| get(s.as_map().unwrap(), "role").as_str().unwrap())
        .collect();
    assert_eq!(roles, ["WRITE", "READ", "ROUTE"]);
}

#[test]
fn manifest_reply_is_one_buffer() {
    let mut client = [0u8; 20];
    client[..4].copy_from_slice(&[0x60, 0x60, 0xB0, 0x17]);
    client[4..8].copy_from_slice(&[0x00, 0x00, 0x01, 0xFF]);
    client[8..12].copy_from_slice(&[0x00, 0x08, 0x08, 0x05]);
    client[12..16].copy_from_slice(&[0x00, 0x02, 0x04, 0x04]);
    client[16..20].copy_from_slice(&[0x00, 0x00, 0x00, 0x03]);
    let Negotiation::Manifest { reply, .. } = negotiate(&client, &Version::SUPPORTED).unwrap()
    else {
        panic!()
    };
    // 00 00 01 FF | N=3 | 6.1–6.0 | 5.8–5.6 | 5.4–5.0 | capabilities 0: all of it in one Vec,
    // which the server sends with one write.
    assert_eq!(
        reply,
        [
            0x00, 0x00, 0x01, 0xFF, 0x03, 0x00, 0x01, 0x01, 0x06, 0x00, 0x02, 0x08, 0x05, 0x00,
            0x04, 0x04, 0x05, 0x00
        ]
    );
    client[4..8].copy_from_slice(&[0x00, 0x07, 0x07, 0x05]);
    assert_eq!(
        negotiate(&client, &Version::SUPPORTED).unwrap(),
        Negotiation::Agreed {
            version: Version::V5_7,
            reply: [0x00, 0x00, 0x07, 0x05]
        }
    );
}

fn node(id: u64, label: &str) -> Node {
    let mut properties = Map::new();
    properties.insert("k".into(), Value::Int(1));
    Node {
        id,
        data: Some(Arc::new(NodeData {
            labels: vec![label.into()],
            properties,
        })),
    }
}

#[test]
fn graph_structures() {
    let n = node(1, "A");
    assert_eq!(
        n.element_id(),
        "4:quiver:1",
        "element ids are the value crate's"
    );
    let node_body = |element: bool| {
        let mut b = vec![
            if element { 0xB4 } else { 0xB3 },
            0x4E,
            0x01,
            0x91,
            0x81,
            b'A',
            0xA1,
            0x81,
            b'k',
            0x01,
        ];
        if element {
            b.extend_from_slice(&s("4:quiver:1"));
        }
        b
    };
    let mut out = Vec::new();
    write_value(&mut out, &Value::Node(n.clone()), Dialect::BOLT5).unwrap();
    assert_eq!(out, node_body(true));
    out.clear();
    write_value(
        &mut out,
        &Value::Node(n.clone()),
        Dialect::of(Version::V4_4, false),
    )
    .unwrap();
    assert_eq!(out, node_body(false));

    let r = Relationship {
        id: 9,
        data: Some(Arc::new(RelData {
            start: 1,
            end: 2,
            rel_type: "R".into(),
            properties: Map::new(),
            ends: None,
        })),
    };
    out.clear();
    write_value(&mut out, &Value::Relationship(r.clone()), Dialect::BOLT5).unwrap();
    let rel = cat(&[
        &[0xB8, 0x52, 0x09, 0x01, 0x02],
        &s("R"),
        &[0xA0],
        &s("5:quiver:9"),
        &s("4:quiver:1"),
        &s("4:quiver:2"),
    ]);
    assert_eq!(out, rel);

    // A one-step path walked against the relationship's direction: index -1.
    let path = Path {
        nodes: vec![node(2, "B"), n.clone()],
        relationships: vec![r.clone()],
    };
    out.clear();
    write_value(&mut out, &Value::Path(Arc::new(path)), Dialect::BOLT5).unwrap();
    let mut b_node = vec![0xB4, 0x4E, 0x02, 0x91, 0x81, b'B', 0xA1, 0x81, b'k', 0x01];
    b_node.extend_from_slice(&s("4:quiver:2"));
    let unbound = cat(&[&[0xB4, 0x72, 0x09], &s("R"), &[0xA0], &s("5:quiver:9")]);
    let expected = cat(&[
        &[0xB3, 0x50, 0x92],
        &b_node,
        &node_body(true),
        &[0x91],
        &unbound,
        &[0x92, 0xFF, 0x01],
    ]);
    assert_eq!(out, expected);

    let unmaterialised = Value::Node(Node::new(5));
    assert!(matches!(
        write_value(&mut out, &unmaterialised, Dialect::BOLT5),
        Err(quiver_bolt::Error::NotMaterialised {
            kind: "node",
            id: 5
        })
    ));
}

#[test]
fn temporal_and_spatial_structures() {
    let dt = |zone| {
        Value::DateTime(Box::new(DateTime {
            seconds: 1,
            nanos: 2,
            offset_seconds: 3600,
            zone,
        }))
    };
    let mut out = Vec::new();
    write_value(&mut out, &dt(TimeZone::Offset(3600)), Dialect::BOLT5).unwrap();
    assert_eq!(out, [0xB3, 0x49, 0x01, 0x02, 0xC9, 0x0E, 0x10]);
    out.clear();
    write_value(
        &mut out,
        &dt(TimeZone::Offset(3600)),
        Dialect::of(Version::V4_4, false),
    )
    .unwrap();
    assert_eq!(
        out,
        [0xB3, 0x46, 0xC9, 0x0E, 0x11, 0x02, 0xC9, 0x0E, 0x10],
        "4.4 counts local seconds"
    );
    out.clear();
    write_value(
        &mut out,
        &dt(TimeZone::Named("Europe/Paris".into())),
        Dialect::BOLT5,
    )
    .unwrap();
    assert_eq!(out, cat(&[&[0xB3, 0x69, 0x01, 0x02], &s("Europe/Paris")]));
    out.clear();
    write_value(
        &mut out,
        &dt(TimeZone::Named("Europe/Paris".into())),
        Dialect::of(Version::V4_4, true),
    )
    .unwrap();
    assert_eq!(
        out[1], 0x69,
        "the utc patch switches 4.4 to the Bolt 5 form"
    );
    out.clear();
    let point = Value::Point(Box::new(Point {
        srid: 7203,
        x: 1.0,
        y: 2.0,
        z: None,
    }));
    write_value(&mut out, &point, Dialect::BOLT5).unwrap();
    assert_eq!(
        out,
        [
            0xB3, 0x58, 0xC9, 0x1C, 0x23, 0xC1, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 0xC1, 0x40, 0x00, 0,
            0, 0, 0, 0, 0
        ]
    );
}

#[test]
fn integers_take_their_smallest_form() {
    let cases: [(i64, &[u8]); 10] = [
        (0, &[0x00]),
        (127, &[0x7F]),
        (-16, &[0xF0]),
        (-17, &[0xC8, 0xEF]),
        (-128, &[0xC8, 0x80]),
        (128, &[0xC9, 0x00, 0x80]),
        (-129, &[0xC9, 0xFF, 0x7F]),
        (32768, &[0xCA, 0x00, 0x00, 0x80, 0x00]),
        (2_147_483_648, &[0xCB, 0, 0, 0, 0, 0x80, 0, 0, 0]),
        (i64::MIN, &[0xCB, 0x80, 0, 0, 0, 0, 0, 0, 0]),
    ];
    for (v, bytes) in cases {
        let mut out = Vec::new();
        write_value(&mut out, &Value::Int(v), Dialect::BOLT5).unwrap();
        assert_eq!(out, bytes, "{v}");
    }
}

#[test]
fn named_zones_resolve_through_the_tz_database() {
    use quiver_bolt::TzDatabase;
    use quiver_bolt::packstream::{Decoder, Limits, Side};
    // 2024-07-01T00:00:00Z, in Paris (UTC+2 in summer). 0x69 carries UTC seconds.
    let utc: i32 = 1_719_792_000;
    let body = cat(&[
        &[0xB3, 0x69, 0xCA],
        &utc.to_be_bytes(),
        &[0x00],
        &s("Europe/Paris"),
    ]);
    let mut d = Decoder::new(
        &body,
        Limits::default(),
        Dialect::BOLT5,
        Side::Server,
        &TzDatabase,
    );
    let Value::DateTime(dt) = d.value().unwrap() else {
        panic!("not a date-time")
    };
    assert_eq!((dt.seconds, dt.offset_seconds), (i64::from(utc), 7200));
    // 4.4's 0x66 carries the wall clock: 02:00 in Paris is midnight UTC.
    let local = utc + 7200;
    let body = cat(&[
        &[0xB3, 0x66, 0xCA],
        &local.to_be_bytes(),
        &[0x00],
        &s("Europe/Paris"),
    ]);
    let legacy = Dialect::of(Version::V4_4, false);
    let mut d = Decoder::new(&body, Limits::default(), legacy, Side::Server, &TzDatabase);
    let Value::DateTime(dt) = d.value().unwrap() else {
        panic!("not a date-time")
    };
    assert_eq!((dt.seconds, dt.offset_seconds), (i64::from(utc), 7200));
    // And back out in the same legacy form.
    let mut out = Vec::new();
    write_value(&mut out, &Value::DateTime(dt), legacy).unwrap();
    assert_eq!(out, body);
}
