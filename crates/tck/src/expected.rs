//! The value syntax of TCK tables, parsed into an [`Expected`] tree.
//!
//! Result tables, parameter tables and fixture-procedure tables all write values the same way:
//! `1`, `1.0`, `NaN`, `'text'`, `[1, 2]`, `{k: 1}`, `(:A {k: 1})`, `[:T {k: 1}]` and
//! `<(:A)-[:T]->(:B)>`. Temporal values have no syntax of their own: they are written as their
//! canonical ISO-8601 strings.

use std::fmt;
use std::sync::Arc;

use quiver_value::{Map, Value};

/// How deep lists, maps and patterns may nest in one cell; a hostile feature file cannot overflow
/// the stack.
pub const NESTING_DEPTH_MAX: usize = 64;

/// A value as written in a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Expected {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    List(Vec<Expected>),
    /// Keys in the order written; comparison ignores that order.
    Map(Vec<(String, Expected)>),
    Node(NodePattern),
    Relationship(RelPattern),
    Path(PathPattern),
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct NodePattern {
    pub labels: Vec<String>,
    pub properties: Vec<(String, Expected)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RelPattern {
    pub rel_type: String,
    pub properties: Vec<(String, Expected)>,
}

/// `<(a)-[r]->(b)<-[s]-(c)>`: a start node, then steps each naming its direction.
#[derive(Clone, Debug, PartialEq)]
pub struct PathPattern {
    pub start: NodePattern,
    pub steps: Vec<PathStep>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PathStep {
    /// `true` for `-[..]->` (the relationship starts at the previous node), `false` for `<-[..]-`.
    pub forward: bool,
    pub relationship: RelPattern,
    pub node: NodePattern,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot parse value `{text}` at offset {offset}: {message}")]
pub struct ValueSyntaxError {
    pub text: String,
    pub offset: usize,
    pub message: String,
}

impl Expected {
    /// Parses one table cell. The whole cell must be one value.
    pub fn parse(text: &str) -> Result<Expected, ValueSyntaxError> {
        let mut parser = Parser {
            text,
            pos: 0,
            depth: 0,
        };
        parser.skip_ws();
        let value = parser.value()?;
        parser.skip_ws();
        if parser.pos != text.len() {
            return Err(parser.error("unexpected text after the value"));
        }
        Ok(value)
    }

    /// The value a parameter table cell stands for. Graph patterns describe results only; they
    /// cannot be passed as parameters.
    pub fn to_value(&self) -> Result<Value, String> {
        Ok(match self {
            Expected::Null => Value::Null,
            Expected::Bool(b) => Value::Bool(*b),
            Expected::Int(i) => Value::Int(*i),
            Expected::Float(f) => Value::Float(*f),
            Expected::String(s) => Value::String(Arc::from(s.as_str())),
            Expected::List(items) => {
                let values = items
                    .iter()
                    .map(Expected::to_value)
                    .collect::<Result<Vec<_>, _>>()?;
                Value::List(values.into())
            }
            Expected::Map(entries) => {
                let mut map = Map::new();
                for (key, value) in entries {
                    map.insert(Arc::from(key.as_str()), value.to_value()?);
                }
                Value::map(map)
            }
            Expected::Node(_) | Expected::Relationship(_) | Expected::Path(_) => {
                return Err(format!(
                    "`{self}` is a graph pattern, not a value that can be passed in"
                ));
            }
        })
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn error(&self, message: impl Into<String>) -> ValueSyntaxError {
        ValueSyntaxError {
            text: self.text.to_owned(),
            offset: self.pos,
            message: message.into(),
        }
    }

    fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, token: &str) -> bool {
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &str) -> Result<(), ValueSyntaxError> {
        self.skip_ws();
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{token}`")))
        }
    }

    fn enter(&mut self) -> Result<(), ValueSyntaxError> {
        self.depth += 1;
        if self.depth > NESTING_DEPTH_MAX {
            return Err(self.error(format!("nested deeper than {NESTING_DEPTH_MAX}")));
        }
        Ok(())
    }

    fn value(&mut self) -> Result<Expected, ValueSyntaxError> {
        self.enter()?;
        self.skip_ws();
        let value = match self.peek() {
            Some('\'') => Expected::String(self.string()?),
            Some('[') => self.list_or_relationship()?,
            Some('{') => Expected::Map(self.map()?),
            Some('(') => Expected::Node(self.node()?),
            Some('<') => Expected::Path(self.path()?),
            Some(c) if c == '-' || c == '.' || c.is_ascii_digit() => self.number()?,
            Some(c) if c.is_ascii_alphabetic() => self.word()?,
            Some(c) => return Err(self.error(format!("unexpected `{c}`"))),
            None => return Err(self.error("expected a value")),
        };
        self.depth -= 1;
        Ok(value)
    }

    fn word(&mut self) -> Result<Expected, ValueSyntaxError> {
        let start = self.pos;
        let word = self.identifier_chars();
        Ok(match word {
            "null" => Expected::Null,
            "true" => Expected::Bool(true),
            "false" => Expected::Bool(false),
            "NaN" => Expected::Float(f64::NAN),
            "Infinity" | "Inf" => Expected::Float(f64::INFINITY),
            _ => {
                self.pos = start;
                return Err(self.error(format!("unknown word `{word}`")));
            }
        })
    }

    fn identifier_chars(&mut self) -> &'a str {
        let rest = self.rest();
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        self.pos += len;
        rest.get(..len).unwrap_or("")
    }

    /// A label, type or map key: an identifier, or any text in backticks.
    fn name(&mut self) -> Result<String, ValueSyntaxError> {
        self.skip_ws();
        if self.eat("`") {
            let rest = self.rest();
            let Some(end) = rest.find('`') else {
                return Err(self.error("unterminated backtick name"));
            };
            let name = rest.get(..end).unwrap_or("").to_owned();
            self.pos += end + 1;
            return Ok(name);
        }
        let name = self.identifier_chars();
        if name.is_empty() {
            return Err(self.error("expected a name"));
        }
        Ok(name.to_owned())
    }

    fn number(&mut self) -> Result<Expected, ValueSyntaxError> {
        let start = self.pos;
        let negative = self.eat("-");
        if self.eat("NaN") {
            return Ok(Expected::Float(f64::NAN));
        }
        if self.eat("Infinity") || self.eat("Inf") {
            return Ok(Expected::Float(if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }));
        }
        let mut is_float = false;
        let digits = |p: &mut Self| {
            let rest = p.rest();
            let len = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            p.pos += len;
            len
        };
        let integer_digits = digits(self);
        let mut fraction_digits = 0;
        if self.eat(".") {
            is_float = true;
            fraction_digits = digits(self);
        }
        if integer_digits == 0 && fraction_digits == 0 {
            self.pos = start;
            return Err(self.error("expected a number"));
        }
        if self.eat("e") || self.eat("E") {
            is_float = true;
            if !self.eat("-") {
                self.eat("+");
            }
            if digits(self) == 0 {
                return Err(self.error("expected exponent digits"));
            }
        }
        let literal = self.text.get(start..self.pos).unwrap_or("");
        if is_float {
            literal
                .parse::<f64>()
                .map(Expected::Float)
                .map_err(|e| self.error(format!("bad float: {e}")))
        } else {
            literal
                .parse::<i64>()
                .map(Expected::Int)
                .map_err(|e| self.error(format!("bad integer: {e}")))
        }
    }

    /// `'...'` with `\'` for a quote and `\\` for a backslash; any other backslash stays as
    /// written.
    fn string(&mut self) -> Result<String, ValueSyntaxError> {
        self.expect("'")?;
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\'' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, '\'')) => out.push('\''),
                    Some((_, '\\')) => out.push('\\'),
                    Some((_, other)) => {
                        out.push('\\');
                        out.push(other);
                    }
                    None => out.push('\\'),
                },
                other => out.push(other),
            }
        }
        Err(self.error("unterminated string"))
    }

    fn list_or_relationship(&mut self) -> Result<Expected, ValueSyntaxError> {
        self.expect("[")?;
        self.skip_ws();
        if self.peek() == Some(':') {
            let rel = self.relationship_body()?;
            self.expect("]")?;
            return Ok(Expected::Relationship(rel));
        }
        let mut items = Vec::new();
        self.skip_ws();
        if self.eat("]") {
            return Ok(Expected::List(items));
        }
        loop {
            items.push(self.value()?);
            self.skip_ws();
            if self.eat("]") {
                return Ok(Expected::List(items));
            }
            self.expect(",")?;
        }
    }

    fn map(&mut self) -> Result<Vec<(String, Expected)>, ValueSyntaxError> {
        self.expect("{")?;
        let mut entries = Vec::new();
        self.skip_ws();
        if !self.eat("}") {
            loop {
                let key = self.name()?;
                self.expect(":")?;
                let value = self.value()?;
                entries.push((key, value));
                self.skip_ws();
                if self.eat("}") {
                    break;
                }
                self.expect(",")?;
            }
        }
        Ok(entries)
    }

    fn properties(&mut self) -> Result<Vec<(String, Expected)>, ValueSyntaxError> {
        self.skip_ws();
        if self.peek() == Some('{') {
            self.map()
        } else {
            Ok(Vec::new())
        }
    }

    fn node(&mut self) -> Result<NodePattern, ValueSyntaxError> {
        self.expect("(")?;
        let mut labels = Vec::new();
        loop {
            self.skip_ws();
            if !self.eat(":") {
                break;
            }
            labels.push(self.name()?);
        }
        let properties = self.properties()?;
        self.expect(")")?;
        Ok(NodePattern { labels, properties })
    }

    /// After `[`: `:TYPE {props}`.
    fn relationship_body(&mut self) -> Result<RelPattern, ValueSyntaxError> {
        self.expect(":")?;
        let rel_type = self.name()?;
        let properties = self.properties()?;
        Ok(RelPattern {
            rel_type,
            properties,
        })
    }

    fn path(&mut self) -> Result<PathPattern, ValueSyntaxError> {
        self.expect("<")?;
        let start = self.node()?;
        let mut steps = Vec::new();
        loop {
            self.skip_ws();
            if self.eat(">") {
                return Ok(PathPattern { start, steps });
            }
            let forward = if self.eat("<-[") {
                false
            } else if self.eat("-[") {
                true
            } else {
                return Err(self.error("expected `-[`, `<-[` or `>` in a path"));
            };
            let relationship = self.relationship_body()?;
            self.expect("]")?;
            self.skip_ws();
            if forward {
                self.expect("->")?;
            } else {
                self.expect("-")?;
            }
            let node = self.node()?;
            steps.push(PathStep {
                forward,
                relationship,
                node,
            });
        }
    }
}

/// `items` between `open` and `close`, separated by commas, each written by `write_item`.
fn write_separated<T>(
    f: &mut fmt::Formatter<'_>,
    [open, close]: [&str; 2],
    items: &[T],
    write_item: impl Fn(&mut fmt::Formatter<'_>, &T) -> fmt::Result,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write_item(f, item)?;
    }
    f.write_str(close)
}

/// `[a, b]` in the table syntax.
pub(crate) fn write_list<V: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[V]) -> fmt::Result {
    write_separated(f, ["[", "]"], items, |f, item| write!(f, "{item}"))
}

/// `{key: value, ...}` in the table syntax.
pub(crate) fn write_entries<V: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    entries: &[(String, V)],
) -> fmt::Result {
    write_separated(f, ["{", "}"], entries, |f, (key, value)| {
        write!(f, "{key}: {value}")
    })
}

/// `(:A:B {key: value})` in the table syntax.
pub(crate) fn write_node<V: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    labels: &[String],
    properties: &[(String, V)],
) -> fmt::Result {
    f.write_str("(")?;
    for label in labels {
        write!(f, ":{label}")?;
    }
    if !properties.is_empty() {
        if !labels.is_empty() {
            f.write_str(" ")?;
        }
        write_entries(f, properties)?;
    }
    f.write_str(")")
}

/// `[:T {key: value}]` in the table syntax.
pub(crate) fn write_relationship<V: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    rel_type: &str,
    properties: &[(String, V)],
) -> fmt::Result {
    write!(f, "[:{rel_type}")?;
    if !properties.is_empty() {
        f.write_str(" ")?;
        write_entries(f, properties)?;
    }
    f.write_str("]")
}

/// One step of a path in the table syntax: `-[r]->(b)` forward, `<-[r]-(b)` backward.
pub(crate) fn write_step(
    f: &mut fmt::Formatter<'_>,
    forward: bool,
    relationship: &dyn fmt::Display,
    node: &dyn fmt::Display,
) -> fmt::Result {
    if forward {
        write!(f, "-{relationship}->{node}")
    } else {
        write!(f, "<-{relationship}-{node}")
    }
}

impl fmt::Display for NodePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_node(f, &self.labels, &self.properties)
    }
}

impl fmt::Display for RelPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_relationship(f, &self.rel_type, &self.properties)
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Null => f.write_str("null"),
            Expected::Bool(b) => write!(f, "{b}"),
            Expected::Int(i) => write!(f, "{i}"),
            Expected::Float(x) => write!(f, "{}", crate::canonical::float_text(*x)),
            Expected::String(s) => write!(f, "'{}'", crate::canonical::escape_string(s)),
            Expected::List(items) => write_list(f, items),
            Expected::Map(entries) => write_entries(f, entries),
            Expected::Node(node) => write!(f, "{node}"),
            Expected::Relationship(rel) => write!(f, "{rel}"),
            Expected::Path(path) => {
                write!(f, "<{}", path.start)?;
                for step in &path.steps {
                    write_step(f, step.forward, &step.relationship, &step.node)?;
                }
                f.write_str(">")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Expected {
        match Expected::parse(text) {
            Ok(value) => value,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn scalars() {
        assert_eq!(parse("null"), Expected::Null);
        assert_eq!(parse("true"), Expected::Bool(true));
        assert_eq!(parse("false"), Expected::Bool(false));
        assert_eq!(parse("1"), Expected::Int(1));
        assert_eq!(parse("-9223372036854775808"), Expected::Int(i64::MIN));
        assert_eq!(parse("1.0"), Expected::Float(1.0));
        assert_eq!(parse(".5"), Expected::Float(0.5));
        assert_eq!(parse("-.5"), Expected::Float(-0.5));
        assert_eq!(parse("1e-305"), Expected::Float(1e-305));
        assert_eq!(
            parse("-1.2635418652381264e305"),
            Expected::Float(-1.2635418652381264e305)
        );
        assert!(matches!(parse("NaN"), Expected::Float(x) if x.is_nan()));
        assert_eq!(parse("-Infinity"), Expected::Float(f64::NEG_INFINITY));
        assert_eq!(parse("  42  "), Expected::Int(42));
    }

    #[test]
    fn integers_and_floats_stay_apart() {
        assert!(matches!(parse("1"), Expected::Int(_)));
        assert!(matches!(parse("1.0"), Expected::Float(_)));
        assert!(matches!(parse("1e3"), Expected::Float(_)));
    }

    #[test]
    fn strings_unescape_quote_and_backslash_only() {
        assert_eq!(parse("''"), Expected::String(String::new()));
        assert_eq!(parse(r"'\''"), Expected::String("'".into()));
        assert_eq!(parse(r"'a\\b'"), Expected::String(r"a\b".into()));
        assert_eq!(parse(r"'a\nb'"), Expected::String(r"a\nb".into()));
        assert_eq!(parse("'Malmö'"), Expected::String("Malmö".into()));
        assert_eq!(
            parse(r#"'a\\bcn5t\'"\\//\\"\''"#),
            Expected::String(r#"a\bcn5t'"\//\"'"#.into())
        );
    }

    #[test]
    fn collections() {
        assert_eq!(parse("[]"), Expected::List(vec![]));
        assert_eq!(
            parse("[1, 'a', [null]]"),
            Expected::List(vec![
                Expected::Int(1),
                Expected::String("a".into()),
                Expected::List(vec![Expected::Null])
            ])
        );
        assert_eq!(parse("{}"), Expected::Map(vec![]));
        assert_eq!(
            parse("{a: 1, `b c`: {d: true}}"),
            Expected::Map(vec![
                ("a".into(), Expected::Int(1)),
                (
                    "b c".into(),
                    Expected::Map(vec![("d".into(), Expected::Bool(true))])
                )
            ])
        );
    }

    #[test]
    fn nodes_and_relationships() {
        assert_eq!(parse("()"), Expected::Node(NodePattern::default()));
        assert_eq!(
            parse("(:A:B {name: 'x', n:1})"),
            Expected::Node(NodePattern {
                labels: vec!["A".into(), "B".into()],
                properties: vec![
                    ("name".into(), Expected::String("x".into())),
                    ("n".into(), Expected::Int(1))
                ],
            })
        );
        assert_eq!(parse("({num: 1})").to_string(), "({num: 1})");
        assert_eq!(
            parse("[:T {k: 1}]"),
            Expected::Relationship(RelPattern {
                rel_type: "T".into(),
                properties: vec![("k".into(), Expected::Int(1))]
            })
        );
        assert_eq!(parse("[ :T ]").to_string(), "[:T]");
    }

    #[test]
    fn paths_keep_direction() {
        let text = "<(:Start)<-[:CONNECTED_TO]-()-[:CONNECTED_TO {w: 1}]->(:End)>";
        let Expected::Path(path) = parse(text) else {
            panic!("not a path")
        };
        assert_eq!(path.start.labels, vec!["Start".to_owned()]);
        assert_eq!(path.steps.len(), 2);
        assert!(!path.steps[0].forward);
        assert!(path.steps[1].forward);
        assert_eq!(parse(text).to_string(), text);
        let Expected::Path(single) = parse("<()>") else {
            panic!("not a path")
        };
        assert!(single.steps.is_empty());
    }

    #[test]
    fn malformed_cells_are_errors_not_panics() {
        for bad in [
            "",
            "'open",
            "[1, 2",
            "{a 1}",
            "(:A",
            "<(:A)-[:T]-(:B)>",
            "1.2.3",
            "nul",
            "1e",
            "--1",
            "[:]",
            "99999999999999999999",
            "(:A) x",
            "`",
            "{`a: 1}",
            "<",
            "-",
            ".",
        ] {
            assert!(Expected::parse(bad).is_err(), "{bad:?} parsed");
        }
        let deep = "[".repeat(NESTING_DEPTH_MAX + 1) + &"]".repeat(NESTING_DEPTH_MAX + 1);
        assert!(Expected::parse(&deep).is_err());
        let ok = "[".repeat(NESTING_DEPTH_MAX - 1) + &"]".repeat(NESTING_DEPTH_MAX - 1);
        assert!(Expected::parse(&ok).is_ok());
    }

    fn arbitrary_expected() -> impl proptest::strategy::Strategy<Value = Expected> {
        use proptest::prelude::*;
        let name = "[A-Za-z_][A-Za-z0-9_]{0,6}";
        let leaf = prop_oneof![
            Just(Expected::Null),
            any::<bool>().prop_map(Expected::Bool),
            any::<i64>().prop_map(Expected::Int),
            any::<f64>().prop_map(Expected::Float),
            "[a-z'\\\\ é]{0,8}".prop_map(Expected::String),
            (
                proptest::collection::vec(name, 0..3),
                proptest::collection::vec((name, any::<i64>().prop_map(Expected::Int)), 0..3)
            )
                .prop_map(|(labels, properties)| Expected::Node(NodePattern {
                    labels,
                    properties
                })),
            (
                name,
                proptest::collection::vec((name, Just(Expected::Null)), 0..2)
            )
                .prop_map(|(rel_type, properties)| Expected::Relationship(
                    RelPattern {
                        rel_type,
                        properties
                    }
                )),
        ];
        leaf.prop_recursive(4, 32, 4, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Expected::List),
                proptest::collection::vec((name, inner), 0..4).prop_map(Expected::Map),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_cells_never_panic(text in "[\\[\\]{}()<>:,'\\\\a-z0-9. eE+-]{0,40}") {
            let _ = Expected::parse(&text);
        }

        #[test]
        fn printed_values_parse_back(value in arbitrary_expected()) {
            use crate::matching::{Canon, ListOrder};
            let text = value.to_string();
            let parsed = Expected::parse(&text).map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            proptest::prop_assert_eq!(
                Canon::of_expected(&parsed, ListOrder::Exact),
                Canon::of_expected(&value, ListOrder::Exact),
                "{}", text
            );
        }
    }

    #[test]
    fn parameters_become_values() {
        let value = parse("{a: [1, 2.5, 'x', null, true]}").to_value();
        let Ok(Value::Map(map)) = value else {
            panic!("not a map")
        };
        let Some(Value::List(items)) = map.get("a") else {
            panic!("no list")
        };
        assert_eq!(items.len(), 5);
        assert!(matches!(items[1], Value::Float(x) if x == 2.5));
        assert!(parse("(:A)").to_value().is_err());
    }
}
