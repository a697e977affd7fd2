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
    /// The caller's W3C `traceparent` and `tracestate` (transaction metadata or headers).
    pub traceparent: Option<&'a str>,
    pub tracestate: Option<&'a str>,
    /// The rest of the metadata the driver sent, as text: each becomes an attribute
    /// `quiver.transaction.metadata.<key>`.
    pub metadata: Vec<(&'a str, String)>,
}

impl Policy {
    /// The span of a transaction, continuing its caller's trace; a disabled span (nothing
    /// made) when the transaction is not traced.
    pub fn transaction_span(&self, about: &TransactionAbout<'_>) -> tracing::Span {
        let parent = about
            .traceparent
            .and_then(|text| Parent::read(text, about.tracestate));
        if !self.traced(parent.as_ref()) {
            return tracing::Span::none();
        }
        let span = tracing::info_span!(
            target: TARGET,
            "transaction",
            otel.name = format!("transaction {}", about.database),
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
            span.record("client.address", client.ip().to_string());
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
        if let Some(parent) = &parent {
            parent.adopt(&span);
        }
        span
    }

    /// The span of a query in `transaction`'s (nothing when the transaction is not traced):
    /// entered on each thread that runs the query, so the engine's steps become its children.
    pub fn query_span(
        &self,
        transaction: &tracing::Span,
        database: &str,
        text: &str,
    ) -> tracing::Span {
        if transaction.is_disabled() {
            return tracing::Span::none();
        }
        let operation = operation_name(text);
        let span = tracing::info_span!(
            target: TARGET,
            parent: transaction,
            "query",
            otel.name = format!("{operation} {database}"),
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

/// `db.operation.name`: the query's first keyword, upper case (`MATCH`, `CREATE`, `CALL`…),
/// after a leading `USE name`, `EXPLAIN` or `PROFILE` and comments; `QUERY` when it starts
/// otherwise.
pub fn operation_name(text: &str) -> &'static str {
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
    let mut words = text
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .flat_map(str::split_whitespace);
    while let Some(word) = words.next() {
        let word = word.trim_start_matches('(');
        let upper = word.to_ascii_uppercase();
        match upper.as_str() {
            "EXPLAIN" | "PROFILE" => {}
            "USE" => {
                words.next();
            }
            _ => {
                let keyword = upper.split(|c: char| !c.is_ascii_alphabetic()).next();
                return keyword
                    .and_then(|k| KEYWORDS.iter().find(|known| **known == k))
                    .copied()
                    .unwrap_or("QUERY");
            }
        }
    }
    "QUERY"
}
