//! Waiting for a commit to be durable before acknowledging it.
//!
//! The engine's commit returns once the change is in memory and its redo record handed to the
//! commit log; in the `group` and `sync` durability modes the client may only be told after the
//! record is on disk. The durability layer lives beside this crate, not under it, so the wait
//! is a hook: the binary installs one over `Durability::wait_for`. Without it the API waits for
//! the store's visible watermark, which the durable modes advance as syncs complete (and which
//! follows every commit at once in buffered mode and in memory) — correct everywhere, at the
//! cost of polling.

use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_engine::Database;

/// Blocks until a commit may be acknowledged; `Err` names why it cannot be (a disk fault).
pub trait CommitWait: Send + Sync {
    fn wait(&self, commit: u64) -> Result<(), String>;

    /// Blocks until rows read at `snapshot` may leave the server. A write transaction reads
    /// at the newest commit in memory, which in the `group` and `sync` modes may not be on
    /// disk yet: its rows wait for that commit like an acknowledgement does. The default
    /// is [`CommitWait::wait`].
    fn wait_readable(&self, snapshot: u64) -> Result<(), String> {
        self.wait(snapshot)
    }

    /// Why no write can commit now (a disk fault), if that is so. A write-mode request then
    /// reads at the durable point like a read-mode one, so reads keep working, and a write in
    /// it fails naming the reason.
    fn writes_refused(&self) -> Option<String> {
        None
    }
}

/// The error a write gets once [`CommitWait::writes_refused`] names a reason.
pub(crate) fn refused_write(reason: &str) -> crate::error::ApiError {
    crate::error::ApiError::NotDurable(format!("writes are refused after a disk fault: {reason}"))
}

/// The default [`CommitWait`]: polls the store's visible watermark.
pub struct WatermarkWait {
    db: Arc<Database>,
    /// Past this the commit is reported as not known to be durable.
    limit: Duration,
}

impl WatermarkWait {
    pub fn new(db: Arc<Database>, limit: Duration) -> WatermarkWait {
        WatermarkWait { db, limit }
    }
}

impl CommitWait for WatermarkWait {
    fn wait(&self, commit: u64) -> Result<(), String> {
        let storage = self.db.storage();
        if storage.visible_watermark() >= commit {
            return Ok(());
        }
        let deadline = Instant::now() + self.limit;
        let mut pause = Duration::from_micros(50);
        while storage.visible_watermark() < commit {
            if Instant::now() >= deadline {
                return Err(format!(
                    "commit {commit} was not confirmed durable within {} ms",
                    self.limit.as_millis()
                ));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(5));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use quiver_engine::EngineConfig;

    use super::*;

    #[test]
    fn waits_for_the_watermark() {
        let db = Database::open_in_memory(EngineConfig::default());
        db.execute("CREATE ()", quiver_value::Map::new())
            .expect("create");
        let committed = db.storage().last_committed();
        let wait = WatermarkWait::new(Arc::clone(&db), Duration::from_secs(5));
        assert_eq!(wait.wait(committed), Ok(()));

        db.storage().set_readers_follow_commits(false);
        db.execute("CREATE ()", quiver_value::Map::new())
            .expect("create");
        let pending = db.storage().last_committed();
        let storage = Arc::clone(db.storage());
        let advancer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            storage.advance_visible(pending);
        });
        let started = Instant::now();
        assert_eq!(wait.wait(pending), Ok(()));
        assert!(started.elapsed() >= Duration::from_millis(90));
        advancer.join().expect("advancer");

        let short = WatermarkWait::new(db, Duration::from_millis(20));
        assert!(short.wait(pending + 10).is_err());
    }
}
