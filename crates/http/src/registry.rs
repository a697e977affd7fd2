//! Open explicit transactions between HTTP requests.
//!
//! A transaction is checked out for the duration of one request (so two requests cannot use it
//! at once) and parked again afterwards with a fresh idle deadline. Parked transactions past
//! their deadline are rolled back by [`Registry::expire`], which a background task calls; a
//! transaction in use never expires. The number of open transactions is capped, because each
//! one holds a snapshot (and possibly write locks) that every other writer and the garbage
//! collector must respect.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use parking_lot::Mutex;
use quiver_engine::CancelHandle;

use crate::error::ApiError;
use crate::tracked::TrackedTx;

/// An explicit transaction checked out of the registry by one request.
pub struct CheckedOut {
    pub id: u64,
    pub tx: TrackedTx,
}

enum State {
    /// Waiting for its next request.
    Parked(TrackedTx),
    /// A request is using it.
    InUse,
    /// Rolled back by a `DELETE` while a request was using it: that request rolls it back
    /// when it finishes instead of parking it.
    Terminated,
}

struct Slot {
    state: State,
    /// The user who began it; only they may use it.
    owner: Option<Arc<str>>,
    idle_deadline: Instant,
    cancel: Option<CancelHandle>,
}

/// The open explicit transactions.
pub struct Registry {
    slots: Mutex<HashMap<u64, Slot>>,
    next_id: AtomicU64,
    open_max: usize,
    idle_timeout: Duration,
    expired_total: AtomicU64,
    /// The newest expired ids and their owners, so a request for one learns it timed out
    /// rather than that it never existed; at most [`EXPIRED_REMEMBERED`].
    expired: Mutex<std::collections::VecDeque<(u64, Option<Arc<str>>)>>,
}

/// Expired transactions remembered for their late requests.
const EXPIRED_REMEMBERED: usize = 1024;

/// What `DELETE` found.
pub enum Removed {
    /// The transaction was parked: the caller rolls it back.
    Parked(TrackedTx),
    /// The transaction was in use: it was cancelled and its request rolls it back.
    Cancelled,
}

impl Registry {
    pub fn new(open_max: usize, idle_timeout: Duration) -> Registry {
        Registry {
            slots: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            open_max,
            idle_timeout,
            expired_total: AtomicU64::new(0),
            expired: Mutex::new(std::collections::VecDeque::new()),
        }
    }

    /// Reserves an id for a transaction about to begin, in use by the calling request.
    pub fn reserve(&self, owner: Option<Arc<str>>) -> Result<u64, ApiError> {
        let mut slots = self.slots.lock();
        if slots.len() >= self.open_max {
            return Err(ApiError::TooManyTransactions(self.open_max));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        slots.insert(
            id,
            Slot {
                state: State::InUse,
                owner,
                idle_deadline: Instant::now() + self.idle_timeout,
                cancel: None,
            },
        );
        Ok(id)
    }

    /// Forgets a reserved or checked-out transaction about to be committed or rolled back.
    /// Returns false when a `DELETE` terminated it meanwhile: then it must not be committed.
    pub fn release(&self, id: u64) -> bool {
        !matches!(
            self.slots.lock().remove(&id),
            Some(Slot {
                state: State::Terminated,
                ..
            })
        )
    }

    /// Takes a parked transaction for one request.
    pub fn check_out(&self, id: u64, owner: Option<&str>) -> Result<CheckedOut, ApiError> {
        let mut slots = self.slots.lock();
        let Some(slot) = slots.get_mut(&id) else {
            let expired = self
                .expired
                .lock()
                .iter()
                .any(|(gone, by)| *gone == id && by.as_deref() == owner);
            return Err(if expired {
                ApiError::TransactionIdleTimedOut(self.idle_timeout.as_millis())
            } else {
                ApiError::TransactionNotFound
            });
        };
        if slot.owner.as_deref() != owner {
            return Err(ApiError::TransactionNotFound);
        }
        match std::mem::replace(&mut slot.state, State::InUse) {
            State::Parked(tx) => Ok(CheckedOut { id, tx }),
            other => {
                slot.state = other;
                Err(ApiError::ConcurrentAccess)
            }
        }
    }

    /// Parks a transaction after its request; returns when it expires, or gives the transaction
    /// back when it was terminated meanwhile (the caller rolls it back).
    pub fn park(&self, checked_out: CheckedOut) -> Result<SystemTime, TrackedTx> {
        let CheckedOut { id, tx } = checked_out;
        let mut slots = self.slots.lock();
        match slots.get_mut(&id) {
            Some(slot) if matches!(slot.state, State::InUse) => {
                slot.idle_deadline = Instant::now() + self.idle_timeout;
                slot.cancel = tx.cancel_handle();
                slot.state = State::Parked(tx);
                Ok(SystemTime::now() + self.idle_timeout)
            }
            _ => {
                slots.remove(&id);
                Err(tx)
            }
        }
    }

    /// `DELETE`: removes the transaction, cancelling it if a request is using it.
    pub fn remove(&self, id: u64, owner: Option<&str>) -> Result<Removed, ApiError> {
        let mut slots = self.slots.lock();
        let slot = slots.get_mut(&id).ok_or(ApiError::TransactionNotFound)?;
        if slot.owner.as_deref() != owner {
            return Err(ApiError::TransactionNotFound);
        }
        match std::mem::replace(&mut slot.state, State::Terminated) {
            State::Parked(tx) => {
                slots.remove(&id);
                Ok(Removed::Parked(tx))
            }
            State::InUse => {
                if let Some(cancel) = &slot.cancel {
                    cancel.cancel();
                }
                Ok(Removed::Cancelled)
            }
            State::Terminated => Err(ApiError::TransactionNotFound),
        }
    }

    /// Lets a request register how to cancel the transaction it is running, so that a
    /// concurrent `DELETE` can stop it.
    pub fn set_cancel(&self, id: u64, cancel: CancelHandle) {
        if let Some(slot) = self.slots.lock().get_mut(&id) {
            slot.cancel = Some(cancel);
        }
    }

    /// Removes every parked transaction past its idle deadline and returns them for rollback
    /// (outside the lock: a rollback may take a while).
    pub fn expire(&self, now: Instant) -> Vec<TrackedTx> {
        let mut slots = self.slots.lock();
        let expired: Vec<u64> = slots
            .iter()
            .filter(|(_, slot)| matches!(slot.state, State::Parked(_)) && slot.idle_deadline <= now)
            .map(|(id, _)| *id)
            .collect();
        let mut out = Vec::with_capacity(expired.len());
        let mut remembered = self.expired.lock();
        for id in expired {
            if let Some(Slot {
                state: State::Parked(tx),
                owner,
                ..
            }) = slots.remove(&id)
            {
                out.push(tx);
                if remembered.len() >= EXPIRED_REMEMBERED {
                    remembered.pop_front();
                }
                remembered.push_back((id, owner));
            }
        }
        drop(remembered);
        self.expired_total
            .fetch_add(out.len() as u64, Ordering::Relaxed);
        out
    }

    /// Transactions open now (parked or in use).
    pub fn open(&self) -> usize {
        self.slots.lock().len()
    }

    /// Transactions rolled back for idling past their deadline since start.
    pub fn expired_total(&self) -> u64 {
        self.expired_total.load(Ordering::Relaxed)
    }
}
