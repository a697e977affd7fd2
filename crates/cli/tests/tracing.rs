//! Traces of `quiver serve`, received by a real OTLP receiver (the collector protocol over
//! HTTP and over gRPC): a span per transaction and per query, the engine's steps below them,
//! their attributes, a driver's `traceparent` continued, and sampling.

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use quiver_bolt::Request;
use quiver_bolt::message::{RunExtra, TxExtra};
use quiver_value::{Map, Value};

/// A span as received: names, ids and attributes as text.
#[derive(Clone, Debug)]
struct Received {
    name: String,
    trace_id: Vec<u8>,
    span_id: Vec<u8>,
    parent_span_id: Vec<u8>,
    attributes: HashMap<String, String>,
    failed: bool,
    service: String,
}

type Inbox = Arc<Mutex<Vec<Received>>>;

fn receive(inbox: &Inbox, request: ExportTraceServiceRequest) {
    let mut spans = inbox.lock().expect("inbox");
    for resource_spans in request.resource_spans {
        let service = resource_spans
            .resource
            .iter()
            .flat_map(|r| &r.attributes)
            .find(|kv| kv.key == "service.name")
            .map(|kv| text(kv.value.as_ref().and_then(|v| v.value.as_ref())))
            .unwrap_or_default();
        for scope in resource_spans.scope_spans {
            for span in scope.spans {
                spans.push(Received {
                    attributes: span
                        .attributes
                        .iter()
                        .map(|kv| {
                            let value = kv.value.as_ref().and_then(|v| v.value.as_ref());
                            (kv.key.clone(), text(value))
                        })
                        .collect(),
                    failed: span
                        .status
                        .as_ref()
                        .is_some_and(|s| s.code == StatusCode::Error as i32),
                    name: span.name,
                    trace_id: span.trace_id,
                    span_id: span.span_id,
                    parent_span_id: span.parent_span_id,
                    service: service.clone(),
                });
            }
        }
    }
}

fn text(value: Option<&AnyValue>) -> String {
    match value {
        Some(AnyValue::StringValue(s)) => s.clone(),
        Some(AnyValue::IntValue(i)) => i.to_string(),
        Some(AnyValue::BoolValue(b)) => b.to_string(),
        Some(AnyValue::DoubleValue(d)) => d.to_string(),
        other => format!("{other:?}"),
    }
}

/// An OTLP/HTTP receiver on a loopback port: `POST /v1/traces` with a protobuf body.
async fn http_receiver(inbox: Inbox) -> SocketAddr {
    use http_body_util::BodyExt as _;
    use prost::Message as _;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let inbox = Arc::clone(&inbox);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(
                    move |request: hyper::Request<hyper::body::Incoming>| {
                        let inbox = Arc::clone(&inbox);
                        async move {
                            let path = request.uri().path().to_owned();
                            let body = request.into_body().collect().await?.to_bytes();
                            let status = match ExportTraceServiceRequest::decode(body) {
                                Ok(export) if path == "/v1/traces" => {
                                    receive(&inbox, export);
                                    200
                                }
                                _ => 400,
                            };
                            let reply = ExportTraceServiceResponse::default().encode_to_vec();
                            Ok::<_, hyper::Error>(
                                hyper::Response::builder()
                                    .status(status)
                                    .header("content-type", "application/x-protobuf")
                                    .body(http_body_util::Full::new(bytes::Bytes::from(reply)))
                                    .expect("response"),
                            )
                        }
                    },
                );
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(io, service)
                    .await;
            });
        }
    });
    addr
}

struct Grpc(Inbox);

#[tonic::async_trait]
impl TraceService for Grpc {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        receive(&self.0, request.into_inner());
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

/// An OTLP/gRPC receiver on a loopback port.
async fn grpc_receiver(inbox: Inbox) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let incoming = tokio_stream_of(listener);
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(Grpc(inbox)))
            .serve_with_incoming(incoming),
    );
    addr
}

fn tokio_stream_of(
    listener: tokio::net::TcpListener,
) -> impl futures_util::Stream<Item = std::io::Result<tokio::net::TcpStream>> {
    futures_util::stream::unfold(listener, |listener| async move {
        let accepted = listener.accept().await.map(|(stream, _)| stream);
        Some((accepted, listener))
    })
}

/// A runtime whose thread keeps serving the receiver while the test waits.
fn receiver_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime")
}

/// `quiver serve` sending its traces to `endpoint`, batches every 50 ms.
fn traced_server(
    endpoint: SocketAddr,
    data: &std::path::Path,
    extra: &[&str],
) -> (std::process::Child, SocketAddr, SocketAddr) {
    let mut command = common::quiver();
    command.arg("serve");
    if !extra.contains(&"--bolt-listen") {
        command.args([
            "--bolt-listen",
            "127.0.0.1:0",
            "--http-listen",
            "127.0.0.1:0",
        ]);
    }
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("OTEL_") {
            command.env_remove(name);
        }
    }
    command
        .env("OTEL_BSP_SCHEDULE_DELAY", "50")
        .env("OTEL_SERVICE_NAME", "graph-under-test")
        .arg("--data-dir")
        .arg(data)
        .args(["--durability", "sync", "--trace-endpoint"])
        .arg(format!("http://{endpoint}"))
        .args(extra);
    common::spawn(&mut command)
}

/// Waits (up to 20 s) until `inbox` holds a span `name` of trace `trace_id` (any trace if
/// empty); returns every span received by then.
fn wait_for(inbox: &Inbox, name: &str, trace_id: &[u8]) -> Vec<Received> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let spans = inbox.lock().expect("inbox").clone();
        if spans
            .iter()
            .any(|s| s.name == name && (trace_id.is_empty() || s.trace_id == trace_id))
        {
            return spans;
        }
        assert!(
            Instant::now() < deadline,
            "no span `{name}` arrived; received: {:?}",
            spans.iter().map(|s| &s.name).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn one<'a>(spans: &'a [Received], name: &str, trace_id: &[u8]) -> &'a Received {
    let found: Vec<_> = spans
        .iter()
        .filter(|s| s.name == name && s.trace_id == trace_id)
        .collect();
    assert_eq!(found.len(), 1, "one `{name}` span in the trace: {spans:#?}");
    found[0]
}

fn children<'a>(spans: &'a [Received], parent: &Received) -> Vec<&'a str> {
    let mut names: Vec<&str> = spans
        .iter()
        .filter(|s| s.parent_span_id == parent.span_id && s.trace_id == parent.trace_id)
        .map(|s| s.name.as_str())
        .collect();
    names.sort_unstable();
    names
}

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN: &str = "00f067aa0ba902b7";

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&text[at..at + 2], 16).expect("hex"))
        .collect()
}

fn metadata(pairs: &[(&str, &str)]) -> Map {
    pairs
        .iter()
        .map(|(k, v)| ((*k).into(), Value::from(*v)))
        .collect()
}

/// Runs `query` in an auto-commit transaction whose metadata carries the caller's sampled
/// trace context.
async fn in_callers_trace(bolt: SocketAddr, query: &str) -> quiver_lab::client::Exchanged {
    let mut conn = common::connect(bolt).await.expect("connect");
    let traceparent = format!("00-{TRACE_ID}-{CALLER_SPAN}-01");
    let out = conn
        .exchange(&[
            Request::Run {
                query: query.to_owned(),
                params: Map::new(),
                extra: RunExtra {
                    tx_metadata: Some(metadata(&[("traceparent", &traceparent)])),
                    ..RunExtra::default()
                },
            },
            Request::Pull { n: -1, qid: -1 },
        ])
        .await
        .expect("exchange");
    conn.close().await;
    out
}

/// An explicit transaction with the caller's trace context in its metadata, a query and a
/// commit; then an auto-commit query that fails.
async fn run_work(bolt: SocketAddr) {
    let mut conn = common::connect(bolt).await.expect("connect");
    let traceparent = format!("00-{TRACE_ID}-{CALLER_SPAN}-01");
    let out = conn
        .exchange(&[
            Request::Begin {
                extra: TxExtra {
                    tx_metadata: Some(metadata(&[
                        ("traceparent", &traceparent),
                        ("app", "checkout"),
                    ])),
                    ..TxExtra::default()
                },
            },
            Request::Run {
                query: "CREATE (n:Order {id: 1}) RETURN n.id".to_owned(),
                params: Map::new(),
                extra: RunExtra::default(),
            },
            Request::Pull { n: -1, qid: -1 },
            Request::Commit,
        ])
        .await
        .expect("explicit transaction");
    assert!(out.summaries.iter().all(Result::is_ok), "{out:?}");
    let out = conn
        .exchange(&[
            Request::Run {
                query: "MATCH (n) RETURN 1 / 0".to_owned(),
                params: Map::new(),
                extra: RunExtra::default(),
            },
            Request::Pull { n: -1, qid: -1 },
        ])
        .await
        .expect("auto-commit");
    assert!(
        out.summaries[0].is_err() || out.summaries[1].is_err(),
        "{out:?}"
    );
    conn.close().await;
}

#[test]
fn spans_of_a_transaction_and_its_queries_reach_an_otlp_http_receiver() {
    let runtime = receiver_runtime();
    let inbox = Inbox::default();
    let receiver = runtime.block_on(http_receiver(Arc::clone(&inbox)));
    let data = tempfile::tempdir().expect("tempdir");
    let (mut child, bolt, _) = traced_server(receiver, data.path(), &[]);
    runtime.block_on(run_work(bolt));
    // The failing query's span ends last: once it arrived, everything before it has.
    let spans = wait_for(&inbox, "MATCH neo4j", &[]);
    let trace = hex(TRACE_ID);

    let tx = one(&spans, "transaction neo4j", &trace);
    assert_eq!(
        tx.parent_span_id,
        hex(CALLER_SPAN),
        "continues the caller's span"
    );
    assert_eq!(tx.service, "graph-under-test");
    for (key, value) in [
        ("db.system.name", "quiver"),
        ("db.namespace", "neo4j"),
        ("network.protocol.name", "bolt"),
        ("client.address", "127.0.0.1"),
        ("quiver.transaction.metadata.app", "checkout"),
    ] {
        assert_eq!(
            tx.attributes.get(key).map(String::as_str),
            Some(value),
            "{key}"
        );
    }
    assert!(
        !tx.attributes
            .contains_key("quiver.transaction.metadata.traceparent")
    );
    assert_eq!(
        children(&spans, tx),
        ["CREATE neo4j", "commit", "durable wait"]
    );

    let query = one(&spans, "CREATE neo4j", &trace);
    assert_eq!(query.attributes["db.operation.name"], "CREATE");
    assert_eq!(query.attributes["db.response.returned_rows"], "1");
    assert!(
        !query.attributes.contains_key("db.query.text"),
        "the text is opt-in"
    );
    assert_eq!(children(&spans, query), ["execute", "parse", "plan"]);

    let failed = spans
        .iter()
        .find(|s| s.name == "MATCH neo4j")
        .expect("the failing query");
    assert!(failed.failed);
    assert_eq!(
        failed.attributes["error.type"],
        "Neo.ClientError.Statement.ArithmeticError"
    );
    assert_ne!(
        failed.trace_id, trace,
        "an auto-commit query starts its own trace"
    );
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn spans_reach_an_otlp_grpc_receiver_with_the_query_text_when_asked() {
    let runtime = receiver_runtime();
    let inbox = Inbox::default();
    let receiver = runtime.block_on(grpc_receiver(Arc::clone(&inbox)));
    let data = tempfile::tempdir().expect("tempdir");
    let (mut child, bolt, _) = traced_server(
        receiver,
        data.path(),
        &["--trace-protocol", "grpc", "--trace-query-text"],
    );
    runtime.block_on(run_work(bolt));
    let spans = wait_for(&inbox, "MATCH neo4j", &[]);
    let query = one(&spans, "CREATE neo4j", &hex(TRACE_ID));
    assert_eq!(
        query.attributes["db.query.text"],
        "CREATE (n:Order {id: 1}) RETURN n.id"
    );
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_sampler_at_zero_traces_only_what_a_sampled_caller_asks_for() {
    let runtime = receiver_runtime();
    let inbox = Inbox::default();
    let receiver = runtime.block_on(http_receiver(Arc::clone(&inbox)));
    let data = tempfile::tempdir().expect("tempdir");
    let (mut child, bolt, _) = traced_server(receiver, data.path(), &["--trace-sample-ratio", "0"]);
    runtime.block_on(async {
        // Not traced: no caller, and the sampler keeps nothing of its own.
        common::auto_commit(bolt, "RETURN 'unsampled'")
            .await
            .expect("unsampled");
        in_callers_trace(bolt, "UNWIND [1, 2] AS x RETURN x").await;
    });
    // Spans leave in the order they end: the unsampled query's would have come first.
    let spans = wait_for(&inbox, "transaction neo4j", &hex(TRACE_ID));
    assert!(
        spans.iter().all(|s| s.trace_id == hex(TRACE_ID)),
        "only the sampled caller's trace: {spans:#?}"
    );
    let query = one(&spans, "UNWIND neo4j", &hex(TRACE_ID));
    assert_eq!(query.attributes["db.response.returned_rows"], "2");
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn http_transactions_continue_the_traceparent_header() {
    let runtime = receiver_runtime();
    let inbox = Inbox::default();
    let receiver = runtime.block_on(http_receiver(Arc::clone(&inbox)));
    let data = tempfile::tempdir().expect("tempdir");
    let (mut child, _, http) = traced_server(receiver, data.path(), &[]);
    let traceparent = format!("traceparent: 00-{TRACE_ID}-{CALLER_SPAN}-01\r\n");
    let (status, body) = common::http_post(
        http,
        "/db/neo4j/tx/commit",
        &traceparent,
        r#"{"statements":[{"statement":"CREATE (n:Invoice) RETURN 1"},{"statement":"RETURN 1 / 0"}]}"#,
    );
    assert_eq!(status, 200, "{body}");
    // The Query API, in a trace of its own.
    let other = "4bf92f3577b34da6a3ce929d0e0e4737";
    let (status, body) = common::http_post(
        http,
        "/db/neo4j/query/v2",
        &format!("traceparent: 00-{other}-{CALLER_SPAN}-01\r\n"),
        r#"{"statement":"UNWIND range(1, 3) AS x RETURN x"}"#,
    );
    assert_eq!(status, 202, "{body}");
    let spans = wait_for(&inbox, "transaction neo4j", &hex(other));

    let tx = one(&spans, "transaction neo4j", &hex(TRACE_ID));
    assert_eq!(tx.parent_span_id, hex(CALLER_SPAN));
    assert_eq!(tx.attributes["network.protocol.name"], "http");
    assert_eq!(children(&spans, tx), ["CREATE neo4j", "RETURN neo4j"]);
    let failed = one(&spans, "RETURN neo4j", &hex(TRACE_ID));
    assert!(failed.failed);
    assert_eq!(
        failed.attributes["error.type"],
        "Neo.ClientError.Statement.ArithmeticError"
    );
    let create = one(&spans, "CREATE neo4j", &hex(TRACE_ID));
    assert_eq!(children(&spans, create), ["execute", "parse", "plan"]);

    let query_api = one(&spans, "transaction neo4j", &hex(other));
    assert_eq!(children(&spans, query_api), ["UNWIND neo4j", "commit"]);
    let unwind = one(&spans, "UNWIND neo4j", &hex(other));
    assert_eq!(unwind.attributes["db.response.returned_rows"], "3");
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_cluster_commit_carries_its_trace_to_the_raft_round() {
    let runtime = receiver_runtime();
    let inbox = Inbox::default();
    let receiver = runtime.block_on(http_receiver(Arc::clone(&inbox)));
    let data = tempfile::tempdir().expect("tempdir");
    // A member needs fixed ports: free ones, taken by binding port 0 and letting go.
    let held: Vec<_> = (0..3)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let [raft, bolt, http] = [0, 1, 2].map(|i| held[i].local_addr().expect("address"));
    drop(held);
    let (mut child, bolt, _) = traced_server(
        receiver,
        data.path(),
        &[
            "--node-id",
            "1",
            "--raft-listen",
            &raft.to_string(),
            "--initial-members",
            &format!("1={raft}"),
            "--bolt-listen",
            &bolt.to_string(),
            "--http-listen",
            &http.to_string(),
        ],
    );
    runtime.block_on(async {
        // Until the member has elected itself, writes are refused as NotALeader.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let out = in_callers_trace(bolt, "CREATE (:Shipment)").await;
            if out.summaries.iter().all(Result::is_ok) {
                break;
            }
            assert!(Instant::now() < deadline, "no leader: {out:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    let spans = wait_for(&inbox, "raft replicate", &hex(TRACE_ID));
    let round = spans
        .iter()
        .rev()
        .find(|s| s.name == "raft replicate" && s.trace_id == hex(TRACE_ID))
        .expect("the round");
    let parent = spans
        .iter()
        .find(|s| s.span_id == round.parent_span_id)
        .expect("the round's parent");
    assert_eq!(parent.name, "commit");
    assert_eq!(round.attributes["raft.commits"], "1");
    assert!(round.attributes.contains_key("raft.log.index"));
    let _ = child.kill();
    let _ = child.wait();
}
