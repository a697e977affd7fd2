//! The durability layer's one error type.
//!
//! Every failure names the file it concerns, and corruption names the byte offset too, so an
//! operator who sees a refusal to start knows exactly which file to look at.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Another process (or another open in this one) holds the data directory.
    #[error("data directory {dir} is already in use{holder}: two servers must never share one")]
    Locked { dir: PathBuf, holder: String },

    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// A file failed its checks before its tail; recovery refuses to guess what it held.
    #[error("corrupt {path} at byte {offset}: {reason}")]
    Corrupt {
        path: PathBuf,
        offset: u64,
        reason: String,
    },

    /// A record decoded but did not apply to the recovered store.
    #[error("cannot replay commit {commit} from {path} at byte {offset}: {source}")]
    Replay {
        path: PathBuf,
        offset: u64,
        commit: u64,
        #[source]
        source: quiver_storage::Error,
    },

    /// Reading the store for a snapshot failed.
    #[error("snapshot export failed: {0}")]
    Export(#[source] quiver_storage::Error),

    /// A write or sync failed earlier; writes stay refused until a restart recovers the log.
    #[error("writes are refused after a disk fault: {0}")]
    Faulted(Arc<str>),

    #[error("the commit log is closed")]
    Closed,

    #[error("invalid durability option `{name}`: {reason}")]
    InvalidOption { name: &'static str, reason: String },

    /// A backup piece, manifest or dump that cannot serve (missing, damaged, out of its
    /// chain's order), a chain the store cannot continue, or a restore or load target that
    /// is not empty: the path and why.
    #[error("{path}: {reason}")]
    Backup { path: PathBuf, reason: String },

    /// An incremental backup asked for commits the log no longer keeps (a snapshot made
    /// them redundant and the retention window did not keep them).
    #[error(
        "the log no longer holds the commits after {after}{oldest}: the backup chain must \
         restart with a full backup (keep more log with the retention settings)",
        oldest = oldest.map_or(String::new(), |o| format!(" (its oldest record is commit {o})"))
    )]
    LogGone { after: u64, oldest: Option<u64> },
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn corrupt(
        path: impl Into<PathBuf>,
        offset: u64,
        reason: impl Into<String>,
    ) -> Self {
        Error::Corrupt {
            path: path.into(),
            offset,
            reason: reason.into(),
        }
    }
}
