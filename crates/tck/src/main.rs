//! `quiver-tck`: runs a directory of openCypher TCK feature files against Quiver.

use std::process::ExitCode;

mod engine_target;

use clap::Parser as _;
use quiver_tck::cli::{self, Args};
use quiver_tck::{Target, TargetError};

fn main() -> ExitCode {
    cli::silence_worker_panics();
    let args = Args::parse();
    cli::main(&args, engine_target)
}

/// The target this binary measures: Quiver's embedded engine over an in-memory database.
/// (Infallible, but the runner's factory signature allows targets that can fail to start.)
#[allow(clippy::unnecessary_wraps)]
fn engine_target() -> Result<Box<dyn Target>, TargetError> {
    Ok(Box::new(engine_target::EngineTarget::new()))
}
