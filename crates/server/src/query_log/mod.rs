//! The query log (`--query-log PATH`): one JSON object per line for each query that ran past
//! the threshold (or for every query), with Neo4j's `query.log` field names, so operators'
//! tools read it as they read Neo4j's.
//!
//! Bolt and HTTP report each query where it ends ([`QueryLog::finished`]); the line is made and
//! written by a writer thread the reports reach through a bounded channel, so a slow disk never
//! slows a query. When the channel is full the report is dropped and counted
//! (`quiver_query_log_dropped_total`). The file is rotated by size, keeping a number of old
//! files (`query.log.1` the newest). Whether the log is on, its threshold and whether
//! parameters are written change at run time (`dbms.setConfigValue`).

mod line;
pub mod obfuscate;
pub mod procedure;
mod writer;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::time::{Duration, SystemTime};

use prometheus_client::metrics::counter::Counter;
use quiver_value::{Map, Value};

/// Which queries are logged (Neo4j's `db.logs.query.enabled`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// None.
    Off,
    /// Those that ran at least the threshold.
    #[default]
    Info,
    /// Every query, whatever the threshold.
    Verbose,
}

impl Mode {
    /// Neo4j's spelling of the value.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Off => "OFF",
            Mode::Info => "INFO",
            Mode::Verbose => "VERBOSE",
        }
    }

    fn from_u8(raw: u8) -> Mode {
        match raw {
            0 => Mode::Off,
            2 => Mode::Verbose,
            _ => Mode::Info,
        }
    }

    fn to_u8(self) -> u8 {
        match self {
            Mode::Off => 0,
            Mode::Info => 1,
            Mode::Verbose => 2,
        }
    }
}

impl FromStr for Mode {
    type Err = String;

    /// `off`, `info` or `verbose`, in any case; `true` and `false` as Neo4j 4 wrote them.
    fn from_str(text: &str) -> Result<Mode, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "off" | "false" => Ok(Mode::Off),
            "info" | "true" => Ok(Mode::Info),
            "verbose" => Ok(Mode::Verbose),
            other => Err(format!(
                "`{other}` is not a query log mode: OFF, INFO or VERBOSE"
            )),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Mode {
    /// The same words as [`Mode::from_str`], so a file may write `"INFO"` as Neo4j does.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Mode, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// How the query log is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryLogSettings {
    pub path: PathBuf,
    pub mode: Mode,
    /// Queries that ran at least this long are logged in [`Mode::Info`].
    pub threshold: Duration,
    /// Whether parameters are written (secrets hidden).
    pub parameters: bool,
    /// The file is rotated before a line would take it past this many bytes.
    pub rotation_bytes: u64,
    /// Rotated files kept (`query.log.1` ... `query.log.N`); 0: none, the file starts over.
    pub rotation_keep: u32,
    /// Reports waiting for the writer at most; past it they are dropped and counted.
    pub queue: usize,
    /// Approximate bytes of the reports waiting (their texts and parameters) at most; past
    /// it they are dropped and counted, so a stalled disk cannot take the memory.
    pub queue_bytes: usize,
}

/// Neo4j's defaults: 20 MiB files, seven kept.
pub const ROTATION_BYTES_DEFAULT: u64 = 20 << 20;
pub const ROTATION_KEEP_DEFAULT: u32 = 7;
/// Reports the writer may fall behind by.
pub const QUEUE_DEFAULT: usize = 16 * 1024;
/// Bytes of reports the writer may fall behind by.
pub const QUEUE_BYTES_DEFAULT: usize = 64 << 20;

impl QueryLogSettings {
    /// Neo4j's defaults for a log at `path`: on, a threshold of zero (every query), no
    /// parameters.
    pub fn at(path: &Path) -> QueryLogSettings {
        QueryLogSettings {
            path: path.to_path_buf(),
            mode: Mode::Info,
            threshold: Duration::ZERO,
            parameters: false,
            rotation_bytes: ROTATION_BYTES_DEFAULT,
            rotation_keep: ROTATION_KEEP_DEFAULT,
            queue: QUEUE_DEFAULT,
            queue_bytes: QUEUE_BYTES_DEFAULT,
        }
    }
}

/// The protocol a query came by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Bolt,
    Http,
}

/// One query that ended, as its front end saw it.
#[derive(Clone, Debug)]
pub struct FinishedQuery {
    pub protocol: Protocol,
    /// When the query arrived.
    pub started: SystemTime,
    /// From its arrival to its last record (or failure).
    pub elapsed: Duration,
    /// Waiting before it could run (for the bookmarks it named), where the front end knows it.
    pub waiting: Option<Duration>,
    /// Records sent.
    pub rows: u64,
    pub text: Arc<str>,
    /// Taken only when [`QueryLog::wants_parameters`] said so.
    pub parameters: Option<Map>,
    /// The authenticated user; `None` with authentication off.
    pub user: Option<Arc<str>>,
    pub client: Option<SocketAddr>,
    pub database: Arc<str>,
    /// `SHOW TRANSACTIONS`'s id of the transaction it ran in.
    pub transaction_id: Option<String>,
    /// The transaction's metadata, as the client gave it.
    pub metadata: Map,
    /// Why it failed (its status code and message); `None` when it succeeded.
    pub failure: Option<String>,
    /// Its planning time, CPU time and memory, when it ran to its end.
    pub figures: Option<quiver_engine::QueryFigures>,
}

/// What the writer thread receives.
enum Message {
    /// A report and its approximate bytes, given back to the budget once written.
    Query(Box<FinishedQuery>, usize),
    /// Answered once everything before it is written and flushed.
    Sync(std::sync::mpsc::Sender<()>),
}

/// An open query log: the run-time settings and the way to the writer thread.
#[derive(Debug)]
pub struct QueryLog {
    path: PathBuf,
    mode: AtomicU8,
    threshold_us: AtomicU64,
    parameters: AtomicBool,
    sender: SyncSender<Message>,
    /// Approximate bytes of the reports queued, shared with the writer.
    queued: Arc<AtomicUsize>,
    queue_bytes: usize,
    dropped: Counter,
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Message::Query(..) => "Query",
            Message::Sync(_) => "Sync",
        })
    }
}

impl QueryLog {
    /// Opens (creating if needed) the log and starts its writer; `dropped` counts reports the
    /// full queue turned away.
    pub fn open(settings: &QueryLogSettings, dropped: Counter) -> std::io::Result<QueryLog> {
        let (sender, receiver) = std::sync::mpsc::sync_channel(settings.queue.max(1));
        let queued = Arc::new(AtomicUsize::new(0));
        writer::start(settings, receiver, Arc::clone(&queued))?;
        Ok(QueryLog::with_sender(settings, sender, queued, dropped))
    }

    /// The log of `settings` whose reports go to `sender`.
    fn with_sender(
        settings: &QueryLogSettings,
        sender: SyncSender<Message>,
        queued: Arc<AtomicUsize>,
        dropped: Counter,
    ) -> QueryLog {
        let log = QueryLog {
            path: settings.path.clone(),
            mode: AtomicU8::new(settings.mode.to_u8()),
            threshold_us: AtomicU64::new(0),
            parameters: AtomicBool::new(settings.parameters),
            sender,
            queued,
            queue_bytes: settings.queue_bytes,
            dropped,
        };
        log.set_threshold(settings.threshold);
        log
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn mode(&self) -> Mode {
        Mode::from_u8(self.mode.load(Ordering::Relaxed))
    }

    pub fn set_mode(&self, mode: Mode) {
        self.mode.store(mode.to_u8(), Ordering::Relaxed);
    }

    pub fn threshold(&self) -> Duration {
        Duration::from_micros(self.threshold_us.load(Ordering::Relaxed))
    }

    pub fn set_threshold(&self, threshold: Duration) {
        let us = u64::try_from(threshold.as_micros()).unwrap_or(u64::MAX);
        self.threshold_us.store(us, Ordering::Relaxed);
    }

    /// Whether parameters are written: a front end keeps a query's parameters only then.
    pub fn wants_parameters(&self) -> bool {
        self.mode() != Mode::Off && self.parameters.load(Ordering::Relaxed)
    }

    /// The parameter logging switch itself, whether or not the log is on.
    pub fn parameters_on(&self) -> bool {
        self.parameters.load(Ordering::Relaxed)
    }

    pub fn set_parameters(&self, on: bool) {
        self.parameters.store(on, Ordering::Relaxed);
    }

    /// Whether a query that took `elapsed` is logged under the current settings.
    pub fn wants(&self, elapsed: Duration) -> bool {
        match self.mode() {
            Mode::Off => false,
            Mode::Info => elapsed >= self.threshold(),
            Mode::Verbose => true,
        }
    }

    /// Reports a query that ended; logged when [`QueryLog::wants`] it, without waiting for
    /// the disk. Parameters are dropped here when parameter logging was switched off since
    /// the query took them.
    pub fn finished(&self, mut query: FinishedQuery) {
        if !self.wants(query.elapsed) {
            return;
        }
        if !self.parameters.load(Ordering::Relaxed) {
            query.parameters = None;
        }
        let bytes = approximate_bytes(&query);
        let before = self.queued.fetch_add(bytes, Ordering::Relaxed);
        if before.saturating_add(bytes) > self.queue_bytes {
            self.queued.fetch_sub(bytes, Ordering::Relaxed);
            self.dropped.inc();
            return;
        }
        match self.sender.try_send(Message::Query(Box::new(query), bytes)) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.queued.fetch_sub(bytes, Ordering::Relaxed);
                self.dropped.inc();
            }
        }
    }

    /// Waits until every query reported before this call is written and flushed (for
    /// shutdown and tests; a query never waits on it).
    pub fn sync(&self) {
        let (done, wait) = std::sync::mpsc::channel();
        if self.sender.send(Message::Sync(done)).is_ok() {
            let _ = wait.recv();
        }
    }

    /// Reports dropped because the writer was behind.
    pub fn dropped(&self) -> u64 {
        self.dropped.get()
    }
}

/// What a report holds, roughly: its text, metadata and parameters, and a fixed part.
fn approximate_bytes(query: &FinishedQuery) -> usize {
    let map = |map: &Map| -> usize {
        map.iter()
            .map(|(key, value)| key.len() + value_bytes(value))
            .sum()
    };
    256 + query.text.len()
        + map(&query.metadata)
        + query.parameters.as_ref().map_or(0, map)
        + query.failure.as_ref().map_or(0, String::len)
}

fn value_bytes(value: &Value) -> usize {
    match value {
        Value::String(s) => 16 + s.len(),
        Value::Bytes(b) => 16 + b.len(),
        Value::List(items) => 16 + items.iter().map(value_bytes).sum::<usize>(),
        Value::Map(map) => {
            16 + map
                .iter()
                .map(|(key, value)| key.len() + value_bytes(value))
                .sum::<usize>()
        }
        _ => 32,
    }
}

#[cfg(test)]
mod tests;
