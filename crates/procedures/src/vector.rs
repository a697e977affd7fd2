//! Vector search: the `db.index.vector.*` and `db.create.set*VectorProperty` procedures over
//! storage's vector indexes.
//!
//! The index itself (the HNSW graph, its maintenance at commit, confirmation against the
//! reader's snapshot) is storage's (`quiver_storage::vector`); here are Neo4j's names,
//! signatures, argument checks and scores. Every vector is read through
//! [`quiver_storage::vector_of`].
//!
//! Filtering after the call (`CALL db.index.vector.queryNodes('i', 10, $v) YIELD node, score
//! WHERE node.lang = 'en'`) sees the `k` nearest and drops those that fail, as in Neo4j 5: to
//! get `k` rows that pass, ask for more and cut after the filter (`... WHERE ... RETURN ...
//! LIMIT 10` with a larger `k`). The procedure itself always returns `k` rows when the
//! reader's snapshot holds `k` indexed entities: the index over-fetches until it has confirmed
//! them.
//!
//! Filtering inside the index is Cypher 25's `SEARCH ... WHERE`, which the parser hands to
//! `queryNodes` / `queryRelationships` as an optional fourth argument, `filter`: a list of
//! `{property, operator, value}` maps (operator `=`, `<`, `<=`, `>` or `>=`, the entity's
//! property on its left), each property among those the index names in its `WITH [...]`; the
//! call then returns the `k` nearest entities that pass every comparison.

use std::sync::Arc;

use quiver_storage::{VectorFilter, VectorFilterOp, vector_of};
use quiver_value::{Map, Node, Relationship, Value};

use quiver_engine::Result;
use quiver_engine::procedures::native::{arg, bad_arg, call_failed, escape, native, string_value};
use quiver_engine::procedures::nested::Access;
use quiver_engine::procedures::{Field, FieldType, Procedure, ProcedureContext};

/// The most neighbours one query may ask for: each is confirmed and materialised, so the
/// bound keeps one call's work and memory in proportion.
pub const NEAREST_NEIGHBOURS_MAX: i64 = 100_000;

/// Adds the vector procedures to a registry.
pub(crate) fn register(p: &mut Vec<Arc<dyn Procedure>>) {
    use FieldType::{Any, Float, Integer, Node as N, Relationship as R, String as S};
    let query_args = || {
        vec![
            arg("indexName", S),
            arg("numberOfNearestNeighbours", Integer),
            arg("query", Any),
            Field::optional("filter", Any, Value::Null),
        ]
    };
    for procedure in [
        native(
            "db.index.vector.queryNodes",
            query_args(),
            &[("node", N), ("score", Float)],
            false,
            query_nodes,
        ),
        native(
            "db.index.vector.queryRelationships",
            query_args(),
            &[("relationship", R), ("score", Float)],
            false,
            query_relationships,
        ),
        native(
            "db.index.vector.createNodeIndex",
            vec![
                arg("indexName", S),
                arg("label", S),
                arg("propertyKey", S),
                arg("vectorDimension", Integer),
                arg("vectorSimilarityFunction", S),
            ],
            &[],
            true,
            create_node_index,
        ),
        native(
            "db.create.setNodeVectorProperty",
            vec![arg("node", N), arg("key", S), arg("vector", Any)],
            &[],
            true,
            set_node_vector,
        ),
        native(
            "db.create.setRelationshipVectorProperty",
            vec![arg("relationship", R), arg("key", S), arg("vector", Any)],
            &[],
            true,
            set_relationship_vector,
        ),
    ] {
        p.push(Arc::new(procedure));
    }
}

fn query_nodes(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    query(ctx, "db.index.vector.queryNodes", false, args)
}

fn query_relationships(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    query(ctx, "db.index.vector.queryRelationships", true, args)
}

fn query(
    ctx: &ProcedureContext<'_>,
    name: &str,
    relationships: bool,
    args: &[Value],
) -> Result<Vec<Vec<Value>>> {
    let index = string_value(name, "indexName", &args[0])?;
    let Some(info) = ctx.tx.vector_index(index) else {
        return Err(bad_arg(
            name,
            "indexName",
            format!("names no vector index: there is no vector index called `{index}`"),
        ));
    };
    if info.relationship != relationships {
        let (is, use_) = if info.relationship {
            ("relationships", "db.index.vector.queryRelationships")
        } else {
            ("nodes", "db.index.vector.queryNodes")
        };
        return Err(bad_arg(
            name,
            "indexName",
            format!("names vector index `{index}` over {is}: call {use_}"),
        ));
    }
    let k = match &args[1] {
        Value::Int(k) if (1..=NEAREST_NEIGHBOURS_MAX).contains(k) => *k as usize,
        Value::Int(k) => {
            return Err(bad_arg(
                name,
                "numberOfNearestNeighbours",
                format!("must be between 1 and {NEAREST_NEIGHBOURS_MAX}, got {k}"),
            ));
        }
        Value::Null => {
            return Err(bad_arg(
                name,
                "numberOfNearestNeighbours",
                "must not be null",
            ));
        }
        other => {
            return Err(bad_arg(
                name,
                "numberOfNearestNeighbours",
                format!("must be an integer, got {}", other.value_type().name()),
            ));
        }
    };
    let vector = vector_arg(name, "query", &args[2])?;
    if vector.len() != info.config.dimensions {
        return Err(bad_arg(
            name,
            "query",
            format!(
                "has {} dimensions but index `{index}` has {}",
                vector.len(),
                info.config.dimensions
            ),
        ));
    }
    let filter = filter_arg(ctx, name, &info, args.get(3).unwrap_or(&Value::Null))?;
    let hits = ctx.tx.vector_search(index, (&vector, k), &filter)?;
    Ok(hits
        .into_iter()
        .map(|(id, score)| {
            let entity = if relationships {
                Value::Relationship(Relationship::new(id))
            } else {
                Value::Node(Node::new(id))
            };
            vec![entity, Value::Float(score)]
        })
        .collect())
}

/// The `filter` argument: null or a list of `{property, operator, value}` maps that the index
/// can apply as it searches (see the module comment).
fn filter_arg(
    ctx: &ProcedureContext<'_>,
    name: &str,
    info: &quiver_storage::VectorIndexInfo,
    v: &Value,
) -> Result<Vec<VectorFilter>> {
    let items = match v {
        Value::Null => return Ok(Vec::new()),
        Value::List(items) => items,
        other => {
            return Err(bad_arg(
                name,
                "filter",
                format!("must be a list of maps, got {}", other.value_type().name()),
            ));
        }
    };
    let mut out: Vec<VectorFilter> = Vec::with_capacity(items.len());
    for item in items.iter() {
        let Value::Map(m) = item else {
            return Err(bad_arg(name, "filter", "must be a list of maps"));
        };
        let (Some(Value::String(property)), Some(Value::String(operator)), Some(value)) =
            (m.get("property"), m.get("operator"), m.get("value"))
        else {
            return Err(bad_arg(
                name,
                "filter",
                "must hold maps of a string `property`, a string `operator` and a `value`",
            ));
        };
        let op = match operator.as_ref() {
            "=" => VectorFilterOp::Eq,
            "<" => VectorFilterOp::Lt,
            "<=" => VectorFilterOp::Le,
            ">" => VectorFilterOp::Gt,
            ">=" => VectorFilterOp::Ge,
            other => {
                return Err(bad_arg(
                    name,
                    "filter",
                    format!("has operator `{other}`: it must be one of =, <, <=, > and >="),
                ));
            }
        };
        let key = (info.with_properties.iter().any(|k| **k == **property))
            .then(|| ctx.storage.property_key_id(property))
            .flatten()
            .ok_or_else(|| {
                bad_arg(
                    name,
                    "filter",
                    format!(
                        "filters on `{property}`, which vector index `{}` does not name in its \
                         WITH [...] (it filters on {})",
                        info.name,
                        if info.with_properties.is_empty() {
                            "nothing".to_string()
                        } else {
                            info.with_properties
                                .iter()
                                .map(|k| format!("`{k}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        }
                    ),
                )
            })?;
        let lower = |op: VectorFilterOp| matches!(op, VectorFilterOp::Gt | VectorFilterOp::Ge);
        let clash = out.iter().any(|f| {
            f.key == key.0
                && (f.op == VectorFilterOp::Eq
                    || op == VectorFilterOp::Eq
                    || lower(f.op) == lower(op))
        });
        if clash {
            return Err(bad_arg(
                name,
                "filter",
                format!(
                    "compares `{property}` more than once on one side: a property takes one \
                     exact value, or at most one lower and one upper bound"
                ),
            ));
        }
        out.push(VectorFilter {
            key: key.0,
            op,
            value: value.clone(),
        });
    }
    Ok(out)
}

/// A vector argument: a non-empty list of finite numbers.
fn vector_arg(name: &str, argument: &str, v: &Value) -> Result<Vec<f64>> {
    if v.is_null() {
        return Err(bad_arg(name, argument, "must not be null"));
    }
    vector_of(v).ok_or_else(|| {
        bad_arg(
            name,
            argument,
            format!(
                "must be a non-empty list of finite numbers, got {}",
                v.value_type().name()
            ),
        )
    })
}

fn create_node_index(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "db.index.vector.createNodeIndex";
    let index = string_value(NAME, "indexName", &args[0])?;
    let label = string_value(NAME, "label", &args[1])?;
    let key = string_value(NAME, "propertyKey", &args[2])?;
    let dimensions = match &args[3] {
        Value::Int(d) => *d,
        Value::Null => return Err(bad_arg(NAME, "vectorDimension", "must not be null")),
        other => {
            return Err(bad_arg(
                NAME,
                "vectorDimension",
                format!("must be an integer, got {}", other.value_type().name()),
            ));
        }
    };
    let similarity = string_value(NAME, "vectorSimilarityFunction", &args[4])?;
    // Checked here too, so the message names the procedure's argument.
    let config = Map::from_iter([
        (Arc::from("vector.dimensions"), Value::Int(dimensions)),
        (
            Arc::from("vector.similarity_function"),
            Value::from(similarity),
        ),
    ]);
    let options = Value::map(Map::from_iter([(
        Arc::from("indexConfig"),
        Value::map(config),
    )]));
    let config =
        quiver_engine::search::vector::config_of(&options).map_err(|e| call_failed(NAME, e))?;
    // OPTIONS takes a map literal; the values spliced in are the checked ones.
    let statement = format!(
        "CREATE VECTOR INDEX {} FOR (n:{}) ON (n.{}) OPTIONS {{indexConfig: {{\
         `vector.dimensions`: {}, `vector.similarity_function`: '{}'}}}}",
        escape(index),
        escape(label),
        escape(key),
        config.dimensions,
        config.similarity.name()
    );
    ctx.run(NAME, &statement, &Map::new(), Access::Write)?;
    Ok(Vec::new())
}

fn set_node_vector(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    set_vector(ctx, "db.create.setNodeVectorProperty", "node", args)
}

fn set_relationship_vector(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    set_vector(
        ctx,
        "db.create.setRelationshipVectorProperty",
        "relationship",
        args,
    )
}

/// Sets `key` of the entity to the vector, stored as a list of floats.
fn set_vector(
    ctx: &ProcedureContext<'_>,
    name: &str,
    entity: &str,
    args: &[Value],
) -> Result<Vec<Vec<Value>>> {
    if args[0].is_null() {
        return Err(bad_arg(name, entity, "must not be null"));
    }
    let key = string_value(name, "key", &args[1])?;
    if key.is_empty() {
        return Err(bad_arg(name, "key", "may not be empty"));
    }
    let vector = vector_arg(name, "vector", &args[2])?;
    let value = Value::from(vector.into_iter().map(Value::Float).collect::<Vec<_>>());
    let props = Map::from_iter([(Arc::from(key), value)]);
    let params = Map::from_iter([
        (Arc::from("entity"), args[0].clone()),
        (Arc::from("props"), Value::map(props)),
    ]);
    ctx.run(
        name,
        "WITH $entity AS e SET e += $props",
        &params,
        Access::Write,
    )?;
    Ok(Vec::new())
}
