//! Running scenarios against a target, each within a time budget.
//!
//! The target lives on a worker thread; the runner hands it one scenario at a time and waits at
//! most the scenario's budget for the verdict. A scenario that overruns, or panics inside the
//! target, is recorded as an ERROR and its worker is abandoned together with its target; the next
//! scenario gets a fresh target from the factory. A runaway query therefore costs one scenario,
//! never the run.

use std::any::Any;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use quiver_value::Map;

use crate::feature::{self, FeatureError, Scenario};
use crate::matching::{ExpectedTable, ListOrder, RowOrder, match_table};
use crate::report::{Report, ScenarioResult, Status};
use crate::side_effects::SideEffects;
use crate::steps::{ErrorExpectation, Step, parameter_map, split_script};
use crate::target::{Outcome, QueryError, Target, TargetError};

/// The default time budget per scenario: TCK scenarios run a handful of small queries, so this
/// only ever trips on a runaway.
pub const SCENARIO_TIMEOUT_MS_DEFAULT: u64 = 10_000;
/// Named-graph scripts are small; the limit keeps a wrong path from loading something huge.
pub const GRAPH_SCRIPT_BYTES_MAX: u64 = 16 * 1024 * 1024;

#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Run only scenarios whose feature path or name contains this.
    pub filter: Option<String>,
    pub scenario_timeout_ms: u64,
    /// Where named graphs live (`<graphs>/<name>/<name>.cypher`); by default the nearest `graphs`
    /// directory beside the feature directory or one of its ancestors.
    pub graphs_dir: Option<PathBuf>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            filter: None,
            scenario_timeout_ms: SCENARIO_TIMEOUT_MS_DEFAULT,
            graphs_dir: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    #[error(transparent)]
    Feature(#[from] FeatureError),
}

/// Runs every scenario under `dir`. `make_target` is called for the first scenario and again
/// whenever a target had to be abandoned (timeout or panic).
pub fn run_directory<T, F>(
    dir: &Path,
    make_target: F,
    options: &RunOptions,
) -> Result<Report, RunError>
where
    T: Target + 'static,
    F: FnMut() -> Result<T, TargetError>,
{
    let suite = feature::load_directory(dir)?;
    let graphs_dir = options.graphs_dir.clone().or_else(|| find_graphs_dir(dir));
    let mut report = Report::default();
    for (path, error) in &suite.failures {
        report.feature_errors.push(format!("{path}: {error}"));
    }
    report.features = suite.features.len();
    let selected: Vec<&Scenario> = suite
        .scenarios()
        .filter(|s| options.filter.as_deref().is_none_or(|f| s.id.matches(f)))
        .collect();
    let mut pool = WorkerPool {
        make_target,
        worker: None,
        graphs_dir: graphs_dir.map(Arc::new),
    };
    let budget = Duration::from_millis(options.scenario_timeout_ms);
    for scenario in selected {
        let started = Instant::now();
        let verdict = if scenario.ignored {
            Verdict::skip()
        } else {
            match &scenario.steps {
                Err(reason) => Verdict::error(format!("cannot interpret the scenario: {reason}")),
                Ok(steps) => pool.run(Arc::new(steps.clone()), budget),
            }
        };
        report.results.push(ScenarioResult {
            id: scenario.id.clone(),
            line: scenario.line,
            status: verdict.status,
            lenient_pass: verdict.lenient_pass,
            reason: verdict.reason,
            elapsed: started.elapsed(),
        });
    }
    Ok(report)
}

/// How far up from the feature directory to look for `graphs`: enough to run any subdirectory
/// of the kit, not so far that an unrelated `graphs` directory is picked up.
const GRAPHS_SEARCH_LEVELS_MAX: usize = 8;

/// `graphs` next to `dir` or next to one of its ancestors (the kit keeps `features/` and
/// `graphs/` side by side).
fn find_graphs_dir(dir: &Path) -> Option<PathBuf> {
    let start = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    start
        .ancestors()
        .take(GRAPHS_SEARCH_LEVELS_MAX)
        .map(|a| a.join("graphs"))
        .find(|candidate| candidate.is_dir())
}

/// What one scenario came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub status: Status,
    /// Whether the scenario passes when error expectations check the error type only.
    pub lenient_pass: bool,
    pub reason: String,
}

impl Verdict {
    fn pass() -> Verdict {
        Verdict {
            status: Status::Pass,
            lenient_pass: true,
            reason: String::new(),
        }
    }
    fn skip() -> Verdict {
        Verdict {
            status: Status::Skip,
            lenient_pass: false,
            reason: "tagged @ignore".to_owned(),
        }
    }
    fn fail(reason: String) -> Verdict {
        Verdict {
            status: Status::Fail,
            lenient_pass: false,
            reason,
        }
    }
    fn error(reason: String) -> Verdict {
        Verdict {
            status: Status::Error,
            lenient_pass: false,
            reason,
        }
    }
}

struct Job {
    steps: Arc<Vec<Step>>,
    deadline: Instant,
}

struct Worker {
    jobs: Sender<Job>,
    /// Each verdict comes with whether the worker is still fit for another scenario.
    verdicts: Receiver<(Verdict, bool)>,
}

struct WorkerPool<F> {
    make_target: F,
    worker: Option<Worker>,
    graphs_dir: Option<Arc<PathBuf>>,
}

impl<T, F> WorkerPool<F>
where
    T: Target + 'static,
    F: FnMut() -> Result<T, TargetError>,
{
    fn run(&mut self, steps: Arc<Vec<Step>>, budget: Duration) -> Verdict {
        let worker = match self.worker.take() {
            Some(worker) => worker,
            None => match (self.make_target)() {
                Ok(target) => match spawn_worker(target, self.graphs_dir.clone()) {
                    Ok(worker) => worker,
                    Err(e) => return Verdict::error(format!("cannot start a worker thread: {e}")),
                },
                Err(e) => return Verdict::error(format!("cannot create a target: {e}")),
            },
        };
        let deadline = Instant::now() + budget;
        if worker.jobs.send(Job { steps, deadline }).is_err() {
            return Verdict::error("the worker thread is gone".to_owned());
        }
        match worker.verdicts.recv_timeout(budget) {
            Ok((verdict, healthy)) => {
                // A worker whose target panicked reports and exits; only a healthy one is kept.
                if healthy {
                    self.worker = Some(worker);
                }
                verdict
            }
            // Dropping the worker abandons its thread; it exits once the stuck call returns.
            Err(RecvTimeoutError::Timeout) => {
                Verdict::error(format!("timed out after {} ms", budget.as_millis()))
            }
            Err(RecvTimeoutError::Disconnected) => {
                Verdict::error("the worker thread died".to_owned())
            }
        }
    }
}

fn spawn_worker<T: Target + 'static>(
    mut target: T,
    graphs_dir: Option<Arc<PathBuf>>,
) -> std::io::Result<Worker> {
    let (jobs, job_rx) = mpsc::channel::<Job>();
    let (verdict_tx, verdicts) = mpsc::channel();
    thread::Builder::new()
        .name(WORKER_THREAD_NAME.to_owned())
        .spawn(move || {
            for job in job_rx {
                let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
                    run_scenario(
                        &mut target,
                        &job.steps,
                        job.deadline,
                        graphs_dir.as_ref().map(|d| d.as_path()),
                    )
                }));
                let (verdict, healthy) = match outcome {
                    Ok(verdict) => (verdict, true),
                    Err(payload) => (
                        Verdict::error(format!(
                            "the target panicked: {}",
                            panic_message(&*payload)
                        )),
                        false,
                    ),
                };
                if verdict_tx.send((verdict, healthy)).is_err() || !healthy {
                    break;
                }
            }
        })?;
    Ok(Worker { jobs, verdicts })
}

/// Worker threads carry this name, so a binary can keep their panics out of its output.
pub const WORKER_THREAD_NAME: &str = "tck-worker";

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-text panic payload".to_owned()
    }
}

/// The state a scenario accumulates as its steps run.
struct ScenarioState {
    params: Map,
    /// The latest query's result: the main query's, or the control query's after it.
    last: Option<Result<Outcome, QueryError>>,
    /// Whether `last` is an error no step has looked at yet.
    error_unchecked: bool,
    effects: Option<SideEffects>,
    /// A failure that only strict scoring counts (error phase or detail).
    strict_only_failure: Option<String>,
}

/// An early end to a scenario.
enum Stop {
    Fail(String),
    Error(String),
}

fn target_error(what: &str, e: TargetError) -> Stop {
    Stop::Error(format!("{what}: {e}"))
}

/// Runs one scenario's steps. Public so that tests and other drivers can run a scenario without a
/// worker thread.
pub fn run_scenario(
    target: &mut dyn Target,
    steps: &[Step],
    deadline: Instant,
    graphs_dir: Option<&Path>,
) -> Verdict {
    target.set_deadline(Some(deadline));
    let mut state = ScenarioState {
        params: Map::new(),
        last: None,
        error_unchecked: false,
        effects: None,
        strict_only_failure: None,
    };
    let result = target
        .reset()
        .map_err(|e| target_error("reset failed", e))
        .and_then(|()| {
            for step in steps {
                run_step(target, step, &mut state, graphs_dir)?;
            }
            Ok(())
        });
    target.set_deadline(None);
    match result {
        Err(Stop::Fail(reason)) => Verdict::fail(reason),
        Err(Stop::Error(reason)) => Verdict::error(reason),
        Ok(()) => {
            if state.error_unchecked
                && let Some(Err(e)) = &state.last
            {
                return Verdict::fail(format!("the query failed: {e}"));
            }
            match state.strict_only_failure {
                Some(reason) => Verdict {
                    status: Status::Fail,
                    lenient_pass: true,
                    reason,
                },
                None => Verdict::pass(),
            }
        }
    }
}

fn run_step(
    target: &mut dyn Target,
    step: &Step,
    state: &mut ScenarioState,
    graphs_dir: Option<&Path>,
) -> Result<(), Stop> {
    match step {
        // Every scenario starts from `reset`, which is already an empty graph.
        Step::EmptyGraph | Step::AnyGraph => {}
        Step::NamedGraph(name) => load_named_graph(target, name, graphs_dir)?,
        Step::Setup(query) => {
            if let Err(e) = target.execute(query, &state.params) {
                return Err(Stop::Error(format!("setup query failed: {e}")));
            }
        }
        Step::Parameters(params) => parameter_map(params, &mut state.params),
        Step::ImportFile { name, content } => {
            target
                .write_import_file(name, content.as_bytes())
                .map_err(|e| target_error("cannot write the import file", e))?;
        }
        Step::Procedure(fixture) => {
            target
                .register_procedure(fixture.clone())
                .map_err(|e| target_error("cannot register the procedure", e))?;
        }
        Step::Query(query) => {
            let before = target
                .graph_state()
                .map_err(|e| target_error("cannot read the graph before the query", e))?;
            let result = target.execute(query, &state.params);
            let after = target
                .graph_state()
                .map_err(|e| target_error("cannot read the graph after the query", e))?;
            state.effects = Some(SideEffects::between(&before, &after));
            state.error_unchecked = result.is_err();
            state.last = Some(result);
        }
        Step::ControlQuery(query) => {
            let result = target.execute(query, &state.params);
            state.error_unchecked = result.is_err();
            state.last = Some(result);
        }
        Step::Rows { rows, lists, table } => check_rows(state, table, *rows, *lists)?,
        Step::Empty => {
            let outcome = successful_outcome(state)?;
            if !outcome.rows.is_empty() {
                return Err(Stop::Fail(format!(
                    "expected no rows, got {}",
                    outcome.rows.len()
                )));
            }
        }
        Step::SideEffects(expected) => {
            let actual = state.effects.ok_or_else(|| {
                Stop::Error("side effects checked before any query ran".to_owned())
            })?;
            if actual != *expected {
                return Err(Stop::Fail(format!(
                    "side effects: expected {expected}, got {actual}"
                )));
            }
        }
        Step::Error(expected) => check_error(state, expected)?,
    }
    Ok(())
}

fn successful_outcome(state: &mut ScenarioState) -> Result<&Outcome, Stop> {
    state.error_unchecked = false;
    match &state.last {
        None => Err(Stop::Error(
            "a result is checked before any query ran".to_owned(),
        )),
        Some(Err(e)) => Err(Stop::Fail(format!(
            "expected a result, but the query failed: {e}"
        ))),
        Some(Ok(outcome)) => Ok(outcome),
    }
}

fn check_rows(
    state: &mut ScenarioState,
    table: &ExpectedTable,
    rows: RowOrder,
    lists: ListOrder,
) -> Result<(), Stop> {
    let outcome = successful_outcome(state)?;
    match_table(table, outcome, rows, lists).map_err(Stop::Fail)
}

fn check_error(state: &mut ScenarioState, expected: &ErrorExpectation) -> Result<(), Stop> {
    state.error_unchecked = false;
    let actual = match &state.last {
        None => {
            return Err(Stop::Error(
                "an error is checked before any query ran".to_owned(),
            ));
        }
        Some(Ok(outcome)) => {
            return Err(Stop::Fail(format!(
                "expected {expected}, but the query succeeded with {} rows",
                outcome.rows.len()
            )));
        }
        Some(Err(actual)) => actual,
    };
    if actual.kind != expected.kind {
        return Err(Stop::Fail(format!("expected {expected}, got {actual}")));
    }
    let phase_ok = expected.phase.is_none_or(|phase| phase == actual.phase);
    let detail_ok = expected
        .detail
        .as_deref()
        .is_none_or(|detail| actual.detail.as_deref() == Some(detail));
    if !(phase_ok && detail_ok) && state.strict_only_failure.is_none() {
        state.strict_only_failure = Some(format!("expected {expected}, got {actual}"));
    }
    Ok(())
}

fn load_named_graph(
    target: &mut dyn Target,
    name: &str,
    graphs_dir: Option<&Path>,
) -> Result<(), Stop> {
    let dir = graphs_dir.ok_or_else(|| {
        Stop::Error(format!(
            "the {name} graph is needed but no graphs directory was found"
        ))
    })?;
    let path = dir.join(name).join(format!("{name}.cypher"));
    let too_large = fs::metadata(&path).is_ok_and(|m| m.len() > GRAPH_SCRIPT_BYTES_MAX);
    if too_large {
        return Err(Stop::Error(format!(
            "{} is above the {GRAPH_SCRIPT_BYTES_MAX}-byte limit",
            path.display()
        )));
    }
    let script = fs::read_to_string(&path)
        .map_err(|e| Stop::Error(format!("cannot read {}: {e}", path.display())))?;
    for statement in split_script(&script) {
        if let Err(e) = target.execute(&statement, &Map::new()) {
            return Err(Stop::Error(format!("loading the {name} graph failed: {e}")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! End-to-end runs against a test double: a target that knows a handful of queries by heart.

    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::fake::{FEATURE, Fake};
    use crate::feature::ScenarioId;

    fn status_of(report: &Report, name_prefix: &str, row: Option<usize>) -> (Status, bool) {
        let result = report
            .results
            .iter()
            .find(|r| r.id.name.starts_with(name_prefix) && r.id.outline_row == row)
            .unwrap_or_else(|| panic!("no scenario {name_prefix}"));
        (result.status, result.lenient_pass)
    }

    #[test]
    fn scenarios_run_end_to_end() {
        let dir = tempfile::tempdir().unwrap();
        let features = dir.path().join("features");
        fs::create_dir_all(features.join("nested")).unwrap();
        fs::write(features.join("nested/Fake.feature"), FEATURE).unwrap();
        fs::create_dir_all(dir.path().join("graphs/tiny")).unwrap();
        fs::write(
            dir.path().join("graphs/tiny/tiny.cypher"),
            "CREATE (:A {name: 'a'});\nCREATE (:A {name: 'a'});\n",
        )
        .unwrap();

        let created = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&created);
        let factory = move || {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok::<_, TargetError>(Fake::default())
        };
        let options = RunOptions {
            scenario_timeout_ms: 300,
            ..RunOptions::default()
        };
        let report = run_directory(&features, factory, &options).unwrap();

        assert_eq!(report.results.len(), 20);
        assert_eq!(
            report.results[0].id,
            ScenarioId {
                feature: "nested/Fake.feature".into(),
                name: "[1] Create and match".into(),
                outline_row: None
            }
        );
        let expect = [
            ("[1]", None, Status::Pass, true),
            ("[2]", None, Status::Pass, true),
            ("[3]", Some(1), Status::Pass, true),
            ("[3]", Some(2), Status::Pass, true),
            ("[3]", Some(3), Status::Fail, false),
            ("[4]", None, Status::Fail, false),
            ("[5]", None, Status::Pass, true),
            ("[6]", None, Status::Fail, true),
            ("[7]", None, Status::Fail, true),
            ("[8]", None, Status::Fail, false),
            ("[9]", None, Status::Pass, true),
            ("[10]", None, Status::Fail, false),
            ("[11]", None, Status::Error, false),
            ("[12]", None, Status::Error, false),
            ("[13]", None, Status::Pass, true),
            ("[14]", None, Status::Error, false),
            ("[15]", None, Status::Pass, true),
            ("[16]", None, Status::Pass, true),
            ("[17]", None, Status::Skip, false),
            ("[18]", None, Status::Pass, true),
        ];
        for (name, row, status, lenient) in expect {
            assert_eq!(
                status_of(&report, name, row),
                (status, lenient),
                "scenario {name} {row:?}: {:?}",
                report.scenario_lines()
            );
        }
        assert_eq!(report.summary_line(), "10 passed, 9 failed, 1 skipped");
        assert_eq!(report.lenient_passed(), 12);
        // One target at the start, one after the timeout, one after the panic.
        assert_eq!(created.load(Ordering::SeqCst), 3);
        let lines = report.scenario_lines();
        assert!(lines.contains("timed out after 300 ms"), "{lines}");
        assert!(
            lines.contains("the target panicked: the fake target gave up"),
            "{lines}"
        );
        assert!(
            lines.contains("side effects: expected none, got +nodes 1, +properties 1, +labels 1"),
            "{lines}"
        );

        let filtered = run_directory(
            &features,
            || Ok::<_, TargetError>(Fake::default()),
            &RunOptions {
                filter: Some("[16]".into()),
                ..RunOptions::default()
            },
        )
        .unwrap();
        assert_eq!(filtered.summary_line(), "1 passed, 0 failed, 0 skipped");
    }

    #[test]
    fn a_missing_target_is_an_error_per_scenario() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("One.feature"),
            "Feature: F\n  Scenario: S\n    Given any graph\n",
        )
        .unwrap();
        let report = run_directory(
            dir.path(),
            || Err::<Fake, _>(TargetError::Unavailable("none".into())),
            &RunOptions::default(),
        )
        .unwrap();
        assert_eq!(report.errors(), 1);
    }

    #[test]
    fn the_vendored_kit_expands_fully() {
        let kit = Path::new(env!("CARGO_MANIFEST_DIR")).join("opencypher/features");
        let suite = feature::load_directory(&kit).unwrap();
        assert!(suite.failures.is_empty(), "{:?}", suite.failures);
        assert_eq!(suite.features.len(), 144);
        let all: Vec<_> = suite.scenarios().collect();
        let not_interpretable: Vec<_> = all.iter().filter_map(|s| s.steps.as_ref().err()).collect();
        assert!(not_interpretable.is_empty(), "{not_interpretable:?}");
        assert_eq!(all.len(), 2406);
        assert_eq!(all.iter().filter(|s| s.ignored).count(), 1);
    }
}
