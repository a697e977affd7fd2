use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use quiver_value::{Map, Value};
use serde_json::Value as Json;

use super::writer::numbered;
use super::*;

fn query(text: &str, elapsed_ms: u64) -> FinishedQuery {
    FinishedQuery {
        protocol: Protocol::Bolt,
        started: UNIX_EPOCH + Duration::from_millis(1_709_210_096_789),
        elapsed: Duration::from_millis(elapsed_ms),
        waiting: None,
        rows: 3,
        text: Arc::from(text),
        parameters: None,
        user: Some(Arc::from("ann")),
        client: Some("127.0.0.1:5000".parse().expect("address")),
        database: Arc::from("neo4j"),
        transaction_id: Some("neo4j-transaction-7".to_owned()),
        metadata: Map::new(),
        failure: None,
        figures: None,
    }
}

fn lines(path: &Path) -> Vec<Json> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

fn settings(dir: &tempfile::TempDir) -> QueryLogSettings {
    QueryLogSettings::at(&dir.path().join("query.log"))
}

#[test]
fn a_query_is_one_line_with_neo4js_field_names() {
    let dir = tempfile::tempdir().expect("dir");
    let log = QueryLog::open(&settings(&dir), Counter::default()).expect("open");
    let mut q = query("MATCH (n) RETURN n", 12);
    q.metadata.insert(Arc::from("app"), Value::from("billing"));
    log.finished(q);
    log.sync();
    let lines = lines(log.path());
    assert_eq!(lines.len(), 1);
    let line = &lines[0];
    assert_eq!(line["time"], "2024-02-29T12:34:56.789Z");
    assert_eq!(line["level"], "INFO");
    assert_eq!(line["event"], "success");
    assert_eq!(line["type"], "query");
    assert_eq!(line["elapsedTimeMs"], 12);
    assert_eq!(line["rows"], 3);
    assert_eq!(line["source"], "bolt-session\tbolt\tclient/127.0.0.1:5000");
    assert_eq!(line["database"], "neo4j");
    assert_eq!(line["username"], "ann");
    assert_eq!(line["query"], "MATCH (n) RETURN n");
    assert_eq!(line["annotationData"]["app"], "billing");
    assert_eq!(line["transactionId"], "neo4j-transaction-7");
    assert!(line.get("queryParameters").is_none());
    assert!(line.get("failureReason").is_none());
}

#[test]
fn a_failed_query_is_logged_as_a_failure_with_its_reason() {
    let dir = tempfile::tempdir().expect("dir");
    let log = QueryLog::open(&settings(&dir), Counter::default()).expect("open");
    let mut q = query("RETURN 1/0", 1);
    q.failure = Some("Neo.ClientError.Statement.ArithmeticError: / by zero".to_owned());
    log.finished(q);
    log.sync();
    let line = &lines(log.path())[0];
    assert_eq!(line["event"], "fail");
    assert_eq!(line["level"], "ERROR");
    assert_eq!(
        line["failureReason"],
        "Neo.ClientError.Statement.ArithmeticError: / by zero"
    );
}

#[test]
fn only_queries_at_or_past_the_threshold_are_logged_unless_verbose() {
    let dir = tempfile::tempdir().expect("dir");
    let mut s = settings(&dir);
    s.threshold = Duration::from_millis(100);
    let log = QueryLog::open(&s, Counter::default()).expect("open");
    log.finished(query("RETURN 'fast'", 99));
    log.finished(query("RETURN 'at'", 100));
    log.finished(query("RETURN 'slow'", 250));
    log.set_mode(Mode::Verbose);
    log.finished(query("RETURN 'verbose'", 0));
    log.sync();
    let texts: Vec<Json> = lines(log.path())
        .into_iter()
        .map(|l| l["query"].clone())
        .collect();
    assert_eq!(texts, ["RETURN 'at'", "RETURN 'slow'", "RETURN 'verbose'"]);
}

#[test]
fn settings_changed_at_run_time_apply_to_the_next_query() {
    let dir = tempfile::tempdir().expect("dir");
    let log = QueryLog::open(&settings(&dir), Counter::default()).expect("open");
    let mut params = Map::new();
    params.insert(Arc::from("name"), Value::from("bob"));
    let with_params = |text: &str| {
        let mut q = query(text, 5);
        q.parameters = Some(params.clone());
        q
    };
    log.finished(with_params("RETURN 'before'"));
    log.set_parameters(true);
    assert!(log.wants_parameters());
    log.finished(with_params("RETURN 'parameters on'"));
    log.set_threshold(Duration::from_millis(10));
    log.finished(with_params("RETURN 'under the new threshold'"));
    log.set_mode(Mode::Off);
    assert!(!log.wants_parameters());
    log.finished(with_params("RETURN 'log off'"));
    log.sync();
    let lines = lines(log.path());
    assert_eq!(lines.len(), 2);
    assert!(lines[0].get("queryParameters").is_none());
    assert_eq!(lines[1]["queryParameters"]["name"], "bob");
}

#[test]
fn passwords_never_reach_the_log() {
    let dir = tempfile::tempdir().expect("dir");
    let mut s = settings(&dir);
    s.parameters = true;
    let log = QueryLog::open(&s, Counter::default()).expect("open");
    let mut q = query("CREATE USER bob SET PASSWORD 'hunter2'", 1);
    q.parameters = Some(Map::new());
    log.finished(q);
    let mut q = query("ALTER USER $name SET PASSWORD $pw", 1);
    let mut params = Map::new();
    params.insert(Arc::from("name"), Value::from("bob"));
    params.insert(Arc::from("pw"), Value::from("hunter3"));
    params.insert(Arc::from("apiToken"), Value::from("hunter4"));
    q.parameters = Some(params);
    log.finished(q);
    log.sync();
    let text = std::fs::read_to_string(log.path()).expect("read");
    assert!(!text.contains("hunter"), "{text}");
    let lines = lines(log.path());
    assert_eq!(lines[0]["query"], "CREATE USER bob SET PASSWORD '******'");
    assert_eq!(lines[1]["queryParameters"]["name"], "bob");
    assert_eq!(lines[1]["queryParameters"]["pw"], "******");
    assert_eq!(lines[1]["queryParameters"]["apiToken"], "******");
}

#[test]
fn the_file_rotates_by_size_and_keeps_the_newest_files() {
    let dir = tempfile::tempdir().expect("dir");
    let mut s = settings(&dir);
    let one_line = line::render(&query("RETURN 0", 1)).len() as u64;
    // Two lines fit in a file; the third starts a new one.
    s.rotation_bytes = 2 * one_line;
    s.rotation_keep = 2;
    let log = QueryLog::open(&s, Counter::default()).expect("open");
    for n in 0..7 {
        log.finished(query(&format!("RETURN {n}"), 1));
    }
    log.sync();
    let texts = |path: &Path| -> Vec<Json> {
        lines(path)
            .into_iter()
            .map(|l| l["query"].clone())
            .collect()
    };
    assert_eq!(texts(log.path()), ["RETURN 6"]);
    assert_eq!(texts(&numbered(log.path(), 1)), ["RETURN 4", "RETURN 5"]);
    assert_eq!(texts(&numbered(log.path(), 2)), ["RETURN 2", "RETURN 3"]);
    assert!(!numbered(log.path(), 3).exists());
}

#[test]
fn with_no_files_kept_rotation_starts_the_file_over() {
    let dir = tempfile::tempdir().expect("dir");
    let mut s = settings(&dir);
    s.rotation_bytes = line::render(&query("RETURN 0", 1)).len() as u64;
    s.rotation_keep = 0;
    let log = QueryLog::open(&s, Counter::default()).expect("open");
    for n in 0..3 {
        log.finished(query(&format!("RETURN {n}"), 1));
    }
    log.sync();
    assert_eq!(lines(log.path()).len(), 1);
    assert!(!numbered(log.path(), 1).exists());
}

#[test]
fn reports_past_a_full_queue_are_dropped_and_counted_without_waiting() {
    let dir = tempfile::tempdir().expect("dir");
    let s = settings(&dir);
    // A writer that never reads: the queue holds one report.
    let (sender, _receiver) = std::sync::mpsc::sync_channel(1);
    let log = QueryLog::with_sender(&s, sender, Arc::default(), Counter::default());
    log.finished(query("RETURN 1", 1));
    log.finished(query("RETURN 2", 1));
    log.finished(query("RETURN 3", 1));
    assert_eq!(log.dropped(), 2);
}

#[test]
fn reports_past_the_queues_bytes_are_dropped_however_few_they_are() {
    let dir = tempfile::tempdir().expect("dir");
    let mut s = settings(&dir);
    s.queue_bytes = 4096;
    // A writer that never reads, with room for many reports but not their bytes.
    let (sender, _receiver) = std::sync::mpsc::sync_channel(100);
    let log = QueryLog::with_sender(&s, sender, Arc::default(), Counter::default());
    let big = "x".repeat(3000);
    log.finished(query(&format!("RETURN '{big}'"), 1));
    log.finished(query(&format!("RETURN '{big}'"), 1));
    log.finished(query("RETURN 1", 1));
    assert_eq!(log.dropped(), 1);
}

#[test]
fn modes_read_neo4js_values() {
    assert_eq!("OFF".parse(), Ok(Mode::Off));
    assert_eq!("info".parse(), Ok(Mode::Info));
    assert_eq!("Verbose".parse(), Ok(Mode::Verbose));
    assert_eq!("true".parse(), Ok(Mode::Info));
    assert!("loud".parse::<Mode>().is_err());
}

#[test]
fn a_finished_querys_figures_are_written_in_milliseconds_and_bytes() {
    let mut finished = query("RETURN 1", 12);
    finished.figures = Some(quiver_engine::QueryFigures {
        planning: Duration::from_micros(2_600),
        cpu: Some(Duration::from_millis(9)),
        memory_peak_bytes: 4096,
    });
    let line: Json = serde_json::from_slice(&line::render(&finished)).expect("JSON");
    assert_eq!(line["planning"], 2);
    assert_eq!(line["cpu"], 9);
    assert_eq!(line["allocatedBytes"], 4096);
    let untracked: Json =
        serde_json::from_slice(&line::render(&query("RETURN 1", 1))).expect("JSON");
    for field in ["planning", "cpu", "allocatedBytes"] {
        assert!(untracked.get(field).is_none(), "{field}");
    }
}
