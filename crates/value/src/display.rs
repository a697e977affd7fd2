//! Rendering values as text.
//!
//! Two renderings with different jobs:
//! - [`to_string_cypher`] is what Cypher's `toString()` (and string concatenation with `+`)
//!   produces: integers in decimal, floats as Java prints doubles (`1.0`, `1.0E20`), temporal
//!   values in ISO-8601, points as `point({x: 1.0, y: 2.0, crs: 'cartesian'})`. Strings are
//!   returned as they are.
//! - [`to_cypher_literal`] (and `Display for Value`) writes values the way the openCypher TCK
//!   writes expected results: strings quoted (`'it\'s'`), lists `[1, 2]`, maps `{k: 1}`, nodes
//!   `(:A {k: 1})`, relationships `[:T {k: 1}]`, paths `<(:A)-[:T]->(:B)>`, temporal values as
//!   quoted ISO strings.

use std::fmt::{self, Write};

use crate::graph::{Node, Path, Relationship};
use crate::spatial::{self, Point};
use crate::temporal::format;
use crate::value::{Map, Value};
use crate::vector::Vector;

/// Formats a float as Java's `Double.toString` does, which is what Cypher's `toString()`
/// returns: the shortest digits that read back to the same float, in plain notation for
/// magnitudes in `[1e-3, 1e7)` and in `d.dddE±n` notation otherwise.
pub fn float_to_string(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "Infinity".to_owned()
        } else {
            "-Infinity".to_owned()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0.0".to_owned()
        } else {
            "0.0".to_owned()
        };
    }
    let sign = if f < 0.0 { "-" } else { "" };
    let abs = f.abs();
    // Rust's `{:e}` gives the shortest round-tripping digits as `d.ddde±n`.
    let sci = format!("{abs:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::with_capacity(digits.len() + 8);
    out.push_str(sign);
    if (1e-3..1e7).contains(&abs) {
        if exponent >= 0 {
            let point = exponent as usize + 1;
            if digits.len() <= point {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', point - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..point]);
                out.push('.');
                out.push_str(&digits[point..]);
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exponent - 1) as usize));
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        out.push_str(if digits.len() > 1 { &digits[1..] } else { "0" });
        let _ = write!(out, "E{exponent}");
    }
    out
}

/// What Cypher's `toString()` returns for a value. Values `toString()` rejects (lists, maps,
/// graph entities) are rendered as literals so that this never fails; the `toString` function
/// itself checks the type first.
pub fn to_string_cypher(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => float_to_string(*f),
        Value::String(s) => s.to_string(),
        Value::Date(d) => format::date_text(d),
        Value::LocalTime(t) => format::local_time_text(t),
        Value::Time(t) => format::time_text(t),
        Value::LocalDateTime(t) => format::local_date_time_text(t),
        Value::DateTime(t) => format::date_time_text(t),
        Value::Duration(d) => format::duration_text(d),
        Value::Point(p) => point_text(p),
        Value::Vector(v) => vector_text(v),
        Value::Uuid(u) => u.to_string(),
        other => to_cypher_literal(other),
    }
}

/// Whether `toString()` accepts a value of this type.
pub fn has_string_form(value: &Value) -> bool {
    !matches!(
        value,
        Value::List(_)
            | Value::Map(_)
            | Value::Node(_)
            | Value::Relationship(_)
            | Value::Path(_)
            | Value::Bytes(_)
    )
}

/// `vector([1.0, 2.5], 2, FLOAT32)`: the call that builds the vector, as Neo4j shows one. A
/// `FLOAT32` coordinate is written with the fewest digits that read back as the same `f32`.
pub fn vector_text(v: &Vector) -> String {
    let coordinates: Vec<String> = match v {
        Vector::Float32(c) => c
            .iter()
            .map(|x| float_to_string(x.to_string().parse().unwrap_or(f64::from(*x))))
            .collect(),
        other => other
            .values()
            .map(|c| match c {
                Value::Float(f) => float_to_string(f),
                other => other.to_string(),
            })
            .collect(),
    };
    format!(
        "vector([{}], {}, {})",
        coordinates.join(", "),
        v.len(),
        v.coordinate_type()
    )
}

/// `point({x: 1.0, y: 2.0, crs: 'cartesian'})` and its geographic and 3D variants.
pub fn point_text(p: &Point) -> String {
    let (x_name, y_name, z_name) = if spatial::is_geographic(p.srid) {
        ("longitude", "latitude", "height")
    } else {
        ("x", "y", "z")
    };
    let mut out = String::with_capacity(64);
    let _ = write!(
        out,
        "point({{{x_name}: {}, {y_name}: {}",
        float_to_string(p.x),
        float_to_string(p.y)
    );
    if let Some(z) = p.z {
        let _ = write!(out, ", {z_name}: {}", float_to_string(z));
    }
    let _ = write!(out, ", crs: '{}'}})", spatial::crs_name(p.srid));
    out
}

/// Renders a value in the literal syntax of TCK result tables.
pub fn to_cypher_literal(value: &Value) -> String {
    let mut out = String::new();
    let _ = write_literal(&mut out, value);
    out
}

/// Writes a string as a single-quoted Cypher literal.
pub fn write_quoted(out: &mut impl Write, s: &str) -> fmt::Result {
    out.write_char('\'')?;
    for c in s.chars() {
        match c {
            '\'' => out.write_str("\\'")?,
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            c => out.write_char(c)?,
        }
    }
    out.write_char('\'')
}

/// Writes a map key or label bare when it is an identifier, in backticks otherwise.
fn write_name(out: &mut impl Write, name: &str) -> fmt::Result {
    let mut chars = name.chars();
    let plain = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_');
    if plain {
        out.write_str(name)
    } else {
        write!(out, "`{}`", name.replace('`', "``"))
    }
}

fn write_map(out: &mut impl Write, map: &Map) -> fmt::Result {
    out.write_char('{')?;
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.write_str(", ")?;
        }
        write_name(out, k)?;
        out.write_str(": ")?;
        write_literal(out, v)?;
    }
    out.write_char('}')
}

fn write_properties(out: &mut impl Write, properties: &Map) -> fmt::Result {
    if properties.is_empty() {
        Ok(())
    } else {
        out.write_char(' ')?;
        write_map(out, properties)
    }
}

fn write_node(out: &mut impl Write, node: &Node) -> fmt::Result {
    out.write_char('(')?;
    match &node.data {
        Some(data) => {
            for label in &data.labels {
                out.write_char(':')?;
                write_name(out, label)?;
            }
            if data.labels.is_empty() {
                if !data.properties.is_empty() {
                    write_map(out, &data.properties)?;
                }
            } else {
                write_properties(out, &data.properties)?;
            }
        }
        None => write!(out, "#{}", node.id)?,
    }
    out.write_char(')')
}

fn write_relationship_body(out: &mut impl Write, rel: &Relationship) -> fmt::Result {
    out.write_char('[')?;
    match &rel.data {
        Some(data) => {
            out.write_char(':')?;
            write_name(out, &data.rel_type)?;
            write_properties(out, &data.properties)?;
        }
        None => write!(out, "#{}", rel.id)?,
    }
    out.write_char(']')
}

fn write_path(out: &mut impl Write, path: &Path) -> fmt::Result {
    out.write_char('<')?;
    for (i, node) in path.nodes.iter().enumerate() {
        if i > 0 {
            let Some(rel) = path.relationships.get(i - 1) else {
                break;
            };
            let previous = path.nodes[i - 1].id;
            // Direction comes from the relationship's own start node, when known.
            let backwards = rel.data.as_ref().is_some_and(|d| d.start != previous);
            out.write_str(if backwards { "<-" } else { "-" })?;
            write_relationship_body(out, rel)?;
            out.write_str(if backwards || rel.data.is_none() {
                "-"
            } else {
                "->"
            })?;
        }
        write_node(out, node)?;
    }
    out.write_char('>')
}

fn write_literal(out: &mut impl Write, value: &Value) -> fmt::Result {
    match value {
        Value::Null => out.write_str("null"),
        Value::Bool(b) => write!(out, "{b}"),
        Value::Int(i) => write!(out, "{i}"),
        Value::Float(f) => out.write_str(&float_to_string(*f)),
        Value::String(s) => write_quoted(out, s),
        Value::Bytes(bytes) => {
            out.write_str("0x")?;
            for b in bytes.iter() {
                write!(out, "{b:02x}")?;
            }
            Ok(())
        }
        Value::List(items) => {
            out.write_char('[')?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                write_literal(out, item)?;
            }
            out.write_char(']')
        }
        Value::Map(map) => write_map(out, map),
        Value::Node(node) => write_node(out, node),
        Value::Relationship(rel) => write_relationship_body(out, rel),
        Value::Path(path) => write_path(out, path),
        Value::Point(p) => out.write_str(&point_text(p)),
        Value::Vector(v) => out.write_str(&vector_text(v)),
        // The call that builds it, as Neo4j shows a UUID in a result.
        Value::Uuid(u) => write!(out, "uuid(\"{u}\")"),
        temporal => write_quoted(out, &to_string_cypher(temporal)),
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_literal(f, self)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::graph::{NodeData, RelData};

    #[test]
    fn floats_print_like_java() {
        assert_eq!(float_to_string(1.0), "1.0");
        assert_eq!(float_to_string(3.25), "3.25");
        assert_eq!(float_to_string(-0.5), "-0.5");
        assert_eq!(float_to_string(1e7), "1.0E7");
        assert_eq!(float_to_string(9_999_999.0), "9999999.0");
        assert_eq!(float_to_string(0.001), "0.001");
        assert_eq!(float_to_string(0.0001), "1.0E-4");
        assert_eq!(
            float_to_string(1.2635418652381264e305),
            "1.2635418652381264E305"
        );
        assert_eq!(float_to_string(123_456.789), "123456.789");
        assert_eq!(float_to_string(f64::NAN), "NaN");
        assert_eq!(float_to_string(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(float_to_string(-0.0), "-0.0");
        assert_eq!(float_to_string(100.0), "100.0");
    }

    #[test]
    fn literals_match_tck_tables() {
        let map: Map = [
            (Arc::from("k"), Value::Int(1)),
            (Arc::from("a b"), Value::from("it's")),
        ]
        .into_iter()
        .collect();
        let value = Value::from(vec![
            Value::Null,
            Value::Float(1.5),
            Value::map(map),
            Value::from("a\\b"),
        ]);
        assert_eq!(
            value.to_string(),
            "[null, 1.5, {`a b`: 'it\\'s', k: 1}, 'a\\\\b']"
        );
        let date = Value::Date(crate::temporal::Date::from_ymd(1984, 10, 11).unwrap());
        assert_eq!(date.to_string(), "'1984-10-11'");
        assert_eq!(to_string_cypher(&date), "1984-10-11");
    }

    #[test]
    fn graph_entities() {
        let a = Node {
            id: 1,
            data: Some(Arc::new(NodeData {
                labels: vec![Arc::from("A")],
                properties: Map::new(),
            })),
        };
        let b = Node {
            id: 2,
            data: Some(Arc::new(NodeData::default())),
        };
        let rel = Relationship {
            id: 7,
            data: Some(Arc::new(RelData {
                start: 2,
                end: 1,
                rel_type: Arc::from("T"),
                properties: Map::new(),
                ends: None,
            })),
        };
        let path = Value::Path(Arc::new(Path {
            nodes: vec![a.clone(), b],
            relationships: vec![rel.clone()],
        }));
        assert_eq!(path.to_string(), "<(:A)<-[:T]-()>");
        assert_eq!(Value::Relationship(rel).to_string(), "[:T]");
        assert_eq!(Value::Node(a).to_string(), "(:A)");
    }

    #[test]
    fn points() {
        let p = Point {
            srid: spatial::SRID_CARTESIAN,
            x: 1.0,
            y: 2.0,
            z: None,
        };
        assert_eq!(point_text(&p), "point({x: 1.0, y: 2.0, crs: 'cartesian'})");
        let g = Point {
            srid: spatial::SRID_WGS84_3D,
            x: 12.5,
            y: 56.25,
            z: Some(100.0),
        };
        assert_eq!(
            point_text(&g),
            "point({longitude: 12.5, latitude: 56.25, height: 100.0, crs: 'wgs-84-3d'})"
        );
    }
}
