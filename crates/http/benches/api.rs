//! Per-request costs of the HTTP API without sockets: decoding the seed's bodies, encoding
//! result rows, and whole requests through `HttpApi::handle` (routing, the query-pool
//! hand-off, the engine and the document), so a regression shows here before `ab` sees it.
//!
//! ```sh
//! cargo bench -p quiver-http --bench api
//! ```

use std::hint::black_box;
use std::sync::Arc;

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use http_body_util::BodyExt;
use quiver_engine::{Database, EngineConfig};
use quiver_http::{ApiConfig, HttpApi, decode, encode};
use quiver_value::graph::NodeData;
use quiver_value::{Map, Node, Value};

const CREATE_PLAIN: &str = include_str!("../../../bench/http/create_plain.json");
const SIMPLE_LOOKUP: &str = include_str!("../../../bench/http/simple_lookup.json");
const SIMPLE_LOOKUP_PROPERTY: &str =
    include_str!("../../../bench/http/simple_lookup_property.json");
const CREATE_1: &str = include_str!("../../../bench/http/create_1.json");

fn codec(c: &mut Criterion) {
    let mut group = c.benchmark_group("codec");
    group.throughput(Throughput::Elements(1));
    group.bench_function("decode create_plain", |b| {
        b.iter(|| decode::tx_request(black_box(CREATE_PLAIN.as_bytes()), 1000));
    });
    let mut properties = Map::new();
    properties.insert(Arc::from("username"), Value::from("Kaylee83639"));
    properties.insert(Arc::from("score"), Value::Float(0.75));
    properties.insert(Arc::from("uid"), Value::Int(12345));
    let node = Value::Node(Node {
        id: 42,
        data: Some(Arc::new(NodeData {
            labels: vec![Arc::from("User")],
            properties,
        })),
    });
    let row = vec![node, Value::Int(7)];
    group.throughput(Throughput::Elements(1000));
    group.bench_function("encode 1000 rows (node, int) with meta", |b| {
        let mut out = Vec::with_capacity(256 * 1024);
        b.iter(|| {
            out.clear();
            for _ in 0..1000 {
                for value in &row {
                    encode::row_value(&mut out, value);
                }
                let mut first = true;
                for value in &row {
                    encode::meta(&mut out, value, &mut first);
                }
            }
            black_box(out.len())
        });
    });
    group.finish();
}

fn request(path: &str, body: &str) -> http::Request<Bytes> {
    http::Request::builder()
        .method("POST")
        .uri(path)
        .header("host", "localhost:7474")
        .header("content-type", "application/json")
        .body(Bytes::from(body.to_owned()))
        .expect("request")
}

fn requests(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let db = Database::open_in_memory(EngineConfig::default());
    let api = runtime.block_on(async { HttpApi::new(Arc::clone(&db), ApiConfig::default()) });
    let setup = [
        "CREATE INDEX tag_id IF NOT EXISTS FOR (t:Tag) ON (t.tagId)",
        "UNWIND range(0, 999) AS i CREATE (:Tag {tagId: CASE WHEN i = 0 THEN 'neo4j' ELSE 'tag-' + toString(i) END})",
    ];
    for statement in setup {
        let body = serde_json::json!({"statements": [{"statement": statement}]}).to_string();
        runtime.block_on(async {
            let response = api.handle(request("/db/neo4j/tx/commit", &body)).await;
            let bytes = response
                .into_body()
                .collect()
                .await
                .expect("body")
                .to_bytes();
            let text = String::from_utf8_lossy(&bytes);
            assert!(text.contains(r#""errors":[]"#), "{text}");
        });
    }
    let mut group = c.benchmark_group("request");
    group.throughput(Throughput::Elements(1));
    for (name, body) in [
        ("simple_lookup", SIMPLE_LOOKUP),
        ("simple_lookup_property", SIMPLE_LOOKUP_PROPERTY),
        ("create_1", CREATE_1),
    ] {
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter(|| async {
                let response = api
                    .handle(request("/db/data/transaction/commit", body))
                    .await;
                black_box(
                    response
                        .into_body()
                        .collect()
                        .await
                        .map(|c| c.to_bytes().len()),
                )
            });
        });
    }
    group.finish();
}

criterion_group!(benches, codec, requests);
criterion_main!(benches);
