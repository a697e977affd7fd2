//! Factorized counts checked against the row-at-a-time executor on random small graphs: every
//! `count(*)` (or count of a node, a relationship or a node's property) over a chain of one
//! to three hops (any directions, types, lengths up to three, labels and property filters on
//! the nodes, self-loops, parallel relationships, nodes with both labels and missing
//! properties in the graph), alone or grouped by one node or its property, is the same
//! whether it is computed per node or by building one row per path. The
//! row-at-a-time answers come from a second database holding the same graph with
//! `factorized_counts` off.

use std::sync::Arc;

use proptest::prelude::*;
use quiver_engine::{Database, EngineConfig, HelperPool};
use quiver_value::{Map, Value};

fn run(db: &Database, q: &str) -> Vec<Vec<Value>> {
    run_with(db, q, &Map::new())
}

fn run_with(db: &Database, q: &str, params: &Map) -> Vec<Vec<Value>> {
    db.execute(q, params.clone())
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .rows
}

/// One node: its labels (`A`, `B`, both or none) and its `age`, if any.
type NodeSpec = (u8, Option<i64>);
/// One relationship: from, to (as indexes into the nodes) and whether it is a `T` or a `U`.
type RelSpec = (usize, usize, bool);

fn open(nodes: &[NodeSpec], rels: &[RelSpec], factorized_counts: bool) -> Arc<Database> {
    open_with(
        nodes,
        rels,
        EngineConfig {
            factorized_counts,
            ..EngineConfig::default()
        },
    )
}

/// The graph in a database whose factorized counts split their middle nodes among four
/// workers (helpers from `pool`) however few there are.
fn open_split(nodes: &[NodeSpec], rels: &[RelSpec], pool: &HelperPool) -> Arc<Database> {
    open_with(
        nodes,
        rels,
        EngineConfig {
            query_workers_max: 4,
            parallel_scan_min: 1,
            helper_pool: Some(pool.clone()),
            ..EngineConfig::default()
        },
    )
}

fn open_with(nodes: &[NodeSpec], rels: &[RelSpec], config: EngineConfig) -> Arc<Database> {
    let db = Database::open_in_memory(config);
    for (i, (labels, age)) in nodes.iter().enumerate() {
        let labels = match labels {
            0 => "",
            1 => ":A",
            2 => ":B",
            _ => ":A:B",
        };
        let age = age.map_or(String::new(), |a| format!(", age: {a}"));
        run(&db, &format!("CREATE (n{labels} {{id: {i}{age}}})"));
    }
    for (from, to, t) in rels {
        let ty = if *t { "T" } else { "U" };
        let (from, to) = (from % nodes.len(), to % nodes.len());
        run(
            &db,
            &format!("MATCH (a {{id: {from}}}), (b {{id: {to}}}) CREATE (a)-[:{ty}]->(b)"),
        );
    }
    db
}

fn graph() -> impl Strategy<Value = (Vec<NodeSpec>, Vec<RelSpec>)> {
    (
        prop::collection::vec((0u8..4, prop::option::of(0i64..60)), 1..7),
        prop::collection::vec((0usize..7, 0usize..7, prop::bool::weighted(0.6)), 0..16),
    )
}

/// A hop: direction (0 `->`, 1 `<-`, 2 undirected) and types (0 none, 1 `:T`, 2 `:U`,
/// 3 `:T|U`).
fn hop(dir: u8, types: u8, name: &str) -> (String, String) {
    variable_hop(dir, types, 0, name)
}

/// A hop of a length: 0 one relationship, 1 `*1..2`, 2 `*2`, 3 `*1..3`.
fn variable_hop(dir: u8, types: u8, length: u8, name: &str) -> (String, String) {
    let types = match types {
        0 => "",
        1 => ":T",
        2 => ":U",
        _ => ":T|U",
    };
    let length = match length {
        0 => "",
        1 => "*1..2",
        2 => "*2",
        _ => "*1..3",
    };
    let body = format!("[{name}{types}{length}]");
    match dir {
        0 => (format!("-{body}"), "->".into()),
        1 => (format!("<-{body}"), "-".into()),
        _ => (format!("-{body}"), "-".into()),
    }
}

/// A node: label (0 none, 1 `:A`, 2 `:B`) and, with `filtered`, an age filter (in WHERE).
fn node(name: &str, label: u8) -> String {
    let label = match label {
        0 => "",
        1 => ":A",
        _ => ":B",
    };
    format!("({name}{label})")
}

/// Rows in a fixed order (groups come in any order).
fn sorted(rows: Vec<Vec<Value>>) -> Vec<String> {
    let mut rows: Vec<String> = rows.iter().map(|r| format!("{r:?}")).collect();
    rows.sort();
    rows
}

fn explained(db: &Database, q: &str) -> String {
    explained_with(db, q, &Map::new())
}

fn explained_with(db: &Database, q: &str, params: &Map) -> String {
    let r = db
        .execute(&format!("EXPLAIN {q}"), params.clone())
        .unwrap_or_else(|e| panic!("{q}: {e}"));
    r.summary.plan.map(|p| p.render()).unwrap_or_default()
}

/// Every pair of values of `range`, the first changing slowest.
fn pairs(range: std::ops::Range<u8>) -> impl Iterator<Item = (u8, u8)> {
    range
        .clone()
        .flat_map(move |a| range.clone().map(move |b| (a, b)))
}

/// A test of `name`'s age: `age` compared by one of six operators, the constant on either
/// side (`mirrored`); or (by `shape`) a range of two comparisons of the same property, a
/// comparison with text (never true: an integer is not ordered against a string), or a
/// disjunction (not a conjunction of comparisons: asked as an expression).
fn condition(name: &str, (age, op, mirrored, shape): (i64, usize, bool, u8)) -> String {
    let op = ["<", "<=", ">", ">=", "=", "<>"][op];
    let compare = |op: &str, value: &str| {
        if mirrored {
            let op = match op {
                "<" => ">",
                "<=" => ">=",
                ">" => "<",
                ">=" => "<=",
                same => same,
            };
            format!("{value} {op} {name}.age")
        } else {
            format!("{name}.age {op} {value}")
        }
    };
    match shape {
        0 => compare(op, &age.to_string()),
        1 => format!(
            "{} AND {}",
            compare(">=", &age.to_string()),
            compare("<=", &(age + 15).to_string())
        ),
        2 => compare(op, &format!("'{age}'")),
        _ => format!("({name}.age < {age} OR {name}.age > {})", age + 20),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn factorized_counts_equal_row_at_a_time_counts(
        (nodes, rels) in graph(),
        hops in prop::collection::vec((0u8..3, 0u8..4, prop::sample::select(vec![0u8, 0, 1, 2, 3])), 1..4),
        labels in prop::collection::vec(0u8..3, 4),
        filters in prop::collection::vec(prop::option::of((0i64..60, 0usize..6, any::<bool>(), 0u8..4)), 4),
        split in any::<bool>(),
        counted in 0u8..4,
        group in prop::option::of((0usize..4, any::<bool>())),
    ) {
        let fast = open(&nodes, &rels, true);
        let slow = open(&nodes, &rels, false);
        let pool = HelperPool::new(3);
        let split_db = open_split(&nodes, &rels, &pool);
        let names = ["a", "b", "c", "d"];
        let mut pattern = node(names[0], labels[0]);
        let mut conditions = Vec::new();
        for (i, (dir, types, length)) in hops.iter().enumerate() {
            let (left, right) = variable_hop(*dir, *types, *length, &format!("r{i}"));
            // `split`: each hop in its own MATCH, where relationships may repeat.
            if split && i > 0 {
                pattern += &[" MATCH (", names[i], ")"].concat();
            }
            pattern += &[left, right, node(names[i + 1], labels[i + 1])].concat();
        }
        for (i, f) in filters.iter().enumerate().take(hops.len() + 1) {
            if let Some(f) = f {
                conditions.push(condition(names[i], *f));
            }
        }
        let filter = if conditions.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", conditions.join(" AND "))
        };
        let what = match counted {
            0 => "*".to_string(),
            1 => names[hops.len()].to_string(),
            2 => "r0".to_string(),
            // A property some nodes lack: only the paths where it is present count.
            _ => format!("{}.age", names[0]),
        };
        // Grouped by one node's age (which some lack: a null key is a group too) or by the
        // node itself.
        let keys = group.map(|(at, by_node)| {
            let at = names[at % (hops.len() + 1)];
            if by_node {
                format!("{at} AS k, ")
            } else {
                format!("{at}.age AS k, ")
            }
        });
        let grouped_at_middle = group.is_some_and(|(at, _)| at % (hops.len() + 1) == 1);
        // The WHERE of a split pattern belongs to its last MATCH, filtering all the same.
        let q = format!(
            "MATCH {pattern}{filter} RETURN {}count({what}) AS n",
            keys.unwrap_or_default()
        );
        prop_assert!(!explained(&slow, &q).is_empty());
        let expected = sorted(run(&slow, &q));
        prop_assert_eq!(sorted(run(&fast, &q)), expected.clone(), "{}", q);
        prop_assert_eq!(sorted(run(&split_db, &q)), expected, "on workers: {}", q);
        // Two hops in one pattern are always factorized, whatever they share, ungrouped or
        // grouped at the middle.
        let single = hops.iter().all(|h| h.2 == 0);
        if hops.len() == 2 && single && !split && (group.is_none() || grouped_at_middle) {
            let plan = explained(&fast, &q);
            prop_assert!(plan.contains("FactorizedCount"), "{}\n{}", q, plan);
        }
    }
}

/// Two hops are counted side by side from the middle (an end nothing is asked of by the
/// middle's degree), less its self-loops where both hops could be one: every direction and
/// type of either hop, with free, labelled or filtered ends, alone or grouped at the middle,
/// over a graph with self-loops of both types and parallel relationships, counts what the
/// row-at-a-time plan counts.
#[test]
fn two_hops_counted_side_by_side_count_each_self_loop_once() {
    let nodes: Vec<NodeSpec> = vec![(1, Some(1)), (0, None), (2, Some(3)), (3, None)];
    let rels: Vec<RelSpec> = vec![
        (0, 0, true),
        (0, 0, false),
        (1, 1, true),
        (0, 1, true),
        (0, 1, true),
        (1, 2, false),
        (2, 0, true),
        (2, 2, true),
        (2, 2, true),
        (3, 1, false),
    ];
    let fast = open(&nodes, &rels, true);
    let slow = open(&nodes, &rels, false);
    let pool = HelperPool::new(3);
    let split = open_split(&nodes, &rels, &pool);
    for (first, second) in pairs(0..3) {
        for (t1, t2) in pairs(0..4) {
            let (l1, r1) = hop(first, t1, "r0");
            let (l2, r2) = hop(second, t2, "r1");
            let pattern = format!("(a){l1}{r1}(b){l2}{r2}(c)");
            let labelled = format!("(a:A){l1}{r1}(b){l2}{r2}(c)");
            for q in [
                format!("MATCH {pattern} RETURN count(*) AS n"),
                format!("MATCH {pattern} RETURN b AS k, count(*) AS n"),
                // One end or both asked something, or its paths counted only where it has
                // a property.
                format!("MATCH {labelled} RETURN count(*) AS n"),
                format!("MATCH {pattern} WHERE c.age > 2 RETURN b AS k, count(*) AS n"),
                format!("MATCH {labelled} WHERE c.age < 3 RETURN count(*) AS n"),
                format!("MATCH {pattern} RETURN count(a.age) AS n"),
            ] {
                let expected = sorted(run(&slow, &q));
                assert_eq!(sorted(run(&fast, &q)), expected, "{q}");
                let before = pool.lent();
                assert_eq!(sorted(run(&split, &q)), expected, "on workers: {q}");
                // Three helpers for the middle nodes (and three more for a label's scan).
                assert!(pool.lent() - before >= 3, "{q}");
                assert!(explained(&fast, &q).contains("FactorizedCount"), "{q}");
            }
        }
    }
}

/// A variable-length hop is counted per node where the data rules out its relationships
/// repeating one another's or a fixed hop's: with no node both a `:A` and a `:B`, the paths
/// `(a:A)-[:T]->(b:B)-[*1..2]->(c:A)` cannot walk one relationship twice, and the count comes
/// from per-node path counts; once one node carries both labels, the same plan finds it and
/// lets the row-at-a-time plan count instead. Both answers are the row-at-a-time plan's. A
/// repeat no label can rule out (the undirected hop walking the fixed hop's relationship
/// back to `a`, through a node nothing is asked of) keeps the row-at-a-time plan.
#[test]
fn a_variable_length_hop_is_counted_per_node_where_labels_rule_out_repeats() {
    let rels: Vec<RelSpec> = vec![
        (0, 1, true),
        (1, 2, true),
        (1, 3, false),
        (3, 2, true),
        (2, 1, true),
        (2, 2, true),
        (1, 1, false),
        (0, 1, true),
    ];
    let queries = [
        "MATCH (a:A)-[:T]->(b:B)-[*1..2]->(c:A) RETURN count(*) AS n",
        "MATCH (a:A)-[:T]->(b:B)-[*1..2]->(c:A) RETURN c AS k, count(*) AS n",
        "MATCH (a:A)-[:T]->(b:B)-[*1..2]->(c:A) WHERE a.age > 1 RETURN c.age AS k, count(c) AS n",
        "MATCH (a:A)-[:T]->(b:B)-[:T*2]->(c:A) RETURN b AS k, count(*) AS n",
    ];
    // Ages 1..4; labels A, B, none, A: no node is both.
    let apart: Vec<NodeSpec> = vec![(1, Some(1)), (2, Some(2)), (0, Some(3)), (1, Some(4))];
    // The same, with the second node also an A.
    let both: Vec<NodeSpec> = vec![(1, Some(1)), (3, Some(2)), (0, Some(3)), (1, Some(4))];
    for nodes in [apart, both] {
        let fast = open(&nodes, &rels, true);
        let slow = open(&nodes, &rels, false);
        for q in queries {
            assert_eq!(sorted(run(&fast, q)), sorted(run(&slow, q)), "{q}");
            assert!(explained(&fast, q).contains("FactorizedCount"), "{q}");
        }
        let back = "MATCH (a:A)-[:T]->(b:B)-[*1..2]-(c:A) RETURN count(*) AS n";
        assert_eq!(run(&fast, back), run(&slow, back));
        assert!(!explained(&fast, back).contains("FactorizedCount"));
    }
}

/// A chain node's test that cannot fail (comparisons of its own properties) is asked of
/// every node of its label as the label is scanned; one that can fail is asked only of the
/// nodes the count reaches, as the row-at-a-time plan asks it, so a node no path reaches
/// cannot make the count fail.
#[test]
fn a_test_that_can_fail_is_asked_only_of_the_nodes_the_count_reaches() {
    let mut nodes: Vec<NodeSpec> = vec![(2, Some(1)), (1, Some(2))];
    // A's that no relationship reaches, each with an age `* 2` cannot take.
    nodes.extend((0..20).map(|_| (1, None)));
    let rels: Vec<RelSpec> = vec![(1, 0, true)];
    let fast = open(&nodes, &rels, true);
    let slow = open(&nodes, &rels, false);
    for db in [&fast, &slow] {
        run(db, "MATCH (a:A) WHERE a.age IS NULL SET a.age = 'unset'");
    }
    for q in [
        "MATCH (b:B)<-[:T]-(a:A) WHERE a.age * 2 > 3 RETURN count(*) AS n",
        "MATCH (b:B)<-[:T]-(a:A) WHERE a.age > 1 AND a.age <= 2 RETURN count(*) AS n",
        "MATCH (b:B)<-[:T]-(a:A) WHERE NOT a.age STARTS WITH 'un' RETURN count(*) AS n",
    ] {
        assert_eq!(run(&fast, q), run(&slow, q), "{q}");
        assert!(explained(&fast, q).contains("FactorizedCount"), "{q}");
    }
    let failing = "MATCH (b:B)<-[:T]-(a:A) WHERE a.age * 2 > 3 RETURN count(*) AS n";
    assert_eq!(run(&fast, failing), vec![vec![Value::Int(1)]]);
}

/// A label every relationship of a hop's types carries at a node's end (by the store's
/// counts) is not asked of the nodes the count reaches there, and the counts stay what the
/// row-at-a-time plan counts: every `:T` runs from an `:A` to a `:B` (one node is both),
/// `:U` does not, there are self-loops of `:U` only, and each end or middle is labelled `:A`,
/// `:B` or nothing, in every direction and type of either hop.
#[test]
fn labels_the_counts_imply_are_not_asked_and_count_the_same() {
    let nodes: Vec<NodeSpec> = vec![
        (1, Some(1)),
        (1, None),
        (2, Some(3)),
        (2, None),
        (3, Some(5)),
        (0, None),
    ];
    let rels: Vec<RelSpec> = vec![
        (0, 2, true),
        (1, 3, true),
        (4, 2, true),
        (0, 4, true),
        (1, 4, true),
        (2, 3, false),
        (3, 2, false),
        (5, 5, false),
        (2, 2, false),
        (4, 0, false),
    ];
    let fast = open(&nodes, &rels, true);
    let slow = open(&nodes, &rels, false);
    let pool = HelperPool::new(1);
    let split = open_split(&nodes, &rels, &pool);
    let labels = ["", ":A", ":B"];
    for (first, second) in pairs(0..3) {
        // `:T`, `:U` and `:T|U` (a hop of any type names none, and no count answers it).
        for (t1, t2) in pairs(1..4) {
            let (l1, r1) = hop(first, t1, "r0");
            let (l2, r2) = hop(second, t2, "r1");
            for (a, b, c) in (0..27).map(|i| (labels[i % 3], labels[i / 3 % 3], labels[i / 9])) {
                let pattern = format!("(x{a}){l1}{r1}(y{b}){l2}{r2}(z{c})");
                for q in [
                    format!("MATCH {pattern} RETURN count(*) AS n"),
                    format!("MATCH {pattern} RETURN y AS k, count(*) AS n"),
                ] {
                    let expected = sorted(run(&slow, &q));
                    assert_eq!(sorted(run(&fast, &q)), expected, "{q}");
                    assert_eq!(sorted(run(&split, &q)), expected, "on workers: {q}");
                }
            }
        }
    }
}

/// A label scan answers a node's comparisons of its own properties with constants itself,
/// reading each property once: every operator, the constant on either side, a range of two
/// comparisons, a parameter, and values a comparison leaves `null` (text against numbers,
/// a missing age) or makes equal across types (`5` and `5.0`) count what the row-at-a-time
/// plan counts.
#[test]
fn comparisons_a_label_scan_answers_count_as_the_expression_does() {
    // Eight A's with ages 2..9 and three more: age '5' (text), 5.0 (a float), none; each
    // A follows the one B, which follows every A.
    let mut nodes: Vec<NodeSpec> = (2..10).map(|age| (1, Some(age))).collect();
    nodes.extend([(1, None), (1, None), (1, None), (2, None)]);
    let b = nodes.len() - 1;
    let rels: Vec<RelSpec> = (0..b).flat_map(|a| [(a, b, true), (b, a, true)]).collect();
    let fast = open(&nodes, &rels, true);
    let slow = open(&nodes, &rels, false);
    for db in [&fast, &slow] {
        run(db, "MATCH (n {id: 8}) SET n.age = '5'");
        run(db, "MATCH (n {id: 9}) SET n.age = 5.0");
    }
    let mut tests = Vec::new();
    for op in ["<", "<=", ">", ">=", "=", "<>"] {
        for value in ["5", "5.0", "'5'", "null", "$v"] {
            tests.push(format!("a.age {op} {value}"));
            tests.push(format!("{value} {op} a.age"));
        }
    }
    tests.push("a.age >= 4 AND a.age <= 7".to_owned());
    tests.push("7 >= a.age AND 4 <= a.age AND a.age <> 5".to_owned());
    tests.push("a.age > 3 AND a.age < 3".to_owned());
    tests.push("a.age < 4 OR a.age > 7".to_owned());
    let params: Map = [("v".into(), Value::Int(6))].into_iter().collect();
    for test in tests {
        let q = format!("MATCH (a:A)-[:T]->(b:B)-[:T]->(c:A) WHERE {test} RETURN count(*) AS n");
        assert_eq!(
            run_with(&fast, &q, &params),
            run_with(&slow, &q, &params),
            "{q}"
        );
        let plan = explained_with(&fast, &q, &params);
        assert!(plan.contains("FactorizedCount"), "{q}\n{plan}");
    }
}
