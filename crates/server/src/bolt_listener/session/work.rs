//! Running engine work for a session, and what the connection watches while it runs.
//!
//! A step of work (compile and open a query, pull a batch, commit) runs inline when the
//! placement policy says it is quick, or on the query pool. While it is on the pool the
//! connection's task keeps reading its socket: a client that closes cancels the work (the
//! engine notices at its next cancellation check, well within 100 ms), a RESET arriving behind
//! it interrupts it, the transaction timeout terminates it, and keep-alive NOOPs go out so a
//! client honouring `connection.recv_timeout_seconds` does not give up on a long query.

use std::time::Duration;

use bytes::BytesMut;
use quiver_bolt::chunk::NOOP;
use quiver_placement::{JobError, JobHandle, Place, Policy};
use tokio::time::Instant;

use super::BoltSession;
use super::tx::{Ending, OpenTx};

/// Bytes a busy connection reads ahead (looking for a RESET or the end of the stream); past
/// this it stops reading until the work is done.
pub const BUSY_READ_BYTES_MAX: usize = 64 * 1024;

/// What happened on the connection while a step ran on the pool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Watched {
    /// The client closed its end (or the socket failed): the session ends after this step.
    pub client_gone: bool,
    /// The server is stopping: the session ends after this step.
    pub stopped: bool,
    /// The transaction timeout passed and the work was terminated.
    pub expired: bool,
}

impl Watched {
    /// Whether the session must end (and its transaction be abandoned).
    pub fn gone(self) -> bool {
        self.client_gone || self.stopped
    }
}

impl BoltSession {
    /// Runs `job` on the transaction and the outbox, where `place` says.
    pub(super) async fn work<R, F>(
        &mut self,
        mut tx: Box<OpenTx>,
        place: Place,
        job: F,
    ) -> (Box<OpenTx>, R, Watched)
    where
        R: Send + 'static,
        F: FnOnce(&mut OpenTx, &mut BytesMut) -> R + Send + 'static,
    {
        if let Place::Inline { .. } = place {
            let result = job(&mut tx, &mut self.outbox);
            return (tx, result, Watched::default());
        }
        let cancel = tx.cancel_handle().clone();
        let deadline = tx.pending_deadline();
        let mut out = std::mem::take(&mut self.outbox);
        let job = move || {
            let result = job(&mut tx, &mut out);
            (tx, out, result)
        };
        let handle = self.shared.pool.spawn(job);
        let (outcome, watched) = self.watch(handle, &cancel, deadline).await;
        match outcome {
            Ok((mut tx, out, result)) => {
                self.outbox = out;
                if watched.expired {
                    tx.expired = true;
                }
                (tx, result, watched)
            }
            // The job's panic is resumed here, on the connection's task, where the listener
            // catches it, counts it and closes this connection alone.
            Err(JobError::Panicked(payload)) => std::panic::resume_unwind(payload),
            // The pool lives as long as the shared state this session holds: unreachable.
            Err(JobError::Closed) => std::panic::resume_unwind(Box::new("the query pool closed")),
        }
    }

    /// Waits for `job`, meanwhile watching the socket, the shutdown signal, the transaction's
    /// deadline and the keep-alive clock.
    async fn watch<T>(
        &mut self,
        mut job: JobHandle<T>,
        cancel: &quiver_engine::CancelHandle,
        deadline: Option<Instant>,
    ) -> (Result<T, JobError>, Watched) {
        let mut watched = Watched::default();
        let keep_alive = self.shared.keep_alive_interval();
        let mut next_noop = Instant::now() + keep_alive;
        let mut reading = !self.shutdown.is_stopped();
        let far = Instant::now() + Duration::from_secs(365 * 24 * 3600);
        loop {
            let cancelled = watched.gone() || watched.expired;
            tokio::select! {
                biased;
                outcome = &mut job => return (outcome, watched),
                () = self.shutdown.stopped(), if !watched.stopped => {
                    watched.stopped = true;
                    cancel.cancel();
                }
                () = tokio::time::sleep_until(deadline.unwrap_or(far)), if deadline.is_some() && !cancelled => {
                    watched.expired = true;
                    cancel.cancel();
                }
                ready = self.stream.readable(), if reading => {
                    if ready.is_err() {
                        watched.client_gone = true;
                        reading = false;
                        cancel.cancel();
                        continue;
                    }
                    self.lend_read_buffer();
                    match self.stream.try_read_buf(&mut self.read_buffer) {
                        Ok(0) => {
                            watched.client_gone = true;
                            reading = false;
                            cancel.cancel();
                        }
                        Ok(_) => {
                            self.unscanned = true;
                            if self.notice_resets() {
                                cancel.cancel();
                            }
                            if self.read_buffer.len() >= BUSY_READ_BYTES_MAX {
                                reading = false;
                            }
                        }
                        Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(_) => {
                            watched.client_gone = true;
                            reading = false;
                            cancel.cancel();
                        }
                    }
                }
                () = tokio::time::sleep_until(next_noop), if !watched.gone() => {
                    next_noop = Instant::now() + keep_alive;
                    self.send_noop();
                }
            }
        }
    }

    /// Writes a keep-alive NOOP if the socket takes it now; a client that does not read gets
    /// none (it is not waiting on a read that could time out), nor one of a version before
    /// 4.3 (it was never told of a read timeout, and NOOPs came with the hints that tell it).
    fn send_noop(&mut self) {
        if self.noop_half_sent || !self.version.has_hints() {
            return;
        }
        // The outbox is with the job: everything written so far ends on a message boundary.
        if let Ok(1) = self.stream.try_write(&NOOP) {
            self.noop_half_sent = true;
        }
    }

    /// Rolls back a transaction whose client or server went away, counting it as abandoned.
    pub(super) async fn abandon(&mut self, tx: Box<OpenTx>) {
        let place = self.closing_place(&tx);
        let (mut tx, (), _) = self.work(tx, place, |tx, _| tx.rollback()).await;
        tx.end(Ending::Abandoned);
    }

    /// Rolls back a transaction whose timeout passed while its client was idle; the client is
    /// told at its next request.
    pub(super) async fn expire(&mut self, tx: Box<OpenTx>) -> Box<OpenTx> {
        let place = self.closing_place(&tx);
        let (mut tx, (), _) = self.work(tx, place, |tx, _| tx.rollback()).await;
        tx.expired = true;
        tx.end(Ending::RolledBack);
        tx
    }

    /// Where a commit or rollback runs: its cost follows the work the transaction did.
    pub(super) fn closing_place(&self, tx: &OpenTx) -> Place {
        match self.shared.placement.policy() {
            Policy::Pool => Place::Pool,
            _ if tx.heavy => Place::Pool,
            _ => Place::Inline { budget: None },
        }
    }
}
