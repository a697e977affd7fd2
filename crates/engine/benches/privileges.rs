//! What privileges cost a read: the social bench's `count` and `two_hop_count` queries run
//! as the configured administrator, as a stored user with `admin`, and as a stored user whose
//! role is a copy of `admin` with
//! 20 more rules (denied procedure globs, grants and denials on other databases, a denied
//! `IMPERSONATE`), none of which changes what these queries may do; and as a stored user whose
//! role is a copy of `admin` with 20 fine-grained read rules (denied labels and properties
//! that some nodes off the queries' path have), which hide something, so that user's queries
//! read through a restriction and count what they see rather than look counts up. All go
//! through the same path (an auto-commit transaction naming its user), so the difference is
//! the privilege check and, for the last, the restriction. `QUIVER_BENCH_PERSONS` sets the
//! graph's size (default 100,000).

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use quiver_engine::security::Level;
use quiver_engine::{Authentication, Database, TxOptions};
use quiver_value::Map;

#[path = "social.rs"]
mod social;

const ROOT: &str = "root";
const RULED: &str = "ruled";
/// A stored user with `admin`: the baseline a stored user's rules are measured against.
const BOSS: &str = "boss";
/// A stored user whose role hides some labels and properties.
const FINE: &str = "fine";

/// Each measured user, the configured administrator first.
const USERS: [&str; 4] = [ROOT, BOSS, RULED, FINE];

fn persons() -> usize {
    std::env::var("QUIVER_BENCH_PERSONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

/// Runs `query` as `user`; the rows it returned.
fn run_as(db: &Database, user: &str, query: &str, params: Map) -> usize {
    let options = TxOptions {
        user: Some(Arc::from(user)),
        ..TxOptions::auto_commit()
    };
    let mut tx = db.begin(options).expect("begin");
    let q = tx.run(query, params).expect("run");
    let mut rows = Vec::new();
    tx.pull(q, -1, &mut rows).expect("pull");
    tx.commit().expect("commit");
    rows.len()
}

/// The role of [`RULED`]: `admin`'s privileges and 20 rules that take nothing these
/// queries need.
fn rules() -> Vec<String> {
    let mut rules = vec!["CREATE ROLE ruled AS COPY OF admin".to_owned()];
    for i in 0..8 {
        rules.push(format!(
            "DENY EXECUTE PROCEDURE custom{i}.* ON DBMS TO ruled"
        ));
    }
    for i in 0..5 {
        rules.push(format!("DENY MATCH {{*}} ON GRAPH other{i} TO ruled"));
    }
    for i in 0..5 {
        rules.push(format!("GRANT ACCESS ON DATABASE archive{i} TO ruled"));
    }
    rules.push("DENY IMPERSONATE (*) ON DBMS TO ruled".to_owned());
    rules.push("DENY WRITE ON GRAPH other0 TO ruled".to_owned());
    rules.push(format!(
        "CREATE USER {RULED} SET PASSWORD 'password-1' CHANGE NOT REQUIRED"
    ));
    rules.push(format!("GRANT ROLE ruled TO {RULED}"));
    rules.push(format!(
        "CREATE USER {BOSS} SET PASSWORD 'password-1' CHANGE NOT REQUIRED"
    ));
    rules.push(format!("GRANT ROLE admin TO {BOSS}"));
    // Ten labels and ten properties on nodes of their own, each denied to `fine`.
    let hidden: Vec<String> = (0..10)
        .map(|i| format!("(:Hidden{i} {{secret{i}: {i}}})"))
        .collect();
    rules.push(format!("CREATE {}", hidden.join(", ")));
    rules.push("CREATE ROLE fine AS COPY OF admin".to_owned());
    for i in 0..10 {
        rules.push(format!("DENY TRAVERSE ON GRAPH * NODES Hidden{i} TO fine"));
        rules.push(format!(
            "DENY READ {{secret{i}}} ON GRAPH * NODES * TO fine"
        ));
    }
    rules.push(format!(
        "CREATE USER {FINE} SET PASSWORD 'password-1' CHANGE NOT REQUIRED"
    ));
    rules.push(format!("GRANT ROLE fine TO {FINE}"));
    rules
}

fn privileges(c: &mut Criterion) {
    let graph = social::generate(persons());
    let db = social::load(&graph);
    db.set_authentication(Some(Authentication {
        configured: [(ROOT.to_owned(), Level::Admin)].into(),
    }));
    for rule in rules() {
        run_as(&db, ROOT, &rule, Map::new());
    }
    let mut group = c.benchmark_group("privileges");
    group.sample_size(20);
    for q in social::QUERIES
        .iter()
        .filter(|q| matches!(q.name, "count" | "two_hop_count"))
    {
        for user in USERS {
            let mut i = 0usize;
            group.bench_function(format!("{}/{user}", q.name), |b| {
                b.iter(|| {
                    i += 1;
                    run_as(&db, user, q.cypher, social::params(q, &graph, i))
                });
            });
        }
    }
    group.finish();
    interleaved(&db, &graph);
}

/// Criterion measures one user after another, so a change in the machine's load between
/// them reads as a cost: this alternates the users in short blocks, 15 rounds, and prints
/// each one's median time a query and its throughput relative to the configured admin's.
fn interleaved(db: &Database, graph: &social::Social) {
    const ROUNDS: usize = 15;
    const BLOCK: usize = 400;
    for q in social::QUERIES
        .iter()
        .filter(|q| matches!(q.name, "count" | "two_hop_count"))
    {
        let users = USERS;
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); users.len()];
        for round in 0..ROUNDS {
            for (u, user) in users.iter().enumerate() {
                let start = std::time::Instant::now();
                for i in 0..BLOCK {
                    run_as(
                        db,
                        user,
                        q.cypher,
                        social::params(q, graph, round * BLOCK + i),
                    );
                }
                times[u].push(start.elapsed().as_secs_f64() * 1e6 / BLOCK as f64);
            }
        }
        let medians: Vec<f64> = times
            .iter_mut()
            .map(|t| {
                t.sort_by(f64::total_cmp);
                t[t.len() / 2]
            })
            .collect();
        for (user, median) in users.iter().zip(&medians) {
            println!(
                "interleaved {}/{user}: {median:.2} us a query, throughput {:.2}x root's",
                q.name,
                medians[0] / median
            );
        }
    }
}

criterion_group!(benches, privileges);
criterion_main!(benches);
