//! `quiver lab --cluster 3 --rolling-restart`, short: three members, fifty routed writers,
//! every member restarted in turn with SIGTERM. No acknowledged write is lost or stored twice
//! on any member, and every writer resumed after the last restart; the same with the members
//! speaking mutual TLS (`--cluster-tls`).

use std::process::Command;

/// Reads the cluster record `quiver lab` wrote to `<dir>/metrics.json`.
fn cluster_record(dir: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("metrics.json")).expect("metrics.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("metrics.json parses");
    json["cluster"].clone()
}

/// No acknowledged write lost or stored twice, and each of the fifty writers resumed after
/// the last disruption; `text` is the run's output, for the failure message.
fn assert_every_write_kept(r: &serde_json::Value, text: &str) {
    assert_eq!(r["lost"].as_u64(), Some(0), "{text}");
    assert_eq!(r["duplicates"].as_u64(), Some(0), "{text}");
    assert_eq!(r["clients_resumed"].as_u64(), Some(50), "{text}");
}

/// A rolling restart's record: writes were acknowledged, every one kept, and all three
/// members verified.
fn assert_rolled_through_every_member(r: &serde_json::Value, text: &str) {
    assert!(
        r["acknowledged"].as_u64().expect("acknowledged") > 0,
        "{text}"
    );
    assert_every_write_kept(r, text);
    assert_eq!(r["members_verified"].as_u64(), Some(3), "{text}");
}

fn lab(dir: &std::path::Path, disruption: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_quiver"))
        .arg("lab")
        .args(["--cluster", "3"])
        .args(disruption)
        .args(["--connections", "50", "--source-addrs", "4"])
        .args(["--write-interval-ms", "200", "--settle-ms", "1500"])
        .arg("--exe")
        .arg(env!("CARGO_BIN_EXE_quiver"))
        .arg("--artifact-dir")
        .arg(dir)
        .output()
        .expect("run quiver lab");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn a_rolling_restart_loses_and_duplicates_no_acknowledged_write() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (passed, text) = lab(tmp.path(), &["--rolling-restart"]);
    assert!(passed, "quiver lab failed:\n{text}");
    let r = cluster_record(tmp.path());
    assert_rolled_through_every_member(&r, &text);
    assert_eq!(r["ready_ms"].as_array().map(Vec::len), Some(3), "{text}");
    assert!(text.contains("rolling.lost=0"), "{text}");
    let page = std::fs::read_to_string(tmp.path().join("report.html")).expect("report.html");
    assert!(page.contains("Acknowledged writes per second"));
    assert!(page.contains("Connections open to a writer"));
}

#[test]
fn killed_leaders_lose_no_acknowledged_write_and_report_the_failover() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (passed, text) = lab(tmp.path(), &["--kill-leader", "--rounds", "2"]);
    assert!(passed, "quiver lab failed:\n{text}");
    let r = cluster_record(tmp.path());
    assert_every_write_kept(&r, &text);
    assert_eq!(r["failover_ms"].as_array().map(Vec::len), Some(2), "{text}");
    assert!(text.contains("failover.max_ms="), "{text}");
}

#[test]
fn a_rolling_restart_over_cluster_tls_loses_and_duplicates_no_acknowledged_write() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (passed, text) = lab(tmp.path(), &["--rolling-restart", "--cluster-tls"]);
    assert!(passed, "quiver lab failed:\n{text}");
    let r = cluster_record(tmp.path());
    assert_eq!(r["cluster_tls"].as_bool(), Some(true), "{text}");
    assert_rolled_through_every_member(&r, &text);
    assert!(text.contains("config.cluster_tls=true"), "{text}");
}
