//! Comparing results with expected tables.
//!
//! Both sides are first reduced to a [`Canon`]: a totally ordered tree in which everything the TCK
//! ignores is gone (node and relationship ids, label order, map key order, and list order when the
//! scenario asks for it) and temporal values have become their canonical text. Equality is then
//! plain `==`, and "in any order" is a comparison of two sorted lists, so a large result costs
//! O(n log n) rather than a quadratic search for partners.

use std::cmp::Ordering;
use std::fmt::{self, Write as _};

use quiver_value::{Node, Path, Relationship, Value};

use crate::canonical;
use crate::expected::{
    Expected, NodePattern, RelPattern, write_entries, write_list, write_node, write_relationship,
    write_step,
};
use crate::target::Outcome;

/// Whether lists inside values keep their order (`ignoring element order for lists` drops it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListOrder {
    Exact,
    Ignore,
}

/// Whether rows must come back in the table's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowOrder {
    Any,
    InOrder,
}

/// A value reduced to what the TCK compares.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Canon {
    Null,
    Bool(bool),
    Int(i64),
    /// Bits of the float with every NaN made one NaN (the TCK treats NaN as equal to NaN) and
    /// `-0.0` made `0.0` (they are equal numbers).
    Float(u64),
    String(String),
    List(Vec<Canon>),
    /// Sorted by key.
    Map(Vec<(String, Canon)>),
    Node {
        /// Sorted and deduplicated: labels are a set.
        labels: Vec<String>,
        properties: Vec<(String, Canon)>,
    },
    Relationship {
        rel_type: String,
        properties: Vec<(String, Canon)>,
    },
    Path {
        start: Box<Canon>,
        /// (forward, relationship, node) per hop.
        steps: Vec<(bool, Canon, Canon)>,
    },
    /// A value no table can express (bytes, an entity without its data); never equal to an
    /// expected value, and says why in failure messages.
    Unmatchable(String),
}

fn float_key(x: f64) -> u64 {
    if x.is_nan() {
        f64::NAN.to_bits()
    } else if x == 0.0 {
        0.0f64.to_bits()
    } else {
        x.to_bits()
    }
}

fn finish_list(mut items: Vec<Canon>, lists: ListOrder) -> Canon {
    if lists == ListOrder::Ignore {
        items.sort();
    }
    Canon::List(items)
}

fn sorted_entries(mut entries: Vec<(String, Canon)>) -> Vec<(String, Canon)> {
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries
}

impl Canon {
    pub fn of_expected(expected: &Expected, lists: ListOrder) -> Canon {
        match expected {
            Expected::Null => Canon::Null,
            Expected::Bool(b) => Canon::Bool(*b),
            Expected::Int(i) => Canon::Int(*i),
            Expected::Float(x) => Canon::Float(float_key(*x)),
            Expected::String(s) => Canon::String(s.clone()),
            Expected::List(items) => finish_list(
                items.iter().map(|e| Canon::of_expected(e, lists)).collect(),
                lists,
            ),
            Expected::Map(entries) => Canon::Map(expected_entries(entries, lists)),
            Expected::Node(node) => expected_node(node, lists),
            Expected::Relationship(rel) => expected_rel(rel, lists),
            Expected::Path(path) => Canon::Path {
                start: Box::new(expected_node(&path.start, lists)),
                steps: path
                    .steps
                    .iter()
                    .map(|step| {
                        (
                            step.forward,
                            expected_rel(&step.relationship, lists),
                            expected_node(&step.node, lists),
                        )
                    })
                    .collect(),
            },
        }
    }

    pub fn of_value(value: &Value, lists: ListOrder) -> Canon {
        match value {
            Value::Null => Canon::Null,
            Value::Bool(b) => Canon::Bool(*b),
            Value::Int(i) => Canon::Int(*i),
            Value::Float(x) => Canon::Float(float_key(*x)),
            Value::String(s) => Canon::String(s.to_string()),
            Value::Bytes(bytes) => Canon::Unmatchable(format!("bytes of length {}", bytes.len())),
            Value::List(items) => finish_list(
                items.iter().map(|v| Canon::of_value(v, lists)).collect(),
                lists,
            ),
            Value::Map(map) => Canon::Map(
                map.iter()
                    .map(|(k, v)| (k.to_string(), Canon::of_value(v, lists)))
                    .collect(),
            ),
            Value::Node(node) => value_node(node, lists),
            Value::Relationship(rel) => value_rel(rel, lists),
            Value::Path(path) => value_path(path, lists),
            Value::Date(d) => Canon::String(canonical::date_text(d)),
            Value::LocalTime(t) => Canon::String(canonical::local_time_text(t)),
            Value::Time(t) => Canon::String(canonical::time_text(t)),
            Value::LocalDateTime(t) => Canon::String(canonical::local_date_time_text(t)),
            Value::DateTime(t) => Canon::String(canonical::date_time_text(t)),
            Value::Duration(d) => Canon::String(canonical::duration_text(d)),
            Value::Point(p) => Canon::String(canonical::point_text(p)),
            // The TCK's value syntax has no vector: scenarios compare `toString(v)` instead.
            Value::Vector(v) => Canon::Unmatchable(quiver_value::display::vector_text(v)),
            // Nor a UUID: scenarios compare `toString(u)`.
            Value::Uuid(u) => Canon::Unmatchable(format!("uuid(\"{u}\")")),
        }
    }
}

fn expected_entries(entries: &[(String, Expected)], lists: ListOrder) -> Vec<(String, Canon)> {
    sorted_entries(
        entries
            .iter()
            .map(|(k, v)| (k.clone(), Canon::of_expected(v, lists)))
            .collect(),
    )
}

fn expected_node(node: &NodePattern, lists: ListOrder) -> Canon {
    let mut labels = node.labels.clone();
    labels.sort();
    labels.dedup();
    Canon::Node {
        labels,
        properties: expected_entries(&node.properties, lists),
    }
}

fn expected_rel(rel: &RelPattern, lists: ListOrder) -> Canon {
    Canon::Relationship {
        rel_type: rel.rel_type.clone(),
        properties: expected_entries(&rel.properties, lists),
    }
}

fn value_entries(map: &quiver_value::Map, lists: ListOrder) -> Vec<(String, Canon)> {
    // A `Map` is a BTreeMap, already in key order.
    map.iter()
        .map(|(k, v)| (k.to_string(), Canon::of_value(v, lists)))
        .collect()
}

fn value_node(node: &Node, lists: ListOrder) -> Canon {
    let Some(data) = &node.data else {
        return Canon::Unmatchable(format!(
            "node {} without its labels and properties",
            node.id
        ));
    };
    let mut labels: Vec<String> = data.labels.iter().map(ToString::to_string).collect();
    labels.sort();
    labels.dedup();
    Canon::Node {
        labels,
        properties: value_entries(&data.properties, lists),
    }
}

fn value_rel(rel: &Relationship, lists: ListOrder) -> Canon {
    let Some(data) = &rel.data else {
        return Canon::Unmatchable(format!(
            "relationship {} without its type and properties",
            rel.id
        ));
    };
    Canon::Relationship {
        rel_type: data.rel_type.to_string(),
        properties: value_entries(&data.properties, lists),
    }
}

/// A path hop is forward when its relationship starts at the node before it. A self-loop reads
/// as forward.
fn value_path(path: &Path, lists: ListOrder) -> Canon {
    let Some(first) = path.nodes.first() else {
        return Canon::Unmatchable("a path without nodes".to_owned());
    };
    if path.nodes.len() != path.relationships.len() + 1 {
        return Canon::Unmatchable(format!(
            "a path of {} nodes and {} relationships",
            path.nodes.len(),
            path.relationships.len()
        ));
    }
    let mut steps = Vec::with_capacity(path.relationships.len());
    for (i, rel) in path.relationships.iter().enumerate() {
        let (Some(before), Some(after)) = (path.nodes.get(i), path.nodes.get(i + 1)) else {
            return Canon::Unmatchable("a path with missing nodes".to_owned());
        };
        let Some(data) = &rel.data else {
            return Canon::Unmatchable(format!(
                "relationship {} without its type and properties",
                rel.id
            ));
        };
        let forward = if data.start == before.id && data.end == after.id {
            true
        } else if data.end == before.id && data.start == after.id {
            false
        } else {
            return Canon::Unmatchable(format!(
                "a path whose relationship {} does not join its neighbours",
                rel.id
            ));
        };
        steps.push((forward, value_rel(rel, lists), value_node(after, lists)));
    }
    Canon::Path {
        start: Box::new(value_node(first, lists)),
        steps,
    }
}

/// Prints in the table syntax, so a failure message can be pasted into a feature file.
impl fmt::Display for Canon {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Canon::Null => f.write_str("null"),
            Canon::Bool(b) => write!(f, "{b}"),
            Canon::Int(i) => write!(f, "{i}"),
            Canon::Float(bits) => f.write_str(&canonical::float_text(f64::from_bits(*bits))),
            Canon::String(s) => write!(f, "'{}'", canonical::escape_string(s)),
            Canon::List(items) => write_list(f, items),
            Canon::Map(entries) => write_entries(f, entries),
            Canon::Node { labels, properties } => write_node(f, labels, properties),
            Canon::Relationship {
                rel_type,
                properties,
            } => write_relationship(f, rel_type, properties),
            Canon::Path { start, steps } => {
                write!(f, "<{start}")?;
                for (forward, rel, node) in steps {
                    write_step(f, *forward, rel, node)?;
                }
                f.write_str(">")
            }
            Canon::Unmatchable(what) => write!(f, "<{what}>"),
        }
    }
}

/// An expected result table: a header and rows of cells.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpectedTable {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Expected>>,
}

/// How many differing rows a failure message lists; enough to diagnose, short enough to read.
const MISMATCH_ROWS_SHOWN_MAX: usize = 5;

fn row_text(row: &[Canon]) -> String {
    let mut out = String::from("|");
    for cell in row {
        out.push(' ');
        out.push_str(&cell.to_string());
        out.push_str(" |");
    }
    out
}

/// Checks an outcome against a table. `Err` carries a message naming the first difference.
pub fn match_table(
    expected: &ExpectedTable,
    actual: &Outcome,
    rows: RowOrder,
    lists: ListOrder,
) -> Result<(), String> {
    if expected.columns != actual.columns {
        return Err(format!(
            "columns differ: expected {:?}, got {:?}",
            expected.columns, actual.columns
        ));
    }
    if let Some((bad, row)) = actual
        .rows
        .iter()
        .enumerate()
        .find(|(_, row)| row.len() != actual.columns.len())
    {
        return Err(format!(
            "result row {} has {} values for {} columns",
            bad + 1,
            row.len(),
            actual.columns.len()
        ));
    }
    let mut want: Vec<Vec<Canon>> = expected
        .rows
        .iter()
        .map(|row| row.iter().map(|e| Canon::of_expected(e, lists)).collect())
        .collect();
    let mut got: Vec<Vec<Canon>> = actual
        .rows
        .iter()
        .map(|row| row.iter().map(|v| Canon::of_value(v, lists)).collect())
        .collect();
    match rows {
        RowOrder::InOrder => {
            for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                if w != g {
                    return Err(format!(
                        "row {} differs: expected {}, got {}",
                        i + 1,
                        row_text(w),
                        row_text(g)
                    ));
                }
            }
            if want.len() != got.len() {
                return Err(format!("expected {} rows, got {}", want.len(), got.len()));
            }
            Ok(())
        }
        RowOrder::Any => {
            want.sort();
            got.sort();
            if want == got {
                return Ok(());
            }
            let (missing, unexpected) = multiset_difference(&want, &got);
            let mut message = format!("expected {} rows, got {}", want.len(), got.len());
            for (label, rows) in [("missing", &missing), ("unexpected", &unexpected)] {
                if rows.is_empty() {
                    continue;
                }
                let _ = write!(message, "; {} {label}:", rows.len());
                for row in rows.iter().take(MISMATCH_ROWS_SHOWN_MAX) {
                    message.push(' ');
                    message.push_str(&row_text(row));
                }
                if rows.len() > MISMATCH_ROWS_SHOWN_MAX {
                    message.push_str(" ...");
                }
            }
            Err(message)
        }
    }
}

/// Rows of `want` not in `got` and rows of `got` not in `want`, counting duplicates; both inputs
/// sorted.
fn multiset_difference<'a>(
    want: &'a [Vec<Canon>],
    got: &'a [Vec<Canon>],
) -> (Vec<&'a [Canon]>, Vec<&'a [Canon]>) {
    let (mut missing, mut unexpected) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < want.len() || j < got.len() {
        match (want.get(i), got.get(j)) {
            (Some(w), Some(g)) => match w.cmp(g) {
                Ordering::Equal => {
                    i += 1;
                    j += 1;
                }
                Ordering::Less => {
                    missing.push(w.as_slice());
                    i += 1;
                }
                Ordering::Greater => {
                    unexpected.push(g.as_slice());
                    j += 1;
                }
            },
            (Some(w), None) => {
                missing.push(w.as_slice());
                i += 1;
            }
            (None, Some(g)) => {
                unexpected.push(g.as_slice());
                j += 1;
            }
            (None, None) => break,
        }
    }
    (missing, unexpected)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use quiver_value::{Date, Duration, Map, NodeData, RelData};

    use super::*;

    fn table(columns: &[&str], rows: &[&[&str]]) -> ExpectedTable {
        ExpectedTable {
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows: rows
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|cell| Expected::parse(cell).unwrap())
                        .collect()
                })
                .collect(),
        }
    }

    fn outcome(columns: &[&str], rows: Vec<Vec<Value>>) -> Outcome {
        Outcome {
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows,
        }
    }

    fn props(entries: &[(&str, Value)]) -> Map {
        entries
            .iter()
            .map(|(k, v)| (Arc::from(*k), v.clone()))
            .collect()
    }

    fn node(id: u64, labels: &[&str], properties: Map) -> Node {
        Node {
            id,
            data: Some(Arc::new(NodeData {
                labels: labels.iter().map(|l| Arc::from(*l)).collect(),
                properties,
            })),
        }
    }

    fn rel(id: u64, start: u64, end: u64, rel_type: &str) -> Relationship {
        Relationship {
            id,
            data: Some(Arc::new(RelData {
                start,
                end,
                rel_type: rel_type.into(),
                properties: Map::new(),
                ends: None,
            })),
        }
    }

    fn ints(values: &[i64]) -> Value {
        Value::List(
            values
                .iter()
                .map(|i| Value::Int(*i))
                .collect::<Vec<_>>()
                .into(),
        )
    }

    #[test]
    fn any_order_is_a_multiset() {
        let want = table(&["x"], &[&["1"], &["2"], &["2"]]);
        let ok = outcome(
            &["x"],
            vec![
                vec![Value::Int(2)],
                vec![Value::Int(1)],
                vec![Value::Int(2)],
            ],
        );
        assert_eq!(
            match_table(&want, &ok, RowOrder::Any, ListOrder::Exact),
            Ok(())
        );
        let wrong_count = outcome(
            &["x"],
            vec![
                vec![Value::Int(2)],
                vec![Value::Int(1)],
                vec![Value::Int(1)],
            ],
        );
        let err = match_table(&want, &wrong_count, RowOrder::Any, ListOrder::Exact).unwrap_err();
        assert!(
            err.contains("1 missing: | 2 |") && err.contains("1 unexpected: | 1 |"),
            "{err}"
        );
    }

    #[test]
    fn in_order_checks_positions() {
        let want = table(&["x"], &[&["1"], &["2"]]);
        let ok = outcome(&["x"], vec![vec![Value::Int(1)], vec![Value::Int(2)]]);
        let swapped = outcome(&["x"], vec![vec![Value::Int(2)], vec![Value::Int(1)]]);
        let short = outcome(&["x"], vec![vec![Value::Int(1)]]);
        assert_eq!(
            match_table(&want, &ok, RowOrder::InOrder, ListOrder::Exact),
            Ok(())
        );
        assert!(match_table(&want, &swapped, RowOrder::InOrder, ListOrder::Exact).is_err());
        assert!(match_table(&want, &swapped, RowOrder::Any, ListOrder::Exact).is_ok());
        assert!(match_table(&want, &short, RowOrder::InOrder, ListOrder::Exact).is_err());
    }

    #[test]
    fn columns_must_match_exactly_and_in_order() {
        let want = table(&["a", "b"], &[]);
        for (case, columns, rows, matches) in [
            ("same columns", &["a", "b"][..], vec![], true),
            ("columns swapped", &["b", "a"][..], vec![], false),
            ("a column missing", &["a"][..], vec![], false),
            // A header-only table means zero rows.
            (
                "a row where none is expected",
                &["a", "b"][..],
                vec![vec![Value::Null, Value::Null]],
                false,
            ),
        ] {
            let got = outcome(columns, rows);
            assert_eq!(
                match_table(&want, &got, RowOrder::Any, ListOrder::Exact).is_ok(),
                matches,
                "{case}"
            );
        }
    }

    #[test]
    fn list_order_is_ignored_only_when_asked() {
        let want = table(&["l"], &[&["[1, [3, 2], 2]"]]);
        let got = outcome(
            &["l"],
            vec![vec![Value::List(
                vec![Value::Int(2), ints(&[2, 3]), Value::Int(1)].into(),
            )]],
        );
        assert!(match_table(&want, &got, RowOrder::Any, ListOrder::Exact).is_err());
        assert!(match_table(&want, &got, RowOrder::Any, ListOrder::Ignore).is_ok());
        // Still a multiset: duplicates count.
        let want = table(&["l"], &[&["[1, 1, 2]"]]);
        let got = outcome(&["l"], vec![vec![ints(&[1, 2, 2])]]);
        assert!(match_table(&want, &got, RowOrder::Any, ListOrder::Ignore).is_err());
    }

    #[test]
    fn scalars_compare_by_type_and_value() {
        let one = |v: Value, cell: &str| {
            Canon::of_value(&v, ListOrder::Exact)
                == Canon::of_expected(&Expected::parse(cell).unwrap(), ListOrder::Exact)
        };
        assert!(one(Value::Int(1), "1"));
        assert!(!one(Value::Float(1.0), "1"));
        assert!(!one(Value::Int(1), "1.0"));
        assert!(one(Value::Float(f64::NAN), "NaN"));
        assert!(one(Value::Float(0.1 + 0.2), "0.30000000000000004"));
        assert!(one(Value::Null, "null"));
        assert!(!one(Value::Null, "'null'"));
        assert!(one(Value::string("it's"), r"'it\'s'"));
        let map = Value::map(props(&[("b", Value::Int(2)), ("a", Value::Null)]));
        assert!(one(map.clone(), "{b: 2, a: null}"));
        assert!(!one(map, "{b: 2}"));
    }

    #[test]
    fn temporal_values_compare_as_canonical_text() {
        let date = Value::Date(Date { days: 0 });
        let want = Canon::of_expected(&Expected::parse("'1970-01-01'").unwrap(), ListOrder::Exact);
        assert_eq!(Canon::of_value(&date, ListOrder::Exact), want);
        let duration = Value::Duration(Box::new(Duration {
            months: 0,
            days: 0,
            seconds: 1,
            nanos: 0,
        }));
        assert_eq!(
            Canon::of_value(&duration, ListOrder::Exact).to_string(),
            "'PT1S'"
        );
    }

    #[test]
    fn nodes_ignore_identity_and_label_order() {
        let n = Value::Node(node(7, &["B", "A"], props(&[("name", Value::string("x"))])));
        let cell =
            |text: &str| Canon::of_expected(&Expected::parse(text).unwrap(), ListOrder::Exact);
        let actual = Canon::of_value(&n, ListOrder::Exact);
        assert_eq!(actual, cell("(:A:B {name: 'x'})"));
        assert_ne!(actual, cell("(:A {name: 'x'})"));
        assert_ne!(actual, cell("(:A:B)"));
        assert_ne!(actual, cell("(:A:B {name: 'x', extra: 1})"));
        let bare = Value::Node(Node::new(7));
        assert!(matches!(
            Canon::of_value(&bare, ListOrder::Exact),
            Canon::Unmatchable(_)
        ));
    }

    #[test]
    fn paths_compare_step_by_step_with_direction() {
        let (a, b, c) = (
            node(1, &["A"], Map::new()),
            node(2, &["B"], Map::new()),
            node(3, &[], Map::new()),
        );
        let path = Value::Path(Arc::new(Path {
            nodes: vec![a, b, c],
            relationships: vec![rel(10, 1, 2, "T"), rel(11, 3, 2, "U")],
        }));
        let cell =
            |text: &str| Canon::of_expected(&Expected::parse(text).unwrap(), ListOrder::Exact);
        let actual = Canon::of_value(&path, ListOrder::Exact);
        assert_eq!(actual, cell("<(:A)-[:T]->(:B)<-[:U]-()>"));
        assert_ne!(actual, cell("<(:A)-[:T]->(:B)-[:U]->()>"));
        assert_ne!(actual, cell("<(:A)-[:T]->(:B)>"));
        let broken = Value::Path(Arc::new(Path {
            nodes: vec![node(1, &[], Map::new())],
            relationships: vec![rel(10, 1, 2, "T")],
        }));
        assert!(matches!(
            Canon::of_value(&broken, ListOrder::Exact),
            Canon::Unmatchable(_)
        ));
    }

    #[test]
    fn relationships_compare_type_and_properties() {
        let r = Value::Relationship(rel(1, 1, 2, "KNOWS"));
        let cell =
            |text: &str| Canon::of_expected(&Expected::parse(text).unwrap(), ListOrder::Exact);
        assert_eq!(Canon::of_value(&r, ListOrder::Exact), cell("[:KNOWS]"));
        assert_ne!(Canon::of_value(&r, ListOrder::Exact), cell("[:LIKES]"));
    }
}
