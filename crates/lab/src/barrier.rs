//! The connection barrier.
//!
//! In connection mode every offered connection handshakes and then waits here until *every*
//! offered connection has resolved — established or failed. Without it the early connections
//! would finish their share and free their server slots while the late ones were still
//! dialling: the server would never hold N connections at once, and a saturation rung would
//! quietly admit every connection it was meant to refuse.
//!
//! A connection that fails resolves without waiting; a [`Ticket`] resolves on drop, so a task
//! that errors or panics can never leave the others waiting forever.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use tokio::sync::Notify;

/// Counts resolutions up to the number of offered connections.
#[derive(Debug)]
pub struct Barrier {
    offered: usize,
    resolved: AtomicUsize,
    released: Notify,
    /// When the last offer resolved: the start of the measured phase. Recorded here, not by
    /// whoever wakes first, because the released connections may finish their work before a
    /// waiting observer is even scheduled.
    released_at: OnceLock<Instant>,
}

/// One offered connection's place at the barrier.
#[derive(Debug)]
pub struct Ticket {
    barrier: Arc<Barrier>,
    resolved: bool,
}

impl Barrier {
    pub fn new(offered: usize) -> Arc<Barrier> {
        Arc::new(Barrier {
            offered,
            resolved: AtomicUsize::new(0),
            released: Notify::new(),
            released_at: OnceLock::new(),
        })
    }

    /// One ticket per offered connection; hand out exactly `offered` of them.
    pub fn ticket(self: &Arc<Self>) -> Ticket {
        Ticket {
            barrier: Arc::clone(self),
            resolved: false,
        }
    }

    pub fn offered(&self) -> usize {
        self.offered
    }

    pub fn resolved(&self) -> usize {
        self.resolved.load(Ordering::Acquire)
    }

    pub fn is_open(&self) -> bool {
        self.resolved() >= self.offered
    }

    fn resolve_one(&self) {
        let now = self.resolved.fetch_add(1, Ordering::AcqRel) + 1;
        if now >= self.offered {
            let _ = self.released_at.set(Instant::now());
            self.released.notify_waiters();
        }
    }

    /// When the barrier opened (`None` while it is closed; a barrier of no offers opens at once).
    pub fn released_at(&self) -> Option<Instant> {
        self.released_at.get().copied()
    }

    /// Waits until every offered connection has resolved.
    pub async fn wait(&self) {
        loop {
            let notified = self.released.notified();
            tokio::pin!(notified);
            // Registered before the check, so a release between the check and the await is
            // not missed.
            notified.as_mut().enable();
            if self.is_open() {
                return;
            }
            notified.await;
        }
    }
}

impl Ticket {
    /// This connection is established: count it, then wait for everyone else.
    pub async fn arrive_and_wait(mut self) {
        self.resolve();
        self.barrier.wait().await;
    }

    /// This connection failed: count it and go (dropping the ticket does the same).
    pub fn fail(mut self) {
        self.resolve();
    }

    fn resolve(&mut self) {
        if !self.resolved {
            self.resolved = true;
            self.barrier.resolve_one();
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.resolve();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn nobody_passes_until_every_offer_resolved() {
        let barrier = Barrier::new(5);
        let passed = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for _ in 0..3 {
            let ticket = barrier.ticket();
            let passed = Arc::clone(&passed);
            tasks.push(tokio::spawn(async move {
                ticket.arrive_and_wait().await;
                passed.fetch_add(1, Ordering::SeqCst);
            }));
        }
        let failing = barrier.ticket();
        let late = barrier.ticket();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            passed.load(Ordering::SeqCst),
            0,
            "released before all resolved"
        );
        assert_eq!(barrier.resolved(), 3);
        failing.fail();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            passed.load(Ordering::SeqCst),
            0,
            "one offer is still dialling"
        );
        // The last one arrives: everyone goes, the late one included.
        late.arrive_and_wait().await;
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(passed.load(Ordering::SeqCst), 3);
        assert!(barrier.is_open());
        assert!(barrier.released_at().is_some());
    }

    #[tokio::test]
    async fn a_dropped_ticket_resolves_once() {
        let barrier = Barrier::new(2);
        let waiter = barrier.ticket();
        let mut dropped = barrier.ticket();
        dropped.resolve();
        drop(dropped);
        assert_eq!(barrier.resolved(), 1, "resolve then drop counts once");
        tokio::time::timeout(Duration::from_secs(5), waiter.arrive_and_wait())
            .await
            .expect("released");
    }

    #[tokio::test]
    async fn a_panicking_task_does_not_hang_the_rest() {
        let barrier = Barrier::new(2);
        let ticket = barrier.ticket();
        let crashed = tokio::spawn(async move {
            let _ticket = ticket;
            panic!("connection task failed");
        });
        assert!(crashed.await.is_err());
        tokio::time::timeout(Duration::from_secs(5), barrier.ticket().arrive_and_wait())
            .await
            .expect("released");
    }
}
