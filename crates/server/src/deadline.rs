//! Every socket read races a deadline and the shutdown signal (the mini-redis pattern, with the
//! deadline mini-redis lacks), so no client can hold a task by staying silent.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio::time::{Instant, Sleep};

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
/// Shutdown is checked first (`biased`) so a stopping server does not start one more read. A
/// wait watches one shutdown step, not both: stopping always begins with draining, so an idle
/// wait needs only the drain (and tells a stop from a drain once woken), and work in flight only
/// the stop. Each watched step costs a registration with its token on every wait.
pub async fn race<F: Future>(
    operation: F,
    deadline: Instant,
    shutdown: &ShutdownSignal,
    until: Until,
) -> Result<F::Output, Interrupted> {
    let timer = std::pin::pin!(tokio::time::sleep_until(deadline));
    race_kept(operation, timer, deadline, shutdown, until).await
}

/// [`race`] against a timer the caller keeps from one wait to the next.
///
/// A fresh timer registers itself with the runtime's timer wheel on its first poll and leaves
/// it when dropped, two trips through the timer driver's lock per wait. A kept timer moved to a
/// later deadline (an idle deadline counted from now, every time) is only marked: the wheel is
/// touched when the old deadline comes round, if ever.
pub async fn race_kept<F: Future>(
    operation: F,
    mut timer: Pin<&mut Sleep>,
    deadline: Instant,
    shutdown: &ShutdownSignal,
    until: Until,
) -> Result<F::Output, Interrupted> {
    if timer.deadline() != deadline {
        timer.as_mut().reset(deadline);
    }
    match until {
        Until::Drain => tokio::select! {
            biased;
            () = shutdown.draining() => Err(if shutdown.is_stopped() {
                Interrupted::Stopped
            } else {
                Interrupted::Draining
            }),
            () = timer => Err(Interrupted::Deadline),
            output = operation => Ok(output),
        },
        Until::Stop => tokio::select! {
            biased;
            () = shutdown.stopped() => Err(Interrupted::Stopped),
            () = timer => Err(Interrupted::Deadline),
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

    #[tokio::test(start_paused = true)]
    async fn a_kept_timer_fires_at_each_new_deadline() {
        let shutdown = Shutdown::new();
        let signal = shutdown.signal();
        let start = Instant::now();
        let mut timer = Box::pin(tokio::time::sleep_until(start));
        for round in 1..=3u64 {
            let deadline = Instant::now() + Duration::from_secs(round);
            let outcome = race_kept(
                std::future::pending::<()>(),
                timer.as_mut(),
                deadline,
                &signal,
                Until::Drain,
            )
            .await;
            assert_eq!(outcome, Err(Interrupted::Deadline));
            assert_eq!(Instant::now(), deadline);
        }
        assert_eq!(Instant::now(), start + Duration::from_secs(6));
        let done = race_kept(
            async { 7 },
            timer.as_mut(),
            Instant::now() + Duration::from_secs(1),
            &signal,
            Until::Stop,
        )
        .await;
        assert_eq!(done, Ok(7));
        shutdown.begin_drain();
        let drained = race_kept(
            std::future::pending::<()>(),
            timer.as_mut(),
            Instant::now() + Duration::from_secs(1),
            &signal,
            Until::Drain,
        )
        .await;
        assert_eq!(drained, Err(Interrupted::Draining));
    }
}
