//! Queries per second of the benchmark queries on the seed social graph, one thread, in
//! process: the Quiver side of the Kùzu comparison in `bench/kuzu/`.
//!
//! ```sh
//! cargo run --release -p quiver-engine --example cypher_qps -- --persons 100000 --seconds 2
//! cargo run --release -p quiver-engine --example cypher_qps -- --export social-csv   # CSV only
//! ```
//!
//! Prints one line per query: name, queries per wall-clock second and per CPU second of this
//! thread (medians of three timed rounds; on a shared machine the CPU figure is the steadier
//! one), rows of the last run.

use std::path::PathBuf;
use std::time::{Duration, Instant};

#[path = "../benches/social.rs"]
mod social;

struct Args {
    persons: usize,
    seconds: f64,
    export: Option<PathBuf>,
}

fn args() -> Args {
    let mut a = Args {
        persons: 100_000,
        seconds: 2.0,
        export: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next();
        match (flag.as_str(), value) {
            ("--persons", Some(v)) => a.persons = v.parse().unwrap_or(a.persons),
            ("--seconds", Some(v)) => a.seconds = v.parse().unwrap_or(a.seconds),
            ("--export", Some(v)) => a.export = Some(PathBuf::from(v)),
            (other, _) => {
                eprintln!("unknown or incomplete flag {other}");
                std::process::exit(2);
            }
        }
    }
    a
}

/// CPU time this thread has run, from /proc/thread-self/schedstat (0 where unavailable).
fn thread_cpu_secs() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0.0, |ns| ns as f64 / 1e9)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn main() {
    let a = args();
    let graph = social::generate(a.persons);
    if let Some(dir) = &a.export {
        social::export_csv(&graph, dir).expect("write CSV");
        println!(
            "exported {} persons and {} knows to {}",
            graph.people.len(),
            graph.knows.len(),
            dir.display()
        );
        return;
    }
    let start = Instant::now();
    let db = social::load(&graph);
    eprintln!(
        "loaded {} persons, {} knows in {:.1}s",
        graph.people.len(),
        graph.knows.len(),
        start.elapsed().as_secs_f64()
    );
    let budget = Duration::from_secs_f64(a.seconds / 3.0);
    for q in social::QUERIES {
        let mut rounds = Vec::new();
        let mut cpu_rounds = Vec::new();
        let mut rows = 0;
        let mut i = 0usize;
        // Warm the plan cache and the caches of the machine.
        for _ in 0..10 {
            i += 1;
            rows = social::run(&db, q, social::params(q, &graph, i));
        }
        for _ in 0..3 {
            let t = Instant::now();
            let cpu = thread_cpu_secs();
            let mut n = 0u64;
            while t.elapsed() < budget || n < 5 {
                i += 1;
                rows = social::run(&db, q, social::params(q, &graph, i));
                n += 1;
            }
            rounds.push(n as f64 / t.elapsed().as_secs_f64());
            cpu_rounds.push(n as f64 / (thread_cpu_secs() - cpu).max(1e-9));
        }
        println!(
            "{}\t{:.0}\t{:.0}\t{rows}",
            q.name,
            median(rounds),
            median(cpu_rounds)
        );
    }
}
