//! The engine's own pure functions ([`ScalarFn`]): `valueType`, `normalize` and the vector
//! similarity functions. Each returns `null` for a `null` argument.

use quiver_value::Value;
use unicode_normalization::UnicodeNormalization;

use super::Cx;
use super::types::value_type_name;
use crate::error::{Error, Result, code};
use crate::ir::{Expr, Row, ScalarFn};

/// Evaluates the arguments, then the function.
pub(super) fn eval(f: ScalarFn, args: &[Expr], row: &mut Row, cx: &mut Cx) -> Result<Value> {
    match f {
        ScalarFn::LineNumber => {
            return Ok(cx
                .load_csv
                .as_ref()
                .map_or(Value::Null, |p| Value::Int(p.line)));
        }
        ScalarFn::File => {
            return Ok(cx
                .load_csv
                .as_ref()
                .map_or(Value::Null, |p| Value::String(p.file.clone())));
        }
        _ => {}
    }
    let mut values = Vec::with_capacity(args.len());
    for a in args {
        values.push(a.eval(row, cx)?);
    }
    call(f, &values)
}

fn call(f: ScalarFn, args: &[Value]) -> Result<Value> {
    match f {
        ScalarFn::ValueType => Ok(Value::from(value_type_name(
            args.first().unwrap_or(&Value::Null),
        ))),
        ScalarFn::Normalize => normalize(args),
        ScalarFn::VectorCosine | ScalarFn::VectorEuclidean => vector_similarity(f, args),
        ScalarFn::LineNumber | ScalarFn::File => Ok(Value::Null),
    }
}

/// `normalize(s[, form])`: Unicode normalization, NFC unless another form (`NFD`, `NFKC`,
/// `NFKD`) is named.
fn normalize(args: &[Value]) -> Result<Value> {
    let (text, form) = match args {
        [Value::Null, ..] | [_, Value::Null] => return Ok(Value::Null),
        [Value::String(s)] => (s, "NFC"),
        [Value::String(s), Value::String(form)] => (s, &**form),
        [other, ..] if !matches!(other, Value::String(_)) => {
            return Err(Error::type_error(format!(
                "Function 'normalize' expects a String, got {}",
                other.value_type()
            )));
        }
        _ => {
            return Err(Error::runtime(
                code::ARGUMENT_ERROR,
                Some("InvalidArgumentValue"),
                "Function 'normalize' expects a normal form of NFC, NFD, NFKC or NFKD",
            ));
        }
    };
    let out: String = if form.eq_ignore_ascii_case("NFC") {
        text.nfc().collect()
    } else if form.eq_ignore_ascii_case("NFD") {
        text.nfd().collect()
    } else if form.eq_ignore_ascii_case("NFKC") {
        text.nfkc().collect()
    } else if form.eq_ignore_ascii_case("NFKD") {
        text.nfkd().collect()
    } else {
        return Err(Error::runtime(
            code::ARGUMENT_ERROR,
            Some("InvalidArgumentValue"),
            format!("Unknown normal form '{form}': expected NFC, NFD, NFKC or NFKD"),
        ));
    };
    Ok(Value::from(out))
}

/// `vector.similarity.euclidean(a, b)` is `1 / (1 + d²)` for the squared Euclidean distance
/// `d²`; `vector.similarity.cosine(a, b)` is `(1 + cos θ) / 2`; both lie in `[0, 1]`, 1 for
/// the most similar. The vectors are `VECTOR`s or lists of numbers, of one dimension; a zero
/// vector has no direction, so its cosine similarity is `null`.
fn vector_similarity(f: ScalarFn, args: &[Value]) -> Result<Value> {
    let [a, b] = args else {
        return Ok(Value::Null);
    };
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    let a = numbers(f, a)?;
    let b = numbers(f, b)?;
    if a.len() != b.len() || a.is_empty() {
        return Err(Error::runtime(
            code::ARGUMENT_ERROR,
            Some("InvalidArgumentValue"),
            format!(
                "Function '{}' expects two vectors of one non-zero dimension, got {} and {}",
                f.name(),
                a.len(),
                b.len()
            ),
        ));
    }
    let pairs = a.iter().zip(&b);
    let similarity = if f == ScalarFn::VectorEuclidean {
        let squared: f64 = pairs.map(|(x, y)| (x - y) * (x - y)).sum();
        1.0 / (1.0 + squared)
    } else {
        let dot: f64 = pairs.map(|(x, y)| x * y).sum();
        let norms = a.iter().map(|x| x * x).sum::<f64>().sqrt()
            * b.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norms == 0.0 {
            return Ok(Value::Null);
        }
        f64::midpoint(1.0, (dot / norms).clamp(-1.0, 1.0))
    };
    Ok(Value::Float(similarity))
}

/// A vector argument's elements as floats.
fn numbers(f: ScalarFn, v: &Value) -> Result<Vec<f64>> {
    if let Value::Vector(vector) = v {
        return Ok(vector.to_f64_vec());
    }
    let Value::List(items) = v else {
        return Err(Error::type_error(format!(
            "Function '{}' expects a Vector or a List of numbers, got {}",
            f.name(),
            v.value_type()
        )));
    };
    items
        .iter()
        .map(|item| match item {
            Value::Int(i) => Ok(*i as f64),
            Value::Float(x) => Ok(*x),
            other => Err(Error::type_error(format!(
                "Function '{}' expects a List of numbers, got an element of type {}",
                f.name(),
                other.value_type()
            ))),
        })
        .collect()
}
