//! The in-process server: the node `quiver serve` runs (assembled by `quiver-node`: the same
//! HTTP API settings, telemetry and shared query pool) over the seeded graph (in memory, no
//! commit log), on a runtime of its own.
//!
//! The server gets its own multi-thread runtime (threads named `quiver-server`), the client
//! another (`lab-client`), so the CPU time of each side can be read apart even though they
//! share a process and the machine's cores. That sharing is the caveat every in-process
//! figure carries; `--target` removes it.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use quiver_node::{HttpService, NodeBuilder, Stopped, Store};
use quiver_server::ShutdownTrigger;
use quiver_server::config::{Config, Layer, TlsMode};
use quiver_server::metrics::Metrics;
use quiver_storage::Storage;
use quiver_value::Value;
use tokio::runtime::Runtime;

use crate::counters::{CounterSource, ServerCounters};
use crate::error::LabError;
use crate::procfs::Pid;
use crate::report::ShutdownRecord;
use crate::sampler::Probe;
use crate::target::{CpuSource, Target};

/// The server runtime's threads; the server's query pool names its own `quiver-query-N`, so
/// the server side's CPU time is that of every thread named `quiver-…`.
pub const SERVER_THREAD_PREFIX: &str = "quiver-server";
pub const SERVER_CPU_PREFIX: &str = "quiver-";
/// Time in-flight work gets to finish when the lab stops the server.
const DRAIN_TIMEOUT_MS: u64 = 5_000;
const STOP_TIMEOUT: Duration = Duration::from_secs(30);

/// How the in-process server is configured.
#[derive(Clone, Copy, Debug)]
pub struct InProcessSpec {
    pub max_connections: u32,
    pub threads: usize,
    pub handshake_timeout_ms: u64,
    pub fds: bool,
    /// Serve Neo4j's HTTP API on the HTTP listener (for `--protocol http`), its header
    /// deadline the handshake deadline.
    pub http_api: bool,
}

pub struct InProcess {
    runtime: Option<Runtime>,
    trigger: ShutdownTrigger,
    task: Option<tokio::task::JoinHandle<Stopped>>,
    metrics: Arc<Metrics>,
    pub storage: Arc<Storage>,
    pub http_addr: SocketAddr,
    bolt_addr: SocketAddr,
}

impl std::fmt::Debug for InProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcess").finish_non_exhaustive()
    }
}

/// Reads the in-process server's counters.
pub fn counters_of(metrics: &Metrics) -> ServerCounters {
    let s = metrics.snapshot();
    ServerCounters {
        accepted: s.bolt.accepted_total,
        rejected: s.bolt.rejected_total,
        refusals_dropped: s.bolt.refusals_dropped_total,
        closed: s.bolt.closed_total,
        panics: s.bolt.panics_total,
        timed_out: s.bolt.timed_out_total,
        active: s.bolt.active,
        in_flight: s.bolt.in_flight,
        messages: s.bolt.messages_total,
        tx_opened: s.transactions.opened_total,
        tx_committed: s.transactions.committed_total,
        tx_rolled_back: s.transactions.rolled_back_total,
        tx_abandoned: s.transactions.abandoned_total,
        tx_active: s.transactions.active,
    }
}

/// The committed total of every `:Counter`'s `hits`, read through storage: no connection,
/// so reading it never changes what a window measures.
pub fn counter_total(storage: &Arc<Storage>) -> Option<i64> {
    let counter = storage.label_id("Counter")?;
    let hits = storage.property_key_id("hits")?;
    let read = storage.begin_read();
    let mut total = 0i64;
    for node in read.scan_label(counter).ok()? {
        if let Some(Value::Int(h)) = read.node_property(node.ok()?, hits).ok()? {
            total += h;
        }
    }
    Some(total)
}

impl InProcess {
    /// Starts the server over `storage` (already seeded) and describes it as a target.
    pub fn start(
        storage: Arc<Storage>,
        spec: InProcessSpec,
    ) -> Result<(InProcess, Target), LabError> {
        InProcess::start_with_tls(storage, spec, None)
    }

    /// [`InProcess::start`], with Bolt TLS `optional` under this certificate chain and key
    /// (PEM files) when given: the same port answers plain and TLS clients.
    pub fn start_with_tls(
        storage: Arc<Storage>,
        spec: InProcessSpec,
        tls: Option<(&Path, &Path)>,
    ) -> Result<(InProcess, Target), LabError> {
        let fail = |detail: String| LabError::Server(detail);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(spec.threads.max(1))
            .thread_name(SERVER_THREAD_PREFIX)
            .enable_all()
            .build()
            .map_err(|e| fail(e.to_string()))?;
        let layer = Layer {
            bolt_listen: Some(
                "127.0.0.1:0"
                    .parse()
                    .map_err(|e: std::net::AddrParseError| fail(e.to_string()))?,
            ),
            http_listen: Some(
                "127.0.0.1:0"
                    .parse()
                    .map_err(|e: std::net::AddrParseError| fail(e.to_string()))?,
            ),
            in_memory: Some(true),
            max_connections: Some(spec.max_connections),
            // Every slot is a general slot, so --max-connections is exactly the admission limit.
            admin_reserved_connections: Some(0),
            handshake_timeout_ms: Some(spec.handshake_timeout_ms),
            http_max_connections: Some(spec.max_connections),
            http_header_read_timeout_ms: Some(spec.handshake_timeout_ms),
            drain_timeout_ms: Some(DRAIN_TIMEOUT_MS),
            log: Some("error".to_owned()),
            tls_cert: tls.map(|(cert, _)| cert.to_owned()),
            tls_key: tls.map(|(_, key)| key.to_owned()),
            bolt_tls: tls.map(|_| TlsMode::Optional),
            http_tls: tls.map(|_| TlsMode::Off),
            ..Layer::default()
        };
        let config = Config::from_layer(layer).map_err(|e| fail(e.to_string()))?;
        // The node `quiver serve` assembles, over the seeded store.
        let node = runtime
            .block_on(
                NodeBuilder::new(config)
                    .store(Store::Storage(Arc::clone(&storage)))
                    .http_service(if spec.http_api {
                        HttpService::Neo4j
                    } else {
                        HttpService::OperationsOnly
                    })
                    .build(),
            )
            .map_err(|e| fail(e.to_string()))?;
        let metrics = Arc::clone(node.metrics());
        let addr = node.bolt_addr();
        let http_addr = node.http_addr();
        let trigger = node.trigger();
        let task = runtime.spawn(node.run());
        let handle = runtime.handle().clone();
        let reader_metrics = Arc::clone(&metrics);
        let total_storage = Arc::clone(&storage);
        let target = Target {
            label: crate::run::IN_PROCESS.to_owned(),
            addr,
            credentials: None,
            counters: CounterSource::InProcess(Arc::new(move || counters_of(&reader_metrics))),
            probe: Probe {
                pid: Pid::This,
                fds: spec.fds,
                tasks: Some(Arc::new(move || handle.metrics().num_alive_tasks() as u64)),
            },
            server_cpu: CpuSource::Threads(SERVER_CPU_PREFIX),
            total_reader: Some(Arc::new(move || counter_total(&total_storage))),
            in_process: true,
        };
        Ok((
            InProcess {
                runtime: Some(runtime),
                trigger,
                task: Some(task),
                metrics,
                storage,
                http_addr,
                bolt_addr: addr,
            },
            target,
        ))
    }

    /// The HTTP listener's live counters (seed 002's three numbers), read in place.
    pub fn http_live(&self) -> Arc<dyn Fn() -> crate::experiments::http::Live + Send + Sync> {
        let metrics = Arc::clone(&self.metrics);
        Arc::new(move || {
            let s = metrics.snapshot().http;
            crate::experiments::http::Live {
                accepted_total: s.accepted_total,
                active: s.active,
                in_flight: s.in_flight,
                closed_total: s.closed_total,
                timed_out_total: s.timed_out_total,
            }
        })
    }

    pub fn bolt_addr(&self) -> SocketAddr {
        self.bolt_addr
    }

    /// TLS handshakes the Bolt listener completed so far.
    pub fn tls_handshakes(&self) -> u64 {
        self.metrics.snapshot().bolt.tls_handshakes_total
    }

    pub fn counters(&self) -> ServerCounters {
        counters_of(&self.metrics)
    }

    /// Drains and stops the server; clean means no task was left and nothing was cut.
    pub fn stop(mut self) -> ShutdownRecord {
        self.trigger.shutdown();
        let (Some(runtime), Some(task)) = (self.runtime.take(), self.task.take()) else {
            return ShutdownRecord {
                clean: false,
                forced: false,
                tasks_left: 0,
                elapsed_ns: 0,
            };
        };
        let report = runtime.block_on(async { tokio::time::timeout(STOP_TIMEOUT, task).await });
        let record = match report {
            Ok(Ok(Stopped { report: r, .. })) => ShutdownRecord {
                clean: !r.forced && r.tasks_left == 0,
                forced: r.forced,
                tasks_left: r.tasks_left,
                elapsed_ns: r.elapsed.as_nanos() as u64,
            },
            _ => ShutdownRecord {
                clean: false,
                forced: true,
                tasks_left: usize::MAX,
                elapsed_ns: STOP_TIMEOUT.as_nanos() as u64,
            },
        };
        runtime.shutdown_timeout(Duration::from_secs(5));
        record
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        self.trigger.shutdown();
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
