//! Traversals and shortest paths: `gds.bfs.stream`, `gds.dfs.stream`,
//! `gds.shortestPath.dijkstra.stream`, `gds.allShortestPaths.dijkstra.stream` and
//! `gds.shortestPath.yens.stream`.

use std::sync::Arc;

use quiver_algorithms::paths::{self, Traversal};
use quiver_engine::Result;
use quiver_engine::procedures::{FieldType, ProcedureContext};
use quiver_storage::{Direction, NodeId};
use std::time::Instant;

use quiver_value::{Map, Node, Path, Relationship, Value};

use super::catalog::{Catalog, Projection, graph_name};
use super::config::{COMMON, Config, controlled, failed};

/// The columns of the traversals.
pub(crate) fn traversal_columns() -> Vec<(&'static str, FieldType)> {
    vec![
        ("sourceNode", FieldType::Integer),
        ("nodeIds", FieldType::List(Box::new(FieldType::Integer))),
    ]
}

/// The columns of the shortest path procedures' `write` mode.
pub(crate) fn path_write_columns() -> Vec<(&'static str, FieldType)> {
    use FieldType::{Integer, Map};
    vec![
        ("relationshipsWritten", Integer),
        ("preProcessingMillis", Integer),
        ("computeMillis", Integer),
        ("postProcessingMillis", Integer),
        ("writeMillis", Integer),
        ("configuration", Map),
    ]
}

/// The columns of the shortest path procedures.
pub(crate) fn path_columns() -> Vec<(&'static str, FieldType)> {
    use FieldType::{Float, Integer, List};
    vec![
        ("index", Integer),
        ("sourceNode", Integer),
        ("targetNode", Integer),
        ("totalCost", Float),
        ("nodeIds", List(Box::new(Integer))),
        ("costs", List(Box::new(Float))),
        ("path", FieldType::Path),
    ]
}

/// The index of the node a configuration key names; fails when it is not projected.
fn node_index(
    procedure: &str,
    projection: &Projection,
    config: &Config<'_>,
    key: &str,
    role: &str,
) -> Result<u32> {
    let id = config.node(key)?.ok_or_else(|| {
        failed(
            procedure,
            format!("No value specified for the mandatory configuration parameter `{key}`"),
        )
    })?;
    projection.index_of(id).ok_or_else(|| {
        failed(
            procedure,
            format!("{role} node with id {id} does not exist in the in-memory graph."),
        )
    })
}

/// `gds.bfs.stream` (`depth_first` false) and `gds.dfs.stream`: one row, the visited nodes in
/// order.
pub(crate) fn traverse(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    args: &[Value],
    depth_first: bool,
) -> Result<Vec<Vec<Value>>> {
    let procedure = if depth_first {
        "gds.dfs.stream"
    } else {
        "gds.bfs.stream"
    };
    let config = Config::new(
        procedure,
        &args[1],
        &[COMMON, &["sourceNode", "targetNodes", "maxDepth"]],
    )?;
    let projection = catalog.get(ctx, procedure, graph_name(procedure, &args[0])?)?;
    let source = node_index(procedure, &projection, &config, "sourceNode", "Source")?;
    let targets = config
        .nodes("targetNodes")?
        .into_iter()
        .map(|id| {
            projection.index_of(id).ok_or_else(|| {
                failed(
                    procedure,
                    format!("Target node with id {id} does not exist in the in-memory graph."),
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let max_depth = config.int("maxDepth", -1, -1, i64::MAX)?;
    let stop = Traversal {
        targets,
        max_depth: u64::try_from(max_depth).ok(),
    };
    let graph = projection.graph_for(procedure, &config)?;
    let order = controlled(ctx, procedure, &config, |control| {
        if depth_first {
            paths::dfs(&graph, source, &stop, control)
        } else {
            paths::bfs(&graph, source, &stop, control)
        }
    })?;
    let ids = &projection.ids;
    Ok(vec![vec![
        Value::Int(ids[source as usize] as i64),
        Value::from(
            order
                .iter()
                .map(|v| Value::Int(ids[*v as usize] as i64))
                .collect::<Vec<_>>(),
        ),
    ]])
}

/// Which shortest paths a procedure streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PathSearch {
    /// `gds.shortestPath.dijkstra.stream`: the cheapest path to `targetNode`.
    Dijkstra,
    /// `gds.allShortestPaths.dijkstra.stream`: the cheapest path to every reachable node.
    AllDijkstra,
    /// `gds.shortestPath.yens.stream`: the `k` cheapest loopless paths to `targetNode`.
    Yens,
    /// `gds.allShortestPaths.delta.stream`: the cheapest path to every reachable node, by
    /// parallel delta-stepping.
    Delta,
    /// `gds.shortestPath.astar.stream`: the cheapest path to `targetNode`, guided by the
    /// haversine distance between the nodes' `latitudeProperty` and `longitudeProperty`.
    AStar,
}

impl PathSearch {
    pub(crate) fn procedure(self) -> &'static str {
        match self {
            PathSearch::Dijkstra => "gds.shortestPath.dijkstra.stream",
            PathSearch::AllDijkstra => "gds.allShortestPaths.dijkstra.stream",
            PathSearch::Yens => "gds.shortestPath.yens.stream",
            PathSearch::AStar => "gds.shortestPath.astar.stream",
            PathSearch::Delta => "gds.allShortestPaths.delta.stream",
        }
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            PathSearch::Dijkstra => &["sourceNode", "targetNode", "relationshipWeightProperty"],
            PathSearch::AllDijkstra => &["sourceNode", "relationshipWeightProperty"],
            PathSearch::Delta => &["sourceNode", "delta", "relationshipWeightProperty"],
            PathSearch::Yens => &[
                "sourceNode",
                "targetNode",
                "k",
                "relationshipWeightProperty",
            ],
            PathSearch::AStar => &[
                "sourceNode",
                "targetNode",
                "latitudeProperty",
                "longitudeProperty",
                "relationshipWeightProperty",
            ],
        }
    }
}

/// The shortest path procedures: a row per path, with its cost at every node and the stored
/// relationships it walks.
pub(crate) fn shortest_paths(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    args: &[Value],
    search: PathSearch,
    write: bool,
) -> Result<Vec<Vec<Value>>> {
    let started = Instant::now();
    let name = if write {
        search.procedure().replace(".stream", ".write")
    } else {
        search.procedure().to_owned()
    };
    let procedure = name.as_str();
    let write_keys: &[&str] = if write {
        &[
            "writeRelationshipType",
            "writeNodeIds",
            "writeCosts",
            "writeConcurrency",
        ]
    } else {
        &[]
    };
    let config = Config::new(procedure, &args[1], &[COMMON, search.keys(), write_keys])?;
    let target_type = if write {
        Some(config.required_text("writeRelationshipType")?)
    } else {
        None
    };
    let projection = catalog.get(ctx, procedure, graph_name(procedure, &args[0])?)?;
    let source = node_index(procedure, &projection, &config, "sourceNode", "Source")?;
    let target = match search {
        PathSearch::AllDijkstra | PathSearch::Delta => None,
        PathSearch::Dijkstra | PathSearch::Yens | PathSearch::AStar => Some(node_index(
            procedure,
            &projection,
            &config,
            "targetNode",
            "Target",
        )?),
    };
    let delta = if search == PathSearch::Delta {
        config.float("delta", 2.0, f64::MIN_POSITIVE, f64::MAX, false)?
    } else {
        2.0
    };
    let k = if search == PathSearch::Yens {
        config.int("k", 1, 1, i64::from(i32::MAX))? as usize
    } else {
        1
    };
    let graph = projection.graph_for(procedure, &config)?;
    let coordinates = if search == PathSearch::AStar {
        Some((
            coordinate(procedure, &projection, &config, "latitudeProperty")?,
            coordinate(procedure, &projection, &config, "longitudeProperty")?,
        ))
    } else {
        None
    };
    let found = controlled(ctx, procedure, &config, |control| {
        match (search, target, &coordinates) {
            (PathSearch::Yens, Some(t), _) => paths::yens(&graph, source, t, k, control),
            (PathSearch::Delta, _, _) => paths::delta_stepping(&graph, source, delta, control),
            (PathSearch::AStar, Some(t), Some((lat, lon))) => {
                let (tlat, tlon) = (lat(t), lon(t));
                let estimate = |v: u32| paths::haversine_nautical_miles(lat(v), lon(v), tlat, tlon);
                paths::a_star(&graph, source, t, &estimate, control)
            }
            (_, target, _) => paths::dijkstra(&graph, source, target, control),
        }
    })?;
    let ids = &projection.ids;
    let id = |v: u32| ids[v as usize];
    if let Some(rel_type) = target_type {
        return write_paths(
            ctx, procedure, &config, &rel_type, ids, source, &found, started,
        );
    }
    found
        .iter()
        .enumerate()
        .map(|(index, p)| {
            ctx.tick(procedure)?;
            let path = stored_path(ctx, &p.nodes.iter().map(|v| id(*v)).collect::<Vec<_>>())?;
            Ok(vec![
                Value::Int(index as i64),
                Value::Int(id(source) as i64),
                Value::Int(id(p.target()) as i64),
                Value::Float(p.total_cost()),
                Value::from(
                    p.nodes
                        .iter()
                        .map(|v| Value::Int(id(*v) as i64))
                        .collect::<Vec<_>>(),
                ),
                Value::from(p.costs.iter().map(|c| Value::Float(*c)).collect::<Vec<_>>()),
                path,
            ])
        })
        .collect()
}

/// A `write` mode's work: a relationship of `rel_type` from the source to each path's end,
/// with `totalCost` (and `nodeIds`, `costs` when asked), and the summary row.
#[expect(
    clippy::too_many_arguments,
    reason = "the inputs of one write, each read once"
)]
fn write_paths(
    ctx: &ProcedureContext<'_>,
    procedure: &str,
    config: &Config<'_>,
    rel_type: &str,
    ids: &[u64],
    source: u32,
    found: &[paths::Path],
    started: Instant,
) -> Result<Vec<Vec<Value>>> {
    let compute = started.elapsed();
    let writing = Instant::now();
    let id = |v: u32| ids[v as usize];
    let node_ids = config.bool("writeNodeIds", false)?;
    let costs = config.bool("writeCosts", false)?;
    let concurrency = config.concurrency("writeConcurrency")?;
    let rows: Vec<(u64, u64, Map)> = found
        .iter()
        .map(|p| {
            let mut props =
                Map::from_iter([(Arc::from("totalCost"), Value::Float(p.total_cost()))]);
            if node_ids {
                let ids: Vec<Value> = p.nodes.iter().map(|v| Value::Int(id(*v) as i64)).collect();
                props.insert(Arc::from("nodeIds"), Value::from(ids));
            }
            if costs {
                let costs: Vec<Value> = p.costs.iter().map(|c| Value::Float(*c)).collect();
                props.insert(Arc::from("costs"), Value::from(costs));
            }
            (id(source), id(p.target()), props)
        })
        .collect();
    super::write::relationships_with_properties(ctx, procedure, concurrency, &rows, rel_type)?;
    Ok(vec![vec![
        Value::Int(rows.len() as i64),
        Value::Int(0),
        Value::Int(compute.as_millis() as i64),
        Value::Int(0),
        Value::Int(writing.elapsed().as_millis() as i64),
        config.echo(),
    ]])
}

/// A node property column the configuration names by `key`, read as degrees.
fn coordinate(
    procedure: &str,
    projection: &Projection,
    config: &Config<'_>,
    key: &str,
) -> Result<impl Fn(u32) -> f64 + Sync + use<>> {
    let name = config.required_text(key)?;
    let column = projection.property(&name).ok_or_else(|| {
        failed(
            procedure,
            format!(
                "The property `{name}` given as `{key}` is not a node property of the projection."
            ),
        )
    })?;
    Ok(move |v: u32| match column.get(v as usize) {
        Value::Int(i) => i as f64,
        Value::Float(f) => f,
        _ => f64::NAN,
    })
}

/// The path through `nodes` along stored relationships: between each pair, the one with the
/// smallest id (either way, since an undirected or reversed projection may walk a
/// relationship backwards).
fn stored_path(ctx: &ProcedureContext<'_>, nodes: &[u64]) -> Result<Value> {
    let mut relationships = Vec::with_capacity(nodes.len().saturating_sub(1));
    for pair in nodes.windows(2) {
        let step = ctx
            .tx
            .expand(NodeId(pair[0]), Direction::Both, &[])?
            .into_iter()
            .filter(|(_, n)| n.0 == pair[1])
            .map(|(r, _)| r.0)
            .min();
        match step {
            Some(r) => relationships.push(Relationship::new(r)),
            // The graph changed since the projection: a path of ids only stands for it.
            None => return Ok(Value::Null),
        }
    }
    Ok(Value::Path(Arc::new(Path {
        nodes: nodes.iter().map(|n| Node::new(*n)).collect(),
        relationships,
    })))
}
