//! The study's whole-graph queries on the follows social graph, one query at a time, in
//! process: the Quiver side of `bench/kuzu/whole_graph.sh`.
//!
//! ```sh
//! cargo run --release -p quiver-engine --example whole_graph -- --persons 100000 --runs 3
//! cargo run --release -p quiver-engine --example whole_graph -- --export follows-csv   # CSV only
//! cargo run --release -p quiver-engine --example whole_graph -- --only two_hop_paths --profile
//! ```
//!
//! `--aggregations` times whole-graph aggregations no count answers per node instead of the
//! study's queries (Quiver alone).
//!
//! `--workers N` caps the threads one query runs on (1: every query on one thread, the
//! engine as it was before parallel execution; default: the machine's cores).
//!
//! `--profile` prints each query's profiled plan (rows and db hits per operator) to stderr
//! after its timed runs.
//!
//! Prints one line per query: name, median wall-clock milliseconds and median CPU
//! milliseconds of the process over the timed runs (after one warm-up run), and the result
//! in the canonical form the Kùzu side prints, so the harness can check them equal.

use std::path::PathBuf;
use std::time::Instant;

use quiver_value::Map;

#[path = "../benches/follows.rs"]
mod follows;

struct Args {
    persons: usize,
    runs: usize,
    export: Option<PathBuf>,
    only: Option<String>,
    profile: bool,
    /// The most threads one query runs on (`EngineConfig::query_workers_max`).
    workers: Option<usize>,
    /// Run [`AGGREGATIONS`] instead of the study's queries.
    aggregations: bool,
}

/// Aggregations over the whole graph that no count answers per node (Quiver only: for
/// timing the engine against itself, e.g. `--workers 1` against the default).
const AGGREGATIONS: &[follows::Query] = &[
    follows::Query {
        name: "ages_along_follows",
        cypher: "MATCH (a:Person)-[:FOLLOWS]->(b:Person) RETURN avg(b.age) AS avgAge, \
                 max(a.age - b.age) AS widest, sum(b.age) AS total",
    },
    follows::Query {
        name: "follows_by_gender",
        cypher: "MATCH (a:Person)-[:FOLLOWS]->(b:Person) WHERE a.age < b.age \
                 RETURN a.gender AS gender, count(*) AS n, min(b.age) AS youngest ORDER BY gender",
    },
    follows::Query {
        name: "people_by_age",
        cypher: "MATCH (p:Person) RETURN p.age AS age, count(*) AS n, avg(size(p.name)) AS len \
                 ORDER BY age LIMIT 3",
    },
];

fn args() -> Args {
    let mut a = Args {
        persons: 100_000,
        runs: 3,
        export: None,
        only: None,
        profile: false,
        workers: None,
        aggregations: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--profile" {
            a.profile = true;
            continue;
        }
        if flag == "--aggregations" {
            a.aggregations = true;
            continue;
        }
        let value = it.next();
        match (flag.as_str(), value) {
            ("--persons", Some(v)) => a.persons = v.parse().unwrap_or(a.persons),
            ("--runs", Some(v)) => a.runs = v.parse().unwrap_or(a.runs),
            ("--export", Some(v)) => a.export = Some(PathBuf::from(v)),
            ("--only", Some(v)) => a.only = Some(v),
            ("--workers", Some(v)) => a.workers = v.parse().ok(),
            (other, _) => {
                eprintln!("unknown or incomplete flag {other}");
                std::process::exit(2);
            }
        }
    }
    a
}

/// CPU time of this process: every thread's, including those that have ended (a parallel
/// query's helpers).
fn process_cpu_secs() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn main() {
    let a = args();
    let start = Instant::now();
    let graph = follows::generate(a.persons);
    eprintln!(
        "generated {} persons, {} follows in {:.1}s",
        graph.people.len(),
        graph.follows.len(),
        start.elapsed().as_secs_f64()
    );
    if let Some(dir) = &a.export {
        follows::export_csv(&graph, dir).expect("write CSV");
        return;
    }
    let start = Instant::now();
    let mut config = quiver_engine::EngineConfig::default();
    if let Some(workers) = a.workers {
        config.query_workers_max = workers;
    }
    let db = follows::load_with(&graph, config);
    eprintln!(
        "loaded into Quiver in {:.1}s",
        start.elapsed().as_secs_f64()
    );
    let queries = if a.aggregations {
        AGGREGATIONS
    } else {
        follows::QUERIES
    };
    for q in queries {
        if a.only.as_ref().is_some_and(|o| o != q.name) {
            continue;
        }
        let mut result = String::new();
        let mut walls = Vec::new();
        let mut cpus = Vec::new();
        for run in 0..=a.runs {
            let (t, cpu) = (Instant::now(), process_cpu_secs());
            let rows = match db.execute(q.cypher, Map::new()) {
                Ok(r) => r.rows,
                Err(e) => {
                    result = format!("error: {e}");
                    break;
                }
            };
            let (wall, cpu) = (t.elapsed().as_secs_f64(), process_cpu_secs() - cpu);
            result = follows::canonical(&rows);
            if run > 0 {
                walls.push(wall * 1e3);
                cpus.push(cpu * 1e3);
            }
        }
        if a.profile {
            match db.execute(&format!("PROFILE {}", q.cypher), Map::new()) {
                Ok(r) => eprintln!(
                    "{}\n{}",
                    q.name,
                    r.summary.plan.map(|p| p.render()).unwrap_or_default()
                ),
                Err(e) => eprintln!("{}: PROFILE failed: {e}", q.name),
            }
        }
        println!(
            "{}\t{:.1}\t{:.1}\t{result}",
            q.name,
            median(walls),
            median(cpus)
        );
    }
}
