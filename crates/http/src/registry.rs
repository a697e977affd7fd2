//! Open explicit transactions between HTTP requests.
//!
//! A transaction is checked out for the duration of one request (so two requests cannot use it
//! at once) and parked again afterwards with a fresh idle deadline. Parked transactions past
//! their deadline are rolled back by [`Registry::expire`], which a background task calls; a
//! transaction in use never expires. The number of open transactions is capped, because each
//! one holds a snapshot (and possibly write locks) that every other writer and the garbage
//! collector must respect; and capped per user and per client address as well, below the
//! total, so that one client (a leak, a bug, an attack) cannot take every slot and lock the
//! others out of explicit transactions.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use parking_lot::Mutex;
use quiver_engine::{CancelHandle, Transaction};

use crate::error::ApiError;
use crate::tracked::TrackedTx;

/// An explicit transaction checked out of the registry by one request.
pub struct CheckedOut {
    pub id: u64,
    pub tx: TrackedTx,
}

/// The transaction a request runs in: its own, or an explicit one checked out of the registry.
pub enum Handle {
    Implicit(TrackedTx),
    Explicit(CheckedOut),
}

impl Handle {
    /// The engine's transaction, while it is open.
    pub fn tx(&mut self) -> Option<&mut Transaction> {
        match self {
            Handle::Implicit(tx) => tx.get(),
            Handle::Explicit(checked_out) => checked_out.tx.get(),
        }
    }

    /// The transaction's span (disabled when it is not traced).
    pub fn span(&self) -> &tracing::Span {
        match self {
            Handle::Implicit(tx) => tx.span(),
            Handle::Explicit(checked_out) => checked_out.tx.span(),
        }
    }

    /// Rolls back; an explicit transaction leaves `registry`.
    pub fn discard(self, registry: &Registry) {
        match self {
            Handle::Implicit(tx) => tx.rollback(),
            Handle::Explicit(CheckedOut { id, tx }) => {
                registry.release(id);
                tx.rollback();
            }
        }
    }
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
    /// The address of the client that began it, counted against the per-address limit.
    peer: Option<IpAddr>,
    idle_deadline: Instant,
    cancel: Option<CancelHandle>,
}

/// How many open transactions each user and each address holds, kept beside the slots
/// (under the same lock) so a limit check costs a lookup, not a scan.
#[derive(Default)]
struct Slots {
    by_id: HashMap<u64, Slot>,
    per_owner: HashMap<Arc<str>, usize>,
    per_peer: HashMap<IpAddr, usize>,
}

impl Slots {
    fn get_mut(&mut self, id: &u64) -> Option<&mut Slot> {
        self.by_id.get_mut(id)
    }

    fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Removes a slot and takes it off its owner's and address's counts.
    fn remove(&mut self, id: &u64) -> Option<Slot> {
        let slot = self.by_id.remove(id)?;
        if let Some(owner) = &slot.owner {
            uncount(&mut self.per_owner, owner);
        }
        if let Some(peer) = &slot.peer {
            uncount(&mut self.per_peer, peer);
        }
        Some(slot)
    }
}

/// Takes one off `key`'s count, forgetting the key at zero so the map holds only the clients
/// with a transaction open.
fn uncount<K: Eq + Hash>(counts: &mut HashMap<K, usize>, key: &K) {
    if let Some(count) = counts.get_mut(key) {
        *count -= 1;
        if *count == 0 {
            counts.remove(key);
        }
    }
}

/// The caps on open transactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenLimits {
    /// Across all clients.
    pub total_max: usize,
    /// Begun by one authenticated user (not applied when authentication is off: every
    /// client is then the same anonymous user).
    pub per_user_max: usize,
    /// Begun from one client IP address.
    pub per_address_max: usize,
}

/// The open explicit transactions.
pub struct Registry {
    slots: Mutex<Slots>,
    next_id: AtomicU64,
    limits: OpenLimits,
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
    pub fn new(limits: OpenLimits, idle_timeout: Duration) -> Registry {
        Registry {
            slots: Mutex::new(Slots::default()),
            next_id: AtomicU64::new(1),
            limits,
            idle_timeout,
            expired_total: AtomicU64::new(0),
            expired: Mutex::new(std::collections::VecDeque::new()),
        }
    }

    /// Reserves an id for a transaction about to begin, in use by the calling request of
    /// `owner` from `peer`; refused when the server, that user or that address already holds
    /// its limit (the per-client limits first, so the error names the client's own limit when
    /// it is the one that took the slots).
    pub fn reserve(&self, owner: Option<Arc<str>>, peer: Option<IpAddr>) -> Result<u64, ApiError> {
        let limits = self.limits;
        let mut slots = self.slots.lock();
        if let Some(owner) = &owner
            && slots.per_owner.get(owner).copied().unwrap_or(0) >= limits.per_user_max
        {
            return Err(ApiError::TooManyTransactionsForUser(limits.per_user_max));
        }
        if let Some(peer) = &peer
            && slots.per_peer.get(peer).copied().unwrap_or(0) >= limits.per_address_max
        {
            return Err(ApiError::TooManyTransactionsForAddress(
                limits.per_address_max,
            ));
        }
        if slots.len() >= limits.total_max {
            return Err(ApiError::TooManyTransactions(limits.total_max));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if let Some(owner) = &owner {
            *slots.per_owner.entry(Arc::clone(owner)).or_insert(0) += 1;
        }
        if let Some(peer) = peer {
            *slots.per_peer.entry(peer).or_insert(0) += 1;
        }
        slots.by_id.insert(
            id,
            Slot {
                state: State::InUse,
                owner,
                peer,
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
            .by_id
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

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    const LIMITS: OpenLimits = OpenLimits {
        total_max: 4,
        per_user_max: 2,
        per_address_max: 2,
    };

    fn address(last: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))
    }

    #[test]
    fn one_user_or_address_cannot_take_every_slot() {
        let registry = Registry::new(LIMITS, Duration::from_secs(60));
        let alice: Option<Arc<str>> = Some(Arc::from("alice"));
        let bob: Option<Arc<str>> = Some(Arc::from("bob"));
        let first = registry
            .reserve(alice.clone(), Some(address(1)))
            .expect("1st");
        registry
            .reserve(alice.clone(), Some(address(2)))
            .expect("2nd");
        assert!(matches!(
            registry.reserve(alice.clone(), Some(address(3))),
            Err(ApiError::TooManyTransactionsForUser(2))
        ));
        // Bob at alice's first address: the address has room for one more.
        registry
            .reserve(bob.clone(), Some(address(1)))
            .expect("bob");
        let refused = registry
            .reserve(bob.clone(), Some(address(1)))
            .expect_err("address full");
        assert!(matches!(
            refused,
            ApiError::TooManyTransactionsForAddress(2)
        ));
        assert_eq!(
            refused.code(),
            quiver_status::Status::MaximumTransactionLimitReached
        );
        assert!(
            refused
                .message()
                .contains("http_transactions_per_address_max")
        );
        // Anonymous clients (authentication off) are limited by address and in total only.
        registry.reserve(None, Some(address(4))).expect("4th");
        assert!(matches!(
            registry.reserve(None, Some(address(5))),
            Err(ApiError::TooManyTransactions(4))
        ));
        // Ending one gives its user and its address their slot back.
        assert!(registry.release(first));
        registry.reserve(alice, Some(address(1))).expect("again");
        assert_eq!(registry.open(), 4);
    }

    #[test]
    fn counts_follow_every_way_out() {
        let registry = Registry::new(LIMITS, Duration::ZERO);
        let carol: Option<Arc<str>> = Some(Arc::from("carol"));
        let id = registry
            .reserve(carol.clone(), Some(address(1)))
            .expect("reserve");
        assert!(matches!(
            registry.remove(id, carol.as_deref()),
            Ok(Removed::Cancelled)
        ));
        assert!(!registry.release(id), "terminated meanwhile");
        assert!(registry.slots.lock().per_owner.is_empty());
        assert!(registry.slots.lock().per_peer.is_empty());
    }
}
