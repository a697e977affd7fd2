//! Which settings switch tracing on, where spans go, and which transactions are traced.

use std::collections::HashMap;

use crate::settings::Requested;
use crate::{Parent, Policy, Protocol, Sampler, Settings};

fn resolve(requested: Requested, env: &[(&str, &str)]) -> Option<Settings> {
    let env: HashMap<String, String> = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    Settings::resolve(requested, |name| env.get(name).cloned()).expect("settings read")
}

#[test]
fn tracing_is_off_without_an_endpoint() {
    assert_eq!(resolve(Requested::default(), &[]), None);
}

#[test]
fn the_standard_base_endpoint_gets_the_traces_path_over_http() {
    let settings = resolve(
        Requested::default(),
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/")],
    )
    .expect("on");
    assert_eq!(settings.endpoint, "http://collector:4318/v1/traces");
    assert_eq!(settings.protocol, Protocol::HttpProtobuf);
    assert_eq!(settings.service_name, "quiver");
}

#[test]
fn the_per_signal_endpoint_is_taken_as_it_is_and_grpc_keeps_the_base() {
    let settings = resolve(
        Requested::default(),
        &[
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c:4318/custom"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://wrong:1"),
        ],
    )
    .expect("on");
    assert_eq!(settings.endpoint, "http://c:4318/custom");
    let grpc = resolve(
        Requested::default(),
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4317"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ],
    )
    .expect("on");
    assert_eq!(
        (grpc.endpoint.as_str(), grpc.protocol),
        ("http://c:4317", Protocol::Grpc)
    );
}

#[test]
fn a_flag_wins_over_the_environment_and_over_its_switch_off() {
    let requested = Requested {
        endpoint: Some("http://flag:4318".to_owned()),
        sample_ratio: Some(0.1),
        query_text: Some(true),
        ..Requested::default()
    };
    let settings = resolve(
        requested,
        &[
            ("OTEL_SDK_DISABLED", "true"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env:4318"),
            ("OTEL_TRACES_SAMPLER", "always_on"),
        ],
    )
    .expect("on");
    assert_eq!(settings.endpoint, "http://flag:4318/v1/traces");
    assert_eq!(
        settings.sampler,
        Sampler {
            ratio: 0.1,
            parent_based: true
        }
    );
    assert!(settings.query_text);
}

#[test]
fn the_environment_switches_tracing_off() {
    for off in [
        ("OTEL_SDK_DISABLED", "true"),
        ("OTEL_TRACES_EXPORTER", "none"),
    ] {
        assert_eq!(
            resolve(
                Requested::default(),
                &[off, ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318")]
            ),
            None
        );
    }
}

#[test]
fn the_otlp_exporter_alone_sends_to_the_default_collector() {
    let settings = resolve(Requested::default(), &[("OTEL_TRACES_EXPORTER", "otlp")]).expect("on");
    assert_eq!(settings.endpoint, "http://localhost:4318/v1/traces");
}

#[test]
fn samplers_read_as_the_specification_names_them() {
    let settings = resolve(
        Requested::default(),
        &[
            ("OTEL_TRACES_EXPORTER", "otlp"),
            ("OTEL_TRACES_SAMPLER", "traceidratio"),
            ("OTEL_TRACES_SAMPLER_ARG", "0.25"),
        ],
    )
    .expect("on");
    assert_eq!(
        settings.sampler,
        Sampler {
            ratio: 0.25,
            parent_based: false
        }
    );
    let env: HashMap<&str, &str> = [
        ("OTEL_TRACES_EXPORTER", "otlp"),
        ("OTEL_TRACES_SAMPLER", "sometimes"),
    ]
    .into();
    assert!(
        Settings::resolve(Requested::default(), |name| env
            .get(name)
            .map(|v| (*v).to_owned()))
        .is_err()
    );
}

#[test]
fn resource_attributes_are_decoded_and_may_name_the_service() {
    let settings = resolve(
        Requested::default(),
        &[
            ("OTEL_TRACES_EXPORTER", "otlp"),
            (
                "OTEL_RESOURCE_ATTRIBUTES",
                "service.name=graph,deployment.environment=prod%20eu,broken",
            ),
        ],
    )
    .expect("on");
    assert_eq!(settings.service_name, "graph");
    assert_eq!(
        settings.resource,
        vec![("deployment.environment".to_owned(), "prod eu".to_owned())]
    );
}

/// A policy sampling `ratio` of the transactions without a caller (a caller's sampled flag
/// deciding when `parent_based`), with the query text on its spans or not.
fn policy(ratio: f64, parent_based: bool, query_text: bool) -> Policy {
    Policy {
        sampler: Sampler {
            ratio,
            parent_based,
        },
        query_text,
    }
}

const SAMPLED: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const UNSAMPLED: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";

#[test]
fn a_callers_sampled_flag_decides_under_a_parent_based_sampler() {
    let never = policy(0.0, true, false);
    let sampled = Parent::read(SAMPLED, None).expect("valid");
    let unsampled = Parent::read(UNSAMPLED, Some("vendor=1")).expect("valid");
    assert!(never.traced(Some(&sampled)));
    assert!(!never.traced(Some(&unsampled)));
    assert!(!never.traced(None));
    let always = policy(1.0, false, false);
    assert!(always.traced(Some(&unsampled)));
}

#[test]
fn a_ratio_sampler_traces_about_its_share_of_transactions_without_a_caller() {
    const DRAWS: usize = 100_000;
    for ratio in [0.01, 0.1, 0.5, 0.9] {
        let sampler = policy(ratio, true, false);
        let traced = (0..DRAWS).filter(|_| sampler.traced(None)).count();
        // A binomial count's standard deviation is at most 158 here: 8 of them either side.
        let expected = ratio * DRAWS as f64;
        assert!(
            (traced as f64 - expected).abs() < 1_300.0,
            "{traced} of {DRAWS} traced at {ratio}"
        );
    }
    // Draws on another thread are its own generator's, not a copy of this one's.
    let here: Vec<bool> = (0..64)
        .map(|_| policy(0.5, false, false).traced(None))
        .collect();
    let there = std::thread::spawn(|| {
        (0..64)
            .map(|_| policy(0.5, false, false).traced(None))
            .collect::<Vec<bool>>()
    })
    .join()
    .expect("drawn");
    assert_ne!(here, there, "two threads drew the same 64 decisions");
}

#[test]
fn a_malformed_traceparent_starts_a_new_trace() {
    for text in [
        "",
        "00-xyz",
        "00-00000000000000000000000000000000-b7ad6b7169203331-01",
    ] {
        assert!(Parent::read(text, None).is_none(), "{text}");
    }
}

#[test]
fn a_querys_operation_is_its_first_keyword_in_upper_case() {
    for (keyword, operation) in [
        ("MATCH", "MATCH"),
        ("optional", "OPTIONAL"),
        ("Create", "CREATE"),
        ("CALL", "CALL"),
        ("", "QUERY"),
        ("frobnicate", "QUERY"),
    ] {
        assert_eq!(crate::operation_name(keyword), operation, "{keyword}");
    }
}

#[test]
fn an_endpoint_that_is_not_plain_http_is_refused_by_name() {
    for endpoint in ["https://collector:4318", "collector:4318"] {
        let env: HashMap<&str, &str> = [("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)].into();
        let refused = Settings::resolve(Requested::default(), |name| {
            env.get(name).map(|v| (*v).to_owned())
        });
        assert!(
            refused.is_err_and(|e| e.to_string().contains(endpoint)),
            "{endpoint}"
        );
    }
}

/// The spans `work` makes under a subscriber with the recorder alone, as the exporter would
/// receive them, in the order they closed.
fn recorded(work: impl FnOnce()) -> Vec<opentelemetry_sdk::trace::SpanData> {
    use std::sync::{Arc, Mutex};
    use tracing_subscriber::layer::SubscriberExt as _;

    #[derive(Debug, Default, Clone)]
    struct Collect(Arc<Mutex<Vec<opentelemetry_sdk::trace::SpanData>>>);
    impl opentelemetry_sdk::trace::SpanExporter for Collect {
        async fn export(
            &self,
            batch: Vec<opentelemetry_sdk::trace::SpanData>,
        ) -> opentelemetry_sdk::error::OTelSdkResult {
            self.0.lock().expect("not poisoned").extend(batch);
            Ok(())
        }
    }

    let collect = Collect::default();
    let requested = Requested {
        endpoint: Some("http://127.0.0.1:4318".to_owned()),
        ..Requested::default()
    };
    let settings = Settings::resolve(requested, |_| None)
        .expect("settings read")
        .expect("on");
    let (layer, exporter) = crate::Exporter::with_exporter(collect.clone(), &settings);
    // Beside a log that takes every other span, as a server's is.
    use tracing_subscriber::Layer as _;
    let log = tracing_subscriber::fmt::layer()
        .with_writer(std::io::sink)
        .with_filter(tracing_subscriber::EnvFilter::new(format!(
            "trace,{}=off",
            crate::TARGET
        )));
    let subscriber = tracing_subscriber::registry().with(log).with(layer);
    tracing::subscriber::with_default(subscriber, work);
    // Sends what is batched.
    exporter.shutdown();
    collect.0.lock().expect("not poisoned").clone()
}

fn named<'a>(
    spans: &'a [opentelemetry_sdk::trace::SpanData],
    name: &str,
) -> &'a opentelemetry_sdk::trace::SpanData {
    spans
        .iter()
        .find(|span| span.name == name)
        .unwrap_or_else(|| panic!("no span {name}: {spans:#?}"))
}

fn attribute(span: &opentelemetry_sdk::trace::SpanData, key: &str) -> Option<opentelemetry::Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.clone())
}

#[test]
fn a_transaction_its_query_and_a_step_are_one_trace_of_parents_and_children() {
    let spans = recorded(|| {
        let policy = policy(1.0, true, true);
        let sampled = policy.sample(None, None).expect("traced");
        let tx = sampled.transaction_span(&crate::TransactionAbout {
            protocol: "bolt",
            database: "movies",
            id: "movies-transaction-7",
            user: Some("alice"),
            client: Some("127.0.0.1:40000".parse().expect("address")),
            metadata: vec![("app", "shop".to_owned())],
        });
        let query = policy.query_span(&tx, "movies", "match (n) return n", |_| "match");
        assert!(
            !crate::steps_traced(),
            "a span made but not entered is not this thread's"
        );
        {
            let _in_query = query.enter();
            assert!(crate::steps_traced(), "a step under the query is traced");
            let _execute = crate::step("execute");
            assert!(crate::steps_traced(), "still under the query");
            // A log's span entered under the query does not hide it from a step.
            let _log = tracing::info_span!("a log's span").entered();
            let _plan = crate::step("plan");
        }
        assert!(!crate::steps_traced(), "the query was left: no steps");
        drop(crate::step("not under a query"));
        crate::finish_query(&query, 3, None);
        {
            let _in_tx = tx.enter();
            let _commit = tracing::info_span!(target: crate::TARGET, "commit").entered();
            drop(crate::step("under the commit"));
        }
        // A span of another target is not the recorder's, and steps under it are not traced.
        let _log = tracing::info_span!("not traced").entered();
        assert!(!crate::steps_traced(), "a log's span is not a traced query");
        drop(crate::step("under a log's span"));
    });
    assert_eq!(spans.len(), 6, "{spans:#?}");
    let tx = named(&spans, "transaction movies");
    let query = named(&spans, "MATCH movies");
    let execute = named(&spans, "execute");
    let plan = named(&spans, "plan");
    let commit = named(&spans, "commit");
    let under_commit = named(&spans, "under the commit");
    assert_eq!(tx.span_kind, opentelemetry::trace::SpanKind::Server);
    assert_eq!(tx.parent_span_id, opentelemetry::trace::SpanId::INVALID);
    assert_eq!(query.parent_span_id, tx.span_context.span_id());
    assert_eq!(execute.parent_span_id, query.span_context.span_id());
    assert_eq!(plan.parent_span_id, query.span_context.span_id());
    assert_eq!(commit.parent_span_id, tx.span_context.span_id());
    assert_eq!(under_commit.parent_span_id, commit.span_context.span_id());
    let ids: std::collections::HashSet<_> =
        spans.iter().map(|s| s.span_context.span_id()).collect();
    assert_eq!(ids.len(), spans.len(), "every span has an id of its own");
    for span in [query, execute, plan, commit, under_commit] {
        assert_eq!(span.span_context.trace_id(), tx.span_context.trace_id());
        assert_eq!(span.span_kind, opentelemetry::trace::SpanKind::Internal);
    }
    assert!(tx.span_context.is_sampled());
    assert_eq!(attribute(tx, "db.namespace"), Some("movies".into()));
    assert_eq!(attribute(tx, "client.address"), Some("127.0.0.1".into()));
    assert_eq!(attribute(tx, "client.port"), Some(40000_i64.into()));
    assert_eq!(attribute(tx, "user.name"), Some("alice".into()));
    assert_eq!(
        attribute(tx, "quiver.transaction.metadata.app"),
        Some("shop".into())
    );
    assert_eq!(
        attribute(tx, "otel.name"),
        None,
        "the name is not an attribute"
    );
    assert_eq!(attribute(query, "db.operation.name"), Some("MATCH".into()));
    assert_eq!(
        attribute(query, "db.query.text"),
        Some("match (n) return n".into())
    );
    assert_eq!(
        attribute(query, "db.response.returned_rows"),
        Some(3_i64.into())
    );
    assert!(tx.start_time <= query.start_time && query.end_time <= tx.end_time);
}

#[test]
fn a_transaction_continues_its_callers_trace_and_a_failure_is_its_status() {
    let spans = recorded(|| {
        let policy = policy(0.0, true, false);
        let sampled = policy
            .sample(Some(SAMPLED), Some("vendor=1"))
            .expect("traced");
        let tx = sampled.transaction_span(&crate::TransactionAbout {
            protocol: "http",
            database: "neo4j",
            ..crate::TransactionAbout::default()
        });
        let query = policy.query_span(&tx, "neo4j", "RETURN 1/0", |text| &text[..6]);
        crate::finish_query(
            &query,
            0,
            Some(("Neo.ClientError.Statement.ArithmeticError", "/ by zero")),
        );
    });
    let tx = named(&spans, "transaction neo4j");
    let query = named(&spans, "RETURN neo4j");
    let caller_trace =
        opentelemetry::trace::TraceId::from_hex("0af7651916cd43dd8448eb211c80319c").expect("hex");
    assert_eq!(tx.span_context.trace_id(), caller_trace);
    assert_eq!(
        tx.parent_span_id,
        opentelemetry::trace::SpanId::from_hex("b7ad6b7169203331").expect("hex")
    );
    assert!(tx.parent_span_is_remote);
    assert_eq!(tx.span_context.trace_state().header(), "vendor=1");
    assert_eq!(query.span_context.trace_id(), caller_trace);
    assert!(!query.parent_span_is_remote);
    assert_eq!(
        query.status,
        opentelemetry::trace::Status::error("/ by zero")
    );
    assert_eq!(
        attribute(query, "error.type"),
        Some("Neo.ClientError.Statement.ArithmeticError".into())
    );
    assert_eq!(
        attribute(query, "db.query.text"),
        None,
        "the text is opt-in"
    );
    assert_eq!(tx.status, opentelemetry::trace::Status::Unset);
}

#[test]
fn a_span_that_follows_others_links_them_and_a_span_without_a_parent_starts_a_trace() {
    let spans = recorded(|| {
        assert!(!crate::steps_traced(), "no span, no steps");
        let first = tracing::info_span!(target: crate::TARGET, "first");
        let second = tracing::info_span!(target: crate::TARGET, "second");
        let round = tracing::info_span!(target: crate::TARGET, parent: &first, "round", n = 2_u64);
        round.follows_from(&second);
    });
    let first = named(&spans, "first");
    let second = named(&spans, "second");
    let round = named(&spans, "round");
    assert_ne!(
        first.span_context.trace_id(),
        second.span_context.trace_id(),
        "each root span starts its own trace"
    );
    assert_eq!(round.parent_span_id, first.span_context.span_id());
    assert_eq!(round.links.len(), 1);
    assert_eq!(round.links[0].span_context, second.span_context);
    assert_eq!(attribute(round, "n"), Some(2_i64.into()));
}
