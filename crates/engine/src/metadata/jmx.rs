//! `dbms.queryJmx(query)`: the management beans whose names match a JMX object-name pattern.
//!
//! Neo4j 5 publishes its metrics as beans named `neo4j.metrics:name=neo4j.<metric>`, and
//! Neo4j Browser's `:sysinfo` reads them by name (`neo4j.database.neo4j.ids_in_use.node`,
//! `...transaction.last_committed_tx_id`), taking each bean's `Count` or `Value` attribute.
//! Quiver answers with the beans whose figures it has, from the store and the transaction
//! registry, and the store sizes from the data directory (none in memory); a metric it does
//! not measure (the page cache: Quiver has none) has no bean, as a
//! metric Neo4j filters out has none, and Browser shows it as missing. Neo4j 4.0 removed the
//! older `org.neo4j:instance=kernel#0,...` beans, so patterns naming them match nothing.
//!
//! Patterns follow `javax.management.ObjectName`: `domain:key=value,...`, where the domain and
//! the values may hold `*` and `?`, and a `*` among the properties admits any others.

use quiver_status::Status;
use quiver_value::Value;

use super::values::{DATABASE_NAME, map};
use crate::error::{Error, Result};
use crate::procedures::native::Native;
use crate::procedures::{FieldType, ProcedureContext};

/// The domain Neo4j's metrics beans live in, and the prefix of every metric's name.
const METRICS_DOMAIN: &str = "neo4j.metrics";
const METRICS_PREFIX: &str = "neo4j";

pub(super) fn procedures() -> Vec<Native> {
    vec![
        Native::new(
            "dbms.queryJmx",
            "Query JMX management data by domain and name: the metrics beans whose object \
             names match the pattern, such as `neo4j.metrics:*`.",
            query_jmx,
        )
        .input("query", FieldType::String)
        .output("name", FieldType::String)
        .output("description", FieldType::String)
        .output("attributes", FieldType::Map),
    ]
}

/// How a metric is read: counters expose `Count`, gauges `Value` (Dropwizard's JMX names).
#[derive(Clone, Copy)]
enum Kind {
    Counter,
    Gauge,
}

/// One metric bean: its metric name below the prefix, and its reading.
struct Metric {
    name: String,
    kind: Kind,
    description: &'static str,
    value: u64,
}

/// The metrics Quiver measures, now.
fn metrics(ctx: &ProcedureContext<'_>) -> Result<Vec<Metric>> {
    let database = |metric: &str| format!("database.{DATABASE_NAME}.{metric}");
    let nodes = ctx.tx.count_nodes()?;
    let relationships = ctx.tx.count_rels()?;
    let (_, relationship_types, _) = ctx.storage.token_counts();
    let metric = |metric: &str, kind, description, value| Metric {
        name: database(metric),
        kind,
        description,
        value,
    };
    let mut out = Vec::new();
    if let Some(dir) = &ctx.shared.data_dir {
        let usage =
            quiver_durability::disk_usage(&quiver_durability::RealDisk, dir).map_err(|e| {
                super::values::call_failed(format!("the data directory cannot be read: {e}"))
            })?;
        out.push(metric(
            "store.size.total",
            Kind::Gauge,
            "The total size of the database and transaction logs, in bytes.",
            usage.snapshot_bytes + usage.log_bytes,
        ));
        out.push(metric(
            "store.size.database",
            Kind::Gauge,
            "The size of the database (its snapshots), in bytes.",
            usage.snapshot_bytes,
        ));
    }
    out.extend([
        metric(
            "ids_in_use.node",
            Kind::Gauge,
            "The total number of nodes stored in the database.",
            nodes,
        ),
        metric(
            "ids_in_use.relationship",
            Kind::Gauge,
            "The total number of relationships stored in the database.",
            relationships,
        ),
        metric(
            "ids_in_use.relationship_type",
            Kind::Gauge,
            "The total number of different relationship types stored in the database.",
            relationship_types as u64,
        ),
        metric(
            "neo4j.count.node",
            Kind::Gauge,
            "The total number of nodes in the database.",
            nodes,
        ),
        metric(
            "neo4j.count.relationship",
            Kind::Gauge,
            "The total number of relationships in the database.",
            relationships,
        ),
        metric(
            "transaction.last_committed_tx_id",
            Kind::Counter,
            "The id of the last committed transaction.",
            ctx.storage.last_committed(),
        ),
        metric(
            "transaction.active",
            Kind::Gauge,
            "The number of currently active transactions.",
            ctx.shared.transactions().len() as u64,
        ),
    ]);
    Ok(out)
}

fn query_jmx(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let Some(Value::String(query)) = args.first() else {
        return Err(malformed("null"));
    };
    let pattern = Pattern::parse(query)?;
    Ok(metrics(ctx)?
        .into_iter()
        .filter_map(|m| {
            let full = format!("{METRICS_PREFIX}.{}", m.name);
            pattern
                .matches(METRICS_DOMAIN, &[("name", &full)])
                .then(|| bean(&full, &m))
        })
        .collect())
}

/// A bean's row: its object name, description and attributes, each attribute a map of its
/// description and value as Neo4j gives them.
fn bean(full: &str, m: &Metric) -> Vec<Value> {
    let attribute = match m.kind {
        Kind::Counter => "Count",
        Kind::Gauge => "Value",
    };
    let value = i64::try_from(m.value).unwrap_or(i64::MAX);
    vec![
        Value::from(format!("{METRICS_DOMAIN}:name={full}")),
        Value::from(m.description),
        map([(
            attribute.to_owned(),
            map([
                ("description".to_owned(), Value::from(m.description)),
                ("value".to_owned(), Value::Int(value)),
            ]),
        )]),
    ]
}

fn malformed(query: &str) -> Error {
    Error::runtime(
        Status::ProcedureCallFailed,
        None,
        format!("`{query}` is not a JMX object name pattern: expected domain:key=value,..."),
    )
}

/// A JMX object-name pattern.
#[derive(Debug)]
struct Pattern {
    domain: String,
    properties: Vec<(String, String)>,
    /// A `*` among the properties: names with other properties match too.
    more: bool,
}

impl Pattern {
    fn parse(text: &str) -> Result<Pattern> {
        let (domain, list) = text.split_once(':').ok_or_else(|| malformed(text))?;
        if list.is_empty() {
            return Err(malformed(text));
        }
        let mut pattern = Pattern {
            domain: domain.to_owned(),
            properties: Vec::new(),
            more: false,
        };
        for entry in list.split(',') {
            if entry == "*" {
                pattern.more = true;
                continue;
            }
            let (key, value) = entry.split_once('=').ok_or_else(|| malformed(text))?;
            if key.is_empty() || value.is_empty() {
                return Err(malformed(text));
            }
            pattern.properties.push((key.to_owned(), value.to_owned()));
        }
        Ok(pattern)
    }

    /// Whether the bean `domain:properties` is one this pattern names.
    fn matches(&self, domain: &str, properties: &[(&str, &str)]) -> bool {
        let named = self.properties.iter().all(|(key, value)| {
            properties
                .iter()
                .any(|(k, v)| *k == key.as_str() && glob(value, v))
        });
        // An empty domain is the server's default domain, which holds none of Quiver's beans.
        !self.domain.is_empty()
            && glob(&self.domain, domain)
            && named
            && (self.more || self.properties.len() == properties.len())
    }
}

/// Whether `text` matches `pattern`, where `*` stands for any run of characters and `?` for
/// one.
fn glob(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    let (mut p, mut t) = (0, 0);
    // Where the last `*` was, and the text position it has absorbed up to.
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == '?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::{Pattern, glob};

    #[test]
    fn globs_match_runs_and_single_characters() {
        assert!(glob("*", ""));
        assert!(glob("neo4j.*", "neo4j.metrics"));
        assert!(glob("neo4j.metric?", "neo4j.metrics"));
        assert!(glob("*.node", "neo4j.database.neo4j.ids_in_use.node"));
        assert!(!glob("*.node", "neo4j.database.neo4j.ids_in_use.nodes"));
        assert!(!glob("org.neo4j", "neo4j.metrics"));
    }

    #[test]
    fn patterns_follow_object_names() {
        let name = [("name", "neo4j.dbms.page_cache.hits")];
        let matches = |p: &str| Pattern::parse(p).expect(p).matches("neo4j.metrics", &name);
        assert!(matches("*:*"));
        assert!(matches("neo4j.metrics:*"));
        assert!(matches("neo4j.metrics:name=neo4j.dbms.page_cache.hits"));
        assert!(matches("neo4j.metrics:name=*page_cache*,*"));
        assert!(!matches("org.neo4j:*"));
        assert!(!matches(
            "neo4j.metrics:name=neo4j.dbms.page_cache.hits,type=x"
        ));
        assert!(!matches("neo4j.metrics:name=other"));
        for bad in ["no colon", "neo4j.metrics:", "d:key", "d:=v"] {
            assert!(Pattern::parse(bad).is_err(), "{bad}");
        }
    }
}
