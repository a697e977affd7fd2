//! Every endpoint over real HTTP against a running server: shapes, status codes, transaction
//! life cycles, and the seed's ApacheBench bodies byte for byte.

mod common;
/// The commit log the engine's tests record acknowledgements with.
#[path = "../../engine/tests/common/recording_log.rs"]
mod recording_log;

use std::sync::atomic::Ordering;
use std::time::Duration;

use common::{
    Client, Running, eventually, query_body, server_config, start, start_api, start_default,
    start_logging_to, statement,
};
use quiver_http::ApiConfig;
use recording_log::Recording;

/// The seed's bodies, exactly as `bench/http` holds them.
const CREATE_1: &str = include_str!("../../../bench/http/create_1.json");
const CREATE_100: &str = include_str!("../../../bench/http/create_100.json");
const CREATE_LABEL: &str = include_str!("../../../bench/http/create_label.json");
const CREATE_PLAIN: &str = include_str!("../../../bench/http/create_plain.json");
const SIMPLE_LOOKUP: &str = include_str!("../../../bench/http/simple_lookup.json");
const SIMPLE_LOOKUP_PROPERTY: &str =
    include_str!("../../../bench/http/simple_lookup_property.json");
const MAX: &str = include_str!("../../../bench/http/max.json");
const FOF: &str = include_str!("../../../bench/http/fof.json");
const SCHEMA: &str = include_str!("../../../bench/http/schema.json");
const LOAD: &str = include_str!("../../../bench/http/load.json");

/// The API with open transactions rolled back after `millis` of idleness.
fn idle_timeout(millis: u64) -> ApiConfig {
    ApiConfig {
        transaction_idle_timeout: Duration::from_millis(millis),
        ..ApiConfig::default()
    }
}

/// The headers `ab -T application/json -H accept:application/json` sends.
async fn ab_post(client: &mut Client, body: &str) -> common::Reply {
    client
        .post_with(
            "/db/data/transaction/commit",
            &[("accept", "application/json")],
            body,
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_bodies_run_unchanged() {
    let server = start_default().await;
    let mut client = server.client();
    let schema = client.post("/db/neo4j/tx/commit", SCHEMA).await;
    assert_eq!(
        schema.error_codes(),
        Vec::<String>::new(),
        "{}",
        schema.text()
    );
    let loaded = client.post("/db/neo4j/tx/commit", LOAD).await;
    assert_eq!(loaded.status, 200, "{}", loaded.text());
    assert_eq!(
        loaded.error_codes(),
        Vec::<String>::new(),
        "{}",
        loaded.text()
    );

    let reply = ab_post(&mut client, CREATE_1).await;
    assert_eq!(reply.status, 200);
    assert!(
        !reply.chunked,
        "small replies carry a Content-Length for ab -k"
    );
    let body = reply.json();
    assert_eq!(
        body["results"],
        serde_json::json!([{"columns": [], "data": []}])
    );
    assert_eq!(body["errors"], serde_json::json!([]));
    assert!(body["lastBookmarks"][0].is_string());

    let reply = ab_post(&mut client, CREATE_100).await;
    assert_eq!(reply.json()["results"][0]["data"], serde_json::json!([]));
    assert_eq!(reply.error_codes(), Vec::<String>::new());

    for body in [CREATE_LABEL, CREATE_PLAIN] {
        let reply = ab_post(&mut client, body).await;
        let json = reply.json();
        assert_eq!(json["errors"], serde_json::json!([]), "{}", reply.text());
        assert_eq!(
            json["results"][0]["columns"],
            serde_json::json!(["_0", "_1", "_2"])
        );
        let row = &json["results"][0]["data"][0]["row"];
        assert!(
            row.as_array()
                .is_some_and(|r| r.iter().all(serde_json::Value::is_i64))
        );
        assert_eq!(
            json["results"][0]["data"][0]["meta"],
            serde_json::json!([null, null, null])
        );
    }

    let reply = ab_post(&mut client, SIMPLE_LOOKUP).await;
    assert_eq!(
        reply.json()["results"],
        serde_json::json!([{"columns": ["id(n)"], "data": [{"row": [10], "meta": [null]}]}])
    );

    let reply = ab_post(&mut client, SIMPLE_LOOKUP_PROPERTY).await;
    let json = reply.json();
    assert_eq!(json["results"][0]["columns"], serde_json::json!(["n"]));
    let data = json["results"][0]["data"].as_array().expect("data").clone();
    assert_eq!(data.len(), 1, "{}", reply.text());
    assert_eq!(data[0]["row"][0]["tagId"], "neo4j");
    assert_eq!(data[0]["meta"][0]["type"], "node");
    assert_eq!(data[0]["meta"][0]["deleted"], false);

    let reply = ab_post(&mut client, MAX).await;
    let json = reply.json();
    assert_eq!(json["errors"], serde_json::json!([]), "{}", reply.text());
    assert_eq!(
        json["results"][0]["columns"],
        serde_json::json!(["people.username"])
    );
    assert!(
        !json["results"][0]["data"]
            .as_array()
            .expect("data")
            .is_empty()
    );

    let reply = ab_post(&mut client, FOF).await;
    let json = reply.json();
    assert_eq!(json["errors"], serde_json::json!([]), "{}", reply.text());
    assert_eq!(
        json["results"][0]["columns"],
        serde_json::json!(["fof", "freq"])
    );
    let rows = json["results"][0]["data"].as_array().expect("data");
    assert_eq!(rows.len(), 10);
    let freqs: Vec<i64> = rows.iter().filter_map(|r| r["row"][1].as_i64()).collect();
    assert!(freqs.windows(2).all(|w| w[0] >= w[1]), "{freqs:?}");
    assert!(rows.iter().all(|r| r["row"][0]["username"].is_string()));
    assert_eq!(server.stop().await.tasks_left, 0);
}

/// Asserts the endpoints the discovery document `json` names: both HTTP APIs under the scheme
/// `http`, and Bolt under the schemes `direct` and `routing`.
#[track_caller]
fn assert_endpoints(json: &serde_json::Value, http: &str, direct: &str, routing: &str) {
    let base = format!("{http}://quiver.test:7474/db/{{databaseName}}");
    assert_eq!(json["transaction"], format!("{base}/tx"));
    assert_eq!(json["query"], format!("{base}/query/v2"));
    assert_eq!(json["bolt_direct"], format!("{direct}://quiver.test:7687"));
    assert_eq!(
        json["bolt_routing"],
        format!("{routing}://quiver.test:7687")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_names_the_endpoints() {
    let server = start_default().await;
    let reply = server.client().get("/").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let json = reply.json();
    assert_endpoints(&json, "http", "bolt", "neo4j");
    assert!(
        json["neo4j_version"]
            .as_str()
            .is_some_and(|v| v.starts_with("2026."))
    );
    assert_eq!(json["neo4j_edition"], "community");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_names_the_tls_schemes_when_tls_is_required() {
    let server = start(
        server_config(|_| {}),
        ApiConfig {
            bolt_tls_required: true,
            http_tls_required: true,
            ..ApiConfig::default()
        },
    )
    .await;
    let json = server.client().get("/").await.json();
    assert_endpoints(&json, "https", "bolt+s", "neo4j+s");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explicit_transaction_life_cycle() {
    let server = start_default().await;
    let mut client = server.client();
    let mut other = server.client();

    let begun = client
        .run_at("/db/neo4j/tx", "CREATE (n:Item {k: 1}) RETURN n")
        .await;
    assert_eq!(begun.status, 201, "{}", begun.text());
    let location = begun.header("location").expect("Location").to_owned();
    assert!(
        location.starts_with("http://quiver.test:7474/db/neo4j/tx/"),
        "{location}"
    );
    let json = begun.json();
    assert_eq!(json["commit"], format!("{location}/commit"));
    assert!(
        json["transaction"]["expires"]
            .as_str()
            .is_some_and(|e| e.ends_with(" GMT"))
    );
    assert_eq!(
        json["results"][0]["data"][0]["row"],
        serde_json::json!([{"k": 1}])
    );
    let path = location.trim_start_matches("http://quiver.test:7474");

    // Not visible outside the transaction before it commits.
    let count = statement("MATCH (n:Item) RETURN count(n) AS c");
    let outside = other.post("/db/neo4j/tx/commit", &count).await;
    assert_eq!(outside.first_row(), serde_json::json!([0]));

    let more = client.run_at(path, "CREATE (:Item {k: 2})").await;
    assert_eq!(more.status, 200);
    assert!(more.json()["transaction"]["expires"].is_string());
    assert_eq!(server.api.open_transactions(), 1);

    let committed = client.post(&format!("{path}/commit"), &count).await;
    assert_eq!(committed.status, 200, "{}", committed.text());
    let json = committed.json();
    assert_eq!(json["results"][0]["data"][0]["row"], serde_json::json!([2]));
    assert!(json["lastBookmarks"][0].is_string());
    assert!(json.get("transaction").is_none());
    assert_eq!(server.api.open_transactions(), 0);

    let gone = client.post(path, "").await;
    gone.assert_error(404, "Neo.ClientError.Transaction.TransactionNotFound");

    let outside = other.post("/db/neo4j/tx/commit", &count).await;
    assert_eq!(outside.first_row(), serde_json::json!([2]));

    let snapshot = server.metrics.snapshot().transactions;
    assert_eq!(snapshot.committed_total, 3);
    assert_eq!(snapshot.active, 0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollback_and_legacy_paths() {
    let server = start_default().await;
    let mut client = server.client();
    let begun = client
        .run_at("/db/data/transaction", "CREATE (:Gone)")
        .await;
    assert_eq!(begun.status, 201);
    let location = begun.header("location").expect("Location").to_owned();
    assert!(location.contains("/db/data/transaction/"), "{location}");
    let path = location
        .trim_start_matches("http://quiver.test:7474")
        .to_owned();

    let rolled_back = client.delete(&path).await;
    assert_eq!(rolled_back.status, 200);
    assert_eq!(
        rolled_back.json(),
        serde_json::json!({"results": [], "errors": []})
    );
    let again = client.delete(&path).await;
    again.assert_error(404, "Neo.ClientError.Transaction.TransactionNotFound");

    let count = client
        .run_at(
            "/db/data/transaction/commit",
            "MATCH (n:Gone) RETURN count(n)",
        )
        .await;
    assert_eq!(count.first_row(), serde_json::json!([0]));

    // Begin and commit over the 3.x paths too.
    let begun = client.post("/db/data/transaction", "").await;
    let path = begun.tx_path();
    let committed = client
        .run_at(&format!("{path}/commit"), "CREATE (:Kept)")
        .await;
    assert_eq!(committed.status, 200);
    assert_eq!(committed.error_codes(), Vec::<String>::new());
    assert_eq!(server.metrics.snapshot().transactions.rolled_back_total, 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_statement_error_rolls_the_transaction_back() {
    let server = start_default().await;
    let mut client = server.client();
    let begun = client.run_at("/db/neo4j/tx", "CREATE (:Doomed)").await;
    let path = begun.tx_path();
    let body = serde_json::json!({"statements": [
        {"statement": "CREATE (:Doomed) RETURN 1 AS one"},
        {"statement": "This is not a valid Cypher Statement."},
        {"statement": "CREATE (:Never)"},
    ]})
    .to_string();
    let failed = client.post(&path, &body).await;
    assert_eq!(failed.status, 200);
    let json = failed.json();
    assert_eq!(json["results"].as_array().map(Vec::len), Some(1), "{json}");
    assert_eq!(
        json["errors"][0]["code"],
        "Neo.ClientError.Statement.SyntaxError"
    );
    assert!(
        json["errors"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("line 1"))
    );
    assert!(json.get("transaction").is_none(), "rolled back: no expiry");

    let gone = client.post(&path, "").await;
    assert_eq!(gone.status, 404);
    let count = client
        .commit("MATCH (n) WHERE n:Doomed OR n:Never RETURN count(n)")
        .await;
    assert_eq!(count.first_row(), serde_json::json!([0]));

    // A runtime error mid-stream keeps the rows written so far and closes the result.
    let runtime = client
        .commit("UNWIND [1, 2, 0] AS x RETURN 6 / x AS y")
        .await;
    let json = runtime.json();
    assert_eq!(
        json["errors"][0]["code"],
        "Neo.ClientError.Statement.ArithmeticError"
    );
    assert_eq!(json["results"][0]["columns"], serde_json::json!(["y"]));
    assert!(json["results"][0].get("stats").is_none());
    assert_eq!(server.api.open_transactions(), 0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_transactions_expire_and_are_counted() {
    let server = start_api(idle_timeout(200)).await;
    let mut client = server.client();
    let begun = client.run_at("/db/neo4j/tx", "CREATE (:Idle)").await;
    let path = begun.tx_path();
    // A request resets the deadline.
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_eq!(client.post(&path, "").await.status, 200);
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_eq!(client.post(&path, "").await.status, 200);

    assert!(eventually(|| server.api.expired_transactions() == 1).await);
    // The expired transaction is rolled back on the query pool just after it is counted as
    // expired: wait for the rollback's counters too.
    assert!(
        eventually(|| {
            let transactions = server.metrics.snapshot().transactions;
            transactions.abandoned_total == 1 && transactions.active == 0
        })
        .await
    );
    let gone = client.post(&path, "").await;
    assert_eq!(gone.status, 404);
    assert_eq!(server.api.open_transactions(), 0);
    let snapshot = server.metrics.snapshot().transactions;
    assert_eq!(snapshot.abandoned_total, 1);
    assert_eq!(server.metrics.transactions.idle_timed_out.get(), 1);
    assert_eq!(snapshot.rolled_back_total, 1);
    assert_eq!(snapshot.active, 0);
    let count = client.commit("MATCH (n:Idle) RETURN count(n)").await;
    assert_eq!(count.first_row(), serde_json::json!([0]));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_transactions_are_capped() {
    let api = ApiConfig {
        open_transactions_max: 2,
        ..ApiConfig::default()
    };
    let server = start_api(api).await;
    let mut client = server.client();
    let first = client.post("/db/neo4j/tx", "").await;
    assert_eq!(client.post("/db/neo4j/tx", "").await.status, 201);
    let refused = client.post("/db/neo4j/tx", "").await;
    refused.assert_error(
        503,
        "Neo.TransientError.Transaction.MaximumTransactionLimitReached",
    );
    // One-shot requests do not count against the cap.
    let one_shot = client.commit("RETURN 1").await;
    assert_eq!(one_shot.status, 200);
    let path = first.tx_path();
    assert_eq!(client.delete(&path).await.status, 200);
    assert_eq!(client.post("/db/neo4j/tx", "").await.status, 201);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_formats_stats_and_values() {
    let server = start_default().await;
    let mut client = server.client();
    let body = serde_json::json!({"statements": [{
        "statement": "CREATE p = (b:Bike {weight: 10})-[:HAS {position: 1}]->(w:Wheel {spokes: 3}) RETURN b, p",
        "resultDataContents": ["row", "graph"],
        "includeStats": true,
    }]})
    .to_string();
    let reply = client.post("/db/neo4j/tx/commit", &body).await;
    let json = reply.json();
    let result = &json["results"][0];
    assert_eq!(result["columns"], serde_json::json!(["b", "p"]));
    let record = &result["data"][0];
    assert_eq!(record["row"][0], serde_json::json!({"weight": 10}));
    assert_eq!(
        record["row"][1],
        serde_json::json!([{"weight": 10}, {"position": 1}, {"spokes": 3}])
    );
    assert_eq!(record["meta"][0]["type"], "node");
    assert_eq!(record["meta"][1][1]["type"], "relationship");
    let graph = &record["graph"];
    assert_eq!(graph["nodes"].as_array().map(Vec::len), Some(2), "{graph}");
    assert_eq!(graph["relationships"][0]["type"], "HAS");
    assert!(graph["relationships"][0]["startNode"].is_string());
    assert_eq!(
        graph["relationships"][0]["properties"],
        serde_json::json!({"position": 1})
    );
    let stats = &result["stats"];
    assert_eq!(stats["contains_updates"], true);
    assert_eq!(stats["nodes_created"], 2);
    assert_eq!(stats["relationships_created"], 1);
    assert_eq!(stats["labels_added"], 2);
    assert_eq!(stats["properties_set"], 3);
    assert_eq!(stats["relationship_deleted"], 0);

    // A relationship alone: its endpoints are looked up for the graph.
    let body = serde_json::json!({"statements": [{
        "statement": "MATCH ()-[r:HAS]->() RETURN r",
        "resultDataContents": ["graph"],
    }]})
    .to_string();
    let json = client.post("/db/neo4j/tx/commit", &body).await.json();
    let record = &json["results"][0]["data"][0];
    assert!(record.get("row").is_none());
    let mut labels: Vec<String> = record["graph"]["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| n["labels"][0].as_str().unwrap_or_default().to_owned())
        .collect();
    labels.sort();
    assert_eq!(labels, ["Bike", "Wheel"]);

    // A relationship deleted by the statement is reported as deleted, without data.
    let body = serde_json::json!({"statements": [{
        "statement": "MATCH ()-[r:HAS]->() DELETE r RETURN r",
        "resultDataContents": ["row", "graph"],
        "includeStats": true,
    }]})
    .to_string();
    let json = client.post("/db/neo4j/tx/commit", &body).await.json();
    let record = &json["results"][0]["data"][0];
    assert_eq!(record["row"], serde_json::json!([{}]));
    assert_eq!(record["meta"][0]["type"], "relationship");
    assert_eq!(record["meta"][0]["deleted"], true);
    assert_eq!(record["graph"]["relationships"][0]["deleted"], true);
    assert_eq!(json["results"][0]["stats"]["relationship_deleted"], 1);

    let values = statement(
        "RETURN date('2015-03-26') AS d, datetime('2015-07-04T19:32:24+02:00') AS dt, \
         duration('P14DT16H12M') AS du, point({longitude: 12.5, latitude: 56.25}) AS p, \
         0.0 / 0.0 AS nan, 1.0 / 0.0 AS inf, 1.5 AS f, [1, 'a', null] AS l, {k: true} AS m",
    );
    let json = client.post("/db/neo4j/tx/commit", &values).await.json();
    let row = &json["results"][0]["data"][0]["row"];
    assert_eq!(row[0], "2015-03-26");
    assert_eq!(row[1], "2015-07-04T19:32:24+02:00");
    assert_eq!(row[2], "P14DT16H12M");
    assert_eq!(row[3]["type"], "Point");
    assert_eq!(row[3]["coordinates"], serde_json::json!([12.5, 56.25]));
    assert_eq!(row[3]["crs"]["srid"], 4326);
    assert_eq!(row[4], "NaN");
    assert_eq!(row[5], "Infinity");
    assert_eq!(row[6], 1.5);
    assert_eq!(row[7], serde_json::json!([1, "a", null]));
    assert_eq!(row[8], serde_json::json!({"k": true}));
    let meta = &json["results"][0]["data"][0]["meta"];
    assert_eq!(meta[0], serde_json::json!({"type": "date"}));
    assert_eq!(meta[1], serde_json::json!({"type": "datetime"}));
    assert_eq!(meta[2], serde_json::json!({"type": "duration"}));
    assert_eq!(meta[3], serde_json::json!({"type": "point"}));

    let params = serde_json::json!({"statements": [{
        "statement": "RETURN $i + 1 AS i, $f * 2 AS f, $s AS s, $l AS l, $m.k AS k",
        "parameters": {"i": 41, "f": 1.25, "s": "x", "l": [1, [2]], "m": {"k": null}},
    }]})
    .to_string();
    let json = client.post("/db/neo4j/tx/commit", &params).await.json();
    assert_eq!(
        json["results"][0]["data"][0]["row"],
        serde_json::json!([42, 2.5, "x", [1, [2]], null])
    );
    server.stop().await;
}

/// Request bodies that are not statements fail with the codes Neo4j sends.
async fn bodies_that_do_not_parse_fail_as_neo4j_does(client: &mut Client) {
    let malformed = client
        .post("/db/neo4j/tx/commit", "{\"statements\": [")
        .await;
    malformed.assert_error(200, "Neo.ClientError.Request.InvalidFormat");
    assert_eq!(malformed.json()["results"], serde_json::json!([]));

    let wrong_type = client
        .post(
            "/db/neo4j/tx/commit",
            r#"{"statements":[{"statement":42}]}"#,
        )
        .await;
    wrong_type.assert_error_code("Neo.ClientError.Request.InvalidFormat");

    let missing = client
        .post(
            "/db/neo4j/tx/commit",
            r#"{"statements":[{"parameters":{}}]}"#,
        )
        .await;
    assert!(
        missing.json()["errors"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("No statement provided"))
    );

    let missing_parameter = client.commit("RETURN $nope").await;
    missing_parameter.assert_error_code("Neo.ClientError.Statement.ParameterMissing");
}

/// Databases, endpoints, transactions and methods that do not exist fail with Neo4j's statuses.
async fn unknown_paths_and_methods_fail_as_neo4j_does(client: &mut Client) {
    let unknown_db = client.run_at("/db/other/tx/commit", "RETURN 1").await;
    unknown_db.assert_error(404, "Neo.ClientError.Database.DatabaseNotFound");

    let no_endpoint = client.post("/db/neo4j/nothing", "").await;
    assert_eq!(no_endpoint.status, 404);

    let bad_id = client.post("/db/neo4j/tx/abc", "").await;
    bad_id.assert_error(404, "Neo.ClientError.Transaction.TransactionNotFound");

    let wrong_method = client.get("/db/neo4j/tx/commit").await;
    assert_eq!(wrong_method.status, 405);
    assert_eq!(wrong_method.header("allow"), Some("POST"));
}

/// Media types and access modes the API does not serve fail with Neo4j's statuses.
async fn unsupported_headers_fail_as_neo4j_does(client: &mut Client) {
    let jolt = client
        .commit_with(&[("Accept", "application/vnd.neo4j.jolt")], "RETURN 1")
        .await;
    jolt.assert_error(406, "Neo.ClientError.Request.Invalid");

    let form = client
        .send(
            "POST",
            "/db/neo4j/tx/commit",
            &[("Content-Type", "application/x-www-form-urlencoded")],
            &statement("RETURN 1"),
        )
        .await;
    assert_eq!(form.status, 415);

    for (mode, query, code) in [
        (
            "sideways",
            "RETURN 1",
            "Neo.ClientError.Request.InvalidFormat",
        ),
        ("READ", "CREATE ()", "Neo.ClientError.Statement.AccessMode"),
    ] {
        let reply = client.commit_with(&[("access-mode", mode)], query).await;
        assert_eq!(reply.error_codes(), [code], "access mode {mode}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_errors_have_neo4j_shapes() {
    let server = start_default().await;
    let mut client = server.client();

    bodies_that_do_not_parse_fail_as_neo4j_does(&mut client).await;
    unknown_paths_and_methods_fail_as_neo4j_does(&mut client).await;
    unsupported_headers_fail_as_neo4j_does(&mut client).await;

    // The server is unharmed and keeps serving on the same connection.
    let fine = client.commit("RETURN 1 AS one").await;
    assert_eq!(fine.first_row(), serde_json::json!([1]));
    assert_eq!(server.api.open_transactions(), 0);
    assert_eq!(server.metrics.snapshot().transactions.active, 0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bookmarks_are_issued_and_honoured() {
    let server = start_default().await;
    let mut client = server.client();
    let written = client.commit("CREATE (:Marked)").await;
    let bookmark = written.bookmark();
    let header = serde_json::json!([bookmark]).to_string();
    let read = client
        .commit_with(
            &[("bookmarks", &header)],
            "MATCH (n:Marked) RETURN count(n)",
        )
        .await;
    assert_eq!(read.first_row(), serde_json::json!([1]));

    for (bookmarks, code) in [
        (
            r#"["FB:nope"]"#,
            "Neo.ClientError.Transaction.InvalidBookmark",
        ),
        ("not json", "Neo.ClientError.Request.InvalidFormat"),
    ] {
        let reply = client
            .commit_with(&[("bookmarks", bookmarks)], "RETURN 1")
            .await;
        assert_eq!(reply.error_codes(), [code], "bookmarks {bookmarks}");
    }

    let v2 = client
        .post(
            "/db/neo4j/query/v2",
            &serde_json::json!({"statement": "MATCH (n:Marked) RETURN count(n) AS c", "bookmarks": [bookmark]})
                .to_string(),
        )
        .await;
    assert_eq!(v2.status, 202, "{}", v2.text());
    assert_eq!(v2.values(), serde_json::json!([[1]]));
    server.stop().await;
}

/// A write through Query API v2 answers in plain JSON, with counters and a bookmark.
async fn query_api_v2_answers_in_plain_json(client: &mut Client) {
    let body = serde_json::json!({
        "statement": "CREATE (p:Person {name: $name}) RETURN p AS person, p.name AS name",
        "parameters": {"name": "Phil"},
        "includeCounters": true,
    })
    .to_string();
    let reply = client.post("/db/neo4j/query/v2", &body).await;
    assert_eq!(reply.status, 202, "{}", reply.text());
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let json = reply.json();
    assert_eq!(
        json["data"]["fields"],
        serde_json::json!(["person", "name"])
    );
    let person = &json["data"]["values"][0][0];
    assert!(
        person["elementId"]
            .as_str()
            .is_some_and(|e| e.starts_with("4:"))
    );
    assert_eq!(person["labels"], serde_json::json!(["Person"]));
    assert_eq!(person["properties"], serde_json::json!({"name": "Phil"}));
    assert_eq!(json["data"]["values"][0][1], "Phil");
    assert_eq!(json["counters"]["nodesCreated"], 1);
    assert_eq!(json["counters"]["containsUpdates"], true);
    assert!(json["bookmarks"][0].is_string());
}

/// The typed JSON media type carries typed parameters in and typed values out.
async fn query_api_v2_answers_in_typed_json(client: &mut Client) {
    let typed = client
        .send(
            "POST",
            "/db/neo4j/query/v2",
            &[
                ("Accept", "application/vnd.neo4j.query"),
                ("Content-Type", "application/vnd.neo4j.query"),
            ],
            &serde_json::json!({
                "statement": "MATCH (p:Person) RETURN p, $n + 1 AS n, date($d) AS d",
                "parameters": {
                    "n": {"$type": "Integer", "_value": "41"},
                    "d": {"$type": "String", "_value": "2024-01-01"},
                },
            })
            .to_string(),
        )
        .await;
    assert_eq!(typed.status, 202, "{}", typed.text());
    assert_eq!(
        typed.header("content-type"),
        Some("application/vnd.neo4j.query")
    );
    let json = typed.json();
    let row = &json["data"]["values"][0];
    assert_eq!(row[0]["$type"], "Node");
    assert_eq!(row[0]["_value"]["_labels"], serde_json::json!(["Person"]));
    assert_eq!(
        row[0]["_value"]["_properties"]["name"],
        serde_json::json!({"$type": "String", "_value": "Phil"})
    );
    assert_eq!(
        row[1],
        serde_json::json!({"$type": "Integer", "_value": "42"})
    );
    assert_eq!(
        row[2],
        serde_json::json!({"$type": "Date", "_value": "2024-01-01"})
    );
}

/// Query API v2 errors carry Neo4j's codes and HTTP statuses.
async fn query_api_v2_errors_have_neo4j_shapes(client: &mut Client) {
    let syntax = client.query_v2("RETURN 1 +").await;
    syntax.assert_error(400, "Neo.ClientError.Statement.SyntaxError");
    let malformed = client.post("/db/neo4j/query/v2", "{").await;
    malformed.assert_error(400, "Neo.ClientError.Request.InvalidFormat");
    let unknown = client
        .post("/db/other/query/v2", r#"{"statement":"RETURN 1"}"#)
        .await;
    unknown.assert_error(404, "Neo.ClientError.Database.DatabaseNotFound");
    let not_acceptable = client
        .post_with(
            "/db/neo4j/query/v2",
            &[("Accept", "text/plain")],
            &query_body("RETURN 1"),
        )
        .await;
    assert_eq!(not_acceptable.status, 406);
    let read_only = client
        .post(
            "/db/neo4j/query/v2",
            r#"{"statement":"CREATE ()","accessMode":"READ"}"#,
        )
        .await;
    read_only.assert_error(400, "Neo.ClientError.Statement.AccessMode");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_api_v2() {
    let server = start_default().await;
    let mut client = server.client();
    query_api_v2_answers_in_plain_json(&mut client).await;
    query_api_v2_answers_in_typed_json(&mut client).await;
    query_api_v2_errors_have_neo4j_shapes(&mut client).await;

    assert_eq!(server.metrics.snapshot().transactions.active, 0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basic_auth_guards_the_api() {
    let config = server_config(|layer| {
        layer.auth = Some("neo4j/secret-password".parse().expect("auth spec"));
        layer.users = Some(vec![quiver_server::config::UserEntry {
            name: "other".to_owned(),
            password_hash: None,
            password: Some("other-password".to_owned()),
            admin: false,
        }]);
    });
    let server = start(config, ApiConfig::default()).await;

    let mut anonymous = server.client();
    assert_eq!(
        anonymous.get("/").await.status,
        200,
        "discovery needs no credentials"
    );
    let refused = anonymous.commit("RETURN 1").await;
    assert_eq!(refused.status, 401);
    assert!(
        refused
            .header("www-authenticate")
            .is_some_and(|v| v.starts_with("Basic"))
    );
    refused.assert_error_code("Neo.ClientError.Security.Unauthorized");

    // "neo4j:wrong"
    let mut wrong = server
        .client()
        .with_header("Authorization", "Basic bmVvNGo6d3Jvbmc=");
    assert_eq!(wrong.commit("RETURN 1").await.status, 401);

    let mut owner = neo4j_client(&server);
    let ok = owner.commit("RETURN 1").await;
    assert_eq!(ok.status, 200);
    let begun = owner.post("/db/neo4j/tx", "").await;
    let path = begun.tx_path();

    // "other:other-password" may not use neo4j's transaction.
    let mut intruder = server
        .client()
        .with_header("Authorization", "Basic b3RoZXI6b3RoZXItcGFzc3dvcmQ=");
    let denied = intruder.post(&path, "").await;
    assert_eq!(denied.status, 404);
    assert_eq!(owner.post(&format!("{path}/commit"), "").await.status, 200);
    server.stop().await;
}

/// A client that sends `neo4j`'s credentials (`neo4j:secret-password`) with every request.
fn neo4j_client(server: &Running) -> Client {
    server
        .client()
        .with_header("Authorization", "Basic bmVvNGo6c2VjcmV0LXBhc3N3b3Jk")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commits_are_acknowledged_only_once_durable() {
    let (server, wait) = start_logging_to(Recording::default()).await;
    let mut client = server.client();
    let reply = client.commit("CREATE ()").await;
    let bookmark = reply.bookmark();
    let waited = wait.last.load(Ordering::SeqCst);
    assert!(waited > 0);
    assert!(bookmark.ends_with(&format!("{waited:020}")), "{bookmark}");

    wait.failing.store(true, Ordering::SeqCst);
    let reply = client.commit("CREATE ()").await;
    let json = reply.json();
    assert_eq!(
        json["errors"][0]["code"],
        "Neo.DatabaseError.Transaction.TransactionCommitFailed"
    );
    assert!(json.get("lastBookmarks").is_none());
    let v2 = client.query_v2("CREATE ()").await;
    v2.assert_error(500, "Neo.DatabaseError.Transaction.TransactionCommitFailed");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_disk_fault_reads_are_served_and_writes_refused_by_name() {
    let (server, disk) = start_logging_to(Recording::default()).await;
    let mut client = server.client();
    let created = client.commit("CREATE (:Kept)").await;
    assert_eq!(created.json()["errors"], serde_json::json!([]));

    disk.refusing.store(true, Ordering::SeqCst);
    let read = client.commit("MATCH (n:Kept) RETURN count(n) AS c").await;
    let json = read.json();
    assert_eq!(json["errors"], serde_json::json!([]), "{json}");
    assert_eq!(json["results"][0]["data"][0]["row"][0], 1);

    let write = client.commit("CREATE (:Lost)").await;
    let json = write.json();
    assert_eq!(
        json["errors"][0]["code"],
        "Neo.DatabaseError.Transaction.TransactionCommitFailed"
    );
    let message = json["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("disk fault") && message.contains("File too large"),
        "{message}"
    );

    let v2_read = client.query_v2("MATCH (n:Kept) RETURN count(n) AS c").await;
    assert_eq!(v2_read.values()[0][0], 1, "{}", v2_read.text());
    let v2_write = client.query_v2("CREATE (:Lost)").await;
    v2_write.assert_error_code("Neo.DatabaseError.Transaction.TransactionCommitFailed");

    disk.refusing.store(false, Ordering::SeqCst);
    let count = client.commit("MATCH (n:Lost) RETURN count(n) AS c").await;
    assert_eq!(count.first_row()[0], 0);
    server.stop().await;
}

/// Follows the first child down to the operator named `name`.
fn operator<'a>(mut plan: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    while plan["operatorType"] != name {
        plan = &plan["children"][0];
        assert!(!plan.is_null(), "no {name} in the plan");
    }
    plan
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_and_profile_plans_in_both_apis() {
    let server = start_default().await;
    let mut client = server.client();
    let setup = client
        .commit("UNWIND range(1, 6) AS i CREATE (:Planned {i: i})")
        .await;
    assert_eq!(setup.error_codes(), Vec::<String>::new());
    let query = "MATCH (p:Planned) WHERE p.i > 3 RETURN p.i AS i";

    // The transactional API: the plan under `plan.root`, arguments as members.
    let explained = client.commit(&format!("EXPLAIN {query}")).await;
    let root = &explained.json()["results"][0]["plan"]["root"];
    assert_eq!(root["operatorType"], "ProduceResults", "{root}");
    assert_eq!(root["planner"], "COST");
    assert!(root["EstimatedRows"].is_number());
    assert!(root["string-representation"].is_string());
    assert!(root.get("Rows").is_none(), "EXPLAIN measures nothing");
    let profiled = client.commit(&format!("PROFILE {query}")).await;
    let json = profiled.json();
    assert_eq!(json["results"][0]["data"].as_array().map(Vec::len), Some(3));
    let root = &json["results"][0]["plan"]["root"];
    assert_eq!(root["Rows"], 3, "{root}");
    let scan = operator(root, "NodeByLabelScan");
    assert_eq!(scan["Rows"], 6);
    assert_eq!(scan["DbHits"], 6);
    assert_eq!(scan["Details"], ":Planned");
    assert!(scan["identifiers"].is_array());

    // The Query API: `queryPlan` and `profiledQueryPlan`, arguments in their own object.
    let explained = client.query_v2(&format!("EXPLAIN {query}")).await;
    assert_eq!(explained.status, 202, "{}", explained.text());
    let json = explained.json();
    assert!(json.get("profiledQueryPlan").is_none());
    let plan = &json["queryPlan"];
    assert_eq!(plan["operatorType"], "ProduceResults", "{plan}");
    assert_eq!(plan["arguments"]["planner"], "COST");
    assert!(plan.get("dbHits").is_none());
    let profiled = client.query_v2(&format!("PROFILE {query}")).await;
    let json = profiled.json();
    assert!(json.get("queryPlan").is_none());
    let plan = &json["profiledQueryPlan"];
    assert_eq!(plan["records"], 3, "{plan}");
    assert_eq!(plan["hasPageCacheStats"], false);
    let scan = operator(plan, "NodeByLabelScan");
    assert_eq!(scan["records"], 6);
    assert_eq!(scan["dbHits"], 6);
    assert_eq!(scan["arguments"]["DbHits"], 6);
    assert!(scan["time"].is_u64());
    server.stop().await;
}

/// What the Query API transaction tests count.
const COUNT_QTX: &str = "MATCH (n:QTx) RETURN count(n) AS c";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_api_explicit_transactions() {
    let server = start_api(idle_timeout(300)).await;
    let mut client = server.client();
    let mut other = server.client();
    let count = query_body(COUNT_QTX);

    // Begin with a first statement: its result, the transaction and the affinity header.
    let begun = client
        .post(
            "/db/neo4j/query/v2/tx",
            &query_body("CREATE (n:QTx {k: 1}) RETURN n.k AS k"),
        )
        .await;
    assert_eq!(begun.status, 202, "{}", begun.text());
    let affinity = begun
        .header("neo4j-cluster-affinity")
        .expect("affinity")
        .to_owned();
    assert!(!affinity.is_empty());
    let json = begun.json();
    assert_eq!(json["data"]["fields"], serde_json::json!(["k"]));
    assert_eq!(json["data"]["values"], serde_json::json!([[1]]));
    let id = json["transaction"]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let expires = json["transaction"]["expires"].as_str().expect("expires");
    assert!(expires.ends_with('Z') && expires.contains('T'), "{expires}");
    assert!(json.get("bookmarks").is_none(), "nothing committed yet");
    assert_eq!(server.api.open_transactions(), 1);
    let path = format!("/db/neo4j/query/v2/tx/{id}");

    // Not visible outside before the commit.
    let outside = other.query_v2(COUNT_QTX).await;
    assert_eq!(outside.values(), serde_json::json!([[0]]));

    // Run another statement, then keep it alive with an empty body.
    let more = client
        .post(&path, &query_body("CREATE (:QTx {k: 2})"))
        .await;
    assert_eq!(more.status, 202, "{}", more.text());
    assert_eq!(more.json()["transaction"]["id"], id.as_str());
    let alive = client.post(&path, "").await;
    assert_eq!(alive.status, 202, "{}", alive.text());
    assert_eq!(alive.json()["data"]["fields"], serde_json::json!([]));

    // Commit with a last statement: its rows and the bookmark, no transaction any more.
    let committed = client.post(&format!("{path}/commit"), &count).await;
    assert_eq!(committed.status, 202, "{}", committed.text());
    let json = committed.json();
    assert_eq!(json["data"]["values"], serde_json::json!([[2]]));
    assert!(json["bookmarks"][0].is_string());
    assert!(json.get("transaction").is_none());
    assert_eq!(server.api.open_transactions(), 0);
    let outside = other.query_v2(COUNT_QTX).await;
    assert_eq!(outside.values(), serde_json::json!([[2]]));

    // A closed id answers Neo4j's error naming it.
    let gone = client.post(&path, "").await;
    gone.assert_error(404, "Neo.ClientError.Request.Invalid");
    assert!(
        gone.text()
            .contains(&format!("Transaction with Id: \\\"{id}\\\" was not found"))
    );
    let unknown = client.post("/db/neo4j/query/v2/tx/lyU", "").await;
    unknown.assert_error(404, "Neo.ClientError.Request.Invalid");

    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_api_transactions_end_by_delete_failure_or_expiry() {
    let server = start_api(idle_timeout(300)).await;
    let mut client = server.client();
    let mut other = server.client();

    // Rollback by DELETE discards the work.
    let begun = client.post("/db/neo4j/query/v2/tx", "").await;
    assert_eq!(begun.status, 202, "{}", begun.text());
    let id = begun.query_tx_id();
    let path = format!("/db/neo4j/query/v2/tx/{id}");
    client
        .post(&path, &query_body("CREATE (:QTx {k: 3})"))
        .await;
    let rolled_back = client.delete(&path).await;
    assert_eq!(rolled_back.status, 202, "{}", rolled_back.text());
    assert_eq!(client.delete(&path).await.status, 404);
    let outside = other.query_v2(COUNT_QTX).await;
    assert_eq!(outside.values(), serde_json::json!([[0]]));

    // A failing statement rolls the transaction back and closes it.
    let begun = client
        .post("/db/neo4j/query/v2/tx", &query_body("CREATE (:QTx {k: 4})"))
        .await;
    let id = begun.query_tx_id();
    let path = format!("/db/neo4j/query/v2/tx/{id}");
    let failed = client.post(&path, &query_body("RETURN 1 +")).await;
    failed.assert_error(400, "Neo.ClientError.Statement.SyntaxError");
    assert!(failed.json().get("transaction").is_none());
    assert_eq!(client.post(&path, "").await.status, 404);

    // An idle transaction expires and is rolled back.
    let begun = client
        .post("/db/neo4j/query/v2/tx", &query_body("CREATE (:QTx {k: 5})"))
        .await;
    let id = begun.query_tx_id();
    assert!(eventually(|| server.api.expired_transactions() == 1).await);
    let expired = client
        .post(&format!("/db/neo4j/query/v2/tx/{id}"), "")
        .await;
    expired.assert_error(404, "Neo.ClientError.Request.Invalid");
    assert!(eventually(|| server.api.open_transactions() == 0).await);
    let outside = other.query_v2(COUNT_QTX).await;
    assert_eq!(outside.values(), serde_json::json!([[0]]));
    server.stop().await;
}

/// Transactions run as the user the server authenticated, so `SHOW CURRENT USER` names them
/// over both APIs, as over Bolt; with authentication off, no one is named (the header is not
/// checked then).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_current_user_names_the_authenticated_user() {
    let config = server_config(|layer| {
        layer.auth = Some("neo4j/secret-password".parse().expect("auth spec"));
    });
    let server = start(config, ApiConfig::default()).await;
    let mut client = neo4j_client(&server);
    let reply = client.commit("SHOW CURRENT USER YIELD user").await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(
        reply.first_row(),
        serde_json::json!(["neo4j"]),
        "{}",
        reply.text()
    );
    let body = serde_json::json!({"statement": "SHOW CURRENT USER YIELD user"}).to_string();
    let reply = client.post("/db/neo4j/query/v2", &body).await;
    assert_eq!(reply.status, 202, "{}", reply.text());
    assert_eq!(
        reply.values(),
        serde_json::json!([["neo4j"]]),
        "{}",
        reply.text()
    );
    server.stop().await;

    let server = start_default().await;
    let mut client = neo4j_client(&server);
    let reply = client.commit("SHOW CURRENT USER YIELD user").await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(
        reply.json()["results"][0]["data"],
        serde_json::json!([]),
        "{}",
        reply.text()
    );
    server.stop().await;
}
