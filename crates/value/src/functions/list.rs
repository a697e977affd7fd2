//! List functions, and the functions shared by lists and strings (`size`, `reverse`).

use super::{FunctionContext, arg, bad_argument};
use crate::error::{ErrorClass, ErrorDetail, Result, ValueError};
use crate::value::Value;

/// `range()` refuses to build lists longer than this: a bounded query must not allocate
/// without bound.
pub const RANGE_LENGTH_MAX: u64 = 100_000_000;

fn list_arg<'a>(function: &str, v: &'a Value) -> Result<Option<&'a [Value]>> {
    match v {
        Value::Null => Ok(None),
        Value::List(items) => Ok(Some(items)),
        other => Err(bad_argument(function, "a List", other)),
    }
}

pub fn head(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(list_arg("head", arg(args, 0))?
        .and_then(|l| l.first().cloned())
        .unwrap_or(Value::Null))
}

pub fn last(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(list_arg("last", arg(args, 0))?
        .and_then(|l| l.last().cloned())
        .unwrap_or(Value::Null))
}

pub fn tail(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(list_arg("tail", arg(args, 0))?.map_or(Value::Null, |l| {
        Value::from(l.iter().skip(1).cloned().collect::<Vec<_>>())
    }))
}

pub fn coalesce(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(args
        .iter()
        .find(|v| !v.is_null())
        .cloned()
        .unwrap_or(Value::Null))
}

/// `size()` of a string (code points), a list, or a vector (its dimension).
pub fn size(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(match arg(args, 0) {
        Value::Null => Value::Null,
        Value::String(s) => Value::Int(s.chars().count() as i64),
        Value::List(items) => Value::Int(items.len() as i64),
        Value::Vector(v) => Value::Int(v.len() as i64),
        other => return Err(bad_argument("size", "a String, a List or a Vector", other)),
    })
}

/// `isEmpty()` of a string, list or map.
pub fn is_empty(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(match arg(args, 0) {
        Value::Null => Value::Null,
        Value::String(s) => Value::Bool(s.is_empty()),
        Value::List(items) => Value::Bool(items.is_empty()),
        Value::Map(m) => Value::Bool(m.is_empty()),
        other => return Err(bad_argument("isEmpty", "a String, a List or a Map", other)),
    })
}

/// `reverse()` of a string (by code point) or a list.
pub fn reverse(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(match arg(args, 0) {
        Value::Null => Value::Null,
        Value::String(s) => Value::from(s.chars().rev().collect::<String>()),
        Value::List(items) => Value::from(items.iter().rev().cloned().collect::<Vec<_>>()),
        other => return Err(bad_argument("reverse", "a String or a List", other)),
    })
}

fn range_bound(name: &str, v: &Value) -> Result<Option<i64>> {
    match v {
        Value::Null => Ok(None),
        Value::Int(i) => Ok(Some(*i)),
        other => Err(ValueError::new(
            ErrorClass::ArgumentError,
            ErrorDetail::InvalidArgumentType,
            format!(
                "range() expects an Integer {name}, got {}",
                other.value_type()
            ),
        )),
    }
}

/// The integers `range(start, end[, step])` stands for, produced one at a time: the engine
/// unwinds a range without building the list, so `UNWIND range(1, 1000000000)` streams.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntRange {
    next: i128,
    step: i128,
    remaining: u128,
}

impl IntRange {
    /// Checks `range()`'s arguments as the function does; `None` when one of them is null
    /// (then the function returns null).
    pub fn from_args(args: &[Value]) -> Result<Option<IntRange>> {
        let start = range_bound("start", arg(args, 0))?;
        let end = range_bound("end", arg(args, 1))?;
        let step = if args.len() > 2 {
            range_bound("step", arg(args, 2))?
        } else {
            Some(1)
        };
        let (Some(start), Some(end), Some(step)) = (start, end, step) else {
            return Ok(None);
        };
        if step == 0 {
            return Err(ValueError::out_of_range("range() step must not be zero"));
        }
        let span = i128::from(end) - i128::from(start);
        let count = if span == 0 || (span > 0) == (step > 0) {
            span / i128::from(step) + 1
        } else {
            0
        };
        Ok(Some(IntRange {
            next: i128::from(start),
            step: i128::from(step),
            remaining: u128::try_from(count).unwrap_or(0),
        }))
    }

    /// How many integers are left.
    pub fn remaining(&self) -> u128 {
        self.remaining
    }
}

impl Iterator for IntRange {
    type Item = i64;

    fn next(&mut self) -> Option<i64> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let value = i64::try_from(self.next).ok()?;
        self.next += self.step;
        Some(value)
    }
}

/// `range(start, end[, step])`: integers from `start` to `end` inclusive.
pub fn range(args: &[Value], _: &FunctionContext) -> Result<Value> {
    let Some(range) = IntRange::from_args(args)? else {
        return Ok(Value::Null);
    };
    let count = range.remaining();
    if count > u128::from(RANGE_LENGTH_MAX) {
        return Err(ValueError::out_of_range(format!(
            "range() would produce {count} elements, more than the limit of {RANGE_LENGTH_MAX}"
        )));
    }
    Ok(Value::from(range.map(Value::Int).collect::<Vec<_>>()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(values: &[i64]) -> Value {
        Value::from(values.iter().map(|v| Value::Int(*v)).collect::<Vec<_>>())
    }

    fn run(f: fn(&[Value], &FunctionContext) -> Result<Value>, args: &[Value]) -> Result<Value> {
        f(args, &FunctionContext::new())
    }

    #[test]
    fn ranges_follow_the_tck() {
        // List11.
        let r = |s, e| run(range, &[Value::Int(s), Value::Int(e)]).unwrap();
        let rs = |s, e, st| run(range, &[Value::Int(s), Value::Int(e), Value::Int(st)]).unwrap();
        assert_eq!(r(-1236, -1234), ints(&[-1236, -1235, -1234]));
        assert_eq!(r(0, -123), ints(&[]));
        assert_eq!(r(0, 0), ints(&[0]));
        assert_eq!(rs(1381, -3412, -1298), ints(&[1381, 83, -1215, -2513]));
        assert_eq!(rs(10, -10, -3), ints(&[10, 7, 4, 1, -2, -5, -8]));
        assert_eq!(rs(0, 1, -123), ints(&[]));
        assert_eq!(rs(0, 0, -1), ints(&[0]));
        assert_eq!(rs(0, 1, 2), ints(&[0]));
        assert_eq!(rs(-3412, 1381, 1298), ints(&[-3412, -2114, -816, 482]));
        let err = run(range, &[Value::Int(2), Value::Int(8), Value::Int(0)]).unwrap_err();
        assert_eq!(
            (err.class, err.detail),
            (ErrorClass::ArgumentError, ErrorDetail::NumberOutOfRange)
        );
        for bad in [
            Value::Bool(true),
            Value::Float(0.0),
            Value::from("xyz"),
            ints(&[0]),
        ] {
            let err = run(range, &[bad, Value::Int(1), Value::Int(1)]).unwrap_err();
            assert_eq!(
                (err.class, err.detail),
                (ErrorClass::ArgumentError, ErrorDetail::InvalidArgumentType)
            );
        }
        assert!(run(range, &[Value::Int(i64::MIN), Value::Int(i64::MAX)]).is_err());
        assert_eq!(rs(i64::MAX - 1, i64::MAX, 5), ints(&[i64::MAX - 1]));
    }

    #[test]
    fn int_ranges_stream_what_range_builds() {
        for args in [
            vec![Value::Int(1381), Value::Int(-3412), Value::Int(-1298)],
            vec![Value::Int(0), Value::Int(10)],
            vec![Value::Int(0), Value::Int(1), Value::Int(-123)],
            vec![
                Value::Int(i64::MAX - 10),
                Value::Int(i64::MAX),
                Value::Int(3),
            ],
        ] {
            let streamed: Vec<Value> = IntRange::from_args(&args)
                .unwrap()
                .unwrap()
                .map(Value::Int)
                .collect();
            assert_eq!(Value::from(streamed), run(range, &args).unwrap());
        }
        let huge = IntRange::from_args(&[Value::Int(i64::MIN), Value::Int(i64::MAX)])
            .unwrap()
            .unwrap();
        assert_eq!(huge.remaining(), 1u128 << 64);
        assert_eq!(huge.take(2).collect::<Vec<_>>(), [i64::MIN, i64::MIN + 1]);
        assert!(
            IntRange::from_args(&[Value::Null, Value::Int(1)])
                .unwrap()
                .is_none()
        );
        assert!(IntRange::from_args(&[Value::Int(1), Value::Int(2), Value::Int(0)]).is_err());
    }

    #[test]
    fn list_accessors() {
        let l = ints(&[1, 2, 3]);
        assert_eq!(run(head, std::slice::from_ref(&l)).unwrap(), Value::Int(1));
        assert_eq!(run(last, std::slice::from_ref(&l)).unwrap(), Value::Int(3));
        assert_eq!(run(tail, std::slice::from_ref(&l)).unwrap(), ints(&[2, 3]));
        assert_eq!(run(head, &[ints(&[])]).unwrap(), Value::Null);
        assert_eq!(run(tail, &[ints(&[])]).unwrap(), ints(&[]));
        assert_eq!(run(size, std::slice::from_ref(&l)).unwrap(), Value::Int(3));
        assert_eq!(run(size, &[Value::Null]).unwrap(), Value::Null);
        assert_eq!(run(reverse, &[l]).unwrap(), ints(&[3, 2, 1]));
        assert_eq!(
            run(reverse, &[Value::from("abc")]).unwrap(),
            Value::from("cba")
        );
        assert_eq!(
            run(coalesce, &[Value::Null, Value::Int(2), Value::Int(3)]).unwrap(),
            Value::Int(2)
        );
        assert_eq!(run(coalesce, &[Value::Null]).unwrap(), Value::Null);
        assert!(run(head, &[Value::Int(1)]).is_err());
        assert_eq!(
            run(is_empty, &[Value::from("")]).unwrap(),
            Value::Bool(true)
        );
    }
}
