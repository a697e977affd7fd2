//! Cypher's operators on values: arithmetic, three-valued logic, list membership and string
//! predicates.
//!
//! Arithmetic propagates `null`. Integer arithmetic is checked: overflow and integer division
//! by zero are errors, integer division truncates toward zero. Mixing an integer with a float
//! gives a float, and floats follow IEEE-754 (`1.0 / 0` is infinity). `^` always yields a float.
//! `+` also concatenates strings (with any scalar on the other side rendered by `toString`) and
//! lists (appending or prepending a non-list), and adds durations to temporals.

use crate::compare::equals;
use crate::display::{has_string_form, to_string_cypher};
use crate::error::{Result, ValueError};
use crate::temporal::arith::{add_duration, sub_duration};
use crate::temporal::{Duration, Temporal};
use crate::value::Value;

fn type_error(op: &str, a: &Value, b: &Value) -> ValueError {
    ValueError::invalid_type(format!(
        "Cannot apply '{op}' to {} and {}",
        a.value_type(),
        b.value_type()
    ))
}

fn overflow(op: &str) -> ValueError {
    ValueError::overflow(format!("integer overflow in '{op}'"))
}

/// A number as a float, for mixed arithmetic.
fn as_float(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn is_number(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Float(_))
}

/// Applies an operator to two numbers: `int_op` for two integers, `float_op` otherwise.
fn numeric(
    a: &Value,
    b: &Value,
    int_op: impl Fn(i64, i64) -> Result<Value>,
    float_op: impl Fn(f64, f64) -> f64,
) -> Option<Result<Value>> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(int_op(*x, *y)),
        _ => Some(Ok(Value::Float(float_op(as_float(a)?, as_float(b)?)))),
    }
}

fn duration_of(v: &Value) -> Option<&Duration> {
    match v {
        Value::Duration(d) => Some(d),
        _ => None,
    }
}

/// `a + b`.
pub fn add(a: &Value, b: &Value) -> Result<Value> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x
            .checked_add(*y)
            .map(Value::Int)
            .ok_or_else(|| overflow("+")),
        (Value::Float(x), Value::Float(y)) => Ok(Value::Float(x + y)),
        (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
        (Value::List(x), Value::List(y)) => {
            let mut items = Vec::with_capacity(x.len() + y.len());
            items.extend(x.iter().cloned());
            items.extend(y.iter().cloned());
            Ok(Value::from(items))
        }
        (Value::List(x), other) => {
            let mut items = Vec::with_capacity(x.len() + 1);
            items.extend(x.iter().cloned());
            items.push(other.clone());
            Ok(Value::from(items))
        }
        (other, Value::List(y)) => {
            let mut items = Vec::with_capacity(y.len() + 1);
            items.push(other.clone());
            items.extend(y.iter().cloned());
            Ok(Value::from(items))
        }
        (Value::String(x), Value::String(y)) => Ok(Value::from(format!("{x}{y}"))),
        (Value::String(x), other) if has_string_form(other) => {
            Ok(Value::from(format!("{x}{}", to_string_cypher(other))))
        }
        (other, Value::String(y)) if has_string_form(other) => {
            Ok(Value::from(format!("{}{y}", to_string_cypher(other))))
        }
        (Value::Duration(x), Value::Duration(y)) => {
            Ok(Value::Duration(Box::new(x.checked_add(y)?)))
        }
        _ if is_number(a) && is_number(b) => numeric(
            a,
            b,
            |x, y| {
                x.checked_add(y)
                    .map(Value::Int)
                    .ok_or_else(|| overflow("+"))
            },
            |x, y| x + y,
        )
        .unwrap_or_else(|| Err(type_error("+", a, b))),
        _ => {
            if let (Some(t), Some(d)) = (Temporal::from_value(a), duration_of(b)) {
                return Ok(add_duration(&t, d)?.into_value());
            }
            if let (Some(d), Some(t)) = (duration_of(a), Temporal::from_value(b)) {
                return Ok(add_duration(&t, d)?.into_value());
            }
            Err(type_error("+", a, b))
        }
    }
}

/// `a - b`.
pub fn subtract(a: &Value, b: &Value) -> Result<Value> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x
            .checked_sub(*y)
            .map(Value::Int)
            .ok_or_else(|| overflow("-")),
        (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
        (Value::Duration(x), Value::Duration(y)) => {
            Ok(Value::Duration(Box::new(x.checked_sub(y)?)))
        }
        _ if is_number(a) && is_number(b) => numeric(
            a,
            b,
            |x, y| {
                x.checked_sub(y)
                    .map(Value::Int)
                    .ok_or_else(|| overflow("-"))
            },
            |x, y| x - y,
        )
        .unwrap_or_else(|| Err(type_error("-", a, b))),
        _ => match (Temporal::from_value(a), duration_of(b)) {
            (Some(t), Some(d)) => Ok(sub_duration(&t, d)?.into_value()),
            _ => Err(type_error("-", a, b)),
        },
    }
}

/// `a * b`.
pub fn multiply(a: &Value, b: &Value) -> Result<Value> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
        (Value::Duration(d), Value::Int(i)) | (Value::Int(i), Value::Duration(d)) => {
            Ok(Value::Duration(Box::new(d.mul_int(*i)?)))
        }
        (Value::Duration(d), Value::Float(f)) | (Value::Float(f), Value::Duration(d)) => {
            Ok(Value::Duration(Box::new(d.mul_float(*f)?)))
        }
        _ => numeric(
            a,
            b,
            |x, y| {
                x.checked_mul(y)
                    .map(Value::Int)
                    .ok_or_else(|| overflow("*"))
            },
            |x, y| x * y,
        )
        .unwrap_or_else(|| Err(type_error("*", a, b))),
    }
}

/// `a / b`: integer division truncates; an integer divided by integer zero is an error.
pub fn divide(a: &Value, b: &Value) -> Result<Value> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
        (Value::Duration(d), other) if is_number(other) => {
            let divisor = as_float(other).unwrap_or(f64::NAN);
            Ok(Value::Duration(Box::new(d.div_float(divisor)?)))
        }
        _ => numeric(
            a,
            b,
            |x, y| {
                if y == 0 {
                    return Err(ValueError::division_by_zero());
                }
                x.checked_div(y)
                    .map(Value::Int)
                    .ok_or_else(|| overflow("/"))
            },
            |x, y| x / y,
        )
        .unwrap_or_else(|| Err(type_error("/", a, b))),
    }
}

/// `a % b`: the remainder has the sign of the dividend, as in Java.
pub fn modulo(a: &Value, b: &Value) -> Result<Value> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
        _ => numeric(
            a,
            b,
            |x, y| {
                if y == 0 {
                    return Err(ValueError::division_by_zero());
                }
                // i64::MIN % -1 is 0 mathematically; checked_rem reports it as overflow.
                Ok(Value::Int(x.checked_rem(y).unwrap_or(0)))
            },
            |x, y| x % y,
        )
        .unwrap_or_else(|| Err(type_error("%", a, b))),
    }
}

/// `a ^ b`: always a float.
pub fn power(a: &Value, b: &Value) -> Result<Value> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
        _ => match (as_float(a), as_float(b)) {
            (Some(x), Some(y)) => Ok(Value::Float(x.powf(y))),
            _ => Err(type_error("^", a, b)),
        },
    }
}

/// Unary `-a`.
pub fn negate(a: &Value) -> Result<Value> {
    match a {
        Value::Null => Ok(Value::Null),
        Value::Int(i) => i.checked_neg().map(Value::Int).ok_or_else(|| overflow("-")),
        Value::Float(f) => Ok(Value::Float(-f)),
        Value::Duration(d) => Ok(Value::Duration(Box::new(d.checked_neg()?))),
        other => Err(ValueError::invalid_type(format!(
            "Cannot negate {}",
            other.value_type()
        ))),
    }
}

/// Unary `+a`: accepts numbers and durations unchanged.
pub fn unary_plus(a: &Value) -> Result<Value> {
    match a {
        Value::Null | Value::Int(_) | Value::Float(_) | Value::Duration(_) => Ok(a.clone()),
        other => Err(ValueError::invalid_type(format!(
            "Cannot apply unary '+' to {}",
            other.value_type()
        ))),
    }
}

/// A boolean operand of a logical operator: `None` for `null`.
fn truth(op: &str, v: &Value) -> Result<Option<bool>> {
    match v {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        other => Err(ValueError::invalid_type(format!(
            "'{op}' expects Boolean operands, got {}",
            other.value_type()
        ))),
    }
}

fn from_truth(t: Option<bool>) -> Value {
    t.map_or(Value::Null, Value::Bool)
}

/// Three-valued `AND`: `false` wins over `null`.
pub fn and(a: &Value, b: &Value) -> Result<Value> {
    let (x, y) = (truth("AND", a)?, truth("AND", b)?);
    Ok(from_truth(match (x, y) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }))
}

/// Three-valued `OR`: `true` wins over `null`.
pub fn or(a: &Value, b: &Value) -> Result<Value> {
    let (x, y) = (truth("OR", a)?, truth("OR", b)?);
    Ok(from_truth(match (x, y) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }))
}

/// Three-valued `XOR`: `null` if either side is `null`.
pub fn xor(a: &Value, b: &Value) -> Result<Value> {
    let (x, y) = (truth("XOR", a)?, truth("XOR", b)?);
    Ok(from_truth(match (x, y) {
        (Some(p), Some(q)) => Some(p != q),
        _ => None,
    }))
}

/// Three-valued `NOT`.
pub fn not(a: &Value) -> Result<Value> {
    Ok(from_truth(truth("NOT", a)?.map(|b| !b)))
}

/// `x IN list`: `true` if some element equals `x`; otherwise `null` if some comparison was
/// `null`; otherwise `false`. A `null` list gives `null`.
pub fn in_list(x: &Value, list: &Value) -> Result<Value> {
    let items = match list {
        Value::Null => return Ok(Value::Null),
        Value::List(items) => items,
        other => {
            return Err(ValueError::invalid_type(format!(
                "'IN' expects a List on the right, got {}",
                other.value_type()
            )));
        }
    };
    let mut unknown = false;
    for item in items.iter() {
        match equals(x, item) {
            Some(true) => return Ok(Value::Bool(true)),
            None => unknown = true,
            Some(false) => {}
        }
    }
    Ok(if unknown {
        Value::Null
    } else {
        Value::Bool(false)
    })
}

/// Applies a string predicate, giving `null` unless both sides are strings.
fn string_predicate(a: &Value, b: &Value, test: impl Fn(&str, &str) -> bool) -> Value {
    match (a, b) {
        (Value::String(x), Value::String(y)) => Value::Bool(test(x, y)),
        _ => Value::Null,
    }
}

/// `a STARTS WITH b`.
pub fn starts_with(a: &Value, b: &Value) -> Value {
    string_predicate(a, b, |x, y| x.starts_with(y))
}

/// `a ENDS WITH b`.
pub fn ends_with(a: &Value, b: &Value) -> Value {
    string_predicate(a, b, |x, y| x.ends_with(y))
}

/// `a CONTAINS b`.
pub fn contains(a: &Value, b: &Value) -> Value {
    string_predicate(a, b, |x, y| x.contains(y))
}

/// Patterns longer than this are refused: compiling them costs memory and time.
pub const REGEX_PATTERN_BYTES_MAX: usize = 4096;

/// `a =~ pattern`: the whole string must match. `null` unless both sides are strings; an
/// invalid pattern is an error.
pub fn regex_match(a: &Value, pattern: &Value) -> Result<Value> {
    let (Value::String(text), Value::String(pattern)) = (a, pattern) else {
        return Ok(Value::Null);
    };
    let regex = compile_regex(pattern)?;
    Ok(Value::Bool(regex.is_match(text)))
}

/// Compiles a Cypher regular expression so that it must match the whole text.
pub fn compile_regex(pattern: &str) -> Result<regex::Regex> {
    if pattern.len() > REGEX_PATTERN_BYTES_MAX {
        return Err(ValueError::invalid_value("Regular expression is too long"));
    }
    regex::RegexBuilder::new(&format!("^(?:{pattern})$"))
        .size_limit(1 << 20)
        .build()
        .map_err(|e| ValueError::invalid_value(format!("Invalid regular expression: {e}")))
}

/// `container[index]`: list elements by (possibly negative) integer index, `null` when out of
/// range; map entries (and materialised node or relationship properties) by string key.
pub fn index(container: &Value, index: &Value) -> Result<Value> {
    match (container, index) {
        (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
        (Value::List(items), Value::Int(i)) => {
            let len = items.len() as i128;
            let i = i128::from(*i);
            let position = if i < 0 { len + i } else { i };
            Ok(usize::try_from(position)
                .ok()
                .and_then(|p| items.get(p))
                .cloned()
                .unwrap_or(Value::Null))
        }
        (Value::List(_), other) => Err(ValueError::invalid_type(format!(
            "List index must be an Integer, got {}",
            other.value_type()
        ))),
        (Value::Map(_) | Value::Node(_) | Value::Relationship(_), Value::String(key)) => {
            crate::property::property(container, key)
        }
        (Value::Map(_) | Value::Node(_) | Value::Relationship(_), other) => {
            Err(ValueError::invalid_type(format!(
                "Map key must be a String, got {}",
                other.value_type()
            )))
        }
        (other, _) => Err(ValueError::invalid_type(format!(
            "Cannot index into a {}",
            other.value_type()
        ))),
    }
}

/// `list[from..to]`: bounds may be negative (counting from the end) or absent (`None`);
/// out-of-range bounds are clamped. A `null` list or bound gives `null`.
pub fn slice(list: &Value, from: Option<&Value>, to: Option<&Value>) -> Result<Value> {
    let items = match list {
        Value::Null => return Ok(Value::Null),
        Value::List(items) => items,
        other => {
            return Err(ValueError::invalid_type(format!(
                "Cannot slice a {}",
                other.value_type()
            )));
        }
    };
    let len = items.len() as i128;
    let bound = |v: Option<&Value>, default: i128| -> Result<Option<usize>> {
        match v {
            None => Ok(Some(default as usize)),
            Some(Value::Null) => Ok(None),
            Some(Value::Int(i)) => {
                let i = i128::from(*i);
                let p = if i < 0 { len + i } else { i };
                Ok(Some(p.clamp(0, len) as usize))
            }
            Some(other) => Err(ValueError::invalid_type(format!(
                "List slice bounds must be Integers, got {}",
                other.value_type()
            ))),
        }
    };
    let (Some(start), Some(end)) = (bound(from, 0)?, bound(to, len)?) else {
        return Ok(Value::Null);
    };
    if start >= end {
        return Ok(Value::from(Vec::new()));
    }
    Ok(Value::from(items[start..end].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(v: i64) -> Value {
        Value::Int(v)
    }

    fn f(v: f64) -> Value {
        Value::Float(v)
    }

    #[test]
    fn integer_arithmetic_is_checked() {
        assert_eq!(add(&i(1), &i(2)).unwrap(), i(3));
        assert!(add(&i(i64::MAX), &i(1)).is_err());
        assert!(subtract(&i(i64::MIN), &i(1)).is_err());
        assert!(multiply(&i(i64::MAX), &i(2)).is_err());
        assert!(negate(&i(i64::MIN)).is_err());
        assert_eq!(divide(&i(7), &i(2)).unwrap(), i(3));
        assert_eq!(divide(&i(-7), &i(2)).unwrap(), i(-3));
        assert_eq!(divide(&i(12), &i(4)).unwrap(), i(3));
        assert!(divide(&i(1), &i(0)).is_err());
        assert!(divide(&i(i64::MIN), &i(-1)).is_err());
        assert_eq!(modulo(&i(-7), &i(3)).unwrap(), i(-1));
        assert_eq!(modulo(&i(i64::MIN), &i(-1)).unwrap(), i(0));
        assert!(modulo(&i(1), &i(0)).is_err());
        assert_eq!(
            divide(&i(1), &i(0)).unwrap_err().detail,
            crate::ErrorDetail::DivisionByZero
        );
    }

    #[test]
    fn float_arithmetic_follows_ieee() {
        assert_eq!(add(&i(1), &f(0.5)).unwrap(), f(1.5));
        assert_eq!(divide(&f(1.0), &i(0)).unwrap(), f(f64::INFINITY));
        assert!(matches!(divide(&f(0.0), &f(0.0)).unwrap(), Value::Float(x) if x.is_nan()));
        assert_eq!(modulo(&f(7.5), &i(2)).unwrap(), f(1.5));
        assert_eq!(power(&i(2), &i(3)).unwrap(), f(8.0));
        assert_eq!(negate(&f(1.5)).unwrap(), f(-1.5));
    }

    #[test]
    fn null_propagates() {
        for op in [add, subtract, multiply, divide, modulo, power] {
            assert_eq!(op(&Value::Null, &i(1)).unwrap(), Value::Null);
            assert_eq!(op(&i(1), &Value::Null).unwrap(), Value::Null);
        }
        assert_eq!(negate(&Value::Null).unwrap(), Value::Null);
    }

    #[test]
    fn strings_and_lists_concatenate() {
        assert_eq!(add(&"a".into(), &"b".into()).unwrap(), Value::from("ab"));
        assert_eq!(add(&"a".into(), &i(1)).unwrap(), Value::from("a1"));
        assert_eq!(add(&f(1.5), &"a".into()).unwrap(), Value::from("1.5a"));
        let l = Value::from(vec![i(1)]);
        assert_eq!(add(&l, &l).unwrap(), Value::from(vec![i(1), i(1)]));
        assert_eq!(add(&l, &i(2)).unwrap(), Value::from(vec![i(1), i(2)]));
        assert_eq!(add(&i(0), &l).unwrap(), Value::from(vec![i(0), i(1)]));
        assert_eq!(add(&l, &Value::Null).unwrap(), Value::Null);
        assert!(add(&Value::Bool(true), &i(1)).is_err());
        assert!(add(&"a".into(), &Value::map(crate::Map::new())).is_err());
    }

    #[test]
    fn three_valued_logic() {
        let t = Value::Bool(true);
        let fa = Value::Bool(false);
        let n = Value::Null;
        assert_eq!(and(&t, &n).unwrap(), n);
        assert_eq!(and(&fa, &n).unwrap(), fa);
        assert_eq!(or(&t, &n).unwrap(), t);
        assert_eq!(or(&fa, &n).unwrap(), n);
        assert_eq!(xor(&t, &fa).unwrap(), t);
        assert_eq!(xor(&t, &n).unwrap(), n);
        assert_eq!(not(&n).unwrap(), n);
        assert_eq!(not(&t).unwrap(), fa);
        assert!(and(&i(123), &t).is_err());
        assert!(or(&n, &"foo".into()).is_err());
    }

    #[test]
    fn membership_is_ternary() {
        // Null3 [4], List5.
        let l = |items: Vec<Value>| Value::from(items);
        let n = || Value::Null;
        assert_eq!(in_list(&n(), &n()).unwrap(), n());
        assert_eq!(in_list(&n(), &l(vec![i(1), i(2), i(3)])).unwrap(), n());
        assert_eq!(in_list(&n(), &l(vec![])).unwrap(), Value::Bool(false));
        assert_eq!(
            in_list(&i(1), &l(vec![n(), i(1)])).unwrap(),
            Value::Bool(true)
        );
        assert_eq!(in_list(&i(5), &l(vec![i(1), n()])).unwrap(), n());
        assert_eq!(
            in_list(&l(vec![i(1), i(2)]), &l(vec![i(1), l(vec![i(1), i(2)])])).unwrap(),
            Value::Bool(true)
        );
        assert_eq!(
            in_list(&l(vec![i(1)]), &l(vec![l(vec![i(1), n()])])).unwrap(),
            Value::Bool(false)
        );
        assert_eq!(
            in_list(&l(vec![i(1), i(2)]), &l(vec![l(vec![n(), i(2)])])).unwrap(),
            n()
        );
        assert_eq!(in_list(&l(vec![]), &l(vec![])).unwrap(), Value::Bool(false));
        assert_eq!(in_list(&l(vec![]), &l(vec![i(1), i(2), n()])).unwrap(), n());
        assert!(in_list(&i(1), &i(1)).is_err());
    }

    #[test]
    fn indexing_and_slicing() {
        let l = Value::from(vec![i(1), i(2), i(3)]);
        assert_eq!(index(&l, &i(0)).unwrap(), i(1));
        assert_eq!(index(&l, &i(-1)).unwrap(), i(3));
        assert_eq!(index(&l, &i(3)).unwrap(), Value::Null);
        assert_eq!(index(&l, &i(-4)).unwrap(), Value::Null);
        assert_eq!(index(&l, &Value::Null).unwrap(), Value::Null);
        // List1 [6] and [8].
        for bad in [
            Value::Bool(true),
            f(4.7),
            "1".into(),
            Value::from(vec![i(1)]),
        ] {
            assert!(index(&l, &bad).is_err());
        }
        for bad in [Value::Bool(true), i(123), f(4.7), "1".into()] {
            assert!(index(&bad, &i(0)).is_err());
        }
        let m = Value::map([(std::sync::Arc::from("k"), i(1))].into_iter().collect());
        assert_eq!(index(&m, &"k".into()).unwrap(), i(1));
        assert_eq!(index(&m, &"x".into()).unwrap(), Value::Null);
        assert_eq!(
            slice(&l, Some(&i(0)), Some(&i(1))).unwrap(),
            Value::from(vec![i(1)])
        );
        assert_eq!(
            slice(&l, Some(&i(-2)), None).unwrap(),
            Value::from(vec![i(2), i(3)])
        );
        assert_eq!(slice(&l, None, Some(&i(10))).unwrap(), l);
        assert_eq!(
            slice(&l, Some(&i(2)), Some(&i(1))).unwrap(),
            Value::from(Vec::new())
        );
        assert_eq!(slice(&l, Some(&Value::Null), None).unwrap(), Value::Null);
    }

    #[test]
    fn string_predicates() {
        assert_eq!(starts_with(&"abc".into(), &"ab".into()), Value::Bool(true));
        assert_eq!(ends_with(&"abc".into(), &"".into()), Value::Bool(true));
        assert_eq!(contains(&"abc".into(), &Value::Null), Value::Null);
        assert_eq!(contains(&i(1), &"1".into()), Value::Null);
        assert_eq!(
            regex_match(&"abc".into(), &"a.c".into()).unwrap(),
            Value::Bool(true)
        );
        assert_eq!(
            regex_match(&"xabc".into(), &"a.c".into()).unwrap(),
            Value::Bool(false)
        );
        assert!(regex_match(&"abc".into(), &"(".into()).is_err());
    }

    #[test]
    fn temporal_arithmetic_through_operators() {
        let date = Value::Date(crate::temporal::Date::from_ymd(1984, 10, 11).unwrap());
        let d = Value::Duration(Box::new(
            crate::temporal::parse::parse_duration("P1M").unwrap(),
        ));
        let later = add(&date, &d).unwrap();
        assert_eq!(
            later,
            Value::Date(crate::temporal::Date::from_ymd(1984, 11, 11).unwrap())
        );
        assert_eq!(add(&d, &date).unwrap(), later);
        assert_eq!(subtract(&later, &d).unwrap(), date);
        assert!(subtract(&d, &date).is_err());
        let twice = multiply(&d, &i(2)).unwrap();
        assert_eq!(
            twice,
            Value::Duration(Box::new(
                crate::temporal::parse::parse_duration("P2M").unwrap()
            ))
        );
        assert_eq!(divide(&twice, &i(2)).unwrap(), d);
        assert!(divide(&d, &i(0)).is_err());
    }
}
