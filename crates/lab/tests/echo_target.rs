//! A whole rung driven through `--target` against the lab's own echo server: the client, the
//! barrier, pooled and connection mode, verification and the report, without a database.
//! The echo server exposes no counters, so the transaction rule must come back unverified
//! rather than passed.

use std::sync::Arc;
use std::time::Duration;

use quiver_bolt::Version;
use quiver_lab::client::Dialer;
use quiver_lab::counters::CounterSource;
use quiver_lab::echo::{EchoScript, EchoServer};
use quiver_lab::load::{Budget, ClientShape, WindowOutcome, WindowSpec, run_window};
use quiver_lab::rung::{RungSpec, run_rung};
use quiver_lab::sampler::Probe;
use quiver_lab::seed::SocialSpec;
use quiver_lab::target::{CpuSource, Target};
use quiver_lab::workload::{Plan, Workload};

fn plan(workload: Workload) -> Plan {
    Plan {
        workload,
        rows: 1,
        write_slots: 16,
        social: Arc::new(
            SocialSpec {
                persons: 2000,
                knows_min: 5,
                knows_max: 8,
                seed: 42,
                write_slots: 16,
            }
            .generate(),
        ),
    }
}

fn spec(shape: ClientShape, workload: Workload) -> WindowSpec {
    WindowSpec {
        shape,
        budget: Budget::Units(500),
        plan: plan(workload),
        request_timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(10),
        credentials: None,
        manifest: false,
    }
}

fn echo_target(addr: std::net::SocketAddr) -> Target {
    Target {
        label: format!("bolt://{addr}"),
        addr,
        credentials: None,
        counters: CounterSource::Unavailable,
        probe: Probe {
            pid: quiver_lab::procfs::Pid::This,
            fds: true,
            tasks: None,
        },
        server_cpu: CpuSource::Unknown,
        total_reader: None,
        in_process: false,
    }
}

/// The lab's echo server, answering 2000 to every count, and the target that stands for it.
fn start_echo() -> (EchoServer, Target) {
    let echo = EchoServer::start(
        "127.0.0.1:0".parse().unwrap(),
        EchoScript::synthetic(Version::V5_8, 2000),
    )
    .unwrap();
    let target = echo_target(echo.addr);
    (echo, target)
}

/// A dialer to `target` from `source_addrs` loopback source addresses.
fn dialer(target: &Target, source_addrs: usize) -> Arc<Dialer> {
    Arc::new(Dialer::new(
        target.addr,
        source_addrs,
        Duration::from_secs(10),
    ))
}

/// One window of `shape` running `workload` against `target`.
async fn one_window(
    target: &Target,
    dialer: &Arc<Dialer>,
    shape: ClientShape,
    workload: Workload,
) -> WindowOutcome {
    run_window(&spec(shape, workload), dialer, &target.probe).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_mode_holds_every_connection_and_verifies_every_answer() {
    let (_echo, target) = start_echo();
    let dialer = dialer(&target, 2);
    let rung = RungSpec {
        window: spec(
            ClientShape::Connections {
                connections: 16,
                sessions: 2,
            },
            Workload::Count,
        ),
        repetitions: 2,
        flamegraph: None,
        saturation: false,
    };
    let windows = run_rung(&target, &dialer, &rung).await.unwrap();
    assert_eq!(windows.effect.len(), 2);
    for w in &windows.effect {
        assert_eq!(w.conn_offered, 16);
        assert_eq!(w.conn_established, 16);
        assert_eq!(w.queries_ok, 500);
        assert_eq!(w.records_ok, 500);
        assert!(w.verdict.passed(), "{:?}", w.verdict);
        assert!(
            w.verdict
                .unverified
                .iter()
                .any(|u| u.contains("transaction counters")),
            "no counters on this target: {:?}",
            w.verdict
        );
        assert_eq!(w.latency.count, 500);
        assert!(w.throughput_qps > 0.0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pooled_mode_and_explicit_transactions_against_the_echo() {
    let (_echo, target) = start_echo();
    let dialer = dialer(&target, 1);
    let pooled = ClientShape::Pooled {
        sessions: 4,
        pool_max: 100,
    };
    let out = one_window(&target, &dialer, pooled, Workload::Txread).await;
    assert_eq!(out.units_ok, 500);
    assert_eq!(out.units_failed, 0);
    assert!(
        out.pool_opened >= 1 && out.pool_opened <= 4,
        "{}",
        out.pool_opened
    );
    assert_eq!(
        out.conn_offered, 0,
        "the pool's sockets are its own business"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_answers_fail_verification() {
    // The echo answers 2000; a graph of 1999 people expects 1999.
    let (_echo, target) = start_echo();
    let dialer = dialer(&target, 1);
    let mut window = spec(
        ClientShape::Connections {
            connections: 4,
            sessions: 1,
        },
        Workload::Count,
    );
    window.plan.social = Arc::new(
        SocialSpec {
            persons: 1999,
            knows_min: 1,
            knows_max: 1,
            seed: 1,
            write_slots: 1,
        }
        .generate(),
    );
    let rung = RungSpec {
        window,
        repetitions: 1,
        flamegraph: None,
        saturation: false,
    };
    let windows = run_rung(&target, &dialer, &rung).await.unwrap();
    let w = &windows.effect[0];
    assert_eq!(w.queries_ok, 0);
    assert_eq!(w.rows_bad, 500);
    assert!(!w.verdict.passed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_connections_are_classified_as_the_servers() {
    let addr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let target = echo_target(addr);
    let dialer = dialer(&target, 1);
    let shape = ClientShape::Connections {
        connections: 8,
        sessions: 1,
    };
    let out = one_window(&target, &dialer, shape, Workload::Count).await;
    assert_eq!(out.conn_failed, 8);
    assert_eq!(out.units_lost, 500);
    assert_eq!(out.errors.by_side(quiver_lab::classify::Side::Server), 8);
}
