//! One query as a line of the log: a JSON object with Neo4j's `query.log` field names
//! (`time`, `level`, `event`, `type`, `elapsedTimeMs`, `waiting`, `planning`, `cpu`,
//! `allocatedBytes`, `source`, `database`, `username`, `query`, `queryParameters`,
//! `annotationData`, `transactionId`, `failureReason`), plus `rows`, which Quiver adds.
//! Figures the server does not measure (`cpu` unless asked for, page hits and faults, and a
//! failed query's planning and memory) are left out rather than written as zero;
//! `allocatedBytes` is the most memory the query held at once, as its accounting counts it.

use std::net::SocketAddr;

use quiver_value::{Map, Value};
use serde_json::{Map as Json, Value as JsonValue};

use super::obfuscate::{obfuscate_parameters, obfuscate_text};
use super::{FinishedQuery, Protocol};
use crate::audit::rfc3339;

/// The line for `query`, newline included.
pub fn render(query: &FinishedQuery) -> Vec<u8> {
    let hidden = obfuscate_text(&query.text);
    let mut line = Json::new();
    let mut put = |key: &str, value: JsonValue| {
        line.insert(key.to_owned(), value);
    };
    put("time", JsonValue::from(rfc3339(query.started)));
    let failed = query.failure.is_some();
    put(
        "level",
        JsonValue::from(if failed { "ERROR" } else { "INFO" }),
    );
    put(
        "event",
        JsonValue::from(if failed { "fail" } else { "success" }),
    );
    put("type", JsonValue::from("query"));
    put("elapsedTimeMs", JsonValue::from(millis(query.elapsed)));
    if let Some(waiting) = query.waiting {
        put("waiting", JsonValue::from(millis(waiting)));
    }
    if let Some(figures) = &query.figures {
        put("planning", JsonValue::from(millis(figures.planning)));
        if let Some(cpu) = figures.cpu {
            put("cpu", JsonValue::from(millis(cpu)));
        }
        put("allocatedBytes", JsonValue::from(figures.memory_peak_bytes));
    }
    put("rows", JsonValue::from(query.rows));
    put(
        "source",
        JsonValue::from(source(query.protocol, query.client)),
    );
    put("database", JsonValue::from(&*query.database));
    let user = query.user.as_deref().unwrap_or("");
    put("username", JsonValue::from(user));
    put("authenticatedUser", JsonValue::from(user));
    put("executingUser", JsonValue::from(user));
    put("query", JsonValue::from(hidden.text));
    if let Some(parameters) = &query.parameters {
        let shown = obfuscate_parameters(parameters, &hidden.secret_parameters);
        put("queryParameters", map_json(&shown));
    }
    put("annotationData", map_json(&query.metadata));
    if let Some(id) = &query.transaction_id {
        put("transactionId", JsonValue::from(id.as_str()));
    }
    if let Some(failure) = &query.failure {
        put("failureReason", JsonValue::from(failure.as_str()));
    }
    let mut bytes = JsonValue::Object(line).to_string().into_bytes();
    bytes.push(b'\n');
    bytes
}

fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Neo4j's `source`: the session kind, the protocol and the client's address.
fn source(protocol: Protocol, client: Option<SocketAddr>) -> String {
    let (session, name) = match protocol {
        Protocol::Bolt => ("bolt-session", "bolt"),
        Protocol::Http => ("server-session", "http"),
    };
    let client = client.map_or_else(String::new, |addr| addr.to_string());
    format!("{session}\t{name}\tclient/{client}")
}

fn map_json(map: &Map) -> JsonValue {
    JsonValue::Object(
        map.iter()
            .map(|(key, value)| (key.to_string(), value_json(value)))
            .collect(),
    )
}

/// JSON's own types where they fit; every other value as Cypher writes it.
fn value_json(value: &Value) -> JsonValue {
    match value {
        Value::Null => JsonValue::Null,
        Value::Bool(b) => JsonValue::from(*b),
        Value::Int(i) => JsonValue::from(*i),
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map_or_else(|| JsonValue::from(f.to_string()), JsonValue::Number),
        Value::String(s) => JsonValue::from(s.as_ref()),
        Value::List(items) => JsonValue::Array(items.iter().map(value_json).collect()),
        Value::Map(map) => map_json(map),
        other => JsonValue::from(other.to_string()),
    }
}
