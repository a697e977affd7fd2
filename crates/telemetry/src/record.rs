//! The `tracing` layer that turns [`TARGET`](crate::TARGET)'s spans into OpenTelemetry span
//! data for the batch processor: each span keeps one record in its extensions (ids, name,
//! kind, start, attributes, links, status), filled as its fields are recorded and handed over
//! whole when it closes. Nothing else is made per span: no tracer, no SDK span, no context
//! objects, so a traced transaction costs its records and their export.

use std::borrow::Cow;
use std::cell::Cell;
use std::sync::Arc;
use std::time::SystemTime;

use opentelemetry::trace::{
    Link, SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState,
};
use opentelemetry::{InstrumentationScope, Key, KeyValue, Value};
use opentelemetry_sdk::trace::{
    BatchSpanProcessor, IdGenerator, RandomIdGenerator, SpanData, SpanEvents, SpanLinks,
    SpanProcessor,
};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// What an open span will be exported as.
#[derive(Debug)]
struct Open {
    trace_id: TraceId,
    span_id: SpanId,
    parent_span_id: SpanId,
    parent_is_remote: bool,
    trace_state: TraceState,
    name: Cow<'static, str>,
    kind: SpanKind,
    start: SystemTime,
    attributes: Vec<KeyValue>,
    links: Vec<Link>,
    status: Status,
}

impl Open {
    /// The span's own context: what a child inherits, a link names and the export carries.
    fn context(&self) -> SpanContext {
        SpanContext::new(
            self.trace_id,
            self.span_id,
            TraceFlags::SAMPLED,
            false,
            self.trace_state.clone(),
        )
    }

    /// Takes a text field: `otel.name` names the span, `otel.kind` gives its kind, any other
    /// is the attribute of the field's name (a value formatted for it is kept, not copied).
    fn text(&mut self, field: &Field, value: Cow<'_, str>) {
        match field.name() {
            "otel.name" => self.name = Cow::Owned(value.into_owned()),
            "otel.kind" => self.kind = kind(&value),
            name => {
                let value = match fixed(name, &value) {
                    Some(known) => Value::from(known),
                    None => Value::from(value.into_owned()),
                };
                self.set(Key::from_static_str(name), value);
            }
        }
    }

    /// Sets `key` to `value`, replacing what the span had under it.
    fn set(&mut self, key: Key, value: Value) {
        match self.attributes.iter_mut().find(|kv| kv.key == key) {
            Some(kv) => kv.value = value,
            None => self.attributes.push(KeyValue::new(key, value)),
        }
    }
}

/// The kind `otel.kind` names.
fn kind(name: &str) -> SpanKind {
    match name {
        "server" => SpanKind::Server,
        "client" => SpanKind::Client,
        "producer" => SpanKind::Producer,
        "consumer" => SpanKind::Consumer,
        _ => SpanKind::Internal,
    }
}

/// The value of an attribute whose values come from a fixed set, as that set holds it: kept
/// without a copy.
fn fixed(key: &str, value: &str) -> Option<&'static str> {
    match key {
        "db.system.name" => (value == crate::SYSTEM_NAME).then_some(crate::SYSTEM_NAME),
        "network.protocol.name" => ["bolt", "http"].into_iter().find(|known| *known == value),
        "db.operation.name" => Some(crate::operation_name(value)),
        _ => None,
    }
}

/// A field's value becomes the attribute of the field's name ([`Open::text`] for text).
impl Visit for Open {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.text(field, Cow::Borrowed(value));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.set(Key::from_static_str(field.name()), Value::I64(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        let value = match i64::try_from(value) {
            Ok(value) => Value::I64(value),
            Err(_) => Value::from(value.to_string()),
        };
        self.set(Key::from_static_str(field.name()), value);
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.set(Key::from_static_str(field.name()), Value::Bool(value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.set(Key::from_static_str(field.name()), Value::F64(value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.text(field, Cow::Owned(format!("{value:?}")));
    }
}

thread_local! {
    /// How many of the spans the recorder keeps this thread is in (entered and not left).
    static ENTERED: Cell<u32> = const { Cell::new(0) };
}

/// Whether this thread is in a span the recorder keeps: what a step asks before making its
/// own, one read of a thread-local (the registry's current span would be a lookup and, with
/// per-layer filters, every filter asked).
pub(crate) fn entered() -> bool {
    ENTERED.with(|entered| entered.get() > 0)
}

/// The layer: records spans and hands each, closed, to the batch processor.
pub(crate) struct Recorder {
    processor: Arc<BatchSpanProcessor>,
    scope: InstrumentationScope,
    ids: RandomIdGenerator,
}

impl Recorder {
    pub(crate) fn new(processor: Arc<BatchSpanProcessor>) -> Recorder {
        Recorder {
            processor,
            scope: InstrumentationScope::builder("quiver").build(),
            ids: RandomIdGenerator::default(),
        }
    }
}

impl<S> tracing_subscriber::Layer<S> for Recorder
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else {
            return;
        };
        // The parent is the nearest span this layer records: named, or the current one.
        let parent = if let Some(parent) = attrs.parent() {
            ctx.span(parent)
        } else if attrs.is_contextual() {
            ctx.lookup_current()
        } else {
            None
        };
        let inherited = parent.and_then(|parent| {
            let extensions = parent.extensions();
            extensions
                .get::<Open>()
                .map(|open| (open.trace_id, open.span_id, open.trace_state.clone()))
        });
        let (trace_id, parent_span_id, trace_state) = inherited
            .unwrap_or_else(|| (self.ids.new_trace_id(), SpanId::INVALID, TraceState::NONE));
        let mut open = Open {
            trace_id,
            span_id: self.ids.new_span_id(),
            parent_span_id,
            parent_is_remote: false,
            trace_state,
            name: Cow::Borrowed(attrs.metadata().name()),
            kind: SpanKind::Internal,
            start: SystemTime::now(),
            attributes: Vec::with_capacity(attrs.fields().len()),
            links: Vec::new(),
            status: Status::Unset,
        };
        attrs.record(&mut open);
        span.extensions_mut().insert(open);
    }

    fn on_enter(&self, _id: &Id, _ctx: Context<'_, S>) {
        ENTERED.with(|entered| entered.set(entered.get().saturating_add(1)));
    }

    fn on_exit(&self, _id: &Id, _ctx: Context<'_, S>) {
        ENTERED.with(|entered| entered.set(entered.get().saturating_sub(1)));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(open) = span.extensions_mut().get_mut::<Open>()
        {
            values.record(open);
        }
    }

    fn on_follows_from(&self, id: &Id, follows: &Id, ctx: Context<'_, S>) {
        let Some(followed) = ctx
            .span(follows)
            .and_then(|span| span.extensions().get::<Open>().map(Open::context))
        else {
            return;
        };
        if let Some(span) = ctx.span(id)
            && let Some(open) = span.extensions_mut().get_mut::<Open>()
        {
            open.links.push(Link::with_context(followed));
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else {
            return;
        };
        let Some(open) = span.extensions_mut().remove::<Open>() else {
            return;
        };
        self.end(open);
    }
}

impl Recorder {
    /// Hands `open`, ending now, to the batch processor.
    fn end(&self, open: Open) {
        let span_context = open.context();
        let mut links = SpanLinks::default();
        links.links = open.links;
        self.processor.on_end(SpanData {
            span_context,
            parent_span_id: open.parent_span_id,
            parent_span_is_remote: open.parent_is_remote,
            span_kind: open.kind,
            name: open.name,
            start_time: open.start,
            end_time: SystemTime::now(),
            attributes: open.attributes,
            dropped_attributes_count: 0,
            events: SpanEvents::default(),
            links,
            status: open.status,
            instrumentation_scope: self.scope.clone(),
        });
    }
}

/// A step of a traced query that nothing is traced below (parse, plan, execute): a child of
/// the recorded span this thread is in, kept here rather than in the registry, so it costs its
/// record and its export, not a span's life in the registry and every layer. It ends when
/// dropped.
#[derive(Debug)]
#[must_use = "a step ends when dropped"]
pub struct Step(Option<Open>);

impl Step {
    /// Starts the step `name` under the recorded span this thread is in; nothing when the
    /// thread is in none (the query is not traced).
    pub(crate) fn start(name: &'static str) -> Step {
        if !entered() {
            return Step(None);
        }
        Step(tracing::dispatcher::get_default(|dispatch| {
            let recorder = dispatch.downcast_ref::<Recorder>()?;
            let registry = dispatch.downcast_ref::<tracing_subscriber::Registry>()?;
            let current = tracing::Subscriber::current_span(registry);
            let span = registry.span(current.id()?)?;
            // The nearest span the recorder keeps: the current one may be another layer's.
            let parent = span.scope().find_map(|span| {
                span.extensions()
                    .get::<Open>()
                    .map(|open| (open.trace_id, open.span_id, open.trace_state.clone()))
            })?;
            let (trace_id, parent_span_id, trace_state) = parent;
            Some(Open {
                trace_id,
                span_id: recorder.ids.new_span_id(),
                parent_span_id,
                parent_is_remote: false,
                trace_state,
                name: Cow::Borrowed(name),
                kind: SpanKind::Internal,
                start: SystemTime::now(),
                attributes: Vec::new(),
                links: Vec::new(),
                status: Status::Unset,
            })
        }))
    }
}

impl Drop for Step {
    fn drop(&mut self) {
        let mut open = self.0.take();
        if open.is_none() {
            return;
        }
        tracing::dispatcher::get_default(|dispatch| {
            if let (Some(recorder), Some(open)) = (dispatch.downcast_ref::<Recorder>(), open.take())
            {
                recorder.end(open);
            }
        });
    }
}

/// Runs `change` on the record of `span` (nothing when the span is disabled or not recorded).
fn with_open(span: &tracing::Span, change: impl FnOnce(&mut Open)) {
    span.with_subscriber(|(id, dispatch)| {
        let Some(registry) = dispatch.downcast_ref::<tracing_subscriber::Registry>() else {
            return;
        };
        if let Some(span) = registry.span(id)
            && let Some(open) = span.extensions_mut().get_mut::<Open>()
        {
            change(open);
        }
    });
}

/// Makes `span` continue the remote span `parent`: its trace, with `parent` as its parent.
pub(crate) fn adopt(span: &tracing::Span, parent: &SpanContext) {
    with_open(span, |open| {
        open.trace_id = parent.trace_id();
        open.parent_span_id = parent.span_id();
        open.parent_is_remote = parent.is_remote();
        open.trace_state = parent.trace_state().clone();
    });
}

/// Sets an attribute of `span`.
pub(crate) fn set_attribute(span: &tracing::Span, key: Key, value: Value) {
    with_open(span, |open| open.set(key, value));
}

/// Sets the status of `span`.
pub(crate) fn set_status(span: &tracing::Span, status: Status) {
    with_open(span, |open| open.status = status);
}
