//! Bolt's chunked framing.
//!
//! ```text
//! message := chunk+ 00 00          chunk := [len: u16 BE, 1..=65535] [len bytes]
//! noop    := 00 00   (between messages: a keep-alive, skipped)
//! ```
//!
//! Reading is two-phase like any bounded codec: [`Dechunker::decode`] checks whether a whole
//! message is buffered, consumes it, and hands it back as one contiguous [`Bytes`]; the common
//! single-chunk message is split off the read buffer without copying. Writing encodes a
//! message body in place right after a placeholder header and patches it afterwards, so any
//! number of messages (a whole reply batch) land in one buffer for one socket write.

use bytes::{Buf, BufMut, Bytes, BytesMut};

use crate::error::Error;
use crate::packstream::Buffer;

/// The largest chunk the 16-bit header can describe.
pub const CHUNK_BYTES_MAX: usize = 0xFFFF;

/// An empty chunk: the keep-alive a server sends while a long query runs, so that clients
/// honouring `connection.recv_timeout_seconds` do not time out.
pub const NOOP: [u8; 2] = [0, 0];

/// Appends a NOOP keep-alive to `out`.
pub fn noop<B: BufMut>(out: &mut B) {
    out.put_slice(&NOOP);
}

/// Reassembles messages from a stream of chunks.
#[derive(Debug)]
pub struct Dechunker {
    message_bytes_max: usize,
    /// Chunks of a message that spans reads, copied out of the read buffer.
    partial: BytesMut,
    /// Whether `partial` holds the start of a message (it may legitimately be empty only
    /// before the first chunk).
    in_message: bool,
}

impl Dechunker {
    pub fn new(message_bytes_max: usize) -> Self {
        Dechunker {
            message_bytes_max,
            partial: BytesMut::new(),
            in_message: false,
        }
    }

    pub fn message_bytes_max(&self) -> usize {
        self.message_bytes_max
    }

    /// Whether some chunks of a message have been consumed but its end has not arrived.
    pub fn is_mid_message(&self) -> bool {
        self.in_message
    }

    fn check_size(&self, bytes: usize) -> Result<(), Error> {
        if bytes > self.message_bytes_max {
            return Err(Error::MessageTooLarge {
                bytes,
                message_bytes_max: self.message_bytes_max,
            });
        }
        Ok(())
    }

    /// Takes the next whole message out of `input`, or returns `None` when more bytes are
    /// needed (whatever complete chunks were present are consumed and kept meanwhile). NOOP
    /// chunks between messages are skipped. An oversized message is an error as soon as its
    /// declared chunk sizes pass `message_bytes_max`, before its bytes arrive.
    pub fn decode(&mut self, input: &mut BytesMut) -> Result<Option<Bytes>, Error> {
        loop {
            let Some(header) = input.get(..2) else {
                return Ok(None);
            };
            let len = usize::from(u16::from_be_bytes([header[0], header[1]]));
            if len == 0 {
                input.advance(2);
                if self.in_message {
                    self.in_message = false;
                    return Ok(Some(self.partial.split().freeze()));
                }
                // A NOOP between messages.
                continue;
            }
            self.check_size(self.partial.len() + len)?;
            if !self.in_message
                && input.len() >= 2 + len + 2
                && input[2 + len] == 0
                && input[2 + len + 1] == 0
            {
                // The whole message is one chunk: hand out a view of the read buffer.
                input.advance(2);
                let message = input.split_to(len).freeze();
                input.advance(2);
                return Ok(Some(message));
            }
            if input.len() < 2 + len {
                return Ok(None);
            }
            input.advance(2);
            self.partial.extend_from_slice(&input[..len]);
            input.advance(len);
            self.in_message = true;
        }
    }
}

/// The signatures of the whole messages in `input`, which must start at a message boundary
/// (what is left in a read buffer after [`Dechunker::decode`] handed out a message), without
/// consuming anything. A trailing partial message is left out.
///
/// A server busy with one request looks ahead with this for a RESET, which jumps the queue: it
/// interrupts the running work rather than waiting its turn.
pub fn buffered_signatures(input: &[u8]) -> BufferedSignatures<'_> {
    BufferedSignatures { input, at: 0 }
}

/// Iterator returned by [`buffered_signatures`].
#[derive(Debug)]
pub struct BufferedSignatures<'a> {
    input: &'a [u8],
    at: usize,
}

impl Iterator for BufferedSignatures<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        loop {
            // The first two body bytes of the message starting at `self.at` (a struct marker and
            // the signature), gathered across chunks.
            let mut head = [0u8; 2];
            let mut head_len = 0;
            let mut at = self.at;
            loop {
                let header = self.input.get(at..at + 2)?;
                let len = usize::from(u16::from_be_bytes([header[0], header[1]]));
                at += 2;
                if len == 0 {
                    break;
                }
                let body = self.input.get(at..at + len)?;
                for byte in body.iter().take(2 - head_len) {
                    head[head_len] = *byte;
                    head_len += 1;
                }
                at += len;
            }
            self.at = at;
            // An empty message is a NOOP; a body too short for a header has no signature.
            if head_len == 2 && head[0] & 0xF0 == 0xB0 {
                return Some(head[1]);
            }
        }
    }
}

/// Appends one message to `out`, chunked: `body` encodes the message straight into `out`
/// after a placeholder header; bodies over [`CHUNK_BYTES_MAX`] are split in place. If `body`
/// fails, `out` is rolled back to where it was.
pub fn write_message<B, F>(out: &mut B, body: F) -> Result<(), Error>
where
    B: Buffer,
    F: FnOnce(&mut B) -> Result<(), Error>,
{
    let start = out.len();
    out.put_u16(0);
    if let Err(e) = body(out) {
        out.truncate(start);
        return Err(e);
    }
    let body_len = out.len() - start - 2;
    if body_len == 0 {
        out.truncate(start);
        return Err(Error::InvalidValue {
            what: "message",
            detail: "empty body".into(),
        });
    }
    if body_len <= CHUNK_BYTES_MAX {
        out.bytes_mut()[start..start + 2].copy_from_slice(&(body_len as u16).to_be_bytes());
    } else {
        split_in_place(out, start, body_len);
    }
    out.put_u16(0);
    Ok(())
}

/// Turns `[placeholder][body]` at `start` into `[hdr][≤65535]…[hdr][rest]` by growing the
/// buffer once and moving each chunk's bytes right, last chunk first, so nothing is
/// overwritten before it is moved.
fn split_in_place<B: Buffer>(out: &mut B, start: usize, body_len: usize) {
    let chunks = body_len.div_ceil(CHUNK_BYTES_MAX);
    let extra = (chunks - 1) * 2;
    out.put_bytes(0, extra);
    let bytes = out.bytes_mut();
    let body_start = start + 2;
    for i in (0..chunks).rev() {
        let src = body_start + i * CHUNK_BYTES_MAX;
        let len = (body_len - i * CHUNK_BYTES_MAX).min(CHUNK_BYTES_MAX);
        let dst = src + i * 2;
        bytes.copy_within(src..src + len, dst);
        bytes[dst - 2..dst].copy_from_slice(&(len as u16).to_be_bytes());
    }
}

/// Chunks an already encoded message body (used by clients and tests; servers encode in place
/// with [`write_message`]).
pub fn write_chunked<B: BufMut>(out: &mut B, message: &[u8]) {
    for piece in message.chunks(CHUNK_BYTES_MAX) {
        out.put_u16(piece.len() as u16);
        out.put_slice(piece);
    }
    out.put_u16(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(bytes: &[u8]) -> BytesMut {
        BytesMut::from(bytes)
    }

    #[test]
    fn single_chunk_message_with_noops() {
        let mut d = Dechunker::new(1024);
        let mut input = framed(&[0, 0, 0, 0, 0, 3, 1, 2, 3, 0, 0, 0, 0]);
        assert_eq!(
            d.decode(&mut input).unwrap().as_deref(),
            Some(&[1u8, 2, 3][..])
        );
        assert_eq!(d.decode(&mut input).unwrap(), None);
        assert!(input.is_empty());
    }

    #[test]
    fn message_split_across_reads_and_chunks() {
        let mut d = Dechunker::new(1024);
        let mut input = framed(&[0, 2, 1, 2, 0]);
        assert_eq!(d.decode(&mut input).unwrap(), None);
        assert!(d.is_mid_message());
        input.extend_from_slice(&[1, 3]);
        assert_eq!(d.decode(&mut input).unwrap(), None);
        input.extend_from_slice(&[0]);
        assert_eq!(d.decode(&mut input).unwrap(), None);
        input.extend_from_slice(&[0]);
        assert_eq!(
            d.decode(&mut input).unwrap().as_deref(),
            Some(&[1u8, 2, 3][..])
        );
        assert!(!d.is_mid_message());
    }

    #[test]
    fn partial_header_waits() {
        let mut d = Dechunker::new(1024);
        let mut input = framed(&[0]);
        assert_eq!(d.decode(&mut input).unwrap(), None);
        assert_eq!(input.len(), 1);
    }

    #[test]
    fn oversized_message_is_refused_from_its_header() {
        let mut d = Dechunker::new(10);
        let mut input = framed(&[0, 11]);
        assert_eq!(
            d.decode(&mut input),
            Err(Error::MessageTooLarge {
                bytes: 11,
                message_bytes_max: 10
            })
        );
        let mut d = Dechunker::new(10);
        let mut input = framed(&[0, 6, 1, 2, 3, 4, 5, 6, 0, 6]);
        assert_eq!(
            d.decode(&mut input),
            Err(Error::MessageTooLarge {
                bytes: 12,
                message_bytes_max: 10
            })
        );
    }

    #[test]
    fn buffered_signatures_see_whole_messages_only() {
        let mut input = Vec::new();
        write_chunked(&mut input, &[0xB0, 0x0F]);
        input.extend_from_slice(&NOOP);
        // A RESET split into two one-byte chunks.
        input.extend_from_slice(&[0, 1, 0xB0, 0, 1, 0x0F, 0, 0]);
        write_chunked(&mut input, &[0xB1, 0x3F, 0xA0]);
        let whole = input.len();
        // A message whose end has not arrived.
        input.extend_from_slice(&[0, 2, 0xB0, 0x0F]);
        let found: Vec<u8> = buffered_signatures(&input).collect();
        assert_eq!(found, [0x0F, 0x0F, 0x3F]);
        assert_eq!(buffered_signatures(&input[..whole - 1]).count(), 2);
        assert_eq!(buffered_signatures(&[0, 1, 0xC0, 0, 0]).count(), 0);
        assert_eq!(buffered_signatures(&[]).count(), 0);
    }

    #[test]
    fn write_message_small_and_rollback() {
        let mut out = Vec::new();
        write_message(&mut out, |b| {
            b.put_slice(&[0xB0, 0x0F]);
            Ok(())
        })
        .unwrap();
        assert_eq!(out, [0x00, 0x02, 0xB0, 0x0F, 0x00, 0x00]);
        let err = write_message(&mut out, |b| {
            b.put_slice(&[1, 2, 3]);
            Err(Error::BadMagic)
        });
        assert!(err.is_err());
        assert_eq!(out.len(), 6);
    }

    #[test]
    fn write_message_splits_large_bodies_like_write_chunked() {
        for size in [
            CHUNK_BYTES_MAX,
            CHUNK_BYTES_MAX + 1,
            2 * CHUNK_BYTES_MAX,
            2 * CHUNK_BYTES_MAX + 7,
            200_000,
        ] {
            let body: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
            let mut in_place = vec![9u8];
            write_message(&mut in_place, |b| {
                b.put_slice(&body);
                Ok(())
            })
            .unwrap();
            let mut reference = vec![9u8];
            write_chunked(&mut reference, &body);
            assert_eq!(in_place, reference, "size {size}");
            let mut d = Dechunker::new(1 << 20);
            let mut input = BytesMut::from(&in_place[1..]);
            assert_eq!(d.decode(&mut input).unwrap().as_deref(), Some(&body[..]));
        }
    }
}
