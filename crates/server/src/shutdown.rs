//! Graceful shutdown in two steps, each a cancellation token every connection task holds.
//!
//! 1. **Drain** (`draining()` fires): listeners stop accepting, readiness turns false, idle
//!    connections close, new work is answered with a transient "database unavailable" error, and
//!    work already running is left to finish.
//! 2. **Stop** (`stopped()` fires), once the drain deadline passes: every connection task returns at
//!    its next await point, whatever it was doing.
//!
//! A [`TaskTracker`] holds every connection task, so [`Shutdown::drain`] can prove none is left.

use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// What a connection task watches. Cheap to clone (two reference-counted tokens).
#[derive(Clone, Debug, Default)]
pub struct ShutdownSignal {
    drain: CancellationToken,
    stop: CancellationToken,
}

impl ShutdownSignal {
    /// Resolves when draining begins (and stays resolved).
    pub async fn draining(&self) {
        self.drain.cancelled().await;
    }

    /// Resolves when connections must end now.
    pub async fn stopped(&self) {
        self.stop.cancelled().await;
    }

    pub fn is_draining(&self) -> bool {
        self.drain.is_cancelled()
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.is_cancelled()
    }

    /// A token cancelled when draining begins, for code outside this crate (the HTTP API handler, the
    /// engine) that must refuse new work without knowing about this type.
    pub fn drain_token(&self) -> CancellationToken {
        self.drain.clone()
    }
}

/// How the drain went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShutdownReport {
    /// Time from the start of the drain until the last task ended (or was given up on).
    pub elapsed: Duration,
    /// True if the drain deadline passed and connections were cut.
    pub forced: bool,
    /// Tasks still alive at the end; zero unless a task ignores its stop signal.
    pub tasks_left: usize,
}

/// Owner of the shutdown tokens and of the tracker every connection task is spawned on.
#[derive(Clone, Debug, Default)]
pub struct Shutdown {
    signal: ShutdownSignal,
    tracker: TaskTracker,
}

/// Time connection tasks get to notice the stop signal after the drain deadline.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

impl Shutdown {
    pub fn new() -> Shutdown {
        Shutdown::default()
    }

    pub fn signal(&self) -> ShutdownSignal {
        self.signal.clone()
    }

    pub fn tracker(&self) -> &TaskTracker {
        &self.tracker
    }

    /// Starts draining; idempotent.
    pub fn begin_drain(&self) {
        self.signal.drain.cancel();
    }

    /// Begins the drain (if not yet begun), waits up to `drain_timeout` for every tracked task to end,
    /// then stops the rest and waits [`STOP_GRACE`] more.
    pub async fn drain(&self, drain_timeout: Duration) -> ShutdownReport {
        let start = Instant::now();
        self.begin_drain();
        self.tracker.close();
        let forced = tokio::time::timeout(drain_timeout, self.tracker.wait())
            .await
            .is_err();
        if forced {
            self.signal.stop.cancel();
            let _ = tokio::time::timeout(STOP_GRACE, self.tracker.wait()).await;
        }
        self.signal.stop.cancel();
        ShutdownReport {
            elapsed: start.elapsed(),
            forced,
            tasks_left: self.tracker.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn drain_waits_for_tasks_then_forces_the_stubborn() {
        let shutdown = Shutdown::new();
        let signal = shutdown.signal();
        // A task that finishes its work once draining starts.
        shutdown.tracker().spawn({
            let signal = signal.clone();
            async move { signal.draining().await }
        });
        // A task that only ends when stopped.
        shutdown.tracker().spawn({
            let signal = signal.clone();
            async move { signal.stopped().await }
        });
        let report = shutdown.drain(Duration::from_secs(5)).await;
        assert!(report.forced);
        assert_eq!(report.tasks_left, 0);
        assert!(report.elapsed >= Duration::from_secs(5));
    }

    #[tokio::test(start_paused = true)]
    async fn drain_without_stubborn_tasks_is_not_forced() {
        let shutdown = Shutdown::new();
        let signal = shutdown.signal();
        shutdown
            .tracker()
            .spawn(async move { signal.draining().await });
        let report = shutdown.drain(Duration::from_secs(5)).await;
        assert!(!report.forced);
        assert_eq!(report.tasks_left, 0);
    }
}
