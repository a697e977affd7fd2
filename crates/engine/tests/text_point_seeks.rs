//! Seeks through text and point indexes, node and relationship, through Cypher: the
//! operators EXPLAIN names (as Neo4j 5 does), rows equal to what the same query returns
//! without the index, and the read figures `SHOW INDEXES` reports.

use std::sync::Arc;

use quiver_engine::{Database, EngineConfig};
use quiver_value::Value;

mod common;

use common::{plan, rows};

fn db() -> Arc<Database> {
    Database::open_in_memory(EngineConfig::default())
}

/// Places with names and locations of every kind a text or point index must skip or keep:
/// strings, integers, lists, points in three coordinate systems, and none. (A location of
/// another type would make `point.distance` fail on the scan.)
const PLACES: &str = "UNWIND range(0, 299) AS i
    CREATE (p:Place {id: i})
    SET p.name = CASE i % 5
            WHEN 0 THEN 'north ' + toString(i)
            WHEN 1 THEN toString(i) + ' south'
            WHEN 2 THEN i
            WHEN 3 THEN ['north']
            ELSE null END,
        p.loc = CASE i % 4
            WHEN 0 THEN point({x: i % 17, y: i % 13})
            WHEN 1 THEN point({longitude: (i % 40) - 20.0, latitude: (i % 30) - 15.0})
            WHEN 2 THEN point({x: i % 7, y: 1, z: i % 3})
            ELSE null END";

/// Runs `query` with and without the indexes made by `indexes` and checks both answer
/// alike, the first through an operator starting with `operator`.
fn same_rows_through(indexes: &[&str], query: &str, operator: &str) {
    let plain = db();
    rows(&plain, PLACES);
    let indexed = db();
    rows(&indexed, PLACES);
    for ix in indexes {
        rows(&indexed, ix);
    }
    rows(&indexed, "CALL db.awaitIndexes()");
    let ops = plan(&indexed, query);
    assert!(
        ops.iter().any(|o| o.starts_with(operator)),
        "{query}: {ops:?}"
    );
    let expected = rows(&plain, query);
    assert_eq!(rows(&indexed, query), expected, "{query}");
}

const TEXT: &str = "CREATE TEXT INDEX place_name FOR (p:Place) ON (p.name)";
const POINT: &str = "CREATE POINT INDEX place_loc FOR (p:Place) ON (p.loc)";
const RANGE: &str = "CREATE INDEX place_name_range FOR (p:Place) ON (p.name)";

#[test]
fn text_index_serves_contains_ends_with_and_string_prefixes() {
    let cases = [
        (
            "MATCH (p:Place) WHERE p.name CONTAINS 'orth' RETURN p.id AS id ORDER BY id",
            "NodeIndexContainsScan TEXT INDEX :Place(name) CONTAINS",
        ),
        (
            "MATCH (p:Place) WHERE p.name ENDS WITH 'south' RETURN p.id AS id ORDER BY id",
            "NodeIndexEndsWithScan TEXT INDEX :Place(name) ENDS WITH",
        ),
        (
            "MATCH (p:Place) WHERE p.name STARTS WITH 'north 1' RETURN p.id AS id ORDER BY id",
            "NodeIndexSeekByRange TEXT INDEX :Place(name) STARTS WITH",
        ),
        (
            "MATCH (p:Place) WHERE p.name = 'north 10' RETURN p.id AS id ORDER BY id",
            "NodeIndexSeek TEXT INDEX :Place(name) =",
        ),
        (
            "MATCH (p:Place) WHERE p.name IN ['north 5', '6 south'] RETURN p.id AS id ORDER BY id",
            "NodeIndexSeek TEXT INDEX :Place(name) IN",
        ),
        (
            "MATCH (p:Place) WHERE p.name CONTAINS '' RETURN count(p) AS n",
            "NodeIndexContainsScan",
        ),
    ];
    for (query, operator) in cases {
        same_rows_through(&[TEXT], query, operator);
    }
}

#[test]
fn text_index_is_not_used_where_it_would_miss_values() {
    let db = db();
    rows(&db, PLACES);
    rows(&db, TEXT);
    // An integer, or a value known only when running, may equal a non-string.
    for query in [
        "MATCH (p:Place) WHERE p.name = 7 RETURN p",
        "WITH 7 AS x MATCH (p:Place) WHERE p.name = x RETURN p",
        "MATCH (p:Place) WHERE p.name IN ['a', 2] RETURN p",
    ] {
        let ops = plan(&db, query);
        assert!(!ops.iter().any(|o| o.contains("TEXT INDEX")), "{ops:?}");
    }
    assert_eq!(
        rows(&db, "MATCH (p:Place) WHERE p.name = 7 RETURN p.id AS id"),
        vec![vec![Value::Int(7)]]
    );
    // Null and non-string arguments give no rows, as the predicate gives null.
    for query in [
        "MATCH (p:Place) WHERE p.name CONTAINS null RETURN p",
        "MATCH (p:Place) WHERE p.name ENDS WITH 5 RETURN p",
        "WITH [1] AS x MATCH (p:Place) WHERE p.name CONTAINS x RETURN p",
    ] {
        assert!(rows(&db, query).is_empty(), "{query}");
    }
}

#[test]
fn a_range_index_keeps_priority_where_both_serve() {
    let db = db();
    rows(&db, PLACES);
    rows(&db, TEXT);
    rows(&db, RANGE);
    let ops = plan(
        &db,
        "MATCH (p:Place) WHERE p.name STARTS WITH 'north' RETURN p",
    );
    assert!(
        ops.iter()
            .any(|o| o.starts_with("NodeIndexSeek :Place(name) STARTS WITH")),
        "{ops:?}"
    );
    let ops = plan(&db, "MATCH (p:Place) WHERE p.name = 'north 10' RETURN p");
    assert!(!ops.iter().any(|o| o.contains("TEXT INDEX")), "{ops:?}");
    let ops = plan(&db, "MATCH (p:Place) WHERE p.name CONTAINS 'orth' RETURN p");
    assert!(
        ops.iter().any(|o| o.starts_with("NodeIndexContainsScan")),
        "{ops:?}"
    );
}

#[test]
fn point_index_serves_distances_and_boxes() {
    let cases = [
        "MATCH (p:Place) WHERE point.distance(p.loc, point({x: 3, y: 4})) < 5 RETURN p.id AS id ORDER BY id",
        "MATCH (p:Place) WHERE point.distance(point({x: 3, y: 4}), p.loc) <= 5 RETURN p.id AS id ORDER BY id",
        "MATCH (p:Place) WHERE 5 > point.distance(p.loc, point({x: 3, y: 4})) RETURN p.id AS id ORDER BY id",
        "MATCH (p:Place) WHERE point.distance(p.loc, point({x: 2, y: 1, z: 1})) <= 2 RETURN p.id AS id ORDER BY id",
        "MATCH (p:Place) WHERE point.distance(p.loc, point({longitude: 0, latitude: 0})) < 1500000 RETURN p.id AS id ORDER BY id",
        "MATCH (p:Place) WHERE point.distance(p.loc, point({longitude: 179, latitude: 0})) < 25000000 RETURN p.id AS id ORDER BY id",
        "MATCH (p:Place) WHERE point.distance(p.loc, point({longitude: 0, latitude: 89})) < 12000000 RETURN p.id AS id ORDER BY id",
        "MATCH (p:Place) WHERE point.withinBBox(p.loc, point({x: 2, y: 2}), point({x: 9, y: 8})) RETURN p.id AS id ORDER BY id",
        "MATCH (p:Place) WHERE point.withinBBox(p.loc, point({longitude: 10, latitude: -10}), point({longitude: -10, latitude: 10})) RETURN p.id AS id ORDER BY id",
        "MATCH (p:Place) WHERE point.withinBBox(p.loc, point({longitude: -5, latitude: -5}), point({longitude: 5, latitude: 5})) RETURN p.id AS id ORDER BY id",
    ];
    for query in cases {
        same_rows_through(
            &[POINT],
            query,
            "NodeIndexSeekByRange POINT INDEX :Place(loc)",
        );
    }
    // Mixed coordinate systems and null give no rows.
    let db = db();
    rows(&db, PLACES);
    rows(&db, POINT);
    for query in [
        "MATCH (p:Place) WHERE point.distance(p.loc, point({x: 3, y: 4, z: 0})) < 1000 AND p.id % 4 = 0 RETURN p",
        "MATCH (p:Place) WHERE point.withinBBox(p.loc, point({x: 0, y: 0}), point({longitude: 9, latitude: 9})) RETURN p",
        "MATCH (p:Place) WHERE point.distance(p.loc, null) < 10 RETURN p",
        "MATCH (p:Place) WHERE point.distance(p.loc, point({x: 0, y: 0})) < null RETURN p",
    ] {
        assert!(rows(&db, query).is_empty(), "{query}");
    }
}

#[test]
fn relationship_text_and_point_indexes_are_sought() {
    let setup = [
        "UNWIND range(0, 199) AS i
         CREATE (:A {id: i})-[:ROAD {name: 'road ' + toString(i), at: point({x: i % 20, y: i % 9})}]->(:B {id: i})",
    ];
    let plain = db();
    let indexed = db();
    for s in setup {
        rows(&plain, s);
        rows(&indexed, s);
    }
    rows(
        &indexed,
        "CREATE TEXT INDEX road_name FOR ()-[r:ROAD]-() ON (r.name)",
    );
    rows(
        &indexed,
        "CREATE POINT INDEX road_at FOR ()-[r:ROAD]-() ON (r.at)",
    );
    let cases = [
        (
            "MATCH (a)-[r:ROAD]->(b) WHERE r.name CONTAINS '1' RETURN a.id AS a, b.id AS b ORDER BY a",
            "DirectedRelationshipIndexContainsScan",
        ),
        (
            "MATCH (a)-[r:ROAD]-(b) WHERE r.name ENDS WITH '7' RETURN a.id AS a, b.id AS b ORDER BY a, b",
            "UndirectedRelationshipIndexEndsWithScan",
        ),
        (
            "MATCH (a)-[r:ROAD]->(b) WHERE r.name STARTS WITH 'road 1' RETURN a.id AS a ORDER BY a",
            "DirectedRelationshipIndexSeekByRange TEXT INDEX",
        ),
        (
            "MATCH (a)<-[r:ROAD]-(b) WHERE point.distance(r.at, point({x: 5, y: 5})) <= 3 RETURN a.id AS a ORDER BY a",
            "DirectedRelationshipIndexSeekByRange POINT INDEX",
        ),
        (
            "MATCH (a)-[r:ROAD]->(b) WHERE point.withinBBox(r.at, point({x: 1, y: 1}), point({x: 4, y: 4})) RETURN a.id AS a ORDER BY a",
            "DirectedRelationshipIndexSeekByRange POINT INDEX",
        ),
    ];
    for (query, operator) in cases {
        let ops = plan(&indexed, query);
        assert!(
            ops.iter().any(|o| o.starts_with(operator)),
            "{query}: {ops:?}"
        );
        assert_eq!(rows(&indexed, query), rows(&plain, query), "{query}");
    }
}

fn read_count(db: &Database, name: &str) -> (i64, bool) {
    let r = rows(
        db,
        &format!(
            "SHOW INDEXES YIELD name, readCount, lastRead, trackedSince
             WHERE name = '{name}' RETURN readCount, lastRead IS NOT NULL AS read, trackedSince IS NOT NULL AS tracked"
        ),
    );
    let [count, read, tracked] = r[0].as_slice() else {
        panic!("{r:?}");
    };
    assert_eq!(*tracked, Value::Bool(true));
    let Value::Int(count) = count else {
        panic!("{r:?}");
    };
    (*count, *read == Value::Bool(true))
}

#[test]
fn show_indexes_counts_seeks_once_each() {
    let db = db();
    rows(&db, PLACES);
    rows(&db, TEXT);
    rows(&db, POINT);
    rows(&db, "CREATE INDEX place_id FOR (p:Place) ON (p.id)");
    assert_eq!(read_count(&db, "place_name"), (0, false));
    // One seek, however many rows it finds.
    rows(&db, "MATCH (p:Place) WHERE p.name CONTAINS 'orth' RETURN p");
    assert_eq!(read_count(&db, "place_name"), (1, true));
    rows(
        &db,
        "UNWIND ['north', 'south'] AS s MATCH (p:Place) WHERE p.name CONTAINS s RETURN p",
    );
    assert_eq!(read_count(&db, "place_name").0, 3);
    rows(&db, "MATCH (p:Place) WHERE p.id = 3 RETURN p");
    assert_eq!(read_count(&db, "place_id"), (1, true));
    rows(
        &db,
        "MATCH (p:Place) WHERE point.distance(p.loc, point({x: 1, y: 1})) < 2 RETURN p",
    );
    assert_eq!(read_count(&db, "place_loc"), (1, true));
    // EXPLAIN reads nothing.
    plan(&db, "MATCH (p:Place) WHERE p.id = 3 RETURN p");
    assert_eq!(read_count(&db, "place_id").0, 1);
}
