//! Bad input never panics: every function, operator and parser is fed arbitrary values and
//! text, and must answer with a value or an error.

use std::sync::Arc;

use proptest::prelude::*;
use quiver_value::functions::{FunctionContext, call, names};
use quiver_value::temporal::parse::{
    parse_date, parse_date_time, parse_duration, parse_local_date_time, parse_local_time,
    parse_time,
};
use quiver_value::temporal::{Date, Duration, LocalDateTime, LocalTime, Time, TimeZone};
use quiver_value::{Map, Value, ops, property};

/// Text that looks temporal often enough to reach deep into the parsers.
fn temporalish() -> impl Strategy<Value = String> {
    prop_oneof![
        "[-+0-9:.,TWQPYMDHSZ\\[\\]a-zA-Z/_ ]{0,40}",
        "[-+]?[0-9]{1,12}(-[0-9]{1,3}){0,2}(T[0-9]{1,6}(:[0-9]{1,2}){0,2}(\\.[0-9]{1,12})?)?([-+][0-9]{2}(:?[0-9]{2}){0,2}|Z)?(\\[[A-Za-z/_]{1,20}\\])?",
        "[-+]?P([-+]?[0-9]{1,20}([.,][0-9]{1,12})?[YMWD]){0,4}(T([-+]?[0-9]{1,20}([.,][0-9]{1,12})?[HMS]){0,3})?",
        any::<String>(),
    ]
}

/// Integers biased towards the edges of the range, where overflow hides.
fn extreme_i64() -> impl Strategy<Value = i64> {
    prop_oneof![
        any::<i64>(),
        Just(i64::MAX),
        Just(i64::MIN),
        (0_i64..1_000_000).prop_map(|d| i64::MAX - d),
        (0_i64..1_000_000).prop_map(|d| i64::MIN + d),
        -1_000_000_i64..1_000_000,
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        prop_oneof![any::<i64>(), -5_i64..100, Just(i64::MIN), Just(i64::MAX)].prop_map(Value::Int),
        prop_oneof![
            any::<f64>(),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(-0.0)
        ]
        .prop_map(Value::Float),
        temporalish().prop_map(Value::from),
        prop_oneof![
            Just("year"),
            Just("month"),
            Just("week"),
            Just("day"),
            Just("hour"),
            Just("millennium"),
            Just("microsecond"),
            Just("Europe/Stockholm"),
            Just("+01:00"),
            Just("HALF_EVEN"),
            Just("wgs-84"),
        ]
        .prop_map(Value::from),
        extreme_i64().prop_map(|days| Value::Date(Date { days })),
        (0_i64..86_400_000_000_000).prop_map(|nanos| Value::LocalTime(LocalTime { nanos })),
        ((0_i64..86_400_000_000_000), (-64_800_i32..=64_800)).prop_map(
            |(nanos, offset_seconds)| Value::Time(Time {
                nanos,
                offset_seconds
            })
        ),
        (any::<i64>(), 0_u32..1_000_000_000)
            .prop_map(|(seconds, nanos)| Value::LocalDateTime(LocalDateTime { seconds, nanos })),
        (
            any::<i64>(),
            any::<i64>(),
            any::<i64>(),
            0_i64..1_000_000_000
        )
            .prop_map(|(months, days, seconds, nanos)| Value::Duration(Box::new(
                Duration {
                    months,
                    days,
                    seconds,
                    nanos
                }
            ))),
        (
            any::<i64>(),
            0_u32..1_000_000_000,
            -64_800_i32..=64_800,
            any::<bool>()
        )
            .prop_map(|(seconds, nanos, offset, named)| {
                let zone = if named {
                    TimeZone::Named(Arc::from("Europe/Stockholm"))
                } else {
                    TimeZone::Offset(offset)
                };
                Value::DateTime(Box::new(quiver_value::DateTime {
                    seconds,
                    nanos,
                    offset_seconds: offset,
                    zone,
                }))
            }),
        any::<[u8; 16]>().prop_map(|b| Value::Uuid(quiver_value::Uuid::from_bytes(b))),
        Just(Value::from("550e8400-e29b-41d4-a716-446655440000")),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(2, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("year".to_owned()),
                    Just("month".to_owned()),
                    Just("day".to_owned()),
                    Just("week".to_owned()),
                    Just("hour".to_owned()),
                    Just("nanosecond".to_owned()),
                    Just("timezone".to_owned()),
                    Just("date".to_owned()),
                    Just("time".to_owned()),
                    Just("datetime".to_owned()),
                    Just("x".to_owned()),
                    Just("y".to_owned()),
                    Just("days".to_owned()),
                    Just("epochSeconds".to_owned()),
                ],
                inner,
                0..4
            )
            .prop_map(|m| {
                let map: Map = m
                    .into_iter()
                    .map(|(k, v)| (Arc::from(k.as_str()), v))
                    .collect();
                Value::map(map)
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn parsers_never_panic(text in temporalish()) {
        let _ = parse_date(&text);
        let _ = parse_local_time(&text);
        let _ = parse_time(&text, 3600);
        let _ = parse_local_date_time(&text);
        let _ = parse_date_time(&text, &TimeZone::Offset(0));
        let _ = parse_duration(&text);
    }

    #[test]
    fn functions_never_panic(index in any::<prop::sample::Index>(), args in prop::collection::vec(value(), 0..4)) {
        let all: Vec<&str> = names().collect();
        let name = all[index.index(all.len())];
        let _ = call(name, &args, &FunctionContext::new());
    }

    #[test]
    fn operators_never_panic(a in value(), b in value(), key in "[a-z]{0,12}") {
        let _ = ops::add(&a, &b);
        let _ = ops::subtract(&a, &b);
        let _ = ops::multiply(&a, &b);
        let _ = ops::divide(&a, &b);
        let _ = ops::modulo(&a, &b);
        let _ = ops::power(&a, &b);
        let _ = ops::negate(&a);
        let _ = ops::and(&a, &b);
        let _ = ops::in_list(&a, &b);
        let _ = ops::index(&a, &b);
        let _ = ops::slice(&a, Some(&b), None);
        let _ = property(&a, &key);
        let _ = quiver_value::to_string_cypher(&a);
        let _ = a.to_string();
    }
}
