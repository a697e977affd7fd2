//! Codec throughput: what one core spends per record and per request.
//!
//! `cargo bench -p quiver-bolt --bench codec`

use std::hint::black_box;
use std::sync::Arc;

use bytes::BytesMut;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quiver_bolt::chunk::Dechunker;
use quiver_bolt::message::{TxExtra, encode_record};
use quiver_bolt::packstream::Dialect;
use quiver_bolt::{Codec, Request, Version};
use quiver_value::{Map, Node, NodeData, Value};

const RECORDS: u64 = 1_000;

fn scalar_row() -> [Value; 3] {
    [
        Value::Int(123_456),
        Value::from("Person name"),
        Value::Float(3.25),
    ]
}

fn node_row() -> [Value; 1] {
    let mut properties = Map::new();
    properties.insert("name".into(), Value::from("Alice"));
    properties.insert("age".into(), Value::Int(42));
    [Value::Node(Node {
        id: 7,
        data: Some(Arc::new(NodeData {
            labels: vec!["Person".into()],
            properties,
        })),
    })]
}

fn encode_records(c: &mut Criterion) {
    let mut g = c.benchmark_group("encode_records");
    g.throughput(Throughput::Elements(RECORDS));
    let mut out = BytesMut::with_capacity(1 << 20);
    let row = scalar_row();
    g.bench_function("3_scalars", |b| {
        b.iter(|| {
            out.clear();
            for _ in 0..RECORDS {
                encode_record(&mut out, black_box(&row), Dialect::BOLT5).unwrap();
            }
            black_box(out.len())
        });
    });
    let row = node_row();
    g.bench_function("node_2_props", |b| {
        b.iter(|| {
            out.clear();
            for _ in 0..RECORDS {
                encode_record(&mut out, black_box(&row), Dialect::BOLT5).unwrap();
            }
            black_box(out.len())
        });
    });
    g.finish();
}

fn decode_run(c: &mut Criterion) {
    let codec = Codec::new(Version::V5_8);
    let mut params = Map::new();
    params.insert("name".into(), Value::from("Alice"));
    params.insert("limit".into(), Value::Int(10));
    let run = Request::Run {
        query: "MATCH (n:Person {name: $name}) RETURN n LIMIT $limit".into(),
        params,
        extra: TxExtra {
            db: Some("neo4j".into()),
            bookmarks: vec!["quiver:42".into()],
            ..TxExtra::default()
        },
    };
    let mut wire = BytesMut::new();
    run.encode(&mut wire, &codec).unwrap();
    let pull = Request::Pull { n: 1000, qid: -1 };
    pull.encode(&mut wire, &codec).unwrap();
    let wire = wire.freeze();

    let mut g = c.benchmark_group("decode_requests");
    g.throughput(Throughput::Elements(2));
    g.bench_function("dechunk_run_and_pull", |b| {
        let mut dechunker = Dechunker::new(1 << 20);
        b.iter(|| {
            let mut input = BytesMut::from(&wire[..]);
            while let Some(message) = dechunker.decode(&mut input).unwrap() {
                black_box(Request::decode(&message, &codec).unwrap());
            }
        });
    });
    g.finish();
}

criterion_group!(benches, encode_records, decode_run);
criterion_main!(benches);
