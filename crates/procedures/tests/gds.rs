//! The `gds.*` procedures through the embedded API: the graph catalog's life cycle, each
//! execution mode, GDS's configuration checks and messages, and answers worked out by hand on
//! small graphs (the kernels themselves are checked against oracles in the algorithms crate,
//! and against NetworkX by the Python driver tests).

use std::sync::Arc;

use std::time::{Duration, Instant};

use quiver_engine::{Database, EngineConfig, Error, TxOptions};
use quiver_value::{Map, Value};

#[path = "../../engine/tests/common/mod.rs"]
mod common;

use common::{ok, run_as, secured, user};

mod support;

use support::{call_fails, db, fails, one, run};

fn float(v: &Value) -> f64 {
    match v {
        Value::Float(f) => *f,
        Value::Int(i) => *i as f64,
        other => panic!("not a number: {other:?}"),
    }
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        other => panic!("not an integer: {other:?}"),
    }
}

/// Three nodes pointing at a fourth (B, C, D -> A), and a separate pair E - F.
fn star(db: &Database) {
    run(
        db,
        "CREATE (a:P {name: 'A'}), (b:P {name: 'B'}), (c:P {name: 'C'}), (d:P {name: 'D'}), \
         (e:P {name: 'E'}), (f:P {name: 'F'}), \
         (b)-[:R {w: 1.0}]->(a), (c)-[:R {w: 2.0}]->(a), (d)-[:R {w: 3}]->(a), (e)-[:R {w: 1.0}]->(f)",
    );
}

/// Name → value from a stream of `nodeId, value` rows.
fn by_name(db: &Database, q: &str) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = run(db, q)
        .into_iter()
        .map(|r| match &r[0] {
            Value::String(s) => (s.to_string(), r[1].clone()),
            other => panic!("not a name: {other:?}"),
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn a_projection_is_listed_with_its_size_until_it_is_dropped() {
    let db = db();
    star(&db);
    let row = run(
        &db,
        "CALL gds.graph.project('g', 'P', 'R') YIELD graphName, nodeCount, relationshipCount RETURN graphName, nodeCount, relationshipCount",
    );
    assert_eq!(
        row,
        vec![vec![Value::from("g"), Value::Int(6), Value::Int(4)]]
    );
    assert_eq!(
        one(&db, "CALL gds.graph.exists('g') YIELD exists RETURN exists"),
        Value::Bool(true)
    );
    let listed = run(
        &db,
        "CALL gds.graph.list() YIELD graphName, nodeCount, sizeInBytes, memoryUsage, density RETURN graphName, nodeCount, sizeInBytes, memoryUsage, density",
    );
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0][1], Value::Int(6));
    assert!(int(&listed[0][2]) > 0);
    assert!(
        matches!(&listed[0][3], Value::String(s) if s.ends_with("Bytes") || s.ends_with("KiB"))
    );
    assert!((float(&listed[0][4]) - 4.0 / 30.0).abs() < 1e-12);
    call_fails(
        &db,
        "CALL gds.graph.project('g', 'P', 'R')",
        "A graph with name 'g' already exists.",
    );
    let dropped = run(
        &db,
        "CALL gds.graph.drop('g') YIELD graphName, nodeCount RETURN graphName, nodeCount",
    );
    assert_eq!(dropped, vec![vec![Value::from("g"), Value::Int(6)]]);
    assert_eq!(
        one(&db, "CALL gds.graph.exists('g') YIELD exists RETURN exists"),
        Value::Bool(false)
    );
    call_fails(
        &db,
        "CALL gds.graph.drop('g')",
        "Graph with name `g` does not exist",
    );
    assert!(run(&db, "CALL gds.graph.drop('g', false)").is_empty());
}

#[test]
fn a_projection_is_a_snapshot_that_later_writes_do_not_change() {
    let db = db();
    star(&db);
    run(&db, "CALL gds.graph.project('g', '*', '*')");
    run(&db, "CREATE (:P)-[:R]->(:P)");
    let counts = run(
        &db,
        "CALL gds.graph.list('g') YIELD nodeCount, relationshipCount RETURN nodeCount, relationshipCount",
    );
    assert_eq!(counts, vec![vec![Value::Int(6), Value::Int(4)]]);
}

#[test]
fn labels_and_types_that_do_not_exist_fail_the_projection() {
    let db = db();
    star(&db);
    call_fails(
        &db,
        "CALL gds.graph.project('g', 'Nope', 'R')",
        "labels not found: 'Nope'",
    );
    call_fails(
        &db,
        "CALL gds.graph.project('g', 'P', 'NOPE')",
        "relationship types not found: 'NOPE'",
    );
    call_fails(
        &db,
        "CALL gds.graph.project('g', 'P', {R: {orientation: 'SIDEWAYS'}})",
        "Orientation `SIDEWAYS` is not supported",
    );
}

#[test]
fn a_projection_entry_of_the_wrong_type_is_named_with_the_type_it_has() {
    let db = db();
    star(&db);
    for (query, message) in [
        (
            "CALL gds.graph.project('g', 42, 'R')",
            "Invalid node projection: expected a string, list or map, got Integer",
        ),
        (
            "CALL gds.graph.project('g', ['P', 1], 'R')",
            "Invalid node projection: a label must be a string, got Integer",
        ),
        (
            "CALL gds.graph.project('g', {A: {label: true}}, 'R')",
            "Invalid node projection: the label of `A` must be a string, got Boolean",
        ),
        (
            "CALL gds.graph.project('g', {A: 2.5}, 'R')",
            "Invalid node projection: `A` must be a label or a map, got Float",
        ),
        (
            "CALL gds.graph.project('g', 'P', {T: {type: 1}})",
            "Invalid relationship projection: the type of `T` must be a string, got Integer",
        ),
        (
            "CALL gds.graph.project('g', 'P', {T: []})",
            "Invalid relationship projection: `T` must be a type or a map, got List",
        ),
        (
            "CALL gds.graph.project('g', 'P', [])",
            "Invalid relationship projection: it names no relationship type",
        ),
    ] {
        call_fails(&db, query, message);
    }
}

#[test]
fn unknown_configuration_keys_and_bad_values_fail_as_gds_reports_them() {
    let db = db();
    star(&db);
    run(&db, "CALL gds.graph.project('g', 'P', 'R')");
    call_fails(
        &db,
        "CALL gds.pageRank.stream('g', {foo: 1})",
        "Unexpected configuration key: foo",
    );
    call_fails(
        &db,
        "CALL gds.pageRank.stream('g', {maxIterations: 'many'})",
        "The value of `maxIterations` must be of type `Integer` but was `String`.",
    );
    call_fails(
        &db,
        "CALL gds.pageRank.stream('g', {dampingFactor: 1.0})",
        "Value for `dampingFactor` was `1`",
    );
    call_fails(
        &db,
        "CALL gds.pageRank.stream('g', {maxIterations: 0})",
        "Value for `maxIterations` was `0`",
    );
    call_fails(
        &db,
        "CALL gds.pageRank.stream('g', {concurrency: 100000})",
        "Value for `concurrency` was `100000`, but must be within the range [1, 64].",
    );
    call_fails(
        &db,
        "CALL gds.pageRank.write('g', {})",
        "No value specified for the mandatory configuration parameter `writeProperty`",
    );
    call_fails(
        &db,
        "CALL gds.pageRank.stream('nope')",
        "Graph with name `nope` does not exist",
    );
    call_fails(
        &db,
        "CALL gds.wcc.stream('g', {relationshipWeightProperty: 'w'})",
        "Relationship weight property `w` not found",
    );
    call_fails(
        &db,
        "CALL gds.pageRank.stream('g', {scaler: 'Sideways'})",
        "Unrecognised scaler type specified: `Sideways`",
    );
}

#[test]
fn page_rank_keeps_gds_unnormalised_scores_and_reports_convergence() {
    let db = db();
    star(&db);
    run(&db, "CALL gds.graph.project('g', 'P', 'R')");
    let scores = by_name(
        &db,
        "CALL gds.pageRank.stream('g') YIELD nodeId, score MATCH (n) WHERE id(n) = nodeId RETURN n.name, score",
    );
    // Every node keeps 0.15; A receives 0.85 of B's, C's and D's 0.15, and F of E's.
    let want = [
        ("A", 0.15 + 0.85 * 3.0 * 0.15),
        ("B", 0.15),
        ("C", 0.15),
        ("D", 0.15),
        ("E", 0.15),
        ("F", 0.15 + 0.85 * 0.15),
    ];
    for ((name, score), (w_name, w)) in scores.iter().zip(want) {
        assert_eq!(name, w_name);
        assert!((float(score) - w).abs() < 1e-12, "{name}: {score:?}");
    }
    let stats = run(
        &db,
        "CALL gds.pageRank.stats('g') YIELD ranIterations, didConverge, centralityDistribution, configuration \
         RETURN ranIterations, didConverge, centralityDistribution.max, configuration.dampingFactor, configuration.maxIterations",
    );
    assert_eq!(stats[0][0], Value::Int(2));
    assert_eq!(stats[0][1], Value::Bool(true));
    assert!((float(&stats[0][2]) - (0.15 + 0.85 * 0.45)).abs() < 1e-12);
    assert_eq!(stats[0][3], Value::Float(0.85));
    assert_eq!(stats[0][4], Value::Int(20));
    // ArticleRank divides what a node sends by its out-degree plus the average out-degree
    // (4 relationships over 6 nodes).
    let article = by_name(
        &db,
        "CALL gds.articleRank.stream('g') YIELD nodeId, score MATCH (n) WHERE id(n) = nodeId RETURN n.name, score",
    );
    let share = 0.15 / (1.0 + 4.0 / 6.0);
    assert!((float(&article[0].1) - (0.15 + 0.85 * 3.0 * share)).abs() < 1e-12);
    assert!((float(&article[5].1) - (0.15 + 0.85 * share)).abs() < 1e-12);
    // A personalised run jumps back to its source nodes only.
    let personal = by_name(
        &db,
        "MATCH (b {name: 'B'}) CALL gds.pageRank.stream('g', {sourceNodes: [b]}) YIELD nodeId, score \
         MATCH (n) WHERE id(n) = nodeId RETURN n.name, score",
    );
    assert!((float(&personal[0].1) - 0.85 * 0.15).abs() < 1e-12);
    assert!((float(&personal[1].1) - 0.15).abs() < 1e-12);
    assert_eq!(float(&personal[2].1), 0.0);
    // Scalers: MinMax puts the scores between 0 and 1.
    let scaled = run(
        &db,
        "CALL gds.pageRank.stream('g', {scaler: 'MinMax'}) YIELD score RETURN min(score), max(score)",
    );
    assert_eq!(scaled, vec![vec![Value::Float(0.0), Value::Float(1.0)]]);
}

#[test]
fn weighted_page_rank_divides_a_node_s_score_by_the_weight_it_sends() {
    let db = db();
    run(
        &db,
        "CREATE (a {name: 'A'}), (b {name: 'B'}), (c {name: 'C'}), (a)-[:R {w: 1}]->(b), (a)-[:R {w: 3}]->(c)",
    );
    run(
        &db,
        "CALL gds.graph.project('g', '*', {R: {properties: 'w'}})",
    );
    let scores = by_name(
        &db,
        "CALL gds.pageRank.stream('g', {relationshipWeightProperty: 'w'}) YIELD nodeId, score \
         MATCH (n) WHERE id(n) = nodeId RETURN n.name, score",
    );
    assert!((float(&scores[1].1) - (0.15 + 0.85 * 0.15 * 0.25)).abs() < 1e-12);
    assert!((float(&scores[2].1) - (0.15 + 0.85 * 0.15 * 0.75)).abs() < 1e-12);
    // Without the weight property every relationship weighs the same.
    let unweighted = by_name(
        &db,
        "CALL gds.pageRank.stream('g') YIELD nodeId, score MATCH (n) WHERE id(n) = nodeId RETURN n.name, score",
    );
    assert_eq!(unweighted[1].1, unweighted[2].1);
}

#[test]
fn components_are_named_after_their_smallest_node_id() {
    let db = db();
    star(&db);
    run(&db, "CALL gds.graph.project('g', 'P', 'R')");
    let ids = by_name(
        &db,
        "CALL gds.wcc.stream('g') YIELD nodeId, componentId MATCH (n) WHERE id(n) = nodeId RETURN n.name, componentId",
    );
    let a = int(&one(&db, "MATCH (n {name: 'A'}) RETURN id(n)"));
    let e = int(&one(&db, "MATCH (n {name: 'E'}) RETURN id(n)"));
    let want = [a, a, a, a, e, e];
    for ((_, c), w) in ids.iter().zip(want) {
        assert_eq!(int(c), w);
    }
    let stats = run(
        &db,
        "CALL gds.wcc.stats('g') YIELD componentCount, componentDistribution RETURN componentCount, componentDistribution.max",
    );
    assert_eq!(stats, vec![vec![Value::Int(2), Value::Float(4.0)]]);
    let consecutive = run(
        &db,
        "CALL gds.wcc.stream('g', {consecutiveIds: true}) YIELD componentId RETURN DISTINCT componentId ORDER BY componentId",
    );
    assert_eq!(consecutive, vec![vec![Value::Int(0)], vec![Value::Int(1)]]);
    // Strongly connected: no cycles, so every node alone.
    let scc = run(
        &db,
        "CALL gds.scc.stats('g') YIELD componentCount RETURN componentCount",
    );
    assert_eq!(scc, vec![vec![Value::Int(6)]]);
}

#[test]
fn mutate_adds_a_property_to_the_projection_that_streams_back_and_cannot_be_added_twice() {
    let db = db();
    star(&db);
    run(&db, "CALL gds.graph.project('g', 'P', 'R')");
    let row = run(
        &db,
        "CALL gds.degree.mutate('g', {mutateProperty: 'deg', orientation: 'REVERSE'}) YIELD nodePropertiesWritten RETURN nodePropertiesWritten",
    );
    assert_eq!(row, vec![vec![Value::Int(6)]]);
    let degrees = by_name(
        &db,
        "CALL gds.graph.nodeProperty.stream('g', 'deg') YIELD nodeId, propertyValue \
         MATCH (n) WHERE id(n) = nodeId RETURN n.name, propertyValue",
    );
    let want = [3.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    for ((_, d), w) in degrees.iter().zip(want) {
        assert_eq!(float(d), w);
    }
    call_fails(
        &db,
        "CALL gds.degree.mutate('g', {mutateProperty: 'deg'})",
        "Node property `deg` already exists in the in-memory graph.",
    );
    assert_eq!(
        run(
            &db,
            "CALL gds.graph.nodeProperty.stream('g', 'deg', ['P']) YIELD nodeId RETURN count(*)"
        ),
        vec![vec![Value::Int(6)]]
    );
    call_fails(
        &db,
        "CALL gds.graph.nodeProperty.stream('g', 'deg', ['Q'])",
        "`nodeLabels` must be ['*'] or name every projected label",
    );
    let schema = one(
        &db,
        "CALL gds.graph.list('g') YIELD schema RETURN schema.nodes.P.deg",
    );
    assert_eq!(schema, Value::from("Float"));
    // The store itself is untouched, until the column is written to it.
    assert_eq!(
        one(&db, "MATCH (n) WHERE n.deg IS NOT NULL RETURN count(n)"),
        Value::Int(0)
    );
    let written = run(
        &db,
        "CALL gds.graph.nodeProperties.write('g', ['deg']) YIELD propertiesWritten RETURN propertiesWritten",
    );
    assert_eq!(written, vec![vec![Value::Int(6)]]);
    assert_eq!(
        one(&db, "MATCH (n {name: 'A'}) RETURN n.deg"),
        Value::Float(3.0)
    );
    let dropped = run(
        &db,
        "CALL gds.graph.nodeProperties.drop('g', 'deg') YIELD propertiesRemoved RETURN propertiesRemoved",
    );
    assert_eq!(dropped, vec![vec![Value::Int(6)]]);
    call_fails(
        &db,
        "CALL gds.graph.nodeProperty.stream('g', 'deg')",
        "property key(s) ['deg']",
    );
    call_fails(
        &db,
        "CALL gds.graph.nodeProperties.drop('g', 'deg')",
        "Could not find property key(s) ['deg']",
    );
}

#[test]
fn write_sets_the_property_on_every_node_in_committed_batches() {
    let db = db();
    run(
        &db,
        "UNWIND range(1, 12500) AS i CREATE (:N {i: 2 * i - 1})-[:R]->(:N {i: 2 * i})",
    );
    run(&db, "CALL gds.graph.project('g', 'N', 'R')");
    let row = run(
        &db,
        "CALL gds.wcc.write('g', {writeProperty: 'component', writeConcurrency: 2}) \
         YIELD nodePropertiesWritten, componentCount RETURN nodePropertiesWritten, componentCount",
    );
    assert_eq!(row, vec![vec![Value::Int(25000), Value::Int(12500)]]);
    assert_eq!(
        one(
            &db,
            "MATCH (n:N) WHERE n.component IS NOT NULL RETURN count(DISTINCT n.component)"
        ),
        Value::Int(12500)
    );
    assert_eq!(
        one(
            &db,
            "MATCH (a:N)-[:R]->(b:N) WHERE a.component <> b.component RETURN count(*)"
        ),
        Value::Int(0)
    );
}

#[test]
fn triangle_algorithms_need_an_undirected_projection() {
    let db = db();
    run(
        &db,
        "CREATE (a {name: 'A'}), (b {name: 'B'}), (c {name: 'C'}), (d {name: 'D'}), \
         (a)-[:R]->(b), (b)-[:R]->(c), (c)-[:R]->(a), (c)-[:R]->(d), (a)-[:R]->(b)",
    );
    run(&db, "CALL gds.graph.project('directed', '*', 'R')");
    call_fails(
        &db,
        "CALL gds.triangleCount.stream('directed')",
        "TriangleCount requires relationship projections to be UNDIRECTED",
    );
    run(
        &db,
        "CALL gds.graph.project('g', '*', {R: {orientation: 'UNDIRECTED'}})",
    );
    let counts = by_name(
        &db,
        "CALL gds.triangleCount.stream('g') YIELD nodeId, triangleCount MATCH (n) WHERE id(n) = nodeId RETURN n.name, triangleCount",
    );
    let want = [1, 1, 1, 0];
    for ((_, t), w) in counts.iter().zip(want) {
        assert_eq!(int(t), w);
    }
    assert_eq!(
        one(
            &db,
            "CALL gds.triangleCount.stats('g') YIELD globalTriangleCount RETURN globalTriangleCount"
        ),
        Value::Int(1)
    );
    let lcc = by_name(
        &db,
        "CALL gds.localClusteringCoefficient.stream('g') YIELD nodeId, localClusteringCoefficient \
         MATCH (n) WHERE id(n) = nodeId RETURN n.name, localClusteringCoefficient",
    );
    let want = [1.0, 1.0, 1.0 / 3.0, 0.0];
    for ((_, c), w) in lcc.iter().zip(want) {
        assert!((float(c) - w).abs() < 1e-12);
    }
    let cores = by_name(
        &db,
        "CALL gds.kcore.stream('g') YIELD nodeId, coreValue MATCH (n) WHERE id(n) = nodeId RETURN n.name, coreValue",
    );
    let want = [2, 2, 2, 1];
    for ((_, c), w) in cores.iter().zip(want) {
        assert_eq!(int(c), w);
    }
}

#[test]
fn louvain_finds_two_cliques_and_reports_their_modularity() {
    let db = db();
    run(
        &db,
        "UNWIND [0, 1] AS side UNWIND range(0, 4) AS i CREATE (:C {side: side, i: i})",
    );
    run(
        &db,
        "MATCH (a:C), (b:C) WHERE a.side = b.side AND a.i < b.i CREATE (a)-[:R]->(b)",
    );
    run(
        &db,
        "MATCH (a:C {side: 0, i: 4}), (b:C {side: 1, i: 0}) CREATE (a)-[:R]->(b)",
    );
    run(
        &db,
        "CALL gds.graph.project('g', 'C', {R: {orientation: 'UNDIRECTED'}})",
    );
    let groups = run(
        &db,
        "CALL gds.louvain.stream('g') YIELD nodeId, communityId MATCH (n) WHERE id(n) = nodeId \
         RETURN communityId, collect(DISTINCT n.side) AS sides, count(*) AS size ORDER BY size",
    );
    assert_eq!(groups.len(), 2);
    for g in &groups {
        assert_eq!(g[2], Value::Int(5));
        assert!(matches!(&g[1], Value::List(l) if l.len() == 1));
    }
    let stats = run(
        &db,
        "CALL gds.louvain.stats('g') YIELD communityCount, modularity, ranLevels RETURN communityCount, modularity, ranLevels",
    );
    assert_eq!(stats[0][0], Value::Int(2));
    // Two 5-cliques (10 relationships each) and a bridge: 2 * (10/21 - (21/42)^2).
    let want = 2.0 * (10.0 / 21.0 - 0.25);
    assert!(
        (float(&stats[0][1]) - want).abs() < 1e-9,
        "{:?}",
        stats[0][1]
    );
    let leiden = run(
        &db,
        "CALL gds.leiden.stats('g', {randomSeed: 7}) YIELD communityCount, modularity, didConverge \
         RETURN communityCount, modularity, didConverge",
    );
    assert_eq!(leiden[0][0], Value::Int(2));
    assert!(
        (float(&leiden[0][1]) - want).abs() < 1e-9,
        "{:?}",
        leiden[0][1]
    );
    assert_eq!(leiden[0][2], Value::Bool(true));
    let lpa = run(
        &db,
        "CALL gds.labelPropagation.stats('g') YIELD communityCount, didConverge RETURN communityCount, didConverge",
    );
    assert_eq!(lpa, vec![vec![Value::Int(2), Value::Bool(true)]]);
}

/// Four nodes, A to D, with costed relationships, projected as `g` with the cost.
fn costed(db: &Database) {
    run(
        db,
        "CREATE (a {name: 'A'}), (b {name: 'B'}), (c {name: 'C'}), (d {name: 'D'}), \
         (a)-[:R {cost: 1}]->(b), (b)-[:R {cost: 1}]->(c), (a)-[:R {cost: 5}]->(c), (c)-[:R {cost: 2}]->(d)",
    );
    run(
        db,
        "CALL gds.graph.project('g', '*', 'R', {relationshipProperties: 'cost'})",
    );
}

#[test]
fn dijkstra_streams_the_cheapest_path_with_its_costs_and_stored_relationships() {
    let db = db();
    costed(&db);
    let row = run(
        &db,
        "MATCH (a {name: 'A'}), (d {name: 'D'}) \
         CALL gds.shortestPath.dijkstra.stream('g', {sourceNode: a, targetNode: d, relationshipWeightProperty: 'cost'}) \
         YIELD totalCost, nodeIds, costs, path \
         RETURN totalCost, nodeIds, costs, length(path), [r IN relationships(path) | r.cost]",
    );
    let name = |v: &Value| {
        one(
            &db,
            &format!("MATCH (n) WHERE id(n) = {} RETURN n.name", int(v)),
        )
    };
    assert_eq!(row.len(), 1);
    assert_eq!(row[0][0], Value::Float(4.0));
    let Value::List(ids) = &row[0][1] else {
        panic!("nodeIds: {:?}", row[0][1])
    };
    let names: Vec<Value> = ids.iter().map(name).collect();
    assert_eq!(
        names,
        vec![
            Value::from("A"),
            Value::from("B"),
            Value::from("C"),
            Value::from("D")
        ]
    );
    assert_eq!(
        row[0][2],
        Value::from(vec![
            Value::Float(0.0),
            Value::Float(1.0),
            Value::Float(2.0),
            Value::Float(4.0)
        ])
    );
    assert_eq!(row[0][3], Value::Int(3));
    assert_eq!(
        row[0][4],
        Value::from(vec![Value::Int(1), Value::Int(1), Value::Int(2)])
    );
    let all = run(
        &db,
        "MATCH (a {name: 'A'}) CALL gds.allShortestPaths.dijkstra.stream('g', {sourceNode: a}) \
         YIELD targetNode, totalCost RETURN totalCost ORDER BY totalCost",
    );
    // Unweighted: A itself, B and C one step away, D two.
    assert_eq!(
        all,
        vec![
            vec![Value::Float(0.0)],
            vec![Value::Float(1.0)],
            vec![Value::Float(1.0)],
            vec![Value::Float(2.0)]
        ]
    );
}

#[test]
fn a_path_write_stores_a_relationship_from_source_to_target_with_its_cost() {
    let db = db();
    costed(&db);
    let row = run(
        &db,
        "MATCH (a {name: 'A'}), (d {name: 'D'}) \
         CALL gds.shortestPath.dijkstra.write('g', {sourceNode: a, targetNode: d, relationshipWeightProperty: 'cost', \
           writeRelationshipType: 'PATH', writeNodeIds: true, writeCosts: true}) \
         YIELD relationshipsWritten RETURN relationshipsWritten",
    );
    assert_eq!(row, vec![vec![Value::Int(1)]]);
    let stored = run(
        &db,
        "MATCH ({name: 'A'})-[p:PATH]->(d) RETURN d.name, p.totalCost, size(p.nodeIds), p.costs",
    );
    assert_eq!(
        stored,
        vec![vec![
            Value::from("D"),
            Value::Float(4.0),
            Value::Int(4),
            Value::from(vec![
                Value::Float(0.0),
                Value::Float(1.0),
                Value::Float(2.0),
                Value::Float(4.0)
            ])
        ]]
    );
    let all = run(
        &db,
        "MATCH (a {name: 'A'}) CALL gds.allShortestPaths.delta.write('g', {sourceNode: a, writeRelationshipType: 'REACHES'}) \
         YIELD relationshipsWritten RETURN relationshipsWritten",
    );
    assert_eq!(all, vec![vec![Value::Int(4)]]);
    call_fails(
        &db,
        "MATCH (a {name: 'A'}) CALL gds.allShortestPaths.dijkstra.write('g', {sourceNode: a}) YIELD relationshipsWritten RETURN 1",
        "No value specified for the mandatory configuration parameter `writeRelationshipType`",
    );
}

#[test]
fn yens_delta_stepping_and_traversals_walk_the_same_costed_graph() {
    let db = db();
    costed(&db);
    // The two cheapest loopless paths A to D: A-B-C-D (4) and A-C-D (7).
    let yens = run(
        &db,
        "MATCH (a {name: 'A'}), (d {name: 'D'}) \
         CALL gds.shortestPath.yens.stream('g', {sourceNode: a, targetNode: d, k: 3, relationshipWeightProperty: 'cost'}) \
         YIELD index, totalCost, path RETURN index, totalCost, length(path)",
    );
    assert_eq!(
        yens,
        vec![
            vec![Value::Int(0), Value::Float(4.0), Value::Int(3)],
            vec![Value::Int(1), Value::Float(7.0), Value::Int(2)]
        ]
    );
    let delta = run(
        &db,
        "MATCH (a {name: 'A'}) CALL gds.allShortestPaths.delta.stream('g', {sourceNode: a, delta: 1.5, relationshipWeightProperty: 'cost'}) \
         YIELD totalCost RETURN totalCost",
    );
    assert_eq!(
        delta,
        vec![
            vec![Value::Float(0.0)],
            vec![Value::Float(1.0)],
            vec![Value::Float(2.0)],
            vec![Value::Float(4.0)]
        ]
    );
    let bfs = run(
        &db,
        "MATCH (a {name: 'A'}) CALL gds.bfs.stream('g', {sourceNode: a, maxDepth: 1}) YIELD nodeIds RETURN size(nodeIds)",
    );
    assert_eq!(bfs, vec![vec![Value::Int(3)]]);
    call_fails(
        &db,
        "CALL gds.bfs.stream('g', {sourceNode: 123456})",
        "Source node with id 123456 does not exist in the in-memory graph.",
    );
}

#[test]
fn estimate_and_list_describe_without_running() {
    let db = db();
    star(&db);
    run(&db, "CALL gds.graph.project('g', 'P', 'R')");
    let row = run(
        &db,
        "CALL gds.pageRank.stream.estimate('g', {}) YIELD nodeCount, relationshipCount, bytesMin, requiredMemory \
         RETURN nodeCount, relationshipCount, bytesMin > 0, requiredMemory",
    );
    assert_eq!(row[0][0], Value::Int(6));
    assert_eq!(row[0][1], Value::Int(4));
    assert_eq!(row[0][2], Value::Bool(true));
    let names = run(
        &db,
        "CALL gds.list('pagerank') YIELD name RETURN name ORDER BY name",
    );
    assert!(names.contains(&vec![Value::from("gds.pageRank.stream")]));
    assert!(names.contains(&vec![Value::from("gds.pageRank.write.estimate")]));
}

#[test]
fn gds_functions_answer_the_version_and_turn_stream_ids_into_nodes() {
    let db = db();
    star(&db);
    assert_eq!(one(&db, "RETURN gds.version()"), Value::from("2.6.0"));
    run(&db, "CALL gds.graph.project('g', 'P', 'R')");
    let top = run(
        &db,
        "CALL gds.pageRank.stream('g') YIELD nodeId, score \
         RETURN gds.util.asNode(nodeId).name AS name ORDER BY score DESC, name LIMIT 1",
    );
    assert_eq!(top, vec![vec![Value::from("A")]]);
    assert_eq!(one(&db, "RETURN gds.util.asNode(987654)"), Value::Null);
    assert_eq!(
        one(
            &db,
            "MATCH (n:P) WITH collect(id(n)) AS ids RETURN size(gds.util.asNodes(ids))"
        ),
        Value::Int(6)
    );
    assert_eq!(
        one(&db, "RETURN gds.util.isFinite(gds.util.NaN())"),
        Value::Bool(false)
    );
    assert_eq!(
        one(&db, "RETURN gds.util.isInfinite(gds.util.infinity())"),
        Value::Bool(true)
    );
}

/// Runs `q` in a transaction of `options`, cancelled after `cancel_after` when given; the error
/// it ends with and how long it took.
fn interrupted(
    db: &Database,
    q: &str,
    options: TxOptions,
    cancel_after: Option<Duration>,
) -> (Error, Duration) {
    let mut tx = db.begin(options).unwrap();
    let canceller = cancel_after.map(|after| {
        let cancel = tx.cancel_handle();
        std::thread::spawn(move || {
            std::thread::sleep(after);
            cancel.cancel();
        })
    });
    let started = Instant::now();
    let e = tx
        .run(q, Map::new())
        .and_then(|q| {
            let mut out = Vec::new();
            tx.pull(q, -1, &mut out)
        })
        .unwrap_err();
    if let Some(t) = canceller {
        t.join().unwrap();
    }
    (e, started.elapsed())
}

#[test]
fn a_run_that_would_not_end_stops_at_the_deadline_or_when_cancelled() {
    let db = db();
    run(&db, "UNWIND range(0, 199) AS i CREATE (:N {i: i})");
    run(
        &db,
        "MATCH (a:N), (b:N) WHERE b.i = (a.i + 1) % 200 CREATE (a)-[:R]->(b)",
    );
    run(&db, "CALL gds.graph.project('g', 'N', 'R')");
    // A tolerance of zero never converges: only the caller's limits end the run.
    let q = "CALL gds.pageRank.stats('g', {maxIterations: 2000000000, tolerance: 0.0, concurrency: 2}) YIELD ranIterations RETURN ranIterations";
    let (e, took) = interrupted(
        &db,
        q,
        TxOptions {
            timeout: Some(Duration::from_millis(200)),
            ..TxOptions::default()
        },
        None,
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(
        e.status_code().code().contains("Timed") || e.is_retryable(),
        "{e}"
    );
    let (e, took) = interrupted(
        &db,
        q,
        TxOptions::default(),
        Some(Duration::from_millis(100)),
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert_eq!(
        e.status_code().code(),
        "Neo.ClientError.Transaction.Terminated",
        "{e}"
    );
}

#[test]
fn results_do_not_depend_on_the_concurrency() {
    let db = db();
    run(&db, "UNWIND range(0, 999) AS i CREATE (:N {i: i})");
    run(
        &db,
        "MATCH (n:N) WITH n ORDER BY n.i WITH collect(n) AS ns \
         UNWIND range(0, 999) AS i UNWIND [(i * 7 + 3) % 1000, (i * 13 + 5) % 1000, (i + 1) % 1000] AS t \
         WITH ns[i] AS a, ns[t] AS b CREATE (a)-[:R]->(b)",
    );
    run(
        &db,
        "CALL gds.graph.project('g', 'N', {R: {orientation: 'UNDIRECTED'}})",
    );
    for (procedure, column) in [
        ("gds.pageRank.stream", "score"),
        ("gds.wcc.stream", "componentId"),
        ("gds.triangleCount.stream", "triangleCount"),
        ("gds.louvain.stream", "communityId"),
        ("gds.betweenness.stream", "score"),
    ] {
        let at = |c: i64| {
            run(
                &db,
                &format!(
                    "CALL {procedure}('g', {{concurrency: {c}}}) YIELD nodeId, {column} RETURN nodeId, {column} ORDER BY nodeId"
                ),
            )
        };
        let one_thread = at(1);
        for c in [2, 4] {
            let many = at(c);
            assert_eq!(one_thread.len(), many.len());
            for (a, b) in one_thread.iter().zip(&many) {
                assert_eq!(a[0], b[0]);
                assert!(
                    (float(&a[1]) - float(&b[1])).abs() <= 1e-9 * float(&a[1]).abs().max(1.0),
                    "{procedure} at {c}: {a:?} vs {b:?}"
                );
            }
        }
    }
}

#[test]
fn a_cypher_projection_is_the_graph_its_queries_return() {
    let db = db();
    star(&db);
    run(&db, "MATCH (n:P) SET n.score = size(n.name)");
    let row = run(
        &db,
        "CALL gds.graph.project.cypher('c', \
           'MATCH (n:P) RETURN id(n) AS id, n.score AS score', \
           'MATCH (a:P)-[r:R]->(b:P) RETURN id(a) AS source, id(b) AS target, r.w AS w') \
         YIELD graphName, nodeCount, relationshipCount RETURN graphName, nodeCount, relationshipCount",
    );
    assert_eq!(
        row,
        vec![vec![Value::from("c"), Value::Int(6), Value::Int(4)]]
    );
    run(
        &db,
        "CALL gds.graph.project('native', 'P', {R: {properties: 'w'}})",
    );
    let q = |g: &str| {
        format!(
            "CALL gds.pageRank.stream('{g}', {{relationshipWeightProperty: 'w'}}) YIELD nodeId, score \
             RETURN nodeId, score ORDER BY nodeId"
        )
    };
    assert_eq!(run(&db, &q("c")), run(&db, &q("native")));
    let scores = run(
        &db,
        "CALL gds.graph.nodeProperty.stream('c', 'score') YIELD propertyValue RETURN sum(propertyValue)",
    );
    assert_eq!(scores, vec![vec![Value::Int(6)]]);
    // A relationship to a node the node query left out fails, unless told to skip it.
    let partial = "CALL gds.graph.project.cypher($name, \
        'MATCH (n:P) WHERE n.name <> \"A\" RETURN id(n) AS id', \
        'MATCH (a:P)-[:R]->(b:P) RETURN id(a) AS source, id(b) AS target', $config) \
        YIELD relationshipCount RETURN relationshipCount";
    let params = |name: &str, validate: bool| -> Map {
        Map::from_iter([
            (Arc::from("name"), Value::from(name)),
            (
                Arc::from("config"),
                Value::map(Map::from_iter([(
                    Arc::from("validateRelationships"),
                    Value::Bool(validate),
                )])),
            ),
        ])
    };
    let e = db.execute(partial, params("p1", true)).unwrap_err();
    assert!(e.message().contains("is not part of the node query"), "{e}");
    let r = db.execute(partial, params("p2", false)).unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(1)]]);
    call_fails(
        &db,
        "CALL gds.graph.project.cypher('x', 'RETURN 1 AS nope', 'RETURN 1 AS source, 2 AS target')",
        "required column(s) not found: 'id'",
    );
}

#[test]
fn each_user_sees_and_drops_only_the_graphs_they_projected() {
    let db = db();
    star(&db);
    secured(&db);
    user(&db, "ann", Some("admin"));
    user(&db, "bob", Some("admin"));
    ok(&db, "ann", "CALL gds.graph.project('g', 'P', 'R')");
    // Bob's catalog is his own: the same name is free for him, and Ann's graph is not his.
    assert_eq!(
        ok(
            &db,
            "bob",
            "CALL gds.graph.exists('g') YIELD exists RETURN exists"
        ),
        vec![vec![Value::Bool(false)]]
    );
    assert!(
        ok(
            &db,
            "bob",
            "CALL gds.graph.list() YIELD graphName RETURN graphName"
        )
        .is_empty()
    );
    let (_, message) = run_as(&db, "bob", "CALL gds.pageRank.stream('g')").unwrap_err();
    assert!(
        message.contains("Graph with name `g` does not exist"),
        "{message}"
    );
    ok(&db, "bob", "CALL gds.graph.project('g', 'P', '*')");
    ok(&db, "bob", "CALL gds.graph.drop('g')");
    assert_eq!(
        ok(
            &db,
            "ann",
            "CALL gds.graph.list() YIELD graphName RETURN graphName"
        ),
        vec![vec![Value::from("g")]]
    );
}

#[test]
fn node_similarity_pairs_nodes_by_the_neighbours_they_share() {
    let db = db();
    run(
        &db,
        "CREATE (a {name: 'A'}), (b {name: 'B'}), (c {name: 'C'}), (x {name: 'X'}), (y {name: 'Y'}), (z {name: 'Z'}), \
         (a)-[:L]->(x), (a)-[:L]->(y), (b)-[:L]->(x), (b)-[:L]->(y), (b)-[:L]->(z), (c)-[:L]->(z)",
    );
    run(&db, "CALL gds.graph.project('g', '*', 'L')");
    let pairs = run(
        &db,
        "CALL gds.nodeSimilarity.stream('g') YIELD node1, node2, similarity \
         RETURN gds.util.asNode(node1).name, gds.util.asNode(node2).name, similarity ORDER BY similarity DESC, node1",
    );
    // A and B share 2 of 3; B and C share 1 of 3; A and C share nothing.
    let want = [
        ("A", "B", 2.0 / 3.0),
        ("B", "A", 2.0 / 3.0),
        ("B", "C", 1.0 / 3.0),
        ("C", "B", 1.0 / 3.0),
    ];
    assert_eq!(pairs.len(), want.len());
    for (row, (a, b, s)) in pairs.iter().zip(want) {
        assert_eq!(row[0], Value::from(a));
        assert_eq!(row[1], Value::from(b));
        assert!((float(&row[2]) - s).abs() < 1e-12);
    }
    let top = run(
        &db,
        "CALL gds.nodeSimilarity.stream('g', {topK: 1, similarityCutoff: 0.5}) YIELD similarity RETURN count(*)",
    );
    assert_eq!(top, vec![vec![Value::Int(2)]]);
    let stats = run(
        &db,
        "CALL gds.nodeSimilarity.stats('g') YIELD nodesCompared, similarityPairs RETURN nodesCompared, similarityPairs",
    );
    assert_eq!(stats, vec![vec![Value::Int(3), Value::Int(4)]]);
    let written = run(
        &db,
        "CALL gds.nodeSimilarity.write('g', {writeRelationshipType: 'SIMILAR', writeProperty: 'score'}) \
         YIELD relationshipsWritten RETURN relationshipsWritten",
    );
    assert_eq!(written, vec![vec![Value::Int(4)]]);
    let stored = run(
        &db,
        "MATCH (a {name: 'A'})-[s:SIMILAR]->(b) RETURN b.name, s.score",
    );
    assert_eq!(
        stored,
        vec![vec![Value::from("B"), Value::Float(2.0 / 3.0)]]
    );
    call_fails(
        &db,
        "CALL gds.nodeSimilarity.write('g', {writeProperty: 'score'})",
        "No value specified for the mandatory configuration parameter `writeRelationshipType`",
    );
}

#[test]
fn a_star_follows_coordinates_to_the_cheapest_path() {
    let db = db();
    // Four ports a degree apart; sailing costs nautical miles (a degree of latitude is 60).
    run(
        &db,
        "CREATE (a:Port {name: 'A', lat: 0.0, lon: 0.0}), (b:Port {name: 'B', lat: 1.0, lon: 0.0}), \
         (c:Port {name: 'C', lat: 2.0, lon: 0.0}), (d:Port {name: 'D', lat: 1.0, lon: 1.0}), \
         (a)-[:SEA {nm: 60.0}]->(b), (b)-[:SEA {nm: 60.0}]->(c), (a)-[:SEA {nm: 90.0}]->(d), (d)-[:SEA {nm: 90.0}]->(c)",
    );
    run(
        &db,
        "CALL gds.graph.project('g', {Port: {properties: ['lat', 'lon']}}, {SEA: {properties: 'nm'}})",
    );
    let row = run(
        &db,
        "MATCH (a {name: 'A'}), (c {name: 'C'}) \
         CALL gds.shortestPath.astar.stream('g', {sourceNode: a, targetNode: c, latitudeProperty: 'lat', \
           longitudeProperty: 'lon', relationshipWeightProperty: 'nm'}) \
         YIELD totalCost, nodeIds RETURN totalCost, size(nodeIds)",
    );
    assert_eq!(row, vec![vec![Value::Float(120.0), Value::Int(3)]]);
    call_fails(
        &db,
        "MATCH (a {name: 'A'}), (c {name: 'C'}) \
         CALL gds.shortestPath.astar.stream('g', {sourceNode: a, targetNode: c, latitudeProperty: 'height', longitudeProperty: 'lon'}) \
         YIELD totalCost RETURN totalCost",
        "The property `height` given as `latitudeProperty` is not a node property of the projection.",
    );
}

#[test]
fn relationship_types_narrow_a_run_and_stream_with_their_names() {
    let db = db();
    run(
        &db,
        "CREATE (a {name: 'A'}), (b {name: 'B'}), (c {name: 'C'}), \
         (a)-[:KNOWS]->(b), (b)-[:LIKES]->(c), (a)-[:LIKES]->(b)",
    );
    run(&db, "CALL gds.graph.project('g', '*', ['KNOWS', 'LIKES'])");
    let all = run(
        &db,
        "CALL gds.graph.relationships.stream('g') YIELD sourceNodeId, targetNodeId, relationshipType \
         RETURN gds.util.asNode(sourceNodeId).name + '-' + relationshipType + '-' + gds.util.asNode(targetNodeId).name AS r ORDER BY r",
    );
    assert_eq!(
        all,
        vec![
            vec![Value::from("A-KNOWS-B")],
            vec![Value::from("A-LIKES-B")],
            vec![Value::from("B-LIKES-C")]
        ]
    );
    let likes = run(
        &db,
        "CALL gds.graph.relationships.stream('g', ['LIKES']) YIELD relationshipType RETURN count(*)",
    );
    assert_eq!(likes, vec![vec![Value::Int(2)]]);
    // Along KNOWS alone, C is cut off from A and B.
    let components = run(
        &db,
        "CALL gds.wcc.stats('g', {relationshipTypes: ['KNOWS']}) YIELD componentCount RETURN componentCount",
    );
    assert_eq!(components, vec![vec![Value::Int(2)]]);
    let both = run(
        &db,
        "CALL gds.wcc.stats('g', {relationshipTypes: ['KNOWS', 'LIKES']}) YIELD componentCount RETURN componentCount",
    );
    assert_eq!(both, vec![vec![Value::Int(1)]]);
    call_fails(
        &db,
        "CALL gds.wcc.stats('g', {relationshipTypes: ['HATES']})",
        "Could not find the specified `relationshipTypes` of ['HATES']. Available relationship types are [KNOWS, LIKES].",
    );
    call_fails(
        &db,
        "CALL gds.wcc.stats('g', {nodeLabels: ['Person']})",
        "`nodeLabels` must be ['*'] or name every projected label",
    );
}

#[test]
fn fast_rp_embeds_every_node_repeatably_and_writes_the_lists() {
    let db = db();
    star(&db);
    run(
        &db,
        "CALL gds.graph.project('g', 'P', {R: {orientation: 'UNDIRECTED'}})",
    );
    let q = "CALL gds.fastRP.stream('g', {embeddingDimension: 16, randomSeed: 42}) YIELD nodeId, embedding \
             RETURN nodeId, embedding ORDER BY nodeId";
    let first = run(&db, q);
    assert_eq!(first.len(), 6);
    assert!(
        first
            .iter()
            .all(|r| matches!(&r[1], Value::List(l) if l.len() == 16))
    );
    assert_eq!(
        first,
        run(&db, q),
        "the same seed gives the same embeddings"
    );
    // B, C and D each link to A alone: alike neighbourhoods, alike embeddings.
    let alike = run(
        &db,
        "CALL gds.fastRP.stream('g', {embeddingDimension: 16, randomSeed: 42}) YIELD nodeId, embedding \
         WITH gds.util.asNode(nodeId).name AS name, embedding WHERE name IN ['B', 'C', 'D'] \
         RETURN count(DISTINCT embedding)",
    );
    assert_eq!(alike, vec![vec![Value::Int(1)]]);
    call_fails(
        &db,
        "CALL gds.fastRP.stream('g', {})",
        "No value specified for the mandatory configuration parameter `embeddingDimension`",
    );
    let written = run(
        &db,
        "CALL gds.fastRP.write('g', {embeddingDimension: 8, writeProperty: 'e'}) YIELD nodePropertiesWritten, nodeCount \
         RETURN nodePropertiesWritten, nodeCount",
    );
    assert_eq!(written, vec![vec![Value::Int(6), Value::Int(6)]]);
    assert_eq!(
        one(&db, "MATCH (n:P) WHERE size(n.e) = 8 RETURN count(n)"),
        Value::Int(6)
    );
}

#[test]
fn knn_pairs_each_node_with_the_nodes_whose_properties_are_nearest() {
    let db = db();
    run(
        &db,
        "CREATE (:Item {name: 'a', price: 1.0, v: [1.0, 0.0]}), (:Item {name: 'b', price: 2.0, v: [0.9, 0.1]}), \
         (:Item {name: 'c', price: 10.0, v: [0.0, 1.0]}), (:Item {name: 'd', price: 11.0, v: [0.1, 0.9]})",
    );
    run(
        &db,
        "CALL gds.graph.project('g', {Item: {properties: ['price', 'v']}}, '*')",
    );
    let nearest = |props: &str| {
        run(
            &db,
            &format!(
                "CALL gds.knn.stream('g', {{nodeProperties: {props}, topK: 1}}) YIELD node1, node2 \
                 RETURN gds.util.asNode(node1).name + gds.util.asNode(node2).name AS pair ORDER BY pair"
            ),
        )
    };
    let want = vec![
        vec![Value::from("ab")],
        vec![Value::from("ba")],
        vec![Value::from("cd")],
        vec![Value::from("dc")],
    ];
    assert_eq!(nearest("'price'"), want);
    assert_eq!(nearest("{v: 'COSINE'}"), want);
    assert_eq!(nearest("['price', 'v']"), want);
    let stats = run(
        &db,
        "CALL gds.knn.stats('g', {nodeProperties: 'price', topK: 1}) YIELD similarityPairs, nodesCompared \
         RETURN similarityPairs, nodesCompared",
    );
    assert_eq!(stats, vec![vec![Value::Int(4), Value::Int(4)]]);
    let written = run(
        &db,
        "CALL gds.knn.write('g', {nodeProperties: 'price', topK: 1, writeRelationshipType: 'NEAR', writeProperty: 's'}) \
         YIELD relationshipsWritten RETURN relationshipsWritten",
    );
    assert_eq!(written, vec![vec![Value::Int(4)]]);
    assert_eq!(
        one(&db, "MATCH (:Item {name: 'c'})-[r:NEAR]->(d) RETURN d.name"),
        Value::from("d")
    );
    call_fails(
        &db,
        "CALL gds.knn.stream('g', {nodeProperties: 'weight'})",
        "The property `weight` has not been loaded.",
    );
}

#[test]
fn projections_and_runs_count_against_the_querys_memory_limit() {
    let db = Database::open_in_memory(EngineConfig {
        query_memory_bytes_max: 4 << 20,
        ..EngineConfig::default()
    });
    quiver_procedures::register(&db);
    run(&db, "UNWIND range(1, 2000) AS i CREATE (:N {i: i})");
    run(
        &db,
        "MATCH (n:N) WITH collect(n) AS ns UNWIND range(0, 1998) AS i WITH ns[i] AS a, ns[i + 1] AS b CREATE (a)-[:R]->(b)",
    );
    run(&db, "CALL gds.graph.project('g', 'N', 'R')");
    // 2,000 nodes of 1,000 embedding floats each, three times over, are far past 4 MiB.
    let e = fails(
        &db,
        "CALL gds.fastRP.stats('g', {embeddingDimension: 1000}) YIELD nodeCount RETURN nodeCount",
    );
    assert_eq!(
        e.status_code().code(),
        "Neo.TransientError.General.TransactionMemoryLimit",
        "{e}"
    );
    assert_eq!(db.query_memory_reserved_bytes(), 0);
    // A run that fits goes ahead and gives its memory back.
    run(
        &db,
        "CALL gds.wcc.stats('g') YIELD componentCount RETURN componentCount",
    );
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn betweenness_from_a_seeded_sample_of_sources_is_repeatable() {
    let db = db();
    run(&db, "UNWIND range(0, 49) AS i CREATE (:N {i: i})");
    run(
        &db,
        "MATCH (n:N) WITH collect(n) AS ns UNWIND range(0, 49) AS i \
         WITH ns[i] AS a, ns[(i * 7 + 1) % 50] AS b, ns[(i + 1) % 50] AS c \
         CREATE (a)-[:R]->(b), (a)-[:R]->(c)",
    );
    run(&db, "CALL gds.graph.project('g', 'N', 'R')");
    let q = |config: &str| {
        run(
            &db,
            &format!(
                "CALL gds.betweenness.stream('g', {config}) YIELD nodeId, score RETURN nodeId, score ORDER BY nodeId"
            ),
        )
    };
    let full = q("{}");
    assert_eq!(
        q("{samplingSize: 50}"),
        full,
        "a sample of every node is the whole"
    );
    let sampled = q("{samplingSize: 10, samplingSeed: 3}");
    assert_eq!(sampled, q("{samplingSize: 10, samplingSeed: 3}"));
    assert_ne!(sampled, full);
    let total = |rows: &[Vec<Value>]| rows.iter().map(|r| float(&r[1])).sum::<f64>();
    assert!(total(&sampled) < total(&full));
}

#[test]
fn seeds_name_the_components_and_communities_they_start() {
    let db = db();
    star(&db);
    run(&db, "CREATE (:P {name: 'G'})");
    run(&db, "MATCH (a:P {name: 'A'}) SET a.seed = 100");
    run(&db, "MATCH (e:P {name: 'E'}) SET e.seed = 7");
    run(
        &db,
        "CALL gds.graph.project('g', {P: {properties: {seed: {property: 'seed', defaultValue: -1}}}}, 'R')",
    );
    run(
        &db,
        "CALL gds.graph.project('h', {P: {properties: 'seed'}}, 'R')",
    );
    let components = by_name(
        &db,
        "CALL gds.wcc.stream('h', {seedProperty: 'seed'}) YIELD nodeId, componentId \
         RETURN gds.util.asNode(nodeId).name, componentId",
    );
    let want = [100, 100, 100, 100, 7, 7, 101];
    for ((name, c), w) in components.iter().zip(want) {
        assert_eq!(int(c), w, "{name}");
    }
    let communities = by_name(
        &db,
        "CALL gds.labelPropagation.stream('h', {seedProperty: 'seed'}) YIELD nodeId, communityId \
         RETURN gds.util.asNode(nodeId).name, communityId",
    );
    assert_eq!(int(&communities[0].1), 100);
    assert_eq!(int(&communities[4].1), 7);
    assert_eq!(int(&communities[6].1), 101);
    // With a default seed every unseeded node shares seed -1, so all start in one component.
    let together = run(
        &db,
        "CALL gds.wcc.stream('g', {seedProperty: 'seed'}) YIELD componentId RETURN collect(DISTINCT componentId)",
    );
    assert_eq!(together, vec![vec![Value::from(vec![Value::Int(-1)])]]);
    call_fails(
        &db,
        "CALL gds.wcc.stream('h', {seedProperty: 'seed', consecutiveIds: true})",
        "Seeding and the `consecutiveIds` option cannot be used together.",
    );
    call_fails(
        &db,
        "CALL gds.wcc.stream('h', {seedProperty: 'nope'})",
        "The seed property `nope` is not a node property of the projection.",
    );
}
