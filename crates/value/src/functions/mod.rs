//! Cypher's scalar function library: the pure functions, with no graph access.
//!
//! The engine resolves a name once with [`lookup`] (case-insensitively) and keeps the
//! [`Function`] handle, so that evaluating a call costs an arity check and a function-pointer
//! call; [`call`] does both steps for one-off use. Graph functions (`id`, `labels`, `type`,
//! `properties`, `keys`, `nodes`, `length`, ...) and aggregates belong to the engine.
//!
//! Functions propagate `null` unless documented otherwise (`coalesce`, `toStringOrNull`, ...).
//! Clock-reading functions (`date()`, `datetime.transaction()`, `timestamp()`) read the
//! instants in the [`FunctionContext`], so every call within a statement sees the same "now".

// Every implementation has the registry's signature, whether or not it can fail.
#[allow(clippy::unnecessary_wraps)]
mod convert;
#[allow(clippy::unnecessary_wraps)]
mod list;
pub use list::IntRange;
#[allow(clippy::unnecessary_wraps)]
mod math;
mod spatial;
mod string;
#[allow(clippy::unnecessary_wraps)]
mod temporal;
#[allow(clippy::unnecessary_wraps)]
mod uuid;
mod vector;

use crate::error::{Result, ValueError};
use crate::temporal::build::Clock;
use crate::temporal::{Instant, TimeZone};
use crate::value::Value;

/// What function evaluation needs from the world: the clocks and the default time zone.
#[derive(Clone, Debug)]
pub struct FunctionContext {
    /// The instant the statement started: `date()`, `datetime.statement()`, `timestamp()`.
    pub statement_time: Instant,
    /// The instant the transaction started: `datetime.transaction()`.
    pub transaction_time: Instant,
    /// The zone of temporal values built without one (`datetime('2015-07-21T21:40')`).
    pub default_zone: TimeZone,
}

impl FunctionContext {
    /// A context whose statement and transaction start now, in UTC.
    pub fn new() -> Self {
        let now = Instant::now();
        FunctionContext {
            statement_time: now,
            transaction_time: now,
            default_zone: TimeZone::Offset(0),
        }
    }

    /// A context with given clocks and default zone.
    pub fn at(statement_time: Instant, transaction_time: Instant, default_zone: TimeZone) -> Self {
        FunctionContext {
            statement_time,
            transaction_time,
            default_zone,
        }
    }

    pub(crate) fn statement_clock(&self) -> Clock {
        Clock {
            now: self.statement_time,
            default_zone: self.default_zone.clone(),
        }
    }
}

impl Default for FunctionContext {
    fn default() -> Self {
        FunctionContext::new()
    }
}

/// The signature every scalar function has.
pub type Implementation = fn(&[Value], &FunctionContext) -> Result<Value>;

/// A resolved function: its canonical name, arity bounds and implementation.
#[derive(Clone, Copy)]
pub struct Function {
    pub name: &'static str,
    pub min_args: usize,
    /// `usize::MAX` for variadic functions.
    pub max_args: usize,
    implementation: Implementation,
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Function")
            .field("name", &self.name)
            .field("min_args", &self.min_args)
            .field("max_args", &self.max_args)
            .finish_non_exhaustive()
    }
}

impl Function {
    /// Calls the function after checking the number of arguments.
    pub fn call(&self, args: &[Value], ctx: &FunctionContext) -> Result<Value> {
        self.check_arity(args.len())?;
        (self.implementation)(args, ctx)
    }

    /// Fails unless `count` arguments suit this function; planners call it before evaluating.
    pub fn check_arity(&self, count: usize) -> Result<()> {
        if (self.min_args..=self.max_args).contains(&count) {
            Ok(())
        } else {
            Err(ValueError::arity(
                self.name,
                self.min_args,
                self.max_args,
                count,
            ))
        }
    }

    /// Whether the function reads a clock or randomness, so that calls cannot be folded into
    /// constants at planning time.
    pub fn is_volatile(&self) -> bool {
        VOLATILE.iter().any(|v| v.eq_ignore_ascii_case(self.name))
    }
}

/// Functions whose result changes between calls with the same arguments.
const VOLATILE: [&str; 8] = [
    "rand",
    "randomuuid",
    // `uuid()` is random; `uuid(text)` is not, but one name cannot tell them apart.
    "uuid",
    "date.realtime",
    "time.realtime",
    "localtime.realtime",
    "datetime.realtime",
    "localdatetime.realtime",
];

const fn f(
    name: &'static str,
    min_args: usize,
    max_args: usize,
    implementation: Implementation,
) -> Function {
    Function {
        name,
        min_args,
        max_args,
        implementation,
    }
}

const VARIADIC: usize = usize::MAX;

/// Every function, sorted by lower-cased name for binary search.
static FUNCTIONS: &[Function] = &[
    f("abs", 1, 1, math::abs),
    f("acos", 1, 1, math::acos),
    f("asin", 1, 1, math::asin),
    f("atan", 1, 1, math::atan),
    f("atan2", 2, 2, math::atan2),
    f("btrim", 1, 2, string::btrim),
    f("ceil", 1, 1, math::ceil),
    f("char_length", 1, 1, string::char_length),
    f("character_length", 1, 1, string::char_length),
    f("coalesce", 1, VARIADIC, list::coalesce),
    f("cos", 1, 1, math::cos),
    f("cosh", 1, 1, math::cosh),
    f("cot", 1, 1, math::cot),
    f("coth", 1, 1, math::coth),
    f("date", 0, 1, temporal::date),
    f("date.realtime", 0, 1, temporal::date_realtime),
    f("date.statement", 0, 1, temporal::date_statement),
    f("date.transaction", 0, 1, temporal::date_transaction),
    f("date.truncate", 2, 3, temporal::date_truncate),
    f("datetime", 0, 1, temporal::datetime),
    f("datetime.fromepoch", 2, 2, temporal::datetime_from_epoch),
    f(
        "datetime.fromepochmillis",
        1,
        1,
        temporal::datetime_from_epoch_millis,
    ),
    f("datetime.realtime", 0, 1, temporal::datetime_realtime),
    f("datetime.statement", 0, 1, temporal::datetime_statement),
    f("datetime.transaction", 0, 1, temporal::datetime_transaction),
    f("datetime.truncate", 2, 3, temporal::datetime_truncate),
    f("degrees", 1, 1, math::degrees),
    f("distance", 2, 2, spatial::distance),
    f("duration", 1, 1, temporal::duration),
    f("duration.between", 2, 2, temporal::duration_between),
    f("duration.indays", 2, 2, temporal::duration_in_days),
    f("duration.inmonths", 2, 2, temporal::duration_in_months),
    f("duration.inseconds", 2, 2, temporal::duration_in_seconds),
    f("e", 0, 0, math::e),
    f("exp", 1, 1, math::exp),
    f("floor", 1, 1, math::floor),
    f("haversin", 1, 1, math::haversin),
    f("head", 1, 1, list::head),
    f("isempty", 1, 1, list::is_empty),
    f("isnan", 1, 1, math::is_nan),
    f("last", 1, 1, list::last),
    f("left", 2, 2, string::left),
    f("localdatetime", 0, 1, temporal::localdatetime),
    f(
        "localdatetime.realtime",
        0,
        1,
        temporal::localdatetime_realtime,
    ),
    f(
        "localdatetime.statement",
        0,
        1,
        temporal::localdatetime_statement,
    ),
    f(
        "localdatetime.transaction",
        0,
        1,
        temporal::localdatetime_transaction,
    ),
    f(
        "localdatetime.truncate",
        2,
        3,
        temporal::localdatetime_truncate,
    ),
    f("localtime", 0, 1, temporal::localtime),
    f("localtime.realtime", 0, 1, temporal::localtime_realtime),
    f("localtime.statement", 0, 1, temporal::localtime_statement),
    f(
        "localtime.transaction",
        0,
        1,
        temporal::localtime_transaction,
    ),
    f("localtime.truncate", 2, 3, temporal::localtime_truncate),
    f("log", 1, 1, math::log),
    f("log10", 1, 1, math::log10),
    f("lower", 1, 1, string::to_lower),
    f("ltrim", 1, 2, string::ltrim),
    f("pi", 0, 0, math::pi),
    f("point", 1, 1, spatial::point),
    f("point.distance", 2, 2, spatial::distance),
    f("point.withinbbox", 3, 3, spatial::within_bbox),
    f("radians", 1, 1, math::radians),
    f("rand", 0, 0, math::rand),
    f("randomuuid", 0, 0, uuid::random_uuid),
    f("range", 2, 3, list::range),
    f("replace", 3, 3, string::replace),
    f("reverse", 1, 1, list::reverse),
    f("right", 2, 2, string::right),
    f("round", 1, 3, math::round),
    f("rtrim", 1, 2, string::rtrim),
    f("sign", 1, 1, math::sign),
    f("sin", 1, 1, math::sin),
    f("sinh", 1, 1, math::sinh),
    f("size", 1, 1, list::size),
    f("split", 2, 2, string::split),
    f("sqrt", 1, 1, math::sqrt),
    f("substring", 2, 3, string::substring),
    f("tail", 1, 1, list::tail),
    f("tan", 1, 1, math::tan),
    f("tanh", 1, 1, math::tanh),
    f("time", 0, 1, temporal::time),
    f("time.realtime", 0, 1, temporal::time_realtime),
    f("time.statement", 0, 1, temporal::time_statement),
    f("time.transaction", 0, 1, temporal::time_transaction),
    f("time.truncate", 2, 3, temporal::time_truncate),
    f("timestamp", 0, 0, temporal::timestamp),
    f("toboolean", 1, 1, convert::to_boolean),
    f("tobooleanlist", 1, 1, convert::to_boolean_list),
    f("tobooleanornull", 1, 1, convert::to_boolean_or_null),
    f("tofloat", 1, 1, convert::to_float),
    f("tofloatlist", 1, 1, convert::to_float_list),
    f("tofloatornull", 1, 1, convert::to_float_or_null),
    f("tointeger", 1, 1, convert::to_integer),
    f("tointegerlist", 1, 1, convert::to_integer_list),
    f("tointegerornull", 1, 1, convert::to_integer_or_null),
    f("tolower", 1, 1, string::to_lower),
    f("tostring", 1, 1, convert::to_string),
    f("tostringlist", 1, 1, convert::to_string_list),
    f("tostringornull", 1, 1, convert::to_string_or_null),
    f("toupper", 1, 1, string::to_upper),
    f("trim", 1, 1, string::trim),
    f("upper", 1, 1, string::to_upper),
    f("uuid", 0, 2, uuid::uuid),
    f(
        "uuid.leastsignificantbits",
        1,
        1,
        uuid::least_significant_bits,
    ),
    f(
        "uuid.mostsignificantbits",
        1,
        1,
        uuid::most_significant_bits,
    ),
    f("vector", 3, 3, vector::vector),
    f(
        "vector_dimension_count",
        1,
        1,
        vector::vector_dimension_count,
    ),
];

/// Names longer than this cannot be functions; refusing them bounds the lookup's work.
const FUNCTION_NAME_BYTES_MAX: usize = 32;

fn cmp_ignore_case(a: &str, b: &str) -> std::cmp::Ordering {
    a.bytes()
        .map(|c| c.to_ascii_lowercase())
        .cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
}

/// Resolves a function name, case-insensitively (`toUpper`, `TOUPPER`, `date.Truncate`).
pub fn lookup(name: &str) -> Option<Function> {
    if name.len() > FUNCTION_NAME_BYTES_MAX {
        return None;
    }
    FUNCTIONS
        .binary_search_by(|f| cmp_ignore_case(f.name, name))
        .ok()
        .map(|i| FUNCTIONS[i])
}

/// Calls a function by name.
pub fn call(name: &str, args: &[Value], ctx: &FunctionContext) -> Result<Value> {
    lookup(name)
        .ok_or_else(|| ValueError::unknown_function(name))?
        .call(args, ctx)
}

/// All function names, for tooling (`SHOW FUNCTIONS`-style listings, completion).
pub fn names() -> impl Iterator<Item = &'static str> {
    FUNCTIONS.iter().map(|f| f.name)
}

/// A type error naming the function and the argument it rejects.
pub(crate) fn bad_argument(function: &str, expected: &str, got: &Value) -> ValueError {
    ValueError::invalid_type(format!(
        "Function '{function}' expects {expected}, got {}",
        got.value_type()
    ))
}

/// The argument at `index`; arity is checked before implementations run, so this only guards
/// optional arguments.
pub(crate) fn arg(args: &[Value], index: usize) -> &Value {
    args.get(index).unwrap_or(&Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_sorted_and_unique() {
        for pair in FUNCTIONS.windows(2) {
            assert_eq!(
                cmp_ignore_case(pair[0].name, pair[1].name),
                std::cmp::Ordering::Less,
                "{}",
                pair[1].name
            );
        }
    }

    #[test]
    fn lookup_ignores_case() {
        assert_eq!(lookup("TOUPPER").unwrap().name, "toupper");
        assert_eq!(lookup("date.Truncate").unwrap().name, "date.truncate");
        assert!(lookup("nope").is_none());
        assert!(lookup(&"x".repeat(1000)).is_none());
    }

    #[test]
    fn arity_and_unknown_names_are_errors() {
        let ctx = FunctionContext::new();
        let err = call("toUpper", &[], &ctx).unwrap_err();
        assert_eq!(err.detail, crate::ErrorDetail::InvalidNumberOfArguments);
        let err = call("frobnicate", &[], &ctx).unwrap_err();
        assert_eq!(err.detail, crate::ErrorDetail::UnknownFunction);
        assert!(lookup("rand").unwrap().is_volatile());
        assert!(!lookup("abs").unwrap().is_volatile());
    }
}
