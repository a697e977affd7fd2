//! Property rules: read privileges on the nodes whose property passes a test, written
//! `FOR (n:A|B) WHERE [NOT] n.p test value` (or `FOR (:A {p: value})`), as Neo4j 5 has them.
//!
//! A rule is stored as a privilege row whose segment is the rule in Neo4j's words,
//! `FOR (n:A|B) WHERE n.p = 'x'`: the variable always `n`, the labels in order, the value as
//! a literal (parameters and functions are evaluated when the command runs). Names that are
//! not plain identifiers are written in backticks, so that the segment, and the command
//! `SHOW PRIVILEGES AS COMMANDS` prints with it, reads back as the same rule.
//!
//! A rule applies to a node that has one of its labels (any node when it names none) and
//! whose property passes the test as Cypher would evaluate it: a comparison with a property
//! the node lacks is null, and a null test does not apply (so a `DENY` by `n.p <> v` does not
//! hide a node without `p`), while `IS NULL` applies to it. `NOT` negates a true or false
//! test and leaves null null.

use quiver_cypher::ast::{
    Elements, Expr, ExprKind, Ident, Literal, PrivilegeTarget, PropertyPredicate, PropertyTest,
    UnaryOp,
};
use quiver_value::Value;
use quiver_value::compare;

/// A property rule, by name (`T`, `K`: `String`) or resolved to one query's token ids.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NodeRule<T = String, K = String> {
    /// The rule applies to nodes with one of these labels; to every node when empty.
    pub labels: Vec<T>,
    /// The property tested (resolved: `None` when no node has it yet).
    pub property: K,
    pub negated: bool,
    pub test: PropertyTest,
    /// What the property is compared with: a list for `IN`, null for the null tests.
    pub value: Value,
}

impl NodeRule {
    /// The rule a privilege's `FOR` names: `values`, when given, are its value expressions
    /// as the command evaluated them ([`Elements::rule_values`]); otherwise each must be a
    /// literal. `Err` says what is not allowed; `Ok(None)` for elements that are not a rule.
    pub fn of(elements: &Elements, values: Option<&[Value]>) -> Result<Option<NodeRule>, String> {
        let Elements::Where {
            variable,
            labels,
            predicate,
        } = elements
        else {
            return Ok(None);
        };
        let p = PropertyPredicate::of(variable, predicate)?;
        let value = match (p.value, values) {
            (None, _) => Value::Null,
            (Some(_), Some([value, ..])) => value.clone(),
            (Some(expr), _) => literal(expr)?,
        };
        check_value(p.test, &value)?;
        let mut names: Vec<String> = labels.iter().map(|l| l.name.clone()).collect();
        names.sort();
        names.dedup();
        Ok(Some(NodeRule {
            labels: names,
            property: p.property.name.clone(),
            negated: p.negated,
            test: p.test,
            value,
        }))
    }

    /// The rule a stored segment says (see the module doc); `None` for any other segment.
    pub fn of_segment(segment: &str) -> Option<NodeRule> {
        if !segment.starts_with("FOR (") {
            return None;
        }
        let text = format!("GRANT TRAVERSE ON GRAPH * {segment} TO r");
        let statement = quiver_cypher::parse(&text).ok()?;
        let quiver_cypher::ast::StatementKind::Admin(quiver_cypher::ast::AdminCommand::Privilege(
            command,
        )) = statement.kind
        else {
            return None;
        };
        match command.privilege {
            quiver_cypher::ast::Privilege::Graph {
                elements,
                graphs: PrivilegeTarget::All,
                ..
            } => NodeRule::of(&elements, None).ok().flatten(),
            _ => None,
        }
    }

    /// The segment Neo4j lists for the rule: `FOR (n:A|B) WHERE n.p = 'x'`.
    pub fn segment(&self) -> String {
        let mut out = String::from("FOR (n");
        for (i, label) in self.labels.iter().enumerate() {
            out.push(if i == 0 { ':' } else { '|' });
            out.push_str(&Ident::new(label.as_str()).to_string());
        }
        out.push_str(") WHERE ");
        if self.negated {
            out.push_str("NOT ");
        }
        out.push_str("n.");
        out.push_str(&Ident::new(self.property.as_str()).to_string());
        out.push(' ');
        out.push_str(self.test.symbol());
        if !matches!(self.test, PropertyTest::IsNull | PropertyTest::IsNotNull) {
            out.push(' ');
            out.push_str(&written(&self.value));
        }
        out
    }
}

/// The temporal types, each with the function that makes one from its text.
const TEMPORALS: [&str; 6] = [
    "date",
    "localtime",
    "time",
    "localdatetime",
    "datetime",
    "duration",
];

/// The function that makes `v` from its text, for a temporal value.
fn temporal_function(v: &Value) -> Option<&'static str> {
    let i = match v {
        Value::Date(_) => 0,
        Value::LocalTime(_) => 1,
        Value::Time(_) => 2,
        Value::LocalDateTime(_) => 3,
        Value::DateTime(_) => 4,
        Value::Duration(_) => 5,
        _ => return None,
    };
    Some(TEMPORALS[i])
}

/// A value as a rule's segment writes it: a literal, a temporal value as the call that
/// makes it from its text (`date('2024-10-25')`, as Neo4j lists one).
fn written(v: &Value) -> String {
    match (v, temporal_function(v)) {
        (_, Some(function)) => {
            let text = Value::from(quiver_value::to_string_cypher(v).as_str());
            format!("{function}({text})")
        }
        (Value::List(items), _) => {
            let items: Vec<String> = items.iter().map(written).collect();
            format!("[{}]", items.join(", "))
        }
        _ => v.to_string(),
    }
}

/// The temporal value `function` makes of `text`, as a written rule reads back.
fn temporal(function: &str, text: &str) -> Option<Value> {
    use quiver_value::temporal::parse;
    let utc = quiver_value::TimeZone::Offset(0);
    Some(match function {
        "date" => Value::Date(parse::parse_date(text).ok()?),
        "localtime" => Value::LocalTime(parse::parse_local_time(text).ok()?),
        "time" => Value::Time(parse::parse_time(text, 0).ok()?),
        "localdatetime" => Value::LocalDateTime(parse::parse_local_date_time(text).ok()?),
        "datetime" => Value::DateTime(Box::new(parse::parse_date_time(text, &utc).ok()?)),
        "duration" => Value::Duration(Box::new(parse::parse_duration(text).ok()?)),
        _ => return None,
    })
}

impl<T, K> NodeRule<T, K> {
    /// Whether the test holds of `found`, the node's value of the property (`None`: it has
    /// none): true, not false or null.
    pub fn holds(&self, found: Option<&Value>) -> bool {
        let v = found.unwrap_or(&Value::Null);
        let outcome = match self.test {
            PropertyTest::IsNull => Some(v.is_null()),
            PropertyTest::IsNotNull => Some(!v.is_null()),
            PropertyTest::Eq => compare::equals(v, &self.value),
            PropertyTest::NotEq => compare::not_equals(v, &self.value),
            PropertyTest::Lt => compare::less_than(v, &self.value),
            PropertyTest::Le => compare::less_equal(v, &self.value),
            PropertyTest::Gt => compare::greater_than(v, &self.value),
            PropertyTest::Ge => compare::greater_equal(v, &self.value),
            PropertyTest::In => within(v, &self.value),
        };
        outcome.is_some_and(|b| b != self.negated)
    }
}

/// Cypher's `v IN list`: true when some item equals `v`, null when none does but some
/// comparison is null, false otherwise.
fn within(v: &Value, list: &Value) -> Option<bool> {
    let Value::List(items) = list else {
        return None;
    };
    let mut unknown = false;
    for item in items.iter() {
        match compare::equals(v, item) {
            Some(true) => return Some(true),
            Some(false) => {}
            None => unknown = true,
        }
    }
    (!unknown).then_some(false)
}

/// A value written as a literal: numbers (negated or not), strings, booleans and lists of
/// them.
fn literal(expr: &Expr) -> Result<Value, String> {
    match &expr.kind {
        ExprKind::Literal(Literal::Boolean(b)) => Ok(Value::Bool(*b)),
        ExprKind::Literal(Literal::Integer(i)) => Ok(Value::Int(*i)),
        ExprKind::Literal(Literal::Float(f)) => Ok(Value::Float(*f)),
        ExprKind::Literal(Literal::String(s)) => Ok(Value::from(s.as_str())),
        ExprKind::Literal(Literal::Null) => Ok(Value::Null),
        ExprKind::List(items) => Ok(Value::from(
            items.iter().map(literal).collect::<Result<Vec<_>, _>>()?,
        )),
        ExprKind::Unary {
            op: UnaryOp::Negate,
            operand,
        } => match literal(operand)? {
            Value::Int(i) => i
                .checked_neg()
                .map(Value::Int)
                .ok_or_else(|| format!("The property rule's value {expr}")),
            Value::Float(f) => Ok(Value::Float(-f)),
            _ => Err(format!("The property rule's value {expr}")),
        },
        ExprKind::Unary {
            op: UnaryOp::Plus,
            operand,
        } => literal(operand),
        // A temporal value as a segment writes it: `date('2024-10-25')`.
        ExprKind::FunctionCall(call) if call.name.namespace.is_empty() => {
            let name = call.name.name.name.to_ascii_lowercase();
            match &call.args[..] {
                [
                    Expr {
                        kind: ExprKind::Literal(Literal::String(text)),
                        ..
                    },
                ] => {
                    temporal(&name, text).ok_or_else(|| format!("The property rule's value {expr}"))
                }
                _ => Err(format!("The property rule's value {expr}")),
            }
        }
        _ => Err(format!(
            "The property rule's value {expr} (a literal is needed where no parameter can be \
             evaluated)"
        )),
    }
}

/// Whether a value is one a rule can store and print back: a boolean, a finite number, a
/// string or a temporal value.
fn storable(v: &Value) -> bool {
    match v {
        Value::Bool(_) | Value::Int(_) | Value::String(_) => true,
        Value::Float(f) => f.is_finite(),
        other => temporal_function(other).is_some(),
    }
}

/// Refuses a value `test` cannot compare with: `IN` takes a list of storable values, the
/// comparisons one storable value.
fn check_value(test: PropertyTest, value: &Value) -> Result<(), String> {
    let type_name = |v: &Value| v.value_type().name();
    match test {
        PropertyTest::IsNull | PropertyTest::IsNotNull => Ok(()),
        PropertyTest::In => match value {
            Value::List(items) => match items.iter().find(|v| !storable(v)) {
                None => Ok(()),
                Some(v) => Err(format!(
                    "A property rule comparing with a list holding a value of type {} (only \
                     booleans, numbers, strings and temporal values are)",
                    type_name(v)
                )),
            },
            other => Err(format!(
                "A property rule `IN` a value of type {} (it takes a list)",
                type_name(other)
            )),
        },
        _ if value.is_null() => Err(
            "A property rule comparing with null (`IS NULL` and `IS NOT NULL` test for it)"
                .to_owned(),
        ),
        _ if storable(value) => Ok(()),
        _ => Err(format!(
            "A property rule comparing with a value of type {} (only booleans, numbers, \
             strings and temporal values are)",
            type_name(value)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> Result<NodeRule, String> {
        let statement = quiver_cypher::parse(&format!("GRANT TRAVERSE ON GRAPH * {text} TO r"))
            .map_err(|e| e.to_string())?;
        let quiver_cypher::ast::StatementKind::Admin(quiver_cypher::ast::AdminCommand::Privilege(
            c,
        )) = statement.kind
        else {
            panic!("{text}: a privilege");
        };
        let quiver_cypher::ast::Privilege::Graph { elements, .. } = c.privilege else {
            panic!("{text}: a graph privilege");
        };
        NodeRule::of(&elements, None).map(|r| r.expect("a rule"))
    }

    #[test]
    fn each_form_prints_as_a_segment_that_reads_back_as_itself() {
        for (written, segment) in [
            (
                "FOR (x:Person) WHERE x.secret = false",
                "FOR (n:Person) WHERE n.secret = false",
            ),
            (
                "FOR (x:B|A WHERE x.level >= -2)",
                "FOR (n:A|B) WHERE n.level >= -2",
            ),
            (
                "FOR (n) WHERE NOT n.tag IN ['a', 'b']",
                "FOR (n) WHERE NOT n.tag IN ['a', 'b']",
            ),
            (
                "FOR (n:`Odd Label`) WHERE n.`odd key` IS NOT NULL",
                "FOR (n:`Odd Label`) WHERE n.`odd key` IS NOT NULL",
            ),
            (
                "FOR (:Email {domain: 'it\\'s'})",
                "FOR (n:Email) WHERE n.domain = 'it\\'s'",
            ),
            ("FOR (n) WHERE n.score < 2.5", "FOR (n) WHERE n.score < 2.5"),
            (
                "FOR (n) WHERE n.born >= date('2024-10-25')",
                "FOR (n) WHERE n.born >= date('2024-10-25')",
            ),
            (
                "FOR (n) WHERE n.at IN [datetime('2024-10-25T10:00:00Z'), duration('P1D')]",
                "FOR (n) WHERE n.at IN [datetime('2024-10-25T10:00Z'), duration('P1D')]",
            ),
        ] {
            let r = rule(written).unwrap_or_else(|e| panic!("{written}: {e}"));
            assert_eq!(r.segment(), segment, "{written}");
            assert_eq!(NodeRule::of_segment(segment), Some(r), "{segment}");
        }
    }

    #[test]
    fn predicates_outside_the_allowed_forms_are_named() {
        for text in [
            "FOR (n) WHERE n.a = n.b",
            "FOR (n) WHERE n.a = 1 AND n.b = 2",
            "FOR (n) WHERE m.a = 1",
            "FOR (n) WHERE n.a STARTS WITH 'x'",
            "FOR (n) WHERE n.a = null",
            "FOR (n) WHERE n.a IN 3",
            "FOR (n) WHERE n.a = {k: 1}",
        ] {
            let err = rule(text).expect_err(text);
            assert!(err.contains("property rule"), "{text}: {err}");
        }
    }

    #[test]
    fn a_test_on_a_property_the_node_lacks_is_null_and_does_not_apply() {
        let lacks = |text| !rule(text).expect("rule").holds(None);
        assert!(lacks("FOR (n) WHERE n.p = 1"));
        assert!(lacks("FOR (n) WHERE n.p <> 1"));
        assert!(lacks("FOR (n) WHERE NOT n.p = 1"));
        assert!(lacks("FOR (n) WHERE n.p IN [1]"));
        assert!(lacks("FOR (n) WHERE n.p IS NOT NULL"));
        assert!(!lacks("FOR (n) WHERE n.p IS NULL"));
        let r = rule("FOR (n) WHERE n.p > 1").expect("rule");
        assert!(r.holds(Some(&Value::Float(1.5))));
        assert!(!r.holds(Some(&Value::from("x"))));
        let r = rule("FOR (n) WHERE NOT n.p IN [1, 2]").expect("rule");
        assert!(r.holds(Some(&Value::Int(3))) && !r.holds(Some(&Value::Int(2))));
    }
}
