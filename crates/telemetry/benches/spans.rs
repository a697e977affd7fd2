//! What a traced transaction's spans cost to make and hand to the batch processor: a
//! transaction (with a client, a user and one metadata entry), a query below it and a step
//! below the query, closed in order. The exporter here drops what it gets, so the figure is
//! the recording alone, on the query's thread; the export is the batch processor's.
//!
//!   cargo bench -p quiver-telemetry --bench spans

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use quiver_telemetry::{Policy, Requested, Settings, TransactionAbout};
use tracing_subscriber::layer::SubscriberExt as _;

#[derive(Debug)]
struct Discard;

impl opentelemetry_sdk::trace::SpanExporter for Discard {
    async fn export(
        &self,
        batch: Vec<opentelemetry_sdk::trace::SpanData>,
    ) -> opentelemetry_sdk::error::OTelSdkResult {
        black_box(batch);
        Ok(())
    }
}

fn traced_transaction(c: &mut Criterion) {
    let requested = Requested {
        endpoint: Some("http://127.0.0.1:4318".to_owned()),
        sample_ratio: Some(1.0),
        ..Requested::default()
    };
    let Ok(Some(settings)) = Settings::resolve(requested, |_| None) else {
        panic!("tracing on");
    };
    let (layer, exporter) = quiver_telemetry::Exporter::with_exporter(Discard, &settings);
    let subscriber = tracing_subscriber::registry().with(layer);
    let policy = Policy::new(&settings);
    let client = "127.0.0.1:40000".parse().ok();
    tracing::subscriber::with_default(subscriber, || {
        c.bench_function("a traced transaction's three spans", |b| {
            b.iter(|| {
                let Some(sampled) = policy.sample(None, None) else {
                    return;
                };
                let tx = sampled.transaction_span(&TransactionAbout {
                    protocol: "bolt",
                    database: "neo4j",
                    id: "neo4j-transaction-7",
                    user: Some("alice"),
                    client,
                    metadata: vec![("app", "shop".to_owned())],
                });
                let query =
                    policy.query_span(&tx, "neo4j", "MATCH (n) RETURN count(n)", |_| "MATCH");
                {
                    let _in_query = query.enter();
                    let _execute = quiver_telemetry::step("execute");
                }
                quiver_telemetry::finish_query(&query, 1, None);
            });
        });
    });
    exporter.shutdown();
}

criterion_group!(benches, traced_transaction);
criterion_main!(benches);
