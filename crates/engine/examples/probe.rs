//! Runs queries from standard input against one in-memory database and prints each result
//! (a development aid). Queries are separated by lines holding only `;`.

use std::io::Read;

use quiver_engine::{Database, EngineConfig};
use quiver_value::{Map, to_cypher_literal};

fn main() {
    let mut input = String::new();
    if std::io::stdin().read_to_string(&mut input).is_err() {
        return;
    }
    let db = Database::open_in_memory(EngineConfig::default());
    for query in input
        .split("\n;\n")
        .map(str::trim)
        .filter(|q| !q.is_empty())
    {
        println!("> {}", query.replace('\n', " "));
        match db.execute(query, Map::new()) {
            Ok(r) => {
                if !r.columns.is_empty() {
                    println!(
                        "  | {} |",
                        r.columns
                            .iter()
                            .map(std::string::ToString::to_string)
                            .collect::<Vec<_>>()
                            .join(" | ")
                    );
                }
                for row in &r.rows {
                    let cells: Vec<String> = row.iter().map(to_cypher_literal).collect();
                    println!("  | {} |", cells.join(" | "));
                }
                let s = r.summary.stats.to_entries();
                if !s.is_empty() {
                    println!("  {s:?}");
                }
            }
            Err(e) => println!(
                "  ERROR {} {:?} {:?}: {}",
                e.status_code(),
                e.detail(),
                e.phase(),
                e.message().lines().next().unwrap_or("")
            ),
        }
    }
}
