//! The plan cache holds at most its byte limit: plans are estimated when cached, and the
//! estimate is checked here against what compiling really allocated (this test binary counts
//! every allocation), so the bound holds in real bytes, not only in the cache's own books.

use std::fmt::Write as _;

use quiver_engine::{Database, EngineConfig};
use quiver_value::Map;
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// Live heap bytes of the whole test binary. `stats_alloc` adds a `realloc`'s growth to
/// `bytes_allocated` (and its shrinking to `bytes_deallocated`) as well as to
/// `bytes_reallocated`, so the live figure is the first two alone: adding the third counted
/// every grown buffer's growth twice, which looked like a leak of about 2.5 times a plan's
/// size per query parsed.
fn live() -> isize {
    let stats = ALLOCATOR.stats();
    stats.bytes_allocated as isize - stats.bytes_deallocated as isize
}

/// A distinct query of about `bytes` bytes of text, of one of four shapes.
fn query(shape: usize, n: usize, bytes: usize) -> String {
    let mut q = String::with_capacity(bytes + 64);
    match shape {
        0 => {
            let _ = write!(q, "WITH {n} AS n RETURN size([");
            let mut i = 0;
            while q.len() < bytes {
                let _ = write!(q, "{i}, ");
                i += 1;
            }
            q.push_str("0]) AS s");
        }
        1 => {
            let _ = write!(q, "WITH {n} AS n RETURN size(keys({{k0: 0");
            let mut i = 1;
            while q.len() < bytes {
                let _ = write!(q, ", k{i}: 'v{i}'");
                i += 1;
            }
            q.push_str("})) AS s");
        }
        2 => {
            let _ = write!(q, "MATCH (p:P) WHERE p.id = {n}");
            let mut i = 0;
            while q.len() < bytes {
                let _ = write!(q, " OR p.x = {i} AND p.y < {i}");
                i += 1;
            }
            q.push_str(" RETURN count(p) AS s");
        }
        _ => {
            let _ = write!(q, "RETURN {n}");
            let mut i = 0;
            while q.len() < bytes {
                let _ = write!(q, " + coalesce(null, {i}) * 2");
                i += 1;
            }
            q.push_str(" AS s");
        }
    }
    q
}

/// One test: the counter is the whole binary's, so nothing may allocate beside a measurement.
#[test]
fn the_plan_cache_is_bounded_in_bytes() {
    the_estimate_covers_what_a_plan_holds();
    a_plan_too_large_for_the_cache_or_seen_once_is_not_cached();
    distinct_large_queries_keep_the_cache_under_its_byte_limit();
    with_the_cache_off_distinct_queries_leave_nothing_behind();
}

/// With no plan cache, 100 distinct ~50 KiB queries run twice each leave the database no
/// larger than it began, whatever they parsed and planned: nothing per query text, token or
/// parameter name outlives the query. The bound (256 KiB over the whole run) is far below what
/// a leak of even a tenth of one plan per query (~40 KiB × 100) would leave.
fn with_the_cache_off_distinct_queries_leave_nothing_behind() {
    let (entries, _, held) = distinct_queries(50 * 1024, 0);
    assert_eq!(entries, 0);
    assert!(
        held < 256 * 1024,
        "{held} bytes live after 100 distinct queries with the cache off"
    );
    eprintln!("cache off: {held} bytes live after 100 distinct queries");
}

/// 100 distinct queries, each run twice (the second run caches a long text), through a cache
/// far smaller than they would take together. The short form uses ~50 KiB texts (plans of
/// 0.1 to 0.6 MiB) under a 16 MiB limit; `QUIVER_PLAN_CACHE_LONG=1` runs the hardening issue's
/// ~500 KiB texts (plans of 1 to 6 MiB) under a 256 MiB limit, a few minutes in a debug build.
/// What the cache holds in real bytes is the growth beside the same load with no cache.
fn distinct_large_queries_keep_the_cache_under_its_byte_limit() {
    let long = std::env::var_os("QUIVER_PLAN_CACHE_LONG").is_some();
    let (text_bytes, limit) = if long {
        (500 * 1024, 256usize << 20)
    } else {
        (50 * 1024, 16 << 20)
    };
    let (_, _, uncached) = distinct_queries(text_bytes, 0);
    let (entries, estimated, cached) = distinct_queries(text_bytes, limit);
    assert!(entries > 0, "large repeated queries are cached");
    let held = cached - uncached;
    assert!(
        held <= (limit + limit / 16) as isize,
        "the cache holds {held} bytes, over its limit {limit} and a margin"
    );
    eprintln!("{entries} plans, estimated {estimated} bytes, {held} bytes held");
}

/// Runs 100 distinct queries twice each over a fresh database whose plan cache holds `limit`
/// bytes; returns the plans cached, their estimate and the live bytes the run left behind.
fn distinct_queries(text_bytes: usize, limit: usize) -> (usize, usize, isize) {
    let db = Database::open_in_memory(EngineConfig {
        plan_cache_bytes_max: limit,
        query_bytes_max: 1 << 20,
        ..EngineConfig::default()
    });
    db.execute("CREATE (:P {id: 1, x: 1, y: 0})", Map::new())
        .unwrap();
    let before = live();
    for n in 0..100 {
        let text = query(n % 4, n, text_bytes);
        for _ in 0..2 {
            db.execute(&text, Map::new()).unwrap();
        }
        let (_, estimated) = db.plan_cache_size();
        assert!(estimated <= limit, "estimate {estimated} over {limit}");
    }
    let held = live() - before;
    let (entries, estimated) = db.plan_cache_size();
    drop(db);
    (entries, estimated, held)
}

fn the_estimate_covers_what_a_plan_holds() {
    let db = Database::open_in_memory(EngineConfig {
        plan_cache_bytes_max: 1 << 30,
        ..EngineConfig::default()
    });
    // Warm up: the first queries of a database allocate what lasts beyond any plan.
    for shape in 0..4 {
        db.execute(&query(shape, 1, 100), Map::new()).unwrap();
    }
    for shape in 0..4 {
        for size in [2 * 1024, 12 * 1024] {
            let text = query(shape, 1000 + shape, size);
            let (_, bytes_before) = db.plan_cache_size();
            let before = live();
            db.execute(&text, Map::new()).unwrap();
            let held = live() - before;
            let (_, bytes_after) = db.plan_cache_size();
            let estimated = (bytes_after - bytes_before) as isize;
            eprintln!("shape {shape}, {size} B: held {held}, estimated {estimated}");
            assert!(
                estimated >= held,
                "shape {shape}: estimate {estimated} < held {held}"
            );
            assert!(
                estimated <= held * 4,
                "shape {shape}: estimate {estimated} > 4 x {held}"
            );
        }
    }
}

fn a_plan_too_large_for_the_cache_or_seen_once_is_not_cached() {
    let db = Database::open_in_memory(EngineConfig {
        plan_cache_bytes_max: 1 << 20,
        ..EngineConfig::default()
    });
    let big = query(0, 1, 200 * 1024);
    db.execute(&big, Map::new()).unwrap();
    db.execute(&big, Map::new()).unwrap();
    assert_eq!(db.plan_cache_size().0, 0, "over a sixteenth of the limit");

    let db = Database::open_in_memory(EngineConfig::default());
    let long = query(3, 2, 20 * 1024);
    db.execute(&long, Map::new()).unwrap();
    assert_eq!(db.plan_cache_size().0, 0, "a long text seen once");
    db.execute(&long, Map::new()).unwrap();
    assert_eq!(db.plan_cache_size().0, 1, "the second sighting caches it");
    db.execute("RETURN 1", Map::new()).unwrap();
    assert_eq!(db.plan_cache_size().0, 2, "a short text is cached at once");
}
