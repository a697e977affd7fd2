//! Connection admission: a slot per connection, a few slots only administrators may keep, and a
//! bounded budget for telling the others no.
//!
//! Admission never waits: a client past the limit is refused at once (a clear, fast answer beats a
//! hang). A refused socket is held by the listener's [`crate::refuser`] until its refusal is
//! written, which costs a descriptor and a few syscalls, so refusals draw on their own budget;
//! once that is spent too, a connection is closed without a word, which is the cheapest thing a
//! flooded server can do.
//!
//! Whether a connection in a reserved slot belongs to an administrator is only known after it
//! authenticates, so the slot is granted provisionally ([`Slot::is_reserved`]) and the protocol
//! handler closes the connection after authentication unless the principal is an administrator.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The three semaphores of one listener.
#[derive(Debug)]
pub struct Admission {
    general: Arc<Semaphore>,
    reserved: Arc<Semaphore>,
    refusals: Arc<Semaphore>,
    connections_max: u32,
}

/// An admitted connection's place; freed on drop.
#[derive(Debug)]
pub struct Slot {
    _permit: OwnedSemaphorePermit,
    reserved: bool,
}

impl Slot {
    /// True for a slot kept for administrators: the connection must prove it is one.
    pub fn is_reserved(&self) -> bool {
        self.reserved
    }
}

/// The right to spend a little work refusing one connection; freed on drop.
#[derive(Debug)]
pub struct RefusalPermit {
    _permit: OwnedSemaphorePermit,
}

/// What to do with a freshly accepted connection.
#[derive(Debug)]
pub enum Admit {
    Slot(Slot),
    /// Past the limit: tell the client, within the refusal budget.
    Refuse(RefusalPermit),
    /// Past the limit and the refusal budget: close at once.
    Drop,
}

impl Admission {
    /// `connections_max` slots in all, `reserved` of them for administrators.
    pub fn new(connections_max: u32, reserved: u32, refusals_in_flight_max: u32) -> Admission {
        let reserved = reserved.min(connections_max);
        Admission {
            general: Arc::new(Semaphore::new((connections_max - reserved) as usize)),
            reserved: Arc::new(Semaphore::new(reserved as usize)),
            refusals: Arc::new(Semaphore::new(refusals_in_flight_max as usize)),
            connections_max,
        }
    }

    pub fn admit(&self) -> Admit {
        if let Ok(permit) = Arc::clone(&self.general).try_acquire_owned() {
            return Admit::Slot(Slot {
                _permit: permit,
                reserved: false,
            });
        }
        if let Ok(permit) = Arc::clone(&self.reserved).try_acquire_owned() {
            return Admit::Slot(Slot {
                _permit: permit,
                reserved: true,
            });
        }
        match Arc::clone(&self.refusals).try_acquire_owned() {
            Ok(permit) => Admit::Refuse(RefusalPermit { _permit: permit }),
            Err(_) => Admit::Drop,
        }
    }

    /// The configured limit, for refusal messages.
    pub fn connections_max(&self) -> u32 {
        self.connections_max
    }

    /// Slots free now, general and reserved.
    pub fn available(&self) -> (usize, usize) {
        (
            self.general.available_permits(),
            self.reserved.available_permits(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_then_reserved_then_refusal_then_drop() {
        let admission = Admission::new(3, 1, 1);
        let a = admission.admit();
        let b = admission.admit();
        assert!(matches!(&a, Admit::Slot(slot) if !slot.is_reserved()));
        assert!(matches!(&b, Admit::Slot(slot) if !slot.is_reserved()));
        let c = admission.admit();
        assert!(matches!(&c, Admit::Slot(slot) if slot.is_reserved()));
        let d = admission.admit();
        assert!(matches!(d, Admit::Refuse(_)));
        assert!(matches!(admission.admit(), Admit::Drop));
        drop(d);
        assert!(matches!(admission.admit(), Admit::Refuse(_)));
        drop(a);
        assert!(matches!(admission.admit(), Admit::Slot(slot) if !slot.is_reserved()));
    }

    #[test]
    fn zero_refusal_budget_drops_at_once() {
        let admission = Admission::new(1, 0, 0);
        let _only = admission.admit();
        assert!(matches!(admission.admit(), Admit::Drop));
    }
}
