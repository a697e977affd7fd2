//! `quiver lab --workload ldbc-snb`, short: a small generated SNB graph is loaded with
//! `quiver import`, served, driven with the Interactive mix for a few seconds, and the server
//! is then killed with SIGKILL: every read and update succeeded, and after the restart every
//! acknowledged update is there.

use std::process::Command;

#[test]
fn the_snb_mix_runs_without_failure_and_a_kill_loses_no_acknowledged_update() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let artifacts = tmp.path().join("artifacts");
    let out = Command::new(env!("CARGO_BIN_EXE_quiver"))
        .arg("lab")
        .args(["--workload", "ldbc-snb", "--snb-persons", "120"])
        .arg("--snb-dir")
        .arg(tmp.path().join("snb"))
        // A simulated day in 8.6 s: a few hundred updates and their reads in 4 s.
        .args([
            "--tcr",
            "0.0001",
            "--duration-ms",
            "4000",
            "--connections",
            "4",
        ])
        .arg("--crash-check")
        .arg("--exe")
        .arg(env!("CARGO_BIN_EXE_quiver"))
        .arg("--artifact-dir")
        .arg(&artifacts)
        .output()
        .expect("run quiver lab");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "quiver lab failed:\n{text}");
    assert!(text.contains(" 0 lost"), "{text}");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(artifacts.join("ldbc-snb.json")).expect("ldbc-snb.json"),
    )
    .expect("ldbc-snb.json parses");
    let report = &json["report"];
    assert_eq!(report["failures"].as_u64(), Some(0), "{text}");
    // Updates and complex reads both ran (short reads follow only reads whose answers hold
    // ids, which a graph this small may not give).
    let kinds: Vec<&str> = report["kinds"]
        .as_array()
        .expect("kinds")
        .iter()
        .filter_map(|k| k["kind"].as_str())
        .collect();
    for class in ["IC", "IU"] {
        assert!(
            kinds.iter().any(|k| k.starts_with(class)),
            "{class}: {text}"
        );
    }
}
