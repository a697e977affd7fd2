//! Change data capture as Neo4j 5 offers it: `db.cdc.current()`, `db.cdc.earliest()` and
//! `db.cdc.query(from, selectors)`, read from the commit log the store's capture mode
//! enriched (see `quiver_storage::Capture`).
//!
//! A change identifier points between two changes: after change `seq` of commit `commit`
//! (`seq` = [`AFTER_COMMIT`]: after all of them). It carries the commit's time too, so an
//! identifier from another database, or from this one before it was restored to an earlier
//! point, is refused rather than read as someone else's history. `query` returns the changes
//! after its identifier, each with the identifier that points right after it: a reader
//! resumes from the last one it processed.

use std::sync::Arc;

use base64::Engine as _;
use quiver_status::Status;
use quiver_storage::{Capture, History, RedoOpRef, RedoRecordRef, Storage};
use quiver_value::{Map, Value};

use crate::error::{Error, Result};
use crate::procedures::native::{Native, list_of};
use crate::procedures::{FieldType, ProcedureContext};

/// The `seq` of an identifier that points after every change of its commit.
pub const AFTER_COMMIT: u32 = u32::MAX;
const ID_VERSION: u8 = 1;
const ID_BYTES: usize = 1 + 8 + 4 + 8;

/// A position in the change stream (see the module's description).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangeId {
    pub commit: u64,
    pub seq: u32,
    /// The commit's time in Unix microseconds; 0 when unknown (before the first commit).
    pub commit_micros: i64,
}

impl ChangeId {
    /// The identifier's text: URL-safe base64 of its version, commit, sequence and time.
    pub fn encode(self) -> String {
        let mut bytes = Vec::with_capacity(ID_BYTES);
        bytes.push(ID_VERSION);
        bytes.extend_from_slice(&self.commit.to_be_bytes());
        bytes.extend_from_slice(&self.seq.to_be_bytes());
        bytes.extend_from_slice(&self.commit_micros.to_be_bytes());
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }

    /// Reads an identifier's text; anything else is `InvalidIdentifier`.
    pub fn decode(text: &str) -> Result<ChangeId> {
        let invalid = || {
            Error::runtime(
                Status::ChangeIdentifierInvalid,
                None,
                format!(
                    "`{text}` is not a change identifier of this database: use one that \
                     db.cdc.earliest(), db.cdc.current() or db.cdc.query() returned"
                ),
            )
        };
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(text.trim_end_matches('='))
            .map_err(|_| invalid())?;
        if bytes.len() != ID_BYTES || bytes[0] != ID_VERSION {
            return Err(invalid());
        }
        let word = |at: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[at..at + 8]);
            b
        };
        let mut seq = [0u8; 4];
        seq.copy_from_slice(&bytes[9..13]);
        Ok(ChangeId {
            commit: u64::from_be_bytes(word(1)),
            seq: u32::from_be_bytes(seq),
            commit_micros: i64::from_be_bytes(word(13)),
        })
    }
}

/// The procedures, registered with the database's built-ins.
pub(crate) fn procedures() -> Vec<Native> {
    vec![
        Native::new(
            "db.cdc.current",
            "Returns the change identifier of the last committed transaction: a query from it \
             returns the changes committed after it.",
            current,
        )
        .output("id", FieldType::String),
        Native::new(
            "db.cdc.earliest",
            "Returns the change identifier of the earliest change the commit log still holds.",
            earliest,
        )
        .output("id", FieldType::String),
        Native::new(
            "db.cdc.query",
            "Returns the changes committed after the given change identifier, in commit order, \
             that match any of the selectors (all when none is given).",
            query,
        )
        .input_or("from", FieldType::String, Value::from(""))
        .input_or(
            "selectors",
            list_of(FieldType::Map),
            Value::List(Arc::from([])),
        )
        .output("id", FieldType::String)
        .output("txId", FieldType::Integer)
        .output("seq", FieldType::Integer)
        .output("metadata", FieldType::Map)
        .output("event", FieldType::Map),
    ]
}

/// The store's history, when capture is on and a commit log is kept.
fn history(storage: &Storage) -> Result<Arc<dyn History>> {
    if storage.capture() == Capture::Off {
        return Err(Error::runtime(
            Status::ChangeCaptureDisabled,
            None,
            "change data capture is off for this database: start the server with \
             `--cdc full` (or `diff`), or set `cdc` in its configuration",
        ));
    }
    storage.history().ok_or_else(|| {
        Error::runtime(
            Status::ChangeCaptureDisabled,
            None,
            "change data capture reads the commit log, and this database keeps none (it runs \
             without a data directory)",
        )
    })
}

fn scan_failure(reason: impl std::fmt::Display) -> Error {
    Error::runtime(
        Status::ChangeScanFailure,
        None,
        format!("the changes cannot be read from the commit log: {reason}"),
    )
}

/// The commit time a record carries (0 when it has none).
fn record_time(body: &[u8]) -> Result<i64> {
    let (record, _) = RedoRecordRef::decode(body).map_err(scan_failure)?;
    Ok(record.commit_time().unwrap_or(0))
}

/// The identifier after every change of the newest commit, its time read from the log when
/// the log holds it (a snapshot may have made it redundant: then it is not checked).
fn after_newest(history: &dyn History) -> Result<ChangeId> {
    let span = history.span().map_err(scan_failure)?;
    let commit = span.map_or(0, |(_, newest)| newest);
    let mut commit_micros = 0;
    if span.is_some_and(|(oldest, newest)| oldest <= newest) {
        let mut body_time = None;
        history
            .read_after(commit - 1, &mut |c, body| {
                if c == commit {
                    body_time = Some(record_time(body));
                }
                false
            })
            .map_err(scan_failure)?;
        if let Some(time) = body_time {
            commit_micros = time?;
        }
    }
    Ok(ChangeId {
        commit,
        seq: AFTER_COMMIT,
        commit_micros,
    })
}

/// The identifier before the oldest change the log holds (its commit's time cannot be read,
/// so it is not checked).
fn before_oldest(span: Option<(u64, u64)>) -> ChangeId {
    ChangeId {
        commit: span.map_or(0, |(oldest, _)| oldest.saturating_sub(1)),
        seq: AFTER_COMMIT,
        commit_micros: 0,
    }
}

// Procedure bodies share one signature, failing or not.
fn current(ctx: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
    let id = after_newest(&*history(ctx.storage)?)?;
    Ok(vec![vec![Value::from(id.encode())]])
}

fn earliest(ctx: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
    let span = history(ctx.storage)?.span().map_err(scan_failure)?;
    let id = before_oldest(span);
    Ok(vec![vec![Value::from(id.encode())]])
}

/// One change read from the log, before it is shaped for the client.
struct Change {
    id: ChangeId,
    context: Arc<Map>,
    event: Arc<Map>,
}

/// Where the log is read from for changes after `from`, given the commits it holds
/// (`span`): the identifier's own commit when the log holds it (to check its time, and for
/// the changes after `seq` in it), else the commit right before the oldest held. An
/// identifier past the newest commit is another database's; one whose changes the log no
/// longer holds is a scan failure.
fn read_from(from: ChangeId, span: Option<(u64, u64)>) -> Result<u64> {
    let newest = span.map_or(0, |(_, n)| n);
    if from.commit > newest {
        return Err(Error::runtime(
            Status::ChangeIdentifierInvalid,
            None,
            format!(
                "the change identifier points at commit {}, after this database's newest \
                 ({newest}): it is another database's",
                from.commit
            ),
        ));
    }
    let oldest = span.map_or(newest + 1, |(o, _)| o);
    if from.commit >= oldest {
        return Ok(from.commit - 1);
    }
    if from.seq == AFTER_COMMIT && from.commit + 1 == oldest {
        return Ok(from.commit);
    }
    Err(scan_failure(format!(
        "the change identifier points at commit {}, and the log now starts at commit \
         {oldest}: its changes are past the log's retention (keep more log with \
         `log_retention_ms` or `log_retention_bytes`)",
        from.commit
    )))
}

fn query(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "db.cdc.query";
    let history = history(ctx.storage)?;
    let span = history.span().map_err(scan_failure)?;
    let from = match args.first() {
        Some(Value::String(s)) if !s.is_empty() => ChangeId::decode(s)?,
        // No identifier: from the earliest change held, as Neo4j does.
        _ => before_oldest(span),
    };
    let selectors = match args.get(1) {
        Some(Value::List(items)) => items
            .iter()
            .map(Selector::parse)
            .collect::<Result<Vec<_>>>()?,
        _ => Vec::new(),
    };
    let after = read_from(from, span)?;
    let here = Here {
        server_id: crate::metadata::servers::this_server(&ctx.settings()).id,
        database_id: crate::metadata::values::database_id_of(ctx.shared),
    };
    let mut out = Vec::new();
    let mut failure: Option<Error> = None;
    let mut held = 0usize;
    history
        .read_after(after, &mut |commit, body| {
            let step = (|| -> Result<()> {
                ctx.tick(NAME)?;
                let (record, _) = RedoRecordRef::decode(body).map_err(scan_failure)?;
                let time = record.commit_time().unwrap_or(0);
                if commit == from.commit {
                    if from.commit_micros != 0 && time != 0 && time != from.commit_micros {
                        return Err(Error::runtime(
                            Status::ChangeIdentifierInvalid,
                            None,
                            format!(
                                "commit {commit} of this database is not the one the change \
                                 identifier names (another database's, or this one's before \
                                 it was restored to an earlier point)"
                            ),
                        ));
                    }
                    if from.seq == AFTER_COMMIT {
                        return Ok(());
                    }
                }
                for change in changes_of(commit, time, &record)? {
                    if commit == from.commit && change.id.seq <= from.seq {
                        continue;
                    }
                    if !selectors.is_empty() && !selectors.iter().any(|s| s.matches(&change)) {
                        continue;
                    }
                    let row = shape(&change, time, &here);
                    let bytes = row.iter().map(crate::eval::value_bytes).sum::<usize>();
                    ctx.reserve(NAME, bytes, "the changes db.cdc.query returns")?;
                    held += bytes;
                    out.push(row);
                }
                Ok(())
            })();
            match step {
                Ok(()) => true,
                Err(e) => {
                    failure = Some(e);
                    false
                }
            }
        })
        .map_err(scan_failure)?;
    // The rows go to the caller, who counts them from here on.
    let _ = ctx.release(NAME, held);
    match failure {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// The changes a record captured, numbered in order from 0.
fn changes_of(commit: u64, commit_micros: i64, record: &RedoRecordRef<'_>) -> Result<Vec<Change>> {
    let mut context = Arc::new(Map::new());
    let mut changes = Vec::new();
    for op in &record.ops {
        match op {
            RedoOpRef::TxContext { document } => {
                if let Value::Map(m) = document.value().map_err(scan_failure)? {
                    context = m;
                }
            }
            RedoOpRef::Change { document } => {
                let Value::Map(event) = document.value().map_err(scan_failure)? else {
                    return Err(scan_failure(format!(
                        "commit {commit} holds a change that is not a map"
                    )));
                };
                let seq = u32::try_from(changes.len())
                    .ok()
                    .filter(|&s| s != AFTER_COMMIT)
                    .ok_or_else(|| scan_failure("a commit with too many changes"))?;
                changes.push(Change {
                    id: ChangeId {
                        commit,
                        seq,
                        commit_micros,
                    },
                    context: context.clone(),
                    event,
                });
            }
            _ => {}
        }
    }
    Ok(changes)
}

fn micros_to_datetime(micros: i64) -> Value {
    crate::metadata::values::utc(quiver_value::temporal::Instant::from_epoch_micros(micros))
}

fn get<'a>(map: &'a Map, key: &str) -> &'a Value {
    map.get(key).unwrap_or(&Value::Null)
}

/// A stored end or event with its `id` replaced by Neo4j's `elementId`.
fn with_element_id(map: &Map, node: bool) -> Value {
    let mut out = Map::new();
    for (k, v) in map {
        if &**k == "id" {
            if let Value::Int(id) = v {
                let id = u64::try_from(*id).unwrap_or_default();
                let element = if node {
                    quiver_value::graph::node_element_id(id)
                } else {
                    quiver_value::graph::relationship_element_id(id)
                };
                out.insert("elementId".into(), Value::from(element));
            }
        } else {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Map(Arc::new(out))
}

/// The server and database changes are reported from.
struct Here {
    server_id: String,
    database_id: String,
}

/// A change as `db.cdc.query` returns it: id, txId, seq, metadata and event.
fn shape(change: &Change, commit_micros: i64, here: &Here) -> Vec<Value> {
    let c = &change.context;
    let mut metadata = Map::new();
    for key in [
        "executingUser",
        "authenticatedUser",
        "captureMode",
        "connectionType",
        "connectionClient",
        "connectionServer",
    ] {
        metadata.insert(key.into(), get(c, key).clone());
    }
    metadata.insert("serverId".into(), Value::from(here.server_id.as_str()));
    metadata.insert("databaseId".into(), Value::from(here.database_id.as_str()));
    metadata.insert(
        "txStartTime".into(),
        match get(c, "txStartTime") {
            Value::Int(micros) => micros_to_datetime(*micros),
            _ => Value::Null,
        },
    );
    metadata.insert("txCommitTime".into(), micros_to_datetime(commit_micros));
    metadata.insert(
        "txMetadata".into(),
        match get(c, "txMetadata") {
            Value::Map(m) => Value::Map(m.clone()),
            _ => Value::Map(Arc::new(Map::new())),
        },
    );
    let node = matches!(get(&change.event, "eventType"), Value::String(s) if &**s == "n");
    let mut event = match with_element_id(&change.event, node) {
        Value::Map(m) => Arc::unwrap_or_clone(m),
        _ => Map::new(),
    };
    if !node {
        for end in ["start", "end"] {
            if let Some(Value::Map(m)) = event.get(end).cloned() {
                event.insert(end.into(), with_element_id(&m, true));
            }
        }
    }
    vec![
        Value::from(change.id.encode()),
        Value::Int(i64::try_from(change.id.commit).unwrap_or(i64::MAX)),
        Value::Int(i64::from(change.id.seq)),
        Value::Map(Arc::new(metadata)),
        Value::Map(Arc::new(event)),
    ]
}

/// Which entities a selector takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Select {
    Entities,
    Nodes,
    Relationships,
}

/// A relationship end a selector names: its element id, labels and key.
#[derive(Debug, Default)]
struct EndSelector {
    element_id: Option<Arc<str>>,
    labels: Vec<Arc<str>>,
    key: Option<Arc<Map>>,
}

/// One of `db.cdc.query`'s selectors (Neo4j's fields; all but `select` optional).
#[derive(Debug)]
struct Selector {
    select: Select,
    operation: Option<Arc<str>>,
    changes_to: Vec<Arc<str>>,
    element_id: Option<Arc<str>>,
    key: Option<Arc<Map>>,
    labels: Vec<Arc<str>>,
    rel_type: Option<Arc<str>>,
    start: Option<EndSelector>,
    end: Option<EndSelector>,
    executing_user: Option<Arc<str>>,
    authenticated_user: Option<Arc<str>>,
    tx_metadata: Option<Arc<Map>>,
}

fn selector_error(message: impl Into<String>) -> Error {
    Error::runtime(Status::ProcedureCallFailed, None, message)
}

fn text_field(map: &Map, key: &str) -> Result<Option<Arc<str>>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(selector_error(format!(
            "the selector's `{key}` must be a string, not {other:?}"
        ))),
    }
}

fn texts_field(map: &Map, key: &str) -> Result<Vec<Arc<str>>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::List(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(selector_error(format!(
                    "the selector's `{key}` must be a list of strings, not one holding {other:?}"
                ))),
            })
            .collect(),
        Some(other) => Err(selector_error(format!(
            "the selector's `{key}` must be a list of strings, not {other:?}"
        ))),
    }
}

fn map_field(map: &Map, key: &str) -> Result<Option<Arc<Map>>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Map(m)) => Ok(Some(m.clone())),
        Some(other) => Err(selector_error(format!(
            "the selector's `{key}` must be a map, not {other:?}"
        ))),
    }
}

const SELECTOR_FIELDS: &[&str] = &[
    "select",
    "operation",
    "changesTo",
    "elementId",
    "key",
    "labels",
    "type",
    "start",
    "end",
    "executingUser",
    "authenticatedUser",
    "txMetadata",
];

impl Selector {
    fn parse(value: &Value) -> Result<Selector> {
        let Value::Map(map) = value else {
            return Err(selector_error(format!(
                "a selector must be a map, not {value:?}"
            )));
        };
        if let Some(unknown) = map.keys().find(|k| !SELECTOR_FIELDS.contains(&&***k)) {
            return Err(selector_error(format!(
                "unknown selector field `{unknown}`: a selector takes {}",
                SELECTOR_FIELDS.join(", ")
            )));
        }
        let select = match text_field(map, "select")?.as_deref() {
            Some("e") => Select::Entities,
            Some("n") => Select::Nodes,
            Some("r") => Select::Relationships,
            Some(other) => {
                return Err(selector_error(format!(
                    "a selector's `select` is \"e\", \"n\" or \"r\", not \"{other}\""
                )));
            }
            None => {
                return Err(selector_error(
                    "a selector needs `select`: \"e\" (entities), \"n\" (nodes) or \"r\" \
                     (relationships)",
                ));
            }
        };
        let operation = text_field(map, "operation")?;
        if let Some(op) = operation.as_deref()
            && !matches!(op, "c" | "u" | "d")
        {
            return Err(selector_error(format!(
                "a selector's `operation` is \"c\", \"u\" or \"d\", not \"{op}\""
            )));
        }
        let only = |field: &str, allowed: Select| -> Result<()> {
            if map.contains_key(field) && select != allowed {
                return Err(selector_error(format!(
                    "the selector field `{field}` needs `select: \"{}\"`",
                    if allowed == Select::Nodes { "n" } else { "r" }
                )));
            }
            Ok(())
        };
        only("labels", Select::Nodes)?;
        only("type", Select::Relationships)?;
        only("start", Select::Relationships)?;
        only("end", Select::Relationships)?;
        if select == Select::Entities {
            for field in ["elementId", "key"] {
                if map.contains_key(field) {
                    return Err(selector_error(format!(
                        "the selector field `{field}` needs `select: \"n\"` or `select: \"r\"`"
                    )));
                }
            }
        }
        let end = |key: &str| -> Result<Option<EndSelector>> {
            let Some(m) = map_field(map, key)? else {
                return Ok(None);
            };
            Ok(Some(EndSelector {
                element_id: text_field(&m, "elementId")?,
                labels: texts_field(&m, "labels")?,
                key: map_field(&m, "key")?,
            }))
        };
        Ok(Selector {
            select,
            operation,
            changes_to: texts_field(map, "changesTo")?,
            element_id: text_field(map, "elementId")?,
            key: map_field(map, "key")?,
            labels: texts_field(map, "labels")?,
            rel_type: text_field(map, "type")?,
            start: end("start")?,
            end: end("end")?,
            executing_user: text_field(map, "executingUser")?,
            authenticated_user: text_field(map, "authenticatedUser")?,
            tx_metadata: map_field(map, "txMetadata")?,
        })
    }

    fn matches(&self, change: &Change) -> bool {
        let event = &change.event;
        let node = matches!(get(event, "eventType"), Value::String(s) if &**s == "n");
        let id = match get(event, "id") {
            Value::Int(id) => u64::try_from(*id).unwrap_or_default(),
            _ => 0,
        };
        let kind_ok = match self.select {
            Select::Entities => true,
            Select::Nodes => node,
            Select::Relationships => !node,
        };
        let text_is = |value: &Value, want: &Option<Arc<str>>| match want {
            None => true,
            Some(want) => matches!(value, Value::String(s) if s == want),
        };
        let state = |which: &str| match get(event, "state") {
            Value::Map(s) => match get(s, which) {
                Value::Map(m) => Some(m.clone()),
                _ => None,
            },
            _ => None,
        };
        let (before, after) = (state("before"), state("after"));
        let props = |s: &Option<Arc<Map>>| match s.as_deref().map(|m| get(m, "properties")) {
            Some(Value::Map(p)) => Some(p.clone()),
            _ => None,
        };
        let (before_props, after_props) = (props(&before), props(&after));
        let changed = |key: &Arc<str>| {
            let old = before_props.as_ref().and_then(|p| p.get(key));
            let new = after_props.as_ref().and_then(|p| p.get(key));
            (old.is_some() || new.is_some()) && old != new
        };
        let labels_now = |s: &Option<Arc<Map>>| match s.as_deref().map(|m| get(m, "labels")) {
            Some(Value::List(l)) => l.to_vec(),
            _ => Vec::new(),
        };
        let has_label = |l: &Arc<str>| {
            let l = Value::String(l.clone());
            labels_now(&before).contains(&l) || labels_now(&after).contains(&l)
        };
        let element = || {
            if node {
                quiver_value::graph::node_element_id(id)
            } else {
                quiver_value::graph::relationship_element_id(id)
            }
        };
        kind_ok
            && text_is(get(event, "operation"), &self.operation)
            && self.changes_to.iter().all(changed)
            && self.element_id.as_deref().is_none_or(|e| e == element())
            && self
                .key
                .as_deref()
                .is_none_or(|k| keys_match(get(event, "keys"), k))
            && self.labels.iter().all(has_label)
            && text_is(get(event, "type"), &self.rel_type)
            && self
                .start
                .as_ref()
                .is_none_or(|s| s.matches(get(event, "start")))
            && self
                .end
                .as_ref()
                .is_none_or(|s| s.matches(get(event, "end")))
            && text_is(get(&change.context, "executingUser"), &self.executing_user)
            && text_is(
                get(&change.context, "authenticatedUser"),
                &self.authenticated_user,
            )
            && self.tx_metadata.as_deref().is_none_or(|want| {
                match get(&change.context, "txMetadata") {
                    Value::Map(have) => contains(have, want),
                    _ => want.is_empty(),
                }
            })
    }
}

impl EndSelector {
    fn matches(&self, end: &Value) -> bool {
        let Value::Map(end) = end else {
            return false;
        };
        let id = match get(end, "id") {
            Value::Int(id) => u64::try_from(*id).unwrap_or_default(),
            _ => return false,
        };
        let labels = match get(end, "labels") {
            Value::List(l) => l.to_vec(),
            _ => Vec::new(),
        };
        self.element_id
            .as_deref()
            .is_none_or(|e| e == quiver_value::graph::node_element_id(id))
            && self
                .labels
                .iter()
                .all(|l| labels.contains(&Value::String(l.clone())))
            && self
                .key
                .as_deref()
                .is_none_or(|k| keys_match(get(end, "keys"), k))
    }
}

/// Whether every entry of `want` is in `have`, with an equal value.
fn contains(have: &Map, want: &Map) -> bool {
    want.iter()
        .all(|(k, v)| have.get(k).is_some_and(|h| h == v))
}

/// Whether one of an entity's key maps (a node's `{Label: [maps]}`, a relationship's
/// `[maps]`) holds every entry of `want`.
fn keys_match(keys: &Value, want: &Map) -> bool {
    let any_in = |maps: &Value| match maps {
        Value::List(items) => items
            .iter()
            .any(|m| matches!(m, Value::Map(m) if contains(m, want))),
        _ => false,
    };
    match keys {
        Value::Map(by_label) => by_label.values().any(any_in),
        list => any_in(list),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log whose segments a snapshot removed, holding no commit yet: it starts after the
    /// newest, and reading before its start fails as a real log does.
    struct Emptied;

    impl History for Emptied {
        fn span(&self) -> std::result::Result<Option<(u64, u64)>, String> {
            Ok(Some((6, 5)))
        }

        fn read_after(
            &self,
            after: u64,
            _: &mut dyn FnMut(u64, &[u8]) -> bool,
        ) -> std::result::Result<(), String> {
            if after + 1 < 6 {
                return Err(format!("the log no longer holds commit {}", after + 1));
            }
            Ok(())
        }
    }

    #[test]
    fn current_and_earliest_over_a_log_that_holds_no_commit_point_after_the_newest() {
        let current = after_newest(&Emptied).expect("current");
        let earliest = before_oldest(Emptied.span().expect("span"));
        for id in [current, earliest] {
            assert_eq!((id.commit, id.seq), (5, AFTER_COMMIT));
            assert_eq!(read_from(id, Some((6, 5))).expect("readable"), 5);
        }
    }

    #[test]
    fn a_change_identifier_reads_back_as_written() {
        let id = ChangeId {
            commit: 42,
            seq: 7,
            commit_micros: 1_700_000_000_000_000,
        };
        assert_eq!(ChangeId::decode(&id.encode()).expect("decodes"), id);
    }

    #[test]
    fn text_that_is_no_change_identifier_is_refused_as_invalid() {
        for text in ["", "not base64!", "AAAA", &"A".repeat(200)] {
            let e = ChangeId::decode(text).expect_err(text);
            assert_eq!(e.status_code(), Status::ChangeIdentifierInvalid, "{text}");
        }
    }

    #[test]
    fn a_selector_without_select_or_with_an_unknown_field_is_refused() {
        let map = |entries: &[(&str, Value)]| {
            Value::Map(Arc::new(
                entries
                    .iter()
                    .map(|(k, v)| (Arc::from(*k), v.clone()))
                    .collect(),
            ))
        };
        for bad in [
            map(&[]),
            map(&[("select", Value::from("x"))]),
            map(&[("select", Value::from("e")), ("colour", Value::from("red"))]),
            map(&[
                ("select", Value::from("r")),
                ("labels", Value::from(vec![Value::from("A")])),
            ]),
            map(&[
                ("select", Value::from("n")),
                ("operation", Value::from("z")),
            ]),
        ] {
            let e = Selector::parse(&bad).expect_err("refused");
            assert_eq!(e.status_code(), Status::ProcedureCallFailed);
        }
    }
}
