//! SUCCESS and FAILURE metadata, version-correct, written straight into the output buffer.
//!
//! Drivers are strict about these dictionaries: the `server` agent must start with `Neo4j/`,
//! `connection_id` must be a string, `type` must be one of `r`, `w`, `rw`, `s`, and FAILURE's
//! shape must match the negotiated version (the 5.7 GQL form on an older connection loses
//! the error code). Each builder takes the [`Version`] and writes what that version expects.

pub mod gql;

use bytes::BufMut;
use quiver_status::Status;

use crate::chunk::write_message;
use crate::error::Error;
use crate::message::DictWriter;
use crate::message::signature::{FAILURE, SUCCESS};
use crate::packstream::encode::{write_float, write_string, write_struct_header, write_value};
use crate::packstream::{Buffer, Dialect, write_list_header, write_map_header};
use crate::version::Version;

/// The agent Quiver announces: drivers and tools insist on the `Neo4j/` prefix and parse a
/// version after it.
///
/// The version is the Neo4j release that brought the Bolt version Quiver speaks best: Bolt 6.1
/// and its UUID type arrived with Neo4j 2026.08 (calendar-versioned, as every Neo4j release
/// since 2025.01), so a tool that gates a feature on the server's version finds it. Tools that
/// parse it (LangChain's and neo4j-graphrag's vector support checks) split on `.` after
/// dropping what follows `-`, and compare tuples: `(2026, 8, 0)` passes their 5.x minimums.
/// `dbms.components()`, the HTTP discovery document and `apoc.version()` say the same.
pub const SERVER_AGENT: &str = "Neo4j/2026.08.0-quiver";

/// `SUCCESS {}`: the reply to RESET, ROLLBACK, LOGON, LOGOFF, TELEMETRY, and BEGIN before 5.8.
pub fn encode_success_empty<B: BufMut>(out: &mut B) {
    out.put_slice(&[0x00, 0x03, 0xB1, SUCCESS, 0xA0, 0x00, 0x00]);
}

fn success<B: Buffer>(
    out: &mut B,
    entries: usize,
    f: impl FnOnce(&mut DictWriter<'_, B>) -> Result<(), Error>,
) -> Result<(), Error> {
    write_message(out, |b| {
        write_struct_header(b, 1, SUCCESS);
        let mut w = DictWriter::new(b, entries)?;
        f(&mut w)
    })
}

/// `SUCCESS {has_more: true}`: a PULL or DISCARD that left records behind.
pub fn encode_has_more<B: Buffer>(out: &mut B) -> Result<(), Error> {
    success(out, 1, |w| w.bool("has_more", true))
}

/// HELLO's SUCCESS.
#[derive(Clone, Debug)]
pub struct HelloSuccess<'a> {
    /// Normally [`SERVER_AGENT`].
    pub server: &'a str,
    pub connection_id: &'a str,
    /// Sent as `connection.recv_timeout_seconds`: the client may time out a read after this
    /// long, so the server then owes it a NOOP at least this often during long work.
    pub recv_timeout_seconds: Option<i64>,
    /// `telemetry.enabled` (5.4+): whether the client should send TELEMETRY.
    pub telemetry_enabled: bool,
    /// `ssr.enabled` (5.8+): server-side routing.
    pub ssr_enabled: bool,
    /// 4.3 and 4.4: acknowledge `patch_bolt: ["utc"]`.
    pub utc_patch: bool,
}

impl HelloSuccess<'_> {
    pub fn encode<B: Buffer>(&self, out: &mut B, version: Version) -> Result<(), Error> {
        let telemetry = version.has_telemetry();
        let ssr = version.has_home_db_resolution();
        let hints = usize::from(self.recv_timeout_seconds.is_some())
            + usize::from(telemetry)
            + usize::from(ssr);
        let patch = self.utc_patch && version.has_utc_patch();
        let has_hints = version.has_hints();
        let entries = 2 + usize::from(has_hints) + usize::from(patch);
        success(out, entries, |w| {
            w.string("server", self.server)?;
            w.string("connection_id", self.connection_id)?;
            if has_hints {
                let b = w.key("hints")?;
                let mut h = DictWriter::new(b, hints)?;
                if let Some(t) = self.recv_timeout_seconds {
                    h.int("connection.recv_timeout_seconds", t)?;
                }
                if telemetry {
                    h.bool("telemetry.enabled", self.telemetry_enabled)?;
                }
                if ssr {
                    h.bool("ssr.enabled", self.ssr_enabled)?;
                }
            }
            if patch {
                w.strings("patch_bolt", &["utc".to_owned()])?;
            }
            Ok(())
        })
    }
}

/// RUN's SUCCESS: the result's columns.
#[derive(Clone, Debug)]
pub struct RunSuccess<'a, S: AsRef<str>> {
    pub fields: &'a [S],
    pub t_first_ms: i64,
    /// Inside an explicit transaction: the stream's qid.
    pub qid: Option<i64>,
    /// 5.8+: the database the query runs in, when the client named none.
    pub db: Option<&'a str>,
}

impl<S: AsRef<str>> RunSuccess<'_, S> {
    pub fn encode<B: Buffer>(&self, out: &mut B, version: Version) -> Result<(), Error> {
        let db = self.db.filter(|_| version.has_home_db_resolution());
        let entries = 2 + usize::from(self.qid.is_some()) + usize::from(db.is_some());
        success(out, entries, |w| {
            let b = w.key("fields")?;
            write_list_header(b, self.fields.len())?;
            for f in self.fields {
                write_string(b, f.as_ref())?;
            }
            w.int("t_first", self.t_first_ms)?;
            if let Some(q) = self.qid {
                w.int("qid", q)?;
            }
            if let Some(db) = db {
                w.string("db", db)?;
            }
            Ok(())
        })
    }
}

/// BEGIN's SUCCESS: empty, except that 5.8+ names the database it resolved.
pub fn encode_begin_success<B: Buffer>(
    out: &mut B,
    db: Option<&str>,
    version: Version,
) -> Result<(), Error> {
    match db.filter(|_| version.has_home_db_resolution()) {
        Some(db) => success(out, 1, |w| w.string("db", db)),
        None => {
            encode_success_empty(out);
            Ok(())
        }
    }
}

/// COMMIT's SUCCESS: the bookmark of the committed transaction.
pub fn encode_commit_success<B: Buffer>(out: &mut B, bookmark: Option<&str>) -> Result<(), Error> {
    match bookmark {
        Some(bm) => success(out, 1, |w| w.string("bookmark", bm)),
        None => {
            encode_success_empty(out);
            Ok(())
        }
    }
}

/// What a query did, as the summary's `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryType {
    Read,
    Write,
    ReadWrite,
    Schema,
}

impl QueryType {
    pub fn as_str(self) -> &'static str {
        match self {
            QueryType::Read => "r",
            QueryType::Write => "w",
            QueryType::ReadWrite => "rw",
            QueryType::Schema => "s",
        }
    }
}

/// Update counters, sent under Neo4j's names; zero counters are left out, as Neo4j does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
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

impl Stats {
    fn counters(&self) -> [(&'static str, u64); 11] {
        [
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
        ]
    }

    pub fn contains_updates(&self) -> bool {
        self.counters().iter().any(|(_, n)| *n > 0)
    }

    pub fn is_empty(&self) -> bool {
        !self.contains_updates() && self.system_updates == 0
    }

    /// The counters; the `contains-…` flags only where the version has them.
    fn encode<B: BufMut>(&self, b: &mut B, version: Version) -> Result<(), Error> {
        let counters = self.counters();
        let nonzero = counters.iter().filter(|(_, n)| *n > 0).count();
        let system = self.system_updates > 0;
        let flags = version.has_contains_updates();
        let contains = flags && self.contains_updates();
        let entries =
            nonzero + usize::from(contains) + usize::from(system) + usize::from(system && flags);
        let mut w = DictWriter::new(b, entries)?;
        for (name, n) in counters {
            if n > 0 {
                w.int(name, i64::try_from(n).unwrap_or(i64::MAX))?;
            }
        }
        if contains {
            w.bool("contains-updates", true)?;
        }
        if system {
            w.int(
                "system-updates",
                i64::try_from(self.system_updates).unwrap_or(i64::MAX),
            )?;
            if flags {
                w.bool("contains-system-updates", true)?;
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Warning,
    Information,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "WARNING",
            Severity::Information => "INFORMATION",
        }
    }
}

/// A position in the query text: offset from 0, line and column from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub offset: i64,
    pub line: i64,
    pub column: i64,
}

impl Position {
    fn encode<B: BufMut>(self, b: &mut B) -> Result<(), Error> {
        let mut w = DictWriter::new(b, 3)?;
        w.int("offset", self.offset)?;
        w.int("line", self.line)?;
        w.int("column", self.column)
    }
}

/// A warning or note about a query. Sent as a `notification` up to 5.4 and as a GQL status
/// object from 5.6.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    /// Neo4j's code, e.g. `Neo.ClientNotification.Statement.CartesianProduct`.
    pub code: String,
    pub title: String,
    pub description: String,
    pub severity: Severity,
    /// Category (≤5.4) / classification (5.6+), e.g. `PERFORMANCE`.
    pub category: String,
    /// e.g. `03N90`.
    pub gql_status: String,
    /// e.g. `info: cartesian product. The disconnected pattern ...`.
    pub status_description: String,
    pub position: Option<Position>,
}

impl Notification {
    fn encode_legacy<B: BufMut>(&self, b: &mut B) -> Result<(), Error> {
        let mut w = DictWriter::new(b, 5 + usize::from(self.position.is_some()))?;
        w.string("code", &self.code)?;
        w.string("title", &self.title)?;
        w.string("description", &self.description)?;
        w.string("severity", self.severity.as_str())?;
        w.string("category", &self.category)?;
        if let Some(p) = self.position {
            p.encode(w.key("position")?)?;
        }
        Ok(())
    }

    fn encode_status<B: BufMut>(&self, b: &mut B) -> Result<(), Error> {
        let mut w = DictWriter::new(b, 6 + usize::from(self.position.is_some()))?;
        w.string("gql_status", &self.gql_status)?;
        w.string("status_description", &self.status_description)?;
        w.string("neo4j_code", &self.code)?;
        w.string("title", &self.title)?;
        w.string("description", &self.description)?;
        if let Some(p) = self.position {
            p.encode(w.key("position")?)?;
        }
        let b = w.key("diagnostic_record")?;
        write_diagnostic_record(
            b,
            &[
                ("_severity", self.severity.as_str()),
                ("_classification", &self.category),
            ],
            self.position,
        )
    }
}

/// The diagnostic record every GQL status object carries, plus Neo4j's `_` extensions.
fn write_diagnostic_record<B: BufMut>(
    b: &mut B,
    extra: &[(&str, &str)],
    position: Option<Position>,
) -> Result<(), Error> {
    let mut w = DictWriter::new(b, 3 + extra.len() + usize::from(position.is_some()))?;
    w.string("OPERATION", "")?;
    w.string("OPERATION_CODE", "0")?;
    w.string("CURRENT_SCHEMA", "/")?;
    for (k, v) in extra {
        w.string(k, v)?;
    }
    if let Some(p) = position {
        p.encode(w.key("_position")?)?;
    }
    Ok(())
}

/// The success status a 5.6+ summary leads with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// `00000`: the result had records.
    Success,
    /// `02000`: the result had columns but no records.
    NoData,
    /// `00001`: the query returns no result (no columns).
    OmittedResult,
}

impl Completion {
    fn status(self) -> (&'static str, &'static str) {
        match self {
            Completion::Success => ("00000", "note: successful completion"),
            Completion::NoData => ("02000", "note: no data"),
            Completion::OmittedResult => ("00001", "note: successful completion - omitted result"),
        }
    }
}

/// Measured figures of a profiled plan operator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanProfile {
    pub rows: i64,
    pub db_hits: i64,
    /// Nanoseconds, as Neo4j reports them.
    pub time: i64,
}

/// One operator of an EXPLAIN or PROFILE plan, as the summary's `plan` or `profile` carries
/// it: `{operatorType, identifiers, args, children}`, and for a profiled operator `rows`,
/// `dbHits`, `time` and the page cache figures (0, 0 and a ratio of 0: Quiver has no page
/// cache). Drivers read exactly these keys (`args` becomes the plan's `arguments`).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub operator_type: String,
    pub identifiers: Vec<String>,
    pub args: Vec<(&'static str, quiver_value::Value)>,
    pub profile: Option<PlanProfile>,
    pub children: Vec<Plan>,
}

impl Plan {
    fn encode<B: BufMut>(&self, b: &mut B) -> Result<(), Error> {
        let mut w = DictWriter::new(b, 4 + 6 * usize::from(self.profile.is_some()))?;
        w.string("operatorType", &self.operator_type)?;
        w.strings("identifiers", &self.identifiers)?;
        let b = w.key("args")?;
        write_map_header(b, self.args.len())?;
        for (key, value) in &self.args {
            write_string(b, key)?;
            write_value(b, value, Dialect::BOLT5)?;
        }
        if let Some(p) = self.profile {
            w.int("rows", p.rows)?;
            w.int("dbHits", p.db_hits)?;
            w.int("time", p.time)?;
            w.int("pageCacheHits", 0)?;
            w.int("pageCacheMisses", 0)?;
            let b = w.key("pageCacheHitRatio")?;
            write_float(b, 0.0);
        }
        let b = w.key("children")?;
        write_list_header(b, self.children.len())?;
        for child in &self.children {
            child.encode(b)?;
        }
        Ok(())
    }
}

/// The final SUCCESS of a PULL or DISCARD that exhausted its stream.
#[derive(Clone, Debug)]
pub struct Summary<'a> {
    /// Auto-commit only: the bookmark of the transaction the query ran in.
    pub bookmark: Option<&'a str>,
    pub db: Option<&'a str>,
    pub t_last_ms: i64,
    pub query_type: QueryType,
    pub stats: Stats,
    pub notifications: &'a [Notification],
    pub completion: Completion,
    /// EXPLAIN's plan (sent as `plan`) or PROFILE's measured plan (sent as `profile`).
    pub plan: Option<&'a Plan>,
}

impl Summary<'_> {
    pub fn encode<B: Buffer>(&self, out: &mut B, version: Version) -> Result<(), Error> {
        let statuses = version.has_gql_statuses();
        let has_stats = !self.stats.is_empty();
        let has_notes = statuses || !self.notifications.is_empty();
        let entries = 2
            + usize::from(self.bookmark.is_some())
            + usize::from(self.db.is_some())
            + usize::from(has_stats)
            + usize::from(has_notes)
            + usize::from(self.plan.is_some());
        success(out, entries, |w| {
            if let Some(bm) = self.bookmark {
                w.string("bookmark", bm)?;
            }
            if let Some(db) = self.db {
                w.string("db", db)?;
            }
            w.int("t_last", self.t_last_ms)?;
            w.string("type", self.query_type.as_str())?;
            if has_stats {
                self.stats.encode(w.key("stats")?, version)?;
            }
            if let Some(plan) = self.plan {
                let key = if plan.profile.is_some() {
                    "profile"
                } else {
                    "plan"
                };
                plan.encode(w.key(key)?)?;
            }
            if statuses {
                let b = w.key("statuses")?;
                write_list_header(b, 1 + self.notifications.len())?;
                let (gql_status, description) = self.completion.status();
                let mut s = DictWriter::new(b, 3)?;
                s.string("gql_status", gql_status)?;
                s.string("status_description", description)?;
                write_diagnostic_record(s.key("diagnostic_record")?, &[], None)?;
                for n in self.notifications {
                    n.encode_status(b)?;
                }
            } else if has_notes {
                let b = w.key("notifications")?;
                write_list_header(b, self.notifications.len())?;
                for n in self.notifications {
                    n.encode_legacy(b)?;
                }
            }
            Ok(())
        })
    }
}

/// A FAILURE, in the form the connection's version expects.
#[derive(Clone, Debug)]
pub struct Failure<'a> {
    /// Neo4j's status code, e.g. `Neo.ClientError.Statement.SyntaxError`.
    pub code: Status,
    pub message: &'a str,
    /// Where in the query the error is (5.7+ sends it in the diagnostic record).
    pub position: Option<Position>,
}

impl Failure<'_> {
    /// Up to 5.6: `{code, message}`. 5.7+: `{neo4j_code, message, gql_status, description,
    /// diagnostic_record}`.
    pub fn encode<B: Buffer>(&self, out: &mut B, version: Version) -> Result<(), Error> {
        write_message(out, |b| {
            write_struct_header(b, 1, FAILURE);
            if !version.has_gql_errors() {
                let mut w = DictWriter::new(b, 2)?;
                w.string("code", self.code.code())?;
                return w.string("message", self.message);
            }
            let gql = self.code.gql();
            let mut w = DictWriter::new(b, 5)?;
            w.string("neo4j_code", self.code.code())?;
            w.string("message", self.message)?;
            w.string("gql_status", gql.gql_status)?;
            w.string("description", &gql::error_description(&gql, self.message))?;
            let b = w.key("diagnostic_record")?;
            write_diagnostic_record(
                b,
                &[
                    ("_classification", gql.classification),
                    ("_severity", "ERROR"),
                ],
                self.position,
            )
        })
    }
}

/// A server's place in the routing table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Write,
    Read,
    Route,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Write => "WRITE",
            Role::Read => "READ",
            Role::Route => "ROUTE",
        }
    }
}

/// ROUTE's reply: `SUCCESS {rt: {ttl, db, servers: [{addresses, role}, ...]}}`.
#[derive(Clone, Debug)]
pub struct RoutingTable<'a> {
    pub ttl_seconds: i64,
    pub db: &'a str,
    /// `host:port` addresses per role; roles without addresses are left out. A single
    /// server lists itself under all three.
    pub servers: &'a [(Role, &'a [String])],
}

impl RoutingTable<'_> {
    pub fn encode<B: Buffer>(&self, out: &mut B) -> Result<(), Error> {
        let servers: Vec<&(Role, &[String])> =
            self.servers.iter().filter(|(_, a)| !a.is_empty()).collect();
        success(out, 1, |w| {
            let b = w.key("rt")?;
            let mut rt = DictWriter::new(b, 3)?;
            rt.int("ttl", self.ttl_seconds)?;
            rt.string("db", self.db)?;
            let b = rt.key("servers")?;
            write_list_header(b, servers.len())?;
            for (role, addresses) in servers {
                write_map_header(b, 2)?;
                write_string(b, "addresses")?;
                write_list_header(b, addresses.len())?;
                for a in *addresses {
                    write_string(b, a)?;
                }
                write_string(b, "role")?;
                write_string(b, role.as_str())?;
            }
            Ok(())
        })
    }
}
