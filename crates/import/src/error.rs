//! Why an import failed. Every variant names where (a file, a line, a directory) so the
//! message alone tells a user what to fix.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The command line asks for something inconsistent (no node files, a bad delimiter).
    #[error("{0}")]
    Usage(String),

    #[error("destination {path}: {reason}")]
    Destination { path: PathBuf, reason: String },

    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },

    /// A header line the loader cannot read.
    #[error("{file}: {reason}")]
    Header { file: PathBuf, reason: String },

    /// A row the loader may not skip (or may, but was not told to), at its line.
    #[error("{file}:{line}: {reason}")]
    Input {
        file: PathBuf,
        line: u64,
        reason: String,
    },

    /// More bad entries were skipped than `--bad-tolerance` allows.
    #[error("{count} bad entries exceed the tolerance of {tolerance} (see {report})")]
    TooManyBad {
        count: u64,
        tolerance: u64,
        report: PathBuf,
    },

    /// The store refused an entity or the snapshot could not be written.
    #[error("store: {0}")]
    Store(String),
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
