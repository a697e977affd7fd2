//! Runs one benchmark query in a loop (a profiling aid): `hot <persons> <query-name> <seconds>`.

use std::time::{Duration, Instant};

#[path = "../benches/social.rs"]
mod social;

fn main() {
    let mut args = std::env::args().skip(1);
    let persons = args.next().and_then(|p| p.parse().ok()).unwrap_or(100_000);
    let name = args.next().unwrap_or_else(|| "friend_of_friend".to_owned());
    let seconds: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let graph = social::generate(persons);
    let db = social::load(&graph);
    let custom = social::Query {
        name: "custom",
        cypher: Box::leak(name.clone().into_boxed_str()),
        param: social::Param::PersonId,
    };
    let q = social::QUERIES
        .iter()
        .find(|q| q.name == name)
        .unwrap_or(&custom);
    let t = Instant::now();
    let mut n = 0usize;
    while t.elapsed() < Duration::from_secs_f64(seconds) {
        n += 1;
        social::run(&db, q, social::params(q, &graph, n));
    }
    println!(
        "{n} runs, {:.0}/s, cache {:?}",
        n as f64 / t.elapsed().as_secs_f64(),
        db.plan_cache_stats()
    );
}
