//! Slows down repeated authentication failures from one peer or against one user.
//!
//! Each failure doubles the delay imposed before the next attempt from the same peer address or for
//! the same user name, from [`DELAY_BASE`] up to the configured maximum; a success clears both, and a
//! key with no failure for [`FORGIVE_AFTER_DELAYS`] maximum delays is forgotten. The table is bounded:
//! when full, forgotten keys are swept, and if it is still full it is cleared (an attacker able to
//! fill it from that many addresses defeats per-key throttling anyway; the hashing concurrency limit
//! still caps the global guessing rate).

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::time::Instant;

/// The delay after the first failure.
pub const DELAY_BASE: Duration = Duration::from_millis(100);
/// A key is forgotten after this many maximum delays without a failure.
pub const FORGIVE_AFTER_DELAYS: u32 = 10;
/// Most keys remembered.
pub const KEYS_MAX: usize = 65_536;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Peer(IpAddr),
    User(String),
}

#[derive(Clone, Copy, Debug)]
struct Failures {
    count: u32,
    last: Instant,
}

#[derive(Debug)]
pub struct Throttle {
    delay_max: Duration,
    keys: Mutex<HashMap<Key, Failures>>,
}

impl Throttle {
    pub fn new(delay_max: Duration) -> Throttle {
        Throttle {
            delay_max,
            keys: Mutex::new(HashMap::new()),
        }
    }

    /// The wait owed before the next attempt by `peer` for `user`.
    pub fn delay(&self, peer: IpAddr, user: &str) -> Duration {
        let now = Instant::now();
        let keys = self.keys.lock();
        let delay_of = |key: &Key| {
            keys.get(key)
                .filter(|failures| !self.is_forgotten(failures, now))
                .map_or(Duration::ZERO, |failures| self.delay_for(failures.count))
        };
        delay_of(&Key::Peer(peer)).max(delay_of(&Key::User(user.to_owned())))
    }

    pub fn record_failure(&self, peer: IpAddr, user: &str) {
        let now = Instant::now();
        let mut keys = self.keys.lock();
        if keys.len() + 2 > KEYS_MAX {
            keys.retain(|_, failures| !self.is_forgotten(failures, now));
            if keys.len() + 2 > KEYS_MAX {
                keys.clear();
            }
        }
        for key in [Key::Peer(peer), Key::User(user.to_owned())] {
            let entry = keys.entry(key).or_insert(Failures {
                count: 0,
                last: now,
            });
            if self.is_forgotten(entry, now) {
                entry.count = 0;
            }
            entry.count = entry.count.saturating_add(1);
            entry.last = now;
        }
    }

    pub fn record_success(&self, peer: IpAddr, user: &str) {
        let mut keys = self.keys.lock();
        if keys.is_empty() {
            return;
        }
        keys.remove(&Key::Peer(peer));
        keys.remove(&Key::User(user.to_owned()));
    }

    fn delay_for(&self, count: u32) -> Duration {
        if count == 0 {
            return Duration::ZERO;
        }
        let doublings = (count - 1).min(30);
        DELAY_BASE
            .saturating_mul(1 << doublings)
            .min(self.delay_max)
    }

    fn is_forgotten(&self, failures: &Failures, now: Instant) -> bool {
        now.duration_since(failures.last) > self.delay_max.saturating_mul(FORGIVE_AFTER_DELAYS)
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    const PEER: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

    #[tokio::test(start_paused = true)]
    async fn delay_doubles_to_the_cap_and_success_clears_it() {
        let throttle = Throttle::new(Duration::from_millis(500));
        assert_eq!(throttle.delay(PEER, "a"), Duration::ZERO);
        throttle.record_failure(PEER, "a");
        assert_eq!(throttle.delay(PEER, "a"), Duration::from_millis(100));
        throttle.record_failure(PEER, "a");
        assert_eq!(throttle.delay(PEER, "a"), Duration::from_millis(200));
        for _ in 0..40 {
            throttle.record_failure(PEER, "a");
        }
        assert_eq!(throttle.delay(PEER, "a"), Duration::from_millis(500));
        // Another user from the same peer is slowed too; the same user from elsewhere as well.
        assert_eq!(throttle.delay(PEER, "b"), Duration::from_millis(500));
        let other = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        assert_eq!(throttle.delay(other, "a"), Duration::from_millis(500));
        throttle.record_success(PEER, "a");
        assert_eq!(throttle.delay(PEER, "a"), Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn failures_are_forgotten_after_a_quiet_period() {
        let throttle = Throttle::new(Duration::from_millis(100));
        throttle.record_failure(PEER, "a");
        tokio::time::advance(Duration::from_millis(1001)).await;
        assert_eq!(throttle.delay(PEER, "a"), Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn the_table_stays_bounded() {
        let throttle = Throttle::new(Duration::from_millis(100));
        for index in 0..(KEYS_MAX as u32) {
            let peer = IpAddr::V4(Ipv4Addr::from(index));
            throttle.record_failure(peer, "a");
        }
        assert!(throttle.keys.lock().len() <= KEYS_MAX);
    }
}
