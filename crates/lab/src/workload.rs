//! What each connection says (`--workload`), and how every answer is checked.
//!
//! The shapes are nested so that consecutive pairs differ by one thing, which is what lets a
//! difference between two ladders be attributed rather than merely observed:
//! `return1 → count` adds only the label scan (both answer one integer in one row), so it
//! separates the cost of the wire and the session from the cost of touching the graph;
//! `count → txread` adds only BEGIN/COMMIT; `count → records` changes only how many RECORDs a
//! reply carries; `txread → txwrite` makes the statement a write. `mixed` puts writers and
//! readers side by side (the readers-vs-writers table).
//!
//! Every unit of work is encoded once per connection and replayed, so the client spends its
//! time on the socket and on checking answers, not on encoding. Answers are checked straight
//! from the message bytes (no value tree is built for a row).

use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use quiver_bolt::message::{Request, TxExtra, signature};
use quiver_bolt::packstream::{Decoder, Dialect, Limits, Side};
use quiver_bolt::{Codec, UtcOnly, Version};
use quiver_value::{Map, Value};
use serde::{Deserialize, Serialize};

use crate::seed::Social;

/// The cheapest query a server can answer: no graph access, one row of one integer.
pub const RETURN1_QUERY: &str = "RETURN 1 AS c";
/// The fixed read: every shape but `return1`, `records` and `mixed` sends it.
pub const COUNT_QUERY: &str = "MATCH (n:Person) RETURN count(n) AS c";
/// One write per unit: the connection's own counter, incremented and read back.
pub const WRITE_QUERY: &str =
    "MATCH (c:Counter {slot: $slot}) SET c.hits = c.hits + 1 RETURN c.hits AS hits";
/// The committed total of every counter, read between windows.
pub const COUNTER_TOTAL_QUERY: &str = "MATCH (c:Counter) RETURN sum(c.hits) AS total";
/// The readers of `mixed`: an index seek and a two-hop count from one person.
pub const SEEK_QUERY: &str = "MATCH (p:Person {id: $id}) RETURN p.name AS name";
pub const TWO_HOP_QUERY: &str =
    "MATCH (p:Person {id: $id})-[:KNOWS]->()-[:KNOWS]->(f) RETURN count(f) AS c";
/// People each `mixed` reader cycles through.
const READER_SAMPLES: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    Count,
    Return1,
    Txread,
    Records,
    Txwrite,
    Mixed,
    /// The LDBC SNB Interactive mix over its own generated graph (see [`crate::snb`]): not a
    /// unit of the ladder's kind, so it has no units here.
    #[value(name = "ldbc-snb")]
    #[serde(rename = "ldbc-snb")]
    LdbcSnb,
}

impl Workload {
    pub fn name(self) -> &'static str {
        match self {
            Workload::Count => "count",
            Workload::Return1 => "return1",
            Workload::Txread => "txread",
            Workload::Records => "records",
            Workload::Txwrite => "txwrite",
            Workload::Mixed => "mixed",
            Workload::LdbcSnb => "ldbc-snb",
        }
    }

    /// The single statement of a one-query read shape (what a RESP peer is asked too).
    pub fn read_query(self) -> Option<&'static str> {
        match self {
            Workload::Count | Workload::Txread => Some(COUNT_QUERY),
            Workload::Return1 => Some(RETURN1_QUERY),
            _ => None,
        }
    }

    /// Units run inside BEGIN/COMMIT.
    pub fn explicit(self) -> bool {
        matches!(self, Workload::Txread | Workload::Txwrite)
    }

    /// Units move the `:Counter` total.
    pub fn writes(self) -> bool {
        matches!(self, Workload::Txwrite | Workload::Mixed)
    }
}

/// Whether a unit reads or writes (`mixed` reports them apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitKind {
    Read,
    Write,
}

/// How the rows of one result stream are checked.
#[derive(Clone, Debug)]
pub enum RowCheck {
    /// One column holding exactly this integer.
    Int(i64),
    /// One column holding an integer of at least one (a counter just incremented).
    Positive,
    /// One column holding exactly this string.
    Text(Arc<str>),
    /// Two columns: a 24-hex-digit `:Person` id and a string name.
    PersonRows,
}

/// What one request of an exchange is answered with.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A summary alone (SUCCESS, or FAILURE).
    Summary,
    /// Exactly `rows` RECORDs passing `check`, then the summary.
    Stream { check: RowCheck, rows: u64 },
}

/// Requests written together (pipelined) and the replies they are owed, in order.
#[derive(Clone, Debug)]
pub struct Exchange {
    pub bytes: Bytes,
    pub replies: Vec<Reply>,
}

/// One verified unit of work: a query, or a whole transaction.
#[derive(Clone, Debug)]
pub struct Unit {
    pub kind: UnitKind,
    pub exchanges: Vec<Exchange>,
}

/// The role of one connection in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `count`, `txread`, `records`, `txwrite`: connection `index` of the run.
    Uniform { index: usize },
    /// `mixed`: writer `index`.
    Writer { index: usize },
    /// `mixed`: reader `index`.
    Reader { index: usize },
}

/// Everything needed to build a connection's units.
#[derive(Clone, Debug)]
pub struct Plan {
    pub workload: Workload,
    /// `records`: rows per reply.
    pub rows: u64,
    pub write_slots: usize,
    pub social: Arc<Social>,
}

impl Plan {
    /// The units one connection cycles through, encoded for `version`.
    pub fn units(&self, role: Role, version: Version) -> Vec<Unit> {
        let persons = self.social.people.len() as i64;
        let slot = |index: usize| (index % self.write_slots.max(1)) as i64;
        match (self.workload, role) {
            (Workload::LdbcSnb, _) => Vec::new(),
            (Workload::Mixed, Role::Reader { index }) => self.reader_units(index, version),
            (Workload::Mixed, Role::Writer { index } | Role::Uniform { index }) => {
                vec![auto_commit(
                    version,
                    UnitKind::Write,
                    WRITE_QUERY,
                    slot_params(slot(index)),
                    RowCheck::Positive,
                    1,
                )]
            }
            (Workload::Count, _) => vec![auto_commit(
                version,
                UnitKind::Read,
                COUNT_QUERY,
                Map::new(),
                RowCheck::Int(persons),
                1,
            )],
            (Workload::Return1, _) => vec![auto_commit(
                version,
                UnitKind::Read,
                RETURN1_QUERY,
                Map::new(),
                RowCheck::Int(1),
                1,
            )],
            (Workload::Records, _) => vec![auto_commit(
                version,
                UnitKind::Read,
                &records_query(self.rows),
                Map::new(),
                RowCheck::PersonRows,
                self.rows.min(persons as u64),
            )],
            (Workload::Txread, _) => vec![explicit(
                version,
                UnitKind::Read,
                COUNT_QUERY,
                Map::new(),
                RowCheck::Int(persons),
            )],
            (
                Workload::Txwrite,
                Role::Uniform { index } | Role::Writer { index } | Role::Reader { index },
            ) => {
                vec![explicit(
                    version,
                    UnitKind::Write,
                    WRITE_QUERY,
                    slot_params(slot(index)),
                    RowCheck::Positive,
                )]
            }
        }
    }

    fn reader_units(&self, reader: usize, version: Version) -> Vec<Unit> {
        let n = self.social.people.len();
        if n == 0 {
            return Vec::new();
        }
        let mut units = Vec::with_capacity(2 * READER_SAMPLES);
        for k in 0..READER_SAMPLES.min(n) {
            // A fixed stride through the people, offset per reader, so readers touch
            // different nodes and every run touches the same ones.
            let person = (reader * 7_919 + k * 104_729) % n;
            let Some(p) = self.social.people.get(person) else {
                continue;
            };
            let params = || {
                let mut m = Map::new();
                m.insert("id".into(), Value::from(p.id.as_str()));
                m
            };
            units.push(auto_commit(
                version,
                UnitKind::Read,
                SEEK_QUERY,
                params(),
                RowCheck::Text(Arc::from(p.name.as_str())),
                1,
            ));
            units.push(auto_commit(
                version,
                UnitKind::Read,
                TWO_HOP_QUERY,
                params(),
                RowCheck::Int(self.social.two_hop_count(person) as i64),
                1,
            ));
        }
        units
    }
}

/// `records`: the row count is a literal, so every engine plans the same constant query.
pub fn records_query(rows: u64) -> String {
    format!("MATCH (n:Person) RETURN n.id AS id, n.name AS name LIMIT {rows}")
}

fn slot_params(slot: i64) -> Map {
    let mut m = Map::new();
    m.insert("slot".into(), Value::Int(slot));
    m
}

/// Encodes requests into one pipelined buffer. The requests are built by the lab itself (short
/// strings, small maps), so encoding cannot fail; a failure would leave the exchange empty and
/// every unit would then fail verification loudly rather than pass silently.
pub fn encode(version: Version, requests: &[Request]) -> Bytes {
    let codec = Codec::new(version);
    let mut out = BytesMut::with_capacity(256);
    for r in requests {
        if r.encode(&mut out, &codec).is_err() {
            return Bytes::new();
        }
    }
    out.freeze()
}

fn run(query: &str, params: Map) -> Request {
    Request::Run {
        query: query.to_owned(),
        params,
        extra: TxExtra::default(),
    }
}

const PULL_ALL: Request = Request::Pull { n: -1, qid: -1 };

fn auto_commit(
    version: Version,
    kind: UnitKind,
    query: &str,
    params: Map,
    check: RowCheck,
    rows: u64,
) -> Unit {
    Unit {
        kind,
        exchanges: vec![Exchange {
            bytes: encode(version, &[run(query, params), PULL_ALL]),
            replies: vec![Reply::Summary, Reply::Stream { check, rows }],
        }],
    }
}

/// BEGIN, RUN and PULL go out together (as drivers pipeline them); COMMIT follows once the
/// records are in, as a driver commits only after the result is consumed.
fn explicit(version: Version, kind: UnitKind, query: &str, params: Map, check: RowCheck) -> Unit {
    Unit {
        kind,
        exchanges: vec![
            Exchange {
                bytes: encode(
                    version,
                    &[
                        Request::Begin {
                            extra: TxExtra::default(),
                        },
                        run(query, params),
                        PULL_ALL,
                    ],
                ),
                replies: vec![
                    Reply::Summary,
                    Reply::Summary,
                    Reply::Stream { check, rows: 1 },
                ],
            },
            Exchange {
                bytes: encode(version, &[Request::Commit]),
                replies: vec![Reply::Summary],
            },
        ],
    }
}

static UTC_ONLY: UtcOnly = UtcOnly;

fn decoder(message: &[u8]) -> Decoder<'_> {
    Decoder::new(
        message,
        Limits::default(),
        Dialect::BOLT5,
        Side::Client,
        &UTC_ONLY,
    )
}

impl RowCheck {
    /// Whether one RECORD message passes. Reads the bytes in place: a row costs no allocation.
    pub fn check(&self, record: &[u8]) -> bool {
        let mut d = decoder(record);
        let Ok(header) = d.struct_header() else {
            return false;
        };
        if header.tag != signature::RECORD || header.fields != 1 {
            return false;
        }
        let columns = match d.list_len() {
            Ok(n) => n,
            Err(_) => return false,
        };
        let ok = match self {
            RowCheck::Int(expected) => columns == 1 && d.int().is_ok_and(|v| v == *expected),
            RowCheck::Positive => columns == 1 && d.int().is_ok_and(|v| v >= 1),
            RowCheck::Text(expected) => {
                columns == 1 && d.string().is_ok_and(|v| v == expected.as_ref())
            }
            RowCheck::PersonRows => {
                columns == 2
                    && d.string()
                        .is_ok_and(|id| id.len() == 24 && id.bytes().all(|b| b.is_ascii_hexdigit()))
                    && d.string().is_ok()
            }
        };
        ok && d.finish().is_ok()
    }
}

#[cfg(test)]
mod tests {
    use quiver_bolt::message::encode_record;
    use quiver_bolt::packstream::Dialect;

    use super::*;
    use crate::seed::SocialSpec;

    fn record(values: &[Value]) -> Vec<u8> {
        let mut framed = Vec::new();
        encode_record(&mut framed, values, Dialect::BOLT5).unwrap();
        // Strip the chunk header and the end marker: checks see whole messages.
        framed[2..framed.len() - 2].to_vec()
    }

    #[test]
    fn row_checks_accept_exact_answers_only() {
        assert!(RowCheck::Int(2000).check(&record(&[Value::Int(2000)])));
        assert!(!RowCheck::Int(2000).check(&record(&[Value::Int(1999)])));
        assert!(!RowCheck::Int(2000).check(&record(&[Value::Int(2000), Value::Int(1)])));
        assert!(!RowCheck::Int(2000).check(&record(&[Value::from("2000")])));
        assert!(RowCheck::Positive.check(&record(&[Value::Int(1)])));
        assert!(!RowCheck::Positive.check(&record(&[Value::Int(0)])));
        assert!(RowCheck::Text("Ann".into()).check(&record(&[Value::from("Ann")])));
        assert!(!RowCheck::Text("Ann".into()).check(&record(&[Value::from("Bob")])));
        let id = "0123456789abcdef01234567";
        assert!(RowCheck::PersonRows.check(&record(&[Value::from(id), Value::from("x")])));
        assert!(!RowCheck::PersonRows.check(&record(&[Value::from("short"), Value::from("x")])));
        assert!(!RowCheck::PersonRows.check(&record(&[Value::from(id)])));
        assert!(!RowCheck::PersonRows.check(&record(&[Value::from(id), Value::Int(1)])));
        // Not a RECORD at all, and garbage.
        assert!(!RowCheck::Int(1).check(&[0xB1, 0x70, 0xA0]));
        assert!(!RowCheck::Int(1).check(&[0xB1]));
        assert!(!RowCheck::Int(1).check(&[]));
    }

    #[test]
    fn every_workload_builds_units() {
        let social = Arc::new(
            SocialSpec {
                persons: 100,
                knows_min: 2,
                knows_max: 3,
                seed: 1,
                write_slots: 8,
            }
            .generate(),
        );
        for workload in [
            Workload::Count,
            Workload::Return1,
            Workload::Txread,
            Workload::Records,
            Workload::Txwrite,
            Workload::Mixed,
        ] {
            let plan = Plan {
                workload,
                rows: 10,
                write_slots: 8,
                social: Arc::clone(&social),
            };
            let units = plan.units(Role::Uniform { index: 3 }, Version::V5_4);
            assert!(!units.is_empty());
            for u in &units {
                for e in &u.exchanges {
                    assert!(!e.bytes.is_empty(), "{workload:?} encodes");
                }
            }
            let explicit = units[0].exchanges.len() == 2;
            assert_eq!(explicit, workload.explicit(), "{workload:?}");
        }
        let plan = Plan {
            workload: Workload::Mixed,
            rows: 1,
            write_slots: 8,
            social,
        };
        let readers = plan.units(Role::Reader { index: 0 }, Version::V5_4);
        assert_eq!(readers.len(), 2 * READER_SAMPLES);
        assert!(readers.iter().all(|u| u.kind == UnitKind::Read));
        let writers = plan.units(Role::Writer { index: 9 }, Version::V5_4);
        assert_eq!(writers[0].kind, UnitKind::Write);
    }
}
