//! Prints the profiled plan of a query on the seed social graph (a development aid).
//!
//! `cargo run --release -p quiver-engine --example explain -- <persons> '<query with $id>'`

#[path = "../benches/social.rs"]
mod social;

fn main() {
    let mut args = std::env::args().skip(1);
    let persons = args.next().and_then(|p| p.parse().ok()).unwrap_or(10_000);
    let query = args
        .next()
        .unwrap_or_else(|| "MATCH (n) RETURN count(n)".to_owned());
    let graph = social::generate(persons);
    let db = social::load(&graph);
    let q = social::Query {
        name: "q",
        cypher: "",
        param: social::Param::PersonId,
    };
    let params = social::params(&q, &graph, 1);
    match db.execute(&format!("PROFILE {query}"), params) {
        Ok(r) => {
            println!("{} rows", r.rows.len());
            if let Some(plan) = r.summary.plan {
                print!("{}", plan.render());
            }
        }
        Err(e) => println!("error: {e}"),
    }
}
