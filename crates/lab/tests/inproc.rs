//! End to end in process: the default run with its exact report shape, every workload's
//! verification against Quiver's real counters, and a small saturation rung.

use quiver_lab::LabArgs;
use quiver_lab::report::render;
use quiver_lab::run::run_load;

fn args(flags: &[&str]) -> LabArgs {
    let a = LabArgs::parse_from(flags.iter().copied()).expect("flags parse");
    a.validate().expect("valid flags");
    a
}

#[test]
fn the_default_run_prints_the_seed_report_shape() {
    let record = run_load(&LabArgs::defaults()).expect("default run");
    assert!(record.passed, "{:#?}", record.effect);
    let text = render(&record);
    let facts: Vec<&str> = text.lines().take_while(|l| !l.starts_with('#')).collect();
    assert_eq!(
        facts,
        [
            "config.nodes=2000",
            "config.knows=[5,8]",
            "config.queries=2000",
            "config.sessions=4",
            "config.seed=42",
            "config.connections=0",
            "config.max_connections=8",
            "config.repetitions=1",
            "config.workload=count",
            "config.rows_per_query=1",
            "nodes.person=2000",
            &format!("edges.knows={}", record.facts.edges_knows),
            "q.count_person=2000",
            "queries.ok=2000",
        ]
    );
    assert!(text.lines().skip(facts.len()).all(|l| l.starts_with("# ")));
    assert_eq!(text.lines().last(), Some("# server shut down cleanly"));
    for key in [
        "# load.connect_elapsed=",
        "# load.throughput=",
        "# load.latency_p999=",
        "# counters.bolt.server.conn.accepted=",
        "# runtime.tasks_peak=",
        "# runtime.open_fds_max=",
        "# mem.rss_max=",
        "# host.cores=",
        "# host.idle=",
        "# cpu.client=",
    ] {
        assert!(text.contains(key), "missing {key} in\n{text}");
    }
    // The edge total is a fact of the seed, the same on every run.
    let again = quiver_lab::run::social_of(&LabArgs::defaults());
    assert_eq!(again.edge_count(), record.facts.edges_knows);
}

#[test]
fn explicit_transactions_show_in_the_servers_counters() {
    let record = run_load(&args(&[
        "--workload",
        "txread",
        "--connections",
        "4",
        "--queries",
        "200",
    ]))
    .expect("txread run");
    assert!(record.passed, "{:#?}", record.effect[0].verdict);
    let w = &record.effect[0];
    let c = w.counters.expect("in-process counters");
    assert_eq!(c.tx_opened, 200);
    assert_eq!(c.tx_committed, 200);
    assert!(w.verdict.unverified.is_empty(), "{:?}", w.verdict);
    assert!(render(&record).contains("# counters.bolt.server.tx.opened=200"));
}

#[test]
fn writes_move_the_counter_total_by_one_each() {
    let record = run_load(&args(&[
        "--workload",
        "txwrite",
        "--connections",
        "8",
        "--queries",
        "160",
        "--repetitions",
        "2",
    ]))
    .expect("txwrite run");
    assert!(record.passed, "{:#?}", record.effect);
    for w in &record.effect {
        assert_eq!(w.counter_delta, Some(160));
        assert_eq!(w.writes_ok, 160);
    }
    let text = render(&record);
    assert!(text.contains("nodes.counter=1024\nwrite.committed_delta=160\nqueries.ok=160"));
}

#[test]
fn records_and_mixed_verify_every_row() {
    let record = run_load(&args(&[
        "--workload",
        "records",
        "--rows",
        "50",
        "--connections",
        "4",
        "--queries",
        "40",
    ]))
    .expect("records run");
    assert!(record.passed, "{:#?}", record.effect[0].verdict);
    assert_eq!(record.effect[0].records_ok, 2000);
    let record = run_load(&args(&[
        "--workload",
        "mixed",
        "--writers",
        "2",
        "--readers",
        "2",
        "--queries",
        "200",
    ]))
    .expect("mixed run");
    assert!(record.passed, "{:#?}", record.effect[0].verdict);
    let w = &record.effect[0];
    assert_eq!(w.writes_ok + w.reads_ok, 200);
    assert_eq!(w.counter_delta, Some(w.writes_ok as i64));
}

#[test]
fn return1_answers_one_row_of_one_and_reports_it() {
    let record = run_load(&args(&[
        "--workload",
        "return1",
        "--connections",
        "4",
        "--queries",
        "200",
    ]))
    .expect("return1 run");
    assert!(record.passed, "{:#?}", record.effect[0].verdict);
    assert_eq!(record.effect[0].queries_ok, 200);
    let text = render(&record);
    assert!(text.contains("\nq.return1=1\n"), "{text}");
    assert!(!text.contains("q.count_person"), "{text}");
}

#[test]
fn a_saturation_rung_reports_the_refused_from_the_servers_counters() {
    let record = run_load(&args(&[
        "--connections",
        "24",
        "--max-connections",
        "12",
        "--queries",
        "480",
        "--sessions",
        "1",
    ]))
    .expect("saturation run");
    assert!(record.config.expect_rejections);
    assert!(record.passed, "{:#?}", record.effect[0].verdict);
    let w = &record.effect[0];
    let c = w.counters.expect("in-process counters");
    assert_eq!((c.accepted, c.rejected), (12, 12));
    assert_eq!(c.closed, 12);
    assert_eq!(w.conn_established, 12);
    assert_eq!(w.conn_failed, 12);
    assert_eq!(
        w.queries_ok, 240,
        "the refused connections' share is lost on purpose"
    );
    assert_eq!(w.errors_server_side, 12, "{}", w.errors.summary());
    assert_eq!(w.errors_client_side, 0);
}
