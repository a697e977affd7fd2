//! When a commit is acknowledged, and the limits the log and snapshots run under.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::error::{Error, Result};

/// When a commit is acknowledged relative to its record reaching the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Acknowledged at once; the log is written and synced in the background every
    /// [`Options::flush_interval`], which bounds what a power cut can lose.
    #[default]
    Buffered,
    /// Acknowledged after the sync that covers the record: whoever syncs takes every commit
    /// that arrived meanwhile, so commits that arrive together share one sync. A leader may
    /// also wait for company, up to [`Options::group_window`] (off by default).
    Group,
    /// Acknowledged after a sync that covers the record, started as soon as the record is
    /// waited on, never delayed to gather others; committers that happen to wait together
    /// still share it.
    Sync,
}

impl Mode {
    /// Whether readers are held back to the durable watermark and commits wait for disk.
    pub fn is_durable(self) -> bool {
        !matches!(self, Mode::Buffered)
    }
}

impl FromStr for Mode {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        match text.to_ascii_lowercase().as_str() {
            "buffered" => Ok(Mode::Buffered),
            "group" => Ok(Mode::Group),
            "sync" => Ok(Mode::Sync),
            _ => Err(Error::InvalidOption {
                name: "durability",
                reason: format!("unknown mode `{text}`: expected buffered, group or sync"),
            }),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Buffered => "buffered",
            Mode::Group => "group",
            Mode::Sync => "sync",
        })
    }
}

/// Log bytes between background snapshots by default. A restart after a crash loads the last
/// snapshot and replays the log after it, so this bounds the replay: at the replay rates in
/// `docs/PERFORMANCE.md` ("Recovery") it is a few seconds, and a snapshot every 64 MiB of
/// log is cheap beside the writes that made it.
pub const SNAPSHOT_LOG_BYTES_DEFAULT: u64 = 64 << 20;

/// Time between background snapshots by default (when something was committed): bounds the
/// log of a lightly written store, whose size threshold may take days to reach.
pub const SNAPSHOT_INTERVAL_DEFAULT: Duration = Duration::from_secs(600);

/// Tuning and limits. The defaults suit a server; tests shrink them to exercise rolls and
/// snapshots quickly.
#[derive(Clone, Debug)]
pub struct Options {
    /// Buffered mode writes and syncs the log this often: the most a power cut can lose.
    /// The other modes use it as the pick-up interval for commits nobody waits on.
    pub flush_interval: Duration,
    /// How long a group-mode leader may wait for more commits to join its sync (and never
    /// longer than a quarter of a typical sync). It only waits when the previous sync carried
    /// more than one commit, so a lone client pays nothing. Off by default: on the machines
    /// measured (see `docs/PERFORMANCE.md`), commits already share syncs without waiting, and
    /// waiting cost more than it saved; it is meant for disks whose syncs are slow.
    pub group_window: Duration,
    /// A segment is closed and a new one started once it holds this many bytes.
    pub segment_bytes_max: u64,
    /// Buffered bytes beyond which committers are made to wait for the disk (back-pressure,
    /// applied in [`crate::Durability::wait`], never inside the commit lock).
    pub pending_bytes_max: usize,
    /// Buffered bytes at which the writer is woken before its interval ends.
    pub pending_flush_bytes: usize,
    /// Largest encoded redo record the log accepts.
    pub record_bytes_max: usize,
    /// A background snapshot starts once this many log bytes were written since the last.
    pub snapshot_log_bytes: u64,
    /// A background snapshot starts once this much time passed since the last and something
    /// was committed meanwhile. `None`: by log size only.
    pub snapshot_interval: Option<Duration>,
    /// Take a snapshot on a clean close, so the next start replays no log.
    pub snapshot_on_close: bool,
    /// Whether background snapshots run at all (explicit and closing snapshots still do).
    pub snapshot_background: bool,
    /// Ops per snapshot block: the unit of checksumming and of replay at recovery.
    pub snapshot_block_ops_max: usize,
    /// Which closed log segments a snapshot keeps after it has made them redundant: the
    /// window point-in-time restores and incremental backups read from.
    pub log_retention: Retention,
    /// A directory every closed segment is copied to before a snapshot removes it (`None`:
    /// no archive).
    pub log_archive_dir: Option<std::path::PathBuf>,
}

/// How much redundant log a snapshot keeps: a segment stays while it was last written
/// within `age`, or while it is among the newest redundant segments that together fit in
/// `bytes`. The default keeps none (a snapshot removes every segment it covers).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Retention {
    pub age: Option<Duration>,
    pub bytes: u64,
}

impl Retention {
    /// Whether a redundant segment last written `age` ago, with `newer_bytes` of redundant
    /// segments newer than it, is still kept.
    pub fn keeps(&self, age: Duration, newer_bytes: u64, bytes: u64) -> bool {
        self.age.is_some_and(|window| age <= window)
            || newer_bytes.saturating_add(bytes) <= self.bytes
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            flush_interval: Duration::from_millis(50),
            group_window: Duration::ZERO,
            segment_bytes_max: 64 << 20,
            pending_bytes_max: 64 << 20,
            pending_flush_bytes: 4 << 20,
            record_bytes_max: quiver_storage::RECORD_BYTES_MAX,
            snapshot_log_bytes: SNAPSHOT_LOG_BYTES_DEFAULT,
            snapshot_interval: Some(SNAPSHOT_INTERVAL_DEFAULT),
            snapshot_on_close: true,
            snapshot_background: true,
            snapshot_block_ops_max: 4096,
            log_retention: Retention::default(),
            log_archive_dir: None,
        }
    }
}

impl Options {
    pub(crate) fn validate(&self) -> Result<()> {
        let bad = |name, reason: &str| {
            Err(Error::InvalidOption {
                name,
                reason: reason.to_string(),
            })
        };
        if self.flush_interval.is_zero() {
            return bad("flush_interval", "must be positive");
        }
        if self.segment_bytes_max < 4096 {
            return bad("segment_bytes_max", "must be at least 4096");
        }
        if self.pending_bytes_max == 0 || self.pending_flush_bytes == 0 {
            return bad("pending_bytes_max", "must be positive");
        }
        if self.record_bytes_max == 0 || self.record_bytes_max > quiver_storage::RECORD_BYTES_MAX {
            return bad(
                "record_bytes_max",
                "must be positive and within the redo format's limit",
            );
        }
        if self.snapshot_block_ops_max == 0 {
            return bad("snapshot_block_ops_max", "must be positive");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_print() {
        for m in [Mode::Buffered, Mode::Group, Mode::Sync] {
            assert_eq!(m.to_string().parse::<Mode>().unwrap(), m);
        }
        assert_eq!("GROUP".parse::<Mode>().unwrap(), Mode::Group);
        assert!("fast".parse::<Mode>().is_err());
        assert!(!Mode::Buffered.is_durable() && Mode::Sync.is_durable());
    }

    #[test]
    fn defaults_validate_and_bad_values_do_not() {
        Options::default().validate().unwrap();
        let o = Options {
            flush_interval: Duration::ZERO,
            ..Options::default()
        };
        assert!(o.validate().is_err());
        let o = Options {
            segment_bytes_max: 10,
            ..Options::default()
        };
        assert!(o.validate().is_err());
    }
}
