//! The options of a vector index: read from `CREATE VECTOR INDEX ... OPTIONS` (and
//! `db.index.vector.createNodeIndex`), shown in `SHOW INDEXES`.

use std::sync::Arc;

use quiver_status::Status;
use quiver_storage::{
    HNSW_EF_CONSTRUCTION_DEFAULT, HNSW_EF_CONSTRUCTION_MAX, HNSW_EF_SEARCH_DEFAULT,
    HNSW_EF_SEARCH_MAX, HNSW_M_DEFAULT, HNSW_M_MAX, Similarity, VECTOR_DIMENSIONS_MAX,
    VectorConfig, VectorIndexInfo,
};
use quiver_value::{Map, Value};

use crate::error::Error;

/// Reads a vector index's `OPTIONS {indexConfig: {...}, indexProvider: ...}` as Neo4j 5.18+
/// accepts them: `vector.dimensions` (required), `vector.similarity_function` (default
/// cosine), `vector.quantization.enabled` (default true), `vector.hnsw.m` (default 16) and
/// `vector.hnsw.ef_construction` (default 100), and Quiver's own `vector.hnsw.ef_search` (the
/// candidate list a search keeps, default 64). The error says which setting is wrong.
pub fn config_of(options: &Value) -> std::result::Result<VectorConfig, String> {
    let empty = Map::new();
    let options = match options {
        Value::Null => &empty,
        Value::Map(m) => &**m,
        other => {
            return Err(format!(
                "OPTIONS must be a map, got {}",
                other.value_type().name()
            ));
        }
    };
    let mut config = &empty;
    for (k, v) in options {
        match (&**k, v) {
            ("indexConfig", Value::Map(m)) => config = &**m,
            ("indexConfig", Value::Null) | ("indexProvider", _) => {}
            ("indexConfig", other) => {
                return Err(format!(
                    "indexConfig must be a map, got {}",
                    other.value_type().name()
                ));
            }
            (other, _) => return Err(format!("Invalid option '{other}' for a vector index")),
        }
    }
    let mut dimensions = None;
    let mut similarity = Similarity::Cosine;
    let mut quantization = true;
    let mut hnsw_m = HNSW_M_DEFAULT;
    let mut hnsw_ef_construction = HNSW_EF_CONSTRUCTION_DEFAULT;
    let mut hnsw_ef_search = HNSW_EF_SEARCH_DEFAULT;
    let bounded = |key: &str, v: &Value, max: usize| -> std::result::Result<usize, String> {
        match v {
            Value::Int(n) if *n >= 1 && (*n as u64) <= max as u64 => Ok(*n as usize),
            _ => Err(format!(
                "'{key}' must be an integer between 1 and {max}, got {v}"
            )),
        }
    };
    for (k, v) in config {
        match &**k {
            "vector.dimensions" => {
                dimensions = Some(bounded(k, v, VECTOR_DIMENSIONS_MAX)?);
            }
            "vector.similarity_function" => {
                similarity = match v {
                    Value::String(s) => Similarity::parse(s),
                    _ => None,
                }
                .ok_or_else(|| {
                    format!("'vector.similarity_function' must be 'cosine' or 'euclidean', got {v}")
                })?;
            }
            "vector.quantization.enabled" => match v {
                Value::Bool(b) => quantization = *b,
                _ => return Err(format!("'{k}' must be a boolean, got {v}")),
            },
            "vector.hnsw.m" => hnsw_m = bounded(k, v, HNSW_M_MAX)?,
            "vector.hnsw.ef_construction" => {
                hnsw_ef_construction = bounded(k, v, HNSW_EF_CONSTRUCTION_MAX)?;
            }
            "vector.hnsw.ef_search" => hnsw_ef_search = bounded(k, v, HNSW_EF_SEARCH_MAX)?,
            other => return Err(format!("Invalid index config key '{other}'")),
        }
    }
    let dimensions =
        dimensions.ok_or("a vector index needs 'vector.dimensions' in its indexConfig")?;
    Ok(VectorConfig {
        dimensions,
        similarity,
        quantization,
        hnsw_m,
        hnsw_ef_construction,
        hnsw_ef_search,
    })
}

/// The `options` column of `SHOW INDEXES` for a vector index, as Neo4j shows it.
pub(crate) fn options_value(info: &VectorIndexInfo) -> Value {
    let c = &info.config;
    let config = Map::from_iter([
        (
            Arc::from("vector.dimensions"),
            Value::Int(c.dimensions as i64),
        ),
        (
            Arc::from("vector.similarity_function"),
            Value::from(c.similarity.name()),
        ),
        (
            Arc::from("vector.quantization.enabled"),
            Value::Bool(c.quantization),
        ),
        (Arc::from("vector.hnsw.m"), Value::Int(c.hnsw_m as i64)),
        (
            Arc::from("vector.hnsw.ef_construction"),
            Value::Int(c.hnsw_ef_construction as i64),
        ),
        (
            Arc::from("vector.hnsw.ef_search"),
            Value::Int(c.hnsw_ef_search as i64),
        ),
    ]);
    Value::map(Map::from_iter([
        (
            Arc::from("indexProvider"),
            Value::from(quiver_storage::VECTOR_PROVIDER),
        ),
        (Arc::from("indexConfig"), Value::map(config)),
    ]))
}

/// A failure of `CREATE VECTOR INDEX`'s options: Neo4j's `InvalidArgument`-class status.
pub(crate) fn options_error(message: String) -> Error {
    Error::runtime(Status::ArgumentError, Some("InvalidArgumentValue"), message)
}
