//! Every socket read races a deadline and the shutdown signal (the mini-redis pattern, with the
//! deadline mini-redis lacks), so no client can hold a task by staying silent.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

use crate::shutdown::ShutdownSignal;

/// Why a raced operation did not complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Interrupted {
    #[error("deadline passed")]
    Deadline,
    #[error("server draining")]
    Draining,
    #[error("server stopping")]
    Stopped,
}

/// Which shutdown step interrupts the operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// Idle waits (the next request, a handshake): draining is enough to give up.
    Drain,
    /// Work in flight: only the hard stop interrupts it.
    Stop,
}

/// When a connection must be open: the listener's opening allowance counts from accept, and
/// everything before the protocol proper (a TLS handshake, then the Bolt handshake and
/// authentication, or the first HTTP request's head) shares it, so encryption gives a silent or
/// dribbling client no extra time.
pub fn opening_deadline(accepted_at: Instant, allowed: Duration) -> Instant {
    accepted_at + allowed
}

/// Runs `operation` until it completes, `deadline` passes, or shutdown reaches `until`.
///
/// Shutdown is checked first (`biased`) so a stopping server does not start one more read.
pub async fn race<F: Future>(
    operation: F,
    deadline: Instant,
    shutdown: &ShutdownSignal,
    until: Until,
) -> Result<F::Output, Interrupted> {
    match until {
        Until::Drain => tokio::select! {
            biased;
            () = shutdown.stopped() => Err(Interrupted::Stopped),
            () = shutdown.draining() => Err(Interrupted::Draining),
            () = tokio::time::sleep_until(deadline) => Err(Interrupted::Deadline),
            output = operation => Ok(output),
        },
        Until::Stop => tokio::select! {
            biased;
            () = shutdown.stopped() => Err(Interrupted::Stopped),
            () = tokio::time::sleep_until(deadline) => Err(Interrupted::Deadline),
            output = operation => Ok(output),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shutdown::Shutdown;

    #[tokio::test(start_paused = true)]
    async fn deadline_interrupts_a_silent_operation() {
        let shutdown = Shutdown::new();
        let outcome = race(
            std::future::pending::<()>(),
            Instant::now() + Duration::from_secs(1),
            &shutdown.signal(),
            Until::Drain,
        )
        .await;
        assert_eq!(outcome, Err(Interrupted::Deadline));
    }

    #[tokio::test(start_paused = true)]
    async fn drain_interrupts_idle_waits_but_not_work() {
        let shutdown = Shutdown::new();
        shutdown.begin_drain();
        let signal = shutdown.signal();
        let far = Instant::now() + Duration::from_secs(60);
        let idle = race(std::future::pending::<()>(), far, &signal, Until::Drain).await;
        assert_eq!(idle, Err(Interrupted::Draining));
        let work = race(async { 7 }, far, &signal, Until::Stop).await;
        assert_eq!(work, Ok(7));
    }
}
