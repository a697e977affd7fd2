//! Benchmarks of the value-semantics paths the executor runs per row: ordering (`ORDER BY`),
//! hashing group keys (`DISTINCT`, aggregation), arithmetic, function calls, and parsing
//! temporal text.

use std::collections::HashSet;
use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use quiver_value::functions::{FunctionContext, lookup};
use quiver_value::temporal::parse::{parse_date_time, parse_duration};
use quiver_value::{HashKey, TimeZone, Value, order};

/// A deterministic mix of the value types rows usually carry.
fn mixed_values(count: usize) -> Vec<Value> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let r = next();
            match r % 6 {
                0 => Value::Int((r >> 8) as i64 % 1000),
                1 => Value::Float(((r >> 8) % 1000) as f64 / 7.0),
                2 => Value::from(format!("name-{}", (r >> 8) % 500)),
                3 => Value::Null,
                4 => Value::from(vec![Value::Int((r >> 8) as i64 % 10), Value::from("x")]),
                _ => Value::Bool(r & 1 == 0),
            }
        })
        .collect()
}

fn ordering(c: &mut Criterion) {
    let values = mixed_values(10_000);
    c.bench_function("order_sort_10k_mixed", |b| {
        b.iter(|| {
            let mut v = values.clone();
            v.sort_by(order);
            black_box(v);
        });
    });
    let ints: Vec<Value> = (0..10_000_i64).rev().map(Value::Int).collect();
    c.bench_function("order_sort_10k_ints", |b| {
        b.iter(|| {
            let mut v = ints.clone();
            v.sort_by(order);
            black_box(v);
        });
    });
}

fn hashing(c: &mut Criterion) {
    let values = mixed_values(10_000);
    c.bench_function("distinct_10k_mixed", |b| {
        b.iter(|| {
            let set: HashSet<HashKey> = values.iter().cloned().map(HashKey).collect();
            black_box(set.len());
        });
    });
}

fn operators(c: &mut Criterion) {
    let (a, b2) = (Value::Int(40), Value::Int(2));
    c.bench_function("add_ints", |b| {
        b.iter(|| quiver_value::ops::add(black_box(&a), black_box(&b2)));
    });
    let s = Value::from("héllo wörld");
    let upper = lookup("toUpper").map(|f| (f, FunctionContext::new()));
    c.bench_function("call_toupper", |b| {
        b.iter(|| {
            upper
                .as_ref()
                .map(|(f, ctx)| f.call(std::slice::from_ref(black_box(&s)), ctx))
        });
    });
    let map = Value::map(
        [
            (Arc::from("year"), Value::Int(1984)),
            (Arc::from("month"), Value::Int(10)),
            (Arc::from("day"), Value::Int(11)),
        ]
        .into_iter()
        .collect(),
    );
    let date = lookup("date").map(|f| (f, FunctionContext::new()));
    c.bench_function("call_date_from_map", |b| {
        b.iter(|| {
            date.as_ref()
                .map(|(f, ctx)| f.call(std::slice::from_ref(black_box(&map)), ctx))
        });
    });
}

fn parsing(c: &mut Criterion) {
    let utc = TimeZone::Offset(0);
    c.bench_function("parse_date_time_offset", |b| {
        b.iter(|| parse_date_time(black_box("2015-07-21T21:40:32.142+01:00"), &utc));
    });
    c.bench_function("parse_date_time_named_zone", |b| {
        b.iter(|| parse_date_time(black_box("2015-07-21T21:40:32.142[Europe/Stockholm]"), &utc));
    });
    c.bench_function("parse_duration", |b| {
        b.iter(|| parse_duration(black_box("P12Y5M14DT16H12M70.5S")));
    });
}

criterion_group!(benches, ordering, hashing, operators, parsing);
criterion_main!(benches);
