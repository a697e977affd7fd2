//! Quantified path patterns checked against the forms Quiver had before them, on random small
//! graphs: `-[:T]->{m,n}` and `((x)-[:T]->(y)){m,n}` match exactly the paths of
//! `-[:T*m..n]->`, and `SHORTEST 1` finds paths as long as `shortestPath`'s. The selectors
//! over one quantified relationship (the visited-set search) are also checked against the
//! same selectors over a group (the search over the product of graph and pattern): with an
//! end left unbound, with cycles back to the start, with a minimum of 0 and with a test on
//! each relationship.

use std::sync::Arc;

use proptest::prelude::*;
use quiver_engine::{Database, EngineConfig};
use quiver_value::{Map, Value};

fn run(db: &Database, q: &str) -> Vec<Vec<Value>> {
    db.execute(q, Map::new())
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .rows
}

/// The rows as sorted text, so two queries compare as multisets.
fn rows(db: &Database, q: &str) -> Vec<String> {
    let mut out: Vec<String> = run(db, q).iter().map(|r| format!("{r:?}")).collect();
    out.sort();
    out
}

/// `n` nodes with ids in `id`, and relationships `(from, to, is T)` between them.
fn graph(n: usize, edges: &[(usize, usize, bool)]) -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig::default());
    run(
        &db,
        &format!("UNWIND range(0, {}) AS i CREATE (:V {{id: i}})", n - 1),
    );
    for (from, to, t) in edges {
        let ty = if *t { "T" } else { "U" };
        run(
            &db,
            &format!(
                "MATCH (a:V {{id: {}}}), (b:V {{id: {}}}) CREATE (a)-[:{ty}]->(b)",
                from % n,
                to % n
            ),
        );
    }
    db
}

fn edges() -> impl Strategy<Value = (usize, Vec<(usize, usize, bool)>)> {
    (
        2usize..7,
        prop::collection::vec((0usize..7, 0usize..7, prop::bool::weighted(0.7)), 0..12),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn quantified_relationships_match_var_length((n, e) in edges(), min in 0u32..3, extra in 0u32..3, both in any::<bool>()) {
        // A quantifier's upper bound is at least 1.
        let max = (min + extra).max(1);
        let db = graph(n, &e);
        let (l, r) = if both { ("-", "-") } else { ("-", "->") };
        let ret = "RETURN a.id AS a, b.id AS b, [x IN r | id(x)] AS rels";
        let var_length = rows(&db, &format!("MATCH (a:V){l}[r:T*{min}..{max}]{r}(b:V) {ret}"));
        let quantified = rows(&db, &format!("MATCH (a:V){l}[r:T]{r}{{{min},{max}}}(b:V) {ret}"));
        prop_assert_eq!(&var_length, &quantified);
        let group = rows(&db, &format!("MATCH (a:V) ((x){l}[r:T]{r}(y)){{{min},{max}}} (b:V) {ret}"));
        prop_assert_eq!(&var_length, &group);
        // A label inside keeps the group on the path search (every node is a :V).
        let searched = rows(&db, &format!("MATCH (a:V) ((x:V){l}[r:T]{r}(y)){{{min},{max}}} (b:V) {ret}"));
        prop_assert_eq!(&var_length, &searched);
        // The group's node lists, planned as an expand, are the path's nodes.
        let lists = "RETURN a.id AS a, b.id AS b, [n IN x | n.id] AS xs, [n IN y | n.id] AS ys";
        let expand = rows(&db, &format!("MATCH (a:V) ((x){l}[r:T]{r}(y)){{{min},{max}}} (b:V) {lists}"));
        let search = rows(&db, &format!("MATCH (a:V) ((x:V){l}[r:T]{r}(y)){{{min},{max}}} (b:V) {lists}"));
        prop_assert_eq!(&expand, &search);
    }

    #[test]
    fn shortest_one_matches_shortest_path((n, e) in edges(), both in any::<bool>()) {
        let db = graph(n, &e);
        let (l, r) = if both { ("-", "-") } else { ("-", "->") };
        let pairs = "MATCH (a:V), (b:V) WHERE a <> b";
        let ret = "RETURN a.id AS a, b.id AS b, length(p) AS length";
        let legacy = rows(&db, &format!("{pairs} MATCH p = shortestPath((a){l}[:T*]{r}(b)) {ret}"));
        let shortest = rows(&db, &format!("{pairs} MATCH p = SHORTEST 1 (a){l}[:T]{r}+(b) {ret}"));
        prop_assert_eq!(&legacy, &shortest);
        let group = rows(&db, &format!("{pairs} MATCH p = SHORTEST 1 (a) ((x){l}[:T]{r}(y))+ (b) {ret}"));
        prop_assert_eq!(&legacy, &group);
        let all_legacy = rows(&db, &format!("{pairs} MATCH p = allShortestPaths((a){l}[:T*]{r}(b)) {ret}"));
        let all = rows(&db, &format!("{pairs} MATCH p = ALL SHORTEST (a){l}[:T]{r}+(b) {ret}"));
        prop_assert_eq!(&all_legacy, &all);
    }

    #[test]
    fn fast_selectors_match_the_product_search((n, e) in edges(), both in any::<bool>(), star in any::<bool>(), filtered in any::<bool>()) {
        let db = graph(n, &e);
        let (l, r) = if both { ("-", "-") } else { ("-", "->") };
        let q = if star { "*" } else { "+" };
        let test = if filtered { " WHERE id(t) % 3 <> 1" } else { "" };
        let ret = "RETURN a.id AS a, b.id AS b, length(p) AS length";
        for selector in ["SHORTEST 1", "ANY SHORTEST", "ANY"] {
            let fast = rows(&db, &format!("MATCH (a:V) MATCH p = {selector} (a){l}[t:T{test}]{r}{q}(b) {ret}"));
            let product = rows(&db, &format!("MATCH (a:V) MATCH p = {selector} (a) ((){l}[t:T{test}]{r}()){q} (b) {ret}"));
            prop_assert_eq!((selector, &fast), (selector, &product));
        }
        // ALL SHORTEST keeps every shortest path: the same relationships both ways.
        let ret = "RETURN a.id AS a, b.id AS b, [x IN relationships(p) | id(x)] AS rels";
        let fast = rows(&db, &format!("MATCH (a:V) MATCH p = ALL SHORTEST (a){l}[t:T{test}]{r}{q}(b) {ret}"));
        let product = rows(&db, &format!("MATCH (a:V) MATCH p = ALL SHORTEST (a) ((){l}[t:T{test}]{r}()){q} (b) {ret}"));
        prop_assert_eq!(&fast, &product);
        // Both ends bound, the start and end the same node included.
        let fast = rows(&db, &format!("MATCH (a:V), (b:V) MATCH p = ALL SHORTEST (a){l}[t:T{test}]{r}{q}(b) {ret}"));
        let product = rows(&db, &format!("MATCH (a:V), (b:V) MATCH p = ALL SHORTEST (a) ((){l}[t:T{test}]{r}()){q} (b) {ret}"));
        prop_assert_eq!(&fast, &product);
    }
}
