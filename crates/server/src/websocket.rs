//! Bolt over WebSocket on the Bolt listener, as browser drivers speak it: a connection whose
//! first bytes are an HTTP `GET` (Bolt's preamble starts with 0x60, never an ASCII letter) is
//! upgraded to a WebSocket, and from then on Bolt's handshake and chunks travel in binary
//! messages. The framing is tungstenite's; this module only turns the messages back into the
//! byte stream the Bolt session reads ([`WsLink`], carried by [`ClientStream::WebSocket`]), so
//! the session, its deadlines, authentication and metrics are those of plain Bolt.
//!
//! A Bolt message may span WebSocket messages and one WebSocket message may carry several
//! chunks: messages are concatenated, their boundaries mean nothing. Pings are answered (by
//! tungstenite, on the next read) and a close ends the stream like a socket's end.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker, ready};

use bytes::{Buf, Bytes, BytesMut};
use futures_util::{Sink, SinkExt, StreamExt};
use tokio::io::ReadBuf;
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};

use crate::deadline::{Interrupted, Until, race};
use crate::shutdown::ShutdownSignal;
use crate::tls::ClientStream;

/// The first byte of an upgrade request (`GET`).
pub const UPGRADE_FIRST_BYTE: u8 = b'G';

/// Bytes the frame reader allocates up front per connection. tungstenite's default (128 KiB)
/// would make every idle browser connection cost more than a plain one's whole session.
pub const READ_BUFFER_BYTES: usize = 4 * 1024;

/// What one WebSocket connection may send in one message beyond the largest Bolt message:
/// room for its chunk headers and for a few small messages pipelined behind it.
pub const MESSAGE_SLACK_BYTES: usize = 64 * 1024;

/// Why a connection that asked for a WebSocket was not opened.
#[derive(Debug, thiserror::Error)]
pub enum WsUnopened {
    #[error("WebSocket upgrade {0}")]
    Interrupted(#[from] Interrupted),
    #[error("client closed the connection before it was open")]
    Closed,
    #[error("WebSocket upgrade failed: {0}")]
    Upgrade(#[source] tungstenite::Error),
}

/// Limits of one WebSocket connection.
#[derive(Clone, Copy, Debug)]
pub struct WsLimits {
    /// Largest WebSocket message (and frame) accepted; larger ones end the connection.
    pub message_bytes_max: usize,
}

impl WsLimits {
    /// Limits for a listener whose largest Bolt message is `bolt_message_bytes_max`.
    pub fn for_bolt(bolt_message_bytes_max: u64) -> WsLimits {
        let bolt = usize::try_from(bolt_message_bytes_max).unwrap_or(usize::MAX);
        WsLimits {
            message_bytes_max: bolt.saturating_add(MESSAGE_SLACK_BYTES),
        }
    }

    fn config(self) -> WebSocketConfig {
        WebSocketConfig::default()
            .read_buffer_size(READ_BUFFER_BYTES)
            // Every message goes out when written: the session already batches its replies.
            .write_buffer_size(0)
            .max_message_size(Some(self.message_bytes_max))
            .max_frame_size(Some(self.message_bytes_max))
    }
}

/// Opens `stream` as a WebSocket when its first byte is that of an upgrade request; otherwise
/// hands it back unchanged. The upgrade request is read, and the reply written, before
/// `deadline` (the listener's opening deadline: a client dribbling its request is cut when a
/// silent Bolt client would be) or draining.
pub async fn open(
    mut stream: ClientStream,
    limits: WsLimits,
    deadline: Instant,
    shutdown: &ShutdownSignal,
) -> Result<ClientStream, WsUnopened> {
    let first = race(stream.first_byte(), deadline, shutdown, Until::Drain)
        .await?
        .map_err(|_| WsUnopened::Closed)?;
    match first {
        None => Err(WsUnopened::Closed),
        Some(UPGRADE_FIRST_BYTE) => {
            let accept = tokio_tungstenite::accept_hdr_async_with_config(
                stream,
                answer_upgrade,
                Some(limits.config()),
            );
            let socket = race(accept, deadline, shutdown, Until::Drain)
                .await?
                .map_err(WsUnopened::Upgrade)?;
            Ok(ClientStream::WebSocket(Box::new(WsLink {
                socket,
                ahead: BytesMut::new(),
                ended: false,
            })))
        }
        Some(_) => Ok(stream),
    }
}

/// Takes the upgrade as asked: Bolt over WebSocket has no subprotocol name to agree on, and
/// Neo4j serves any path, so drivers configured for it work unchanged.
#[allow(clippy::unnecessary_wraps)] // the shape tungstenite's callback must have
fn answer_upgrade(_request: &Request, response: Response) -> Result<Response, ErrorResponse> {
    Ok(response)
}

/// A WebSocket carrying Bolt, and the payload bytes read ahead of the session.
#[derive(Debug)]
pub struct WsLink {
    socket: WebSocketStream<ClientStream>,
    /// Received, not yet handed out; unallocated when empty.
    ahead: BytesMut,
    /// The client closed (a close message, or the socket's end).
    ended: bool,
}

impl WsLink {
    /// The stream under the WebSocket (plain or TLS).
    pub fn inner(&self) -> &ClientStream {
        self.socket.get_ref()
    }

    /// The first payload byte read ahead and not yet handed out.
    pub(crate) fn first_ahead(&self) -> Option<u8> {
        self.ahead.first().copied()
    }

    /// Reads messages until one brings payload bytes or the stream ends; control messages are
    /// handled on the way (tungstenite queues the pong or the close reply and sends it with
    /// the next read or write).
    pub(crate) fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.ahead.is_empty() && !self.ended {
            match ready!(self.socket.poll_next_unpin(cx)) {
                None | Some(Ok(Message::Close(_))) => self.ended = true,
                Some(Ok(Message::Binary(payload))) => self.ahead.extend_from_slice(&payload),
                Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
                Some(Ok(Message::Text(_))) => {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "a text message on a Bolt WebSocket (Bolt is binary)",
                    )));
                }
                Some(Err(error)) => return Poll::Ready(Err(into_io(error))),
            }
        }
        Poll::Ready(Ok(()))
    }

    pub(crate) fn try_read_buf(&mut self, buffer: &mut BytesMut) -> io::Result<usize> {
        if self.ahead.is_empty() && !self.ended {
            let mut cx = Context::from_waker(Waker::noop());
            if let Poll::Ready(filled) = self.poll_fill(&mut cx) {
                filled?;
            }
        }
        if self.ahead.is_empty() {
            return if self.ended {
                Ok(0)
            } else {
                Err(io::ErrorKind::WouldBlock.into())
            };
        }
        let taken = std::mem::take(&mut self.ahead);
        buffer.extend_from_slice(&taken);
        Ok(taken.len())
    }

    /// Sends `bytes` as one binary message if the WebSocket takes it now.
    pub(crate) fn try_write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut cx = Context::from_waker(Waker::noop());
        match self.poll_send(&mut cx, bytes) {
            Poll::Ready(sent) => sent,
            Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
        }
    }

    pub(crate) async fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.socket
            .send(Message::Binary(Bytes::copy_from_slice(bytes)))
            .await
            .map_err(into_io)
    }

    /// Closes with a close message (or completes the close the client began).
    pub(crate) async fn shutdown(&mut self) -> io::Result<()> {
        match self.socket.close(None).await {
            Ok(())
            | Err(tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed) => {
                Ok(())
            }
            Err(error) => Err(into_io(error)),
        }
    }

    /// Queues `bytes` as one binary message and pushes it towards the socket; what the socket
    /// does not take now goes with the next write or flush.
    fn poll_send(&mut self, cx: &mut Context<'_>, bytes: &[u8]) -> Poll<io::Result<usize>> {
        let mut sink = Pin::new(&mut self.socket);
        ready!(sink.as_mut().poll_ready(cx)).map_err(into_io)?;
        sink.as_mut()
            .start_send(Message::Binary(Bytes::copy_from_slice(bytes)))
            .map_err(into_io)?;
        if let Poll::Ready(Err(error)) = sink.poll_flush(cx) {
            return Poll::Ready(Err(into_io(error)));
        }
        Poll::Ready(Ok(bytes.len()))
    }

    pub(crate) fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(self.poll_fill(cx))?;
        let n = self.ahead.len().min(buf.remaining());
        buf.put_slice(&self.ahead[..n]);
        self.ahead.advance(n);
        if self.ahead.is_empty() {
            self.ahead = BytesMut::new();
        }
        Poll::Ready(Ok(()))
    }

    pub(crate) fn poll_write(
        &mut self,
        cx: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        if bytes.is_empty() {
            return Poll::Ready(Ok(0));
        }
        self.poll_send(cx, bytes)
    }

    pub(crate) fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.socket).poll_flush(cx).map_err(into_io)
    }

    pub(crate) fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match ready!(Pin::new(&mut self.socket).poll_close(cx)) {
            Ok(())
            | Err(tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed) => {
                Poll::Ready(Ok(()))
            }
            Err(error) => Poll::Ready(Err(into_io(error))),
        }
    }
}

fn into_io(error: tungstenite::Error) -> io::Error {
    match error {
        tungstenite::Error::Io(error) => error,
        tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed => {
            io::ErrorKind::BrokenPipe.into()
        }
        other => io::Error::new(io::ErrorKind::InvalidData, other),
    }
}
