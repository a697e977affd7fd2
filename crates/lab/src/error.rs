//! The lab's one error type: what stops a run (as opposed to a client error inside a window,
//! which is counted and classified, see [`crate::classify`]).

use thiserror::Error;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LabError {
    #[error("invalid flags: {0}")]
    Usage(String),
    #[error("seeding the graph: {0}")]
    Seed(String),
    #[error("starting the in-process server: {0}")]
    Server(String),
    #[error("target {target}: {detail}")]
    Target { target: String, detail: String },
    /// A window's answers or counters broke a verification rule: the run fails.
    #[error("verification failed in {window}: {violations}")]
    Verification { window: String, violations: String },
    #[error("writing artefact {path}: {source}")]
    Artifact {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// The SNB workload's inputs (generated files, parameters, the update stream) or its run.
    #[error("ldbc-snb: {0}")]
    Snb(String),
    #[error("rung {rung}: {detail}")]
    Rung { rung: String, detail: String },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl LabError {
    pub fn artifact(path: &std::path::Path, source: std::io::Error) -> LabError {
        LabError::Artifact {
            path: path.display().to_string(),
            source,
        }
    }
}
