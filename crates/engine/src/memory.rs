//! The server-wide query memory pool, and what a query's memory figures are made of.
//!
//! Every running query of a [`crate::Database`] counts the bytes it holds in its own context
//! (a plain integer, no atomics on the hot path) and takes room in the shared [`MemoryPool`]
//! in chunks of [`CHUNK_BYTES`], so the pool's atomic is touched about once per mebibyte a
//! query grows by. A query returns all it took when its context is dropped: when it ends, fails
//! or is cancelled, and when its transaction goes.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The unit a query reserves pool room in: large enough that the shared counter is rarely
/// touched, small enough that rounding up wastes little of the pool per query.
pub(crate) const CHUNK_BYTES: usize = 1 << 20;

/// Room a query keeps reserved beyond what it holds before it hands chunks back, so a query
/// whose figure swings around a chunk boundary does not touch the shared counter each time.
pub(crate) const SLACK_BYTES: usize = 8 * CHUNK_BYTES;

/// The share of physical memory queries may hold together when no total is configured.
pub const DEFAULT_TOTAL_PERCENT: usize = 70;

/// What every running query of a database holds together, bounded by its maximum.
#[derive(Debug)]
pub(crate) struct MemoryPool {
    reserved_bytes: AtomicUsize,
    pub max_bytes: usize,
}

impl MemoryPool {
    pub fn new(max_bytes: usize) -> Self {
        MemoryPool {
            reserved_bytes: AtomicUsize::new(0),
            max_bytes,
        }
    }

    /// Takes `bytes` of room, or nothing if that would pass the maximum.
    pub fn try_reserve(&self, bytes: usize) -> bool {
        self.reserved_bytes
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
                now.checked_add(bytes)
                    .filter(|&total| total <= self.max_bytes)
            })
            .is_ok()
    }

    /// Gives back room taken with [`MemoryPool::try_reserve`].
    pub fn release(&self, bytes: usize) {
        self.reserved_bytes.fetch_sub(bytes, Ordering::AcqRel);
    }

    /// Room taken by running queries now.
    pub fn reserved_bytes(&self) -> usize {
        self.reserved_bytes.load(Ordering::Acquire)
    }
}

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
    fn the_default_total_is_a_share_of_the_machine() {
        let total = default_total_bytes_max();
        assert!(total > 0);
        if let Some(physical) = physical_memory_bytes() {
            assert!(total < physical);
        }
    }
}
