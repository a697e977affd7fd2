//! A failing statement over raw Bolt, in every version Quiver speaks: one reply per request, in
//! order, and never a wait. The request that fails gets the FAILURE; what the client pipelined
//! behind it (DISCARD, PULL, COMMIT) gets IGNORED; RESET gets SUCCESS and the connection goes
//! on. A writing statement is carried out at its RUN, as in Neo4j, so its errors fail the RUN;
//! a failure that comes while records are pulled (a reading statement's runtime error, a
//! uniqueness violation found only at an auto-commit transaction's commit) fails that PULL or
//! DISCARD.

mod common;

use common::bolt::{BoltClient, begin, code, pull, run};
use common::{config, start};
use quiver_bolt::message::{Auth, TxExtra};
use quiver_bolt::{Request, Response, Version};

const UNIQUE_VIOLATION: &str = "Neo.ClientError.Schema.ConstraintValidationFailed";

fn discard() -> Request {
    Request::Discard { n: -1, qid: -1 }
}

async fn logged_in(server: &common::Running, version: Version) -> BoltClient {
    let manifest = version >= Version::V5_0;
    let mut client = BoltClient::connect(server.bolt, &[version], manifest).await;
    assert_eq!(client.version, version);
    client.login(Auth::none()).await.expect("logged in");
    client
}

/// A server whose graph holds `(:P {k: 1})` under a uniqueness constraint on `:P(k)`.
async fn server_with_a_unique_node() -> common::Running {
    let server = start(config(|_| {}), None).await;
    let mut setup = logged_in(&server, Version::V5_8).await;
    setup
        .query("CREATE CONSTRAINT p_k FOR (p:P) REQUIRE p.k IS UNIQUE")
        .await;
    setup.query("CREATE (:P {k: 1})").await;
    server
}

async fn expect_failure_coded(client: &mut BoltClient, expected: &str, what: &str) {
    let version = client.version;
    match client.recv().await {
        Some(Response::Failure(meta)) => {
            assert_eq!(code(&meta).as_deref(), Some(expected), "{version} {what}");
        }
        other => panic!("{version} {what}: expected FAILURE, got {other:?}"),
    }
}

async fn expect_ignored(client: &mut BoltClient, what: &str) {
    let version = client.version;
    match client.recv().await {
        Some(Response::Ignored) => {}
        other => panic!("{version} {what}: expected IGNORED, got {other:?}"),
    }
}

async fn expect_success(client: &mut BoltClient, what: &str) {
    let version = client.version;
    match client.recv().await {
        Some(Response::Success(_)) => {}
        other => panic!("{version} {what}: expected SUCCESS, got {other:?}"),
    }
}

/// RESET answers SUCCESS and the connection runs a query again; returns how many `:P` nodes
/// have `k = value`.
async fn reset_then_count(client: &mut BoltClient, value: i64) -> i64 {
    client.send(&[Request::Reset]).await;
    expect_success(client, "RESET").await;
    let (_, rows, _) = client
        .query(&format!("MATCH (p:P {{k: {value}}}) RETURN count(p) AS c"))
        .await;
    match rows.as_slice() {
        [row] => common::bolt::int(&row[0]),
        other => panic!("one row expected, got {other:?}"),
    }
}

#[tokio::test]
async fn a_failed_auto_commit_run_is_followed_by_ignored_until_reset() {
    let server = server_with_a_unique_node().await;
    for version in Version::SUPPORTED {
        let duplicates = ["CREATE (:P {k: 1})", "CREATE (p:P {k: 1}) RETURN p.k AS k"];
        for duplicate in duplicates {
            for (name, follower) in [("DISCARD", discard()), ("PULL", pull(-1, -1))] {
                let mut client = logged_in(&server, version).await;
                // As neo4rs's run() and the other drivers send it: RUN and its follower
                // together.
                client.send(&[run(duplicate), follower]).await;
                expect_failure_coded(&mut client, UNIQUE_VIOLATION, duplicate).await;
                expect_ignored(&mut client, name).await;
                assert_eq!(reset_then_count(&mut client, 1).await, 1, "{version}");
            }
        }
        // The same, one request at a time.
        let mut client = logged_in(&server, version).await;
        client.send(&[run("CREATE (:P {k: 1})")]).await;
        expect_failure_coded(&mut client, UNIQUE_VIOLATION, "RUN").await;
        client.send(&[discard()]).await;
        expect_ignored(&mut client, "DISCARD").await;
        client.send(&[pull(-1, -1)]).await;
        expect_ignored(&mut client, "PULL").await;
        assert_eq!(reset_then_count(&mut client, 1).await, 1, "{version}");
    }
    server.stop().await;
}

#[tokio::test]
async fn a_failed_run_in_an_explicit_transaction_is_followed_by_ignored_until_reset() {
    let server = server_with_a_unique_node().await;
    for version in Version::SUPPORTED {
        for end in [Request::Commit, Request::Rollback] {
            let mut client = logged_in(&server, version).await;
            client
                .send(&[
                    begin(TxExtra::default()),
                    run("CREATE (:P {k: 2})"),
                    discard(),
                    run("CREATE (:P {k: 1})"),
                    discard(),
                    end.clone(),
                ])
                .await;
            expect_success(&mut client, "BEGIN").await;
            expect_success(&mut client, "first RUN").await;
            expect_success(&mut client, "first DISCARD").await;
            expect_failure_coded(&mut client, UNIQUE_VIOLATION, "second RUN").await;
            expect_ignored(&mut client, "second DISCARD").await;
            expect_ignored(&mut client, end.name()).await;
            assert_eq!(
                reset_then_count(&mut client, 2).await,
                0,
                "{version}: the transaction rolled back, {} or not",
                end.name()
            );
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn a_failure_while_records_are_pulled_fails_that_pull_and_ignores_what_follows() {
    let server = server_with_a_unique_node().await;
    for version in Version::SUPPORTED {
        // A runtime error at the second row.
        let mut client = logged_in(&server, version).await;
        client
            .send(&[
                run("UNWIND [1, 0] AS x RETURN 1 / x AS y"),
                pull(-1, -1),
                discard(),
            ])
            .await;
        expect_success(&mut client, "RUN").await;
        // Records of the rows before the failing one may come first; then the FAILURE.
        loop {
            match client.recv().await {
                Some(Response::Record(_)) => {}
                Some(Response::Failure(_)) => break,
                other => panic!("{version}: the division's FAILURE, got {other:?}"),
            }
        }
        expect_ignored(&mut client, "DISCARD after the failed PULL").await;
        assert_eq!(reset_then_count(&mut client, 1).await, 1, "{version}");

        // A uniqueness violation found only at an auto-commit transaction's commit, which
        // comes when its result has been consumed: by DISCARD here, as neo4rs sends it. The
        // statement's own check at RUN passes; another client commits the same key before
        // the DISCARD.
        let key = 100 + i64::from(version.major) * 10 + i64::from(version.minor);
        let mut client = logged_in(&server, version).await;
        client
            .send(&[run(&format!("CREATE (p:P {{k: {key}}}) RETURN p.k AS k"))])
            .await;
        expect_success(&mut client, "RUN").await;
        let mut other = logged_in(&server, Version::V5_8).await;
        other.query(&format!("CREATE (:P {{k: {key}}})")).await;
        client.send(&[discard(), pull(-1, -1)]).await;
        expect_failure_coded(&mut client, UNIQUE_VIOLATION, "DISCARD").await;
        expect_ignored(&mut client, "PULL after the failed DISCARD").await;
        assert_eq!(reset_then_count(&mut client, key).await, 1, "{version}");
    }
    server.stop().await;
}

#[tokio::test]
async fn a_failed_commit_is_followed_by_ignored_until_reset() {
    let server = server_with_a_unique_node().await;
    for (key, version) in (10..).zip(Version::SUPPORTED) {
        // This transaction's node passes its statement's check; another client then commits
        // the same key first, so this COMMIT, checking again under the commit lock, fails.
        let mut client = logged_in(&server, version).await;
        client
            .send(&[
                begin(TxExtra::default()),
                run(&format!("CREATE (:P {{k: {key}}})")),
                pull(-1, -1),
            ])
            .await;
        expect_success(&mut client, "BEGIN").await;
        expect_success(&mut client, "RUN").await;
        expect_success(&mut client, "PULL").await;
        let mut other = logged_in(&server, Version::V5_8).await;
        other.query(&format!("CREATE (:P {{k: {key}}})")).await;
        client
            .send(&[Request::Commit, run("RETURN 1 AS one"), pull(-1, -1)])
            .await;
        expect_failure_coded(&mut client, UNIQUE_VIOLATION, "COMMIT").await;
        expect_ignored(&mut client, "RUN after the failed COMMIT").await;
        expect_ignored(&mut client, "PULL after the failed COMMIT").await;
        assert_eq!(reset_then_count(&mut client, key).await, 1, "{version}");
    }
    server.stop().await;
}
