//! Temporal functions: the constructors, their clock variants, truncation, epochs and the
//! `duration` family.

use super::{FunctionContext, arg, bad_argument};
use crate::error::{Result, ValueError};
use crate::temporal::arith::{BetweenUnit, between};
use crate::temporal::build::{TemporalKind, construct, now};
use crate::temporal::calendar::NANOS_PER_SECOND;
use crate::temporal::duration::from_components;
use crate::temporal::parse::parse_duration;
use crate::temporal::truncate::truncate;
use crate::temporal::zone::parse_zone;
use crate::temporal::{DateTime, Instant, Temporal, TimeZone};
use crate::value::Value;

/// Which clock a constructor without arguments reads.
#[derive(Clone, Copy)]
enum ClockKind {
    Statement,
    Transaction,
    Realtime,
}

/// `kind()` / `kind(arg)`: now from the statement clock, or a construction.
fn constructor(kind: TemporalKind, args: &[Value], ctx: &FunctionContext) -> Result<Value> {
    if args.is_empty() {
        return now(kind, ctx.statement_time, &ctx.default_zone);
    }
    construct(kind, arg(args, 0), &ctx.statement_clock())
}

/// `kind.statement([zone])` and friends: now from the chosen clock, in an optional zone.
fn clocked(
    kind: TemporalKind,
    clock: ClockKind,
    args: &[Value],
    ctx: &FunctionContext,
) -> Result<Value> {
    let instant = match clock {
        ClockKind::Statement => ctx.statement_time,
        ClockKind::Transaction => ctx.transaction_time,
        ClockKind::Realtime => Instant::now(),
    };
    let zone = match arg(args, 0) {
        Value::Null if args.is_empty() => ctx.default_zone.clone(),
        Value::Null => return Ok(Value::Null),
        Value::String(name) => parse_zone(name)?,
        Value::Map(map) => match map.get("timezone") {
            Some(Value::String(name)) if map.len() == 1 => parse_zone(name)?,
            _ => {
                return Err(ValueError::invalid_value(
                    "Only a timezone can be given to a clock function",
                ));
            }
        },
        other => return Err(bad_argument("a clock function", "a time zone", other)),
    };
    now(kind, instant, &zone)
}

/// `kind.truncate(unit, value[, fields])`.
fn truncating(kind: TemporalKind, args: &[Value], ctx: &FunctionContext) -> Result<Value> {
    let unit = match arg(args, 0) {
        Value::String(unit) => unit,
        Value::Null => return Ok(Value::Null),
        other => return Err(bad_argument("truncate", "a String unit", other)),
    };
    let fields = match arg(args, 2) {
        Value::Null => None,
        Value::Map(map) => Some(&**map),
        other => return Err(bad_argument("truncate", "a Map of fields", other)),
    };
    truncate(kind, unit, arg(args, 1), fields, &ctx.statement_clock())
}

macro_rules! temporal_functions {
    ($kind:expr, $ctor:ident, $statement:ident, $transaction:ident, $realtime:ident, $trunc:ident) => {
        pub fn $ctor(args: &[Value], ctx: &FunctionContext) -> Result<Value> {
            constructor($kind, args, ctx)
        }
        pub fn $statement(args: &[Value], ctx: &FunctionContext) -> Result<Value> {
            clocked($kind, ClockKind::Statement, args, ctx)
        }
        pub fn $transaction(args: &[Value], ctx: &FunctionContext) -> Result<Value> {
            clocked($kind, ClockKind::Transaction, args, ctx)
        }
        pub fn $realtime(args: &[Value], ctx: &FunctionContext) -> Result<Value> {
            clocked($kind, ClockKind::Realtime, args, ctx)
        }
        pub fn $trunc(args: &[Value], ctx: &FunctionContext) -> Result<Value> {
            truncating($kind, args, ctx)
        }
    };
}

temporal_functions!(
    TemporalKind::Date,
    date,
    date_statement,
    date_transaction,
    date_realtime,
    date_truncate
);
temporal_functions!(
    TemporalKind::Time,
    time,
    time_statement,
    time_transaction,
    time_realtime,
    time_truncate
);
temporal_functions!(
    TemporalKind::LocalTime,
    localtime,
    localtime_statement,
    localtime_transaction,
    localtime_realtime,
    localtime_truncate
);
temporal_functions!(
    TemporalKind::DateTime,
    datetime,
    datetime_statement,
    datetime_transaction,
    datetime_realtime,
    datetime_truncate
);
temporal_functions!(
    TemporalKind::LocalDateTime,
    localdatetime,
    localdatetime_statement,
    localdatetime_transaction,
    localdatetime_realtime,
    localdatetime_truncate
);

fn int_arg(function: &str, v: &Value) -> Result<Option<i64>> {
    match v {
        Value::Null => Ok(None),
        Value::Int(i) => Ok(Some(*i)),
        other => Err(bad_argument(function, "an Integer", other)),
    }
}

/// `datetime.fromepoch(seconds, nanoseconds)`, in UTC.
pub fn datetime_from_epoch(args: &[Value], _: &FunctionContext) -> Result<Value> {
    let (Some(seconds), Some(nanos)) = (
        int_arg("datetime.fromepoch", arg(args, 0))?,
        int_arg("datetime.fromepoch", arg(args, 1))?,
    ) else {
        return Ok(Value::Null);
    };
    if !(0..NANOS_PER_SECOND).contains(&nanos) {
        return Err(ValueError::invalid_value(format!(
            "Invalid nanosecond: {nanos}"
        )));
    }
    let dt = DateTime::from_instant(seconds, nanos as u32, TimeZone::Offset(0))?;
    Ok(Value::DateTime(Box::new(dt)))
}

/// `datetime.fromepochmillis(milliseconds)`, in UTC.
pub fn datetime_from_epoch_millis(args: &[Value], _: &FunctionContext) -> Result<Value> {
    let Some(millis) = int_arg("datetime.fromepochmillis", arg(args, 0))? else {
        return Ok(Value::Null);
    };
    let seconds = millis.div_euclid(1000);
    let nanos = (millis.rem_euclid(1000) * 1_000_000) as u32;
    Ok(Value::DateTime(Box::new(DateTime::from_instant(
        seconds,
        nanos,
        TimeZone::Offset(0),
    )?)))
}

/// `timestamp()`: milliseconds since the epoch, from the statement clock.
pub fn timestamp(_: &[Value], ctx: &FunctionContext) -> Result<Value> {
    Ok(Value::Int(ctx.statement_time.epoch_millis()))
}

/// `duration(map)` or `duration(string)`.
pub fn duration(args: &[Value], _: &FunctionContext) -> Result<Value> {
    match arg(args, 0) {
        Value::Null => Ok(Value::Null),
        Value::String(text) => Ok(Value::Duration(Box::new(parse_duration(text)?))),
        Value::Map(map) => Ok(Value::Duration(Box::new(from_components(
            map.iter().map(|(k, v)| (&**k, v)),
        )?))),
        Value::Duration(d) => Ok(Value::Duration(d.clone())),
        other => Err(bad_argument("duration", "a Map or a String", other)),
    }
}

fn between_with(unit: BetweenUnit, name: &str, args: &[Value]) -> Result<Value> {
    let (a, b) = (arg(args, 0), arg(args, 1));
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    let from = Temporal::from_value(a).ok_or_else(|| bad_argument(name, "a temporal value", a))?;
    let to = Temporal::from_value(b).ok_or_else(|| bad_argument(name, "a temporal value", b))?;
    Ok(Value::Duration(Box::new(between(&from, &to, unit)?)))
}

pub fn duration_between(args: &[Value], _: &FunctionContext) -> Result<Value> {
    between_with(BetweenUnit::All, "duration.between", args)
}

pub fn duration_in_months(args: &[Value], _: &FunctionContext) -> Result<Value> {
    between_with(BetweenUnit::Months, "duration.inMonths", args)
}

pub fn duration_in_days(args: &[Value], _: &FunctionContext) -> Result<Value> {
    between_with(BetweenUnit::Days, "duration.inDays", args)
}

pub fn duration_in_seconds(args: &[Value], _: &FunctionContext) -> Result<Value> {
    between_with(BetweenUnit::Seconds, "duration.inSeconds", args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::to_string_cypher;
    use crate::functions::call;

    fn ctx() -> FunctionContext {
        let statement = Instant {
            seconds: 1_500_000_000,
            nanos: 5,
        };
        let transaction = Instant {
            seconds: 1_400_000_000,
            nanos: 0,
        };
        FunctionContext::at(statement, transaction, TimeZone::Offset(0))
    }

    fn text(name: &str, args: &[Value]) -> String {
        match call(name, args, &ctx()) {
            Ok(v) => to_string_cypher(&v),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn clocks() {
        assert_eq!(text("datetime", &[]), "2017-07-14T02:40:00.000000005Z");
        assert_eq!(text("date.transaction", &[]), "2014-05-13");
        assert_eq!(
            text("localtime.statement", &[Value::from("Europe/Stockholm")]),
            "04:40:00.000000005"
        );
        assert_eq!(text("timestamp", &[]), "1500000000000");
        assert_eq!(
            text("date.statement", &[Value::from("Nowhere/Special")]).get(..6),
            Some("error:")
        );
        // Two reads within a statement agree.
        let a = call("localtime", &[], &ctx()).unwrap();
        let b = call("localtime", &[], &ctx()).unwrap();
        assert_eq!(
            call("duration.inSeconds", &[a, b], &ctx()).unwrap(),
            Value::Duration(Box::default())
        );
        assert!(call("datetime.realtime", &[], &ctx()).is_ok());
    }

    #[test]
    fn epochs() {
        // Temporal1 [11].
        assert_eq!(
            text(
                "datetime.fromepoch",
                &[Value::Int(416_779), Value::Int(999_999_999)]
            ),
            "1970-01-05T19:46:19.999999999Z"
        );
        assert_eq!(
            text("datetime.fromepochmillis", &[Value::Int(237_821_673_987)]),
            "1977-07-15T13:34:33.987Z"
        );
        assert!(
            text(
                "datetime.fromepoch",
                &[Value::Int(0), Value::Int(1_000_000_000)]
            )
            .starts_with("error")
        );
    }

    #[test]
    fn serialisation_round_trips() {
        // Temporal6.
        for (ctor, literal) in [
            ("date", "1984-10-11"),
            ("localtime", "12:31:14.645876123"),
            ("time", "12:31:14.645876123+01:00"),
            ("localdatetime", "1984-10-11T12:31:14.645876123"),
            ("datetime", "1984-10-11T12:31:14.645876123+01:00"),
            ("duration", "P12Y5M14DT16H13M10.000000001S"),
            ("duration", "PT-1M-0.001S"),
        ] {
            let value = call(ctor, &[Value::from(literal)], &ctx()).unwrap();
            let printed = call("toString", std::slice::from_ref(&value), &ctx()).unwrap();
            assert_eq!(printed, Value::from(literal));
            assert_eq!(call(ctor, &[printed], &ctx()).unwrap(), value);
        }
    }

    #[test]
    fn nulls_propagate() {
        // Temporal10 [13].
        for f in [
            "duration.between",
            "duration.inMonths",
            "duration.inDays",
            "duration.inSeconds",
        ] {
            assert_eq!(
                call(f, &[Value::Null, Value::Null], &ctx()).unwrap(),
                Value::Null
            );
        }
        for f in [
            "date",
            "time",
            "localtime",
            "localdatetime",
            "datetime",
            "duration",
        ] {
            assert_eq!(call(f, &[Value::Null], &ctx()).unwrap(), Value::Null);
        }
        assert_eq!(
            call("date.truncate", &[Value::from("day"), Value::Null], &ctx()).unwrap(),
            Value::Null
        );
        assert!(call("date", &[Value::Int(1)], &ctx()).is_err());
    }

    #[test]
    fn truncation_through_the_registry() {
        let d = call("date", &[Value::from("2017-11-11")], &ctx()).unwrap();
        assert_eq!(
            text("date.truncate", &[Value::from("week"), d.clone()]),
            "2017-11-06"
        );
        let fields = Value::map(
            [(std::sync::Arc::from("day"), Value::Int(2))]
                .into_iter()
                .collect(),
        );
        assert_eq!(
            text("date.truncate", &[Value::from("month"), d, fields]),
            "2017-11-02"
        );
    }
}
