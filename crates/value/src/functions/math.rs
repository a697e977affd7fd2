//! Numeric functions. Most return floats whatever the input (`ceil(1)` is `1.0`); `abs` keeps
//! the input's type and `sign` returns an integer.

use std::fmt::Write;

use super::{FunctionContext, arg, bad_argument};
use crate::error::{Result, ValueError};
use crate::value::Value;

fn number(function: &str, v: &Value) -> Result<Option<f64>> {
    match v {
        Value::Null => Ok(None),
        Value::Int(i) => Ok(Some(*i as f64)),
        Value::Float(f) => Ok(Some(*f)),
        other => Err(bad_argument(function, "a number", other)),
    }
}

/// A function of one number returning a float.
fn unary(function: &str, args: &[Value], op: impl Fn(f64) -> f64) -> Result<Value> {
    Ok(number(function, arg(args, 0))?.map_or(Value::Null, |x| Value::Float(op(x))))
}

pub fn abs(args: &[Value], _: &FunctionContext) -> Result<Value> {
    match arg(args, 0) {
        Value::Int(i) => i
            .checked_abs()
            .map(Value::Int)
            .ok_or_else(|| ValueError::overflow("integer overflow in 'abs'")),
        other => unary("abs", std::slice::from_ref(other), f64::abs),
    }
}

pub fn ceil(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("ceil", args, f64::ceil)
}

pub fn floor(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("floor", args, f64::floor)
}

pub fn sqrt(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("sqrt", args, f64::sqrt)
}

pub fn exp(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("exp", args, f64::exp)
}

pub fn log(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("log", args, f64::ln)
}

pub fn log10(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("log10", args, f64::log10)
}

pub fn sin(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("sin", args, f64::sin)
}

pub fn cos(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("cos", args, f64::cos)
}

pub fn tan(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("tan", args, f64::tan)
}

pub fn cot(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("cot", args, |x| 1.0 / x.tan())
}

pub fn asin(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("asin", args, f64::asin)
}

pub fn acos(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("acos", args, f64::acos)
}

pub fn atan(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("atan", args, f64::atan)
}

pub fn sinh(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("sinh", args, f64::sinh)
}

pub fn cosh(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("cosh", args, f64::cosh)
}

pub fn tanh(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("tanh", args, f64::tanh)
}

pub fn coth(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("coth", args, |x| 1.0 / x.tanh())
}

pub fn atan2(args: &[Value], _: &FunctionContext) -> Result<Value> {
    let y = number("atan2", arg(args, 0))?;
    let x = number("atan2", arg(args, 1))?;
    Ok(match (y, x) {
        (Some(y), Some(x)) => Value::Float(y.atan2(x)),
        _ => Value::Null,
    })
}

pub fn degrees(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("degrees", args, f64::to_degrees)
}

pub fn radians(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("radians", args, f64::to_radians)
}

pub fn haversin(args: &[Value], _: &FunctionContext) -> Result<Value> {
    unary("haversin", args, |x| (1.0 - x.cos()) / 2.0)
}

pub fn e(_: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(Value::Float(std::f64::consts::E))
}

pub fn pi(_: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(Value::Float(std::f64::consts::PI))
}

pub fn rand(_: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(Value::Float(rand::random::<f64>()))
}

pub fn sign(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(match arg(args, 0) {
        Value::Null => Value::Null,
        Value::Int(i) => Value::Int(i.signum()),
        Value::Float(f) if f.is_nan() => Value::Int(0),
        Value::Float(f) => Value::Int(if *f > 0.0 {
            1
        } else if *f < 0.0 {
            -1
        } else {
            0
        }),
        other => return Err(bad_argument("sign", "a number", other)),
    })
}

pub fn is_nan(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(match arg(args, 0) {
        Value::Null => Value::Null,
        Value::Int(_) => Value::Bool(false),
        Value::Float(f) => Value::Bool(f.is_nan()),
        other => return Err(bad_argument("isNaN", "a number", other)),
    })
}

/// How `round` breaks ties and rounds away digits, as in `java.math.RoundingMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundingMode {
    Up,
    Down,
    Ceiling,
    Floor,
    HalfUp,
    HalfDown,
    HalfEven,
}

impl RoundingMode {
    pub fn parse(name: &str) -> Option<RoundingMode> {
        Some(match name.to_ascii_uppercase().as_str() {
            "UP" => RoundingMode::Up,
            "DOWN" => RoundingMode::Down,
            "CEILING" => RoundingMode::Ceiling,
            "FLOOR" => RoundingMode::Floor,
            "HALF_UP" => RoundingMode::HalfUp,
            "HALF_DOWN" => RoundingMode::HalfDown,
            "HALF_EVEN" => RoundingMode::HalfEven,
            _ => return None,
        })
    }
}

/// Precisions beyond this are no-ops for doubles anyway; the bound keeps digit strings short.
const ROUND_PRECISION_MAX: i64 = 400;

/// `round(x)` rounds half up (towards positive infinity), as Java's `Math.round`;
/// `round(x, precision[, mode])` rounds the decimal value of `x` (its shortest digits, so that
/// `round(2.675, 2)` is `2.68`) to `precision` places, half away from zero by default.
pub fn round(args: &[Value], _: &FunctionContext) -> Result<Value> {
    let Some(x) = number("round", arg(args, 0))? else {
        return Ok(Value::Null);
    };
    if args.len() == 1 {
        return Ok(Value::Float(round_half_up(x)));
    }
    let precision = match arg(args, 1) {
        Value::Null => return Ok(Value::Null),
        Value::Int(p) => *p,
        other => return Err(bad_argument("round", "an Integer precision", other)),
    };
    let mode = match arg(args, 2) {
        Value::Null if args.len() > 2 => return Ok(Value::Null),
        Value::Null => RoundingMode::HalfUp,
        Value::String(m) => RoundingMode::parse(m)
            .ok_or_else(|| ValueError::invalid_value(format!("Unknown rounding mode '{m}'")))?,
        other => return Err(bad_argument("round", "a String rounding mode", other)),
    };
    Ok(Value::Float(round_decimal(
        x,
        precision.clamp(-ROUND_PRECISION_MAX, ROUND_PRECISION_MAX),
        mode,
    )))
}

fn round_half_up(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let floor = x.floor();
    if x - floor >= 0.5 { floor + 1.0 } else { floor }
}

/// Rounds the shortest decimal representation of `x` to `precision` decimal places.
pub fn round_decimal(x: f64, precision: i64, mode: RoundingMode) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let negative = x < 0.0;
    let sci = format!("{:e}", x.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let digits: Vec<u8> = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    // The value is 0.d1d2...dn × 10^(exponent + 1); keep `keep` leading digits.
    let keep = exponent + 1 + precision;
    if keep >= digits.len() as i64 {
        return x;
    }
    let (kept, dropped): (Vec<u8>, &[u8]) = if keep <= 0 {
        (Vec::new(), &digits[..])
    } else {
        (digits[..keep as usize].to_vec(), &digits[keep as usize..])
    };
    // Digits dropped below a position at or beyond the first digit: when keep < 0 the first
    // dropped digit is further right than the rounding position, so it is below half.
    let first = if keep < 0 {
        0
    } else {
        dropped.first().copied().unwrap_or(0)
    };
    let rest_nonzero = if keep < 0 {
        true
    } else {
        dropped.iter().skip(1).any(|d| *d != 0)
    };
    let any_dropped = dropped.iter().any(|d| *d != 0);
    let last_odd = kept.last().is_some_and(|d| d % 2 == 1);
    let half_or_more = first > 5 || (first == 5 && rest_nonzero);
    let exactly_half = first == 5 && !rest_nonzero;
    let away = match mode {
        RoundingMode::Up => any_dropped,
        RoundingMode::Down => false,
        RoundingMode::Ceiling => any_dropped && !negative,
        RoundingMode::Floor => any_dropped && negative,
        RoundingMode::HalfUp => half_or_more || exactly_half,
        RoundingMode::HalfDown => half_or_more,
        RoundingMode::HalfEven => half_or_more || (exactly_half && last_odd),
    };
    // Build the kept digits as an integer scaled by 10^-precision.
    let mut text = String::with_capacity(kept.len() + 8);
    if negative {
        text.push('-');
    }
    let mut value: Vec<u8> = if kept.is_empty() { vec![0] } else { kept };
    if away {
        let mut i = value.len();
        loop {
            if i == 0 {
                value.insert(0, 1);
                break;
            }
            i -= 1;
            if value[i] == 9 {
                value[i] = 0;
            } else {
                value[i] += 1;
                break;
            }
        }
    }
    text.extend(value.iter().map(|d| char::from(b'0' + d)));
    let _ = write!(text, "e{}", -precision);
    text.parse::<f64>().unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(f: fn(&[Value], &FunctionContext) -> Result<Value>, args: &[Value]) -> Result<Value> {
        f(args, &FunctionContext::new())
    }

    #[test]
    fn basic_functions() {
        assert_eq!(run(abs, &[Value::Int(-3)]).unwrap(), Value::Int(3));
        assert_eq!(run(abs, &[Value::Float(-3.5)]).unwrap(), Value::Float(3.5));
        assert!(run(abs, &[Value::Int(i64::MIN)]).is_err());
        assert_eq!(run(ceil, &[Value::Int(1)]).unwrap(), Value::Float(1.0));
        assert_eq!(
            run(floor, &[Value::Float(-1.5)]).unwrap(),
            Value::Float(-2.0)
        );
        assert_eq!(
            run(sqrt, &[Value::Float(12.96)]).unwrap(),
            Value::Float(3.6)
        );
        assert_eq!(run(sign, &[Value::Float(-0.5)]).unwrap(), Value::Int(-1));
        assert_eq!(run(sign, &[Value::Int(0)]).unwrap(), Value::Int(0));
        assert_eq!(
            run(haversin, &[Value::Float(0.0)]).unwrap(),
            Value::Float(0.0)
        );
        assert_eq!(run(log, &[Value::Null]).unwrap(), Value::Null);
        assert!(run(log, &[Value::from("x")]).is_err());
        assert_eq!(
            run(is_nan, &[Value::Float(f64::NAN)]).unwrap(),
            Value::Bool(true)
        );
        let r = run(rand, &[]).unwrap();
        assert!(matches!(r, Value::Float(x) if (0.0..1.0).contains(&x)));
    }

    #[test]
    fn rounding() {
        assert_eq!(round_half_up(2.5), 3.0);
        assert_eq!(round_half_up(-2.5), -2.0);
        assert_eq!(round_half_up(0.499_999_999_999_999_94), 0.0);
        assert_eq!(round_decimal(5.432_156, 3, RoundingMode::HalfUp), 5.432);
        assert_eq!(round_decimal(2.675, 2, RoundingMode::HalfUp), 2.68);
        assert_eq!(round_decimal(-1.5, 0, RoundingMode::HalfUp), -2.0);
        assert_eq!(round_decimal(-1.55, 1, RoundingMode::HalfEven), -1.6);
        assert_eq!(round_decimal(-1.45, 1, RoundingMode::HalfEven), -1.4);
        assert_eq!(round_decimal(1.25, 1, RoundingMode::HalfDown), 1.2);
        assert_eq!(round_decimal(1.21, 1, RoundingMode::Up), 1.3);
        assert_eq!(round_decimal(-1.21, 1, RoundingMode::Ceiling), -1.2);
        assert_eq!(round_decimal(-1.21, 1, RoundingMode::Floor), -1.3);
        assert_eq!(round_decimal(1234.5, -2, RoundingMode::HalfUp), 1200.0);
        assert_eq!(round_decimal(0.004, 2, RoundingMode::Up), 0.01);
        assert_eq!(round_decimal(0.004, 2, RoundingMode::HalfUp), 0.0);
        assert_eq!(round_decimal(9.99, 1, RoundingMode::HalfUp), 10.0);
        assert_eq!(round_decimal(1.5, 5, RoundingMode::HalfUp), 1.5);
        let ctx = FunctionContext::new();
        assert_eq!(
            round(&[Value::Float(5.432_156), Value::Int(3)], &ctx).unwrap(),
            Value::Float(5.432)
        );
        assert_eq!(
            round(
                &[Value::Float(-1.55), Value::Int(1), Value::from("HALF_EVEN")],
                &ctx
            )
            .unwrap(),
            Value::Float(-1.6)
        );
        assert!(
            round(
                &[Value::Float(1.0), Value::Int(1), Value::from("SIDEWAYS")],
                &ctx
            )
            .is_err()
        );
    }
}
