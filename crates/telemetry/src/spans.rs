//! The spans a server makes for a transaction and its queries, with the attributes
//! OpenTelemetry's database conventions name; the engine makes the steps' spans below them.

use std::net::SocketAddr;

use tracing::field::Empty;

use crate::{Parent, Policy, SYSTEM_NAME, TARGET, set_attribute};

/// What a transaction's span says of it.
#[derive(Debug, Default)]
pub struct TransactionAbout<'a> {
    /// `bolt` or `http`: `network.protocol.name`.
    pub protocol: &'static str,
    /// `db.namespace`.
    pub database: &'a str,
    /// `SHOW TRANSACTIONS`' id.
    pub id: &'a str,
    pub user: Option<&'a str>,
    pub client: Option<SocketAddr>,
    /// The rest of the metadata the driver sent, as text: each becomes an attribute
    /// `quiver.transaction.metadata.<key>`.
    pub metadata: Vec<(&'a str, String)>,
}

/// A transaction the sampler chose to trace, with the caller's context it continues.
#[derive(Debug)]
pub struct Sampled {
    parent: Option<Parent>,
}

impl Policy {
    /// Whether a transaction whose caller sent these W3C `traceparent` and `tracestate`
    /// values (in transaction metadata or headers) is traced: `None` when it is not, before
    /// anything is made of it.
    pub fn sample(&self, traceparent: Option<&str>, tracestate: Option<&str>) -> Option<Sampled> {
        let parent = traceparent.and_then(|text| Parent::read(text, tracestate));
        self.traced(parent.as_ref()).then_some(Sampled { parent })
    }
}

impl Sampled {
    /// The transaction's span, a child of the caller's span when there is one.
    pub fn transaction_span(&self, about: &TransactionAbout<'_>) -> tracing::Span {
        let span = tracing::info_span!(
            target: TARGET,
            "transaction",
            otel.name = %SpanName("transaction", about.database),
            otel.kind = "server",
            db.system.name = SYSTEM_NAME,
            db.namespace = about.database,
            network.protocol.name = about.protocol,
            client.address = Empty,
            client.port = Empty,
            user.name = Empty,
            quiver.transaction.id = about.id,
        );
        if let Some(client) = about.client {
            span.record("client.address", tracing::field::display(client.ip()));
            span.record("client.port", client.port());
        }
        if let Some(user) = about.user {
            span.record("user.name", user);
        }
        for (key, value) in &about.metadata {
            set_attribute(
                &span,
                format!("quiver.transaction.metadata.{key}"),
                value.clone(),
            );
        }
        if let Some(parent) = &self.parent {
            parent.adopt(&span);
        }
        span
    }
}

impl Policy {
    /// The span of a query in `transaction`'s (nothing when the transaction is not traced),
    /// whose first keyword is `keyword` (`keyword` is asked for only when there is a span to
    /// make): entered on each thread that runs the query, so the engine's steps become its
    /// children.
    pub fn query_span<'q>(
        &self,
        transaction: &tracing::Span,
        database: &str,
        text: &'q str,
        keyword: impl FnOnce(&'q str) -> &'q str,
    ) -> tracing::Span {
        if transaction.is_disabled() {
            return tracing::Span::none();
        }
        let operation = operation_name(keyword(text));
        let span = tracing::info_span!(
            target: TARGET,
            parent: transaction,
            "query",
            otel.name = %SpanName(operation, database),
            db.system.name = SYSTEM_NAME,
            db.namespace = database,
            db.operation.name = operation,
            db.query.text = Empty,
            db.response.returned_rows = Empty,
        );
        if self.query_text {
            span.record("db.query.text", text);
        }
        span
    }
}

/// A span's name of two words (`transaction neo4j`, `MATCH neo4j`), formatted once, by the
/// layer that keeps it.
struct SpanName<'a>(&'static str, &'a str);

impl std::fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.0, self.1)
    }
}

/// Records how many rows a query returned, and its failure if it failed (`code`, `message`).
pub fn finish_query(span: &tracing::Span, rows: u64, failure: Option<(&str, &str)>) {
    span.record("db.response.returned_rows", rows);
    if let Some((code, message)) = failure {
        crate::set_failed(span, code, message);
    }
}

/// The span of the wait for a commit to be acknowledged (on disk, or by a cluster's majority).
pub fn durable_wait_span(parent: &tracing::Span) -> tracing::Span {
    if parent.is_disabled() {
        return tracing::Span::none();
    }
    tracing::info_span!(target: TARGET, parent: parent, "durable wait")
}

/// `db.operation.name`: a query's first keyword (after `EXPLAIN`, `PROFILE` and `USE name`,
/// as a server reads it), upper case, when it is one Cypher begins with (`MATCH`, `CREATE`,
/// `CALL`…); `QUERY` otherwise.
pub fn operation_name(keyword: &str) -> &'static str {
    const KEYWORDS: &[&str] = &[
        "MATCH",
        "OPTIONAL",
        "CREATE",
        "MERGE",
        "CALL",
        "RETURN",
        "UNWIND",
        "WITH",
        "LOAD",
        "FOREACH",
        "DELETE",
        "DETACH",
        "SET",
        "REMOVE",
        "SHOW",
        "DROP",
        "ALTER",
        "GRANT",
        "REVOKE",
        "DENY",
        "START",
        "STOP",
        "TERMINATE",
        "FINISH",
        "RENAME",
        "ENABLE",
    ];
    KEYWORDS
        .iter()
        .find(|known| known.eq_ignore_ascii_case(keyword))
        .copied()
        .unwrap_or("QUERY")
}
