//! Where traces go and which are kept: flags and configuration keys first, then OpenTelemetry's
//! standard environment variables, as the specification names them.

use opentelemetry::KeyValue;
use opentelemetry_sdk::Resource;

/// How spans are sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// OTLP over gRPC (port 4317 by convention).
    Grpc,
    /// OTLP over HTTP with protobuf bodies (port 4318), the specification's default.
    HttpProtobuf,
}

impl std::str::FromStr for Protocol {
    type Err = SettingsError;

    fn from_str(text: &str) -> Result<Protocol, SettingsError> {
        match text.trim() {
            "grpc" => Ok(Protocol::Grpc),
            "http/protobuf" => Ok(Protocol::HttpProtobuf),
            other => Err(SettingsError(format!(
                "`{other}` is not a trace protocol Quiver sends: grpc or http/protobuf"
            ))),
        }
    }
}

/// Which transactions are traced (the specification's samplers, as `OTEL_TRACES_SAMPLER`
/// names them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampler {
    /// The share of transactions without a caller's trace that are traced, 0 to 1.
    pub ratio: f64,
    /// Whether a caller's sampled flag decides for its transactions (`parentbased_*`).
    pub parent_based: bool,
}

// A ratio is read checked to lie in 0..=1: never NaN, so equality is total.
impl Eq for Sampler {}

impl Sampler {
    /// Whether a transaction is traced, given its caller's sampled flag if it sent one.
    pub fn samples(&self, parent_sampled: Option<bool>) -> bool {
        match parent_sampled {
            Some(sampled) if self.parent_based => sampled,
            _ if self.ratio >= 1.0 => true,
            _ if self.ratio <= 0.0 => false,
            _ => draw() < self.ratio,
        }
    }

    /// `OTEL_TRACES_SAMPLER` with its `OTEL_TRACES_SAMPLER_ARG`.
    fn from_env(name: &str, arg: Option<&str>) -> Result<Sampler, SettingsError> {
        let ratio = || -> Result<f64, SettingsError> {
            match arg {
                None => Ok(1.0),
                Some(text) => parse_ratio(text, "OTEL_TRACES_SAMPLER_ARG"),
            }
        };
        let (ratio, parent_based) = match name.trim() {
            "always_on" => (1.0, false),
            "always_off" => (0.0, false),
            "traceidratio" => (ratio()?, false),
            "parentbased_always_on" => (1.0, true),
            "parentbased_always_off" => (0.0, true),
            "parentbased_traceidratio" => (ratio()?, true),
            other => {
                return Err(SettingsError(format!(
                    "OTEL_TRACES_SAMPLER `{other}` is not a sampler Quiver knows: always_on, \
                     always_off, traceidratio, parentbased_always_on, parentbased_always_off or \
                     parentbased_traceidratio"
                )));
            }
        };
        Ok(Sampler {
            ratio,
            parent_based,
        })
    }
}

/// A uniform draw from [0, 1) for the sampler, from a generator of this thread's seeded once
/// from the operating system's: xorshift64*, a multiply and three shifts a draw, where the
/// cryptographic generator cost a block refill and reseed checks on every transaction. The
/// sampler needs independence between transactions, not secrecy.
fn draw() -> f64 {
    thread_local! {
        static STATE: std::cell::Cell<u64> = std::cell::Cell::new(rand::random::<u64>() | 1);
    }
    STATE.with(|state| {
        let mut x = state.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        state.set(x);
        // The top 53 bits of the scrambled state, as a fraction.
        (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 * (1.0 / (1_u64 << 53) as f64)
    })
}

/// A share between 0 and 1.
fn parse_ratio(text: &str, origin: &str) -> Result<f64, SettingsError> {
    match text.trim().parse::<f64>() {
        Ok(ratio) if (0.0..=1.0).contains(&ratio) => Ok(ratio),
        _ => Err(SettingsError(format!(
            "{origin} `{text}` is not a ratio between 0 and 1"
        ))),
    }
}

/// A setting that does not read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct SettingsError(String);

/// What the flags and configuration file said (each `None` when left out).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Requested {
    /// The collector's base address (`--trace-endpoint`), as `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub endpoint: Option<String>,
    pub protocol: Option<Protocol>,
    /// `--trace-sample-ratio`: a parent-based ratio sampler.
    pub sample_ratio: Option<f64>,
    pub query_text: Option<bool>,
}

/// Tracing, switched on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The full URL spans are sent to (`.../v1/traces` over HTTP).
    pub endpoint: String,
    pub protocol: Protocol,
    pub sampler: Sampler,
    /// Whether spans carry `db.query.text`.
    pub query_text: bool,
    /// `OTEL_SERVICE_NAME`, else `service.name` of `OTEL_RESOURCE_ATTRIBUTES`, else `quiver`.
    pub service_name: String,
    /// The other attributes of `OTEL_RESOURCE_ATTRIBUTES`.
    pub resource: Vec<(String, String)>,
}

const DEFAULT_HTTP_ENDPOINT: &str = "http://localhost:4318";
const DEFAULT_GRPC_ENDPOINT: &str = "http://localhost:4317";

impl Settings {
    /// Tracing's settings, or `None` when it is off: on when an endpoint is given by a flag,
    /// by `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`, or when
    /// `OTEL_TRACES_EXPORTER` is `otlp`; off when `OTEL_SDK_DISABLED` is `true` or
    /// `OTEL_TRACES_EXPORTER` is `none`, unless a flag gave the endpoint.
    pub fn resolve(
        requested: Requested,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Settings>, SettingsError> {
        let exporter = env("OTEL_TRACES_EXPORTER");
        let disabled = env("OTEL_SDK_DISABLED").is_some_and(|v| v.trim() == "true")
            || exporter.as_deref().is_some_and(|v| v.trim() == "none");
        if let Some(other) = exporter
            .as_deref()
            .map(str::trim)
            .filter(|v| !matches!(*v, "otlp" | "none" | ""))
        {
            return Err(SettingsError(format!(
                "OTEL_TRACES_EXPORTER `{other}` is not an exporter Quiver has: otlp or none"
            )));
        }
        let protocol = match requested.protocol {
            Some(protocol) => protocol,
            None => match env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
                .or_else(|| env("OTEL_EXPORTER_OTLP_PROTOCOL"))
            {
                Some(text) => text.parse()?,
                None => Protocol::HttpProtobuf,
            },
        };
        let signal = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").filter(|v| !v.is_empty());
        let base = env("OTEL_EXPORTER_OTLP_ENDPOINT").filter(|v| !v.is_empty());
        let endpoint = match (requested.endpoint, signal, base) {
            (Some(flag), _, _) => Some(signal_url(&flag, protocol)),
            (None, _, _) if disabled => None,
            // The per-signal variable is the full URL, as the specification says.
            (None, Some(full), _) => Some(full),
            (None, None, Some(base)) => Some(signal_url(&base, protocol)),
            (None, None, None) if exporter.as_deref().map(str::trim) == Some("otlp") => {
                Some(signal_url(
                    match protocol {
                        Protocol::Grpc => DEFAULT_GRPC_ENDPOINT,
                        Protocol::HttpProtobuf => DEFAULT_HTTP_ENDPOINT,
                    },
                    protocol,
                ))
            }
            (None, None, None) => None,
        };
        let Some(endpoint) = endpoint else {
            return Ok(None);
        };
        if !endpoint.starts_with("http://") {
            return Err(SettingsError(format!(
                "the trace endpoint `{endpoint}` is not an http:// URL: Quiver sends traces \
                 without TLS (send them to a collector beside the server, which may forward \
                 them over TLS)"
            )));
        }
        let sampler = match (requested.sample_ratio, env("OTEL_TRACES_SAMPLER")) {
            (Some(ratio), _) => Sampler {
                ratio: parse_ratio(&ratio.to_string(), "the trace sample ratio")?,
                parent_based: true,
            },
            (None, Some(name)) => {
                Sampler::from_env(&name, env("OTEL_TRACES_SAMPLER_ARG").as_deref())?
            }
            (None, None) => Sampler {
                ratio: 1.0,
                parent_based: true,
            },
        };
        let mut resource = resource_attributes(env("OTEL_RESOURCE_ATTRIBUTES").as_deref());
        let named = resource
            .iter()
            .position(|(key, _)| key == "service.name")
            .map(|at| resource.remove(at).1);
        let service_name = env("OTEL_SERVICE_NAME")
            .filter(|v| !v.is_empty())
            .or(named)
            .unwrap_or_else(|| "quiver".to_owned());
        Ok(Some(Settings {
            endpoint,
            protocol,
            sampler,
            query_text: requested.query_text.unwrap_or(false),
            service_name,
            resource,
        }))
    }

    /// The resource every span is sent with.
    pub(crate) fn resource(&self) -> Resource {
        Resource::builder_empty()
            .with_service_name(self.service_name.clone())
            .with_attributes(
                self.resource
                    .iter()
                    .map(|(key, value)| KeyValue::new(key.clone(), value.clone()))
                    .chain([
                        KeyValue::new("service.version", env!("CARGO_PKG_VERSION")),
                        KeyValue::new("telemetry.sdk.language", "rust"),
                    ]),
            )
            .build()
    }
}

/// A base address made the URL of the traces signal: over HTTP `/v1/traces` is appended (once);
/// gRPC names its service in the request, not the URL.
fn signal_url(base: &str, protocol: Protocol) -> String {
    match protocol {
        Protocol::Grpc => base.to_owned(),
        Protocol::HttpProtobuf if base.trim_end_matches('/').ends_with("/v1/traces") => {
            base.to_owned()
        }
        Protocol::HttpProtobuf => format!("{}/v1/traces", base.trim_end_matches('/')),
    }
}

/// `key=value,key=value` pairs, percent-decoded, as `OTEL_RESOURCE_ATTRIBUTES` holds them;
/// malformed pairs are left out.
fn resource_attributes(text: Option<&str>) -> Vec<(String, String)> {
    let Some(text) = text else {
        return Vec::new();
    };
    text.split(',')
        .filter_map(|pair| {
            let (key, value) = pair.split_once('=')?;
            let key = key.trim();
            (!key.is_empty()).then(|| {
                (
                    key.to_owned(),
                    percent_encoding::percent_decode_str(value.trim())
                        .decode_utf8_lossy()
                        .into_owned(),
                )
            })
        })
        .collect()
}
