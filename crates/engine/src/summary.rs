//! What a finished query reports: Neo4j's update counters, the query type, the plan (for
//! `EXPLAIN` and `PROFILE`) and notifications.

use std::sync::Arc;
use std::time::Duration;

use quiver_storage::DurabilityTicket;
use quiver_value::{Map, Value};

use crate::bookmark::Bookmark;

/// Neo4j's update counters, with the names drivers expect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub nodes_created: u64,
    pub nodes_deleted: u64,
    pub relationships_created: u64,
    pub relationships_deleted: u64,
    pub properties_set: u64,
    pub labels_added: u64,
    pub labels_removed: u64,
    pub indexes_added: u64,
    pub indexes_removed: u64,
    pub constraints_added: u64,
    pub constraints_removed: u64,
    pub system_updates: u64,
}

impl Counters {
    /// Adds `other`'s counts to these (a batch run on a worker of its own).
    pub fn add(&mut self, other: &Counters) {
        self.nodes_created += other.nodes_created;
        self.nodes_deleted += other.nodes_deleted;
        self.relationships_created += other.relationships_created;
        self.relationships_deleted += other.relationships_deleted;
        self.properties_set += other.properties_set;
        self.labels_added += other.labels_added;
        self.labels_removed += other.labels_removed;
        self.indexes_added += other.indexes_added;
        self.indexes_removed += other.indexes_removed;
        self.constraints_added += other.constraints_added;
        self.constraints_removed += other.constraints_removed;
        self.system_updates += other.system_updates;
    }

    /// Whether the query changed data or schema (`contains-updates`).
    pub fn contains_updates(&self) -> bool {
        self.nodes_created
            + self.nodes_deleted
            + self.relationships_created
            + self.relationships_deleted
            + self.properties_set
            + self.labels_added
            + self.labels_removed
            + self.indexes_added
            + self.indexes_removed
            + self.constraints_added
            + self.constraints_removed
            > 0
    }

    /// The non-zero counters under their Neo4j names (`nodes-created`, ...), plus
    /// `contains-updates` when any is set: the shape of Bolt's `stats` map.
    pub fn to_entries(&self) -> Vec<(&'static str, i64)> {
        let all = [
            ("nodes-created", self.nodes_created),
            ("nodes-deleted", self.nodes_deleted),
            ("relationships-created", self.relationships_created),
            ("relationships-deleted", self.relationships_deleted),
            ("properties-set", self.properties_set),
            ("labels-added", self.labels_added),
            ("labels-removed", self.labels_removed),
            ("indexes-added", self.indexes_added),
            ("indexes-removed", self.indexes_removed),
            ("constraints-added", self.constraints_added),
            ("constraints-removed", self.constraints_removed),
            ("system-updates", self.system_updates),
        ];
        let mut out: Vec<(&'static str, i64)> = all
            .into_iter()
            .filter(|(_, v)| *v > 0)
            .map(|(k, v)| (k, i64::try_from(v).unwrap_or(i64::MAX)))
            .collect();
        if self.contains_updates() {
            out.push(("contains-updates", 1));
        }
        if self.system_updates > 0 {
            out.push(("contains-system-updates", 1));
        }
        out
    }
}

/// Neo4j's query type: read only, read-write, write only, or schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueryType {
    Read,
    ReadWrite,
    Write,
    Schema,
}

impl QueryType {
    /// The code Bolt's `type` field carries: `r`, `rw`, `w` or `s`.
    pub fn code(self) -> &'static str {
        match self {
            QueryType::Read => "r",
            QueryType::ReadWrite => "rw",
            QueryType::Write => "w",
            QueryType::Schema => "s",
        }
    }
}

/// One operator of a plan, as `EXPLAIN` and `PROFILE` show it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanDescription {
    /// Neo4j-style operator name: `NodeByLabelScan`, `Expand(All)`, `Filter`, ...
    pub operator: String,
    /// Free-form details: the variables, labels and predicates involved.
    pub details: String,
    /// Variables bound after this operator.
    pub identifiers: Vec<Arc<str>>,
    /// The planner's estimate of rows produced.
    pub estimated_rows: f64,
    /// `PROFILE` only: rows produced and time spent in the operator (children excluded).
    pub profile: Option<OperatorProfile>,
    pub children: Vec<PlanDescription>,
}

/// Measured figures of one operator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OperatorProfile {
    pub rows: u64,
    /// Store reads the operator made itself: each node or relationship a scan or expand
    /// produced, each property, label or type an expression read.
    pub db_hits: u64,
    pub time: Duration,
}

/// The planner Quiver names in a plan's root arguments; the Cypher version it runs is 5.
const PLANNER: &str = "COST";
const RUNTIME: &str = "QUIVER";
const CYPHER_VERSION: &str = "5";

impl PlanDescription {
    /// The plan as an indented tree, one operator a line.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out, 0);
        out
    }

    fn render_into(&self, out: &mut String, depth: usize) {
        use std::fmt::Write;
        let _ = write!(out, "{}+{}", "  ".repeat(depth), self.operator);
        if !self.details.is_empty() {
            let _ = write!(out, " {}", self.details);
        }
        let _ = write!(out, " (est. {:.0} rows", self.estimated_rows);
        if let Some(p) = &self.profile {
            let _ = write!(
                out,
                ", {} rows, {} db hits, {} us",
                p.rows,
                p.db_hits,
                p.time.as_micros()
            );
        }
        out.push_str(")\n");
        for child in &self.children {
            child.render_into(out, depth + 1);
        }
    }

    /// Total rows of a profiled plan's operators.
    pub fn total_rows(&self) -> u64 {
        self.profile.map_or(0, |p| p.rows) + self.children.iter().map(Self::total_rows).sum::<u64>()
    }

    /// Total db hits of a profiled plan's operators (Neo4j's "Total database accesses").
    pub fn total_db_hits(&self) -> u64 {
        self.profile.map_or(0, |p| p.db_hits)
            + self.children.iter().map(Self::total_db_hits).sum::<u64>()
    }

    /// The operator's arguments under Neo4j's names, in the one form Bolt's `args` and the
    /// HTTP APIs' `arguments` both carry: `Details` and `EstimatedRows` always, the measured
    /// `Rows`, `DbHits`, `Time` (nanoseconds) and page cache figures (always 0: the store is
    /// in memory) when profiled, and at the `root` the planner, runtime and Cypher version and
    /// the whole plan as text (`string-representation`), as Neo4j sends them.
    pub fn arguments(&self, root: bool) -> Vec<(&'static str, Value)> {
        let mut out = Vec::with_capacity(16);
        if root {
            let text = |s: &str| Value::String(s.into());
            out.push(("planner", text(PLANNER)));
            out.push(("planner-impl", text(RUNTIME)));
            out.push(("planner-version", text(env!("CARGO_PKG_VERSION"))));
            out.push(("runtime", text(RUNTIME)));
            out.push(("runtime-impl", text(RUNTIME)));
            out.push(("runtime-version", text(env!("CARGO_PKG_VERSION"))));
            out.push(("version", text(CYPHER_VERSION)));
            out.push(("string-representation", Value::String(self.render().into())));
        }
        if !self.details.is_empty() {
            out.push(("Details", Value::String(self.details.as_str().into())));
        }
        out.push(("EstimatedRows", Value::Float(self.estimated_rows)));
        if let Some(p) = &self.profile {
            let int = |n: u64| Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
            out.push(("Rows", int(p.rows)));
            out.push(("DbHits", int(p.db_hits)));
            out.push(("Time", int(p.time_nanos())));
            out.push(("PageCacheHits", Value::Int(0)));
            out.push(("PageCacheMisses", Value::Int(0)));
        }
        out
    }
}

impl OperatorProfile {
    /// The time in nanoseconds, the unit of Neo4j's `time` figures.
    pub fn time_nanos(&self) -> u64 {
        u64::try_from(self.time.as_nanos()).unwrap_or(u64::MAX)
    }
}

/// A warning attached to a query's summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    pub code: &'static str,
    pub title: String,
    pub description: String,
}

/// The end-of-stream report of a query.
#[derive(Clone, Debug)]
pub struct QuerySummary {
    pub stats: Counters,
    pub query_type: QueryType,
    pub plan: Option<PlanDescription>,
    pub notifications: Vec<Notification>,
    /// Set when an auto-commit transaction committed at the end of this query.
    pub commit: Option<CommitInfo>,
    /// Time from `run` to the first row being available (compile plus first pull).
    pub t_first: Duration,
    /// Time from the first to the last row.
    pub t_last: Duration,
    /// What the query cost beside its time.
    pub figures: QueryFigures,
}

/// What a query cost, as the query log writes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueryFigures {
    /// Parsing and planning (near zero when the plan cache answered).
    pub planning: Duration,
    /// CPU time its work took on the threads that ran it, when the database measures it
    /// ([`crate::EngineConfig::track_query_cpu_time`]).
    pub cpu: Option<Duration>,
    /// The most memory it held at once, as its memory accounting counts it.
    pub memory_peak_bytes: u64,
}

/// The outcome of one `pull` or `discard`.
#[derive(Clone, Debug)]
pub enum PullState {
    /// More rows are waiting.
    HasMore,
    /// The stream ended; the query is closed.
    Done(Box<QuerySummary>),
}

/// What a commit reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitInfo {
    /// The commit number; a transaction that wrote nothing reports its snapshot.
    pub commit: u64,
    /// The bookmark naming the commit (its text: `bookmark.to_string()`).
    pub bookmark: Bookmark,
    /// What to await before anyone is told of the commit ([`crate::Database::durable`]): the
    /// commit's own record, or for a write transaction that wrote nothing, the snapshot its
    /// results were read at (newer than the log's acknowledged point, possibly). `None` when
    /// there is nothing to wait for: no commit log, or a read transaction (it reads only
    /// acknowledged commits).
    pub ticket: Option<DurabilityTicket>,
}

impl CommitInfo {
    pub(crate) fn new(commit: u64, ticket: Option<DurabilityTicket>) -> Self {
        CommitInfo {
            commit,
            bookmark: Bookmark::new(commit),
            ticket,
        }
    }
}

/// Metadata of a running transaction, as `SHOW TRANSACTIONS` lists it.
#[derive(Clone, Debug)]
pub struct TransactionInfo {
    pub id: String,
    pub started: std::time::SystemTime,
    pub query: Option<String>,
    pub metadata: Map,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_report_contains_updates() {
        let mut c = Counters::default();
        assert!(!c.contains_updates());
        assert!(c.to_entries().is_empty());
        c.nodes_created = 2;
        let entries = c.to_entries();
        assert_eq!(entries, vec![("nodes-created", 2), ("contains-updates", 1)]);
    }
}
