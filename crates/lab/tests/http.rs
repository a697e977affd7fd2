//! Seed 002's four experiments over HTTP, end to end against the in-process server, small.

use std::time::Duration;

use quiver_lab::LabArgs;
use quiver_lab::args::Mode;
use quiver_lab::http_run::measure;

fn args(flags: &[&str]) -> LabArgs {
    let a = LabArgs::parse_from(flags.iter().copied()).expect("flags parse");
    a.validate().expect("valid flags");
    a
}

#[test]
fn idle_holds_every_connection_and_reads_the_servers_counters() {
    let a = args(&["--protocol", "http", "--hold-ms", "200"]);
    let (report, lines, _) = measure(&a, Mode::Idle, 20).expect("idle run");
    assert_eq!(report.succeeded, 20, "{lines:#?}");
    assert_eq!(report.errors.total(), 0);
    let held = report.live_held.expect("in-process counters");
    assert_eq!(held.active, 20, "the held connections, and no other");
    assert_eq!(held.in_flight, 0, "idle: none in flight");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("# ceiling.reachable=20"))
    );
}

#[test]
fn idle_holds_connections_after_a_probe_or_before_any_request() {
    for after in ["probe", "nothing"] {
        let a = args(&[
            "--protocol",
            "http",
            "--hold-ms",
            "200",
            "--idle-after",
            after,
        ]);
        let (report, lines, _) = measure(&a, Mode::Idle, 20).expect("idle run");
        assert_eq!(report.succeeded, 20, "{after}: {lines:#?}");
        assert_eq!(report.errors.total(), 0, "{after}: {lines:#?}");
        let held = report.live_held.expect("in-process counters");
        assert_eq!(
            held.active, 20,
            "{after}: the held connections, and no other"
        );
        assert_eq!(held.in_flight, 0, "{after}: none in flight");
        assert!(
            lines.contains(&format!("config.idle_after={after}")),
            "{lines:#?}"
        );
    }
}

#[test]
fn load_answers_every_request_with_the_right_count() {
    let a = args(&["--protocol", "http", "--duration-ms", "300"]);
    let (report, lines, _) = measure(&a, Mode::Load, 4).expect("load run");
    assert!(report.requests_ok > 0, "{lines:#?}");
    assert_eq!(report.errors.total(), 0, "{lines:#?}");
    assert_eq!(report.verdict, "nothing ran out");
}

#[test]
fn slow_requests_are_all_in_flight_at_once() {
    let a = args(&["--protocol", "http", "--hold-ms", "2000"]);
    // More than the lab dials at once: the requests, not the dials, must be held together.
    let (report, lines, _) = measure(&a, Mode::Slow, 300).expect("slow run");
    assert_eq!(report.succeeded, 300, "{lines:#?}");
    let held = report.live_held.expect("in-process counters");
    assert_eq!(held.in_flight, 300, "{lines:#?}");
}

#[test]
fn slowloris_is_reclaimed_at_the_header_deadline() {
    let a = args(&[
        "--protocol",
        "http",
        "--handshake-timeout-ms",
        "500",
        "--drip-ms",
        "100",
        "--hold-ms",
        "5000",
    ]);
    let (report, lines, _) = measure(&a, Mode::Slowloris, 10).expect("slowloris run");
    assert_eq!(report.succeeded, 10, "{lines:#?}");
    let after = report.latency.expect("reclaim times");
    assert!(after.p50_ns >= Duration::from_millis(450).as_nanos() as u64);
    assert!(after.max_ns <= Duration::from_secs(3).as_nanos() as u64);
    let end = report.live_after.expect("in-process counters");
    assert_eq!(end.timed_out_total, 10);
}

#[test]
fn the_report_puts_the_seeds_go_figures_beside_the_runs() {
    let page = quiver_lab::artifacts::html::http_page(&[], 3_000);
    assert!(page.contains("Beside seed 002"));
    for (experiment, _, result) in quiver_lab::artifacts::html::SEED_GO_FIGURES {
        assert!(page.contains(experiment), "{experiment} missing");
        assert!(page.contains(result), "{result} missing");
    }
    assert!(page.contains("148,338 req/s"));
}
