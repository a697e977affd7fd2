//! The engine's own pure functions ([`ScalarFn`]): `valueType`, `normalize`, the vector
//! similarity functions, `vector_distance` and `vector_norm`. Each returns `null` for a `null`
//! argument.

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
        ScalarFn::VectorDistance => vector_distance(args),
        ScalarFn::VectorNorm => vector_norm(args),
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

/// The metrics of `vector_distance` (all of them) and `vector_norm` (`EUCLIDEAN` and
/// `MANHATTAN`), as Neo4j names them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Metric {
    Euclidean,
    EuclideanSquared,
    Manhattan,
    Cosine,
    Dot,
    Hamming,
}

impl Metric {
    const ALL: [(&'static str, Metric); 6] = [
        ("EUCLIDEAN", Metric::Euclidean),
        ("EUCLIDEAN_SQUARED", Metric::EuclideanSquared),
        ("MANHATTAN", Metric::Manhattan),
        ("COSINE", Metric::Cosine),
        ("DOT", Metric::Dot),
        ("HAMMING", Metric::Hamming),
    ];

    /// Reads the metric argument of `function` (a name, any case), one of `allowed`.
    fn read(function: &str, v: &Value, allowed: &[Metric]) -> Result<Metric> {
        let names = || {
            Metric::ALL
                .iter()
                .filter(|(_, m)| allowed.contains(m))
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Value::String(name) = v else {
            return Err(Error::type_error(format!(
                "Function '{function}' expects a metric name ({}), got {}",
                names(),
                v.value_type()
            )));
        };
        Metric::ALL
            .iter()
            .find(|(n, m)| n.eq_ignore_ascii_case(name) && allowed.contains(m))
            .map(|(_, m)| *m)
            .ok_or_else(|| {
                Error::runtime(
                    code::ARGUMENT_ERROR,
                    Some("InvalidArgumentValue"),
                    format!(
                        "Function '{function}' does not know the metric '{name}': expected one of {}",
                        names()
                    ),
                )
            })
    }
}

/// A `VECTOR` argument's coordinates as floats; anything else (a list too: these functions
/// take vectors, as in Neo4j) is a type error naming the function.
fn vector_argument(function: &str, v: &Value) -> Result<Vec<f64>> {
    match v {
        Value::Vector(vector) => Ok(vector.to_f64_vec()),
        other => Err(Error::type_error(format!(
            "Function '{function}' expects a Vector, got {}",
            other.value_type()
        ))),
    }
}

/// `vector_distance(a, b, metric)`: how far apart two vectors of one dimension are, the
/// smaller the closer. `EUCLIDEAN` is `√Σ(aᵢ−bᵢ)²`, `EUCLIDEAN_SQUARED` `Σ(aᵢ−bᵢ)²`,
/// `MANHATTAN` `Σ|aᵢ−bᵢ|`, `COSINE` `1 − cos θ` (`null` for a zero vector, which has no
/// direction), `DOT` the negated dot product `−Σaᵢbᵢ` (so that a larger product is closer),
/// `HAMMING` the number of coordinates that differ. The coordinate types may differ: the
/// coordinates are compared as numbers.
fn vector_distance(args: &[Value]) -> Result<Value> {
    const NAME: &str = "vector_distance";
    let [a, b, metric] = args else {
        return Ok(Value::Null);
    };
    if a.is_null() || b.is_null() || metric.is_null() {
        return Ok(Value::Null);
    }
    let a = vector_argument(NAME, a)?;
    let b = vector_argument(NAME, b)?;
    let metric = Metric::read(NAME, metric, &Metric::ALL.map(|(_, m)| m))?;
    if a.len() != b.len() {
        return Err(Error::runtime(
            code::ARGUMENT_ERROR,
            Some("InvalidArgumentValue"),
            format!(
                "Function '{NAME}' expects two vectors of one dimension, got {} and {}",
                a.len(),
                b.len()
            ),
        ));
    }
    let pairs = a.iter().zip(&b);
    let distance = match metric {
        Metric::Euclidean => pairs.map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt(),
        Metric::EuclideanSquared => pairs.map(|(x, y)| (x - y) * (x - y)).sum(),
        Metric::Manhattan => pairs.map(|(x, y)| (x - y).abs()).sum(),
        Metric::Dot => -pairs.map(|(x, y)| x * y).sum::<f64>(),
        Metric::Hamming => pairs.filter(|(x, y)| x != y).count() as f64,
        Metric::Cosine => {
            let dot: f64 = pairs.map(|(x, y)| x * y).sum();
            let norms = euclidean_norm(&a) * euclidean_norm(&b);
            if norms == 0.0 {
                return Ok(Value::Null);
            }
            1.0 - (dot / norms).clamp(-1.0, 1.0)
        }
    };
    Ok(Value::Float(distance))
}

fn euclidean_norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// `vector_norm(v, metric)`: a vector's distance from the origin, `EUCLIDEAN` (`√Σvᵢ²`) or
/// `MANHATTAN` (`Σ|vᵢ|`); the other metrics measure no length and are refused.
fn vector_norm(args: &[Value]) -> Result<Value> {
    const NAME: &str = "vector_norm";
    let [v, metric] = args else {
        return Ok(Value::Null);
    };
    if v.is_null() || metric.is_null() {
        return Ok(Value::Null);
    }
    let v = vector_argument(NAME, v)?;
    let norm = match Metric::read(NAME, metric, &[Metric::Euclidean, Metric::Manhattan])? {
        Metric::Manhattan => v.iter().map(|x| x.abs()).sum(),
        _ => euclidean_norm(&v),
    };
    Ok(Value::Float(norm))
}
