//! Typed columns: the types a header may name and the conversion of one field's text to a
//! stored value, by Neo4j's import rules where Quiver keeps them.
//!
//! - Integers (`byte`, `short`, `int`, `long`) must fit their Java width, as in Neo4j, so a
//!   file that loads here loads there too; all are stored as Cypher integers.
//! - `float` is a 32-bit float in Neo4j: the value is rounded to `f32` and stored widened,
//!   so a query answers what Neo4j answers for the same file. `double` is kept as written.
//! - `boolean` accepts `true` and `false` in any case. Neo4j reads every other text as
//!   false; Quiver refuses it, since such a field is almost always a shifted column.
//! - Temporal texts are ISO-8601 as Cypher's constructors read them; `time` and `datetime`
//!   without an offset or zone are UTC (Neo4j's default `db.temporal.timezone`).
//! - `point` is a map literal: `{x: 1, y: 2}`, `{latitude: 55.6, longitude: 12.6,
//!   crs: 'WGS-84'}`, keys and values as `point()` takes them.
//! - Non-string fields are trimmed of surrounding spaces; strings are kept as they are.

use std::sync::Arc;

use quiver_value::temporal::parse::{
    parse_date, parse_date_time, parse_duration, parse_local_date_time, parse_local_time,
    parse_time,
};
use quiver_value::{TimeZone, Value};

/// A scalar type a header column may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    Byte,
    Short,
    Int,
    Long,
    Float,
    Double,
    Boolean,
    Char,
    String,
    Date,
    LocalTime,
    Time,
    LocalDateTime,
    DateTime,
    Duration,
    Point,
}

impl Scalar {
    /// The type a header names, case-insensitively; `None` for an unknown name.
    pub fn parse(name: &str) -> Option<Scalar> {
        let s = match name.to_ascii_lowercase().as_str() {
            "byte" => Scalar::Byte,
            "short" => Scalar::Short,
            "int" => Scalar::Int,
            "long" => Scalar::Long,
            "float" => Scalar::Float,
            "double" => Scalar::Double,
            "boolean" => Scalar::Boolean,
            "char" => Scalar::Char,
            "string" => Scalar::String,
            "date" => Scalar::Date,
            "localtime" => Scalar::LocalTime,
            "time" => Scalar::Time,
            "localdatetime" => Scalar::LocalDateTime,
            "datetime" => Scalar::DateTime,
            "duration" => Scalar::Duration,
            "point" => Scalar::Point,
            _ => return None,
        };
        Some(s)
    }

    pub fn name(self) -> &'static str {
        match self {
            Scalar::Byte => "byte",
            Scalar::Short => "short",
            Scalar::Int => "int",
            Scalar::Long => "long",
            Scalar::Float => "float",
            Scalar::Double => "double",
            Scalar::Boolean => "boolean",
            Scalar::Char => "char",
            Scalar::String => "string",
            Scalar::Date => "date",
            Scalar::LocalTime => "localtime",
            Scalar::Time => "time",
            Scalar::LocalDateTime => "localdatetime",
            Scalar::DateTime => "datetime",
            Scalar::Duration => "duration",
            Scalar::Point => "point",
        }
    }

    /// Converts one field's text. The error is a reason for the report, naming the text.
    pub fn convert(self, raw: &str) -> Result<Value, String> {
        if self == Scalar::String {
            return Ok(Value::String(Arc::from(raw)));
        }
        let text = raw.trim_matches(' ');
        let bad = |detail: &str| {
            let sep = if detail.is_empty() { "" } else { ": " };
            format!("`{text}` is not a valid {}{sep}{detail}", self.name())
        };
        let integer = |min: i64, max: i64| -> Result<Value, String> {
            let v: i64 = text.parse().map_err(|_| bad(""))?;
            if (min..=max).contains(&v) {
                Ok(Value::Int(v))
            } else {
                Err(bad(&format!("out of range {min}..={max}")))
            }
        };
        match self {
            Scalar::Byte => integer(i8::MIN.into(), i8::MAX.into()),
            Scalar::Short => integer(i16::MIN.into(), i16::MAX.into()),
            Scalar::Int => integer(i32::MIN.into(), i32::MAX.into()),
            Scalar::Long => integer(i64::MIN, i64::MAX),
            Scalar::Float => {
                let v: f32 = text.parse().map_err(|_| bad(""))?;
                Ok(Value::Float(f64::from(v)))
            }
            Scalar::Double => text.parse().map(Value::Float).map_err(|_| bad("")),
            Scalar::Boolean => {
                if text.eq_ignore_ascii_case("true") {
                    Ok(Value::Bool(true))
                } else if text.eq_ignore_ascii_case("false") {
                    Ok(Value::Bool(false))
                } else {
                    Err(bad("expected true or false"))
                }
            }
            Scalar::Char => {
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Ok(Value::String(Arc::from(c.to_string()))),
                    _ => Err(bad("expected one character")),
                }
            }
            Scalar::String => Ok(Value::String(Arc::from(raw))),
            Scalar::Date => parse_date(text)
                .map(Value::Date)
                .map_err(|e| bad(&e.message)),
            Scalar::LocalTime => parse_local_time(text)
                .map(Value::LocalTime)
                .map_err(|e| bad(&e.message)),
            Scalar::Time => parse_time(text, 0)
                .map(Value::Time)
                .map_err(|e| bad(&e.message)),
            Scalar::LocalDateTime => parse_local_date_time(text)
                .map(Value::LocalDateTime)
                .map_err(|e| bad(&e.message)),
            Scalar::DateTime => parse_date_time(text, &TimeZone::Offset(0))
                .map(|d| Value::DateTime(Box::new(d)))
                .map_err(|e| bad(&e.message)),
            Scalar::Duration => parse_duration(text)
                .map(|d| Value::Duration(Box::new(d)))
                .map_err(|e| bad(&e.message)),
            Scalar::Point => parse_point(text).map_err(|e| bad(&e)),
        }
    }
}

/// A column's type: one value, or an array of values split by the array delimiter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldType {
    pub scalar: Scalar,
    pub array: bool,
}

impl FieldType {
    /// `int`, `int[]`, `string`, ...; `None` for an unknown type.
    pub fn parse(spec: &str) -> Option<FieldType> {
        let (name, array) = match spec.strip_suffix("[]") {
            Some(name) => (name, true),
            None => (spec, false),
        };
        Some(FieldType {
            scalar: Scalar::parse(name)?,
            array,
        })
    }

    /// The value of a non-empty field. An array's elements are split on `array_delimiter`
    /// and converted one by one; an element's error names its position.
    pub fn convert(self, raw: &str, array_delimiter: char) -> Result<Value, String> {
        if !self.array {
            return self.scalar.convert(raw);
        }
        let items = raw
            .split(array_delimiter)
            .enumerate()
            .map(|(i, item)| {
                self.scalar
                    .convert(item)
                    .map_err(|e| format!("array element {}: {e}", i + 1))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Value::List(items.into()))
    }
}

/// Longest point text read: a point has at most four short entries.
const POINT_TEXT_BYTES_MAX: usize = 256;

/// `{key: value, ...}` with numeric coordinates and a quoted (or bare) `crs`.
fn parse_point(text: &str) -> Result<Value, String> {
    if text.len() > POINT_TEXT_BYTES_MAX {
        return Err("text too long for a point".to_string());
    }
    let inner = text
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or("expected a map such as {x: 1, y: 2}")?;
    let mut entries: Vec<(String, Value)> = Vec::new();
    for entry in inner.split(',') {
        let (key, value) = entry
            .split_once(':')
            .ok_or_else(|| format!("entry `{}` has no `:`", entry.trim()))?;
        let key = unquote(key.trim());
        let value = value.trim();
        let value = match value.parse::<f64>() {
            Ok(n) if key.eq_ignore_ascii_case("srid") && n.fract() == 0.0 => Value::Int(n as i64),
            Ok(n) => Value::Float(n),
            Err(_) => Value::String(Arc::from(unquote(value))),
        };
        entries.push((key.to_string(), value));
    }
    match quiver_value::spatial::point_from_map(entries.iter().map(|(k, v)| (k.as_str(), v))) {
        Ok(Some(p)) => Ok(Value::Point(Box::new(p))),
        Ok(None) => Err("a coordinate is null".to_string()),
        Err(e) => Err(e.message),
    }
}

fn unquote(s: &str) -> &str {
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(spec: &str, raw: &str) -> Result<Value, String> {
        FieldType::parse(spec).expect("type").convert(raw, ';')
    }

    #[test]
    fn integers_keep_their_java_width() {
        assert_eq!(conv("int", " 42 "), Ok(Value::Int(42)));
        assert_eq!(conv("byte", "-128"), Ok(Value::Int(-128)));
        assert!(conv("byte", "128").unwrap_err().contains("out of range"));
        assert!(conv("short", "40000").is_err());
        assert!(conv("int", "2147483648").is_err());
        assert_eq!(
            conv("long", "9223372036854775807"),
            Ok(Value::Int(i64::MAX))
        );
        assert!(
            conv("long", "1.5")
                .unwrap_err()
                .contains("`1.5` is not a valid long")
        );
    }

    #[test]
    fn floats_round_to_32_bits_and_doubles_do_not() {
        assert_eq!(conv("float", "0.1"), Ok(Value::Float(f64::from(0.1f32))));
        assert_eq!(conv("double", "0.1"), Ok(Value::Float(0.1)));
        assert!(conv("double", "x").is_err());
    }

    #[test]
    fn booleans_are_strict() {
        assert_eq!(conv("boolean", "TRUE"), Ok(Value::Bool(true)));
        assert_eq!(conv("boolean", "false"), Ok(Value::Bool(false)));
        assert!(conv("boolean", "yes").is_err());
    }

    #[test]
    fn strings_are_kept_whole_and_arrays_split() {
        assert_eq!(conv("string", " a b "), Ok(Value::from(" a b ")));
        assert_eq!(
            conv("int[]", "1;2;3"),
            Ok(Value::List(
                vec![Value::Int(1), Value::Int(2), Value::Int(3)].into()
            ))
        );
        assert!(
            conv("int[]", "1;x")
                .unwrap_err()
                .contains("array element 2")
        );
        assert_eq!(
            conv("string[]", "a;b"),
            Ok(Value::List(vec![Value::from("a"), Value::from("b")].into()))
        );
    }

    #[test]
    fn temporals_and_points_parse() {
        assert!(matches!(conv("date", "2020-02-29"), Ok(Value::Date(_))));
        assert!(conv("date", "2021-02-29").is_err());
        assert!(matches!(
            conv("localtime", "12:30"),
            Ok(Value::LocalTime(_))
        ));
        assert!(matches!(conv("time", "12:30+01:00"), Ok(Value::Time(_))));
        assert!(matches!(
            conv("localdatetime", "2020-01-01T10:00"),
            Ok(Value::LocalDateTime(_))
        ));
        assert!(matches!(
            conv("datetime", "2020-01-01T10:00Z"),
            Ok(Value::DateTime(_))
        ));
        assert!(matches!(conv("duration", "P1DT2H"), Ok(Value::Duration(_))));
        let Ok(Value::Point(p)) = conv("point", "{latitude: 55.5, longitude: 12.5, crs: 'WGS-84'}")
        else {
            panic!("a point")
        };
        assert_eq!((p.x, p.y, p.srid), (12.5, 55.5, 4326));
        assert!(conv("point", "{x: 1}").is_err());
        assert!(conv("point", "1,2").is_err());
    }

    #[test]
    fn unknown_types_are_refused() {
        assert!(FieldType::parse("integer").is_none());
        assert!(FieldType::parse("INT").is_some());
    }
}
