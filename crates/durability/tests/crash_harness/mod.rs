//! The crash-test harness: run a writer against a data directory, `kill -9` it at a random
//! moment, recover the directory, and check the promises of the mode against what the
//! writers were told.
//!
//! The driver is swappable: a [`CrashTarget`] starts *something* that writes the graph shape
//! below and reports each acknowledged commit. [`EmbeddedTarget`] runs the
//! `quiver-crash-writer` binary (the durability layer, in process); the `quiver` binary's
//! crash tests run `quiver serve` and drive it over Bolt, reporting acknowledgements the same
//! way. The verifier reads the directory through `Durability::inspect` in both cases.
//!
//! Graph shape, per acknowledged commit `s` of writer `w`:
//! `(:Item {w, s})-[:HAS]->(:Part {w, s, i})` twice, and `(:Writer {w}).last = s`.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use quiver_durability::{Durability, Mode};
use quiver_storage::Direction;
use quiver_value::Value;
use rand::Rng;

/// One commit a writer was told is done.
#[derive(Clone, Copy, Debug)]
pub struct Ack {
    pub writer: i64,
    pub seq: i64,
    /// When the writer heard it, Unix microseconds.
    pub at_micros: u128,
}

pub fn micros_now() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros())
}

/// Something that writes to a data directory and can be killed.
pub trait CrashTarget {
    /// Starts writing to `dir` in `mode`, sending every acknowledged commit to `acks`; returns
    /// once writing has begun, with the recovery time the target reported (if any).
    fn start(
        &mut self,
        dir: &Path,
        mode: Mode,
        acks: Sender<Ack>,
    ) -> Result<Option<Duration>, String>;
    /// Kills the target with SIGKILL and returns once every acknowledgement it sent before
    /// dying has been delivered.
    fn kill(&mut self) -> Result<(), String>;
    /// Told what the verifier found in the directory after a kill, before the next
    /// [`CrashTarget::start`]: a target that serves the graph checks, once restarted and
    /// before it writes again, that it serves exactly that.
    fn recovered(&mut self, _seen: &Observed) {}
}

/// Runs the `quiver-crash-writer` binary.
pub struct EmbeddedTarget {
    pub exe: PathBuf,
    pub writers: usize,
    pub flush_interval_ms: u64,
    child: Option<Child>,
    reader: Option<JoinHandle<()>>,
}

impl EmbeddedTarget {
    pub fn new(exe: impl Into<PathBuf>, writers: usize, flush_interval_ms: u64) -> Self {
        EmbeddedTarget {
            exe: exe.into(),
            writers,
            flush_interval_ms,
            child: None,
            reader: None,
        }
    }
}

impl CrashTarget for EmbeddedTarget {
    fn start(
        &mut self,
        dir: &Path,
        mode: Mode,
        acks: Sender<Ack>,
    ) -> Result<Option<Duration>, String> {
        let mut child = Command::new(&self.exe)
            .arg(dir)
            .arg(mode.to_string())
            .arg(self.writers.to_string())
            .arg(self.flush_interval_ms.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("spawning {}: {e}", self.exe.display()))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (ready_tx, ready_rx) = channel::<Option<Duration>>();
        self.reader = Some(std::thread::spawn(move || {
            let mut ready = Some(ready_tx);
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let f: Vec<&str> = line.split(' ').collect();
                match f.as_slice() {
                    ["ready", _, micros] => {
                        if let Some(r) = ready.take() {
                            let _ = r.send(micros.parse().ok().map(Duration::from_micros));
                        }
                    }
                    ["ack", w, s, at] => {
                        if let (Ok(writer), Ok(seq), Ok(at_micros)) =
                            (w.parse(), s.parse(), at.parse())
                        {
                            let _ = acks.send(Ack {
                                writer,
                                seq,
                                at_micros,
                            });
                        }
                    }
                    // A line cut by the kill: the writer was not finished telling it.
                    _ => {}
                }
            }
        }));
        match ready_rx.recv_timeout(Duration::from_secs(120)) {
            Ok(recovery) => {
                self.child = Some(child);
                Ok(recovery)
            }
            Err(_) => {
                let _ = child.kill();
                let status = child.wait().map_err(|e| e.to_string())?;
                Err(format!(
                    "writer never became ready ({status}); its stderr is above"
                ))
            }
        }
    }

    fn kill(&mut self) -> Result<(), String> {
        let mut child = self.child.take().ok_or("not running")?;
        // `Child::kill` sends SIGKILL on Unix: no destructor, no flush, no goodbye.
        child.kill().map_err(|e| e.to_string())?;
        let status = child.wait().map_err(|e| e.to_string())?;
        if let Some(r) = self.reader.take() {
            r.join().map_err(|_| "ack reader panicked")?;
        }
        if status.success() {
            return Err("the writer exited by itself".to_string());
        }
        Ok(())
    }
}

/// What the verifier found in a recovered directory.
#[derive(Debug, Default)]
pub struct Observed {
    /// Per writer: its `last` and the set of item sequence numbers present.
    pub last: BTreeMap<i64, i64>,
    pub items: BTreeMap<i64, Vec<i64>>,
    pub commit: u64,
}

fn int(v: Option<Value>) -> i64 {
    v.and_then(|v| v.as_int()).unwrap_or(-1)
}

/// Reads the recovered graph and checks that no transaction is partly there.
pub fn observe(dir: &Path) -> Result<Observed, String> {
    let (db, report) = Durability::inspect(dir).map_err(|e| format!("recovery failed: {e}"))?;
    let mut out = Observed {
        commit: report.last_commit,
        ..Observed::default()
    };
    let label = |n: &str| db.label_id(n);
    let key = |n: &str| db.property_key_id(n);
    let (Some(writer), Some(w), Some(last)) = (label("Writer"), key("w"), key("last")) else {
        return Ok(out); // killed before the writers were set up
    };
    let read = db.begin_read();
    let e = |e: quiver_storage::Error| e.to_string();
    for n in read.scan_label(writer).map_err(e)? {
        let n = n.map_err(e)?;
        out.last.insert(
            int(read.node_property(n, w).map_err(e)?),
            int(read.node_property(n, last).map_err(e)?),
        );
    }
    let (Some(item), Some(part), Some(s), Some(has)) = (
        label("Item"),
        label("Part"),
        key("s"),
        db.rel_type_id("HAS"),
    ) else {
        return Ok(out);
    };
    let mut parts: BTreeMap<(i64, i64), usize> = BTreeMap::new();
    for n in read.scan_label(part).map_err(e)? {
        let n = n.map_err(e)?;
        let k = (
            int(read.node_property(n, w).map_err(e)?),
            int(read.node_property(n, s).map_err(e)?),
        );
        *parts.entry(k).or_default() += 1;
    }
    for n in read.scan_label(item).map_err(e)? {
        let n = n.map_err(e)?;
        let (iw, is) = (
            int(read.node_property(n, w).map_err(e)?),
            int(read.node_property(n, s).map_err(e)?),
        );
        let edges = read.expand(n, Direction::Out, &[has]).map_err(e)?;
        let p = parts.remove(&(iw, is)).unwrap_or(0);
        if edges.len() != 2 || p != 2 {
            return Err(format!(
                "transaction ({iw}, {is}) is partly visible: {} relationships, {p} parts",
                edges.len()
            ));
        }
        out.items.entry(iw).or_default().push(is);
    }
    if let Some(((pw, ps), _)) = parts.into_iter().next() {
        return Err(format!("parts of ({pw}, {ps}) without their item"));
    }
    for (wr, seqs) in &mut out.items {
        seqs.sort_unstable();
        let last = out.last.get(wr).copied().unwrap_or(-1);
        let expected: Vec<i64> = (1..=last).collect();
        if *seqs != expected {
            return Err(format!(
                "writer {wr}: last = {last} but items {:?}..{:?} ({} of them)",
                seqs.first(),
                seqs.last(),
                seqs.len()
            ));
        }
    }
    for (wr, last) in &out.last {
        if *last > 0 && !out.items.contains_key(wr) {
            return Err(format!("writer {wr}: last = {last} but no items"));
        }
    }
    Ok(out)
}

/// The harness's running record across kills.
#[derive(Debug, Default)]
pub struct Summary {
    pub kills: usize,
    pub acked: u64,
    /// Acknowledged commits a kill lost (buffered mode only; zero elsewhere by assertion).
    pub lost: u64,
    /// The oldest lost commit's age at the kill, in milliseconds.
    pub worst_loss_ms: f64,
    pub recovery_ms_max: f64,
    pub last_commit: u64,
}

/// Kills `target` `kills` times in `mode`, each after a run drawn from `run_ms`, panicking
/// if a promise is broken. Buffered mode may lose what one flush interval of
/// `flush_interval_ms` covers: the interval, plus the sync that was running when the kill
/// came and scheduling on a busy machine.
pub fn kill_repeatedly(
    target: &mut dyn CrashTarget,
    dir: &Path,
    mode: Mode,
    kills: usize,
    run_ms: std::ops::Range<u64>,
    flush_interval_ms: u64,
) -> Summary {
    let mut run = Run {
        target,
        dir,
        mode,
        kills,
        run_ms,
        loss_bound: Duration::from_millis(flush_interval_ms + 500),
    };
    run.go().unwrap_or_else(|e| panic!("{mode}: {e}"))
}

impl Summary {
    /// The promises of every run in `mode`: each of its `kills` came, something was
    /// acknowledged, and a durable mode lost nothing.
    pub fn assert_kept(&self, mode: Mode, kills: usize) {
        assert_eq!(self.kills, kills);
        assert!(self.acked > 0, "{mode}: nothing was acknowledged");
        if mode.is_durable() {
            assert_eq!(self.lost, 0);
        }
    }
}

pub struct Run<'a> {
    pub target: &'a mut dyn CrashTarget,
    pub dir: &'a Path,
    pub mode: Mode,
    pub kills: usize,
    /// How long each round writes before the kill, drawn uniformly.
    pub run_ms: std::ops::Range<u64>,
    /// Buffered mode's flush interval plus allowance for the sync and scheduling.
    pub loss_bound: Duration,
}

impl Run<'_> {
    pub fn go(&mut self) -> Result<Summary, String> {
        let mut rng = rand::rng();
        let mut summary = Summary::default();
        // Per writer: the highest sequence number acknowledged and still owed.
        let mut acked: BTreeMap<i64, i64> = BTreeMap::new();
        for round in 0..self.kills {
            let (tx, rx): (Sender<Ack>, Receiver<Ack>) = channel();
            let recovery = self.target.start(self.dir, self.mode, tx)?;
            if let Some(r) = recovery {
                summary.recovery_ms_max = summary.recovery_ms_max.max(r.as_secs_f64() * 1000.0);
            }
            std::thread::sleep(Duration::from_millis(rng.random_range(self.run_ms.clone())));
            let kill_at = micros_now();
            self.target.kill()?;
            let acks: Vec<Ack> = rx.try_iter().collect();
            summary.acked += acks.len() as u64;
            let mut ack_time: BTreeMap<(i64, i64), u128> = BTreeMap::new();
            for a in &acks {
                let best = acked.entry(a.writer).or_insert(0);
                if a.seq <= *best {
                    return Err(format!(
                        "round {round}: writer {} acknowledged {} twice",
                        a.writer, a.seq
                    ));
                }
                *best = a.seq;
                ack_time.insert((a.writer, a.seq), a.at_micros);
            }
            let seen = self.check(round, &mut acked, &ack_time, kill_at, &mut summary)?;
            self.target.recovered(&seen);
            summary.last_commit = seen.commit;
            summary.kills += 1;
        }
        Ok(summary)
    }

    fn check(
        &self,
        round: usize,
        acked: &mut BTreeMap<i64, i64>,
        ack_time: &BTreeMap<(i64, i64), u128>,
        kill_at: u128,
        summary: &mut Summary,
    ) -> Result<Observed, String> {
        let seen = observe(self.dir).map_err(|e| format!("round {round}: {e}"))?;
        for (w, best) in acked.iter_mut() {
            let last = seen.last.get(w).copied().unwrap_or(0);
            if last >= *best {
                continue;
            }
            if self.mode.is_durable() {
                return Err(format!(
                    "round {round} ({}): writer {w} was told {best} is done, but only {last} survived",
                    self.mode
                ));
            }
            // Buffered: only commits acknowledged within the last interval may be gone.
            for s in last + 1..=*best {
                let Some(at) = ack_time.get(&(*w, s)) else {
                    return Err(format!(
                        "round {round}: writer {w} lost {s}, acknowledged in an earlier round"
                    ));
                };
                let age = Duration::from_micros(kill_at.saturating_sub(*at) as u64);
                if age > self.loss_bound {
                    return Err(format!(
                        "round {round}: writer {w} lost {s}, acknowledged {age:?} before the kill (bound {:?})",
                        self.loss_bound
                    ));
                }
                summary.lost += 1;
                summary.worst_loss_ms = summary.worst_loss_ms.max(age.as_secs_f64() * 1000.0);
            }
            // The writer starts again after what survived.
            *best = last;
        }
        Ok(seen)
    }
}
