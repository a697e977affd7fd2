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

const SAMPLED: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const UNSAMPLED: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";

#[test]
fn a_callers_sampled_flag_decides_under_a_parent_based_sampler() {
    let never = Policy {
        sampler: Sampler {
            ratio: 0.0,
            parent_based: true,
        },
        query_text: false,
    };
    let sampled = Parent::read(SAMPLED, None).expect("valid");
    let unsampled = Parent::read(UNSAMPLED, Some("vendor=1")).expect("valid");
    assert!(never.traced(Some(&sampled)));
    assert!(!never.traced(Some(&unsampled)));
    assert!(!never.traced(None));
    let always = Policy {
        sampler: Sampler {
            ratio: 1.0,
            parent_based: false,
        },
        query_text: false,
    };
    assert!(always.traced(Some(&unsampled)));
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
