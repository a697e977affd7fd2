//! `--mode slowloris`: N clients that open a socket and dribble the Bolt handshake one byte
//! per `--drip-ms`, never finishing it. No request ever starts; the only thing that reclaims
//! these connections is the server's handshake deadline. The report says how many the server
//! reclaimed and when (time from connect to the server's close).

use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_bolt::handshake::{HANDSHAKE_BYTES, client_handshake};
use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::DIAL_CONCURRENCY_DEFAULT;
use crate::classify::{ErrorClass, ErrorCounts, Side, Stage, classify_io};
use crate::client::Dialer;
use crate::counters::ServerCounters;
use crate::latency::{Latencies, Percentiles};
use crate::target::Target;

/// What happened to one dribbling connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    /// The server closed it this long after connect, having seen this many bytes.
    Reclaimed(Duration, usize),
    /// Still open when the experiment ended.
    Outlasted,
    Failed(ErrorClass),
}

#[derive(Clone, Debug, Serialize)]
pub struct SlowlorisReport {
    pub offered: usize,
    pub connected: usize,
    pub reclaimed: usize,
    pub outlasted: usize,
    pub errors: ErrorCounts,
    pub client_side_errors: u64,
    pub drip_ms: u64,
    pub hold_ms: u64,
    /// Time from connect to the server's close, over the reclaimed connections.
    pub reclaim_after: Percentiles,
    pub bytes_sent_max: usize,
    pub counters: Option<ServerCounters>,
}

async fn dribble(
    dialer: Arc<Dialer>,
    gate: Arc<Semaphore>,
    drip: Duration,
    until: Instant,
) -> Fate {
    let permit = gate.acquire_owned().await;
    let mut stream = match dialer.dial().await {
        Ok(s) => s,
        Err(e) => return Fate::Failed(e.class()),
    };
    drop(permit);
    let connected = Instant::now();
    // Every byte of the preamble but the last: the handshake is never complete.
    let preamble = client_handshake(&crate::client::OFFERED, false);
    let mut sent = 0usize;
    let mut sink = [0u8; 64];
    loop {
        let wait = tokio::time::sleep_until(tokio::time::Instant::from_std(
            (Instant::now() + drip).min(until),
        ));
        tokio::select! {
            read = stream.read(&mut sink) => {
                return match read {
                    Ok(0) => Fate::Reclaimed(connected.elapsed(), sent),
                    Ok(_) => Fate::Failed(ErrorClass::Protocol),
                    Err(e) => match classify_io(Stage::Handshake, &e) {
                        ErrorClass::ServerClosed => Fate::Reclaimed(connected.elapsed(), sent),
                        other => Fate::Failed(other),
                    },
                };
            }
            () = wait => {
                if Instant::now() >= until {
                    return Fate::Outlasted;
                }
                if sent + 1 < HANDSHAKE_BYTES {
                    if let Err(e) = stream.write_all(&preamble[sent..=sent]).await {
                        return match classify_io(Stage::Handshake, &e) {
                            ErrorClass::ServerClosed => Fate::Reclaimed(connected.elapsed(), sent),
                            other => Fate::Failed(other),
                        };
                    }
                    sent += 1;
                }
            }
        }
    }
}

pub async fn run(
    target: &Target,
    dialer: &Arc<Dialer>,
    offered: usize,
    drip: Duration,
    hold: Duration,
) -> SlowlorisReport {
    let before = target.counters.settle(0).await.map(|(c, _)| c);
    let until = Instant::now() + hold;
    let gate = Arc::new(Semaphore::new(DIAL_CONCURRENCY_DEFAULT));
    let mut tasks = JoinSet::new();
    for _ in 0..offered {
        tasks.spawn(dribble(Arc::clone(dialer), Arc::clone(&gate), drip, until));
    }
    let mut reclaimed = 0;
    let mut outlasted = 0;
    let mut errors = ErrorCounts::default();
    let mut after = Latencies::new();
    let mut bytes_sent_max = 0;
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(Fate::Reclaimed(t, sent)) => {
                reclaimed += 1;
                after.record(t);
                bytes_sent_max = bytes_sent_max.max(sent);
            }
            Ok(Fate::Outlasted) => outlasted += 1,
            Ok(Fate::Failed(class)) => errors.add(class),
            Err(_) => errors.add(ErrorClass::Other),
        }
    }
    let counters = target.counters.settled_since(before).await.map(|(c, _)| c);
    SlowlorisReport {
        offered,
        connected: reclaimed + outlasted,
        reclaimed,
        outlasted,
        client_side_errors: errors.by_side(Side::Client),
        errors,
        drip_ms: drip.as_millis() as u64,
        hold_ms: hold.as_millis() as u64,
        reclaim_after: after.percentiles(),
        bytes_sent_max,
        counters,
    }
}

impl SlowlorisReport {
    pub fn lines(&self) -> Vec<String> {
        let f = crate::report::fmt_ns;
        let mut lines = vec![
            format!("slowloris.offered={}", self.offered),
            format!("# slowloris.connected={}", self.connected),
            format!("# slowloris.reclaimed_by_server={}", self.reclaimed),
            format!("# slowloris.still_open_at_end={}", self.outlasted),
            format!("# slowloris.errors={}", self.errors.summary()),
            format!(
                "# slowloris.drip_ms={} hold_ms={}",
                self.drip_ms, self.hold_ms
            ),
            format!("# slowloris.bytes_sent_max={}", self.bytes_sent_max),
        ];
        if self.reclaimed > 0 {
            let p = &self.reclaim_after;
            lines.push(format!(
                "# slowloris.reclaimed_after p50={} p99={} max={}",
                f(p.p50_ns),
                f(p.p99_ns),
                f(p.max_ns)
            ));
        }
        if let Some(c) = &self.counters {
            for (k, v) in c.lines("counters.bolt.server") {
                lines.push(format!("# {k}={v}"));
            }
        }
        lines
    }
}
