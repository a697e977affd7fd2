//! Slows down repeated authentication failures from one peer address, and bounds the attempts one
//! address may have in progress at once.
//!
//! Each failure doubles the delay imposed before the next attempt from the same peer address, from
//! [`DELAY_BASE`] up to the configured maximum; a success clears it, and an address with no failure
//! for [`FORGIVE_AFTER_DELAYS`] maximum delays is forgotten. The delay is per address, not per user
//! name: a user-wide delay would let anyone who knows a user name slow that user's own logins from
//! everywhere (a denial of service costing one wrong password per delay), while the guessing rate
//! across addresses is capped anyway by the hashing concurrency limit. The table is bounded: when
//! full, forgotten keys are swept, and if it is still full it is cleared (an attacker able to fill it
//! from that many addresses defeats per-address throttling anyway).
//!
//! The delay is read when an attempt starts, so attempts sent in parallel would all read the delay
//! of before the first of them failed; hence [`Throttle::enter`]: past
//! [`ATTEMPTS_IN_FLIGHT_PER_PEER_DEFAULT`] attempts in progress from one address, a further one is
//! refused at once, without a check.

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
/// Attempts one address may have in progress (waiting out its delay or being checked) at once,
/// by default: a client logging in from several connections at once is served, a flood of
/// parallel guesses is checked a few at a time.
pub const ATTEMPTS_IN_FLIGHT_PER_PEER_DEFAULT: u32 = 4;

type Key = IpAddr;

#[derive(Clone, Copy, Debug)]
struct Failures {
    count: u32,
    last: Instant,
}

#[derive(Debug)]
pub struct Throttle {
    delay_max: Duration,
    keys: Mutex<HashMap<Key, Failures>>,
    in_flight_per_peer_max: u32,
    /// Attempts in progress per address; an address is removed when its last one ends, so the
    /// map is bounded by the attempts in progress (themselves bounded by the connections).
    in_flight: Mutex<HashMap<IpAddr, u32>>,
}

/// One attempt in progress from an address ([`Throttle::enter`]); dropping it ends the attempt.
#[derive(Debug)]
pub struct Attempt<'a> {
    throttle: &'a Throttle,
    peer: IpAddr,
}

impl Drop for Attempt<'_> {
    fn drop(&mut self) {
        let mut in_flight = self.throttle.in_flight.lock();
        if let Some(count) = in_flight.get_mut(&self.peer) {
            *count -= 1;
            if *count == 0 {
                in_flight.remove(&self.peer);
            }
        }
    }
}

impl Throttle {
    pub fn new(delay_max: Duration) -> Throttle {
        Throttle::with_in_flight_max(delay_max, ATTEMPTS_IN_FLIGHT_PER_PEER_DEFAULT)
    }

    /// A throttle letting each address have at most `in_flight_per_peer_max` attempts in
    /// progress (at least one).
    pub fn with_in_flight_max(delay_max: Duration, in_flight_per_peer_max: u32) -> Throttle {
        Throttle {
            delay_max,
            keys: Mutex::new(HashMap::new()),
            in_flight_per_peer_max: in_flight_per_peer_max.max(1),
            in_flight: Mutex::new(HashMap::new()),
        }
    }

    /// The longest delay imposed.
    pub fn delay_max(&self) -> Duration {
        self.delay_max
    }

    /// Starts an attempt from `peer`, or `None` when that address already has its limit of
    /// attempts in progress (the caller refuses this one without checking it).
    pub fn enter(&self, peer: IpAddr) -> Option<Attempt<'_>> {
        let mut in_flight = self.in_flight.lock();
        let count = in_flight.entry(peer).or_insert(0);
        if *count >= self.in_flight_per_peer_max {
            return None;
        }
        *count += 1;
        Some(Attempt {
            throttle: self,
            peer,
        })
    }

    /// The wait owed before the next attempt from `peer`.
    pub fn delay(&self, peer: IpAddr) -> Duration {
        let now = Instant::now();
        self.keys
            .lock()
            .get(&peer)
            .filter(|failures| !self.is_forgotten(failures, now))
            .map_or(Duration::ZERO, |failures| self.delay_for(failures.count))
    }

    pub fn record_failure(&self, peer: IpAddr) {
        let now = Instant::now();
        let mut keys = self.keys.lock();
        if keys.len() + 1 > KEYS_MAX {
            keys.retain(|_, failures| !self.is_forgotten(failures, now));
            if keys.len() + 1 > KEYS_MAX {
                keys.clear();
            }
        }
        let entry = keys.entry(peer).or_insert(Failures {
            count: 0,
            last: now,
        });
        if self.is_forgotten(entry, now) {
            entry.count = 0;
        }
        entry.count = entry.count.saturating_add(1);
        entry.last = now;
    }

    pub fn record_success(&self, peer: IpAddr) {
        let mut keys = self.keys.lock();
        if keys.is_empty() {
            return;
        }
        keys.remove(&peer);
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
        assert_eq!(throttle.delay(PEER), Duration::ZERO);
        throttle.record_failure(PEER);
        assert_eq!(throttle.delay(PEER), Duration::from_millis(100));
        throttle.record_failure(PEER);
        assert_eq!(throttle.delay(PEER), Duration::from_millis(200));
        for _ in 0..40 {
            throttle.record_failure(PEER);
        }
        assert_eq!(throttle.delay(PEER), Duration::from_millis(500));
        // Whatever user the peer tries next, it is slowed; another address is not (one
        // address's failures must not delay another's login for the same user).
        let other = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        assert_eq!(throttle.delay(other), Duration::ZERO);
        throttle.record_success(PEER);
        assert_eq!(throttle.delay(PEER), Duration::ZERO);
    }

    #[test]
    fn attempts_in_flight_are_bounded_per_address() {
        let throttle = Throttle::with_in_flight_max(Duration::from_millis(100), 2);
        let first = throttle.enter(PEER).expect("1st");
        let _second = throttle.enter(PEER).expect("2nd");
        assert!(throttle.enter(PEER).is_none(), "3rd refused");
        let other = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        assert!(
            throttle.enter(other).is_some(),
            "another address has its own"
        );
        drop(first);
        assert!(
            throttle.enter(PEER).is_some(),
            "an ended attempt frees its place"
        );
        assert!(
            throttle.in_flight.lock().get(&other).is_none(),
            "forgotten at zero"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn failures_are_forgotten_after_a_quiet_period() {
        let throttle = Throttle::new(Duration::from_millis(100));
        throttle.record_failure(PEER);
        tokio::time::advance(Duration::from_millis(1001)).await;
        assert_eq!(throttle.delay(PEER), Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn the_table_stays_bounded() {
        let throttle = Throttle::new(Duration::from_millis(100));
        for index in 0..(KEYS_MAX as u32) {
            let peer = IpAddr::V4(Ipv4Addr::from(index));
            throttle.record_failure(peer);
        }
        assert!(throttle.keys.lock().len() <= KEYS_MAX);
    }
}
