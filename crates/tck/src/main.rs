//! `quiver-tck`: runs a directory of openCypher TCK feature files against Quiver.

use std::process::ExitCode;

use clap::Parser as _;
use quiver_tck::cli::{self, Args};
use quiver_tck::{Target, TargetError};

fn main() -> ExitCode {
    cli::silence_worker_panics();
    let args = Args::parse();
    cli::main(&args, engine_target)
}

/// The target this binary measures: Quiver's embedded engine.
///
/// `quiver-engine` has no query engine yet. When it has, this function opens an in-memory
/// database and returns it wrapped in an adapter implementing [`Target`] (the adapter belongs in
/// this crate, so the engine does not depend on its test harness). Until then every run stops
/// here with a clear message; `--count` works without a target.
fn engine_target() -> Result<Box<dyn Target>, TargetError> {
    Err(TargetError::Unavailable(
        "quiver-engine does not provide a query engine yet (see engine_target in crates/tck/src/main.rs); \
         use --count to parse and count the scenarios"
            .to_owned(),
    ))
}
