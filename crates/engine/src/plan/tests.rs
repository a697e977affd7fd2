//! The planner's choices, read from EXPLAIN: given a store's label counts, relationship counts
//! and indexes, where a pattern starts, which way it expands and which seek it uses. Answers
//! are other tests' business; these pin the shape of the plan.

use std::sync::Arc;

use quiver_value::Map;

use crate::{Database, EngineConfig, PlanDescription};

/// A store filled by `setup` (one statement per entry).
fn db(setup: &[&str]) -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig::default());
    for statement in setup {
        db.execute(statement, Map::new())
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    db
}

fn explain(db: &Database, query: &str) -> PlanDescription {
    let r = db
        .execute(&format!("EXPLAIN {query}"), Map::new())
        .unwrap_or_else(|e| panic!("{query}: {e}"));
    r.summary.plan.expect("EXPLAIN describes a plan")
}

/// The operators from the leaf of the input chain up to the root, as `Operator details`.
fn pipeline(plan: &PlanDescription) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = Some(plan);
    while let Some(p) = at {
        out.push(if p.details.is_empty() {
            p.operator.clone()
        } else {
            format!("{} {}", p.operator, p.details)
        });
        at = p.children.first();
    }
    out.reverse();
    out
}

/// The pipeline without the `Argument` leaf and the operators above the last pattern step
/// (projections, aggregations): what the pattern itself became.
fn pattern_steps(plan: &PlanDescription) -> Vec<String> {
    pipeline(plan)
        .into_iter()
        .filter(|s| s != "Argument")
        .filter(|s| {
            ![
                "ProduceResults",
                "Projection",
                "EagerAggregation",
                "Distinct",
                "Sort",
                "Top",
                "Limit",
            ]
            .iter()
            .any(|op| s.starts_with(op))
        })
        .collect()
}

/// `n` nodes with `label` (and an `id` property 0..n) in one statement.
fn nodes(label: &str, n: usize) -> String {
    format!(
        "UNWIND range(0, {}) AS i CREATE (:{label} {{id: i}})",
        n - 1
    )
}

/// Asserts that `query`'s pattern starts with `step`, showing the plan otherwise.
fn assert_first_step(db: &Database, query: &str, step: &str) {
    let plan = explain(db, query);
    assert_eq!(
        pattern_steps(&plan).first().map(String::as_str),
        Some(step),
        "{query}\n{}",
        plan.render()
    );
}

/// Asserts that `query`'s pattern is planned as `steps`, showing the plan otherwise.
fn assert_pattern(db: &Database, query: &str, steps: &[&str]) {
    let plan = explain(db, query);
    assert_eq!(pattern_steps(&plan), steps, "{query}\n{}", plan.render());
}

/// Asserts that each of `queries` is planned as a `FactorizedCount` (or, with `factorized`
/// false, is not), showing the plan of the first that is not as expected.
fn assert_factorized(db: &Database, factorized: bool, queries: &[&str]) {
    for query in queries {
        assert_eq!(
            chooses_factorized_count(db, query),
            factorized,
            "{query}\n{}",
            explain(db, query).render()
        );
    }
}

/// Asserts that `query`'s plan has the pipeline step `step`, showing the plan otherwise.
fn assert_step(db: &Database, query: &str, step: &str) {
    let plan = explain(db, query);
    assert!(
        pipeline(&plan).iter().any(|s| s == step),
        "{query}: no step {step} in\n{}",
        plan.render()
    );
}

#[test]
fn a_pattern_starts_at_its_rarest_label_and_expands_backwards_from_it() {
    let db = db(&[
        &nodes("Common", 200),
        &nodes("Rare", 3),
        "MATCH (c:Common), (r:Rare) WHERE c.id % 50 = r.id CREATE (c)-[:KNOWS]->(r)",
    ]);
    assert_pattern(
        &db,
        "MATCH (c:Common)-[:KNOWS]->(r:Rare) RETURN c, r",
        &[
            "NodeByLabelScan :Rare",
            "Expand(All) ()<-[:KNOWS]-()",
            "Filter",
        ],
    );
}

#[test]
fn with_the_counts_reversed_the_same_pattern_starts_at_the_other_end() {
    let db = db(&[
        &nodes("Common", 3),
        &nodes("Rare", 200),
        "MATCH (c:Common), (r:Rare) WHERE r.id % 50 = c.id CREATE (c)-[:KNOWS]->(r)",
    ]);
    assert_pattern(
        &db,
        "MATCH (c:Common)-[:KNOWS]->(r:Rare) RETURN c, r",
        &[
            "NodeByLabelScan :Common",
            "Expand(All) ()-[:KNOWS]->()",
            "Filter",
        ],
    );
}

#[test]
fn an_unlabelled_pattern_scans_all_nodes() {
    let db = db(&[&nodes("A", 10)]);
    assert_pattern(
        &db,
        "MATCH (n) WHERE n.id > 3 RETURN n",
        &["AllNodesScan", "Filter"],
    );
}

#[test]
fn an_indexed_equality_seeks_instead_of_scanning() {
    let setup = [nodes("Person", 500)];
    let db = db(&[&setup[0], "CREATE INDEX FOR (p:Person) ON (p.id)"]);
    assert_pattern(
        &db,
        "MATCH (p:Person {id: 42}) RETURN p",
        &["NodeIndexSeek :Person(id) =", "Filter"],
    );
    // The same query without the index scans the label and filters.
    let plain = self::db(&[&setup[0]]);
    assert_pattern(
        &plain,
        "MATCH (p:Person {id: 42}) RETURN p",
        &["NodeByLabelScan :Person", "Filter"],
    );
}

#[test]
fn range_in_and_prefix_predicates_use_their_seeks() {
    let db = db(&[
        &nodes("Person", 300),
        "MATCH (p:Person) SET p.name = 'p' + toString(p.id)",
        "CREATE INDEX FOR (p:Person) ON (p.id)",
        "CREATE INDEX FOR (p:Person) ON (p.name)",
    ]);
    let cases = [
        (
            "MATCH (p:Person) WHERE p.id >= 10 AND p.id < 20 RETURN p",
            "NodeIndexSeek :Person(id) range",
        ),
        (
            "MATCH (p:Person) WHERE p.id IN [1, 2, 3] RETURN p",
            "NodeIndexSeek :Person(id) IN",
        ),
        (
            "MATCH (p:Person) WHERE p.name STARTS WITH 'p1' RETURN p",
            "NodeIndexSeek :Person(name) STARTS WITH",
        ),
    ];
    for (query, seek) in cases {
        assert_first_step(&db, query, seek);
    }
}

#[test]
fn an_equality_seek_is_preferred_to_a_range_seek_on_the_same_node() {
    let db = db(&[
        &nodes("Person", 300),
        "MATCH (p:Person) SET p.age = p.id % 90",
        "CREATE INDEX FOR (p:Person) ON (p.id)",
        "CREATE INDEX FOR (p:Person) ON (p.age)",
    ]);
    assert_first_step(
        &db,
        "MATCH (p:Person) WHERE p.age > 30 AND p.id = 7 RETURN p",
        "NodeIndexSeek :Person(id) =",
    );
}

#[test]
fn a_seek_on_the_far_end_turns_the_expansion_around() {
    let db = db(&[
        &nodes("City", 5),
        &nodes("Person", 400),
        "MATCH (p:Person), (c:City) WHERE p.id % 5 = c.id CREATE (p)-[:LIVES_IN]->(c)",
        "CREATE INDEX FOR (p:Person) ON (p.id)",
    ]);
    // Without a seek the five cities are the cheaper start.
    let plan = explain(&db, "MATCH (p:Person)-[:LIVES_IN]->(c:City) RETURN p, c");
    assert_eq!(
        pattern_steps(&plan)[..2],
        ["NodeByLabelScan :City", "Expand(All) ()<-[:LIVES_IN]-()"],
        "{}",
        plan.render()
    );
    // An indexed person is cheaper still: start there (its filters applied at once) and
    // expand outwards.
    let plan = explain(
        &db,
        "MATCH (p:Person)-[:LIVES_IN]->(c:City) WHERE p.id = 12 RETURN p, c",
    );
    let steps: Vec<String> = pattern_steps(&plan)
        .into_iter()
        .filter(|s| s != "Filter")
        .collect();
    assert_eq!(
        steps[..2],
        [
            "NodeIndexSeek :Person(id) =",
            "Expand(All) ()-[:LIVES_IN]->()"
        ],
        "{}",
        plan.render()
    );
}

#[test]
fn a_lookup_by_id_beats_every_other_start() {
    let db = db(&[
        &nodes("Person", 100),
        "CREATE INDEX FOR (p:Person) ON (p.id)",
    ]);
    assert_first_step(
        &db,
        "MATCH (p:Person) WHERE id(p) = 3 AND p.id = 3 RETURN p",
        "NodeByIdSeek",
    );
}

#[test]
fn a_cycle_closes_with_an_expand_into() {
    let db = db(&[
        &nodes("A", 20),
        "MATCH (x:A), (y:A) WHERE y.id = (x.id + 1) % 20 CREATE (x)-[:R]->(y)",
    ]);
    let plan = explain(
        &db,
        "MATCH (a:A)-[:R]->(b)-[:R]->(c)-[:R]->(a) RETURN a, b, c",
    );
    let steps = pattern_steps(&plan);
    assert_eq!(
        steps
            .iter()
            .filter(|s| s.starts_with("Expand(All)"))
            .count(),
        2,
        "{}",
        plan.render()
    );
    assert!(
        steps.iter().any(|s| s.starts_with("Expand(Into) ")),
        "{}",
        plan.render()
    );
    assert_eq!(steps[0], "NodeByLabelScan :A", "{}", plan.render());
}

#[test]
fn a_variable_bound_earlier_is_expanded_from_without_a_new_scan() {
    let db = db(&[
        &nodes("A", 50),
        &nodes("B", 2),
        "MATCH (a:A), (b:B) WHERE a.id % 2 = b.id CREATE (a)-[:R]->(b)",
    ]);
    // B is rarer, but `a` is already bound: the second MATCH expands from it.
    let plan = explain(
        &db,
        "MATCH (a:A) WHERE a.id < 5 WITH a MATCH (a)-[:R]->(b:B) RETURN a, b",
    );
    let steps = pattern_steps(&plan);
    assert_eq!(
        steps
            .iter()
            .filter(|s| s.starts_with("NodeByLabelScan"))
            .collect::<Vec<_>>(),
        ["NodeByLabelScan :A"],
        "{}",
        plan.render()
    );
    assert!(
        steps.iter().any(|s| s == "Expand(All) ()-[:R]->()"),
        "{}",
        plan.render()
    );
}

#[test]
fn variable_length_steps_expand_after_fixed_ones() {
    let db = db(&[
        &nodes("A", 30),
        &nodes("Z", 2),
        "MATCH (x:A), (y:A) WHERE y.id = x.id + 1 CREATE (x)-[:NEXT]->(y)",
        "MATCH (x:A), (z:Z) WHERE x.id % 15 = z.id CREATE (x)-[:TAG]->(z)",
    ]);
    let plan = explain(
        &db,
        "MATCH (z:Z)<-[:TAG]-(a:A)-[:NEXT*1..3]->(b) RETURN a, b",
    );
    let steps = pattern_steps(&plan);
    assert_eq!(steps[0], "NodeByLabelScan :Z", "{}", plan.render());
    let fixed = steps
        .iter()
        .position(|s| s.starts_with("Expand(All) ()<-[:TAG]-()"));
    let var = steps
        .iter()
        .position(|s| s.starts_with("VarLengthExpand(All) ()-[:NEXT*1..3]->()"));
    assert!(
        matches!((fixed, var), (Some(f), Some(v)) if f < v),
        "{}",
        plan.render()
    );
}

#[test]
fn counts_come_from_the_count_store() {
    let db = db(&[&nodes("A", 10)]);
    for (query, op) in [
        ("MATCH (n:A) RETURN count(n)", "NodeCountFromCountStore :A"),
        ("MATCH (n) RETURN count(*)", "NodeCountFromCountStore"),
        (
            "MATCH ()-[r:R]->() RETURN count(r)",
            "RelationshipCountFromCountStore :R",
        ),
    ] {
        assert_step(&db, query, op);
    }
}

/// A chain of `n` `:S` nodes joined by `:R`, for the path searches' plans.
fn chain(n: usize) -> Vec<String> {
    vec![
        nodes("S", n),
        "MATCH (x:S), (y:S) WHERE y.id = x.id + 1 CREATE (x)-[:R]->(y)".to_string(),
    ]
}

#[test]
fn shortest_one_over_a_quantified_relationship_runs_the_visited_set_search() {
    let setup = chain(10);
    let db = db(&setup.iter().map(String::as_str).collect::<Vec<_>>());
    for (query, operator) in [
        (
            "MATCH (a:S {id: 0}) MATCH p = SHORTEST 1 (a)-[:R]->+(b) RETURN p",
            "StatefulShortestPath(All)",
        ),
        (
            "MATCH (a:S {id: 0}), (b:S {id: 9}) MATCH p = ALL SHORTEST (a)-[:R]->+(b) RETURN p",
            "StatefulShortestPath(Into)",
        ),
        (
            "MATCH (a:S {id: 0}) MATCH p = ANY (a)-[r:R WHERE r.w IS NULL]->{0,5}(b) RETURN p",
            "StatefulShortestPath(All)",
        ),
    ] {
        let plan = explain(&db, query);
        assert!(
            pattern_steps(&plan).iter().any(|s| s.starts_with(operator)),
            "{query}\n{}",
            plan.render()
        );
    }
    // A group, a minimum above 1 or a whole-path WHERE needs the product search.
    for query in [
        "MATCH (a:S {id: 0}) MATCH p = SHORTEST 1 (a) ((x)-[:R]->(y))+ (b) RETURN p",
        "MATCH (a:S {id: 0}) MATCH p = SHORTEST 1 (a)-[:R]->{2,}(b) RETURN p",
        "MATCH (a:S {id: 0}) MATCH SHORTEST 1 (p = (a)-[:R]->+(b) WHERE length(p) > 2) RETURN p",
    ] {
        let plan = explain(&db, query);
        let steps = pattern_steps(&plan);
        assert!(
            steps.iter().any(|s| s.starts_with("StatefulShortestPath "))
                && !steps.iter().any(|s| s.starts_with("StatefulShortestPath(")),
            "{query}\n{}",
            plan.render()
        );
    }
}

#[test]
fn a_group_of_one_free_relationship_is_a_variable_length_expand() {
    let setup = chain(10);
    let db = db(&setup.iter().map(String::as_str).collect::<Vec<_>>());
    let plan = explain(
        &db,
        "MATCH (a:S {id: 0}) ((x)-[:R]->(y)){1,4} (b) RETURN x, y, b",
    );
    let steps = pattern_steps(&plan);
    assert!(
        steps.iter().any(|s| s.starts_with("VarLengthExpand")),
        "{}",
        plan.render()
    );
    // A label inside the group keeps it on the path search.
    let plan = explain(
        &db,
        "MATCH (a:S {id: 0}) ((x:S)-[:R]->(y)){1,4} (b) RETURN x, y, b",
    );
    assert!(
        pattern_steps(&plan)
            .iter()
            .any(|s| s.starts_with("Repeat(Trail)")),
        "{}",
        plan.render()
    );
}

/// People following people, for the factorized counts' plans.
fn social() -> Arc<Database> {
    db(&[
        &nodes("Person", 20),
        "MATCH (a:Person), (b:Person) WHERE b.id = (a.id + 1) % 20 CREATE (a)-[:FOLLOWS]->(b)",
    ])
}

fn chooses_factorized_count(db: &Database, query: &str) -> bool {
    let plan = explain(db, query);
    pipeline(&plan)
        .iter()
        .any(|s| s.starts_with("FactorizedCount"))
}

#[test]
fn a_count_over_a_chain_of_expansions_is_factorized_with_its_filters_pushed_in() {
    let db = social();
    assert_factorized(
        &db,
        true,
        &[
            "MATCH (a:Person)-[:FOLLOWS]->(b:Person)-[:FOLLOWS]->(c:Person) RETURN count(*)",
            "MATCH (a:Person)-[:FOLLOWS]->(b:Person)-[:FOLLOWS]->(c:Person) \
         WHERE b.id > 3 AND c.id < 9 RETURN count(*) AS n",
            "MATCH (a)-[r:FOLLOWS]->(b)<-[:FOLLOWS]-(c) RETURN count(r)",
            "MATCH (a:Person)-[:FOLLOWS]-(b) RETURN count(b)",
            "MATCH (x:Person {id: 1}) MATCH (x)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c) RETURN count(*)",
            "MATCH (a)-[:FOLLOWS]->(b) MATCH (b)-[:LIKES]->(c)-[:FOLLOWS]->(d) RETURN count(*)",
        ],
    );
    assert_step(
        &db,
        "MATCH (a:Person)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c) WHERE c.id < 9 RETURN count(*)",
        "FactorizedCount (:?)-[:FOLLOWS]->()-[:FOLLOWS]->(:?)",
    );
}

#[test]
fn a_count_that_needs_the_paths_or_cannot_be_proven_equal_keeps_the_row_at_a_time_plan() {
    let db = social();
    assert_factorized(
        &db,
        false,
        &[
            // Other projections and DISTINCT counts need the rows.
            "MATCH (a)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c) RETURN count(DISTINCT c)",
            "MATCH (a)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c) RETURN count(*), sum(c.id)",
            // A filter across two nodes, or on a relationship.
            "MATCH (a)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c) WHERE a.id < c.id RETURN count(*)",
            "MATCH (a)-[r:FOLLOWS]->(b)-[:FOLLOWS]->(c) WHERE r.since > 1 RETURN count(*)",
            // Functions may be non-deterministic or read other entities.
            "MATCH (a)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c) WHERE rand() < 2 RETURN count(*)",
            // Optional and named paths, cycles and branches, and a variable-length hop whose
            // relationships could repeat with no label to tell the nodes apart.
            "OPTIONAL MATCH (a)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c) RETURN count(*)",
            "MATCH (a)-[:FOLLOWS*1..2]->(b)-[:FOLLOWS]->(c) RETURN count(*)",
            "MATCH p = (a)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c) RETURN count(p)",
            "MATCH (a)-[:FOLLOWS]->(b)-[:FOLLOWS]->(a) RETURN count(*)",
            "MATCH (a)-[:FOLLOWS]->(b), (a)-[:FOLLOWS]->(c), (a)-[:FOLLOWS]->(d) RETURN count(*)",
            // Three hops that could meet on one relationship, with no label to tell apart the
            // nodes a repeat would make one.
            "MATCH (a)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c)-[:FOLLOWS]->(d) RETURN count(*)",
            // Something before the pattern.
            "UNWIND [1, 2] AS i MATCH (a)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c) RETURN count(*)",
        ],
    );
}

#[test]
fn a_single_relationship_count_still_comes_from_the_count_store() {
    let db = social();
    assert_step(
        &db,
        "MATCH ()-[r:FOLLOWS]->() RETURN count(r)",
        "RelationshipCountFromCountStore :FOLLOWS",
    );
}

#[test]
fn a_count_grouped_by_keys_on_one_node_of_the_chain_is_factorized_at_that_node() {
    let db = social();
    assert_factorized(
        &db,
        true,
        &[
            // In-degree per person: no row per relationship.
            "MATCH (a:Person)-[:FOLLOWS]->(b:Person) RETURN b.id, count(*) AS c ORDER BY c DESC LIMIT 3",
            // The node itself as the key, and `count(a.id)` as a filter on `a`.
            "MATCH (follower:Person)-[:FOLLOWS]->(person:Person) \
         WITH person, count(follower.id) AS n ORDER BY n DESC LIMIT 1 RETURN person.id",
            // Several keys reading the same node, with filters elsewhere on the chain.
            "MATCH (a)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c) WHERE c.id < 9 RETURN b.id, b.name, count(*)",
            // An end of two hops that cannot meet on one relationship.
            "MATCH (a)-[:FOLLOWS]->(b)-[:LIKES]->(c) RETURN c, count(*)",
            "MATCH (a)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c) RETURN count(c.id)",
        ],
    );
    assert_step(
        &db,
        "MATCH (a:Person)-[:FOLLOWS]->(b:Person) RETURN b.id, count(*) AS c",
        "FactorizedCount (:?)-[:FOLLOWS]->(group:?)",
    );
}

#[test]
fn a_chain_whose_repeated_relationships_labels_can_rule_out_is_factorized_and_checked_at_run() {
    let db = social();
    assert_factorized(
        &db,
        true,
        &[
            // The study's count per country: a variable-length hop between labelled nodes.
            "MATCH (p:Person)-[:LIVES_IN]->(ci:City)-[*1..2]->(country:Country)          WHERE p.age >= 30 AND p.age <= 40          RETURN country.country AS countries, count(country) AS personCounts          ORDER BY personCounts DESC, countries LIMIT 3",
            // Three hops, and two grouped at an end, between nodes labels tell apart.
            "MATCH (a:Person)-[:FOLLOWS]->(b:City)-[:FOLLOWS]->(c:Person)-[:FOLLOWS]->(d:City)          RETURN count(*)",
            "MATCH (a:Person)-[:FOLLOWS]->(b:City)-[:FOLLOWS]->(c:Person) RETURN c, count(*)",
        ],
    );
    assert_step(
        &db,
        "MATCH (p:Person)-[:LIVES_IN]->(ci:City)-[*1..2]->(c:Country) RETURN c, count(*)",
        "FactorizedCount (:?)-[:LIVES_IN]->(:?)-[*1..2]->(group:?)",
    );
}

#[test]
fn a_grouped_count_whose_keys_span_nodes_or_whose_correction_is_unknown_keeps_the_rows() {
    let db = social();
    assert_factorized(
        &db,
        false,
        &[
            // Keys on two nodes, on a relationship, or on no node at all.
            "MATCH (a)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c) RETURN a.id, c.id, count(*)",
            "MATCH (a)-[r:FOLLOWS]->(b) RETURN r, count(*)",
            "MATCH (a)-[:FOLLOWS]->(b) RETURN 1 AS one, count(*)",
            // A function of the node may read other entities or be non-deterministic.
            "MATCH (a)-[:FOLLOWS]->(b) RETURN toString(b.id), count(*)",
            // An end of two hops that may share a relationship, where no label tells apart the
            // nodes a shared one would make one: the exact correction is per middle.
            "MATCH (a)-[:FOLLOWS]->(b)-[:FOLLOWS]->(c) RETURN a.id, count(*)",
            "MATCH (a)-[:FOLLOWS]-(b)-[:FOLLOWS]-(c) RETURN c, count(*)",
            // Other aggregates beside the count, and a count of a relationship's property.
            "MATCH (a)-[:FOLLOWS]->(b) RETURN b.id, count(*), max(a.id)",
            "MATCH (a)-[r:FOLLOWS]->(b) RETURN b.id, count(r.since)",
        ],
    );
}

#[test]
fn a_top_n_computes_the_items_it_does_not_sort_by_only_for_the_rows_it_keeps() {
    let db = db(&["UNWIND range(1, 50) AS i CREATE (:Message {id: i, date: i % 7, content: 'x'})"]);
    let steps = pipeline(&explain(
        &db,
        "MATCH (m:Message) RETURN m.id AS id, m.content AS text, m.date AS date \
         ORDER BY date DESC, id LIMIT 3",
    ));
    let at = |op: &str| steps.iter().position(|s| s.starts_with(op));
    let top = at("Top").expect("a top-n");
    // The sort's own columns before it, the content after it.
    assert!(at("Projection").is_some_and(|p| p < top), "{steps:?}");
    assert!(
        steps[top + 1..].iter().any(|s| s.starts_with("Projection")),
        "{steps:?}"
    );
    let rows = db
        .execute(
            "MATCH (m:Message) RETURN m.id AS id, m.content AS text, m.date AS date \
             ORDER BY date DESC, id LIMIT 3",
            Map::new(),
        )
        .expect("runs")
        .rows;
    let ids: Vec<_> = rows.iter().map(|r| r[0].clone()).collect();
    assert_eq!(ids, [6, 13, 20].map(quiver_value::Value::Int), "{rows:?}");
    assert!(rows.iter().all(|r| r[1] == quiver_value::Value::from("x")));
}

#[test]
fn distinct_or_a_where_keeps_every_item_before_the_top_n() {
    let db = db(&["CREATE (:Message {id: 1, date: 1})"]);
    for query in [
        "MATCH (m:Message) RETURN DISTINCT m.id AS id, m.date AS date ORDER BY date LIMIT 3",
        "MATCH (m:Message) WITH m.id AS id, m.date AS date \
         ORDER BY date LIMIT 3 WHERE id > 0 RETURN id",
    ] {
        let steps = pipeline(&explain(&db, query));
        let top = steps
            .iter()
            .position(|s| s.starts_with("Top"))
            .expect("a top-n");
        assert!(
            !steps[top + 1..].iter().any(|s| s.starts_with("Projection")),
            "{query}: {steps:?}"
        );
    }
}
