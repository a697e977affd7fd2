//! Graph Data Science: the `gds.*` procedures under the names, configuration keys, defaults,
//! result columns and error messages of Neo4j's Graph Data Science library, over the kernels
//! of [`quiver_algorithms`].
//!
//! - The graph catalog ([`catalog`]) is per database: every procedure of one database shares
//!   one [`Catalog`], made when the database's procedures are, in which each user has their
//!   own graphs. `gds.graph.project` ([`project`]) reads a projection through the caller's
//!   transaction (one snapshot) into an immutable CSR held in memory until `gds.graph.drop`.
//! - Node algorithms ([`algorithms`]) run in the modes `stream`, `stats`, `mutate`, `write` and
//!   `estimate` on a pool of `concurrency` threads (every core by default), stopped by the
//!   caller's cancellation and deadline. `write` goes through ordinary write transactions, a
//!   batch each ([`write`]).
//! - Traversals and shortest paths ([`paths`]) stream (and write paths as relationships);
//!   node similarity and KNN ([`similarity`]) stream, summarise and write relationships.
//! - Configuration maps are read by [`config`], with GDS's messages for unknown keys and bad
//!   values.

mod algorithms;
mod catalog;
mod config;
mod paths;
mod project;
mod similarity;
mod write;

use std::sync::Arc;

use quiver_engine::procedures::native::{Body, arg, native};
use quiver_engine::procedures::{Field, FieldType, Procedure, ProcedureSignature};
use quiver_value::{Map, Value};

use algorithms::{ESTIMATE_COLUMNS, Mode};
use catalog::Catalog;

/// A `gds.*` procedure: its signature and a body holding what it needs (the catalog, the
/// algorithm).
fn procedure(
    name: &str,
    description: &str,
    inputs: Vec<Field>,
    outputs: &[(&str, FieldType)],
    writes: bool,
    body: Body,
) -> Arc<dyn Procedure> {
    Arc::new(native(name, inputs, outputs, writes, body).described(description.to_owned()))
}

fn optional(name: &str, ty: FieldType, default: Value) -> Field {
    Field::optional(name, ty, default)
}

fn empty_map() -> Value {
    Value::map(Map::new())
}

/// Adds the `gds.*` procedures, all sharing one new catalog.
#[expect(clippy::too_many_lines, reason = "a table, one entry per procedure")]
pub(crate) fn register(p: &mut Vec<Arc<dyn Procedure>>) {
    use FieldType::{Any, Boolean, Integer, Map as M, String as S};
    let catalog = Arc::new(Catalog::default());
    let mut gds: Vec<Arc<dyn Procedure>> = Vec::new();
    let c = || catalog.clone();
    let list_columns: Vec<(&str, FieldType)> = catalog::LIST_COLUMNS
        .iter()
        .map(|n| (*n, column_type(n)))
        .collect();
    let drop_columns: Vec<(&str, FieldType)> = catalog::DROP_COLUMNS
        .iter()
        .map(|n| (*n, column_type(n)))
        .collect();

    let cat = c();
    gds.push(procedure(
        "gds.graph.project",
        "Creates a named graph in the catalog for use by algorithms.",
        vec![
            arg("graphName", S),
            arg("nodeProjection", Any),
            arg("relationshipProjection", Any),
            optional("configuration", M, empty_map()),
        ],
        &[
            ("nodeProjection", M),
            ("relationshipProjection", M),
            ("graphName", S),
            ("nodeCount", Integer),
            ("relationshipCount", Integer),
            ("projectMillis", Integer),
        ],
        false,
        Box::new(move |ctx, args| project::project(&cat, ctx, args)),
    ));
    let cat = c();
    gds.push(procedure(
        "gds.graph.project.cypher",
        "Creates a named graph in the catalog for use by algorithms.",
        vec![
            arg("graphName", S),
            arg("nodeQuery", S),
            arg("relationshipQuery", S),
            optional("configuration", M, empty_map()),
        ],
        &[
            ("graphName", S),
            ("nodeQuery", S),
            ("nodeCount", Integer),
            ("relationshipQuery", S),
            ("relationshipCount", Integer),
            ("projectMillis", Integer),
        ],
        false,
        Box::new(move |ctx, args| project::project_cypher(&cat, ctx, args)),
    ));
    let cat = c();
    gds.push(procedure(
        "gds.graph.list",
        "Lists information about named graphs stored in the catalog.",
        vec![optional("graphName", S, Value::from("__NO_VALUE"))],
        &list_columns,
        false,
        Box::new(move |ctx, args| Ok(catalog::list(&cat, ctx, args))),
    ));
    let cat = c();
    gds.push(procedure(
        "gds.graph.exists",
        "Checks if a graph exists in the catalog.",
        vec![arg("graphName", S)],
        &[("graphName", S), ("exists", Boolean)],
        false,
        Box::new(move |ctx, args| catalog::exists(&cat, ctx, args)),
    ));
    let cat = c();
    gds.push(procedure(
        "gds.graph.drop",
        "Drops a named graph from the catalog and frees up the resources it occupies.",
        vec![
            arg("graphName", Any),
            optional("failIfMissing", Boolean, Value::Bool(true)),
            optional("dbName", S, Value::from("")),
            optional("username", S, Value::from("")),
        ],
        &drop_columns,
        false,
        Box::new(move |ctx, args| catalog::drop(&cat, ctx, args)),
    ));
    let cat = c();
    gds.push(procedure(
        "gds.graph.nodeProperty.stream",
        "Streams the given node property.",
        vec![
            arg("graphName", S),
            arg("nodeProperties", Any),
            optional("nodeLabels", Any, Value::from(vec![Value::from("*")])),
            optional("configuration", M, empty_map()),
        ],
        &[("nodeId", Integer), ("propertyValue", Any)],
        false,
        Box::new(move |ctx, args| {
            catalog::stream_properties(&cat, ctx, "gds.graph.nodeProperty.stream", args, false)
        }),
    ));
    let cat = c();
    gds.push(procedure(
        "gds.graph.nodeProperties.stream",
        "Streams the given node properties.",
        vec![
            arg("graphName", S),
            arg("nodeProperties", Any),
            optional("nodeLabels", Any, Value::from(vec![Value::from("*")])),
            optional("configuration", M, empty_map()),
        ],
        &[
            ("nodeId", Integer),
            ("nodeProperty", S),
            ("propertyValue", Any),
        ],
        false,
        Box::new(move |ctx, args| {
            catalog::stream_properties(&cat, ctx, "gds.graph.nodeProperties.stream", args, true)
        }),
    ));

    let cat = c();
    gds.push(procedure(
        "gds.graph.relationships.stream",
        "Streams the given relationship source/target pairs",
        vec![
            arg("graphName", S),
            optional(
                "relationshipTypes",
                Any,
                Value::from(vec![Value::from("*")]),
            ),
            optional("configuration", M, empty_map()),
        ],
        &[
            ("sourceNodeId", Integer),
            ("targetNodeId", Integer),
            ("relationshipType", S),
        ],
        false,
        Box::new(move |ctx, args| catalog::stream_relationships(&cat, ctx, args)),
    ));
    let cat = c();
    gds.push(procedure(
        "gds.graph.nodeProperties.write",
        "Writes the given node properties to an online Neo4j database.",
        vec![
            arg("graphName", S),
            arg("nodeProperties", Any),
            optional("nodeLabels", Any, Value::from(vec![Value::from("*")])),
            optional("configuration", M, empty_map()),
        ],
        &[
            ("writeMillis", Integer),
            ("graphName", S),
            ("nodeProperties", FieldType::List(Box::new(S))),
            ("propertiesWritten", Integer),
        ],
        true,
        Box::new(move |ctx, args| catalog::write_properties(&cat, ctx, args)),
    ));
    let cat = c();
    gds.push(procedure(
        "gds.graph.nodeProperties.drop",
        "Removes node properties from a projected graph.",
        vec![
            arg("graphName", S),
            arg("nodeProperties", Any),
            optional("configuration", M, empty_map()),
        ],
        &[
            ("graphName", S),
            ("nodeProperties", FieldType::List(Box::new(S))),
            ("propertiesRemoved", Integer),
        ],
        false,
        Box::new(move |ctx, args| catalog::drop_properties(&cat, ctx, args)),
    ));

    for algorithm in algorithms::algorithms() {
        let algorithm = Arc::new(algorithm);
        for mode in Mode::ALL {
            let (cat, alg) = (c(), algorithm.clone());
            gds.push(procedure(
                &algorithm.procedure(mode),
                algorithm.description(),
                vec![
                    arg("graphName", S),
                    optional("configuration", M, empty_map()),
                ],
                &algorithm.outputs(mode),
                mode == Mode::Write,
                Box::new(move |ctx, args| alg.call(&cat, mode, ctx, args)),
            ));
            let (cat, alg) = (c(), algorithm.clone());
            gds.push(procedure(
                &format!("{}.estimate", algorithm.procedure(mode)),
                "Returns an estimation of the memory consumption for that procedure.",
                vec![
                    arg("graphNameOrConfiguration", Any),
                    optional("algoConfiguration", M, empty_map()),
                ],
                ESTIMATE_COLUMNS,
                false,
                Box::new(move |ctx, args| alg.estimate(&cat, mode, ctx, args)),
            ));
        }
    }

    let traversal = paths::traversal_columns();
    for (name, depth_first, about) in [
        (
            "gds.bfs.stream",
            false,
            "BFS is a traversal algorithm, which explores all of the neighbor nodes at the present depth prior to moving on to the nodes at the next depth level.",
        ),
        (
            "gds.dfs.stream",
            true,
            "Depth-first search (DFS) is an algorithm for traversing or searching tree or graph data structures.",
        ),
    ] {
        let cat = c();
        gds.push(procedure(
            name,
            about,
            vec![
                arg("graphName", S),
                optional("configuration", M, empty_map()),
            ],
            &traversal,
            false,
            Box::new(move |ctx, args| paths::traverse(&cat, ctx, args, depth_first)),
        ));
    }
    let about = "The Dijkstra shortest path algorithm computes the shortest (weighted) path between one node and any other node in the graph.";
    for (search, about) in [
        (paths::PathSearch::Dijkstra, about),
        (paths::PathSearch::AllDijkstra, about),
        (
            paths::PathSearch::Delta,
            "The Delta Stepping shortest path algorithm computes the shortest (weighted) path between one node and any other node in the graph. The computation is run multi-threaded",
        ),
        (
            paths::PathSearch::Yens,
            "The Yen's shortest path algorithm computes the k shortest (weighted) paths between a pair of nodes.",
        ),
        (
            paths::PathSearch::AStar,
            "The A* shortest path algorithm computes the shortest path between a pair of nodes. It uses the relationship weight property to compare path lengths. In addition, this implementation uses the haversine distance as a heuristic to converge faster.",
        ),
    ] {
        for write in [false, true] {
            let cat = c();
            let (name, columns) = if write {
                (
                    search.procedure().replace(".stream", ".write"),
                    paths::path_write_columns(),
                )
            } else {
                (search.procedure().to_owned(), paths::path_columns())
            };
            gds.push(procedure(
                &name,
                about,
                vec![
                    arg("graphName", S),
                    optional("configuration", M, empty_map()),
                ],
                &columns,
                write,
                Box::new(move |ctx, args| paths::shortest_paths(&cat, ctx, args, search, write)),
            ));
        }
    }
    for mode in similarity::PairMode::ALL {
        let cat = c();
        gds.push(procedure(
            &format!("gds.nodeSimilarity.{}", mode.name()),
            "The Node Similarity algorithm compares a set of nodes based on the nodes they are connected to. Two nodes are considered similar if they share many of the same neighbors. Node Similarity computes pair-wise similarities based on the Jaccard metric.",
            vec![arg("graphName", S), optional("configuration", M, empty_map())],
            &similarity::columns(mode),
            mode == similarity::PairMode::Write,
            Box::new(move |ctx, args| similarity::node_similarity(&cat, ctx, args, mode)),
        ));
        let cat = c();
        gds.push(procedure(
            &format!("gds.knn.{}", mode.name()),
            "The k-nearest neighbor graph algorithm constructs relationships between nodes if the distance between two nodes is among the k nearest distances compared to other nodes. KNN computes distances based on the similarity of node properties",
            vec![arg("graphName", S), optional("configuration", M, empty_map())],
            &similarity::knn_columns(mode),
            mode == similarity::PairMode::Write,
            Box::new(move |ctx, args| similarity::knn(&cat, ctx, args, mode)),
        ));
    }

    // Clients ask whether GDS's Arrow Flight server runs before choosing how to talk to it:
    // there is none, so they use these procedures over Bolt.
    gds.push(procedure(
        "gds.debug.arrow",
        "Returns information about the status of the Arrow Flight server.",
        Vec::new(),
        &[
            ("running", Boolean),
            ("enabled", Boolean),
            ("versions", FieldType::List(Box::new(S))),
            ("listenAddress", S),
            ("advertisedListenAddress", S),
            ("serverLocation", S),
        ],
        false,
        Box::new(|_, _| {
            Ok(vec![vec![
                Value::Bool(false),
                Value::Bool(false),
                Value::from(Vec::<Value>::new()),
                Value::from(""),
                Value::from(""),
                Value::from(""),
            ]])
        }),
    ));

    // `gds.list()`: every procedure above and itself, as GDS lists them.
    let mut listed: Vec<(String, String, String)> = gds
        .iter()
        .map(|p| {
            (
                p.signature().name.clone(),
                p.description().to_owned(),
                signature_text(p.signature()),
            )
        })
        .collect();
    let list_signature = "gds.list(name = : STRING) :: (name :: STRING, description :: STRING, signature :: STRING, type :: STRING)";
    listed.push((
        "gds.list".to_owned(),
        "Lists all algorithm procedures, their description and signature.".to_owned(),
        list_signature.to_owned(),
    ));
    listed.sort();
    let listed = Arc::new(listed);
    gds.push(procedure(
        "gds.list",
        "Lists all algorithm procedures, their description and signature.",
        vec![optional("name", S, Value::from(""))],
        &[
            ("name", S),
            ("description", S),
            ("signature", S),
            ("type", S),
        ],
        false,
        Box::new(move |_, args| {
            let filter = match &args[0] {
                Value::String(s) => s.to_ascii_lowercase(),
                _ => String::new(),
            };
            Ok(listed
                .iter()
                .filter(|(n, _, _)| n.to_ascii_lowercase().contains(&filter))
                .map(|(n, d, s)| {
                    vec![
                        Value::from(n.as_str()),
                        Value::from(d.as_str()),
                        Value::from(s.as_str()),
                        Value::from("procedure"),
                    ]
                })
                .collect())
        }),
    ));
    p.extend(gds);
}

/// A signature as `SHOW PROCEDURES` and `gds.list()` print it.
fn signature_text(s: &ProcedureSignature) -> String {
    let inputs: Vec<String> = s
        .inputs
        .iter()
        .map(|f| match &f.default {
            Some(d) => format!(
                "{} = {} :: {}",
                f.name,
                quiver_value::to_cypher_literal(d),
                f.ty.name()
            ),
            None => format!("{} :: {}", f.name, f.ty.name()),
        })
        .collect();
    let outputs: Vec<String> = s
        .outputs
        .iter()
        .map(|f| format!("{} :: {}", f.name, f.ty.name()))
        .collect();
    format!(
        "{}({}) :: ({})",
        s.name,
        inputs.join(", "),
        outputs.join(", ")
    )
}

fn column_type(name: &str) -> FieldType {
    match name {
        "nodeCount" | "relationshipCount" | "sizeInBytes" => FieldType::Integer,
        "density" => FieldType::Float,
        "configuration" | "schema" | "schemaWithOrientation" | "degreeDistribution" => {
            FieldType::Map
        }
        "creationTime" | "modificationTime" => FieldType::Any,
        _ => FieldType::String,
    }
}

/// GDS's summary of a distribution: min, max, mean and percentiles (nearest rank).
pub(crate) fn distribution(values: &mut [f64]) -> Value {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let at = |q: f64| -> Value {
        if n == 0 {
            return Value::Float(0.0);
        }
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        Value::Float(values[rank - 1])
    };
    let mean = if n == 0 {
        0.0
    } else {
        values.iter().sum::<f64>() / n as f64
    };
    let entries = [
        ("min", at(0.0)),
        (
            "max",
            if n == 0 {
                Value::Float(0.0)
            } else {
                Value::Float(values[n - 1])
            },
        ),
        ("mean", Value::Float(mean)),
        ("p50", at(0.5)),
        ("p75", at(0.75)),
        ("p90", at(0.9)),
        ("p95", at(0.95)),
        ("p99", at(0.99)),
        ("p999", at(0.999)),
    ];
    Value::map(
        entries
            .into_iter()
            .map(|(k, v)| (Arc::from(k), v))
            .collect(),
    )
}
