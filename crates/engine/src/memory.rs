//! The server-wide query memory pool, and what a query's memory figures are made of.
//!
//! Every running query of a [`crate::Database`] counts the bytes it holds in its own context
//! (a plain integer, no atomics on the hot path) and takes room in the shared [`MemoryPool`]
//! in chunks of [`CHUNK_BYTES`], so the pool's atomic is touched about once per mebibyte a
//! query grows by. A query returns all it took when its context is dropped: when it ends, fails
//! or is cancelled, and when its transaction goes.
//!
//! When the pool empties after queries that took at least [`TRIM_AFTER_BYTES`], the allocator is
//! asked to give its free memory back to the system ([`trim`]): glibc's malloc keeps the pages
//! of freed small allocations (a burst of strings, map entries, rows) in its arenas for good,
//! so without it one big `DISTINCT` left the server hundreds of megabytes larger until exit.
//! At most once per [`TRIM_INTERVAL_MS`], since a trim walks every arena's free lists.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// The unit a query reserves pool room in: large enough that the shared counter is rarely
/// touched, small enough that rounding up wastes little of the pool per query.
pub(crate) const CHUNK_BYTES: usize = 1 << 20;

/// Room a query keeps reserved beyond what it holds before it hands chunks back, so a query
/// whose figure swings around a chunk boundary does not touch the shared counter each time.
pub(crate) const SLACK_BYTES: usize = 8 * CHUNK_BYTES;

/// The share of physical memory queries may hold together when no total is configured.
pub const DEFAULT_TOTAL_PERCENT: usize = 70;

/// Pool room the queries since the last trim must have taken at once for an empty pool to
/// trigger a trim: smaller bursts leave too little behind to be worth one.
pub const TRIM_AFTER_BYTES: usize = 16 * CHUNK_BYTES;

/// Shortest time between two trims, so that a stream of big queries each ending alone does not
/// pay a trim each.
pub const TRIM_INTERVAL_MS: u64 = 1000;

/// A query memory pool several databases share: every running query of each takes its room
/// from it ([`crate::EngineConfig::query_memory_pool`]).
#[derive(Clone, Debug)]
pub struct SharedPool(pub(crate) std::sync::Arc<MemoryPool>);

impl SharedPool {
    /// A pool of `max_bytes` (a server's `query_memory_total_bytes_max`).
    pub fn new(max_bytes: usize) -> SharedPool {
        SharedPool(std::sync::Arc::new(MemoryPool::new(max_bytes)))
    }

    /// Room the running queries of every database hold now.
    pub fn reserved_bytes(&self) -> usize {
        self.0.reserved_bytes()
    }
}

/// What every running query of a database holds together, bounded by its maximum.
#[derive(Debug)]
pub(crate) struct MemoryPool {
    reserved_bytes: AtomicUsize,
    pub max_bytes: usize,
    /// The most room taken at once since the last trim.
    peak_since_trim_bytes: AtomicUsize,
    /// When the pool was made, the origin of `last_trim_ms`.
    origin: Instant,
    /// Milliseconds from `origin` to the last trim (`u64::MAX`: none yet).
    last_trim_ms: AtomicU64,
}

impl MemoryPool {
    pub fn new(max_bytes: usize) -> Self {
        MemoryPool {
            reserved_bytes: AtomicUsize::new(0),
            max_bytes,
            peak_since_trim_bytes: AtomicUsize::new(0),
            origin: Instant::now(),
            last_trim_ms: AtomicU64::new(u64::MAX),
        }
    }

    /// Takes `bytes` of room, or nothing if that would pass the maximum.
    pub fn try_reserve(&self, bytes: usize) -> bool {
        let taken = self
            .reserved_bytes
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
                now.checked_add(bytes)
                    .filter(|&total| total <= self.max_bytes)
            });
        match taken {
            Ok(before) => {
                self.peak_since_trim_bytes
                    .fetch_max(before + bytes, Ordering::Relaxed);
                true
            }
            Err(_) => false,
        }
    }

    /// Gives back room taken with [`MemoryPool::try_reserve`]; when that empties the pool
    /// after a big enough burst, and no trim ran within [`TRIM_INTERVAL_MS`], trims.
    pub fn release(&self, bytes: usize) {
        let before = self.reserved_bytes.fetch_sub(bytes, Ordering::AcqRel);
        if bytes == 0 || before != bytes {
            return;
        }
        if self.trim_due() {
            trim();
        }
    }

    /// Whether the pool, just emptied, should trim now; claims the trim when so (one caller
    /// wins when several queries end at once).
    fn trim_due(&self) -> bool {
        if self.peak_since_trim_bytes.load(Ordering::Relaxed) < TRIM_AFTER_BYTES {
            return false;
        }
        let now_ms = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX - 1);
        let last = self.last_trim_ms.load(Ordering::Relaxed);
        if last != u64::MAX && now_ms.saturating_sub(last) < TRIM_INTERVAL_MS {
            return false;
        }
        if self
            .last_trim_ms
            .compare_exchange(last, now_ms, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        self.peak_since_trim_bytes.store(0, Ordering::Relaxed);
        true
    }

    /// Room taken by running queries now.
    pub fn reserved_bytes(&self) -> usize {
        self.reserved_bytes.load(Ordering::Acquire)
    }
}

/// What a transaction's uncommitted writes hold, counted across all its queries, and the pool
/// room taken for them in whole chunks. Its queries add to it (see [`crate::eval::Cx`]'s
/// `count_write`); the transaction gives it all back when its writes go: at commit, rollback,
/// failure, or when it begins again after a conflict. Used by one query at a time (a
/// transaction serves one request at a time), so the atomics are never contended; they only
/// make the account shareable between the transaction and its queries' contexts.
#[derive(Debug, Default)]
pub(crate) struct TxWrites {
    held_bytes: AtomicUsize,
    reserved_bytes: AtomicUsize,
}

impl TxWrites {
    /// Bytes the transaction's writes hold now.
    pub fn held_bytes(&self) -> usize {
        self.held_bytes.load(Ordering::Relaxed)
    }

    /// Adds `bytes` to what the writes hold and returns the new figure.
    pub fn add(&self, bytes: usize) -> usize {
        let held = self.held_bytes().saturating_add(bytes);
        self.held_bytes.store(held, Ordering::Relaxed);
        held
    }

    /// Grows the pool room taken to cover what the writes hold, in whole chunks; `false` when
    /// the pool has no room (nothing more is taken then).
    pub fn cover(&self, pool: &MemoryPool) -> bool {
        let held = self.held_bytes();
        let reserved = self.reserved_bytes.load(Ordering::Relaxed);
        if held <= reserved {
            return true;
        }
        let wanted = held.div_ceil(CHUNK_BYTES).saturating_mul(CHUNK_BYTES);
        if !pool.try_reserve(wanted - reserved) {
            return false;
        }
        self.reserved_bytes.store(wanted, Ordering::Relaxed);
        true
    }

    /// The writes are gone (committed into the store's own accounts, or undone): gives back
    /// every byte of pool room and starts again from zero.
    pub fn clear(&self, pool: &MemoryPool) {
        self.held_bytes.store(0, Ordering::Relaxed);
        pool.release(self.reserved_bytes.swap(0, Ordering::Relaxed));
    }
}

/// Asks the allocator to return the free memory it holds to the system. With glibc's malloc
/// (the allocator of a `*-linux-gnu` build), `malloc_trim(0)` releases the free pages of every
/// arena, not only the top of the main heap; elsewhere this does nothing.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn trim() {
    // SAFETY: `malloc_trim` takes a plain integer and touches only the allocator's own
    // state, under the allocator's locks; it is safe to call from any thread at any time
    // and frees nothing that is in use.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Asks the allocator to return the free memory it holds to the system (nothing to do with
/// this platform's allocator).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn trim() {}

/// The machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`), if it can be read.
pub fn physical_memory_bytes() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The default of [`crate::EngineConfig::query_memory_total_bytes_max`]:
/// [`DEFAULT_TOTAL_PERCENT`] of physical memory, or 4 GiB where that cannot be read.
pub fn default_total_bytes_max() -> usize {
    physical_memory_bytes().map_or(4 << 30, |bytes| bytes / 100 * DEFAULT_TOTAL_PERCENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn databases_given_one_pool_take_their_room_from_it_together() {
        let shared = SharedPool::new(3 * CHUNK_BYTES);
        let config = crate::EngineConfig {
            query_memory_pool: Some(shared.clone()),
            ..crate::EngineConfig::default()
        };
        let a = crate::Database::open_in_memory(config.clone());
        let b = crate::Database::open_in_memory(config);
        assert!(a.shared().memory.try_reserve(2 * CHUNK_BYTES));
        // What one database's queries hold, the other's cannot take.
        assert!(!b.shared().memory.try_reserve(2 * CHUNK_BYTES));
        assert_eq!(b.query_memory_reserved_bytes(), 2 * CHUNK_BYTES);
        a.shared().memory.release(2 * CHUNK_BYTES);
        assert_eq!(shared.reserved_bytes(), 0);
        // Without a shared pool each has its own.
        let c = crate::Database::open_in_memory(crate::EngineConfig::default());
        assert!(!std::sync::Arc::ptr_eq(&c.shared().memory, &shared.0));
    }

    #[test]
    fn the_pool_refuses_past_its_maximum_and_takes_back_what_it_gave() {
        let pool = MemoryPool::new(3 * CHUNK_BYTES);
        assert!(pool.try_reserve(2 * CHUNK_BYTES));
        assert!(!pool.try_reserve(2 * CHUNK_BYTES));
        assert_eq!(pool.reserved_bytes(), 2 * CHUNK_BYTES);
        assert!(pool.try_reserve(CHUNK_BYTES));
        pool.release(3 * CHUNK_BYTES);
        assert_eq!(pool.reserved_bytes(), 0);
    }

    #[test]
    fn a_trim_follows_a_big_burst_once_the_pool_empties_at_most_once_a_second() {
        let pool = MemoryPool::new(1 << 40);
        // Small queries never trim.
        assert!(pool.try_reserve(CHUNK_BYTES));
        assert!(!pool.trim_due());
        // Two queries together past the threshold: due once, then not again within the
        // interval however big the next burst.
        assert!(pool.try_reserve(TRIM_AFTER_BYTES));
        assert!(pool.trim_due());
        assert!(!pool.trim_due(), "claimed");
        pool.release(CHUNK_BYTES + TRIM_AFTER_BYTES);
        assert!(pool.try_reserve(2 * TRIM_AFTER_BYTES));
        assert!(!pool.trim_due(), "within the interval");
        pool.release(2 * TRIM_AFTER_BYTES);
        assert_eq!(pool.reserved_bytes(), 0);
    }

    #[test]
    fn the_default_total_is_a_share_of_the_machine() {
        let total = default_total_bytes_max();
        assert!(total > 0);
        if let Some(physical) = physical_memory_bytes() {
            assert!(total < physical);
        }
    }
}
