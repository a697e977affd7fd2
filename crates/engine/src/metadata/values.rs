//! What the metadata procedures and `SHOW` commands share: the one database's name and id,
//! rows of named columns, and the builders of the values they answer with.

use std::fmt::Write;
use std::sync::Arc;

use quiver_status::Status;
use quiver_value::temporal::Instant;
use quiver_value::{DateTime, Map, TimeZone, Value};

use crate::error::Error;

/// The one database's name.
pub(crate) const DATABASE_NAME: &str = "neo4j";

/// Where a database without settings says clients reach it: Neo4j's default Bolt port.
pub(crate) const DEFAULT_BOLT_ADDRESS: &str = "localhost:7687";

/// The database's id: stable for its name, shaped like Neo4j's (64 hex digits).
/// The id of `shared`'s database: its catalog's (stable, new for a database made again), or
/// for a database on its own, [`database_id`].
pub(crate) fn database_id_of(shared: &crate::state::DatabaseState) -> String {
    let name = shared.names().name;
    shared
        .catalog()
        .and_then(|catalog| catalog.databases().into_iter().find(|d| *d.name == *name))
        .map_or_else(database_id, |d| d.id)
}

pub(crate) fn database_id() -> String {
    // FNV-1a over the name, spread over four words so the id has Neo4j's length.
    let mut words = [0u64; 4];
    for (i, word) in words.iter_mut().enumerate() {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ (i as u64);
        for b in DATABASE_NAME.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        *word = h;
    }
    words.iter().fold(String::with_capacity(64), |mut id, w| {
        let _ = write!(id, "{w:016X}");
        id
    })
}

/// A `DATETIME` in UTC.
pub(crate) fn utc(instant: Instant) -> Value {
    DateTime::from_instant(instant.seconds, instant.nanos, TimeZone::Offset(0))
        .map_or(Value::Null, |dt| Value::DateTime(Box::new(dt)))
}

/// A row as (column, value) pairs; columns it leaves out are null.
pub(crate) type Named = Vec<(&'static str, Value)>;

/// The value of `column` in a row; null when the row leaves it out.
pub(crate) fn field<'r>(row: &'r Named, column: &str) -> Option<&'r Value> {
    row.iter().find(|(c, _)| *c == column).map(|(_, v)| v)
}

/// A procedure's failure on its arguments or state: `Neo.ClientError.Procedure.ProcedureCallFailed`
/// naming what to fix.
pub(super) fn call_failed(message: impl Into<String>) -> Error {
    Error::runtime(Status::ProcedureCallFailed, None, message)
}

/// A string list value.
pub(super) fn strings<I, S>(items: I) -> Value
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    Value::from(
        items
            .into_iter()
            .map(|s| Value::from(s.as_ref()))
            .collect::<Vec<_>>(),
    )
}

/// A map from string keys.
pub(super) fn entries<I>(entries: I) -> Map
where
    I: IntoIterator<Item = (String, Value)>,
{
    entries
        .into_iter()
        .map(|(k, v)| (Arc::<str>::from(k), v))
        .collect()
}

/// A map value from string keys.
pub(super) fn map<I>(items: I) -> Value
where
    I: IntoIterator<Item = (String, Value)>,
{
    Value::map(entries(items))
}
