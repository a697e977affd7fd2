//! The TCK ratchets: every scenario listed in `ratchet.txt` (the openCypher TCK) and in
//! `quiver-ratchet.txt` (Quiver's own features, `features/quiver`: Neo4j 5's dialect beyond
//! the TCK) must keep passing strictly against the embedded engine. Grow a list with
//! `cargo run --release -p quiver-tck -- crates/tck/opencypher/features --ratchet crates/tck/ratchet.txt --update-ratchet`
//! (or `crates/tck/features/quiver` with `crates/tck/quiver-ratchet.txt`).

#[path = "../src/engine_target.rs"]
mod engine_target;

use std::path::Path;

use quiver_tck::{Ratchet, RunOptions, run_directory};

#[test]
fn ratchet_scenarios_still_pass() {
    check_ratchet("opencypher/features", "ratchet.txt");
}

#[test]
fn quiver_ratchet_scenarios_still_pass() {
    check_ratchet("features/quiver", "quiver-ratchet.txt");
}

/// Runs the features under `features` (relative to this crate) and fails on any scenario the
/// ratchet file `ratchet` lists that no longer passes.
fn check_ratchet(features: &str, ratchet: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let features = root.join(features);
    let ratchet = Ratchet::load(&root.join(ratchet)).expect("ratchet file");
    assert!(!ratchet.is_empty(), "the ratchet lists no scenarios");
    let options = RunOptions {
        // Unoptimised builds are slower; the budget only guards against runaways.
        scenario_timeout_ms: 60_000,
        ..RunOptions::default()
    };
    let report = run_directory(
        &features,
        || Ok(engine_target::EngineTarget::new()),
        &options,
    )
    .expect("the feature files load");
    let regressions = ratchet.regressions(&report, None);
    assert!(
        regressions.is_empty(),
        "{} ratchet scenario(s) no longer pass:\n{}",
        regressions.len(),
        regressions.join("\n")
    );
    eprintln!("{}", report.rates_line());
}
