//! Response bodies that stream while the engine produces rows.
//!
//! A request's work runs on the blocking pool and writes JSON into an [`Output`]. Small
//! responses (the common case) complete before the first flush threshold and go out whole,
//! with a `Content-Length` — which keep-alive clients such as ApacheBench require. A larger
//! response is sent as its status and first chunk as soon as the threshold is crossed, then
//! chunk by chunk through a bounded channel: the producer blocks when the client reads slowly,
//! so a huge result holds at most a few chunks in memory. If the client goes away the channel
//! closes and the producer stops at its next flush.
//!
//! ```text
//! producer (blocking pool)                      connection task
//!   Output::write.. ──► Head{status, first, complete} ──► Response (Full or Streaming)
//!   flush at chunk_bytes ──► Chunk ──► Chunk ──► End ──► body frames
//! ```

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::StatusCode;
use hyper::body::{Body, Frame, SizeHint};
use tokio::sync::mpsc;

/// What the producer sends.
pub enum Message {
    /// The status, headers and first bytes; `complete` when nothing follows.
    Head(Head),
    Chunk(Bytes),
    /// The document is complete.
    End,
}

pub struct Head {
    pub status: StatusCode,
    pub content_type: &'static str,
    pub location: Option<String>,
    pub first: Bytes,
    pub complete: bool,
}

/// The producer gave up because the client is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientGone;

/// Where a producer writes its document.
pub struct Output {
    pub buf: Vec<u8>,
    status: StatusCode,
    content_type: &'static str,
    location: Option<String>,
    sender: mpsc::Sender<Message>,
    chunk_bytes: usize,
    head_sent: bool,
    gone: bool,
}

impl Output {
    pub fn new(sender: mpsc::Sender<Message>, chunk_bytes: usize) -> Output {
        Output {
            buf: Vec::with_capacity(1024),
            status: StatusCode::OK,
            content_type: "application/json",
            location: None,
            sender,
            chunk_bytes,
            head_sent: false,
            gone: false,
        }
    }

    /// Sets the response status and headers; only effective before the first flush.
    pub fn head(
        &mut self,
        status: StatusCode,
        content_type: &'static str,
        location: Option<String>,
    ) {
        self.status = status;
        self.content_type = content_type;
        self.location = location;
    }

    /// True once anything has been sent: the status can no longer change.
    pub fn committed(&self) -> bool {
        self.head_sent
    }

    pub fn is_gone(&self) -> bool {
        self.gone
    }

    /// Sends what is buffered if it has reached the chunk size.
    pub fn maybe_flush(&mut self) -> Result<(), ClientGone> {
        if self.gone {
            return Err(ClientGone);
        }
        if self.buf.len() >= self.chunk_bytes {
            self.send(false)?;
        }
        Ok(())
    }

    fn send(&mut self, last: bool) -> Result<(), ClientGone> {
        let bytes = Bytes::from(std::mem::replace(
            &mut self.buf,
            Vec::with_capacity(if last { 0 } else { self.chunk_bytes + 1024 }),
        ));
        let message = if self.head_sent {
            Message::Chunk(bytes)
        } else {
            self.head_sent = true;
            Message::Head(Head {
                status: self.status,
                content_type: self.content_type,
                location: self.location.take(),
                first: bytes,
                complete: last,
            })
        };
        if self.sender.blocking_send(message).is_err() {
            self.gone = true;
            return Err(ClientGone);
        }
        Ok(())
    }

    /// Sends the rest of the document and marks it complete.
    pub fn finish(mut self) -> Result<(), ClientGone> {
        if self.gone {
            return Err(ClientGone);
        }
        if !self.head_sent {
            return self.send(true);
        }
        if !self.buf.is_empty() {
            self.send(false)?;
        }
        self.sender
            .blocking_send(Message::End)
            .map_err(|_| ClientGone)
    }
}

/// The body of every API response.
pub struct ResponseBody {
    state: State,
}

enum State {
    Full(Option<Bytes>),
    Streaming {
        first: Option<Bytes>,
        receiver: mpsc::Receiver<Message>,
    },
    Done,
}

/// A streamed response lost its producer before the end of the document; the connection is
/// closed so the client cannot mistake the truncated body for a complete one.
#[derive(Debug, thiserror::Error)]
#[error("the response stream ended before the document was complete")]
pub struct StreamAborted;

impl ResponseBody {
    pub fn full(bytes: impl Into<Bytes>) -> ResponseBody {
        ResponseBody {
            state: State::Full(Some(bytes.into())),
        }
    }

    pub fn streaming(first: Bytes, receiver: mpsc::Receiver<Message>) -> ResponseBody {
        ResponseBody {
            state: State::Streaming {
                first: Some(first),
                receiver,
            },
        }
    }
}

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = StreamAborted;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, StreamAborted>>> {
        let this = &mut *self;
        match &mut this.state {
            State::Full(bytes) => {
                let bytes = bytes.take();
                this.state = State::Done;
                Poll::Ready(bytes.filter(|b| !b.is_empty()).map(|b| Ok(Frame::data(b))))
            }
            State::Streaming { first, receiver } => {
                if let Some(first) = first.take() {
                    if !first.is_empty() {
                        return Poll::Ready(Some(Ok(Frame::data(first))));
                    }
                }
                match receiver.poll_recv(cx) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(Some(Message::Chunk(bytes))) => {
                        Poll::Ready(Some(Ok(Frame::data(bytes))))
                    }
                    Poll::Ready(Some(Message::End)) => {
                        this.state = State::Done;
                        Poll::Ready(None)
                    }
                    Poll::Ready(Some(Message::Head(_)) | None) => {
                        this.state = State::Done;
                        Poll::Ready(Some(Err(StreamAborted)))
                    }
                }
            }
            State::Done => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.state {
            State::Full(bytes) => bytes.as_ref().is_none_or(Bytes::is_empty),
            State::Streaming { .. } => false,
            State::Done => true,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.state {
            State::Full(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            State::Streaming { .. } => SizeHint::default(),
            State::Done => SizeHint::with_exact(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt;

    use super::*;

    #[tokio::test]
    async fn small_documents_go_out_whole() {
        let (sender, mut receiver) = mpsc::channel(4);
        std::thread::spawn(move || {
            let mut out = Output::new(sender, 1024);
            out.buf.extend_from_slice(b"{}");
            out.finish().expect("receiver alive");
        })
        .join()
        .expect("producer");
        match receiver.recv().await {
            Some(Message::Head(head)) => {
                assert!(head.complete);
                assert_eq!(&head.first[..], b"{}");
            }
            _ => panic!("expected a complete head"),
        }
    }

    #[tokio::test]
    async fn large_documents_stream_in_chunks() {
        let (sender, mut receiver) = mpsc::channel(2);
        let producer = std::thread::spawn(move || {
            let mut out = Output::new(sender, 8);
            for _ in 0..10 {
                out.buf.extend_from_slice(b"0123456789");
                out.maybe_flush()?;
            }
            out.finish()
        });
        let Some(Message::Head(head)) = receiver.recv().await else {
            panic!("expected a head");
        };
        assert!(!head.complete);
        let body = ResponseBody::streaming(head.first, receiver);
        let collected = body.collect().await.expect("complete").to_bytes();
        assert_eq!(collected.len(), 100);
        assert_eq!(producer.join().expect("producer"), Ok(()));
    }

    #[tokio::test]
    async fn a_vanished_producer_aborts_the_body() {
        let (sender, mut receiver) = mpsc::channel(2);
        std::thread::spawn(move || {
            let mut out = Output::new(sender, 1);
            out.buf.extend_from_slice(b"[1,");
            let _ = out.maybe_flush();
            // Dropped without `finish`, as when the producer panics.
        })
        .join()
        .expect("producer");
        let Some(Message::Head(head)) = receiver.recv().await else {
            panic!("expected a head");
        };
        let body = ResponseBody::streaming(head.first, receiver);
        assert!(body.collect().await.is_err());
    }

    #[tokio::test]
    async fn a_gone_client_stops_the_producer() {
        let (sender, receiver) = mpsc::channel(1);
        drop(receiver);
        let result = std::thread::spawn(move || {
            let mut out = Output::new(sender, 1);
            out.buf.extend_from_slice(b"[");
            out.maybe_flush()
        })
        .join()
        .expect("producer");
        assert_eq!(result, Err(ClientGone));
    }
}
