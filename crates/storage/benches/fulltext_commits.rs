//! What a full-text index costs the writers that commit under it: small write transactions
//! (one document of a dozen words each) committed one after another into a store with a
//! full-text index over their label and into one without, side by side in one run.
//!
//! The index is applied off the commit lock by the store's worker thread, so a writer's commit
//! latency should be close to the store without one; the worker's own CPU is reported beside
//! it, since the work moved rather than vanished. Before criterion's figures, each store's
//! commits are timed by this thread's CPU and by the process's, over `QUIVER_BENCH_COMMITS`
//! commits (default 5,000), and the last commit of each run is searched for, so what was
//! timed includes the index having caught up.

mod common;

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use quiver_storage::{FulltextEntity, LabelId, PropKeyId, Storage};
use quiver_value::Value;

struct Store {
    db: Arc<Storage>,
    label: LabelId,
    text: PropKeyId,
    next: u64,
}

fn store(indexed: bool) -> Store {
    let db = Storage::new();
    let label = db.get_or_create_label("D").unwrap();
    let text = db.get_or_create_property_key("text").unwrap();
    if indexed {
        let tx = db.begin_write();
        tx.create_fulltext_index(common::docs_index()).unwrap();
        tx.commit().unwrap();
    }
    Store {
        db,
        label,
        text,
        next: 0,
    }
}

/// A dozen words, the last one naming the document.
fn document(i: u64) -> String {
    format!("the quick brown fox jumps over the lazy dog near river bank doc{i}")
}

fn commit_one(s: &mut Store) {
    s.next += 1;
    let tx = s.db.begin_write();
    tx.create_node(&[s.label], &[(s.text, Value::from(document(s.next)))])
        .unwrap();
    tx.commit().unwrap();
}

fn bench(c: &mut Criterion) {
    let commits: u64 = std::env::var("QUIVER_BENCH_COMMITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000);
    let mut line = Vec::new();
    for indexed in [false, true] {
        let mut s = store(indexed);
        let (thread, process, wall) = (
            common::thread_cpu_secs(),
            common::process_cpu_secs(),
            Instant::now(),
        );
        for _ in 0..commits {
            commit_one(&mut s);
        }
        let writer_us = (common::thread_cpu_secs() - thread) * 1e6 / commits as f64;
        if indexed {
            let read = s.db.begin_read();
            let last = format!("doc{}", s.next);
            let hits = read
                .fulltext_search("docs", FulltextEntity::Node, &last, 0, 1)
                .unwrap();
            assert_eq!(hits.len(), 1, "the last commit is searchable");
        }
        let process_us = (common::process_cpu_secs() - process) * 1e6 / commits as f64;
        let wall_us = wall.elapsed().as_secs_f64() * 1e6 / commits as f64;
        let name = if indexed {
            "with index"
        } else {
            "without index"
        };
        line.push(format!(
            "{name}: writer CPU {writer_us:.1} us, process CPU {process_us:.1} us, \
             wall {wall_us:.1} us a commit"
        ));
    }
    println!("fulltext_commits: {commits} commits | {}", line.join(" | "));

    let mut group = c.benchmark_group("fulltext_commit");
    for indexed in [false, true] {
        let mut s = store(indexed);
        let name = if indexed {
            "with_index"
        } else {
            "without_index"
        };
        group.bench_function(name, |b| b.iter(|| commit_one(black_box(&mut s))));
    }
    group.finish();
}

criterion_group!(benches, bench);

criterion_main!(benches);
