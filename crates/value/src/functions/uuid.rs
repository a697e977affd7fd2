//! The `UUID` functions: `uuid()` in its three forms, `uuid.mostSignificantBits()`,
//! `uuid.leastSignificantBits()`, and `randomUUID()`, which Neo4j keeps returning a `STRING`.

use super::{FunctionContext, arg, bad_argument};
use crate::error::{Result, ValueError};
use crate::uuid::Uuid;
use crate::value::Value;

/// `uuid()`: a random (version 4) UUID; `uuid(text)`: the UUID written as 8-4-4-4-12
/// hexadecimal digits; `uuid(mostSigBits, leastSigBits)`: the UUID of those 128 bits. A `null`
/// argument gives `null`, as Neo4j documents.
pub fn uuid(args: &[Value], _: &FunctionContext) -> Result<Value> {
    match args {
        [] => Ok(Value::Uuid(Uuid::random())),
        [Value::Null] | [Value::Null, _] | [_, Value::Null] => Ok(Value::Null),
        [Value::String(text)] => Uuid::parse(text).map(Value::Uuid).map_err(|e| {
            let shown: String = text.chars().take(64).collect();
            ValueError::invalid_value(format!("Function 'uuid' cannot read '{shown}': {e}"))
        }),
        [other] => Err(bad_argument("uuid", "a String", other)),
        [Value::Int(most), Value::Int(least)] => Ok(Value::Uuid(Uuid::from_halves(*most, *least))),
        [Value::Int(_), other] | [other, _] => Err(bad_argument("uuid", "two Integers", other)),
        _ => Err(ValueError::arity("uuid", 0, 2, args.len())),
    }
}

/// `uuid.mostSignificantBits(u)`: the upper 64 bits as a signed integer.
pub fn most_significant_bits(args: &[Value], _: &FunctionContext) -> Result<Value> {
    match arg(args, 0) {
        Value::Null => Ok(Value::Null),
        Value::Uuid(u) => Ok(Value::Int(u.most_significant_bits())),
        other => Err(bad_argument("uuid.mostSignificantBits", "a UUID", other)),
    }
}

/// `uuid.leastSignificantBits(u)`: the lower 64 bits as a signed integer.
pub fn least_significant_bits(args: &[Value], _: &FunctionContext) -> Result<Value> {
    match arg(args, 0) {
        Value::Null => Ok(Value::Null),
        Value::Uuid(u) => Ok(Value::Int(u.least_significant_bits())),
        other => Err(bad_argument("uuid.leastSignificantBits", "a UUID", other)),
    }
}

/// `randomUUID()`: a random UUID's text, a `STRING` (the function predates the type).
pub fn random_uuid(_: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(Value::from(Uuid::random().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorClass;

    fn call(args: &[Value]) -> Result<Value> {
        uuid(args, &FunctionContext::new())
    }

    #[test]
    fn the_three_constructors() {
        let text = "550e8400-e29b-41d4-a716-446655440000";
        let parsed = call(&[Value::from(text)]).unwrap();
        assert_eq!(parsed, Value::Uuid(Uuid::parse(text).unwrap()));
        assert_eq!(
            call(&[Value::Int(42), Value::Int(42)]).unwrap(),
            Value::Uuid(Uuid::parse("00000000-0000-002a-0000-00000000002a").unwrap())
        );
        assert!(matches!(call(&[]).unwrap(), Value::Uuid(_)));
        assert_ne!(call(&[]).unwrap(), call(&[]).unwrap());
    }

    #[test]
    fn null_arguments_give_null() {
        assert_eq!(call(&[Value::Null]).unwrap(), Value::Null);
        assert_eq!(call(&[Value::Null, Value::Int(1)]).unwrap(), Value::Null);
        assert_eq!(call(&[Value::Int(1), Value::Null]).unwrap(), Value::Null);
    }

    #[test]
    fn bad_arguments_are_errors_not_panics() {
        let bad_text = call(&[Value::from("not-a-uuid")]).unwrap_err();
        assert_eq!(bad_text.class, ErrorClass::ArgumentError);
        let wrong_type = call(&[Value::Int(1)]).unwrap_err();
        assert_eq!(wrong_type.class, ErrorClass::TypeError);
        let half_wrong = call(&[Value::Int(1), Value::from("x")]).unwrap_err();
        assert_eq!(half_wrong.class, ErrorClass::TypeError);
        let ctx = FunctionContext::new();
        assert!(most_significant_bits(&[Value::from("x")], &ctx).is_err());
    }

    #[test]
    fn halves_take_a_uuid_apart() {
        let ctx = FunctionContext::new();
        let u = call(&[Value::Int(-7), Value::Int(i64::MAX)]).unwrap();
        let args = [u];
        assert_eq!(most_significant_bits(&args, &ctx).unwrap(), Value::Int(-7));
        assert_eq!(
            least_significant_bits(&args, &ctx).unwrap(),
            Value::Int(i64::MAX)
        );
        assert_eq!(
            most_significant_bits(&[Value::Null], &ctx).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn random_uuid_is_text() {
        let Value::String(text) = random_uuid(&[], &FunctionContext::new()).unwrap() else {
            panic!("randomUUID() returns a String");
        };
        assert!(Uuid::parse(&text).is_ok());
    }
}
