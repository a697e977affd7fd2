//! The TCK ratchet: every scenario listed in `ratchet.txt` must keep passing strictly against
//! the embedded engine. Grow the list with
//! `cargo run --release -p quiver-tck -- crates/tck/opencypher/features --ratchet crates/tck/ratchet.txt --update-ratchet`.

#[path = "../src/engine_target.rs"]
mod engine_target;

use std::path::Path;

use quiver_tck::{Ratchet, RunOptions, run_directory};

#[test]
fn ratchet_scenarios_still_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let features = root.join("opencypher/features");
    let ratchet = Ratchet::load(&root.join("ratchet.txt")).expect("ratchet file");
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
