//! `apoc.refactor.mergeNodes`: merges a list of nodes into the first, the way knowledge-graph
//! builders resolve duplicate entities (neo4j-graphrag's resolvers call it with
//! `{properties: 'discard', mergeRels: true}`).
//!
//! Each other node in turn gives the first its labels and properties (by the `properties`
//! strategy), has its relationships re-created on the first (a relationship to itself becomes
//! one from the first to itself), and is deleted. With `mergeRels`, a moved relationship of the
//! same type, direction and other end as one the first already has is folded into it, its
//! properties merged by the same strategy. Every step is a Cypher statement run in the
//! caller's transaction, like the rest of APOC's writes here, so counters, constraints and
//! indexes are those of `SET`, `CREATE` and `DELETE`.

use std::sync::Arc;

use quiver_value::{Map, Value};

use quiver_engine::Result;
use quiver_engine::procedures::native::{
    Native, arg, bad_arg, config_bool, config_text, escape, list_of, map_arg, map_value, native,
};
use quiver_engine::procedures::nested::Access;
use quiver_engine::procedures::{FieldType, ProcedureContext};

const NAME: &str = "apoc.refactor.mergeNodes";

pub(super) fn procedures() -> Vec<Native> {
    vec![native(
        NAME,
        vec![arg("nodes", list_of(FieldType::Node)), map_arg("config")],
        &[("node", FieldType::Node)],
        true,
        merge_nodes,
    )]
}

/// How a property both nodes (or relationships) hold is settled: APOC's `properties` config.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Strategy {
    /// The merged-into entity keeps its value; a missing one is taken from the first holder.
    Discard,
    /// Each merged entity's value replaces the one before (APOC's default).
    Overwrite,
}

impl Strategy {
    fn from_config(config: &Map) -> Result<Self> {
        match config_text(NAME, config, "properties")?
            .to_ascii_lowercase()
            .as_str()
        {
            "" | "overwrite" | "override" => Ok(Strategy::Overwrite),
            "discard" => Ok(Strategy::Discard),
            other => Err(bad_arg(
                NAME,
                "config",
                format!(
                    "has properties '{other}', expected 'discard', 'overwrite' or 'override' \
                     ('combine' is not supported)"
                ),
            )),
        }
    }

    /// The properties to `SET +=` on an entity holding `kept` to merge `incoming` into it.
    fn update(self, kept: &Map, incoming: &Map) -> Map {
        incoming
            .iter()
            .filter(|(key, _)| self == Strategy::Overwrite || !kept.contains_key(*key))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect()
    }
}

/// The procedure's `config`: how properties are settled, and whether relationships are folded.
#[derive(Clone, Copy)]
struct Config {
    strategy: Strategy,
    merge_rels: bool,
}

fn params(entries: Vec<(&str, Value)>) -> Map {
    entries
        .into_iter()
        .map(|(k, v)| (Arc::from(k), v))
        .collect()
}

fn run(
    ctx: &ProcedureContext<'_>,
    statement: &str,
    p: Vec<(&str, Value)>,
) -> Result<Vec<Vec<Value>>> {
    Ok(ctx.run(NAME, statement, &params(p), Access::Write)?.rows)
}

fn as_map(v: &Value) -> Map {
    match v {
        Value::Map(m) => (**m).clone(),
        _ => Map::new(),
    }
}

fn merge_nodes(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let config = map_value(NAME, "config", &args[1])?;
    let settings = Config {
        strategy: Strategy::from_config(&config)?,
        merge_rels: config_bool(NAME, &config, "mergeRels", false)?,
    };
    let mut nodes = Vec::new();
    if let Value::List(items) = &args[0] {
        for item in items.iter() {
            match item {
                Value::Node(node)
                    if !nodes.iter().any(|n: &quiver_value::Node| n.id == node.id) =>
                {
                    nodes.push(node.clone());
                }
                Value::Node(_) | Value::Null => {}
                other => {
                    return Err(bad_arg(
                        NAME,
                        "nodes",
                        format!(
                            "must be a list of nodes, holds a {}",
                            other.value_type().name()
                        ),
                    ));
                }
            }
        }
    }
    let Some((target, sources)) = nodes.split_first() else {
        return Ok(Vec::new());
    };
    let target = Value::Node(target.clone());
    for source in sources {
        merge_one(ctx, &target, &Value::Node(source.clone()), settings)?;
    }
    run(ctx, "WITH $t AS node RETURN node", vec![("t", target)])
}

/// Merges `source` into `target`, then deletes `source`.
fn merge_one(
    ctx: &ProcedureContext<'_>,
    target: &Value,
    source: &Value,
    settings: Config,
) -> Result<()> {
    let read = run(
        ctx,
        "WITH $t AS t, $s AS s RETURN labels(s), properties(s), properties(t)",
        vec![("t", target.clone()), ("s", source.clone())],
    )?;
    let Some(row) = read.first() else {
        return Ok(());
    };
    let labels: String = match &row[0] {
        Value::List(labels) => labels
            .iter()
            .filter_map(|l| match l {
                Value::String(s) => Some(format!(":{}", escape(s))),
                _ => None,
            })
            .collect(),
        _ => String::new(),
    };
    let update = settings.strategy.update(&as_map(&row[2]), &as_map(&row[1]));
    let set_labels = if labels.is_empty() {
        String::new()
    } else {
        format!(" SET t{labels}")
    };
    run(
        ctx,
        &format!("WITH $t AS t{set_labels} SET t += $update"),
        vec![("t", target.clone()), ("update", Value::map(update))],
    )?;
    // Outgoing relationships (self-loops among them), then incoming ones from other nodes.
    let outgoing = run(
        ctx,
        "WITH $s AS s MATCH (s)-[r]->(o) \
         RETURN r, type(r), properties(r), CASE WHEN o = s THEN $t ELSE o END",
        vec![("t", target.clone()), ("s", source.clone())],
    )?;
    let incoming = run(
        ctx,
        "WITH $s AS s MATCH (o)-[r]->(s) WHERE o <> s RETURN r, type(r), properties(r), o",
        vec![("s", source.clone())],
    )?;
    for (rows, out) in [(outgoing, true), (incoming, false)] {
        for row in rows {
            let [rel, Value::String(rel_type), props, other] = &row[..] else {
                continue;
            };
            let (start, end) = if out {
                (target.clone(), other.clone())
            } else {
                (other.clone(), target.clone())
            };
            move_relationship(ctx, rel, rel_type, &as_map(props), start, end, settings)?;
        }
    }
    run(ctx, "WITH $s AS s DELETE s", vec![("s", source.clone())])?;
    Ok(())
}

/// Re-creates `rel` (of `rel_type`, holding `props`) from `start` to `end`, or with
/// `mergeRels` folds it into one of the same type between them, then deletes it.
fn move_relationship(
    ctx: &ProcedureContext<'_>,
    rel: &Value,
    rel_type: &str,
    props: &Map,
    start: Value,
    end: Value,
    settings: Config,
) -> Result<()> {
    let rel_type = escape(rel_type);
    let ends = || vec![("a", start.clone()), ("b", end.clone())];
    let existing = if settings.merge_rels {
        run(
            ctx,
            &format!(
                "WITH $a AS a, $b AS b MATCH (a)-[x:{rel_type}]->(b) WHERE x <> $r \
                 RETURN x, properties(x) LIMIT 1"
            ),
            ends().into_iter().chain([("r", rel.clone())]).collect(),
        )?
    } else {
        Vec::new()
    };
    match existing.first() {
        Some(row) => {
            let update = settings.strategy.update(&as_map(&row[1]), props);
            run(
                ctx,
                "WITH $x AS x SET x += $update",
                vec![("x", row[0].clone()), ("update", Value::map(update))],
            )?;
        }
        None => {
            let mut p = ends();
            p.push(("props", Value::map(props.clone())));
            run(
                ctx,
                &format!("WITH $a AS a, $b AS b CREATE (a)-[x:{rel_type}]->(b) SET x = $props"),
                p,
            )?;
        }
    }
    run(ctx, "WITH $r AS r DELETE r", vec![("r", rel.clone())])?;
    Ok(())
}
