//! The write side of a connection: replies accumulate here and leave in as few socket
//! writes as the bytes allow.
//!
//! Encoding a RECORD appends it to the outbox instead of writing it out, so K records cost
//! about `bytes / flush_bytes` writes rather than K; the server flushes when
//! [`Outbox::wants_flush`] says the buffer is full and once more when a pipelined batch of
//! requests has been answered.

use bytes::{Bytes, BytesMut};

/// A reply buffer with a flush threshold.
#[derive(Debug)]
pub struct Outbox {
    buf: BytesMut,
    flush_bytes: usize,
}

impl Outbox {
    /// `flush_bytes`: how much to gather before a write is worth making (64 KiB suits
    /// loopback and LAN links alike).
    pub fn new(flush_bytes: usize) -> Self {
        Outbox {
            buf: BytesMut::with_capacity(flush_bytes),
            flush_bytes,
        }
    }

    /// Where encoders append: pass it to [`crate::message::encode_record`] and the meta builders.
    pub fn buffer(&mut self) -> &mut BytesMut {
        &mut self.buf
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Whether enough has gathered that the server should write it now.
    pub fn wants_flush(&self) -> bool {
        self.buf.len() >= self.flush_bytes
    }

    /// Everything gathered so far, for one socket write; the outbox keeps its allocation
    /// once the returned bytes are dropped.
    pub fn take(&mut self) -> Bytes {
        let out = self.buf.split().freeze();
        if self.buf.capacity() < self.flush_bytes {
            self.buf.reserve(self.flush_bytes);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::encode_record;
    use crate::packstream::Dialect;
    use quiver_value::Value;

    /// Ten thousand small records leave in a handful of writes, not ten thousand.
    #[test]
    fn writes_scale_with_bytes_not_records() {
        let mut outbox = Outbox::new(64 * 1024);
        let row = [Value::Int(42), Value::from("some text"), Value::Float(1.5)];
        let mut writes = 0;
        let mut bytes = 0;
        for _ in 0..10_000 {
            encode_record(outbox.buffer(), &row, Dialect::BOLT5).unwrap();
            if outbox.wants_flush() {
                bytes += outbox.take().len();
                writes += 1;
            }
        }
        if !outbox.is_empty() {
            bytes += outbox.take().len();
            writes += 1;
        }
        assert_eq!(bytes, 10_000 * 27);
        assert!(
            writes <= bytes / (64 * 1024) + 1,
            "{writes} writes for {bytes} bytes"
        );
    }
}
