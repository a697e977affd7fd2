//! `vector()`, the `VECTOR` constructor, and `vector_dimension_count()`.

use std::sync::Arc;

use super::{FunctionContext, arg, bad_argument};
use crate::error::{Result, ValueError};
use crate::value::Value;
use crate::vector::{CoordinateType, VECTOR_DIMENSION_MAX, Vector};

/// `vector(value, dimension, coordinateType)`: `value` is a list of numbers or their text
/// (`'[1, 2.5]'`), `dimension` the number of coordinates it must have (1 to 4096) and
/// `coordinateType` a type name (`FLOAT32`, `INTEGER8`, ...; the parser turns the bare name
/// Cypher writes into its text). A `null` value or dimension gives `null`; coordinates are
/// coerced to the type, and `null`, NaN, infinities and integers that do not fit fail.
pub fn vector(args: &[Value], _: &FunctionContext) -> Result<Value> {
    let (value, dimension, coordinate_type) = (arg(args, 0), arg(args, 1), arg(args, 2));
    let coordinate_type = match coordinate_type {
        Value::String(name) => CoordinateType::parse(name).ok_or_else(|| {
            let shown: String = name.chars().take(64).collect();
            ValueError::invalid_value(format!(
                "Function 'vector' expects a coordinate type of INTEGER64, INTEGER32, \
                 INTEGER16, INTEGER8, FLOAT64 or FLOAT32, got '{shown}'"
            ))
        })?,
        other => return Err(bad_argument("vector", "a coordinate type", other)),
    };
    if value.is_null() || dimension.is_null() {
        return Ok(Value::Null);
    }
    let Value::Int(dimension) = dimension else {
        return Err(bad_argument("vector", "an Integer dimension", dimension));
    };
    let dimension = usize::try_from(*dimension)
        .ok()
        .filter(|d| (1..=VECTOR_DIMENSION_MAX).contains(d))
        .ok_or_else(|| {
            ValueError::invalid_value(format!(
                "Function 'vector' expects a dimension from 1 to {VECTOR_DIMENSION_MAX}, \
                 got {dimension}"
            ))
        })?;
    let built = match value {
        Value::List(items) => Vector::from_values(items, coordinate_type),
        Value::String(text) => Vector::parse_text(text, coordinate_type),
        other => {
            return Err(bad_argument(
                "vector",
                "a List of numbers or a String",
                other,
            ));
        }
    }
    .map_err(|e| ValueError::invalid_value(format!("Function 'vector': {e}")))?;
    if built.len() != dimension {
        return Err(ValueError::invalid_value(format!(
            "Function 'vector' was given {} coordinates for a vector of dimension {dimension}",
            built.len()
        )));
    }
    Ok(Value::Vector(Arc::new(built)))
}

/// `vector_dimension_count(v)`: a vector's number of coordinates.
pub fn vector_dimension_count(args: &[Value], _: &FunctionContext) -> Result<Value> {
    match arg(args, 0) {
        Value::Null => Ok(Value::Null),
        Value::Vector(v) => Ok(Value::Int(v.len() as i64)),
        other => Err(bad_argument("vector_dimension_count", "a Vector", other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorClass;

    fn call(args: &[Value]) -> Result<Value> {
        vector(args, &FunctionContext::new())
    }

    fn ints(items: &[i64]) -> Value {
        Value::from(items.iter().map(|i| Value::Int(*i)).collect::<Vec<_>>())
    }

    #[test]
    fn builds_from_lists_and_text() {
        let v = call(&[ints(&[1, 2, 3]), Value::Int(3), Value::from("FLOAT32")]).unwrap();
        let Value::Vector(v) = v else { panic!() };
        assert_eq!(v.coordinate_type(), CoordinateType::Float32);
        assert_eq!(v.to_f64_vec(), [1.0, 2.0, 3.0]);
        let t = call(&[Value::from("[1, 2]"), Value::Int(2), Value::from("INT8")]).unwrap();
        assert_eq!(crate::to_string_cypher(&t), "vector([1, 2], 2, INTEGER8)");
    }

    #[test]
    fn nulls_and_refusals() {
        let f = Value::from("FLOAT");
        assert_eq!(
            call(&[Value::Null, Value::Int(3), f.clone()]).unwrap(),
            Value::Null
        );
        assert_eq!(
            call(&[ints(&[1]), Value::Null, f.clone()]).unwrap(),
            Value::Null
        );
        for bad in [
            vec![ints(&[1, 2]), Value::Int(3), f.clone()],
            vec![ints(&[]), Value::Int(0), f.clone()],
            vec![ints(&[1]), Value::Int(1), Value::from("FLOAT16")],
            vec![ints(&[300]), Value::Int(1), Value::from("INTEGER8")],
            vec![Value::from(vec![Value::Null]), Value::Int(1), f.clone()],
        ] {
            assert_eq!(
                call(&bad).unwrap_err().class,
                ErrorClass::ArgumentError,
                "{bad:?}"
            );
        }
        assert_eq!(
            call(&[Value::Int(1), Value::Int(1), f]).unwrap_err().class,
            ErrorClass::TypeError
        );
    }
}
