//! Readiness as load balancers and orchestrators see it through `GET /health/ready`.

use std::sync::atomic::{AtomicU8, Ordering};

/// The server's life cycle; only `Ready` answers readiness probes positively.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Readiness {
    /// Listeners are coming up; nothing is served yet.
    Starting = 0,
    /// The store is being rebuilt from its snapshot and log.
    Recovering = 1,
    /// Serving.
    Ready = 2,
    /// Shutting down: in-flight work is finishing, new work is refused.
    Draining = 3,
}

impl Readiness {
    pub fn as_str(self) -> &'static str {
        match self {
            Readiness::Starting => "starting",
            Readiness::Recovering => "recovering",
            Readiness::Ready => "ready",
            Readiness::Draining => "draining",
        }
    }

    fn from_u8(raw: u8) -> Readiness {
        match raw {
            0 => Readiness::Starting,
            1 => Readiness::Recovering,
            2 => Readiness::Ready,
            _ => Readiness::Draining,
        }
    }
}

/// Shared by the probes, the start-up sequence and shutdown; one atomic byte.
#[derive(Debug)]
pub struct Health {
    state: AtomicU8,
}

impl Default for Health {
    fn default() -> Self {
        Health {
            state: AtomicU8::new(Readiness::Starting as u8),
        }
    }
}

impl Health {
    pub fn get(&self) -> Readiness {
        Readiness::from_u8(self.state.load(Ordering::Acquire))
    }

    /// Moves to `next`, except out of `Draining`: once shutdown began, a late "recovery finished"
    /// must not make the server look ready again.
    pub fn set(&self, next: Readiness) {
        let _ = self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |current| {
                (current != Readiness::Draining as u8).then_some(next as u8)
            });
    }

    pub fn is_ready(&self) -> bool {
        self.get() == Readiness::Ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draining_is_final() {
        let health = Health::default();
        assert_eq!(health.get(), Readiness::Starting);
        health.set(Readiness::Ready);
        assert!(health.is_ready());
        health.set(Readiness::Draining);
        health.set(Readiness::Ready);
        assert_eq!(health.get(), Readiness::Draining);
    }
}
