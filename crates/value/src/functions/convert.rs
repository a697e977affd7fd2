//! Type conversion functions: `toInteger`, `toFloat`, `toBoolean`, `toString`, their
//! `...OrNull` variants that return `null` instead of failing, and the list forms.
//!
//! Strings that do not hold a value of the target type convert to `null`; values of types
//! that cannot convert at all (a list to an integer, a float to a boolean) are type errors.

use super::{FunctionContext, arg};
use crate::display::{has_string_form, to_string_cypher};
use crate::error::{Result, ValueError};
use crate::value::Value;

fn cannot_convert(function: &str, v: &Value) -> ValueError {
    ValueError::invalid_value_type(format!(
        "Function '{function}' cannot convert a {}",
        v.value_type()
    ))
}

/// A float truncated to an integer as Java casts: saturating, `NaN` to zero.
fn float_to_int(f: f64) -> i64 {
    f as i64
}

/// Parses an integer from text: an integer literal, or failing that a float (truncated).
fn parse_integer(text: &str) -> Option<i64> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(i);
    }
    parse_float(text).map(float_to_int)
}

/// Parses a float from text, ignoring surrounding whitespace.
fn parse_float(text: &str) -> Option<f64> {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.len() > FLOAT_TEXT_BYTES_MAX {
        return None;
    }
    // Accept Java's spellings of the special values, not Rust's (`inf`).
    let lower = trimmed.trim_start_matches(['+', '-']).to_ascii_lowercase();
    if lower.starts_with("inf") && lower != "infinity" {
        return None;
    }
    trimmed.parse::<f64>().ok()
}

/// Numeric strings longer than this are refused rather than parsed.
const FLOAT_TEXT_BYTES_MAX: usize = 1024;

fn integer_of(function: &str, v: &Value) -> Result<Option<i64>> {
    Ok(match v {
        Value::Null => None,
        Value::Int(i) => Some(*i),
        Value::Float(f) => Some(float_to_int(*f)),
        Value::Bool(b) => Some(i64::from(*b)),
        Value::String(s) => parse_integer(s),
        other => return Err(cannot_convert(function, other)),
    })
}

fn float_of(function: &str, v: &Value) -> Result<Option<f64>> {
    Ok(match v {
        Value::Null => None,
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::String(s) => parse_float(s),
        other => return Err(cannot_convert(function, other)),
    })
}

fn boolean_of(function: &str, v: &Value) -> Result<Option<bool>> {
    Ok(match v {
        Value::Null => None,
        Value::Bool(b) => Some(*b),
        Value::Int(i) => Some(*i != 0),
        Value::String(s) => {
            let t = s.trim();
            if t.eq_ignore_ascii_case("true") {
                Some(true)
            } else if t.eq_ignore_ascii_case("false") {
                Some(false)
            } else {
                None
            }
        }
        other => return Err(cannot_convert(function, other)),
    })
}

fn string_of(function: &str, v: &Value) -> Result<Option<String>> {
    match v {
        Value::Null => Ok(None),
        other if has_string_form(other) => Ok(Some(to_string_cypher(other))),
        other => Err(cannot_convert(function, other)),
    }
}

pub fn to_integer(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(integer_of("toInteger", arg(args, 0))?.map_or(Value::Null, Value::Int))
}

pub fn to_integer_or_null(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(integer_of("toIntegerOrNull", arg(args, 0))
        .ok()
        .flatten()
        .map_or(Value::Null, Value::Int))
}

pub fn to_float(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(float_of("toFloat", arg(args, 0))?.map_or(Value::Null, Value::Float))
}

pub fn to_float_or_null(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(float_of("toFloatOrNull", arg(args, 0))
        .ok()
        .flatten()
        .map_or(Value::Null, Value::Float))
}

pub fn to_boolean(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(boolean_of("toBoolean", arg(args, 0))?.map_or(Value::Null, Value::Bool))
}

pub fn to_boolean_or_null(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(boolean_of("toBooleanOrNull", arg(args, 0))
        .ok()
        .flatten()
        .map_or(Value::Null, Value::Bool))
}

pub fn to_string(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(string_of("toString", arg(args, 0))?.map_or(Value::Null, Value::from))
}

pub fn to_string_or_null(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(string_of("toStringOrNull", arg(args, 0))
        .ok()
        .flatten()
        .map_or(Value::Null, Value::from))
}

/// `toIntegerList` and `toFloatList` also take a vector: its coordinates, converted.
fn numbers_of(function: &str, v: &Value, convert: impl Fn(&Value) -> Value) -> Result<Value> {
    match v {
        Value::Vector(vector) => Ok(Value::from(
            vector.values().map(|c| convert(&c)).collect::<Vec<_>>(),
        )),
        other => list_of(function, other, convert),
    }
}

/// Converts each element of a list with `convert`, elements that do not convert becoming
/// `null`; a `null` list gives `null`.
fn list_of(function: &str, v: &Value, convert: impl Fn(&Value) -> Value) -> Result<Value> {
    match v {
        Value::Null => Ok(Value::Null),
        Value::List(items) => Ok(Value::from(items.iter().map(convert).collect::<Vec<_>>())),
        other => Err(ValueError::invalid_type(format!(
            "Function '{function}' expects a List, got {}",
            other.value_type()
        ))),
    }
}

pub fn to_integer_list(args: &[Value], _: &FunctionContext) -> Result<Value> {
    numbers_of("toIntegerList", arg(args, 0), |v| {
        integer_of("toIntegerList", v)
            .ok()
            .flatten()
            .map_or(Value::Null, Value::Int)
    })
}

pub fn to_float_list(args: &[Value], _: &FunctionContext) -> Result<Value> {
    numbers_of("toFloatList", arg(args, 0), |v| {
        float_of("toFloatList", v)
            .ok()
            .flatten()
            .map_or(Value::Null, Value::Float)
    })
}

pub fn to_boolean_list(args: &[Value], _: &FunctionContext) -> Result<Value> {
    list_of("toBooleanList", arg(args, 0), |v| {
        boolean_of("toBooleanList", v)
            .ok()
            .flatten()
            .map_or(Value::Null, Value::Bool)
    })
}

pub fn to_string_list(args: &[Value], _: &FunctionContext) -> Result<Value> {
    list_of("toStringList", arg(args, 0), |v| {
        string_of("toStringList", v)
            .ok()
            .flatten()
            .map_or(Value::Null, Value::from)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorClass;

    fn run(f: fn(&[Value], &FunctionContext) -> Result<Value>, v: Value) -> Result<Value> {
        f(&[v], &FunctionContext::new())
    }

    #[test]
    fn to_boolean_follows_the_tck() {
        // TypeConversion1.
        assert_eq!(
            run(to_boolean, Value::from("true")).unwrap(),
            Value::Bool(true)
        );
        assert_eq!(
            run(to_boolean, Value::from("false")).unwrap(),
            Value::Bool(false)
        );
        for s in ["", " tru ", "f alse"] {
            assert_eq!(run(to_boolean, Value::from(s)).unwrap(), Value::Null);
        }
        assert_eq!(run(to_boolean, Value::Null).unwrap(), Value::Null);
        assert_eq!(run(to_boolean, Value::Int(0)).unwrap(), Value::Bool(false));
        for bad in [
            Value::from(Vec::new()),
            Value::map(crate::Map::new()),
            Value::Float(1.0),
        ] {
            let err = run(to_boolean, bad.clone()).unwrap_err();
            assert_eq!(
                (err.class, err.detail),
                (
                    ErrorClass::TypeError,
                    crate::ErrorDetail::InvalidArgumentValue
                )
            );
            assert_eq!(run(to_boolean_or_null, bad).unwrap(), Value::Null);
        }
    }

    #[test]
    fn to_float_follows_the_tck() {
        // TypeConversion3.
        assert_eq!(run(to_float, Value::Int(3)).unwrap(), Value::Float(3.0));
        assert_eq!(run(to_float, Value::from("5")).unwrap(), Value::Float(5.0));
        assert_eq!(run(to_float, Value::from("foo")).unwrap(), Value::Null);
        assert_eq!(run(to_float, Value::from("")).unwrap(), Value::Null);
        assert_eq!(run(to_float, Value::from("inf")).unwrap(), Value::Null);
        assert!(run(to_float, Value::Bool(true)).is_err());
        let list = Value::from(vec![Value::from("1"), Value::from("2"), Value::from("foo")]);
        assert_eq!(
            run(to_float_list, list).unwrap(),
            Value::from(vec![Value::Float(1.0), Value::Float(2.0), Value::Null])
        );
    }

    #[test]
    fn to_integer() {
        assert_eq!(
            run(super::to_integer, Value::from("42")).unwrap(),
            Value::Int(42)
        );
        assert_eq!(
            run(super::to_integer, Value::from("42.9")).unwrap(),
            Value::Int(42)
        );
        assert_eq!(
            run(super::to_integer, Value::from(" 7 ")).unwrap(),
            Value::Int(7)
        );
        assert_eq!(
            run(super::to_integer, Value::Float(-2.9)).unwrap(),
            Value::Int(-2)
        );
        assert_eq!(
            run(super::to_integer, Value::Bool(true)).unwrap(),
            Value::Int(1)
        );
        assert_eq!(
            run(super::to_integer, Value::from("x")).unwrap(),
            Value::Null
        );
        assert!(run(super::to_integer, Value::from(Vec::new())).is_err());
        assert_eq!(
            run(to_integer_or_null, Value::from(Vec::new())).unwrap(),
            Value::Null
        );
        let list = Value::from(vec![
            Value::from("1"),
            Value::Float(2.5),
            Value::from(Vec::new()),
        ]);
        assert_eq!(
            run(to_integer_list, list).unwrap(),
            Value::from(vec![Value::Int(1), Value::Int(2), Value::Null])
        );
    }

    #[test]
    fn to_string_renders_scalars() {
        assert_eq!(
            run(super::to_string, Value::Float(1.0)).unwrap(),
            Value::from("1.0")
        );
        assert_eq!(
            run(super::to_string, Value::Int(-3)).unwrap(),
            Value::from("-3")
        );
        assert_eq!(
            run(super::to_string, Value::Bool(false)).unwrap(),
            Value::from("false")
        );
        assert!(run(super::to_string, Value::from(Vec::new())).is_err());
        assert_eq!(
            run(to_string_or_null, Value::from(Vec::new())).unwrap(),
            Value::Null
        );
        let list = Value::from(vec![Value::Int(1), Value::from(Vec::new())]);
        assert_eq!(
            run(to_string_list, list).unwrap(),
            Value::from(vec![Value::from("1"), Value::Null])
        );
    }
}
