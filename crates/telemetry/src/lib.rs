//! Traces of Quiver's work, exported with OpenTelemetry: off by default, on when an OTLP
//! endpoint is given (a flag, a configuration key or the standard `OTEL_EXPORTER_OTLP_*`
//! variables).
//!
//! Spans are made with the `tracing` crate under one target, [`TARGET`], which only the
//! exporter's layer (module `record`) listens to: the log's layer leaves them out, so with
//! tracing off no layer wants them and making one costs a check of a callsite's interest.
//! The server decides at a transaction's start whether it is traced ([`Policy::traced`]: the
//! caller's `traceparent`, or the sampler); an untraced transaction makes no spans at all,
//! and the engine's steps make theirs only under a recorded span this thread is in
//! ([`steps_traced`]). What
//! is made is batched and sent by the exporter on the server's runtime, never on a query's
//! thread.

mod record;
mod settings;
mod spans;

use std::collections::HashMap;
use std::sync::Arc;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{SpanContext, TraceContextExt};
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{BatchSpanProcessor, SpanProcessor as _};

pub use record::Step;
pub use settings::{Protocol, Requested, Sampler, Settings, SettingsError};
pub use spans::{Sampled, TransactionAbout, durable_wait_span, finish_query, operation_name};

/// The `tracing` target of every span Quiver exports.
pub const TARGET: &str = "quiver::trace";

/// The value of the `db.system.name` attribute.
pub const SYSTEM_NAME: &str = "quiver";

/// What the server asks of each transaction: whether to trace it and whether its spans carry
/// the query text. Cheap to clone and to consult.
#[derive(Clone, Debug)]
pub struct Policy {
    sampler: Sampler,
    query_text: bool,
}

impl Policy {
    pub fn new(settings: &Settings) -> Policy {
        Policy {
            sampler: settings.sampler,
            query_text: settings.query_text,
        }
    }

    /// Whether a transaction whose caller sent `parent` (its W3C trace context, if any) is
    /// traced: a sampled caller's is (unless the sampler ignores parents), an unsampled
    /// caller's is not, and one without a caller is drawn by the sampler.
    pub fn traced(&self, parent: Option<&Parent>) -> bool {
        self.sampler.samples(parent.map(Parent::sampled))
    }
}

/// A caller's trace context, read from W3C `traceparent` (and `tracestate`) values.
#[derive(Clone, Debug)]
pub struct Parent {
    context: SpanContext,
}

impl Parent {
    /// The context `traceparent` names; `None` when it is missing or malformed (a malformed
    /// one starts a new trace, as the W3C recommendation asks).
    pub fn read(traceparent: &str, tracestate: Option<&str>) -> Option<Parent> {
        let mut carrier = HashMap::with_capacity(2);
        carrier.insert("traceparent".to_owned(), traceparent.to_owned());
        if let Some(state) = tracestate {
            carrier.insert("tracestate".to_owned(), state.to_owned());
        }
        let extracted = TraceContextPropagator::new().extract(&carrier);
        let context = extracted.span().span_context().clone();
        context.is_valid().then_some(Parent { context })
    }

    /// Whether the caller sampled its trace.
    pub fn sampled(&self) -> bool {
        self.context.is_sampled()
    }

    /// Makes `span` a child of the caller's span, in the caller's trace (nothing for a span
    /// no layer records).
    pub fn adopt(&self, span: &tracing::Span) {
        record::adopt(span, &self.context);
    }
}

/// Sets an attribute whose key is known only at run time (a transaction's metadata).
pub fn set_attribute(span: &tracing::Span, key: String, value: String) {
    record::set_attribute(span, key.into(), value.into());
}

/// Marks a span failed, with the Neo4j status code as `error.type` (OpenTelemetry's
/// convention for database errors) and the message as the status description.
pub fn set_failed(span: &tracing::Span, code: &str, message: &str) {
    record::set_attribute(span, "error.type".into(), code.to_owned().into());
    record::set_attribute(
        span,
        "db.response.status_code".into(),
        code.to_owned().into(),
    );
    record::set_status(
        span,
        opentelemetry::trace::Status::error(message.to_owned()),
    );
}

/// Whether the engine's steps (parse, plan, execute, commit) make spans: only under a span of a
/// traced transaction, entered on this thread (the recorder counts the spans it records as
/// they are entered and left, so an untraced query pays one read of a thread-local).
pub fn steps_traced() -> bool {
    record::entered()
}

/// Starts a step of a traced query below which nothing is traced (parse, plan, execute), a
/// child of the query's span this thread is in; it ends when dropped. Nothing is made when the
/// query is not traced. A step others are traced below (a commit, whose Raft round is its
/// child) is a `tracing` span under [`TARGET`] instead.
pub fn step(name: &'static str) -> Step {
    Step::start(name)
}

/// The span of the traced work this thread is in (a commit being logged), to carry on where
/// the work goes next; a disabled span when there is none.
pub fn current_traced() -> tracing::Span {
    if record::entered() {
        tracing::Span::current()
    } else {
        tracing::Span::none()
    }
}

/// The exporter, installed as a `tracing` layer; [`Exporter::shutdown`] sends what is still
/// batched.
pub struct Exporter {
    processor: Arc<BatchSpanProcessor>,
}

/// The error of an exporter that cannot be built (a malformed endpoint).
#[derive(Debug, thiserror::Error)]
#[error("cannot export traces: {0}")]
pub struct ExporterError(String);

impl Exporter {
    /// Builds the OTLP exporter `settings` describe and the layer that hands it [`TARGET`]'s
    /// spans.
    /// Must be called within the Tokio runtime that will send the batches (it panics outside
    /// one).
    pub fn start<S>(
        settings: &Settings,
    ) -> Result<(impl tracing_subscriber::Layer<S> + use<S>, Exporter), ExporterError>
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        let exporter = match settings.protocol {
            Protocol::Grpc => opentelemetry_otlp::SpanExporter::builder()
                .with_tonic()
                .with_endpoint(settings.endpoint.clone())
                .build(),
            Protocol::HttpProtobuf => opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_endpoint(settings.endpoint.clone())
                .build(),
        }
        .map_err(|error| ExporterError(error.to_string()))?;
        let exporter = OnRuntime {
            runtime: tokio::runtime::Handle::current(),
            inner: std::sync::Arc::new(exporter),
        };
        Ok(Exporter::with_exporter(exporter, settings))
    }

    /// The layer that hands [`TARGET`]'s spans to `exporter`, batched as `OTEL_BSP_*` say,
    /// under the resource `settings` name (what [`Exporter::start`] does with OTLP's; a
    /// benchmark's or a test's own exporter otherwise).
    pub fn with_exporter<S, E>(
        exporter: E,
        settings: &Settings,
    ) -> (impl tracing_subscriber::Layer<S> + use<S, E>, Exporter)
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
        E: opentelemetry_sdk::trace::SpanExporter + 'static,
    {
        use tracing_subscriber::Layer as _;
        // The batch processor's own thread: a span that ends is queued without waking anyone,
        // and a batch leaves when full or when its delay passed.
        let mut processor = BatchSpanProcessor::builder(exporter).build();
        processor.set_resource(&settings.resource());
        let processor = Arc::new(processor);
        // Whether to trace was decided when the transaction began (Policy::traced): every
        // span the layer hears is recorded.
        let layer = record::Recorder::new(Arc::clone(&processor)).with_filter(
            tracing_subscriber::filter::Targets::new().with_target(TARGET, tracing::Level::TRACE),
        );
        (layer, Exporter { processor })
    }

    /// Sends what is batched and stops the exporter.
    pub fn shutdown(self) {
        if let Err(error) = self.processor.shutdown() {
            tracing::warn!(%error, "the trace exporter did not stop cleanly");
        }
    }
}

/// An exporter whose sends run on the server's runtime: the batch processor exports from a
/// thread of its own, where hyper's and tonic's clients find no runtime to drive their
/// connections.
#[derive(Debug)]
struct OnRuntime<E> {
    runtime: tokio::runtime::Handle,
    inner: std::sync::Arc<E>,
}

impl<E> opentelemetry_sdk::trace::SpanExporter for OnRuntime<E>
where
    E: opentelemetry_sdk::trace::SpanExporter + 'static,
{
    async fn export(
        &self,
        batch: Vec<opentelemetry_sdk::trace::SpanData>,
    ) -> opentelemetry_sdk::error::OTelSdkResult {
        let inner = std::sync::Arc::clone(&self.inner);
        match self
            .runtime
            .spawn(async move { inner.export(batch).await })
            .await
        {
            Ok(result) => result,
            Err(error) => Err(opentelemetry_sdk::error::OTelSdkError::InternalFailure(
                error.to_string(),
            )),
        }
    }

    fn shutdown_with_timeout(
        &self,
        timeout: std::time::Duration,
    ) -> opentelemetry_sdk::error::OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> opentelemetry_sdk::error::OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        // Called once, before the processor holds the exporter: the `Arc` is not shared yet.
        if let Some(inner) = std::sync::Arc::get_mut(&mut self.inner) {
            inner.set_resource(resource);
        }
    }
}

#[cfg(test)]
mod tests;
