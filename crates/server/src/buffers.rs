//! Read and write buffers lent to connections while a message is in flight.
//!
//! An idle connection holds no buffer: a Bolt session takes one from its listener's pool when
//! bytes arrive or replies are encoded, and gives it back once the bytes are consumed or
//! written. Lending instead of allocating keeps the buffers of ten thousand connections that
//! wake in turn down to the few in use at once, and spares the allocator the churn of a fresh
//! 8 KiB block per message (blocks freed between long-lived small allocations fragment the
//! heap, which the resident set then keeps).
//!
//! The pool is bounded twice: it keeps at most [`POOLED_BUFFERS_MAX`] free buffers, and a
//! buffer grown past [`POOLED_BUFFER_BYTES_MAX`] (a large result's write buffer) is freed
//! rather than kept, so a burst of big replies does not stay resident in the pool.

use bytes::BytesMut;
use parking_lot::Mutex;

use crate::metrics::IntGauge;

/// Capacity of a buffer handed out: one socket read's worth.
pub const BUFFER_BYTES: usize = 8 * 1024;
/// Free buffers kept for reuse (at most 8 MiB of them at [`BUFFER_BYTES`] each).
pub const POOLED_BUFFERS_MAX: usize = 1024;
/// A buffer given back with more capacity than this is freed instead of kept.
pub const POOLED_BUFFER_BYTES_MAX: usize = 128 * 1024;

/// A listener's pool of connection buffers.
#[derive(Debug, Default)]
pub struct BufferPool {
    free: Mutex<Vec<BytesMut>>,
    /// Buffers lent and not yet given back: zero when every connection is idle. A metric
    /// (`quiver_bolt_buffers_lent`), so an operator sees it too.
    outstanding: IntGauge,
}

impl BufferPool {
    /// A pool counting its lent buffers in `outstanding`.
    pub fn new(outstanding: IntGauge) -> BufferPool {
        BufferPool {
            free: Mutex::new(Vec::new()),
            outstanding,
        }
    }

    /// An empty buffer with at least [`BUFFER_BYTES`] of capacity.
    pub fn take(&self) -> BytesMut {
        self.outstanding.inc();
        self.free
            .lock()
            .pop()
            .unwrap_or_else(|| BytesMut::with_capacity(BUFFER_BYTES))
    }

    /// Gives a buffer back; its contents are discarded. An unallocated buffer (one never taken,
    /// or already given back) is ignored, so callers may give back unconditionally.
    pub fn give(&self, mut buffer: BytesMut) {
        if buffer.capacity() == 0 {
            return;
        }
        self.outstanding.dec();
        buffer.clear();
        // A buffer still sharing its block with a message handed out (a view that outlives the
        // read) cannot be reused in place; one grown past the bound is not kept.
        if !buffer.try_reclaim(BUFFER_BYTES) || buffer.capacity() > POOLED_BUFFER_BYTES_MAX {
            return;
        }
        let mut free = self.free.lock();
        if free.len() < POOLED_BUFFERS_MAX {
            free.push(buffer);
        }
    }

    /// Buffers lent out now.
    pub fn outstanding(&self) -> i64 {
        self.outstanding.get()
    }

    /// Free buffers kept for reuse now.
    pub fn pooled(&self) -> usize {
        self.free.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back_and_are_reused() {
        let pool = BufferPool::new(IntGauge::default());
        let mut first = pool.take();
        first.extend_from_slice(b"hello");
        assert_eq!(pool.outstanding(), 1);
        pool.give(first);
        assert_eq!((pool.outstanding(), pool.pooled()), (0, 1));
        let again = pool.take();
        assert!(again.is_empty());
        assert!(again.capacity() >= BUFFER_BYTES);
        assert_eq!((pool.outstanding(), pool.pooled()), (1, 0));
        pool.give(again);
        // Giving back an unallocated buffer changes nothing.
        pool.give(BytesMut::new());
        assert_eq!((pool.outstanding(), pool.pooled()), (0, 1));
    }

    #[test]
    fn an_oversized_buffer_is_freed_not_kept() {
        let pool = BufferPool::new(IntGauge::default());
        let mut big = pool.take();
        big.reserve(POOLED_BUFFER_BYTES_MAX * 2);
        pool.give(big);
        assert_eq!((pool.outstanding(), pool.pooled()), (0, 0));
    }

    #[test]
    fn a_buffer_shared_with_a_message_is_not_reused() {
        let pool = BufferPool::new(IntGauge::default());
        let mut buffer = pool.take();
        buffer.extend_from_slice(&[1; 64]);
        let message = buffer.split_to(32).freeze();
        pool.give(buffer);
        assert_eq!((pool.outstanding(), pool.pooled()), (0, 0));
        drop(message);
    }
}
