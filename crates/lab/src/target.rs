//! What the lab drives: the in-process Quiver, or any running Bolt server.
//!
//! A target bundles its address, credentials, and whatever it lets the lab observe: the
//! server's counters, its process (memory, descriptors, CPU), and a way to read the committed
//! `:Counter` total between windows. A peer that offers none of these is still measured —
//! the report marks what could not be verified.

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use quiver_value::{Map, Value};

use crate::client::{ClientError, Connection, Credentials, Dialer};
use crate::counters::CounterSource;
use crate::error::LabError;
use crate::load::open;
use crate::procfs::{self, Pid};
use crate::sampler::Probe;
use crate::seed::{Knows, Person, Social};
use crate::tls::TlsClient;
use crate::workload::{COUNT_QUERY, COUNTER_TOTAL_QUERY};

/// Rows sent per `UNWIND` batch when seeding over the wire.
const SEED_BATCH_ROWS: usize = 500;
const SEED_TIMEOUT: Duration = Duration::from_secs(120);

/// Where a target's CPU time is read.
#[derive(Clone, Debug)]
pub enum CpuSource {
    /// Threads of this process whose names start with the prefix.
    Threads(&'static str),
    Process(u32),
    Unknown,
}

impl CpuSource {
    pub fn read(&self) -> Option<Duration> {
        match self {
            CpuSource::Threads(prefix) => procfs::threads_cpu(prefix),
            CpuSource::Process(pid) => procfs::process_cpu(Pid::Other(*pid)),
            CpuSource::Unknown => None,
        }
    }
}

/// Reads the committed `:Counter` total without a connection (in process).
pub type TotalReader = Arc<dyn Fn() -> Option<i64> + Send + Sync>;

#[derive(Clone)]
pub struct Target {
    /// `quiver (in process)`, or the URL without credentials.
    pub label: String,
    pub addr: SocketAddr,
    pub credentials: Option<Credentials>,
    pub counters: CounterSource,
    pub probe: Probe,
    pub server_cpu: CpuSource,
    /// `None`: read the total over the wire, between windows.
    pub total_reader: Option<TotalReader>,
    pub in_process: bool,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("label", &self.label)
            .field("addr", &self.addr)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

impl Target {
    /// A connection of the lab's own, with the target's credentials, for reading or seeding
    /// between windows rather than as part of one.
    async fn open_between_windows(&self, dialer: &Dialer) -> Result<Connection, ClientError> {
        open(
            dialer,
            self.credentials.as_ref(),
            false,
            Duration::from_secs(10),
        )
        .await
    }

    /// The committed `:Counter` total. In process it is read through the engine; otherwise
    /// over a connection of its own, opened and closed between windows so it never changes
    /// the connection count a window measures.
    pub async fn counter_total(&self, dialer: &Dialer) -> Option<i64> {
        if let Some(read) = &self.total_reader {
            return read();
        }
        let mut conn = self.open_between_windows(dialer).await.ok()?;
        let total = conn
            .query_scalar(COUNTER_TOTAL_QUERY, Map::new())
            .await
            .ok();
        conn.close().await;
        match total? {
            Some(Value::Int(n)) => Some(n),
            Some(Value::Float(f)) if f.fract() == 0.0 => Some(f as i64),
            Some(Value::Null) | None => Some(0),
            Some(_) => None,
        }
    }
}

/// A parsed `bolt://[user:password@]host:port` (or `bolt+s://`, `bolt+ssc://`, and the same
/// with `neo4j`).
#[derive(Clone, Debug)]
pub struct TargetUrl {
    pub addr: SocketAddr,
    pub credentials: Option<Credentials>,
    /// The URL without credentials, for reports.
    pub display: String,
    /// `bolt`, `bolt+s`, `bolt+ssc`, `neo4j`, …: whether and how TLS is spoken.
    pub scheme: String,
    /// The host as the URL names it: the name the server's certificate must carry.
    pub host: String,
}

impl TargetUrl {
    /// The TLS client the scheme asks for (`None`: plain Bolt). `ca` is `--tls-ca`.
    pub fn tls_client(
        &self,
        ca: Option<&std::path::Path>,
        resume: bool,
    ) -> Result<Option<TlsClient>, LabError> {
        crate::tls::trust_of(&self.scheme, ca)?
            .map(|trust| TlsClient::new(&trust, &self.host, resume))
            .transpose()
    }
}

/// Splits the part of a URL after its scheme, `[user:password@]host...`, into the
/// credentials it names and the rest; the error says what is wrong with the credentials.
pub(crate) fn split_credentials(rest: &str) -> Result<(Option<Credentials>, &str), &'static str> {
    let Some((userinfo, hostport)) = rest.rsplit_once('@') else {
        return Ok((None, rest));
    };
    let (principal, password) = userinfo
        .split_once(':')
        .ok_or("credentials must be user:password")?;
    let credentials = Credentials {
        principal: principal.to_owned(),
        password: password.to_owned(),
    };
    Ok((Some(credentials), hostport))
}

pub fn parse_url(url: &str) -> Result<TargetUrl, LabError> {
    let bad = |detail: &str| LabError::Usage(format!("--target {url}: {detail}"));
    let (scheme, rest) = url
        .split_once("://")
        .filter(|(scheme, _)| {
            matches!(
                *scheme,
                "bolt" | "bolt+s" | "bolt+ssc" | "neo4j" | "neo4j+s" | "neo4j+ssc"
            )
        })
        .ok_or_else(|| bad("expected bolt://host:port (or bolt+s://, bolt+ssc://)"))?;
    let (credentials, hostport) = split_credentials(rest).map_err(bad)?;
    let hostport = hostport.trim_end_matches('/');
    let hostport = if hostport.ends_with(']') || !hostport.contains(':') {
        format!("{hostport}:7687")
    } else {
        hostport.to_owned()
    };
    let host = hostport
        .rsplit_once(':')
        .map_or(hostport.as_str(), |(host, _)| host)
        .to_owned();
    let addr = hostport
        .to_socket_addrs()
        .map_err(|e| bad(&e.to_string()))?
        .next()
        .ok_or_else(|| bad("the host resolves to nothing"))?;
    Ok(TargetUrl {
        addr,
        credentials,
        display: format!("{scheme}://{hostport}"),
        scheme: scheme.to_owned(),
        host,
    })
}

/// `NAME=bolt://…`.
pub fn parse_peer(peer: &str) -> Result<(String, TargetUrl), String> {
    let (name, url) = peer
        .split_once('=')
        .ok_or_else(|| format!("--peer {peer}: expected NAME=bolt://host:port"))?;
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(format!(
            "--peer {peer}: the name must be letters, digits, - or _"
        ));
    }
    let url = parse_url(url).map_err(|e| e.to_string())?;
    Ok((name.to_owned(), url))
}

/// A target reached over the network, observed as far as the flags allow.
pub fn remote(url: &TargetUrl, http: Option<SocketAddr>, pid: Option<u32>, fds: bool) -> Target {
    Target {
        label: url.display.clone(),
        addr: url.addr,
        credentials: url.credentials.clone(),
        counters: http.map_or(CounterSource::Unavailable, CounterSource::Http),
        probe: Probe {
            pid: pid.map_or(Pid::Other(0), Pid::Other),
            fds: fds && pid.is_some(),
            tasks: None,
        },
        server_cpu: pid.map_or(CpuSource::Unknown, CpuSource::Process),
        total_reader: None,
        in_process: false,
    }
}

/// Seeds `social` into a running server over the wire when it holds no `:Person` yet; checks
/// the count when it does. Statements are plain Cypher with `UNWIND`ed parameter batches, so
/// any Bolt server with Cypher can be seeded the same way.
pub async fn seed_over_wire(
    target: &Target,
    dialer: &Dialer,
    social: &Social,
) -> Result<(), LabError> {
    tokio::time::timeout(SEED_TIMEOUT, seed_inner(target, dialer, social))
        .await
        .map_err(|_| LabError::Seed(format!("{}: seeding timed out", target.label)))?
}

async fn seed_inner(target: &Target, dialer: &Dialer, social: &Social) -> Result<(), LabError> {
    let fail = |e: crate::client::ClientError| LabError::Seed(format!("{}: {e}", target.label));
    let mut conn = target.open_between_windows(dialer).await.map_err(fail)?;
    let persons = conn
        .query_scalar(COUNT_QUERY, Map::new())
        .await
        .map_err(fail)?;
    let expected = social.people.len() as i64;
    match persons {
        Some(Value::Int(n)) if n == expected => {
            conn.close().await;
            return Ok(());
        }
        Some(Value::Int(0)) | None => {}
        Some(other) => {
            conn.close().await;
            return Err(LabError::Seed(format!(
                "{} holds {other:?} :Person nodes, not {expected}: start it empty",
                target.label
            )));
        }
    }
    // Indexes first (ignored where the syntax or the feature is missing: they only speed up
    // the seeding and the seek queries).
    for ddl in [
        "CREATE INDEX FOR (p:Person) ON (p.id)",
        "CREATE INDEX FOR (c:Counter) ON (c.slot)",
    ] {
        let _ = conn.query_scalar(ddl, Map::new()).await;
    }
    for chunk in social.people.chunks(SEED_BATCH_ROWS) {
        conn.query_scalar(
            "UNWIND $rows AS r CREATE (:Person {id: r.id, name: r.name})",
            rows_param(person_rows(chunk)),
        )
        .await
        .map_err(fail)?;
    }
    for chunk in social.knows.chunks(SEED_BATCH_ROWS) {
        conn.query_scalar(
            "UNWIND $rows AS r MATCH (a:Person {id: r.a}), (b:Person {id: r.b}) \
             CREATE (a)-[:KNOWS {since: r.since}]->(b)",
            rows_param(knows_rows(social, chunk)),
        )
        .await
        .map_err(fail)?;
    }
    let mut params = Map::new();
    params.insert("n".into(), Value::Int(social.spec.write_slots as i64));
    conn.query_scalar(
        "UNWIND range(0, $n - 1) AS i CREATE (:Counter {slot: i, hits: 0})",
        params,
    )
    .await
    .map_err(fail)?;
    let persons = conn
        .query_scalar(COUNT_QUERY, Map::new())
        .await
        .map_err(fail)?;
    conn.close().await;
    if persons != Some(Value::Int(expected)) {
        return Err(LabError::Seed(format!(
            "{}: after seeding it counts {persons:?} :Person nodes, not {expected}",
            target.label
        )));
    }
    Ok(())
}

/// The parameters of a batch: its rows as `$rows`.
fn rows_param(rows: Vec<Value>) -> Map {
    let mut m = Map::new();
    m.insert("rows".into(), Value::List(rows.into()));
    m
}

/// One row of a batch, a map of the given entries.
fn row(entries: &[(&str, Value)]) -> Value {
    let mut m = Map::new();
    for (k, v) in entries {
        m.insert((*k).into(), v.clone());
    }
    Value::Map(m.into())
}

/// The rows that create these people.
fn person_rows(people: &[Person]) -> Vec<Value> {
    people
        .iter()
        .map(|p| {
            row(&[
                ("id", Value::from(p.id.as_str())),
                ("name", Value::from(p.name.as_str())),
            ])
        })
        .collect()
}

/// The rows that link these pairs of people (by their ids).
fn knows_rows(social: &Social, knows: &[Knows]) -> Vec<Value> {
    knows
        .iter()
        .filter_map(|k| {
            let a = social.people.get(k.from as usize)?;
            let b = social.people.get(k.to as usize)?;
            Some(row(&[
                ("a", Value::from(a.id.as_str())),
                ("b", Value::from(b.id.as_str())),
                ("since", Value::from(k.since.as_str())),
            ]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_with_and_without_credentials() {
        let u = parse_url("bolt://127.0.0.1:17687").unwrap();
        assert_eq!(u.addr, "127.0.0.1:17687".parse().unwrap());
        assert!(u.credentials.is_none());
        let u = parse_url("bolt://neo4j:s3cret:x@127.0.0.1:7687").unwrap();
        let c = u.credentials.unwrap();
        assert_eq!(
            (c.principal.as_str(), c.password.as_str()),
            ("neo4j", "s3cret:x")
        );
        assert_eq!(u.display, "bolt://127.0.0.1:7687");
        assert_eq!(parse_url("bolt://127.0.0.1").unwrap().addr.port(), 7687);
        assert!(parse_url("http://127.0.0.1:7687").is_err());
        assert!(parse_url("bolt://user@127.0.0.1:1").is_err());
        let u = parse_url("bolt+ssc://localhost:7688").unwrap();
        assert_eq!(
            (u.scheme.as_str(), u.host.as_str()),
            ("bolt+ssc", "localhost")
        );
        assert_eq!(u.display, "bolt+ssc://localhost:7688");
        assert!(u.tls_client(None, false).unwrap().is_some());
        let u = parse_url("bolt+s://127.0.0.1:7688").unwrap();
        assert!(u.tls_client(None, false).is_err());
        assert!(
            parse_url("bolt://127.0.0.1:1")
                .unwrap()
                .tls_client(None, false)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn peers_need_a_name() {
        let (name, url) = parse_peer("falkordb=bolt://127.0.0.1:17687").unwrap();
        assert_eq!(name, "falkordb");
        assert_eq!(url.addr.port(), 17687);
        assert!(parse_peer("bolt://127.0.0.1:1").is_err());
        assert!(parse_peer("a b=bolt://127.0.0.1:1").is_err());
    }
}
