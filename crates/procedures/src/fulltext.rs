//! `db.index.fulltext.queryNodes`, `queryRelationships` and `listAvailableAnalyzers`, with
//! Neo4j's signatures and columns, over the store's full-text indexes.
//!
//! A bad argument fails with `Neo.ClientError.Procedure.ProcedureCallFailed` naming the
//! procedure and the argument: an unknown index, an index of the other entity kind, a query
//! the parser refuses, an option of the wrong type.

use std::sync::Arc;

use quiver_status::Status;
use quiver_storage::{FulltextEntity, FulltextError};
use quiver_value::{Node, Relationship, Value};

use quiver_engine::procedures::{
    Field, FieldType, Procedure, ProcedureContext, ProcedureSignature,
};
use quiver_engine::{Error, Result};

/// Rows a query returns when its options set no `limit`: every hit, as Neo4j does, up to the
/// store's bound on one search.
const DEFAULT_LIMIT: usize = quiver_storage::SEARCH_ROWS_MAX;

fn call_failed(procedure: &str, message: impl std::fmt::Display) -> Error {
    Error::runtime(
        Status::ProcedureCallFailed,
        None,
        format!("Failed to invoke procedure `{procedure}`: {message}"),
    )
}

struct Query {
    signature: ProcedureSignature,
    entity: FulltextEntity,
}

impl Query {
    fn new(name: &str, entity: FulltextEntity) -> Query {
        let (column, ty) = match entity {
            FulltextEntity::Node => ("node", FieldType::Node),
            FulltextEntity::Relationship => ("relationship", FieldType::Relationship),
        };
        Query {
            signature: ProcedureSignature {
                name: name.to_string(),
                inputs: vec![
                    Field::new("indexName", FieldType::String),
                    Field::new("queryString", FieldType::String),
                    Field::optional(
                        "options",
                        FieldType::Map,
                        Value::map(quiver_value::Map::default()),
                    ),
                ],
                outputs: vec![
                    Field::new(column, ty),
                    Field::new("score", FieldType::Float),
                ],
                writes: false,
            },
            entity,
        }
    }

    /// `skip` and `limit` from the options map (Neo4j's `analyzer` option is taken and
    /// must name a known analyzer; the index's own analyzer is used).
    fn options(&self, options: &Value) -> Result<(usize, usize)> {
        let name = &self.signature.name;
        let Value::Map(map) = options else {
            return Ok((0, DEFAULT_LIMIT));
        };
        let count = |key: &str, default: usize| -> Result<usize> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(default),
                Some(Value::Int(n)) if *n >= 0 => Ok(usize::try_from(*n).unwrap_or(usize::MAX)),
                Some(other) => Err(call_failed(
                    name,
                    format!("the option `{key}` must be a non-negative Integer, not {other}"),
                )),
            }
        };
        for (key, value) in map.iter() {
            match &**key {
                "skip" | "limit" => {}
                "analyzer" => match value {
                    Value::String(a) if quiver_storage::is_fulltext_analyzer(a) => {}
                    other => {
                        return Err(call_failed(
                            name,
                            format!("the option `analyzer` names no known analyzer: {other}"),
                        ));
                    }
                },
                other => {
                    return Err(call_failed(
                        name,
                        format!(
                            "unknown option `{other}` (the options are skip, limit and analyzer)"
                        ),
                    ));
                }
            }
        }
        Ok((count("skip", 0)?, count("limit", DEFAULT_LIMIT)?))
    }
}

impl Procedure for Query {
    fn signature(&self) -> &ProcedureSignature {
        &self.signature
    }

    fn call(&self, ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
        let name = &self.signature.name;
        let (Some(Value::String(index)), Some(Value::String(query))) = (args.first(), args.get(1))
        else {
            return Err(call_failed(
                name,
                "`indexName` and `queryString` must be Strings",
            ));
        };
        let (skip, limit) = self.options(args.get(2).unwrap_or(&Value::Null))?;
        let limit = limit.min(DEFAULT_LIMIT.saturating_sub(skip));
        let hits = ctx
            .tx
            .fulltext_search(index, self.entity, query, skip, limit)
            .map_err(|e| match e {
                quiver_storage::Error::Fulltext(
                    f @ (FulltextError::UnknownIndex { .. } | FulltextError::WrongEntity { .. }),
                ) => call_failed(name, format!("argument `indexName`: {f}")),
                quiver_storage::Error::Fulltext(f @ FulltextError::Query { .. }) => {
                    call_failed(name, format!("argument `queryString`: {f}"))
                }
                quiver_storage::Error::Fulltext(f) => call_failed(name, f),
                other => Error::from(other),
            })?;
        Ok(hits
            .into_iter()
            .map(|(id, score)| {
                let entity = match self.entity {
                    FulltextEntity::Node => Value::Node(Node::new(id)),
                    FulltextEntity::Relationship => Value::Relationship(Relationship::new(id)),
                };
                vec![entity, Value::Float(score)]
            })
            .collect())
    }

    fn description(&self) -> &'static str {
        match self.entity {
            FulltextEntity::Node => {
                "Query the given full-text index. Returns the matching nodes and their Lucene \
                 query score, ordered by score."
            }
            FulltextEntity::Relationship => {
                "Query the given full-text index. Returns the matching relationships and their \
                 Lucene query score, ordered by score."
            }
        }
    }
}

struct ListAnalyzers(ProcedureSignature);

impl Procedure for ListAnalyzers {
    fn signature(&self) -> &ProcedureSignature {
        &self.0
    }

    fn call(&self, _: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
        Ok(quiver_storage::fulltext_analyzers()
            .into_iter()
            .map(|a| {
                let stopwords: Vec<Value> = a.stopwords.into_iter().map(Value::from).collect();
                vec![
                    Value::from(a.name),
                    Value::from(a.description),
                    Value::from(stopwords),
                ]
            })
            .collect())
    }

    fn description(&self) -> &'static str {
        "List the available analyzers that the full-text indexes can be configured with."
    }
}

pub(crate) fn register(p: &mut Vec<Arc<dyn Procedure>>) {
    p.push(Arc::new(Query::new(
        "db.index.fulltext.queryNodes",
        FulltextEntity::Node,
    )));
    p.push(Arc::new(Query::new(
        "db.index.fulltext.queryRelationships",
        FulltextEntity::Relationship,
    )));
    p.push(Arc::new(ListAnalyzers(ProcedureSignature {
        name: "db.index.fulltext.listAvailableAnalyzers".to_string(),
        inputs: Vec::new(),
        outputs: vec![
            Field::new("analyzer", FieldType::String),
            Field::new("description", FieldType::String),
            Field::new("stopwords", FieldType::List(Box::new(FieldType::String))),
        ],
        writes: false,
    })));
}
