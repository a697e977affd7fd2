//! Quiver's durability layer: the commit log with buffered, group and sync modes, background
//! snapshots, crash recovery, and the disk seam where faults are injected.
//!
//! The storage engine writes no files. It hands each commit's redo record to the
//! [`quiver_storage::CommitLog`] installed here, under its commit lock; this crate appends it to
//! a buffer (no I/O under that lock), and a leader (a waiting committer, or the log writer
//! thread) writes and syncs whole batches. Committers wait for the *durable watermark*
//! holding no lock. In `group` and `sync` modes readers start at that watermark, so they never
//! see data that is not on disk and never wait for a disk either.
//!
//! [`Durability::open`] is the entry point: it locks the directory, recovers it (newest valid
//! snapshot, then the log), and returns the store with the machinery running.
//!
//! Operations sit on the same formats: [`backup`] (full and incremental pieces a running store
//! hands out, a chain of them kept with manifests, and a restore to a commit or a time),
//! [`dump`] (a stopped directory as one compressed file, and back), and the log retention
//! window and archive ([`Retention`], [`Options::log_archive_dir`]).

pub mod backup;
mod disk;
pub mod dump;
mod error;
pub mod fault;
mod frame;
mod layout;
mod lockfile;
mod log;
mod mode;
mod recovery;
mod snapshot;
mod stats;
mod store;

pub use disk::{Disk, DiskFile, RealDisk};
pub use error::{Error, Result};
pub use frame::{
    FRAME_BODY_BYTES_MIN, FRAME_HEADER_BYTES, Frame, FrameError, SEGMENT_HEADER_BYTES,
    parse_segment_name, parse_snapshot_name, put_frame, put_segment_header, read_frame,
    read_segment_header, segment_name, snapshot_name,
};
pub use layout::{BACKUP_SCRATCH_DIR, DiskUsage, FreeSpace, disk_usage, free_space};
pub use lockfile::{DirLock, LOCK_FILE_NAME};
pub use log::DurableWait;
pub use mode::{Mode, Options, Retention, SNAPSHOT_INTERVAL_DEFAULT, SNAPSHOT_LOG_BYTES_DEFAULT};
pub use recovery::{RecoveryReport, TornTail};
pub use snapshot::{
    Loaded as LoadedSnapshot, SnapshotInfo, is_schema, load as load_snapshot,
    write as write_snapshot,
};
pub use stats::{BATCH_BUCKET_BOUNDS, BatchHistogram, DurabilityStats};
pub use store::Durability;
