//! The Bolt session over raw sockets: authentication, routing, failures, protocol violations,
//! malformed input and the reserved administrator slots.

mod common;

use std::time::Duration;

use common::bolt::{BoltClient, pull, route, run, text};
use common::{config, eventually, start};
use quiver_bolt::message::Auth;
use quiver_bolt::{Request, Response, Version};
use quiver_server::config::UserEntry;
use quiver_value::Value;

const V58: &[Version] = &[Version::V5_8, Version::V5_4, Version::V5_0];
const V54: &[Version] = &[Version::V5_4];
const V50: &[Version] = &[Version::V5_0];

fn with_users(layer: &mut quiver_server::config::Layer) {
    layer.auth = Some("neo4j/secret-password".parse().expect("auth spec"));
    layer.users = Some(vec![UserEntry {
        name: "reader".to_owned(),
        password_hash: None,
        password: Some("letmein-please".to_owned()),
        admin: false,
    }]);
}

/// [`with_users`], and `max` connections at once, one of them reserved for administrators.
fn with_reserved_slot(layer: &mut quiver_server::config::Layer, max: u32) {
    with_users(layer);
    layer.max_connections = Some(max);
    layer.admin_reserved_connections = Some(1);
}

/// A 5.8 session with the server at `addr`, logged in without credentials.
async fn logged_in(addr: std::net::SocketAddr) -> BoltClient {
    let mut client = BoltClient::connect(addr, V58, true).await;
    client.login(Auth::none()).await.expect("logged in");
    client
}

/// The routing table a logged-in session gets for ROUTE with `address`.
async fn route_table(client: &mut BoltClient, address: &str) -> quiver_value::Map {
    client.send(&[route(address)]).await;
    let meta = client.expect_success().await;
    routing_table(&meta).clone()
}

/// The routing table in a ROUTE's SUCCESS.
fn routing_table(meta: &quiver_value::Map) -> &quiver_value::Map {
    let Some(Value::Map(table)) = meta.get("rt") else {
        panic!("no routing table in {meta:?}");
    };
    table
}

/// Sends `query` with `params` to run against the `system` database, and reads RUN's SUCCESS.
async fn run_on_system(client: &mut BoltClient, query: &str, params: quiver_value::Map) {
    let system = quiver_bolt::message::TxExtra {
        db: Some("system".to_owned()),
        ..quiver_bolt::message::TxExtra::default()
    };
    client
        .send(&[common::bolt::run_in(query, params, system), pull(-1, -1)])
        .await;
    client.expect_success().await;
}

#[tokio::test]
async fn hello_and_logon_without_auth_succeed() {
    let server = start(config(|_| {}), None).await;
    let mut client = BoltClient::connect(server.bolt, V58, true).await;
    assert_eq!(client.version, Version::V5_8);
    let meta = client.login(Auth::none()).await.expect("logged in");
    assert!(
        text(&meta, "server")
            .unwrap_or_default()
            .starts_with("Neo4j/")
    );
    assert!(text(&meta, "connection_id").is_some());
    client.send(&[Request::Goodbye]).await;
    client.expect_closed().await;
    server.stop().await;
}

#[tokio::test]
async fn bolt_5_0_authenticates_in_hello() {
    let server = start(config(with_users), None).await;
    let mut client = BoltClient::connect(server.bolt, V50, false).await;
    assert!(
        client
            .login(Auth::basic("neo4j", "secret-password"))
            .await
            .is_ok()
    );
    let mut wrong = BoltClient::connect(server.bolt, V50, false).await;
    wrong
        .expect_login_refused(
            Auth::basic("neo4j", "nope"),
            "Neo.ClientError.Security.Unauthorized",
        )
        .await;
    server.stop().await;
}

#[tokio::test]
async fn wrong_credentials_are_unauthorized_and_close_the_connection() {
    let server = start(config(with_users), None).await;
    for version in [V54, V58] {
        let mut client = BoltClient::connect(server.bolt, version, true).await;
        client
            .expect_login_refused(
                Auth::basic("neo4j", "wrong"),
                "Neo.ClientError.Security.Unauthorized",
            )
            .await;
    }
    let mut none = BoltClient::connect(server.bolt, V58, true).await;
    assert!(none.login(Auth::none()).await.is_err());
    assert_eq!(server.metrics.auth_failures.get(), 3);
    let mut right = BoltClient::connect(server.bolt, V58, true).await;
    assert!(
        right
            .login(Auth::basic("neo4j", "secret-password"))
            .await
            .is_ok()
    );
    server.stop().await;
}

#[tokio::test]
async fn a_failure_ignores_what_follows_until_reset() {
    let server = start(config(|_| {}), None).await;
    let mut client = BoltClient::connect(server.bolt, V54, true).await;
    client.login(Auth::none()).await.expect("logged in");
    client.send(&[run("RETURN (1"), pull(-1, -1)]).await;
    let (code, _) = client.expect_failure().await;
    assert_eq!(code, "Neo.ClientError.Statement.SyntaxError");
    assert!(matches!(client.recv().await, Some(Response::Ignored)));
    client.send(&[Request::Reset]).await;
    client.expect_success().await;
    // The session is usable again.
    client.send(&[route("example.org:7687")]).await;
    client.expect_success().await;
    assert!(server.metrics.bolt_messages.get() >= 6);
    server.stop().await;
}

#[tokio::test]
async fn route_returns_a_single_node_table() {
    let server = start(config(|_| {}), None).await;
    let table = route_table(&mut logged_in(server.bolt).await, "db.example:7687").await;
    assert_eq!(text(&table, "db").as_deref(), Some("neo4j"));
    let Some(Value::List(servers)) = table.get("servers") else {
        panic!("no servers in {table:?}");
    };
    assert_eq!(servers.len(), 3);
    for server_entry in servers.iter() {
        let Value::Map(entry) = server_entry else {
            panic!("server entry is not a map");
        };
        let Some(Value::List(addresses)) = entry.get("addresses") else {
            panic!("no addresses");
        };
        assert_eq!(addresses.len(), 1);
        assert!(matches!(&addresses[0], Value::String(a) if &**a == "db.example:7687"));
    }
    server.stop().await;
}

#[tokio::test]
async fn an_out_of_state_message_is_a_protocol_error() {
    let server = start(config(|_| {}), None).await;
    let mut client = logged_in(server.bolt).await;
    client.send(&[pull(10, -1)]).await;
    client.expect_fatal("Neo.ClientError.Request.Invalid").await;
    // The server keeps serving.
    let mut next = BoltClient::connect(server.bolt, V58, true).await;
    assert!(next.login(Auth::none()).await.is_ok());
    server.stop().await;
}

#[tokio::test]
async fn malformed_and_oversized_messages_close_with_a_reason() {
    let server = start(
        config(|layer| layer.bolt_message_bytes_max = Some(1024)),
        None,
    )
    .await;
    let cases: [(&str, &[u8], &str); 5] = [
        (
            "a reserved PackStream marker (0xC7) inside a one-chunk message",
            &[0x00, 0x03, 0xB1, 0x01, 0xC7, 0x00, 0x00],
            "Neo.ClientError.Request.InvalidFormat",
        ),
        (
            "a chunk header announcing more than the message limit",
            &[0xFF, 0xFF, 0xB1, 0x01],
            "Neo.ClientError.Request.InvalidFormat",
        ),
        (
            "a message that ends inside its structure (HELLO announces a field the chunk lacks)",
            &[0x00, 0x02, 0xB1, 0x01, 0x00, 0x00],
            "Neo.ClientError.Request.InvalidFormat",
        ),
        (
            "a string whose length runs past the end of the message",
            &[
                0x00, 0x07, 0xB1, 0x01, 0xA1, 0x81, 0x61, 0x85, 0x61, 0x00, 0x00,
            ],
            "Neo.ClientError.Request.InvalidFormat",
        ),
        (
            "an unknown message signature",
            &[0x00, 0x02, 0xB0, 0x55, 0x00, 0x00],
            "Neo.ClientError.Request.Invalid",
        ),
    ];
    for (what, bytes, code) in cases {
        let mut client = BoltClient::connect(server.bolt, V58, true).await;
        client.send_raw(bytes).await;
        let (got, message) = client.expect_failure().await;
        assert_eq!(got, code, "{what}: {message}");
        if what.contains("message limit") {
            assert!(message.contains("1024"), "{what}: {message}");
        }
        client.expect_closed().await;
    }
    let mut client = BoltClient::connect(server.bolt, V58, true).await;
    assert!(client.login(Auth::none()).await.is_ok());
    server.stop().await;
}

#[tokio::test]
async fn idle_sessions_are_closed_at_the_idle_deadline() {
    let server = start(config(|layer| layer.idle_timeout_ms = Some(300)), None).await;
    let mut client = logged_in(server.bolt).await;
    let start_time = std::time::Instant::now();
    client.expect_closed().await;
    assert!(start_time.elapsed() >= Duration::from_millis(250));
    assert!(eventually(|| server.metrics.bolt.timed_out.get() == 1).await);
    server.stop().await;
}

#[tokio::test]
async fn a_client_that_never_logs_on_hits_the_handshake_deadline() {
    let server = start(config(|layer| layer.handshake_timeout_ms = Some(300)), None).await;
    let mut client = BoltClient::connect(server.bolt, V58, true).await;
    client.expect_closed().await;
    assert!(eventually(|| server.metrics.bolt.timed_out.get() == 1).await);
    server.stop().await;
}

#[tokio::test]
async fn reserved_slots_admit_administrators_only() {
    let server = start(config(|layer| with_reserved_slot(layer, 2)), None).await;
    let mut general = BoltClient::connect(server.bolt, V58, true).await;
    general
        .login(Auth::basic("reader", "letmein-please"))
        .await
        .expect("a general slot admits anyone");
    // The next connection lands in the reserved slot: a non-administrator is turned away...
    let mut reader = BoltClient::connect(server.bolt, V58, true).await;
    let message = reader
        .expect_login_refused(
            Auth::basic("reader", "letmein-please"),
            "Neo.TransientError.General.ServiceUnavailable",
        )
        .await;
    assert!(message.contains("reserved for administrators"), "{message}");
    assert!(eventually(|| server.metrics.bolt.active.get() == 1).await);
    // ...and an administrator gets in.
    let mut admin = BoltClient::connect(server.bolt, V58, true).await;
    admin
        .login(Auth::basic("neo4j", "secret-password"))
        .await
        .expect("administrator in the reserved slot");
    server.stop().await;
}

#[tokio::test]
async fn past_the_limit_the_refusal_is_a_readable_failure() {
    let server = start(
        config(|layer| {
            layer.max_connections = Some(2);
            layer.admin_reserved_connections = Some(0);
        }),
        None,
    )
    .await;
    let _first = BoltClient::connect(server.bolt, V58, true).await;
    let _second = BoltClient::connect(server.bolt, V58, true).await;
    assert!(eventually(|| server.metrics.bolt.active.get() == 2).await);
    for versions in [V58, V54] {
        let mut refused = BoltClient::connect(server.bolt, versions, true).await;
        let (code, message) = match refused.login(Auth::none()).await {
            Err(failure) => failure,
            Ok(meta) => panic!("admitted past the limit: {meta:?}"),
        };
        assert_eq!(code, "Neo.TransientError.General.ServiceUnavailable");
        assert!(message.contains("limit of 2"), "{message}");
        refused.expect_closed().await;
    }
    assert_eq!(server.metrics.bolt.rejected.get(), 2);
    server.stop().await;
}

/// Computes for seconds (a cross product of millions of rows), checking for cancellation.
const LONG_QUERY: &str = "UNWIND range(1, 6000) AS a UNWIND range(1, 6000) AS b WITH a, b WHERE a + b < 0 RETURN count(*) AS c";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_administrator_terminates_work_when_every_slot_and_query_thread_is_busy() {
    let server = start(
        config(|layer| {
            with_reserved_slot(layer, 3);
            layer.query_threads = Some(1);
        }),
        None,
    )
    .await;
    // Both general slots run long queries; the one query thread is taken.
    let mut busy = Vec::new();
    for _ in 0..2 {
        let mut client = BoltClient::connect(server.bolt, V58, true).await;
        client
            .login(Auth::basic("reader", "letmein-please"))
            .await
            .expect("a general slot");
        // RUN alone first: the replies to a pipelined batch leave together, after the PULL.
        client.send(&[run(LONG_QUERY)]).await;
        client.expect_success().await;
        client.send(&[pull(-1, -1)]).await;
        busy.push(client);
    }
    assert!(eventually(|| server.db.transactions().len() == 2).await);
    let mut admin = BoltClient::connect(server.bolt, V58, true).await;
    admin
        .login(Auth::basic("neo4j", "secret-password"))
        .await
        .expect("the reserved slot admits the administrator");
    let (_, rows, _) = admin
        .query("SHOW TRANSACTIONS YIELD transactionId, currentQuery RETURN transactionId, currentQuery")
        .await;
    let victims: Vec<String> = rows
        .iter()
        .filter(|row| matches!(&row[1], Value::String(q) if q.contains("range(1, 6000)")))
        .map(|row| match &row[0] {
            Value::String(id) => id.to_string(),
            other => panic!("transaction id {other:?}"),
        })
        .collect();
    assert_eq!(victims.len(), 2, "{rows:?}");
    for id in &victims {
        let (_, rows, _) = admin.query(&format!("TERMINATE TRANSACTION '{id}'")).await;
        assert_eq!(rows.len(), 1, "{rows:?}");
    }
    for client in &mut busy {
        let (code, _) = client.expect_failure().await;
        assert_eq!(code, "Neo.ClientError.Transaction.Terminated");
    }
    assert!(eventually(|| server.db.transactions().is_empty()).await);
    assert!(eventually(|| server.metrics.transactions.active.get() == 0).await);
    server.stop().await;
}

/// HELLO as a 4.x driver sends it: credentials inside, and the patches it asks for.
fn hello_4x(patches: &[&str]) -> Request {
    Request::Hello {
        extra: quiver_bolt::message::HelloExtra {
            user_agent: "quiver-tests/4".to_owned(),
            routing: Some(quiver_value::Map::new()),
            patch_bolt: patches.iter().map(|p| (*p).to_owned()).collect(),
            auth: Some(Auth::none()),
            ..quiver_bolt::message::HelloExtra::default()
        },
    }
}

#[tokio::test]
async fn bolt_4_1_to_4_3_are_negotiated_with_what_each_changes() {
    let server = start(config(|_| {}), None).await;
    // 4.3: hints, the utc patch, and ROUTE with the database name as its third field.
    let mut client = BoltClient::connect(
        server.bolt,
        &[Version::V4_3, Version::V4_2, Version::V4_1],
        false,
    )
    .await;
    assert_eq!(client.version, Version::V4_3);
    client.send(&[hello_4x(&["utc"])]).await;
    let hello = client.expect_success().await;
    assert!(text(&hello, "server").is_some_and(|s| s.starts_with("Neo4j/")));
    assert!(
        matches!(hello.get("hints"), Some(Value::Map(_))),
        "{hello:?}"
    );
    assert_eq!(
        hello.get("patch_bolt"),
        Some(&Value::from(vec![Value::from("utc")]))
    );
    // ROUTE [{}, [], "neo4j"], framed by hand: 4.4's dictionary is not what 4.3 sends.
    let route_43 = [
        0x00, 0x0A, 0xB3, 0x66, 0xA0, 0x90, 0x85, b'n', b'e', b'o', b'4', b'j', 0x00, 0x00,
    ];
    client.send_raw(&route_43).await;
    let meta = client.expect_success().await;
    let table = routing_table(&meta);
    assert_eq!(text(table, "db").as_deref(), Some("neo4j"));
    let (_, rows, summary) = client.query("RETURN 41 + 1 AS answer").await;
    assert_eq!(rows, vec![vec![Value::Int(42)]]);
    assert_eq!(text(&summary, "type").as_deref(), Some("r"));
    // 4.x counters without 5.0's `contains-updates`, which the 4.3 Python driver cannot take.
    let (_, _, summary) = client.query("CREATE (:Four)").await;
    let Some(Value::Map(stats)) = summary.get("stats") else {
        panic!("no stats in {summary:?}");
    };
    assert_eq!(stats.get("nodes-created"), Some(&Value::Int(1)));
    assert!(!stats.contains_key("contains-updates"), "{stats:?}");

    // 4.2 and 4.1: no hints, no patch, and no ROUTE (drivers route by procedure there).
    for version in [Version::V4_2, Version::V4_1] {
        let mut client = BoltClient::connect(server.bolt, &[version], false).await;
        assert_eq!(client.version, version);
        client.send(&[hello_4x(&["utc"])]).await;
        let hello = client.expect_success().await;
        assert!(!hello.contains_key("hints"), "{hello:?}");
        assert!(!hello.contains_key("patch_bolt"), "{hello:?}");
        let (_, rows, _) = client.query("RETURN 1 AS one").await;
        assert_eq!(rows, vec![vec![Value::Int(1)]]);
        client.send(&[route("db.example:7687")]).await;
        client.expect_fatal("Neo.ClientError.Request.Invalid").await;
    }
    server.stop().await;
}

/// Bolt 4.1 and 4.2 drivers route by calling `dbms.routing.getRoutingTable` on the `system`
/// database; its answer is the table ROUTE sends, and Neo4j 5's older name answers the same.
#[tokio::test]
async fn get_routing_table_answers_what_route_does() {
    let server = start(config(|_| {}), None).await;
    let routed = route_table(&mut logged_in(server.bolt).await, "db.example:7687").await;

    let mut client = BoltClient::connect(server.bolt, &[Version::V4_1], false).await;
    client.send(&[hello_4x(&[])]).await;
    client.expect_success().await;
    // The routing context, and the database when `database` names one.
    let params = |database: Option<&str>| {
        let mut context = quiver_value::Map::new();
        context.insert("address".into(), Value::from("db.example:7687"));
        let mut params = quiver_value::Map::new();
        params.insert("context".into(), Value::map(context));
        if let Some(database) = database {
            params.insert("database".into(), Value::from(database));
        }
        params
    };
    for procedure in [
        "dbms.routing.getRoutingTable",
        "dbms.cluster.routing.getRoutingTable",
    ] {
        let query =
            format!("CALL {procedure}($context, $database) YIELD ttl, servers RETURN ttl, servers");
        run_on_system(&mut client, &query, params(Some("neo4j"))).await;
        let (rows, _) = client.records().await;
        assert_eq!(
            rows,
            vec![vec![
                routed.get("ttl").cloned().expect("ttl"),
                routed.get("servers").cloned().expect("servers"),
            ]],
            "{procedure}"
        );
    }
    // Without a database, the default one's table; an unknown one is not found, as ROUTE says.
    run_on_system(
        &mut client,
        "CALL dbms.routing.getRoutingTable($context) YIELD ttl RETURN ttl",
        params(None),
    )
    .await;
    let (rows, _) = client.records().await;
    assert_eq!(rows, vec![vec![routed.get("ttl").cloned().expect("ttl")]]);
    run_on_system(
        &mut client,
        "CALL dbms.routing.getRoutingTable($context, 'nope') YIELD ttl RETURN ttl",
        params(None),
    )
    .await;
    let (code, _) = client.expect_failure().await;
    assert_eq!(code, "Neo.ClientError.Database.DatabaseNotFound");
    server.stop().await;
}
