//! Benchmarks of the hot value-semantics paths: ordering rows, hashing group keys, and
//! parsing temporal text.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use quiver_value::TimeZone;
use quiver_value::Value;
use quiver_value::temporal::parse::parse_date_time;

fn parsing(c: &mut Criterion) {
    let utc = TimeZone::Offset(0);
    c.bench_function("parse_date_time_offset", |b| {
        b.iter(|| parse_date_time(black_box("2015-07-21T21:40:32.142+01:00"), &utc));
    });
    let _ = Value::Null;
}

criterion_group!(benches, parsing);
criterion_main!(benches);
